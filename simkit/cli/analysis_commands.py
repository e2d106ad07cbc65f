"""The analysis commands: compare, sweep, values, matchup (docs/metrics.md has the formulas)."""
from __future__ import annotations

import math
import time
from pathlib import Path

import click

from simkit.cli import cli
from simkit.cli.options import (PYTHON_POLICY_HELP, backend_options, play_options, policies_of, precision_option,
                                scenario_options, tolerance_option)
from simkit.cli.quality_tables import quality_options
from simkit.cli.longrun import long_command
from simkit.cli.progress import progress_option
from simkit.policies import FIRST_MODES
from simkit.errors import UsageError


def _echo_json(obj):
    import json
    from simkit.backends.store import _jsonable
    click.echo(json.dumps(obj, indent=2, default=_jsonable))


def _out_dir(kind: str, name: str, out, no_save) -> Path | None:
    if no_save:
        return None
    if out:
        return Path(out)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in name)[:60]
    base = Path("runs") / f"{kind}-{safe}-{stamp}"
    path, k = base, 1
    while path.exists():
        path, k = Path(f"{base}-{k}"), k + 1
    return path


def _label(scenario) -> str:
    """'Storm the Castle: second_player_dispatch_bonus=2': the game and the variant with its
    overrides as --set takes them (two variants never share a label)."""
    from simkit.report.fmt import game_variant
    return game_variant(scenario.spec.title, scenario.name, scenario.overrides)


def _console():
    """The shared console, at least 120 columns wide when not on a terminal (tables stay readable in logs)."""
    from simkit.cli.show import console
    c = console()
    if not c.is_terminal and c.width < 120:
        c.width = 120
    return c


def _esc(text) -> str:
    from rich.markup import escape
    return escape(str(text))


def _num(x, fmt="{:+.4f}") -> str:
    from simkit.report.fmt import MISSING, missing
    return MISSING if missing(x) else fmt.format(x)


def _p(p) -> str:
    from simkit.report.fmt import p_value
    return p_value(p)


def _save_opts(f):
    f = click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")(f)
    f = click.option("--no-save", is_flag=True, help="Write no result directory.")(f)
    f = click.option("--out", type=click.Path(file_okay=False), default=None,
                     help="Result directory (default: runs/<command>-<scenario>-<time>).")(f)
    return f


# ---------------------------------------------------------------------------------- compare

@cli.command()
@click.argument("targets", nargs=-1, metavar="A [B]")
@play_options
@click.option("--set-a", "sets_a", multiple=True, metavar="KEY=VALUE", help="Override for A only (repeatable).")
@click.option("--set-b", "sets_b", multiple=True, metavar="KEY=VALUE", help="Override for B only (repeatable).")
@precision_option
@tolerance_option
@backend_options
@_save_opts
@click.option("--skill", default=None, metavar="P1,P2,...",
              help="Repeat the comparison at each skill level (both sides play it; same seeds) and say, per "
                   "metric, whether B - A is stable, converging or reversing over skill.")
@click.option("--luck", default=None, metavar="P1,P2,...",
              help="Compare luck and skill instead (simkit luck on A and B): a round robin of these players, weakest "
                   "first, --games per seat order of each pair; the last one replays 100 seeds x 4 (docs/skill.md, "
                   "\"Luck\").")
@quality_options
@progress_option
@long_command
def compare(targets, sets, games, seed, policy, policy0, policy1, first, threads, chunk_size, snapshot_ply,
            sets_a, sets_b, precision, tolerance, backend, workers, scheduler, out, no_save, as_json, skill,
            luck, quality, quality_games, progress, lr):
    """Compare two scenarios on common random numbers: same seeds, game indices and policies.

    A and B are game names or scenario files of one game; with one TARGET,
    --set-a/--set-b make the two variants (they must differ). --set applies to both.
    Differences are B - A, paired per game, with 95% intervals, p-values and Holm's
    correction over the metrics; the verdict names every change that is significant
    and at least its practical threshold, largest first. --quality also traces
    --quality-games games of each variant (same seeds) and compares the game-quality
    metrics (docs/quality.md): B - A, 95% intervals, Holm over the metrics.
    Ctrl-C keeps the finished chunks; --resume --out DIR finishes the comparison.

    \b
    Examples:
      simkit compare martian_chess scenarios/martian_chess/clock_off.toml --games 50000
      simkit compare martian_chess --set-b max_plies=30 --policy greedy --games 2000 --quality --quality-games 100
      simkit compare martian_chess --set-b clock=leader --policy random --precision 0.005
      simkit compare martian_chess --set-b field_promotion=false --policy random --tolerance 0.02
      simkit compare skorm --set-b archer_range=3 --backend dask --workers 2
      simkit compare warfare --set-b activations=4 --games 200 --skill greedy,mcts:100
      simkit compare warfare --set-b mod_tree_defense=3 --games 100 --luck random,greedy,mcts:100
      simkit compare --resume --out runs/my-compare
    """
    from simkit.analysis.compare import compare as run_compare
    from simkit.engine.runner import RunConfig
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    lr.require(targets=targets)
    if len(targets) > 2:
        raise UsageError(f"compare takes one or two targets (A [B]), got {len(targets)}")
    ta = targets[0]
    tb = targets[1] if len(targets) == 2 else targets[0]
    a = load_scenario(ta, list(sets) + list(sets_a))
    b = load_scenario(tb, list(sets) + list(sets_b))
    from simkit.analysis.compare import same_rules
    from simkit.analysis.metrics import check_precision, check_tolerance
    check_precision(precision)
    check_tolerance(tolerance)
    if a.game != b.game:
        raise UsageError(f"compare needs two variants of one game; got {a.game} and {b.game}")
    if same_rules(a, b):
        raise UsageError(f"A and B resolve to identical rules of {a.game} (nothing to compare): "
                         f"change B with --set-b KEY=VALUE or give another scenario")
    pols = policies_of(policy, policy0, policy1)
    config = RunConfig(games=games, seed=seed, policies=pols, first=first, chunk_size=chunk_size,
                       snapshot_ply=snapshot_ply)
    la, lb = _label(a), _label(b)
    out_dir = _out_dir("compare", f"{a.name}-vs-{b.name}", out, no_save)
    from simkit.engine.runner import validate_config
    validate_config(a.spec, config)      # option errors before any cluster starts
    if luck:
        if skill or precision is not None or tolerance is not None or backend or scheduler or quality:
            raise UsageError("--luck runs its own measurement: drop --skill, --precision, --tolerance, --backend "
                             "and --quality")
        return _compare_luck(a, b, (la, lb), luck, config, threads, out_dir, as_json, progress, lr)
    if skill:
        if precision is not None or tolerance is not None or backend or scheduler or quality:
            raise UsageError("--skill runs locally to completion: drop --precision, --tolerance, --backend "
                             "and --quality")
        levels = skill.split(",")
        from simkit.analysis.skill import order_parts, skill_compare
        lr.size(Plan("compare", len(levels), "levels", [Part(a.game, (lvl, lvl), games, 2) for lvl in levels]
                     + order_parts(a.game, levels, games), threads=threads))
        from simkit.cli.skill_commands import print_skill
        with lr.progress(progress):
            res = skill_compare(a, b, levels, config, threads=threads, out_dir=lr.work(out_dir), labels=(la, lb))
        if as_json:
            return _echo_json(res.summary())
        print_skill(res, f"B - A over skill\nA = {_esc(la)}\nB = {_esc(lb)}\n({config.games:,} games per level, "
                         f"seed {config.seed}; below the line: how games end)", differences=True,
                    unit=a.spec.length_unit)
        if out_dir:
            click.echo(f"skill directory: {out_dir} (skill.json; one compare directory per level)")
        return None
    lr.size(Plan("compare", 2, "variants", [Part(a.game, pols, games, 2)]
                 + ([Part(a.game, pols, quality_games, 2, traced=True)] if quality else []), threads=threads,
                 early_stop=precision is not None))
    from simkit.backends.dask import make_backend
    with make_backend(backend, scheduler, workers, threads) as be, lr.progress(progress):
        res = run_compare(a, b, config, threads=threads, out_dir=lr.work(out_dir), precision=precision,
                          labels=(la, lb), backend=be, tolerance=tolerance, progress=False,
                          quality_games=quality_games if quality else None,
                          log=None if as_json else (lambda m: click.echo(m, err=True)))
    s = res.summary()
    if as_json:
        _echo_json(s)
    else:
        _print_compare(res, s, out_dir)
        if res.quality is not None:
            from simkit.cli.quality_tables import print_quality_compare
            print_quality_compare(res.quality, out_dir)


def _compare_luck(a, b, labels, luck, config, threads, out_dir, as_json, progress, lr):
    """compare --luck: `simkit luck` on A and B (analysis/luck.py), B - A of the seed's share and skill span."""
    from dataclasses import replace
    from simkit.analysis.luck import study
    from simkit.analysis.matchup import check_policies
    from simkit.cli.luck_commands import show_luck
    from simkit.plan import Part, Plan
    names = check_policies(a.spec, luck.split(","))
    pairs = [(q, p) for i, p in enumerate(names) for q in names[i + 1:]]
    lr.size(Plan("compare", 2, "variants", [Part(a.game, seats, config.games) for _ in (a, b) for q, p in pairs
                                            for seats in ((q, p), (p, q))], threads=threads))
    with lr.progress(progress):
        res = study([(f"A = {labels[0]}", a), (f"B = {labels[1]}", b)], names,
                    replace(config, policies=(names[0], names[0])), seeds=100, replays=4, player=names[-1],
                    threads=threads, out_dir=lr.work(out_dir))
    show_luck(res, out_dir, as_json)


def _print_compare(res, s, out_dir):
    from rich.table import Table
    from simkit.cli.analysis_commands import _console as console
    from simkit.report import fmt
    c = console()
    sa, sb = s["a"], s["b"]
    cfg = res.a.config
    t = Table(title=f"A = {_esc(s['labels'][0])}\nB = {_esc(s['labels'][1])}\n"
                    f"({_esc(fmt.context(cfg.policies, cfg.first, cfg.seed, s['games']))} each)", header_style="bold")
    for col in ("metric", "A", "B", "B - A  [95% CI]", "p", "p (Holm)", "practical"):
        t.add_column(col, justify="left" if col in ("metric", "practical") else "right")
    names = {"side0_expected_score": "side 0 expected score", "first_player_advantage": "first-player adv.",
             "side0_win_rate": "side 0 wins", "first_player_win_rate": "first player wins", "draw_rate": "draws",
             "mean_plies": f"mean {sa['length_unit']}"}
    style = {"matters": "bold red", "significant but negligible": "yellow", "not significant": ""}

    from simkit.analysis.compare import from_draws
    explained = from_draws(s["differences"]) if s["differences"] else []

    def row(m, d, name, a, b, end_section=False):
        v = d.get("verdict", "")
        thr = f" (>= {fmt.metric_diff(m, d['threshold']).lstrip('+')})" if v == "matters" else \
            f" (< {fmt.metric_diff(m, d['threshold']).lstrip('+')})" if v == "significant but negligible" else ""
        thr += ", from the draws" if m in explained else ""
        t.add_row(name, fmt.metric_value(m, a), fmt.metric_value(m, b),
                  f"{fmt.metric_diff(m, d['diff'])} {fmt.metric_diff_ci(m, *d['ci']).removesuffix(' pp')}",
                  _p(d["p_value"]), _p(d.get("p_holm")), f"[{style.get(v, '')}]{v}{thr}[/]" if style.get(v) else v,
                  end_section=end_section)
    diffs = list(s["differences"].items())
    for i, (m, d) in enumerate(diffs):
        row(m, d, names.get(m, m), sa[m], sb[m], end_section=i == len(diffs) - 1)
    effects = s.get("side_effects") or {}
    from simkit.analysis.side_effects import label
    for m, d in effects.items():          # how games end: the cap rate and each end reason that happens
        row(m, d, "capped" if m == "cap_rate" else label(m), d["a"], d["b"])
    c.print(t)
    c.print(f"p (Holm): adjusted over the {len(s['differences'])} metrics above the line"
            + (f" and, apart, over the {len(effects)} ways games end below it (capped: "
               f"{', '.join(res.a.scenario.spec.cap_reasons)})" if effects else "")
            + "; 'practical' compares |B - A| with the threshold a designer would act on (docs/metrics.md)")
    never = [r for r in res.a.scenario.spec.end_reasons if f"end_{r}" not in effects]
    if effects and never:
        c.print(f"never in A or B: {', '.join(never)}")
    if s.get("precision") is not None:
        c.print(f"--precision {s['precision']}: " + ("reached" if s["stopped_at_precision"] else "not reached")
                + f" after {s['games']:,} games each")
    eq = s.get("equivalence")
    if eq:
        tol = eq["tolerance"]
        for m, e in eq["difference"].items():
            lo, hi = e["ci90"]
            c.print(f"--tolerance {tol:g}: {names.get(m, m)} B - A 90% CI {fmt.metric_diff_ci(m, lo, hi)}: "
                    f"{e['verdict']}")
        for k, e in eq["fairness"].items():
            lo, hi = e["ci90"]
            c.print(f"--tolerance {tol:g}: {k.upper()} first-player advantage 90% CI "
                    f"{fmt.interval(lo, hi, fmt.advantage)}: "
                    f"{e['verdict']}")
    c.print(f"verdict: {_esc(s['verdict'])}")
    from simkit.analysis.degenerate import tally_flags
    for which, run in (("A", res.a), ("B", res.b)):
        for f in tally_flags(run.tally, run.config.policies):
            c.print(f"[yellow]degenerate play ({which}):[/yellow] {_esc(f['message'])}")
    if out_dir:
        c.print(f"compare directory: {out_dir}")


# ------------------------------------------------------------------------------------ sweep

@cli.command()
@click.argument("target", required=False)
@click.option("--vary", "varies", multiple=True, metavar="KEY=V1,V2|A..B",
              help="A rule option and its values (repeatable; the grid is every combination). "
                   "A..B is the integers A to B.")
@play_options
@precision_option
@backend_options
@_save_opts
@quality_options
@progress_option
@long_command
def sweep(target, varies, sets, games, seed, policy, policy0, policy1, first, threads, chunk_size, snapshot_ply,
          precision, backend, workers, scheduler, out, no_save, as_json, quality, quality_games, progress, lr):
    """Run TARGET for every combination of the --vary values; one row of metrics per cell.

    Every cell uses the same seed (common random numbers). Writes sweep.parquet and
    sweep.csv (the varied keys, then each metric with _ci_lo/_ci_hi). --quality also
    traces --quality-games games per cell (same seeds) and adds each game-quality metric
    with its 95% interval (quality_<metric>, _ci_lo, _ci_hi; sweep_quality.csv/.json).
    Prints its size first and refuses more than 1,000 cells or an estimated hour without
    --yes; Ctrl-C keeps the finished cells and chunks, --resume --out DIR finishes the sweep.

    \b
    Examples:
      simkit sweep martian_chess --vary deadlock_plies=8..20 --games 20000
      simkit sweep warfare --vary activations=2..4 --policy greedy --games 400 --quality --quality-games 60
      simkit sweep martian_chess --vary clock=deadlock,leader,off --vary field_promotion=true,false
      simkit sweep storm_the_castle --vary dispatch_points=2..6 --scheduler tcp://10.0.0.5:8786
      simkit sweep --resume --out runs/my-sweep
    """
    from simkit.analysis.metrics import check_precision
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    from simkit.scenario.sweep import parse_grid
    lr.require(target=target)
    check_precision(precision)
    base = load_scenario(target, list(sets))
    keys, grid = parse_grid(list(varies), base.spec)
    pols = policies_of(policy, policy0, policy1)
    cells = len(grid)
    lr.size(Plan("sweep", cells, "cells", [Part(base.game, pols, games, cells)]
                 + ([Part(base.game, pols, quality_games, cells, traced=True)] if quality else []), threads=threads,
                 early_stop=precision is not None))
    from simkit.analysis.sweep import sweep as run_sweep
    from simkit.engine.runner import RunConfig
    config = RunConfig(games=games, seed=seed, policies=pols, first=first, chunk_size=chunk_size,
                       snapshot_ply=snapshot_ply)
    out_dir = _out_dir("sweep", f"{base.game}-{base.name}", out, no_save)
    log = None if as_json else (lambda m: click.echo(m, err=True))
    from simkit.backends.dask import make_backend
    with make_backend(backend, scheduler, workers, threads) as be, lr.progress(progress):
        # every cell is checked before anything plays (simkit.analysis.sweep.check_cells)
        res = run_sweep(target, keys, grid, config, base_sets=list(sets), threads=threads, out_dir=lr.work(out_dir),
                        precision=precision, progress=False, log=log, backend=be,
                        quality_games=quality_games if quality else None)
    if as_json:
        _echo_json(res.summary())
    else:
        _print_sweep(res, base, out_dir)
        if res.quality:
            from simkit.cli.quality_tables import print_sweep_quality
            print_sweep_quality(res, base.spec, out_dir)


def _print_sweep(res, base, out_dir):
    from rich.table import Table
    from simkit.cli.analysis_commands import _console as console
    from simkit.report import fmt
    c = console()
    cfg = res.config
    t = Table(title=_esc(f"Sweep of {fmt.game_variant(base.spec.title, base.name, base.overrides)} over "
                         f"{', '.join(res.keys)} ({fmt.context(cfg.policies, cfg.first, cfg.seed)}; games per cell "
                         f"in the table)"), header_style="bold")
    for k in res.keys:
        t.add_column(k)
    for col in ("games", "FPA", "±95%", "p (Holm)", "FPA practical", "side 0 wins"):
        t.add_column(col, justify="left" if col == "FPA practical" else "right")
    style = {"matters": "bold red", "negligible": "yellow"}
    for r in res.rows:
        hw = (r["first_player_advantage_ci_hi"] - r["first_player_advantage_ci_lo"]) / 2
        v = r.get("first_player_advantage_significance", "")
        t.add_row(*[_esc(fmt.option_value(r[k])) for k in res.keys], fmt.count(r["games"]),
                  fmt.advantage(r["first_player_advantage"]), fmt.advantage(hw).lstrip("+"),
                  _p(r.get("first_player_advantage_p_holm")),
                  f"[{style[v]}]{v}[/]" if v in style else v,
                  fmt.rate(r["side0_win_rate"]))
    c.print(t)
    from simkit.analysis.metrics import PRACTICAL
    c.print(f"p (Holm): the FPA = 0 tests adjusted over the {len(res.rows)} cells; 'matters' = significant after "
            f"Holm and |FPA| >= {PRACTICAL['first_player_advantage']:g}, 'negligible' = significant but smaller")
    print_side_effects(c, res.keys, res.rows, res.summaries, base.spec,
                       f"Side effects per cell: game length, draws and how games end "
                       f"({_esc(fmt.context(cfg.policies))}; share of games with its 95% interval)")
    if out_dir:
        c.print(f"sweep directory: {out_dir} (sweep.parquet, sweep.csv)")


def print_side_effects(c, keys, rows, summaries, spec, title: str, labels=None):
    """One row per setting (``rows``: its key values; ``labels``: names instead of keys): mean length,
    draws, capped games and each end reason that ends a game of any setting, each with its 95%
    interval (`side_effects.of_summary`), and a line naming the end reasons that never happen."""
    from rich.table import Table
    from simkit.analysis.side_effects import end_key, label, of_summary, seen_reasons
    from simkit.report import fmt
    reasons = seen_reasons(summaries)
    t = Table(title=title, header_style="bold")
    for k in (["setting"] if labels else keys):
        t.add_column(k)
    cols = [("mean_plies", f"mean {spec.length_unit}", fmt.length), ("draw_rate", "draws", fmt.rate),
            ("cap_rate", "capped", fmt.rate)] + [(end_key(r), label(end_key(r)), fmt.rate) for r in reasons]
    for _, name, _ in cols:
        t.add_column(_esc(name), justify="right")
    for i, s in enumerate(summaries):
        fx = of_summary(s)
        head = [labels[i]] if labels else [_esc(fmt.option_value(rows[i][k])) for k in keys]
        t.add_row(*head, *[fmt.with_ci(*fx[m], kind=kind, sentence=False) for m, _, kind in cols])
    c.print(t)
    never = [r for r in spec.end_reasons if r not in reasons]
    c.print(f"capped: ended by {', '.join(spec.cap_reasons) or 'no cap (this game has none)'}"
            + (f"; never ends any game here: {', '.join(never)}" if never else ""))


# ----------------------------------------------------------------------------------- values

@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--games", "-n", type=int, default=50_000, show_default=True,
              help="Games per run (base and each ablation).")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed (shared by every run).")
@click.option("--policy", default="random", show_default=True,
              help="Policy of both sides (random is the robust default; greedy measures skilled play).")
@click.option("--policy0", default=None, help="Policy of side 0 (overrides --policy).")
@click.option("--policy1", default=None, help="Policy of side 1 (overrides --policy).")
@click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--chunk-size", type=int, default=None, help="Games per chunk.")
@click.option("--snapshot-ply", type=int, default=None,
              help="Ply (or turn) of the material snapshot for the regression "
                   "(default: the game's, else half the median game length of a 2,000-game pilot).")
@click.option("--pair", default=None, metavar="A,B",
              help="Instead: the direct paired test 'is unit A worth more than unit B' (one A or one B removed "
                   "from the same side, same seeds).")
@_save_opts
@click.option("--skill", default=None, metavar="P1,P2,...",
              help="Repeat the measurement at each skill level (both sides play it; same seeds) and say, per "
                   "unit value, whether it is stable, converging or reversing over skill.")
@progress_option
@long_command
def values(target, sets, games, seed, policy, policy0, policy1, first, threads, chunk_size, snapshot_ply,
           pair, out, no_save, as_json, skill, progress, lr):
    """Unit values of TARGET three ways: ablation (remove one unit, paired runs), regression, and the
    material weights `simkit learn` fitted for the variant (when it has them).

    Ablation: change in a side's expected score when it has one unit more (base minus
    one removed via remove_<side>), averaged over both sides. Regression: logit of
    side 0 winning on material differences at --snapshot-ply (decided games still
    running then), raw coefficients with intervals, and values relative to the game's
    reference unit with signs kept (Fieller intervals) when the signs agree. Units
    whose loss ends the game are left out. Disagreements between the methods or the
    sides are flagged. Ctrl-C keeps every finished run; --resume --out DIR finishes.

    \b
    Examples:
      simkit values martian_chess
      simkit values martian_chess --policy greedy --games 100000 --snapshot-ply 12 --json
      simkit values skorm --pair archer,horseman --games 20000
      simkit values martian_chess --games 20000 --skill random,greedy
      simkit values --resume --out runs/my-values
    """
    from simkit.analysis.values import PILOT_GAMES, pair_values, unit_values
    from simkit.engine.runner import RunConfig
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    lr.require(target=target)
    base = load_scenario(target, list(sets))
    pols = (policy0 or policy, policy1 or policy)
    config = RunConfig(games=games, seed=seed, policies=pols, first=first, chunk_size=chunk_size)
    from simkit.engine.runner import validate_config
    validate_config(base.spec, config)
    log = None if as_json else (lambda m: click.echo(m, err=True))
    spec = base.spec
    # the runs: a pilot (when the snapshot ply is not given), the base and one per unit and side
    units = sum(u not in spec.game_ending_units for u in spec.unit_types)
    pilot = [] if snapshot_ply is not None or spec.extra.get("snapshot_ply") else [min(PILOT_GAMES, games)]
    out_dir = _out_dir("values", f"{base.game}-{base.name}", out, no_save)
    if pair is not None:
        parts = [p.strip() for p in pair.split(",")]
        if len(parts) != 2:
            raise UsageError(f"--pair takes two unit types A,B, got {pair!r}")
        lr.size(Plan("values --pair", 4, "runs", [Part(base.game, pols, games, 4)], threads=threads))
        with lr.progress(progress):
            res = pair_values(base, parts[0], parts[1], config, threads=threads, log=log, out_dir=lr.work(out_dir))
        if as_json:
            return _echo_json(res)
        c = _console()
        lo, hi = res["ci"]
        from simkit.report import fmt
        c.print(_esc(f"{fmt.game_variant(base.spec.title, base.name, base.overrides)} "
                     f"({fmt.context(config.policies, config.first, config.seed, res['games'])} per run): ")
                + _esc(res['measure']))
        for side, v in res["sides"].items():
            c.print(f"  side {side}: {v['value']:+.4f} [{v['ci'][0]:+.4f}, {v['ci'][1]:+.4f}]")
        for side, why in res["skipped"].items():
            c.print(f"  side {side} skipped: {_esc(why)}")
        c.print(f"{res['a']} - {res['b']}: {res['value']:+.4f} [{lo:+.4f}, {hi:+.4f}], p={_p(res['p_value'])}: "
                f"{res['verdict']}")
        if out_dir:
            c.print(f"values directory: {out_dir} (pair.json)")
        return None
    if skill:
        levels = skill.split(",")
        from simkit.analysis.skill import order_parts, skill_values
        lr.size(Plan("values", len(levels), "levels",
                     [Part(base.game, (lvl, lvl), g) for lvl in levels for g in pilot]
                     + [Part(base.game, (lvl, lvl), games, 1 + 2 * units) for lvl in levels]
                     + order_parts(base.game, levels, games), threads=threads))
        from simkit.cli.skill_commands import print_skill
        with lr.progress(progress):
            sres = skill_values(base, levels, config, threads=threads, out_dir=lr.work(out_dir),
                                snapshot_ply=snapshot_ply)
        if as_json:
            return _echo_json(sres.summary())
        unit = {"plies": "ply", "turns": "turn"}.get(base.spec.length_unit, base.spec.length_unit)
        print_skill(sres, f"{base.spec.title} {base.name}: unit values over skill ({config.games:,} games per "
                          f"level, seed {config.seed}; ablation = expected score of one unit more, "
                          f"regression_coef = raw logit coefficient at {unit} {sres.info['snapshot_ply']})")
        click.echo(f"snapshot at {unit} {sres.info['snapshot_ply']} for every level "
                   f"({sres.info['snapshot_ply_source']})")
        if out_dir:
            click.echo(f"skill directory: {out_dir} (skill.json; one values directory per level)")
        return None
    lr.size(Plan("values", 1 + 2 * units, "runs", [Part(base.game, pols, g) for g in pilot]
                 + [Part(base.game, pols, games, 1 + 2 * units)], threads=threads))
    with lr.progress(progress):
        res = unit_values(base, config, threads=threads, out_dir=lr.work(out_dir), snapshot_ply=snapshot_ply,
                          log=log)
    if as_json:
        return _echo_json(res.summary())
    from rich.table import Table
    d = res.summary()
    c = _console()
    reg = d["regression"]
    ref = reg.get("reference")
    from simkit.report import fmt
    t = Table(title=_esc(f"Unit values of {fmt.game_variant(base.spec.title, base.name, base.overrides)} "
                         f"({fmt.context(d['policies'], config.first, config.seed, d['games'])} per run)"),
              header_style="bold")
    rel = f"regression: / |{ref}| [95% Fieller]" if ref else "regression: relative"
    lrn = d.get("learned", {"units": {}, "notes": []})
    cols = ["unit", "ablation: score change [95% CI]", "regression: coefficient [95% CI]", rel]
    if lrn["units"]:
        cols.append(f"learned: / |{ref}| [95% Fieller]" if ref else "learned: weight")
    for col in cols:
        t.add_column(col, justify="left" if col == "unit" else "right")
    holes = False
    for u in base.spec.unit_types:
        a = d["ablation"].get(u)
        r = reg["units"].get(u)
        if u in reg.get("left_out", {}):
            t.add_row(u, "left out", "left out", f"left out: {reg['left_out'][u]}")
            continue
        at = fmt.MISSING if a is None or math.isnan(a["value"]) else \
            fmt.with_ci(a["value"], *a["ci"], kind=fmt.advantage, sentence=False)
        ct = fmt.MISSING if r is None else "not converged" if not r.get("converged", True) else \
            fmt.with_ci(r["coef"], *r["coef_ci"], kind=fmt.coefficient, sentence=False)
        fcl = "" if r is None or u == ref else " " + fmt.interval(*r["ci"], fmt.ratio)
        rt = fmt.MISSING if r is None or math.isnan(r["value"]) else fmt.ratio(r["value"]) + fcl
        row = [u, at, ct, rt]
        if lrn["units"]:
            m = lrn["units"].get(u)
            row.append(fmt.MISSING if m is None else fmt.with_ci(m["coef"], *m["coef_ci"], kind=fmt.coefficient,
                                                                 sentence=False) if math.isnan(m["value"]) else
                       fmt.ratio(m["value"]) + ("" if u == ref else " " + fmt.interval(*m["ci"], fmt.ratio)))
        t.add_row(*row)
        holes = holes or fmt.MISSING in (at, ct, rt)
    if holes:
        t.caption = f"{fmt.MISSING}: no value for this unit and method; the notes below say why"
    c.print(t)
    c.print(f"ranking by ablation: {' > '.join(d['ranking']['ablation'])}; "
            f"by regression coefficient: {' > '.join(d['ranking']['regression'])}")
    unit = {"plies": "ply", "turns": "turn"}.get(base.spec.length_unit, base.spec.length_unit)
    c.print(f"snapshot at {unit} {d['snapshot_ply']} ({d['snapshot_ply_source']}); "
            f"regression on {reg.get('games_used', 0):,} decided games still running then "
            f"({reg.get('draws_dropped', 0):,} draws dropped, {reg.get('ended_before_snapshot', 0):,} games "
            f"ended before it)")
    if lrn["units"]:
        c.print(f"by learned weight: {' > '.join(d['ranking']['learned'])} (simkit learn, {lrn.get('games', 0):,} "
                f"games)")
    for n in d["notes"] + reg["notes"] + lrn["notes"]:
        c.print(f"note: {_esc(n)}")
    for u, a in d["ablation"].items():
        for side, why in a.get("skipped", {}).items():
            if not a.get("game_ending"):
                c.print(f"note: ablation of {u} for side {side} skipped: {_esc(why)}")
    if out_dir:
        c.print(f"values directory: {out_dir} (values.json, values.csv)")


# ---------------------------------------------------------------------------------- matchup

@cli.command()
@click.argument("target", required=False)
@click.option("--policies", default=None, metavar="P1,P2,...",
              help="The policies to pit against each other; " + PYTHON_POLICY_HELP)
@scenario_options
@click.option("--games", "-n", type=int, default=10_000, show_default=True, help="Games per seat order and pair.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--chunk-size", type=int, default=None, help="Games per chunk.")
@_save_opts
@progress_option
@long_command
def matchup(target, policies, sets, games, seed, first, threads, chunk_size, out, no_save, as_json, progress, lr):
    """Skill-gap matrix: every pair of policies, both seat orders, same seeds.

    Each entry is the row policy's expected score (win 1, draw 1/2) against the
    column policy, averaged over both seat orders, with a 95% interval.
    Ctrl-C keeps every finished seating; --resume --out DIR finishes the matrix.

    \b
    Examples:
      simkit matchup martian_chess --policies random,greedy --games 20000
      simkit matchup martian_chess --policies mcts:400,python:simkit.env.openspiel:mcts400 --games 10
    """
    from simkit.analysis.matchup import check_policies, matchup as run_matchup
    from simkit.engine.runner import RunConfig
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    lr.require(target=target)
    if not policies:
        raise click.UsageError("Missing option '--policies'.")
    sc = load_scenario(target, list(sets))
    pols = check_policies(sc.spec, policies.split(","))
    config = RunConfig(games=games, seed=seed, policies=(pols[0], pols[1]), first=first, chunk_size=chunk_size)
    out_dir = _out_dir("matchup", f"{sc.game}-{sc.name}", out, no_save)
    lr.size(Plan("matchup", len(pols) * (len(pols) - 1), "seatings",
                 [Part(sc.game, (p, q), games) for p in pols for q in pols if p != q], threads=threads))
    with lr.progress(progress):
        res = run_matchup(sc, pols, config, threads=threads, out_dir=lr.work(out_dir))
    if as_json:
        return _echo_json(res.summary())
    from rich.table import Table
    from simkit.cli.analysis_commands import _console as console
    from simkit.report import fmt
    t = Table(title=_esc(f"Matchup of {fmt.game_variant(sc.spec.title, sc.name, sc.overrides)} (row policy's "
                         f"score vs column; {fmt.context(None, first, seed, games)} per seat order)"),
              header_style="bold")
    t.add_column("policy")
    for q in pols:
        t.add_column(q, justify="right")
    for p in pols:
        cells = []
        for q in pols:
            if p == q:
                cells.append(fmt.MISSING)
            else:
                cl = res.cells[(p, q)]
                cells.append(fmt.with_ci(cl["score"], *cl["ci"], kind=fmt.score, sentence=False))
        t.add_row(p, *cells)
    t.caption = f"{fmt.MISSING}: a policy does not play itself"
    c = console()
    c.print(t)
    from simkit.analysis.ratings import ratings_text
    c.print("Elo ratings [95% CI]:", highlight=False)
    for line in ratings_text(res.ratings):
        c.print(line, highlight=False)
    for f in res.flags:
        c.print(f"[yellow]degenerate play:[/yellow] {f}")
    if out_dir:
        c.print(f"matchup directory: {out_dir} (matchup.json, matchup.csv)")
