"""Skorm's search hooks (simkit/engine/search.py plays ``mcts:N`` through them).

Search state ``S = (cell, face, plist, slot, sc, aux, acts, blocks, counts, stats, agg, keys)``: the
position (state.py) and ``aux[0]``, the cell of a Shieldman whose landing facing is still to be drawn
(-1: none), and ``aux[2]``, the side whose row of the evaluation's weight table (rules.P_EVAL) the hooks
judge with, both copied by ``copy_nb`` (``aux[1]`` is the step API's: step.step_decision_nb); the rest is
scratch (action list, greedy's buffers, the loss and death
counters ``apply_action_nb`` adds to). ``P`` is the game's params tuple (rules.py), knobs at ``P_MCTS``.

**Decisions.** One decision per ply: the turn's action. Its code is ``(type * N + from) * N + to`` on a
board of N cells (type 0 a move or capture, 1 a shot: SK-5b's identity), ``n_actions(params) = 2 N^2``
codes in all. Start-of-turn rotations and landing facings are no decisions: they follow the ``facing``
option as greedy's do, for both sides. A forced pass is no decision either: ``apply_nb`` plays it, so
the side to move always has a decision. Every legal action is a decision (about 35 a ply), with the
prior score of ``evaluate.decision_scores_nb``; the winning ones score ``DECISIVE``.

**Chance.** With ``facing = "random"`` a moving Shieldman lands facing a uniform direction: a chance
event of six outcomes (the facing, 1/6 each) after the action, before the ply's end checks. With
``none`` or ``threat`` Skorm has no chance at all. Nothing is hidden and nothing else is random, so
the search is closed loop (it proves losses as well as wins).

**Leaf value.** ``evaluate.assess_nb``: a position one ply settles scores 1 or 0 exactly, any other
``logistic(lead_nb / mcts_scale)``. Rollouts (``mcts_cutoff`` turns from the root, a ply each) play
greedy's or random's plies, as the game plays them.

**Whose weights.** The searcher judges with its own row of the weight table everywhere in its tree: the
leaf's lead, the priors (greedy's scores) and both sides' greedy plies in the rollouts, as it plays with its
own row of the knob table. The engine passes the hooks ``P`` and the state only, so the row rides in the
state: ``aux[2]`` = the root's side to move (set by the caller of the search: step.mcts_choice_nb,
choose_nb), copied into every state of the tree by ``copy_nb``. A state the step API holds has ``aux[2]``
= 0: its evaluate reads row 0.

**Restricted play.** ``class_nb`` gives a decision's action class (policies.ACTION_CLASSES): a
``ban:CLASS:mcts:N`` searcher leaves its banned classes out of its own decisions at the root and in
its tree while another decision is legal (the engine's ``legal_nb``). The opponent's decisions and
the rollouts' plies (both sides) stay unrestricted: the searcher restricts itself, not its model of
the game's continuation by the greedy or random rollout player.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.engine.search import ONGOING, make_search, new_tree_nb, same_array_nb, squash_nb, tree_capacity
from simkit.games.skorm.evaluate import assess_nb, decision_scores_tab_nb
from simkit.games.skorm.moves import (
    act_from, act_to, act_type, apply_action_nb, count_actions_nb, encode, end_ply_nb, gen_list_nb, max_actions_nb,
)
from simkit.games.skorm.policies import POL_GREEDY, act_nb, action_class_nb, greedy_ply_nb, random_ply_nb
from simkit.games.skorm.rules import (
    I_FACING, I_FIRST_ACTIONS2, I_N, I_P, P_ADJB, P_APPR, P_CQ, P_CR, P_DEST, P_DIST, P_DISTG, P_EVAL, P_F, P_FRAY,
    P_I, P_MCTS, P_NB, P_RAY, P_SHOTB,
)
from simkit.games.skorm.state import NSC, NSTAT, PASS, SC_DONE, SC_PLY, SC_PN0, SC_TOMOVE, SC_WINNER, SC_WL0, \
    copy_position_nb
from simkit.policies import MC_SCALE

FACING_RANDOM = 1     # rules.FACINGS.index("random")
# children one search iteration may add (about 35 actions a ply on the default board, 50 at most in
# practice); a full tree stops growing, which only caps very large budgets (engine/search.py)
SEARCH_WIDTH = 64


def n_actions(params) -> int:
    """The size of the decision code space: a move/capture or a shot for every (from, to) pair of cells."""
    n = int(params[P_I][I_N])
    return 2 * n * n


@njit(cache=True, inline="always")
def decision_of_nb(act, n):
    return (act_type(act) * n + act_from(act)) * n + act_to(act)


@njit(cache=True, inline="always")
def action_of_nb(code, n):
    return encode(code // (n * n), (code // n) % n, code % n)


def decision_label(params, code: int) -> str:
    """A decision code in words: ``move (0,-4)->(0,-2)`` or ``shoot (1,-2)->(1,0)`` (axial q,r)."""
    n = int(params[P_I][I_N])
    typ, a, t = int(code) // (n * n), (int(code) // n) % n, int(code) % n
    cq, cr = params[P_CQ], params[P_CR]
    return f"{'shoot' if typ else 'move'} ({cq[a]},{cr[a]})->({cq[t]},{cr[t]})"


@njit(cache=True)
def new_state_nb(params):
    """A search state's arrays (module docstring), no pending landing."""
    ip = params[P_I]
    N = ip[I_N]
    P = ip[I_P]
    maxa = max_actions_nb(params)
    aux = np.full(3, -1, np.int64)
    aux[2] = 0          # the weight row the hooks read (module docstring): row 0 unless a search sets it
    return (np.zeros(N, np.int8), np.zeros(N, np.int8), np.zeros((2, P), np.int64), np.zeros(N, np.int8),
            np.zeros(NSC, np.int64), aux, np.zeros(maxa, np.int64), np.zeros(1, np.int64),
            np.zeros(6 + 3 * P + N, np.int64), np.zeros(NSTAT, np.int64), np.zeros(N, np.int64),
            np.zeros(maxa, np.float64))


@njit(cache=True, _nrt=False)
def copy_nb(P, src, dst):
    copy_position_nb(src[0], src[1], src[2], src[3], src[4], dst[0], dst[1], dst[2], dst[3], dst[4])
    dst[5][0] = src[5][0]
    dst[5][2] = src[5][2]     # the searcher's weight row


@njit(cache=True, _nrt=False)
def determinise_nb(P, S, player, rng):
    pass     # nothing is hidden


@njit(cache=True, _nrt=False)
def status_nb(P, S):
    sc = S[4]
    if sc[SC_DONE] == 0:
        return ONGOING
    return sc[SC_WINNER]


@njit(cache=True, _nrt=False)
def to_move_nb(P, S):
    return S[4][SC_TOMOVE]


@njit(cache=True, inline="always")
def turns_ended_nb(ip, sc):
    """Turns ended after ``sc[SC_PLY]`` plies: a ply each, but the second player's first turn is SK-C1's
    ``second_player_first_actions`` plies (1, 2 .. k)."""
    p = sc[SC_PLY]
    k = ip[I_FIRST_ACTIONS2]
    if p <= 1:
        return p
    if p <= k:
        return 1
    return p - k + 1


@njit(cache=True, _nrt=False)
def turn_nb(P, S):
    return turns_ended_nb(P[P_I], S[4])


@njit(cache=True, _nrt=False)
def has_action_nb(P, S):
    """Does the side to move have an action? A piece next to an empty cell can step there (the usual case,
    settled at once); otherwise count (count_actions_nb) its captures and shots."""
    cell, face, plist, sc = S[0], S[1], S[2], S[4]
    nb = P[P_NB]
    s = sc[SC_TOMOVE]
    for i in range(sc[SC_PN0 + s]):
        a = plist[s, i]
        for d in range(6):
            t = nb[a, d]
            if t >= 0 and cell[t] == 0:
                return True
    n, _ = count_actions_nb(P[P_I], nb, P[P_ADJB], P[P_SHOTB], P[P_FRAY], cell, face, plist, sc, s, S[8])
    return n > 0


@njit(cache=True, _nrt=False)
def pass_forced_nb(P, S, rng):
    """Play the passes of a side with no action (no decision; SK-8's stalemate ends two in a row)."""
    cell, face, plist, slot, sc = S[0], S[1], S[2], S[3], S[4]
    while sc[SC_DONE] == 0 and not has_action_nb(P, S):
        act_nb(P[P_I], P[P_NB], P[P_ADJB], P[P_FRAY], rng, np.int64(PASS), np.bool_(True), cell, face, plist, slot, sc,
               S[8], S[9], S[10])


@njit(cache=True, _nrt=False)
def decisions_nb(P, S, codes, scores):
    """Every legal action of the side to move, with its prior score (evaluate.decision_scores_nb)."""
    cell, face, plist, sc, acts, blocks = S[0], S[1], S[2], S[4], S[6], S[7]
    ip = P[P_I]
    blocks[0] = 0
    n = gen_list_nb(ip, P[P_NB], P[P_RAY], P[P_DEST], P[P_APPR], P[P_ADJB], cell, face, plist, sc, sc[SC_TOMOVE],
                    acts, blocks)
    decision_scores_tab_nb(ip, P[P_F], P[P_NB], P[P_ADJB], P[P_SHOTB], P[P_FRAY], P[P_DIST], P[P_DISTG], cell, face,
                           plist, sc, acts, n, S[8], scores, P[P_EVAL][S[5][2]])
    N = ip[I_N]
    for i in range(n):
        codes[i] = decision_of_nb(acts[i], N)
    return n


@njit(cache=True, _nrt=False)
def lands_later_nb(ip, cell, face, plist, slot, sc, aux, act, stats, agg):
    """With ``facing = "random"``, play a Shieldman's move or capture ``act`` and leave its landing facing
    pending (``aux[0]``: chance_nb, then resolve_nb); True if it did. A capture of the enemy Warlord ends
    the ply at once: its facing no longer matters. The search's apply_nb and the step API (step.py) both
    play a decision through it."""
    s = sc[SC_TOMOVE]
    if ip[I_FACING] != FACING_RANDOM or act_type(act) != 0 or cell[act_from(act)] != 1 + 4 * s:
        return False
    apply_action_nb(cell, face, plist, slot, sc, act, np.int64(-1), stats, agg)
    if sc[SC_WL0 + 1 - s] >= 0:
        aux[0] = act_to(act)      # the facing it lands with is drawn next
    else:
        end_ply_nb(ip, sc, np.bool_(False))
    return True


@njit(cache=True, _nrt=False)
def apply_nb(P, S, code, rng):
    """Play the action as the game does (``act_nb`` in greedy's style: the ``facing`` option), then any
    forced passes; with ``facing = "random"`` a moving Shieldman's landing is left pending (chance_nb)."""
    cell, face, plist, slot, sc = S[0], S[1], S[2], S[3], S[4]
    ip = P[P_I]
    act = action_of_nb(code, ip[I_N])
    if lands_later_nb(ip, cell, face, plist, slot, sc, S[5], act, S[9], S[10]):
        return
    act_nb(ip, P[P_NB], P[P_ADJB], P[P_FRAY], rng, act, np.bool_(True), cell, face, plist, slot, sc, S[8], S[9], S[10])
    pass_forced_nb(P, S, rng)


@njit(cache=True, _nrt=False)
def chance_nb(P, S, outcomes, probs):
    """A pending landing facing: six directions, 1/6 each (act_nb's ``rng_below(6)``)."""
    if S[5][0] < 0:
        return 0
    for k in range(6):
        outcomes[k] = k
        probs[k] = 1.0 / 6.0
    return 6


@njit(cache=True, inline="always")
def land_nb(ip, face, sc, aux, outcome):
    """The pending Shieldman lands facing ``outcome`` and the ply ends (``facing = "random"`` turns no one)."""
    face[aux[0]] = outcome
    aux[0] = -1
    end_ply_nb(ip, sc, np.bool_(False))


@njit(cache=True, inline="always")
def resolve_nb(P, S, outcome, rng):
    """The pending landing (land_nb), then any forced passes. Inlined: the engine passes its int32 tree
    codes, the rollouts int64 draws (one compiled copy each)."""
    land_nb(P[P_I], S[1], S[4], S[5], outcome)
    pass_forced_nb(P, S, rng)


@njit(cache=True, _nrt=False)
def evaluate_nb(P, S):
    """Side 0's expected score: exact where one ply settles the game, else the squashed lead (by the weight
    row ``aux[2]``: the searcher's in a search, 0 in the step API)."""
    won, lead = assess_nb(P, S[0], S[1], S[2], S[4], S[8], P[P_EVAL][S[5][2]])
    if won >= 0:
        return 1.0 if won == 0 else 0.0
    return squash_nb(lead, P[P_MCTS][MC_SCALE])


@njit(cache=True, _nrt=False)
def rollout_nb(P, S, policy, horizon, rng):
    """Draw a pending landing facing, then greedy's (policy 1) or random's plies until the game is over or
    ``horizon`` turns have ended; both play exactly as in a game (the facing option, passes), greedy with
    the searcher's weight row for both sides (its model of the game)."""
    if S[5][0] >= 0:
        resolve_nb(P, S, rng_below_nb(rng, 6), rng)
    cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, keys = (
        S[0], S[1], S[2], S[3], S[4], S[6], S[7], S[8], S[9], S[10], S[11])
    ip, F, nb, ray, dest, appr, adjb, shotb, fray, dist, distg = (
        P[P_I], P[P_F], P[P_NB], P[P_RAY], P[P_DEST], P[P_APPR], P[P_ADJB], P[P_SHOTB], P[P_FRAY], P[P_DIST],
        P[P_DISTG])
    W = P[P_EVAL][S[5][2]]
    while sc[SC_DONE] == 0 and turns_ended_nb(ip, sc) < horizon:
        # typed arguments (np.int64, not literals): the game's kernel calls the same compiled plies
        if policy == 1:
            greedy_ply_nb(ip, F, W, nb, ray, dest, appr, adjb, shotb, fray, dist, distg, rng, np.int64(POL_GREEDY),
                          np.int64(0), np.int64(0), cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, keys)
        else:
            random_ply_nb(ip, nb, ray, dest, appr, adjb, shotb, fray, rng, np.int64(0), cell, face, plist, slot, sc,
                          counts, stats, agg)


@njit(cache=True, _nrt=False)
def closed_loop_nb(P):
    return True


@njit(cache=True, _nrt=False)
def class_nb(P, S, code):
    """Decision ``code``'s action class for a ``ban:CLASS:mcts:N`` searcher (policies.ACTION_CLASSES)."""
    ip = P[P_I]
    return action_class_nb(ip, S[0], S[4][SC_TOMOVE], action_of_nb(code, ip[I_N]))


@njit(cache=True, _nrt=False)
def same_nb(P, A, B):
    """The same position for the search (mcts_reuse): board, facings, scalars, the pending landing (aux[0]) and
    each side's piece list as far as it is used (its order is the game's: a removal swaps in the last)."""
    if A[5][0] != B[5][0] or not (same_array_nb(A[0], B[0]) and same_array_nb(A[1], B[1])
                                  and same_array_nb(A[4], B[4])):
        return False
    for side in range(2):
        for i in range(A[4][SC_PN0 + side]):
            if A[2][side, i] != B[2][side, i]:
                return False
    return True


search_nb = make_search(copy_nb, determinise_nb, status_nb, to_move_nb, turn_nb, decisions_nb, apply_nb, chance_nb,
                        resolve_nb, evaluate_nb, rollout_nb, closed_loop_nb, class_nb, same_nb=same_nb)


@njit(cache=True)
def choose_nb(P, root, S, S2, budget, rng, tree, ban=0):
    """The action (the game's code, moves.encode) ``budget`` iterations of the engine's search prefer at
    ``root``, a search state with the side to move holding at least one action (``ban``: the mover's
    banned action classes, a bit mask over policies.ACTION_CLASSES). The search judges with the row of the
    weight table of the side to move at ``root`` (its ``aux[2]`` is set so)."""
    root[5][2] = root[4][SC_TOMOVE]
    return action_of_nb(search_nb(P, root, S, S2, P[P_MCTS], budget, rng, tree, ban), P[P_I][I_N])


@njit(cache=True)
def new_search_nb(params, cap):
    """The searchers' arrays, allocated once per block: each side's tree (``cap`` nodes: tree_capacity), a
    search state, each side's second state (its tree's prediction: mcts_reuse), the root's ``aux`` (no landing
    pending) and greedy's float scratch for the game's own plies."""
    maxa = max_actions_nb(params)
    aux = np.full(3, -1, np.int64)
    aux[2] = 0
    return ((new_tree_nb(cap, maxa, 6), new_tree_nb(cap, maxa, 6)), new_state_nb(params),
            (new_state_nb(params), new_state_nb(params)), aux, np.zeros(maxa, np.float64))


def search_capacity(budget: int) -> int:
    """The tree capacity a search of ``budget`` iterations needs (engine/search.py: tree_capacity)."""
    return tree_capacity(budget, SEARCH_WIDTH)
