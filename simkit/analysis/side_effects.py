"""Side effects: what a rule change costs beside the number it was made for.

A change made for one metric (fewer draws, a fair first move) moves others too: how long
games last, how many are drawn or stopped at a cap, and how they end. Every verdict that
recommends or compares settings shows them beside its target (docs/metrics.md, "Side effects"):

- of one run (a sweep cell, a skill level, a tune finalist): ``of_summary`` reads the run's
  summary: mean length (t interval), draw and cap rates and each end reason's share (Wilson);
- of two runs on the same seeds (compare's B - A, a tune finalist against the unchanged
  scenario): ``paired`` gives B - A of the length and the draw rate (the `PairedTally`'s own
  intervals) and of the cap rate and each end reason's share, from the pairs' end reasons
  (`PairedTally.ends_matrix`: pairs by the end reason of A and of B) with Tango's score interval on
  the paired 0/1 differences; p-values are Holm-adjusted over the family it returns, and a
  change "matters" when significant and at least its practical threshold (as in compare);
- ``sentence`` says the ones that matter in words: "games get N% longer: A -> B plies
  (+D [lo, hi] on the same games)".
"""
from __future__ import annotations

import math

from simkit.analysis.metrics import practical_threshold
from simkit.analysis.stats import holm, score_interval, score_p

ALPHA = 0.05
INDICATOR_DIFFS = (-1.0, 0.0, 1.0)
BASE = ("mean_plies", "draw_rate", "cap_rate")


def end_key(reason: str) -> str:
    return f"end_{reason}"


def of_summary(s: dict) -> dict[str, tuple[float, float, float]]:
    """A run's side effects from its summary: name -> (estimate, 95% lo, 95% hi)."""
    out = {}
    for m in BASE:
        lo, hi = s.get(f"{m}_ci") or (math.nan, math.nan)
        out[m] = (float(s.get(m, math.nan)), float(lo), float(hi))
    cis = s.get("end_reason_shares_ci") or {}
    for r, share in (s.get("end_reason_shares") or {}).items():
        lo, hi = cis.get(r, (math.nan, math.nan))
        out[end_key(r)] = (float(share), float(lo), float(hi))
    return out


def seen_reasons(summaries) -> list[str]:
    """End reasons that end at least one game of any of ``summaries`` (the others would only fill
    a table with zeros; the caller says which never happen)."""
    names: list[str] = []
    for s in summaries:
        for r, c in (s.get("end_reasons") or {}).items():
            if c and r not in names:
                names.append(r)
    order = list((summaries[0].get("end_reasons") or {})) if summaries else []
    return sorted(names, key=lambda r: order.index(r) if r in order else len(order))


def _indicator(a_only: int, b_only: int, n: int) -> dict:
    """B - A of a 0/1 per-game outcome from its discordant pairs: Tango's score interval, score p."""
    counts = [a_only, n - a_only - b_only, b_only]
    diff, lo, hi = score_interval(INDICATOR_DIFFS, counts, ALPHA)
    return {"diff": diff, "ci": [lo, hi], "p_value": score_p(INDICATOR_DIFFS, counts, 0.0),
            "discordant": {"b_only": int(b_only), "a_only": int(a_only)},
            "method": "Tango score interval on the paired end reasons"}


def paired(tally, spec, sa: dict, sb: dict, metrics=("mean_plies", "draw_rate"), exclude=()) -> dict:
    """B - A of every side effect on the pairs of ``tally`` (a `PairedTally`): ``metrics`` of the
    tally itself (length, draws) and, from its end-reason pairs, the cap rate and each end reason
    of ``spec`` that ends a game of A or B. ``exclude``: names left out (a tune's objectives).
    Each entry: a, b, diff, ci, p_value, p_holm (over the returned family), threshold, verdict."""
    n = tally.n
    ea, eb = of_summary(sa), of_summary(sb)
    out: dict = {}
    for m in metrics:
        if m not in exclude:
            d = tally.difference(m)
            out[m] = {"diff": d["diff"], "ci": list(d["ci"]), "p_value": d["p_value"], "method": d.get("method", "")}
    ends = tally.ends_matrix(len(spec.end_reasons))
    caps = [i for i, r in enumerate(spec.end_reasons) if r in spec.cap_reasons]
    if "cap_rate" not in exclude and caps:
        in_a = ends[caps, :].sum()
        in_b = ends[:, caps].sum()
        both = ends[caps][:, caps].sum()
        out["cap_rate"] = _indicator(int(in_a - both), int(in_b - both), n)
    for i, r in enumerate(spec.end_reasons):
        key = end_key(r)
        in_a, in_b, both = int(ends[i, :].sum()), int(ends[:, i].sum()), int(ends[i, i])
        if key in exclude or (in_a == 0 and in_b == 0):
            continue
        out[key] = _indicator(in_a - both, in_b - both, n)
    adj = holm({m: e["p_value"] for m, e in out.items()})
    for m, e in out.items():
        e["a"], e["b"] = ea.get(m, (math.nan,))[0], eb.get(m, (math.nan,))[0]
        e["p_holm"] = adj[m]
        e["threshold"] = practical_threshold(m, e["a"] if m == "mean_plies" else None)
        sig = not math.isnan(adj[m]) and adj[m] < ALPHA
        e["verdict"] = ("not significant" if not sig else
                        "matters" if abs(e["diff"]) >= e["threshold"] else "significant but negligible")
    return out


def label(metric: str, unit: str = "plies") -> str:
    """'mean plies', 'draw rate', 'cap rate', "'clock' endings"."""
    if metric.startswith("end_"):
        return f"'{metric[4:]}' endings"
    if metric == "mean_plies":
        return f"mean {unit}"
    return metric.replace("_", " ")


def sentence(effects: dict, unit: str = "plies", caps=()) -> str:
    """The side effects that matter, largest (relative to its threshold) first, in words:
    "games get N% longer: A -> B plies (+D [lo, hi] on the same games); draws
    fall: ..."; '' when none does. ``caps``: the game's cap reasons (what the cap rate counts)."""
    from simkit.report import fmt
    matters = sorted((m for m, e in effects.items() if e.get("verdict") == "matters"),
                     key=lambda m: abs(effects[m]["diff"]) / effects[m]["threshold"], reverse=True)
    parts = []
    for m in matters:
        e = effects[m]
        lo, hi = e["ci"]
        if m == "mean_plies":
            rel = f" {abs(e['diff']) / e['a']:.0%}" if e["a"] else ""
            parts.append(f"games get{rel} {'longer' if e['diff'] > 0 else 'shorter'}: {fmt.length(e['a'])} → "
                         f"{fmt.length(e['b'])} {unit} ({fmt.metric_diff(m, e['diff'])} "
                         f"{fmt.metric_diff_ci(m, lo, hi)} on the same games)")
        else:
            capped = f"games ending at a cap ({', '.join(caps)})" if caps else "games ending at a cap"
            what = {"draw_rate": "draws", "cap_rate": capped}.get(m, label(m, unit))
            parts.append(f"{what} {'rise' if e['diff'] > 0 else 'fall'}: {fmt.rate(e['a'])} → {fmt.rate(e['b'])} "
                         f"({fmt.rate_diff(e['diff'])} {fmt.interval(lo, hi, fmt.rate_diff)})")
    return "; ".join(parts)
