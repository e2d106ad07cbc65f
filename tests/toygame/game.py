"""Dice Race kernels (see __init__.py for the rules)."""
import numpy as np
from numba import njit, prange

from simkit.engine.rng import rng_below_nb, rng_seed_nb
from simkit.games.base import BASE_COLUMNS, column_names, per_side_unit
from simkit.policies import POL_ID
from simkit.scenario.schema import Option

UNITS = ("pawn",)
POLICIES = ("random", "greedy")
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
)


def prepare(rules):
    return (np.array([rules["track"], rules["pawns"], rules["max_turns"]], dtype=np.int64),)


@njit(cache=True)
def _on_track(pos, side, pawns, track):
    n = 0
    for i in range(pawns):
        if pos[side, i] < track:
            n += 1
    return n


@njit(cache=True)
def _choose(pos, side, pawns, track, roll, policy, state):
    """The pawn side moves (a pawn still on the track)."""
    if policy == 0:
        k = rng_below_nb(state, _on_track(pos, side, pawns, track))
        for i in range(pawns):
            if pos[side, i] < track:
                if k == 0:
                    return i
                k -= 1
    best, best_key = -1, -1
    for i in range(pawns):
        if pos[side, i] >= track:
            continue
        to = pos[side, i] + roll
        key = 0
        if to >= track:
            key = 1
        else:
            for j in range(pawns):
                if pos[1 - side, j] == to:
                    key = 2
        # rearmost pawn among equals: a larger key, or the same key further back
        if key > best_key or (key == best_key and pos[side, i] < pos[side, best]):
            best, best_key = i, key
    return best


@njit(cache=True)
def play_game_nb(params, seed, game, first, policies, snapshot_ply, rec, agg, log):
    track, pawns, max_turns = params[0], params[1], params[2]
    state = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(state, seed, game)
    pos = np.zeros((2, MAX_PAWNS), dtype=np.int64)
    for s in range(2):
        rec[F_SNAP + s] = pawns
    side, winner, turns, reason = first, -1, 0, 1
    while turns < max_turns:
        roll = rng_below_nb(state, 6) + 1
        i = _choose(pos, side, pawns, track, roll, policies[POL_ID + side], state)
        to = min(pos[side, i] + roll, track)
        pos[side, i] = to
        if to < track:
            for j in range(pawns):
                if pos[1 - side, j] == to:
                    pos[1 - side, j] = 0
                    rec[F_KILL + side] += 1
                    rec[F_LOSS + 1 - side] += 1
                    agg[to] += 1
        if turns < log.shape[0]:
            log[turns, 0], log[turns, 1], log[turns, 2], log[turns, 3] = side, roll, i, to
        turns += 1
        if turns == snapshot_ply:
            for s in range(2):
                rec[F_SNAP + s] = _on_track(pos, s, pawns, track)
        if _on_track(pos, side, pawns, track) == 0:
            winner, reason = side, 0
            break
        side = 1 - side
    if turns < snapshot_ply:
        for s in range(2):
            rec[F_SNAP + s] = _on_track(pos, s, pawns, track)
    for s in range(2):
        rec[F_FINAL + s] = _on_track(pos, s, pawns, track)
    rec[0], rec[1], rec[2], rec[3] = first, winner, turns, reason


@njit(cache=True, parallel=True)
def batch_nb(params, seed, start, firsts, policies, snapshot_ply, records, agg):
    n = firsts.shape[0]
    blocks = min(64, n)
    log = np.zeros((0, 4), dtype=np.int64)
    for b in prange(blocks):   # contiguous blocks, each with its own aggregate row: race-free
        for k in range(b * n // blocks, (b + 1) * n // blocks):
            play_game_nb(params, seed, start + k, firsts[k], policies, snapshot_ply, records[k], agg[b], log)


def run_chunk(params, seed, start, firsts, policies, snapshot_ply):
    firsts = np.asarray(firsts, dtype=np.int64)
    pv = np.zeros(6, dtype=np.int64)
    pv[:len(policies)] = policies
    records = np.zeros((len(firsts), len(RECORD_FIELDS)), dtype=np.int32)
    agg = np.zeros((max(1, min(64, len(firsts))), int(params[0][0]) + 1), dtype=np.int64)
    batch_nb(params[0], np.int64(seed), np.int64(start), firsts, pv, np.int64(snapshot_ply), records, agg)
    return records, agg.sum(axis=0)


def play(params, seed, game, first, policies):
    pv = np.zeros(6, dtype=np.int64)
    pv[:len(policies)] = policies
    p = params[0]
    rec = np.zeros(len(RECORD_FIELDS), dtype=np.int32)
    agg = np.zeros(int(p[0]) + 1, dtype=np.int64)
    log = np.zeros((int(p[2]), 4), dtype=np.int64)
    play_game_nb(p, np.int64(seed), np.int64(game), np.int64(first), pv, np.int64(0), rec, agg, log)
    lines = [f"turn {t + 1}: player {s} rolls {r}, pawn {i} to {to}"
             for t, (s, r, i, to) in enumerate(log[:rec[2]].tolist())]
    result = "draw" if rec[1] < 0 else f"player {rec[1]} wins"
    lines.append(f"{result} ({END_REASONS[rec[3]]}) after {rec[2]} turns")
    return "\n".join(lines)
