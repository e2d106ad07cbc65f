"""Martian Chess scripted policies, chosen by integer id (index in state.POLICIES)."""
import numpy as np
from numba import njit

from simkit.engine.rng import argmax_step_nb
from simkit.games.martian_chess.bits import popcount_nb
from simkit.games.martian_chess.moves import bits_of_nb, hanging_nb, zone_mask_nb
from simkit.games.martian_chess.state import (
    CLOCK_DEADLOCK, M_CALLED, M_CLOCK, M_KOMI, M_PIPS, M_PLY, M_QUIET, M_SCORE, M_TO_MOVE, R_CLOCK_MODE,
    R_CLOCK_PLIES, R_DEADLOCK_PLIES, R_MAX_PLIES, R_POINTS,
)

RANDOM, GREEDY, MCTS = 0, 1, 2   # dispatched in play.play_game_nb; mcts: games/martian_chess/search.py (hooks)
# a side's row of the evaluation's weight table (rules.prepare; GameSpec.eval_slot): the learnable features'
# weights (EVAL_FEATURES, from greedy_score and greedy_material x each piece's pips), then greedy_hanging
W_SCORE, W_PAWN, W_DRONE, W_QUEEN, W_HANGING = 0, 1, 2, 3, 4   # state.EVAL_FEATURES names the first four
WIN = 1.0e9


@njit(cache=True, _nrt=False)
def evaluate_nb(board, meta, tab, weights, p):
    """Static value for player p: score lead, material controlled, worst piece left en prise.

    The score lead counts the MC-C1 komi (half pips in meta), as the end of the game will;
    with no komi the term is the integer lead exactly, so greedy play is unchanged.
    """
    pawns = bits_of_nb(meta, 0)
    drones = bits_of_nb(meta, 1)
    queens = bits_of_nb(meta, 2)
    score = (meta[M_SCORE + p] - meta[M_SCORE + 1 - p]) + 0.5 * (meta[M_KOMI + p] - meta[M_KOMI + 1 - p])
    hanging = hanging_nb(tab, 1 - p, pawns, drones, queens)
    return weights[W_SCORE] * score + material_nb(weights, p, pawns, drones, queens) - weights[W_HANGING] * hanging


@njit(cache=True, inline="always")
def material_nb(weights, p, pawns, drones, queens):
    """The pieces in p's zone minus those in the opponent's, each kind at its weight (with the default
    weights, greedy_material per pip: every term a multiple of 0.5, so the sum is exact and equals the
    old greedy_material x (own pips - opponent's pips) bit for bit)."""
    zp = zone_mask_nb(p)
    zo = zone_mask_nb(1 - p)
    return (weights[W_PAWN] * (popcount_nb(pawns & zp) - popcount_nb(pawns & zo))
            + weights[W_DRONE] * (popcount_nb(drones & zp) - popcount_nb(drones & zo))
            + weights[W_QUEEN] * (popcount_nb(queens & zp) - popcount_nb(queens & zo)))


@njit(cache=True, inline="always")
def points_nb(rules, captured):
    """What capturing a piece of ``captured`` pips scores (the ``points`` option; 0: nothing captured)."""
    return rules[R_POINTS + captured - 1] if captured else 0


@njit(cache=True, inline="always")
def move_outcome_nb(board, meta, rules, p, mv):
    """What ``mv`` does to the game, from the move alone (apply_move_nb's order): (captured pips, side 0's
    and side 1's zone pips after it, the end value for the mover: WIN, -WIN, 0.0 for a tie, or NaN when the
    game goes on). Shared by greedy's one-ply value and the search's captures prior (whose decisive moves
    are the ones that win at once)."""
    s = mv // 32
    t = mv % 32
    v = board[s]
    w = board[t]
    zt = t // 16
    captured = w if (w != 0 and zt != p) else 0
    pips0 = meta[M_PIPS]
    pips1 = meta[M_PIPS + 1]
    if captured:
        if zt == 0:
            pips0 -= w
        else:
            pips1 -= w
    if zt != p:   # the piece changes hands as it crosses the canal
        if p == 0:
            pips0 -= v
            pips1 += v
        else:
            pips1 -= v
            pips0 += v
    score_p = meta[M_SCORE + p] + points_nb(rules, captured)
    score_o = meta[M_SCORE + 1 - p]
    # MC-4 clock, as apply_move_nb moves it
    called = meta[M_CALLED]
    clock = meta[M_CLOCK]
    if called:
        clock = 0 if captured else clock + 1
    elif rules[R_CLOCK_MODE] == CLOCK_DEADLOCK and (0 if captured else meta[M_QUIET] + 1) >= rules[R_DEADLOCK_PLIES]:
        called = 1
        clock = 0
    ended = True
    tie_to = -1
    if pips0 == 0 or pips1 == 0:
        tie_to = p
    elif not (called and clock >= rules[R_CLOCK_PLIES]) and meta[M_PLY] + 1 < rules[R_MAX_PLIES]:
        ended = False
    end = np.nan
    if ended:   # decide_nb on the scores after the move
        a = 2 * score_p + meta[M_KOMI + p]
        b = 2 * score_o + meta[M_KOMI + 1 - p]
        winner = p if a > b else (1 - p if b > a else tie_to)
        end = WIN if winner == p else (-WIN if winner == 1 - p else 0.0)
    return captured, pips0, pips1, end


@njit(cache=True, inline="always")
def after_move_value_nb(board, meta, tab, rules, weights, p, pawns, drones, queens, mv):
    """Greedy's value of ``mv`` for the mover p: what apply_move_nb then evaluate_nb would give.

    Computed on scalars from the move alone (move_outcome_nb: the captured pips, the zone pips, the
    MC-4 clock and the end checks) and the post-move bitboards, so no board is copied or re-scanned.
    Same float expressions as evaluate_nb, so ties are the same.
    """
    captured, pips0, pips1, end = move_outcome_nb(board, meta, rules, p, mv)
    if end == end:
        return end
    s = mv // 32
    t = mv % 32
    v = board[s]
    w = board[t]
    score_p = meta[M_SCORE + p] + points_nb(rules, captured)
    score_o = meta[M_SCORE + 1 - p]
    bs = np.int64(1) << s
    bt = np.int64(1) << t
    if v == 1:
        pawns ^= bs
    elif v == 2:
        drones ^= bs
    else:
        queens ^= bs
    if w == 1:
        pawns ^= bt
    elif w == 2:
        drones ^= bt
    elif w == 3:
        queens ^= bt
    u = v if captured else v + w
    if u == 1:
        pawns |= bt
    elif u == 2:
        drones |= bt
    else:
        queens |= bt
    score = (score_p - score_o) + 0.5 * (meta[M_KOMI + p] - meta[M_KOMI + 1 - p])
    hanging = hanging_nb(tab, 1 - p, pawns, drones, queens)
    return weights[W_SCORE] * score + material_nb(weights, p, pawns, drones, queens) - weights[W_HANGING] * hanging


@njit(cache=True, _nrt=False)
def choose_greedy_nb(board, meta, tab, rules, weights, moves, n, rng, sb, sm):
    """Win if possible, else the best one-ply evaluation; ties broken uniformly.

    ``sb``/``sm`` are no longer used (each candidate is valued incrementally); kept so the
    callers' scratch stays as it was.
    """
    p = meta[M_TO_MOVE]
    pawns = bits_of_nb(meta, 0)
    drones = bits_of_nb(meta, 1)
    queens = bits_of_nb(meta, 2)
    best = -2.0 * WIN
    ties = 0
    choice = 0
    for i in range(n):
        value = after_move_value_nb(board, meta, tab, rules, weights, p, pawns, drones, queens, moves[i])
        take, best, ties = argmax_step_nb(value, best, ties, rng, 1e-9)
        if take:
            choice = i
    return moves[choice]
