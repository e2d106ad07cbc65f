"""Skorm's search defaults and trajectories, measured (docs/games/skorm.md "Search agent (MCTS)").

    python scripts/skorm_search.py knobs [--budget 200] [--pairs 30] [--seed 3]
    python scripts/skorm_search.py claims [--games 200]

``knobs``: each setting of the search knobs below (one knob away from the defaults) plays paired games
(game i twice, seats swapped, same seed) at ``mcts:BUDGET`` against a fixed panel: ``greedy``, the
defaults at a quarter of the budget, and the defaults at the same budget (head to head). A knob setting
is a rule option, the same for both sides in a ``simkit matchup``; here each ply is played with the
params of the side to move through the step API (``Game.play``), so two settings can meet. Prints one
markdown table row per setting: expected score, 95% score interval of the pair scores; and the mean over
the panel.

``claims``: quality trajectories of random and greedy self-play, default scenario, seed 0: how many
games show, before their last ply, a position the evaluation calls settled (lead +-WON_LEAD) for the
side that went on to lose, the largest mid-game lead, and the lead changes per game (as
``simkit quality`` counts them).
"""
from __future__ import annotations

import argparse
import sys

import numpy as np

from simkit.games.skorm.evaluate import WON_LEAD
from simkit.games.skorm.play import Game, trajectory
from simkit.games.skorm.policies import POL_GREEDY, POL_MCTS, POL_RANDOM
from simkit.games.skorm.rules import MCTS, default_rules, prepare

# the settings the knobs table compares with the defaults (one knob changed at a time)
SETTINGS = [{}, {"mcts_c": 0.5}, {"mcts_c": 2.0}, {"mcts_prior_temp": 0.5}, {"mcts_prior_temp": 2.0},
            {"mcts_scale": 2.0}, {"mcts_scale": 8.0}, {"mcts_cutoff": 0}, {"mcts_cutoff": 4},
            {"mcts_fpu": 0.1}, {"mcts_rollout": "random"}]


def play(pa, pb, ba: int, bb: int, seed: int, game: int, a_side: int) -> float:
    """Side ``a_side`` plays with params ``pa`` and budget ``ba`` (0: greedy), the other with ``pb``,
    ``bb``; returns a_side's score."""
    g = Game(pa, seed=seed, game=game, first=game % 2)
    while not g.done:
        mine = g.to_move == a_side
        g.params = pa if mine else pb
        b = ba if mine else bb
        g.play(POL_GREEDY if b == 0 else POL_MCTS, budget=b)
    return 0.5 if g.winner < 0 else float(g.winner == a_side)


def paired(pa, pb, ba, bb, pairs, seed):
    """A's mean pair score over ``pairs`` paired games and its 95% score interval (`pair_interval`: on the
    five values a pair can score, never a t interval on a handful of discrete outcomes)."""
    from simkit.analysis.matchup import pair_interval
    x = np.array([(play(pa, pb, ba, bb, seed, i, 0) + play(pa, pb, ba, bb, seed, i, 1)) / 2 for i in range(pairs)])
    pm = pair_interval(x)
    return pm["score"], pm["ci"]


def label(setting: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in setting.items()) or "defaults (" + ", ".join(
        f"mcts_{k}={v}" for k, v in MCTS.items()) + ")"


def knobs(budget: int, pairs: int, seed: int, settings=SETTINGS):
    base = prepare(default_rules())
    print(f"| setting (mcts:{budget}) | vs greedy | vs defaults mcts:{budget // 4} | vs defaults mcts:{budget} "
          "| panel mean |")
    print("| --- | --- | --- | --- | --- |")
    for s in settings:
        p = prepare(default_rules(**s))
        cells = []
        means = []
        for bb in (0, budget // 4, budget):
            if bb == budget and not s:
                means.append(0.5)     # the defaults against themselves: the same games from both seats
                cells.append("0.5 (itself)")
                continue
            m, (lo, hi) = paired(p, base, budget, bb, pairs, seed)
            means.append(m)
            cells.append(f"{m:.3f} [{lo:.3f}, {hi:.3f}]")
        print(f"| {label(s)} | " + " | ".join(cells) + f" | {np.mean(means):.3f} |", flush=True)
    print(f"\n{pairs} pairs of games per cell (both seat orders), seed {seed}; 95% score intervals of the pair scores.")


def claims(games: int):
    from simkit.analysis.quality import chances, lead_changes
    params = prepare(default_rules())
    scale = float(MCTS["scale"])
    print("| self-play | games | loser shown settled mid-game | largest mid-game lead | lead changes / game |")
    print("| --- | --- | --- | --- | --- |")
    for name, pol in (("random", POL_RANDOM), ("greedy", POL_GREEDY)):
        wrong = 0
        biggest = 0.0
        changes = []
        for g in range(games):
            v, _, _, rec = trajectory(params, 0, g, g % 2, (pol, pol))
            w = int(rec[1])
            mid = v[:-1]
            biggest = max(biggest, float(np.abs(mid).max()))
            if w in (0, 1) and np.any((mid if w == 1 else -mid) >= WON_LEAD):
                wrong += 1
            changes.append(lead_changes(chances(v, scale)))
        print(f"| {name} | {games} | {wrong} | {biggest:g} | {np.mean(changes):.2f} |", flush=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    k = sub.add_parser("knobs")
    k.add_argument("--budget", type=int, default=200)
    k.add_argument("--pairs", type=int, default=30)
    k.add_argument("--seed", type=int, default=3)
    c = sub.add_parser("claims")
    c.add_argument("--games", type=int, default=200)
    a = ap.parse_args(argv)
    if a.what == "knobs":
        knobs(a.budget, a.pairs, a.seed)
    else:
        claims(a.games)
    return 0


if __name__ == "__main__":
    sys.exit(main())
