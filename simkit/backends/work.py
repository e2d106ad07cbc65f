"""A long command's result directory: its manifest and one ordinary run directory per run it plays.

Every command that plays more than one run (compare, sweep, values, matchup, ladder, tune,
sensitivity, quality, run --skill, ...) plays them through a `Work`:

    work = Work.of(out_dir, resume)                  # or the one the command line made
    with work.start("sweep", identity={...}, **manifest_fields):
        res = work.run("cells/000003", scenario, config, threads=threads)   # a RunResult
        ...
        work.complete(cells=13)                       # after the result files are written

- ``work.run(name, ...)`` plays into ``DIR/name/`` (a run directory: chunks on disk as they
  finish). A resumed command finds each run as it was left: a complete one is reloaded (its
  saved tally, records from games.parquet: nothing is played), an interrupted one resumes from
  its chunks, a missing one starts. Runs are named by what they are, not by when they were
  played, so a resumed command finds the same runs in the same places; its results equal
  an uninterrupted command's, since every game depends only on (seed, game index).
- Ctrl-C: the run being played keeps its finished chunks and `run` raises `Interrupted`
  (a KeyboardInterrupt); leaving the ``with`` block by any KeyboardInterrupt marks the
  manifest ``interrupted`` with the games kept. Nothing else is written: no result file
  ever describes part of a command as if it were whole.
- ``identity``: what the command's results depend on (target, rules, options). A resume
  whose identity differs is refused, naming the first key that differs.
- Without a directory (``--no-save``, library use) runs play in memory and an interrupt
  still raises `Interrupted`: nothing is kept.

A command that nests another (compare --skill plays a compare per level) hands it
``work.child(name)``: the same resume, a directory of its own.
"""
from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from simkit.errors import UsageError


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a long command: ``kept`` games are on disk in ``out`` (None: nothing kept)."""

    def __init__(self, kept: int = 0, out: Path | None = None, runs_done: int = 0):
        super().__init__(f"interrupted: {kept:,} games kept")
        self.kept, self.out, self.runs_done = kept, out, runs_done


class Work:
    def __init__(self, out_dir=None, *, resume: bool = False, command: dict | None = None, top: bool = True):
        self.out = Path(out_dir) if out_dir is not None else None
        self.resume = resume
        self.command = command       # the command line's options (simkit.cli.longrun), kept in the manifest
        self.top = top               # a child's complete directory is reloaded, a top one's refused
        self.kept = 0                # games finished and kept so far (every run's, a resumed one's too)
        self.runs_done = 0           # runs complete (played now or found complete)
        self._elapsed = 0.0          # their playing time, every session's (a run carries its own)
        self.kind = None
        self._children: list[Work] = []

    @classmethod
    def of(cls, out_dir=None, resume: bool = False) -> "Work":
        """``out_dir`` when it is a Work already (the command line's), else a Work for it."""
        return out_dir if isinstance(out_dir, Work) else cls(out_dir, resume=resume)

    def child(self, name: str) -> "Work":
        w = Work(None if self.out is None else self.out / name, resume=self.resume, top=False)
        self._children.append(w)
        return w

    @property
    def games_kept(self) -> int:
        return self.kept + sum(c.games_kept for c in self._children)

    @property
    def elapsed(self) -> float:
        """Seconds spent playing the runs so far, over every session of the command."""
        return self._elapsed + sum(c.elapsed for c in self._children)

    @property
    def runs_complete(self) -> int:
        return self.runs_done + sum(c.runs_complete for c in self._children)

    # ---- the manifest -----------------------------------------------------------------------

    @contextlib.contextmanager
    def start(self, kind: str, identity: dict, **fields):
        """Create DIR/manifest.json (status running), or check it on resume; the block plays the
        command. Leaving it by a KeyboardInterrupt marks the manifest interrupted and raises
        `Interrupted` with the games kept."""
        self.kind = kind
        if self.out is not None:
            self._open(kind, identity, fields)
        try:
            yield self
        except KeyboardInterrupt:
            if self.out is not None and (self.out / "manifest.json").exists():
                self._set(status="interrupted", games_kept=self.games_kept,
                          finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
            raise Interrupted(self.games_kept, self.out, self.runs_complete) from None

    def _open(self, kind, identity, fields):
        from simkit.backends.store import atomic_write_json, environment, first_difference
        mpath = self.out / "manifest.json"
        ident = json.loads(json.dumps(identity, default=str))
        if self.resume and mpath.exists():
            m = json.loads(mpath.read_text())
            if m.get("kind") != kind:
                raise UsageError(f"--resume: {self.out} holds a {m.get('kind', 'unknown')} result, not a {kind}")
            if m.get("status") == "complete" and self.top:
                raise UsageError(f"--resume: the {kind} in {self.out} is already complete")
            if "identity" not in m:
                raise UsageError(f"--resume: {self.out} was started by an older simkit, which kept nothing to resume "
                                 f"from; start afresh with another --out")
            diff = first_difference(m["identity"], ident)
            if diff:
                key, was, now = diff
                raise UsageError(f"--resume: {self.out} was started with {key} = {json.dumps(was, default=str)}, "
                                 f"not {json.dumps(now, default=str)}; resume with the options it was started "
                                 f"with, or choose another --out")
            m.update(status="running", sessions=m.get("sessions", 1) + 1)
            atomic_write_json(mpath, m)
            return
        if self.resume and self.top:
            raise UsageError(f"--resume: {self.out} holds no {kind} to finish (no manifest.json)")
        if mpath.exists():
            raise UsageError(f"directory {self.out} already holds results; choose another --out "
                             f"(or finish an interrupted command there with --resume)")
        self.out.mkdir(parents=True, exist_ok=True)
        manifest = {"kind": kind, "status": "running", **fields, "identity": ident}
        if self.command is not None:
            manifest["command"] = self.command
        manifest |= {"versions": environment(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "sessions": 1}
        atomic_write_json(mpath, manifest)

    def _set(self, **fields):
        from simkit.backends.store import atomic_write_json
        mpath = self.out / "manifest.json"
        atomic_write_json(mpath, json.loads(mpath.read_text()) | fields)

    def complete(self, **fields):
        """The command's result files are written: the manifest says complete."""
        if self.out is not None:
            self._set(status="complete", games_kept=self.games_kept, finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                      **fields)

    # ---- the runs ---------------------------------------------------------------------------

    def _dir(self, name: str) -> Path | None:
        return None if self.out is None else self.out / name

    def _found(self, d: Path | None) -> str | None:
        """The status of the run directory a resume finds at ``d`` (None: none there)."""
        if d is None or not self.resume or not (d / "manifest.json").exists():
            return None
        return json.loads((d / "manifest.json").read_text()).get("status", "running")

    def run(self, name: str, scenario, config, *, threads=None, keep: bool = True, records: bool = True,
            backend=None, precision=None, stop=None):
        """Play (or reload, or resume) the run ``name`` -> its RunResult; `Interrupted` on Ctrl-C.
        ``records=False``: a complete run keeps only its tally (no games.parquet; a sweep cell)."""
        from simkit.engine.runner import load_result, simulate
        d = self._dir(name)
        found = self._found(d)
        if found == "complete":     # its records, if asked, come from its games.parquet
            res = load_result(d, scenario, config, precision=precision)
            from simkit import progress
            progress.games_resumed(res.games_done)
        else:
            res = simulate(scenario, config, threads=threads, out_dir=d, resume=found is not None, progress=False,
                           keep=keep, backend=backend, precision=precision, stop=stop, records=records)
        return self.ended(res)

    def session(self, name: str, scenario, config, **kw):
        """A RunSession of the run ``name`` (a complete one replays its chunks from disk); end it
        with `ended(session.finish(...))`."""
        from simkit.engine.runner import RunSession
        d = self._dir(name)
        found = self._found(d)
        return RunSession(scenario, config, out_dir=d, resume=found is not None, complete_ok=True, progress=False,
                          **kw)

    def ended(self, *results):
        """Count finished (or interrupted) runs' games as kept; KeyboardInterrupt if one was
        interrupted (the ``with start()`` block turns it into `Interrupted`)."""
        if self.out is not None:
            self.kept += sum(r.games_done for r in results)
        self._elapsed += sum(r.elapsed for r in results)
        if any(r.interrupted for r in results):
            raise KeyboardInterrupt
        self.runs_done += len(results)
        return results[0] if len(results) == 1 else results

    def traces(self, name: str, scenario, config, games: int | None = None, *, log=None):
        """`quality.trace_games` of a run of traced games, its chunks of games kept in ``DIR/name/``
        (resumed from them): (frame, scale)."""
        from simkit.analysis.quality import trace_games
        d = self._dir(name)
        resumed = d is not None and self.resume and d.exists()
        saved, took = [], []
        try:
            frame, scale = trace_games(scenario, config, games, log=log, store_dir=d, resume=resumed, saved=saved,
                                       took=took)
        finally:
            self.kept += sum(saved)
            self._elapsed += sum(took)
        self.runs_done += 1
        return frame, scale
