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


def half_width(ci) -> float:
    """Half the width of an interval (inf when it is undefined)."""
    lo, hi = ci
    if lo is None or hi is None or math.isnan(lo) or math.isnan(hi):
        return math.inf
    return (hi - lo) / 2


def newcombe(k1: float, n1: int, k2: float, n2: int, alpha: float = 0.05) -> tuple[float, float, float]:
    """Difference p1 - p2 of two independent proportions with Newcombe's hybrid score interval
    (method 10: built from the two Wilson intervals). Returns (diff, lo, hi)."""
    if n1 <= 0 or n2 <= 0:
        return (math.nan, math.nan, math.nan)
    from statsmodels.stats.proportion import confint_proportions_2indep
    p1, p2 = k1 / n1, k2 / n2
    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=alpha)
    return (p1 - p2, float(lo), float(hi))


def two_proportion_p(k1: float, n1: int, k2: float, n2: int) -> float:
    """Two-sided p-value of the score test of p1 == p2 (independent samples)."""
    if n1 <= 0 or n2 <= 0:
        return math.nan
    from statsmodels.stats.proportion import test_proportions_2indep
    if k1 == k2 and n1 == n2:
        return 1.0
    if (k1 in (0, n1)) and (k2 in (0, n2)) and k1 / n1 == k2 / n2:
        return 1.0
    return float(test_proportions_2indep(k1, n1, k2, n2, method="score").pvalue)


def paired_mean(total: float, total_sq: float, n: int, alpha: float = 0.05) -> dict:
    """Mean of per-game paired differences d_i from their sum and sum of squares.

    Interval: mean ± t(n-1) · s/√n with the sample standard deviation s (n-1 in the
    denominator); p-value: two-sided one-sample t-test of mean 0 (scipy). When every
    difference is 0 the result is exactly 0 with interval [0, 0] and p = 1.
    """
    from scipy import stats as st
    if n <= 0:
        return {"diff": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "se": math.nan, "n": 0}
    mean = total / n
    if n == 1:
        return {"diff": mean, "ci": [-math.inf, math.inf], "p_value": math.nan, "se": math.inf, "n": 1}
    var = max((total_sq - n * mean * mean) / (n - 1), 0.0)
    se = math.sqrt(var / n)
    if se == 0.0:
        p = 1.0 if mean == 0 else 0.0
        return {"diff": mean, "ci": [mean, mean], "p_value": p, "se": 0.0, "n": n}
    tq = float(st.t.ppf(1 - alpha / 2, n - 1))
    t = mean / se
    p = float(2 * st.t.sf(abs(t), n - 1))
    return {"diff": mean, "ci": [mean - tq * se, mean + tq * se], "p_value": p, "se": se, "n": n}
