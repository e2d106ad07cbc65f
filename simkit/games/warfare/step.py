"""One Warfare! decision, in pieces the batch kernel (play.py) and the step API (env.py) both call.

A game is: ``begin_game_nb`` (deployment, a cleared record); per turn, decisions of the side to
move -- ``policy_activation_nb`` (a scripted side's next activation, drawn from the game's stream:
the random policy's target is drawn after the move, ``random_target_nb``), the attack's opposed roll
(``warfare_opposed_nb``, the game's dice) counted by ``count_roll_nb``, and after a melee kill
``policy_advance_nb`` (WF-5) -- until the side ends its turn or has used its activations; the cap
is adjudicated by ``moves.cap_winner_nb``; ``finish_record_nb`` writes the record's last columns.

The batch kernel keeps its own loop over these pieces on flat arrays (its speed); the step API
plays the same pieces on the search state of search.py (``S``), whose hooks (``apply_nb``,
``chance_nb``, ``settle_nb``) move the game on, so the step API, the search and the batch kernel
share one position and one set of rules. The ``step_*_nb`` functions at the bottom are the step
API's entry points from Python: they count what the kernel counts in the record (``S[S_REC]``, the
whole record row) and the deaths per square (``S[S_AGG]``).
"""
import numpy as np
from numba import njit

from simkit.engine.dice import warfare_opposed_nb
from simkit.engine.search import ONGOING
from simkit.engine.rng import rng_below_nb
from simkit.policies import EPS_SCALE, POL_BAN, POL_BUDGET, POL_EPS

from .candidates import ADVANCE, END, STAY, A0, act_code_nb, arc_index_nb, arc_max_nb, arc_square_nb, decode_nb
from .moves import arc_enemies_nb, face_mask_nb, gen_dests_nb, move_nb
from .policies import (BANNED, BANNED_EPS, CL_ADVANCE, MCTS, RANDOM, RANDOM_WHOLE, banned_nb, greedy_advance_nb,
                       greedy_choose_nb, greedy_maps_nb, maps_current_nb, random_move_nb, random_target_nb,
                       restricted_random_nb)
from .search import (M_ADVSQ, M_ADVU, M_EVAL, M_LIMIT, M_MATE, M_NACT, M_PAM, M_PASSES, M_PDM, M_PLAYER, M_PU,
                     M_RESULT, M_SNAP, M_TURN, S_AGG, S_BUF, S_GF, S_GMAP, S_GOUT, S_META, S_PLAN, S_PLANSC, S_REC,
                     S_TBUF, apply_nb, begin_turn_nb, chance_nb, choose_nb, settle_nb, value_nb)
from .state import (ARC, ATT_DIES, DEF_DIES, END_ANNIHILATION, END_MOVE_LIMIT, END_STALEMATE, INNER, IP_DEPLOY,
                    IP_H, IP_MAXT, IP_N0, IP_NSQ, IP_P2, IP_W, NOTHING, R_ACT, R_ADV, R_ATTACKS, R_FINAL, R_LOSTROLL,
                    R_MISS, R_SNAP, R_WONROLL)


# ------------------------------------------------------------------ the pieces the kernel calls

@njit(**INNER)
def deploy_nb(P, occ, usq, uface, utype, uside, alive, zbuf, rng):
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    occ[:] = -1
    n0 = ip[IP_N0]
    for s in range(2):
        n = ip[IP_N0 + s]
        base = 0 if s == 0 else n0
        nz = zone.shape[1]
        if ip[IP_DEPLOY] == 1:
            for k in range(nz):     # a loop, not a slice copy: no shape-error formatting code to compile
                zbuf[k] = zone[s, k]
            for k in range(n):  # partial Fisher-Yates: a uniform random placement
                j = k + rng_below_nb(rng, nz - k)
                tmp = zbuf[k]
                zbuf[k] = zbuf[j]
                zbuf[j] = tmp
        for k in range(n):
            u = base + k
            sq = linesq[s, k] if ip[IP_DEPLOY] == 0 else zbuf[k]
            utype[u] = army[s, k]
            uside[u] = s
            usq[u] = sq
            uface[u] = 0 if s == 0 else 2      # WF-1: deployed units face the enemy
            occ[sq] = u
        alive[s] = n


@njit(**INNER)
def material_nb(usq, utype, uside, nu, rec, offset):
    """Units left by side and type into rec[offset + side * 4 + type]."""
    for k in range(8):
        rec[offset + k] = 0
    for u in range(nu):
        if usq[u] >= 0:
            rec[offset + uside[u] * 4 + utype[u]] += 1


@njit(**INNER)
def begin_game_nb(P, first, occ, usq, uface, utype, uside, alive, zbuf, rng, rec):
    """The deployed armies (a random deployment draws from ``rng``) and a cleared record."""
    deploy_nb(P, occ, usq, uface, utype, uside, alive, zbuf, rng)
    rec[:] = 0
    rec[0] = first


# inline: the kernel calls this once per activation, and a call would copy the search workspace's ~70 arrays
# (Wk) as arguments each time -- most of a random activation's cost
@njit(inline="always", **INNER)
def policy_activation_nb(P, Wk, policies, player, turn, nact, limit, occ, usq, uface, utype, uside, acted, alive,
                         buf, tbuf, gmap, gf, plan, plansc, gout, rng):
    """The next activation of ``player`` under its entry of the policy vector (the kernels' view,
    play._policy_vector): (policy played, unit, square, facing, target); unit -1 ends the turn. A side
    with epsilon > 0 first draws whether to play this decision as the random policy (nothing is drawn
    with epsilon 0). The random policy's target is -1 here: it is drawn after the move
    (``random_target_nb``), as the policy is defined. A side with a ban (id BANNED + its policy's) plays
    out of line (restricted_activation_nb), after the unbanned policies' tests: their code is as before;
    its search runs here, the one place the activations reach the search from."""
    nu = usq.shape[0]
    phase2 = turn < 2
    act = policies[player]
    ban = np.int64(0)
    eps = policies[POL_EPS + player]
    if eps > 0 and rng_below_nb(rng, np.int64(EPS_SCALE)) < eps:
        act = RANDOM
    if act == RANDOM:
        u, t, f = random_move_nb(player, phase2, P, occ, usq, uside, utype, acted, nu, buf, tbuf, rng)
        return act, u, t, f, np.int64(-1)
    if act >= BANNED:
        act, u, t, f, tgt = restricted_activation_nb(P, policies, player, turn, occ, usq, uface, utype, uside, acted,
                                                     alive, buf, tbuf, gmap, gf, plan, plansc, gout, rng)
        if act != MCTS:
            return act, u, t, f, tgt
        ban = policies[POL_BAN + player]
    if act == MCTS:
        u, t, f, tgt = mcts_activation_nb(P, Wk, policies[POL_BUDGET + player], player, turn, nact, limit, occ, usq,
                                          uface, utype, uside, acted, alive, ban, rng)
        return act, u, t, f, tgt
    greedy_choose_nb(player, phase2, turn, P, occ, usq, uface, utype, uside, acted, alive, nu, np.int64(0),
                     gmap, gf, plan, plansc, gout, rng, P[16][player])    # the mover's row (state.P_EVAL)
    return act, gout[0], gout[1], gout[2], gout[3]


@njit(inline="always", **INNER)
def mcts_activation_nb(P, Wk, budget, player, turn, nact, limit, occ, usq, uface, utype, uside, acted, alive, ban,
                       rng):
    """The search's activation (unit, square, facing, target); unit -1 ends the turn."""
    ip, urange = P[0], P[6]
    code = choose_nb(P, Wk, budget, player, turn, nact, limit, np.int64(-1), np.int64(-1), np.int64(-1),
                     np.int64(-1), occ, usq, uface, utype, uside, acted, alive, ban, rng)
    if code == END:
        return np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1)
    u, t, f, j = decode_nb(code, player, ip[IP_N0], ip[IP_NSQ], arc_max_nb(urange))
    tgt = np.int64(-1)
    if j > 0:
        tgt = occ[arc_square_nb(t % ip[IP_W], t // ip[IP_W], f, j, ip[IP_W], ip[IP_H])]
    return u, t, f, tgt


# Neither this nor policy_advance_nb calls the search: each compiled function that reaches it is one more
# module LLVM optimises and emits with the whole search linked in (2.6-2.7 s each of a cold compile,
# scripts/compile_profile.py); they say MCTS / -1 and their caller searches.
@njit(**INNER)
def restricted_activation_nb(P, policies, player, turn, occ, usq, uface, utype, uside, acted, alive, buf, tbuf, gmap,
                             gf, plan, plansc, gout, rng):
    """policy_activation_nb for a side with the ban mask ``policies[POL_BAN + player]`` (``ban:CLASS:INNER``,
    policies.ACTION_CLASSES): INNER (id ``policies[player] - BANNED``, degrader at BANNED_EPS) among the
    unbanned decisions. Its random activation (``ban:CLASS:random``, or the degrader firing) comes whole
    (policies.restricted_random_nb), target included, reported as RANDOM_WHOLE. MCTS (nothing else
    returned): the caller searches, with the ban."""
    nu = usq.shape[0]
    phase2 = turn < 2
    ban = policies[POL_BAN + player]
    act = policies[player] - BANNED
    eps = policies[BANNED_EPS + player]
    if eps > 0 and rng_below_nb(rng, np.int64(EPS_SCALE)) < eps:
        act = RANDOM
    if act == RANDOM:
        u, t, f, tgt = restricted_random_nb(player, phase2, P, occ, usq, uface, uside, utype, acted, nu, buf, tbuf,
                                            ban, rng)
        return np.int64(RANDOM_WHOLE), u, t, f, tgt
    if act == MCTS:
        return act, np.int64(-1), np.int64(-1), np.int64(-1), np.int64(-1)
    greedy_choose_nb(player, phase2, turn, P, occ, usq, uface, utype, uside, acted, alive, nu, ban,
                     gmap, gf, plan, plansc, gout, rng, P[16][player])
    return act, gout[0], gout[1], gout[2], gout[3]


# not inlined: it runs only after a melee kill, and inlined its code slowed the kernel's greedy games by ~8%
@njit(**INNER)
def policy_advance_nb(P, policies, player, turn, u, tsq, occ, usq, uface, utype, uside, alive, gmap, gf, rng):
    """WF-5: does unit ``u`` of ``player``, which has just killed on ``tsq``, advance into it (1) or
    stay (0)? -1: the side searches (its caller asks mcts_advance_nb). A side that bans ``advance``
    stays, and draws nothing: STAY is then its only decision."""
    act = policies[player]
    eps = policies[POL_EPS + player]
    ban = policies[POL_BAN + player]
    if ban != 0:        # the kernels' view of a banned side (play._policy_vector)
        if banned_nb(ban, CL_ADVANCE):
            return 0
        act -= BANNED
        eps = policies[BANNED_EPS + player]
    if eps > 0 and rng_below_nb(rng, np.int64(EPS_SCALE)) < eps:
        act = RANDOM
    if act == RANDOM:
        return rng_below_nb(rng, np.int64(2))
    if act == MCTS:
        return -1
    if gf[0] != turn * 1000 + alive[1 - player]:     # the greedy maps' key (search.ensure_maps_nb)
        greedy_maps_nb(player, P, usq, utype, uside, usq.shape[0], gmap, gf)
        gf[0] = turn * 1000 + alive[1 - player]
    maps_current_nb(player, P, usq, utype, uside, usq.shape[0], gmap, gf)     # made lazily (greedy_choose_nb)
    return 1 if greedy_advance_nb(u, tsq, player, P, occ, usq, uface, utype, uside, gmap, gf, P[16][player]) else 0


@njit(inline="always", **INNER)
def mcts_advance_nb(P, Wk, policies, player, turn, nact, limit, u, tsq, mate, occ, usq, uface, utype, uside,
                    acted, alive, rng):
    """The search's answer where policy_advance_nb says -1: 1 advance, 0 stay."""
    code = choose_nb(P, Wk, policies[POL_BUDGET + player], player, turn, nact, limit, u, tsq, u, mate,
                     occ, usq, uface, utype, uside, acted, alive, policies[POL_BAN + player], rng)
    return 1 if code == ADVANCE else 0


@njit(cache=True, _nrt=False, inline="always")
def count_roll_nb(rec, player, out):
    """An opposed roll of ``player``'s attack, settled with ``out``: who won it, an archer's miss."""
    w = player if out == DEF_DIES else 1 - player
    rec[R_WONROLL + w] += 1
    rec[R_LOSTROLL + 1 - w] += 1
    if out == NOTHING:
        rec[R_MISS + player] += 1


@njit(cache=True, _nrt=False, inline="always")
def count_activation_nb(rec, player, at, attacks):
    """An activation of ``player``'s unit of type ``at``; ``attacks``: it attacks (phase 3)."""
    rec[R_ACT + player] += 1
    if attacks:
        rec[R_ATTACKS + player * 4 + at] += 1


@njit(cache=True, _nrt=False, inline="always")
def count_advance_nb(rec, player):
    rec[R_ADV + player] += 1


@njit(**INNER)
def finish_record_nb(usq, utype, uside, nu, rec, snapped, winner, turns, end):
    """The record's last columns: the final material (and as the snapshot when the game ended before
    the snapshot's turn), the winner, the turns played and the end reason."""
    material_nb(usq, utype, uside, nu, rec, np.int64(R_FINAL))
    if not snapped:
        for k in range(8):
            rec[R_SNAP + k] = rec[R_FINAL + k]
    rec[1] = winner
    rec[2] = turns
    rec[3] = end


# ------------------------------------------------------------------ the step API's entry points (search state S)
# The position between two events is search.py's state: meta[M_PU] >= 0 a pending opposed roll, meta[M_ADVU] >= 0
# a pending advance decision, else an activation (or END) of meta[M_PLAYER]. The record lives in S[S_REC].

@njit(cache=True, _nrt=False)
def step_start_nb(P, S, first, rng):
    """Game start as play_game_nb sets it up (deployment from ``rng``), first's turn begun."""
    occ, usq, uface, acted, alive, meta, utype, uside = S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7]
    begin_game_nb(P, first, occ, usq, uface, utype, uside, alive, S[S_BUF], rng, S[S_REC])
    S[S_AGG][:] = 0
    acted[:] = 0
    meta[:] = -1
    meta[M_TURN] = 0
    meta[M_PLAYER] = first
    meta[M_NACT] = 0
    meta[M_PASSES] = 0
    meta[M_RESULT] = ONGOING
    meta[M_SNAP] = 0
    meta[M_EVAL] = 0        # outside a search the hooks read row 0 of the weight table
    S[S_GF][0] = -1.0       # the greedy caches start empty, as in play_game_nb
    S[S_GF][2] = -1.0
    begin_turn_nb(P, S)


@njit(**INNER)
def _snapshot_nb(S, snapshot_turn):
    """The record's material snapshot, taken at the first decision of turn ``snapshot_turn`` or later (passed
    turns change nothing): the material at that turn's start, as play_game_nb takes it."""
    meta = S[S_META]
    if meta[M_SNAP] == 0 and 0 <= snapshot_turn <= meta[M_TURN]:
        material_nb(S[1], S[6], S[7], S[1].shape[0], S[S_REC], np.int64(R_SNAP))
        meta[M_SNAP] = 1


@njit(cache=True, _nrt=False)
def step_apply_nb(P, S, code, snapshot_turn, rng):
    """Play decision ``code`` of the side to move (search.apply_nb) and count it as play_game_nb does.
    An attack that goes to the opposed roll is left pending (a chance event)."""
    ip, urange = P[0], P[6]
    meta, utype = S[S_META], S[6]
    _snapshot_nb(S, snapshot_turn)
    player = meta[M_PLAYER]
    if code >= A0:
        u, t, f, j = decode_nb(code, player, ip[IP_N0], ip[IP_NSQ], arc_max_nb(urange))
        count_activation_nb(S[S_REC], player, utype[u], j > 0 and meta[M_TURN] >= 2)
    elif code == ADVANCE:
        count_advance_nb(S[S_REC], player)
    apply_nb(P, S, code, rng)


@njit(cache=True, _nrt=False)
def step_roll_nb(P, S, rng):
    """The pending opposed roll drawn from the game's stream as play_game_nb draws it: 1 the attacker wins."""
    meta = S[S_META]
    return 1 if warfare_opposed_nb(rng, meta[M_PAM], meta[M_PDM]) else 0


@njit(cache=True, _nrt=False)
def step_settle_nb(P, S, outcome, rng):
    """Settle the pending roll (search.settle_nb) and count it as play_game_nb does."""
    meta, utype = S[S_META], S[6]
    player = meta[M_PLAYER]
    archer = utype[meta[M_PU]] == ARC
    out = DEF_DIES if outcome == 1 else (NOTHING if archer else ATT_DIES)
    count_roll_nb(S[S_REC], player, out)
    settle_nb(P, S, np.int64(outcome), rng)


@njit(cache=True, _nrt=False)
def step_chance_nb(P, S, outcomes, probs):
    return chance_nb(P, S, outcomes, probs)


@njit(cache=True, _nrt=False)
def step_evaluate_nb(P, S):
    """The search's leaf evaluation (side 0's expected score) with row 0 of the weight table (state.P_EVAL),
    callable from Python (value_nb is inner)."""
    return value_nb(P, S, P[16][0])


@njit(cache=True, _nrt=False)
def step_finish_nb(P, S, snapshot_turn):
    """The record's last columns once the game is over, as play_game_nb writes them. The search's turn start
    stops on the turn that ended the game; the kernel counts a turn ended by annihilation or by the second
    pass of a stalemate, not the turn the cap stops."""
    ip = P[0]
    usq, alive, meta = S[1], S[4], S[S_META]
    turn = meta[M_TURN]
    if alive[0] == 0 or alive[1] == 0:
        end, turns = END_ANNIHILATION, turn + 1
    elif turn >= ip[IP_MAXT]:
        end, turns = END_MOVE_LIMIT, turn
    else:
        end, turns = END_STALEMATE, turn + 1
    # no snapshot taken at a decision: the game ended before the snapshot's turn, or at its start (the cap,
    # passes), when the final material is that turn's
    finish_record_nb(usq, S[6], S[7], usq.shape[0], S[S_REC], meta[M_SNAP] == 1, meta[M_RESULT], turns, end)


@njit(cache=True, _nrt=False)
def step_choose_nb(P, S, Wk, policies, rng):
    """The code of the decision the scripted policies make here, drawn from ``rng`` as play_game_nb draws it.
    The random policy draws its target after its move: the move is made, the target drawn, the move undone."""
    ip, urange, sqx, sqy = P[0], P[6], P[13], P[14]
    occ, usq, uface, acted, alive, meta, utype, uside = S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7]
    player = meta[M_PLAYER]
    turn = meta[M_TURN]
    if meta[M_ADVU] >= 0:
        adv = policy_advance_nb(P, policies, player, turn, meta[M_ADVU], meta[M_ADVSQ], occ, usq, uface, utype,
                                uside, alive, S[S_GMAP], S[S_GF], rng)
        if adv < 0:
            adv = mcts_advance_nb(P, Wk, policies, player, turn, meta[M_NACT], meta[M_LIMIT], meta[M_ADVU],
                                  meta[M_ADVSQ], meta[M_MATE], occ, usq, uface, utype, uside, acted, alive, rng)
        return ADVANCE if adv == 1 else STAY
    act, u, t, f, tgt = policy_activation_nb(P, Wk, policies, player, turn, meta[M_NACT], meta[M_LIMIT], occ, usq,
                                             uface, utype, uside, acted, alive, S[S_BUF], S[S_TBUF], S[S_GMAP],
                                             S[S_GF], S[S_PLAN], S[S_PLANSC], S[S_GOUT], rng)
    if u < 0:
        return END
    if act == RANDOM and turn >= 2:
        frm = usq[u]
        face = uface[u]
        move_nb(u, t, f, occ, usq, uface)
        tgt = random_target_nb(u, P, usq, uface, uside, utype, usq.shape[0], S[S_TBUF], rng)
        move_nb(u, frm, face, occ, usq, uface)
    j = 0
    if tgt >= 0:
        j = arc_index_nb(sqx[t], sqy[t], f, sqx[usq[tgt]], sqy[usq[tgt]])
    k = u if player == 0 else u - ip[IP_N0]
    return act_code_nb(k, t, f, j, ip[IP_NSQ], arc_max_nb(urange))


@njit(cache=True, _nrt=False)
def step_legal_nb(P, S, codes):
    """Every legal decision of the side to move, as codes (candidates.py): after a melee kill STAY and ADVANCE;
    else END and every activation of a unit that has not acted -- each destination (gen_dests_nb: staying,
    empty squares, swaps), each facing the move allows, no attack or (phase 3) each enemy in the front arc
    from there. The scripted policies choose among exactly these. Returns the count."""
    ip, umove, urange, dest, destn, reach = P[0], P[5], P[6], P[7], P[9], P[10]
    occ, usq, acted, meta, utype, uside = S[0], S[1], S[3], S[5], S[6], S[7]
    if meta[M_ADVU] >= 0:
        codes[0] = STAY
        codes[1] = ADVANCE
        return 2
    W = ip[IP_W]
    nsq = ip[IP_NSQ]
    am = arc_max_nb(urange)
    side = meta[M_PLAYER]
    phase2 = meta[M_TURN] < 2
    buf = S[S_BUF]
    arcs = S[S_TBUF]     # enemies in one arc: fewer than the units
    codes[0] = END
    n = 1
    base = 0 if side == 0 else ip[IP_N0]
    for u in range(usq.shape[0]):
        if uside[u] != side or usq[u] < 0 or acted[u] != 0:
            continue
        k = u - base
        m = umove[utype[u]]
        if phase2 and m > ip[IP_P2]:
            m = ip[IP_P2]
        ranged = utype[u] == ARC
        nd = gen_dests_nb(u, m, ip, dest, destn, occ, usq, uside, buf)
        for jj in range(nd):
            t = buf[jj]
            mask = face_mask_nb(m, usq[u], t, reach)
            for f in range(4):
                if (mask >> f) & 1:
                    codes[n] = act_code_nb(k, t, f, 0, nsq, am)
                    n += 1
                    if not phase2:
                        na = arc_enemies_nb(t % W, t // W, f, side, ranged, urange[utype[u]], ip, occ, uside, arcs)
                        for i in range(na):
                            codes[n] = act_code_nb(k, t, f, arcs[i], nsq, am)
                            n += 1
    return n
