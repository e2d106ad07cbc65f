"""Bounded memory: a run with keep=False never holds all its records, and the final
games.parquet is merged chunk by chunk (one row group per chunk)."""
import json
import tracemalloc

import numpy as np
import pyarrow.parquet as pq

from simkit.engine.runner import RunConfig, simulate
from simkit.scenario import load_scenario


def test_run_memory_is_bounded_by_a_chunk_not_the_run(tmp_path):
    sc = load_scenario("martian_chess", ["max_plies=60"])
    fields = len(sc.spec.record_fields)
    simulate(sc, RunConfig(games=50, chunk_size=25, policies=("random", "random")), progress=False, keep=False,
             out_dir=tmp_path / "warm")                 # imports and kernels loaded before measuring
    cfg = RunConfig(games=20_000, chunk_size=250, policies=("random", "random"))   # the writer may hold 8 chunks
    tracemalloc.start()
    try:
        res = simulate(sc, cfg, progress=False, keep=False, out_dir=tmp_path / "run")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    whole = cfg.games * fields * 4                      # all int32 records at once
    assert res.parts == {} and res.games_done == cfg.games
    assert peak < whole / 4, (peak, whole)
    meta = pq.ParquetFile(tmp_path / "run" / "games.parquet").metadata
    assert meta.num_rows == cfg.games and meta.num_row_groups == len(cfg.chunks())
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    games = pq.read_table(tmp_path / "run" / "games.parquet", columns=["plies"]).column(0).to_numpy()
    assert summary["games"] == cfg.games and np.isclose(summary["mean_plies"], games.mean())
