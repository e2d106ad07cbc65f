"""The run directory: manifest, finished chunks, records and summary on disk.

    DIR/manifest.json   resolved scenario, config, versions, status, timing
    DIR/chunks/         one .npz per finished chunk (while running): its records, aggregate, time
    DIR/games.parquet   one row per game (written when the run is complete)

A chunk's records are kept raw (NumPy, in the narrowest integer type that holds them) and encoded
to Parquet once: a chunk stored as Parquet was encoded, read back and encoded again, 26% of a
1,000,000-game random run (docs/speed.md, "Whole runs"). A run writes its chunk files and encodes
each chunk as it counts it on a thread of its own (`RunWriter`), into a temporary file that becomes
games.parquet only when the run completes; the chunk files stay the record of what is finished until then.
    DIR/aggregate.csv   the game's aggregate (e.g. deaths per cell)
    DIR/summary.json    the `--json` object
    DIR/tally.npz       the run's tally (`engine/tally.py`): a finished run reloads in O(1)

Every file is written to a temporary name and renamed, so a reader never sees a
half-written file and a run killed at any moment can be resumed.
"""
from __future__ import annotations

import json
import os
import shutil
import time
from collections import deque
from pathlib import Path

import numpy as np

from simkit.errors import UsageError


def atomic_write_bytes(path: Path, data: bytes):
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def atomic_write_json(path: Path, obj):
    atomic_write_bytes(path, (json.dumps(obj, indent=2, default=_jsonable) + "\n").encode())


def _jsonable(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def _records_table(records: np.ndarray, spec, start: int, seed: int, extra: dict | None = None):
    import pyarrow as pa
    cols = {"game": pa.array(np.arange(start, start + len(records), dtype=np.int64)),
            "seed": pa.array(np.full(len(records), seed, dtype=np.int64))}
    for i, f in enumerate(spec.record_fields):
        cols[f] = pa.array(np.ascontiguousarray(records[:, i]))
    for k, v in (extra or {}).items():   # tags of every row (a playtest: the person's side)
        cols[k] = pa.array(np.full(len(records), v, dtype=np.int64))
    return pa.table(cols)


def environment() -> dict:
    """Versions and machine facts a manifest records."""
    import sys
    import numba
    import simkit
    return {"simkit": simkit.__version__, "numba": numba.__version__, "numpy": np.__version__,
            "python": sys.version.split()[0], "threads_available": numba.config.NUMBA_NUM_THREADS,
            "cpu_count": os.cpu_count()}


def start_run(out: Path, scenario, config, threads: int, command: dict | None = None):
    """Create a run directory (status running). ``command``: the command line's options
    (`simkit.cli.longrun`), so ``--resume --out DIR`` alone finishes the run."""
    if (out / "manifest.json").exists():
        raise UsageError(f"run directory {out} already holds a run; use --resume to finish it "
                         f"or choose another --out")
    (out / "chunks").mkdir(parents=True, exist_ok=True)
    from simkit.engine.cache import game_sources
    manifest = {"kind": "run", "status": "running", "scenario": scenario.to_dict(), "config": config.to_dict(),
                "threads": threads, "versions": environment(), "sources": game_sources(scenario.spec),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if command is not None:
        manifest["command"] = command
    atomic_write_json(out / "manifest.json", manifest)


ELAPSED_KEY = b"simkit.elapsed_s"   # a traced chunk's Parquet metadata: the seconds the run waited for it


def _narrow(records: np.ndarray) -> np.ndarray:
    """The records in the narrowest signed integer type that holds them all (loaded back as int32):
    a chunk on disk is then about a quarter of its int32 size."""
    if records.size == 0:
        return records
    lo, hi = int(records.min()), int(records.max())
    for t in (np.int8, np.int16):
        if np.iinfo(t).min <= lo and hi <= np.iinfo(t).max:
            return records.astype(t)
    return records


def write_chunk(out: Path, spec, seed: int, start: int, records: np.ndarray, aggregate: np.ndarray,
                elapsed: float = 0.0, extra: dict | None = None):
    """Store one finished chunk; ``elapsed`` (the time spent on it) travels with it, so a resumed
    run's speed counts the time of every session, not only the last one's. ``extra``: columns of
    tags every row carries (a playtest: the person's side)."""
    path = out / "chunks" / f"chunk-{start:012d}.npz"
    tmp = path.with_name(f".{path.name}.tmp.npz")
    tags = {f"tag_{k}": np.int64(v) for k, v in (extra or {}).items()}
    np.savez(tmp, records=_narrow(np.asarray(records)), aggregate=np.asarray(aggregate, dtype=np.int64),
             elapsed=np.float64(elapsed), seed=np.int64(seed), **tags)
    _fsync(tmp)   # on disk before the rename, so a power cut cannot leave a renamed empty file
    os.replace(tmp, path)  # one file: its presence means the chunk is whole


def _read_chunk(path: Path) -> dict:
    """A chunk file's parts: records (int32), aggregate, elapsed, seed and extra tags."""
    with np.load(path) as z:
        return {"records": z["records"].astype(np.int32), "aggregate": z["aggregate"],
                "elapsed": float(z["elapsed"]), "seed": int(z["seed"]),
                "extra": {k[4:]: int(z[k]) for k in z.files if k.startswith("tag_")}}


def _fsync(path: Path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def first_difference(have, want, path: str = "") -> tuple[str, object, object] | None:
    """The first key (dotted path) where two JSON-like values differ: (path, have, want), or None."""
    if isinstance(have, dict) and isinstance(want, dict):
        for k in list(have) + [k for k in want if k not in have]:
            d = first_difference(have.get(k), want.get(k), f"{path}.{k}" if path else str(k))
            if d:
                return d
        return None
    norm = [json.loads(json.dumps(x, sort_keys=True, default=str)) for x in (have, want)]
    return None if norm[0] == norm[1] else (path, have, want)


def check_resume(out: Path, scenario, config, *, complete_ok: bool = False) -> dict:
    """The manifest of a run to resume, after the checks (each refusal one line): a run is there,
    not complete (unless ``complete_ok``: a finished sub-run of a longer command is reloaded), started
    with the same scenario and options (the first that differs is named) and the same kernel sources."""
    mpath = out / "manifest.json"
    if not mpath.exists():
        raise UsageError(f"--resume: {out} holds no run (no manifest.json)")
    manifest = json.loads(mpath.read_text())
    if manifest.get("status") == "complete" and not complete_ok:
        raise UsageError(f"--resume: the run in {out} is already complete")
    want = {"game": scenario.game, "rules": scenario.to_dict()["rules"], "config": config.to_dict()}
    have = {"game": manifest["scenario"]["game"], "rules": manifest["scenario"]["rules"],
            "config": manifest["config"]}
    diff = first_difference(have, want)
    if diff:
        key, was, now = diff
        raise UsageError(f"--resume: {out} was started with {key} = {json.dumps(was, default=str)}, not "
                         f"{json.dumps(now, default=str)}; run with the same target, --set, --games, --seed, "
                         f"--policy, --first and --chunk-size")
    from simkit.engine.cache import game_sources
    here = game_sources(scenario.spec)
    if (manifest.get("sources") or {}).get("stamp") != here["stamp"]:
        # the records depend on the kernel sources: two engines' games must not mix in one run
        raise UsageError(f"--resume: {out} was started by other simkit code ({here['folder']}, simkit/engine or "
                         f"simkit/policies.py changed since); start afresh: delete {out} or choose another --out")
    return manifest


def load_chunks(out: Path, scenario, config, manifest: dict | None = None):
    """Yield (start, records, aggregate, elapsed) of the finished chunks of a run to resume (checked
    by `check_resume` unless its ``manifest`` is given). A complete run's chunks are cut from its
    games.parquet (the whole aggregate and elapsed time come with the first chunk), so a longer
    command replays a finished sub-run chunk by chunk, exactly as it first saw it."""
    if manifest is None:
        manifest = check_resume(out, scenario, config)
    if manifest.get("status") == "complete":
        records = read_records(out, scenario.spec)
        total = load_tally(out, scenario.spec)
        first = True
        for start, count in config.chunks():
            if start >= len(records):
                break
            yield (start, records[start:start + count], total.aggregate if first else None,
                   float(manifest.get("elapsed_s", 0.0)) if first else 0.0)
            first = False
        return
    sizes = dict(config.chunks())
    for start, path in _chunk_paths(out):
        if start not in sizes:
            continue
        try:  # a damaged or half-missing chunk is played again (and overwritten)
            chunk = _read_chunk(path)
        except Exception:
            continue
        if len(chunk["records"]) != sizes[start]:
            continue
        yield start, chunk["records"], chunk["aggregate"], chunk["elapsed"]


TALLY = "tally.npz"


def save_tally(out: Path, tally):
    import io
    buf = io.BytesIO()
    np.savez(buf, **tally.arrays())
    atomic_write_bytes(out / TALLY, buf.getvalue())


def load_tally(out: Path, spec):
    """The tally a finished run saved (`save_tally`)."""
    from simkit.engine.tally import Tally
    with np.load(out / TALLY) as z:
        return Tally.from_arrays(spec, dict(z))


class RunWriter:
    """A run's files, written on one thread of its own in the order they are handed over: each finished
    chunk's file (`chunk`), and games.parquet, encoded chunk by chunk as the run counts them in game
    order (`counted`). The writing overlaps the next chunk's play, which runs without the GIL: done
    at the end, the Parquet encoding took about a quarter of a 1,000,000-game random run's time, and
    the chunk files (an fsync each) another 5% (docs/speed.md, "Whole runs").

    pyarrow imports pandas on its first array (about 0.2 s): here that overlaps the play too, and the
    command's summary tables then find pandas loaded.

    The Parquet rows go to a temporary file; `finish(games)` renames it to games.parquet when it holds
    exactly games 0..games-1, and `abandon()` removes it. Both wait for every chunk file first: what
    the run reported saved is on disk when either returns (a Ctrl-C keeps it).
    """

    def __init__(self, out: Path, spec, seed: int, records: bool = True):
        from concurrent.futures import ThreadPoolExecutor
        self.out, self.spec, self.seed, self.records = out, spec, seed, records
        self.tmp = out / ".games.parquet.tmp"
        self.games = 0            # rows encoded (the thread's count)
        self._writer = None
        self._pool = ThreadPoolExecutor(1, thread_name_prefix="simkit-writer")
        self._jobs: deque = deque()   # submitted, not yet seen finished (at most BEHIND)
        self._error: BaseException | None = None

    # jobs the writer may fall behind by (two per chunk: its file, its Parquet rows): a run playing
    # faster than it writes waits, so the records waiting to be written stay a few chunks (memory does
    # not grow with the run). Eight chunks, not two: the writer's first rows import pyarrow and pandas
    # (0.2 s), and a bound of two chunks kept a 1,000,000-game random run waiting 0.08 s for it
    BEHIND = 16

    def _submit(self, fn, *args):
        self._jobs.append(self._pool.submit(fn, *args))
        while self._jobs and (self._jobs[0].done() or len(self._jobs) > self.BEHIND):
            self._reap()

    def _reap(self):
        """Wait for the oldest job; keep the first error a job raised."""
        error = self._jobs.popleft().exception()
        if error is not None and self._error is None:
            self._error = error

    def chunk(self, start: int, records: np.ndarray, aggregate: np.ndarray, elapsed: float):
        self._submit(write_chunk, self.out, self.spec, self.seed, start, records, aggregate, elapsed)

    def counted(self, start: int, records: np.ndarray):
        if self.records:
            self._submit(self._encode, start, records)

    def _encode(self, start: int, records: np.ndarray):
        if start != self.games:   # not the next games: the file can no longer become games.parquet
            raise RuntimeError(f"chunk at game {start} follows game {self.games}")
        self._writer = _append_rows(self._writer, self.tmp, _records_table(records, self.spec, start, self.seed))
        self.games += len(records)

    def _close(self):
        """Wait for the thread; close the file; raise what a write raised (a full disk)."""
        self._pool.shutdown(wait=True)
        if self._writer is not None:
            self._writer.close()
            self._writer = None
        while self._jobs:
            self._reap()
        if self._error is not None:
            raise self._error

    def finish(self, games: int) -> bool:
        """games.parquet from the rows encoded, if they are games 0..games-1 (else False, nothing kept:
        the caller encodes the chunk files)."""
        try:
            self._close()
        except BaseException:
            self.tmp.unlink(missing_ok=True)
            raise
        if self.records and self.games == games and games > 0:
            os.replace(self.tmp, self.out / "games.parquet")
            return True
        self.tmp.unlink(missing_ok=True)
        return False

    def abandon(self):
        """No games.parquet from this writer (an interrupted or failed run, or one without records): the
        chunk files it was handed are written, the Parquet file goes."""
        try:
            self._close()
        except Exception:   # a failed write of an unfinished run: its chunk is played again on --resume
            pass
        self.tmp.unlink(missing_ok=True)


def finish_run(out: Path, result, complete: bool, records: bool = True, writer: RunWriter | None = None):
    """Close a run directory: summary.json and the manifest's status; a complete run also gets
    games.parquet (unless ``records`` is False: a sweep cell keeps only its tally), aggregate.csv
    and tally.npz, and its chunk files go. ``writer``: the run's own (its chunk files are
    written first), whose Parquet file becomes games.parquet when it holds the whole run (else the
    chunk files are encoded here)."""
    spec = result.scenario.spec
    manifest = json.loads((out / "manifest.json").read_text())
    summary = result.summary()
    if writer is not None and not (complete and records):
        writer.abandon()
    if complete and not records:
        save_tally(out, result.tally)
    elif complete:
        if writer is None or not writer.finish(result.games_done):
            _encode_chunks(out, spec, result.games_done)
        agg = result.tally.aggregate
        if agg is not None:
            labels = spec.aggregate_index(result.scenario.params()) if spec.aggregate_index else range(agg.size)
            lines = ["cell,count"] + [f"\"{lab}\",{int(v)}" for lab, v in zip(labels, np.ravel(agg))]
            atomic_write_bytes(out / "aggregate.csv", ("\n".join(lines) + "\n").encode())
        save_tally(out, result.tally)
    manifest["status"] = "complete" if complete else "interrupted"
    manifest["records"] = bool(records)
    manifest["games_done"] = result.games_done
    manifest["elapsed_s"] = round(result.elapsed, 3)          # every session's, a resumed run's too
    manifest["resumed_games"] = result.resumed_games
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    atomic_write_json(out / "summary.json", summary)
    atomic_write_json(out / "manifest.json", manifest)
    if complete:  # only once the manifest says complete: a kill before this point leaves a resumable run
        shutil.rmtree(out / "chunks", ignore_errors=True)


def _append_rows(writer, path: Path, table):
    """Append ``table`` to the Parquet file at ``path``, opening it (``writer`` None) with the first one's
    schema: one row group per table. Returns the writer."""
    import pyarrow.parquet as pq
    if writer is None:
        writer = pq.ParquetWriter(path, table.schema)
    writer.write_table(table)
    return writer


def _encode_chunks(out: Path, spec, games_done: int):
    """games.parquet from the chunk files: a playtest, which writes its chunk itself, or a run whose
    writer's rows are not the whole run."""
    # the counted games are a prefix 0..games_done-1; a chunk finished past it (Dask, stopped
    # early) is not part of the run
    paths = [(s, p) for s, p in _chunk_paths(out) if s < games_done]
    tmp = out / ".games.parquet.tmp"
    writer = None
    for start, p in paths:  # chunk by chunk, each encoded once: memory stays bounded
        chunk = _read_chunk(p)
        writer = _append_rows(writer, tmp, _records_table(chunk["records"], spec, start, chunk["seed"],
                                                          chunk["extra"]))
    if writer is not None:
        writer.close()
        os.replace(tmp, out / "games.parquet")


def _chunk_paths(out: Path) -> list[tuple[int, Path]]:
    """(start, path) of the chunk files of a run directory, by start."""
    found = []
    for p in (out / "chunks").glob("chunk-*.npz"):
        try:
            found.append((int(p.stem.split("-")[1]), p))
        except (IndexError, ValueError):
            continue
    return sorted(found)


def read_records(out: Path, spec) -> np.ndarray:
    """The run's records: games.parquet, or (unfinished run) its contiguous prefix of chunks."""
    import pyarrow.parquet as pq
    fields = list(spec.record_fields)
    if (out / "games.parquet").exists():
        t = pq.read_table(out / "games.parquet", columns=fields)
        return np.column_stack([t[f].to_numpy() for f in fields]).astype(np.int32)
    parts, nxt = [], 0
    for start, p in _chunk_paths(out):
        if start != nxt:   # a gap: later chunks are stored for --resume, not part of the games so far
            break
        parts.append(_read_chunk(p)["records"])
        nxt = start + len(parts[-1])
    if not parts:
        return np.zeros((0, len(fields)), dtype=np.int32)
    return np.concatenate(parts)
