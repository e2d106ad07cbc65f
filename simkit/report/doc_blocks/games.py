"""Blocks of docs/games/*.md: quality tables, the default scenario's profile, compensation runs."""
from __future__ import annotations

from simkit.report.doc_blocks import block, ci, pct, policy_args, run_summary, simkit_json


def quality_table(game: str, policies=("greedy",), games: int = 500) -> str:
    from simkit.analysis.quality import PER_GAME
    from simkit.analysis.quality_compare import label
    from simkit.cli.quality_tables import _fmt_of
    from simkit.games import get_game
    runs = {p: simkit_json(f"quality {game} --games {games} --policy {p} --no-progress") for p in policies}
    unit = get_game(game).length_unit
    cmds = " and ".join(f"`simkit quality {game} --games {games}" + ("" if p == "greedy" else f" --policy {p}")
                        + "`" for p in policies)
    head = f"{cmds} ({' and '.join(f'{p} vs {p}' for p in policies)}, seed 0, first player alternating):\n\n"
    lines = ["| metric | " + " | ".join(policies) + " |", "| --- |" + " --- |" * len(policies)]
    for m in PER_GAME:
        f, _ = _fmt_of(m)
        # three decimals in the docs: a machine's floating point can move one game's trajectory, which moved
        # Storm the Castle's doubt share in the fourth decimal (0.5708 here, 0.5710 on another machine)
        f = "{:.3f}" if f == "{:.4f}" else f
        cells = []
        for p in policies:
            q = runs[p]["metrics"][m]
            cells.append("-" if q["mean"] is None else ci(q["mean"], *q["ci"], f))
        lines.append(f"| {label(m, unit)} | " + " | ".join(cells) + " |")
    decided = [f"{runs[p]['metrics']['drama']['games']:,} of {runs[p]['metrics']['lead_changes']['games']:,}"
               for p in policies]
    lines.append("| games (decided: the metrics that need a winner) | " + " | ".join(decided) + " |")
    return head + "\n".join(lines) + "\n"


for _game, _pols in (("martian_chess", ("greedy", "random")), ("skorm", ("greedy",)),
                     ("storm_the_castle", ("greedy",)), ("warfare", ("greedy",))):
    block(f"quality-{_game}", f"docs/games/{_game}.md", "cheap",
          *(f"simkit quality {_game} --games 500 --policy {p}" for p in _pols))(
        lambda g=_game, p=_pols: quality_table(g, p))

def profile(game: str, columns, sets=()) -> str:
    """A table of the default scenario under each column's players ``(policy0, policy1, games)``."""
    from simkit.games import get_game
    spec = get_game(game)
    runs = [(f"{a} vs {b}", n, run_summary(game, (a, b), n, sets)) for a, b, n in columns]
    cmds = "; ".join(f"`simkit run {game} {policy_args((a, b))} --games {n}"
                     + "".join(f" --set {x}" for x in sets) + "`" for a, b, n in columns)
    lines = [f"{cmds} (seed 0, first player alternating):", "",
             "| | " + " | ".join(r[0] for r in runs) + " |", "| --- |" + " --- |" * len(runs)]

    def row(label, f):
        lines.append(f"| {label} | " + " | ".join(f(s) for _, _, s in runs) + " |")
    row("games", lambda s: f"{s['games']:,}")
    row("first-player advantage [95%]", lambda s: ci(s["first_player_advantage"], *s["first_player_advantage_ci"]))
    row("side 0's expected score [95%]", lambda s: ci(s["side0_expected_score"], *s["side0_expected_score_ci"],
                                                      "{:.4f}"))
    row("draw rate [95%]", lambda s: f"{pct(s['draw_rate'])} [{pct(s['draw_rate_ci'][0])}, "
                                     f"{pct(s['draw_rate_ci'][1])}]")
    row(f"mean length ({spec.length_unit})", lambda s: ci(s["mean_plies"], *s["mean_plies_ci"], "{:.1f}"))
    if any(s["quiet_share"] is not None for _, _, s in runs):
        row("games without a capture or kill", lambda s: "-" if s["quiet_share"] is None else pct(s["quiet_share"]))
    row("end reasons", lambda s: ", ".join(f"{r.replace('_', ' ')} {pct(v)}" for r, v in
                                           sorted(s["end_reason_shares"].items(), key=lambda kv: -kv[1]) if v > 0))
    return "\n".join(lines) + "\n"


block("profile-martian_chess", "docs/games/martian_chess.md", "cheap",
      "simkit run martian_chess --policy greedy --games 20000")(
    lambda: profile("martian_chess", [("greedy", "greedy", 20000)]))
block("profile-storm_the_castle", "docs/games/storm_the_castle.md", "cheap",
      "simkit run storm_the_castle --policy greedy --games 4000")(
    lambda: profile("storm_the_castle", [("greedy", "greedy", 4000)]))
block("profile-warfare", "docs/games/warfare.md", "cheap",
      "simkit run warfare --policy greedy --games 2000")(
    lambda: profile("warfare", [("greedy", "greedy", 2000)]))


@block("komi-martian_chess", "docs/games/martian_chess.md", "cheap",
       "simkit run martian_chess --policy P --games N [--set komi=K] [--set clock=leader]")
def _komi():
    rows = [("default", "random", 20000, ()), ("default", "greedy", 20000, ())]
    rows += [(f"komi {k:g}", "greedy", 4000, (f"komi={k}",)) for k in (-1, -0.5, 0.5, 1)]
    rows += [("komi 0.5", "random", 4000, ("komi=0.5",)),
             ("clock leader", "greedy", 20000, ("clock=leader",)), ("clock leader", "random", 20000, ("clock=leader",)),
             ("clock leader, komi 0.5", "random", 20000, ("clock=leader", "komi=0.5"))]
    lines = ["`simkit run martian_chess --policy P --games N [--set ...]` (seed 0, first player alternating):", "",
             "| rules | policy | games | first-player advantage [95%] | draw rate | mean length (plies) |",
             "| --- | --- | ---: | --- | ---: | ---: |"]
    for label, pol, n, sets in rows:
        s = run_summary("martian_chess", (pol, pol), n, sets)
        lines.append(f"| {label} | {pol} | {n:,} | {ci(s['first_player_advantage'], *s['first_player_advantage_ci'])} "
                     f"| {pct(s['draw_rate'])} | {s['mean_plies']:.1f} |")
    return "\n".join(lines) + "\n"


@block("noshoot-skorm", "docs/games/skorm.md", "cheap",
       "simkit matchup skorm --policies greedy,greedy_noshoot --games 2000")
def _noshoot():
    s = simkit_json("matchup skorm --policies greedy,greedy_noshoot --games 2000")
    c = next(c for c in s["cells"] if c["policy"] == "greedy_noshoot")
    return (f"(`simkit matchup skorm --policies greedy,greedy_noshoot --games 2000`, seed 0) it scores "
            f"{ci(c['score'], *c['ci'], '{:.3f}')}: shooting is worth about {0.5 - c['score']:.2f} of expected "
            f"score.\n")


def runs_table(game: str, rows, games: int, what: str = "first_player_advantage") -> str:
    """One `simkit run` per row ``(label, sets, seed)``: the first-player advantage with its interval."""
    lines = [f"`simkit run {game} --games {games} --seed S [--set ...]` (greedy vs greedy):", "",
             "| setting | seed | first-player advantage [95%] |", "| --- | ---: | --- |"]
    for label, sets, seed in rows:
        s = run_summary(game, ("greedy", "greedy"), games, sets, seed)
        lines.append(f"| {label} | {seed} | {ci(s[what], *s[what + '_ci'])} |")
    return "\n".join(lines) + "\n"


@block("warfare-compensation", "docs/games/warfare.md", "slow",
       "simkit run warfare --games 8000 --seed S --set second_player_extra_activations=A "
       "--set second_player_extra_turns=T")
def _warfare_compensation():
    rows = [("none", (), 0), ("none", (), 1)]
    rows += [(f"{a} extra activation{'s' if a > 1 else ''} on {t} turn{'s' if t > 1 else ''}",
              (f"second_player_extra_activations={a}", f"second_player_extra_turns={t}"), 1)
             for a, t in ((2, 1), (3, 1), (1, 5), (2, 5))]
    return runs_table("warfare", rows, 8000)


@block("storm-extra-cards", "docs/games/storm_the_castle.md", "slow",
       "simkit sweep storm_the_castle --vary second_player_extra_cards=0..4 --games 4000")
def _storm_extra_cards():
    s = simkit_json("sweep storm_the_castle --vary second_player_extra_cards=0..4 --games 4000")
    cells = s["rows"]
    head = "| `second_player_extra_cards` | " + " | ".join(str(c["second_player_extra_cards"]) for c in cells) + " |"
    return ("`simkit sweep storm_the_castle --vary second_player_extra_cards=0..4 --games 4000` (greedy, seed 0):\n\n"
            + head + "\n| --- |" + " --- |" * len(cells) + "\n| first-player advantage [95%] | "
            + " | ".join(ci(c["first_player_advantage"], c["first_player_advantage_ci_lo"],
                            c["first_player_advantage_ci_hi"], "{:+.3f}") for c in cells) + " |\n")


def ban_table(game: str, games: int = 500) -> str:
    """What each action class is worth to greedy: greedy against ``ban:CLASS:greedy`` for every class."""
    from simkit.games import get_game
    rows = ["| policy | its score against greedy [95%] | draws |", "| --- | --- | ---: |"]
    for c in get_game(game).action_classes:
        s = simkit_json(f"matchup {game} --policies ban:{c}:greedy,greedy --games {games} --seed 0 --no-progress")
        cell = next(x for x in s["cells"] if x["policy"] == f"ban:{c}:greedy")
        rows.append(f"| `ban:{c}:greedy` | {ci(cell['score'], *cell['ci'], '{:.3f}')} | {pct(cell['draw_rate'])} |")
    return (f"`simkit matchup {game} --policies ban:CLASS:greedy,greedy --games {games} --seed 0` for each class "
            f"(both seat orders):\n\n" + "\n".join(rows) + "\n")


for _game in ("skorm", "storm_the_castle", "warfare"):
    block(f"ban-{_game}", f"docs/games/{_game}.md", "slow",
          f"simkit matchup {_game} --policies ban:CLASS:greedy,greedy --games 500 --seed 0")(
        lambda g=_game: ban_table(g))


def ban_search(game: str, cls: str, budget: int = 100, games: int = 40) -> str:
    """What one action class is worth to the search: ``ban:CLASS:mcts:N`` against ``mcts:N``."""
    pol = f"ban:{cls}:mcts:{budget}"
    cmd = f"matchup {game} --policies {pol},mcts:{budget} --games {games} --seed 0 --no-progress"
    s = simkit_json(cmd)
    cell = next(x for x in s["cells"] if x["policy"] == pol)
    return (f"`simkit {cmd.replace(' --no-progress', '')}`: `{pol}` scores {ci(cell['score'], *cell['ci'], '{:.3f}')} "
            f"against `mcts:{budget}`, {pct(cell['draw_rate'])} of the games drawn.\n")


for _game, _cls in (("skorm", "gold"), ("storm_the_castle", "attack")):
    block(f"ban-mcts-{_game}", f"docs/games/{_game}.md", "mcts",
          f"simkit matchup {_game} --policies ban:{_cls}:mcts:100,mcts:100 --games 40 --seed 0")(
        lambda g=_game, c=_cls: ban_search(g, c))
