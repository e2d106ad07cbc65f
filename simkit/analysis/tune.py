"""`simkit tune`: search rule knobs for the setting whose metrics meet the designer's objectives.

The search is **successive halving on common random numbers** (a racing method for
noisy objectives, Jamieson & Talwalkar 2016): every candidate setting is played
with the same seed and game indices, the better half by loss survives, and the
survivors are played again on twice as many games (the earlier games plus new
ones), until ``finalists`` remain. Common random numbers make the comparison
between candidates far less noisy than the metrics themselves. The finalists are
then **verified** on ``verify_games`` fresh games (another seed, so the winner's
luck in the search does not carry over) and the finalist with the lowest verified
loss is recommended. Choosing the best of several noisy estimates favours the one
whose games happened to be lucky (the winner's curse), so the recommendation is
**confirmed** on ``verify_games`` further fresh games that played no part in choosing
it, and its estimates, 95% intervals and met / not shown / missed come from those.
The verification and confirmation seeds are derived from ``--seed`` by a hash
(`stage_seed`): large numbers no other run's ``--seed`` uses, so two tunes (or a tune
and a run) with nearby seeds never share games.

Why not a library optimiser: the knobs of a rule set are small integer or choice
grids (tens of points), where racing over the whole grid is exact and cheap; a
Bayesian optimiser (e.g. scikit-optimize, optuna) pays off for wide continuous
spaces and would add a heavy dependency for no gain here. Float knobs are given
as a grid ``A..B:STEP``.

Objectives (``--objective``), each optionally weighted with ``@W``:

    METRIC=T        the metric should equal T     met: 90% interval inside T ± tolerance (TOST;
                                                  ± 1 plies/turns for lengths), the 90% interval
                                                  computed as such (score, Wilson or t), not scaled
    METRIC<=T       at most T                     met: 95% interval's upper end <= T
    METRIC>=T       at least T                    met: 95% interval's lower end >= T
    METRIC=A..B     inside [A, B]                 met: 95% interval inside [A, B]
    METRIC=min      as low as the others allow    the lowest of the finalists that miss no other
    METRIC=max      as high as the others allow   objective (at most one min or max objective)

Loss of a candidate: the weighted sum of each objective's violation of its point
estimate (distance to T or to the allowed range), divided by the objective's scale
(the tolerance for rates and advantages, 1 plies/turns for lengths); with
``lexicographic`` the violations are compared in the order given instead. With a
``min``/``max`` objective the others are **constraints**: the loss is the pair (their
violation, the metric) compared in that order, where a constraint counts as broken only
where its games show it 'missed' (the judgement below), by as much as the estimate lies
beyond what it allows (an ``=`` target: ± its scale) -- so a candidate is not dropped for the
noise of a small sample -- and the search minimises the metric among the settings that miss
no constraint, falling back to the least violation when every setting misses one. The
verification's larger sample then judges the recommendation's constraints as any objective.

Side effects (`simkit.analysis.side_effects`): the unchanged scenario is played on the
verification and on the confirmation games too, and every finalist's (and the
recommendation's) length, draw and cap rates and end reasons are compared with it pair by
pair on the same games; the recommendation's verdict names the ones that moved by an amount
that matters ("and games get N% longer: A -> B plies (+D [lo, hi] on the same games)").
"""
from __future__ import annotations

import itertools
import json
import math
import random
import re
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from simkit.errors import UsageError

# objective metric name -> summary key
METRICS = {
    "first_player_advantage": "first_player_advantage",
    "draw_rate": "draw_rate",
    "mean_length": "mean_plies",
    "mean_plies": "mean_plies",
    "mean_turns": "mean_plies",
    "decisiveness": "decisiveness",
    "side0_win_rate": "side0_win_rate",
    "side1_win_rate": "side1_win_rate",
    "first_player_win_rate": "first_player_win_rate",
    # a search's strength (`tune_strength`): its expected score against a panel of opponents
    "strength": "strength",
}
LENGTHS = ("mean_length", "mean_plies", "mean_turns")
_OBJ = re.compile(r"^\s*([a-z0-9_]+)\s*(<=|>=|=)\s*([^@]+?)\s*(?:@\s*([0-9.eE+-]+))?\s*$")


GOALS = ("min", "max")


@dataclass(frozen=True)
class Objective:
    metric: str
    op: str              # "=", "<=", ">=", "range", "min", "max"
    lo: float
    hi: float
    weight: float = 1.0

    @property
    def text(self) -> str:
        if self.op == "range":
            return f"{self.metric}={self.lo:g}..{self.hi:g}"
        if self.op in GOALS:
            return f"{self.metric}={self.op}"
        return f"{self.metric}{self.op}{self.lo:g}"

    def scale(self, tolerance: float) -> float:
        return 1.0 if self.metric in LENGTHS else tolerance

    def violation(self, est: float) -> float:
        if math.isnan(est):
            return math.inf
        if self.op == "=":
            return abs(est - self.lo)
        if self.op == "<=":
            return max(0.0, est - self.lo)
        if self.op == ">=":
            return max(0.0, self.lo - est)
        return max(0.0, self.lo - est, est - self.hi)

    def shown_violation(self, summary: dict, tolerance: float) -> float:
        """As a constraint of a min/max objective: 0 unless the games show it broken (`met` says
        'missed'), then how far the estimate lies beyond what is allowed (an ``=`` target: ± its scale)."""
        est = metric_ci(summary, self.metric)[0]
        if math.isnan(est):
            return math.inf
        if self.met(summary, tolerance) != "missed":
            return 0.0
        slack = self.scale(tolerance) if self.op == "=" else 0.0
        return max(self.violation(est) - slack, 0.0)

    def met(self, summary: dict, tolerance: float) -> str:
        """'met', 'not shown' or 'missed' (the interval entirely on the wrong side) of a run's summary:
        ``=`` by TOST on the metric's own 90% interval, the others by its 95% interval. A min/max
        objective has no target to meet ('' here; `TuneResult.goal_result` ranks it among the finalists)."""
        if self.op in GOALS:
            return ""
        est, lo95, hi95 = metric_ci(summary, self.metric)
        if any(math.isnan(v) for v in (est, lo95, hi95)):
            return "not shown"
        if self.op == "=":
            from simkit.analysis.stats import tost
            _, lo90, hi90 = metric_ci(summary, self.metric, alpha=0.10)
            r = tost((lo90 - self.lo, hi90 - self.lo), self.scale(tolerance))
            return {"within": "met", "beyond": "missed", "not_shown": "not shown"}[r]
        lo_ok, hi_ok = (self.lo, math.inf) if self.op == ">=" else (-math.inf, self.lo) if self.op == "<=" \
            else (self.lo, self.hi)
        if lo95 >= lo_ok and hi95 <= hi_ok:
            return "met"
        if hi95 < lo_ok or lo95 > hi_ok:
            return "missed"
        return "not shown"


def parse_objective(text: str) -> Objective:
    m = _OBJ.match(text)
    if not m:
        raise UsageError(f"--objective {text!r}: write METRIC=T, METRIC<=T, METRIC>=T or METRIC=A..B "
                         f"(optionally @WEIGHT), or METRIC=min / METRIC=max, e.g. first_player_advantage=0")
    metric, op, rhs, w = m.group(1), m.group(2), m.group(3), m.group(4)
    if metric not in METRICS:
        raise UsageError(f"--objective: unknown metric '{metric}'; metrics: {', '.join(METRICS)}")
    if op == "=" and rhs in GOALS:
        if w:
            raise UsageError(f"--objective {text!r}: a {rhs} objective takes no weight (the others are its "
                             f"constraints)")
        return Objective(metric, rhs, math.nan, math.nan)
    try:
        weight = float(w) if w else 1.0
        if op == "=" and ".." in rhs:
            a, b = (float(x) for x in rhs.split("..", 1))
            if b < a:
                raise ValueError
            return Objective(metric, "range", a, b, weight)
        t = float(rhs)
    except ValueError:
        raise UsageError(f"--objective {text!r}: the target must be a number, A..B with A <= B, or (after =) "
                         f"min or max") from None
    if weight <= 0:
        raise UsageError(f"--objective {text!r}: the weight must be > 0")
    return Objective(metric, op, t, t, weight)


def parse_knob(item: str, spec) -> tuple[str, list]:
    """``KEY=A..B`` (integers), ``KEY=A..B:STEP`` (floats) or ``KEY=V1,V2,...`` -> (key, values)."""
    from simkit.scenario.sweep import parse_grid
    m = re.match(r"^\s*([\w.]+)\s*=\s*(-?[\d.eE+-]+)\s*\.\.\s*(-?[\d.eE+-]+)\s*:\s*([\d.eE+-]+)\s*$", item)
    if m:
        key, a, b, step = m.group(1), float(m.group(2)), float(m.group(3)), float(m.group(4))
        if step <= 0 or b < a:
            raise UsageError(f"--knob {item!r}: need A <= B and STEP > 0")
        n = int(math.floor((b - a) / step + 1e-9)) + 1
        if n > 1000:
            raise UsageError(f"--knob {item!r}: {n} values; use a coarser STEP (at most 1000 values)")
        values = [round(a + i * step, 12) for i in range(n)]
        parse_grid([f"{key}={','.join(repr(v) for v in values)}"], spec)   # validates the key
        return key, values
    keys, grid = parse_grid([item], spec)
    return keys[0], [g[0] for g in grid]


def metric_ci(summary: dict, metric: str, alpha: float = 0.05) -> tuple[float, float, float]:
    """(estimate, lo, hi) of an objective's metric from a run's summary. The 95% interval is the
    summary's; any other level is computed from the counts the summary holds with the same method
    (score interval for the advantage, Wilson for rates, t for length), never rescaled from the 95%
    half-width, which is wrong for the asymmetric intervals near 0 or 1."""
    key = METRICS[metric]
    est = float(summary.get(key, math.nan))
    if key == "strength" and alpha != 0.05:
        from simkit.analysis.matchup import PAIR_SCORES, pair_interval
        pooled = np.repeat(PAIR_SCORES, summary["strength_counts"])
        return (est, *pair_interval(pooled, alpha)["ci"])
    if alpha == 0.05:
        lo, hi = summary.get(f"{key}_ci") or (math.nan, math.nan)
        return est, float(lo), float(hi)
    if f"{key}_ci{round(100 * (1 - alpha))}" in summary:
        lo, hi = summary[f"{key}_ci{round(100 * (1 - alpha))}"]
        return est, float(lo), float(hi)
    from simkit.analysis.metrics import SCORES
    from simkit.analysis.stats import _z, score_interval, wilson
    n = int(summary.get("games") or 0)
    if n == 0 or math.isnan(est):
        return est, math.nan, math.nan
    if key == "first_player_advantage":
        first = round(summary["first_player_win_rate"] * n)
        second = round(summary["second_player_win_rate"] * n)
        _, lo, hi = score_interval(SCORES, [second, n - first - second, first], alpha)
        return est, lo - 0.5, hi - 0.5
    if key == "mean_plies":
        lo95, hi95 = summary[f"{key}_ci"]
        sd = float(summary.get("plies_std") or 0.0)
        # the t interval's half-width at this level; the rule-of-three floor (every game the same
        # length) does not depend on the level
        half = _z(alpha) * sd / math.sqrt(n) if sd > 0 and n > 1 else (hi95 - lo95) / 2
        return est, est - half, est + half
    lo, hi = wilson(round(est * n), n, alpha)
    return est, lo, hi


def goal_of(objectives) -> Objective | None:
    """The min/max objective, if any (the others are then its constraints)."""
    return next((o for o in objectives if o.op in GOALS), None)


def check_objectives(objectives):
    if sum(o.op in GOALS for o in objectives) > 1:
        raise UsageError("--objective: at most one METRIC=min or METRIC=max (the other objectives are its "
                         "constraints)")


def loss_of(summary: dict, objectives, tolerance: float, lexicographic: bool):
    goal = goal_of(objectives)
    if goal is None:
        v = [o.weight * o.violation(metric_ci(summary, o.metric)[0]) / o.scale(tolerance) for o in objectives]
        return tuple(v) if lexicographic else sum(v)
    # constraints first, broken only where the games show it (a candidate is not dropped for its noise);
    # then the goal's metric (negated to maximise)
    v = [o.weight * o.shown_violation(summary, tolerance) / o.scale(tolerance)
         for o in objectives if o is not goal]
    est = metric_ci(summary, goal.metric)[0]
    value = math.inf if math.isnan(est) else est if goal.op == "min" else -est
    return (*v, value) if lexicographic else (sum(v), value)


def loss_number(loss, objectives) -> float:
    """One number for a table: the loss, or with a min/max objective the constraints' violation
    (the goal's metric has its own column)."""
    if not isinstance(loss, tuple):
        return loss
    return sum(loss[:-1]) if goal_of(objectives) is not None else sum(loss)


@dataclass
class TuneResult:
    keys: list
    objectives: list
    evaluated: list = field(default_factory=list)     # every (round, point, games, summary, loss)
    verified: list = field(default_factory=list)      # finalists on fresh games
    confirmed: dict | None = None                     # the chosen finalist on further fresh games
    tolerance: float = 0.01
    config: object = None
    out_dir: Path | None = None
    same_as: dict = field(default_factory=dict)      # setting -> the raced setting with identical rules
    # the unchanged scenario on the verification ("verify") and confirmation ("confirm") games: the side effects'
    # reference, paired game by game with the finalists and with the recommendation
    unchanged: dict = field(default_factory=dict)
    panel: list = field(default_factory=list)      # a strength tune's opponents
    length_unit: str = "plies"      # the game's (spec.length_unit)
    caps: tuple = ()                # the game's cap reasons (what the cap rate counts)

    @property
    def best(self) -> dict | None:
        """The recommendation, measured on games that did not choose it (the confirmation, or the one
        finalist's verification when there was nothing to choose between)."""
        return self.confirmed or (self.verified[0] if self.verified else None)

    def rows(self) -> list[dict]:
        """Every evaluated setting (and the unchanged scenario on the verification and confirmation games):
        knob values, each objective's metric with its interval, the loss, then the side effects with theirs."""
        from simkit.analysis.side_effects import of_summary
        out = []
        extra = [e for e in (self.confirmed, *self.unchanged.values()) if e]
        for e in self.evaluated + self.verified + extra:
            row = {"stage": e["stage"], "round": e["round"], "games": e["games"], "seed": e["seed"],
                   **dict(zip(self.keys, e["point"]))}
            for o in self.objectives:
                est, lo, hi = metric_ci(e["summary"], o.metric)
                row |= {o.metric: est, f"{o.metric}_ci_lo": lo, f"{o.metric}_ci_hi": hi}
            row["loss"] = loss_number(e["loss"], self.objectives)
            for m, (est, lo, hi) in of_summary(e["summary"]).items():
                row |= {m: est, f"{m}_ci_lo": lo, f"{m}_ci_hi": hi}
            out.append(row)
        return out

    def goal_result(self) -> str:
        """What the recommendation's min/max objective achieved among the verified finalists."""
        goal = goal_of(self.objectives)
        if goal is None or not self.verified:
            return ""
        best = loss_number(self.verified[0]["loss"], self.objectives)
        keep = [v for v in self.verified if loss_number(v["loss"], self.objectives) == best]
        word = "lowest" if goal.op == "min" else "highest"
        if best > 0:
            return f"{word} with the least violation of the other objectives (every finalist misses one)"
        if len(keep) > 1:
            return f"{word} of the {len(keep)} finalists that miss no other objective"
        return "the only finalist that misses no other objective" if len(self.verified) > 1 else word

    def summary(self) -> dict:
        b = self.best
        rec = None
        if b is not None:
            rec = {"setting": dict(zip(self.keys, b["point"])), "games": b["games"], "seed": b["seed"],
                   "stage": b["stage"], "objectives": [
                       {"objective": o.text, "estimate": metric_ci(b["summary"], o.metric)[0],
                        "ci": list(metric_ci(b["summary"], o.metric)[1:]),
                        "result": o.met(b["summary"], self.tolerance) or self.goal_result()}
                       for o in self.objectives]}
            rec["meets_all"] = all(x["result"] == "met" for o, x in zip(self.objectives, rec["objectives"])
                                   if o.op not in GOALS)
            rec["measured_on"] = ("fresh games that did not choose it (confirmation)" if b["stage"] == "confirm"
                                  else "the verification games of the only finalist (nothing was chosen on them)")
            if "vs_next" in self.verified[0]:
                rec["vs_next"] = self.verified[0]["vs_next"]
            rec["side_effects"] = b.get("side_effects") or {}
            rec["verdict"] = self.verdict()
        base = self.unchanged.get("verify")
        return {"kind": "tune", "knobs": self.keys, "objectives": [o.text for o in self.objectives],
                "tolerance": self.tolerance, "method": "successive halving on common random numbers, "
                "verification of the finalists on fresh games (which choose the recommendation), then "
                "confirmation of the recommendation on further fresh games (which measure it)", "recommended": rec,
                "length_unit": self.length_unit,
                # the unchanged scenario on the finalists' verification games (their side effects' reference)
                "unchanged": None if not base else {
                    "setting": dict(zip(self.keys, base["point"])), "games": base["games"], "seed": base["seed"],
                    "side_effects": _listed(base["summary"])},
                "finalists": [{"setting": dict(zip(self.keys, v["point"])), "games": v["games"],
                               "loss": v["loss"] if not isinstance(v["loss"], tuple) else list(v["loss"]),
                               "side_effects": _listed(v["summary"]),
                               "side_effects_vs_unchanged": v.get("side_effects") or {}}
                              for v in self.verified],
                "evaluations": len(self.evaluated), "config": self.config.to_dict() if self.config else None,
                "identical_settings": [{"setting": dict(zip(self.keys, pt)), "plays_as": dict(zip(self.keys, twin))}
                                       for pt, twin in self.same_as.items()]}

    def verdict(self) -> str:
        """The recommendation in one line: whether it meets every objective, then every side effect
        that moved by an amount that matters against the unchanged scenario (or that none did)."""
        b = self.best
        if b is None:
            return "no setting was verified"
        res = [(o, o.met(b["summary"], self.tolerance)) for o in self.objectives]
        missed = [f"{o.text} {r}" for o, r in res if o.op not in GOALS and r != "met"]
        head = "meets every objective" if not missed else "does not meet every objective: " + "; ".join(missed)
        goal = goal_of(self.objectives)
        if goal is not None:
            e, lo, hi = metric_ci(b["summary"], goal.metric)
            from simkit.report import fmt
            kind = fmt.kind_of(METRICS[goal.metric])
            head += f"; {goal.metric} {fmt.with_ci(e, lo, hi, kind)}: {self.goal_result()}"
        if "side_effects" not in b:
            return head
        from simkit.analysis.side_effects import sentence
        moved = sentence(b["side_effects"], self.length_unit, self.caps)
        return head + (f"; and {moved}" if moved else "; no side effect moves by an amount that matters against "
                       "the unchanged scenario on the same games (Holm-adjusted)")


def _listed(summary: dict) -> dict:
    """A run's side effects for JSON: name -> [estimate, lo, hi]."""
    from simkit.analysis.side_effects import of_summary
    return {m: list(v) for m, v in of_summary(summary).items()}


def stage_seed(seed: int, stage: str) -> int:
    """The seed of a tune's ``stage`` ("verify", "confirm"): a hash of (seed, stage) in [2**62, 2**63),
    so no run started with a small --seed, and no tune with another seed, plays the same games."""
    import hashlib
    h = int.from_bytes(hashlib.sha256(f"simkit tune {seed} {stage}".encode()).digest()[:8], "big")
    return (h >> 2) | (1 << 62)


def search(points, evaluate, objectives, *, games: int, verify_games: int, seed: int, tolerance: float,
           finalists: int = 3, lexicographic: bool = False, log=None) -> TuneResult:
    """Successive halving over ``points`` with ``evaluate(point, games, seed) -> summary``, then the
    finalists' verification and the recommendation's confirmation on fresh games (`stage_seed`)."""
    res = TuneResult([], list(objectives), tolerance=tolerance)
    alive = list(points)
    n, rnd = games, 0
    while True:
        scored = []
        for pt in alive:
            s = evaluate(pt, n, seed)
            loss = loss_of(s, objectives, tolerance, lexicographic)
            res.evaluated.append({"stage": "search", "round": rnd, "point": pt, "games": n, "seed": seed,
                                  "summary": s, "loss": loss})
            scored.append((loss, pt))
        scored.sort(key=lambda x: x[0])
        if log:
            log(f"round {rnd}: {len(alive)} settings x {n:,} games; best so far {scored[0][1]}")
        if len(alive) <= finalists:
            break
        alive = [pt for _, pt in scored[:max(finalists, (len(alive) + 1) // 2)]]
        n, rnd = n * 2, rnd + 1
    vseed = stage_seed(seed, "verify")
    for pt in alive:
        s = evaluate(pt, verify_games, vseed)
        res.verified.append({"stage": "verify", "round": rnd + 1, "point": pt, "games": verify_games,
                             "seed": vseed, "summary": s, "loss": loss_of(s, objectives, tolerance, lexicographic)})
    res.verified.sort(key=lambda e: e["loss"])
    if len(res.verified) > 1:     # the verification chose among finalists: measure the choice elsewhere
        pt, cseed = res.verified[0]["point"], stage_seed(seed, "confirm")
        s = evaluate(pt, verify_games, cseed)
        res.confirmed = {"stage": "confirm", "round": rnd + 2, "point": pt, "games": verify_games, "seed": cseed,
                         "summary": s, "loss": loss_of(s, objectives, tolerance, lexicographic)}
        if log:
            log(f"confirmation: {pt} on {verify_games:,} further fresh games")
    return res


MAX_POINTS = 64


def tune(target, knobs, objectives, config, *, base_sets=None, verify_games=None, tolerance=0.01,
         finalists=3, lexicographic=False, threads=None, out_dir=None, log=None) -> TuneResult:
    """Tune ``knobs`` (list of ``KEY=RANGE``) of ``target`` for ``objectives`` (list of text)."""
    from simkit.backends.store import atomic_write_bytes, atomic_write_json, claim_result_dir
    from simkit.engine.runner import environment, simulate, validate_config
    from simkit.scenario import load_scenario
    from simkit.scenario.sweep import cell_overrides

    base = load_scenario(target, list(base_sets or []))
    validate_config(base.spec, config)
    if not knobs:
        raise UsageError("give at least one --knob KEY=A..B (or KEY=V1,V2,... or KEY=A..B:STEP)")
    if not objectives:
        raise UsageError("give at least one --objective, e.g. first_player_advantage=0")
    if not 0 < tolerance < 1:
        raise UsageError(f"--tolerance must be between 0 and 1, got {tolerance}")
    objs = [parse_objective(o) for o in objectives]
    check_objectives(objs)
    parsed = [parse_knob(k, base.spec) for k in knobs]
    keys = [k for k, _ in parsed]
    if len(set(keys)) != len(keys):
        raise UsageError("--knob: a key is given twice")
    points = list(itertools.product(*[v for _, v in parsed]))
    if len(points) > MAX_POINTS:      # a seeded sample keeps the search bounded and reproducible
        points = random.Random(config.seed).sample(points, MAX_POINTS)
    scenarios = {pt: load_scenario(target, cell_overrides(base_sets, keys, pt)) for pt in points}
    out = claim_result_dir(out_dir)         # before the search, so a taken --out costs nothing
    # settings that resolve to identical rules play identical games: race only the first of each
    # (e.g. zero extra activations spread over any number of turns)
    from simkit.analysis.compare import same_rules
    kept: list = []
    same_as: dict = {}
    for pt in points:
        twin = next((q for q in kept if same_rules(scenarios[q], scenarios[pt])), None)
        if twin is None:
            kept.append(pt)
        else:
            same_as[pt] = twin
    points = kept
    verify_games = verify_games or 8 * config.games
    cache: dict = {}
    ends: dict = {}          # (setting, games, seed) -> the games' first, winner, length, end reason
    scenarios[None] = base   # the unchanged scenario, the side effects' reference

    def evaluate(pt, games, seed):
        k = (pt, games, seed)
        if k not in cache:
            run = simulate(scenarios[pt], replace(config, games=games, seed=seed), threads=threads,
                           progress=False, keep=True)
            cache[k], ends[k] = run.summary(), run.records()[:, :4].copy()
        return cache[k]

    t0 = time.perf_counter()
    res = search(points, evaluate, objs, games=config.games, verify_games=verify_games, seed=config.seed,
                 tolerance=tolerance, finalists=finalists, lexicographic=lexicographic, log=log)
    res.keys, res.config, res.out_dir = keys, config, Path(out_dir) if out_dir else None
    res.same_as = {pt: twin for pt, twin in same_as.items()}
    res.length_unit, res.caps = base.spec.length_unit, tuple(base.spec.cap_reasons)
    from simkit.analysis.sweep import _resolved
    side_effects(res, evaluate, ends, base.spec, tuple(_resolved(base.rules, k) for k in keys))
    if out is not None:
        import pandas as pd
        atomic_write_json(out / "tune.json", res.summary() | {"elapsed_s": round(time.perf_counter() - t0, 2)})
        atomic_write_bytes(out / "tune.csv", pd.DataFrame(res.rows()).to_csv(index=False).encode())
        atomic_write_json(out / "manifest.json", {
            "kind": "tune", "status": "complete", "scenario": base.to_dict(), "knobs": list(knobs),
            "objectives": [o.text for o in objs], "config": config.to_dict(), "versions": environment(),
            "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return res


def default_panel(spec, policy: str) -> list[str]:
    """The opponents a search's knobs are tuned against: greedy, the search itself with the current defaults
    (the previous defaults), and the search at half its budget — never a single fixed opponent."""
    from simkit.policies import MCTS, parse_policy
    c = parse_policy(spec, policy)
    panel = [p for p in ("greedy",) if p in spec.policies] + [policy]
    if c.base == MCTS and c.budget >= 2:
        panel.append(policy.replace(f"{MCTS}:{c.budget}", f"{MCTS}:{c.budget // 2}", 1))
    return panel


def strength_summary(pairs: dict) -> dict:
    """A candidate's strength from its pair scores against each opponent (``{opponent: pair scores}``, both
    seats, same seeds): the pooled mean with its score interval on {0, 1/4, 1/2, 3/4, 1}, and per opponent."""
    from simkit.analysis.matchup import PAIR_SCORES, pair_interval
    pooled = np.concatenate(list(pairs.values()))
    r = pair_interval(pooled)
    counts = [int(np.sum(np.isclose(pooled, v))) for v in PAIR_SCORES]
    return {"strength": r["score"], "strength_ci": r["ci"], "strength_counts": counts, "games": len(pooled),
            "strength_vs": {q: float(np.mean(v)) for q, v in pairs.items()}}


def tune_strength(target, knobs, objectives, config, *, panel=None, base_sets=None, verify_games=None,
                  tolerance=0.01, finalists=3, threads=None, out_dir=None, log=None) -> TuneResult:
    """Tune the search knobs of ``config.policies[0]`` (e.g. mcts:400) for strength: each setting plays every
    opponent of ``panel`` (default `default_panel`) in both seats on the same seeds, and its objective is its
    pooled expected score (``--objective strength=max``; the pooled interval treats pairs as independent,
    although a pair's games against different opponents share a seed). Racing, verification and
    confirmation as for rule knobs; a setting's knobs go on its side only (``mcts:400/mcts_c=0.5``)."""
    from simkit.analysis.matchup import pair_score
    from simkit.analysis.metrics import game_values
    from simkit.backends.store import atomic_write_bytes, atomic_write_json, claim_result_dir
    from simkit.engine.runner import environment
    from simkit.policies import _knob_text, parse_policy, side_knob_names
    from simkit.scenario import load_scenario

    base = load_scenario(target, list(base_sets or []))
    spec = base.spec
    objs = [parse_objective(o) for o in objectives]
    if len(objs) != 1 or objs[0].metric != "strength":
        raise UsageError("--objective strength is tuned alone (strength=max, or strength>=T); tune rule "
                         "objectives in a separate run")
    policy = parse_policy(spec, config.policies[0]).name
    allowed = side_knob_names(spec)
    parsed = [parse_knob(k, spec) for k in knobs]
    keys = [k for k, _ in parsed]
    if not keys:
        raise UsageError("give at least one --knob, e.g. mcts_c=0.5,1,2")
    for k in keys:
        if k not in allowed:
            raise UsageError(f"--knob {k}: a strength tune searches {policy}'s search knobs "
                             f"({', '.join(allowed) or 'none'}), not the rules")
    if len(set(keys)) != len(keys):
        raise UsageError("--knob: a key is given twice")
    panel = [parse_policy(spec, q).name for q in (panel or default_panel(spec, policy))]
    points = list(itertools.product(*[v for _, v in parsed]))
    if len(points) > MAX_POINTS:
        points = random.Random(config.seed).sample(points, MAX_POINTS)
    out = claim_result_dir(out_dir)
    verify_games = verify_games or 8 * config.games
    cache: dict = {}

    def evaluate(pt, games, seed):
        k = (pt, games, seed)
        if k not in cache:
            cand = policy + _knob_text(tuple(zip(keys, pt)))
            pairs = {}
            for q in panel:
                recs = pair_score(base, replace(config, games=games, seed=seed), cand, q, threads=threads)["records"]
                first, second = (game_values(recs[seats])["side0_score"] for seats in ((cand, q), (q, cand)))
                pairs[q] = (first + 1.0 - second) / 2      # the candidate's score in each pair of seatings
            cache[k] = strength_summary(pairs)
        return cache[k]

    t0 = time.perf_counter()
    res = search(points, evaluate, objs, games=config.games, verify_games=verify_games, seed=config.seed,
                 tolerance=tolerance, finalists=finalists, log=log)
    res.keys, res.config, res.out_dir = keys, config, Path(out_dir) if out_dir else None
    res.length_unit, res.caps, res.panel = spec.length_unit, tuple(spec.cap_reasons), panel
    if out is not None:
        import pandas as pd
        atomic_write_json(out / "tune.json", res.summary() | {"panel": panel, "policy": policy,
                                                            "elapsed_s": round(time.perf_counter() - t0, 2)})
        atomic_write_bytes(out / "tune.csv", pd.DataFrame(res.rows()).to_csv(index=False).encode())
        atomic_write_json(out / "manifest.json", {
            "kind": "tune", "status": "complete", "scenario": base.to_dict(), "knobs": list(knobs),
            "objectives": [o.text for o in objs], "panel": panel, "config": config.to_dict(),
            "versions": environment(), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return res


# an objective's metric is the target, not a side effect of reaching it
_SIDE_OF = {"draw_rate": "draw_rate", "mean_plies": "mean_plies", "decisiveness": "cap_rate"}


def side_effects(res: TuneResult, evaluate, ends: dict, spec, base_point: tuple):
    """Play the unchanged scenario on the finalists' verification games and on the recommendation's
    confirmation games, and compare each finalist (and the recommendation) with it pair by pair
    (`side_effects.paired`); with a min/max objective, also the chosen finalist with the runner-up on
    the goal's metric (paired on the verification games, which chose between them)."""
    from simkit.analysis.compare import PairedTally
    from simkit.analysis.metrics import PAIRED_METRICS
    from simkit.analysis.side_effects import paired
    if not res.verified:
        return

    def key(e):
        return (e["point"], e["games"], e["seed"])

    def tally(a, b):
        t = PairedTally()
        t.add("a", 0, ends[a])
        t.add("b", 0, ends[b])
        return t
    exclude = {_SIDE_OF[METRICS[o.metric]] for o in res.objectives if METRICS[o.metric] in _SIDE_OF}
    measured = [("verify", v) for v in res.verified] + ([("confirm", res.confirmed)] if res.confirmed else [])
    for stage, e in measured:
        ref = (None, e["games"], e["seed"])
        base = evaluate(*ref)
        res.unchanged.setdefault(stage, {"stage": f"{stage}_unchanged", "round": e["round"], "point": base_point,
                                         "games": e["games"], "seed": e["seed"], "summary": base,
                                         "loss": loss_of(base, res.objectives, res.tolerance, False)})
        e["side_effects"] = paired(tally(ref, key(e)), spec, base, e["summary"], exclude=exclude)
    goal = goal_of(res.objectives)
    if goal is not None and len(res.verified) > 1 and METRICS[goal.metric] in PAIRED_METRICS:
        v0, nxt = res.verified[0], res.verified[1]
        d = tally(key(nxt), key(v0)).difference(METRICS[goal.metric])
        v0["vs_next"] = {"setting": dict(zip(res.keys, nxt["point"])), "diff": d["diff"], "ci": list(d["ci"]),
                         "p_value": d["p_value"], "what": f"chosen - runner-up in {goal.metric} on the verification "
                                                          f"games (which chose between them)"}


def dumps(res: TuneResult) -> str:
    return json.dumps(res.summary(), indent=2, default=float)
