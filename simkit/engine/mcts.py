"""The search tree every game's MCTS policy shares (UCT, open loop, availability counts).

A game's MCTS (``games/<game>/mcts.py``) owns its state and rules; this module
owns only the tree. One iteration, as each game writes it:

    copy the real state into scratch (Storm: re-determinise the hidden cards first)
    node = ROOT; depth = 0
    while scratch is not finished:
        n = legal actions of scratch
        k, child, fresh = select_nb(ti, tf, node, actions, n, player_to_move, c, rng)
        apply actions[k] to scratch (chance sampled now: open loop)
        path[depth] = child; depth += 1; node = child
        if fresh: break                       # one new node per iteration
    r = rollout / evaluation of scratch -> reward of side 0 in [0, 1]
    backprop_nb(ti, tf, path, depth, r)
    ...
    best_action_nb(ti, tf) -> the most visited root action

Open loop: a node is a sequence of actions, not a state, so dice and card draws
are sampled afresh each iteration and the legal actions below a node may differ
between iterations. Selection therefore only considers children whose action is
legal now, and counts how often each child was *available* (``TF_AVAIL``); UCB
uses that count instead of the parent's visits (Cowling et al. 2012, ISMCTS).
For a deterministic game the two are equal and this is plain UCT.

Storage: two preallocated arrays, ``ti`` int32 (capacity, TI_N) and ``tf``
float64 (capacity, TF_N); node 0 is the root; ``ti[ROOT, TI_COUNT]`` holds the
number of nodes in use. Capacity ``budget + 2`` is enough (one node per iteration).
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb

ROOT = 0
# ti columns
TI_ACTION, TI_PARENT, TI_FIRST, TI_NEXT, TI_PLAYER, TI_COUNT = 0, 1, 2, 3, 4, 5
TI_N = 6
# tf columns: visits, summed reward of the player who chose the node's action, availability
TF_VISITS, TF_VALUE, TF_AVAIL = 0, 1, 2
TF_N = 3


def new_tree(budget: int):
    """Tree arrays for searches of up to ``budget`` iterations."""
    cap = int(budget) + 2
    return np.zeros((cap, TI_N), dtype=np.int32), np.zeros((cap, TF_N), dtype=np.float64)


@njit(cache=True)
def tree_reset_nb(ti, tf):
    ti[ROOT, TI_ACTION] = -1
    ti[ROOT, TI_PARENT] = -1
    ti[ROOT, TI_FIRST] = -1
    ti[ROOT, TI_NEXT] = -1
    ti[ROOT, TI_PLAYER] = -1
    ti[ROOT, TI_COUNT] = 1
    tf[ROOT, TF_VISITS] = 0.0
    tf[ROOT, TF_VALUE] = 0.0
    tf[ROOT, TF_AVAIL] = 0.0


@njit(cache=True)
def _add_child_nb(ti, tf, node, action, player):
    c = ti[ROOT, TI_COUNT]
    ti[ROOT, TI_COUNT] = c + 1
    ti[c, TI_ACTION] = action
    ti[c, TI_PARENT] = node
    ti[c, TI_FIRST] = -1
    ti[c, TI_NEXT] = ti[node, TI_FIRST]
    ti[c, TI_PLAYER] = player
    ti[c, TI_COUNT] = 0
    ti[node, TI_FIRST] = c
    tf[c, TF_VISITS] = 0.0
    tf[c, TF_VALUE] = 0.0
    tf[c, TF_AVAIL] = 0.0
    return c


@njit(cache=True)
def select_nb(ti, tf, node, actions, n, player, c, rng):
    """Choose among the ``n`` legal ``actions`` below ``node`` for ``player``.

    Returns ``(k, child, fresh)``: index into ``actions``, the child node, and
    whether it was just created. An untried legal action is expanded first (the
    first untried one in a uniformly random order); else UCB1 with availability.
    When the tree is full, no node is added: the best existing child is taken, or
    a random action with ``child = -1`` (the caller then stops descending).
    """
    # mark availability; find an untried action uniformly among the untried ones
    untried = 0
    pick = -1
    for k in range(n):
        a = actions[k]
        ch = ti[node, TI_FIRST]
        while ch >= 0 and ti[ch, TI_ACTION] != a:
            ch = ti[ch, TI_NEXT]
        if ch >= 0:
            tf[ch, TF_AVAIL] += 1.0
        else:
            untried += 1
            if rng_below_nb(rng, untried) == 0:
                pick = k
    full = ti[ROOT, TI_COUNT] >= ti.shape[0]
    if pick >= 0 and not full:
        return pick, _add_child_nb(ti, tf, node, actions[pick], player), True
    best = -1.0e300
    bk = -1
    bch = -1
    ties = 0
    for k in range(n):
        a = actions[k]
        ch = ti[node, TI_FIRST]
        while ch >= 0 and ti[ch, TI_ACTION] != a:
            ch = ti[ch, TI_NEXT]
        if ch < 0:
            continue
        v = tf[ch, TF_VISITS]
        if v <= 0.0:
            u = 1.0e200
        else:
            u = tf[ch, TF_VALUE] / v + c * np.sqrt(np.log(max(tf[ch, TF_AVAIL], 1.0)) / v)
        if u > best + 1e-12:
            best, bk, bch, ties = u, k, ch, 1
        elif u >= best - 1e-12:
            ties += 1
            if rng_below_nb(rng, ties) == 0:
                bk, bch = k, ch
    if bk < 0:          # tree full and nothing expanded here: act at random, stop descending
        return rng_below_nb(rng, n), -1, False
    return bk, bch, False


@njit(cache=True)
def backprop_nb(ti, tf, path, depth, reward0):
    """Add one visit along ``path[:depth]``; ``reward0`` is side 0's reward in [0, 1]."""
    tf[ROOT, TF_VISITS] += 1.0
    for i in range(depth):
        node = path[i]
        tf[node, TF_VISITS] += 1.0
        if ti[node, TI_PLAYER] == 0:
            tf[node, TF_VALUE] += reward0
        else:
            tf[node, TF_VALUE] += 1.0 - reward0


@njit(cache=True)
def best_action_nb(ti, tf, rng):
    """The root action with the most visits (ties uniformly); -1 if the root has no child."""
    best = -1.0
    action = -1
    ties = 0
    ch = ti[ROOT, TI_FIRST]
    while ch >= 0:
        v = tf[ch, TF_VISITS]
        if v > best:
            best, action, ties = v, ti[ch, TI_ACTION], 1
        elif v == best:
            ties += 1
            if rng_below_nb(rng, ties) == 0:
                action = ti[ch, TI_ACTION]
        ch = ti[ch, TI_NEXT]
    return action


@njit(cache=True, inline="always")
def reward_from_eval_nb(value0, scale):
    """Side 0's reward for a cut-off rollout: a logistic squash of side 0's evaluation lead."""
    x = value0 / scale
    if x > 30.0:
        return 1.0
    if x < -30.0:
        return 0.0
    return 1.0 / (1.0 + np.exp(-x))


@njit(cache=True, inline="always")
def reward_from_winner_nb(winner):
    """Side 0's reward for a finished game: 1 win, 0.5 draw, 0 loss."""
    if winner == 0:
        return 1.0
    if winner == 1:
        return 0.0
    return 0.5
