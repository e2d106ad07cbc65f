"""Skorm legal actions, their application and the end checks (jitted).

Action identity follows SK-5b: a move or capture is ``(from, to)``, a shot is
``(archer, target)``; the path of a two-step move is looked at only for the
shield rule (SK-6), through the final-step-from cells of ``APPR``.
"""
import numpy as np
from numba import njit

from simkit.games.skorm.rules import (
    I_FIRST_ACTIONS2, I_GOLD, I_GOLD_IMM, I_GOLD_ON, I_MAX_PLIES, I_P, I_RANGE, I_STEPS_H, I_STEPS_W,
    P_ADJB, P_APPR, P_DEST, P_FRAY, P_I, P_NB, P_RAY, P_SHOTB,
)
from simkit.games.skorm.bits import cellbit_nb, has_nb, pop2_nb
from simkit.games.skorm.state import (
    PASS,
    R_GOLD, R_GOLD_IMM, R_MOVE_LIMIT, R_STALEMATE, R_WARLORD, SC_CNT, SC_DONE, SC_PASSES, SC_PENDING,
    SC_PLY, SC_PN0, SC_REASON, SC_TOMOVE, SC_WINNER, SC_WL0, ST_KCAP, ST_KSHOT, ST_LOSS,
)

_ONE = np.uint64(1)
_M63 = np.uint64(63)


@njit(cache=True, inline="always")
def act_type(code):
    return code >> 16


@njit(cache=True, inline="always")
def act_from(code):
    return (code >> 8) & 255


@njit(cache=True, inline="always")
def act_to(code):
    return code & 255


@njit(cache=True, inline="always")
def encode(typ, a, t):
    return (typ << 16) | (a << 8) | t


@njit(cache=True)
def max_actions_nb(params):
    """A bound on one side's legal actions: per piece a two-stepper's 18 destinations, or an Archer's 6
    steps and 6 lines of shots (the larger), plus the pass."""
    ip = params[P_I]
    rng_ = ip[I_RANGE]
    K = params[P_RAY].shape[2]
    if rng_ > K:
        rng_ = K
    return ip[I_P] * (18 + 6 * rng_) + 1


@njit(cache=True)
def gen_actions_nb(params, cell, face, plist, sc, s, acts, blocks):
    """gen_list_nb with the tables taken from ``params`` (tests, perft, the step API)."""
    return gen_list_nb(params[P_I], params[P_NB], params[P_RAY], params[P_DEST], params[P_APPR], params[P_ADJB],
                       cell, face, plist, sc, s, acts, blocks)


@njit(cache=True, _nrt=False)
def gen_list_nb(ip, nb, ray, dest, appr, adjb, cell, face, plist, sc, s, acts, blocks):
    """Write side ``s``'s legal actions into ``acts``; return how many.

    ``blocks[0]`` is increased by the number of actions the shield rule
    removed: a shot at an enemy Shieldman facing the archer's line, or a
    (from, to) capture of an enemy Shieldman that had at least one open path
    but whose every open path's final step came from the shielded cell.

    The hot paths pass the tables one by one: a call that takes the whole params
    tuple cost ~150 ns (measured), mostly numba's reference counting of its arrays;
    the kernels that allocate nothing are compiled with ``_nrt=False`` (no atomic
    incref/decref pairs on the arrays they pass on).
    """
    rng_ = ip[I_RANGE]
    K = ray.shape[2]
    if rng_ > K:
        rng_ = K
    lo = 1 + 4 * (1 - s)  # enemy codes lo..lo+3
    n = 0
    nblk = 0
    for i in range(sc[SC_PN0 + s]):
        a = plist[s, i]
        kind = cell[a] - 1 - 4 * s
        if kind <= 1:  # shieldman, archer: one step
            for d in range(6):
                t = nb[a, d]
                if t < 0:
                    continue
                c = cell[t]
                if c == 0:
                    acts[n] = encode(0, a, t)
                    n += 1
                elif kind == 0 and c >= lo and c < lo + 4:
                    if c == lo and nb[t, face[t]] == a:
                        nblk += 1
                    else:
                        acts[n] = encode(0, a, t)
                        n += 1
            if kind == 1:
                for d in range(6):
                    back = (d + 3) % 6
                    for k in range(rng_):
                        t = ray[a, d, k]
                        if t < 0:
                            break
                        c = cell[t]
                        if c >= lo and c < lo + 4:  # SK-5: archers shoot enemy pieces only
                            if c == lo and face[t] == back:
                                nblk += 1
                            else:
                                acts[n] = encode(1, a, t)
                                n += 1
        else:
            steps = ip[I_STEPS_H] if kind == 2 else ip[I_STEPS_W]
            nd = 18 if steps >= 2 else 6
            # the cells an open path ends on: next to the piece or to an empty neighbour
            # of it; the path table is looked at only for a capture of a Shieldman (SK-6)
            r0 = ~np.uint64(0)
            r1 = ~np.uint64(0)
            if steps >= 2:
                r0 = adjb[a, 0]
                r1 = adjb[a, 1]
                for d in range(6):
                    m = nb[a, d]
                    if m >= 0 and cell[m] == 0:
                        r0 |= adjb[m, 0]
                        r1 |= adjb[m, 1]
            for j in range(nd):
                t = dest[a, j]
                if t < 0 or not has_nb(r0, r1, t):
                    continue
                c = cell[t]
                if c != 0 and (c < lo or c >= lo + 4):
                    continue  # own piece
                if c == lo:
                    shielded = nb[t, face[t]]
                    legal = False
                    for m in range(3):
                        x = appr[a, j, m]
                        if x < 0:
                            break
                        if x != a:
                            if steps < 2 or cell[x] != 0:
                                continue
                        if x != shielded:
                            legal = True
                            break
                    if not legal:
                        nblk += 1  # some path is open, but every open one ends from the shielded cell
                        continue
                acts[n] = encode(0, a, t)
                n += 1
    blocks[0] += nblk
    return n


@njit(cache=True, _nrt=False)
def count_actions_nb(ip, nb, adjb, shotb, fray, cell, face, plist, sc, s, npa):
    """Side ``s``'s legal actions counted with cell masks, without listing them:
    ``npa[i]`` = the actions of the piece ``plist[s, i]``; returns (actions, shield
    blocks), both exactly as ``gen_actions_nb`` counts them (the random policy's
    count-then-select; tests/test_skorm_speed.py checks the two agree).

    A step piece's destinations are its neighbours that are empty (or enemy, for a
    capturer); an Archer's targets the enemy pieces in its shot mask; a two-stepper's
    destinations its neighbours plus the neighbours of its empty neighbours. SK-6
    then subtracts the captures and shots a Shieldman's facing forbids: such a block
    needs an enemy Shieldman facing the piece's cell (mask ``sf``), its line of fire
    (``cv``), or a cell the two-stepper passes through, so the exact per-Shieldman
    look runs only when those masks say a block is possible.
    """
    o = 1 - s
    lo = 1 + 4 * o
    two_h = ip[I_STEPS_H] >= 2
    two_w = ip[I_STEPS_W] >= 2
    zero = np.uint64(0)
    own0 = zero
    own1 = zero
    en0 = zero
    en1 = zero
    sf0 = zero
    sf1 = zero
    cv0 = zero
    cv1 = zero
    for i in range(sc[SC_PN0 + s]):
        b0, b1 = cellbit_nb(plist[s, i])
        own0 |= b0
        own1 |= b1
    no = sc[SC_PN0 + o]
    for i in range(no):
        t = plist[o, i]
        b0, b1 = cellbit_nb(t)
        en0 |= b0
        en1 |= b1
        if cell[t] == lo:
            f = face[t]
            x = nb[t, f]
            if x >= 0:
                b0, b1 = cellbit_nb(x)
                sf0 |= b0
                sf1 |= b1
            cv0 |= fray[t, f, 0]
            cv1 |= fray[t, f, 1]
    emp0 = ~(own0 | en0)
    emp1 = ~(own1 | en1)
    n = 0
    nblk = 0
    for i in range(sc[SC_PN0 + s]):
        a = plist[s, i]
        kind = cell[a] - 1 - 4 * s
        a0 = adjb[a, 0]
        a1 = adjb[a, 1]
        blk = 0
        if kind == 1:  # archer: steps to empty neighbours, shoots enemy pieces in range
            k = pop2_nb(a0 & emp0, a1 & emp1) + pop2_nb(shotb[a, 0] & en0, shotb[a, 1] & en1)
            if has_nb(cv0, cv1, a):
                for j in range(no):
                    t = plist[o, j]
                    if cell[t] == lo and has_nb(fray[t, face[t], 0], fray[t, face[t], 1], a):
                        blk += 1
        elif kind == 0 or (kind == 2 and not two_h) or (kind == 3 and not two_w):  # one step, captures
            k = pop2_nb(a0 & (emp0 | en0), a1 & (emp1 | en1))
            if has_nb(sf0, sf1, a):
                for j in range(no):
                    t = plist[o, j]
                    if cell[t] == lo and nb[t, face[t]] == a:
                        blk += 1
        else:  # two-stepper: through an empty neighbour
            r0 = a0
            r1 = a1
            for d in range(6):
                m = nb[a, d]
                if m >= 0 and has_nb(emp0, emp1, m):
                    r0 |= adjb[m, 0]
                    r1 |= adjb[m, 1]
            b0, b1 = cellbit_nb(a)
            r0 &= ~b0 & (emp0 | en0)
            r1 &= ~b1 & (emp1 | en1)
            k = pop2_nb(r0, r1)
            # a block needs the shielded cell to be the piece's own or an empty neighbour
            if ((sf0 & (b0 | (a0 & emp0))) | (sf1 & (b1 | (a1 & emp1)))) != zero:
                for j in range(no):
                    t = plist[o, j]
                    if cell[t] != lo or not has_nb(r0, r1, t):
                        continue
                    sh = nb[t, face[t]]
                    # the open final-step-from cells: the piece's own (t adjacent) and the
                    # empty cells next to both; blocked when the shielded cell is the only one
                    near = has_nb(a0, a1, t)
                    c0 = a0 & adjb[t, 0] & emp0
                    c1 = a1 & adjb[t, 1] & emp1
                    nopen = pop2_nb(c0, c1) + (1 if near else 0)
                    if nopen == 1 and sh >= 0:
                        if (near and sh == a) or (not near and has_nb(c0, c1, sh)):
                            blk += 1
        k -= blk
        npa[i] = k
        n += k
        nblk += blk
    return n, nblk


@njit(cache=True, _nrt=False)
def select_action_nb(ip, nb, adjb, ray, dest, appr, cell, face, s, a, r):
    """The ``r``-th legal action of the piece on ``a``, in ``gen_actions_nb``'s order
    (its loop for one piece, stopping at the chosen action instead of listing them)."""
    rng_ = ip[I_RANGE]
    K = ray.shape[2]
    if rng_ > K:
        rng_ = K
    lo = 1 + 4 * (1 - s)
    kind = cell[a] - 1 - 4 * s
    if kind <= 1:
        for d in range(6):
            t = nb[a, d]
            if t < 0:
                continue
            c = cell[t]
            if c == 0 or (kind == 0 and c >= lo and c < lo + 4 and not (c == lo and nb[t, face[t]] == a)):
                if r == 0:
                    return encode(0, a, t)
                r -= 1
        if kind == 1:
            for d in range(6):
                back = (d + 3) % 6
                for k in range(rng_):
                    t = ray[a, d, k]
                    if t < 0:
                        break
                    c = cell[t]
                    if c >= lo and c < lo + 4 and not (c == lo and face[t] == back):
                        if r == 0:
                            return encode(1, a, t)
                        r -= 1
        return PASS
    steps = ip[I_STEPS_H] if kind == 2 else ip[I_STEPS_W]
    nd = 18 if steps >= 2 else 6
    # the cells a two-step path can end on (next to the piece or to an empty neighbour);
    # the path table is looked at only for a capture of a Shieldman (SK-6)
    r0 = ~np.uint64(0)
    r1 = ~np.uint64(0)
    if steps >= 2:
        r0 = adjb[a, 0]
        r1 = adjb[a, 1]
        for d in range(6):
            m = nb[a, d]
            if m >= 0 and cell[m] == 0:
                r0 |= adjb[m, 0]
                r1 |= adjb[m, 1]
    for j in range(nd):
        t = dest[a, j]
        if t < 0 or not has_nb(r0, r1, t):
            continue
        c = cell[t]
        if c != 0 and (c < lo or c >= lo + 4):
            continue
        if c == lo:
            shielded = nb[t, face[t]]
            legal = False
            for m in range(3):
                x = appr[a, j, m]
                if x < 0:
                    break
                if x != a:
                    if steps < 2 or cell[x] != 0:
                        continue
                if x != shielded:
                    legal = True
                    break
            if not legal:
                continue
        if r == 0:
            return encode(0, a, t)
        r -= 1
    return PASS


@njit(cache=True, _nrt=False)
def remove_piece_nb(cell, face, plist, slot, sc, c):
    """Take the piece on ``c`` off the board: the last piece of its side's list
    fills its slot (the square-to-piece index follows it)."""
    code = cell[c]
    side = (code - 1) >> 2
    kind = (code - 1) & 3
    n = sc[SC_PN0 + side]
    i = slot[c]
    last = plist[side, n - 1]
    plist[side, i] = last
    slot[last] = i
    plist[side, n - 1] = -1
    slot[c] = -1
    sc[SC_PN0 + side] = n - 1
    sc[SC_CNT + 4 * side + kind] -= 1
    if kind == 3:
        sc[SC_WL0 + side] = -1
    cell[c] = 0
    face[c] = -1


@njit(cache=True, _nrt=False)
def apply_action_nb(cell, face, plist, slot, sc, code, landface, stats, agg):
    """Apply the side to move's action (no end checks). ``landface`` < 0 keeps
    the moving Shieldman's facing. Counts losses and kills in ``stats`` and the
    death cell in ``agg``."""
    s = sc[SC_TOMOVE]
    typ = act_type(code)
    a = act_from(code)
    t = act_to(code)
    mk = (cell[a] - 1) & 3
    if cell[t] != 0:
        vcode = cell[t]
        vside = (vcode - 1) >> 2
        vkind = (vcode - 1) & 3
        stats[ST_LOSS + 4 * vside + vkind] += 1
        if typ == 1:
            stats[ST_KSHOT + 4 * s + mk] += 1
        else:
            stats[ST_KCAP + 4 * s + mk] += 1
        agg[t] += 1
        remove_piece_nb(cell, face, plist, slot, sc, t)
    if typ == 0:
        cell[t] = cell[a]
        f = face[a]
        if mk == 0 and landface >= 0:
            f = landface
        face[t] = f
        cell[a] = 0
        face[a] = -1
        i = slot[a]
        plist[s, i] = t
        slot[t] = i
        slot[a] = -1
        if mk == 3:
            sc[SC_WL0 + s] = t


@njit(cache=True, _nrt=False)
def end_ply_nb(ip, sc, passed):
    """Close the ply of the side to move: pass count, SK-8 end checks, turn.

    SK-C1: the second player's first turn is plies 1 .. k (k =
    ``second_player_first_actions``); after each of its plies but the last the
    turn stays with it, and the Gold Tile checks (the waiting Warlord's win, the
    mover's arrival) are skipped, since SK-7 judges the Warlord where a *turn*
    ends: an arrival in mid-turn would otherwise leave a stale wait behind if the
    Warlord steps off again. A Warlord kill still ends the game at once. With
    k = 1 no ply is mid-turn and this is SK-8 exactly. ``ip``: params[P_I].
    """
    s = sc[SC_TOMOVE]
    o = 1 - s
    if passed:
        sc[SC_PASSES] += 1
    else:
        sc[SC_PASSES] = 0
    sc[SC_PLY] += 1
    midturn = sc[SC_PLY] >= 2 and sc[SC_PLY] <= ip[I_FIRST_ACTIONS2]  # SK-C1
    gold_on = ip[I_GOLD_ON] == 1 and not midturn
    gold = ip[I_GOLD]
    reason = -1
    winner = -1
    if sc[SC_WL0 + o] < 0:
        reason = R_WARLORD
        winner = s
    elif gold_on and sc[SC_PENDING] == o:
        reason = R_GOLD
        winner = o
    else:
        if gold_on and sc[SC_WL0 + s] == gold:
            others = sc[SC_PN0 + o] - 1
            if others <= ip[I_GOLD_IMM]:
                reason = R_GOLD_IMM
                winner = s
            else:
                sc[SC_PENDING] = s
        if reason < 0:
            if sc[SC_PASSES] >= 2:
                reason = R_STALEMATE
            elif sc[SC_PLY] >= ip[I_MAX_PLIES]:
                reason = R_MOVE_LIMIT
    if reason >= 0:
        sc[SC_DONE] = 1
        sc[SC_REASON] = reason
        sc[SC_WINNER] = winner
    if not midturn:
        sc[SC_TOMOVE] = o


@njit(cache=True, inline="always")
def two_step_bits_nb(nb, adjb, cell, x, w0, w1):
    """Add what a two-stepper on ``x`` attacks through its empty neighbours."""
    for d in range(6):
        m = nb[x, d]
        if m >= 0 and cell[m] == 0:
            w0 |= adjb[m, 0]
            w1 |= adjb[m, 1]
    return w0, w1


@njit(cache=True, _nrt=False)
def static_attack_bits_nb(adjb, shotb, cell, plist, sc, o, skip):
    """The part of side ``o``'s attack map that does not depend on occupancy:
    archer lines and every piece's neighbours, as two 64-bit words; the piece on
    ``skip`` (a cell, -1 none) is left out (it is being captured)."""
    w0 = np.uint64(0)
    w1 = np.uint64(0)
    for i in range(sc[SC_PN0 + o]):
        a = plist[o, i]
        if a == skip:
            continue
        if (cell[a] - 1) & 3 == 1:
            w0 |= shotb[a, 0]
            w1 |= shotb[a, 1]
        else:
            w0 |= adjb[a, 0]
            w1 |= adjb[a, 1]
    return w0, w1


@njit(cache=True, _nrt=False, inline="always")
def attack_bits_nb(params, cell, plist, sc, o, skip):
    """Cells side ``o``'s pieces could capture or shoot on their next turn
    (ignoring shields and what stands there): the static map plus the two-step
    reach of Horsemen and the Warlord. Greedy builds the same map incrementally."""
    ip = params[P_I]
    w0, w1 = static_attack_bits_nb(params[P_ADJB], params[P_SHOTB], cell, plist, sc, o, skip)
    for i in range(sc[SC_PN0 + o]):
        a = plist[o, i]
        kind = (cell[a] - 1) & 3
        if a != skip and kind >= 2:
            steps = ip[I_STEPS_H] if kind == 2 else ip[I_STEPS_W]
            if steps >= 2:
                w0, w1 = two_step_bits_nb(params[P_NB], params[P_ADJB], cell, a, w0, w1)
    return w0, w1


@njit(cache=True, inline="always")
def bit_nb(w0, w1, c):
    w = w0 if c < 64 else w1
    return (w >> (np.uint64(c) & _M63)) & _ONE


@njit(cache=True, _nrt=False)
def threat_dirs_nb(params, cell, p, o, counts):
    """Directions (bitmask, from ``p``) from which side ``o`` could capture or
    shoot a piece on ``p`` next turn; ``counts[d]`` gets the number of enemy
    pieces attacking from direction ``d`` (a facing ``d`` blocks exactly those)."""
    ip = params[P_I]
    nb = params[P_NB]
    ray = params[P_RAY]
    rng_ = ip[I_RANGE]
    K = ray.shape[2]
    if rng_ > K:
        rng_ = K
    lo = 1 + 4 * o
    sh = ip[I_STEPS_H] >= 2
    sw = ip[I_STEPS_W] >= 2
    mask = 0
    for d in range(6):
        cnt = 0
        n = nb[p, d]
        if n >= 0:
            c = cell[n]
            if c >= lo and c < lo + 4 and c != lo + 1:
                cnt += 1
            elif c == 0:
                for e in range(6):
                    x = nb[n, e]
                    if x >= 0 and x != p:
                        cx = cell[x]
                        if (cx == lo + 2 and sh) or (cx == lo + 3 and sw):
                            cnt += 1
        for k in range(rng_):
            x = ray[p, d, k]
            if x < 0:
                break
            if cell[x] == lo + 1:
                cnt += 1
        counts[d] = cnt
        if cnt > 0:
            mask |= 1 << d
    return mask


@njit(cache=True, _nrt=False)
def enemy_masks_nb(ip, cell, plist, sc, o):
    """Side ``o``'s pieces as masks: (capturers: every piece but its archers; archers;
    two-steppers, as the step options allow) and the occupied cells of both sides."""
    zero = np.uint64(0)
    lo = 1 + 4 * o
    two_h = ip[I_STEPS_H] >= 2
    two_w = ip[I_STEPS_W] >= 2
    cap0 = zero
    cap1 = zero
    arc0 = zero
    arc1 = zero
    tw0 = zero
    tw1 = zero
    occ0 = zero
    occ1 = zero
    for side in range(2):
        for j in range(sc[SC_PN0 + side]):
            x = plist[side, j]
            b0, b1 = cellbit_nb(x)
            occ0 |= b0
            occ1 |= b1
            if side != o:
                continue
            c = cell[x]
            if c == lo + 1:
                arc0 |= b0
                arc1 |= b1
            else:
                cap0 |= b0
                cap1 |= b1
            if (c == lo + 2 and two_h) or (c == lo + 3 and two_w):
                tw0 |= b0
                tw1 |= b1
    return cap0, cap1, arc0, arc1, tw0, tw1, occ0, occ1


@njit(cache=True, inline="always")
def threat_mask_nb(nb, adjb, fray, p, emp0, emp1, cap0, cap1, tw0, tw1, arc0, arc1):
    """threat_dirs_nb's direction mask from masks: direction ``d`` threatens ``p`` when
    an enemy archer stands on its line within range, or the neighbour there is an enemy
    capturer, or it is empty and next to an enemy two-stepper. Inlined: greedy_scores_nb calls it for
    nearly every candidate, and the call (three tables, nine masks) cost as much as its work."""
    zero = np.uint64(0)
    m = 0
    for d in range(6):
        hit = ((fray[p, d, 0] & arc0) | (fray[p, d, 1] & arc1)) != zero
        if not hit:
            x = nb[p, d]
            if x >= 0:
                if has_nb(cap0, cap1, x):
                    hit = True
                elif has_nb(emp0, emp1, x):
                    hit = ((adjb[x, 0] & tw0) | (adjb[x, 1] & tw1)) != zero
        if hit:
            m |= 1 << d
    return m


@njit(cache=True)
def face_threats_nb(params, cell, face, plist, sc, s, counts):
    """turn_shields_nb with the tables taken from ``params``."""
    turn_shields_nb(params[P_I], params[P_NB], params[P_ADJB], params[P_FRAY], cell, face, plist, sc, s, counts)


@njit(cache=True, _nrt=False)
def turn_shields_nb(ip, nb, adjb, fray, cell, face, plist, sc, s, counts):
    """Facing policy ``threat`` (SK-4): every Shieldman of ``s`` turns toward
    the direction the most enemy pieces could capture or shoot it from next
    turn; ties keep the current facing if it is among the best, else the lowest
    direction; a Shieldman nobody threatens keeps its facing.

    The counts per direction are threat_dirs_nb's, taken from masks: the enemy
    archers on the line within range, plus the enemy capturer on the neighbour or,
    when that neighbour is empty, the enemy two-steppers next to it."""
    code = 1 + 4 * s
    fwd = 5 if s == 0 else 2
    cap0, cap1, arc0, arc1, tw0, tw1, occ0, occ1 = enemy_masks_nb(ip, cell, plist, sc, 1 - s)
    for j in range(sc[SC_PN0 + s]):
        p = plist[s, j]
        if cell[p] != code:
            continue
        m = 0
        for d in range(6):
            cnt = pop2_nb(fray[p, d, 0] & arc0, fray[p, d, 1] & arc1)
            x = nb[p, d]
            if x >= 0:
                if has_nb(cap0, cap1, x):
                    cnt += 1
                elif not has_nb(occ0, occ1, x):
                    cnt += pop2_nb(adjb[x, 0] & tw0, adjb[x, 1] & tw1)
            counts[d] = cnt
            if cnt > 0:
                m |= 1 << d
        if m == 0:
            continue
        best = counts[face[p]]
        bd = face[p]
        for i in range(6):
            d = (fwd + i) % 6
            if counts[d] > best:
                best = counts[d]
                bd = d
        face[p] = bd
