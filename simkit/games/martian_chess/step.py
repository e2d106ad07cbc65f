"""One Martian Chess ply, in pieces the batch kernel (play.py) and the step API (env.py) both call.

A game is: ``init_game_nb``, then per ply the start of the mover's turn,
``policy_move_nb`` (a scripted side's choice, drawn from the game's stream) and
``record_ply_nb`` (play the move, count it in the record), until the game is over;
``finish_record_nb`` writes the record's last columns. The position between plies is the search state of search.py
(``S = (board, meta, moves)``, the mover's turn started), so the step API, the search and
the batch kernel share one position and one set of rules.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.games.martian_chess.bits import popcount_nb
from simkit.games.martian_chess.moves import (
    apply_move_nb, bits_of_nb, count_moves_nb, gen_moves_nb, nth_move_nb, set_bitboards_nb,
)
from simkit.games.martian_chess.policies import MCTS, RANDOM, choose_greedy_nb
from simkit.games.martian_chess.search import choose_nb, drop_banned_moves_nb
from simkit.games.martian_chess.state import (
    END_STALEMATE, F_CAPTURES, F_END, F_FINAL, F_FIRST, F_KILLS, F_LOSSES, F_PLIES, F_PROMOS, F_SCORE, F_SNAP,
    F_WINNER, M_END, M_KOMI, M_LAST_FROM, M_LAST_TO, M_PIPS, M_PLY, M_SCORE, M_TO_MOVE, M_WINNER, R_KOMI,
)
from simkit.policies import EPS_SCALE, POL_BAN, POL_BUDGET, POL_EPS, POL_ID


@njit(cache=True, _nrt=False)
def material_nb(meta, rec, offset):
    """Count pieces by type in each zone into rec[offset + side * 3 + pips - 1] (popcounts of the bitboards)."""
    for k in range(3):
        b = bits_of_nb(meta, k)
        rec[offset + k] = popcount_nb(b & 0xFFFF)
        rec[offset + 3 + k] = popcount_nb(b >> 16)


@njit(cache=True, _nrt=False)
def init_game_nb(init_board, rules, first, board, meta, rec):
    """The start position, ``first`` to move (its turn not yet started), and a cleared record."""
    for c in range(32):
        board[c] = init_board[c]
    meta[:] = 0
    meta[M_TO_MOVE] = first
    meta[M_LAST_FROM] = -1
    meta[M_LAST_TO] = -1
    meta[M_END] = -1
    meta[M_WINNER] = -1
    meta[M_KOMI + 1 - first] = rules[R_KOMI]   # MC-C1: the second player's komi
    for c in range(16):
        meta[M_PIPS] += board[c]
        meta[M_PIPS + 1] += board[c + 16]
    set_bitboards_nb(board, meta)
    rec[:] = 0
    rec[F_FIRST] = first


@njit(cache=True, _nrt=False, inline="always")
def policy_move_nb(P, S, policies, rng, trees, S1, S2s, sb, sm):
    """The move of the side to move under its entry of the policy vector (simkit.policies): (move, legal moves).

    The mover's turn is started. A mover with no move draws at once (MC-5): (-1, 0). The plain
    random policy's ply is written here, small enough to inline into the game loop (one call per
    ply, with the search's tuples as its arguments, cost random playouts 30% of their speed);
    every other policy is one call (``chosen_move_nb``). ``S[2]`` (the move buffer) is overwritten.
    ``trees``/``S2s``: each side's search tree and second scratch state (a side's tree outlives its
    decision: with mcts_reuse its next search starts from the subtree of the reply it met).
    """
    board, meta, moves = S[0], S[1], S[2]
    p = meta[M_TO_MOVE]
    if policies[POL_ID + p] == RANDOM and policies[POL_EPS + p] == 0 and policies[POL_BAN + p] == 0:
        n = count_moves_nb(board, meta, P[0], P[1], moves)   # moves holds its per-piece landing masks
        if n == 0:
            meta[M_END] = END_STALEMATE
            meta[M_WINNER] = -1
            return -1, 0
        # the same draw and the same move as chosen_move_nb's random branch
        return nth_move_nb(board, meta, P[0], P[1], moves, rng_below_nb(rng, n)), n
    return chosen_move_nb(P, S, policies, rng, trees, S1, S2s, sb, sm)


@njit(cache=True, _nrt=False)
def chosen_move_nb(P, S, policies, rng, trees, S1, S2s, sb, sm):
    """policy_move_nb's other policies: epsilon-random, banned classes, greedy, the search.
    ``P[3]`` is the knob table: the search gets the mover's row.

    A random move (also epsilon's) is drawn on the move count and only that move is generated: the same
    draw and the same move as indexing gen_moves_nb's list. The epsilon draw happens only when
    epsilon > 0, so a policy without it consumes the game's stream exactly as before the degrader
    existed.
    """
    rays, rules, weights = P[0], P[1], P[2]
    board, meta, moves = S[0], S[1], S[2]
    p = meta[M_TO_MOVE]
    eps = policies[POL_EPS + p]
    pid = policies[POL_ID + p]
    ban = policies[POL_BAN + p]   # ban:CLASS: the side chooses among its other moves only
    counted = (pid == RANDOM or eps > 0) and ban == 0
    if counted:
        n = count_moves_nb(board, meta, rays, rules, moves)   # moves holds its per-piece landing masks
    else:
        n = gen_moves_nb(board, meta, rays, rules, moves)
    if n == 0:
        meta[M_END] = END_STALEMATE
        meta[M_WINNER] = -1
        return -1, 0
    k = n if ban == 0 else drop_banned_moves_nb(board, meta, moves, n, ban)
    if (eps > 0 and rng_below_nb(rng, EPS_SCALE) < eps) or pid == RANDOM:
        r = rng_below_nb(rng, k)
        return (moves[r] if ban != 0 else nth_move_nb(board, meta, rays, rules, moves, r)), n
    if counted:
        gen_moves_nb(board, meta, rays, rules, moves)
    if pid == MCTS:
        # the searcher's own weights and knobs, for every evaluation in its tree and rollouts
        return choose_nb((rays, rules, weights[p], P[3][p]), S, S1, S2s[p], policies[POL_BUDGET + p], rng, trees[p],
                         ban), n
    return choose_greedy_nb(board, meta, rays, rules, weights[p], moves, k, rng, sb, sm), n


@njit(cache=True, _nrt=False, inline="always")
def record_ply_nb(rules, board, meta, mv, rec, deaths, snapshot_ply):
    """Play ``mv`` for the side to move and count it: captures, kills and losses by piece, field
    promotions, the deaths per cell, and the material snapshot taken before ply ``snapshot_ply``.
    Returns 1 if the move captured."""
    if meta[M_PLY] == snapshot_ply:
        material_nb(meta, rec, np.int64(F_SNAP))
    p = meta[M_TO_MOVE]
    s = mv // 32
    t = mv % 32
    v = board[s]
    w = board[t]
    captured = apply_move_nb(board, meta, rules, mv)
    if captured:
        rec[F_CAPTURES + p] += 1
        rec[F_KILLS + p * 3 + v - 1] += 1
        rec[F_LOSSES + (1 - p) * 3 + w - 1] += 1
        deaths[t] += 1
    elif w != 0:
        rec[F_PROMOS + p] += 1
    return 1 if captured else 0


@njit(cache=True, _nrt=False)
def finish_record_nb(board, meta, rec, snapshot_ply):
    """The record's result columns and final material; a game that ended before ply ``snapshot_ply``
    (or no snapshot: -1) has the final material as its snapshot."""
    material_nb(meta, rec, np.int64(F_FINAL))
    if not 0 <= snapshot_ply < meta[M_PLY]:
        for k in range(6):
            rec[F_SNAP + k] = rec[F_FINAL + k]
    rec[F_WINNER] = meta[M_WINNER]
    rec[F_PLIES] = meta[M_PLY]
    rec[F_END] = meta[M_END]
    rec[F_SCORE] = meta[M_SCORE]
    rec[F_SCORE + 1] = meta[M_SCORE + 1]
