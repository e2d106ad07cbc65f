"""The metrics of a run (docs/metrics.md gives each formula). One implementation,
used by `run`, `compare`, `sweep` and the report."""
from __future__ import annotations

import math

import numpy as np

from simkit.analysis.stats import mean_interval, wilson
from simkit.analysis.tally import Tally

CAP_REASONS = ("move_limit", "stalemate", "clock_cap")


def _quantile(hist: np.ndarray, q: float) -> float:
    n = hist.sum()
    if n == 0:
        return math.nan
    cum = np.cumsum(hist)
    return float(np.searchsorted(cum, q * n, side="left"))


def summarize(tally: Tally) -> dict:
    """The `--json` object of a run: rates with Wilson 95% intervals, FPA, lengths, end reasons."""
    spec = tally.spec
    o = tally.outcome
    n = tally.games
    first_wins = int(o[:, 0].sum())
    second_wins = int(o[:, 1].sum())
    draws = int(o[:, 2].sum())
    # side 0 wins when it moved first and the first player won, or moved second and the second won
    side0 = int(o[0, 0] + o[1, 1])
    side1 = int(o[1, 0] + o[0, 1])

    def rate(k):
        return k / n if n else math.nan

    # first-player advantage: mean of per-game score s (1 win, 1/2 draw, 0 loss) minus 1/2
    s_sum = first_wins + 0.5 * draws
    s_sq = first_wins + 0.25 * draws
    fpa, lo, hi = mean_interval(s_sum, s_sq, n)
    hist = tally.length_hist
    lengths = np.arange(len(hist))
    mean_len = float((hist * lengths).sum() / n) if n else math.nan
    ends = {r: int(c) for r, c in zip(spec.end_reasons, tally.end_counts)}
    capped = sum(c for r, c in ends.items() if r in CAP_REASONS)
    out = {
        "game": spec.name,
        "games": n,
        "first_player_win_rate": rate(first_wins),
        "first_player_win_rate_ci": list(wilson(first_wins, n)),
        "second_player_win_rate": rate(second_wins),
        "second_player_win_rate_ci": list(wilson(second_wins, n)),
        "draw_rate": rate(draws),
        "draw_rate_ci": list(wilson(draws, n)),
        "side0_win_rate": rate(side0),
        "side0_win_rate_ci": list(wilson(side0, n)),
        "side1_win_rate": rate(side1),
        "side1_win_rate_ci": list(wilson(side1, n)),
        "first_player_advantage": fpa - 0.5,
        "first_player_advantage_ci": [lo - 0.5, hi - 0.5],
        "decided_first_win_share": first_wins / (first_wins + second_wins) if first_wins + second_wins else math.nan,
        "decisiveness": 1 - capped / n if n else math.nan,
        "length_unit": spec.length_unit,
        "mean_plies": mean_len,
        "plies_quantiles": {q: _quantile(hist, float(q)) for q in ("0.1", "0.25", "0.5", "0.75", "0.9")},
        "end_reasons": ends,
    }
    return out


def unit_table(tally: Tally):
    """Per side and unit type: the sums of every `<stat>_<side>_<unit>` record column."""
    import pandas as pd

    rows = {}
    for name, total in tally.column_totals().items():
        parts = name.split("_")
        for i, p in enumerate(parts):
            if p in ("0", "1") and i + 1 < len(parts):
                unit = "_".join(parts[i + 1:])
                if unit in tally.spec.unit_types:
                    stat = "_".join(parts[:i])
                    rows.setdefault((int(p), unit), {})[stat] = total
                break
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index = pd.MultiIndex.from_tuples(df.index, names=["side", "unit"])
    return df.sort_index()
