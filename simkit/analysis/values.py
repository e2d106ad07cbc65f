"""Unit values, two ways (docs/metrics.md, "Unit values").

1. **Ablation**: for each unit type u and side s, play the scenario with one more
   u removed from side s (``remove_<s>.<u>``) on the same seeds and game indices as
   the unmodified scenario. A game's value is side s's score (win 1, draw 1/2,
   loss 0) in the base game minus its score in the ablated game; the unit's value
   is the per-game average over both sides, a paired mean with a t interval.
2. **Regression**: logistic regression (statsmodels Logit) of "side 0 won" on the
   per-type material differences ``snap_0_<u> - snap_1_<u>`` at the snapshot ply,
   with an intercept and a "side 0 moved first" term; **draws are dropped**.
   Coefficients are divided by the weakest unit's (smallest |coefficient|), with
   delta-method 95% intervals.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.analysis.metrics import game_values
from simkit.analysis.stats import Z95, paired_mean

PILOT_GAMES = 2000


def default_snapshot_ply(scenario, config, threads=None) -> tuple[int, str]:
    """The game's own default (``spec.extra['snapshot_ply']``) or half the median length of a
    pilot of 2,000 games: material mid-game, before most games are decided."""
    from dataclasses import replace
    from simkit.engine.runner import simulate
    spec = scenario.spec
    if spec.extra.get("snapshot_ply"):
        return int(spec.extra["snapshot_ply"]), f"{spec.name} default"
    pilot = simulate(scenario, replace(config, games=min(PILOT_GAMES, config.games), chunk_size=None),
                     threads=threads, progress=False, keep=False)
    median = pilot.summary()["plies_quantiles"]["0.5"]
    return max(1, int(round(median / 2))), f"half the median length ({median:g}) of a {pilot.games_done:,}-game pilot"


def _same_params(p, q) -> bool:
    if isinstance(p, (tuple, list)):
        return isinstance(q, (tuple, list)) and len(p) == len(q) and all(_same_params(a, b) for a, b in zip(p, q))
    return bool(np.array_equal(np.asarray(p), np.asarray(q)))


def ablation(base, base_records, config, *, threads=None, log=None) -> dict:
    """Per unit type: mean over games and available sides of (base score - ablated score)."""
    from simkit.engine.runner import simulate
    from simkit.errors import ScenarioError
    from simkit.scenario import load_scenario

    spec = base.spec
    bv = game_values(base_records)["side0_score"]
    base_params = base.params()
    out = {}
    for u in spec.unit_types:
        diffs, per_side, skipped = [], {}, {}
        for s in (0, 1):
            table = dict(base.rules.get(f"remove_{s}", {}))
            overrides = {k: v for k, v in base.overrides.items() if k.split(".")[0] != f"remove_{s}"}
            overrides[f"remove_{s}"] = table | {u: table.get(u, 0) + 1}
            try:
                sc = load_scenario(base.path, overrides)
            except ScenarioError as e:
                skipped[str(s)] = e.detail
                continue
            if _same_params(sc.params(), base_params):
                skipped[str(s)] = f"removing a {u} changes nothing for side {s}"
                continue
            rec = simulate(sc, config, threads=threads, progress=False, keep=True).records()
            av = game_values(rec)["side0_score"]
            d = (bv - av) if s == 0 else (av - bv)   # side 1's score is 1 - side 0's
            diffs.append(d)
            pm = paired_mean(float(d.sum()), float((d * d).sum()), len(d))
            per_side[str(s)] = {"value": pm["diff"], "ci": pm["ci"]}
            if log:
                log(f"ablation {u} side {s}: {pm['diff']:+.4f}")
        if not diffs:
            out[u] = {"value": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "sides": per_side,
                      "skipped": skipped}
            continue
        d = np.mean(diffs, axis=0)
        pm = paired_mean(float(d.sum()), float((d * d).sum()), len(d))
        out[u] = {"value": pm["diff"], "ci": pm["ci"], "p_value": pm["p_value"], "sides": per_side,
                  "skipped": skipped}
    return out


def regression(spec, records) -> dict:
    """Logit of side 0 winning on snap_0_u - snap_1_u (draws dropped), normalised to the weakest unit."""
    import statsmodels.api as sm

    fields = list(spec.record_fields)
    units = [u for u in spec.unit_types if f"snap_0_{u}" in fields and f"snap_1_{u}" in fields]
    notes = []
    result = {"draws": "dropped", "units": {}, "notes": notes}
    if not units:
        notes.append(f"{spec.name} records no snap_<side>_<unit> columns")
        return result
    decided = records[:, 1] >= 0
    r = records[decided]
    result["games_used"] = int(decided.sum())
    result["draws_dropped"] = int((~decided).sum())
    X = np.column_stack([r[:, fields.index(f"snap_0_{u}")].astype(np.float64)
                         - r[:, fields.index(f"snap_1_{u}")] for u in units]) if len(r) else np.zeros((0, len(units)))
    varying = [i for i in range(len(units)) if len(r) > 1 and X[:, i].std() > 0]
    for i, u in enumerate(units):
        if i not in varying:
            notes.append(f"{u}: the material difference never varies at the snapshot; no coefficient")
    y = (r[:, 1] == 0).astype(np.float64)
    if not varying or len(r) < 10 or y.min() == y.max():
        notes.append("too few decided games (or only one winner) to fit")
        return result
    design = np.column_stack([np.ones(len(r)), (r[:, 0] == 0).astype(np.float64), X[:, varying]])
    import warnings
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = sm.Logit(y, design).fit(disp=0, maxiter=200)
        params, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
        if not fit.mle_retvals.get("converged", True):
            notes.append("logistic regression did not converge (a unit type almost never differs, or separates "
                         "the results); its intervals are unreliable: try more games or another --snapshot-ply")
    except Exception as e:  # perfect separation, singular design
        notes.append(f"logistic regression failed: {e}; try more games or an earlier --snapshot-ply")
        return result
    if not np.all(np.isfinite(params)) or not np.all(np.isfinite(np.diag(cov))):
        notes.append("logistic regression did not converge; try more games or an earlier --snapshot-ply")
        return result
    result["intercept"] = float(params[0])
    result["side0_first_coef"] = float(params[1])
    beta = params[2:]
    V = cov[2:, 2:]
    w = int(np.argmin(np.abs(beta)))
    bw = beta[w]
    result["weakest"] = units[varying[w]]
    if abs(bw) < 2 * math.sqrt(V[w, w]):
        notes.append(f"the weakest unit's coefficient ({units[varying[w]]}) is within 2 standard errors of 0: "
                     f"the ratios are unstable (play more games)")
    if np.all(beta < 0):
        notes.append("every coefficient is negative: material at the snapshot lowers the win chance in this game "
                     "(pieces are targets); values are relative magnitudes")
    for j, i in enumerate(varying):
        u = units[i]
        b, se_b = float(beta[j]), math.sqrt(V[j, j])
        ratio = b / bw
        if j == w:
            se_r = 0.0
        else:  # delta method for b_u / b_w
            var_r = (V[j, j] - 2 * ratio * V[j, w] + ratio ** 2 * V[w, w]) / bw ** 2
            se_r = math.sqrt(max(var_r, 0.0))
        result["units"][u] = {"value": ratio, "ci": [ratio - Z95 * se_r, ratio + Z95 * se_r],
                              "coef": b, "coef_ci": [b - Z95 * se_b, b + Z95 * se_b]}
    return result


@dataclass
class ValuesResult:
    data: dict
    out_dir: Path | None = None

    def summary(self) -> dict:
        return self.data

    @property
    def table(self):
        """Tidy: method, unit, value, ci_lo, ci_hi."""
        import pandas as pd
        rows = []
        for u, v in self.data["ablation"].items():
            rows.append({"method": "ablation", "unit": u, "value": v["value"], "ci_lo": v["ci"][0],
                         "ci_hi": v["ci"][1]})
        for u, v in self.data["regression"]["units"].items():
            rows.append({"method": "regression", "unit": u, "value": v["value"], "ci_lo": v["ci"][0],
                         "ci_hi": v["ci"][1]})
        return pd.DataFrame(rows, columns=["method", "unit", "value", "ci_lo", "ci_hi"])


def _ranking(entries: dict) -> list[str]:
    ok = [(u, v["value"]) for u, v in entries.items() if not math.isnan(v["value"])]
    return [u for u, _ in sorted(ok, key=lambda t: -t[1])]


def unit_values(base, config, *, threads=None, out_dir=None, snapshot_ply=None, log=None) -> ValuesResult:
    """Both methods on one base run (``config.snapshot_ply`` is replaced by ``snapshot_ply``
    or the default of `default_snapshot_ply`)."""
    from dataclasses import replace
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.engine.runner import environment, simulate
    from simkit.errors import UsageError

    out = Path(out_dir) if out_dir is not None else None
    if out is not None and (out / "manifest.json").exists():
        raise UsageError(f"directory {out} already holds results; choose another --out")
    if snapshot_ply is None:
        snapshot_ply, source = default_snapshot_ply(base, config, threads)
    else:
        if snapshot_ply < 0:
            raise UsageError(f"--snapshot-ply must be >= 0, got {snapshot_ply}")
        source = "given"
    config = replace(config, snapshot_ply=snapshot_ply)
    t0 = time.perf_counter()
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(out / "manifest.json", {
            "kind": "values", "status": "running", "scenario": base.to_dict(), "config": config.to_dict(),
            "versions": environment(), "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    base_run = simulate(base, config, threads=threads, progress=False, keep=True)
    records = base_run.records()
    abl = ablation(base, records, config, threads=threads, log=log)
    reg = regression(base.spec, records)
    notes = []
    draws = float((records[:, 1] < 0).mean()) if len(records) else 0.0
    if draws > 0.9:
        notes.append(f"{100 * draws:.0f}% of the base games are draws: values say little; try another --policy "
                     f"or more decisive rules")
    data = {"kind": "values", "game": base.game, "scenario": base.name, "policies": list(config.policies),
            "seed": config.seed, "games": base_run.games_done, "snapshot_ply": snapshot_ply,
            "snapshot_ply_source": source,
            "ablation_measure": "change in a side's expected score (win 1, draw 1/2) when it has one more unit "
                                "of the type (base minus one removed), averaged over both sides",
            "regression_measure": "logit coefficient of the material difference at the snapshot ply, divided by "
                                  "the weakest unit's; draws dropped",
            "ablation": abl, "regression": reg,
            "ranking": {"ablation": _ranking(abl), "regression": _ranking(reg["units"])},
            "draw_rate": draws, "notes": notes,
            "elapsed_s": round(time.perf_counter() - t0, 3)}
    result = ValuesResult(data, out)
    if out is not None:
        atomic_write_json(out / "values.json", data)
        atomic_write_bytes(out / "values.csv", result.table.to_csv(index=False).encode())
        manifest = json.loads((out / "manifest.json").read_text())
        manifest.update(status="complete", finished=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
        atomic_write_json(out / "manifest.json", manifest)
    return result
