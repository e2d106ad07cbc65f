"""Progress bars of the long commands (values, sweep, compare, matchup, ladder, tune, sensitivity, quality).

`run` draws its own bar (simkit.engine.runner); the multi-run commands play many
runs, so their bar counts the games of all runs, learning each run's size when
it starts (simkit.progress), with the run number beside it. The bar goes to
stderr, only on a terminal unless forced (``--progress``), and disappears when
done (``transient``), so what a command prints on stdout never changes.
"""
from __future__ import annotations

import contextlib
import sys

import click

from simkit import progress as hooks


def progress_option(f):
    return click.option("--progress/--no-progress", default=None,
                        help="Progress bar on stderr (default: on when stderr is a terminal).")(f)


class _Bar:
    def __init__(self, what: str, total: int | None, runs: int | None, force: bool):
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)
        self.what, self.runs, self.run = what, runs, 0
        self.fixed = total is not None
        console = Console(stderr=True, force_terminal=True if force else None)
        self.p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("games"), TimeElapsedColumn(), TimeRemainingColumn(),
                          console=console, transient=True,
                          # log lines (click.echo(err=True)) print above the bar; stdout is never touched
                          redirect_stdout=False, redirect_stderr=True)
        self.task = self.p.add_task(self._description(), total=total or 0)
        self.p.start()

    def _description(self) -> str:
        if self.run == 0:
            return self.what
        return f"{self.what}: run {self.run}" + (f"/{self.runs}" if self.runs else "")

    def run_started(self, game, games, kernels):
        self.run += 1
        task = self.p.tasks[0]
        total = task.total if self.fixed else (task.total or 0) + games
        self.p.update(self.task, description=self._description(), total=max(total, task.completed))

    def games_done(self, n):
        self.p.advance(self.task, n)

    def close(self):
        self.p.stop()


def wanted(flag: bool | None) -> bool:
    """--progress forces the bar, --no-progress hides it; by default only on a terminal."""
    return sys.stderr.isatty() if flag is None else flag


@contextlib.contextmanager
def command_progress(flag: bool | None, what: str, *, total: int | None = None, runs: int | None = None):
    """A bar over every game the block plays. ``total``: all its games when known in advance
    (else the bar grows as runs start); ``runs``: how many runs, for the "run k/K" label."""
    if not wanted(flag):
        yield None
        return
    bar = _Bar(what, total, runs, force=bool(flag))
    hooks.listen(bar)
    try:
        yield bar
    finally:
        hooks.unlisten(bar)
        bar.close()
