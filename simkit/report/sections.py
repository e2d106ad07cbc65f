"""One report section per input directory: its figures (PNG), tables (CSV) and findings.

A section builder writes its files into the report directory and returns a
``Section`` (plain data); ``html.py`` renders sections to HTML.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from simkit.games import find_game  # noqa: E402
from simkit.report import boards, findings, fmt, plots  # noqa: E402
from simkit.report import data as rdata  # noqa: E402

# Figures are drawn at 2x the pixels they are shown at: the page shows a figure at DISPLAY_PPI CSS
# pixels per inch of its matplotlib size (html.py sets the <img> width), so a font of MIN_FONT_PT
# points is MIN_FONT_PT * DISPLAY_PPI / 72 = 10.4 CSS px on the page, and the PNG holds
# SCALE device pixels per CSS pixel (sharp on a high-density screen).
DISPLAY_PPI = 100
SCALE = 2
DPI = DISPLAY_PPI * SCALE
MIN_FONT_PT = 7.5
MAX_PX = 2000          # a PNG never wider or taller than this (the DPI drops for a huge figure)
STYLE = {"font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9, "xtick.labelsize": 8.5,
         "ytick.labelsize": 8.5, "legend.fontsize": 8.5, "figure.titlesize": 10}


@dataclass
class Figure:
    key: str
    file: str
    caption: str
    width_px: int | None = None       # the width the page shows it at (CSS px); None: natural


def small_texts(fig, min_pt: float = MIN_FONT_PT) -> list[str]:
    """Visible texts of ``fig`` smaller than ``min_pt`` points (below 10 px on the page)."""
    from matplotlib.text import Text
    return [f"{t.get_text()!r} at {t.get_fontsize():.1f} pt" for t in fig.findobj(Text)
            if t.get_visible() and t.get_text().strip() and t.get_fontsize() < min_pt - 1e-9]


def clipped_texts(fig, bbox=None) -> list[str]:
    """Visible texts of ``fig`` that reach outside ``bbox`` (inches; default the figure), i.e. that
    a saved image would cut."""
    from matplotlib.text import Text
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    if bbox is None:
        bbox = fig.bbox_inches
    # tick labels matplotlib does not draw (their tick lies outside the axis' view) do not count
    hidden = set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
                    hidden |= {id(tick.label1), id(tick.label2)}
    out = []
    for t in fig.findobj(Text):
        if not t.get_visible() or not t.get_text().strip() or id(t) in hidden:
            continue
        e = t.get_window_extent(r).transformed(fig.dpi_scale_trans.inverted())
        tol = 0.01
        if e.x0 < bbox.x0 - tol or e.y0 < bbox.y0 - tol or e.x1 > bbox.x1 + tol or e.y1 > bbox.y1 + tol:
            out.append(repr(t.get_text()))
    return out


@dataclass
class Table:
    caption: str
    file: str
    frame: pd.DataFrame
    options: tuple = ()       # columns holding rule option values (printed as --set takes them)
    note: str = ""            # why a cell is "—" (shown under the table when one is)


@dataclass
class Section:
    anchor: str
    title: str
    subtitle: str = ""
    description: str = ""
    facts: list[tuple[str, str]] = field(default_factory=list)   # (label, value) shown as a small table
    rules: dict | None = None
    figures: list[Figure] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    findings: list[findings.Finding] = field(default_factory=list)
    length_unit: str = "plies"   # the game's: table headers and metrics say turns or plies


def _raise_small_fonts(fig):
    from matplotlib.text import Text
    for t in fig.findobj(Text):
        if t.get_fontsize() < MIN_FONT_PT:
            t.set_fontsize(MIN_FONT_PT)


class Writer:
    """Saves figures and tables into the report directory under a per-section prefix."""

    def __init__(self, out: Path, prefix: str):
        self.out, self.prefix = out, prefix

    def figure(self, section: Section, key: str, fn, data, caption: str, size=(7.5, 3.6)):
        with plt.rc_context(STYLE):
            fig, ax = plt.subplots(figsize=size, layout="constrained")
            try:
                fn(data, ax)
                _raise_small_fonts(fig)      # a plot's too-small text still reads at 10 px on the page
                # every label inside the image: the saved area grows to the artists' tight box
                fig.canvas.draw()
                box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.06)
                dpi = min(DPI, MAX_PX / max(box.width, box.height))
                name = f"{self.prefix}{key}.png"
                tmp = self.out / f".{name}.tmp.png"
                fig.savefig(tmp, dpi=dpi, bbox_inches=box)
                os.replace(tmp, self.out / name)
            finally:
                plt.close(fig)
        section.figures.append(Figure(key, name, caption, width_px=round(box.width * DISPLAY_PPI)))

    def table(self, section: Section, key: str, frame: pd.DataFrame, caption: str, options=(), note: str = ""):
        """The CSV keeps machine-readable numbers; its column names say the game's length unit
        (mean_turns for a turn-based game), and the HTML shows the report's number formats."""
        name = f"{self.prefix}{key}.csv"
        tmp = self.out / f".{name}.tmp"
        out = frame.rename(columns=lambda c: fmt.with_unit(str(c), section.length_unit))
        if "metric" in out.columns:
            out["metric"] = out["metric"].map(lambda m: fmt.with_unit(str(m), section.length_unit))
        for c in out.columns:          # booleans as --set takes them (true/false), not Python's True
            if out[c].dtype == bool or c in options:
                out[c] = out[c].map(fmt.option_value)
        out.to_csv(tmp, index=False)
        os.replace(tmp, self.out / name)
        section.tables.append(Table(caption, name, frame, tuple(options), note))


def _summary_frame(s: dict) -> pd.DataFrame:
    """The run's headline metrics, long: metric, value, ci_lo, ci_hi (the length in its unit)."""
    rows = []
    for key in ("first_player_win_rate", "second_player_win_rate", "draw_rate", "side0_win_rate",
                "side1_win_rate", "first_player_advantage"):
        if key in s:
            lo, hi = s.get(f"{key}_ci") or [math.nan, math.nan]
            rows.append({"metric": key, "value": s[key], "ci_lo": lo, "ci_hi": hi})
    for key in ("decided_first_win_share", "decisiveness", "mean_plies"):
        if key in s:
            lo, hi = s.get(f"{key}_ci") or [math.nan, math.nan]
            rows.append({"metric": key, "value": s[key], "ci_lo": lo, "ci_hi": hi})
    return pd.DataFrame(rows, columns=["metric", "value", "ci_lo", "ci_hi"])


def dice_figure(w: Writer, sec: Section, game: str):
    """The exact odds of the game's dice model (``spec.dice``), if it declares one."""
    from simkit.engine import dice
    spec = find_game(game)
    if spec is None:
        return
    if spec.dice == "2d6_target":
        table = dice.EXACT_TABLES[spec.dice]()
        w.figure(sec, "dice", plots.target_2d6_dice, table,
                 f"Exact probability that a {spec.title} attack succeeds, "
                 "by modifier (2d6 <= 3 + modifier; natural 2 fails, natural 12 succeeds).")
        w.table(sec, "dice", pd.DataFrame({"modifier": list(table), "p_success": [float(v) for v in table.values()],
                                           "exact": [str(v) for v in table.values()]}), "Exact attack success")
    elif spec.dice == "opposed_d6":
        table = dice.EXACT_TABLES[spec.dice]()
        w.figure(sec, "dice", plots.opposed_d6_dice, table,
                 f"Exact probability that the attacker wins a {spec.title} "
                 "opposed d6 roll, by modifier difference (ties re-rolled).")
        w.table(sec, "dice", pd.DataFrame({"difference": list(table), "p_attacker_wins":
                                           [float(v) for v in table.values()],
                                           "exact": [str(v) for v in table.values()]}), "Exact opposed-roll odds")


def board_size(game: str, n: int):
    spec = find_game(game)
    return (spec and spec.board_figsize) or ((7.5, 6.4) if n > 40 else (7.5, 3.8))


def run_section(run, w: Writer, anchor: str) -> Section:
    s = run.summary
    label = f"{run.title}: {run.variant}"
    sec = Section(anchor, label, subtitle=run.context,
                  description=str(run.scenario.get("description") or ""), rules=run.rules or None,
                  length_unit=run.length_unit)
    cfg = run.config
    sec.facts = [("game", run.title), ("variant", run.variant), ("games", fmt.count(s.get("games") or 0)),
                 ("policies", " vs ".join(run.policies) or "?"),
                 ("first player", str(cfg.get("first", "?"))), ("seed", str(cfg.get("seed", s.get("seed", "?")))),
                 ("status", str(run.manifest.get("status", "?"))),
                 *_evaluation_facts((("evaluation", run.manifest.get("scenario")),)), ("directory", str(run.path))]
    if s.get("games"):
        w.figure(sec, "outcomes", plots.outcomes, s, f"{label} ({run.context}): win, draw and loss rates by side "
                 "and by first player, with Wilson 95% intervals.", size=(7.5, 3.8))
        lo, hi = s.get("first_player_advantage_ci") or [math.nan, math.nan]
        w.figure(sec, "fpa", plots.fpa, [(run.variant, s["first_player_advantage"], lo, hi)],
                 f"{label} ({run.context}): first-player advantage (the first player's expected score minus ½) "
                 "with its 95% interval.", size=(7.5, 1.9))
        w.table(sec, "summary", _summary_frame(s), f"Summary metrics with 95% intervals: {label} ({run.context})",
                note=f"{fmt.MISSING}: no interval is computed for this metric")
    if run.games is not None and "plies" in run.games:
        plies = run.games["plies"].to_numpy()
        w.figure(sec, "lengths", plots.lengths, (plies, run.length_unit, run.length_cap()),
                 f"{label}: game length in {run.length_unit}, from games.parquet.")
        hist = np.bincount(plies.astype(np.int64))
        w.table(sec, "lengths", pd.DataFrame({run.length_unit: np.nonzero(hist)[0], "games": hist[hist > 0]}),
                f"Game-length histogram ({run.length_unit})")
    ends = s.get("end_reasons") or {}
    if ends:
        caps = getattr(find_game(run.game), "cap_reasons", ())
        w.figure(sec, "ends", lambda e, ax: plots.end_reasons(e, ax, caps), ends,
                 f"{label}: how games end; endings at a cap (or stalemate) in red.",
                 size=(7.5, 0.9 + 0.4 * len(ends)))
        w.table(sec, "end_reasons", pd.DataFrame({"reason": list(ends), "games": list(ends.values())}),
                "End reasons")
    units = run.units()
    if not units.empty:
        w.figure(sec, "units", plots.unit_stats, units, f"{label}: kills made and losses suffered per game by unit "
                 "type and side (solid: kills, hatched: losses), with 95% intervals.", size=(8, 3.8))
        w.table(sec, "units", units, "Per-unit statistics per game (mean, 95% interval, total)")
    if run.aggregate is not None and len(run.aggregate):
        what = _aggregate_label(run)
        games = int(s.get("games") or 0)
        counts = run.aggregate["count"].to_numpy(dtype=float)
        # per game, not summed: boards of runs of different sizes read alike
        data = boards.BoardData([str(c) for c in run.aggregate["cell"]], counts / max(games, 1), run.rules,
                                f"{what} per game")
        w.figure(sec, "board", lambda d, ax: boards.draw(run.game, d, ax), data,
                 f"{label}: {what} per game on the board (aggregate.csv divided by the {fmt.count(games)} games).",
                 size=board_size(run.game, len(data.labels)))
        agg = run.aggregate.copy()
        agg["per_game"] = counts / max(games, 1)
        w.table(sec, "aggregate", agg, f"{what} per cell: total over {fmt.count(games)} games and per game")
    dice_figure(w, sec, run.game)
    sec.findings = findings.run_findings(run)
    return sec


def _aggregate_label(run) -> str:
    try:
        from simkit.games import get_game
        return get_game(run.game).aggregate_label
    except Exception:
        return "count"


def evaluation_fact(sc: dict | None) -> str | None:
    """The players' evaluation a manifest's scenario records (simkit learn): None for a game without one."""
    if not isinstance(sc, dict):
        return None
    learned = sc.get("learned_evaluation")
    choice = (sc.get("rules") or {}).get("evaluation")
    if choice is None:
        return None
    if learned and choice != "default":
        return learned.get("describe") or "learned"
    return "default (the rules' hand-set weights)"


def _evaluation_facts(pairs) -> list:
    return [(label, text) for label, text in ((lab, evaluation_fact(sc)) for lab, sc in pairs) if text]


def compare_section(cmp, w: Writer, anchor: str) -> Section:
    la, lb = cmp.labels()
    sa, sb = cmp.summaries()
    ctx = cmp.context
    sec = Section(anchor, f"Compare: {la} vs {lb}", subtitle=f"A = {la}, B = {lb}; {ctx}; differences are B - A",
                  description=str(cmp.compare.get("verdict") or ""), length_unit=cmp.length_unit)
    cfg = cmp.manifest.get("config") or {}
    sec.facts = [("A", la), ("B", lb), ("policies", " vs ".join(cfg.get("policies") or sa.get("policies") or [])
                                        or "?"),
                 ("first player", str(cfg.get("first", "?"))), ("seed", str(cfg.get("seed", sa.get("seed", "?")))),
                 ("games A", fmt.count(sa.get("games") or 0)), ("games B", fmt.count(sb.get("games") or 0)),
                 *_evaluation_facts((("evaluation A", cmp.manifest.get("a")), ("evaluation B", cmp.manifest.get("b")))),
                 ("directory", str(cmp.path))]
    if sa and sb:
        w.figure(sec, "rates", plots.compare_rates, ((la, sa), (lb, sb)),
                 f"A = {la}, B = {lb} ({ctx}): win and draw rates side by side with Wilson 95% intervals.",
                 size=(8, 3.8))
        rows = [(la, sa.get("first_player_advantage"), *(sa.get("first_player_advantage_ci") or [math.nan] * 2)),
                (lb, sb.get("first_player_advantage"), *(sb.get("first_player_advantage_ci") or [math.nan] * 2))]
        if all(r[1] is not None for r in rows):
            w.figure(sec, "fpa", plots.fpa, rows, f"First-player advantage of A = {la} and B = {lb} ({ctx}), "
                     "95% CI.", size=(7.5, 2.4))
    diffs = cmp.differences()
    if len(diffs):
        # rates and FPA share one scale; lengths (plies, turns) get their own panel
        other = diffs["metric"].str.contains("plies|turns|length") | (diffs["difference"].abs() > 1)
        for key, part, what in (("differences", diffs[~other], "rates and first-player advantage"),
                                ("differences_length", diffs[other], f"game length ({cmp.length_unit})")):
            if len(part):
                w.figure(sec, key, plots.compare_differences, part,
                         f"Differences B - A in {what}, B = {lb}, A = {la} ({ctx}), with 95% intervals and p-values "
                         f"(compare.json).", size=(7.5, 1.2 + 0.45 * len(part)))
        w.table(sec, "differences", diffs, f"Differences B - A (B = {lb}, A = {la}; {ctx})")
    ends = cmp.side_effects()
    if len(ends):
        w.figure(sec, "side_effects", plots.compare_differences, ends,
                 f"How games end, B - A (B = {lb}, A = {la}; {ctx}): the share of games stopped at a cap and of each "
                 f"end reason, paired on the same games, 95% intervals; red: the change matters after Holm's "
                 f"correction over these.", size=(7.5, 1.2 + 0.45 * len(ends)))
        w.table(sec, "side_effects", ends, f"How games end: B - A, paired (B = {lb}, A = {la}; {ctx}); p_holm over "
                "these rows")
    sec.findings = findings.compare_findings(cmp)
    return sec


def sweep_section(sw, w: Writer, anchor: str) -> Section:
    base = fmt.game_variant(sw.title, sw.name, sw.base_overrides)
    ctx = sw.context
    default = sw.default_setting
    sec = Section(anchor, f"Sweep of {base} over {', '.join(sw.params)}", subtitle=ctx,
                  length_unit=sw.length_unit)
    cfg = sw.manifest.get("config") or {}
    sec.facts = [("game", sw.title), ("base variant", fmt.variant(sw.name, sw.base_overrides)),
                 ("varied", ", ".join(sw.params) or "?"),
                 ("default", ", ".join(fmt.setting(k, v) for k, v in default.items()) or "?"),
                 ("settings", str(len(sw.table))), ("policies", " vs ".join(cfg.get("policies") or []) or "?"),
                 ("first player", str(cfg.get("first", "?"))), ("seed", str(cfg.get("seed", "?"))),
                 ("games per cell", ", ".join(sorted({fmt.count(g) for g in sw.table["games"]}))
                  if "games" in sw.table else "?"), ("directory", str(sw.path))]
    metrics = sw.metrics()
    for m in metrics[:4]:
        what = fmt.metric_label(m, sw.length_unit)
        if len(sw.params) == 1:
            k = sw.params[0]
            w.figure(sec, f"sweep_{m}", plots.sweep_lines, (sw.table, k, m, default.get(k)),
                     f"{base}: {what} against {k}, with its 95% band ({ctx})"
                     + (f"; the default {fmt.setting(k, default[k])} marked." if k in default else "."))
        elif len(sw.params) >= 2:
            px, py = sw.params[0], sw.params[1]
            w.figure(sec, f"sweep_{m}", plots.sweep_heatmap, (sw.table, px, py, m, default),
                     f"{base}: {what} over {px} and {py}" + (" (averaged over the other varied keys)"
                                                              if len(sw.params) > 2 else "")
                     + f" ({ctx})" + ("; the default cell outlined." if px in default and py in default else "."),
                     size=(7.5, 4.8))
    ends = sw.end_shares()
    if ends:
        cells = [findings._sweep_at(sw, i) for i in sw.table.index]
        caps = getattr(find_game(sw.game), "cap_reasons", ())
        w.figure(sec, "sweep_ends", plots.end_shares, (cells, ends, caps),
                 f"{base}: how games end in each cell, the share of its games by end reason ({ctx}; the intervals "
                 f"are in the sweep table: end_<reason>_ci_lo, _ci_hi).", size=(7.5, 1.6 + 0.32 * len(cells)))
    w.table(sec, "sweep", sw.table, f"Sweep results: {base} ({ctx})", options=tuple(sw.params))
    sec.findings = findings.sweep_findings(sw)
    return sec


def values_section(v, w: Writer, anchor: str) -> Section:
    sec = Section(anchor, f"Unit values: {v.label}", subtitle=v.context)
    cfg = (v.manifest or {}).get("config") or {}
    sec.facts = [("methods", ", ".join(map(str, dict.fromkeys(v.table["method"]))))]
    unit = rdata.length_unit_of(v.game)
    names = {"snapshot_ply": f"snapshot {fmt.unit_singular(unit)}", "games": "games per run"}
    sec.facts += [(names.get(k, k), " vs ".join(map(str, v.meta[k])) if isinstance(v.meta[k], list)
                   else fmt.count(v.meta[k]) if isinstance(v.meta[k], int) and k == "games" else str(v.meta[k]))
                  for k in ("game", "games", "policies", "snapshot_ply") if k in v.meta]
    sec.facts += [(label, str(cfg[k])) for k, label in (("first", "first player"), ("seed", "seed")) if k in cfg]
    sec.facts += _evaluation_facts((("evaluation", (v.manifest or {}).get("scenario")),))
    sec.facts.append(("directory", str(v.path)))
    for i, (method, sub) in enumerate(v.table.groupby("method", sort=False)):
        measure = v.meta.get(f"{method}_measure")
        w.figure(sec, "values" if i == 0 else f"values_{i}", plots.unit_values, sub,
                 f"{v.label}: unit values by {method} with 95% intervals ({v.context})"
                 + (f": {measure}." if measure else "."),
                 size=(7.5, 3.4))
    w.table(sec, "values", v.table, "Unit values")
    sec.findings = findings.values_findings(v)
    return sec


BUILDERS = {"run": run_section, "compare": compare_section, "sweep": sweep_section, "values": values_section}

from simkit.report import skill_sections  # noqa: E402

BUILDERS.update(skill_sections.BUILDERS)

from simkit.report import quality_sections  # noqa: E402

quality_sections.hook(BUILDERS)   # compare/sweep --quality: a Game quality section after theirs
