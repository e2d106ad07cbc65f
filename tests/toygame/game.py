"""Dice Race kernels (see __init__.py for the rules)."""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb, rng_seed_nb
from simkit.engine.search import new_tree_nb, tree_capacity
from simkit.engine.threads import run_blocks
from simkit.games.base import BASE_COLUMNS, column_names, per_side_unit
from simkit.policies import POL_BUDGET, POL_ID, max_budget, mcts_options, mcts_params
from simkit.scenario.schema import Option
from toygame.search import (choose_nb, M_ROLL, M_SIDE, M_STATUS, M_TURNS, NMETA, greedy_pawn_nb, move_pawn_nb,
                            on_track_nb, random_pawn_nb)

UNITS = ("pawn",)
POLICIES = ("random", "greedy", "mcts")
RANDOM, GREEDY, MCTS = 0, 1, 2
END_REASONS = ("home", "turn_cap")
RECORD_COLUMNS = (BASE_COLUMNS + per_side_unit("losses", UNITS) + per_side_unit("kills", UNITS)
                  + per_side_unit("snap", UNITS) + per_side_unit("final", UNITS))
RECORD_FIELDS = column_names(RECORD_COLUMNS)
F_LOSS, F_KILL, F_SNAP, F_FINAL = 4, 6, 8, 10
MAX_PAWNS = 8

OPTIONS = (
    Option("track", "int", 20, "squares on the track (the last one is home)", min=2, max=200),
    Option("pawns", "int", 3, "pawns per side", min=1, max=MAX_PAWNS),
    Option("max_turns", "int", 300, "turns before the game is a draw", min=1, max=100_000),
) + mcts_options(c=1.0, cutoff=0, scale=4.0, prior_temp=2.0)


def prepare(rules):
    return (np.array([rules["track"], rules["pawns"], rules["max_turns"]], dtype=np.int64), mcts_params(rules))


@njit(cache=True)
def play_game_nb(params, knobs, seed, game, first, policies, snapshot_ply, rec, agg, log, tree):
    track, pawns, max_turns = params[0], params[1], params[2]
    state = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(state, seed, game)
    pos = np.zeros((2, MAX_PAWNS), dtype=np.int64)
    root = (pos, np.zeros(NMETA, np.int64))
    S = (np.zeros((2, MAX_PAWNS), np.int64), np.zeros(NMETA, np.int64))
    S2 = (np.zeros((2, MAX_PAWNS), np.int64), np.zeros(NMETA, np.int64))
    for s in range(2):
        rec[F_SNAP + s] = pawns
    side, winner, turns, reason = first, -1, 0, 1
    while turns < max_turns:
        roll = rng_below_nb(state, 6) + 1
        pid = policies[POL_ID + side]
        if pid == RANDOM:
            i = random_pawn_nb(pos, side, pawns, track, state)
        elif pid == GREEDY:
            i = greedy_pawn_nb(pos, side, pawns, track, roll)
        else:
            meta = root[1]
            meta[M_SIDE], meta[M_TURNS], meta[M_STATUS], meta[M_ROLL] = side, turns, -2, roll
            i = choose_nb((params, knobs[side]), root, S, S2, policies[POL_BUDGET + side], state, tree)
        to, hit = move_pawn_nb(pos, side, i, roll, track, pawns)
        if hit:
            rec[F_KILL + side] += hit
            rec[F_LOSS + 1 - side] += hit
            agg[to] += hit
        if turns < log.shape[0]:
            log[turns, 0], log[turns, 1], log[turns, 2], log[turns, 3] = side, roll, i, to
        turns += 1
        if turns == snapshot_ply:
            for s in range(2):
                rec[F_SNAP + s] = on_track_nb(pos, s, pawns, track)
        if on_track_nb(pos, side, pawns, track) == 0:
            winner, reason = side, 0
            break
        side = 1 - side
    if turns < snapshot_ply:
        for s in range(2):
            rec[F_SNAP + s] = on_track_nb(pos, s, pawns, track)
    for s in range(2):
        rec[F_FINAL + s] = on_track_nb(pos, s, pawns, track)
    rec[0], rec[1], rec[2], rec[3] = first, winner, turns, reason


@njit(cache=True, nogil=True)
def batch_nb(params, knobs, seed, start, firsts, policies, snapshot_ply, tree_cap, records, agg, b0, b1):
    """Blocks b0..b1-1 (engine/threads.py): each with its own aggregate row and search tree, race-free."""
    n = firsts.shape[0]
    blocks = agg.shape[0]
    log = np.zeros((0, 4), dtype=np.int64)
    for b in range(b0, b1):
        tree = new_tree_nb(tree_cap, MAX_PAWNS, 6)
        for k in range(b * n // blocks, (b + 1) * n // blocks):
            play_game_nb(params, knobs, seed, start + k, firsts[k], policies, snapshot_ply, records[k], agg[b], log,
                         tree)


def run_chunk(params, seed, start, firsts, policies, snapshot_ply):
    firsts = np.asarray(firsts, dtype=np.int64)
    pv = np.zeros(6, dtype=np.int64)
    pv[:len(policies)] = policies
    records = np.zeros((len(firsts), len(RECORD_FIELDS)), dtype=np.int32)
    agg = np.zeros((max(1, min(64, len(firsts))), int(params[0][0]) + 1), dtype=np.int64)
    if len(firsts):
        args = (params[0], params[1], np.int64(seed), np.int64(start), firsts, pv, np.int64(snapshot_ply),
                np.int64(tree_capacity(max_budget(pv), MAX_PAWNS)), records, agg)
        run_blocks(lambda b0, b1: batch_nb(*args, np.int64(b0), np.int64(b1)), agg.shape[0])
    return records, agg.sum(axis=0)


def play(params, seed, game, first, policies):
    pv = np.zeros(6, dtype=np.int64)
    pv[:len(policies)] = policies
    p = params[0]
    rec = np.zeros(len(RECORD_FIELDS), dtype=np.int32)
    agg = np.zeros(int(p[0]) + 1, dtype=np.int64)
    log = np.zeros((int(p[2]), 4), dtype=np.int64)
    tree = new_tree_nb(tree_capacity(max_budget(pv), MAX_PAWNS), MAX_PAWNS, 6)
    play_game_nb(p, params[1], np.int64(seed), np.int64(game), np.int64(first), pv, np.int64(0), rec, agg, log, tree)
    lines = [f"turn {t + 1}: player {s} rolls {r}, pawn {i} to {to}"
             for t, (s, r, i, to) in enumerate(log[:rec[2]].tolist())]
    result = "draw" if rec[1] < 0 else f"player {rec[1]} wins"
    lines.append(f"{result} ({END_REASONS[rec[3]]}) after {rec[2]} turns")
    return "\n".join(lines)
