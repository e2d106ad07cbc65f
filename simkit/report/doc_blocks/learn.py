"""Blocks of docs/learn.md: `simkit learn` on every game's default scenario and on the variant that makes one
unit type much stronger or weaker (the weights, their intervals, held-out log-loss, the acceptance matches,
and how far the unit's weight moved from the default rules' fit).

The two learn commands are the first two of each game's learn-compare example
(simkit/report/analysis_examples.py: learn both, then compare and values under --eval default and learned);
a block reads their learn.json from runs/examples/ and runs the example first when it is not there, so the
docs and the committed report quote one computation."""
from __future__ import annotations

import functools
import json
import math
from pathlib import Path

from simkit.report.doc_blocks import block

Z95 = 1.959963984540054


@functools.lru_cache(maxsize=None)
def _learned(game: str, which: int):
    """The learn result of the example's command ``which`` (0: the default scenario, 1: the variant)."""
    from simkit.analysis.learn import LearnResult
    from simkit.report import analysis_examples as ex
    name = ex.learn_example_name(game)
    runs = Path("runs/examples")
    path = runs / name / ex.subdir(ex.EXAMPLES[name], which) / "learn.json"
    if not path.exists():
        ex.run_example(name, runs, Path("reports"))
    return LearnResult.from_dict(json.loads(path.read_text()))


def _text(game: str, which: int) -> str:
    from simkit.analysis.learn import markdown
    from simkit.report import analysis_examples as ex
    cmd = ex.EXAMPLES[ex.learn_example_name(game)][which]
    body = markdown(_learned(game, which)).replace("## ", "#### ", 1)
    return f"```sh\nsimkit {' '.join(cmd)}\n```\n\n{body}"


def _moved(game: str, name: str, unit: str) -> str:
    """The unit's learned weight on the default rules and on the variant, and their difference (two
    independent fits: the standard errors add in quadrature)."""
    d, v = _learned(game, 0), _learned(game, 1)
    i = d.features.index(f"material:{unit}")
    wd, sd = d.fit["weights"][i], d.fit["se"][i]
    wv, sv = v.fit["weights"][i], v.fit["se"][i]
    diff, se = wv - wd, math.hypot(sd, sv)
    text = (f"The {unit}'s learned weight: {wd:.3f} [{wd - Z95 * sd:.3f}, {wd + Z95 * sd:.3f}] on the default "
            f"rules, {wv:.3f} [{wv - Z95 * sv:.3f}, {wv + Z95 * sv:.3f}] in {name}: moved by {diff:+.3f} "
            f"[{diff - Z95 * se:+.3f}, {diff + Z95 * se:+.3f}].\n")
    from simkit.games import get_game
    ref = get_game(game).reference_unit
    if ref and ref != unit:
        # a weight's size also carries how decisive material is in the variant (the logistic link's scale):
        # the unit's worth in reference units is the ratio, as `simkit values` reports it (Fieller intervals)
        (rd, cd), (rv, cv) = _ratio(d, unit, ref), _ratio(v, unit, ref)
        fmt = lambda r, c: f"{r:.2f} " + (f"[{c[0]:.2f}, {c[1]:.2f}]" if c else "[unbounded]")
        apart = cd and cv and (cv[0] > cd[1] or cv[1] < cd[0])
        text += (f"Its worth in {ref} units (the ratio of the two weights, Fieller intervals): {fmt(rd, cd)} on the "
                 f"default rules, {fmt(rv, cv)} in {name}{': the intervals do not overlap' if apart else ''}.\n")
    return text


def _ratio(res, unit: str, ref: str):
    """The unit's weight over the reference unit's in one fit, with Fieller's interval (the fit's covariance)."""
    from simkit.analysis.stats import fieller
    i, j = res.features.index(f"material:{unit}"), res.features.index(f"material:{ref}")
    w, cov = res.fit["weights"], res.fit["cov"]
    return w[i] / w[j], fieller(w[i], w[j], cov[i][i], cov[j][j], cov[i][j])


def _register(game: str):
    from simkit.report.analysis_examples import LEARN_VARIANTS
    example = "python -m simkit.report.analysis_examples learn-compare-" + game.replace("_", "-")
    block(f"learn-{game}", "docs/learn.md", "slow", example)(lambda: _text(game, 0))
    name, unit = LEARN_VARIANTS[game]
    block(f"learn-{game}-{name}", "docs/learn.md", "slow", example)(
        lambda: _text(game, 1) + "\n" + _moved(game, name, unit))


GAMES = ("martian_chess", "skorm", "storm_the_castle", "warfare")
for _g in GAMES:
    _register(_g)


def _table_block(name: str, head: str, rows_of) -> None:
    """A block of docs/learn.md: one table over every game's learn-compare example, ``rows_of(game)`` its rows."""
    block(name, "docs/learn.md", "slow",
          *("python -m simkit.report.analysis_examples learn-compare-" + g.replace("_", "-") for g in GAMES))(
        lambda: head + "\n".join(r for g in GAMES for r in rows_of(g)) + "\n")


def _result(game: str, which: int, fname: str) -> dict | None:
    """A command's result in the example, or None when the example skipped it (no learned evaluation)."""
    from simkit.report import analysis_examples as ex
    name = ex.learn_example_name(game)
    _learned(game, 0)              # runs the example when it has not been run
    path = Path("runs/examples") / name / ex.subdir(ex.EXAMPLES[name], which) / fname
    return json.loads(path.read_text()) if path.exists() else None


def _bias_rows(game: str) -> list[str]:
    from simkit.report.analysis_examples import LEARN_VARIANTS
    name, unit = LEARN_VARIANTS[game]
    rows = []
    base_ok, variant_ok = _learned(game, 0).accepted, _learned(game, 1).accepted
    for which, ev in ((2, "default"), (3, "learned")):
        c = _result(game, which, "compare.json")
        if ev == "learned" and not variant_ok:
            rows.append(f"| {game} ({name}) | {ev} | no learned evaluation: learn rejected the variant's weights "
                        f"(below 0.5 in a match at every step) | | | |")
            continue
        if ev == "learned" and not base_ok:
            ev = "learned (the default rules: hand-set, learn rejected their fit)"
        d = c["differences"]["first_player_advantage"]
        draws = c["differences"].get("draw_rate")
        v = _result(game, which + 2, "values.json")
        abl = v["ablation"].get(unit) or {}
        rank = " > ".join(v["ranking"]["ablation"])
        dr = "" if not draws else (f"{100 * draws['diff']:+.1f} pp [{100 * draws['ci'][0]:+.1f}, "
                                   f"{100 * draws['ci'][1]:+.1f}]")
        av = "—" if not abl else f"{abl['value']:+.4f} [{abl['ci'][0]:+.4f}, {abl['ci'][1]:+.4f}]"
        rows.append(f"| {game} ({name}) | {ev} | {d['diff']:+.4f} [{d['ci'][0]:+.4f}, {d['ci'][1]:+.4f}] "
                    f"({d['verdict']}) | {dr} | {av} | {rank} |")
    return rows


_table_block("learn-bias", "| game (variant) | players' evaluation | first-player advantage, variant - default [95%] | "
             "draw rate, variant - default | the unit's ablation value in the variant [95%] | ablation ranking in the "
             "variant |\n| --- | --- | --- | --- | --- | --- |\n", _bias_rows)


def _verdict(lo: float, hi: float) -> str:
    return "learned stronger" if lo > 0.5 else ("learned weaker" if hi < 0.5 else "no difference shown")


def _beats_rows(game: str) -> list[str]:
    """The variant's two matchups (the example's last two commands: greedy, then the search that judges learned
    weights), each learned player against each default one; then the default rules' acceptance matches."""
    from simkit.report import analysis_examples as ex
    name, _unit = ex.LEARN_VARIANTS[game]
    n = len(ex.EXAMPLES[ex.learn_example_name(game)])
    rows = []
    for which in (n - 2, n - 1):
        m = _result(game, which, "matchup.json")
        if m is None:
            rows.append(f"| {game} | {name} | no learned evaluation: learn rejected the variant's weights | | | |")
            continue
        for c in m["cells"]:
            p, q = c["policy"].rsplit("@", 1), c["opponent"].rsplit("@", 1)
            # the learned player against the same player on the hand-set weights, and against the default search
            if p[1] == "learned" and q[1] == "default" and (p[0] == q[0] or q[0] == "mcts:50"):
                lo, hi = c["ci"]
                rows.append(f"| {game} | {name} | {c['policy']} vs {c['opponent']} | {c['score']:.3f} [{lo:.3f}, "
                            f"{hi:.3f}] | {c['games']:,} | {_verdict(lo, hi)} |")
    d = _learned(game, 0)
    for m in d.matches:
        lo, hi = m["ci"]
        rows.append(f"| {game} | default rules (learn's acceptance, step {d.step:g}) | {m['policy']}@learned vs "
                    f"{m['policy']}@default | {m['score']:.3f} [{lo:.3f}, {hi:.3f}] | {m['games']:,} | "
                    f"{_verdict(lo, hi) if d.accepted else 'rejected: the default weights stay'} |")
    return rows


_table_block("learn-beats", "| game | rules | match (both seat orders, common seeds) | learned's score [95%] | pairs "
             "| verdict |\n| --- | --- | --- | --- | ---: | --- |\n", _beats_rows)


# the search a designer balances with (mcts:400) on learned weights against the default one: each game's rules and
# variant whose learned weights learn accepted, its games per seat order (a Storm or Warfare! game costs seconds)
SEARCH_400_GAMES = {"martian_chess": 200, "skorm": 200, "storm_the_castle": 100, "warfare": 100}


def _search_400_cells() -> list[tuple]:
    """(game, target, search, games) of every accepted learned evaluation of the examples; the search is the game's
    learn_search at budget 400 (Martian Chess's reads the weights through greedy priors)."""
    from simkit.games import get_game
    from simkit.report.analysis_examples import LEARN_VARIANTS
    cells = []
    for game, n in SEARCH_400_GAMES.items():
        search = get_game(game).learn_search.replace("mcts:50", "mcts:400", 1)
        for which, target in ((0, game), (1, f"scenarios/{game}/{LEARN_VARIANTS[game][0]}.toml")):
            if _learned(game, which).accepted:
                cells.append((game, target, search, n))
    return cells


@block("learn-search-400", "docs/learn.md", "mcts",
       "python -m simkit.report.analysis_examples learn-compare-GAME (each game's store of learned weights)",
       "simkit matchup TARGET --policies SEARCH@learned,mcts:400@default --games N for each rules and variant whose "
       "weights learn accepted (SEARCH_400_GAMES)")
def _search_400():
    """mcts:400 on learned weights against the default mcts:400, with the weights each game's example stored."""
    import os
    from unittest import mock
    from simkit.report import analysis_examples as ex
    from simkit.report.doc_blocks import simkit_json
    lines = ["| game: rules | match (both seat orders, common seeds) | learned's score [95%] | draws | pairs |",
             "| --- | --- | --- | ---: | ---: |"]
    for game, target, search, n in _search_400_cells():
        store = (Path("runs/examples") / ex.learn_example_name(game) / "store").resolve()
        with mock.patch.dict(os.environ, {"SIMKIT_EVALUATIONS": str(store)}):
            m = simkit_json(f"matchup {target} --policies {search}@learned,mcts:400@default --games {n}")
        c = next(c for c in m["cells"] if c["policy"].endswith("@learned"))
        rules = "default rules" if target == game else Path(target).stem
        lines.append(f"| {game}: {rules} | {c['policy']} vs {c['opponent']} | {c['score']:.3f} "
                     f"[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] | {100 * c['draw_rate']:.1f}% | {c['games']:,} |")
    return "\n".join(lines) + "\n"
