"""Interval estimates. Library code where a library does it (statsmodels)."""
from __future__ import annotations

import math

from statsmodels.stats.proportion import proportion_confint

Z95 = 1.959963984540054


def wilson(successes: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval of a proportion (NaNs when n == 0)."""
    if n <= 0:
        return (math.nan, math.nan)
    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return (float(lo), float(hi))


def mean_interval(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float, float, float]:
    """Mean of per-game values from their sum and sum of squares, with a normal 95% interval."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    half = z * math.sqrt(var / n) if n > 1 else math.inf
    return (mean, mean - half, mean + half)
