"""Sweeps: one run per cell of a grid of overrides, one row of metrics per cell.

Every cell is played with the same seed and game indices (common random numbers
across cells), so neighbouring cells differ by the rule change, not by luck alone.
Row columns: the varied keys (resolved, validated values), then `flat_row` metrics
with `_ci_lo` / `_ci_hi` (docs/metrics.md).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from simkit.analysis.metrics import PRACTICAL, check_precision, flat_row
from simkit.analysis.stats import holm

ALPHA = 0.05


def holm_cells(rows: list) -> None:
    """Holm's correction over the cells' FPA tests (FPA = 0), in place: adds
    `first_player_advantage_p_holm` and `first_player_advantage_significance` to every row
    ('matters': adjusted p < 0.05 and |FPA| >= the practical threshold; 'negligible'; 'not significant')."""
    adj = holm({i: r.get("first_player_advantage_p", math.nan) for i, r in enumerate(rows)})
    thr = PRACTICAL["first_player_advantage"]
    for i, r in enumerate(rows):
        p = adj[i]
        r["first_player_advantage_p_holm"] = p
        sig = p == p and p < ALPHA
        r["first_player_advantage_significance"] = ("not significant" if not sig else
                                                    "matters" if abs(r["first_player_advantage"]) >= thr
                                                    else "negligible")


def _resolved(rules: dict, key: str):
    node = rules
    for part in key.split("."):
        node = node.get(part, 0) if isinstance(node, dict) else node  # absent count in a table = 0
    return node


@dataclass
class SweepResult:
    keys: list
    values: dict            # key -> list of values (as given)
    rows: list              # one dict per cell
    summaries: list         # the full summary of each cell
    config: object
    precision: float | None = None
    out_dir: Path | None = None
    interrupted: bool = False        # always False: an interrupted sweep raises `Interrupted` (backends/work.py)
    quality: dict | None = None      # --quality: sweep_quality.json's content (None: not traced)

    @property
    def table(self):
        import pandas as pd
        return pd.DataFrame(self.rows)

    def summary(self) -> dict:
        return {"kind": "sweep", "keys": list(self.keys), "values": self.values, "cells": len(self.rows),
                "precision": self.precision, "config": self.config.to_dict(), "interrupted": self.interrupted,
                "multiple_comparisons": f"Holm over the {len(self.rows)} cells' first-player-advantage tests "
                                        f"(first_player_advantage_p_holm); intervals are per cell (95%)",
                "practical_threshold": PRACTICAL["first_player_advantage"],
                "rows": self.rows} | ({"quality": self.quality} if self.quality else {})


def cell_scenario(target, keys, values, base_sets):
    """One grid cell's scenario (its rules validated; an error names the key)."""
    from simkit.scenario import Scenario, load_scenario
    from simkit.scenario.sweep import cell_overrides
    if isinstance(target, Scenario):   # cells start from its resolved rules: rules changed in Python are kept
        return target.with_overrides(cell_overrides(base_sets, keys, values))
    return load_scenario(target, cell_overrides(base_sets, keys, values))


def load_cells(target, keys, grid, base_sets):
    """Every cell's scenario, loaded and validated (errors name the key)."""
    return [cell_scenario(target, keys, values, base_sets) for values in grid]


CHECK_EVERY_CELL = 10_000   # grids up to this size have every cell's rules checked before any plays


def check_cells(target, keys, grid, base_sets) -> None:
    """Refuse a grid with an invalid cell before anything plays (the error names the key). Each cell's
    scenario is built as it will be played and dropped (none is kept: a large grid costs no memory);
    beyond CHECK_EVERY_CELL cells only each value of each key is checked here, on its own, and a
    combination that breaks a rule across keys stops the sweep when its cell is reached."""
    if len(grid) <= CHECK_EVERY_CELL or not hasattr(grid, "lists"):
        for values in grid:
            cell_scenario(target, keys, values, base_sets)
        return
    for k, values in zip(keys, grid.lists):
        for v in values:
            cell_scenario(target, [k], (v,), base_sets)


def sweep(target, keys, grid, config, *, base_sets=None, threads=None, out_dir=None, precision=None,
          progress=None, log=None, backend=None, quality_games=None, resume=False) -> SweepResult:
    """Play every grid cell; write DIR/sweep.parquet, DIR/sweep.csv, DIR/manifest.json (kind sweep).

    ``grid``: a sequence of cells (`simkit.scenario.sweep.Grid`: computed cell by cell). Each cell
    is a run directory DIR/cells/<i>/ keeping its tally, not its records (`backends/work.py`), so
    Ctrl-C keeps the finished cells and the cell's finished chunks, and ``resume`` finishes the
    sweep. ``backend`` (e.g. a Dask cluster from `make_backend`) plays every cell's chunks.
    ``quality_games``: also trace that many games per cell (same seeds in every cell) and add the
    quality metrics (quality_<metric>, _ci_lo, _ci_hi) to each row; writes DIR/sweep_quality.csv
    and DIR/sweep_quality.json (docs/quality.md).
    """
    from simkit.analysis.degenerate import tally_flags
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.backends.work import Work
    from simkit.engine.runner import validate_config

    check_precision(precision)
    first = cell_scenario(target, keys, grid[0], base_sets)
    validate_config(first.spec, config)
    check_cells(target, keys, grid, base_sets)
    work = Work.of(out_dir, resume)
    out = work.out
    n = len(grid)
    axes = [list(v) for v in grid.lists] if hasattr(grid, "lists") else [list(c) for c in grid]
    sets = dict(base_sets) if isinstance(base_sets, dict) else list(base_sets or [])
    identity = {"target": str(getattr(target, "path", target)), "base_overrides": sets, "keys": list(keys),
                ("axes" if hasattr(grid, "lists") else "cells"): axes, "config": config.to_dict(),
                "precision": precision, "quality_games": quality_games}
    fields = {"target": str(getattr(target, "path", target)), "game": first.game,
              # the records call every game's length "plies"; this game counts it in length_unit
              "length_unit": first.spec.length_unit,
              "columns": {c: f"{c.split('_')[0]} game length in {first.spec.length_unit}"
                          for c in ("mean_plies", "median_plies")},
              "keys": list(keys), "cells": n, "base_overrides": sets, "scenario": first.to_dict(),
              "config": config.to_dict(), "precision": precision}
    rows, summaries = [], []
    quality_cells = []
    with work.start("sweep", identity, **fields):
        for i in range(n):
            sc = first if i == 0 else cell_scenario(target, keys, grid[i], base_sets)
            res = work.run(f"cells/{i:06d}", sc, config, threads=threads, keep=False, records=False,
                           precision=precision, backend=backend)
            s = res.summary()
            flags = tally_flags(res.tally, config.policies)
            s["degenerate"] = [f["message"] for f in flags]
            row = {k: _resolved(sc.rules, k) for k in keys}
            row.update(flat_row(s))
            # the cell's degenerate-play flags by name and share, e.g. "capped 35%" (empty: none)
            row["degenerate"] = "; ".join(f"{f['flag']} {f['share']:.0%}" for f in flags)
            if quality_games:
                from simkit.analysis.quality import summarize as quality_of
                from simkit.analysis.quality_compare import flat_quality
                frame, _ = work.traces(f"quality/{i:06d}", sc, config, quality_games)
                q = quality_of(frame)
                row.update(flat_quality(q))
                quality_cells.append(({k: row[k] for k in keys}, q))
            rows.append(row)
            summaries.append(s)
            if log:
                from simkit.report.fmt import setting      # values as --set takes them (true, not True)
                log(f"cell {i + 1}/{n}: " + ", ".join(setting(k, row[k]) for k in keys)
                    + f": FPA {s['first_player_advantage']:+.4f} ({s['games']:,} games)"
                    + (f"; quality traced on {quality_games:,} games" if quality_games else ""))
        holm_cells(rows)
        values = {k: [] for k in keys}
        for r in rows:
            for k in keys:
                if r[k] not in values[k]:
                    values[k].append(r[k])
        quality = None
        if quality_cells:
            from simkit.analysis.quality_compare import sweep_quality_summary
            quality = sweep_quality_summary(target, keys, base_sets, first, config, quality_games, quality_cells)
        result = SweepResult(list(keys), values, rows, summaries, config, precision, out, False, quality)
        if out is not None:
            import pyarrow as pa
            import pyarrow.parquet as pq
            df = result.table
            tmp = out / ".sweep.parquet.tmp"
            pq.write_table(pa.Table.from_pandas(df, preserve_index=False), tmp)
            tmp.replace(out / "sweep.parquet")
            atomic_write_bytes(out / "sweep.csv", df.to_csv(index=False).encode())
            if quality:
                from simkit.analysis.quality_compare import sweep_quality_frame
                atomic_write_json(out / "sweep_quality.json", quality)
                atomic_write_bytes(out / "sweep_quality.csv",
                                   sweep_quality_frame(keys, quality_cells).to_csv(index=False).encode())
        work.complete(values=values, cells_done=len(rows))
    return result
