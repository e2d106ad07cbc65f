"""Dice Race's search hooks: all a game writes to get ``mcts:N`` from simkit.engine.search.

Search state ``S = (pos, meta)``: ``pos[side, pawn]`` squares (``track`` = home) and
``meta = [side to move, turns played, status, roll]`` where ``roll == 0`` means the
mover's die is still to be rolled (a chance event with six equally likely outcomes).
``P = (params, knobs)``: the prepared rules and the MCTS knob vector.
A decision's code is the pawn's index.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.engine.search import DECISIVE, ONGOING, copy_into_nb, make_search, squash_nb
from simkit.policies import MC_SCALE

M_SIDE, M_TURNS, M_STATUS, M_ROLL = 0, 1, 2, 3
NMETA = 4


@njit(cache=True)
def on_track_nb(pos, side, pawns, track):
    n = 0
    for i in range(pawns):
        if pos[side, i] < track:
            n += 1
    return n


@njit(cache=True)
def move_pawn_nb(pos, side, i, roll, track, pawns):
    """Move pawn ``i`` of ``side`` by ``roll``; returns (square, pawns captured)."""
    to = min(pos[side, i] + roll, track)
    pos[side, i] = to
    hit = 0
    if to < track:
        for j in range(pawns):
            if pos[1 - side, j] == to:
                pos[1 - side, j] = 0
                hit += 1
    return to, hit


@njit(cache=True)
def copy_nb(P, src, dst):
    copy_into_nb(src[0], dst[0])
    copy_into_nb(src[1], dst[1])


@njit(cache=True)
def determinise_nb(P, S, player, rng):
    pass     # nothing is hidden


@njit(cache=True)
def status_nb(P, S):
    return S[1][M_STATUS]


@njit(cache=True)
def to_move_nb(P, S):
    return S[1][M_SIDE]


@njit(cache=True)
def turn_nb(P, S):
    return S[1][M_TURNS]


@njit(cache=True)
def decisions_nb(P, S, codes, scores):
    """Each pawn on the track; its score is the progress the move gains plus the enemy progress it
    sends home (the evaluation's units); bringing the last pawn home wins at once."""
    track, pawns = P[0][0], P[0][1]
    pos, meta = S
    side = meta[M_SIDE]
    roll = meta[M_ROLL]
    left = on_track_nb(pos, side, pawns, track)
    n = 0
    for i in range(pawns):
        if pos[side, i] >= track:
            continue
        to = min(pos[side, i] + roll, track)
        s = float(to - pos[side, i])
        if to == track and left == 1:
            s = DECISIVE
        elif to < track:
            for j in range(pawns):
                if pos[1 - side, j] == to:
                    s += to
        codes[n] = i
        scores[n] = s
        n += 1
    return n


@njit(cache=True)
def end_turn_nb(P, S):
    track, pawns, max_turns = P[0][0], P[0][1], P[0][2]
    pos, meta = S
    side = meta[M_SIDE]
    meta[M_TURNS] += 1
    if on_track_nb(pos, side, pawns, track) == 0:
        meta[M_STATUS] = side
    elif meta[M_TURNS] >= max_turns:
        meta[M_STATUS] = -1
    meta[M_SIDE] = 1 - side
    meta[M_ROLL] = 0


@njit(cache=True)
def apply_nb(P, S, code, rng):
    pos, meta = S
    move_pawn_nb(pos, meta[M_SIDE], code, meta[M_ROLL], P[0][0], P[0][1])
    end_turn_nb(P, S)


@njit(cache=True)
def chance_nb(P, S, outcomes, probs):
    if S[1][M_STATUS] != ONGOING or S[1][M_ROLL] != 0:
        return 0
    for k in range(6):
        outcomes[k] = k + 1
        probs[k] = 1.0 / 6.0
    return 6


@njit(cache=True)
def resolve_nb(P, S, outcome, rng):
    S[1][M_ROLL] = outcome


@njit(cache=True)
def evaluate_nb(P, S):
    """Side 0's progress lead (squares, home counted as the whole track), the mover's rolled die counted
    as the squares it is about to move (so a roll's luck shows at once), squashed by ``mcts_scale``."""
    pawns = P[0][1]
    pos, meta = S
    lead = 0.0
    for i in range(pawns):
        lead += pos[0, i] - pos[1, i]
    lead += meta[M_ROLL] if meta[M_SIDE] == 0 else -meta[M_ROLL]
    return squash_nb(lead, P[1][MC_SCALE])


@njit(cache=True)
def greedy_pawn_nb(pos, side, pawns, track, roll):
    """Greedy's pawn: capture if possible, else bring a pawn home, else the rearmost; lowest index first."""
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
        if key > best_key or (key == best_key and pos[side, i] < pos[side, best]):
            best, best_key = i, key
    return best


@njit(cache=True)
def random_pawn_nb(pos, side, pawns, track, state):
    k = rng_below_nb(state, on_track_nb(pos, side, pawns, track))
    for i in range(pawns):
        if pos[side, i] < track:
            if k == 0:
                return i
            k -= 1
    return -1


@njit(cache=True)
def rollout_nb(P, S, policy, horizon, rng):
    track, pawns = P[0][0], P[0][1]
    pos, meta = S
    while meta[M_STATUS] == ONGOING:
        if meta[M_ROLL] == 0:
            meta[M_ROLL] = rng_below_nb(rng, 6) + 1
        if meta[M_TURNS] >= horizon:
            return
        side = meta[M_SIDE]
        if policy == 1:
            i = greedy_pawn_nb(pos, side, pawns, track, meta[M_ROLL])
        else:
            i = random_pawn_nb(pos, side, pawns, track, rng)
        apply_nb(P, S, i, rng)


@njit(cache=True)
def closed_loop_nb(P):
    return True


search_nb = make_search(copy_nb, determinise_nb, status_nb, to_move_nb, turn_nb, decisions_nb, apply_nb, chance_nb,
                        resolve_nb, evaluate_nb, rollout_nb, closed_loop_nb)


@njit(cache=True)
def choose_nb(P, root, S, S2, budget, rng, tree):
    """The decision ``budget`` iterations of the engine's search prefer at ``root``."""
    return search_nb(P, root, S, S2, P[1], budget, rng, tree)


def new_state(pawns_max):
    return (np.zeros((2, pawns_max), np.int64), np.zeros(NMETA, np.int64))
