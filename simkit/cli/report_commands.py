"""`simkit report`: run, compare, sweep and values directories -> an offline HTML report."""
from __future__ import annotations

import click

from simkit.cli import cli


@cli.command()
@click.argument("dirs", nargs=-1, required=True, type=click.Path(file_okay=False))
@click.option("-o", "--out", type=click.Path(file_okay=False), default=None,
              help="Report directory (default: runs/reports/<name of the first directory>/).")
@click.option("--title", default=None, help="Page title (default: from the scenario).")
def report(dirs, out, title):
    """Write an HTML design report (index.html + PNG figures + CSV tables) for DIRS.

    DIRS are run directories (`simkit run --out`), compare, sweep, values,
    matchup, ladder, tune, sensitivity, quality or `run --skill` directories,
    in any mix. The report opens from disk: no server, no network.

    \b
    Examples:
      simkit report runs/demo/martian_chess
      simkit report runs/a runs/b -o reports/ab
      simkit report runs/my-compare runs/my-sweep -o reports/balance
    """
    from simkit.report import build_report
    path = build_report(list(dirs), out, title)
    click.echo(f"report: {path}")
