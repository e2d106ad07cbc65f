"""Warfare! policies (jitted), chosen by integer id: 0 random, 1 greedy, 2 mcts (search.py: the engine over its hooks).

random: uniform over each decision's options — which unit acts next (or end the
  turn, always allowed since activations are "up to"), its destination (every
  reachable empty square, staying put, or a swap with an adjacent friend), its
  facing (uniform over the facings the move allows), its target (every enemy in
  its front arc, or no attack) and, after a melee win, advance or stay (1/2 each).

greedy: a scripted commander (knobs ``greedy_*`` in the scenario, fp[G_*]):
  1. attack: over all unacted units, destinations and enemies that a destination
     puts in the unit's front arc, score = value(target) * P(win) -
     value(own) * P(own death), with P from the exact opposed-roll table
     (dice.py, passed as ``wintab``); instant kills (flank, Spearman vs Cavalry
     front, melee vs Archer) score with P = 1 or 0, so flanks and favourable
     matchups come first. Take the best if it is >= ``greedy_attack_threshold``.
  2. otherwise move: each unacted unit's best destination and facing by a static
     position score (approach the nearest enemy — Archers to their range; stay
     within ``greedy_formation_slack`` rows of the army's mean line; danger =
     enemies able to reach the square, times the unit's value; Archers want a
     friendly non-Archer on the square ahead; face the nearest enemy). Activate
     the unit with the largest improvement; end the turn when none improves by
     more than ``greedy_min_improve``. Plans are computed once per turn and
     recomputed when their square is taken or an enemy dies. No swaps.
  3. advance after a melee win when the emptied square scores better.
Ties are broken uniformly at random. Every unit value greedy weighs (its attack scores, the danger term
of its position score) is the mover's row of the evaluation's weight table (state.P_EVAL; ``val`` in the
functions below): by default the rules' ``values``; a side playing a learned evaluation has its own.

ban:CLASS:POLICY (simkit.policies; the mask at ``policies[POL_BAN + side]``): every policy above
chooses among the side's decisions outside the banned ``ACTION_CLASSES`` only. Ending the turn and
staying put after a kill are no class (never banned), so a decision always has an unbanned option.
Greedy leaves a banned attack class out of its attack search and, with ``move`` banned, ends the
turn where it would have moved; the random policy (and the eps degrader) draws random's whole
activation again until it is unbanned (``restricted_random_nb``: random's own distribution,
conditioned on the unbanned classes); the search drops banned decisions (search.class_nb).
Without a ban every policy draws from the game's stream exactly as before.
"""
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from simkit.engine.rng import argmax_step_nb, rng_below_nb

from .moves import (INSTANT_ATT, INSTANT_DEF, angle_nb, combat_kind_nb, face_mask_nb, gen_dests_nb, gen_targets_nb,
                    in_arc_nb, move_nb)
from .state import (ARC, CAV, DXA, DYA, G_APPROACH, G_CAVSLACK, G_COVER, G_DANGER, G_FACING, G_FORM,
                    G_MINIMP, G_SLACK, G_THRESH, INNER, IP_H, IP_NSQ, IP_P2, IP_W, WIN_LO)

POLICIES = ("random", "greedy", "mcts")
RANDOM, GREEDY, MCTS = 0, 1, 2
# not a policy id: what step.policy_activation_nb reports for a banned side's random activation, drawn whole
# (its target included), so that the caller does not draw the target again
RANDOM_WHOLE = 3
# The kernels' view of a side with a ban (play._policy_vector builds it): its id is BANNED + the inner policy's
# id and its degrader sits at BANNED_EPS + side (its POL_EPS slot 0), so the unbanned activations never read
# the ban and the random policy's activation compiles as before (step.policy_activation_nb).
BANNED = 4
BANNED_EPS = 8
BIG = 1 << 30
# greedy_maps_nb's packed (distance, unit id) keys: both fit in KEY_SH bits (ids < BIG, distances <= BIG + 2)
KEY_SH = 31
KEY_LOW = (1 << KEY_SH) - 1
KEY_STEP = 1 << KEY_SH
KEY_EMPTY = (BIG << KEY_SH) | BIG

# The action classes a ban:CLASS:POLICY side never plays (GameSpec.action_classes, in this order: bit k of
# the ban mask is class k): what an activation does, in the rules' words. An activation with an attack is
# classed by its attack whatever its move (a swap and then a shot is ``shoot``): ``shoot`` an Archer's attack
# (always a shot, RULES 4), ``melee`` any other unit's attack; without an attack ``swap`` (WF-D, with an
# adjacent friend) or ``move`` (any other move, holding the square and turning included); ``advance`` the
# WF-5 step into a killed defender's square. Ending the turn and staying after a kill are CL_NONE, a bit no
# mask sets: activations are "up to", so END is always there to fall back on, and STAY beside ADVANCE.
ACTION_CLASSES = ("shoot", "melee", "advance", "swap", "move")
CL_SHOOT, CL_MELEE, CL_ADVANCE, CL_SWAP, CL_MOVE, CL_NONE = 0, 1, 2, 3, 4, 5


@njit(cache=True, _nrt=False, inline="always")
def activation_class_nb(u, t, attacks, occ, usq, utype):
    """The class (ACTION_CLASSES) of unit u's activation to square t, attacking or not, in the position
    before it moves (a friend on t: a swap)."""
    if attacks:
        return CL_SHOOT if utype[u] == ARC else CL_MELEE
    if t != usq[u] and occ[t] >= 0:
        return CL_SWAP
    return CL_MOVE


@njit(cache=True, _nrt=False, inline="always")
def banned_nb(ban, cls):
    return (ban >> cls) & 1 != 0


@njit(cache=True, _nrt=False, inline="always")
def enemy_span_nb(side, usq, uside, nu):
    """(lo, hi): every living unit not of ``side`` has an id in lo..hi-1 (lo = hi: none). The attack scans
    loop over this span, not every id: the units outside it are skipped anyway, and in a game's numbering
    (side 0's units first) the span holds no friend, so the scans' "enemy alive?" tests stop mispredicting."""
    lo = nu
    hi = 0
    for v in range(nu):
        if usq[v] >= 0 and uside[v] != side:
            if v < lo:
                lo = v
            hi = v + 1
    return lo, hi


@njit(cache=True, _nrt=False, inline="always")
def enemy_masks_nb(side, usq, uside, sqx, sqy, W, H, elo, ehi, em):
    """The enemies' row and column masks for the attack scans (box_mask_nb): em[y] (y < H) and em[H + x]
    have bit (v - elo) & 63 set for every living enemy v of ``side`` on row y / column x (``elo``, ``ehi``:
    enemy_span_nb). ``em``: scratch of H + W. Returns whether the masks are exact: the span fits the 64
    bits (a game's numbering, up to 64 units a side), so a bit is one enemy; beyond, ids share bits and a
    box's mask is a superset of the enemies in the box, which the scans then test one by one."""
    for i in range(W + H):
        em[i] = 0
    for v in range(elo, ehi):
        if usq[v] >= 0 and uside[v] != side:
            b = np.int64(1) << ((v - elo) & 63)
            em[sqy[usq[v]]] |= b
            em[H + sqx[usq[v]]] |= b
    return ehi - elo <= 64


@njit(cache=True, _nrt=False, inline="always")
def box_mask_nb(em, W, H, x, y, r):
    """The enemies within Chebyshev distance r of (x, y) (enemy_masks_nb's bits): rows y - r..y + r ANDed
    with columns x - r..x + r."""
    rm = np.int64(0)
    for yy in range(max(y - r, 0), min(y + r + 1, H)):
        rm |= em[yy]
    cm = np.int64(0)
    for xx in range(max(x - r, 0), min(x + r + 1, W)):
        cm |= em[H + xx]
    return rm & cm


@njit(cache=True, _nrt=False, inline="always")
def mask_span_nb(bm, exact, elo, ehi):
    """The ids a scan over the box mask ``bm`` need visit: from its lowest to its highest bit when exact
    (ascending ids, as the full scan: the same candidates in the same order), else the whole span."""
    if not exact:
        return elo, ehi
    return elo + trailing_zeros(bm), min(ehi, elo + 64 - leading_zeros(bm))


@njit(**INNER)
def random_unit_nb(side, usq, uside, acted, nu, ubuf, rng):
    """A uniformly chosen unacted unit of ``side``, or -1 (end the turn)."""
    n = 0
    for u in range(nu):
        if uside[u] == side and usq[u] >= 0 and acted[u] == 0:
            ubuf[n] = u
            n += 1
    k = rng_below_nb(rng, n + 1)
    return -1 if k == n else ubuf[k]


@njit(**INNER)
def random_move_nb(side, phase2, P, occ, usq, uside, utype, acted, nu, buf, tbuf, rng):
    """The random policy's activation up to its attack: a uniformly chosen unacted unit (-1: end the
    turn), one of its destinations and one of the facings that move allows. Returns (unit, square, facing)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    u = random_unit_nb(side, usq, uside, acted, nu, tbuf, rng)
    if u < 0:
        return u, np.int64(-1), np.int64(-1)
    m = umove[utype[u]]
    if phase2 and m > ip[IP_P2]:
        m = ip[IP_P2]
    nd = gen_dests_nb(u, m, ip, dest, destn, occ, usq, uside, buf)
    t = buf[rng_below_nb(rng, nd)]
    return u, t, random_bit_nb(face_mask_nb(m, usq[u], t, reach), rng)


@njit(**INNER)
def random_target_nb(u, P, usq, uface, uside, utype, nu, tbuf, rng):
    """The random policy's attack after unit u moved: an enemy in its front arc, or none (-1), uniformly."""
    nt = gen_targets_nb(u, P[0], P[6], usq, uface, uside, utype, nu, tbuf)
    k = rng_below_nb(rng, nt + 1)
    return tbuf[k] if k < nt else -1


@njit(cache=True, _nrt=False)
def restricted_random_nb(side, phase2, P, occ, usq, uface, uside, utype, acted, nu, buf, tbuf, ban, rng):
    """The random policy's whole activation for a side with the ban mask ``ban`` (unit -1: end the turn):
    random's draws -- unit, square, facing, then (phase 3) the target after the move, made and undone --
    repeated until the activation's class is not banned. That is random's own distribution conditioned
    on the unbanned classes; END is never banned, so it ends. Out of line (called only with a ban): the
    unbanned random activation keeps its code. Returns (unit, square, facing, target or -1)."""
    while True:
        u, t, f = random_move_nb(side, phase2, P, occ, usq, uside, utype, acted, nu, buf, tbuf, rng)
        if u < 0:
            return u, t, f, np.int64(-1)
        tgt = np.int64(-1)
        if not phase2:
            frm = usq[u]
            face = uface[u]
            move_nb(u, t, f, occ, usq, uface)
            tgt = random_target_nb(u, P, usq, uface, uside, utype, nu, tbuf, rng)
            move_nb(u, frm, face, occ, usq, uface)      # undone: a swap partner goes back to t
        if not banned_nb(ban, activation_class_nb(u, t, tgt >= 0, occ, usq, utype)):
            return u, t, f, tgt


@njit(**INNER)
def random_bit_nb(mask, rng):
    n = 0
    for f in range(4):
        if (mask >> f) & 1:
            n += 1
    k = rng_below_nb(rng, n)
    for f in range(4):
        if (mask >> f) & 1:
            if k == 0:
                return f
            k -= 1
    return 0


@njit(cache=True, _nrt=False)
def greedy_maps_nb(side, P, usq, utype, uside, nu, gmap, gf):
    """The greedy commander's maps of ``side``: nearest enemy (Chebyshev distance, id) and threat (enemies
    able to attack) per square (enemy_maps_nb), and its formation line gf[1]; gf[3] = 0: the maps are
    current (greedy_choose_nb)."""
    enemy_maps_nb(side, P, usq, utype, uside, nu, gmap)
    gf[1] = formation_line_nb(side, P, usq, utype, uside, nu)
    gf[3] = 0.0


@njit(cache=True, _nrt=False, inline="always")
def formation_line_nb(side, P, usq, utype, uside, nu):
    """The mean row of ``side``'s living non-archers, in its own view (rows counted from its back row)."""
    H = P[0][IP_H]
    sqy = P[14]
    tot = 0.0
    cnt = 0
    for v in range(nu):
        if usq[v] >= 0 and uside[v] == side and utype[v] != ARC:
            vy = sqy[usq[v]]
            tot += vy if side == 0 else H - 1 - vy
            cnt += 1
    return tot / cnt if cnt > 0 else H   # only archers left: no formation to keep


@njit(cache=True, _nrt=False)
def enemy_maps_nb(side, P, usq, utype, uside, nu, gmap):
    """Nearest enemy of ``side`` (Chebyshev distance gmap[0], id gmap[1]) and threat (gmap[2]: enemies able
    to attack the square) per square: functions of where the enemies stand, nothing else."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    W = ip[IP_W]
    H = ip[IP_H]
    nsq = ip[IP_NSQ]
    near_d = gmap[0]
    near_u = gmap[1]
    threat = gmap[2]
    for q in range(nsq):
        near_d[q] = KEY_EMPTY     # the packed key (distance BIG, id BIG) until the transform below unpacks it
        threat[q] = 0
    for v in range(nu):
        if usq[v] < 0 or uside[v] == side:
            continue
        vx = sqx[usq[v]]
        vy = sqy[usq[v]]
        near_d[usq[v]] = v       # key: distance 0, id v
        t = utype[v]
        m = umove[t]
        if t == ARC:
            r = urange[t] + m
        else:
            r = m + 1
        # the threatened squares of each row form one run: archers the whole square of radius r; the others
        # Manhattan distance <= m + 1, or m + 2 off both axes (|ox| <= m + 2 - |oy| when oy != 0)
        for oy in range(-r, r + 1):
            y = vy + oy
            if y < 0 or y >= H:
                continue
            if t == ARC:
                half = r
            elif oy == 0:
                half = m + 1
            else:
                half = m + 2 - abs(oy)
                if half > r:
                    half = r
            x0 = vx - half
            if x0 < 0:
                x0 = 0
            x1 = vx + half
            if x1 > W - 1:
                x1 = W - 1
            row = y * W
            for x in range(x0, x1 + 1):
                threat[row + x] += 1
    # nearest enemy: two-pass chamfer transform of the Chebyshev distance, ties to the lower unit id
    # (identical to the brute-force minimum over enemies; see tests/test_warfare_rules.py). The pair
    # (distance, id) is packed into one key, distance << KEY_SH | id, so "nearer, or as near with a lower
    # id" is a plain integer minimum (branch-free) and a step adds KEY_STEP; the keys live in near_d's row
    # and are unpacked at the end. Same order, same minima: the same maps as comparing the pairs.
    key = near_d
    for y in range(H):
        row = y * W
        for x in range(W):
            q = row + x
            b = key[q]
            if x > 0:
                b = min(b, key[q - 1] + KEY_STEP)
            if y > 0:
                up = q - W
                if x > 0:
                    b = min(b, key[up - 1] + KEY_STEP)
                b = min(b, key[up] + KEY_STEP)
                if x < W - 1:
                    b = min(b, key[up + 1] + KEY_STEP)
            key[q] = b
    for y in range(H - 1, -1, -1):
        row = y * W
        for x in range(W - 1, -1, -1):
            q = row + x
            b = key[q]
            if x < W - 1:
                b = min(b, key[q + 1] + KEY_STEP)
            if y < H - 1:
                dn = q + W
                if x < W - 1:
                    b = min(b, key[dn + 1] + KEY_STEP)
                b = min(b, key[dn] + KEY_STEP)
                if x > 0:
                    b = min(b, key[dn - 1] + KEY_STEP)
            key[q] = b
    for q in range(nsq):
        b = key[q]
        near_d[q] = b >> KEY_SH
        e = b & KEY_LOW
        near_u[q] = -1 if e == BIG else e


@njit(**INNER)
def best_facing_nb(t, mask, cur, sqx, sqy, usq, gmap):
    """The allowed facing pointing most towards the nearest enemy of square t."""
    e = gmap[1, t]
    if e < 0:
        if (mask >> cur) & 1:
            return cur
        for f in range(4):
            if (mask >> f) & 1:
                return f
    vx = sqx[usq[e]] - sqx[t]
    vy = sqy[usq[e]] - sqy[t]
    fwd = 0 if vy > 0 else 2  # on a diagonal prefer facing along the board's length
    best = -1
    bv = -BIG
    for f in range(4):
        if (mask >> f) & 1:
            a = 2 * (vx * DXA[f] + vy * DYA[f]) + (1 if f == fwd else 0)
            if a > bv:
                bv = a
                best = f
    return best


@njit(**INNER)
def pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf, val):
    """Static score of unit u standing on square t facing f (greedy knobs in fp; ``val``: the unit values
    it weighs the danger with, a row of the evaluation's weight table, state.P_EVAL)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    W = ip[IP_W]
    H = ip[IP_H]
    x = sqx[t]
    y = sqy[t]
    typ = utype[u]
    vu = val[typ]
    nd = gmap[0, t]
    if nd >= BIG:
        nd = 0
    if typ == ARC:
        dist = nd - urange[ARC]
        if dist < 0:
            dist = -2 * dist
    else:
        dist = nd
    sc = -fp[G_APPROACH] * dist
    fwd = y if side == 0 else H - 1 - y
    slack = fp[G_SLACK]
    if typ == CAV:
        slack += fp[G_CAVSLACK]
    over = fwd - (gf[1] + slack)
    if over > 0:
        sc -= fp[G_FORM] * over
    sc -= fp[G_DANGER] * vu * gmap[2, t]
    if typ == ARC:
        ay = y + 1 if side == 0 else y - 1
        if 0 <= ay < H:
            o = occ[ay * W + x]
            if o >= 0 and o != u and uside[o] == side and utype[o] != ARC:
                sc += fp[G_COVER]
    e = gmap[1, t]
    if e >= 0:
        if in_arc_nb(x, y, f, sqx[usq[e]], sqy[usq[e]], True, BIG):
            sc += fp[G_FACING]
    return sc


@njit(inline="always", **INNER)     # one caller (greedy_choose_nb): no call passing P per unit
def greedy_plan_nb(u, m, side, P, occ, usq, uface, utype, uside, gmap, gf, plan, plansc, rng, val):
    """Best (destination, facing) of unit u by pos_score; stores the plan and its improvement."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    sq = usq[u]
    cur = pos_score_nb(u, sq, uface[u], side, P, occ, usq, utype, uside, gmap, gf, val)
    best = -1e300
    bt = sq
    bf = uface[u]
    ties = 0
    for j in range(destn[m, sq]):
        t = dest[m, sq, j]
        if occ[t] != -1 and t != sq:
            continue
        f = best_facing_nb(t, dmask[m, sq, j], uface[u], sqx, sqy, usq, gmap)
        sc = pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf, val)
        take, best, ties = argmax_step_nb(sc, best, ties, rng, 0.0)
        if take:
            bt = t
            bf = f
    plan[u, 0] = bt
    plan[u, 1] = bf
    plan[u, 2] = sq          # where it was planned from (a swap can move a unit that has not acted)
    plansc[u] = best - cur


@njit(cache=True, _nrt=False, inline="always")
def melee_facing_nb(mask, ox, oy):
    """Facing on the square at offset (ox, oy) from an enemy that looks back at it (towards -ox, -oy),
    if ``mask`` (the facings reachable there) allows one; -1 if not. Greedy and the search share it."""
    if ox != 0 and (mask >> (3 if ox > 0 else 1)) & 1:
        return 3 if ox > 0 else 1
    if oy != 0 and (mask >> (2 if oy > 0 else 0)) & 1:
        return 2 if oy > 0 else 0
    return -1


@njit(cache=True, _nrt=False, inline="always")
def score_bound_nb(dt, val, last, lose):
    """An upper bound of attack_score_nb on an enemy of type ``dt``, whatever the angle: P(win) and
    P(loss) are in [0, 1] (the wintab is a probability table), so value won times P(win) minus value
    lost times P(loss) is at most max(value won, 0) + ``lose`` (max(-value of the attacker, 0)); rounding
    is monotonic, so the computed score never exceeds the computed bound. The scans use it to skip
    enemies that cannot change their result."""
    won = val[dt] + (1000.0 if last else 0.0)     # attack_score_nb's expression, bit for bit
    return (won if won > 0.0 else 0.0) + lose


@njit(**INNER)
def attack_score_nb(at, dt, ang, ranged, dtree, ip, val, wintab, last):
    """The greedy expected exchange of an attack by type ``at`` on type ``dt``: value won times P(win) minus
    value lost times P(loss); ``val``: the unit values (a weight row, or fp for the rules' values)."""
    kind, am, dm = combat_kind_nb(at, dt, ang, ranged, dtree, ip)
    if kind == INSTANT_DEF:
        pw = 1.0
        pd = 0.0
    elif kind == INSTANT_ATT:
        pw = 0.0
        pd = 1.0
    else:
        d = am - dm
        if d < WIN_LO:
            d = WIN_LO
        if d > -WIN_LO:
            d = -WIN_LO
        pw = wintab[d - WIN_LO]
        pd = 0.0 if ranged else 1.0 - pw
    return pw * (val[dt] + (1000.0 if last else 0.0)) - pd * val[at]


@njit(cache=True, _nrt=False)
def greedy_attack_nb(side, P, occ, usq, uface, utype, uside, acted, nu, last, ban, out, rng, val, em):
    """Best attack over unacted units: out = (u, square, facing, target); returns its score. ``val``: the
    unit values it scores with (the mover's row of the weight table in play, the searcher's in a search).

    ``last``: the enemy has one unit left, so a kill wins — its value counts 1000 more. ``ban``: the
    side's ban mask (ACTION_CLASSES): the units whose attack class it bans are left out (greedy never
    swaps, so an attack's class is its unit's). ``em``: scratch of 2 (W + H) (enemy_masks_nb)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    W = ip[IP_W]
    H = ip[IP_H]
    best = -1e300
    ties = 0
    out[0] = -1
    elo, ehi = enemy_span_nb(side, usq, uside, nu)
    # each unit scans only the enemies its box mask holds, in id order: the same candidates in the same
    # order as a scan of every enemy (those outside the box fail its distance test), a fraction of the time
    exact = enemy_masks_nb(side, usq, uside, sqx, sqy, W, H, elo, ehi, em)
    for u in range(nu):
        if uside[u] != side or usq[u] < 0 or acted[u] != 0:
            continue
        at = utype[u]
        if ban != 0 and banned_nb(ban, CL_SHOOT if at == ARC else CL_MELEE):
            continue
        # an enemy whose every attack scores below the best so far (score_bound_nb) is neither taken nor a
        # tie: skipping it draws nothing from the stream and leaves the choice as it was
        lose = -val[at] if val[at] < 0.0 else 0.0
        ranged = at == ARC   # a variable, not a literal: one compile of attack_score_nb
        m = umove[at]
        sq = usq[u]
        ux = sqx[sq]
        uy = sqy[sq]
        if at == ARC:
            rg = urange[at]
            um = box_mask_nb(em, W, H, ux, uy, m + rg)     # every enemy any destination can shoot at
            if um == 0:
                continue
            for j in range(destn[m, sq]):
                t = dest[m, sq, j]
                if occ[t] != -1 and t != sq:
                    continue
                tx = sqx[t]
                ty = sqy[t]
                bm = um & box_mask_nb(em, W, H, tx, ty, rg)
                if bm == 0:
                    continue
                mask = dmask[m, sq, j]
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
                    if score_bound_nb(utype[v], val, last, lose) < best:
                        continue
                    for k in range(4):
                        # facing order N E S W for side 0, its mirror image S E N W for side 1
                        f = k if side == 0 or k == 1 or k == 3 else 2 - k
                        if (mask >> f) & 1 and in_arc_nb(tx, ty, f, vx, vy, True, rg):
                            ang = angle_nb(tx, ty, vx, vy, uface[v], True)
                            sc = attack_score_nb(at, utype[v], ang, ranged, tree[usq[v]], ip, val, wintab, last)
                            take, best, ties = argmax_step_nb(sc, best, ties, rng, 0.0)
                            if take:
                                out[0] = u
                                out[1] = t
                                out[2] = f
                                out[3] = v
                            break
            continue
        bm = box_mask_nb(em, W, H, ux, uy, m + 1)
        if bm == 0:
            continue
        lo, hi = mask_span_nb(bm, exact, elo, ehi)
        for v in range(lo, hi):
            if (bm >> ((v - elo) & 63)) & 1 == 0:
                continue
            if not exact and (usq[v] < 0 or uside[v] == side):
                continue
            vx = sqx[usq[v]]
            vy = sqy[usq[v]]
            if not exact and (abs(vx - ux) > m + 1 or abs(vy - uy) > m + 1):
                continue
            if score_bound_nb(utype[v], val, last, lose) < best:
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
                    sc = attack_score_nb(at, utype[v], ang, ranged, tree[usq[v]], ip, val, wintab, last)
                    take, best, ties = argmax_step_nb(sc, best, ties, rng, 0.0)
                    if take:
                        out[0] = u
                        out[1] = t
                        out[2] = f
                        out[3] = v
    return best


@njit(cache=True, _nrt=False, inline="always")
def maps_current_nb(side, P, usq, utype, uside, nu, gmap, gf):
    """Make stale enemy maps (gf[3], greedy_choose_nb) current before they are read."""
    if gf[3] != 0.0:
        maps_store_nb(side, P, usq, utype, uside, nu, gmap)
        gf[3] = 0.0


@njit(cache=True, _nrt=False)
def maps_store_nb(side, P, usq, utype, uside, nu, gmap):
    """enemy_maps_nb into gmap[0:3], through the store of earlier maps a search keeps below them.

    The maps are a function of ``side`` and where each enemy id stands (and its type), nothing else (the
    rules' tables are fixed for a workspace), and a search meets the same few enemy positions again and
    again: its root turn's enemies stand still while the tree and the rollouts kill different ones, and
    the next turn's maps are those of the few ends of the searcher's turn the tree has. gmap rows
    3 + 4 e .. 6 + 4 e hold entry e (direct-mapped by a hash): its key (row 3 + 4 e: side + 1, then per
    unit the enemy's square * 16 + type, -1 dead, -2 a friend) and its maps, copied back on a match
    (compared in full: a hash collision only costs a recompute). Without a store (the kernels' greedy:
    gmap has 3 rows) the maps are computed."""
    nsq = gmap.shape[1]
    cap = (gmap.shape[0] - 3) // 4
    if cap == 0 or nu + 1 > nsq:
        enemy_maps_nb(side, P, usq, utype, uside, nu, gmap)
        return
    h = side + 1
    for v in range(nu):
        h = h * -7046029254386353131 + key_entry_nb(side, v, usq, utype, uside)    # 0x9E37...7C15, wrapping
    base = 3 + 4 * (((h >> 24) & 0xFFFFFFFF) % cap)
    key = gmap[base]
    same = key[0] == side + 1
    if same:
        for v in range(nu):
            if key[1 + v] != key_entry_nb(side, v, usq, utype, uside):
                same = False
                break
    if same:
        for r in range(3):
            src = gmap[base + 1 + r]
            dst = gmap[r]
            for q in range(nsq):
                dst[q] = src[q]
        return
    enemy_maps_nb(side, P, usq, utype, uside, nu, gmap)
    key[0] = side + 1
    for v in range(nu):
        key[1 + v] = key_entry_nb(side, v, usq, utype, uside)
    for r in range(3):
        src = gmap[r]
        dst = gmap[base + 1 + r]
        for q in range(nsq):
            dst[q] = src[q]


@njit(cache=True, _nrt=False, inline="always")
def key_entry_nb(side, v, usq, utype, uside):
    """Unit v's part of maps_store_nb's key."""
    if uside[v] == side:
        return -2
    if usq[v] < 0:
        return -1
    return usq[v] * 16 + utype[v]


@njit(**INNER)
def greedy_choose_nb(side, phase2, turn, P, occ, usq, uface, utype, uside, acted, alive, nu, ban,
                     gmap, gf, plan, plansc, out, rng, val):
    """The greedy commander's next activation: out = (u, square, facing, target) or u = -1 (end); out[4:]
    is scratch, at least 2 (W + H) long (greedy_attack_nb's enemy masks).
    ``val``: the weight row it scores unit values with (state.P_EVAL: the mover's row in play).
    ``ban``: the side's ban mask (ACTION_CLASSES): no attack of a banned class; with ``move`` banned
    the turn ends where greedy would have moved (its moves never swap: ``swap`` changes nothing)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    if gf[0] != turn * 1000 + alive[1 - side]:
        # a new turn or an enemy fewer: the maps are remade -- lazily. The formation line is taken now, from
        # where the side stands (its units move on); the enemy maps only when a plan reads them (gf[3]: stale),
        # often never (an attack, or only fresh plans, before the next kill). Until this key changes no enemy
        # moves (only the side to move does) or dies, so they are then what they would be now.
        gf[1] = formation_line_nb(side, P, usq, utype, uside, nu)
        gf[3] = 1.0
        gf[0] = turn * 1000 + alive[1 - side]
    if gf[2] != turn:   # plans last a turn (kept, though the maps change, when an enemy dies)
        gf[2] = turn
        for u in range(nu):
            plan[u, 0] = -2
    if not phase2:
        sc = greedy_attack_nb(side, P, occ, usq, uface, utype, uside, acted, nu, alive[1 - side] == 1, ban, out,
                              rng, val, out[4:])
        if out[0] >= 0 and sc >= fp[G_THRESH]:
            return
    if ban != 0 and banned_nb(ban, CL_MOVE):
        out[0] = -1
        out[3] = -1
        return
    best = -1e300
    ties = 0
    out[0] = -1
    out[3] = -1
    for u in range(nu):
        if uside[u] != side or usq[u] < 0 or acted[u] != 0:
            continue
        t = plan[u, 0]
        # stale: never made this turn, its square taken, or the unit moved since -- an epsilon side's random
        # swap moves the friend too, and the old plan can be out of that friend's reach
        if t == -2 or (occ[t] != -1 and t != usq[u]) or plan[u, 2] != usq[u]:
            maps_current_nb(side, P, usq, utype, uside, nu, gmap, gf)
            m = umove[utype[u]]
            if phase2 and m > ip[IP_P2]:
                m = ip[IP_P2]
            greedy_plan_nb(u, m, side, P, occ, usq, uface, utype, uside, gmap, gf, plan, plansc, rng, val)
        sc = plansc[u]
        take, best, ties = argmax_step_nb(sc, best, ties, rng, 0.0)
        if take:
            out[0] = u
    if out[0] >= 0 and best > fp[G_MINIMP]:
        out[1] = plan[out[0], 0]
        out[2] = plan[out[0], 1]
    else:
        out[0] = -1


@njit(**INNER)
def greedy_advance_nb(u, t, side, P, occ, usq, uface, utype, uside, gmap, gf, val):
    """Advance into the emptied square t when it scores better than staying (``val``: the weight row)."""
    here = pos_score_nb(u, usq[u], uface[u], side, P, occ, usq, utype, uside, gmap, gf, val)
    there = pos_score_nb(u, t, uface[u], side, P, occ, usq, utype, uside, gmap, gf, val)
    return there > here

