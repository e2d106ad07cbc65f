"""Does a conclusion survive stronger play? The same measurement at several skill levels.

``skill_run`` plays the scenario once per level (both sides at that level) with the
same seed and game indices (common random numbers), and for each metric reports the
estimate at every level and a verdict on the trend over the levels:

- **reversing**: the metric is significantly above its neutral value at one level and
  significantly below it at another (signed metrics: first-player advantage, side-0
  advantage);
- **converging**: a significant trend that moves the metric toward its neutral value;
- **trending**: a significant trend away from it (or, for unsigned metrics such as
  draw rate, game length and the side effects -- the cap rate and each end reason's share --
  any significant trend);
- **stable**: no significant trend.

The trend is the weighted least-squares slope of the estimate over the level's rank
(0, 1, 2, ...), weights 1/se^2 with se from each level's 95% interval; its interval
treats the levels as independent. Common random numbers correlate them positively,
which makes that interval wider than the truth: the verdict errs toward "stable".
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

Z95 = 1.959963984540054
# metric -> (summary key, neutral value or None for unsigned metrics)
SKILL_METRICS = {
    "first_player_advantage": ("first_player_advantage", 0.0),
    "side0_advantage": ("side0_expected_score", 0.0),
    "draw_rate": ("draw_rate", None),
    "mean_length": ("mean_plies", None),
}


def trend(estimates) -> dict:
    """Weighted least-squares slope over ranks 0..k-1 of ``[(est, lo, hi), ...]``."""
    pts = [(i, e, (hi - lo) / (2 * Z95)) for i, (e, lo, hi) in enumerate(estimates)
           if not any(math.isnan(v) for v in (e, lo, hi))]
    if len(pts) < 2:
        return {"slope": math.nan, "ci": [math.nan, math.nan]}
    # a zero-width level interval would get infinite weight: floor se at a tiny positive value
    w = [1.0 / max(se, 1e-9) ** 2 for _, _, se in pts]
    sw = sum(w)
    xbar = sum(wi * x for wi, (x, _, _) in zip(w, pts)) / sw
    ybar = sum(wi * y for wi, (_, y, _) in zip(w, pts)) / sw
    sxx = sum(wi * (x - xbar) ** 2 for wi, (x, _, _) in zip(w, pts))
    slope = sum(wi * (x - xbar) * (y - ybar) for wi, (x, y, _) in zip(w, pts)) / sxx
    half = Z95 * math.sqrt(1.0 / sxx)
    return {"slope": slope, "ci": [slope - half, slope + half]}


def verdict(estimates, neutral) -> str:
    if sum(1 for e in estimates if not any(math.isnan(v) for v in e)) < 2:
        return "too few levels"     # estimated at fewer than two levels: no trend to judge
    t = trend(estimates)
    lo, hi = t["ci"]
    if neutral is not None:
        above = any(low > neutral for _, low, _ in estimates)
        below = any(h < neutral for _, _, h in estimates)
        if above and below:
            return "reversing"
    if math.isnan(lo) or (lo <= 0 <= hi):
        return "stable"
    if neutral is None:
        return "trending"
    first, last = estimates[0][0], estimates[-1][0]
    return "converging" if abs(last - neutral) < abs(first - neutral) else "trending"


@dataclass
class SkillResult:
    levels: list
    runs: list            # per level: the run's summary dict
    metrics: dict         # metric -> {"estimates": [(e, lo, hi), ...], "trend": {...}, "verdict": str}
    info: dict = field(default_factory=dict)     # what every level shares (values: the snapshot ply)

    def summary(self) -> dict:
        return {"kind": "skill", "levels": self.levels, **self.info,
                "metrics": {m: {"estimates": [list(e) for e in v["estimates"]], "trend": v["trend"],
                                "verdict": v["verdict"], **({"missing": v["missing"]} if v.get("missing") else {})}
                            for m, v in self.metrics.items()},
                "runs": self.runs}


ORDER_GAMES = (20, 200)   # the paired check of a skill order plays a quarter of --games, within these bounds


def skill_order(scenario, levels, config, *, threads=None) -> list[dict]:
    """Does each level beat the one before? Each level against the one below, both seats, paired, on a quarter
    of the run's games (ORDER_GAMES bounds): the levels of a ``--skill`` table are meant to be a skill order,
    and a trend over them means nothing if they are not."""
    from simkit.analysis.matchup import pair_score
    n = min(max(config.games // 4, ORDER_GAMES[0]), ORDER_GAMES[1])
    cfg = replace(config, games=n)
    out = []
    for below, lvl in zip(levels, levels[1:]):
        c = pair_score(scenario, cfg, lvl, below, threads=threads)
        c.pop("records")
        lo, hi = c["ci"]
        status = "stronger" if lo > 0.5 else "weaker" if hi < 0.5 else "not shown stronger"
        out.append({"level": lvl, "below": below, "score": c["score"], "ci": c["ci"], "games": n,
                    "status": status})
    return out


def order_messages(order) -> list[str]:
    """One plain sentence per step of ``skill_order`` that is not a gain, then the conclusion."""
    msgs = []
    for o in order:
        lo, hi = o["ci"]
        if o["status"] == "weaker":
            msgs.append(f"{o['level']} is weaker than {o['below']} here: {o['score']:.2f} [{lo:.2f}, {hi:.2f}] "
                        f"over {o['games']:,} game pairs")
        elif o["status"] != "stronger":
            msgs.append(f"{o['level']} is not shown stronger than {o['below']}: {o['score']:.2f} "
                        f"[{lo:.2f}, {hi:.2f}] over {o['games']:,} game pairs")
    if msgs:
        msgs.append("these levels are not a skill order: a trend over them does not measure skill")
    return msgs


def uninformative(spec, runs) -> dict:
    """level -> why, for the levels whose games are all drawn or capped (no information about balance)."""
    out = {}
    for lvl, s in runs:
        n = s.get("games") or 0
        caps = sum(s.get("end_reasons", {}).get(r, 0) for r in spec.cap_reasons) if isinstance(
            s.get("end_reasons"), dict) else 0
        drawn = round((s.get("draw_rate") or 0.0) * n)
        if n and (drawn >= n or caps >= n):
            out[lvl] = "no information (every game drawn or capped)"
    return out


def metric_estimates(s: dict) -> dict:
    out = {}
    for m, (key, _) in SKILL_METRICS.items():
        lo, hi = s.get(f"{key}_ci") or (math.nan, math.nan)
        shift = 0.5 if key == "side0_expected_score" else 0.0     # an advantage: expected score - 1/2
        out[m] = (float(s[key]) - shift, float(lo) - shift, float(hi) - shift)
    return out


def skill_run(scenario, levels, config, *, threads=None, out_dir=None, log=None, order=True,
              draws=True) -> SkillResult:
    """Play ``scenario`` at each level of ``levels`` (policy names, both sides) on the same seeds.

    ``order``: check (paired, `skill_order`) that each level beats the one before; ``draws``: when draws or
    capped games dominate a level, run the draw diagnosis (simkit/analysis/draws.py) there."""
    from pathlib import Path
    from simkit.analysis.degenerate import play_flags, reversal
    from simkit.analysis.matchup import check_policies
    from simkit.engine.runner import simulate
    levels = check_policies(scenario.spec, levels)
    runs, per = [], []
    for i, lvl in enumerate(levels):
        cfg = replace(config, policies=(lvl, lvl))
        sub = None if out_dir is None else Path(out_dir) / f"{i}-{lvl.replace(':', '_')}"
        res = simulate(scenario, cfg, threads=threads, out_dir=sub, progress=False, keep=True)
        s = res.summary()
        s["degenerate"] = [f["message"] for f in play_flags(scenario.spec, res.records(), cfg.policies)]
        runs.append(s)
        per.append(metric_estimates(s))
        if log:
            log(f"{lvl}: first-player advantage {s['first_player_advantage']:+.4f}")
    # a level whose games are all drawn or capped says nothing about who is favoured: its balance
    # estimates are left out of the trend, marked, and a trend over fewer than two levels is no information
    blank = {lvl: why for lvl, why in uninformative(scenario.spec, zip(levels, runs)).items()}
    metrics = {}
    for m, (_, neutral) in SKILL_METRICS.items():
        est = [(math.nan,) * 3 if lvl in blank and neutral is not None else p[m] for lvl, p in zip(levels, per)]
        metrics[m] = {"estimates": est, "trend": trend(est), "verdict": verdict(est, neutral)}
        if neutral is not None and blank:
            metrics[m]["missing"] = dict(blank)
            if sum(e == e for e, _, _ in est) < 2:
                metrics[m]["verdict"] = "no information"
        if neutral is not None:
            flag = reversal(m, {lvl: e for lvl, e in zip(levels, est) if e[0] == e[0]})
            if flag:
                metrics[m]["flag"] = flag["message"]
    # side effects beside the balance: games stopped at a cap and each way a game ends at some level
    from simkit.analysis.side_effects import end_key, of_summary, seen_reasons
    effects = [of_summary(s) for s in runs]
    for m in ["cap_rate"] + [end_key(r) for r in seen_reasons(runs)]:
        est = [fx[m] for fx in effects]
        metrics[m] = {"estimates": est, "trend": trend(est), "verdict": verdict(est, None)}
    result = SkillResult(levels, runs, metrics, _checks(scenario, levels, config, runs, threads, order, draws))
    if out_dir is not None:
        import time
        from simkit.backends.store import atomic_write_json
        from simkit.engine.runner import environment
        atomic_write_json(Path(out_dir) / "skill.json", result.summary())
        atomic_write_json(Path(out_dir) / "manifest.json", {
            "kind": "skill", "status": "complete", "scenario": scenario.to_dict(), "levels": levels,
            "config": config.to_dict(), "versions": environment(),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return result


def _checks(scenario, levels, config, runs, threads, order: bool, draws: bool) -> dict:
    """The skill-order check and (where draws or caps dominate a level) the draw diagnosis."""
    info = {}
    if order and len(levels) >= 2:
        info["order"] = skill_order(scenario, levels, config, threads=threads)
        info["order_messages"] = order_messages(info["order"])
    if draws:
        from simkit.analysis.draws import DRAWISH, diagnose
        shares = [max(s.get("draw_rate") or 0.0, s.get("cap_rate") or 0.0) for s in runs]
        top = max((i for i, sh in enumerate(shares) if sh > DRAWISH), default=None)
        if top is not None:
            lv = levels[max(top - 1, 0):top + 1]
            info["draw_diagnosis"] = diagnose(scenario, replace(config, games=min(config.games, 200)), lv,
                                              threads=threads)
    return info


def _over_levels(levels, per_level: list[dict], neutral_of) -> dict:
    """metric -> estimates over levels, trend and verdict (and a reversal flag for signed metrics)."""
    from simkit.analysis.degenerate import reversal
    names = [m for m in per_level[0] if all(m in p for p in per_level)]
    out = {}
    for m in names:
        est = [p[m] for p in per_level]
        neutral = neutral_of(m)
        out[m] = {"estimates": est, "trend": trend(est), "verdict": verdict(est, neutral)}
        if neutral is not None:
            flag = reversal(m, dict(zip(levels, est)))
            if flag:
                out[m]["flag"] = flag["message"]
    return out


def _write(out_dir, result, kind, extra):
    import time
    from pathlib import Path
    from simkit.backends.store import atomic_write_json
    from simkit.engine.runner import environment
    atomic_write_json(Path(out_dir) / "skill.json", result.summary() | {"measure": kind})
    atomic_write_json(Path(out_dir) / "manifest.json", {
        "kind": "skill", "measure": kind, "status": "complete", "levels": result.levels, "versions": environment(),
        "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")} | extra)


def skill_compare(a, b, levels, config, *, threads=None, out_dir=None, labels=("A", "B"),
                  order=True) -> SkillResult:
    """`compare --skill`: B - A at every level (both sides at that level), same seeds; a difference's
    neutral value is 0, so "reversing" means B is better at one level and worse at another."""
    from pathlib import Path
    from simkit.analysis.compare import compare
    from simkit.analysis.degenerate import play_flags
    from simkit.analysis.matchup import check_policies
    levels = check_policies(a.spec, levels)
    runs, per = [], []
    for i, lvl in enumerate(levels):
        cfg = replace(config, policies=(lvl, lvl))
        sub = None if out_dir is None else Path(out_dir) / f"{i}-{lvl.replace(':', '_')}"
        res = compare(a, b, cfg, threads=threads, out_dir=sub, keep=True, labels=labels)
        flags = []
        for which, run in (("A", res.a), ("B", res.b)):
            flags += [f"{which}: {f['message']}" for f in play_flags(a.spec, run.records(), cfg.policies)]
        runs.append({"level": lvl, "games": res.paired.n, "verdict": res.verdict, "degenerate": flags,
                     "differences": res.differences, "side_effects": res.side_effects})
        # B - A of the balance metrics, then of how games end (the ones that happen at every level)
        per.append({m: (d["diff"], d["ci"][0], d["ci"][1]) for m, d in (res.differences | res.side_effects).items()})
    result = SkillResult(levels, runs, _over_levels(levels, per, lambda m: 0.0),
                         _checks(a, levels, config, [], threads, order, False))
    if out_dir is not None:
        _write(out_dir, result, "compare B - A", {"a": a.to_dict(), "b": b.to_dict(), "labels": list(labels),
                                                  "scenario": a.to_dict(), "config": config.to_dict()})
    return result


def shared_snapshot_ply(base, levels, config, threads=None) -> tuple[int, str]:
    """One snapshot ply for every level: the smallest of the levels' defaults (`default_snapshot_ply`),
    so the regression reads material at the same moment of the game at every skill (a trend over
    levels then measures skill, not time) and before most games end at every level."""
    from simkit.analysis.values import default_snapshot_ply
    got = [(default_snapshot_ply(base, replace(config, policies=(lvl, lvl)), threads), lvl) for lvl in levels]
    (ply, source), lvl = min(got, key=lambda x: x[0][0])
    if len({p for (p, _), _ in got}) == 1:
        return ply, f"{source}, the same at every level"
    each = ", ".join(f"{lv} {p}" for (p, _), lv in got)
    return ply, f"the smallest of the levels' defaults ({each}: {source} at {lvl})"


def skill_values(base, levels, config, *, threads=None, out_dir=None, snapshot_ply=None,
                 order=True) -> SkillResult:
    """`values --skill`: every unit value (ablation, and regression coefficients) at every level; a
    value's neutral is 0, so "reversing" means a unit helps at one skill and hurts at another. Every
    level's regression reads the material at the same snapshot ply (``snapshot_ply``, else
    `shared_snapshot_ply`); a coefficient whose fit did not converge is marked at its level, not
    given as an estimate."""
    from pathlib import Path
    from simkit.analysis.matchup import check_policies
    from simkit.analysis.values import unit_values
    levels = check_policies(base.spec, levels)
    if snapshot_ply is None:
        snapshot_ply, source = shared_snapshot_ply(base, levels, config, threads)
    else:
        source = "given"
    runs, per, missing = [], [], {}
    nan3 = (math.nan, math.nan, math.nan)
    for i, lvl in enumerate(levels):
        cfg = replace(config, policies=(lvl, lvl))
        sub = None if out_dir is None else Path(out_dir) / f"{i}-{lvl.replace(':', '_')}"
        res = unit_values(base, cfg, threads=threads, out_dir=sub, snapshot_ply=snapshot_ply)
        t = res.table
        t = t[t["method"].isin(["ablation", "regression_coef"])]
        level = {f"{r.method}:{r.unit}": (float(r.value), float(r.ci_lo), float(r.ci_hi))
                 for r in t.itertuples() if r.value == r.value}
        for u, v in res.data["regression"]["units"].items():
            if not v.get("converged", True):
                level[f"regression_coef:{u}"] = nan3
                missing.setdefault(f"regression_coef:{u}", {})[lvl] = "not converged"
        per.append(level)
        runs.append({"level": lvl, "degenerate": res.data.get("degenerate", [])})
    # a value estimated at some levels only is kept, marked where it is not (values.json says why)
    for m in dict.fromkeys(m for level in per for m in level):     # in order of appearance
        for lvl, level in zip(levels, per):
            if m not in level:
                level[m] = nan3
                missing.setdefault(m, {})[lvl] = "not estimated"
    metrics = _over_levels(levels, per, lambda m: 0.0)
    for m, why in missing.items():
        if m in metrics:
            metrics[m]["missing"] = why
    result = SkillResult(levels, runs, metrics, {"snapshot_ply": snapshot_ply, "snapshot_ply_source": source,
                                                 **_checks(base, levels, config, [], threads, order, False)})
    if out_dir is not None:
        _write(out_dir, result, "unit values", {"scenario": base.to_dict(), "config": config.to_dict()})
    return result
