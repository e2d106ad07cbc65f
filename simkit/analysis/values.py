"""Unit values, three ways (docs/metrics.md, "Unit values").

1. **Ablation**: for each unit type u and side s, play the scenario with one more
   u removed from side s (``remove_<s>.<u>``) on the same seeds and game indices as
   the unmodified scenario. A game's value is side s's score (win 1, draw 1/2,
   loss 0) in the base game minus its score in the ablated game; the unit's value
   is the per-game average over both sides, with a score interval on the known
   support of those averages. The two sides' values are tested against each other.
2. **Regression**: logistic regression (statsmodels Logit) of "side 0 won" on the
   per-type material differences ``snap_0_<u> - snap_1_<u>`` at the snapshot ply,
   with an intercept and a "side 0 moved first" term, on the decided games **still
   running at the snapshot** (a finished game's material is its end state, not a
   cause of it). Raw coefficients are always given; ratios to the game's declared
   reference unit keep the sign (divided by |beta_ref|) with Fieller intervals, and
   are refused when the signs are mixed or beta_ref's interval contains 0.

3. **Learned**: the per-unit material weights of the evaluation ``simkit learn`` fitted to this variant's
   self-play outcomes (``learned``; empty when the variant has none), ratios to the reference unit like
   the regression's.

Units whose loss ends the game (``GameSpec.game_ending_units``) are left out of both.
``pair_test`` answers "is unit A worth more than unit B?" directly: remove one A or
one B from the same side, on common random numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.analysis.metrics import game_values
from simkit.analysis.stats import Z95, fieller, holm
from simkit.analysis.stats import discrete_mean as stats_discrete_mean

PILOT_GAMES = 2000
SE_MAX = 10.0     # a logit coefficient with a larger standard error is not an estimate (separation)
MIN_VARYING = 10  # games in which a unit's material difference must differ from its usual value


def default_snapshot_ply(scenario, config, threads=None, work=None, name="runs/pilot") -> tuple[int, str]:
    """The game's own default (``spec.extra['snapshot_ply']``) or half the median length of a
    pilot of 2,000 games: material mid-game, before most games are decided. ``work``: the
    command's `Work` (the pilot is one of its runs, ``name``)."""
    from dataclasses import replace
    from simkit.backends.work import Work
    spec = scenario.spec
    if spec.extra.get("snapshot_ply"):
        return int(spec.extra["snapshot_ply"]), f"{spec.name} default"
    pilot = (work or Work()).run(name, scenario, replace(config, games=min(PILOT_GAMES, config.games),
                                                         chunk_size=None), threads=threads, keep=False)
    median = pilot.summary()["plies_quantiles"]["0.5"]
    return max(1, int(round(median / 2))), f"half the median length ({median:g}) of a {pilot.games_done:,}-game pilot"


def _same_params(p, q) -> bool:
    if isinstance(p, (tuple, list)):
        return isinstance(q, (tuple, list)) and len(p) == len(q) and all(_same_params(a, b) for a, b in zip(p, q))
    return bool(np.array_equal(np.asarray(p), np.asarray(q)))


QUARTERS = tuple(np.arange(-4, 5) / 4.0)


def discrete_mean(d: np.ndarray, alpha: float = 0.05) -> dict:
    """Mean of per-game score differences (multiples of 1/4 in [-1, 1]: one side's difference
    moves in halves, the mean of two sides' in quarters) with the score interval on that support
    and the score-test p-value of mean 0."""
    try:
        r = stats_discrete_mean(d, QUARTERS, alpha)
    except ValueError:
        raise ValueError("score differences must be multiples of 1/4 in [-1, 1]") from None
    return {"value": r["mean"], "ci": r["ci"], "p_value": r["p_value"], "n": r["n"]}


def ablation_entry(base_side0: np.ndarray, ablated_side0: dict) -> dict:
    """One unit's ablation value from side 0's per-game scores: the base run's, and each ablated
    run's (``{side: scores}``, side = the side that lost the unit). Side s's value per game is its
    base score minus its ablated score; the unit's is the mean over the sides present. Flags
    `sides_disagree` when the two sides' values differ significantly (95%)."""
    diffs, per_side = [], {}
    for s, av in sorted(ablated_side0.items()):
        d = (base_side0 - av) if int(s) == 0 else (av - base_side0)   # side 1's score is 1 - side 0's
        diffs.append(d)
        pm = discrete_mean(d)
        per_side[str(s)] = {"value": pm["value"], "ci": pm["ci"], "p_value": pm["p_value"]}
    if not diffs:
        return {"value": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "sides": per_side}
    pm = discrete_mean(np.mean(diffs, axis=0))
    out = {"value": pm["value"], "ci": pm["ci"], "p_value": pm["p_value"], "sides": per_side}
    if len(diffs) == 2:
        # the two sides' values on the same base games: paired test of their difference
        x = diffs[0] - diffs[1]
        n = len(x)
        se = float(x.std(ddof=1)) / math.sqrt(n) if n > 1 else math.inf
        z = float(x.mean()) / se if se > 0 else (0.0 if x.mean() == 0 else math.inf)
        out["sides_disagree"] = bool(abs(z) > Z95)
        out["sides_difference"] = float(x.mean())
    return out


def _run_name(s: int, u: str) -> str:
    """The run directory of side ``s`` playing one ``u`` short (shared by the ablation and --pair)."""
    return f"runs/remove_{s}-{u}"


def _removal(base, s: int, u: str, extra: int = 1):
    """The scenario with ``extra`` more ``u`` removed from side ``s`` (None + why when refused)."""
    from simkit.errors import ScenarioError
    table = dict(base.rules.get(f"remove_{s}", {}))
    try:   # from base's resolved rules, not its file: rules changed in Python are kept
        sc = base.with_overrides({f"remove_{s}": table | {u: table.get(u, 0) + extra}})
    except ScenarioError as e:
        return None, e.detail
    if _same_params(sc.params(), base.params()):
        return None, f"removing a {u} changes nothing for side {s}"
    return sc, None


def ablation(base, base_records, config, *, threads=None, log=None, work=None) -> dict:
    """Per unit type: mean over games and available sides of (base score - ablated score)."""
    from simkit.backends.work import Work
    work = work or Work()
    spec = base.spec
    bv = game_values(base_records)["side0_score"]
    out = {}
    for u in spec.unit_types:
        if u in spec.game_ending_units:
            out[u] = {"value": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "sides": {},
                      "skipped": {"both": f"losing the {u} ends the game: left out"}, "game_ending": True}
            continue
        ablated, skipped = {}, {}
        for s in (0, 1):
            sc, why = _removal(base, s, u)
            if sc is None:
                skipped[str(s)] = why
                continue
            rec = work.run(_run_name(s, u), sc, config, threads=threads).records()
            ablated[s] = game_values(rec)["side0_score"]
        entry = ablation_entry(bv, ablated)
        entry["skipped"] = skipped
        if log and ablated:
            log(f"ablation {u}: {entry['value']:+.4f}")
        out[u] = entry
    return out


def pair_test(base, a: str, b: str, config, *, threads=None, log=None, work=None) -> dict:
    """Is unit ``a`` worth more than unit ``b``? For each side s: side s's score with one b removed
    (it keeps its a) minus its score with one a removed (it keeps its b), game by game on the same
    seeds; the mean over sides is > 0 when a is worth more. ``work``: the command's `Work`."""
    from simkit.backends.work import Work
    from simkit.errors import UsageError
    work = work or Work()
    spec = base.spec
    for u in (a, b):
        if u not in spec.unit_types:
            raise UsageError(f"--pair: {spec.name} has no unit type {u!r}; it has {', '.join(spec.unit_types)}")
        if u in spec.game_ending_units:
            raise UsageError(f"--pair: losing the {u} ends the game; it cannot be compared by removal")
    if a == b:
        raise UsageError(f"--pair needs two different unit types, got {a},{b}")
    diffs, per_side, skipped = [], {}, {}
    for s in (0, 1):
        sa, why_a = _removal(base, s, a)
        sb, why_b = _removal(base, s, b)
        if sa is None or sb is None:
            skipped[str(s)] = why_a or why_b
            continue
        va = game_values(work.run(_run_name(s, a), sa, config, threads=threads).records())["side0_score"]
        vb = game_values(work.run(_run_name(s, b), sb, config, threads=threads).records())["side0_score"]
        d = (vb - va) if s == 0 else (va - vb)       # side s keeps a (b removed) minus keeps b (a removed)
        diffs.append(d)
        pm = discrete_mean(d)
        per_side[str(s)] = {"value": pm["value"], "ci": pm["ci"], "p_value": pm["p_value"]}
        if log:
            log(f"pair {a} vs {b}, side {s}: {pm['value']:+.4f}")
    if not diffs:
        raise UsageError(f"--pair {a},{b}: neither side can lose one of each ({'; '.join(skipped.values())})")
    pm = discrete_mean(np.mean(diffs, axis=0))
    lo, hi = pm["ci"]
    verdict = (f"{a} is worth more than {b}" if lo > 0 else f"{b} is worth more than {a}" if hi < 0
               else f"no significant difference between {a} and {b}")
    return {"a": a, "b": b, "value": pm["value"], "ci": pm["ci"], "p_value": pm["p_value"], "sides": per_side,
            "skipped": skipped, "games": len(diffs[0]), "verdict": verdict,
            "measure": f"side's expected score keeping its {a} (one {b} removed) minus keeping its {b} (one {a} "
                       f"removed), same seeds, mean over sides"}


def pair_values(base, a: str, b: str, config, *, threads=None, log=None, out_dir=None, resume=False) -> dict:
    """`values --pair` on its own: `pair_test` with its runs kept in ``out_dir`` (Ctrl-C keeps them,
    ``resume`` finishes) and the result in DIR/pair.json."""
    from simkit.backends.store import atomic_write_json
    from simkit.backends.work import Work
    work = Work.of(out_dir, resume)
    identity = {"scenario": base.to_dict(), "config": config.to_dict(), "pair": [a, b]}
    with work.start("values", identity, scenario=base.to_dict(), config=config.to_dict(), pair=[a, b]):
        res = pair_test(base, a, b, config, threads=threads, log=log, work=work)
        if work.out is not None:
            atomic_write_json(work.out / "pair.json", res)
        work.complete()
    return res


def regression(spec, records, snapshot_ply: int | None = None) -> dict:
    """Logit of side 0 winning on snap_0_u - snap_1_u over the decided games still running at
    ``snapshot_ply`` (all decided games when None); raw coefficients, and signed ratios to
    ``spec.reference_unit`` with Fieller intervals when they are meaningful."""
    import statsmodels.api as sm

    fields = list(spec.record_fields)
    ending = [u for u in spec.unit_types if u in spec.game_ending_units]
    # each unit's material column per side at the snapshot (the spec's "snap" unit columns)
    snap = {u: (spec.column("snap", 0, u), spec.column("snap", 1, u)) for u in spec.unit_types}
    units = [u for u in spec.unit_types if None not in snap[u] and u not in ending]
    notes = []
    result = {"draws": "dropped", "units": {}, "notes": notes, "reference": spec.reference_unit,
              "left_out": {u: "its loss ends the game" for u in ending}, "ratios": False}
    if ending:
        notes.append(f"left out: {', '.join(ending)} (losing it ends the game, so its material separates the "
                     f"outcome instead of measuring a value)")
    if not units:
        notes.append(f"{spec.name} records no snap_<side>_<unit> columns")
        return result
    running = records[:, 2] > snapshot_ply if snapshot_ply is not None else np.ones(len(records), bool)
    decided = records[:, 1] >= 0
    result["ended_before_snapshot"] = int((~running).sum())
    if snapshot_ply is not None and (~running).any():
        notes.append(f"{int((~running).sum()):,} games ({100 * float((~running).mean()):.1f}%) ended by the snapshot "
                     f"and are left out (their material is the end state)")
    r = records[decided & running]
    result["games_used"] = int(len(r))
    result["draws_dropped"] = int((~decided & running).sum())
    X = np.column_stack([r[:, fields.index(snap[u][0].name)].astype(np.float64)
                         - r[:, fields.index(snap[u][1].name)] for u in units]) if len(r) else np.zeros((0, len(units)))
    # a difference that is nonzero in a handful of games cannot be estimated (those few games separate
    # the outcome: greedy Martian Chess's queens differ in 2 of 534 games at ply 10, and the fit ran off
    # to -12.8 [-113,751, +113,725] and took the other coefficients with it)
    moved = [int(np.count_nonzero(X[:, i] != np.median(X[:, i]))) if len(r) else 0 for i in range(len(units))]
    varying = [i for i in range(len(units)) if moved[i] >= MIN_VARYING]
    for i, u in enumerate(units):
        if moved[i] == 0:
            notes.append(f"{u}: the material difference never varies at the snapshot; no coefficient")
        elif i not in varying:
            notes.append(f"{u}: the material difference varies in only {moved[i]} of {len(r):,} games at the "
                         f"snapshot (fewer than {MIN_VARYING}); no coefficient")
    y = (r[:, 1] == 0).astype(np.float64)
    if not varying or len(r) < 10 or y.min() == y.max():
        notes.append("too few decided games (or only one winner) to fit")
        return result
    design = np.column_stack([np.ones(len(r)), (r[:, 0] == 0).astype(np.float64), X[:, varying]])
    import warnings
    from statsmodels.tools import sm_exceptions as sme
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            fit = sm.Logit(y, design).fit(disp=0, maxiter=200)
        params, cov = np.asarray(fit.params), np.asarray(fit.cov_params())
        # statsmodels may call a quasi-separated fit converged and only warn
        bad = (sme.ConvergenceWarning, sme.PerfectSeparationWarning, sme.HessianInversionWarning)
        converged = bool(fit.mle_retvals.get("converged", True)) and not any(
            issubclass(w.category, bad) for w in caught)
        if not converged:
            notes.append("logistic regression did not converge (a unit type almost never differs, or separates "
                         "the results): its coefficients are not estimates and are not printed as such; try more "
                         "games or another --snapshot-ply")
    except Exception as e:  # perfect separation, singular design
        notes.append(f"logistic regression failed: {e}; try more games or an earlier --snapshot-ply")
        return result
    if not np.all(np.isfinite(params)) or not np.all(np.isfinite(np.diag(cov))):
        notes.append("logistic regression did not converge; try more games or an earlier --snapshot-ply")
        return result
    result["intercept"] = float(params[0])
    result["side0_first_coef"] = float(params[1])
    result["converged"] = converged
    beta = params[2:]
    V = cov[2:, 2:]
    names = [units[i] for i in varying]
    for j, u in enumerate(names):
        b, se_b = float(beta[j]), math.sqrt(V[j, j])
        # a standard error beyond SE_MAX logits per unit of material: the data do not identify it
        # (quasi-separation; e.g. -12.8 [-113,751, +113,725]) even where the optimiser stopped cleanly
        ok = converged and se_b <= SE_MAX
        result["units"][u] = {"coef": b, "coef_ci": [b - Z95 * se_b, b + Z95 * se_b],
                              "coef_p": float(2 * 0.5 * math.erfc(abs(b / se_b) / math.sqrt(2))) if se_b > 0
                              else math.nan,
                              "converged": ok, "value": math.nan, "ci": [math.nan, math.nan]}
        if converged and not ok:
            notes.append(f"{u}: the coefficient is not identified (standard error {se_b:.3g} logits per unit, "
                         f"above {SE_MAX:g}): not printed as an estimate")
    if not all(result["units"][u]["converged"] for u in names):
        notes.append("no ratios: they need every coefficient estimated")
        return result
    sig = [u for u in names if result["units"][u]["coef_p"] < 0.05]
    if sig and all(result["units"][u]["coef"] < 0 for u in sig):
        notes.append("every significant coefficient is negative: more of that material at the snapshot lowers "
                     "side 0's win chance (pieces are targets here); the signs are kept")
    ref = spec.reference_unit
    # mixed signs: significant coefficients on both sides of 0 (a ratio would read -/- as +)
    signs = {np.sign(result["units"][u]["coef"]) for u in sig}
    if ref is None:
        notes.append(f"{spec.name} declares no reference unit: raw coefficients only")
    elif ref not in names:
        notes.append(f"the reference unit {ref} has no coefficient: raw coefficients only")
    elif result["units"][ref]["coef_ci"][0] <= 0 <= result["units"][ref]["coef_ci"][1]:
        notes.append(f"the reference unit's ({ref}) coefficient interval contains 0: no ratios (play more "
                     f"games)")
    elif len(signs) > 1:
        notes.append("the coefficients have mixed signs: ratios would mislead, so none are given (read the raw "
                     "coefficients)")
    else:
        k = names.index(ref)
        bref = float(beta[k])
        sgn = 1.0 if bref > 0 else -1.0
        result["ratios"] = True
        for j, u in enumerate(names):
            b = float(beta[j])
            value = b / abs(bref)      # keeps the coefficient's sign: the reference is +1 or -1
            if j == k:
                ci = [value, value]
            else:
                fi = fieller(b, bref, V[j, j], V[k, k], V[j, k])
                ci = [math.nan, math.nan] if fi is None else sorted([sgn * fi[0], sgn * fi[1]])
            result["units"][u]["value"] = value
            result["units"][u]["ci"] = ci
    return result


def learned(spec, record: dict | None) -> dict:
    """The third method: the per-unit material weights ``simkit learn`` fitted for the variant (its stored
    record; analysis/learn.py), in the evaluation's units, as value = weight / |reference unit's weight| with
    Fieller intervals from the fit's cluster-robust covariance; the same sign conventions as the regression.
    {"units": {}} with a note when the variant has no learned evaluation."""
    out = {"units": {}, "notes": [], "ratios": False}
    if record is None:
        out["notes"].append("no learned evaluation for this variant (simkit learn): the third method is empty")
        return out
    names = [f.split(":", 1)[1] for f in record["features"] if f.startswith("material:")]
    idx = [record["features"].index("material:" + u) for u in names]
    w = np.asarray(record.get("fitted", record["weights"]), dtype=np.float64)[idx]   # the fit's (cov is its)
    V = np.asarray(record["cov"], dtype=np.float64)[np.ix_(idx, idx)]
    for j, u in enumerate(names):
        if u in spec.game_ending_units:
            continue
        se = math.sqrt(max(V[j, j], 0.0))
        out["units"][u] = {"coef": float(w[j]), "coef_ci": [float(w[j] - Z95 * se), float(w[j] + Z95 * se)],
                           "value": math.nan, "ci": [math.nan, math.nan], "converged": True}
    ref = spec.reference_unit
    if ref not in out["units"]:
        out["notes"].append("the reference unit has no learned weight: raw weights only")
        return out
    k = names.index(ref)
    lo, hi = out["units"][ref]["coef_ci"]
    if lo <= 0 <= hi:
        out["notes"].append(f"the reference unit's ({ref}) learned weight interval contains 0: no ratios")
        return out
    bref = float(w[k])
    sgn = 1.0 if bref > 0 else -1.0
    out["ratios"] = True
    for j, u in enumerate(names):
        if u not in out["units"]:
            continue
        value = float(w[j]) / abs(bref)
        fi = None if j == k else fieller(float(w[j]), bref, V[j, j], V[k, k], V[j, k])
        out["units"][u]["value"] = value
        out["units"][u]["ci"] = [value, value] if j == k else (
            [math.nan, math.nan] if fi is None else sorted([sgn * fi[0], sgn * fi[1]]))
    out["games"] = record.get("games")
    return out


def method_disagreements(abl: dict, reg: dict, name: str = "regression") -> list[str]:
    """Where the two methods contradict each other: a unit whose ablation value and regression
    coefficient are both significant with opposite signs, or different rankings."""
    out = []
    estimated = _estimated(reg.get("units", {}))
    for u, r in estimated.items():
        a = abl.get(u)
        if a is None or math.isnan(a.get("value", math.nan)):
            continue
        a_sig = a["ci"][0] > 0 or a["ci"][1] < 0
        r_sig = r["coef_ci"][0] > 0 or r["coef_ci"][1] < 0
        if a_sig and r_sig and (a["value"] > 0) != (r["coef"] > 0):
            out.append(f"{u}: ablation {a['value']:+.4f} but {name} coefficient {r['coef']:+.3f} (opposite "
                       f"signs, both significant)")
    common = [u for u in _ranking(abl) if u in estimated]
    by_reg = [u for u in sorted(estimated, key=lambda u: -estimated[u]["coef"]) if u in common]
    if len(common) > 1 and common != by_reg:
        out.append(f"rankings differ: ablation {' > '.join(common)}, {name} {' > '.join(by_reg)}")
    return out


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
        for u, v in self.data["regression"]["units"].items():
            if not v.get("converged", True):   # kept in values.json, never given as an estimate
                rows.append({"method": "regression_coef", "unit": u, "value": math.nan, "ci_lo": math.nan,
                             "ci_hi": math.nan})
                continue
            rows.append({"method": "regression_coef", "unit": u, "value": v["coef"], "ci_lo": v["coef_ci"][0],
                         "ci_hi": v["coef_ci"][1]})
        for u, v in self.data.get("learned", {}).get("units", {}).items():
            rows.append({"method": "learned", "unit": u, "value": v["value"], "ci_lo": v["ci"][0],
                         "ci_hi": v["ci"][1]})
            rows.append({"method": "learned_weight", "unit": u, "value": v["coef"], "ci_lo": v["coef_ci"][0],
                         "ci_hi": v["coef_ci"][1]})
        return pd.DataFrame(rows, columns=["method", "unit", "value", "ci_lo", "ci_hi"])


def _estimated(units: dict) -> dict:
    """The regression's units whose coefficient is an estimate (the fit converged and identifies it)."""
    return {u: v for u, v in units.items() if v.get("converged", True)}


def _ranking(entries: dict, key: str = "value") -> list[str]:
    ok = [(u, v[key]) for u, v in entries.items() if not math.isnan(v.get(key, math.nan))]
    return [u for u, _ in sorted(ok, key=lambda t: -t[1])]


def unit_values(base, config, *, threads=None, out_dir=None, snapshot_ply=None, log=None,
                pair: tuple[str, str] | None = None, resume: bool = False) -> ValuesResult:
    """Both methods on one base run (``config.snapshot_ply`` is replaced by ``snapshot_ply``
    or the default of `default_snapshot_ply`). Every run is a run directory of ``out_dir``
    (`backends/work.py`): Ctrl-C keeps them and ``resume`` finishes the measurement."""
    from dataclasses import replace
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.backends.work import Work
    from simkit.errors import UsageError

    work = Work.of(out_dir, resume)
    out = work.out
    if snapshot_ply is not None and snapshot_ply < 0:
        raise UsageError(f"--snapshot-ply must be >= 0, got {snapshot_ply}")
    identity = {"scenario": base.to_dict(), "config": config.to_dict(), "snapshot_ply": snapshot_ply,
                "pair": list(pair) if pair else None}
    with work.start("values", identity, scenario=base.to_dict(), config=config.to_dict()):
        if snapshot_ply is None:
            snapshot_ply, source = default_snapshot_ply(base, config, threads, work)
        else:
            source = "given"
        config = replace(config, snapshot_ply=snapshot_ply)
        base_run = work.run("runs/base", base, config, threads=threads)
        records = base_run.records()
        abl = ablation(base, records, config, threads=threads, log=log, work=work)
        # several units are tested at once: Holm over the ablation p-values
        adj = holm({u: a["p_value"] for u, a in abl.items()})
        for u, a in abl.items():
            a["p_holm"] = adj[u]
        reg = regression(base.spec, records, snapshot_ply)
        tested = sum(1 for a in abl.values() if a["p_value"] == a["p_value"])
        notes = [f"ablation p-values are Holm-adjusted over the {tested} unit types tested (p_holm)"]
        from simkit.scenario.evaluation import load_learned
        lrn = learned(base.spec, base.learned or load_learned(base.spec, base.rules)
                      if getattr(base.spec, "eval_slot", None) is not None else None)
        disagree = method_disagreements(abl, reg) + method_disagreements(abl, lrn, "learned")
        for d in disagree:
            notes.append(f"the methods disagree: {d}")
        sides = [u for u, a in abl.items() if a.get("sides_disagree")]
        for u in sides:
            sv = abl[u]["sides"]
            notes.append(f"the two sides disagree on {u}: side 0 {sv['0']['value']:+.4f}, side 1 "
                         f"{sv['1']['value']:+.4f} (significant, 95%)")
        from simkit.analysis.degenerate import play_flags
        degenerate = [f["message"] for f in play_flags(base.spec, records, config.policies)]
        notes += [f"degenerate play: {m}" for m in degenerate]
        draws = float((records[:, 1] < 0).mean()) if len(records) else 0.0
        if draws > 0.9:
            notes.append(f"{100 * draws:.0f}% of the base games are draws: values say little; try another --policy "
                         f"or more decisive rules")
        data = {"kind": "values", "game": base.game, "scenario": base.name, "policies": list(config.policies),
                "seed": config.seed, "games": base_run.games_done, "snapshot_ply": snapshot_ply,
                "snapshot_ply_source": source,
                "ablation_measure": "change in a side's expected score (win 1, draw 1/2) when it has one more "
                                    "unit of the type (base minus one removed), averaged over both sides",
                "regression_measure": "logit coefficient of the material difference at the snapshot ply (decided "
                                      "games still running then; draws dropped); value = coefficient / |reference "
                                      "unit's|, signs kept",
                "learned_measure": "the evaluation's material weight simkit learn fitted for this variant (evaluation "
                                   "units; a lead of mcts_scale = a 73% chance); value = weight / |reference "
                                   "unit's|, signs kept",
                "ablation": abl, "regression": reg, "learned": lrn,
                "ranking": {"ablation": _ranking(abl), "regression": _ranking(_estimated(reg["units"]), "coef"),
                            "learned": _ranking(lrn["units"], "coef")},
                "methods_disagree": disagree, "sides_disagree": sides,
                "draw_rate": draws, "notes": notes, "degenerate": degenerate}
        if pair is not None:
            data["pair"] = pair_test(base, pair[0], pair[1], config, threads=threads, log=log, work=work)
        data["elapsed_s"] = round(work.elapsed, 3)     # every run's playing time, over every session
        result = ValuesResult(data, out)
        if out is not None:
            atomic_write_json(out / "values.json", data)
            atomic_write_bytes(out / "values.csv", result.table.to_csv(index=False).encode())
        work.complete()
    return result
