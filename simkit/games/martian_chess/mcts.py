"""Martian Chess Monte-Carlo tree search (the ``mcts:N`` policy).

The tree is the shared one (simkit/engine/mcts.py); this module owns the game's
side of an iteration: copy the position, descend the tree by UCT (a node offers
its captures first, see ``widened_nb``), play a rollout of at most ``mcts_cutoff``
plies (random or greedy moves), and score the result: a finished game by its
winner, an unfinished one by the greedy evaluation squashed with ``mcts_scale``.

Martian Chess has no chance, so open loop equals closed loop here: the same action
sequence always reaches the same position.
"""
from numba import njit

from simkit.engine.mcts import (
    ROOT, TF_VISITS, backprop_nb, best_action_nb, reward_from_eval_nb, reward_from_winner_nb, select_nb, tree_reset_nb,
)
from simkit.games.martian_chess.moves import (
    copy_position_nb, gen_moves_nb, play_move_nb, random_ply_nb, start_turn_nb,
)
from simkit.games.martian_chess.policies import choose_greedy_nb, evaluate_nb
from simkit.games.martian_chess.state import END_STALEMATE, M_END, M_TO_MOVE, M_WINNER
from simkit.policies import MC_C, MC_CUTOFF, MC_N, MC_ROLLOUT, MC_SCALE

ROLLOUT_GREEDY = 1  # index of "greedy" in simkit.policies.ROLLOUTS
MC_CAPTURES_FIRST = MC_N  # this game's own knob, appended to the shared vector (rule mcts_captures_first)


@njit(cache=True, _nrt=False)
def leaf_reward_nb(board, meta, rays, weights, scale):
    """Side 0's reward in [0, 1] for the position a rollout stopped in.

    The greedy evaluation charges the mover for its own piece left capturable, so it
    is meant for the player who has just moved (the opponent is to move): score the
    position for that player and turn it into side 0's lead.
    """
    if meta[M_END] >= 0:
        return reward_from_winner_nb(meta[M_WINNER])
    q = 1 - meta[M_TO_MOVE]
    v = evaluate_nb(board, meta, rays, weights, q)
    return reward_from_eval_nb(v if q == 0 else -v, scale)


@njit(cache=True, _nrt=False)
def next_moves_nb(board, meta, rays, rules, out):
    """Start the turn and list its moves; a blocked mover draws at once (MC-5). Returns n."""
    start_turn_nb(meta, rules)
    n = gen_moves_nb(board, meta, rays, rules, out)
    if n == 0:
        meta[M_END] = END_STALEMATE
        meta[M_WINNER] = -1
    return n


@njit(cache=True, _nrt=False)
def captures_first_nb(board, meta, acts, n):
    """Reorder ``acts[:n]`` in place so the captures come first; return how many there are."""
    p = meta[M_TO_MOVE]
    nc = 0
    for i in range(n):
        t = acts[i] % 32
        if board[t] != 0 and t // 16 != p:
            a = acts[i]
            acts[i] = acts[nc]
            acts[nc] = a
            nc += 1
    return nc


@njit(cache=True, _nrt=False)
def widened_nb(board, meta, acts, n, visits, per_capture):
    """How many of ``acts`` the tree may choose from at a node visited ``visits`` times.

    Captures are the only moves that score, and the one the opponent has after a
    careless move is what the search must see first: with uniform expansion it is
    one of ~20 replies and is often not tried before the budget runs out. So a node
    offers only its captures until it has had ``per_capture`` visits per capture,
    then every move (0 = no widening).
    """
    if per_capture <= 0.0:
        return n
    nc = captures_first_nb(board, meta, acts, n)
    if nc > 0 and visits < per_capture * nc:
        return nc
    return n


@njit(cache=True, _nrt=False)
def mcts_choose_nb(board, meta, rays, rules, weights, mc, budget, moves, n, rng,
                   ti, tf, path, sb, sm, smoves, gb, gm):
    """The move ``budget`` MCTS iterations prefer among the ``n`` root ``moves``.

    ``board``/``meta`` is the real position (turn already started; left untouched, while
    ``moves`` may be reordered); ``sb``/``sm``/``smoves`` hold an iteration's position and
    moves, ``gb``/``gm`` are the greedy rollout's own scratch; ``ti``/``tf``/``path`` the
    tree (capacity >= budget + 2). Nothing is allocated here.
    """
    if n == 1:
        return moves[0]  # nothing to decide; saves the search
    c = mc[MC_C]
    greedy = int(mc[MC_ROLLOUT]) == ROLLOUT_GREEDY
    cutoff = int(mc[MC_CUTOFF])
    scale = mc[MC_SCALE]
    per_capture = mc[MC_CAPTURES_FIRST]
    tree_reset_nb(ti, tf)
    for _ in range(max(budget, 1)):
        copy_position_nb(board, meta, sb, sm)
        node = ROOT
        depth = 0
        # selection and expansion: one new node per iteration
        while True:
            if depth == 0:
                acts = moves
                k = n
            else:
                acts = smoves
                k = next_moves_nb(sb, sm, rays, rules, smoves)
                if k == 0:
                    break
            k = widened_nb(sb, sm, acts, k, tf[node, TF_VISITS], per_capture)
            j, child, fresh = select_nb(ti, tf, node, acts, k, sm[M_TO_MOVE], c, rng)
            play_move_nb(sb, sm, rules, acts[j])
            if child < 0:
                break
            path[depth] = child
            depth += 1
            node = child
            if fresh or sm[M_END] >= 0:
                break
        # rollout up to the cut-off
        plies = 0
        while sm[M_END] < 0 and plies < cutoff:
            if greedy:
                k = next_moves_nb(sb, sm, rays, rules, smoves)
                if k == 0:
                    break
                mv = choose_greedy_nb(sb, sm, rays, rules, weights, smoves, k, rng, gb, gm)
                play_move_nb(sb, sm, rules, mv)
            elif random_ply_nb(sb, sm, rays, rules, smoves, rng) == 0:   # the random draw on the count
                break
            plies += 1
        backprop_nb(ti, tf, path, depth, leaf_reward_nb(sb, sm, rays, weights, scale))
    return best_action_nb(ti, tf, rng)
