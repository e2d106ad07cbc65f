"""The metrics of a run (docs/metrics.md gives each formula). One implementation,
used by `run`, `compare`, `sweep` and the report."""
from __future__ import annotations

import math

import numpy as np

from simkit.analysis.stats import mean_interval, score_interval, score_p, tost, wilson
from simkit.analysis.tally import Tally


SCORES = (0.0, 0.5, 1.0)     # a game's score for one player: loss, draw, win

# Practical significance: the smallest change a designer would act on. A significant effect
# smaller than this is reported as "significant but negligible" (docs/metrics.md).
PRACTICAL = {
    "first_player_advantage": 0.02,   # expected-score points (2 points of win rate)
    "side0_expected_score": 0.02,
    "side0_win_rate": 0.02,
    "side1_win_rate": 0.02,
    "first_player_win_rate": 0.02,
    "second_player_win_rate": 0.02,
    "draw_rate": 0.02,
    "decisiveness": 0.02,
}
PRACTICAL_LENGTH = 0.05               # game length: 5% of the reference mean length

# --precision never stops before this many games and two chunks (docs/metrics.md)
MIN_STOP_GAMES = 1000
MIN_STOP_CHUNKS = 2


def practical_threshold(metric: str, reference_length: float | None = None) -> float:
    if metric == "mean_plies":
        return PRACTICAL_LENGTH * max(reference_length or 0.0, 1.0)
    return PRACTICAL.get(metric, 0.02)


def significance(lo: float, hi: float, estimate: float, threshold: float, null: float = 0.0) -> str:
    """'matters' (the 95% interval excludes the null and |estimate| >= threshold),
    'negligible' (significant but smaller than the threshold) or 'not significant'."""
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return "not significant"
    if lo <= null <= hi:
        return "not significant"
    return "matters" if abs(estimate - null) >= threshold else "negligible"


def fpa_counts(tally: Tally) -> list[int]:
    """Games the first player lost, drew and won (the counts behind the FPA's score interval)."""
    o = tally.outcome
    return [int(o[:, 1].sum()), int(o[:, 2].sum()), int(o[:, 0].sum())]


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

    # first-player advantage: mean of per-game score s (1 win, 1/2 draw, 0 loss) minus 1/2,
    # with the score interval on the support {0, 1/2, 1}
    fpa, lo, hi = score_interval(SCORES, [second_wins, draws, first_wins])
    fpa_p = score_p(SCORES, [second_wins, draws, first_wins], 0.5) if n else math.nan
    s0, s0_lo, s0_hi = score_interval(SCORES, [side1, draws, side0])
    hist = tally.length_hist
    lengths = np.arange(len(hist))
    len_sum = float((hist * lengths).sum())
    len_sq = float((hist * lengths.astype(np.float64) ** 2).sum())
    mean_len, len_lo, len_hi = mean_interval(len_sum, len_sq, n, span=float(len(hist) - 1))
    ends = {r: int(c) for r, c in zip(spec.end_reasons, tally.end_counts)}
    capped = sum(c for r, c in ends.items() if r in spec.cap_reasons)   # the game declares its caps
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
        "first_player_advantage_p": fpa_p,
        "first_player_advantage_significance": significance(lo - 0.5, hi - 0.5, fpa - 0.5,
                                                            PRACTICAL["first_player_advantage"]),
        "practical_threshold": PRACTICAL["first_player_advantage"],
        "side0_expected_score": s0,
        "side0_expected_score_ci": [s0_lo, s0_hi],
        "decided_first_win_share": first_wins / (first_wins + second_wins) if first_wins + second_wins else math.nan,
        "decisiveness": 1 - capped / n if n else math.nan,
        "decisiveness_ci": list(wilson(n - capped, n)),
        # the share stopped at a cap (the game's cap_reasons): a side effect tune and compare report
        "cap_rate": rate(capped),
        "cap_rate_ci": list(wilson(capped, n)),
        "length_unit": spec.length_unit,
        "mean_plies": mean_len,
        "mean_plies_ci": [len_lo, len_hi],
        "plies_std": math.sqrt(max(len_sq / n - mean_len ** 2, 0.0)) if n else math.nan,
        "plies_quantiles": {q: _quantile(hist, float(q)) for q in ("0.1", "0.25", "0.5", "0.75", "0.9")},
        "end_reasons": ends,
        "end_reason_shares": {r: rate(c) for r, c in ends.items()},
        "end_reason_shares_ci": {r: list(wilson(c, n)) for r, c in ends.items()},
    }
    return out


def fpa_half_width(tally: Tally) -> float:
    """95% half-width of the first-player advantage's score interval (inf before 2 games)."""
    if tally.games < 2:
        return math.inf
    _, lo, hi = score_interval(SCORES, fpa_counts(tally))
    return (hi - lo) / 2


def fpa_equivalence(tally: Tally, tolerance: float) -> dict:
    """TOST of |FPA| < tolerance: the 90% score interval against ±tolerance."""
    _, lo, hi = score_interval(SCORES, fpa_counts(tally), alpha=0.10)
    verdict = tost((lo - 0.5, hi - 0.5), tolerance)
    words = {"within": f"fair within ±{tolerance:g}", "not_shown": f"not shown fair within ±{tolerance:g}",
             "beyond": f"unfair by more than {tolerance:g}"}
    return {"tolerance": tolerance, "ci90": [lo - 0.5, hi - 0.5], "result": verdict, "verdict": words[verdict],
            "test": "two one-sided 5% tests (TOST) of the first-player advantage: 90% score interval "
                    "inside (-T, T) = fair; entirely beyond ±T = unfair"}


def check_tolerance(tolerance: float | None):
    from simkit.errors import UsageError
    if tolerance is not None and not (0 < tolerance < 0.5):
        raise UsageError(f"--tolerance must be between 0 and 0.5 (e.g. 0.02), got {tolerance}")


def check_precision(precision: float | None):
    from simkit.errors import UsageError
    if precision is not None and not (0 < precision < 1):
        raise UsageError(f"--precision must be a half-width between 0 and 1 (e.g. 0.01), got {precision}")


def enough_to_stop(games: int, chunks: int) -> bool:
    """The minimum sample before any --precision stop: MIN_STOP_CHUNKS chunks and MIN_STOP_GAMES
    games (so an early run of identical or lucky chunks cannot end the run)."""
    return chunks >= MIN_STOP_CHUNKS and games >= MIN_STOP_GAMES


def precision_stop(precision: float, then=None):
    """A runner `stop` callback: true once the FPA 95% half-width is <= ``precision`` after the
    minimum sample of `enough_to_stop` (or when ``then`` says stop). It is called once per chunk."""
    check_precision(precision)
    seen = {"chunks": 0}

    def stop(tally):
        seen["chunks"] += 1
        reached = enough_to_stop(tally.games, seen["chunks"]) and fpa_half_width(tally) <= precision
        return reached or (then is not None and bool(then(tally)))
    stop.precision = precision
    return stop


# ---- per-game values: what paired comparisons average -----------------------------------

PAIRED_METRICS = {
    # summary key: per-game value from records (game_values)
    "side0_expected_score": "side0_score",
    "first_player_advantage": "first_score",
    "side0_win_rate": "side0_win",
    "first_player_win_rate": "first_win",
    "draw_rate": "draw",
    "mean_plies": "plies",
}


def game_values(records: np.ndarray) -> dict[str, np.ndarray]:
    """Per-game quantities whose means are the summary's metrics (float64 arrays).

    first_score: the first player's score (win 1, draw 1/2, loss 0; its mean - 1/2 is the FPA);
    side0_score: side 0's score; side0_win, first_win, draw: indicators; plies: length.
    """
    first = records[:, 0].astype(np.int64)
    winner = records[:, 1].astype(np.int64)
    draw = (winner < 0).astype(np.float64)
    first_win = (winner == first).astype(np.float64)
    side0_win = (winner == 0).astype(np.float64)
    return {"first_score": first_win + 0.5 * draw, "side0_score": side0_win + 0.5 * draw,
            "side0_win": side0_win, "first_win": first_win, "draw": draw,
            "plies": records[:, 2].astype(np.float64)}


# ---- one flat row of metrics (sweep tables, reports) ----------------------------------------

ROW_METRICS = ("first_player_win_rate", "second_player_win_rate", "draw_rate", "side0_win_rate",
               "side1_win_rate", "side0_expected_score", "first_player_advantage", "decisiveness", "cap_rate",
               "mean_plies")


def flat_row(summary: dict) -> dict:
    """The summary as one flat row: each metric then `<metric>_ci_lo`, `<metric>_ci_hi`;
    median length; `end_<reason>` shares with their Wilson intervals; `games` and `stopped_at_precision`."""
    row = {"games": summary["games"]}
    for m in ROW_METRICS:
        row[m] = summary.get(m, math.nan)          # a summary written before cap_rate existed
        ci = summary.get(f"{m}_ci", [math.nan, math.nan])
        row[f"{m}_ci_lo"], row[f"{m}_ci_hi"] = ci[0], ci[1]
    row["first_player_advantage_p"] = summary.get("first_player_advantage_p", math.nan)
    row["median_plies"] = summary["plies_quantiles"]["0.5"]
    cis = summary.get("end_reason_shares_ci") or {}
    for r, share in summary["end_reason_shares"].items():
        row[f"end_{r}"] = share
        row[f"end_{r}_ci_lo"], row[f"end_{r}_ci_hi"] = cis.get(r, [math.nan, math.nan])
    row["stopped_at_precision"] = bool(summary.get("stopped_at_precision", False))
    return row


def unit_table(tally: Tally):
    """Per side and unit type: the sums of every per-unit record column (`spec.unit_columns()`)."""
    import pandas as pd

    totals = tally.column_totals()
    rows = {}
    for c in tally.spec.unit_columns():
        rows.setdefault((c.side, c.unit), {})[c.stat] = totals[c.name]
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index = pd.MultiIndex.from_tuples(df.index, names=["side", "unit"])
    return df.sort_index()


def side_table(tally: Tally):
    """Per game and side: the mean of every per-side record column with no unit type
    (`spec.side_columns()`: kills by attack angle, shield blocks, scores)."""
    import pandas as pd

    n = max(tally.games, 1)
    totals = tally.column_totals()
    rows: dict = {}
    for c in tally.spec.side_columns():
        rows.setdefault(c.stat, {})[f"side {c.side}"] = totals[c.name] / n
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "per game"
    return df


def matrix_tables(tally: Tally) -> dict:
    """Unit-vs-unit columns (`spec.matrix_columns()`) as one matrix per stat, per game (e.g. kills
    by attacker x victim unit: rows the column's unit, columns its vs_unit)."""
    import pandas as pd

    n = max(tally.games, 1)
    totals = tally.column_totals()
    mats: dict = {}
    for c in tally.spec.matrix_columns():
        mats.setdefault(c.stat, {}).setdefault(c.unit, {})[c.vs_unit] = totals[c.name] / n
    return {stat: pd.DataFrame.from_dict(m, orient="index").rename_axis(f"{stat} (row x column)")
            for stat, m in mats.items()}
