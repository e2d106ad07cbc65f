"""The one shared runner: split N games into chunks, play them, keep what finished.

Each chunk is a plain, importable call (`simkit.engine.chunk.play_chunk`) of a
game's jitted batch kernel, so the same chunk can run in this process or on a
Dask worker and give the same records: a game's dice depend only on (seed, game
index).

A run directory, when given, receives every finished chunk at once (atomic
temp-file + rename), so Ctrl-C, a kill or a lost worker loses at most the chunks
in flight, and `resume` finishes only what is missing.

A run counts only a contiguous prefix of its chunks (games 0..n-1): a backend may
finish chunks out of order (Dask), and a run stopped early (`--precision`, Ctrl-C)
must describe the first n games, not whichever finished first. A chunk finished
past a gap is stored (so `--resume` need not replay it) but counted only once
every chunk before it is.
"""
from __future__ import annotations

import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.backends import store
from simkit.backends.local import LocalBackend
from simkit.backends.store import environment  # noqa: F401  (re-exported for analysis and bench)
from simkit.engine.chunk import play_chunk  # noqa: F401  (re-exported: simkit.engine.runner.play_chunk)
from simkit.engine.rng import FIRST_MODES
from simkit.engine.tally import Tally
from simkit.errors import UsageError
from simkit.policies import MCTS, PYTHON

DEFAULT_SNAPSHOT_PLY = 20


@dataclass(frozen=True)
class RunConfig:
    games: int
    seed: int = 0
    policies: tuple[str, str] = ("greedy", "greedy")
    first: str = "alternate"
    chunk_size: int | None = None
    snapshot_ply: int = DEFAULT_SNAPSHOT_PLY

    def chunks(self) -> list[tuple[int, int]]:
        size = self.chunk_size or default_chunk_size(self.games, self.policies)
        return [(s, min(size, self.games - s)) for s in range(0, self.games, size)]

    def to_dict(self) -> dict:
        return {"games": self.games, "seed": self.seed, "policies": list(self.policies),
                "first": self.first, "chunk_size": self.chunk_size or default_chunk_size(self.games, self.policies),
                "snapshot_ply": self.snapshot_ply}


def default_chunk_size(games: int, policies=()) -> int:
    """About 40 chunks for progress and for losing little on interrupt; 500..50,000 games each.

    A searching side (``mcts...``) or a Python agent plays a few games a second, not thousands:
    then chunks of at least 16 games, so 2,500 games of mcts:1600 are 40 chunks of minutes each
    (an interrupt loses one, and a Dask cluster's workers share them evenly), not 5 of a quarter
    of an hour. The records do not depend on the chunk size.
    """
    slow = any(MCTS in str(p) or str(p).startswith(f"{PYTHON}:") for p in policies)   # ban:/eps: wrappers too
    return int(min(50_000, max(16 if slow else 500, -(-games // 40))))


@dataclass
class RunResult:
    scenario: object
    config: RunConfig
    tally: Tally
    elapsed: float
    interrupted: bool = False
    out_dir: Path | None = None
    parts: dict = field(default_factory=dict)   # start -> records (when kept in memory)
    stopped_at_precision: bool = False          # the stop callback ended the run early
    precision: float | None = None              # the --precision asked for, if any
    threads: int | None = None                  # numba threads the chunks played on (this process)
    resumed_games: int = 0                      # games a --resume found finished on disk

    @property
    def games_done(self) -> int:
        return self.tally.games

    def records(self) -> np.ndarray:
        if self.parts:
            starts = sorted(self.parts)
            ends = [k + len(self.parts[k]) for k in starts]
            assert starts[0] == 0 and starts[1:] == ends[:-1], "a run keeps a contiguous prefix of chunks"
            return np.concatenate([self.parts[k] for k in starts])
        if self.out_dir is not None:
            return store.read_records(self.out_dir, self.scenario.spec)
        return np.zeros((0, len(self.scenario.spec.record_fields)), dtype=np.int32)

    @property
    def games(self):
        """Tidy per-game DataFrame (stage 4)."""
        from simkit.analysis.frames import games_frame
        return games_frame(self.records(), self.scenario.spec, self.config.seed)

    def summary(self) -> dict:
        from simkit.analysis.metrics import summarize
        s = summarize(self.tally)
        s["scenario"] = self.scenario.name
        s["policies"] = list(self.config.policies)
        s["seed"] = self.config.seed
        s["elapsed_s"] = round(self.elapsed, 3)     # the whole run's playing time, every session's
        s["resumed_games"] = self.resumed_games
        s["interrupted"] = self.interrupted
        s["games_requested"] = self.config.games
        s["precision"] = self.precision
        s["stopped_at_precision"] = self.stopped_at_precision
        plies = float((self.tally.length_hist * np.arange(len(self.tally.length_hist))).sum())
        s["games_per_s"] = self.games_done / self.elapsed if self.elapsed > 0 else None
        s[f"{self.scenario.spec.length_unit}_per_s"] = plies / self.elapsed if self.elapsed > 0 else None
        return s


def run_threads(threads: int | None) -> int:
    """The numba thread count a run plays on: ``threads``, or (None) the caller's current
    ``numba.get_num_threads()`` (all cores unless the caller lowered it)."""
    import numba
    top = numba.config.NUMBA_NUM_THREADS
    t = numba.get_num_threads() if threads is None else threads
    if not isinstance(t, int) or not 1 <= t <= top:
        raise UsageError(f"--threads must be from 1 to {top} on this machine, got {t}")
    return t


def set_threads(threads: int | None) -> int:
    """Set this thread's numba thread count (None: all of them) and return it."""
    import numba
    t = run_threads(numba.config.NUMBA_NUM_THREADS if threads is None else threads)
    numba.set_num_threads(t)
    return t


MAX_GAMES = 10**10     # the chunk list stays small (200,000 chunks at most)
MAX_CHUNK = 1_000_000  # one chunk's records stay far below 1 GiB


def validate_config(spec, config: RunConfig) -> tuple[int, ...]:
    if not 1 <= config.games <= MAX_GAMES:
        raise UsageError(f"--games must be from 1 to {MAX_GAMES:,}, got {config.games}")
    if config.chunk_size is not None and not 1 <= config.chunk_size <= MAX_CHUNK:
        raise UsageError(f"--chunk-size must be from 1 to {MAX_CHUNK:,}, got {config.chunk_size}")
    if not 0 <= config.snapshot_ply <= 2**31 - 1:
        raise UsageError(f"--snapshot-ply must be from 0 to 2**31-1, got {config.snapshot_ply}")
    if config.first not in FIRST_MODES:
        raise UsageError(f"--first must be one of {', '.join(FIRST_MODES)}, got {config.first!r}")
    if config.seed < 0 or config.seed >= 2**63:
        raise UsageError(f"--seed must be from 0 to 2**63-1, got {config.seed}")
    from simkit.policies import policy_ids
    return tuple(x if isinstance(x, str) else int(x) for x in policy_ids(spec, config.policies))


def simulate(scenario, config: RunConfig, *, threads: int | None = None, out_dir: str | Path | None = None,
             resume: bool = False, progress: bool | None = None, keep: bool = True, backend=None,
             stop=None, precision: float | None = None, records: bool = True, command: dict | None = None,
             complete_ok: bool = False) -> RunResult:
    """Play ``config.games`` games of ``scenario``; return the tally (and records if ``keep``).

    ``stop(tally) -> bool`` is asked after every finished chunk (sequential stopping).
    ``precision``: stop once the 95% half-width of the first-player advantage is <= it
    (``config.games`` stays the ceiling); the summary then says ``stopped_at_precision``.
    ``backend`` maps chunk calls (default: in this process, in order). ``records``: whether a
    complete run directory keeps games.parquet (a sweep cell keeps only its tally);
    ``command``: the command line's options, for the manifest; ``complete_ok``: a resume of a
    complete run reloads it instead of refusing (a finished sub-run of a longer command).
    """
    if precision is not None:
        from simkit.analysis.metrics import precision_stop
        stop = precision_stop(precision, stop)
    session = RunSession(scenario, config, threads=threads, out_dir=out_dir, resume=resume, progress=progress,
                         keep=keep, backend=backend, precision=precision, records=records, command=command,
                         complete_ok=complete_ok)
    stopped = interrupted = False
    try:
        while session.step() is not None:
            if stop is not None and stop(session.tally):
                stopped = True
                break
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        session.close()
        raise
    return session.finish(interrupted=interrupted, stopped=stopped)


class RunSession:
    """`simulate` taken apart: set up, play one chunk per `step()`, then `finish()`.

    For callers that interleave runs chunk by chunk (`compare` plays A and B in
    lockstep). Same run directory, records and summary as `simulate`. A resumed run's
    chunks found on disk come out of `step()` first, in game order, exactly as they
    came when first played (a stop rule or a paired tally sees the same sequence).
    """

    def __init__(self, scenario, config: RunConfig, *, threads: int | None = None,
                 out_dir: str | Path | None = None, resume: bool = False, progress: bool | None = None,
                 keep: bool = True, backend=None, precision: float | None = None, records: bool = True,
                 command: dict | None = None, complete_ok: bool = False):
        self.scenario, self.config, self.keep, self.precision = scenario, config, keep, precision
        self.records = records
        spec = scenario.spec
        policy_ids = validate_config(spec, config)
        self.threads = run_threads(threads)
        params = scenario.params_for(config.policies)
        chunks = config.chunks()
        self.tally = Tally(spec)
        self.parts: dict = {}
        self._order = [s for s, _ in chunks]   # chunk starts in game order
        self._pos = 0                          # index in _order of the first chunk not yet counted
        self._held: dict = {}                  # start -> (records, aggregate): stored, waiting for a gap
        self._ready: deque = deque()           # (start, records, aggregate) now countable, in order
        self._loaded: set = set()              # starts of the chunks found on disk (not played now)
        self.out = out = Path(out_dir) if out_dir is not None else None
        # time already spent on the games a resumed run finds on disk: the run's speed and elapsed
        # time are over the whole run, not only this session
        self.elapsed_before = 0.0
        self.replay = False                    # a complete run reloaded: nothing is played or rewritten
        if out is not None:
            if resume:
                manifest = store.check_resume(out, scenario, config, complete_ok=complete_ok)
                self.replay = manifest.get("status") == "complete"
                for start, recs, aggregate, took in store.load_chunks(out, scenario, config, manifest):
                    self._held[start] = (recs, aggregate)
                    self._loaded.add(start)
                    self.elapsed_before += took
            else:
                store.start_run(out, scenario, config, self.threads, command)
        have = set(self._held)
        self._advance()
        # the games on disk that count now (a prefix); they are counted as step() returns them
        self.resumed_games = sum(len(r) for _, r, _ in self._ready)
        if self.resumed_games:
            from simkit import progress as hooks
            hooks.games_resumed(self.resumed_games)
        todo = [] if self.replay else [(s, c) for s, c in chunks if s not in have]
        self.backend = backend or LocalBackend()
        self.elapsed = 0.0
        self.bar = _progress(progress, config.games, self.resumed_games)
        self._chunks = iter(self.backend.map_chunks(spec.name, params, config.seed, todo, config.first,
                                                    policy_ids, config.snapshot_ply))
        self._closed = False
        # chunk files and games.parquet written as chunks finish and are counted (a complete run
        # reloaded writes nothing)
        self.writer = (store.RunWriter(out, spec, config.seed, records)
                        if out is not None and not self.replay else None)

    def _advance(self):
        while self._pos < len(self._order) and self._order[self._pos] in self._held:
            start = self._order[self._pos]
            self._ready.append((start, *self._held.pop(start)))
            self._pos += 1

    def _count(self, start, records, aggregate):
        self.tally.add(records, aggregate)
        if self.keep:
            self.parts[start] = records
        if self.writer is not None:
            self.writer.counted(start, records)

    def _next_chunk(self):
        import numba
        # numba's thread count is per calling thread: set it for this chunk only, so a run
        # asked for 1 thread plays on 1 and the caller's setting is left as it was
        before = numba.get_num_threads()
        numba.set_num_threads(self.threads)
        setup = getattr(self.backend, "setup_seconds", 0.0)
        t0 = time.perf_counter()
        try:
            return next(self._chunks)
        finally:
            # the games' time: not waiting for workers nor loading (compiling) the kernel before the first chunk
            # (both backends time it; a duck-typed backend, e.g. a test's wrapper, may not)
            self.elapsed += time.perf_counter() - t0 - (getattr(self.backend, "setup_seconds", 0.0) - setup)
            numba.set_num_threads(before)

    def step(self):
        """Count the next chunk in game order: returns (start, records), or None when every
        chunk is done. Chunks the backend finishes past a gap are stored at once and
        returned once the chunks before them are."""
        while not self._ready:
            before = self.elapsed
            try:
                start, records, aggregate = self._next_chunk()
            except StopIteration:
                return None
            if self.writer is not None:
                self.writer.chunk(start, records, aggregate, self.elapsed - before)
            self._held[start] = (records, aggregate)
            self._advance()
        start, records, aggregate = self._ready.popleft()
        self._count(start, records, aggregate)
        if start not in self._loaded:
            if self.bar:
                self.bar.update(len(records))
            if self.out is not None:      # counted and handed to the writer: what a Ctrl-C from here on keeps
                from simkit import progress
                progress.games_saved(len(records))
        return start, records

    def _stop(self):
        if not self._closed:
            self._closed = True
            if self.bar:
                self.bar.close()
            self.backend.close()

    def close(self):
        """Abandon the session (an error): the backend stops, the Parquet file being written goes; the
        finished chunks stay on disk for --resume."""
        self._stop()
        if self.writer is not None:
            self.writer.abandon()

    def finish(self, *, interrupted: bool = False, stopped: bool = False) -> RunResult:
        """Close the run: write summary and manifest (complete unless interrupted)."""
        self._stop()
        result = RunResult(self.scenario, self.config, self.tally, self.elapsed_before + self.elapsed, interrupted,
                           self.out,
                           self.parts if self.keep else {}, stopped_at_precision=stopped,
                           precision=self.precision, threads=self.threads, resumed_games=self.resumed_games)
        if self.out is not None and not self.replay:
            complete = not interrupted and (stopped or self.tally.games == self.config.games)
            store.finish_run(self.out, result, complete=complete, records=self.records, writer=self.writer)
        return result


def load_result(out: Path, scenario, config: RunConfig, *, precision: float | None = None) -> RunResult:
    """A complete run directory as the RunResult its run returned (the tally saved with it; records
    read from games.parquet when asked), after `store.check_resume`'s checks."""
    manifest = store.check_resume(out, scenario, config, complete_ok=True)
    if manifest.get("status") != "complete":
        raise UsageError(f"{out} holds an unfinished run")
    import json
    summary = json.loads((out / "summary.json").read_text())
    tally = store.load_tally(out, scenario.spec)
    return RunResult(scenario, config, tally, float(manifest.get("elapsed_s", 0.0)), False, out,
                     stopped_at_precision=bool(summary.get("stopped_at_precision")), precision=precision,
                     threads=manifest.get("threads"), resumed_games=tally.games)


class _Bar:
    def __init__(self, total, done):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
        self.p = Progress(TextColumn("games"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                          console=Console(stderr=True), transient=True)
        self.task = self.p.add_task("games", total=total, completed=done)
        self.p.start()

    def update(self, n):
        self.p.advance(self.task, n)

    def close(self):
        self.p.stop()


def _progress(progress, total, done):
    if progress is None:
        progress = sys.stderr.isatty() and total >= 20_000
    return _Bar(total, done) if progress else None
