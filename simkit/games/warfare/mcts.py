"""Warfare! Monte-Carlo tree search (policy ``mcts:N``) on the shared tree of simkit.engine.mcts.

Decisions and their int32 codes (one tree level each; a turn of five activations
is five levels of the mover, then the opponent's turn continues below)::

    END            = 0                      end the turn (always allowed: activations are "up to")
    MOVE(u)        = 1 + u                  unit u moves to its greedy plan (square and facing), no attack
    ATTACK(u, v)   = 1 + nu + u * nu + v    unit u attacks enemy v from its best approach square
    ADV_STAY / ADV_GO                       after a melee kill (WF-5): stay, or advance into the emptied square

Candidate activations. Warfare! has hundreds of (unit, square, facing, target)
activations per decision, far more than 400 iterations can try, so the tree
searches over *what* to do and leaves *where exactly* to the greedy commander's
scores: every attack pair (u, v) the unit can reach, realised from the square
and facing with the best greedy attack score (ties: the best greedy position
score, then the first found), every unit whose greedy plan improves its position
by more than ``greedy_min_improve``, and END. Attacks certain to kill the
attacker (Cavalry into a Spearman's front) are left out, and only the
``MAX_MOVES`` best moves (by plan improvement) and ``MAX_ATTACKS`` best attacks
(by greedy attack score) are kept. Codes name units, not
squares, so a node means the same decision in every iteration although the
dice differ (open loop): the opposed d6 rolls are drawn from the game's stream
while an iteration applies its actions.

One iteration: copy the real position, descend (forced decisions — one
candidate — are applied without a node), expand one node, then play a rollout
(``mcts_rollout``: the greedy commander or uniform random play) for
``mcts_cutoff`` turn ends, and score the position by side 0's material lead
(the unit values of the greedy commander) squashed by ``mcts_scale``; a finished
game scores 1 / 0.5 / 0. The most visited root action is played.
"""
import numpy as np
from numba import njit

from simkit.engine.mcts import (ROOT, TF_N, TI_N, backprop_nb, best_action_nb, reward_from_eval_nb,
                                reward_from_winner_nb, select_nb, tree_reset_nb)
from simkit.engine.rng import rng_below_nb
from simkit.policies import MC_C, MC_CUTOFF, MC_ROLLOUT, MC_SCALE

from .moves import (angle_nb, attack_nb, can_act_nb, face_mask_nb, gen_dests_nb, gen_targets_nb, in_arc_nb,
                    move_nb, surround_nb, turn_limit_nb)
from .policies import (attack_score_nb, greedy_advance_nb, greedy_choose_nb, greedy_maps_nb, greedy_plan_nb,
                       melee_facing_nb, pos_score_nb, random_bit_nb, random_unit_nb)
from .state import ARC, DEF_DIES, FP_MCTS, FP_VALUE, G_MINIMP, INNER, IP_CAP, IP_H, IP_MAXT, IP_P2, IP_W

# search-state scalars (one int64 array)
SC_TURN, SC_PLAYER, SC_NACT, SC_LIMIT, SC_PASSES, SC_RESULT, SC_ADVU, SC_ADVSQ = range(8)
SC_N = 8
ONGOING = -2          # SC_RESULT while the game goes on; else the winner, -1 a draw
MODE_ACT, MODE_ADV = 0, 1
END = 0
NEG = -1.0e300

# workspace tuple indices (new_search_nb)
(W_TI, W_TF, W_PATH, W_OCC, W_USQ, W_FACE, W_ACTED, W_ALIVE, W_SC, W_GMAP, W_GF, W_PLAN, W_PLANSC, W_GOUT,
 W_RGMAP, W_RGF, W_RPLAN, W_RPLANSC, W_ACTS, W_AT, W_AF, W_ATG, W_RACTS, W_RAT, W_RAF, W_RATG,
 W_PSC, W_PT, W_PF, W_PPOS, W_BUF, W_TBUF, W_REC, W_AGG, W_ASC, W_KEEP) = range(36)

# candidates kept per decision: the best moves by plan improvement, the best attacks by greedy attack
# score (a few hundred iterations cannot tell apart dozens of dice-noisy siblings)
MAX_MOVES = 4
MAX_ATTACKS = 6


@njit(cache=True)
def new_search_nb(nu, n0, n1, nsq, nbuf, nfields, cap):
    """Search workspace for one parallel block: tree of ``cap`` nodes and every scratch array."""
    na = n0 * n1 + nu + 3
    return (np.zeros((cap, TI_N), dtype=np.int32), np.zeros((cap, TF_N), dtype=np.float64),
            np.zeros(cap + 1, dtype=np.int64),
            np.zeros(nsq, dtype=np.int64), np.zeros(nu, dtype=np.int64), np.zeros(nu, dtype=np.int64),
            np.zeros(nu, dtype=np.int64), np.zeros(2, dtype=np.int64), np.zeros(SC_N, dtype=np.int64),
            np.zeros((3, nsq), dtype=np.int64), np.zeros(4, dtype=np.float64), np.zeros((nu, 2), dtype=np.int64),
            np.zeros(nu, dtype=np.float64), np.zeros(4, dtype=np.int64),
            np.zeros((3, nsq), dtype=np.int64), np.zeros(4, dtype=np.float64), np.zeros((nu, 2), dtype=np.int64),
            np.zeros(nu, dtype=np.float64),
            np.zeros(na, dtype=np.int64), np.zeros(na, dtype=np.int64), np.zeros(na, dtype=np.int64),
            np.zeros(na, dtype=np.int64),
            np.zeros(na, dtype=np.int64), np.zeros(na, dtype=np.int64), np.zeros(na, dtype=np.int64),
            np.zeros(na, dtype=np.int64),
            np.zeros(nu, dtype=np.float64), np.zeros(nu, dtype=np.int64), np.zeros(nu, dtype=np.int64),
            np.zeros(nu, dtype=np.float64),
            np.zeros(nbuf, dtype=np.int64), np.zeros(nu + 1, dtype=np.int64), np.zeros(nfields, dtype=np.int32),
            np.zeros(nsq, dtype=np.int64), np.zeros(na, dtype=np.float64), np.zeros(na, dtype=np.int64))


# ------------------------------------------------------------------ the game, as the search plays it

@njit(**INNER)
def ensure_maps_nb(side, turn, P, usq, utype, uside, alive, nu, gmap, gf):
    """The greedy maps of ``side``, recomputed under the same key the greedy commander uses."""
    key = turn * 1000 + alive[1 - side]
    if gf[0] != key:
        greedy_maps_nb(side, P, usq, utype, uside, nu, gmap, gf)
        gf[0] = key


@njit(**INNER)
def material_lead_nb(fp, usq, utype, uside, nu):
    """Side 0's lead in unit value (the greedy commander's values): the cut-off evaluation."""
    v = 0.0
    for u in range(nu):
        if usq[u] >= 0:
            if uside[u] == 0:
                v += fp[FP_VALUE + utype[u]]
            else:
                v -= fp[FP_VALUE + utype[u]]
    return v


@njit(cache=True, _nrt=False)
def begin_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu):
    """Start the turn in sc[SC_TURN] of sc[SC_PLAYER] exactly as play_game_nb does (cap, passes)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy = P
    while True:
        turn = sc[SC_TURN]
        player = sc[SC_PLAYER]
        if turn >= ip[IP_MAXT]:
            if ip[IP_CAP] == 1:
                lead = material_lead_nb(fp, usq, utype, uside, nu)
                sc[SC_RESULT] = 0 if lead > 0 else (1 if lead < 0 else -1)
            else:
                sc[SC_RESULT] = -1
            return
        phase2 = turn < 2
        if not can_act_nb(player, phase2, ip, umove, urange, dest, destn, occ, usq, uface, uside, utype, nu):
            sc[SC_PASSES] += 1
            if sc[SC_PASSES] >= 2:
                sc[SC_RESULT] = -1
                return
            sc[SC_TURN] = turn + 1
            sc[SC_PLAYER] = 1 - player
            continue
        sc[SC_PASSES] = 0
        for u in range(nu):
            acted[u] = 0
        sc[SC_NACT] = 0
        sc[SC_LIMIT] = turn_limit_nb(ip, turn, nu)   # WF-C1 included
        return


@njit(**INNER)
def end_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu):
    sc[SC_TURN] += 1
    sc[SC_PLAYER] = 1 - sc[SC_PLAYER]
    begin_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu)


@njit(**INNER)
def finish_activation_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg):
    """Surround (WF-6), annihilation, activation count. True when the turn ended."""
    ip = P[0]
    player = sc[SC_PLAYER]
    sc[SC_ADVU] = -1
    surround_nb(player, ip, occ, usq, uside, utype, alive, rec, agg, nu)
    if alive[0] == 0 or alive[1] == 0:
        sc[SC_RESULT] = player if alive[1 - player] == 0 else 1 - player
        return True
    sc[SC_NACT] += 1
    if sc[SC_NACT] >= sc[SC_LIMIT]:
        end_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu)
        return True
    return False


@njit(**INNER)
def strike_nb(sc, u, tgt, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg, rng):
    """Unit u (already moved) attacks tgt (-1: none). True when a melee kill leaves an advance decision."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy = P
    if tgt < 0 or sc[SC_TURN] < 2:
        return False
    player = sc[SC_PLAYER]
    tsq = usq[tgt]
    out, ang, rolled = attack_nb(u, tgt, ip, tree, urange, occ, usq, uface, uside, utype, alive, rec, agg, rng,
                                 np.int64(-1))
    if out == DEF_DIES and utype[u] != ARC and alive[1 - player] > 0:
        sc[SC_ADVU] = u
        sc[SC_ADVSQ] = tsq
        return True
    return False


@njit(**INNER)
def apply_code_nb(sc, code, t, f, tgt, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg, rng):
    """Apply one decision (code with its realisation t, f, tgt). True when the turn ended."""
    if sc[SC_ADVU] >= 0:                       # ADV_STAY / ADV_GO
        u = sc[SC_ADVU]
        if code == 2 + nu + nu * nu:
            move_nb(u, sc[SC_ADVSQ], uface[u], occ, usq, uface)
        return finish_activation_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg)
    if code == END:
        end_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu)
        return True
    u = code - 1 if code <= nu else (code - 1 - nu) // nu
    move_nb(u, t, f, occ, usq, uface)
    acted[u] = 1
    if strike_nb(sc, u, tgt, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg, rng):
        return False
    return finish_activation_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg)


@njit(**INNER)
def attack_pairs_nb(u, m, side, last, P, occ, usq, uface, utype, uside, nu, gmap, gf, psc, pt, pf, ppos,
                    acts, at, af, atg, asc, n):
    """Append ATTACK(u, v) for every enemy v that unit u can reach, each from its best approach."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy = P
    W = ip[IP_W]
    H = ip[IP_H]
    for v in range(nu):
        psc[v] = NEG
    typ = utype[u]
    ranged = typ == ARC   # a variable, not a literal: one compile of attack_score_nb
    own = fp[FP_VALUE + typ]
    sq = usq[u]
    if typ == ARC:
        rg = urange[typ]
        for j in range(destn[m, sq]):
            t = dest[m, sq, j]
            if occ[t] != -1 and t != sq:
                continue
            tx = sqx[t]
            ty = sqy[t]
            mask = dmask[m, sq, j]
            for v in range(nu):
                if usq[v] < 0 or uside[v] == side:
                    continue
                vx = sqx[usq[v]]
                vy = sqy[usq[v]]
                if abs(vx - tx) > rg or abs(vy - ty) > rg:
                    continue
                for k in range(4):
                    f = k if side == 0 or k == 1 or k == 3 else 2 - k
                    if (mask >> f) & 1 and in_arc_nb(tx, ty, f, vx, vy, True, rg):
                        ang = angle_nb(tx, ty, vx, vy, uface[v], True)
                        s = attack_score_nb(typ, utype[v], ang, ranged, tree[usq[v]], ip, fp, wintab, last)
                        if s >= psc[v] - 1e-12:
                            ps = pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf)
                            if s > psc[v] + 1e-12 or ps > ppos[v]:
                                psc[v] = s
                                ppos[v] = ps
                                pt[v] = t
                                pf[v] = f
                        break
    else:
        ux = sqx[sq]
        uy = sqy[sq]
        for v in range(nu):
            if usq[v] < 0 or uside[v] == side:
                continue
            vx = sqx[usq[v]]
            vy = sqy[usq[v]]
            if abs(vx - ux) > m + 1 or abs(vy - uy) > m + 1:
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
                    s = attack_score_nb(typ, utype[v], ang, ranged, tree[usq[v]], ip, fp, wintab, last)
                    if s >= psc[v] - 1e-12:
                        ps = pos_score_nb(u, t, f, side, P, occ, usq, utype, uside, gmap, gf)
                        if s > psc[v] + 1e-12 or ps > ppos[v]:
                            psc[v] = s
                            ppos[v] = ps
                            pt[v] = t
                            pf[v] = f
    for v in range(nu):
        # an attack that certainly kills the attacker (Cavalry into a Spearman's front) is never a candidate
        if psc[v] > NEG and psc[v] > -own + 1e-9:
            acts[n] = 1 + nu + u * nu + v
            at[n] = pt[v]
            af[n] = pf[v]
            atg[n] = v
            asc[n] = psc[v]
            n += 1
    return n


@njit(**INNER)
def keep_best_nb(acts, at, af, atg, asc, keep, n, lo, kmax, cls):
    """Among candidates lo..n-1 of class ``cls`` (0 move, 1 attack) mark the kmax best by asc."""
    for _r in range(kmax):
        b = -1
        for j in range(lo, n):
            if keep[j] == 0 and (atg[j] >= 0) == (cls == 1) and (b < 0 or asc[j] > asc[b]):
                b = j
        if b < 0:
            return
        keep[b] = 1


@njit(**INNER)
def gen_decision_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, gmap, gf, plan, plansc,
                    psc, pt, pf, ppos, acts, at, af, atg, asc, keep, rng):
    """The candidate decisions of the position (see the module docstring). Returns their count."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy = P
    if sc[SC_ADVU] >= 0:
        acts[0] = 1 + nu + nu * nu
        acts[1] = 2 + nu + nu * nu
        return 2
    side = sc[SC_PLAYER]
    turn = sc[SC_TURN]
    phase2 = turn < 2
    ensure_maps_nb(side, turn, P, usq, utype, uside, alive, nu, gmap, gf)
    if gf[2] != turn:   # plans last a turn, as the greedy commander's do
        gf[2] = turn
        for u in range(nu):
            plan[u, 0] = -2
    acts[0] = END
    at[0] = -1
    af[0] = -1
    atg[0] = -1
    n = np.int64(1)   # not a literal: one compile of attack_pairs_nb / keep_best_nb
    last = alive[1 - side] == 1
    for u in range(nu):
        if uside[u] != side or usq[u] < 0 or acted[u] != 0:
            continue
        m = umove[utype[u]]
        if phase2 and m > ip[IP_P2]:
            m = ip[IP_P2]
        t = plan[u, 0]
        if t == -2 or (occ[t] != -1 and t != usq[u]):
            greedy_plan_nb(u, m, side, P, occ, usq, uface, utype, uside, gmap, gf, plan, plansc, rng)
        if plansc[u] > fp[G_MINIMP]:
            acts[n] = 1 + u
            at[n] = plan[u, 0]
            af[n] = plan[u, 1]
            atg[n] = -1
            asc[n] = plansc[u]
            n += 1
        if not phase2:
            n = attack_pairs_nb(u, m, side, last, P, occ, usq, uface, utype, uside, nu, gmap, gf, psc, pt, pf, ppos,
                                acts, at, af, atg, asc, n)
    for j in range(n):
        keep[j] = 0
    keep[0] = 1
    keep_best_nb(acts, at, af, atg, asc, keep, n, np.int64(1), np.int64(MAX_MOVES), np.int64(0))
    keep_best_nb(acts, at, af, atg, asc, keep, n, np.int64(1), np.int64(MAX_ATTACKS), np.int64(1))
    k = 0
    for j in range(n):
        if keep[j] == 1:
            acts[k] = acts[j]
            at[k] = at[j]
            af[k] = af[j]
            atg[k] = atg[j]
            asc[k] = asc[j]
            k += 1
    return k


@njit(**INNER)
def rollout_step_nb(sc, greedy, P, occ, usq, uface, utype, uside, acted, alive, nu, gmap, gf, plan, plansc, gout,
                    buf, tbuf, rec, agg, rng):
    """One decision of the rollout policy (random or greedy, as in play_game_nb). True when the turn ended."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy = P
    player = sc[SC_PLAYER]
    turn = sc[SC_TURN]
    if sc[SC_ADVU] >= 0:
        u = sc[SC_ADVU]
        tsq = sc[SC_ADVSQ]
        if greedy:
            ensure_maps_nb(player, turn, P, usq, utype, uside, alive, nu, gmap, gf)
            go = greedy_advance_nb(u, tsq, player, P, occ, usq, uface, utype, uside, gmap, gf)
        else:
            go = rng_below_nb(rng, np.int64(2)) == 1
        if go:
            move_nb(u, tsq, uface[u], occ, usq, uface)
        return finish_activation_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg)
    phase2 = turn < 2
    if greedy:
        greedy_choose_nb(player, phase2, turn, P, occ, usq, uface, utype, uside, acted, alive, nu,
                         gmap, gf, plan, plansc, gout, rng)
        u = gout[0]
        if u < 0:
            end_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu)
            return True
        move_nb(u, gout[1], gout[2], occ, usq, uface)
        tgt = gout[3]
    else:
        u = random_unit_nb(player, usq, uside, acted, nu, tbuf, rng)
        if u < 0:
            end_turn_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu)
            return True
        m = umove[utype[u]]
        if phase2 and m > ip[IP_P2]:
            m = ip[IP_P2]
        nd = gen_dests_nb(u, m, ip, dest, destn, occ, usq, uside, buf)
        t = buf[rng_below_nb(rng, nd)]
        f = random_bit_nb(face_mask_nb(m, usq[u], t, reach), rng)
        move_nb(u, t, f, occ, usq, uface)
        tgt = -1
        if not phase2:
            nt = gen_targets_nb(u, ip, urange, usq, uface, uside, utype, nu, tbuf)
            k = rng_below_nb(rng, nt + 1)
            tgt = tbuf[k] if k < nt else -1
    acted[u] = 1
    if strike_nb(sc, u, tgt, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg, rng):
        return False
    return finish_activation_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, rec, agg)


# ------------------------------------------------------------------ the search

# Plain loops instead of slice assignments (``a[:] = b``): those bring numba's shape-mismatch
# error formatting (string building) into every kernel that links the search, for nothing.
@njit(**INNER)
def copy_position_nb(socc, susq, sface, sacted, salive, occ, usq, uface, acted, alive):
    for q in range(occ.shape[0]):
        socc[q] = occ[q]
    for u in range(usq.shape[0]):
        susq[u] = usq[u]
        sface[u] = uface[u]
        sacted[u] = acted[u]
    salive[0] = alive[0]
    salive[1] = alive[1]


@njit(**INNER)
def copy_maps_nb(dgmap, dgf, dplan, dplansc, gmap, gf, plan, plansc):
    for k in range(gmap.shape[0]):
        for q in range(gmap.shape[1]):
            dgmap[k, q] = gmap[k, q]
    for k in range(gf.shape[0]):
        dgf[k] = gf[k]
    for u in range(plan.shape[0]):
        dplan[u, 0] = plan[u, 0]
        dplan[u, 1] = plan[u, 1]
        dplansc[u] = plansc[u]


@njit(cache=True, _nrt=False)
def mcts_choose_nb(mode, player, turn, nact, limit, P, occ, usq, uface, utype, uside, acted, alive, nu, budget,
                   Wk, gout, rng):
    """The MCTS decision of ``player`` in the real position.

    MODE_ACT: the next activation, out ``gout`` = (unit or -1 to end the turn, square, facing, target).
    MODE_ADV: after a melee kill by unit gout[0] on square gout[1]; returns 1 to advance, 0 to stay.
    """
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy = P
    ti = Wk[W_TI]
    tf = Wk[W_TF]
    path = Wk[W_PATH]
    socc = Wk[W_OCC]
    susq = Wk[W_USQ]
    sface = Wk[W_FACE]
    sacted = Wk[W_ACTED]
    salive = Wk[W_ALIVE]
    sc = Wk[W_SC]
    gmap = Wk[W_GMAP]
    gf = Wk[W_GF]
    plan = Wk[W_PLAN]
    plansc = Wk[W_PLANSC]
    rgmap = Wk[W_RGMAP]
    rgf = Wk[W_RGF]
    rplan = Wk[W_RPLAN]
    rplansc = Wk[W_RPLANSC]
    acts = Wk[W_ACTS]
    at = Wk[W_AT]
    af = Wk[W_AF]
    atg = Wk[W_ATG]
    racts = Wk[W_RACTS]
    rat = Wk[W_RAT]
    raf = Wk[W_RAF]
    ratg = Wk[W_RATG]
    psc = Wk[W_PSC]
    pt = Wk[W_PT]
    pf = Wk[W_PF]
    ppos = Wk[W_PPOS]
    rgout = Wk[W_GOUT]
    buf = Wk[W_BUF]
    tbuf = Wk[W_TBUF]
    rec = Wk[W_REC]
    agg = Wk[W_AGG]
    asc = Wk[W_ASC]
    keep = Wk[W_KEEP]
    c = fp[FP_MCTS + MC_C]
    greedy = fp[FP_MCTS + MC_ROLLOUT] == 1.0
    cutoff = np.int64(fp[FP_MCTS + MC_CUTOFF])
    scale = fp[FP_MCTS + MC_SCALE]
    rec[:] = 0
    agg[:] = 0
    # the root position and its candidates (computed once; every iteration starts from copies)
    sc[SC_TURN] = turn
    sc[SC_PLAYER] = player
    sc[SC_NACT] = nact
    sc[SC_LIMIT] = limit
    sc[SC_PASSES] = 0
    sc[SC_RESULT] = ONGOING
    sc[SC_ADVU] = gout[0] if mode == MODE_ADV else -1
    sc[SC_ADVSQ] = gout[1] if mode == MODE_ADV else -1
    r_turn, r_nact, r_advu, r_advsq = turn, nact, sc[SC_ADVU], sc[SC_ADVSQ]
    gf[0] = -1.0
    gf[2] = -1.0
    nr = gen_decision_nb(sc, P, occ, usq, uface, utype, uside, acted, alive, nu, gmap, gf, plan, plansc,
                         psc, pt, pf, ppos, racts, rat, raf, ratg, asc, keep, rng)
    if mode == MODE_ACT:   # the root maps and plans, restored at the start of every iteration
        copy_maps_nb(rgmap, rgf, rplan, rplansc, gmap, gf, plan, plansc)
    k = 0
    if nr > 1 and budget > 0:
        tree_reset_nb(ti, tf)
        for _it in range(budget):
            copy_position_nb(socc, susq, sface, sacted, salive, occ, usq, uface, acted, alive)
            sc[SC_TURN] = r_turn
            sc[SC_PLAYER] = player
            sc[SC_NACT] = r_nact
            sc[SC_LIMIT] = limit
            sc[SC_PASSES] = 0
            sc[SC_RESULT] = ONGOING
            sc[SC_ADVU] = r_advu
            sc[SC_ADVSQ] = r_advsq
            if mode == MODE_ACT:
                copy_maps_nb(gmap, gf, plan, plansc, rgmap, rgf, rplan, rplansc)
            else:
                gf[0] = -1.0
                gf[2] = -1.0
            node = np.int64(ROOT)   # not literals: one compile of select_nb / backprop_nb
            depth = np.int64(0)
            first = True
            while sc[SC_RESULT] == ONGOING:
                if first:
                    n = nr
                else:
                    n = gen_decision_nb(sc, P, socc, susq, sface, utype, uside, sacted, salive, nu, gmap, gf, plan,
                                        plansc, psc, pt, pf, ppos, acts, at, af, atg, asc, keep, rng)
                if n == 1:      # forced (only END; never at the root, which has nr > 1): no node
                    apply_code_nb(sc, acts[0], np.int64(-1), np.int64(-1), np.int64(-1), P, socc, susq, sface, utype,
                                  uside, sacted, salive, nu, rec, agg, rng)
                    continue
                who = sc[SC_PLAYER]
                if first:
                    kk, child, fresh = select_nb(ti, tf, node, racts, n, who, c, rng)
                    apply_code_nb(sc, racts[kk], rat[kk], raf[kk], ratg[kk], P, socc, susq, sface, utype, uside,
                                  sacted, salive, nu, rec, agg, rng)
                else:
                    kk, child, fresh = select_nb(ti, tf, node, acts, n, who, c, rng)
                    apply_code_nb(sc, acts[kk], at[kk], af[kk], atg[kk], P, socc, susq, sface, utype, uside,
                                  sacted, salive, nu, rec, agg, rng)
                first = False
                if child < 0:
                    break
                path[depth] = child
                depth += 1
                node = child
                if fresh:
                    break
            # rollout to the cut-off, then score
            ends = 0
            while sc[SC_RESULT] == ONGOING and ends < cutoff:
                if rollout_step_nb(sc, greedy, P, socc, susq, sface, utype, uside, sacted, salive, nu, gmap, gf,
                                   plan, plansc, rgout, buf, tbuf, rec, agg, rng):
                    ends += 1
            if sc[SC_RESULT] == ONGOING:
                r = reward_from_eval_nb(material_lead_nb(fp, susq, utype, uside, nu), scale)
            else:
                r = reward_from_winner_nb(sc[SC_RESULT])
            backprop_nb(ti, tf, path, depth, r)
        best = best_action_nb(ti, tf, rng)
        for j in range(nr):
            if racts[j] == best:
                k = j
                break
    if mode == MODE_ADV:
        return 1 if racts[k] == 2 + nu + nu * nu else 0
    code = racts[k]
    if code == END:
        gout[0] = -1
        return 0
    gout[0] = code - 1 if code <= nu else (code - 1 - nu) // nu
    gout[1] = rat[k]
    gout[2] = raf[k]
    gout[3] = ratg[k]
    return 0
