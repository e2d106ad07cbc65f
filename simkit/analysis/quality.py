"""Game-quality metrics from per-move trajectories (formulas: docs/quality.md).

A game's engine exposes ``spec.trajectory(params, seed, game, first, policies)``
returning ``(values, legal, interactions, record)`` for one game as the batch kernel
plays it:

- ``values``: float64, length L + 1: side 0's evaluation lead (the greedy
  evaluation, side 0's view) before each of the L plies or turns and after the last;
- ``legal``: int, length L: legal actions at the (first) decision of each ply/turn;
- ``interactions``: int, length L: captures or kills made in that ply/turn;
- ``record``: the game's record row.

A lead becomes side 0's winning chance ``p_t = 1 / (1 + exp(-v_t / s))`` with the
game's ``mcts_scale`` s (the lead that counts as a 73% chance). The metrics below
are computed per game in float arithmetic (Ludii's integer divisions cannot
happen: every ratio is taken of floats), then averaged over games with a 95%
interval. ``w`` is the eventual winner; ``q_t`` = the winner's chance (``p_t`` or
``1 - p_t``). Metrics that need a winner are taken over decided games only.

| metric | per game |
| --- | --- |
| lead_changes | times the leader (sign of p_t - 1/2, ties keep the last leader) changes |
| lead_change_rate | lead_changes / (L), 0 for L = 0 |
| drama | mean of (1 - 2 q_t) over the plies where the winner trails (q_t < 1/2); 0 if it never trails |
| decisiveness_threshold | the loser's highest chance: max_t (1 - q_t) |
| decisiveness_moves | share of plies after the winner's chance first exceeds the threshold |
| uncertainty | mean_t (1 - abs(2 p_t - 1)): 1 = a coin flip throughout, 0 = certain throughout |
| doubt_share | share of the game before the winner leads for good (first t with q_s > 1/2 for all s >= t) |
| stability | variance of p_t over the game (Ludii Stability) |
| decision_moves | share of plies/turns with more than one legal action |
| branching | mean legal actions per ply/turn |
| branching_trend | legal actions in the last third minus in the first third (mean per ply) |
| interaction | captures/kills per ply/turn |
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

PER_GAME = ("lead_changes", "lead_change_rate", "drama", "decisiveness_threshold", "decisiveness_moves",
            "uncertainty", "doubt_share", "stability", "decision_moves", "branching", "branching_trend",
            "interaction")
BOUNDED = ("lead_change_rate", "drama", "decisiveness_threshold", "decisiveness_moves", "uncertainty",
           "doubt_share", "stability", "decision_moves")
NEEDS_WINNER = ("drama", "decisiveness_threshold", "decisiveness_moves", "doubt_share")
# counts that cannot be negative: their intervals stop at 0
NONNEGATIVE = ("lead_changes", "branching", "interaction")


def chances(values: np.ndarray, scale: float) -> np.ndarray:
    x = np.clip(np.asarray(values, dtype=np.float64) / float(scale), -60.0, 60.0)
    return 1.0 / (1.0 + np.exp(-x))


def lead_changes(p: np.ndarray) -> int:
    leader = 0
    changes = 0
    for v in p:
        s = 1 if v > 0.5 else -1 if v < 0.5 else 0
        if s == 0:
            continue
        if leader and s != leader:
            changes += 1
        leader = s
    return changes


def game_metrics(p: np.ndarray, legal: np.ndarray, inter: np.ndarray, winner: int) -> dict:
    """Every per-game metric of one trajectory of side-0 chances ``p`` (length L + 1)."""
    p = np.asarray(p, dtype=np.float64)
    legal = np.asarray(legal, dtype=np.float64)
    inter = np.asarray(inter, dtype=np.float64)
    L = len(legal)
    out = {"lead_changes": float(lead_changes(p))}
    out["lead_change_rate"] = out["lead_changes"] / L if L else 0.0
    out["uncertainty"] = float(np.mean(1.0 - np.abs(2.0 * p - 1.0))) if len(p) else math.nan
    out["stability"] = float(np.var(p)) if len(p) else math.nan
    out["decision_moves"] = float(np.mean(legal > 1)) if L else math.nan
    out["branching"] = float(np.mean(legal)) if L else math.nan
    if L >= 3:
        k = L // 3
        out["branching_trend"] = float(np.mean(legal[L - k:]) - np.mean(legal[:k]))
    else:
        out["branching_trend"] = math.nan
    out["interaction"] = float(np.mean(inter)) if L else math.nan
    if winner in (0, 1) and len(p):
        q = p if winner == 0 else 1.0 - p
        behind = q < 0.5
        out["drama"] = float(np.mean(1.0 - 2.0 * q[behind])) if behind.any() else 0.0
        thr = float(np.max(1.0 - q))
        out["decisiveness_threshold"] = thr
        above = np.nonzero(q > thr)[0]
        out["decisiveness_moves"] = float((len(q) - above[0]) / len(q)) if len(above) else 0.0
        # the first t from which the winner leads at every later point
        trailing = np.nonzero(q <= 0.5)[0]
        settled_at = trailing[-1] + 1 if len(trailing) else 0
        out["doubt_share"] = float(settled_at / len(q))
    else:
        for m in NEEDS_WINNER:
            out[m] = math.nan
    return out


def summarize(per_game) -> dict:
    """metric -> {"mean", "ci", "games"} of a per-game frame: the mean over the games that define
    the metric with a 95% t interval (rule-of-three floor when every game agrees)."""
    from scipy import stats as st
    out = {}
    for m in PER_GAME:
        x = per_game[m].to_numpy(dtype=float)
        x = x[np.isfinite(x)]
        n = len(x)
        if n == 0:
            out[m] = {"mean": None, "ci": [None, None], "games": 0}
            continue
        mean = float(x.mean())
        sd = float(x.std(ddof=1)) if n > 1 else 0.0
        if n > 1 and sd > 0:
            half = float(st.t.ppf(0.975, n - 1)) * sd / math.sqrt(n)
        else:
            # every game agrees (or one game): no zero-width interval from that, but the
            # rule-of-three bound 3/n of the metric's range (of its value, if unbounded)
            half = 3.0 / n * (1.0 if m in BOUNDED else max(abs(mean), 1.0))
        lo, hi = mean - half, mean + half
        if m in BOUNDED:
            lo, hi = max(lo, 0.0), min(hi, 1.0)
        elif m in NONNEGATIVE:
            lo = max(lo, 0.0)
        out[m] = {"mean": mean, "ci": [lo, hi], "games": n}
    return out


@dataclass
class QualityResult:
    game: str
    scenario: str
    per_game: "object"     # pandas DataFrame, one row per game
    config: object
    scale: float

    def metrics(self) -> dict:
        """metric -> {"mean", "ci", "games"} (95% t interval over the games that define it)."""
        return summarize(self.per_game)

    def summary(self) -> dict:
        return {"kind": "quality", "game": self.game, "scenario": self.scenario, "scale": self.scale,
                "games": len(self.per_game), "metrics": self.metrics(), "config": self.config.to_dict(),
                "formulas": "docs/quality.md"}


def trace_games(scenario, config, games: int | None = None, *, pv=None, log=None):
    """Play games 0 .. n-1 (n = ``games``, default ``config.games``) of ``config`` through the game's
    trajectory hook: game i has seed ``config.seed``, index i and the first player the batch run gives
    it, so two variants traced with one config are paired on common random numbers. Returns the
    per-game frame (record columns and every metric of PER_GAME) and the chance scale."""
    import pandas as pd

    from simkit.engine.rng import FIRST_MODES, first_players_nb
    from simkit.engine.runner import validate_config
    from simkit.errors import UsageError
    spec = scenario.spec
    if getattr(spec, "trajectory", None) is None:
        raise UsageError(f"{spec.name} records no per-move trajectory yet, so its quality metrics "
                         f"cannot be computed")
    if pv is None:
        pv = validate_config(spec, config)
    n = config.games if games is None else int(games)
    params = scenario.params_for(config.policies)
    scale = float(scenario.rules.get("mcts_scale", 1.0))
    firsts = np.zeros(n, dtype=np.int8)
    first_players_nb(FIRST_MODES.index(config.first), np.int64(config.seed), np.int64(0), np.int64(n), firsts)
    rows = []
    from simkit import progress
    progress.run_started(spec.name, n, kernels="trace")
    for g in range(n):
        values, legal, inter, rec = spec.trajectory(params, config.seed, g, int(firsts[g]), pv)
        progress.games_done(1)
        m = game_metrics(chances(values, scale), legal, inter, int(rec[1]))
        rows.append({"game": g, "first": int(rec[0]), "winner": int(rec[1]), "length": int(rec[2]),
                     "end_reason": spec.end_reasons[int(rec[3])], **m})
        if log and (g + 1) % 200 == 0:
            log(f"{g + 1:,} of {n:,} games")
    return pd.DataFrame(rows, columns=["game", "first", "winner", "length", "end_reason", *PER_GAME]), scale


def quality(scenario, config, *, out_dir=None, log=None) -> QualityResult:
    """Play ``config.games`` games one at a time through the game's trajectory hook."""
    import time

    from simkit.engine.runner import validate_config
    from simkit.errors import UsageError
    spec = scenario.spec
    if getattr(spec, "trajectory", None) is None:
        raise UsageError(f"{spec.name} records no per-move trajectory yet, so its quality metrics "
                         f"cannot be computed")
    pv = validate_config(spec, config)
    from simkit.backends.store import atomic_write_bytes, atomic_write_json, claim_result_dir
    out = claim_result_dir(out_dir)         # before any game is traced
    t0 = time.perf_counter()
    frame, scale = trace_games(scenario, config, pv=pv, log=log)
    res = QualityResult(spec.name, scenario.name, frame, config, scale)
    if out is not None:
        from simkit.engine.runner import environment
        atomic_write_json(out / "quality.json", res.summary() | {"elapsed_s": round(time.perf_counter() - t0, 2)})
        atomic_write_bytes(out / "quality_games.csv", res.per_game.to_csv(index=False).encode())
        atomic_write_json(out / "manifest.json", {
            "kind": "quality", "status": "complete", "scenario": scenario.to_dict(), "config": config.to_dict(),
            "versions": environment(), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return res
