"""Martian Chess's search hooks (simkit/engine/search.py plays ``mcts:N`` through them).

Search state ``S = (board, meta, moves)``: the kernel's own arrays and a move buffer
(scratch, not copied), with the mover's turn
already started (MC-4 ``leader`` call made) as ``play_game_nb`` has it when it asks for
a move; a blocked mover (MC-5) is the draw at once (``status_nb``). ``P = (rays, rules,
weights, knobs)``. A decision's code is the move ``from * 32 + to`` (the step API's id).
Martian Chess has no chance and nothing hidden: the search is closed loop.

Priors (``mcts_prior_moves``): the pips each move captures (``captures``, the default), or
greedy's one-ply value of each move (``greedy``: ``after_move_value_nb``: score lead,
material, the best own piece left capturable), so a capture or a move out of danger
is tried first; in both, a move that ends the game won scores ``WIN`` (= the engine's
``DECISIVE``): the search plays it without looking further. Leaf value: a rollout to
the horizon and the greedy evaluation of the position for the player who has just
moved (it charges the mover's own piece left capturable, a threat only while the
opponent is to move), squashed with ``mcts_scale``.
"""
import numpy as np
from numba import njit

from simkit.engine.search import ONGOING, make_search, same_array_nb, squash_nb
from simkit.games.martian_chess.moves import (
    bits_of_nb, copy_position_nb, count_moves_nb, gen_moves_nb, play_move_nb, random_ply_nb, start_turn_nb,
)
from simkit.games.martian_chess.policies import after_move_value_nb, choose_greedy_nb, move_outcome_nb, points_nb
from simkit.games.martian_chess.policies import evaluate_nb as greedy_evaluate_nb
from simkit.games.martian_chess.state import (END_STALEMATE, M_CALLED, M_CLOCK, M_END, M_PLY, M_TO_MOVE, M_WINNER,
                                             MAX_MOVES, NMETA, R_CLOCK_PLIES, R_MAX_PLIES)
from simkit.policies import MC_N, MC_SCALE

MC_PRIOR_MOVES = MC_N   # this game's own knob (rule mcts_prior_moves): 1 greedy's values, 0 captured pips


@njit(cache=True, _nrt=False, inline="always")
def copy_nb(P, src, dst):
    # inlined: called at every search iteration, where a call passes P, the root and the scratch state
    # word by word; how LLVM compiled that call moved with the engine's size, mcts:400 by 13% (docs/speed.md)
    copy_position_nb(src[0], src[1], dst[0], dst[1])


@njit(cache=True, _nrt=False)
def determinise_nb(P, S, player, rng):
    pass     # nothing is hidden


@njit(cache=True, _nrt=False)
def status_nb(P, S):
    """The result, or ONGOING; a mover with no move draws at once (MC-5), checked here, where the engine
    asks once per new position, rather than after every move it replays."""
    board, meta = S[0], S[1]
    if meta[M_END] >= 0:
        return meta[M_WINNER]
    if count_moves_nb(board, meta, P[0], P[1], S[2], True) == 0:     # asked at every new node and leaf
        meta[M_END] = END_STALEMATE
        meta[M_WINNER] = -1
        return -1
    return ONGOING


@njit(cache=True, _nrt=False)
def to_move_nb(P, S):
    return S[1][M_TO_MOVE]


@njit(cache=True, _nrt=False)
def turn_nb(P, S):
    return S[1][M_PLY]


@njit(cache=True, _nrt=False)
def decisions_nb(P, S, codes, scores):
    """Every legal move, scored by greedy's one-ply value for the mover (``mcts_prior_moves`` = greedy), or
    only by the pips it captures (= captures: cheaper, no look at what the move leaves hanging); in both a
    move that ends the game scores its result (policies.WIN for a win at once)."""
    rays, rules, weights = P[0], P[1], P[2]
    board, meta = S[0], S[1]
    n = gen_moves_nb(board, meta, rays, rules, codes)
    p = meta[M_TO_MOVE]
    if P[3][MC_PRIOR_MOVES] == 0.0:
        # every move that stays in the mover's zone captures nothing and moves no pips across: one outcome
        # for all of them, worked out once (about half of a position's moves)
        home = False
        home_score = 0.0
        for i in range(n):
            mv = codes[i]
            stays = (mv % 32) // 16 == p
            if stays and home:
                scores[i] = home_score
                continue
            captured, _, _, end = move_outcome_nb(board, meta, rules, p, mv)
            # a move that ends the game scores its result (WIN >= DECISIVE: the decisive shortcut sees it)
            scores[i] = end if end == end else float(points_nb(rules, captured))
            if stays:
                home = True
                home_score = scores[i]
        return n
    pawns = bits_of_nb(meta, 0)
    drones = bits_of_nb(meta, 1)
    queens = bits_of_nb(meta, 2)
    for i in range(n):
        scores[i] = after_move_value_nb(board, meta, rays, rules, weights, p, pawns, drones, queens, codes[i])
    return n


@njit(cache=True, _nrt=False)
def decisive_nb(P, S):
    """Can a move here end the game (a win scores WIN, the engine's DECISIVE)? move_outcome_nb's end checks,
    for any move: the ply limit, the MC-4 clock running out (a called clock's next quiet ply; a call this move
    makes starts the clock at 0, and clock_plies is at least 1), or the mover's zone emptied by its last piece
    crossing the canal (the other zone cannot empty: a capture there leaves the capturing piece in it)."""
    rules = P[1]
    board, meta = S[0], S[1]
    if meta[M_PLY] + 1 >= rules[R_MAX_PLIES]:
        return True
    if meta[M_CALLED] != 0 and meta[M_CLOCK] + 1 >= rules[R_CLOCK_PLIES]:
        return True
    z = 16 * meta[M_TO_MOVE]
    pieces = 0
    for q in range(z, z + 16):
        if board[q] != 0:
            pieces += 1
    return pieces <= 1


@njit(cache=True, _nrt=False)
def apply_nb(P, S, code, rng):
    """Play the move and start the next mover's turn (MC-4 ``leader`` call; MC-5 is status_nb's)."""
    rules = P[1]
    meta = S[1]
    play_move_nb(S[0], meta, rules, code)
    if meta[M_END] < 0:
        start_turn_nb(meta, rules)


@njit(cache=True, _nrt=False)
def chance_nb(P, S, outcomes, probs):
    return 0     # no dice


@njit(cache=True, _nrt=False)
def resolve_nb(P, S, outcome, rng):
    pass


@njit(cache=True, _nrt=False)
def evaluate_nb(P, S):
    """Side 0's expected score: greedy's evaluation for the player who has just moved, squashed."""
    rays, weights, knobs = P[0], P[2], P[3]
    board, meta = S[0], S[1]
    q = 1 - meta[M_TO_MOVE]
    v = greedy_evaluate_nb(board, meta, rays, weights, q)
    return squash_nb(v if q == 0 else -v, knobs[MC_SCALE])


@njit(cache=True, _nrt=False)
def rollout_nb(P, S, policy, horizon, rng):
    """Random plies (the random policy's draw on the move count) or greedy's, to the horizon."""
    rays, rules, weights = P[0], P[1], P[2]
    board, meta, moves = S
    while meta[M_END] < 0 and meta[M_PLY] < horizon:
        if policy == 1:
            start_turn_nb(meta, rules)
            n = gen_moves_nb(board, meta, rays, rules, moves)
            if n == 0:
                meta[M_END] = END_STALEMATE
                meta[M_WINNER] = -1
                break
            play_move_nb(board, meta, rules, choose_greedy_nb(board, meta, rays, rules, weights, moves, n, rng,
                                                              board, meta))
        elif random_ply_nb(board, meta, rays, rules, moves, rng) == 0:
            break


@njit(cache=True, _nrt=False)
def closed_loop_nb(P):
    return True


# action classes a ban:CLASS:POLICY player can refuse (GameSpec.action_classes, in this order)
ACTION_CLASSES = ("capture", "promotion", "crossing", "quiet")


@njit(cache=True, _nrt=False)
def move_class_nb(board, meta, mv):
    """A move's class: a capture (an enemy piece in the other zone), a field promotion (onto an own piece,
    MC-2), a crossing of the canal without capture, or a quiet move inside the own zone."""
    t = mv % 32
    own = t // 16 == meta[M_TO_MOVE]
    if board[t] != 0:
        return 1 if own else 0
    return 3 if own else 2


@njit(cache=True, _nrt=False)
def class_nb(P, S, code):
    return move_class_nb(S[0], S[1], code)


@njit(cache=True, _nrt=False)
def drop_banned_moves_nb(board, meta, moves, n, ban):
    """Move the moves whose class is not banned to the front of ``moves[:n]`` (keeping their order) and
    return how many; all ``n`` when every move is banned (a side must move)."""
    k = 0
    for i in range(n):
        mv = moves[i]
        if (ban >> move_class_nb(board, meta, mv)) & 1 == 0:
            moves[i] = moves[k]
            moves[k] = mv
            k += 1
    return k if k > 0 else n


@njit(cache=True, _nrt=False)
def same_nb(P, A, B):
    """The same position for the search (mcts_reuse): the board and meta (the move buffer is scratch)."""
    return same_array_nb(A[0], B[0]) and same_array_nb(A[1], B[1])


search_nb = make_search(copy_nb, determinise_nb, status_nb, to_move_nb, turn_nb, decisions_nb, apply_nb, chance_nb,
                        resolve_nb, evaluate_nb, rollout_nb, closed_loop_nb, class_nb, same_nb=same_nb,
                        decisive_nb=decisive_nb)


@njit(cache=True)
def choose_nb(P, root, S, S2, budget, rng, tree, ban=0):
    """The decision ``budget`` iterations of the engine's search prefer at ``root`` (``ban``: the mover's
    banned action classes, a bit mask over ACTION_CLASSES)."""
    return search_nb(P, root, S, S2, P[3], budget, rng, tree, ban)



@njit(cache=True)
def new_state_nb():
    """A search state's arrays (board, meta, move buffer)."""
    return np.zeros(32, np.int8), np.zeros(NMETA, np.int32), np.zeros(MAX_MOVES, np.int32)
