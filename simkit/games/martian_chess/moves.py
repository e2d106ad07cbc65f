"""Martian Chess legal moves, move application and end checks (RULES §2)."""
from numba import njit

from simkit.games.martian_chess.state import (
    CLOCK_DEADLOCK, CLOCK_LEADER, END_CLOCK, END_LIMIT, END_TERRITORY, M_CALLED, M_CLOCK,
    M_END, M_KOMI, M_LAST_FROM, M_LAST_TO, M_PIPS, M_PLY, M_QUIET, M_SCORE, M_TO_MOVE, M_WINNER, R_CLOCK_MODE,
    R_CLOCK_PLIES, R_DEADLOCK_PLIES, R_FIELD_PROMOTION, R_MAX_PLIES,
)


@njit(cache=True, inline="always")
def score_half_nb(meta, p):
    """Player p's score as the rules compare it, in half pips: captured pips plus its MC-C1 komi."""
    return 2 * meta[M_SCORE + p] + meta[M_KOMI + p]


@njit(cache=True)
def start_turn_nb(meta, rules):
    """MC-4 `leader`: a player ahead on score (komi included, MC-C1) calls the clock as its turn begins."""
    if rules[R_CLOCK_MODE] == CLOCK_LEADER and meta[M_CALLED] == 0:
        p = meta[M_TO_MOVE]
        if score_half_nb(meta, p) > score_half_nb(meta, 1 - p):
            meta[M_CALLED] = 1
            meta[M_CLOCK] = 0


@njit(cache=True, inline="always")
def piece_reach_nb(pips):
    """Directions (first, last+1 in the rays table) and range: pawn 1 diagonal, drone 2 straight, queen any."""
    if pips == 1:
        return 4, 8, 1
    if pips == 2:
        return 0, 4, 2
    return 0, 8, 7


@njit(cache=True)
def gen_moves_nb(board, meta, rays, rules, out):
    """Write the mover's legal moves (from * 32 + to) into ``out``; return how many."""
    p = meta[M_TO_MOVE]
    lo = 16 * p
    hi = lo + 16
    has_queen = False
    has_drone = False
    for c in range(lo, hi):
        if board[c] == 3:
            has_queen = True
        elif board[c] == 2:
            has_drone = True
    promote = rules[R_FIELD_PROMOTION] != 0
    back_from = meta[M_LAST_TO]   # MC-3: the piece the opponent just carried across ...
    back_to = meta[M_LAST_FROM]   # ... may not go straight back
    n = 0
    for s in range(lo, hi):
        v = board[s]
        if v == 0:
            continue
        d0, d1, reach = piece_reach_nb(v)
        for d in range(d0, d1):
            for k in range(reach):
                t = rays[s, d, k]
                if t < 0:
                    break
                w = board[t]
                legal = True
                if w != 0 and lo <= t < hi:
                    # MC-2: only a field promotion may land on an own piece.
                    legal = promote and ((not has_queen and v + w == 3) or
                                         (not has_drone and v == 1 and w == 1))
                if legal and not (s == back_from and t == back_to):
                    out[n] = s * 32 + t
                    n += 1
                if w != 0:
                    break  # nothing jumps
    return n


@njit(cache=True)
def decide_nb(meta, mover):
    """Winner on score, komi included (MC-C1); equal scores go to ``mover`` (pass -1 for a draw)."""
    a = score_half_nb(meta, 0)
    b = score_half_nb(meta, 1)
    if a > b:
        return 0
    if b > a:
        return 1
    return mover


@njit(cache=True)
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
    if w != 0 and zt != p:
        captured = w
        meta[M_SCORE + p] += w
        meta[M_PIPS + zt] -= w
        board[t] = v
    else:
        board[t] = v + w  # a field promotion merges pips: 1+2 queen, 1+1 drone
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
        meta[M_WINNER] = decide_nb(meta, p)
    elif meta[M_CALLED] and meta[M_CLOCK] >= rules[R_CLOCK_PLIES]:
        meta[M_END] = END_CLOCK
        meta[M_WINNER] = decide_nb(meta, -1)
    elif meta[M_PLY] >= rules[R_MAX_PLIES]:
        meta[M_END] = END_LIMIT
        meta[M_WINNER] = decide_nb(meta, -1)
    meta[M_TO_MOVE] = 1 - p
    return captured


@njit(cache=True)
def attacked_max_nb(board, attacker, rays):
    """Pips of the most valuable piece in the defender's zone that ``attacker`` can capture."""
    lo = 16 * attacker
    hi = lo + 16
    best = 0
    for s in range(lo, hi):
        v = board[s]
        if v == 0:
            continue
        d0, d1, reach = piece_reach_nb(v)
        for d in range(d0, d1):
            for k in range(reach):
                t = rays[s, d, k]
                if t < 0:
                    break
                w = board[t]
                if w != 0:
                    if (t < lo or t >= hi) and w > best:
                        best = w
                        if best == 3:
                            return best  # nothing is worth more than a queen
                    break
    return best
