"""Stage 4: records -> tidy pandas DataFrames with readable labels."""
from __future__ import annotations

import numpy as np
import pandas as pd


def games_frame(records: np.ndarray, spec, seed: int, start: int = 0) -> pd.DataFrame:
    """One row per game; `end_reason` as a categorical of the game's end reasons."""
    df = pd.DataFrame(records, columns=list(spec.record_fields))
    df.insert(0, "game", np.arange(start, start + len(df), dtype=np.int64))
    df.insert(1, "seed", np.int64(seed))
    df["end_reason"] = pd.Categorical.from_codes(df["end_reason"].astype(int), categories=list(spec.end_reasons))
    df["first_won"] = df["winner"] == df["first"]
    df["draw"] = df["winner"] < 0
    return df


def units_long(df: pd.DataFrame, spec) -> pd.DataFrame:
    """Per game, side and unit type: every per-unit column (`spec.unit_columns()`) as a long table."""
    present = set(df.columns)
    rows = [(c.stat, c.side, c.unit, c.name) for c in spec.unit_columns() if c.name in present]
    if not rows:
        return pd.DataFrame(columns=["game", "stat", "side", "unit", "value"])
    long = []
    for stat, side, unit, col in rows:
        long.append(pd.DataFrame({"game": df["game"], "stat": stat, "side": side, "unit": unit,
                                  "value": df[col].to_numpy()}))
    return pd.concat(long, ignore_index=True)
