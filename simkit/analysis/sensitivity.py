"""`simkit sensitivity`: which rule numbers move the balance, one step at a time.

For every numeric rule option (or a given list) the scenario is played at the
option's value one step down and one step up (the option's declared ``step``, else
integers ±1 and floats ±10% of the value, ±0.1 at 0), clipped to the option's bounds, with the same seed and game
indices as the base (common random numbers). Each effect is the paired mean of the
per-game difference variant − base, with a 95% interval:

- first-player advantage: the first player's score (win 1, draw 1/2); its differences lie on
  {-1, -1/2, 0, 1/2, 1}: the score interval on that support,
- draw rate: the draw indicator; differences on {-1, 0, 1}: Tango's score interval,
- game length: plies or turns; a paired t interval (rule-of-three floor in units of the
  longest game when every difference is equal).

A small step often changes few games (most pairs identical), where a t interval on the
differences undercovers; the score intervals do not (docs/metrics.md, "Coverage").

p-values are Holm-adjusted over every effect the command tests (all options, both
steps, all three metrics), and the table says so. Policy knobs (greedy weights,
MCTS settings; ``Option.policy_knob``) are not rules and are left out by default.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.errors import ScenarioError, UsageError

EFFECTS = {"first_player_advantage": "first_score", "draw_rate": "draw", "mean_length": "plies"}
# the known support of each discrete effect's per-game difference (length has none: t interval)
SUPPORT = {"first_player_advantage": (-1.0, -0.5, 0.0, 0.5, 1.0), "draw_rate": (-1.0, 0.0, 1.0)}


def effect(metric: str, variant: np.ndarray, base: np.ndarray) -> dict:
    """variant - base of one metric's per-game values in paired games: mean, 95% interval, p."""
    from simkit.analysis.stats import discrete_mean, paired_mean
    d = np.asarray(variant, dtype=np.float64) - np.asarray(base, dtype=np.float64)
    if metric in SUPPORT:
        r = discrete_mean(d, SUPPORT[metric])
        return {"effect": r["mean"], "ci": r["ci"], "p_value": r["p_value"]}
    longest = float(max(np.max(variant, initial=0), np.max(base, initial=0), 1))
    r = paired_mean(float(d.sum()), float((d * d).sum()), len(d), span=longest)
    return {"effect": r["diff"], "ci": r["ci"], "p_value": r["p_value"]}


def steps_of(option, value) -> list[tuple[str, object]]:
    """The (direction, value) variants of one numeric option around ``value``, inside its bounds."""
    if option.step is not None:
        cand = [("down", round(value - option.step, 12)), ("up", round(value + option.step, 12))]
    elif option.kind == "int":
        cand = [("down", value - 1), ("up", value + 1)]
    else:
        d = abs(value) * 0.1 if value else 0.1
        cand = [("down", round(value - d, 12)), ("up", round(value + d, 12))]
    out = []
    for direction, v in cand:
        if option.min is not None and v < option.min:
            continue
        if option.max is not None and v > option.max:
            continue
        out.append((direction, v))
    return out


def rule_knobs(spec) -> list:
    return [o for o in spec.options if o.kind in ("int", "float") and not o.policy_knob]


@dataclass
class SensitivityResult:
    game: str
    scenario: str
    rows: list            # option, direction, value, base_value, metric, effect, ci_lo, ci_hi, p, p_holm
    skipped: list         # (option, value, reason)
    config: object
    out_dir: Path | None = None

    @property
    def table(self):
        import pandas as pd
        return pd.DataFrame(self.rows)

    def summary(self) -> dict:
        return {"kind": "sensitivity", "game": self.game, "scenario": self.scenario,
                "effects": "variant - base, paired per game on common random numbers, 95% interval (score "
                           "interval on the differences' support for first-player advantage and draw rate, "
                           "paired t for length); p-values Holm-adjusted over all effects tested",
                "rows": self.rows, "skipped": [{"option": o, "value": v, "reason": r} for o, v, r in self.skipped],
                "config": self.config.to_dict()}


def sensitivity(target, config, *, options=None, base_sets=None, threads=None, out_dir=None, log=None):
    from simkit.analysis.metrics import game_values
    from simkit.backends.store import atomic_write_bytes, atomic_write_json, claim_result_dir
    from simkit.engine.runner import environment, simulate, validate_config
    from simkit.scenario import load_scenario
    from simkit.scenario.sweep import cell_overrides

    base = load_scenario(target, list(base_sets or []))
    spec = base.spec
    validate_config(spec, config)
    knobs = rule_knobs(spec)
    if options:
        names = {o.name: o for o in spec.options}
        bad = [n for n in options if n not in names or names[n].kind not in ("int", "float")]
        if bad:
            numeric = ", ".join(o.name for o in spec.options if o.kind in ("int", "float"))
            raise UsageError(f"--option: {', '.join(bad)} is not a numeric rule option of {spec.name}; "
                             f"numeric options: {numeric}")
        knobs = [names[n] for n in options]
    if not knobs:
        raise UsageError(f"{spec.name} has no numeric rule option to vary")
    out = claim_result_dir(out_dir)
    t0 = time.perf_counter()
    vb = game_values(simulate(base, config, threads=threads, progress=False, keep=True).records())
    rows, skipped = [], []
    for o in knobs:
        value = base.rules[o.name]
        for direction, v in steps_of(o, value):
            try:
                sc = load_scenario(target, cell_overrides(base_sets, [o.name], (v,)))
            except ScenarioError as e:
                skipped.append((o.name, v, str(e)))
                continue
            vv = game_values(simulate(sc, config, threads=threads, progress=False, keep=True).records())
            for metric, col in EFFECTS.items():
                e = effect(metric, vv[col], vb[col])
                rows.append({"option": o.name, "direction": direction, "value": v, "base_value": value,
                             "metric": metric, "effect": e["effect"], "ci_lo": e["ci"][0], "ci_hi": e["ci"][1],
                             "p_value": e["p_value"]})
            if log:
                fpa = next(r for r in rows[::-1] if r["metric"] == "first_player_advantage")
                log(f"{o.name}={v} ({direction}): first-player advantage {fpa['effect']:+.4f}")
    _holm(rows)
    res = SensitivityResult(spec.name, base.name, rows, skipped, config, out)
    if out is not None:
        atomic_write_json(out / "sensitivity.json", res.summary() | {"elapsed_s": round(time.perf_counter() - t0, 2)})
        atomic_write_bytes(out / "sensitivity.csv", res.table.to_csv(index=False).encode())
        atomic_write_json(out / "manifest.json", {
            "kind": "sensitivity", "status": "complete", "scenario": base.to_dict(), "config": config.to_dict(),
            "versions": environment(), "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")})
    return res


def _holm(rows):
    ps = np.array([r["p_value"] for r in rows], dtype=float)
    ok = np.isfinite(ps)
    adj = np.full(len(rows), math.nan)
    if ok.any():
        from statsmodels.stats.multitest import multipletests
        adj[ok] = multipletests(ps[ok], method="holm")[1]
    for r, a in zip(rows, adj):
        r["p_holm"] = float(a)


def tornado_order(rows, metric: str) -> list[str]:
    """Options sorted by their largest absolute effect on ``metric``, largest first."""
    best: dict = {}
    for r in rows:
        if r["metric"] == metric and not math.isnan(r["effect"]):
            best[r["option"]] = max(best.get(r["option"], 0.0), abs(r["effect"]))
    return sorted(best, key=lambda k: -best[k])


def dumps(res) -> str:
    return json.dumps(res.summary(), indent=2, default=float)
