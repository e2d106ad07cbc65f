"""Report sections for the skill commands: ladder, run --skill and matchup directories.

Each loader reads a directory's JSON (the files the commands write); each builder
draws its figures with pure ``(data, ax)`` plot functions defined here and returns
a ``sections.Section``. Labels carry the game, scenario, policies, seed and games.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.report import fmt
from simkit.report.findings import Finding
from simkit.report.learn_section import LearnData, learn_section
from simkit.report.plots import BAD, _err, end_shares, per_setting


def _json(p: Path) -> dict:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


def _scenario_label(manifest: dict) -> str:
    """The variant: its scenario name with its --set overrides, values as --set takes them."""
    sc = manifest.get("scenario") or {}
    name = sc.get("name", "?") if isinstance(sc, dict) else str(sc)
    over = sc.get("overrides") if isinstance(sc, dict) else None
    return fmt.variant(name, over)


def _game_label(d) -> str:
    """'<Game title>: <variant with its overrides>' (fmt.game_variant)."""
    from simkit.report.data import title_of
    sc = d.manifest.get("scenario") or {}
    game = d.data.get("game") or (sc.get("game") if isinstance(sc, dict) else None) or "?"
    return f"{title_of(game)}: {_scenario_label(d.manifest)}"


def _context(d, games=None, what="games") -> str:
    cfg = d.manifest.get("config") or {}
    return fmt.context(cfg.get("policies"), cfg.get("first"), cfg.get("seed"), games, what)


@dataclass
class LadderData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "ladder"


@dataclass
class SkillData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "skill"


@dataclass
class MatchupData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "matchup"


@dataclass
class TuneData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "tune"


@dataclass
class SensitivityData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "sensitivity"


@dataclass
class QualityData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "quality"


@dataclass
class LuckData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "luck"


LOADERS = {"luck": ("luck.json", LuckData), "learn": ("learn.json", LearnData),
           "quality": ("quality.json", QualityData), "sensitivity": ("sensitivity.json", SensitivityData),
           "ladder": ("ladder.json", LadderData), "skill": ("skill.json", SkillData),
           "matchup": ("matchup.json", MatchupData), "tune": ("tune.json", TuneData)}


def load(path: Path, kind: str | None):
    """The directory's data if it is a ladder, skill or matchup directory, else None."""
    for k, (fname, cls) in LOADERS.items():
        if kind == k or (kind is None and (path / fname).exists()):
            if not (path / fname).exists():
                from simkit.errors import UsageError
                raise UsageError(f"{path}: a {k} directory without {fname} (did the command finish?)")
            return cls(path, _json(path / "manifest.json"), _json(path / fname))
    return None


# ---- plots ----------------------------------------------------------------------------------

def ladder_plot(steps, ax):
    """Each rung's score against the rung below, with its 95% interval; 1/2 = no gain."""
    x = np.arange(len(steps))
    v = [s["score"] for s in steps]
    lo = [s["ci"][0] for s in steps]
    hi = [s["ci"][1] for s in steps]
    colors = ["#2e8b57" if s["ci"][0] > 0.5 else BAD for s in steps]
    ax.errorbar(x, v, yerr=_err(v, lo, hi), fmt="none", ecolor="#444", capsize=4)
    ax.scatter(x, v, c=colors, zorder=3, s=40)
    ax.axhline(0.5, color="#888", lw=1, ls="--")
    ax.set_xticks(x, [f"{s['rung']}\nvs {s['below']}" for s in steps], fontsize=9)
    ax.set_ylabel("score vs rung below")
    ax.set_ylim(min(0.35, min(lo) - 0.05), 1.02)
    ax.grid(axis="y", alpha=0.3)
    return ax


def ratings_plot(table, ax):
    """Each player's Elo rating (anchor 0) with its 95% interval, weakest first."""
    x = np.arange(len(table))
    v = table["elo"].to_numpy()
    ax.errorbar(x, v, yerr=_err(v, table["ci_lo"].to_numpy(), table["ci_hi"].to_numpy()), fmt="o",
                color="#3b6fb6", ecolor="#444", capsize=4)
    ax.axhline(0, color="#888", lw=1, ls="--")
    ax.set_xticks(x, list(table["player"]), fontsize=9)
    ax.set_ylabel("Elo (anchor = 0)")
    ax.grid(axis="y", alpha=0.3)
    return ax


def _ratings_part(sec, w, summary: dict, order):
    """Every player on one Elo scale (analysis/ratings.py): a plot, a table and the findings."""
    from simkit.analysis.ratings import fit, pairs_of_summary
    try:
        r = fit(pairs_of_summary(summary), order=order)
    except ValueError as e:      # players that never met: no common scale
        sec.findings.append(Finding(f"No ratings: {e}.", None, True))
        return
    tab = r.table()
    w.figure(sec, "ratings", ratings_plot, tab, f"Elo ratings on one scale, {r.anchor} = 0, with 95% intervals "
             "(logistic Elo, draws as half points, one virtual draw per pair as the prior).", size=(7.5, 3.0))
    w.table(sec, "ratings", tab, "Ratings")
    est, lo, hi = r.span()
    sec.findings.append(Finding(f"Skill span: {r.strongest} is {est:.0f} Elo [{lo:.0f}, {hi:.0f}] above "
                                f"{r.anchor}.", "ratings"))
    dbl = r.per_doubling()
    if dbl:
        sec.findings.append(Finding(f"Each doubling of the {dbl['policy']} budget gains {dbl['elo_per_doubling']:.0f} "
                                    f"Elo [{dbl['ci'][0]:.0f}, {dbl['ci'][1]:.0f}] (budgets "
                                    f"{', '.join(map(str, dbl['budgets']))}).", "ratings"))
    if r.separated:
        sec.findings.append(Finding(r.summary()["note"] + ".", "ratings", True))


def skill_lines(data, ax):
    """One metric over the skill levels, estimate and 95% interval at each level."""
    levels, metric, entry = data
    est = entry["estimates"]
    x = np.arange(len(levels))
    v = [e[0] for e in est]
    ax.errorbar(x, v, yerr=_err(v, [e[1] for e in est], [e[2] for e in est]), marker="o", capsize=4,
                color="#3b6fb6")
    if "advantage" in metric:
        ax.axhline(0.0, color="#888", lw=1, ls="--")
    ax.set_xticks(x, levels, fontsize=9)
    ax.set_ylabel(metric.replace("_", " "))
    ax.set_title(f"{metric.replace('_', ' ')}: {entry['verdict']}", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    return ax


def skill_side_lines(data, ax):
    """The side effects over the skill levels in one panel: the cap rate and each end reason's share
    (or their B - A), estimate and 95% interval at each level, one line per metric."""
    from simkit.analysis.side_effects import label
    levels, entries = data
    x = np.arange(len(levels))
    for k, (m, entry) in enumerate(entries.items()):
        est = entry["estimates"]
        v = np.array([e[0] for e in est]) * 100
        dx = (k - (len(entries) - 1) / 2) * 0.04          # side by side, so the intervals do not hide each other
        ax.errorbar(x + dx, v, yerr=_err(v, [e[1] * 100 for e in est], [e[2] * 100 for e in est]), marker="o",
                    capsize=3, label=f"{label(m)}: {entry['verdict']}")
    ax.set_xticks(x, levels, fontsize=9)
    ax.set_ylabel("% of games (or pp)")
    ax.set_title("How games end at each level", fontsize=10)
    ax.legend(fontsize=8, loc="best")
    ax.grid(axis="y", alpha=0.3)
    return ax


def matchup_heatmap(data, ax):
    pols, m = data
    im = ax.imshow(m, cmap="RdBu", vmin=0, vmax=1)
    ax.set_xticks(range(len(pols)), pols, fontsize=9, rotation=20)
    ax.set_yticks(range(len(pols)), pols, fontsize=9)
    for i in range(len(pols)):
        for j in range(len(pols)):
            if not math.isnan(m[i, j]):
                ax.text(j, i, fmt.score(m[i, j]), ha="center", va="center", fontsize=10,
                        color="white" if abs(m[i, j] - 0.5) > 0.3 else "black")
    ax.set_xlabel("opponent")
    ax.set_ylabel("policy (its score)")
    ax.figure.colorbar(im, ax=ax, fraction=0.04)
    return ax


# ---- sections -------------------------------------------------------------------------------

def _facts(d, extra):
    m = d.manifest
    cfg = m.get("config") or {}
    facts = [("game", str(d.data.get("game") or (m.get("scenario") or {}).get("game", "?"))),
             ("scenario", _scenario_label(m))]
    facts += extra
    facts += [("seed", str(cfg.get("seed", "?"))), ("first player", str(cfg.get("first", "?"))),
              ("directory", str(d.path))]
    return facts


def ladder_section(d: LadderData, w, anchor: str):
    from simkit.report.sections import Section
    s = d.data
    steps = s.get("steps") or []
    cfg = d.manifest.get("config") or {}
    sec = Section(anchor, f"Skill ladder: {_game_label(d)}",
                  subtitle=" < ".join(s.get("rungs") or []) + " · " + fmt.context(
                      None, cfg.get("first"), cfg.get("seed"), s.get("games_per_seating"), "games per seat order"))
    sec.facts = _facts(d, [("rungs", ", ".join(s.get("rungs") or [])),
                           ("games per seat order", f"{int(s.get('games_per_seating') or 0):,}"),
                           ("skill depth", str(s.get("skill_depth")))])
    if steps:
        w.figure(sec, "ladder", ladder_plot, steps, "Each rung's expected score against the rung below "
                 "(both seat orders, same seeds, 95% score interval); green: a significant gain.",
                 size=(7.5, 3.4))
        w.table(sec, "ladder", pd.DataFrame([{"rung": x["rung"], "below": x["below"], "score": x["score"],
                                              "ci_lo": x["ci"][0], "ci_hi": x["ci"][1],
                                              "draw_rate": x["draw_rate"]} for x in steps]), "Ladder")
    stop = s.get("first_rung_without_gain")
    sec.findings = [Finding(f"Skill depth {s.get('skill_depth')}: " + (
        f"{stop} is the first rung that does not beat the one below significantly." if stop
        else "every rung beats the one below significantly; raise --ceiling to find the top."), "ladder")]
    for x in steps:
        if x["ci"][1] < 0.5:
            sec.findings.append(Finding(f"{x['rung']} loses to the rung below ({x['below']}): {x['score']:.3f} "
                                        f"[{x['ci'][0]:.3f}, {x['ci'][1]:.3f}].", "ladder", True))
        for f in x.get("flags") or []:
            sec.findings.append(Finding(f, "ladder", True))
    if s.get("draw_diagnosis"):
        sec.findings.append(Finding(f"Draw diagnosis: {s['draw_diagnosis']['finding']}", "ladder", True))
    if steps:
        _ratings_part(sec, w, s, s.get("rungs") or [])
    return sec


def skill_section(d: SkillData, w, anchor: str):
    from simkit.report.sections import Section
    s = d.data
    levels = s.get("levels") or []
    cfg = d.manifest.get("config") or {}
    sec = Section(anchor, f"Over skill: {_game_label(d)}",
                  subtitle=" < ".join(levels) + " · " + fmt.context(None, cfg.get("first"), cfg.get("seed"),
                                                                   cfg.get("games"), "games per level"))
    facts = [("levels", ", ".join(levels)), ("games per level", f"{int(cfg.get('games') or 0):,}")]
    if s.get("snapshot_ply") is not None:      # values --skill: one snapshot for every level
        facts.append(("snapshot, every level", f"{s['snapshot_ply']} ({s.get('snapshot_ply_source', '')})"))
    sec.facts = _facts(d, facts)
    rows = []
    metrics = s.get("metrics") or {}
    side = {m: e for m, e in metrics.items() if m == "cap_rate" or m.startswith("end_")}
    if side:
        w.figure(sec, "skill_ends", skill_side_lines, (levels, side),
                 "Side effects at each skill level: the share of games stopped at a cap and of each end reason "
                 "(a compare: B - A in percentage points), 95% intervals; each verdict from its trend over levels.",
                 size=(7.5, 3.2))
    for k, (m, entry) in enumerate(metrics.items()):
        if m not in side:
            w.figure(sec, f"skill_{k}", skill_lines, (levels, m, entry),
                     f"{m.replace('_', ' ')} at each skill level (both sides), 95% intervals; verdict "
                     f"'{entry['verdict']}' from the trend over levels.", size=(7.5, 2.8))
        for lvl, e in zip(levels, entry["estimates"]):
            rows.append({"metric": m, "level": lvl, "estimate": e[0], "ci_lo": e[1], "ci_hi": e[2],
                         "verdict": entry["verdict"]})
        at = ", ".join(f"{lvl} {fmt.metric_value(m, e[0])}" for lvl, e in zip(levels, entry["estimates"]))
        how = ("is estimated at fewer than two levels" if entry["verdict"] == "too few levels"
               else f"is {entry['verdict']} over skill")
        sec.findings.append(Finding(f"{m.replace('_', ' ')} {how} ({at}).",
                                    "skill_ends" if m in side else f"skill_{k}", entry["verdict"] == "reversing"))
    if rows:
        w.table(sec, "skill", pd.DataFrame(rows), "Metrics by skill level")
    for run in s.get("runs") or []:
        for f in run.get("degenerate") or []:
            sec.findings.append(Finding(f, None, True))
    for msg in s.get("order_messages") or []:
        sec.findings.append(Finding(f"Skill order: {msg}.", None, True))
    if s.get("draw_diagnosis"):
        sec.findings.append(Finding(f"Draw diagnosis: {s['draw_diagnosis']['finding']}", None, True))
    return sec


def matchup_section(d: MatchupData, w, anchor: str):
    from simkit.report.sections import Section
    s = d.data
    pols = s.get("policies") or []
    cfg = d.manifest.get("config") or {}
    sec = Section(anchor, f"Matchup: {_game_label(d)}",
                  subtitle=", ".join(pols) + " · " + fmt.context(None, cfg.get("first"), cfg.get("seed"),
                                                                 s.get("games_per_seating"), "games per seat order"))
    sec.facts = _facts(d, [("policies", ", ".join(pols)),
                           ("games per seat order", f"{int(s.get('games_per_seating') or 0):,}")])
    idx = {p: i for i, p in enumerate(pols)}
    m = np.full((len(pols), len(pols)), math.nan)
    for c in s.get("cells") or []:
        m[idx[c["policy"]], idx[c["opponent"]]] = c["score"]
    if pols:
        w.figure(sec, "matchup", matchup_heatmap, (pols, m), f"{_game_label(d)}: row policy's expected score "
                 f"against the column policy (win 1, draw 1/2), both seat orders averaged "
                 f"({fmt.context(None, cfg.get('first'), cfg.get('seed'), s.get('games_per_seating'))} "
                 f"per seat order).", size=(6.5, 4.8))
        w.table(sec, "matchup", pd.DataFrame([{k: v for k, v in c.items() if k != "ci"}
                                              | {"ci_lo": c["ci"][0], "ci_hi": c["ci"][1]}
                                              for c in s.get("cells") or []]), "Matchup cells")
    for c in s.get("cells") or []:
        if c["ci"][0] > 0.5:
            sec.findings.append(Finding(f"{c['policy']} beats {c['opponent']}: score "
                                        f"{fmt.with_ci(c['score'], *c['ci'], kind=fmt.score)}.", "matchup"))
    for f in s.get("degenerate") or []:
        sec.findings.append(Finding(f, None, True))
    if s.get("cells"):
        _ratings_part(sec, w, s, pols)
    return sec


def tune_plot(data, ax):
    """One objective's metric over the knob: every evaluated setting (largest sample per setting),
    with its 95% interval; the target drawn as a line or band, the recommendation marked."""
    frame, knob, metric, target, best = data
    f = frame.sort_values("games").groupby(knob, as_index=False).last().sort_values(knob)
    x = f[knob].to_numpy(dtype=float)
    v = f[metric].to_numpy(dtype=float)
    ax.errorbar(x, v, yerr=_err(v, f[f"{metric}_ci_lo"], f[f"{metric}_ci_hi"]), fmt="o", capsize=3,
                color="#3b6fb6", label="estimate (largest sample per setting)")
    lo, hi = target if target is not None else (None, None)     # None: a min/max objective has no target
    if lo is None:
        pass
    elif lo == hi:
        ax.axhline(lo, color="#888", ls="--", lw=1, label="target")
    else:
        ax.axhspan(lo, hi, color="#2e8b57", alpha=0.12, label="target range")
    if best is not None:
        ax.axvline(float(best), color="#2e8b57", lw=1.5, label=f"recommended {fmt.setting(knob, best)}")
    ax.set_xlabel(knob)
    ax.set_ylabel(metric.replace("_", " "))
    ax.legend(fontsize=8, loc="best")
    ax.grid(alpha=0.3)
    return ax


def tune_section(d: TuneData, w, anchor: str):
    from simkit.analysis.tune import GOALS, METRICS, parse_objective
    from simkit.report.sections import Section
    s = d.data
    cfg = d.manifest.get("config") or {}
    knobs = s.get("knobs") or []
    sec = Section(anchor, f"Tune: {_game_label(d)}", subtitle=", ".join(s.get("objectives") or []) + " · "
                  + _context(d, cfg.get("games"), "games per setting in the first round"),
                  length_unit=s.get("length_unit") or "plies")
    sec.facts = _facts(d, [("knobs", ", ".join(d.manifest.get("knobs") or knobs)),
                           ("objectives", ", ".join(s.get("objectives") or [])),
                           ("policies", " vs ".join(cfg.get("policies") or [])),
                           ("games per setting, first round", f"{int(cfg.get('games') or 0):,}")])
    rec = s.get("recommended") or {}
    csv = d.path / "tune.csv"
    if csv.exists():
        frame = pd.read_csv(csv)
        w.table(sec, "tune", frame, "Every evaluated setting (search rounds, the finalists' verification and "
                "the recommendation's confirmation)",
                options=tuple(k for k in knobs if k in frame.columns))
        if len(knobs) == 1 and pd.api.types.is_numeric_dtype(frame[knobs[0]]):
            for k, text in enumerate(s.get("objectives") or []):
                o = parse_objective(text)
                target = None if o.op in GOALS else (o.lo, o.hi) if o.op in ("=", "range") else (o.lo, o.lo)
                w.figure(sec, f"tune_{k}", tune_plot,
                         (frame[frame["stage"] != "unchanged"] if "stage" in frame else frame, knobs[0], o.metric,
                          target, (rec.get("setting") or {}).get(knobs[0])),
                         f"{o.metric.replace('_', ' ')} over {knobs[0]} (95% intervals); objective {text}.")
    if rec:
        setting = fmt.overrides(rec.get("setting") or {})
        parts = "; ".join(f"{x['objective']}: "
                          f"{fmt.with_ci(x['estimate'], *x['ci'], kind=_objective_kind(x['objective'], METRICS))} "
                          f"{x['result']}" for x in rec.get("objectives") or [])
        where = ("fresh games that did not choose it" if rec.get("stage") == "confirm" else "fresh games")
        sec.findings.append(Finding(f"Recommended {setting}, measured on {int(rec.get('games') or 0):,} {where}: "
                                    f"{parts}.",
                                    "tune_0" if len(knobs) == 1 else None, not rec.get("meets_all")))
    _tune_side_effects(d, w, sec, rec)
    return sec


def _objective_kind(text: str, metrics: dict):
    from simkit.analysis.tune import parse_objective
    try:
        return fmt.kind_of(metrics[parse_objective(text).metric])
    except Exception:          # an objective this checkout cannot read: a plain number
        return fmt.number


def _tune_side_effects(d: TuneData, w, sec, rec: dict):
    """The finalists' side effects: how their games end beside the unchanged scenario's (figure), every
    paired change against it (table), and the recommendation's changes that matter (finding)."""
    from simkit.analysis.side_effects import label
    from simkit.report.data import side_effects_frame
    from simkit.games import find_game
    s = d.data
    base, fins = s.get("unchanged"), s.get("finalists") or []
    if not base or not fins:
        return
    unit = s.get("length_unit") or "plies"
    labels = ["unchanged"] + [fmt.overrides(f.get("setting") or {}) for f in fins]
    runs = [base.get("side_effects") or {}] + [f.get("side_effects") or {} for f in fins]
    ends = {m[4:]: [r.get(m, [0.0])[0] for r in runs] for m in runs[0] if m.startswith("end_")}
    ends = {r: v for r, v in ends.items() if any(x > 0 for x in v)}
    game = (d.manifest.get("scenario") or {}).get("game")
    caps = getattr(find_game(game), "cap_reasons", ()) if game else ()
    length = [r.get("mean_plies") for r in runs]
    if all(length):
        w.figure(sec, "tune_length", per_setting, (labels, length, f"mean game length ({unit}), 95% CI"),
                 f"Mean game length ({unit}) of the unchanged scenario (grey, dashed) and each finalist on the same "
                 f"{int(base.get('games') or 0):,} verification games, 95% intervals (the recommendation's side "
                 f"effects on its confirmation games are in the findings and the side-effects table).",
                 size=(7.5, 1.2 + 0.45 * len(labels)))
    if ends:
        w.figure(sec, "tune_ends", end_shares, (labels, ends, caps),
                 f"How games end: the unchanged scenario ({fmt.overrides(base.get('setting') or {})}) and each "
                 f"finalist on the same {int(base.get('games') or 0):,} verification games.",
                 size=(7.5, 1.6 + 0.35 * len(labels)))
    rows = []
    measured = [(f, "verification") for f in fins]
    if rec and rec.get("stage") == "confirm":
        measured.append(({"setting": rec.get("setting"), "side_effects_vs_unchanged": rec.get("side_effects")},
                         "confirmation"))
    for f, games in measured:
        t = side_effects_frame(f.get("side_effects_vs_unchanged"))
        t.insert(0, "games", games)
        t.insert(0, "setting", fmt.overrides(f.get("setting") or {}))
        rows.append(t)
    frame = pd.concat(rows, ignore_index=True) if rows else pd.DataFrame()
    if len(frame):
        frame["metric"] = frame["metric"].map(lambda m: label(m, unit))
        w.table(sec, "tune_side_effects", frame, "Side effects of each finalist on the verification games and of "
                "the recommendation on the confirmation games: the setting (b) minus the unchanged scenario (a) on "
                "the same games, 95% intervals (length: paired t; rates: Tango), Holm over each setting's rows; the "
                "objectives' own metrics are left out")
    verdict = (rec or {}).get("verdict") or ""
    moved = verdict.split("; and ", 1)[1] if "; and " in verdict else ""
    key = "tune_length" if all(length) else "tune_ends" if ends else None
    if moved:
        sec.findings.append(Finding(f"Side effects of the recommendation against the unchanged scenario: {moved}.",
                                    key, True))
    elif rec and rec.get("side_effects") is not None:
        sec.findings.append(Finding("No side effect of the recommendation (length, draws, caps, end reasons) moves "
                                    "by an amount that matters against the unchanged scenario.", key))


def tornado(data, ax):
    """Tornado chart: per option, the effect of one step down and one step up (95% intervals),
    options sorted by their largest effect, largest at the top."""
    rows, metric, order = data
    y = np.arange(len(order))[::-1]
    for direction, color, dy in (("down", "#3b6fb6", -0.18), ("up", "#e08a2c", 0.18)):
        xs, ys, lo, hi, labels = [], [], [], [], []
        for yi, opt in zip(y, order):
            r = next((r for r in rows if r["option"] == opt and r["metric"] == metric
                      and r["direction"] == direction), None)
            if r is None:
                continue
            xs.append(r["effect"])
            ys.append(yi + dy)
            lo.append(r["ci_lo"])
            hi.append(r["ci_hi"])
            labels.append(r["value"])
        if xs:
            ax.barh(ys, xs, height=0.34, color=color, label=f"one step {direction}")
            ax.errorbar(xs, ys, xerr=_err(xs, lo, hi), fmt="none", ecolor="#333", capsize=2, lw=0.8)
    ax.axvline(0, color="#444", lw=0.8)
    ax.set_yticks(y, order, fontsize=9)
    ax.set_xlabel(f"change in {metric.replace('_', ' ')} (variant - base)")
    ax.legend(fontsize=8, loc="lower right")
    ax.grid(axis="x", alpha=0.3)
    return ax


def sensitivity_section(d: SensitivityData, w, anchor: str):
    from simkit.analysis.sensitivity import tornado_order
    from simkit.report.sections import Section
    s = d.data
    cfg = d.manifest.get("config") or {}
    rows = s.get("rows") or []
    sec = Section(anchor, f"Sensitivity: {_game_label(d)}",
                  subtitle="one step down and up of every numeric rule · " + _context(d, cfg.get("games"),
                                                                                       "games per setting"))
    sec.facts = _facts(d, [("policies", " vs ".join(cfg.get("policies") or [])),
                           ("games per setting", f"{int(cfg.get('games') or 0):,}")])
    for k, metric in enumerate(("first_player_advantage", "draw_rate", "mean_length")):
        order = tornado_order(rows, metric)
        if order:
            w.figure(sec, f"tornado_{k}", tornado, (rows, metric, order),
                     f"Tornado: effect of one step down (blue) and up (orange) of each rule on "
                     f"{metric.replace('_', ' ')}, paired on the same seeds, 95% intervals.",
                     size=(7.5, 1.2 + 0.42 * len(order)))
    if rows:
        w.table(sec, "sensitivity", pd.DataFrame(rows), "Every effect (p-values Holm-adjusted over all effects)",
                options=("value", "base_value"))
    sig = [r for r in rows if r["metric"] == "first_player_advantage" and r.get("p_holm", 1) < 0.05]
    for r in sorted(sig, key=lambda r: -abs(r["effect"]))[:5]:
        sec.findings.append(Finding(f"{r['option']} {fmt.option_value(r['base_value'])} -> "
                                    f"{fmt.option_value(r['value'])} changes the first-player advantage by "
                                    f"{fmt.advantage(r['effect'])} "
                                    f"(95% CI {fmt.interval(r['ci_lo'], r['ci_hi'], fmt.advantage)}, "
                                    f"Holm {fmt.p_phrase(r['p_holm'])}).", "tornado_0"))
    if not sig and rows:
        sec.findings.append(Finding("No single step of any rule changes the first-player advantage "
                                    "significantly (after Holm's correction).", "tornado_0"))
    return sec


def quality_bars(metrics, ax):
    """Each bounded quality metric's mean with its 95% interval, on one 0..1 scale."""
    names = [m for m, v in metrics.items() if v["mean"] is not None]
    y = np.arange(len(names))[::-1]
    v = [metrics[m]["mean"] for m in names]
    ax.barh(y, v, color="#3b6fb6", height=0.6)
    ax.errorbar(v, y, xerr=_err(v, [metrics[m]["ci"][0] for m in names], [metrics[m]["ci"][1] for m in names]),
                fmt="none", ecolor="#333", capsize=3)
    ax.set_yticks(y, [m.replace("_", " ") for m in names], fontsize=9)
    ax.set_xlim(0, 1)
    ax.grid(axis="x", alpha=0.3)
    return ax


def quality_section(d: QualityData, w, anchor: str):
    from simkit.analysis.quality import BOUNDED
    from simkit.report.sections import Section
    s = d.data
    cfg = d.manifest.get("config") or {}
    metrics = s.get("metrics") or {}
    sec = Section(anchor, f"Game quality: {_game_label(d)}", subtitle=_context(d, s.get("games")))
    sec.facts = _facts(d, [("policies", " vs ".join(cfg.get("policies") or [])),
                           ("games", f"{int(s.get('games') or 0):,}")])
    bounded = {m: v for m, v in metrics.items() if m in BOUNDED and v["mean"] is not None}
    if bounded:
        w.figure(sec, "quality", quality_bars, bounded, "Quality metrics on a 0..1 scale, means over games with "
                 "95% intervals (formulas: docs/quality.md).", size=(7.5, 1.0 + 0.4 * len(bounded)))
    rows = [{"metric": m, "mean": v["mean"], "ci_lo": v["ci"][0], "ci_hi": v["ci"][1], "games": v["games"]}
            for m, v in metrics.items() if v["mean"] is not None]
    if rows:
        w.table(sec, "quality", pd.DataFrame(rows), "Game quality")
    dm = metrics.get("decision_moves") or {}
    if dm.get("mean") is not None and dm["mean"] < 0.5:
        sec.findings.append(Finding(f"Only {fmt.rate(dm['mean'])} of turns offer a real choice (more than one legal "
                                    f"action).", "quality", True))
    lc = metrics.get("lead_changes") or {}
    if lc.get("mean") is not None:
        sec.findings.append(Finding(f"The lead changes {fmt.per_game(lc['mean'])} times per game "
                                    f"(95% CI {fmt.interval(*lc['ci'], fmt.per_game)}).", "quality"))
    return sec


def luck_section(d: LuckData, w, anchor: str):
    """`simkit luck`: the skill-luck chart of its entries, their table, and the findings with numbers."""
    from simkit.analysis.luck import luck_text, skill_luck_chart, table
    from simkit.report.sections import Section
    s = d.data
    entries = s.get("entries") or []
    sec = Section(anchor, "Luck and skill: " + ", ".join(e["label"] for e in entries),
                  subtitle=f"round robin {' < '.join(s.get('policies') or [])}, {s.get('games_per_seating')} games "
                           f"per seat order; {s.get('player')} self-play on {s.get('seeds')} seeds x "
                           f"{s.get('replays')} replays; seed {s.get('seed')}")
    sec.facts = [("entries", ", ".join(e["label"] for e in entries)),
                 ("round robin", ", ".join(s.get("policies") or [])), ("replays by", str(s.get("player"))),
                 ("seed", str(s.get("seed"))), ("directory", str(d.path))]
    if entries:
        w.figure(sec, "skill_luck", skill_luck_chart, s, "Each game or variant placed by luck (x: the share of "
                 "outcome variance its seed explains, replays under independent decisions) and skill (y: the "
                 "strongest player's Elo above random), with 95% intervals.", size=(7.0, 4.6))
        w.table(sec, "luck", table(s), "Luck and skill")
    for line in luck_text(s):
        if not line.startswith("    "):
            sec.findings.append(Finding(line.strip(), "skill_luck"))
    return sec


BUILDERS = {"luck": luck_section, "learn": learn_section,
            "quality": quality_section, "sensitivity": sensitivity_section, "ladder": ladder_section,
            "skill": skill_section, "matchup": matchup_section, "tune": tune_section}
