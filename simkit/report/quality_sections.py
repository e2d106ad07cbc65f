"""The "Game quality" sections of compare and sweep reports (compare/sweep --quality).

A compare directory with compare_quality.json, or a sweep directory with
sweep_quality.json, gets a second section after its own: a table and a forest plot
of the quality differences B - A (compare), or each quality metric against the
varied knob with its 95% band and the default setting marked (sweep). `hook` wraps
the compare and sweep builders of `sections.BUILDERS`; a builder then returns
[its section, the quality section]. Labels carry the game, the variants' overrides,
policies, first-player mode, seed and games; units come from the game.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.report.findings import Finding
from simkit.report.plots import BAD, SIDE, _err

# metrics drawn on a count scale (legal actions, lead changes per game), apart from the 0..1 ones
COUNTS = ("lead_changes", "branching", "branching_trend")


def _read(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _title(game: str) -> str:
    try:
        from simkit.games import get_game
        return get_game(game).title
    except Exception:
        return game


def _setting(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _who(q: dict) -> str:
    """policies, first-player mode, seed and games: the tail of every caption."""
    per = "variant" if q.get("kind") == "compare-quality" else "cell"
    return (f"{' vs '.join(q.get('policies') or [])}, first {q.get('first', '?')}, seed {q.get('seed', '?')}, "
            f"{int(q.get('games') or 0):,} trajectory games per {per}")


def _num(x, fmt):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def _fmt(metric: str) -> str:
    return "{:+.2f}" if metric in COUNTS else "{:+.4f}"


# ---- plots ----------------------------------------------------------------------------------

def quality_forest(data, ax):
    """Forest plot: each metric's B - A with its 95% interval; red where Holm's p < 0.05."""
    rows, unit, title = data
    from simkit.analysis.quality_compare import label
    y = np.arange(len(rows))[::-1]
    v = np.array([r["diff"] for r in rows], dtype=float)
    lo = np.array([r["ci"][0] for r in rows], dtype=float)
    hi = np.array([r["ci"][1] for r in rows], dtype=float)
    ax.axvline(0, color="black", lw=0.8)
    for yi, r, vi, e in zip(y, rows, v, _err(v, lo, hi).T):
        c = BAD if r.get("significant") else SIDE[0]
        ax.errorbar(vi, yi, xerr=e.reshape(2, 1), fmt="o", color=c, capsize=4, lw=1.5)
    ax.set_yticks(y, [label(r["metric"], unit) for r in rows], fontsize=10)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    span = np.nanmax(np.abs(np.concatenate([lo, hi, v, [1e-3]])))
    ax.set_xlim(-span * 1.15, span * 1.15)
    # the p-values in a column at the right edge, outside the data
    for yi, r in zip(y, rows):
        p = r.get("p_holm")
        ax.annotate("Holm p " + ("n/a" if p is None or p != p else "<0.001" if p < 1e-3 else f"{p:.3f}"),
                    (1.02, yi), xycoords=("axes fraction", "data"), va="center", fontsize=9,
                    color=BAD if r.get("significant") else "#444")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(7, symmetric=True))
    ax.set_xlabel("B - A (95% CI)", fontsize=10)
    ax.figure.suptitle(title, fontsize=9, x=0.01, ha="left")
    ax.tick_params(axis="x", labelsize=9)
    ax.grid(axis="x", alpha=0.3)
    return ax


def _numeric(values) -> bool:
    return all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)


def quality_sweep_panels(data, ax):
    """One panel per metric: its mean over the first varied key with the 95% band (a line per
    setting of the other keys); the default setting marked by a dashed line (numeric knob) or
    '(default)' on the tick (categorical)."""
    q, metrics, title = data
    from simkit.analysis.quality_compare import label
    fig = ax.figure
    fig.delaxes(ax)
    fig.suptitle(title, fontsize=10, x=0.01, ha="left")
    ncol = 2 if len(metrics) > 1 else 1
    nrow = math.ceil(len(metrics) / ncol)
    axes = fig.subplots(nrow, ncol, squeeze=False)
    keys = q["keys"]
    x_key, others = keys[0], keys[1:]
    default = (q.get("defaults") or {}).get(x_key)
    cells = q["cells"]
    xs_all = list(dict.fromkeys(c["setting"][x_key] for c in cells))
    numeric = _numeric(xs_all)
    pos = {v: (float(v) if numeric else i) for i, v in enumerate(xs_all)}
    # a knob over orders of magnitude (e.g. a cap of 10, 30, 400) reads on a log axis
    logx = numeric and min(xs_all) > 0 and max(xs_all) / min(xs_all) >= 10
    groups = {}
    for c in cells:
        groups.setdefault(tuple(c["setting"][k] for k in others), []).append(c)
    colors = ["#3b6fb6", "#e08a2c", "#2e8b57", "#8e44ad", "#7f7f7f", "#c0392b"]
    for k, m in enumerate(metrics):
        a = axes[k // ncol][k % ncol]
        for gi, (g, cs) in enumerate(groups.items()):
            cs = sorted(cs, key=lambda c: pos[c["setting"][x_key]])
            x = np.array([pos[c["setting"][x_key]] for c in cs], dtype=float)
            v = np.array([np.nan if c["metrics"][m]["mean"] is None else c["metrics"][m]["mean"] for c in cs],
                         dtype=float)
            lo = np.array([np.nan if c["metrics"][m]["ci"][0] is None else c["metrics"][m]["ci"][0] for c in cs],
                          dtype=float)
            hi = np.array([np.nan if c["metrics"][m]["ci"][1] is None else c["metrics"][m]["ci"][1] for c in cs],
                          dtype=float)
            col = colors[gi % len(colors)]
            name = ", ".join(f"{kk}={_setting(vv)}" for kk, vv in zip(others, g)) or None
            if name and all((q.get("defaults") or {}).get(kk) == vv for kk, vv in zip(others, g)):
                name += " (default)"
            if numeric and len(x) > 1:
                a.plot(x, v, marker="o", color=col, label=name)
                a.fill_between(x, lo, hi, color=col, alpha=0.18, lw=0)
            else:
                off = (gi - (len(groups) - 1) / 2) * 0.08 if not numeric else 0.0
                a.errorbar(x + off, v, yerr=_err(v, lo, hi), fmt="o", capsize=4, color=col, label=name)
        if default is not None and default in pos:
            if numeric:
                a.axvline(pos[default], color="#555", ls="--", lw=1)
        if logx:
            a.set_xscale("log")
            a.minorticks_off()
        if numeric:
            a.set_xticks([pos[v] for v in xs_all],
                         [_setting(v) + ("\n(default)" if v == default else "") for v in xs_all], fontsize=9)
        else:
            a.set_xticks(range(len(xs_all)), [_setting(v) + ("\n(default)" if v == default else "") for v in xs_all],
                         fontsize=9)
            a.set_xlim(-0.5, len(xs_all) - 0.5)
        a.set_title(label(m, q.get("length_unit", "plies")), fontsize=10)
        a.tick_params(axis="y", labelsize=9)
        a.grid(alpha=0.3)
        if k // ncol == nrow - 1:
            a.set_xlabel(x_key + (" (log scale)" if logx else "")
                         + (f" (dashed: default {_setting(default)})" if numeric and default in pos else ""),
                         fontsize=9)
        if k == 0 and len(groups) > 1:
            a.legend(fontsize=8, loc="best")
    for k in range(len(metrics), nrow * ncol):
        axes[k // ncol][k % ncol].set_visible(False)
    return axes


# ---- sections -------------------------------------------------------------------------------

def compare_quality_section(cmp, w, anchor: str):
    from simkit.analysis.quality import PER_GAME
    from simkit.analysis.quality_compare import label
    from simkit.report.sections import Section
    q = _read(Path(cmp.path) / "compare_quality.json")
    if not q:
        return None
    unit = q.get("length_unit", "plies")
    la, lb = (q.get("labels") or ["A", "B"])[:2]
    diffs = q.get("differences") or {}
    game = _title(q.get("game", "?"))
    sec = Section(anchor, f"Game quality: {game}, A = {la} vs B = {lb}",
                  subtitle=f"B - A of each quality metric; {_who(q)}",
                  description="Quality metrics from per-move trajectories (docs/quality.md); games 0.. of both "
                              "variants share seed and game index (common random numbers).")
    over = q.get("overrides") or {}
    sec.facts = [("game", q.get("game", "?")), ("A", la), ("B", lb),
                 ("A overrides", ", ".join(f"{k}={_setting(v)}" for k, v in (over.get("a") or {}).items()) or "none"),
                 ("B overrides", ", ".join(f"{k}={_setting(v)}" for k, v in (over.get("b") or {}).items()) or "none"),
                 ("policies", " vs ".join(q.get("policies") or [])), ("first player", str(q.get("first", "?"))),
                 ("seed", str(q.get("seed", "?"))), ("trajectory games per variant", f"{int(q.get('games') or 0):,}"),
                 ("unit", unit), ("directory", str(cmp.path))]
    rows = [{"metric": m, **diffs[m]} for m in PER_GAME if m in diffs and diffs[m].get("diff") is not None
            and not (isinstance(diffs[m]["diff"], float) and math.isnan(diffs[m]["diff"]))]
    tail = f"{game}; A = {la}, B = {lb}; {_who(q)}"
    for key, part, what in (("quality_differences", [r for r in rows if r["metric"] not in COUNTS], "0..1 and per-"
                             f"{'ply' if unit == 'plies' else unit.rstrip('s')} metrics"),
                            ("quality_differences_counts", [r for r in rows if r["metric"] in COUNTS], "counts")):
        if part:
            w.figure(sec, key, quality_forest, (part, unit, f"{game}: A = {la}\nB = {lb}\n{_who(q)}"),
                     f"Game quality, B - A in {what}, with 95% intervals (score interval for lead "
                     f"changes, paired t for the other per-game metrics, a paired bootstrap for ratios across "
                     f"games); red: significant after Holm over the {len(diffs)} metrics ({tail}).",
                     size=(8.5, 1.6 + 0.5 * len(part)))
    table = []
    for m in PER_GAME:
        a, b, d = (q.get("a") or {}).get(m), (q.get("b") or {}).get(m), diffs.get(m)
        if not (a and b and d):
            continue
        table.append({"metric": label(m, unit), "A": a["mean"], "A_ci_lo": a["ci"][0], "A_ci_hi": a["ci"][1],
                      "A_games": a["games"], "B": b["mean"], "B_ci_lo": b["ci"][0], "B_ci_hi": b["ci"][1],
                      "B_games": b["games"], "B_minus_A": d["diff"], "ci_lo": d["ci"][0], "ci_hi": d["ci"][1],
                      "p": d["p_value"], "p_holm": d["p_holm"], "method": d["method"]})
    if table:
        w.table(sec, "quality_compare", pd.DataFrame(table),
                f"Game quality of A and B and B - A (95% intervals, Holm-adjusted p; {tail})")
    sig = [r for r in rows if r.get("significant")]
    if q.get("identical_games"):
        sec.findings.append(Finding(f"A and B played identical trajectory games: every quality difference is 0 "
                                    f"(intervals: the rule-of-three floor, {int(q.get('games') or 0):,} pairs).",
                                    "quality_differences"))
    elif sig:
        for r in sorted(sig, key=lambda r: r["p_holm"])[:5]:
            m = r["metric"]
            f = _fmt(r["metric"]).replace("+", "")
            a, b = q["a"][m]["mean"], q["b"][m]["mean"]
            fig = "quality_differences_counts" if m in COUNTS else "quality_differences"
            sec.findings.append(Finding(
                f"{label(m, unit).capitalize()}: {f.format(a)} in A, {f.format(b)} in B ({_fmt(m).format(r['diff'])}, "
                f"95% CI {_fmt(m).format(r['ci'][0])} to {_fmt(m).format(r['ci'][1])}, Holm p = "
                f"{_num(r['p_holm'], '{:.2g}')}).", fig))
    else:
        sec.findings.append(Finding(f"No quality metric differs significantly between A and B after Holm's "
                                    f"correction ({int(q.get('games') or 0):,} trajectory games each).",
                                    "quality_differences"))
    return sec


def sweep_quality_section(sw, w, anchor: str):
    from simkit.analysis.quality import PER_GAME
    from simkit.analysis.quality_compare import label
    from simkit.report.sections import Section
    q = _read(Path(sw.path) / "sweep_quality.json")
    if not q or not q.get("cells"):
        return None
    unit = q.get("length_unit", "plies")
    game = _title(q.get("game", "?"))
    keys = q.get("keys") or []
    defaults = q.get("defaults") or {}
    base = q.get("base_overrides") or {}
    scen = q.get("scenario", "?") + (" [" + ", ".join(f"{k}={_setting(v)}" for k, v in base.items()) + "]"
                                     if base else "")
    sec = Section(anchor, f"Game quality: {game} {scen}, sweep of {' x '.join(keys)}",
                  subtitle=f"each quality metric per cell with its 95% interval; {_who(q)}",
                  description="Quality metrics from per-move trajectories (docs/quality.md); every cell traces "
                              "the same game indices and seed (common random numbers).")
    sec.facts = [("game", q.get("game", "?")), ("scenario", scen), ("varied", ", ".join(keys)),
                 ("default", ", ".join(f"{k}={_setting(defaults.get(k))}" for k in keys)),
                 ("cells", str(len(q["cells"]))), ("policies", " vs ".join(q.get("policies") or [])),
                 ("first player", str(q.get("first", "?"))), ("seed", str(q.get("seed", "?"))),
                 ("trajectory games per cell", f"{int(q.get('games') or 0):,}"), ("unit", unit),
                 ("directory", str(sw.path))]
    tail = f"{game} {scen}; {_who(q)}"
    present = [m for m in PER_GAME if any(c["metrics"].get(m, {}).get("mean") is not None for c in q["cells"])]
    bounded = [m for m in present if m not in COUNTS]
    counts = [m for m in present if m in COUNTS]
    for key, ms, what in (("quality_sweep", bounded, "0..1 and per-ply/turn metrics"),
                          ("quality_sweep_counts", counts, "counts")):
        if ms:
            w.figure(sec, key, quality_sweep_panels, (q, ms, f"{game} {scen}: {_who(q)}"),
                     f"Game quality ({what}) against {keys[0]}, mean with 95% band per cell; the default setting "
                     f"marked ({tail}).", size=(9, 1.5 + 2.2 * math.ceil(len(ms) / 2)))
    table = []
    for c in q["cells"]:
        row = {k: _setting(c["setting"][k]) + (" (default)" if c["setting"][k] == defaults.get(k) else "")
               for k in keys}
        for m in present:
            v = c["metrics"][m]
            row[m] = v["mean"]
            row[f"{m}_ci_lo"], row[f"{m}_ci_hi"] = v["ci"]
        table.append(row)
    w.table(sec, "quality_sweep", pd.DataFrame(table), f"Game quality per cell (95% intervals; {tail})")
    # the metrics whose extreme cells have disjoint intervals, most separated first
    found = []
    for m in present:
        cs = [c for c in q["cells"] if c["metrics"][m]["mean"] is not None]
        if len(cs) < 2:
            continue
        lo_c = min(cs, key=lambda c: c["metrics"][m]["mean"])
        hi_c = max(cs, key=lambda c: c["metrics"][m]["mean"])
        gap = hi_c["metrics"][m]["ci"][0] - lo_c["metrics"][m]["ci"][1]
        if gap > 0:
            width = (hi_c["metrics"][m]["ci"][1] - lo_c["metrics"][m]["ci"][0]) or 1.0
            found.append((gap / width, m, lo_c, hi_c))
    f3 = {m: _fmt(m).replace("+", "") for m in present}
    for _, m, lo_c, hi_c in sorted(found, key=lambda t: -t[0])[:4]:
        def at(c, m=m):
            v, f = c["metrics"][m], f3[m]
            s = ", ".join(f"{k}={_setting(c['setting'][k])}" for k in keys)
            return f"{f.format(v['mean'])} at {s} (95% CI {f.format(v['ci'][0])} to {f.format(v['ci'][1])})"
        sec.findings.append(Finding(f"{label(m, unit).capitalize()} ranges from {at(lo_c)} to {at(hi_c)}; the two "
                                    f"intervals do not overlap.",
                                    "quality_sweep_counts" if m in COUNTS else "quality_sweep"))
    if not found:
        sec.findings.append(Finding(f"No quality metric separates the cells: the lowest and highest cell's 95% "
                                    f"intervals overlap for every metric ({int(q.get('games') or 0):,} trajectory "
                                    f"games per cell).", "quality_sweep"))
    return sec


def hook(builders: dict) -> None:
    """Make the compare and sweep builders also return their quality section (when the
    directory has one): [section, quality section]."""
    for kind, extra in (("compare", compare_quality_section), ("sweep", sweep_quality_section)):
        base = builders.get(kind)
        if base is None or getattr(base, "_with_quality", False):
            continue

        def built(item, w, anchor, base=base, extra=extra):
            sec = base(item, w, anchor)
            more = extra(item, w, f"{anchor}-quality")
            return sec if more is None else [sec, more]
        built._with_quality = True
        builders[kind] = built
