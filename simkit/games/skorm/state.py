"""Skorm state layout and the placement phase (SK-1 .. SK-3).

A position is five small arrays (one game's scratch, reused ply after ply)::

    cell  int8 [N]     0 empty, else 1 + 4*side + kind   (kind: 0 shieldman,
                       1 archer, 2 horseman, 3 warlord)
    face  int8 [N]     facing 0..5 of the Shieldman on that cell, -1 otherwise
    plist int64 [2, P] the cells of each side's pieces (first SC_PN0+side used;
                       order is arbitrary: a removed piece is swapped with the last)
    slot  int8 [N]     the square-to-piece index: plist[side, slot[c]] == c for the
                       piece on c, -1 on an empty cell (moves and removals look the
                       piece up here instead of scanning plist; ``index_slots_nb``
                       rebuilds it from plist after a hand-made position)
    sc    int64 [NSC]  scalars:

        +--------+------+--------+---------+--------+--------+------+-----+-----+-----+-----+-------------+
        | TOMOVE | PLY  | PASSES | PENDING | WINNER | REASON | DONE | WL0 | WL1 | PN0 | PN1 | CNT[8]      |
        +--------+------+--------+---------+--------+--------+------+-----+-----+-----+-----+-------------+
         side to  plies  consec.   side whose -1 draw  end      0/1    Warlord cells   pieces  per side*4+kind
         move     played passes    Warlord    (valid   reason         (-1 = killed)   on board on the board
                  (move  (SK-8)    waits on   when     index or
                  phase)           the Gold   DONE)    -1
                                   Tile, -1

Actions are int64 codes ``(type << 16) | (from << 8) | to`` with type 0 a move
or capture (SK-5b: identified by from and to) and type 1 a shot
(archer, target); ``PASS = -1``.

Per-game counters (``stats`` int64 [NSTAT]): losses, kills by capture, kills by
shot (each [side*4+kind]), shield blocks per defending side, passes per side.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.games.skorm.rules import (
    I_CORNER0, I_CORNER1, I_PLACEMENT, I_Z, P_ARMY, P_FORM, P_I, P_ZONE, WARLORD,
)

SC_TOMOVE, SC_PLY, SC_PASSES, SC_PENDING, SC_WINNER, SC_REASON, SC_DONE, SC_WL0, SC_WL1, SC_PN0, SC_PN1 = range(11)
SC_CNT = 11
NSC = 19

ST_LOSS, ST_KCAP, ST_KSHOT, ST_BLOCK, ST_PASS = 0, 8, 16, 24, 26
NSTAT = 28

PASS = -1
LOG_W_EXTRA = 3  # log row: [kind (0 place, 1 action, 2 pass), action code / placed cell, mover, cell[N], face[N]]

from simkit.games.skorm.layout import END_REASONS  # noqa: E402, F401 (re-exported)
R_WARLORD, R_GOLD, R_GOLD_IMM, R_STALEMATE, R_MOVE_LIMIT = range(5)


@njit(cache=True)
def put_piece_nb(cell, face, plist, sc, c, side, kind, f):
    cell[c] = 1 + 4 * side + kind
    face[c] = f if kind == 0 else -1
    n = sc[SC_PN0 + side]
    plist[side, n] = c
    sc[SC_PN0 + side] = n + 1
    sc[SC_CNT + 4 * side + kind] += 1
    if kind == WARLORD:
        sc[SC_WL0 + side] = c


@njit(cache=True)
def index_slots_nb(plist, sc, slot):
    """Rebuild the square-to-piece index from the piece lists."""
    slot[:] = -1
    for side in range(2):
        for i in range(sc[SC_PN0 + side]):
            slot[plist[side, i]] = i


@njit(cache=True)
def copy_position_nb(cell, face, plist, slot, sc, cell2, face2, plist2, slot2, sc2):
    """Copy a position into another one's arrays (explicit loops: slice assignment
    between arrays compiles numba's whole broadcast-and-check machinery per call site)."""
    for c in range(cell.shape[0]):
        cell2[c] = cell[c]
        face2[c] = face[c]
        slot2[c] = slot[c]
    for side in range(2):
        for i in range(plist.shape[1]):
            plist2[side, i] = plist[side, i]
    for k in range(sc.shape[0]):
        sc2[k] = sc[k]


@njit(cache=True)
def log_row_nb(log, li, kind, code, mover, cell, face):
    if li < log.shape[0]:
        N = cell.shape[0]
        log[li, 0] = kind
        log[li, 1] = code
        log[li, 2] = mover
        for c in range(N):
            log[li, 3 + c] = cell[c]
            log[li, 3 + N + c] = face[c]
    return li + 1


@njit(cache=True)
def setup_game_nb(params, rng, first, cell, face, plist, slot, sc, log):
    """Empty the scratch arrays and run the placement phase; returns log rows used.

    Warlords start on their corners (SK-1); then the first player places first
    and the players alternate one piece at a time (SK-2); a player with nothing
    left to place is skipped. ``random`` placement picks a uniform remaining
    piece, a uniform empty zone cell and a uniform facing (SK-3); the
    formations place their list in order.
    """
    ip = params[P_I]
    form = params[P_FORM]
    zone = params[P_ZONE]
    army = params[P_ARMY]
    cell[:] = 0
    face[:] = -1
    plist[:, :] = -1
    sc[:] = 0
    sc[SC_PENDING] = -1
    sc[SC_WINNER] = -1
    sc[SC_REASON] = -1
    sc[SC_WL0] = -1
    sc[SC_WL1] = -1
    sc[SC_TOMOVE] = first
    placement = ip[I_PLACEMENT]
    Z = ip[I_Z]
    put_piece_nb(cell, face, plist, sc, ip[I_CORNER0], 0, WARLORD, -1)
    put_piece_nb(cell, face, plist, sc, ip[I_CORNER1], 1, WARLORD, -1)
    li = 0
    li = log_row_nb(log, li, 0, -1, -1, cell, face)
    left = np.zeros((2, 4), np.int64)
    nleft = np.zeros(2, np.int64)
    nxt = np.ones(2, np.int64)  # next formation index (0 is the warlord)
    for s in range(2):
        for k in range(3):
            left[s, k] = army[s, k]
            nleft[s] += army[s, k]
    s = first
    while nleft[0] + nleft[1] > 0:
        if nleft[s] == 0:
            s = 1 - s
        if placement == 1:
            r = rng_below_nb(rng, nleft[s])
            k = 0
            while r >= left[s, k]:
                r -= left[s, k]
                k += 1
            nempty = 0
            for i in range(Z):
                if cell[zone[s, i]] == 0:
                    nempty += 1
            r = rng_below_nb(rng, nempty)
            c = -1
            for i in range(Z):
                if cell[zone[s, i]] == 0:
                    if r == 0:
                        c = zone[s, i]
                        break
                    r -= 1
            f = -1
            if k == 0:
                f = rng_below_nb(rng, 6)
        else:
            j = nxt[s]
            nxt[s] = j + 1
            c = form[s, j, 0]
            k = form[s, j, 1]
            f = form[s, j, 2]
        left[s, k] -= 1
        nleft[s] -= 1
        put_piece_nb(cell, face, plist, sc, c, s, k, f)
        li = log_row_nb(log, li, 0, c, s, cell, face)
        s = 1 - s
    index_slots_nb(plist, sc, slot)
    return li
