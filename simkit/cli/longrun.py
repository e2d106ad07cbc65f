"""The contract of every long command of the command line: safe to stop, to resume and to size.

A command adopts it with a few lines (docs/architecture.md, "Long commands"):

    @cli.command()
    @click.argument("target", required=False)
    ... its options, with --out DIR ...
    @long_command                                   # adds --resume and --yes
    def mycmd(target, games, ..., out, lr):
        lr.require(target=target)                   # arguments are optional only with --resume
        lr.size(Plan("mycmd", cells, parts=[Part(game, policies, games, runs)]))
        with lr.progress(progress_flag):
            res = library_call(..., out_dir=lr.work(out_dir))   # the library plays through a Work

- **Ctrl-C** stops at the next chunk; the library keeps every finished chunk, marks the
  manifest ``interrupted`` and raises `Interrupted`; this prints one line, "interrupted: kept
  N of M games in DIR; finish with: simkit mycmd --resume --out DIR", and exits 130. Never a
  traceback, never a result printed from part of the games.
- **--resume --out DIR** reads the options the command was started with from
  DIR/manifest.json (``"command"``), so nothing else need be given; an option given that
  differs from the manifest is refused, naming it ("--games 50000 given, 100000 in the run").
  Options that do not change a result (threads, backend, progress, json) may differ.
- **Size**: before anything plays, `LongRun.size` prints the plan (cells, games, policies and an
  estimated time, `simkit/plan.py`) on a terminal, or into a log when the estimate is at least
  the progress interval (a command that gets no progress line gets no size line either); above
  an estimated hour or 1,000 cells it refuses unless ``--yes`` (a resume of a command accepted
  once is not asked again).
- **Progress**: a bar on a terminal; in a log, a plain line every minute or so
  (`simkit.cli.progress`).
"""
from __future__ import annotations

import contextlib
import functools
import json
import shlex
import sys
from pathlib import Path

import click

from simkit.errors import UsageError

# options that change no result: they may differ on --resume (a missing one comes from the manifest)
FREE = {"threads", "backend", "workers", "scheduler", "progress", "as_json", "yes"}
# never stored: where the result goes and how this invocation was asked to run
NOT_STORED = {"out", "resume", "no_save"}


def long_command(f):
    """Give a command --resume and --yes and the interrupt contract; it receives ``lr`` (`LongRun`)."""
    @functools.wraps(f)
    def command(**kw):
        ctx = click.get_current_context()
        resume = kw.pop("resume")
        if resume:
            kw = _from_manifest(ctx, kw)
        lr = LongRun(ctx, kw, resume, kw.pop("yes"))
        try:
            return f(lr=lr, **kw)
        except KeyboardInterrupt as e:       # Interrupted (the library kept what finished) or a bare Ctrl-C
            lr.interrupted(e)
    command = click.option("--yes", is_flag=True,
                           help="Run even when the size is above the limit (an estimated hour, or 1,000 "
                                "cells).")(command)
    command = click.option("--resume", is_flag=True,
                           help="Finish the interrupted command in --out DIR; its options are read from "
                                "DIR/manifest.json (give none, or the same).")(command)
    return command


def _jsonable(v):
    return json.loads(json.dumps(v, default=str))


def _param(ctx, name):
    return next(p for p in ctx.command.params if p.name == name)


def _shown(param, value) -> str:
    """An option as the command line writes it: '--games 100000', '--set a=1 --set b=2', 'no --set'."""
    if isinstance(param, click.Argument):
        return f"{param.human_readable_name} {' '.join(map(str, value)) if isinstance(value, list) else value}"
    opt = max(param.opts, key=len)
    if param.is_flag:
        return opt if value else f"no {opt}"
    if isinstance(value, list):
        return " ".join(f"{opt} {v}" for v in value) if value else f"no {opt}"
    return f"no {opt}" if value is None else f"{opt} {value}"


def _from_manifest(ctx, kw: dict) -> dict:
    """--resume: the options the command was started with (DIR/manifest.json), checked against the
    ones given."""
    out = kw.get("out")
    if not out:
        raise UsageError("--resume needs --out DIR (the directory of the command to finish)")
    if kw.get("no_save"):
        raise UsageError("--resume finishes the command in --out DIR; drop --no-save")
    mpath = Path(out) / "manifest.json"
    if not mpath.exists():
        raise UsageError(f"--resume: {out} holds nothing to finish (no manifest.json)")
    try:
        manifest = json.loads(mpath.read_text())
    except ValueError:
        raise UsageError(f"--resume: {mpath} is not a simkit manifest") from None
    cmd = manifest.get("command")
    if not cmd:     # started by the library or an older simkit: the options given are checked by the library
        return kw
    name = ctx.info_name
    if cmd.get("name") != name:
        raise UsageError(f"--resume: {out} holds a `simkit {cmd.get('name')}`; finish it with simkit "
                         f"{cmd.get('name')} --resume --out {shlex.quote(str(out))}")
    source = ctx.get_parameter_source
    for key, stored in cmd.get("params", {}).items():
        if key not in kw:
            continue
        given = kw[key]
        if source(key) == click.core.ParameterSource.COMMANDLINE:
            if key not in FREE and _jsonable(given) != stored:
                p = _param(ctx, key)
                raise UsageError(f"--resume: {_shown(p, _jsonable(given))} given, {_shown(p, stored)} in the run "
                                 f"in {out}; leave it out (the run's options are read from its manifest) or "
                                 f"start afresh with another --out")
        else:
            p = _param(ctx, key)
            kw[key] = tuple(stored) if (p.multiple or p.nargs == -1) and isinstance(stored, list) else stored
    return kw


class LongRun:
    """One invocation of a long command: its options, its size and where its results go."""

    def __init__(self, ctx, params: dict, resume: bool, yes: bool):
        self.ctx, self.name, self.resume, self.yes = ctx, ctx.info_name, resume, bool(yes)
        self.command = {"name": self.name,
                        "params": {k: _jsonable(v) for k, v in params.items() if k not in NOT_STORED}
                        | {"yes": self.yes}}
        self.plan = None
        self.added = 0           # games played beyond the plan (`simkit.progress.games_added`)
        self._work = None
        self.out = None

    def require(self, **args):
        """Arguments are optional only for --resume (they come from the manifest)."""
        for k, v in args.items():
            if v in (None, ()):
                raise click.UsageError(f"Missing argument '{_param(self.ctx, k).human_readable_name}'.")

    def size(self, plan) -> None:
        """Print the plan's size and estimate (on a terminal, or in a log when it is long enough to
        get progress lines); refuse it above the limits unless --yes (or a resume of an accepted one)."""
        from simkit.cli.progress import interval
        self.plan = plan
        over = plan.over()
        est = plan.seconds()
        if over and not self.yes:
            raise UsageError(f"{plan.describe(hint=False)}: above the limit of {' and '.join(over)}; add --yes to "
                             f"run it anyway, or make it smaller")
        if sys.stderr.isatty() or (est is not None and est >= interval()):
            click.echo(("resuming " if self.resume else "") + plan.describe(), err=True)

    def work(self, out_dir):
        """The `Work` the library plays into: --out's directory, this invocation's --resume, and the
        options for the manifest."""
        from simkit.backends.work import Work
        self._work = Work(out_dir, resume=self.resume, command=self.command)
        self.out = self._work.out
        return self._work

    @contextlib.contextmanager
    def progress(self, flag, *, bar: bool = True):
        """A bar on a terminal (``bar=False``: the command draws its own), plain lines in a log; the
        block's games beyond the plan (`simkit.progress.games_added`) count in the interrupted line."""
        from simkit import progress as hooks
        from simkit.cli.progress import command_progress
        total = self.plan.games if self.plan else None
        runs = self.plan.runs if self.plan and self.plan.runs > 1 else None
        hooks.listen(self)
        try:
            with command_progress(flag, self.name, total=total, runs=runs, bar=bar) as p:
                yield p
        finally:
            hooks.unlisten(self)

    # a progress listener only to hear of games beyond the plan
    def run_started(self, game, games, kernels):
        pass

    def games_done(self, n):
        pass

    def games_added(self, n, runs):
        self.added += n

    def finish_with(self) -> str:
        return f"simkit {self.name} --resume --out {shlex.quote(str(self.out))}"

    def interrupted(self, e: BaseException):
        """The one line of an interrupted command, and exit 130."""
        from simkit.backends.work import Interrupted
        kept = e.kept if isinstance(e, Interrupted) else (self._work.games_kept if self._work else 0)
        out = e.out if isinstance(e, Interrupted) else self.out
        total = f" of {self.plan.games + self.added:,}" if self.plan else ""
        if self._work is None and not isinstance(e, Interrupted):
            msg = "interrupted before any game was played"
        elif out is None:
            msg = ("interrupted: nothing kept (no result directory: --no-save); run with --out DIR to be able to "
                   "stop and resume")
        else:
            runs = ""
            if isinstance(e, Interrupted) and self.plan and self.plan.cells > 1:
                runs = f", {e.runs_done:,} run{'s' if e.runs_done != 1 else ''} complete"
            msg = (f"interrupted: kept {kept:,}{total} games in {out}{runs}; "
                   f"finish with: {self.finish_with()}")
        click.echo(msg, err=True)
        sys.exit(130)
