"""Findings: short sentences derived from the numbers, each with its figure and interval.

A finding is ``(text, figure_key, flag)``: ``figure_key`` names the figure that
shows it (``html.py`` turns it into "Figure N"); ``flag`` marks degenerate play
or a significant imbalance, which the report highlights.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from simkit.report.data import Decided

from simkit.analysis.metrics import PRACTICAL  # noqa: E402

# significant but smaller than this is "negligible": reported, not highlighted (docs/metrics.md)
FPA_THRESHOLD = PRACTICAL["first_player_advantage"]


@dataclass
class Finding:
    text: str
    figure: str | None = None
    flag: bool = False


def pct(x: float, digits: int = 1) -> str:
    return "n/a" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x * 100:.{digits}f}%"


def ci_pct(lo: float, hi: float, digits: int = 1) -> str:
    return f"95% CI {lo * 100:.{digits}f}–{hi * 100:.{digits}f}%"


def run_findings(run) -> list[Finding]:
    s = run.summary
    n = int(s.get("games") or 0)
    out: list[Finding] = []
    if n == 0:
        return [Finding("The run holds no finished games.", None, True)]
    d = Decided.of(s)
    if d.decided:
        sig = d.lo > 0.5 or d.hi < 0.5
        matters = sig and abs(d.share - 0.5) >= FPA_THRESHOLD
        who = "first" if d.share >= 0.5 else "second"
        verdict = (f"a significant advantage for the {who} player" if matters
                   else f"a significant but negligible edge for the {who} player (under {pct(FPA_THRESHOLD, 0)} "
                        f"from even)" if sig
                   else "no significant first-move advantage")
        out.append(Finding(f"The first player wins {pct(d.share)} of decided games "
                           f"({ci_pct(d.lo, d.hi)}, {d.decided:,} decided games): {verdict}.", "outcomes", matters))
    fpa = s.get("first_player_advantage")
    lo, hi = s.get("first_player_advantage_ci") or [math.nan, math.nan]
    if fpa is not None and not math.isnan(fpa):
        sig = lo > 0 or hi < 0
        matters = sig and abs(fpa) >= FPA_THRESHOLD
        out.append(Finding(f"First-player advantage (expected score − ½) is {fpa:+.4f} "
                           f"(95% CI {lo:+.4f} to {hi:+.4f}): "
                           + (f"significant and at least the practical threshold {FPA_THRESHOLD:g}." if matters
                              else f"significant but negligible (below the practical threshold {FPA_THRESHOLD:g})."
                              if sig else "not distinguishable from zero."), "fpa", matters))
    s0, s1 = s.get("side0_win_rate"), s.get("side1_win_rate")
    if s0 is not None and s1 is not None and (s0 + s1) > 0:
        from simkit.analysis.stats import wilson
        k0, k1 = round(s0 * n), round(s1 * n)
        share = k0 / (k0 + k1)
        slo, shi = wilson(k0, k0 + k1)
        sig = slo > 0.5 or shi < 0.5
        matters = sig and abs(share - 0.5) >= FPA_THRESHOLD
        out.append(Finding(f"Side 0 wins {pct(s0)} and side 1 {pct(s1)} of all games; side 0 takes "
                           f"{pct(share)} of the decided games ({ci_pct(slo, shi)})"
                           + (": the sides are not balanced." if matters
                              else ": a significant but negligible imbalance." if sig
                              else ": the sides are balanced."),
                           "outcomes", matters))
    dr = s.get("draw_rate")
    dlo, dhi = s.get("draw_rate_ci") or [math.nan, math.nan]
    if dr is not None:
        flag = dr > 0.5
        out.append(Finding(f"{pct(dr)} of games are drawn ({ci_pct(dlo, dhi)})"
                           + (": most games end without a winner." if flag else "."), "outcomes", flag))
    ends = s.get("end_reasons") or {}
    total = sum(ends.values()) or n
    from simkit.games import find_game
    caps = getattr(find_game(run.game), "cap_reasons", ())   # one definition of "capped": the game's spec
    capped = {k: v for k, v in ends.items() if k in caps and v}
    for k, v in capped.items():
        from simkit.analysis.stats import wilson
        clo, chi = wilson(v, total)
        share = v / total
        flag = share > 0.2 or (k == "stalemate" and share > 0.05)
        what = "hit the cap" if k != "stalemate" else "end in stalemate"
        tail = (": degenerate play — most games never reach a real ending." if share > 0.5
                else ": a large share of games never reaches a real ending." if share > 0.2
                else ": stalemates are frequent." if flag else ".")
        out.append(Finding(f"{pct(share)} of games {what} ('{k}', {ci_pct(clo, chi)}){tail}", "ends", flag))
    q = s.get("plies_quantiles") or {}
    unit = run.length_unit
    if s.get("mean_plies") is not None and q:
        ci = ""
        if run.games is not None and "plies" in run.games and len(run.games) > 1:
            x = run.games["plies"].to_numpy(dtype=float)
            half = 1.959963984540054 * x.std() / math.sqrt(len(x))
            ci = f"95% CI {x.mean() - half:.1f}–{x.mean() + half:.1f}; "
        out.append(Finding(f"Games last {s['mean_plies']:.1f} {unit} on average ({ci}median {q.get('0.5', math.nan):g}"
                           f"); 80% of games last {q.get('0.1', math.nan):g} to {q.get('0.9', math.nan):g} {unit}.",
                           "lengths"))
        cap = run.length_cap()
        if cap and q.get("0.5", 0) >= cap:
            out.append(Finding(f"At least half of the games reach the {cap}-{unit} cap.", "lengths", True))
    out.extend(unit_findings(run))
    return out


def unit_findings(run) -> list[Finding]:
    units = run.units()
    if units.empty:
        return []
    out = []
    totals = units.groupby("unit")["total"].sum()
    for unit in run.unit_types():
        if unit in totals.index and totals[unit] == 0:
            out.append(Finding(f"Unit type '{unit}' is unused: no kills and no losses by either side in "
                               f"{len(run.games):,} games.", "units", True))
    kills = units[units["stat"] == "kills"].groupby("unit")[["mean"]].sum()
    if len(kills) > 1 and kills["mean"].sum() > 0:
        top = kills["mean"].idxmax()
        rows = units[(units["stat"] == "kills") & (units["unit"] == top)]
        out.append(Finding(f"'{top}' makes the most kills: "
                           + ", ".join(f"side {int(r.side)} {r['mean']:.3f} per game (95% CI {r.lo:.3f}–{r.hi:.3f})"
                                       for _, r in rows.iterrows()) + ".", "units"))
    return out


def compare_findings(cmp) -> list[Finding]:
    diffs = cmp.differences()
    la, lb = cmp.labels()
    out = []
    for _, r in diffs.iterrows():
        if math.isnan(r["difference"]):
            continue
        sig = r["ci_lo"] > 0 or r["ci_hi"] < 0
        p = "" if math.isnan(r["p_value"]) else f", p = {r['p_value']:.3g}"
        verdict = r["verdict"] or ("significant" if sig else "not significant")
        # highlighted only when it matters: significant (after Holm) and at least the practical threshold
        flag = verdict == "matters" if r["verdict"] else sig
        out.append(Finding(f"{r['metric'].replace('_', ' ')}: {lb} minus {la} = {r['difference']:+.4f} "
                           f"(95% CI {r['ci_lo']:+.4f} to {r['ci_hi']:+.4f}{p}) — {verdict}.",
                           "differences_length" if _is_length(r) else "differences", flag))
    if not out:
        out.append(Finding("compare.json lists no differences.", None))
    return out


def _is_length(row) -> bool:
    import re
    return bool(re.search("plies|turns|length", str(row["metric"]))) or abs(row["difference"]) > 1


def _sweep_at(sw, i) -> str:
    return ", ".join(f"{p} = {sw.table.loc[i, p]}" for p in sw.params)


def _sweep_val(t, m, i) -> str:
    v, lo, hi = (float(t.loc[i, c]) for c in (m, m + "_ci_lo", m + "_ci_hi"))
    if m.endswith(("_rate", "_share", "decisiveness")):
        return f"{pct(v)} ({ci_pct(lo, hi)})"
    return f"{v:+.4f} (95% CI {lo:+.4f} to {hi:+.4f})"


def sweep_findings(sw) -> list[Finding]:
    out = []
    t = sw.table
    for m in sw.metrics()[:3]:
        if t[m].isna().all():
            continue
        lo_i, hi_i = t[m].idxmin(), t[m].idxmax()
        out.append(Finding(f"{m.replace('_', ' ')} ranges from {_sweep_val(t, m, lo_i)} at {_sweep_at(sw, lo_i)} "
                           f"to {_sweep_val(t, m, hi_i)} at {_sweep_at(sw, hi_i)}.", f"sweep_{m}"))
        if m == "first_player_advantage":
            fair = t[(t[m + "_ci_lo"] <= 0) & (t[m + "_ci_hi"] >= 0)]
            small = t[((t[m + "_ci_lo"] > 0) | (t[m + "_ci_hi"] < 0)) & (t[m].abs() < FPA_THRESHOLD)]
            if len(fair):
                out.append(Finding(f"{len(fair)} of {len(t)} settings show no significant first-player advantage: "
                                   + "; ".join(_sweep_at(sw, i) for i in fair.index[:6])
                                   + ("; ..." if len(fair) > 6 else "") + ".", f"sweep_{m}"))
            if len(small):
                out.append(Finding(f"{len(small)} of {len(t)} settings have a significant but negligible "
                                   f"first-player advantage (|FPA| < {FPA_THRESHOLD:g}): "
                                   + "; ".join(_sweep_at(sw, i) for i in small.index[:6])
                                   + ("; ..." if len(small) > 6 else "") + ".", f"sweep_{m}"))
            if not len(fair) and not len(small):
                out.append(Finding("Every setting of the sweep has a first-player advantage that matters "
                                   f"(significant and |FPA| >= {FPA_THRESHOLD:g}).", f"sweep_{m}", True))
    return out


def values_findings(v) -> list[Finding]:
    out = []
    names = {"ablation": "ablation (score change)", "regression": "regression (relative to the reference unit, "
             "signs kept)", "regression_coef": "regression coefficient"}
    for method, sub in v.table.groupby("method", sort=False):
        sub = sub.dropna(subset=["value"])
        if sub.empty:
            continue
        sub = sub.groupby("unit")[["value", "ci_lo", "ci_hi"]].mean().sort_values("value", ascending=False)
        key = "values" if not out else f"values_{len(out)}"
        parts = [f"{u} {r.value:.3g} (95% CI {r.ci_lo:.3g} to {r.ci_hi:.3g})" for u, r in sub.iterrows()]
        out.append(Finding(f"By {names.get(method, method)}: " + ", ".join(parts) + ".", key))
    return out
