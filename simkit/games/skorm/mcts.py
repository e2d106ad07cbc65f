"""Skorm Monte-Carlo tree search (the ``mcts:N`` policy, issue 14).

The tree is the shared one (simkit/engine/mcts.py); this module owns Skorm's
side of an iteration: copy the position into scratch, descend the tree by UCT
(one tree level per ply), play a rollout of at most ``mcts_cutoff`` plies
(random or greedy actions) and score the result: a finished game by its winner,
an unfinished one by ``lead_nb`` (side 0's lead) squashed with ``mcts_scale``.

What the search decides: a turn's one action, keyed in the tree by its action
code ``(type << 16) | (from << 8) | to`` (< 2**17, so it fits the tree's int32).
Start-of-turn rotations and a moving Shieldman's landing facing are not tree
decisions: they follow the ``facing`` option exactly as greedy's do, for both
sides inside the search too (``act_nb`` with greedy's style). A forced pass is
no decision either and adds no tree level (``TI_PLAYER`` says whose node is whose).

Two Skorm-specific aids make 400 iterations enough against greedy (without them
mcts:400 lost nearly every game to greedy: with ~35 actions a ply, a node whose
one refutation hides among the replies looks good until every reply was tried):

- decisive moves (``decided_nb``): below the root and in rollouts, a position in
  which the mover can take the enemy Warlord or win on the Gold Tile at once, or
  in which the enemy Warlord waits on the Gold Tile unanswerable, is scored as
  that win without playing it;
- progressive widening over ordered actions (``order_nb``, ``widened_nb``): a
  node offers the tree only its ``WIDEN0 + WIDEN1*sqrt(visits)`` most promising
  actions, captures and shots first, so refutations are tried first.

Skorm has no dice: with the default ``facing = "threat"`` an action sequence
always reaches the same position, and open loop is plain UCT; with ``facing =
"random"`` the landing facings are drawn afresh every iteration from the game's
own stream (open loop), as are the random rollouts and greedy's tie-breaks.
"""
import numpy as np
from numba import njit

from simkit.engine.mcts import (
    ROOT, TF_N, TF_VISITS, TI_N, backprop_nb, best_action_nb, reward_from_eval_nb, reward_from_winner_nb, select_nb,
    tree_reset_nb,
)
from simkit.engine.rng import rng_below_nb
from simkit.games.skorm.moves import (
    act_from, act_to, act_type, attack_bits_nb, bit_nb, gen_list_nb, threat_dirs_nb,
)
from simkit.games.skorm.policies import act_nb, greedy_choose_nb
from simkit.games.skorm.rules import (
    F_W_GOLD, I_GOLD, I_GOLD_IMM, I_GOLD_ON, I_N, I_P, P_ADJB, P_APPR, P_DEST, P_DIST, P_DISTG, P_F, P_FRAY, P_I,
    P_MCTS, P_NB, P_RAY, P_SHOTB,
)
from simkit.games.skorm.state import (
    copy_position_nb, NSC, NSTAT, PASS, SC_CNT, SC_DONE, SC_PENDING, SC_PN0, SC_TOMOVE, SC_WINNER, SC_WL0,
)
from simkit.policies import MC_C, MC_CUTOFF, MC_ROLLOUT, MC_SCALE

ROLLOUT_GREEDY = 1  # index of "greedy" in simkit.policies.ROLLOUTS
DECIDED = 1.0e6     # a lead that squashes to a certain win for any sane mcts_scale
WIDEN0, WIDEN1 = 4, 1.5  # progressive widening: a node tries its WIDEN0 + WIDEN1*sqrt(visits) best actions
WARLORD_ORDER_VALUE = 10.0  # the Warlord's worth when ordering escapes (greedy values it 0)
TAKE = 0.8          # share of the best attacked enemy piece's value credited to the side to move


@njit(cache=True)
def new_search_nb(params, cap, maxa):
    """The search's preallocated arrays (one set per parallel block): the tree
    (capacity ``cap`` >= largest budget + 2), the descent path, and the scratch
    position, action list and counters an iteration plays on."""
    ip = params[P_I]
    N = ip[I_N]
    P = ip[I_P]
    return (np.zeros((cap, TI_N), np.int32), np.zeros((cap, TF_N), np.float64), np.zeros(cap, np.int64),
            np.zeros(N, np.int8), np.zeros(N, np.int8), np.zeros((2, P), np.int64), np.zeros(NSC, np.int64),
            np.zeros(maxa, np.int64), np.zeros(1, np.int64), np.zeros(6 + 3 * P + N, np.int64),
            np.zeros(NSTAT, np.int64), np.zeros(N, np.int64), np.zeros(maxa, np.int64),
            np.zeros(maxa, np.float64), np.zeros(N, np.int8))


@njit(cache=True)
def lead_nb(params, cell, face, plist, sc, counts):
    """Side 0's lead in an unfinished position, in greedy's units.

    Material (greedy's unit values) and ``w_gold_distance`` per hex of Warlord
    distance to the Gold Tile, as greedy's evaluation counts them; and the two
    facts a one-ply look settles exactly, since a Warlord is no Shieldman and the
    attack map is exact for it: the side to move wins if it can take the enemy
    Warlord, and otherwise loses if the enemy Warlord is waiting on the Gold Tile
    (SK-7: nothing else stops that win).
    """
    F = params[P_F]
    distg = params[P_DISTG]
    s = sc[SC_TOMOVE]
    o = 1 - s
    sign = 1.0 if s == 0 else -1.0
    w0, w1 = attack_bits_nb(params, cell, plist, sc, s, -1)
    if bit_nb(w0, w1, sc[SC_WL0 + o]) != 0:
        return sign * DECIDED
    if params[P_I][I_GOLD_ON] == 1 and sc[SC_PENDING] == o:
        return -sign * DECIDED
    lead = 0.0
    for k in range(3):
        lead += F[k] * (sc[SC_CNT + k] - sc[SC_CNT + 4 + k])
    lead += F[F_W_GOLD] * (distg[sc[SC_WL0 + 1]] - distg[sc[SC_WL0]])
    # the side to move is about to take the best enemy piece it attacks (greedy's
    # "hanging" term seen from the other side); a Shieldman attacked only from the
    # direction it faces is safe
    gain = 0.0
    for j in range(sc[SC_PN0 + o]):
        p = plist[o, j]
        k = (cell[p] - 1) & 3
        if k == 3 or F[k] <= gain or bit_nb(w0, w1, p) == 0:
            continue
        if k == 0 and (threat_dirs_nb(params, cell, p, s, counts) & ~(1 << face[p])) == 0:
            continue
        gain = F[k]
    return lead + sign * TAKE * gain


@njit(cache=True)
def decided_nb(params, cell, plist, sc, acts, n):
    """The winner of a position whose outcome one ply settles, else -1.

    The side to move wins if one of its ``n`` legal ``acts`` takes the enemy
    Warlord or brings its own Warlord onto the Gold Tile for an immediate win
    (SK-7, counted after the arriving capture); otherwise, if the enemy Warlord
    is waiting on the Gold Tile, the enemy wins whatever the mover does (SK-8).
    The search assumes these wins are taken ("decisive moves"): without it a
    node whose one refutation hides among 30 replies looks good until every
    reply has been tried once.
    """
    ip = params[P_I]
    s = sc[SC_TOMOVE]
    o = 1 - s
    ewl = sc[SC_WL0 + o]
    wl = sc[SC_WL0 + s]
    gold = ip[I_GOLD]
    gold_on = ip[I_GOLD_ON] == 1
    others = sc[SC_PN0 + o] - 1
    if cell[gold] != 0:
        others -= 1      # only an enemy piece can stand on a cell the Warlord may enter
    imm = gold_on and others <= ip[I_GOLD_IMM]
    for i in range(n):
        code = acts[i]
        t = act_to(code)
        if t == ewl or (imm and t == gold and act_type(code) == 0 and act_from(code) == wl):
            return s
    if gold_on and sc[SC_PENDING] == o:
        return o
    return -1


@njit(cache=True)
def order_nb(params, cell, plist, sc, acts, n, keys):
    """Sort ``acts[:n]`` most promising first, for progressive widening.

    Captures and shots first, most valuable victim first and a defended target
    taken by a cheaper piece first (MVV-LVA); then the own Warlord stepping onto
    the Gold Tile (SK-7: often the game's decision); then a piece the enemy attacks
    stepping out of its reach; then moves to cells the enemy does not attack;
    within a class a fixed hash of the action code (no bias toward the piece
    list's order). The attack map is the enemy's before the move and ignores
    shields: it orders, it does not prune.
    """
    F = params[P_F]
    gold = params[P_I][I_GOLD]
    s = sc[SC_TOMOVE]
    w0, w1 = attack_bits_nb(params, cell, plist, sc, 1 - s, -1)
    for i in range(n):
        code = acts[i]
        a = act_from(code)
        t = act_to(code)
        mk = (cell[a] - 1) & 3
        mv = F[mk] if mk != 3 else WARLORD_ORDER_VALUE
        noise = ((code * 2654435761) & 1023) * (1.0 / 1024.0)
        if mk == 3 and t == gold:
            key = 900.0 + noise
        elif cell[t] != 0:
            key = 1000.0 + 10.0 * F[(cell[t] - 1) & 3] + noise
            if act_type(code) == 0 and bit_nb(w0, w1, t) != 0:
                key -= mv
        else:
            safe = bit_nb(w0, w1, t) == 0
            if safe and bit_nb(w0, w1, a) != 0:
                key = 500.0 + mv + noise
            elif safe:
                key = 100.0 + noise
            else:
                key = noise
        keys[i] = key
    for i in range(1, n):  # insertion sort, descending: n is a few dozen
        k = keys[i]
        c = acts[i]
        j = i - 1
        while j >= 0 and keys[j] < k:
            keys[j + 1] = keys[j]
            acts[j + 1] = acts[j]
            j -= 1
        keys[j + 1] = k
        acts[j + 1] = c


@njit(cache=True, inline="always")
def widened_nb(tf, node, m):
    """How many of a node's ordered actions the search may try after its visits so far."""
    if node < 0:
        return m
    k = WIDEN0 + int(WIDEN1 * np.sqrt(tf[node, TF_VISITS]))
    return m if k > m else k


@njit(cache=True)
def mcts_choose_nb(params, rng, budget, cell, face, plist, slot, sc, acts, n, ws):
    """The action ``budget`` MCTS iterations prefer among the side to move's ``n``
    legal ``acts``; the real position is left untouched. ``ws``: new_search_nb's arrays."""
    if n == 1:
        return acts[0]  # nothing to decide; saves the search
    ti, tf, path, cS, fS, pS, sS, aS, bS, kS, stS, agS, rS, keys, lS = ws
    ip, F, nb, ray, dest, appr, adjb, shotb, fray, dist, distg = (
        params[P_I], params[P_F], params[P_NB], params[P_RAY], params[P_DEST], params[P_APPR], params[P_ADJB],
        params[P_SHOTB], params[P_FRAY], params[P_DIST], params[P_DISTG])
    mp = params[P_MCTS]
    c = mp[MC_C]
    greedy = int(mp[MC_ROLLOUT]) == ROLLOUT_GREEDY
    cutoff = int(mp[MC_CUTOFF])
    scale = mp[MC_SCALE]
    tree_reset_nb(ti, tf)
    for i in range(n):
        rS[i] = acts[i]
    order_nb(params, cell, plist, sc, rS, n, keys)
    for _ in range(max(budget, 1)):
        copy_position_nb(cell, face, plist, slot, sc, cS, fS, pS, lS, sS)
        node = ROOT
        depth = 0
        won = -1
        # selection and expansion: one new node per iteration
        while sS[SC_DONE] == 0:
            if depth == 0:
                k_acts = rS
                m = n
            else:
                k_acts = aS
                bS[0] = 0
                m = gen_list_nb(ip, nb, ray, dest, appr, adjb, cS, fS, pS, sS, sS[SC_TOMOVE], aS, bS)
                won = decided_nb(params, cS, pS, sS, aS, m)
                if won >= 0:
                    break
                if m == 0:
                    act_nb(ip, nb, adjb, fray, rng, PASS, True, cS, fS, pS, lS, sS, kS, stS, agS)
                    continue
                order_nb(params, cS, pS, sS, aS, m, keys)
            k, child, fresh = select_nb(ti, tf, node, k_acts, widened_nb(tf, node, m), sS[SC_TOMOVE], c, rng)
            act_nb(ip, nb, adjb, fray, rng, k_acts[k], True, cS, fS, pS, lS, sS, kS, stS, agS)
            if child < 0:
                break
            path[depth] = child
            depth += 1
            node = child
            if fresh:
                break
        # rollout up to the cut-off: a uniform action (random style) or greedy's, a ply at a
        # time, until a position is decided (decided_nb) or finished
        plies = 0
        while won < 0 and sS[SC_DONE] == 0 and plies < cutoff:
            bS[0] = 0
            m = gen_list_nb(ip, nb, ray, dest, appr, adjb, cS, fS, pS, sS, sS[SC_TOMOVE], aS, bS)
            won = decided_nb(params, cS, pS, sS, aS, m)
            if won < 0:
                code = PASS
                if m > 0:
                    if greedy:
                        code = aS[greedy_choose_nb(ip, F, nb, adjb, shotb, fray, dist, distg, cS, fS, pS, sS, aS, m,
                                                   rng, kS, False)]
                    else:
                        code = aS[rng_below_nb(rng, m)]
                act_nb(ip, nb, adjb, fray, rng, code, greedy, cS, fS, pS, lS, sS, kS, stS, agS)
            plies += 1
        if won >= 0:
            r = reward_from_winner_nb(won)
        elif sS[SC_DONE] != 0:
            r = reward_from_winner_nb(sS[SC_WINNER])
        else:
            r = reward_from_eval_nb(lead_nb(params, cS, fS, pS, sS, kS), scale)
        backprop_nb(ti, tf, path, depth, r)
    code = best_action_nb(ti, tf, rng)
    return acts[0] if code < 0 else code
