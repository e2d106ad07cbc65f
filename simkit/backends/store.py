"""The run directory: manifest, finished chunks, records and summary on disk.

    DIR/manifest.json   resolved scenario, config, versions, status, timing
    DIR/chunks/         one parquet + one .npy per finished chunk (while running)
    DIR/games.parquet   one row per game (written when the run is complete)
    DIR/aggregate.csv   the game's aggregate (e.g. deaths per cell)
    DIR/summary.json    the `--json` object

Every file is written to a temporary name and renamed, so a reader never sees a
half-written file and a run killed at any moment can be resumed.
"""
from __future__ import annotations

import json
import os
import shutil
import time
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


def claim_result_dir(out_dir) -> Path | None:
    """The result directory of an analysis command, created; refused (before any game is played)
    when it already holds results. None stays None (write nothing)."""
    if out_dir is None:
        return None
    out = Path(out_dir)
    if (out / "manifest.json").exists():
        raise UsageError(f"directory {out} already holds results; choose another --out")
    out.mkdir(parents=True, exist_ok=True)
    return out


def mark_complete(out: Path):
    """Set a result directory's manifest to complete, with the finishing time."""
    manifest = json.loads((out / "manifest.json").read_text())
    atomic_write_json(out / "manifest.json",
                      manifest | {"status": "complete", "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})


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


def start_run(out: Path, scenario, config, threads: int):
    if (out / "manifest.json").exists():
        raise UsageError(f"run directory {out} already holds a run; use --resume to finish it "
                         f"or choose another --out")
    (out / "chunks").mkdir(parents=True, exist_ok=True)
    from simkit.engine.cache import game_sources
    manifest = {"kind": "run", "status": "running", "scenario": scenario.to_dict(), "config": config.to_dict(),
                "threads": threads, "versions": environment(), "sources": game_sources(scenario.spec),
                "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    atomic_write_json(out / "manifest.json", manifest)


ELAPSED_KEY = b"simkit.elapsed_s"   # a chunk file's metadata: the seconds the run waited for it


def write_chunk(out: Path, spec, seed: int, start: int, records: np.ndarray, aggregate: np.ndarray,
                elapsed: float = 0.0, extra: dict | None = None):
    """Store one finished chunk; ``elapsed`` (the time spent on it) travels with it, so a resumed
    run's speed counts the time of every session, not only the last one's. ``extra``: columns of
    tags every row carries (a playtest: the person's side)."""
    import pyarrow.parquet as pq
    path = out / "chunks" / f"chunk-{start:012d}.parquet"
    tmp = path.with_name(f".{path.name}.tmp")
    table = _records_table(records, spec, start, seed, extra)
    pq.write_table(table.replace_schema_metadata({ELAPSED_KEY: repr(float(elapsed)).encode()}), tmp)
    agg_tmp = out / "chunks" / f".agg-{start:012d}.npy.tmp.npy"
    np.save(agg_tmp, np.asarray(aggregate, dtype=np.int64))
    for p in (agg_tmp, tmp):   # on disk before the renames, so a power cut cannot leave a renamed empty file
        _fsync(p)
    os.replace(agg_tmp, out / "chunks" / f"agg-{start:012d}.npy")
    os.replace(tmp, path)  # the parquet last: its presence means the chunk is whole


def _fsync(path: Path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def load_chunks(out: Path, scenario, config):
    """Yield (start, records, aggregate, elapsed) of the finished chunks of a run to resume; refused
    (one line) when the run was started with other options or by other kernel sources."""
    import pyarrow.parquet as pq
    mpath = out / "manifest.json"
    if not mpath.exists():
        raise UsageError(f"--resume: {out} holds no run (no manifest.json)")
    manifest = json.loads(mpath.read_text())
    if manifest.get("status") == "complete":
        raise UsageError(f"--resume: the run in {out} is already complete")
    want = {"scenario": scenario.to_dict()["rules"], "config": config.to_dict(), "game": scenario.game}
    have = {"scenario": manifest["scenario"]["rules"], "config": manifest["config"],
            "game": manifest["scenario"]["game"]}
    if json.dumps(want, sort_keys=True, default=str) != json.dumps(have, sort_keys=True, default=str):
        raise UsageError(f"--resume: {out} was started with another scenario or options; "
                         f"run with the same target, --set, --games, --seed, --policy, --first and --chunk-size")
    from simkit.engine.cache import game_sources
    here = game_sources(scenario.spec)
    if (manifest.get("sources") or {}).get("stamp") != here["stamp"]:
        # the records depend on the kernel sources: two engines' games must not mix in one run
        raise UsageError(f"--resume: {out} was started by other simkit code ({here['folder']}, simkit/engine or "
                         f"simkit/policies.py changed since); start afresh: delete {out} or choose another --out")
    fields = scenario.spec.record_fields
    sizes = dict(config.chunks())
    for path in sorted((out / "chunks").glob("chunk-*.parquet")):
        try:
            start = int(path.stem.split("-")[1])
        except (IndexError, ValueError):
            continue
        if start not in sizes:
            continue
        try:  # a damaged or half-missing chunk is played again (and overwritten)
            table = pq.read_table(path, columns=list(fields))
            records = np.column_stack([table[f].to_numpy() for f in fields]).astype(np.int32)
            aggregate = np.load(out / "chunks" / f"agg-{start:012d}.npy")
            elapsed = float((table.schema.metadata or {}).get(ELAPSED_KEY, b"0"))
        except Exception:
            continue
        if len(records) != sizes[start]:
            continue
        yield start, records, aggregate, elapsed


def finish_run(out: Path, result, complete: bool):
    import pyarrow.parquet as pq
    spec = result.scenario.spec
    manifest = json.loads((out / "manifest.json").read_text())
    summary = result.summary()
    if complete:
        # the counted games are a prefix 0..games_done-1; a chunk finished past it (Dask, stopped
        # early) is not part of the run
        paths = [p for s, p in _chunk_paths(out) if s < result.games_done]
        tmp = out / ".games.parquet.tmp"
        writer = None
        if len(paths) == 1:   # the one chunk already is games.parquet: no second pass
            os.replace(paths[0], out / "games.parquet")
            paths = []
        for p in paths:  # stream chunk by chunk: memory stays bounded
            t = pq.read_table(p).replace_schema_metadata(None)
            if writer is None:
                writer = pq.ParquetWriter(tmp, t.schema)
            writer.write_table(t)
        if writer is not None:
            writer.close()
            os.replace(tmp, out / "games.parquet")
        agg = result.tally.aggregate
        if agg is not None:
            labels = spec.aggregate_index(result.scenario.params()) if spec.aggregate_index else range(agg.size)
            lines = ["cell,count"] + [f"\"{lab}\",{int(v)}" for lab, v in zip(labels, np.ravel(agg))]
            atomic_write_bytes(out / "aggregate.csv", ("\n".join(lines) + "\n").encode())
    manifest["status"] = "complete" if complete else "interrupted"
    manifest["games_done"] = result.games_done
    manifest["elapsed_s"] = round(result.elapsed, 3)          # every session's, a resumed run's too
    manifest["resumed_games"] = result.resumed_games
    manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    atomic_write_json(out / "summary.json", summary)
    atomic_write_json(out / "manifest.json", manifest)
    if complete:  # only once the manifest says complete: a kill before this point leaves a resumable run
        shutil.rmtree(out / "chunks", ignore_errors=True)


def _chunk_paths(out: Path) -> list[tuple[int, Path]]:
    """(start, path) of the chunk files of a run directory, by start."""
    found = []
    for p in (out / "chunks").glob("chunk-*.parquet"):
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
        t = pq.read_table(p, columns=fields)
        parts.append(t)
        nxt = start + t.num_rows
    if not parts:
        return np.zeros((0, len(fields)), dtype=np.int32)
    return np.concatenate([np.column_stack([t[f].to_numpy() for f in fields]) for t in parts]).astype(np.int32)
