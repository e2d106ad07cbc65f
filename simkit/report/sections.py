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
from simkit.report import boards, findings, plots  # noqa: E402

DPI = 100


@dataclass
class Figure:
    key: str
    file: str
    caption: str


@dataclass
class Table:
    caption: str
    file: str
    frame: pd.DataFrame


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


class Writer:
    """Saves figures and tables into the report directory under a per-section prefix."""

    def __init__(self, out: Path, prefix: str):
        self.out, self.prefix = out, prefix

    def figure(self, section: Section, key: str, fn, data, caption: str, size=(7.5, 3.6)):
        fig, ax = plt.subplots(figsize=size)
        try:
            fn(data, ax)
            fig.tight_layout()
            name = f"{self.prefix}{key}.png"
            tmp = self.out / f".{name}.tmp.png"
            fig.savefig(tmp, dpi=DPI)
            os.replace(tmp, self.out / name)
        finally:
            plt.close(fig)
        section.figures.append(Figure(key, name, caption))

    def table(self, section: Section, key: str, frame: pd.DataFrame, caption: str):
        name = f"{self.prefix}{key}.csv"
        tmp = self.out / f".{name}.tmp"
        frame.to_csv(tmp, index=False)
        os.replace(tmp, self.out / name)
        section.tables.append(Table(caption, name, frame))


def _summary_frame(s: dict) -> pd.DataFrame:
    rows = []
    for key in ("first_player_win_rate", "second_player_win_rate", "draw_rate", "side0_win_rate",
                "side1_win_rate", "first_player_advantage"):
        if key in s:
            lo, hi = s.get(f"{key}_ci") or [math.nan, math.nan]
            rows.append({"metric": key, "value": s[key], "ci_lo": lo, "ci_hi": hi})
    for key in ("decided_first_win_share", "decisiveness", "mean_plies"):
        if key in s:
            rows.append({"metric": key, "value": s[key], "ci_lo": math.nan, "ci_hi": math.nan})
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
    sec = Section(anchor, f"{run.title}: {run.name}", subtitle=" vs ".join(run.policies),
                  description=str(run.scenario.get("description") or ""), rules=run.rules or None)
    cfg = run.manifest.get("config") or {}
    sec.facts = [("games", f"{int(s.get('games') or 0):,}"), ("policies", " vs ".join(run.policies) or "?"),
                 ("first player", str(cfg.get("first", "?"))), ("seed", str(cfg.get("seed", s.get("seed", "?")))),
                 ("status", str(run.manifest.get("status", "?"))), ("directory", str(run.path))]
    if s.get("games"):
        w.figure(sec, "outcomes", plots.outcomes, s, "Win, draw and loss rates by side and by first player, "
                 "with Wilson 95% intervals.", size=(7.5, 3.8))
        lo, hi = s.get("first_player_advantage_ci") or [math.nan, math.nan]
        w.figure(sec, "fpa", plots.fpa, [(run.name, s["first_player_advantage"], lo, hi)],
                 "First-player advantage (the first player's expected score minus ½) with its 95% interval.",
                 size=(7.5, 1.9))
        w.table(sec, "summary", _summary_frame(s), "Summary metrics with 95% intervals")
    if run.games is not None and "plies" in run.games:
        plies = run.games["plies"].to_numpy()
        w.figure(sec, "lengths", plots.lengths, (plies, run.length_unit, run.length_cap()),
                 f"Game length in {run.length_unit}, from games.parquet.")
        hist = np.bincount(plies.astype(np.int64))
        w.table(sec, "lengths", pd.DataFrame({run.length_unit: np.nonzero(hist)[0], "games": hist[hist > 0]}),
                "Game-length histogram")
    ends = s.get("end_reasons") or {}
    if ends:
        caps = getattr(find_game(run.game), "cap_reasons", ())
        w.figure(sec, "ends", lambda e, ax: plots.end_reasons(e, ax, caps), ends,
                 "How games end; endings at a cap (or stalemate) in red.",
                 size=(7.5, 0.9 + 0.4 * len(ends)))
        w.table(sec, "end_reasons", pd.DataFrame({"reason": list(ends), "games": list(ends.values())}),
                "End reasons")
    units = run.units()
    if not units.empty:
        w.figure(sec, "units", plots.unit_stats, units, "Kills made and losses suffered per game by unit type and "
                 "side (solid: kills, hatched: losses), with 95% intervals.", size=(8, 3.8))
        w.table(sec, "units", units, "Per-unit statistics per game (mean, 95% interval, total)")
    if run.aggregate is not None and len(run.aggregate):
        what = _aggregate_label(run)
        data = boards.BoardData([str(c) for c in run.aggregate["cell"]], run.aggregate["count"].to_numpy(),
                                run.rules, what)
        w.figure(sec, "board", lambda d, ax: boards.draw(run.game, d, ax), data,
                 f"{what.capitalize()} on the board, summed over all games (aggregate.csv).",
                 size=board_size(run.game, len(data.labels)))
        w.table(sec, "aggregate", run.aggregate, f"{what} per cell")
    dice_figure(w, sec, run.game)
    sec.findings = findings.run_findings(run)
    return sec


def _aggregate_label(run) -> str:
    try:
        from simkit.games import get_game
        return get_game(run.game).aggregate_label
    except Exception:
        return "count"


def compare_section(cmp, w: Writer, anchor: str) -> Section:
    la, lb = cmp.labels()
    sa, sb = cmp.summaries()
    sec = Section(anchor, f"Compare: {la} vs {lb}", subtitle=f"A = {la}, B = {lb}; differences are B - A",
                  description=str(cmp.compare.get("verdict") or ""))
    sec.facts = [("A", la), ("B", lb), ("games A", f"{int(sa.get('games') or 0):,}"),
                 ("games B", f"{int(sb.get('games') or 0):,}"), ("directory", str(cmp.path))]
    if sa and sb:
        w.figure(sec, "rates", plots.compare_rates, ((la, sa), (lb, sb)),
                 "Both variants side by side: win and draw rates with Wilson 95% intervals.", size=(8, 3.8))
        rows = [(la, sa.get("first_player_advantage"), *(sa.get("first_player_advantage_ci") or [math.nan] * 2)),
                (lb, sb.get("first_player_advantage"), *(sb.get("first_player_advantage_ci") or [math.nan] * 2))]
        if all(r[1] is not None for r in rows):
            w.figure(sec, "fpa", plots.fpa, rows, "First-player advantage of both variants (95% CI).",
                     size=(7.5, 2.4))
    diffs = cmp.differences()
    if len(diffs):
        # rates and FPA share one scale; lengths (plies, turns) get their own panel
        other = diffs["metric"].str.contains("plies|turns|length") | (diffs["difference"].abs() > 1)
        for key, part, what in (("differences", diffs[~other], "rates and first-player advantage"),
                                ("differences_length", diffs[other], "game length")):
            if len(part):
                w.figure(sec, key, plots.compare_differences, part,
                         f"Differences B - A in {what}, with 95% intervals and p-values (compare.json).",
                         size=(7.5, 1.2 + 0.45 * len(part)))
        w.table(sec, "differences", diffs, "Differences B - A")
    sec.findings = findings.compare_findings(cmp)
    return sec


def sweep_section(sw, w: Writer, anchor: str) -> Section:
    sec = Section(anchor, f"Sweep: {sw.name}", subtitle=" x ".join(sw.params))
    sec.facts = [("varied", ", ".join(sw.params) or "?"), ("settings", str(len(sw.table))),
                 ("directory", str(sw.path))]
    metrics = sw.metrics()
    for m in metrics[:4]:
        if len(sw.params) == 1:
            w.figure(sec, f"sweep_{m}", plots.sweep_lines, (sw.table, sw.params[0], m),
                     f"{m.replace('_', ' ')} against {sw.params[0]}, with its 95% band.")
        elif len(sw.params) >= 2:
            px, py = sw.params[0], sw.params[1]
            w.figure(sec, f"sweep_{m}", plots.sweep_heatmap, (sw.table, px, py, m),
                     f"{m.replace('_', ' ')} over {px} and {py}" + (" (averaged over the other varied keys)"
                                                                     if len(sw.params) > 2 else "") + ".",
                     size=(7.5, 4.8))
    w.table(sec, "sweep", sw.table, "Sweep results")
    sec.findings = findings.sweep_findings(sw)
    return sec


def values_section(v, w: Writer, anchor: str) -> Section:
    sec = Section(anchor, f"Unit values: {v.name}")
    sec.facts = [("methods", ", ".join(map(str, dict.fromkeys(v.table["method"]))))]
    sec.facts += [(k.replace("_", " "), ", ".join(map(str, v.meta[k])) if isinstance(v.meta[k], list)
                   else f"{v.meta[k]:,}" if isinstance(v.meta[k], int) else str(v.meta[k]))
                  for k in ("game", "games", "policies", "snapshot_ply") if k in v.meta]
    sec.facts.append(("directory", str(v.path)))
    for i, (method, sub) in enumerate(v.table.groupby("method", sort=False)):
        measure = v.meta.get(f"{method}_measure")
        w.figure(sec, "values" if i == 0 else f"values_{i}", plots.unit_values, sub,
                 f"Unit values by {method} with 95% intervals" + (f": {measure}." if measure else "."),
                 size=(7.5, 3.4))
    w.table(sec, "values", v.table, "Unit values")
    sec.findings = findings.values_findings(v)
    return sec


BUILDERS = {"run": run_section, "compare": compare_section, "sweep": sweep_section, "values": values_section}

from simkit.report import skill_sections  # noqa: E402

BUILDERS.update(skill_sections.BUILDERS)

from simkit.report import quality_sections  # noqa: E402

quality_sections.hook(BUILDERS)   # compare/sweep --quality: a Game quality section after theirs
