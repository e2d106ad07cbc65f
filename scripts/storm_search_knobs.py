"""Storm the Castle's search: the measurements behind its knob defaults (docs/games/storm_the_castle.md).

    python scripts/storm_search_knobs.py calibrate [--games 600]
        How well the material lead (evaluate.lead_nb, the trajectory's value) predicts the result of
        greedy self-play: side 0's mean score by lead band at the start of each turn.
    python scripts/storm_search_knobs.py panel --budget 100 --games 100 [--vary mcts_scale=4,8,16 ...]
        Each knob setting's mcts:BUDGET against a panel, both seat orders on common seeds
        (simkit.analysis.matchup.pair_score, the ladder's own scoring): greedy, and mcts:BUDGET/4
        with the same knobs (the rung a budget must beat). Without --vary: the defaults.
    python scripts/storm_search_knobs.py plans --budget 100 --seeds 20
        Does the per-decision tree plan a turn's actions together? Hand-built positions whose best
        turn needs two decisions in the right order (module PLANS); how often the search plays both.

Every number the docs quote about the search's knobs comes from one of these commands.
"""
from __future__ import annotations

import argparse
import time

import numpy as np

GAME = "storm_the_castle"


def calibrate(games: int, seed: int = 11) -> None:
    from simkit.games.storm_the_castle import SPEC
    from simkit.policies import policy_vector
    from simkit.scenario import load_scenario
    params = load_scenario(GAME).params()
    pv = tuple(int(x) for x in policy_vector(SPEC, ["greedy", "greedy"]))
    leads, scores = [], []
    for g in range(games):
        values, _, _, rec = SPEC.trajectory(params, seed, g, g % 2, pv)
        y = 1.0 if rec[1] == 0 else 0.0 if rec[1] == 1 else 0.5
        leads += list(values[:-1])
        scores += [y] * (len(values) - 1)
    lead, score = np.array(leads), np.array(scores)
    print(f"greedy self-play, {games} games (seed {seed}), {len(lead)} turn starts: side 0's final score by its "
          "lead (lead_nb, card-value units) at the start of the turn")
    print("| lead | turn starts | side 0's mean score |\n| --- | --- | --- |")
    for lo, hi in ((-1e9, -20), (-20, -10), (-10, 0), (0, 10), (10, 20), (20, 1e9)):
        m = (lead >= lo) & (lead < hi)
        band = f"< {hi:g}" if lo < -1e8 else (f">= {lo:g}" if hi > 1e8 else f"[{lo:g}, {hi:g})")
        print(f"| {band} | {m.sum()} | {score[m].mean():.3f} |")


def panel(budget: int, games: int, varies: list[str], seed: int = 7) -> None:
    from simkit.analysis.matchup import pair_score
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    settings = [[]]
    for v in varies:
        key, values = v.split("=", 1)
        settings = [s + [f"{key}={x}"] for s in settings for x in values.split(",")]
    below = max(budget // 4, 1)
    print(f"mcts:{budget} against greedy and against mcts:{below} (same knobs), {games} games per seat order, "
          f"seed {seed}: score [95% interval], draws")
    print(f"| setting | vs greedy | vs mcts:{below} | mean | seconds |\n| --- | --- | --- | --- | --- |")
    for s in settings:
        sc = load_scenario(GAME, s)
        cfg = RunConfig(games=games, seed=seed, policies=("greedy", "greedy"))
        t = time.time()
        cells = [pair_score(sc, cfg, f"mcts:{budget}", q) for q in ("greedy", f"mcts:{below}")]
        text = [f"{c['score']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] d{c['draw_rate']:.2f}" for c in cells]
        mean = np.mean([c["score"] for c in cells])
        print(f"| {' '.join(s) or 'defaults'} | {text[0]} | {text[1]} | {mean:.3f} | {time.time() - t:.0f} |",
              flush=True)


# Positions whose turn needs two decisions in order (side 0 to move, action phase); the second
# decision's label, and what the first may be. Built with tests/storm_helpers.Table.
PLANS = {
    "two Support units stacked in the enemy keep: kill the top one, then the other with another unit "
    "(it advances in)": (
        [(0, "knight", "TL1"), (0, "shield_bearer", "BL1"), (0, "cavalry", "L3"), (0, "hero", "K0"),
         (0, "knight", "OR0"), (1, "cleric", "K1"), (1, "sorcerer", "K1"), (1, "catapult", "HR1"),
         (1, "assassin", "OR1")],
        ("attack TL1/top -> K1/top", "attack BL1/top -> K1/top"), "win"),
    "a Catapult kills the enemy keep's lone Cleric, then a Sorcerer (no attack) walks in": (
        [(0, "catapult", "OL1"), (0, "sorcerer", "BL1"), (0, "knight", "K0"), (0, "cavalry", "L4"),
         (1, "cleric", "K1"), (1, "shield_bearer", "HR1"), (1, "knight", "TR1")],
        ("attack OL1/top -> K1/top",), "win"),
    "a Sorcerer's +3 before its Knight attacks the enemy keep's lone Shield Bearer (15/36 instead of 3/36)": (
        [(0, "knight", "TL1"), (0, "sorcerer", "TL1"), (0, "hero", "K0"), (0, "cavalry", "L2"),
         (1, "shield_bearer", "K1"), (1, "knight", "HR1"), (1, "assassin", "L3")],
        ("sorcerer TL1/under",), "attack TL1/top -> K1/top"),
}


def _pick(g, budget, srch, decision_label):
    """The search's decision label at ``g`` and {label: option} of the legal options."""
    code = g.search(budget, srch)
    return decision_label(g.p, code), {decision_label(g.p, g.code(o)): o for o in g.options()}


def plans(budget: int, seeds: int) -> None:
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from storm_helpers import Table   # noqa: E402 (a test helper: builds positions by hand)
    from simkit.games.storm_the_castle.play import policy_array, search_scratch
    from simkit.games.storm_the_castle.search import decision_label
    from simkit.games.storm_the_castle.state import G_OVER, G_WINNER
    print(f"mcts:{budget} from hand-built positions, {seeds} seeds each: how often it plays the two decisions")
    print("| position | first decision right | both right |\n| --- | --- | --- |")
    for name, (cards, firsts, second) in PLANS.items():
        ok1 = ok2 = 0
        for seed in range(seeds):
            t = Table(side=0)
            for side, card, space in cards:
                t.put(side, card, space)
            g = t.g
            srch = search_scratch(g.p, policy_array([0, 0, budget, budget]))
            g.rng[:] = np.uint64(1000 + seed)
            first, labels = _pick(g, budget, srch, decision_label)
            if first not in firsts:
                continue
            ok1 += 1
            g.apply(labels[first], roll=12)       # an attack's roll: a success (the plan's outcome)
            nxt, labels = _pick(g, budget, srch, decision_label)
            if second == "win":
                g.apply(labels[nxt], roll=12)
                ok2 += g.g[G_OVER] == 1 and g.g[G_WINNER] == 0
            else:
                ok2 += nxt == second
        print(f"| {name} | {ok1}/{seeds} | {ok2}/{seeds} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("calibrate")
    c.add_argument("--games", type=int, default=600)
    p = sub.add_parser("panel")
    p.add_argument("--budget", type=int, default=100)
    p.add_argument("--games", type=int, default=100)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--vary", action="append", default=[], help="KEY=V1,V2,... (repeatable: the grid)")
    q = sub.add_parser("plans")
    q.add_argument("--budget", type=int, default=100)
    q.add_argument("--seeds", type=int, default=20)
    a = ap.parse_args(argv)
    if a.cmd == "calibrate":
        calibrate(a.games)
    elif a.cmd == "plans":
        plans(a.budget, a.seeds)
    else:
        panel(a.budget, a.games, a.vary, a.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
