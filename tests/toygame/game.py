"""Dice Race kernels (see __init__.py for the rules)."""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb, rng_seed_nb
from simkit.engine.search import new_tree_nb, tree_capacity
from simkit.engine.threads import run_blocks
from simkit.games.base import BASE_COLUMNS, column_names, per_side_unit
from simkit.policies import POL_BUDGET, POL_ID, POLICY_VECTOR, max_budget, mcts_options, mcts_params
from simkit.scenario.schema import Option
from simkit.engine.search import ONGOING
from toygame.search import (choose_nb, M_ROLL, M_SIDE, M_STATUS, M_TURNS, NMETA, end_turn_nb, greedy_pawn_nb,
                            move_pawn_nb, on_track_nb, random_pawn_nb, resolve_nb)

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
def init_game_nb(params, first, S, rec):
    """The start: every pawn on square 0, ``first`` to roll, a cleared record."""
    pos, meta = S
    pos[:, :] = 0
    meta[M_SIDE], meta[M_TURNS], meta[M_STATUS], meta[M_ROLL] = first, 0, ONGOING, 0
    rec[:] = 0
    for s in range(2):
        rec[F_SNAP + s] = params[1]


@njit(cache=True)
def roll_nb(P, S, rng):
    """The mover's die as the batch kernel rolls it, from the game's stream."""
    return rng_below_nb(rng, 6) + 1


@njit(cache=True)
def policy_pawn_nb(P, S, policies, rng, S1, S2, tree):
    """The pawn the side to move plays under its entry of the policy vector (its die rolled)."""
    track, pawns = P[0][0], P[0][1]
    pos, meta = S
    side = meta[M_SIDE]
    pid = policies[POL_ID + side]
    if pid == RANDOM:
        return random_pawn_nb(pos, side, pawns, track, rng)
    if pid == GREEDY:
        return greedy_pawn_nb(pos, side, pawns, track, meta[M_ROLL])
    return choose_nb((P[0], P[1][side]), S, S1, S2, policies[POL_BUDGET + side], rng, tree)   # its knob row


@njit(cache=True)
def record_turn_nb(P, S, i, rec, agg, snapshot_ply):
    """Move pawn ``i`` by the die, count captures, end the turn; returns the pawn's square."""
    track, pawns = P[0][0], P[0][1]
    pos, meta = S
    side = meta[M_SIDE]
    to, hit = move_pawn_nb(pos, side, i, meta[M_ROLL], track, pawns)
    if hit:
        rec[F_KILL + side] += hit
        rec[F_LOSS + 1 - side] += hit
        agg[to] += hit
    end_turn_nb(P, S)
    if meta[M_TURNS] == snapshot_ply:
        for s in range(2):
            rec[F_SNAP + s] = on_track_nb(pos, s, pawns, track)
    return to


@njit(cache=True)
def finish_record_nb(P, S, first, rec, snapshot_ply):
    track, pawns = P[0][0], P[0][1]
    pos, meta = S
    turns = meta[M_TURNS]
    if turns < snapshot_ply:
        for s in range(2):
            rec[F_SNAP + s] = on_track_nb(pos, s, pawns, track)
    for s in range(2):
        rec[F_FINAL + s] = on_track_nb(pos, s, pawns, track)
    winner = meta[M_STATUS]
    rec[0], rec[1], rec[2], rec[3] = first, winner, turns, 0 if winner >= 0 else 1


@njit(cache=True)
def play_game_nb(params, knobs, seed, game, first, policies, snapshot_ply, rec, agg, log, tree):
    state = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(state, seed, game)
    P = (params, knobs)
    S = (np.zeros((2, MAX_PAWNS), np.int64), np.zeros(NMETA, np.int64))
    S1 = (np.zeros((2, MAX_PAWNS), np.int64), np.zeros(NMETA, np.int64))
    S2 = (np.zeros((2, MAX_PAWNS), np.int64), np.zeros(NMETA, np.int64))
    init_game_nb(params, first, S, rec)
    meta = S[1]
    while meta[M_STATUS] == ONGOING:
        roll = roll_nb(P, S, state)
        resolve_nb(P, S, roll, state)
        side, turns = meta[M_SIDE], meta[M_TURNS]
        i = policy_pawn_nb(P, S, policies, state, S1, S2, tree)
        to = record_turn_nb(P, S, i, rec, agg, snapshot_ply)
        if turns < log.shape[0]:
            log[turns, 0], log[turns, 1], log[turns, 2], log[turns, 3] = side, roll, i, to
    finish_record_nb(P, S, first, rec, snapshot_ply)


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
    pv = np.zeros(POLICY_VECTOR, dtype=np.int64)
    pv[:len(policies)] = policies
    records = np.zeros((len(firsts), len(RECORD_FIELDS)), dtype=np.int32)
    agg = np.zeros((max(1, min(64, len(firsts))), int(params[0][0]) + 1), dtype=np.int64)
    if len(firsts):
        args = (params[0], params[1], np.int64(seed), np.int64(start), firsts, pv, np.int64(snapshot_ply),
                np.int64(tree_capacity(max_budget(pv), MAX_PAWNS)), records, agg)
        run_blocks(lambda b0, b1: batch_nb(*args, np.int64(b0), np.int64(b1)), agg.shape[0])
    return records, agg.sum(axis=0)


def play(params, seed, game, first, policies):
    pv = np.zeros(POLICY_VECTOR, dtype=np.int64)
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
