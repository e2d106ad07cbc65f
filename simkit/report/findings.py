"""Findings: short sentences derived from the numbers, each with its figure and interval.

A finding is ``(text, figure_key, flag)``: ``figure_key`` names the figure that
shows it (``html.py`` turns it into "Figure N"); ``flag`` marks degenerate play
or a significant imbalance, which the report highlights.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from simkit.report import fmt
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
    return fmt.rate(x, digits)


def ci_pct(lo: float, hi: float, digits: int = 1) -> str:
    return f"95% CI {fmt.interval(lo, hi, fmt.rate)}"


def _wilson(k, n, alpha=0.05):
    from simkit.analysis.stats import wilson
    return wilson(k, n, alpha)


def _not_significant(lead: str, lo90: float, hi90: float, null: float, show, mag) -> str:
    """What a finding may say when no difference from ``null`` is detected (``lead``): "balanced"
    only when the equivalence test (TOST: the 90% interval inside null ± FPA_THRESHOLD) shows it,
    else no more than ``lead`` and how far from even the interval still reaches. ``show`` formats
    a value, ``mag`` a distance."""
    from simkit.analysis.stats import tost
    band = fmt.interval(null - FPA_THRESHOLD, null + FPA_THRESHOLD, show)
    ci90 = fmt.interval(lo90, hi90, show)
    if tost((lo90 - null, hi90 - null), FPA_THRESHOLD) == "within":
        return (f"{lead}; balanced within ±{mag(FPA_THRESHOLD)} (equivalence test: the 90% interval {ci90} "
                f"lies inside {band})")
    reach = max(null - lo90, hi90 - null)
    return (f"{lead}, but balance is not shown either: the 90% interval {ci90} reaches {mag(reach)} from "
            f"even (equivalence within ±{mag(FPA_THRESHOLD)} needs it inside {band})")


def _points(x: float) -> str:
    return f"{x * 100:.1f} points"


def _score(x: float) -> str:
    return f"{x:.4f}"


def _name(x: str) -> str:
    return str(x).replace("_", " ")


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
                   else f"a significant but negligible edge for the {who} player (under {pct(FPA_THRESHOLD)} "
                        f"from even)" if sig
                   else "no significant first-move advantage")      # the FPA finding below tests equivalence
        out.append(Finding(f"The first player wins {pct(d.share)} of decided games "
                           f"({ci_pct(d.lo, d.hi)}, {fmt.count(d.decided)} decided games): {verdict}.", "outcomes",
                           matters))
    fpa = s.get("first_player_advantage")
    lo, hi = s.get("first_player_advantage_ci") or [math.nan, math.nan]
    if fpa is not None and not math.isnan(fpa):
        sig = lo > 0 or hi < 0
        matters = sig and abs(fpa) >= FPA_THRESHOLD
        if not sig:
            verdict = _not_significant("not distinguishable from zero", *_fpa_ci90(s, n), 0.0, fmt.advantage,
                                       _score)
        elif matters:
            verdict = f"significant and at least the practical threshold {FPA_THRESHOLD:g}"
        else:
            verdict = f"significant but negligible (below the practical threshold {FPA_THRESHOLD:g})"
        out.append(Finding(f"First-player advantage (expected score − ½) is "
                           f"{fmt.with_ci(fpa, lo, hi, fmt.advantage)}: {verdict}.", "fpa", matters))
    s0, s1 = s.get("side0_win_rate"), s.get("side1_win_rate")
    if s0 is not None and s1 is not None and (s0 + s1) > 0:
        k0, k1 = round(s0 * n), round(s1 * n)
        share = k0 / (k0 + k1)
        slo, shi = _wilson(k0, k0 + k1)
        sig = slo > 0.5 or shi < 0.5
        matters = sig and abs(share - 0.5) >= FPA_THRESHOLD
        if sig:
            verdict = "the sides are not balanced" if matters else "a significant but negligible imbalance"
        else:
            verdict = _not_significant("no significant imbalance", *_wilson(k0, k0 + k1, 0.10), 0.5, pct,
                                       _points)
        out.append(Finding(f"Side 0 wins {pct(s0)} and side 1 {pct(s1)} of all games; side 0 takes "
                           f"{pct(share)} of the decided games ({ci_pct(slo, shi)}): {verdict}.",
                           "outcomes", matters))
    out.extend(_draw_and_end_findings(run, n))
    q = s.get("plies_quantiles") or {}
    unit = run.length_unit
    if s.get("mean_plies") is not None and q:
        ci = ""
        if run.games is not None and "plies" in run.games and len(run.games) > 1:
            x = run.games["plies"].to_numpy(dtype=float)
            half = 1.959963984540054 * x.std() / math.sqrt(len(x))
            ci = f"95% CI {fmt.interval(x.mean() - half, x.mean() + half, fmt.length)}; "
        out.append(Finding(f"Games last {fmt.length(s['mean_plies'])} {unit} on average ({ci}median "
                           f"{fmt.number(q.get('0.5', math.nan))}); 80% of games last "
                           f"{fmt.number(q.get('0.1', math.nan))}"
                           f" to {fmt.number(q.get('0.9', math.nan))} {unit}.", "lengths"))
        cap = run.length_cap()
        if cap and q.get("0.5", 0) >= cap:
            out.append(Finding(f"At least half of the games reach the {cap}-{fmt.unit_singular(unit)} cap.",
                               "lengths", True))
    out.extend(unit_findings(run))
    out.extend(counter_findings(run))
    return out


def _fpa_ci90(s: dict, n: int) -> tuple[float, float]:
    """The first-player advantage's 90% score interval from the summary's rates (TOST's interval)."""
    from simkit.analysis.metrics import SCORES
    from simkit.analysis.stats import score_interval
    first = round(float(s.get("first_player_win_rate") or 0) * n)
    second = round(float(s.get("second_player_win_rate") or 0) * n)
    _, lo, hi = score_interval(SCORES, [second, n - first - second, first], alpha=0.10)
    return lo - 0.5, hi - 0.5


def _draw_and_end_findings(run, n: int) -> list[Finding]:
    """Draws, cap endings and a dominant ending, each fact once: when every draw is a game stopped
    at a cap (and every capped game a draw), one sentence says both."""
    s = run.summary
    out: list[Finding] = []
    ends = s.get("end_reasons") or {}
    total = sum(ends.values()) or n
    from simkit.games import find_game
    caps = getattr(find_game(run.game), "cap_reasons", ())   # one definition of "capped": the game's spec
    capped = {k: v for k, v in ends.items() if k in caps and v}
    dr = s.get("draw_rate")
    dlo, dhi = s.get("draw_rate_ci") or [math.nan, math.nan]
    draws = round(dr * n) if dr is not None else None
    merged = draws is not None and draws > 0 and draws == sum(capped.values())
    if dr is not None:
        flag = dr > 0.5
        if merged:
            share = sum(capped.values()) / total
            how = " and ".join(f"'{k}' {pct(v / total)}" for k, v in capped.items())
            tail = (": degenerate play — most games never reach a real ending." if share > 0.5
                    else ": a large share of games never reaches a real ending." if share > 0.2 else ".")
            out.append(Finding(f"{pct(dr)} of games are drawn ({ci_pct(dlo, dhi)}; {fmt.count(draws)} of "
                               f"{fmt.count(n)}), every one of them stopped at a cap ({how}){tail}", "ends",
                               flag or share > 0.2))
        else:
            out.append(Finding(f"{pct(dr)} of games are drawn ({ci_pct(dlo, dhi)})"
                               + (": most games end without a winner." if flag else "."), "outcomes", flag))
    if not merged:
        for k, v in capped.items():
            clo, chi = _wilson(v, total)
            share = v / total
            flag = share > 0.2 or (k == "stalemate" and share > 0.05)
            what = "hit the cap" if k != "stalemate" else "end in stalemate"
            tail = (": degenerate play — most games never reach a real ending." if share > 0.5
                    else ": a large share of games never reaches a real ending." if share > 0.2
                    else ": stalemates are frequent." if flag else ".")
            out.append(Finding(f"{pct(share)} of games {what} ('{k}', {ci_pct(clo, chi)}){tail}", "ends", flag))
    # one real ending (of several the game has) that ends most games
    real = {k: v for k, v in ends.items() if k not in caps}
    if len(real) >= 2 and total:
        top = max(real, key=real.get)
        v = real[top]
        if v / total > 0.5:
            lo, hi = _wilson(v, total)
            others = ", ".join(f"'{_name(k)}' {pct(c / total)}" if c else f"'{_name(k)}' never"
                               for k, c in real.items() if k != top)
            out.append(Finding(f"One ending dominates: '{_name(top)}' ends {pct(v / total)} of games "
                               f"({fmt.count(v)} of {fmt.count(total)}, {ci_pct(lo, hi)}); the other endings: "
                               f"{others}.", "ends", v / total > 0.75))
    return out


def unit_findings(run) -> list[Finding]:
    units = run.units()
    if units.empty:
        return []
    out = []
    n = len(run.games)
    totals = units.groupby("unit")["total"].sum()
    for unit in run.unit_types():
        if unit in totals.index and totals[unit] == 0:
            out.append(Finding(f"Unit type '{unit}' is unused: no kills and no losses by either side in "
                               f"{fmt.count(n)} games.", "units", True))
    kills = units[units["stat"] == "kills"].groupby("unit")[["mean"]].sum()
    if len(kills) > 1 and kills["mean"].sum() > 0:
        top = kills["mean"].idxmax()
        rows = units[(units["stat"] == "kills") & (units["unit"] == top)]
        out.append(Finding(f"'{top}' makes the most kills: "
                           + ", ".join(f"side {int(r.side)} {fmt.per_game(r['mean'])} per game "
                                       f"(95% CI {fmt.interval(r.lo, r.hi, fmt.per_game)})"
                                       for _, r in rows.iterrows()) + ".", "units"))
    wiped = run.wiped_out()
    for _, r in wiped.iterrows():
        if not r.side_games:
            continue
        share = r.wiped / r.side_games
        if r.games_both_sides_wiped == r.games and r.games:
            out.append(Finding(f"Every '{r.unit}' dies: in all {fmt.count(r.games)} games both sides lose every "
                               f"'{r.unit}' they field (none is left at the end).", "units", True))
        elif share >= 0.9:
            lo, hi = _wilson(int(r.wiped), int(r.side_games))
            out.append(Finding(f"'{r.unit}' is nearly always wiped out: a side loses every '{r.unit}' it fields in "
                               f"{fmt.count(r.wiped)} of {fmt.count(r.side_games)} side-games ({pct(share)}, "
                               f"{ci_pct(lo, hi)}); both sides do in {fmt.count(r.games_both_sides_wiped)} of "
                               f"{fmt.count(r.games)} games.", "units", share >= 0.99))
    return out


RARE = 0.005   # a count that happens in fewer than this share of games "almost never" happens


def counter_findings(run) -> list[Finding]:
    """A rule or special that never (or almost never) fires: a per-side or per-unit count of the
    records (any stat the game's columns declare) that stays 0 for both sides in every (or nearly
    every) game."""
    n = len(run.games) if run.games is not None else 0
    if not n:
        return []
    out = []
    for stat, (total, games) in run.counters().items():
        if total == 0:
            out.append(Finding(f"'{_name(stat)}' never happens: 0 for both sides in all {fmt.count(n)} games "
                               f"(the rule behind it never fires under these policies).", None, True))
        elif games / n < RARE:
            out.append(Finding(f"'{_name(stat)}' almost never happens: {fmt.count(total)} times in all, in "
                               f"{fmt.count(games)} of {fmt.count(n)} games ({fmt.rate(games / n, 2)}).", None, True))
    return out


def compare_findings(cmp) -> list[Finding]:
    diffs = cmp.differences()
    la, lb = cmp.labels()
    out = []
    for _, r in diffs.iterrows():
        if math.isnan(r["difference"]):
            continue
        sig = r["ci_lo"] > 0 or r["ci_hi"] < 0
        m = r["metric"]
        p = "" if math.isnan(r["p_value"]) else f", {fmt.p_phrase(r['p_value'])}"
        verdict = r["verdict"] or ("significant" if sig else "not significant")
        # highlighted only when it matters: significant (after Holm) and at least the practical threshold
        flag = verdict == "matters" if r["verdict"] else sig
        ab = "" if fmt.missing(r["a"]) or fmt.missing(r["b"]) else \
            f" ({fmt.metric_value(m, r['a'])} → {fmt.metric_value(m, r['b'])})"
        out.append(Finding(f"{fmt.metric_label(m, cmp.length_unit)}: {lb} minus {la} = "
                           f"{fmt.metric_diff(m, r['difference'])}{ab} "
                           f"(95% CI {fmt.metric_diff_ci(m, r['ci_lo'], r['ci_hi'])}{p}) — {verdict}.",
                           "differences_length" if _is_length(r) else "differences", flag))
    split = cmp.compare.get("win_rate_split") or {}
    from simkit.analysis.compare import LABELS, from_draws
    raw = cmp.compare.get("differences") or {}
    explained = from_draws(raw) if all(m in raw for m in ("draw_rate", *split)) and split else []
    for win in explained:
        x = split[win]
        out.append(Finding(f"The {LABELS[win]} change ({fmt.rate_diff(x['diff'])}) comes from the draws: half of "
                           f"the draw rate's change goes to each side ({fmt.rate_diff(x['from_draws'])}, 95% CI "
                           f"{fmt.interval(*x['from_draws_ci'], fmt.rate_diff)}); who wins changes by "
                           f"{fmt.advantage(x['from_who_wins'])} in {LABELS[x['who_wins']]} (95% CI "
                           f"{fmt.interval(*x['from_who_wins_ci'], fmt.advantage)}, {x['who_wins_verdict']}).",
                           "differences"))
    ends = cmp.side_effects()
    for _, r in ends.iterrows():
        if r["verdict"] in ("matters", "significant but negligible"):
            from simkit.analysis.side_effects import label
            out.append(Finding(f"How games end: {label(r['metric'])} {fmt.rate(r['a'])} → {fmt.rate(r['b'])}, "
                               f"{fmt.rate_diff(r['difference'])} (95% CI "
                               f"{fmt.interval(r['ci_lo'], r['ci_hi'], fmt.rate_diff)}, Holm "
                               f"{fmt.p_phrase(r['p_holm'])}) — {r['verdict']}.", "side_effects",
                               r["verdict"] == "matters"))
    if len(ends) and not any(f.figure == "side_effects" for f in out):
        out.append(Finding("How games end does not change significantly (cap rate and every end reason, Holm-"
                           "adjusted).", "side_effects"))
    if not out:
        out.append(Finding("compare.json lists no differences.", None))
    return out


def _is_length(row) -> bool:
    import re
    return bool(re.search("plies|turns|length", str(row["metric"]))) or abs(row["difference"]) > 1


def _sweep_at(sw, i) -> str:
    return ", ".join(fmt.setting(p, sw.table.loc[i, p]) for p in sw.params)


def _sweep_val(t, m, i) -> str:
    v, lo, hi = (float(t.loc[i, c]) for c in (m, m + "_ci_lo", m + "_ci_hi"))
    return fmt.with_ci(v, lo, hi, fmt.kind_of(m))


def sweep_findings(sw) -> list[Finding]:
    out = []
    t = sw.table
    for m in sw.metrics()[:3]:
        if t[m].isna().all():
            continue
        lo_i, hi_i = t[m].idxmin(), t[m].idxmax()
        out.append(Finding(f"{fmt.metric_label(m, sw.length_unit)} ranges from {_sweep_val(t, m, lo_i)} at "
                           f"{_sweep_at(sw, lo_i)} "
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
    return out + sweep_side_findings(sw)


def sweep_side_findings(sw) -> list[Finding]:
    """The side effects across the cells: the range of the mean length and of the cap rate, and of
    each end reason whose share moves by at least the practical threshold between cells."""
    out = []
    t = sw.table
    length = next((m for m in ("mean_plies", "mean_turns") if m in t), None)
    ends = [c for c in t.columns if c.startswith("end_") and not c.endswith(("_ci_lo", "_ci_hi"))
            and f"{c}_ci_lo" in t and t[c].max() - t[c].min() >= FPA_THRESHOLD]
    for m, key in [(length, f"sweep_{length}"), ("cap_rate", "sweep_ends")] + [(c, "sweep_ends") for c in ends]:
        if m is None or m not in t or f"{m}_ci_lo" not in t or t[m].isna().all():
            continue
        if m == "cap_rate" and t[m].max() == 0:
            out.append(Finding("No game of any cell is stopped at a cap.", "sweep_ends"))
            continue
        lo_i, hi_i = t[m].idxmin(), t[m].idxmax()
        name = f"the share of '{m[4:]}' endings" if m.startswith("end_") else fmt.metric_label(m, sw.length_unit)
        out.append(Finding(f"Side effect: {name} ranges from {_sweep_val(t, m, lo_i)} at {_sweep_at(sw, lo_i)} to "
                           f"{_sweep_val(t, m, hi_i)} at {_sweep_at(sw, hi_i)}.",
                           key if key != f"sweep_{length}" or length in sw.metrics()[:4] else None))
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
        kind = fmt.kind_of(method)
        parts = [f"{u} {fmt.with_ci(r.value, r.ci_lo, r.ci_hi, kind)}" for u, r in sub.iterrows()]
        out.append(Finding(f"By {names.get(method, method)}: " + ", ".join(parts) + ".", key))
    return out
