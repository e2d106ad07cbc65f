"""Report figures: pure functions ``(data, ax) -> ax`` (matplotlib, Agg backend).

Each function draws on the axes it is given and returns them; it never creates
a figure, never saves, never reads files. ``html.py`` owns figures and files.
Intervals are 95% throughout (Wilson for rates, normal for means).
"""
from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

SIDE = ("#3b6fb6", "#e08a2c")   # side 0, side 1
DRAW = "#9a9a9a"
BAD = "#c0392b"


def _err(v, lo, hi):
    """Error-bar half lengths from a value and its interval (NaN-safe)."""
    v, lo, hi = (np.asarray(x, dtype=float) for x in (v, lo, hi))
    e = np.vstack([v - lo, hi - v])
    return np.where(np.isfinite(e), e, 0.0).clip(min=0)   # an unknown or infinite interval draws no bar


def _ci(summary: dict, key: str):
    v = summary.get(key, math.nan)
    lo, hi = (summary.get(f"{key}_ci") or [math.nan, math.nan])
    return float(v), float(lo), float(hi)


def outcomes(summary: dict, ax):
    """Win/draw/loss rates by side and by first player, each with its Wilson interval."""
    groups = [("by side", [("side 0 wins", "side0_win_rate", SIDE[0]), ("side 1 wins", "side1_win_rate", SIDE[1]),
                           ("draws", "draw_rate", DRAW)]),
              ("by first player", [("first player wins", "first_player_win_rate", "#2e8b57"),
                                   ("second player wins", "second_player_win_rate", "#8e44ad"),
                                   ("draws", "draw_rate", DRAW)])]
    x, ticks, labels = 0.0, [], []
    for _group, bars in groups:
        for lab, key, color in bars:
            v, lo, hi = _ci(summary, key)
            ax.bar(x, v * 100, color=color, width=0.8)
            ax.errorbar(x, v * 100, yerr=_err([v * 100], [lo * 100], [hi * 100]), color="black", capsize=4, lw=1)
            ax.annotate(f"{v * 100:.1f}%", (x, hi * 100 if not math.isnan(hi) else v * 100),
                        textcoords="offset points", xytext=(0, 4), ha="center", fontsize=8)
            ticks.append(x)
            labels.append(lab.replace(" wins", "\nwins"))
            x += 1
        x += 0.7
    ax.set_xticks(ticks, labels, fontsize=8)
    ax.set_ylabel("% of games")
    ax.set_ylim(0, min(100, max(ax.get_ylim()[1], 10) * 1.12))
    ax.set_title("Results by side and by first player (95% CI)")
    ax.text(0.25, -0.28, "by side", transform=ax.transAxes, ha="center", fontsize=9, style="italic")
    ax.text(0.75, -0.28, "by first player", transform=ax.transAxes, ha="center", fontsize=9, style="italic")
    return ax


def fpa(rows, ax):
    """First-player advantage with its interval; rows = [(label, value, lo, hi), ...]."""
    rows = list(rows)
    y = np.arange(len(rows))[::-1]
    v = np.array([r[1] for r in rows], dtype=float)
    lo = np.array([r[2] for r in rows], dtype=float)
    hi = np.array([r[3] for r in rows], dtype=float)
    from simkit.analysis.metrics import PRACTICAL
    # red only when it matters: significant and at least the practical threshold (docs/metrics.md)
    sig = ((lo > 0) | (hi < 0)) & (np.abs(v) >= PRACTICAL["first_player_advantage"])
    colors = [BAD if s else SIDE[0] for s in sig]
    ax.axvline(0, color="black", lw=0.8)
    for yi, vi, e, c in zip(y, v, _err(v, lo, hi).T, colors):
        ax.errorbar(vi, yi, xerr=e.reshape(2, 1), fmt="o", color=c, capsize=5, lw=1.5)
        ax.annotate(f"{vi:+.4f}", (vi, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_yticks(y, [str(r[0]) for r in rows], fontsize=8)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    vals = np.abs(np.concatenate([lo, hi, v, [0.01]]))
    span = vals[np.isfinite(vals)].max()
    ax.set_xlim(-span * 1.3, span * 1.3)
    ax.set_xlabel("first-player advantage (expected score of the first player - 1/2)")
    ax.set_title("First-player advantage (95% CI; red = significant)")
    return ax


def lengths(data, ax):
    """Game-length histogram; data = (lengths array, unit, cap or None)."""
    values, unit, cap = data
    values = np.asarray(values, dtype=np.int64)
    if len(values) == 0:
        ax.text(0.5, 0.5, "no games", ha="center", transform=ax.transAxes)
        return ax
    lo, hi = int(values.min()), int(values.max())
    width = max(1, math.ceil((hi - lo + 1) / 120))
    bins = np.arange(hi + 0.5, lo - 0.5 - width, -width)[::-1]   # the last bin ends at the longest game
    ax.hist(values, bins=bins, color=SIDE[0], alpha=0.85)
    med = float(np.median(values))
    ax.axvline(med, color="black", ls="--", lw=1, label=f"median {med:g}")
    ax.axvline(values.mean(), color="#2e8b57", ls=":", lw=1.5, label=f"mean {values.mean():.1f}")
    if cap is not None and cap <= hi * 1.5:
        ax.axvline(cap, color=BAD, lw=1.5, label=f"cap {cap}")
    ax.set_xlabel(f"game length ({unit})")
    ax.set_ylabel("games")
    ax.set_title(f"Game length ({len(values):,} games)")
    ax.legend(fontsize=8)
    return ax


def end_reasons(ends: dict, ax, caps=()):
    """Share of games by end reason; the game's cap reasons (``spec.cap_reasons``) in red."""
    names = list(ends)
    counts = np.array([ends[k] for k in names], dtype=float)
    total = counts.sum() or 1
    y = np.arange(len(names))[::-1]
    colors = [BAD if k in caps else SIDE[0] for k in names]
    ax.barh(y, counts / total * 100, color=colors)
    for yi, c in zip(y, counts):
        ax.annotate(f"{c / total * 100:.1f}%  ({int(c):,})", (c / total * 100, yi), textcoords="offset points",
                    xytext=(3, 0), va="center", fontsize=8)
    ax.set_yticks(y, [n.replace("_", " ") for n in names], fontsize=8)
    ax.set_xlim(0, 118)
    ax.set_xlabel("% of games")
    ax.set_title("How games end (red: cap or stalemate)")
    return ax


def unit_stats(units, ax):
    """Per-game kills and losses by unit type and side, with 95% intervals (units: RunData.units())."""
    stats = [s for s in ("kills", "losses") if s in set(units["stat"])]
    unit_names = list(dict.fromkeys(units["unit"]))
    if not stats or not unit_names:
        ax.text(0.5, 0.5, "no per-unit columns", ha="center", transform=ax.transAxes)
        return ax
    series = [(s, side) for s in stats for side in (0, 1)]
    w = 0.8 / len(series)
    x = np.arange(len(unit_names))
    for k, (stat, side) in enumerate(series):
        sub = units[(units["stat"] == stat) & (units["side"] == side)].set_index("unit").reindex(unit_names)
        pos = x - 0.4 + w * (k + 0.5)
        ax.bar(pos, sub["mean"].fillna(0), width=w, color=SIDE[side], alpha=1.0 if stat == "kills" else 0.5,
               hatch=None if stat == "kills" else "//", label=f"{stat}, side {side}", edgecolor="white")
        ax.errorbar(pos, sub["mean"].fillna(0), yerr=_err(sub["mean"], sub["lo"], sub["hi"]), fmt="none",
                    color="black", capsize=2, lw=0.8)
    ax.set_xticks(x, [u.replace("_", " ") for u in unit_names], fontsize=8,
                  rotation=30 if len(unit_names) > 5 else 0, ha="right" if len(unit_names) > 5 else "center")
    ax.set_ylabel("per game")
    ax.set_title("Kills made and losses suffered per game, by unit type (95% CI)")
    ax.legend(fontsize=8, ncol=2)
    return ax


def unit_values(table, ax):
    """Unit values by method with intervals; table columns method, unit, value, ci_lo, ci_hi."""
    methods = list(dict.fromkeys(table["method"]))
    units = list(dict.fromkeys(table["unit"]))
    w = 0.8 / max(1, len(methods))
    x = np.arange(len(units))
    cmap = matplotlib.colormaps["tab10"]
    for k, m in enumerate(methods):
        sub = table[table["method"] == m].groupby("unit")[["value", "ci_lo", "ci_hi"]].mean().reindex(units)
        pos = x - 0.4 + w * (k + 0.5)
        ax.bar(pos, sub["value"].fillna(0), width=w, color=cmap(k), label=str(m))
        ax.errorbar(pos, sub["value"].fillna(0), yerr=_err(sub["value"], sub["ci_lo"], sub["ci_hi"]), fmt="none",
                    color="black", capsize=3, lw=0.8)
    ax.axhline(0, color="black", lw=0.6)
    v = table["value"].to_numpy(dtype=float)
    span = np.nanmax(np.abs(v)) if np.isfinite(v).any() else 1.0
    lo, hi = ax.get_ylim()
    if hi - lo > 6 * (span or 1.0):  # an interval that is far wider than the values: clip, say so
        ax.set_ylim(min(0, np.nanmin(v)) - span * 0.6, max(0, np.nanmax(v)) + span * 0.6)
        ax.text(0.01, 0.97, "some intervals run off the scale (see the table)", transform=ax.transAxes,
                fontsize=8, va="top", color=BAD)
    ax.set_xticks(x, [str(u).replace("_", " ") for u in units], fontsize=8)
    ax.set_ylabel("value")
    ax.set_title(f"Unit values: {methods[0]} (95% CI)" if len(methods) == 1 else "Unit values by method (95% CI)")
    ax.legend(fontsize=8)
    return ax


COMPARE_RATES = (("first player wins", "first_player_win_rate"), ("second player wins", "second_player_win_rate"),
                 ("draws", "draw_rate"), ("side 0 wins", "side0_win_rate"), ("side 1 wins", "side1_win_rate"))


def compare_rates(data, ax):
    """Both variants side by side; data = ((label_a, summary_a), (label_b, summary_b))."""
    (la, sa), (lb, sb) = data
    x = np.arange(len(COMPARE_RATES))
    for k, (lab, s, color) in enumerate(((la, sa, "#5d6d7e"), (lb, sb, "#c0392b"))):
        vals = [_ci(s, key) for _, key in COMPARE_RATES]
        v = np.array([t[0] for t in vals]) * 100
        pos = x - 0.2 + 0.4 * k
        ax.bar(pos, v, width=0.4, color=color, label=lab)
        ax.errorbar(pos, v, yerr=_err(v, [t[1] * 100 for t in vals], [t[2] * 100 for t in vals]), fmt="none",
                    color="black", capsize=3, lw=0.8)
    ax.set_xticks(x, [n.replace(" wins", "\nwins") for n, _ in COMPARE_RATES], fontsize=8)
    ax.set_ylabel("% of games")
    ax.set_ylim(0, ax.get_ylim()[1] * 1.22)
    ax.set_title("Variants side by side (95% CI)")
    ax.legend(fontsize=8, loc="upper center", ncol=2, frameon=False)
    return ax


def compare_differences(diffs, ax):
    """Differences B - A with intervals (diffs: CompareData.differences()); red = the change matters."""
    diffs = diffs.reset_index(drop=True)
    y = np.arange(len(diffs))[::-1]
    ax.axvline(0, color="black", lw=0.8)
    for yi, (_, r) in zip(y, diffs.iterrows()):
        sig = (r["ci_lo"] > 0) or (r["ci_hi"] < 0)
        if r.get("verdict"):          # compare.json's own call: red only when the change matters
            sig = r["verdict"] == "matters"
        e = _err([r["difference"]], [r["ci_lo"]], [r["ci_hi"]])
        ax.errorbar(r["difference"], yi, xerr=e, fmt="o", color=BAD if sig else SIDE[0], capsize=4)
        from simkit.report import fmt
        p = r["p_value"]
        txt = fmt.metric_diff(r["metric"], r["difference"]) + (
            "" if fmt.missing(p) else "  " + fmt.p_phrase(p).replace(" ", ""))
        ax.annotate(txt, (r["difference"], yi), textcoords="offset points", xytext=(0, 6), ha="center", fontsize=8)
    ax.set_yticks(y, [str(m).replace("_", " ") for m in diffs["metric"]], fontsize=8)
    ax.set_ylim(-0.7, max(len(diffs), 1) - 0.3)
    # room on both sides for the value labels, which are centred on their points
    ends = np.concatenate([diffs["ci_lo"].to_numpy(float), diffs["ci_hi"].to_numpy(float),
                           diffs["difference"].to_numpy(float), [0.0]])
    ends = ends[np.isfinite(ends)]
    lo, hi = float(ends.min()), float(ends.max())
    pad = 0.3 * ((hi - lo) or 1.0)
    ax.set_xlim(lo - pad, hi + pad)
    rates = any(fmt.kind_of(m) is fmt.rate for m in diffs["metric"])
    ax.set_xlabel("difference (B - A)" + ("; a rate difference of 0.01 is 1 pp" if rates else ""))
    ax.set_title("Differences with 95% CI (red: significant)")
    return ax


def sweep_lines(data, ax):
    """Metric against one parameter with its interval band; data = (table, param, metric[, default]):
    the default value of the swept knob (the base scenario's) is marked on the axis."""
    from simkit.report import fmt
    table, param, metric = data[:3]
    default = data[3] if len(data) > 3 else None
    t = table.sort_values(param)
    x = t[param].to_numpy()
    numeric = np.issubdtype(x.dtype, np.number) and x.dtype != bool
    xs = x.astype(float) if numeric else np.arange(len(x))
    ax.fill_between(xs, t[f"{metric}_ci_lo"], t[f"{metric}_ci_hi"], color=SIDE[0], alpha=0.25, label="95% CI")
    ax.plot(xs, t[metric], "o-", color=SIDE[0], label=metric.replace("_", " "))
    labels = [fmt.option_value(v) for v in x]
    if default is not None:
        at = None
        if numeric and not isinstance(default, bool) and isinstance(default, (int, float)):
            at = float(default)
        elif fmt.option_value(default) in labels:
            at = float(xs[labels.index(fmt.option_value(default))])
        if at is not None:
            ax.axvline(at, color="#2e8b57", ls="--", lw=1.2, label=f"default {fmt.setting(param, default)}")
            if numeric:
                ticks = sorted(set(float(v) for v in xs) | {at})
                ax.set_xticks(ticks, [fmt.option_value(int(v) if float(v).is_integer() else v) for v in ticks])
            for tick in ax.get_xticklabels():
                if tick.get_text() == fmt.option_value(default) or (numeric and tick.get_position()[0] == at):
                    tick.set_fontweight("bold")
                    tick.set_color("#2e8b57")
    if not numeric:
        ax.set_xticks(xs, labels)
        for tick in ax.get_xticklabels():
            if default is not None and tick.get_text() == fmt.option_value(default):
                tick.set_fontweight("bold")
                tick.set_color("#2e8b57")
    if metric in ("first_player_advantage",) or (t[f"{metric}_ci_lo"] < 0).any():
        ax.axhline(0, color="black", lw=0.7)
    ax.set_xlabel(param + (f"  (default {fmt.option_value(default)})" if default is not None else ""))
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(f"{metric.replace('_', ' ')} by {param} (95% band)")
    ax.legend(fontsize=8)
    return ax


def sweep_heatmap(data, ax):
    """Metric over two parameters, annotated cells; data = (table, param_x, param_y, metric)."""
    from simkit.report import fmt
    table, px, py, metric = data[:4]
    default = data[4] if len(data) > 4 else {}
    grid = table.pivot_table(index=py, columns=px, values=metric, aggfunc="mean")
    v = grid.to_numpy(dtype=float)
    lim = np.nanmax(np.abs(v)) if np.isfinite(v).any() else 1
    diverging = metric == "first_player_advantage" or np.nanmin(v) < 0 < np.nanmax(v)
    im = ax.imshow(v, origin="lower", aspect="auto", cmap="RdBu_r" if diverging else "viridis",
                   vmin=-lim if diverging else None, vmax=lim if diverging else None)
    lo = table.pivot_table(index=py, columns=px, values=f"{metric}_ci_lo", aggfunc="mean").to_numpy(dtype=float)
    hi = table.pivot_table(index=py, columns=px, values=f"{metric}_ci_hi", aggfunc="mean").to_numpy(dtype=float)
    for i in range(v.shape[0]):
        for j in range(v.shape[1]):
            star = "*" if (lo[i, j] > 0 or hi[i, j] < 0) else ""
            dark = abs(im.norm(v[i, j]) - (0.5 if diverging else 0.0)) > (0.3 if diverging else 0.6)
            if not diverging:
                dark = im.norm(v[i, j]) < 0.4          # viridis is dark at the low end
            ax.text(j, i, fmt.metric_value(metric, v[i, j]) + star, ha="center", va="center",
                    fontsize=8.5, color="white" if dark else "black")
    xl = [fmt.option_value(c) for c in grid.columns]
    yl = [fmt.option_value(c) for c in grid.index]
    ax.set_xticks(range(v.shape[1]), xl, fontsize=8.5)
    ax.set_yticks(range(v.shape[0]), yl, fontsize=8.5)
    dx, dy = (fmt.option_value(default[k]) if k in default else None for k in (px, py))
    for tick in [*ax.get_xticklabels(), *ax.get_yticklabels()]:
        if tick.get_text() in (dx, dy) and tick.get_text() is not None:
            tick.set_fontweight("bold")
            tick.set_color("#2e8b57")
    if dx in xl and dy in yl:     # the default cell outlined
        from matplotlib.patches import Rectangle
        ax.add_patch(Rectangle((xl.index(dx) - 0.5, yl.index(dy) - 0.5), 1, 1, fill=False, edgecolor="#2e8b57",
                               lw=2.5, label="default"))
    ax.set_xlabel(px + (f"  (default {dx})" if dx is not None else ""))
    ax.set_ylabel(py + (f"  (default {dy})" if dy is not None else ""))
    ax.set_title(f"{metric.replace('_', ' ')}" + (" (* = CI excludes 0)" if diverging else ""))
    ax.figure.colorbar(im, ax=ax, shrink=0.85)
    return ax


def target_2d6_dice(table: dict, ax):
    """Dice model "2d6_target": exact P(success) of a 2d6 attack by modifier; table = {modifier: Fraction}."""
    mods = sorted(table)
    p = np.array([float(table[m]) for m in mods])
    ax.bar(mods, p * 100, color="#7d5ba6")
    for m, f in zip(mods, (table[m] for m in mods)):
        ax.annotate(f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator),
                    (m, float(f) * 100), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=8,
                    rotation=90)
    ax.set_xticks(mods)
    ax.set_ylim(0, 112)
    ax.set_xlabel("modifier = (attack + bonuses) - (defense + bonuses)")
    ax.set_ylabel("P(success) %")
    ax.set_title("Exact 2d6 attack success (2 fails, 12 succeeds)")
    return ax


def opposed_d6_dice(table: dict, ax):
    """Dice model "opposed_d6": exact P(attacker wins) by modifier difference; table = {diff: Fraction}."""
    diffs = sorted(table)
    p = np.array([float(table[d]) for d in diffs])
    ax.plot(diffs, p * 100, "o-", color="#a04000")
    ax.axhline(50, color="black", lw=0.6, ls=":")
    for d, f in zip(diffs, (table[d] for d in diffs)):
        ax.annotate(f"{float(f) * 100:.0f}%", (d, float(f) * 100), textcoords="offset points", xytext=(0, 6),
                    ha="center", fontsize=8)
    ax.set_xticks(diffs)
    ax.set_ylim(-5, 110)
    ax.set_xlabel("modifier difference (attacker - defender)")
    ax.set_ylabel("P(attacker wins) %")
    ax.set_title("Exact opposed d6 (ties re-rolled)")
    return ax


def cell_bars(data, ax):
    """Generic fallback for a board: the busiest cells as bars; data = (labels, counts, what)."""
    labels, counts, what = data
    counts = np.asarray(counts, dtype=float)
    order = np.argsort(-counts, kind="stable")[:30]
    ax.bar(range(len(order)), counts[order], color=SIDE[0])
    ax.set_xticks(range(len(order)), [str(labels[i]) for i in order], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel(what)
    ax.set_title(f"{what} by cell (busiest {len(order)})")
    return ax


def end_shares(data, ax):
    """How games end per setting: one stacked bar per setting of its games' end-reason shares, the
    game's cap reasons in red shades; data = (labels, {reason: [share per setting]}, caps)."""
    labels, shares, caps = data
    y = np.arange(len(labels))[::-1]
    left = np.zeros(len(labels))
    blues = iter(["#3b6fb6", "#e08a2c", "#2e8b57", "#8e6bbf", "#17a2b8", "#b8860b", "#5d6d7e", "#d35400"])
    reds = iter(["#c0392b", "#e6736a", "#f1a9a0", "#922b21"])
    for r, v in shares.items():
        v = np.asarray(v, dtype=float) * 100
        color = next(reds, BAD) if r in caps else next(blues, DRAW)
        ax.barh(y, v, left=left, color=color, height=0.6, label=r.replace("_", " ") + (" (cap)" if r in caps else ""))
        for yi, lo, w in zip(y, left, v):
            if w >= 8:
                ax.text(lo + w / 2, yi, f"{w:.0f}%", ha="center", va="center", fontsize=8, color="white")
        left += v
    ax.set_yticks(y, labels, fontsize=8.5)
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of games")
    ax.set_title("How games end (red shades: the game's cap reasons)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=min(4, max(len(shares), 1)),
              frameon=False)
    return ax


def per_setting(data, ax):
    """One metric per setting with its 95% interval, the first setting (the reference) in grey and a
    dashed line at its value; data = (labels, [(estimate, lo, hi), ...], axis label)."""
    labels, est, what = data
    y = np.arange(len(labels))[::-1]
    v = [e[0] for e in est]
    colors = [DRAW] + [SIDE[0]] * (len(labels) - 1)
    ax.errorbar(v, y, xerr=_err(v, [e[1] for e in est], [e[2] for e in est]), fmt="none", ecolor="#333", capsize=4)
    ax.scatter(v, y, c=colors, zorder=3, s=40)
    if est:
        ax.axvline(v[0], color=DRAW, ls="--", lw=1)
    for yi, e in zip(y, v):
        ax.annotate(f"{e:,.1f}", (e, yi), textcoords="offset points", xytext=(0, 7), ha="center", fontsize=8)
    ax.set_yticks(y, labels, fontsize=8.5)
    ax.set_ylim(-0.7, len(labels) - 0.3)
    ax.set_xlabel(what)
    ax.grid(axis="x", alpha=0.3)
    return ax
