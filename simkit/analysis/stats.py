"""Interval estimates (docs/metrics.md gives every formula).

Nothing here claims certainty from no evidence: an interval is never [m, m]
because every sampled value happened to be equal. Discrete per-game values
(scores 0, 1/2, 1; win/draw indicators; their paired differences) get a **score
interval** on their known support (Wilson for 0/1 values, Tango's interval for
paired 0/1 differences); continuous ones (game length) a t interval with a
rule-of-three floor.

Imports stay light (math only at module level): `simkit run` uses this module and
must not load scipy or statsmodels.
"""
from __future__ import annotations

import functools
import math

Z95 = 1.959963984540054
Z90 = 1.6448536269514722     # two one-sided 5% tests (TOST) = a 90% interval
# "no discordant pairs in n": |difference| <= RULE_OF_THREE * span / n (one-sided 95% bound
# on the share of pairs that differ is -ln(0.05)/n ~ 3/n)
RULE_OF_THREE = 3.0


def wilson(successes: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval of a proportion (NaNs when n == 0); closed form."""
    if n <= 0:
        return (math.nan, math.nan)
    z = Z95 if alpha == 0.05 else _z(alpha)
    p = successes / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(max(p * (1 - p) / n + z * z / (4 * n * n), 0.0)) / den
    # at 0 (or n) successes the bound is exactly 0 (or 1); rounding left it ~1e-18 away, above the estimate
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


def _z(alpha: float) -> float:
    if alpha == 0.05:
        return Z95
    if alpha == 0.10:
        return Z90
    from statistics import NormalDist
    return NormalDist().inv_cdf(1 - alpha / 2)


def _normal_sf(x: float) -> float:
    return 0.5 * math.erfc(x / math.sqrt(2))


# ---- score interval of a mean on a known finite support -------------------------------------

def _constrained_mle(support, probs, delta):
    """The multinomial on ``support`` closest (maximum likelihood) to the observed shares ``probs``
    among those with mean ``delta``: pi_k = p_k / (1 + t (v_k - delta)) on the observed values,
    the remaining mass on the extreme support value when the observed ones cannot reach ``delta``.
    Returns its variance about ``delta``."""
    obs = [(v - delta, p) for v, p in zip(support, probs) if p > 0]
    vmin, vmax = support[0] - delta, support[-1] - delta
    # t must keep 1 + t*(v - delta) >= 0 on the whole support (> 0 on observed values)
    t_lo, t_hi = -1.0 / vmax, -1.0 / vmin

    def g(t):
        return sum(p * u / (1 + t * u) for u, p in obs)

    obs_max = max(u for u, _ in obs) == vmax
    obs_min = min(u for u, _ in obs) == vmin
    if not obs_max and g(t_lo) <= 0:
        t = t_lo          # the observed values fall short: mass on the largest support value
    elif not obs_min and g(t_hi) >= 0:
        t = t_hi          # ... or on the smallest
    else:
        # g decreases in t: Newton steps kept inside a shrinking bracket [lo, hi]
        lo = t_lo * (1 - 1e-12) if obs_max else t_lo
        hi = t_hi * (1 - 1e-12) if obs_min else t_hi
        t = 0.0 if lo < 0.0 < hi else 0.5 * (lo + hi)
        for _ in range(100):
            gv = sum(p * u / (1 + t * u) for u, p in obs)
            if abs(gv) < 1e-15:
                break
            if gv > 0:
                lo = t
            else:
                hi = t
            dg = -sum(p * u * u / (1 + t * u) ** 2 for u, p in obs)
            step = t - gv / dg if dg < 0 else 0.5 * (lo + hi)
            if abs(step - t) <= 1e-14 * max(1.0, abs(t)):
                t = step
                break
            t = step if lo < step < hi else 0.5 * (lo + hi)
    pis = [p / (1 + t * u) for u, p in obs]
    var = sum(pi * u * u for pi, (u, _) in zip(pis, obs))
    rest = max(0.0, 1.0 - sum(pis))
    if rest > 0:
        u = vmax if t == t_lo and not obs_max else vmin
        var += rest * u * u
    return var


def score_z(support, counts, delta) -> float:
    """Score statistic of "the mean is ``delta``": (mean - delta) / sqrt(var_delta / n), with the
    variance of the maximum-likelihood distribution of mean ``delta`` (not the observed one)."""
    n = sum(counts)
    mean = sum(v * c for v, c in zip(support, counts)) / n
    if delta <= support[0] or delta >= support[-1]:
        return math.inf if mean != delta else 0.0
    var = _constrained_mle(support, [c / n for c in counts], delta)
    if var <= 0:
        return math.inf if mean != delta else 0.0
    return (mean - delta) / math.sqrt(var / n)


def score_interval(support, counts, alpha: float = 0.05) -> tuple[float, float, float]:
    """Mean of values on a known finite ``support`` (sorted) from their ``counts``, with the score
    interval {delta : |score_z(delta)| <= z}. For support (0, 1) this is Wilson's interval; for
    paired differences (-1, 0, 1) Tango's (1998). It never has zero width: with every value
    equal the bound is set by how unlikely it is to see no other value in n draws."""
    # memoised: the interval is a function of the counts alone, and a coverage simulation (or a
    # sweep of near-identical cells) asks for the same counts many times
    return _score_interval(tuple(float(v) for v in support), tuple(float(c) for c in counts), float(alpha))


@functools.lru_cache(maxsize=65536)
def _score_interval(support, counts, alpha):
    support, counts = list(support), list(counts)
    n = sum(counts)
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    z = _z(alpha)
    mean = sum(v * c for v, c in zip(support, counts)) / n
    lo_end, hi_end = support[0], support[-1]

    probs = [c / n for c in counts]

    def h(d):
        # (mean - d)^2 n - z^2 var_d: < 0 inside the interval, > 0 outside; finite everywhere
        if d <= lo_end or d >= hi_end:
            return (mean - d) ** 2 * n
        return (mean - d) ** 2 * n - z * z * _constrained_mle(support, probs, d)

    def bound(end):
        if mean == end:
            return end
        # h(mean) <= 0 < h(end); with every value equal h is 0 at the mean itself, so step
        # towards the end until h < 0 (the score statistic is below z just beside the mean)
        x0, h0 = mean, h(mean)
        k = 1
        while h0 >= 0 and k < 80:
            x0 = mean + (end - mean) * 2.0 ** -k
            h0 = h(x0)
            k += 1
        if h0 >= 0:
            return mean
        x1, h1 = end, h(end)
        x = x0
        side = 0
        for _ in range(300):   # Illinois (false position) on [x0, x1]
            x = x1 - h1 * (x1 - x0) / (h1 - h0)
            hx = h(x)
            if hx == 0:
                return x
            if hx > 0:
                x1, h1 = x, hx
                if side == 1:
                    h0 *= 0.5
                side = 1
            else:
                x0, h0 = x, hx
                if side == -1:
                    h1 *= 0.5
                side = -1
            if abs(x1 - x0) <= 1e-12 * max(1.0, abs(x)):
                break
        return x

    return (mean, bound(lo_end), bound(hi_end))


def support_counts(values, support) -> list[int]:
    """How many of ``values`` fall on each point of ``support`` (sorted); ValueError when a value is
    not on the support (e.g. a pair score that is not a multiple of 1/4)."""
    import numpy as np
    x = np.asarray(values, dtype=np.float64).ravel()
    sup = np.asarray(support, dtype=np.float64)
    idx = np.clip(np.searchsorted(sup, x), 0, len(sup) - 1)
    near = np.where(np.abs(sup[idx - 1] - x) < np.abs(sup[idx] - x), idx - 1, idx) if len(sup) > 1 else idx
    if len(x) and np.abs(sup[near] - x).max() > 1e-9:
        bad = x[np.abs(sup[near] - x) > 1e-9][0]
        raise ValueError(f"value {bad!r} is not on the support {tuple(float(v) for v in sup)}")
    return np.bincount(near, minlength=len(sup)).tolist()


def discrete_mean(values, support, alpha: float = 0.05, null: float = 0.0) -> dict:
    """Mean of per-game values that lie on a known finite ``support`` (pair scores in quarters,
    paired score differences in halves, indicator differences in {-1, 0, 1}), with the score
    interval on that support and the score test's p-value of mean == ``null``. The one interval for
    discrete outcomes (`compare`, `matchup`, `ladder`, `sensitivity`, `values`, `quality`):
    a t interval undercovers when the values rarely differ (docs/metrics.md, "Coverage")."""
    counts = support_counts(values, support)
    n = sum(counts)
    if n == 0:
        return {"mean": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "n": 0, "counts": counts}
    m, lo, hi = score_interval(support, counts, alpha)
    return {"mean": m, "ci": [lo, hi], "p_value": score_p(support, counts, null), "n": n, "counts": counts}


def score_p(support, counts, null: float = 0.0) -> float:
    """Two-sided p-value of the score test of mean == ``null`` (McNemar's test for paired 0/1
    differences; consistent with `score_interval`: p < alpha iff the interval excludes ``null``)."""
    n = sum(counts)
    if n <= 0:
        return math.nan
    zs = score_z(support, counts, null)
    return 1.0 if zs == 0 else 2 * _normal_sf(abs(zs))


def tango(b: float, c: float, n: int, alpha: float = 0.05) -> tuple[float, float, float]:
    """Tango's (1998) closed-form score interval for a paired difference of proportions
    (b - c) / n, b and c the two kinds of discordant pairs. Used to check `score_interval`."""
    z = _z(alpha)
    est = (b - c) / n

    def zstat(d):
        A = 2 * n
        B = -b - c + (2 * n - b + c) * d
        C = -c * d * (1 - d)
        q21 = (math.sqrt(max(B * B - 4 * A * C, 0.0)) - B) / (2 * A)
        den = n * (2 * q21 + d * (1 - d))
        return (b - c - n * d) / math.sqrt(den) if den > 0 else (math.inf if b - c != n * d else 0.0)

    def root(x0, x1, target):
        for _ in range(200):
            mid = 0.5 * (x0 + x1)
            if (zstat(mid) - target) * (zstat(x0) - target) > 0:
                x0 = mid
            else:
                x1 = mid
        return 0.5 * (x0 + x1)
    lo = -1.0 if est <= -1 else root(est, -1 + 1e-15, z)
    hi = 1.0 if est >= 1 else root(est, 1 - 1e-15, -z)
    return (est, lo, hi)


def mcnemar_exact_p(b: int, c: int) -> float:
    """Exact McNemar: two-sided binomial test of b discordant pairs of one kind out of b + c."""
    if b + c == 0:
        return 1.0
    from scipy.stats import binomtest
    return float(binomtest(int(b), int(b + c), 0.5).pvalue)


# ---- continuous values ------------------------------------------------------------------------

def mean_interval(total: float, total_sq: float, n: int, z: float = Z95,
                  span: float | None = None) -> tuple[float, float, float]:
    """Mean of per-game values from their sum and sum of squares, with a normal 95% interval.

    When every value is equal (zero variance) the interval is the rule-of-three bound
    mean ± 3·span/n (``span``: how far an unseen value could lie; default |mean|, e.g. a
    length of 0), never [mean, mean]."""
    if n <= 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    var = max(total_sq / n - mean * mean, 0.0)
    if n == 1:
        half = math.inf
    elif var * n <= 1e-12 * max(1.0, mean * mean):
        half = RULE_OF_THREE * (abs(mean) if span is None else span) / n
    else:
        half = z * math.sqrt(var / n)
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
    p1, p2 = k1 / n1, k2 / n2
    l1, u1 = wilson(k1, n1, alpha)
    l2, u2 = wilson(k2, n2, alpha)
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (d, lo, hi)


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


def paired_mean(total: float, total_sq: float, n: int, alpha: float = 0.05, span: float = 1.0) -> dict:
    """Mean of per-game paired differences d_i from their sum and sum of squares.

    Interval: mean ± t(n-1) · s/√n with the sample standard deviation s (n-1 in the
    denominator); p-value: two-sided one-sample t-test of mean 0 (scipy). When every
    difference is equal ("no discordant pairs in n") the interval is the rule-of-three
    bound mean ± 3·span/n (``span``: the largest possible |d|, 1 for scores), not [m, m].
    """
    if n <= 0:
        return {"diff": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "se": math.nan, "n": 0}
    mean = total / n
    if n == 1:
        return {"diff": mean, "ci": [-math.inf, math.inf], "p_value": math.nan, "se": math.inf, "n": 1}
    var = max((total_sq - n * mean * mean) / (n - 1), 0.0)
    se = math.sqrt(var / n)
    if se <= 1e-12 * max(1.0, abs(mean)):
        half = RULE_OF_THREE * span / n
        # all n differences equal: exact sign test (p = 1 when they are all 0)
        p = 1.0 if mean == 0 else min(1.0, 2 * 0.5 ** n)
        return {"diff": mean, "ci": [mean - half, mean + half], "p_value": p, "se": 0.0, "n": n,
                "no_discordant": True}
    from scipy import stats as st
    tq = float(st.t.ppf(1 - alpha / 2, n - 1))
    t = mean / se
    p = float(2 * st.t.sf(abs(t), n - 1))
    return {"diff": mean, "ci": [mean - tq * se, mean + tq * se], "p_value": p, "se": se, "n": n}


# ---- decisions ---------------------------------------------------------------------------------

def holm(pvalues: dict) -> dict:
    """Holm's step-down adjusted p-values (family-wise error <= alpha over the whole family)."""
    items = sorted(((p, k) for k, p in pvalues.items() if p is not None and not math.isnan(p)))
    m = len(items)
    out = {k: math.nan for k in pvalues}
    running = 0.0
    for i, (p, k) in enumerate(items):
        running = max(running, min(1.0, (m - i) * p))
        out[k] = running
    return out


def tost(ci90, tolerance: float) -> str:
    """Equivalence by two one-sided 5% tests: the 90% interval of the quantity against ±tolerance.
    'within' (interval inside (-T, T)), 'beyond' (interval entirely beyond ±T) or 'not_shown'."""
    lo, hi = ci90
    if -tolerance < lo and hi < tolerance:
        return "within"
    if lo > tolerance or hi < -tolerance:
        return "beyond"
    return "not_shown"


def fieller(a: float, b: float, vaa: float, vbb: float, vab: float, z: float = Z95):
    """Fieller's interval for the ratio a / b of two normal estimates (variances vaa, vbb, covariance
    vab): the rho with (a - rho b)^2 <= z^2 (vaa - 2 rho vab + rho^2 vbb). None when b is not
    significantly away from 0 (b^2 <= z^2 vbb: the set is then unbounded)."""
    qa = b * b - z * z * vbb
    if qa <= 0:
        return None
    qb = a * b - z * z * vab
    qc = a * a - z * z * vaa
    disc = max(qb * qb - qa * qc, 0.0)
    return ((qb - math.sqrt(disc)) / qa, (qb + math.sqrt(disc)) / qa)
