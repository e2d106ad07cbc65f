"""Martian Chess legal moves, move application and end checks (RULES §2).

The kernels here and in policies/mcts/play allocate nothing, so they are compiled with
``_nrt=False``: without numba's reference counting, passing the board/meta/table arrays
costs no atomic incref/decref pairs, which were a third of a ply's time. The per-ply
steps of the random game (start_turn, count, nth move, apply) are inlined into their
callers: a numba call passes each array as ~7 machine words, and it showed (20% of a ply).
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.games.martian_chess.bits import HAVE_PDEP, highest_nb, lowest_nb, nth_bit_nb, pext_nb, popcount_nb
from simkit.games.martian_chess.state import (
    CLOCK_DEADLOCK, CLOCK_LEADER, END_CLOCK, END_LIMIT, END_STALEMATE, END_TERRITORY, M_BITS, M_CALLED, M_CLOCK,
    M_END, M_KOMI, M_LAST_FROM, M_LAST_TO, M_PIPS, M_PLY, M_QUIET, M_SCORE, M_TO_MOVE, M_WINNER, R_CLOCK_MODE,
    R_CLOCK_PLIES, R_DEADLOCK_PLIES, R_FIELD_PROMOTION, R_MAX_PLIES, R_POINTS, T_DATT, T_DREL, T_ORD_D, T_ORD_P,
    T_ORD_Q, T_PAWN, T_QATT_F, T_QATT_R, T_QREL_F, T_QREL_R, T_RAY, T_STEP, T_STEP2,
)


@njit(cache=True, inline="always")
def score_half_nb(meta, p):
    """Player p's score as the rules compare it, in half pips: captured pips plus its MC-C1 komi."""
    return 2 * meta[M_SCORE + p] + meta[M_KOMI + p]


@njit(cache=True, _nrt=False, inline="always")
def start_turn_nb(meta, rules):
    """MC-4 `leader`: a player ahead on score (komi included, MC-C1) calls the clock as its turn begins."""
    if rules[R_CLOCK_MODE] == CLOCK_LEADER and meta[M_CALLED] == 0:
        p = meta[M_TO_MOVE]
        if score_half_nb(meta, p) > score_half_nb(meta, 1 - p):
            meta[M_CALLED] = 1
            meta[M_CLOCK] = 0


# Bitboards (docs/games/martian_chess.md, "Speed"): bit c of a mask is cell c. Directions as in
# state.build_rays; those that step to higher cells (+4, +1, +5, +3) list their cells in
# distance order by ascending bit, the others (-4, -1, -3, -5) by descending bit.
FULL = 0xFFFFFFFF
FILE_A = 0x11111111
FILE_D = 0x88888888
RISING = 0b00110101   # bit d set: direction d steps to higher cells


@njit(cache=True, inline="always")
def bits_of_nb(meta, k):
    """Bitboard k (0 pawns, 1 drones, 2 queens) of the position, as a non-negative int64."""
    return np.int64(meta[M_BITS + k]) & FULL


@njit(cache=True, inline="always")
def copy_position_nb(board, meta, to_board, to_meta):
    """to_board/to_meta = board/meta (a loop: an array slice copy would need numba's runtime)."""
    for c in range(board.shape[0]):
        to_board[c] = board[c]
    for k in range(meta.shape[0]):
        to_meta[k] = meta[k]


@njit(cache=True, _nrt=False)
def set_bitboards_nb(board, meta):
    """Derive the position's bitboards (meta[M_BITS:]) from the board."""
    pawns = 0
    drones = 0
    queens = 0
    for c in range(32):
        v = board[c]
        if v == 1:
            pawns |= np.int64(1) << c
        elif v == 2:
            drones |= np.int64(1) << c
        elif v == 3:
            queens |= np.int64(1) << c
    meta[M_BITS] = np.int32(pawns)
    meta[M_BITS + 1] = np.int32(drones)
    meta[M_BITS + 2] = np.int32(queens)


@njit(cache=True, inline="always")
def zone_mask_nb(p):
    return np.int64(0xFFFF) << (16 * p)


@njit(cache=True, inline="always")
def slide_nb(tab, s, d, occ):
    """A queen's cells along direction d from s, up to and including the first occupied one.

    The classical ray trick: the full ray minus the full ray beyond the first blocker. A
    sentinel bit (cell 31 for rising rays, cell 0 for falling ones, whose rays in that
    direction are empty) stands in for "no blocker", so there is no branch on it.
    """
    ray = tab[s, T_RAY + d]
    b = ray & occ
    if (RISING >> d) & 1:
        return ray ^ tab[lowest_nb(b | 0x80000000), T_RAY + d]
    return ray ^ tab[highest_nb(b | 1), T_RAY + d]


@njit(cache=True, inline="always")
def _queen_reach_pext_nb(tab, s, occ):
    # two lookups, indexed by the occupancy of the cells that can block the queen along its
    # file and along its rank and diagonals, packed by PEXT
    return (tab[s, T_QATT_F + pext_nb(occ, tab[s, T_QREL_F])]
            | tab[s, T_QATT_R + pext_nb(occ, tab[s, T_QREL_R])])


@njit(cache=True, inline="always")
def _queen_reach_slides_nb(tab, s, occ):
    a = 0
    for d in range(8):
        a |= slide_nb(tab, s, d, occ)
    return a


@njit(cache=True, inline="always")
def _drone_reach_pext_nb(tab, s, occ):
    return tab[s, T_DATT + pext_nb(occ, tab[s, T_DREL])]


@njit(cache=True, inline="always")
def _drone_reach_steps_nb(tab, s, occ):
    a = 0
    for d in range(4):   # the second step only through an empty first one (branch-free: it is data)
        f = tab[s, T_STEP + d]
        a |= f | (tab[s, T_STEP2 + d] & -np.int64((f & occ) == 0))
    return a


# Every cell a queen / drone on s reaches (the first occupied one on each line included):
# table lookups by PEXT where the CPU has BMI2, else ray slides and steps. Chosen here, once,
# so the kernels never type the other version.
queen_reach_nb = _queen_reach_pext_nb if HAVE_PDEP else _queen_reach_slides_nb
drone_reach_nb = _drone_reach_pext_nb if HAVE_PDEP else _drone_reach_steps_nb


@njit(cache=True, inline="always")
def reach_nb(tab, s, v, occ):
    """Every cell piece ``v`` on s reaches; ``& tab[s, T_RAY + d]`` splits it by direction."""
    if v == 1:
        return tab[s, T_PAWN]
    if v == 2:
        return drone_reach_nb(tab, s, occ)
    return queen_reach_nb(tab, s, occ)


@njit(cache=True, inline="always")
def landing_nb(meta, rules, p, pawns, drones, queens):
    """Cells each kind of the mover's piece may end on: (pawn, drone, queen) masks.

    Anything but an own-zone piece; MC-2 adds the own pieces it may merge with.
    """
    zone = zone_mask_nb(p)
    free = FULL & ~((pawns | drones | queens) & zone)
    ok1 = free
    ok2 = free
    if rules[R_FIELD_PROMOTION] != 0:
        if queens & zone == 0:
            ok1 |= drones & zone   # pawn onto drone: a queen
            ok2 |= pawns & zone    # drone onto pawn: a queen
        if drones & zone == 0:
            ok1 |= pawns & zone    # pawn onto pawn: a drone
    return ok1, ok2, free


@njit(cache=True, inline="always")
def legal_from_nb(tab, meta, s, v, occ, ok1, ok2, ok3):
    """The mask that piece ``v`` on s may land on: its landing cells, less the MC-3 rejection."""
    ok = ok1 if v == 1 else (ok2 if v == 2 else ok3)
    if s == meta[M_LAST_TO]:   # MC-3: the piece the opponent just carried across may not go straight back
        ok &= ~(np.int64(1) << meta[M_LAST_FROM])
    return ok


@njit(cache=True, _nrt=False, inline="always")
def count_moves_nb(board, meta, tab, rules, cnt, any_move=False):
    """How many legal moves the mover has (the length gen_moves_nb's list would have); with ``any_move``
    only whether it has one (> 0: the count stops after the first kind of piece that can move).

    ``cnt`` (int32, >= 32) receives each own piece's legal landing cells (a 32-bit mask, stored as
    int32) at its cell; nth_move_nb picks from it without working the piece's reach out again. One
    loop per kind, so the kind is not branched on per piece.
    """
    p = meta[M_TO_MOVE]
    pawns = bits_of_nb(meta, 0)
    drones = bits_of_nb(meta, 1)
    queens = bits_of_nb(meta, 2)
    occ = pawns | drones | queens
    zone = zone_mask_nb(p)
    ok1, ok2, ok3 = landing_nb(meta, rules, p, pawns, drones, queens)
    back_from = meta[M_LAST_TO]   # MC-3: the piece the opponent just carried across ...
    back_to = np.int64(1) << (meta[M_LAST_FROM] & 31)   # ... may not go straight back
    n = 0
    x = pawns & zone
    while x:
        s = lowest_nb(x)
        x &= x - 1
        m = tab[s, T_PAWN] & ok1
        if s == back_from:
            m &= ~back_to
        cnt[s] = np.int32(m)
        n += popcount_nb(m)
    if any_move and n > 0:
        return n
    x = drones & zone
    while x:
        s = lowest_nb(x)
        x &= x - 1
        m = drone_reach_nb(tab, s, occ) & ok2
        if s == back_from:
            m &= ~back_to
        cnt[s] = np.int32(m)
        n += popcount_nb(m)
    if any_move and n > 0:
        return n
    x = queens & zone
    while x:
        s = lowest_nb(x)
        x &= x - 1
        m = queen_reach_nb(tab, s, occ) & ok3
        if s == back_from:
            m &= ~back_to
        cnt[s] = np.int32(m)
        n += popcount_nb(m)
    return n


@njit(cache=True, _nrt=False, inline="always")
def nth_move_nb(board, meta, tab, rules, cnt, r):
    """The move at index ``r`` of gen_moves_nb's list, from count_moves_nb's landing masks ``cnt`` (no list
    built).

    Both steps are prefix counts with no branch on the data (a walk that stopped at the piece, then at
    the direction, mispredicted its exit, and the piece's kind its branch: a fifth of a random ply).
    The piece is the last one, in cell order, with at most ``r`` moves before it; the direction the
    last whose prefix is at most what remains (a piece's mask lies only on its own kind's rays, and
    rays from one cell are disjoint, so the other kinds' directions count 0 and no kind is needed).
    """
    p = meta[M_TO_MOVE]
    x = (bits_of_nb(meta, 0) | bits_of_nb(meta, 1) | bits_of_nb(meta, 2)) & zone_mask_nb(p)
    s = 0
    before = 0
    acc = 0
    while x:   # the pieces in cell order, as gen_moves_nb lists them
        c = lowest_nb(x)
        x &= x - 1
        take = acc <= r
        s = c if take else s
        before = acc if take else before
        acc += popcount_nb(np.int64(cnt[c]) & FULL)
    r -= before
    full = np.int64(cnt[s]) & FULL
    d = 0
    before = 0
    acc = 0
    for k in range(8):   # directions in list order
        acc += popcount_nb(full & tab[s, T_RAY + k])
        past = acc <= r
        d += past
        before = acc if past else before
    r -= before
    m = full & tab[s, T_RAY + d]
    if not (RISING >> d) & 1:
        r = popcount_nb(m) - 1 - r   # a falling ray lists its nearest cell (highest bit) first
    return s * 32 + nth_bit_nb(m, r)


@njit(cache=True, _nrt=False)
def gen_moves_nb(board, meta, tab, rules, out):
    """Write the mover's legal moves (from * 32 + to) into ``out``; return how many.

    Order: from-cell ascending, then direction (state.build_rays), then distance; the
    random policy's draw and greedy's tie-breaking depend on it.
    """
    p = meta[M_TO_MOVE]
    pawns = bits_of_nb(meta, 0)
    drones = bits_of_nb(meta, 1)
    queens = bits_of_nb(meta, 2)
    occ = pawns | drones | queens
    ok1, ok2, ok3 = landing_nb(meta, rules, p, pawns, drones, queens)
    own = occ & zone_mask_nb(p)
    n = 0
    while own:
        s = lowest_nb(own)
        own &= own - 1
        v = board[s]
        full = reach_nb(tab, s, v, occ) & legal_from_nb(tab, meta, s, v, occ, ok1, ok2, ok3)
        # walk the kind's reachable cells in list order and keep the legal ones: a fixed
        # number of steps with no branch on the data (a loop per ray mispredicted its exit)
        col, steps = (T_ORD_P, 4) if v == 1 else ((T_ORD_D, 8) if v == 2 else (T_ORD_Q, 16))
        for k in range(steps):
            t = tab[s, col + k]
            out[n] = s * 32 + t
            n += (full >> t) & 1
    return n


@njit(cache=True, _nrt=False)
def decide_nb(meta, mover):
    """Winner on score, komi included (MC-C1); equal scores go to ``mover`` (pass -1 for a draw)."""
    a = score_half_nb(meta, 0)
    b = score_half_nb(meta, 1)
    if a > b:
        return 0
    if b > a:
        return 1
    return mover


@njit(cache=True, _nrt=False, inline="always")
def apply_move_nb(board, meta, rules, mv):
    """Play ``mv`` for the player to move, run the end checks, pass the turn.

    Returns the pips captured (0 for a quiet move).
    """
    s = mv // 32
    t = mv % 32
    p = meta[M_TO_MOVE]
    v = board[s]
    w = board[t]
    captured = 0
    zt = t // 16
    bt = np.int64(1) << t
    if w != 0:
        meta[M_BITS + w - 1] = np.int32(bits_of_nb(meta, w - 1) ^ bt)
    if w != 0 and zt != p:
        captured = w
        meta[M_SCORE + p] += rules[R_POINTS + w - 1]
        meta[M_PIPS + zt] -= w
        board[t] = v
    else:
        board[t] = v + w  # a field promotion merges pips: 1+2 queen, 1+1 drone
    meta[M_BITS + v - 1] = np.int32(bits_of_nb(meta, v - 1) ^ (np.int64(1) << s))
    u = board[t]
    meta[M_BITS + u - 1] = np.int32(bits_of_nb(meta, u - 1) | bt)
    board[s] = 0
    if zt != p:
        meta[M_PIPS + p] -= v
        meta[M_PIPS + zt] += v
        meta[M_LAST_FROM] = s
        meta[M_LAST_TO] = t
    else:
        meta[M_LAST_FROM] = -1
        meta[M_LAST_TO] = -1
    meta[M_PLY] += 1
    # MC-4 clock
    if captured:
        meta[M_QUIET] = 0
    else:
        meta[M_QUIET] += 1
    if meta[M_CALLED]:
        meta[M_CLOCK] = 0 if captured else meta[M_CLOCK] + 1
    elif rules[R_CLOCK_MODE] == CLOCK_DEADLOCK and meta[M_QUIET] >= rules[R_DEADLOCK_PLIES]:
        meta[M_CALLED] = 1
        meta[M_CLOCK] = 0
    # end checks, in RULES order
    if meta[M_PIPS] == 0 or meta[M_PIPS + 1] == 0:
        meta[M_END] = END_TERRITORY
        meta[M_WINNER] = decide_nb(meta, np.int64(p))
    elif meta[M_CALLED] and meta[M_CLOCK] >= rules[R_CLOCK_PLIES]:
        meta[M_END] = END_CLOCK
        meta[M_WINNER] = decide_nb(meta, np.int64(-1))
    elif meta[M_PLY] >= rules[R_MAX_PLIES]:
        meta[M_END] = END_LIMIT
        meta[M_WINNER] = decide_nb(meta, np.int64(-1))
    meta[M_TO_MOVE] = 1 - p
    return captured


@njit(cache=True, inline="always")
def hanging_nb(tab, attacker, pawns, drones, queens):
    """Pips of the most valuable piece in the defender's zone that ``attacker`` can capture.

    Pawn and drone attacks are shifted as whole sets (file masks stop the wrap-around);
    only queens slide one by one, and not at all once a queen is found en prise.
    """
    occ = pawns | drones | queens
    za = zone_mask_nb(attacker)
    prey = occ & ~za & FULL
    x = pawns & za
    att = ((x & ~FILE_D) << 5) | ((x & ~FILE_A) << 3) | ((x & ~FILE_D) >> 3) | ((x & ~FILE_A) >> 5)
    x = drones & za
    up = (x << 4) & FULL
    down = x >> 4
    right = (x & ~FILE_D) << 1
    left = (x & ~FILE_A) >> 1
    empty = ~occ
    att |= up | down | right | left | ((up & empty) << 4) | ((down & empty) >> 4) \
        | ((right & empty & ~FILE_D) << 1) | ((left & empty & ~FILE_A) >> 1)
    if att & prey & queens:
        return 3
    x = queens & za
    while x:
        s = lowest_nb(x)
        x &= x - 1
        att |= queen_reach_nb(tab, s, occ)
    att &= prey
    if att & queens:
        return 3
    if att & drones:
        return 2
    if att & pawns:
        return 1
    return 0


@njit(cache=True, _nrt=False)
def play_move_nb(board, meta, rules, mv):
    """apply_move_nb as a call, for the search's tree walk and perft: one compiled copy there
    instead of one inlined per call site keeps the compile time down."""
    return apply_move_nb(board, meta, rules, mv)


@njit(cache=True, _nrt=False, inline="always")
def random_ply_nb(board, meta, tab, rules, cnt, rng):
    """One uniformly random ply (the random policy's draw, no list built), for rollouts (inlined into
    their loop: a call per ply cost the search 5%).

    Starts the turn; returns the mover's move count, 0 when blocked (MC-5: the game is then
    drawn, and nothing is played).
    """
    start_turn_nb(meta, rules)
    n = count_moves_nb(board, meta, tab, rules, cnt)
    if n == 0:
        meta[M_END] = END_STALEMATE
        meta[M_WINNER] = -1
        return 0
    apply_move_nb(board, meta, rules, nth_move_nb(board, meta, tab, rules, cnt, rng_below_nb(rng, n)))
    return n
