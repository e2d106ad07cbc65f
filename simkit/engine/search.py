"""The one search engine: Monte-Carlo tree search over a game's hooks (the ``mcts:N`` policy).

A game writes hooks, not a search. The engine owns the iteration loop, selection
(PUCT over the game's heuristic priors), expansion, chance nodes with exact
probabilities, the rollout horizon, decisive moves, solver backups, and the final
choice. docs/search.md explains the algorithm and its knobs for designers.

**Hooks.** A game hands its jitted hook functions to ``make_search`` once, in this order, and
its kernels call the ``search_nb`` it returns (``P`` is
the game's constant tuple: prepared rules, tables and the knob vector; ``S`` a search
state: a tuple of arrays the game defines, changed in place)::

    copy_nb(P, src, dst)                  copy a search state
    determinise_nb(P, S, player, rng)     redeal what ``player`` cannot see (no-op without hidden cards)
    status_nb(P, S) -> int                ONGOING (-2), or the winner (0 or 1) or -1 for a draw
    to_move_nb(P, S) -> int               the side that decides next (no chance event pending)
    turn_nb(P, S) -> int                  turns ended so far (a turn: one side's whole turn)
    decisions_nb(P, S, codes, scores) -> n    the decisions of the side to move: action codes
                                          (the step API's ids) and heuristic scores (higher is better,
                                          in the game's evaluation units; >= DECISIVE: wins at once)
    apply_nb(P, S, code, rng)             play a decision; it may leave a chance event pending
    chance_nb(P, S, outcomes, probs) -> m the pending chance event's outcome classes and exact
                                          probabilities (0 when none is pending)
    resolve_nb(P, S, outcome, rng)        settle the pending chance event with that outcome
    evaluate_nb(P, S) -> float            side 0's expected score in [0, 1] of an unfinished position
    rollout_nb(P, S, policy, horizon, rng)    settle a pending chance event as the game rolls it, then play
                                          on (policy 0 random, 1 greedy) until the game is over or
                                          ``turn_nb >= horizon``; it never stops with a chance event pending
    closed_loop_nb(P) -> bool             True when a sequence of decisions and chance outcomes from the
                                          root always reaches the same position (no hidden cards, no
                                          randomness outside chance events): the tree then stores each
                                          node's decisions once, and proves losses as well as wins

**Tree.** Nodes are positions reached by an edge (a decision or a chance outcome);
``ti`` (int32) and ``tf`` (float64) hold one row per node, node 0 is the root. A node
is expanded on its first visit: all its decisions (or chance outcomes) become
children at once, contiguous and linked (``TI_NEXT``) so that an open-loop visit can
append a decision it had not seen. In a game with the ``decisive_nb`` hook (below, ``make_search``)
a decision node that cannot hold a decisive win is listed at its second visit instead (``K_LEAF``
until then): most leaves are visited once, and listing their decisions was work nothing read.
A node's value is kept for its *owner*: the side that chose the decision leading to it (an
outcome node inherits its chance node's owner), as the sum of that side's rewards in [0, 1].

**One iteration.** Copy the root into scratch (and determinise it for the root
player), descend from the root: at a decision node pick the child maximising

    Q + c * prior * sqrt(avail) / (1 + visits)        (PUCT, Silver et al. 2017)

where ``avail`` counts the parent's visits in which that decision was legal (Cowling
et al. 2012, counting the creating visit), ``prior`` is a softmax of the game's scores
at temperature ``mcts_prior_temp``, and an unvisited child's Q is its parent's mean
for the mover minus ``mcts_fpu``; at a chance node take the outcome furthest below its
share (visits / probability smallest: stratified, so the tree sees each outcome in
proportion to its exact probability). A chance child's Q is the probability-weighted
mean of its outcomes' values. The first unexpanded node is expanded and scored: a
finished game by its result, otherwise by a rollout up to ``mcts_cutoff`` turns after
the root's turn (0: none) and the game's evaluation; a leaf with a chance event pending
is scored as the probability-weighted mean over its outcomes (no rollout) or by one
sampled outcome (rollout). The reward is added along the path.

**Solver.** A finished position is proven; a decision node is proven won when one of
its decisions is (and, in a closed-loop game, proven lost when all are); a chance node
when all its outcomes are proven alike. Proven nodes are scored exactly, a proven loss
is never chosen while anything else is, and a proven win at the root is played at once.
A finished draw is worth 1/2 to both sides, or 1/2 - ``mcts_contempt`` to the searching side
(a draw-averse player: the draw diagnosis's probe). A decision the game scores ``>= DECISIVE``
wins at once (taking the enemy Warlord, walking into the keep): it is proven at creation when
``mcts_decisive`` is on.

**Choice.** The root decision with most visits (a proven win first, a proven loss
last; ties by value, then uniformly at random from the game's stream). With ``mcts_stop`` the
search ends once no other decision can overtake the most visited one in the iterations left
(`settled_nb`): the same choice for fewer iterations, unless the iterations left would have proven
a decision won or lost.

**Reuse** (``mcts_reuse``, a game with a ``same_nb`` hook). The search predicts the position after the
decision it plays; the next search on the same tree starts from the node of that position (the decision
itself, or the other side's reply below it) when its root is that position, and runs only the iterations
the budget has left (``make_search``'s docstring).

Everything is allocated once per searcher (``new_tree``); an iteration allocates
nothing. The engine is compiled without numba's reference counting (``_nrt=False``):
with it, every hook call increfs and decrefs each array of the ``P`` and ``S`` tuples,
which was a third of Storm the Castle's search time. A hook therefore must not need it
either: no allocation, no array-to-array slice assignment (``copy_into_nb`` copies);
numba says "NRT required but not enabled" when one does. The engine compiles into
each game's kernels (it takes the game's hooks as arguments, so it is specialised per
game) and is cached with them.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb, rng_float_nb
from simkit.policies import (MC_C, MC_CONTEMPT, MC_CUTOFF, MC_DECISIVE, MC_FPU, MC_PRIOR_T, MC_REUSE, MC_ROLLOUT,
                             MC_STOP)

ONGOING = -2                   # status_nb while the game goes on
DECISIVE = 1.0e9               # a decision score meaning "wins at once" (exact, not a heuristic)

# node kinds (K_LEAF: a decision node scored once, its decisions listed at its next visit; make_search's decisive_nb)
K_NEW, K_DECISION, K_CHANCE, K_TERMINAL, K_LEAF = 0, 1, 2, 3, 4
# ti columns (int32)
TI_CODE, TI_PARENT, TI_FIRST, TI_NEXT, TI_OWNER, TI_KIND, TI_MOVER, TI_PROVEN, TI_STAMP = range(9)
TI_N = 9
# tf columns (float64): visits, summed reward of the owner, availability, prior (decision) or probability
# (outcome), and the mean reward value / visits of a visited node (kept with them, _set_visits_nb: selection
# reads every child's mean at every descent, so it is divided once per update instead)
TF_VISITS, TF_VALUE, TF_AVAIL, TF_PRIOR, TF_MEAN = range(5)
TF_N = 5
ROOT = 0
# ti[ROOT, ...] and tf[ROOT, ...] also hold the tree's bookkeeping in columns no root uses
TI_COUNT = TI_CODE             # nodes in use (the root's code is meaningless)
TI_REUSE = TI_NEXT             # the root's child the next search may start from (mcts_reuse), or -1
TI_STAMPS = TI_STAMP           # visit stamps used so far: the next search's first (a reused subtree keeps its own)
TF_BAN = TF_AVAIL              # the ban mask of the search that grew the tree (a reused subtree was grown with it)

ROLLOUT_RANDOM, ROLLOUT_GREEDY = 0, 1   # mcts_rollout (simkit.policies.ROLLOUTS)


def tree_capacity(budget: int, width: int) -> int:
    """Nodes a search of ``budget`` iterations may need: the root plus one expansion of at most ``width``
    children per iteration. A full tree stops expanding (its leaves are then scored where they stand)."""
    return (int(budget) + 2) * max(int(width), 1) + 1


@njit(cache=True)
def new_tree_nb(cap, maxa, maxo):
    """A searcher's arrays: ``ti``, ``tf``, the descent path, decision codes (int32, as the tree keeps them),
    scores and priors (``maxa``), chance outcomes and probabilities (``maxo``)."""
    return (np.zeros((cap, TI_N), np.int32), np.zeros((cap, TF_N), np.float64), np.zeros(cap, np.int64),
            np.zeros(maxa, np.int32), np.zeros(maxa, np.float64), np.zeros(maxa, np.float64),
            np.zeros(max(maxo, 1), np.int64), np.zeros(max(maxo, 1), np.float64))


@njit(cache=True, _nrt=False, inline="always")
def copy_into_nb(src, dst):
    """Copy C-contiguous ``src`` into ``dst`` of the same shape, for a game's ``copy_nb``: slice assignment
    (``dst[:, :] = src``) needs numba's reference counting, which the engine is compiled without. The
    arrays are walked flat (``.flat`` of a C array is one running index): a ``reshape`` view called numba's
    C helper for every array of every copy, twice the cost of copying a small array."""
    out = dst.flat
    i = 0
    for x in src.flat:
        out[i] = x
        i += 1


@njit(cache=True, _nrt=False, inline="always")
def same_array_nb(a, b):
    """Are C-contiguous ``a`` and ``b`` (same shape) equal element by element? For a game's ``same_nb``."""
    y = b.flat
    i = 0
    for x in a.flat:
        if x != y[i]:
            return False
        i += 1
    return True


@njit(cache=True, _nrt=False, inline="always")
def reward_from_winner_nb(winner, draw0=0.5):
    """Side 0's reward of a finished game: 1 win, 0 loss, ``draw0`` a draw (0.5, or moved by contempt)."""
    if winner == 0:
        return 1.0
    if winner == 1:
        return 0.0
    return draw0


@njit(cache=True, _nrt=False, inline="always")
def squash_nb(lead0, scale):
    """Side 0's expected score from its evaluation lead: logistic(lead / scale) (a lead of ``scale`` is 73%)."""
    x = lead0 / scale
    if x > 30.0:
        return 1.0
    if x < -30.0:
        return 0.0
    return 1.0 / (1.0 + np.exp(-x))


@njit(cache=True, _nrt=False, inline="always")
def _init_node_nb(ti, tf, c, code, parent, owner, prior):
    ti[c, TI_CODE] = code
    ti[c, TI_PARENT] = parent
    ti[c, TI_FIRST] = -1
    ti[c, TI_NEXT] = -1
    ti[c, TI_OWNER] = owner
    ti[c, TI_KIND] = K_NEW
    ti[c, TI_MOVER] = -1
    ti[c, TI_PROVEN] = 0
    ti[c, TI_STAMP] = -1
    tf[c, TF_VISITS] = 0.0
    tf[c, TF_VALUE] = 0.0
    tf[c, TF_MEAN] = 0.0
    tf[c, TF_AVAIL] = 0.0
    tf[c, TF_PRIOR] = prior


@njit(cache=True, _nrt=False)
def tree_reset_nb(ti, tf, root_owner):
    _init_node_nb(ti, tf, ROOT, 0, -1, root_owner, 1.0)
    ti[ROOT, TI_COUNT] = 1


@njit(cache=True, _nrt=False)
def reroot_nb(ti, tf, mp, r):
    """Make node ``r`` (the decision played, or the reply below it) the root, keeping its subtree and dropping
    the rest (mcts_reuse).

    The subtree moves to the front of the arrays in place: nodes are created after their parents, so in
    index order a node's new index never exceeds its old one and every row written is one already read.
    ``mp`` (the descent path's array, ``cap`` long) maps old indices to new."""
    count = ti[ROOT, TI_COUNT]
    n = 0
    for k in range(r, count):
        p = ti[k, TI_PARENT]
        if k == r or (p >= r and mp[p] >= 0):
            mp[k] = n
            n += 1
        else:
            mp[k] = -1
    for k in range(r, count):
        nk = mp[k]
        if nk < 0:
            continue
        first = ti[k, TI_FIRST]
        nxt = ti[k, TI_NEXT]
        for c in range(TI_N):
            ti[nk, c] = ti[k, c]
        for c in range(TF_N):
            tf[nk, c] = tf[k, c]
        ti[nk, TI_FIRST] = mp[first] if first >= 0 else -1
        if k == r:
            ti[nk, TI_PARENT] = -1
            ti[nk, TI_NEXT] = -1          # no reuse pending (TI_REUSE) until this search ends
        else:
            ti[nk, TI_PARENT] = mp[ti[k, TI_PARENT]]
            ti[nk, TI_NEXT] = mp[nxt] if nxt >= 0 else -1
    ti[ROOT, TI_COUNT] = n


@njit(cache=True, _nrt=False, inline="always")
def _set_visits_nb(tf, node, visits, value):
    """A node's visits and summed reward, and with them its mean (the same division, made once per update)."""
    tf[node, TF_VISITS] = visits
    tf[node, TF_VALUE] = value
    tf[node, TF_MEAN] = value / visits


@njit(cache=True, _nrt=False, inline="always")
def _mean_nb(tf, ch):
    return tf[ch, TF_MEAN]


@njit(cache=True, _nrt=False, inline="always")
def child_q_nb(ti, tf, ch):
    """The owner's mean reward of visited node ``ch``. A chance node's is its outcomes' probability-weighted
    mean, the outcomes not visited yet counted at the chance node's own mean."""
    if ti[ch, TI_KIND] != K_CHANCE:
        return _mean_nb(tf, ch)
    own = _mean_nb(tf, ch)
    q = 0.0
    seen = 0.0
    o = ti[ch, TI_FIRST]
    while o >= 0:
        if tf[o, TF_VISITS] > 0.0:
            q += tf[o, TF_PRIOR] * _mean_nb(tf, o)
            seen += tf[o, TF_PRIOR]
        o = ti[o, TI_NEXT]
    return q + (1.0 - seen) * own if seen < 1.0 else q


@njit(cache=True, _nrt=False)
def _softmax_nb(scores, n, temp, out):
    """Priors from scores: softmax at ``temp`` (<= 0: uniform). Decisive scores are capped so that the
    others keep a share."""
    if temp <= 0.0 or n == 1:
        for k in range(n):
            out[k] = 1.0 / n
        return
    hi = -1.0e300
    for k in range(n):
        s = min(scores[k], 1.0e6)
        if s > hi:
            hi = s
    tot = 0.0
    # the last two distinct (capped) scores and their exps (no capped score is 2e6): a decision's scores take
    # few values (quiet moves and a few kinds of capture, interleaved), so most need no division and no exp
    s1 = 2.0e6
    e1 = 0.0
    s2 = 2.0e6
    e2 = 0.0
    for k in range(n):
        s = min(scores[k], 1.0e6)
        if s == s1:
            e = e1
        elif s == s2:
            e = e2
            s2, e2 = s1, e1
            s1, e1 = s, e
        else:
            x = (s - hi) / temp
            e = np.exp(x) if x > -700.0 else 0.0
            s2, e2 = s1, e1
            s1, e1 = s, e
        out[k] = e
        tot += e
    for k in range(n):
        out[k] /= tot


@njit(cache=True, _nrt=False)
def _expand_decisions_nb(ti, tf, node, mover, codes, scores, priors, n, decisive, stamp):
    """Make the ``n`` decisions children of ``node`` (contiguous, linked); how many are proven wins (decisive),
    or -1 if the tree is full."""
    c0 = ti[ROOT, TI_COUNT]
    if c0 + n > ti.shape[0]:
        return -1
    won = 0
    for k in range(n):
        c = c0 + k
        _init_node_nb(ti, tf, c, codes[k], node, mover, priors[k])
        ti[c, TI_NEXT] = c + 1 if k + 1 < n else -1
        ti[c, TI_STAMP] = stamp
        if decisive and scores[k] >= DECISIVE:
            ti[c, TI_PROVEN] = 1
            won += 1
    ti[ROOT, TI_COUNT] = c0 + n
    ti[node, TI_FIRST] = c0
    ti[node, TI_KIND] = K_DECISION
    ti[node, TI_MOVER] = mover
    return won


@njit(cache=True, _nrt=False)
def _expand_chance_nb(ti, tf, node, outs, probs, m):
    c0 = ti[ROOT, TI_COUNT]
    if c0 + m > ti.shape[0]:
        return False
    owner = ti[node, TI_OWNER]
    for k in range(m):
        c = c0 + k
        _init_node_nb(ti, tf, c, outs[k], node, owner, probs[k])
        ti[c, TI_NEXT] = c + 1 if k + 1 < m else -1
    ti[ROOT, TI_COUNT] = c0 + m
    ti[node, TI_FIRST] = c0
    ti[node, TI_KIND] = K_CHANCE
    return True


@njit(cache=True, _nrt=False)
def _find_child_nb(ti, node, code, guess):
    """The child of ``node`` for ``code``: ``guess`` first (children keep the generator's order), else a scan."""
    if guess >= 0 and ti[guess, TI_CODE] == code:
        return guess
    ch = ti[node, TI_FIRST]
    while ch >= 0:
        if ti[ch, TI_CODE] == code:
            return ch
        ch = ti[ch, TI_NEXT]
    return -1


@njit(cache=True, _nrt=False)
def _append_child_nb(ti, tf, node, code, mover, prior, decisive_win, stamp):
    """An open-loop visit met a decision this node had not seen: link a new child at the end."""
    c = ti[ROOT, TI_COUNT]
    if c >= ti.shape[0]:
        return -1
    ti[ROOT, TI_COUNT] = c + 1
    _init_node_nb(ti, tf, c, code, node, mover, prior)
    ti[c, TI_STAMP] = stamp
    if decisive_win:
        ti[c, TI_PROVEN] = 1
    last = ti[node, TI_FIRST]
    if last < 0:
        ti[node, TI_FIRST] = c
    else:
        while ti[last, TI_NEXT] >= 0:
            last = ti[last, TI_NEXT]
        ti[last, TI_NEXT] = c
    return c


@njit(cache=True, _nrt=False, inline="always")
def _puct_pick_nb(u, best, pick, ties, ch, rng):
    if u > best + 1e-12:
        return u, ch, 1
    if u >= best - 1e-12:
        ties += 1
        if rng_below_nb(rng, ties) == 0:
            return best, ch, ties
    return best, pick, ties


@njit(cache=True, _nrt=False)
def _select_closed_nb(ti, tf, node, c_puct, fpu, rng):
    """PUCT in a closed-loop game: every child was created with the node, so each was available in all
    of the node's visits (``avail`` = the node's visits) and an untried child's Q is the node's own mean
    for its mover (its first visit scored the position itself) minus ``fpu``. One pass."""
    visits = tf[node, TF_VISITS]
    mean = tf[node, TF_MEAN]
    q_new = (mean if ti[node, TI_OWNER] == ti[node, TI_MOVER] else 1.0 - mean) - fpu
    explore = c_puct * np.sqrt(visits)
    best = -1.0e300
    pick = -1
    ties = 0
    lost = -1
    ch = ti[node, TI_FIRST]
    if ch < 0:
        return -1
    # a closed-loop node's children were made together (_expand_decisions_nb) and stay contiguous (reroot_nb
    # keeps the order): step to ch + 1 rather than follow TI_NEXT, so the next child's loads need not wait
    # for this one's link (the same children in the same order: Martian Chess's search 1.03x)
    while True:
        if ti[ch, TI_PROVEN] == -1:
            lost = ch
        else:
            n = tf[ch, TF_VISITS]
            # an untried child's bonus divides by 1 + 0, which is exact: no division (the same bits)
            if n > 0.0:
                u = child_q_nb(ti, tf, ch) + explore * tf[ch, TF_PRIOR] / (1.0 + n)
            else:
                u = q_new + explore * tf[ch, TF_PRIOR]
            best, pick, ties = _puct_pick_nb(u, best, pick, ties, ch, rng)
        if ti[ch, TI_NEXT] < 0:
            break
        ch += 1
    return lost if pick < 0 else pick    # every decision a proven loss: take one


@njit(cache=True, _nrt=False)
def _select_open_nb(ti, tf, node, c_puct, fpu, stamp, rng):
    """PUCT among the children legal in this visit (stamped with it), each explored by how often it was
    available (Cowling et al. 2012); an untried child's Q is the mover's mean over the tried ones minus
    ``fpu``. A proven win is taken at once (its proof holds only for the determinisations it was legal in)."""
    vis = 0.0
    val = 0.0
    ch = ti[node, TI_FIRST]
    while ch >= 0:
        if ti[ch, TI_STAMP] == stamp:
            tf[ch, TF_AVAIL] += 1.0
            if ti[ch, TI_PROVEN] == 1:
                return ch
            if tf[ch, TF_VISITS] > 0.0:
                vis += tf[ch, TF_VISITS]
                val += tf[ch, TF_VALUE]
        ch = ti[ch, TI_NEXT]
    q_new = (val / vis if vis > 0.0 else 0.5) - fpu
    best = -1.0e300
    pick = -1
    ties = 0
    lost = -1
    ch = ti[node, TI_FIRST]
    while ch >= 0:
        if ti[ch, TI_STAMP] == stamp:
            if ti[ch, TI_PROVEN] == -1:
                lost = ch
            else:
                n = tf[ch, TF_VISITS]
                if n > 0.0:
                    u = child_q_nb(ti, tf, ch) + c_puct * tf[ch, TF_PRIOR] * np.sqrt(tf[ch, TF_AVAIL]) / (1.0 + n)
                else:       # divided by 1 + 0: exact, so no division (the same bits)
                    u = q_new + c_puct * tf[ch, TF_PRIOR] * np.sqrt(tf[ch, TF_AVAIL])
                best, pick, ties = _puct_pick_nb(u, best, pick, ties, ch, rng)
        ch = ti[ch, TI_NEXT]
    return lost if pick < 0 else pick


@njit(cache=True, _nrt=False)
def _select_outcome_nb(ti, tf, node):
    """The outcome furthest below its share: smallest (visits + 1) / probability (stratified sampling)."""
    best = 1.0e300
    pick = -1
    o = ti[node, TI_FIRST]
    while o >= 0:
        p = tf[o, TF_PRIOR]
        if p > 0.0:
            r = (tf[o, TF_VISITS] + 1.0) / p
            if r < best:
                best, pick = r, o
        o = ti[o, TI_NEXT]
    return pick


@njit(cache=True, _nrt=False)
def _sample_nb(probs, m, rng):
    x = rng_float_nb(rng)
    acc = 0.0
    for k in range(m):
        acc += probs[k]
        if x < acc:
            return k
    return m - 1


@njit(cache=True, _nrt=False)
def _prove_up_nb(ti, tf, node, closed):
    """Propagate proofs from ``node``'s children to it and further up while something changes."""
    while node >= 0 and ti[node, TI_PROVEN] == 0:
        kind = ti[node, TI_KIND]
        owner = ti[node, TI_OWNER]
        result = 0
        if kind == K_DECISION:
            mover = ti[node, TI_MOVER]
            all_lost = True
            ch = ti[node, TI_FIRST]
            while ch >= 0:
                pv = ti[ch, TI_PROVEN]
                if pv == 1:
                    result = 1 if owner == mover else -1
                    break
                if pv != -1:
                    all_lost = False
                ch = ti[ch, TI_NEXT]
            if result == 0 and closed and all_lost and ti[node, TI_FIRST] >= 0:
                result = -1 if owner == mover else 1
        elif kind == K_CHANCE:
            first = ti[ti[node, TI_FIRST], TI_PROVEN] if ti[node, TI_FIRST] >= 0 else 0
            if first != 0:
                result = first
                o = ti[node, TI_FIRST]
                while o >= 0:
                    if ti[o, TI_PROVEN] != first:
                        result = 0
                        break
                    o = ti[o, TI_NEXT]
        if result == 0:
            return
        ti[node, TI_PROVEN] = result
        node = ti[node, TI_PARENT]


@njit(cache=True, _nrt=False, inline="always")
def _owner_reward_nb(ti, node, reward0):
    return reward0 if ti[node, TI_OWNER] == 0 else 1.0 - reward0


@njit(cache=True, _nrt=False)
def _backup_nb(ti, tf, path, depth, reward0):
    for i in range(depth):
        node = path[i]
        _set_visits_nb(tf, node, tf[node, TF_VISITS] + 1.0, tf[node, TF_VALUE] + _owner_reward_nb(ti, node, reward0))


@njit(cache=True, _nrt=False, inline="always")
def _proven_reward0_nb(ti, node):
    """Side 0's reward at a proven node (its owner won or lost)."""
    win_owner = ti[node, TI_PROVEN] == 1
    return 1.0 if win_owner == (ti[node, TI_OWNER] == 0) else 0.0


@njit(cache=True, _nrt=False)
def no_class_nb(P, S, code):
    return 0


def make_search(copy_nb, determinise_nb, status_nb, to_move_nb, turn_nb, decisions_nb, apply_nb, chance_nb,
                resolve_nb, evaluate_nb, rollout_nb, closed_loop_nb, class_nb=no_class_nb, codes_nb=None, same_nb=None,
                decisive_nb=None):
    """The search over one game's hooks: ``search_nb(P, root, S, S2, knobs, budget, rng, tree, ban) -> code``.

    ``class_nb(P, S, code) -> k`` names a decision's action class (``spec.action_classes[k]``) for a
    ``ban:CLASS:POLICY`` searcher: ``ban`` is its mask, and its own decisions (at the root and below) never
    include a banned class while another decision is legal. A game without classes leaves the default.

    ``codes_nb(P, S, codes) -> n`` (optional, open-loop games): the decisions' codes as ``decisions_nb``
    gives them, without their scores. An open-loop visit needs scores only to give a decision it meets for
    the first time its prior; with this hook it lists the codes first and scores the decisions only when
    one of them is new (the same tree, at a fraction of the cost: scoring is most of a visit's work).

    ``same_nb(P, A, B) -> bool`` (optional): are ``A`` and ``B`` the same position for the search (scratch and
    caches aside)? With it a searcher with ``mcts_reuse`` on keeps its tree between its decisions: the search
    predicts the position after the decision it plays (in its second scratch state, ``S2``), and its next
    search on this tree starts from the node of that position -- the decision's own when the same side decides
    again (a multi-decision turn), or the child of the other side's reply that leads to the new root -- running
    only the iterations the budget has left. The reply case needs a tree and an ``S2`` per side (Martian Chess's
    kernels); with one tree for both sides, the other side's search starts its own tree afresh and the reply
    is never found. The equality is the whole guarantee (a subtree grown from the same position by the same
    searcher is valid whatever happened in between); a game without the hook never reuses.

    ``decisive_nb(P, S) -> bool`` (optional, closed-loop games): may a decision of the side to move at ``S``
    score ``DECISIVE``? (A cheap necessary condition: Warfare!'s "the enemy has one unit left".) With it a
    new decision node below the root where the answer is no is scored without listing its decisions, and
    lists them at its second visit (``K_LEAF`` until then): the same tree, since listing draws nothing from
    the stream and, without a decisive decision, proves nothing, but most leaves are visited once (56.6% of
    Warfare!'s in mcts:400 self-play: scripts/warfare_search.py leaves). The listing then happens in the
    middle of a descent, so the game's ``decisions_nb`` must leave nothing in ``S`` that the rest of the
    iteration reads differently (Warfare!'s restores the greedy caches it keys anew). With ``mcts_reuse``
    every node is listed at once, as before (``later_nb``).

    A game calls this once, at import, and its kernels call the result. The hooks are the closure's
    variables, so numba calls them directly (passed as arguments, numba would lower each as a pointer
    to the Python object, which cannot be cached). The returned functions are not cached on their own:
    they compile into the game's kernels, which are cached with the stamp of the game's folder and of
    this one (simkit/engine/cache.py).
    """

    @njit(_nrt=False, inline="always")
    def settled_value_nb(P, S, draw0):
        st = status_nb(P, S)
        if st != ONGOING:
            return reward_from_winner_nb(st, draw0)
        return evaluate_nb(P, S)

    if decisive_nb is None:
        @njit(_nrt=False, inline="always")
        def later_nb(P, S, closed, reuse):
            return False
    else:
        @njit(_nrt=False, inline="always")
        def later_nb(P, S, closed, reuse):
            """List this new decision node's decisions at its next visit (make_search's docstring)? Not with tree
            reuse: a node kept for the next search would be listed there, from that search's root, and a game's
            scores may read caches the root sets (Warfare!'s formation line): other priors than listed now. So a
            tree that reuse reads (grown by a search with reuse on) holds no K_LEAF, and its code need not know one."""
            return closed and not reuse and not decisive_nb(P, S)

    # only kernels call it: no wrapper to unbox the state tuples
    @njit(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)
    def leaf_value_nb(P, S, S2, knobs, horizon, draw0, outs, probs, ti, tf, node, rng):
        """Side 0's reward of the expanded, unfinished leaf ``node`` in position ``S``.

        A chance node (``ti[node, TI_KIND] == K_CHANCE``, its outcomes expanded in ``outs`` order)
        without rollouts is scored exactly: each outcome's position is evaluated and recorded as that
        outcome child's first visit, and the reward is their probability-weighted mean.
        """
        m = chance_nb(P, S, outs, probs)
        if knobs[MC_CUTOFF] > 0 and turn_nb(P, S) < horizon:
            if m > 0:
                resolve_nb(P, S, outs[_sample_nb(probs, m, rng)], rng)
            rollout_nb(P, S, np.int64(knobs[MC_ROLLOUT]), horizon, rng)
            return settled_value_nb(P, S, draw0)
        if m == 0:
            return evaluate_nb(P, S)
        tot = 0.0
        o = ti[node, TI_FIRST] if ti[node, TI_KIND] == K_CHANCE else -1
        for k in range(m):
            copy_nb(P, S, S2)
            resolve_nb(P, S2, outs[k], rng)
            rollout_nb(P, S2, np.int64(knobs[MC_ROLLOUT]), np.int64(-1), rng)   # settles a further event only
            v = settled_value_nb(P, S2, draw0)
            tot += probs[k] * v
            if o >= 0:
                _set_visits_nb(tf, o, 1.0, _owner_reward_nb(ti, o, v))
                o = ti[o, TI_NEXT]
        return tot

    @njit(_nrt=False)
    def legal_nb(P, S, codes, scores, player, ban):
        """The decisions at ``S`` with their scores; the searcher's own without its banned classes (bit mask
        ``ban``), unless nothing else is legal (a side must move)."""
        n = decisions_nb(P, S, codes, scores)
        if ban == 0 or to_move_nb(P, S) != player:
            return n
        k = 0
        for i in range(n):
            if (ban >> class_nb(P, S, codes[i])) & 1 == 0:
                codes[k] = codes[i]
                scores[k] = scores[i]
                k += 1
        return k if k > 0 else n

    # inlined: a function of its own would optimise and emit the game's decisions_nb again in its own module
    @njit(_nrt=False, inline="always")
    def expand_nb(P, S, ti, tf, node, codes, scores, priors, player, ban, temp, decisive, closed, stamp):
        """Make the decisions at ``S`` the children of ``node`` (priors from their scores) and prove it won when
        one wins at once; False when the tree is full (the node is then scored where it stands)."""
        n = legal_nb(P, S, codes, scores, player, ban)
        _softmax_nb(scores, n, temp, priors)
        # a new node's children are proven only as decisive wins: without one, nothing is proven
        # (its children's scan cost Martian Chess 4% of its search)
        won = _expand_decisions_nb(ti, tf, node, to_move_nb(P, S), codes, scores, priors, n, decisive, stamp)
        if won > 0:
            _prove_up_nb(ti, tf, node, closed)
        return won >= 0

    if codes_nb is None:
        @njit(_nrt=False, inline="always")
        def known_nb(P, S, ti, node, codes, player, ban, stamp):
            return False            # no cheap listing: every open-loop visit scores its decisions
    else:
        @njit(_nrt=False)
        def known_nb(P, S, ti, node, codes, player, ban, stamp):
            """Are all the decisions legal at ``S`` children of ``node`` already? Each one found is stamped with
            this visit as it is met (as the scored path does: stamping twice is harmless), so when all are
            known the visit needs no scores."""
            n = codes_nb(P, S, codes)
            if ban != 0 and to_move_nb(P, S) == player:
                k = 0
                for i in range(n):
                    if (ban >> class_nb(P, S, codes[i])) & 1 == 0:
                        codes[k] = codes[i]
                        k += 1
                n = k if k > 0 else n
            guess = ti[node, TI_FIRST]
            for k in range(n):
                ch = _find_child_nb(ti, node, np.int64(codes[k]), np.int64(guess))
                if ch < 0:
                    return False
                ti[ch, TI_STAMP] = stamp
                guess = ti[ch, TI_NEXT]
            return True

    if same_nb is None:
        @njit(_nrt=False, inline="always")
        def reused_node_nb(P, root, S, S2, ti, prev, player, rng):
            return -1

        @njit(_nrt=False, inline="always")
        def predict_nb(P, root, S2, code, outs, probs, rng):
            return False
    else:
        # inlined (called once per search): a function of its own would optimise and emit the hooks it calls
        # (the game's apply) again in its own module, at every cold compile
        @njit(_nrt=False, inline="always")
        def reused_node_nb(P, root, S, S2, ti, prev, player, rng):
            """The node of this tree that position ``root`` is, among those the last search predicted (its
            position after its decision ``prev`` is in ``S2``): ``prev`` itself when the same side decides
            again, else the child of ``prev`` (the other side's reply) that leads to ``root``; -1 if none."""
            if ti[prev, TI_MOVER] == player:
                return prev if same_nb(P, root, S2) else -1
            g = ti[prev, TI_FIRST]
            while g >= 0:
                if ti[g, TI_KIND] == K_DECISION and ti[g, TI_MOVER] == player:
                    copy_nb(P, S2, S)
                    apply_nb(P, S, np.int64(ti[g, TI_CODE]), rng)
                    if same_nb(P, root, S):
                        return g
                g = ti[g, TI_NEXT]
            return -1

        @njit(_nrt=False, inline="always")
        def predict_nb(P, root, S2, code, outs, probs, rng):
            """Play ``code`` from ``root`` into ``S2``: is a side to decide next (game on, no roll pending)?
            Then ``S2`` holds the position the next search of this tree may start from."""
            copy_nb(P, root, S2)
            apply_nb(P, S2, code, rng)
            return status_nb(P, S2) == ONGOING and chance_nb(P, S2, outs, probs) == 0

    @njit(_nrt=False, no_cpython_wrapper=True, no_cfunc_wrapper=True)   # only kernels call it (a game's choose_nb)
    def search_nb(P, root, S, S2, knobs, budget, rng, tree, ban=0):
        """The decision ``budget`` iterations prefer in position ``root`` (left untouched): its action code.

        ``S`` and ``S2`` are scratch states of the same shape as ``root``; ``tree`` is ``new_tree_nb``'s
        tuple. The side to move at ``root`` must have a decision (no chance event pending, game not over).
        """

        ti, tf, path, codes, scores, priors, outs, probs = tree
        c_puct = knobs[MC_C]
        temp = knobs[MC_PRIOR_T]
        fpu = knobs[MC_FPU]
        decisive = knobs[MC_DECISIVE] > 0.5
        closed = closed_loop_nb(P)
        player = np.int64(to_move_nb(P, root))   # int64 whatever the game keeps: one compiled determinise_nb
        horizon = turn_nb(P, root) + np.int64(knobs[MC_CUTOFF])
        # contempt: the searching side counts a finished draw as 1/2 - mcts_contempt (a draw-averse player)
        draw0 = 0.5 - knobs[MC_CONTEMPT] if player == 0 else 0.5 + knobs[MC_CONTEMPT]
        reuse = knobs[MC_REUSE] > 0.5
        stop = knobs[MC_STOP] > 0.5
        prev = ti[ROOT, TI_REUSE]
        keep = np.int64(-1)
        if reuse and prev > 0 and ti[ROOT, TI_MOVER] == player and tf[ROOT, TF_BAN] == ban:
            keep = reused_node_nb(P, root, S, S2, ti, prev, player, rng)
        if keep > 0:
            # this side's previous search grew a subtree from this very position: start from it
            stamp0 = ti[ROOT, TI_STAMPS]
            reroot_nb(ti, tf, path, keep)
        else:
            stamp0 = 0
            tree_reset_nb(ti, tf, 1 - player)
        copy_nb(P, root, S)
        if legal_nb(P, S, codes, scores, player, ban) == 1:
            return codes[0]                 # nothing to decide
        # the budget counts the root's visits: a reused root's are already made
        iters = max(budget - np.int64(tf[ROOT, TF_VISITS]), 1)
        end = stamp0 + iters
        for it in range(stamp0, end):     # it: this visit's stamp (above every reused node's)
            if ti[ROOT, TI_PROVEN] != 0:
                break                       # the root is solved: nothing more to learn
            # mcts_stop: the root's most visited decision stays so whatever the iterations left do (a lead
            # above them needs more visits made than left, so only the second half is checked)
            if stop and tf[ROOT, TF_VISITS] > end - it and settled_nb(ti, tf, end - it):
                end = it
                break
            copy_nb(P, root, S)
            determinise_nb(P, S, player, rng)
            node = np.int64(ROOT)   # typed, not Literal[int](0): one compiled copy of each helper taking a node
            depth = 0
            path[depth] = ROOT
            depth += 1
            while True:
                if ti[node, TI_PROVEN] != 0:
                    r = _proven_reward0_nb(ti, node)
                    break
                kind = ti[node, TI_KIND]
                if kind == K_TERMINAL:
                    r = reward_from_winner_nb(status_nb(P, S), draw0)
                    break
                if kind == K_NEW or kind == K_LEAF:
                    # a K_LEAF's second visit lists the decisions its first did not, then goes on down (below)
                    listed = kind == K_LEAF
                    if kind == K_NEW:
                        st = status_nb(P, S)
                        if st != ONGOING:
                            ti[node, TI_KIND] = K_TERMINAL
                            r = reward_from_winner_nb(st, draw0)
                            if st >= 0:
                                ti[node, TI_PROVEN] = 1 if st == ti[node, TI_OWNER] else -1
                                _prove_up_nb(ti, tf, np.int64(ti[node, TI_PARENT]), closed)
                            break
                        m = chance_nb(P, S, outs, probs)
                        if m > 0:
                            _expand_chance_nb(ti, tf, node, outs, probs, m)
                        elif node != ROOT and later_nb(P, S, closed, reuse):
                            ti[node, TI_KIND] = K_LEAF      # nothing here wins at once: listed if visited again
                        else:
                            listed = True
                    # one listing site: with a second inlined copy Warfare!'s mcts:400 gained 1.07x, not 1.15x
                    if listed:
                        listed = expand_nb(P, S, ti, tf, node, codes, scores, priors, player, ban, temp, decisive,
                                           closed, it)
                    if kind == K_NEW or not listed or ti[node, TI_PROVEN] != 0:
                        # a new node (or one the full tree could not list) is scored where it stands
                        if ti[node, TI_PROVEN] != 0:
                            r = _proven_reward0_nb(ti, node)
                        else:
                            r = leaf_value_nb(P, S, S2, knobs, horizon, draw0, outs, probs, ti, tf, node, rng)
                        break
                    kind = K_DECISION
                if kind == K_CHANCE:
                    if not closed:      # this visit's probabilities (public odds do not change with a redeal,
                        m = chance_nb(P, S, outs, probs)    # but a game's may)
                        o = ti[node, TI_FIRST]
                        while o >= 0:
                            for k in range(m):
                                if outs[k] == ti[o, TI_CODE]:
                                    tf[o, TF_PRIOR] = probs[k]
                            o = ti[o, TI_NEXT]
                    ch = _select_outcome_nb(ti, tf, node)
                    resolve_nb(P, S, np.int64(ti[ch, TI_CODE]), rng)    # int64, as the leaf's outs[k]
                else:
                    if not closed and not known_nb(P, S, ti, node, codes, player, ban, it):
                        # open loop: only the decisions legal in this determinisation compete
                        n = legal_nb(P, S, codes, scores, player, ban)
                        _softmax_nb(scores, n, temp, priors)
                        guess = ti[node, TI_FIRST]
                        mover = ti[node, TI_MOVER]
                        for k in range(n):
                            ch = _find_child_nb(ti, node, np.int64(codes[k]), np.int64(guess))
                            if ch < 0:
                                ch = _append_child_nb(ti, tf, node, codes[k], mover, priors[k],
                                                      decisive and scores[k] >= DECISIVE, it)
                            if ch >= 0:
                                ti[ch, TI_STAMP] = it
                                guess = ti[ch, TI_NEXT]
                    if closed:
                        ch = _select_closed_nb(ti, tf, node, c_puct, fpu, rng)
                    else:
                        ch = _select_open_nb(ti, tf, node, c_puct, fpu, it, rng)
                    if ch < 0:          # nothing legal is known here (a full tree): score the position
                        r = leaf_value_nb(P, S, S2, knobs, horizon, draw0, outs, probs, ti, tf, node, rng)
                        break
                    # int64, as every other call passes a code: one compiled apply per game, not two
                    apply_nb(P, S, np.int64(ti[ch, TI_CODE]), rng)
                node = ch
                path[depth] = node
                depth += 1
            _backup_nb(ti, tf, path, depth, r)
        code = best_code_nb(ti, tf, rng)
        ti[ROOT, TI_STAMPS] = end           # the next search's first stamp (mcts_stop: the iterations run)
        tf[ROOT, TF_BAN] = ban
        if reuse:
            ch = _find_child_nb(ti, np.int64(ROOT), code, np.int64(-1))
            if ch > 0 and ti[ch, TI_KIND] == K_DECISION and predict_nb(P, root, S2, code, outs, probs, rng):
                ti[ROOT, TI_REUSE] = ch
        return code

    return search_nb


@njit(cache=True, _nrt=False)
def settled_nb(ti, tf, left):
    """Can ``left`` more iterations not change the choice by visits (mcts_stop)? True when the root's
    most visited decision leads every other by more than ``left`` visits: even all of them given to
    one other decision leave it behind, so `best_code_nb` picks the same one (no tie to break). A proven
    loss is chosen last whatever its visits, so it is left out; what the iterations left might prove is
    not foreseen (docs/search.md)."""
    first = 0.0
    second = 0.0
    ch = ti[ROOT, TI_FIRST]
    while ch >= 0:
        if ti[ch, TI_PROVEN] != -1:
            n = tf[ch, TF_VISITS]
            if n > first:
                first, second = n, first
            elif n > second:
                second = n
        ch = ti[ch, TI_NEXT]
    return first - second > left


@njit(cache=True, _nrt=False)
def best_code_nb(ti, tf, rng):
    """The root decision to play: a proven win, else most visits (then value, then uniformly); proven losses last."""
    best = -1.0e300
    pick = -1
    ties = 0
    ch = ti[ROOT, TI_FIRST]
    while ch >= 0:
        pv = ti[ch, TI_PROVEN]
        if pv == 1:
            return ti[ch, TI_CODE]
        n = tf[ch, TF_VISITS]
        key = n * 2.0 + (child_q_nb(ti, tf, ch) if n > 0.0 else tf[ch, TF_PRIOR])   # visits, then value
        if pv == -1:
            key -= 1.0e12
        if key > best + 1e-12:
            best, pick, ties = key, ch, 1
        elif key >= best - 1e-12:
            ties += 1
            if rng_below_nb(rng, ties) == 0:
                pick = ch
        ch = ti[ch, TI_NEXT]
    return ti[pick, TI_CODE] if pick >= 0 else -1
