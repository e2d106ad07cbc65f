"""Report section of a `simkit learn` directory (learn.json): the weights learned for a variant beside the
hand-set ones, the fit's held-out log-loss and the acceptance matches."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.report.findings import Finding


@dataclass
class LearnData:
    path: Path
    manifest: dict
    data: dict
    kind: str = "learn"


def weights_plot(d: dict, ax):
    """Each feature's hand-set weight (grey) and learned weight with its 95% interval (green where the interval
    leaves out the hand-set weight)."""
    names = d["features"]
    y = np.arange(len(names))[::-1]
    w = np.array(d.get("fitted", d["weights"]))
    lo = np.array([c[0] for c in d["ci"]])
    hi = np.array([c[1] for c in d["ci"]])
    moved = (np.array(d["default"]) < lo) | (np.array(d["default"]) > hi)
    ax.scatter(d["default"], y, marker="|", s=200, c="#888", label="hand-set (default)", zorder=2)
    ax.errorbar(w, y, xerr=[w - lo, hi - w], fmt="none", ecolor="#444", capsize=3)
    ax.scatter(w, y, c=["#2e8b57" if m else "#4169e1" for m in moved], s=36, zorder=3, label="learned [95%]")
    if d.get("step", 1.0) != 1.0:
        ax.scatter(d["weights"], y, marker="x", c="#b8860b", s=40, zorder=4, label=f"played (step {d['step']:g})")
    ax.axvline(0, color="#bbb", lw=1)
    ax.set_yticks(y, names, fontsize=9)
    ax.set_xlabel("weight (evaluation units: a lead of mcts_scale = a 73% chance)")
    ax.legend(fontsize=8, loc="best")
    ax.grid(axis="x", alpha=0.3)
    return ax


def learn_section(d: LearnData, w, anchor: str):
    from simkit.analysis.learn import accepted
    from simkit.report.sections import Section
    s = d.data
    cfg = s.get("config") or {}
    fit = s.get("fit") or {}
    sec = Section(anchor, f"Evaluation learned: {s.get('game')} ({s.get('scenario')})",
                  subtitle=f"{cfg.get('games', 0):,} games of {cfg.get('policy')} self-play x {cfg.get('iterations')} "
                           f"round(s), seed {cfg.get('seed')}; {fit.get('positions', 0):,} quiet positions; variant "
                           f"{s.get('variant')}")
    sec.facts = [("game", str(s.get("game"))), ("scenario", str(s.get("scenario"))),
                 ("variant key", str(s.get("variant"))),
                 ("self-play", f"{cfg.get('policy')}, {cfg.get('games', 0):,} games per round"),
                 ("held out", f"{fit.get('holdout_games', 0):,} games ({fit.get('holdout_positions', 0):,} positions)"),
                 ("directory", str(d.path))]
    w.figure(sec, "learned_weights", weights_plot, s, "The evaluation's weights: hand-set (grey bar) and learned for "
             "this variant with 95% cluster-robust intervals (green: the interval leaves out the hand-set weight).",
             size=(7.0, 0.5 + 0.45 * len(s["features"])))
    w.table(sec, "learned_weights", pd.DataFrame({
        "feature": s["features"], "default": s["default"], "learned": s.get("fitted", s["weights"]),
        "ci_lo": [c[0] for c in s["ci"]], "ci_hi": [c[1] for c in s["ci"]], "played": s["weights"]}), "Weights")
    attempts = s.get("attempts") or [{"step": s.get("step", 1.0), "matches": s.get("matches", [])}]
    w.table(sec, "learn_matches", pd.DataFrame([{
        "step": a["step"], "match": f"{m['policy']}@learned vs {m['policy']}@default", "score": m["score"],
        "ci_lo": m["ci"][0], "ci_hi": m["ci"][1], "pairs": m["games"], "draw_rate": m["draw_rate"]}
        for a in attempts for m in a["matches"]]), "Acceptance matches (both seat orders), each step tried")
    ll = (fit.get("logloss_learned"), fit.get("logloss_default"), fit.get("logloss_none"))
    if None not in ll:
        sec.findings.append(Finding(f"Held-out log-loss {ll[0]:.4f} with the learned weights, {ll[1]:.4f} with the "
                                    f"hand-set ones, {ll[2]:.4f} with no features (lower predicts the result better).",
                                    "learned_weights", ll[0] > ll[1]))
    for f, dflt, lw, c in zip(s["features"], s["default"], s.get("fitted", s["weights"]), s["ci"]):
        if not c[0] <= dflt <= c[1]:
            sec.findings.append(Finding(f"{f}: learned {lw:.3f} [{c[0]:.3f}, {c[1]:.3f}], hand-set {dflt:.3f}.",
                                        "learned_weights"))
    for m in s.get("matches", []):
        sec.findings.append(Finding(f"{m['policy']} with the learned weights scores {m['score']:.3f} "
                                    f"[{m['ci'][0]:.3f}, {m['ci'][1]:.3f}] against the hand-set ones over "
                                    f"{m['games']:,} pairs.", "learn_matches", m["ci"][1] < 0.5))
    ok = bool(s.get("accepted", accepted(s.get("matches", []))))
    sec.findings.append(Finding(f"Accepted at step {s.get('step', 1.0):g} (the played weights: hand-set + step x "
                                f"(fitted - hand-set)): at least 0.5 in every match." if ok else
                                "Rejected at every step: the learned player scored below 0.5 in a match; the hand-set "
                                "weights stay.",
                                "learn_matches", not ok))
    return sec
