"""Game-quality metrics compared between two variants and across the cells of a sweep.

Both use the trajectory games of `simkit.analysis.quality.trace_games`: game i of every
variant has the same seed, game index and first player (common random numbers), so a
rule change is compared on the same dice while the positions agree.

Per metric, B - A (docs/quality.md, "Comparing variants"):

- **per game** (both variants define the metric in every game): the mean of the paired
  differences d_i = x_i(B) - x_i(A). A count (``DISCRETE``: lead changes) gets the score
  interval on the integers from one below the smallest d_i seen to one above the largest
  (at least -2..2) and the score test's p (`stats.discrete_mean`): a small rule change leaves
  most games' counts unchanged, where a t interval undercovers. The support is the observed
  range and one step beyond it on each side, because a rare value just past those seen is
  likely unseen (the observed range alone covered 0.905 in `simkit.analysis.coverage`'s
  one-way case); the whole possible range (up to the longest game) would let an unseen
  extreme value carry the bound and widen the interval far beyond what the games show.
  A continuous metric gets the paired t interval and t-test p-value of `stats.paired_mean`;
  when every d_i is equal (e.g. A and B play identical games) the rule-of-three floor
  d ± 3·span/n (span: the metric's range, or the largest |x| seen for the unbounded
  counts), never [d, d].
- **ratio across games** (a metric some game leaves undefined: the decided-games metrics
  when a game is drawn, branching trend in a game shorter than 3 plies/turns): each
  variant's value is Σ x_i·1[defined] / Σ 1[defined], a ratio of two sums over games
  whose denominators differ between A and B. Interval: the paired percentile bootstrap over
  game indices (`scipy.stats.bootstrap`, ``paired=True``: a resample keeps game i of A with
  game i of B; 4,000 resamples seeded by the run seed, so a result is reproducible); p-value:
  twice the smaller share of those resamples on either side of 0, so p < 0.05 exactly when
  the interval excludes 0. Resamples in which a variant has no game defining the metric are
  dropped (with more than half dropped there is no interval). The same rule-of-three floor
  when there is no interval or the resamples cannot move the statistic.

Holm's correction runs over the metrics of the table.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.analysis.quality import BOUNDED, NEEDS_WINNER, PER_GAME, summarize, trace_games
from simkit.analysis.stats import RULE_OF_THREE, discrete_mean, holm, paired_mean

ALPHA = 0.05
RESAMPLES = 4000
# the range of each bounded metric (the largest possible |d_i|)
RANGE = {m: 1.0 for m in BOUNDED} | {"stability": 0.25}
# whole-number metrics: their paired differences are integers (the score interval's support)
DISCRETE = ("lead_changes",)


def unit_of(length_unit: str) -> str:
    return "ply" if length_unit == "plies" else length_unit.rstrip("s")


def label(metric: str, length_unit: str = "plies") -> str:
    """A metric's name with its unit (turns or plies, from the game)."""
    u, us = unit_of(length_unit), length_unit
    return {"lead_changes": "lead changes per game",
            "lead_change_rate": f"lead changes per {u}",
            "drama": "drama (0..1, decided games)",
            "decisiveness_threshold": "decisiveness threshold (0..1, decided games)",
            "decisiveness_moves": f"decisiveness moves (share of {us}, decided games)",
            "uncertainty": "uncertainty (0..1)",
            "doubt_share": f"doubt share (share of {us}, decided games)",
            "stability": "stability (variance of p, 0..1/4)",
            "decision_moves": f"decision moves (share of {us} with a choice)",
            "branching": f"branching (legal actions per {u})",
            "branching_trend": f"branching trend (last - first third, per {u})",
            "interaction": f"interaction (captures/kills per {u})"}.get(metric, metric.replace("_", " "))


def _span(metric: str, xa: np.ndarray, xb: np.ndarray) -> float:
    if metric in RANGE:
        return RANGE[metric]
    seen = np.abs(np.concatenate([xa, xb]))
    seen = seen[np.isfinite(seen)]
    return max(float(seen.max()) if len(seen) else 0.0, 1.0)


def _diff_of_means(a, b, axis=-1):
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.nanmean(b, axis=axis) - np.nanmean(a, axis=axis)


def difference(metric: str, xa: np.ndarray, xb: np.ndarray, *, seed: int = 0) -> dict:
    """B - A of one quality metric from its per-game values in paired games (NaN = undefined)."""
    xa = np.asarray(xa, dtype=np.float64)
    xb = np.asarray(xb, dtype=np.float64)
    assert xa.shape == xb.shape
    n = len(xa)
    fa, fb = np.isfinite(xa), np.isfinite(xb)
    span = _span(metric, xa, xb)
    if n == 0 or not fa.any() or not fb.any():
        return {"diff": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "method": "undefined",
                "pairs": n}
    if fa.all() and fb.all() and metric in DISCRETE:
        d = xb - xa
        lo_d, hi_d = min(int(d.min()), -1) - 1, max(int(d.max()), 1) + 1
        r = discrete_mean(d, tuple(range(lo_d, hi_d + 1)), ALPHA)
        return {"diff": r["mean"], "ci": list(r["ci"]), "p_value": r["p_value"],
                "method": f"score interval on the integers {lo_d}..{hi_d}", "pairs": n}
    if fa.all() and fb.all():
        d = xb - xa
        r = paired_mean(float(d.sum()), float((d * d).sum()), n, ALPHA, span=span)
        method = "paired t" + (" (rule of three: every paired difference equal)" if r.get("no_discordant") else "")
        return {"diff": r["diff"], "ci": list(r["ci"]), "p_value": r["p_value"], "method": method, "pairs": n}
    diff = float(_diff_of_means(xa, xb))
    n_def = int(min(fa.sum(), fb.sum()))
    same = bool(np.array_equal(fa, fb) and np.all(xb[fb] - xa[fa] == (xb[fb] - xa[fa])[0]))
    lo = hi = math.nan
    p = math.nan
    if not same and n > 1:
        from scipy import stats as st
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            b = st.bootstrap((xa, xb), _diff_of_means, paired=True, vectorized=True, n_resamples=RESAMPLES,
                             confidence_level=1 - ALPHA, method="percentile",
                             random_state=np.random.default_rng(seed))
        boot = np.asarray(b.bootstrap_distribution, dtype=np.float64)
        # a resample in which a variant has no game that defines the metric has no statistic:
        # dropped (the interval is conditional on both variants defining it)
        boot = boot[np.isfinite(boot)]
        if len(boot) >= 0.5 * RESAMPLES:
            lo, hi = (float(v) for v in np.quantile(boot, [ALPHA / 2, 1 - ALPHA / 2]))
            # the same resamples' p-value: twice the smaller tail at 0 (so p < 0.05 when the
            # interval excludes 0), never below the resolution 2 / (R + 1)
            tail = min(int((boot <= 0).sum()), int((boot >= 0).sum()))
            p = min(1.0, 2.0 * (tail + 1) / (len(boot) + 1))
    method = "paired bootstrap of a ratio across games"
    if not (np.isfinite(lo) and np.isfinite(hi)) or hi - lo <= 0:
        half = RULE_OF_THREE * span / max(n_def, 1)
        lo, hi = diff - half, diff + half
        method += " (rule of three: the resamples cannot move it)"
        if same:
            p = 1.0 if diff == 0 else min(1.0, 2 * 0.5 ** n_def)
    # the point estimate is inside its interval even where BCa's correction would push it out
    lo, hi = min(lo, diff), max(hi, diff)
    return {"diff": diff, "ci": [lo, hi], "p_value": p, "method": method, "pairs": n}


def differences(ga, gb, *, seed: int = 0) -> dict:
    """Every metric of PER_GAME: B - A with its interval and p, then Holm's p over the metrics."""
    out = {}
    for m in PER_GAME:
        out[m] = difference(m, ga[m].to_numpy(dtype=float), gb[m].to_numpy(dtype=float), seed=seed)
    adj = holm({m: d["p_value"] for m, d in out.items()})
    for m, d in out.items():
        d["p_holm"] = adj[m]
        d["significant"] = bool(d["p_holm"] == d["p_holm"] and d["p_holm"] < ALPHA)
    return out


def _no_nan(x):
    """NaN (a metric no game defines) as null: the JSON stays strict and nobody reads 'nan'."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_no_nan(v) for v in x]
    return x


def _labels_of(scenario) -> str:
    extra = ", ".join(f"{k}={v}" for k, v in scenario.overrides.items())
    return f"{scenario.game}:{scenario.name}" + (f" [{extra}]" if extra else "")


@dataclass
class QualityCompare:
    game: str
    length_unit: str
    labels: tuple
    overrides: tuple          # (A's, B's) --set overrides
    config: object
    games: int
    per_game_a: object        # DataFrame
    per_game_b: object
    scales: tuple
    elapsed_s: float = 0.0

    def __post_init__(self):
        self.a = summarize(self.per_game_a)
        self.b = summarize(self.per_game_b)
        self.diffs = differences(self.per_game_a, self.per_game_b, seed=self.config.seed)

    @property
    def identical_games(self) -> bool:
        cols = ["winner", "length", "end_reason"]
        return bool(self.per_game_a[cols].equals(self.per_game_b[cols]))

    @property
    def table(self):
        """One row per metric: A and B with their intervals, B - A with its interval and p-values."""
        import pandas as pd
        rows = []
        for m in PER_GAME:
            a, b, d = self.a[m], self.b[m], self.diffs[m]
            rows.append({"metric": m, "label": label(m, self.length_unit),
                         "a": a["mean"], "a_ci_lo": a["ci"][0], "a_ci_hi": a["ci"][1], "a_games": a["games"],
                         "b": b["mean"], "b_ci_lo": b["ci"][0], "b_ci_hi": b["ci"][1], "b_games": b["games"],
                         "diff": d["diff"], "ci_lo": d["ci"][0], "ci_hi": d["ci"][1], "p_value": d["p_value"],
                         "p_holm": d["p_holm"], "significant": d["significant"], "method": d["method"]})
        return pd.DataFrame(rows)

    def summary(self) -> dict:
        cfg = self.config.to_dict()
        return _no_nan({"kind": "compare-quality", "game": self.game, "labels": list(self.labels),
                "overrides": {"a": dict(self.overrides[0]), "b": dict(self.overrides[1])},
                "length_unit": self.length_unit, "games": self.games, "policies": list(self.config.policies),
                "first": self.config.first, "seed": self.config.seed, "config": cfg,
                "scales": {"a": self.scales[0], "b": self.scales[1]}, "difference": "B - A", "alpha": ALPHA,
                "multiple_comparisons": f"Holm over the {len(PER_GAME)} quality metrics (p_holm)",
                "identical_games": self.identical_games,
                "a": self.a, "b": self.b, "differences": self.diffs, "formulas": "docs/quality.md",
                "elapsed_s": round(self.elapsed_s, 2)})


def quality_compare(scenario_a, scenario_b, config, games: int, *, out_dir=None, labels=None,
                    log=None) -> QualityCompare:
    """Trace games 0 .. games-1 of A and of B (same seeds) and compare their quality metrics.

    ``out_dir`` (a compare directory): writes compare_quality.json, compare_quality.csv (one row
    per metric) and quality_games.csv (one row per game and variant, column ``variant`` a/b)."""
    from simkit.errors import UsageError
    if games < 2:
        raise UsageError(f"--quality-games must be at least 2, got {games}")
    t0 = time.perf_counter()
    frames, scales = [], []
    for which, sc in (("A", scenario_a), ("B", scenario_b)):
        if log:
            log(f"quality: tracing {games:,} games of {which}")
        f, s = trace_games(sc, config, games)
        frames.append(f)
        scales.append(s)
    res = QualityCompare(scenario_a.game, scenario_a.spec.length_unit,
                         tuple(labels) if labels else (_labels_of(scenario_a), _labels_of(scenario_b)),
                         (dict(scenario_a.overrides), dict(scenario_b.overrides)), config, games,
                         frames[0], frames[1], tuple(scales), time.perf_counter() - t0)
    if out_dir is not None:
        write_compare(res, Path(out_dir))
    return res


def write_compare(res: QualityCompare, out: Path):
    import pandas as pd

    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "compare_quality.json", res.summary())
    atomic_write_bytes(out / "compare_quality.csv", res.table.to_csv(index=False).encode())
    ga, gb = res.per_game_a.copy(), res.per_game_b.copy()
    ga.insert(0, "variant", "a")
    gb.insert(0, "variant", "b")
    atomic_write_bytes(out / "quality_games.csv", pd.concat([ga, gb], ignore_index=True).to_csv(index=False).encode())


# ---- sweeps --------------------------------------------------------------------------------

def cell_quality(scenario, config, games: int) -> dict:
    """One sweep cell's quality metrics (summarize's mean, 95% interval and games per metric)."""
    frame, _ = trace_games(scenario, config, games)
    return summarize(frame)


def flat_quality(metrics: dict) -> dict:
    """The sweep-row columns of a cell's quality: quality_<metric>, _ci_lo, _ci_hi."""
    row = {}
    for m in PER_GAME:
        v = metrics[m]
        row[f"quality_{m}"] = math.nan if v["mean"] is None else v["mean"]
        row[f"quality_{m}_ci_lo"] = math.nan if v["ci"][0] is None else v["ci"][0]
        row[f"quality_{m}_ci_hi"] = math.nan if v["ci"][1] is None else v["ci"][1]
    return row


def sweep_quality_frame(keys, cells: list) -> "object":
    """Long table: one row per cell and metric (the varied keys, metric, value, ci_lo, ci_hi, games)."""
    import pandas as pd
    rows = []
    for setting, metrics in cells:
        for m in PER_GAME:
            v = metrics[m]
            rows.append({**{k: setting[k] for k in keys}, "metric": m, "value": v["mean"], "ci_lo": v["ci"][0],
                         "ci_hi": v["ci"][1], "games": v["games"]})
    return pd.DataFrame(rows)


def sweep_quality_summary(target, keys, base_sets, first_cell, config, games: int, cells: list) -> dict:
    """sweep_quality.json: per cell its setting and metrics, and the base scenario's value of each
    varied key (the setting without --vary, which the report marks on the axis)."""
    from simkit.analysis.sweep import _resolved
    from simkit.scenario import Scenario, load_scenario
    base = target if isinstance(target, Scenario) else load_scenario(target, list(base_sets or []))
    return {"kind": "sweep-quality", "game": first_cell.game, "scenario": base.name,
            "base_overrides": dict(base.overrides), "keys": list(keys),
            "defaults": {k: _resolved(base.rules, k) for k in keys},
            "length_unit": first_cell.spec.length_unit, "games": games, "policies": list(config.policies),
            "first": config.first, "seed": config.seed, "config": config.to_dict(),
            "cells": [{"setting": setting, "metrics": metrics} for setting, metrics in cells],
            "formulas": "docs/quality.md"}


__all__ = ["NEEDS_WINNER", "QualityCompare", "cell_quality", "difference", "differences", "flat_quality",
           "label", "quality_compare", "sweep_quality_frame",
           "sweep_quality_summary"]
