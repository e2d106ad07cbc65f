"""`simkit ladder`, and the table `run --skill` prints: how conclusions depend on skill."""
from __future__ import annotations

import click

from simkit.cli import cli
from simkit.cli.analysis_commands import _echo_json, _out_dir
from simkit.cli.options import scenario_options
from simkit.engine.rng import FIRST_MODES


@cli.command()
@click.argument("target")
@scenario_options
@click.option("--rungs", default=None, metavar="P1,P2,...",
              help="The ladder's policies, weakest first (default: random, greedy, mcts:START doubling "
                   "up to --ceiling).")
@click.option("--start", type=int, default=50, show_default=True, help="First MCTS budget.")
@click.option("--ceiling", type=int, default=400, show_default=True, help="Largest MCTS budget.")
@click.option("--games", "-n", type=int, default=200, show_default=True, help="Games per seat order per rung.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for ladder.json/ladder.csv (default: runs/ladder-<game>-<time>).")
@click.option("--no-save", is_flag=True, help="Write no directory.")
@click.option("--json", "as_json", is_flag=True, help="Print ladder.json.")
def ladder(target, sets, rungs, start, ceiling, games, seed, first, threads, out, no_save, as_json):
    """Skill ladder of TARGET: each rung against the rung below, both seat orders, same seeds.

    A rung gains when its score's 95% interval is above 1/2; the skill depth is
    the number of rungs that gain, from the bottom, before the first that does not.

    \b
    Examples:
      simkit ladder martian_chess
      simkit ladder skorm --ceiling 1600 --games 400
      simkit ladder warfare --rungs greedy,mcts:100,mcts:400 --games 100
    """
    from simkit.analysis.ladder import ladder as run_ladder, rungs_of
    from simkit.engine.runner import RunConfig
    from simkit.errors import UsageError
    from simkit.scenario import load_scenario
    sc = load_scenario(target, list(sets))
    if start < 1 or ceiling < start:
        raise UsageError(f"--start must be >= 1 and --ceiling >= --start, got {start} and {ceiling}")
    names = rungs.split(",") if rungs else rungs_of(sc.spec, start, ceiling)
    config = RunConfig(games=games, seed=seed, policies=(names[0], names[0]), first=first)
    out_dir = _out_dir("ladder", f"{sc.game}-{sc.name}", out, no_save)
    res = run_ladder(sc, names, config, threads=threads, out_dir=out_dir)
    if as_json:
        return _echo_json(res.summary())
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=f"{sc.spec.title} skill ladder: {sc.name} ({games:,} games per seat order, seed {seed})",
              header_style="bold")
    for col in ("rung", "vs", "score [95% CI]", "draws", "gain"):
        t.add_column(col, justify="right" if col in ("score [95% CI]", "draws") else "left")
    for s in res.steps:
        gain = "significant" if s["ci"][0] > 0.5 else "not significant"
        t.add_row(s["rung"], s["below"], f"{s['score']:.3f} [{s['ci'][0]:.3f}, {s['ci'][1]:.3f}]",
                  f"{s['draw_rate']:.1%}", gain)
    c = console()
    c.print(t)
    summ = res.summary()
    stop = summ["first_rung_without_gain"]
    c.print(f"skill depth: {res.depth} of {len(res.steps)} rungs gain significantly"
            + (f"; {stop} is the first that does not" if stop else ""))
    for s in res.steps:
        for f in s["flags"]:
            c.print(f"[yellow]degenerate play:[/yellow] {f}")
    if out_dir:
        c.print(f"ladder directory: {out_dir} (ladder.json, ladder.csv)")


def print_skill(result, title: str):
    """The per-metric table of `run --skill`: estimate per level and the verdict."""
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=title, header_style="bold")
    t.add_column("metric")
    for lvl in result.levels:
        t.add_column(lvl, justify="right")
    t.add_column("trend per level [95% CI]", justify="right")
    t.add_column("verdict")
    for m, v in result.metrics.items():
        fmt = "{:.1f}" if m == "mean_length" else "{:+.4f}" if "advantage" in m else "{:.4f}"
        cells = [f"{fmt.format(e)} [{fmt.format(lo)}, {fmt.format(hi)}]" for e, lo, hi in v["estimates"]]
        tr = v["trend"]
        t.add_row(m.replace("_", " "), *cells, f"{tr['slope']:+.4g} [{tr['ci'][0]:+.4g}, {tr['ci'][1]:+.4g}]",
                  v["verdict"])
    c = console()
    c.print(t)
    for m, v in result.metrics.items():
        if "flag" in v:
            c.print(f"[yellow]reverses:[/yellow] {v['flag']}")
    for lvl, s in zip(result.levels, result.runs):
        for f in s.get("degenerate", []):
            c.print(f"[yellow]degenerate play ({lvl}):[/yellow] {f}")
