"""Martian Chess scripted policies, chosen by integer id (index in POLICIES)."""
from numba import njit

from simkit.engine.rng import argmax_step_nb, rng_below_nb
from simkit.games.martian_chess.moves import apply_move_nb, attacked_max_nb
from simkit.games.martian_chess.state import M_END, M_KOMI, M_PIPS, M_SCORE, M_TO_MOVE, M_WINNER

POLICIES = ("random", "greedy", "mcts")
RANDOM, GREEDY, MCTS = 0, 1, 2   # mcts: games/martian_chess/mcts.py, dispatched in play.choose_nb
# greedy weights (scenario keys greedy_score, greedy_material, greedy_hanging)
W_SCORE, W_MATERIAL, W_HANGING = 0, 1, 2
WIN = 1.0e9


@njit(cache=True)
def evaluate_nb(board, meta, rays, weights, p):
    """Static value for player p: score lead, material controlled, worst piece left en prise.

    The score lead counts the MC-C1 komi (half pips in meta), as the end of the game will;
    with no komi the term is the integer lead exactly, so greedy play is unchanged.
    """
    own = meta[M_PIPS + p]
    opp = meta[M_PIPS + 1 - p]
    score = (meta[M_SCORE + p] - meta[M_SCORE + 1 - p]) + 0.5 * (meta[M_KOMI + p] - meta[M_KOMI + 1 - p])
    hanging = attacked_max_nb(board, 1 - p, rays)
    return weights[W_SCORE] * score + weights[W_MATERIAL] * (own - opp) - weights[W_HANGING] * hanging


@njit(cache=True)
def choose_greedy_nb(board, meta, rays, rules, weights, moves, n, rng, sb, sm):
    """Win if possible, else the best one-ply evaluation; ties broken uniformly."""
    p = meta[M_TO_MOVE]
    best = -2.0 * WIN
    ties = 0
    choice = 0
    for i in range(n):
        sb[:] = board
        sm[:] = meta
        apply_move_nb(sb, sm, rules, moves[i])
        if sm[M_END] >= 0:
            w = sm[M_WINNER]
            value = WIN if w == p else (-WIN if w == 1 - p else 0.0)
        else:
            value = evaluate_nb(sb, sm, rays, weights, p)
        take, best, ties = argmax_step_nb(value, best, ties, rng, 1e-9)
        if take:
            choice = i
    return moves[choice]


@njit(cache=True)
def choose_move_nb(policy, board, meta, rays, rules, weights, moves, n, rng, sb, sm):
    if policy == GREEDY:
        return choose_greedy_nb(board, meta, rays, rules, weights, moves, n, rng, sb, sm)
    return moves[rng_below_nb(rng, n)]
