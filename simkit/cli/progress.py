"""Progress of the long commands (run, values, sweep, compare, matchup, ladder, tune, sensitivity, quality).

On a terminal, a bar: `run` draws its own (simkit.engine.runner); the multi-run commands play
many runs, so their bar counts the games of all runs (the plan's total, simkit/plan.py, or
learning each run's size when it starts), with the run number beside it. The bar goes to
stderr, only on a terminal unless forced (``--progress``), and disappears when done
(``transient``), so what a command prints on stdout never changes.

Not on a terminal (stderr a log file), a plain line every `interval()` seconds (60, or
``SIMKIT_PROGRESS_SECONDS``): games done of the total, elapsed, and the time left at this
session's pace ("sweep: 45,000 of 100,000 games (45%), 1 min 12 s elapsed, about 1 min 28 s
left"). A resume's games found on disk count as done (simkit.progress ``games_resumed``) but
not toward the pace. ``--no-progress`` silences both.
"""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

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

    def games_resumed(self, n):
        self.p.advance(self.task, n)

    def games_added(self, n, runs):
        if self.fixed:         # an unfixed total grows as runs start
            self.p.update(self.task, total=(self.p.tasks[0].total or 0) + n)
        if self.runs:
            self.runs += runs

    def close(self):
        self.p.stop()


def interval() -> float:
    """Seconds between two progress lines in a log (SIMKIT_PROGRESS_SECONDS, default 60)."""
    try:     # at most ten days: a timer's wait cannot take an unbounded timeout
        return min(max(float(os.environ.get("SIMKIT_PROGRESS_SECONDS", 60)), 0.01), 864_000.0)
    except ValueError:
        return 60.0


class _Lines:
    """A plain progress line every `interval()` seconds on stderr, from a timer thread (the kernels
    release the GIL, so a line comes even while a long chunk plays)."""

    def __init__(self, what: str, total: int | None):
        self.what, self.total = what, total
        self.done = self.played = 0
        self.t0 = time.perf_counter()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="simkit-progress", daemon=True)
        self._thread.start()

    def run_started(self, game, games, kernels):
        pass

    def games_done(self, n):
        self.done += n
        self.played += n

    def games_resumed(self, n):
        self.done += n

    def games_added(self, n, runs):
        if self.total:
            self.total += n

    def line(self) -> str:
        from simkit.plan import duration
        el = time.perf_counter() - self.t0
        head = f"{self.what}: {self.done:,}" + (f" of {self.total:,}" if self.total else "") + " games"
        if self.total:
            head += f" ({100 * self.done / self.total:.0f}%)"
        head += f", {duration(el)} elapsed"
        if self.total and self.played and self.done < self.total:
            head += f", about {duration((self.total - self.done) * el / self.played)} left"
        return head

    def _loop(self):
        while not self._stop.wait(interval()):
            print(self.line(), file=sys.stderr, flush=True)

    def close(self):
        self._stop.set()
        self._thread.join(timeout=5)      # no line after the command's own output


def wanted(flag: bool | None) -> bool:
    """--progress forces the bar, --no-progress hides it; by default only on a terminal."""
    return sys.stderr.isatty() if flag is None else flag


@contextlib.contextmanager
def command_progress(flag: bool | None, what: str, *, total: int | None = None, runs: int | None = None,
                     bar: bool = True):
    """A bar over every game the block plays (on a terminal, or forced), else progress lines in a log
    (unless ``--no-progress``). ``total``: all its games when known in advance (else the bar grows as
    runs start); ``runs``: how many runs, for the "run k/K" label; ``bar=False``: lines only (the
    command draws its own bar)."""
    if not wanted(flag):
        if flag is None:       # not a terminal: lines in the log
            lines = _Lines(what, total)
            hooks.listen(lines)
            try:
                yield None
            finally:
                hooks.unlisten(lines)
                lines.close()
        else:
            yield None
        return
    if not bar:
        yield None
        return
    bar = _Bar(what, total, runs, force=bool(flag))
    hooks.listen(bar)
    try:
        yield bar
    finally:
        hooks.unlisten(bar)
        bar.close()
