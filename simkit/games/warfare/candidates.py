"""What Warfare!'s search considers, and how it scores a position (used by search.py's hooks).

**Decision codes** (the step API's action ids, a fixed space of ``n_actions`` codes)::

    END = 0, STAY = 1, ADVANCE = 2          end the turn; after a melee kill (WF-5) stay or advance
    A0 + ((k * NSQ + t) * 4 + f) * (ARC + 1) + j     an activation: the side's unit in slot k moves to
                                            square t (its own square: it holds; a friend's: a swap),
                                            faces f, and attacks the enemy on square j of its front arc
                                            (j = 0: no attack)

Arc squares are numbered the same way for melee and ranged units: the square ``a`` ahead and ``s``
sideways (``-a <= s <= a``) is ``j = a * a + a + s``, so a melee unit uses j = 1..3 and an archer of
range r uses 1..r(r + 2) = ARC. Codes name squares, not units' ids on the board, so ``decision_label``
can print any of them and the space stays below 2**31 for every board the schema allows.

**Candidates** (``gen_decisions_nb``): a decision has hundreds of legal activations, so the search
is offered a curated subset with heuristic scores that become its priors (nothing is cut by a
threshold; a weak candidate gets a small prior): END (score 0); for every unit that has not acted
its greedy plan (the square and facing the greedy commander's position score likes best), its
best square outside the enemies' threat map (cautious), holding its square and turning to the
nearest enemy, its best swap with an adjacent friend when that improves both, and one attack on
every enemy it can reach (from the approach the greedy attack score, then the position score,
likes best). Moves score their gain in position score, attacks the greedy expected exchange
(value won times P(win) minus value lost times P(loss), exact odds); an attack on the last enemy
that cannot fail wins at once (``DECISIVE``). An attack that certainly kills only the attacker
(Cavalry into a Spearman's front) is never offered: it is "no attack" with a unit less.
"""
import numpy as np
from numba import njit

from .moves import INSTANT_ATT, INSTANT_DEF, angle_nb, combat_kind_nb, in_arc_nb
from .policies import (CL_ADVANCE, CL_NONE, activation_class_nb, attack_score_nb, best_facing_nb, box_mask_nb,
                       enemy_masks_nb, enemy_span_nb, mask_span_nb, melee_facing_nb, pos_score_nb, score_bound_nb)
from .state import ARC, DXA, DYA, INNER, IP_H, IP_N0, IP_NSQ, IP_P2, IP_W, WIN_LO

END, STAY, ADVANCE = 0, 1, 2
A0 = 3
NEG = -1.0e300
DECISIVE = 1.0e9           # = simkit.engine.search.DECISIVE (a test checks)
LAST_BONUS = 1000.0        # attack_score_nb's bonus for the enemy's last unit


def arc_size(params) -> int:
    """Squares in the largest front arc (ARC above): r(r + 2) for the longest range r (melee: 3)."""
    r = max(1, int(params[6].max()))
    return r * (r + 2)


def n_actions(params) -> int:
    """Size of the action space: END, STAY, ADVANCE and every (slot, square, facing, arc square)."""
    ip = params[0]
    return A0 + int(ip[16]) * int(ip[IP_NSQ]) * 4 * (arc_size(params) + 1)


@njit(cache=True, _nrt=False)
def arc_max_nb(urange):
    r = 1
    for k in range(urange.shape[0]):
        if urange[k] > r:
            r = urange[k]
    return r * (r + 2)


@njit(cache=True, _nrt=False, inline="always")
def act_code_nb(k, t, f, j, nsq, am):
    return A0 + ((k * nsq + t) * 4 + f) * (am + 1) + j


@njit(cache=True, _nrt=False, inline="always")
def arc_index_nb(tx, ty, f, vx, vy):
    """Number j of square (vx, vy) in the front arc of a unit on (tx, ty) facing f."""
    rx = vx - tx
    ry = vy - ty
    a = rx * DXA[f] + ry * DYA[f]
    s = rx * DXA[(f + 1) & 3] + ry * DYA[(f + 1) & 3]
    return a * a + a + s


@njit(cache=True, _nrt=False)
def arc_square_nb(tx, ty, f, j, W, H):
    """The square numbered j (>= 1) of the front arc of (tx, ty) facing f; -1 off the board."""
    a = np.int64(np.sqrt(j))
    while a * a > j:
        a -= 1
    while (a + 1) * (a + 1) <= j:
        a += 1
    s = j - a * a - a
    x = tx + a * DXA[f] + s * DXA[(f + 1) & 3]
    y = ty + a * DYA[f] + s * DYA[(f + 1) & 3]
    if x < 0 or x >= W or y < 0 or y >= H:
        return -1
    return y * W + x


@njit(cache=True, _nrt=False)
def decode_nb(code, side, n0, nsq, am):
    """(unit id, square, facing, arc square number) of an activation code of ``side``."""
    rest = code - A0
    j = rest % (am + 1)
    rest //= am + 1
    f = rest % 4
    rest //= 4
    t = rest % nsq
    k = rest // nsq
    return (k if side == 0 else n0 + k), t, f, j


@njit(cache=True, _nrt=False)
def decision_class_nb(P, occ, usq, utype, side, code):
    """The action class (policies.ACTION_CLASSES) of ``side``'s decision ``code`` in the position before it:
    ADVANCE ``advance``, an activation by its attack or move (policies.activation_class_nb); END and STAY
    CL_NONE (never banned)."""
    if code == ADVANCE:
        return CL_ADVANCE
    if code < A0:
        return CL_NONE
    ip, urange = P[0], P[6]
    u, t, f, j = decode_nb(code, side, ip[IP_N0], ip[IP_NSQ], arc_max_nb(urange))
    return activation_class_nb(u, t, j > 0, occ, usq, utype)


@njit(cache=True, _nrt=False, inline="always")
def in_box_nb(bm, v, elo, exact, usq, uside, side, sqx, sqy, ux, uy, r):
    """Is unit ``v`` an enemy within Chebyshev distance ``r`` of (ux, uy)? Its bit in the box mask ``bm``
    answers when the masks are exact; beyond 64 ids they alias, and the unit is tested as before."""
    if (bm >> ((v - elo) & 63)) & 1 == 0:
        return False
    if exact:
        return True
    if usq[v] < 0 or uside[v] == side:
        return False
    return abs(sqx[usq[v]] - ux) <= r and abs(sqy[usq[v]] - uy) <= r


@njit(inline="always", **INNER)     # one caller (gen_decisions_nb): no call passing P and the state per unit
def unit_attacks_nb(u, m, side, last, with_pos, P, occ, usq, uface, utype, uside, nu, gmap, gf, psc, pt, pf,
                    ppos, val, elo, ehi, em, exact):
    """For every enemy v unit u can attack after moving up to m steps: the best approach by the greedy
    attack score (psc[v], NEG if none), then (``with_pos`` != 0) by the greedy position score; its square
    pt[v] and facing pf[v]. Returns the best score over all enemies (NEG if none). ``val``: the unit values
    both scores use (a weight row, state.P_EVAL, or fp: the rules' values). (Flags are int64 or
    computed bools, never literals: numba would compile a copy per literal value.) ``elo``, ``ehi``:
    policies.enemy_span_nb, the ids the enemies are scanned over; ``em``, ``exact``: policies.enemy_masks_nb,
    the enemies in reach found by box_mask_nb (the same enemies in the same order as testing each). The
    evaluation's attack potential scans with its own copy of this loop (best_attack_nb)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    W = ip[IP_W]
    H = ip[IP_H]
    for v in range(nu):
        psc[v] = NEG
        ppos[v] = NEG
    typ = utype[u]
    ranged = typ == ARC   # a variable, not a literal: one compile of attack_score_nb
    sq = usq[u]
    top = NEG
    if typ == ARC:
        rg = urange[typ]
        um = box_mask_nb(em, W, H, sqx[sq], sqy[sq], m + rg)     # every enemy any destination can shoot at
        if um == 0:
            return top
        for jj in range(destn[m, sq]):
            t = dest[m, sq, jj]
            if occ[t] != -1 and t != sq:
                continue
            tx = sqx[t]
            ty = sqy[t]
            bm = um & box_mask_nb(em, W, H, tx, ty, rg)
            if bm == 0:
                continue
            mask = dmask[m, sq, jj]
            lo, hi = mask_span_nb(bm, exact, elo, ehi)
            for v in range(lo, hi):
                if (bm >> ((v - elo) & 63)) & 1 == 0:
                    continue
                if not exact and (usq[v] < 0 or uside[v] == side):
                    continue
                vx = sqx[usq[v]]
                vy = sqy[usq[v]]
                if not exact and (abs(vx - tx) > rg or abs(vy - ty) > rg):
                    continue
                for k in range(4):
                    f = k if side == 0 or k == 1 or k == 3 else 2 - k
                    if (mask >> f) & 1 and in_arc_nb(tx, ty, f, vx, vy, True, rg):
                        ang = angle_nb(tx, ty, vx, vy, uface[v], True)
                        s = attack_score_nb(typ, utype[v], ang, ranged, tree[usq[v]], ip, val, wintab, last)
                        if s >= psc[v] - 1e-12:
                            ps = pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf, val) \
                                if with_pos != 0 \
                                else 0.0
                            if s > psc[v] + 1e-12 or ps > ppos[v]:
                                psc[v] = s
                                ppos[v] = ps
                                pt[v] = t
                                pf[v] = f
                                if s > top:
                                    top = s
                        break
        return top
    ux = sqx[sq]
    uy = sqy[sq]
    bm = box_mask_nb(em, W, H, ux, uy, m + 1)
    if bm == 0:
        return top
    lo, hi = mask_span_nb(bm, exact, elo, ehi)
    for v in range(lo, hi):
        if not in_box_nb(bm, v, elo, exact, usq, uside, side, sqx, sqy, ux, uy, m + 1):
            continue
        vx = sqx[usq[v]]
        vy = sqy[usq[v]]
        for ox in range(-1, 2):
            for oy in range(-1, 2):
                if ox == 0 and oy == 0:
                    continue
                nx = vx + ox
                ny = vy + oy
                if nx < 0 or nx >= W or ny < 0 or ny >= H:
                    continue
                t = ny * W + nx
                if occ[t] != -1 and t != sq:
                    continue
                mask = reach[m, sq, t]
                if mask == 0:
                    continue
                f = melee_facing_nb(mask, ox, oy)
                if f < 0:
                    continue
                ang = angle_nb(nx, ny, vx, vy, uface[v], False)
                s = attack_score_nb(typ, utype[v], ang, ranged, tree[usq[v]], ip, val, wintab, last)
                if s >= psc[v] - 1e-12:
                    ps = pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf, val) if with_pos != 0 \
                        else 0.0
                    if s > psc[v] + 1e-12 or ps > ppos[v]:
                        psc[v] = s
                        ppos[v] = ps
                        pt[v] = t
                        pf[v] = f
                        if s > top:
                            top = s
    return top


@njit(**INNER)
def certain_kill_nb(u, v, t, f, P, usq, uface, utype):
    """Does u, standing on t facing f, kill v without a roll (or with a roll it cannot lose)?"""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    ranged = utype[u] == ARC
    ang = angle_nb(sqx[t], sqy[t], sqx[usq[v]], sqy[usq[v]], uface[v], ranged)
    kind, am, dm = combat_kind_nb(utype[u], utype[v], ang, ranged, tree[usq[v]], ip)
    if kind == INSTANT_DEF:
        return True
    if kind == INSTANT_ATT:
        return False
    d = am - dm
    if d < WIN_LO:
        d = WIN_LO
    if d > -WIN_LO:
        d = -WIN_LO
    return wintab[d - WIN_LO] >= 1.0


@njit(**INNER)
def gen_decisions_nb(side, phase2, P, occ, usq, uface, utype, uside, acted, alive, nu, n0, gmap, gf, psc, pt, pf,
                     ppos, codes, scores, val, em):
    """The candidate activations of ``side`` (module docstring): codes and scores; returns the count.
    The greedy maps of ``side`` (gmap, gf) must be current. ``val``: the weight row the scores use (the
    searcher's, state.P_EVAL). ``em``: scratch of 2 (W + H) (policies.enemy_masks_nb)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    W = ip[IP_W]
    H = ip[IP_H]
    nsq = ip[IP_NSQ]
    am = arc_max_nb(urange)
    threat = gmap[2]
    codes[0] = END
    scores[0] = 0.0
    n = 1
    last = alive[1 - side] == 1
    base = 0 if side == 0 else n0
    elo, ehi = enemy_span_nb(side, usq, uside, nu)
    exact = enemy_masks_nb(side, usq, uside, sqx, sqy, W, H, elo, ehi, em)
    for u in range(nu):
        if uside[u] != side or usq[u] < 0 or acted[u] != 0:
            continue
        k = u - base
        m = umove[utype[u]]
        if phase2 and m > ip[IP_P2]:
            m = ip[IP_P2]
        sq = usq[u]
        face = uface[u]
        cur = pos_score_nb(u, sq, face, side, P, occ, usq, utype, uside, gmap, gf, val)
        # one pass over the destinations: the best square (greedy's plan) and the best unthreatened one
        best = NEG
        bt = sq
        bf = face
        safe = NEG
        st = -1
        sf = -1
        for jj in range(destn[m, sq]):
            t = dest[m, sq, jj]
            if occ[t] != -1 and t != sq:
                continue
            f = best_facing_nb(t, dmask[m, sq, jj], face, sqx, sqy, usq, gmap)
            s = pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf, val)
            if s > best:
                best, bt, bf = s, t, f
            if threat[t] == 0 and s > safe:
                safe, st, sf = s, t, f
        if bt != sq or bf != face:
            codes[n] = act_code_nb(k, bt, bf, 0, nsq, am)
            scores[n] = best - cur
            n += 1
        if st >= 0 and (st != bt or sf != bf) and (st != sq or sf != face):
            codes[n] = act_code_nb(k, st, sf, 0, nsq, am)
            scores[n] = safe - cur
            n += 1
        # hold the square and turn to the nearest enemy
        tf = best_facing_nb(sq, np.int64(15), face, sqx, sqy, usq, gmap)
        if tf != face and (bt != sq or bf != tf) and (st != sq or sf != tf):
            codes[n] = act_code_nb(k, sq, tf, 0, nsq, am)
            scores[n] = pos_score_nb(u, sq, tf, side, P, occ, usq, utype, uside, gmap, gf, val) - cur
            n += 1
        # the best swap with an orthogonally adjacent friend, when it improves the pair
        if m >= 1:
            x = sqx[sq]
            y = sqy[sq]
            wsc = 0.0
            wt = -1
            wf = -1
            for g in range(4):
                nx = x + DXA[g]
                ny = y + DYA[g]
                if nx < 0 or nx >= W or ny < 0 or ny >= H:
                    continue
                q = ny * W + nx
                o = occ[q]
                if o < 0 or uside[o] != side:
                    continue
                f = best_facing_nb(q, np.int64(15), face, sqx, sqy, usq, gmap)
                s = (pos_score_nb(u, q, f, side, P, occ, usq, utype, uside, gmap, gf, val) - cur
                     + pos_score_nb(o, sq, uface[o], side, P, occ, usq, utype, uside, gmap, gf, val)
                     - pos_score_nb(o, q, uface[o], side, P, occ, usq, utype, uside, gmap, gf, val))
                if s > wsc:
                    wsc, wt, wf = s, q, f
            if wt >= 0:
                codes[n] = act_code_nb(k, wt, wf, 0, nsq, am)
                scores[n] = wsc
                n += 1
        if phase2:
            continue
        unit_attacks_nb(u, m, side, last, np.int64(1), P, occ, usq, uface, utype, uside, nu, gmap, gf, psc, pt, pf,
                        ppos, val, elo, ehi, em, exact)
        own = val[utype[u]]
        for v in range(elo, ehi):       # psc is NEG outside the span (no enemy there)
            # an attack that certainly kills the attacker (Cavalry into a Spearman's front) is never offered
            if psc[v] == NEG or psc[v] <= -own + 1e-9:
                continue
            t = pt[v]
            f = pf[v]
            codes[n] = act_code_nb(k, t, f, arc_index_nb(sqx[t], sqy[t], f, sqx[usq[v]], sqy[usq[v]]), nsq, am)
            scores[n] = psc[v]
            if last:
                scores[n] = DECISIVE if certain_kill_nb(u, v, t, f, P, usq, uface, utype) else psc[v] - LAST_BONUS
            n += 1
    return n


@njit(inline="always", **INNER)
def best_attack_nb(u, side, no_bonus, floor, P, occ, usq, uface, utype, uside, psc, elo, ehi, em, exact):
    """Unit u's best attack score from where it stands (moves up to its move, then attacks), in the rules'
    values (fp; ``no_bonus``: attack_potential_nb's flag): unit_attacks_nb's scan with ``with_pos`` 0 and its
    result bit for bit (the same per-enemy running best psc[v], the same 1e-12 steps), less what the
    evaluation never reads (the approaches pt/pf, the position scores). Returns max(``floor``, best): the
    caller keeps a unit only above its floor, so an enemy whose every attack scores at most the best so far
    (score_bound_nb) is not scanned -- it cannot change the result. Inlined: a call would pass P and the
    state (~30 arrays) as arguments for every unit of every evaluation."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    W = ip[IP_W]
    H = ip[IP_H]
    for v in range(elo, ehi):
        psc[v] = NEG
    typ = utype[u]
    m = umove[typ]
    ranged = typ == ARC
    sq = usq[u]
    lose = -fp[typ] if fp[typ] < 0.0 else 0.0
    top = floor
    if typ == ARC:
        rg = urange[typ]
        um = box_mask_nb(em, W, H, sqx[sq], sqy[sq], m + rg)     # every enemy any destination can shoot at
        if um == 0:
            return top
        for jj in range(destn[m, sq]):
            t = dest[m, sq, jj]
            if occ[t] != -1 and t != sq:
                continue
            tx = sqx[t]
            ty = sqy[t]
            bm = um & box_mask_nb(em, W, H, tx, ty, rg)
            if bm == 0:
                continue
            mask = dmask[m, sq, jj]
            lo, hi = mask_span_nb(bm, exact, elo, ehi)
            for v in range(lo, hi):
                if (bm >> ((v - elo) & 63)) & 1 == 0:
                    continue
                if not exact and (usq[v] < 0 or uside[v] == side):
                    continue
                vx = sqx[usq[v]]
                vy = sqy[usq[v]]
                if not exact and (abs(vx - tx) > rg or abs(vy - ty) > rg):
                    continue
                if score_bound_nb(utype[v], fp, no_bonus, lose) <= top:
                    continue
                for k in range(4):
                    f = k if side == 0 or k == 1 or k == 3 else 2 - k
                    if (mask >> f) & 1 and in_arc_nb(tx, ty, f, vx, vy, True, rg):
                        ang = angle_nb(tx, ty, vx, vy, uface[v], True)
                        s = attack_score_nb(typ, utype[v], ang, ranged, tree[usq[v]], ip, fp, wintab, no_bonus)
                        if psc[v] == NEG or s > psc[v] + 1e-12:     # unit_attacks_nb's update at position 0
                            psc[v] = s
                            if s > top:
                                top = s
                        break
        return top
    ux = sqx[sq]
    uy = sqy[sq]
    bm = box_mask_nb(em, W, H, ux, uy, m + 1)
    if bm == 0:
        return top
    lo, hi = mask_span_nb(bm, exact, elo, ehi)
    for v in range(lo, hi):
        if not in_box_nb(bm, v, elo, exact, usq, uside, side, sqx, sqy, ux, uy, m + 1):
            continue
        vx = sqx[usq[v]]
        vy = sqy[usq[v]]
        if score_bound_nb(utype[v], fp, no_bonus, lose) <= top:
            continue
        for ox in range(-1, 2):
            for oy in range(-1, 2):
                if ox == 0 and oy == 0:
                    continue
                nx = vx + ox
                ny = vy + oy
                if nx < 0 or nx >= W or ny < 0 or ny >= H:
                    continue
                t = ny * W + nx
                if occ[t] != -1 and t != sq:
                    continue
                mask = reach[m, sq, t]
                if mask == 0:
                    continue
                f = melee_facing_nb(mask, ox, oy)
                if f < 0:
                    continue
                ang = angle_nb(nx, ny, vx, vy, uface[v], False)
                s = attack_score_nb(typ, utype[v], ang, ranged, tree[usq[v]], ip, fp, wintab, no_bonus)
                if psc[v] == NEG or s > psc[v] + 1e-12:
                    psc[v] = s
                    if s > top:
                        top = s
    return top


@njit(**INNER)
def attack_potential_nb(side, limit, skip_acted, P, occ, usq, uface, utype, uside, acted, nu, gmap, gf, psc, pt,
                        pf, ppos, top, em):
    """The sum of the ``limit`` largest positive best-attack scores of ``side``'s units (each unit's
    best attack from where it stands, greedy attack score; units that acted skipped when ``skip_acted``
    != 0): what it threatens to win if it moved now. ``top`` (len >= limit) is scratch. Scored with the
    rules' unit values (fp), never a weight row: the threat is a feature of the evaluation (features.py),
    and a feature must not depend on the weights it is multiplied by (else no row is a dot product)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    kk = 0
    no_bonus = limit < 0      # False, as a computed bool: no bonus for the last enemy unit
    # the best any attack on the enemies left can score (score_bound_nb, per attacker type: its own value)
    elo, ehi = enemy_span_nb(side, usq, uside, nu)
    exact = enemy_masks_nb(side, usq, uside, sqx, sqy, ip[IP_W], ip[IP_H], elo, ehi, em)
    won = 0.0
    for v in range(elo, ehi):
        if usq[v] >= 0 and uside[v] != side:
            b = score_bound_nb(utype[v], fp, no_bonus, 0.0)
            if b > won:
                won = b
    for u in range(nu):
        if uside[u] != side or usq[u] < 0 or (skip_acted != 0 and acted[u] != 0):
            continue
        # a unit counts only with a score above the floor: 0, or once ``limit`` are kept the smallest kept
        # (the tests below); best_attack_nb skips the enemies that cannot beat it, and the unit when none can
        floor = 0.0 if kk < limit else top[kk - 1]
        lose = -fp[utype[u]] if fp[utype[u]] < 0.0 else 0.0
        if won + lose <= floor:
            continue
        s = best_attack_nb(u, side, no_bonus, floor, P, occ, usq, uface, utype, uside, psc, elo, ehi, em, exact)
        if s <= 0.0:
            continue
        # keep the limit largest in top[0..kk), descending (insertion)
        if kk < limit:
            kk += 1
        elif s <= top[kk - 1]:
            continue
        i = kk - 1
        while i > 0 and top[i - 1] < s:
            top[i] = top[i - 1]
            i -= 1
        top[i] = s
    tot = 0.0
    for i in range(kk):
        tot += top[i]
    return tot


def decision_label(params, code: int, side: int = 0) -> str:
    """A decision code of ``side`` in words, e.g. "cavalry #2 to (7,8) facing W, attacks (6,8)"."""
    from .state import FACE_CHARS, UNITS
    code = int(code)
    if code == END:
        return "end the turn"
    if code == STAY:
        return "stay (no advance)"
    if code == ADVANCE:
        return "advance into the emptied square"
    ip, army = params[0], params[2]
    W, H, nsq = int(ip[IP_W]), int(ip[IP_H]), int(ip[IP_NSQ])
    am = arc_size(params)
    if not A0 <= code < n_actions(params):
        raise ValueError(f"decision code {code} is outside 0..{n_actions(params) - 1}")
    u, t, f, j = (int(x) for x in decode_nb(code, 0, 0, nsq, am))
    kind = UNITS[army[side, u]] if army[side, u] >= 0 else "empty slot"
    s = f"{kind} #{u} to ({t % W},{t // W}) facing {'NESW'[f]} ({FACE_CHARS[f]})"
    if j:
        q = int(arc_square_nb(t % W, t // W, f, j, W, H))
        s += f", attacks ({q % W},{q // W})" if q >= 0 else ", attacks off the board"
    return s
