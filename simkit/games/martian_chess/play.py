"""Martian Chess games: a block of games (play_games_nb), the batch kernel, perft."""
import numpy as np
from numba import njit

from simkit.engine.search import new_tree_nb, tree_capacity
from simkit.engine.rng import rng_seed_nb
from simkit.engine.threads import run_blocks
from simkit.games.martian_chess.search import new_state_nb
from simkit.games.martian_chess.moves import copy_position_nb, gen_moves_nb, play_move_nb, start_turn_nb
from simkit.games.martian_chess.policies import evaluate_nb
from simkit.games.martian_chess.state import M_END, M_PLY, M_TO_MOVE, M_WINNER, MAX_MOVES, NMETA, R_KOMI, R_MAX_PLIES
from simkit.games.martian_chess.step import finish_record_nb, init_game_nb, policy_move_nb, record_ply_nb
from simkit.games.martian_chess.state import (   # noqa: F401 (the record layout, re-exported)
    F_CAPTURES, F_END, F_FINAL, F_FIRST, F_KILLS, F_LOSSES, F_PLIES, F_PROMOS, F_SCORE, F_SNAP, F_WINNER,
    NFIELDS, RECORD_COLUMNS, RECORD_FIELDS, TERMINAL_LEAD,
)
from simkit.policies import POLICY_VECTOR, max_budget

# children one search iteration may add (a Martian Chess position has about 20-40 moves); a full tree
# stops growing, which only caps very large budgets (engine/search.py: tree_capacity)
SEARCH_WIDTH = 48


@njit(cache=True, _nrt=False)
def lead0_nb(board, meta, rays, weights):
    """Side 0's evaluation lead (the trajectory's value; docs/games/martian_chess.md, "Trajectory").

    The greedy evaluation charges a player for its own best piece left capturable, which
    is a threat only while the opponent is to move; so, as the MCTS leaf does, the
    position is scored for the player not to move and turned into side 0's lead.
    """
    q = 1 - meta[M_TO_MOVE]
    v = evaluate_nb(board, meta, rays, weights, q)
    return v if q == 0 else -v


@njit(cache=True, _nrt=False)
def play_games_nb(init_board, rays, rules, weights, mc, seed, start, firsts, lo, hi, policies, snapshot_ply,
                  records, deaths, log, board, meta, moves, sb, sm, rng, trees, S, S2s,
                  tvalues, tlegal, tcaptures):
    """Play games ``start + lo`` .. ``start + hi - 1`` (game ``start + i`` with ``firsts[i]`` first), each
    into ``records[i]``; add to ``deaths``. One call for a block of games: a numba call passes each of
    its ~45 arrays as about seven machine words, which cost random playouts ~10% when made per game.

    ``log`` (len > 0) receives each ply's move, for traces (a block of one game). ``trees`` (each side's
    engine/search.py arrays, sized for the largest budget), the search state ``S`` and each
    side's ``S2s`` are the search's, allocated once by the caller. ``tvalues``/``tlegal``/``tcaptures``
    (len > max_plies, or 0 for none) receive the trajectory: side 0's lead before each ply and
    after the last (the result: +-TERMINAL_LEAD or 0), the legal moves and the captures of each
    ply (one game). Recording draws nothing from the game's stream, so the game is the same with or
    without it.
    """
    P = (rays, rules, weights, mc)
    here = (board, meta, moves)
    tracing = tvalues.shape[0] > 0
    for i in range(lo, hi):
        rec = records[i]
        rng_seed_nb(rng, seed, start + i)
        init_game_nb(init_board, rules, np.int64(firsts[i]), board, meta, rec)
        while True:
            if tracing:
                tvalues[meta[M_PLY]] = lead0_nb(board, meta, rays, weights[0])
            start_turn_nb(meta, rules)
            mv, n = policy_move_nb(P, here, policies, rng, trees, S, S2s, sb, sm)
            if mv < 0:   # MC-5: blocked in, the game is drawn
                break
            if tracing:
                tlegal[meta[M_PLY]] = n
            if meta[M_PLY] < log.shape[0]:
                log[meta[M_PLY]] = mv
            captured = record_ply_nb(rules, board, meta, mv, rec, deaths, snapshot_ply)
            if tracing:
                tcaptures[meta[M_PLY] - 1] = captured
            if meta[M_END] >= 0:
                break
        if tracing:   # the finished game: its result, as the MCTS rewards a finished game
            w = meta[M_WINNER]
            tvalues[meta[M_PLY]] = TERMINAL_LEAD if w == 0 else -TERMINAL_LEAD if w == 1 else 0.0
        finish_record_nb(board, meta, rec, snapshot_ply)


@njit(cache=True, nogil=True)
def batch_nb(init_board, rays, rules, weights, mc, seed, start, firsts, policies, snapshot_ply,
             tree_cap, records, deaths, b0, b1):
    """Play blocks b0..b1-1 of len(firsts) games; block b adds its deaths into deaths[b]
    (race-free; engine/threads.py runs blocks on threads).

    ``tree_cap``: the search tree's capacity for the largest budget in ``policies`` (tree_capacity).
    """
    n = firsts.shape[0]
    nblocks = deaths.shape[0]
    for b in range(b0, b1):
        board = np.zeros(32, dtype=np.int8)
        sb = np.zeros(32, dtype=np.int8)
        meta = np.zeros(NMETA, dtype=np.int32)
        sm = np.zeros(NMETA, dtype=np.int32)
        moves = np.zeros(MAX_MOVES, dtype=np.int32)
        rng = np.zeros(1, dtype=np.uint64)
        log = np.zeros(0, dtype=np.int32)
        trees = (new_tree_nb(tree_cap, np.int64(MAX_MOVES), np.int64(1)),   # int64: as the step API's call
                 new_tree_nb(tree_cap, np.int64(MAX_MOVES), np.int64(1)))
        S = new_state_nb()
        S2s = (new_state_nb(), new_state_nb())
        tv = np.zeros(0, dtype=np.float64)   # no trajectory in the batch
        tn = np.zeros(0, dtype=np.int32)
        lo = b * n // nblocks
        hi = (b + 1) * n // nblocks
        play_games_nb(init_board, rays, rules, weights, mc, seed, start, firsts, lo, hi, policies, snapshot_ply,
                      records, deaths[b], log, board, meta, moves, sb, sm, rng, trees, S, S2s, tv, tn, tn)


def policy_vector_of(policies) -> np.ndarray:
    """The full policy vector; a bare pair of ids means no budget and no epsilon."""
    pv = np.zeros(POLICY_VECTOR, dtype=np.int64)
    pv[:len(policies)] = np.asarray(policies, dtype=np.int64)
    return pv


def run_chunk(params, seed, start, firsts, policies, snapshot_ply):
    init_board, rays, rules, weights, mc = params
    n = len(firsts)
    pv = policy_vector_of(policies)
    records = np.zeros((n, NFIELDS), dtype=np.int32)
    deaths = np.zeros((max(1, min(n, 64)), 32), dtype=np.int64)
    # no game (n = 0) still calls the kernel: LocalBackend loads (or compiles) it so before timing any game
    args = (init_board, rays, rules, weights, mc, np.int64(seed), np.int64(start),
            np.asarray(firsts, dtype=np.int8), pv, np.int64(snapshot_ply),
            np.int64(tree_capacity(max_budget(pv), SEARCH_WIDTH)), records, deaths)
    run_blocks(lambda b0, b1: batch_nb(*args, np.int64(b0), np.int64(b1)), deaths.shape[0])
    return records, deaths.sum(axis=0)


@njit(cache=True, _nrt=False)
def perft_nb(board, meta, rays, rules, depth, moves, boards, metas):
    """Leaf count at ``depth``: depth 0 counts 1; a finished or MC-5-blocked position has no children
    (docs/games/martian_chess.md, "Rulings added here")."""
    if depth == 0:
        return 1
    start_turn_nb(meta, rules)
    n = gen_moves_nb(board, meta, rays, rules, moves[depth])
    total = 0
    for i in range(n):
        b = boards[depth]
        m = metas[depth]
        copy_position_nb(board, meta, b, m)
        play_move_nb(b, m, rules, moves[depth, i])
        if m[M_END] >= 0:
            total += 1 if depth == 1 else 0
        else:
            total += perft_nb(b, m, rays, rules, depth - 1, moves, boards, metas)
    return total


def perft(params, depth):
    from simkit.games.martian_chess.state import new_meta
    init_board, rays, rules = params[:3]
    counts = []
    for d in range(1, depth + 1):
        moves = np.zeros((d + 1, MAX_MOVES), dtype=np.int32)
        boards = np.zeros((d + 1, 32), dtype=np.int8)
        metas = np.zeros((d + 1, NMETA), dtype=np.int32)
        meta = new_meta(0, init_board, int(rules[R_KOMI]))
        counts.append(int(perft_nb(init_board.copy(), meta, rays, rules, np.int64(d), moves, boards, metas)))
    return counts


def _play_traced(params, seed, game, first, policies, snapshot_ply, trace):
    init_board, rays, rules, weights, mc = params
    pv = policy_vector_of(policies)
    cap = tree_capacity(max_budget(pv), SEARCH_WIDTH)
    deaths = np.zeros(32, dtype=np.int64)
    size = int(rules[R_MAX_PLIES]) + 1
    log = -np.ones(size, dtype=np.int32)
    tv = np.zeros(size if trace else 0, dtype=np.float64)
    tn = np.zeros(size if trace else 0, dtype=np.int32)
    tx = np.zeros(size if trace else 0, dtype=np.int32)
    records = np.zeros((1, NFIELDS), dtype=np.int32)   # a block of one game: the batch kernel's own call
    play_games_nb(init_board, rays, rules, weights, mc, np.int64(seed), np.int64(game), np.array([first], np.int8),
                  np.int64(0), np.int64(1), pv, np.int64(snapshot_ply), records, deaths, log,
                  np.zeros(32, np.int8), np.zeros(NMETA, np.int32), np.zeros(MAX_MOVES, np.int32),
                  np.zeros(32, np.int8), np.zeros(NMETA, np.int32), np.zeros(1, np.uint64),
                  (new_tree_nb(cap, MAX_MOVES, 1), new_tree_nb(cap, MAX_MOVES, 1)), new_state_nb(),
                  (new_state_nb(), new_state_nb()), tv, tn, tx)
    rec = records[0]
    return rec, log[log >= 0], tv, tn, tx


def play_one(params, seed, game, first, policies, snapshot_ply=-1):
    """One game as the batch kernel plays it: (record row, move log)."""
    rec, log, _, _, _ = _play_traced(params, seed, game, first, policies, snapshot_ply, False)
    return rec, log


def trajectory(params, seed, game, first, policies):
    """One game as the batch kernel plays it, with its per-ply trajectory (simkit.analysis.quality).

    ``(values, legal, captures, record)``: values = side 0's evaluation lead (``lead0_nb``, pips)
    before each of the L plies and after the last (the result: +-TERMINAL_LEAD, 0 for a draw);
    legal = the mover's legal moves; captures = 1 if the ply captured. The record is the one
    run_chunk writes (snapshot at the runner's default ply)."""
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY
    rec, _, tv, tn, tx = _play_traced(params, seed, game, first, policies, DEFAULT_SNAPSHOT_PLY, True)
    n = int(rec[F_PLIES])
    return tv[:n + 1].copy(), tn[:n].astype(np.int64), tx[:n].astype(np.int64), rec
