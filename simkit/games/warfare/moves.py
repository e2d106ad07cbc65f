"""Warfare! mechanics (jitted): arcs, attack angles, combat, moves, surround.

The combat order of RULES.md section 4 lives in ``combat_kind_nb`` (what kind of
fight it is and the modifiers) and ``resolve_nb`` (the dice, via
``simkit.engine.dice.warfare_opposed_nb``; ``forced`` >= 0 injects the result of
the opposed roll for tests and traces).
"""
from numba import njit

from simkit.engine.dice import warfare_opposed_nb

from .state import (ARC, ATT_DIES, CAV, DEF_DIES, DIAG, DXA, DYA, FLANK, FP_VALUE, FRONT, INF, IP_ACT, IP_ACT2,
                    IP_ACT2N, IP_CAP, IP_H,
                    IP_MCAVFIRE, IP_MCHARGE, IP_MINFFRONT, IP_MSPEAR, IP_MTREE, IP_P2, IP_W, NOTHING, R_ANGLE,
                    R_KILLS, R_LOSSES, R_MATCH, SPE, INNER)

INSTANT_DEF = 0   # defender dies without a roll
INSTANT_ATT = 1   # attacker dies without a roll
ROLL = 2          # opposed d6 with modifiers


@njit(cache=True, _nrt=False, inline="always")
def in_arc_nb(px, py, f, qx, qy, ranged, rng):
    """Is square q in the front arc of a unit at p facing f? (melee: 3 squares ahead)."""
    rx = qx - px
    ry = qy - py
    ahead = rx * DXA[f] + ry * DYA[f]
    side = rx * DXA[(f + 1) & 3] + ry * DYA[(f + 1) & 3]
    if side < 0:
        side = -side
    if ranged:
        return ahead >= 1 and ahead <= rng and side <= ahead
    return ahead == 1 and side <= 1


@njit(cache=True, _nrt=False, inline="always")
def angle_nb(ax, ay, dx, dy, dface, ranged):
    """Attack angle judged against the defender's facing: FRONT, DIAG (front-diagonal square) or FLANK.

    WF-B: ranged attacks are FRONT from anywhere in the defender's forward cone
    (ahead >= 1, sideways offset <= ahead) except its two front-diagonal squares.
    """
    rx = ax - dx
    ry = ay - dy
    ahead = rx * DXA[dface] + ry * DYA[dface]
    side = rx * DXA[(dface + 1) & 3] + ry * DYA[(dface + 1) & 3]
    if side < 0:
        side = -side
    if ahead == 1 and side == 1:
        return DIAG
    if ahead == 1 and side == 0:
        return FRONT
    if ranged and ahead >= 1 and side <= ahead:
        return FRONT
    return FLANK


@njit(cache=True, _nrt=False)
def combat_kind_nb(atype, dtype, angle, ranged, dtree, ip):
    """RULES 4 combat order -> (kind, attacker modifier, defender modifier)."""
    # 1. melee by anything but an Archer against an Archer
    if (not ranged) and dtype == ARC:
        return INSTANT_DEF, 0, 0
    # 2. Cavalry/Spearman from the straight front (melee)
    if (not ranged) and angle == FRONT:
        if atype == CAV and dtype == SPE:
            return INSTANT_ATT, 0, 0
        if atype == SPE and dtype == CAV:
            return INSTANT_DEF, 0, 0
    # 3. flank kills, except an Archer shooting Cavalry
    if angle == FLANK and not (atype == ARC and dtype == CAV):
        return INSTANT_DEF, 0, 0
    # 4. opposed roll; WF-4: diagonal front uses only terrain
    # WF-A: unit modifiers on front attacks only, but Archers' fire on Cavalry at any angle that rolls
    am = 0
    dm = 0
    if angle != DIAG:
        if atype == CAV and dtype == INF and angle == FRONT:
            am += ip[IP_MCHARGE]
        if atype == ARC and dtype == CAV:
            dm += ip[IP_MCAVFIRE]
        if atype == ARC and dtype == INF and angle == FRONT:
            dm += ip[IP_MINFFRONT]
        if atype == SPE and dtype == INF:
            am += ip[IP_MSPEAR]
        if atype == INF and dtype == SPE:
            dm += ip[IP_MSPEAR]
    if dtree != 0 and (atype == ARC or atype == CAV):
        dm += ip[IP_MTREE]
    return ROLL, am, dm


@njit(**INNER)
def resolve_nb(rng_state, kind, am, dm, attacker_is_archer, forced):
    """Outcome DEF_DIES / ATT_DIES / NOTHING. ``forced`` >= 0 replaces the opposed roll (1 = attacker wins)."""
    if kind == INSTANT_DEF:
        return DEF_DIES
    if kind == INSTANT_ATT:
        return ATT_DIES
    if forced >= 0:
        win = forced == 1
    else:
        win = warfare_opposed_nb(rng_state, am, dm)
    if win:
        return DEF_DIES
    if attacker_is_archer:
        return NOTHING
    return ATT_DIES


@njit(cache=True, _nrt=False, inline="always")
def kill_nb(u, occ, usq, uside, utype, alive, rec, agg):
    sq = usq[u]
    occ[sq] = -1
    usq[u] = -1
    s = uside[u]
    alive[s] -= 1
    rec[R_LOSSES + s * 4 + utype[u]] += 1
    agg[sq] += 1


@njit(cache=True, _nrt=False)
def attack_nb(u, v, ip, tree, urange, occ, usq, uface, uside, utype, alive, rec, agg, rng_state, forced):
    """Unit u attacks unit v (in its arc). Returns (outcome, angle, rolled)."""
    W = ip[IP_W]
    ax = usq[u] % W
    ay = usq[u] // W
    dx = usq[v] % W
    dy = usq[v] // W
    at = utype[u]
    dt = utype[v]
    ranged = at == ARC
    ang = angle_nb(ax, ay, dx, dy, uface[v], ranged)
    kind, am, dm = combat_kind_nb(at, dt, ang, ranged, tree[usq[v]], ip)
    out = resolve_nb(rng_state, kind, am, dm, ranged, forced)
    if out == DEF_DIES:
        s = uside[u]
        rec[R_KILLS + s * 4 + at] += 1
        rec[R_ANGLE + ang * 2 + s] += 1
        rec[R_MATCH + at * 4 + dt] += 1
        kill_nb(v, occ, usq, uside, utype, alive, rec, agg)
    elif out == ATT_DIES:
        s = uside[v]
        rec[R_KILLS + s * 4 + dt] += 1
        rec[R_ANGLE + ang * 2 + s] += 1
        rec[R_MATCH + dt * 4 + at] += 1
        kill_nb(u, occ, usq, uside, utype, alive, rec, agg)
    return out, ang, kind == ROLL


@njit(cache=True, inline="always")
def enemies_around_nb(sq, side, W, H, occ, uside):
    """How many orthogonal neighbours of square ``sq`` hold an enemy of ``side`` (WF-6)."""
    x = sq % W
    y = sq // W
    c = 0
    for f in range(4):
        nx = x + DXA[f]
        ny = y + DYA[f]
        if 0 <= nx < W and 0 <= ny < H:
            o = occ[ny * W + nx]
            if o >= 0 and uside[o] != side:
                c += 1
    return c


@njit(cache=True, _nrt=False)
def surround_nb(active, ip, occ, usq, uside, utype, alive, rec, agg, nu):
    """WF-6: units with >= 3 orthogonally adjacent enemies die; the non-active side first."""
    W = ip[IP_W]
    H = ip[IP_H]
    killed = 0
    for k in range(2):
        side = 1 - active if k == 0 else active
        for u in range(nu):
            if uside[u] != side or usq[u] < 0:
                continue
            if enemies_around_nb(usq[u], side, W, H, occ, uside) >= 3:
                rec[R_ANGLE + 3 * 2 + (1 - side)] += 1
                kill_nb(u, occ, usq, uside, utype, alive, rec, agg)
                killed += 1
        if alive[side] == 0:
            break
    return killed


@njit(cache=True, _nrt=False)
def surround_after_nb(active, u, mate, ip, occ, usq, uside, utype, alive, rec, agg):
    """surround_nb after an activation of the active side's unit ``u`` (``mate``: the friend it swapped
    with, now on u's old square, or -1), checking only the units that can have become surrounded.

    Before the activation no unit has 3 adjacent enemies (none at deployment; surround_nb leaves none:
    removing a unit only lowers its enemies' counts). The activation raises counts only next to the
    squares u and mate end on, so the candidates are those two units and the enemies next to them;
    kills within one side do not change each other's counts, so checking the candidates (non-active
    side first, as surround_nb) kills the same units and counts the same records."""
    W = ip[IP_W]
    H = ip[IP_H]
    killed = 0
    for k in range(2):
        side = 1 - active if k == 0 else active
        for j in range(2):
            w = u if j == 0 else mate
            if w < 0 or usq[w] < 0:
                continue
            x = usq[w] % W
            y = usq[w] // W
            for g in range(4 if k == 0 else 1):
                if k == 0:      # enemies of the active side next to w
                    nx = x + DXA[g]
                    ny = y + DYA[g]
                    if not (0 <= nx < W and 0 <= ny < H):
                        continue
                    v = occ[ny * W + nx]
                    if v < 0 or uside[v] != side:
                        continue
                else:
                    v = w
                if enemies_around_nb(usq[v], side, W, H, occ, uside) >= 3:
                    rec[R_ANGLE + 3 * 2 + (1 - side)] += 1
                    kill_nb(v, occ, usq, uside, utype, alive, rec, agg)
                    killed += 1
        if alive[side] == 0:
            break
    return killed


@njit(cache=True, _nrt=False)
def gen_dests_nb(u, m, ip, dest, destn, occ, usq, uside, out):
    """Destinations of unit u moving up to m steps: empty squares, its own square, and
    the squares of orthogonally adjacent friendly units (a swap). Returns the count."""
    sq = usq[u]
    n = 0
    for j in range(destn[m, sq]):
        t = dest[m, sq, j]
        o = occ[t]
        if o == -1 or t == sq:
            out[n] = t
            n += 1
    if m >= 1:
        W = ip[IP_W]
        H = ip[IP_H]
        x = sq % W
        y = sq // W
        for f in range(4):
            nx = x + DXA[f]
            ny = y + DYA[f]
            if 0 <= nx < W and 0 <= ny < H:
                o = occ[ny * W + nx]
                if o >= 0 and uside[o] == uside[u]:
                    out[n] = ny * W + nx
                    n += 1
    return n


@njit(cache=True, _nrt=False, inline="always")
def face_mask_nb(m, frm, to, reach):
    """Facings allowed after moving frm -> to (WF-D: a swap is one straight step: any facing)."""
    return reach[m, frm, to] if reach[m, frm, to] != 0 else 15


@njit(cache=True, _nrt=False)
def move_nb(u, t, f, occ, usq, uface):
    """Move unit u to square t (empty or its own) or swap with the friendly unit on t; face f."""
    sq = usq[u]
    if t != sq:
        o = occ[t]
        occ[sq] = o
        if o >= 0:
            usq[o] = sq
        occ[t] = u
        usq[u] = t
    uface[u] = f


@njit(cache=True, _nrt=False)
def gen_targets_nb(u, ip, urange, usq, uface, uside, utype, nu, out):
    """Enemy units in u's front arc. Returns the count."""
    W = ip[IP_W]
    px = usq[u] % W
    py = usq[u] // W
    ranged = utype[u] == ARC
    rng = urange[utype[u]]
    n = 0
    for v in range(nu):
        if usq[v] < 0 or uside[v] == uside[u]:
            continue
        if in_arc_nb(px, py, uface[u], usq[v] % W, usq[v] // W, ranged, rng):
            out[n] = v
            n += 1
    return n


@njit(cache=True, _nrt=False)
def turn_limit_nb(ip, turn, nu):
    """Activations allowed in ``turn``: every unit in a phase-2 turn (WF-2), else ``activations``.

    WF-C1: the second player's first ``second_player_extra_turns`` phase-3 turns get
    ``second_player_extra_activations`` more. Players alternate by turn (a pass is a turn too),
    so its k-th phase-3 turn is always turn 2k + 1."""
    if turn < 2:
        return nu
    if turn % 2 == 1 and (turn - 1) // 2 <= ip[IP_ACT2N]:
        return ip[IP_ACT] + ip[IP_ACT2]
    return ip[IP_ACT]


@njit(cache=True, _nrt=False)
def cap_winner_nb(ip, fp, usq, utype, uside, nu):
    """The result at the turn cap: a draw (-1), or under ``cap_result = "material"`` the side with more
    unit value (``values``) left, -1 when equal. The kernel and the search's turn start both call it."""
    if ip[IP_CAP] != 1:
        return -1
    v0 = 0.0
    v1 = 0.0
    for u in range(nu):
        if usq[u] >= 0:
            if uside[u] == 0:
                v0 += fp[FP_VALUE + utype[u]]
            else:
                v1 += fp[FP_VALUE + utype[u]]
    return 0 if v0 > v1 else (1 if v1 > v0 else -1)


@njit(cache=True, _nrt=False)
def can_act_nb(side, phase2, ip, umove, urange, dest, destn, occ, usq, uface, uside, utype, nu):
    """Does ``side`` have a legal move, swap or attack (WF-E: rotations alone do not count)?"""
    W = ip[IP_W]
    H = ip[IP_H]
    for u in range(nu):
        if uside[u] != side or usq[u] < 0:
            continue
        m = umove[utype[u]]
        if phase2 and m > ip[IP_P2]:
            m = ip[IP_P2]
        sq = usq[u]
        if m >= 1:
            for j in range(destn[m, sq]):
                t = dest[m, sq, j]
                if occ[t] == -1:
                    return True
            x = sq % W
            y = sq // W
            for f in range(4):
                nx = x + DXA[f]
                ny = y + DYA[f]
                if 0 <= nx < W and 0 <= ny < H:
                    o = occ[ny * W + nx]
                    if o >= 0 and uside[o] == side:
                        return True
        if not phase2:
            # any enemy reachable by some facing from the unit's square
            ranged = utype[u] == ARC
            rng = urange[utype[u]]
            for v in range(nu):
                if usq[v] < 0 or uside[v] == side:
                    continue
                for f in range(4):
                    if in_arc_nb(sq % W, sq // W, f, usq[v] % W, usq[v] // W, ranged, rng):
                        return True
    return False



@njit(cache=True, _nrt=False)
def count_activations_nb(side, phase2, ip, umove, urange, dest, destn, reach, occ, usq, uface, uside, utype, nu,
                         buf):
    """The options of ``side``'s first decision of a turn (no unit has acted yet), as the random
    policy chooses among them: ending the turn, plus every (unit, end square, facing, target or no
    attack) -- each unit's destinations (gen_dests_nb: staying, empty squares, swaps), each facing
    the move allows, and in phase 3 each enemy in the front arc from there. For the trajectory."""
    W = ip[IP_W]
    total = 1
    for u in range(nu):
        if uside[u] != side or usq[u] < 0:
            continue
        m = umove[utype[u]]
        if phase2 and m > ip[IP_P2]:
            m = ip[IP_P2]
        nd = gen_dests_nb(u, m, ip, dest, destn, occ, usq, uside, buf)
        ranged = utype[u] == ARC
        rg = urange[utype[u]]
        for j in range(nd):
            t = buf[j]
            mask = face_mask_nb(m, usq[u], t, reach)
            tx = t % W
            ty = t // W
            for f in range(4):
                if (mask >> f) & 1:
                    total += 1
                    if not phase2:
                        total += arc_enemies_nb(tx, ty, f, side, ranged, rg, ip, occ, uside, buf[:0])
    return total


@njit(cache=True, _nrt=False)
def arc_enemies_nb(tx, ty, f, side, ranged, rg, ip, occ, uside, out):
    """Enemies of ``side`` in the front arc (in_arc_nb) of square (tx, ty) facing f, found by walking the
    arc's squares: rows ``ahead`` = 1..reach, each ``ahead`` squares either side (melee: 1 row, 3 squares).
    Each one's arc number ``a * a + a + s`` (candidates.arc_index_nb) goes into ``out`` while it has room
    (the step API's legal activations; a count alone passes an empty ``out``).
    (An in_arc_nb test per unit, inlined into count_activations_nb's four facings, was vectorised into a
    third of the game's machine code.)"""
    W = ip[IP_W]
    H = ip[IP_H]
    reach = rg if ranged else 1
    n = 0
    for a in range(1, reach + 1):
        half = a if ranged else 1
        for s in range(-half, half + 1):
            x = tx + a * DXA[f] + s * DXA[(f + 1) & 3]
            y = ty + a * DYA[f] + s * DYA[(f + 1) & 3]
            if 0 <= x < W and 0 <= y < H:
                o = occ[y * W + x]
                if o >= 0 and uside[o] != side:
                    if n < out.shape[0]:
                        out[n] = a * a + a + s
                    n += 1
    return n
