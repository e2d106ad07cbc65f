"""Warfare!'s search hooks: simkit/engine/search.py plays ``mcts:N`` through them.

**Search state** ``S`` (a tuple of arrays; ``new_state_nb``): the position (``occ``, ``usq``,
``uface``, ``acted``, ``alive``, the unit table ``utype``/``uside``), ``meta`` (turn, side to move,
activations made and allowed this turn, passes, result, a pending advance decision, a pending
opposed roll, the acting unit and its swap partner) and the greedy commander's caches (its maps
and plans, kept as the greedy policy keeps them: a copy carries them), then scratch that is not
copied (buffers, the records the rule functions write). ``P`` is the game's params tuple
(state.py); the knobs the hooks read are in ``fp`` from ``FP_MCTS`` (the same for both sides); the engine
gets the mover's row of the knob table ``P[15]`` (a side's own POLICY/KNOB=VALUE). Every unit value
the search weighs -- its leaf evaluation, its candidates' priors, the greedy rollouts of both sides --
comes from the searcher's row of the evaluation's weight table ``P[P_EVAL]`` (state.py; ``meta[M_EVAL]``,
set at the root and copied with the state), so a side with learned weights searches with them.

**Decisions**: candidates.py (codes, the curated candidates and their scores). One decision is
one activation, or the WF-5 advance after a melee kill; a turn is consecutive decisions of the
same side, so the tree plans a turn's activations together (its deeper levels are the same side's
next activations) and the opponent's turn continues below.

**Chance**: an activation whose attack goes to the opposed roll (RULES 4 step 4) leaves the roll
pending; ``chance_nb`` offers its two outcome classes, attacker wins (1) and defender wins (0),
with the exact probability ``warfare_win_prob_nb`` of engine/dice.py (ties re-rolled). Every other
combat result is certain and applied at once. Nothing is hidden, and the rollouts draw their dice
only after the tree: the search is closed loop.

**Evaluation** (``evaluate_nb``, side 0's expected score): the lead (``lead_nb``) = side 0's material
lead (the weight row's unit values) plus the row's threat weight (``mcts_threat``) times a threat term
-- the side to move's attack potential (the sum of its best ``activations`` attack scores, in the
rules' unit values, ``candidates.attack_potential_nb``) minus half the other side's (it moves later
and can parry some) -- squashed by ``mcts_scale``. The lead is linear in the row (features.py). Where the cap
draws (``cap_result = "draw"``) a lead only wins by annihilation, so the expected score is pulled
to 1/2 by the share of the trailing side's units the turns left can still remove: ``turns left /
(mcts_cap_turns * units of the trailing side)``, at most 1. Under ``cap_result = "material"`` the
lead itself decides at the cap and is not pulled.

**Restricted play**: ``class_nb`` gives a decision's action class (policies.ACTION_CLASSES); a
``ban:CLASS:mcts:N`` searcher leaves its banned classes out of its own decisions at the root and in its
tree (the engine's ``legal_nb``; END and STAY are no class, so one is always left). The opponent's
decisions and the rollouts' plies (both sides) stay unrestricted, as in every game's search.

**Rollouts**: the greedy commander (or uniform random play, as the policies play) from the leaf
until ``mcts_cutoff`` turns have ended, counting the searcher's current turn; a pending roll is
rolled with the game's own dice first.
"""
import numpy as np
from numba import njit

from simkit.engine.dice import warfare_win_prob_nb
from simkit.engine.rng import rng_below_nb
from simkit.engine.search import ONGOING, make_search, new_tree_nb, same_array_nb, squash_nb, tree_capacity
from simkit.policies import MC_N, MC_SCALE

from .candidates import ADVANCE, END, STAY, arc_max_nb, arc_square_nb, attack_potential_nb, decision_class_nb, \
    decode_nb, gen_decisions_nb
from .moves import (ROLL, angle_nb, attack_nb, can_act_nb, cap_winner_nb, combat_kind_nb, move_nb, surround_after_nb,
                    turn_limit_nb)
from .policies import formation_line_nb, greedy_advance_nb, greedy_choose_nb, maps_current_nb, pos_score_nb, \
    random_move_nb, random_target_nb
from .state import (ARC, DEF_DIES, EV_THREAT, FP_MCTS, INNER, IP_ACT, IP_CAP, IP_H, IP_MAXT, IP_MAXU, IP_N0, IP_N1,
                    IP_NSQ, IP_W, NFIELDS)

# Warfare!'s own MCTS knobs, after the engine's in the knob vector (fp[FP_MCTS + MC_N + MK_*]); the evaluation
# reads the threat weight from the weight row (state.EV_THREAT), fp's copy stays for the layout
MK_THREAT, MK_CAP_TURNS = 0, 1

# meta columns
(M_TURN, M_PLAYER, M_NACT, M_LIMIT, M_PASSES, M_RESULT, M_ADVU, M_ADVSQ, M_PU, M_PV, M_PAM, M_PDM, M_ACTU,
 M_MATE, M_SNAP, M_EVAL) = range(16)
M_N = 16      # M_SNAP: the step API's flag, the record's material snapshot taken (step.py)
# M_EVAL: whose row of the weight table (state.P_EVAL) the hooks read -- the searcher's in a search (choose_nb),
# 0 outside one (the step API's view, like its evaluate)
# S tuple
(S_OCC, S_USQ, S_FACE, S_ACTED, S_ALIVE, S_META, S_TYPE, S_SIDE, S_GMAP, S_GF, S_PLAN, S_PLANSC,
 S_GOUT, S_BUF, S_TBUF, S_REC, S_AGG, S_PSC, S_PT, S_PF, S_PPOS, S_TOP) = range(22)

# children one search iteration may add: a decision offers END, up to four moves per unit that has not
# acted and its attacks -- 30 to 80 in the default battle; a full tree stops growing (engine/search.py)
SEARCH_WIDTH = 96
# entries of a scratch state's store of greedy maps (policies.maps_store_nb)
MAPS_STORE = 256


def max_decisions(params) -> int:
    """Most candidates one decision can offer (candidates.gen_decisions_nb): END, and per unit four moves
    and one attack per enemy."""
    maxu = int(params[0][IP_MAXU])
    return 1 + maxu * (4 + maxu)


@njit(cache=True)
def new_state_nb(nu, nsq, nbuf, act, mcap=0):
    """A search state's arrays (module docstring); ``act`` bounds the activations of a turn; ``mcap``: the
    entries of the greedy maps' store below the maps (policies.maps_store_nb; copy_nb leaves it)."""
    return (np.zeros(nsq, np.int64), np.zeros(nu, np.int64), np.zeros(nu, np.int64), np.zeros(nu, np.int64),
            np.zeros(2, np.int64), np.zeros(M_N, np.int64), np.zeros(nu, np.int64), np.zeros(nu, np.int64),
            np.zeros((3 + 4 * mcap, nsq), np.int64), np.zeros(4, np.float64), np.zeros((nu, 3), np.int64),
            np.zeros(nu, np.float64), np.zeros(4 + 2 * nsq, np.int64), np.zeros(nbuf, np.int64),
            np.zeros(nu + 1, np.int64),
            np.zeros(NFIELDS, np.int32), np.zeros(nsq, np.int64), np.zeros(nu, np.float64), np.zeros(nu, np.int64),
            np.zeros(nu, np.int64), np.zeros(nu, np.float64), np.zeros(max(act, 1), np.float64))


def position_state(params, usq, uface, utype, uside, turn, player):
    """A search state at the start of ``player``'s turn ``turn`` with units on ``usq`` (-1: dead) facing
    ``uface``; units numbered as a game numbers them (side 0's first). For tests and measurements."""
    ip = params[0]
    nu = len(usq)
    S = new_state_nb(np.int64(nu), ip[IP_NSQ], np.int64(params[7].shape[2] + 8 + params[4].shape[1]),
                     np.int64(ip[IP_ACT] + 8))
    S[S_OCC][:] = -1
    for u in range(nu):
        S[S_USQ][u], S[S_FACE][u], S[S_TYPE][u], S[S_SIDE][u] = usq[u], uface[u], utype[u], uside[u]
        if usq[u] >= 0:
            S[S_OCC][usq[u]] = u
            S[S_ALIVE][uside[u]] += 1
    meta = S[S_META]
    meta[:] = -1
    meta[M_TURN], meta[M_PLAYER], meta[M_PASSES], meta[M_RESULT] = turn, player, 0, ONGOING
    meta[M_EVAL] = 0
    S[S_GF][:] = -1.0
    start_turn_nb(params, S)
    return S


@njit(**INNER)
def material_lead_nb(val, usq, utype, uside, nu):
    """Side 0's lead in unit value (``val``: a weight row, state.P_EVAL): the trajectory's value (row 0)
    and the evaluation's material."""
    v = 0.0
    for u in range(nu):
        if usq[u] >= 0:
            if uside[u] == 0:
                v += val[utype[u]]
            else:
                v -= val[utype[u]]
    return v


@njit(**INNER)
def ensure_maps_nb(P, S, side):
    """The greedy maps of ``side``, recomputed under the key the greedy commander uses, or made current
    where it left them stale (policies.greedy_choose_nb)."""
    turn = S[S_META][M_TURN]
    alive = S[S_ALIVE]
    gf = S[S_GF]
    key = turn * 1000 + alive[1 - side]
    usq, utype, uside = S[S_USQ], S[S_TYPE], S[S_SIDE]
    if gf[0] != key:        # as greedy_choose_nb: the line from where the side stands now, the maps stale
        gf[1] = formation_line_nb(side, P, usq, utype, uside, usq.shape[0])
        gf[3] = 1.0
        gf[0] = key
    maps_current_nb(side, P, usq, utype, uside, usq.shape[0], S[S_GMAP], gf)


# ------------------------------------------------------------------ the game, as the search plays it

@njit(**INNER)
def begin_turn_nb(P, S):
    """Start the turn in meta[M_TURN] of meta[M_PLAYER] exactly as play_game_nb does (cap, passes)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    occ, usq, uface, acted, meta, utype, uside = S[0], S[1], S[2], S[3], S[5], S[6], S[7]
    nu = usq.shape[0]
    while True:
        turn = meta[M_TURN]
        player = meta[M_PLAYER]
        if turn >= ip[IP_MAXT]:
            meta[M_RESULT] = cap_winner_nb(ip, fp, usq, utype, uside, nu)    # the kernel's adjudication
            return
        phase2 = turn < 2
        if not can_act_nb(player, phase2, ip, umove, urange, dest, destn, occ, usq, uface, uside, utype, nu):
            meta[M_PASSES] += 1
            if meta[M_PASSES] >= 2:
                meta[M_RESULT] = -1
                return
            meta[M_TURN] = turn + 1
            meta[M_PLAYER] = 1 - player
            continue
        meta[M_PASSES] = 0
        for u in range(nu):
            acted[u] = 0
        meta[M_NACT] = 0
        meta[M_LIMIT] = turn_limit_nb(ip, turn, nu)   # WF-C1 included
        return


@njit(**INNER)
def end_turn_nb(P, S):
    meta = S[S_META]
    meta[M_TURN] += 1
    meta[M_PLAYER] = 1 - meta[M_PLAYER]
    begin_turn_nb(P, S)


@njit(**INNER)
def finish_activation_nb(P, S):
    """After the attack (and advance): surround (WF-6), annihilation, the activation count, the turn's end."""
    ip = P[0]
    occ, usq, alive, meta, utype, uside = S[S_OCC], S[S_USQ], S[S_ALIVE], S[S_META], S[S_TYPE], S[S_SIDE]
    player = meta[M_PLAYER]
    meta[M_ADVU] = -1
    surround_after_nb(player, meta[M_ACTU], meta[M_MATE], ip, occ, usq, uside, utype, alive, S[S_REC], S[S_AGG])
    if alive[0] == 0 or alive[1] == 0:
        meta[M_RESULT] = player if alive[1 - player] == 0 else 1 - player
        return
    meta[M_NACT] += 1
    if meta[M_NACT] >= meta[M_LIMIT]:
        end_turn_nb(P, S)


@njit(**INNER)
def strike_nb(P, S, u, v, forced, rng):
    """Unit u attacks v (``forced``: the opposed roll's result, -1 rolls the game's dice), then the
    advance decision after a melee kill, or the activation ends."""
    ip, tree, urange = P[0], P[1], P[6]
    occ, usq, uface, alive, meta, utype, uside = S[0], S[1], S[2], S[4], S[5], S[6], S[7]
    player = meta[M_PLAYER]
    tsq = usq[v]
    out, ang, rolled = attack_nb(u, v, ip, tree, urange, occ, usq, uface, uside, utype, alive, S[S_REC], S[S_AGG],
                                 rng, forced)
    if out == DEF_DIES and utype[u] != ARC and alive[1 - player] > 0:
        meta[M_ADVU] = u          # WF-5: the attacker's advance is a decision
        meta[M_ADVSQ] = tsq
        return
    finish_activation_nb(P, S)


@njit(**INNER)
def activate_nb(P, S, u, t, f, v, rng):
    """Unit u moves to t (or swaps), faces f and attacks v (-1: none); an opposed roll is left pending."""
    ip, tree = P[0], P[1]
    occ, usq, uface, acted, meta, utype = S[0], S[1], S[2], S[3], S[5], S[6]
    frm = usq[u]
    meta[M_ACTU] = u
    meta[M_MATE] = occ[t] if t != frm else -1     # a swap partner ends on frm
    move_nb(u, t, f, occ, usq, uface)
    acted[u] = 1
    if v < 0 or meta[M_TURN] < 2:
        finish_activation_nb(P, S)
        return
    W = ip[IP_W]
    ranged = utype[u] == ARC
    ang = angle_nb(usq[u] % W, usq[u] // W, usq[v] % W, usq[v] // W, uface[v], ranged)
    kind, am, dm = combat_kind_nb(utype[u], utype[v], ang, ranged, tree[usq[v]], ip)
    if kind == ROLL:
        meta[M_PU] = u
        meta[M_PV] = v
        meta[M_PAM] = am
        meta[M_PDM] = dm
        return
    strike_nb(P, S, u, v, np.int64(-1), rng)


# ------------------------------------------------------------------ the hooks

@njit(cache=True, _nrt=False, inline="always")
def _copy1_nb(a, b):
    for i in range(a.shape[0]):
        b[i] = a[i]


@njit(cache=True, _nrt=False, inline="always")
def _copy2_nb(a, b):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@njit(cache=True, _nrt=False, inline="always")
def _copy_maps_nb(a, b):
    """The greedy maps (rows 0..2), not the store below them (a state's own: policies.maps_store_nb)."""
    for i in range(3):
        for j in range(a.shape[1]):
            b[i, j] = a[i, j]


@njit(**INNER)
def copy_nb(P, src, dst):
    """The position, meta and the greedy caches (a loop each: the arrays differ in type)."""
    _copy1_nb(src[S_OCC], dst[S_OCC])
    _copy1_nb(src[S_USQ], dst[S_USQ])
    _copy1_nb(src[S_FACE], dst[S_FACE])
    _copy1_nb(src[S_ACTED], dst[S_ACTED])
    _copy1_nb(src[S_ALIVE], dst[S_ALIVE])
    _copy1_nb(src[S_META], dst[S_META])
    _copy1_nb(src[S_TYPE], dst[S_TYPE])
    _copy1_nb(src[S_SIDE], dst[S_SIDE])
    _copy1_nb(src[S_GF], dst[S_GF])
    _copy1_nb(src[S_PLANSC], dst[S_PLANSC])
    _copy_maps_nb(src[S_GMAP], dst[S_GMAP])
    _copy2_nb(src[S_PLAN], dst[S_PLAN])


@njit(**INNER)
def determinise_nb(P, S, player, rng):
    pass     # nothing is hidden


@njit(**INNER)
def status_nb(P, S):
    return S[S_META][M_RESULT]


@njit(**INNER)
def to_move_nb(P, S):
    return S[S_META][M_PLAYER]


@njit(**INNER)
def turn_nb(P, S):
    return S[S_META][M_TURN]


@njit(**INNER)
def decisions_nb(P, S, codes, scores):
    """The candidates of candidates.gen_decisions_nb; after a melee kill STAY (0) and ADVANCE (the greedy
    position score's gain of the emptied square)."""
    ip = P[0]
    occ, usq, uface, acted, alive, meta, utype, uside = S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7]
    side = meta[M_PLAYER]
    val = P[16][meta[M_EVAL]]      # the searcher's row (state.P_EVAL)
    gmap, gf = S[S_GMAP], S[S_GF]
    key, line = gf[0], gf[1]
    ensure_maps_nb(P, S, side)
    u = meta[M_ADVU]
    if u >= 0:
        codes[0] = STAY
        scores[0] = 0.0
        codes[1] = ADVANCE
        scores[1] = (pos_score_nb(u, meta[M_ADVSQ], uface[u], side, P, occ, usq, utype, uside, gmap, gf, val)
                     - pos_score_nb(u, usq[u], uface[u], side, P, occ, usq, utype, uside, gmap, gf, val))
        n = 2
    else:
        n = gen_decisions_nb(side, meta[M_TURN] < 2, P, occ, usq, uface, utype, uside, acted, alive, usq.shape[0],
                             ip[IP_N0], gmap, gf, S[S_PSC], S[S_PT], S[S_PF], S[S_PPOS], codes, scores, val,
                             S[S_GOUT][4:])
    if gf[0] != key:
        # the greedy caches as they were, their maps stale: the greedy commander keys its formation line to the
        # first of its plies under a new key, and the search may list a node's decisions in the middle of a
        # descent (make_search's decisive_nb), where the rollout further down must key it as if unlisted.
        # The maps are a function of the enemies' squares, so stale maps are remade equal when read.
        gf[0] = key
        gf[1] = line
        gf[3] = 1.0
    return n


@njit(**INNER)
def decisive_nb(P, S):
    """Can a decision here win at once (score DECISIVE)? Only an attack on the enemy's last unit can."""
    return S[S_ALIVE][1 - S[S_META][M_PLAYER]] == 1


@njit(**INNER)
def apply_nb(P, S, code, rng):
    ip, urange = P[0], P[6]
    occ, usq, uface, meta = S[S_OCC], S[S_USQ], S[S_FACE], S[S_META]
    if code == END:
        end_turn_nb(P, S)
        return
    if code == STAY or code == ADVANCE:
        u = meta[M_ADVU]
        if code == ADVANCE:
            move_nb(u, meta[M_ADVSQ], uface[u], occ, usq, uface)
        finish_activation_nb(P, S)
        return
    u, t, f, j = decode_nb(np.int64(code), meta[M_PLAYER], ip[IP_N0], ip[IP_NSQ], arc_max_nb(urange))
    v = -1
    if j > 0:
        v = occ[arc_square_nb(t % ip[IP_W], t // ip[IP_W], f, j, ip[IP_W], ip[IP_H])]
    activate_nb(P, S, u, t, f, v, rng)


@njit(**INNER)
def chance_nb(P, S, outcomes, probs):
    """A pending opposed roll: attacker wins (1) / defender wins (0), exact (ties re-rolled)."""
    meta = S[S_META]
    if meta[M_PU] < 0 or meta[M_RESULT] != ONGOING:
        return 0
    p = warfare_win_prob_nb(meta[M_PAM], meta[M_PDM])
    m = 0
    if p > 0.0:
        outcomes[m] = 1
        probs[m] = p
        m += 1
    if p < 1.0:
        outcomes[m] = 0
        probs[m] = 1.0 - p
        m += 1
    return m


@njit(**INNER)
def settle_nb(P, S, outcome, rng):
    """Settle the pending roll with ``outcome`` (1: the attacker wins)."""
    meta = S[S_META]
    u = meta[M_PU]
    v = meta[M_PV]
    meta[M_PU] = -1
    strike_nb(P, S, u, v, np.int64(outcome), rng)


# inline: evaluate_nb is value_nb(lead_nb(threat_nb)) -- inlined, no call copies P and S (~40 arrays) as
# arguments, so the leaf evaluation costs what it did before it was split up
@njit(inline="always", **INNER)
def threat_nb(P, S):
    """The evaluation's threat term in side 0's view, unweighted: the side to move's attack potential (its
    activations left this turn; none in phase 2) minus half the other side's (a full turn), signed for side 0.
    Attack scores in the rules' unit values (candidates.attack_potential_nb), whatever the weight row."""
    ip = P[0]
    occ, usq, uface, acted, meta, utype, uside = S[0], S[1], S[2], S[3], S[5], S[6], S[7]
    nu = usq.shape[0]
    mover = meta[M_PLAYER]
    left = meta[M_LIMIT] - meta[M_NACT]
    tm = 0.0
    if meta[M_TURN] >= 2 and left > 0:
        tm = attack_potential_nb(mover, left, np.int64(1), P, occ, usq, uface, utype, uside, acted, nu, S[S_GMAP],
                                 S[S_GF], S[S_PSC], S[S_PT], S[S_PF], S[S_PPOS], S[S_TOP],
                                 S[S_GOUT][4:])
    to = attack_potential_nb(1 - mover, ip[IP_ACT], np.int64(0), P, occ, usq, uface, utype, uside, acted, nu,
                             S[S_GMAP], S[S_GF], S[S_PSC], S[S_PT], S[S_PF], S[S_PPOS], S[S_TOP], S[S_GOUT][4:])
    t = tm - 0.5 * to
    return t if mover == 0 else -t


@njit(inline="always", **INNER)
def lead_nb(P, S, val):
    """Side 0's lead as the weight row ``val`` judges it (module docstring): material plus the row's threat
    weight times the threat term (skipped at weight 0: the greedy scans cost). Linear in ``val``:
    features.features_nb gives the vector it is the dot product of. (w * -t is -(w * t) exactly: the
    default row's lead is the bits it was before the table.)"""
    usq, utype, uside = S[S_USQ], S[S_TYPE], S[S_SIDE]
    lead = material_lead_nb(val, usq, utype, uside, usq.shape[0])
    w = val[EV_THREAT]
    if w != 0.0:
        lead += w * threat_nb(P, S)
    return lead


@njit(inline="always", **INNER)
def value_nb(P, S, val):
    """Side 0's expected score with the weight row ``val``: the lead squashed, pulled to 1/2 where the cap
    draws (module docstring)."""
    ip, fp = P[0], P[11]
    alive, meta = S[S_ALIVE], S[S_META]
    lead = lead_nb(P, S, val)
    v = squash_nb(lead, fp[FP_MCTS + MC_SCALE])
    kt = fp[FP_MCTS + MC_N + MK_CAP_TURNS]
    if ip[IP_CAP] == 0 and kt > 0.0:
        # the cap draws: a lead wins only by removing every unit of the trailing side in the turns left
        n = alive[1] if lead > 0.0 else alive[0]
        conv = (ip[IP_MAXT] - meta[M_TURN]) / (kt * max(n, 1))
        if conv < 1.0:
            v = 0.5 + (v - 0.5) * max(conv, 0.0)
    return v


@njit(**INNER)
def evaluate_nb(P, S):
    """Side 0's expected score (module docstring), by the searcher's row of the weight table."""
    return value_nb(P, S, P[16][S[S_META][M_EVAL]])


@njit(**INNER)
def rollout_step_nb(P, S, greedy, rng):
    """One decision of the rollout policy (greedy, or random as play_game_nb's random policy)."""
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    occ, usq, uface, acted, alive, meta, utype, uside = S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7]
    gmap, gf, plan, plansc, gout = S[S_GMAP], S[S_GF], S[S_PLAN], S[S_PLANSC], S[S_GOUT]
    nu = usq.shape[0]
    player = meta[M_PLAYER]
    turn = meta[M_TURN]
    val = ev[meta[M_EVAL]]      # both sides' greedy plies judge with the searcher's row: its model of the game
    u = meta[M_ADVU]
    if u >= 0:
        tsq = meta[M_ADVSQ]
        if greedy:
            ensure_maps_nb(P, S, player)
            go = greedy_advance_nb(u, tsq, player, P, occ, usq, uface, utype, uside, gmap, gf, val)
        else:
            go = rng_below_nb(rng, np.int64(2)) == 1
        if go:
            move_nb(u, tsq, uface[u], occ, usq, uface)
        finish_activation_nb(P, S)
        return
    phase2 = turn < 2
    if greedy:
        greedy_choose_nb(player, phase2, turn, P, occ, usq, uface, utype, uside, acted, alive, nu, np.int64(0),
                         gmap, gf, plan, plansc, gout, rng, val)
        u = gout[0]
        if u < 0:
            end_turn_nb(P, S)
            return
        t = gout[1]
        f = gout[2]
        v = gout[3]
    else:
        u, t, f = random_move_nb(player, phase2, P, occ, usq, uside, utype, acted, nu, S[S_BUF], S[S_TBUF], rng)
        if u < 0:
            end_turn_nb(P, S)
            return
        v = -1
    frm = usq[u]
    meta[M_ACTU] = u
    meta[M_MATE] = occ[t] if t != frm else -1
    move_nb(u, t, f, occ, usq, uface)
    acted[u] = 1
    if not greedy and not phase2:
        v = random_target_nb(u, P, usq, uface, uside, utype, nu, S[S_TBUF], rng)
    if v < 0 or phase2:
        finish_activation_nb(P, S)
    else:
        strike_nb(P, S, u, v, np.int64(-1), rng)


@njit(**INNER)
def rollout_nb(P, S, policy, horizon, rng):
    """Roll a pending opposed roll with the game's dice, then play ``policy`` until ``horizon`` turns ended."""
    meta = S[S_META]
    if meta[M_PU] >= 0 and meta[M_RESULT] == ONGOING:
        u = meta[M_PU]
        meta[M_PU] = -1
        strike_nb(P, S, u, meta[M_PV], np.int64(-1), rng)
    while meta[M_RESULT] == ONGOING and meta[M_TURN] < horizon:
        rollout_step_nb(P, S, policy == 1, rng)


@njit(**INNER)
def closed_loop_nb(P):
    return True


@njit(**INNER)
def class_nb(P, S, code):
    """Decision ``code``'s action class for a ``ban:CLASS:mcts:N`` searcher (policies.ACTION_CLASSES)."""
    return decision_class_nb(P, S[S_OCC], S[S_USQ], S[S_TYPE], S[S_META][M_PLAYER], code)


@njit(**INNER)
def same_nb(P, A, B):
    """The same position for the search (mcts_reuse): board, units and the turn's state in ``meta`` -- not the
    step API's record flag, nor what only an activation in progress reads (a settled roll's modifiers M_PAM,
    M_PDM; the unit that moved, its swap partner and the square an advance goes to: M_ACTU, M_MATE, M_ADVSQ,
    set afresh by the next activation, compared while an advance is pending); the greedy caches are functions
    of the rest."""
    if not (same_array_nb(A[S_OCC], B[S_OCC]) and same_array_nb(A[S_USQ], B[S_USQ])
            and same_array_nb(A[S_FACE], B[S_FACE]) and same_array_nb(A[S_ACTED], B[S_ACTED])
            and same_array_nb(A[S_ALIVE], B[S_ALIVE]) and same_array_nb(A[S_TYPE], B[S_TYPE])
            and same_array_nb(A[S_SIDE], B[S_SIDE])):
        return False
    a, b = A[S_META], B[S_META]
    for k in range(M_N):
        if k == M_SNAP or k == M_PAM or k == M_PDM:
            continue
        if (k == M_ACTU or k == M_MATE or k == M_ADVSQ) and a[M_ADVU] < 0:
            continue
        if a[k] != b[k]:
            return False
    return True


search_nb = make_search(copy_nb, determinise_nb, status_nb, to_move_nb, turn_nb, decisions_nb, apply_nb, chance_nb,
                        settle_nb, evaluate_nb, rollout_nb, closed_loop_nb, class_nb, same_nb=same_nb,
                        decisive_nb=decisive_nb)


@njit(cache=True)
def new_workspace_nb(P, cap, maxa):
    """Everything one searcher needs, allocated once: (tree, root state, two scratch states)."""
    ip = P[0]
    nu = ip[IP_N0] + ip[IP_N1]
    nsq = ip[IP_NSQ]
    nbuf = P[7].shape[2] + 8 + P[4].shape[1]
    act = ip[IP_ACT] + 8
    # the scratch states keep a store of greedy maps (policies.maps_store_nb): the root's maps are made once
    return (new_tree_nb(cap, maxa, 2), new_state_nb(nu, nsq, nbuf, act), new_state_nb(nu, nsq, nbuf, act, MAPS_STORE),
            new_state_nb(nu, nsq, nbuf, act, MAPS_STORE))


@njit(**INNER)
def choose_nb(P, Wk, budget, player, turn, nact, limit, advu, advsq, actu, mate, occ, usq, uface, utype, uside,
              acted, alive, ban, rng):
    """The decision code ``budget`` iterations prefer in the game's position: an activation or END, or
    (``advu`` >= 0: unit advu has just killed on square advsq) STAY or ADVANCE. ``ban``: the mover's
    banned action classes (policies.ACTION_CLASSES), left out of its own decisions at the root and in the
    tree (class_nb)."""
    tree, R, S, S2 = Wk
    for q in range(occ.shape[0]):
        R[S_OCC][q] = occ[q]
    for u in range(usq.shape[0]):
        R[S_USQ][u] = usq[u]
        R[S_FACE][u] = uface[u]
        R[S_ACTED][u] = acted[u]
        R[S_TYPE][u] = utype[u]
        R[S_SIDE][u] = uside[u]
    R[S_ALIVE][0] = alive[0]
    R[S_ALIVE][1] = alive[1]
    meta = R[S_META]
    meta[M_TURN] = turn
    meta[M_PLAYER] = player
    meta[M_NACT] = nact
    meta[M_LIMIT] = limit
    meta[M_PASSES] = 0
    meta[M_RESULT] = ONGOING
    meta[M_ADVU] = advu
    meta[M_ADVSQ] = advsq
    meta[M_PU] = -1
    meta[M_PV] = -1
    meta[M_ACTU] = actu
    meta[M_MATE] = mate
    meta[M_EVAL] = player     # the searcher: its row of the weight table everywhere in the tree and rollouts
    R[S_GF][0] = -1.0       # the caches start empty, then hold the root's maps for every copy
    R[S_GF][2] = -1.0
    ensure_maps_nb(P, R, player)
    for k in range(S[S_REC].shape[0]):      # the rule functions' counters: scratch, kept small
        S[S_REC][k] = 0
        S2[S_REC][k] = 0
    return search_nb(P, R, S, S2, P[15][player], budget, rng, tree, ban)   # the mover's row of the knob table


# ------------------------------------------------------------------ entry points for tests and measurements
# The hooks and choose_nb have no CPython wrapper (only kernels call them; a wrapper would unbox every array
# of the state tuples in each one); these few, called from Python, compile on their first call only.

@njit(cache=True, _nrt=False)
def start_turn_nb(P, S):
    """begin_turn_nb, from Python."""
    begin_turn_nb(P, S)


@njit(cache=True, _nrt=False)
def step_nb(P, S, code, outcome, rng):
    """Play decision ``code``; a roll it leaves pending is settled with ``outcome`` (1: the attacker wins,
    0: the defender), or rolled with the game's dice (-1), or left pending (-2). True when it rolled."""
    apply_nb(P, S, np.int32(code), rng)
    if S[S_META][M_PU] < 0 or outcome == -2:
        return False
    if outcome >= 0:
        settle_nb(P, S, np.int64(outcome), rng)
    else:
        rollout_nb(P, S, np.int64(0), np.int64(-1), rng)
    return True


@njit(cache=True, _nrt=False)
def offer_nb(P, S, codes, scores):
    """decisions_nb, from Python."""
    return decisions_nb(P, S, codes, scores)


@njit(cache=True, _nrt=False)
def playout_nb(P, S, policy, horizon, rng):
    """rollout_nb, from Python (policy 0 random, 1 greedy)."""
    rollout_nb(P, S, np.int64(policy), np.int64(horizon), rng)


@njit(cache=True, _nrt=False)
def decide_nb(P, Wk, budget, S, rng, ban=0):
    """choose_nb in search state ``S`` (left untouched), from Python (``ban``: the mover's ban mask)."""
    meta = S[S_META]
    return choose_nb(P, Wk, np.int64(budget), meta[M_PLAYER], meta[M_TURN], meta[M_NACT], meta[M_LIMIT],
                     meta[M_ADVU], meta[M_ADVSQ], meta[M_ACTU], meta[M_MATE], S[S_OCC], S[S_USQ], S[S_FACE],
                     S[S_TYPE], S[S_SIDE], S[S_ACTED], S[S_ALIVE], np.int64(ban), rng)


def play_turn(params, S, budget, rng):
    """The side to move in search state ``S`` plays the rest of its turn by the search (a fresh search of
    ``budget`` iterations per decision; its rolls with the game's dice from ``rng``). Returns the codes
    played; ``S`` is left after the turn. For tests and measurements (whole-turn planning)."""
    tree_cap = tree_capacity(budget, SEARCH_WIDTH)
    Wk = new_workspace_nb(params, np.int64(tree_cap), np.int64(max_decisions(params)))
    meta = S[S_META]
    turn = meta[M_TURN]
    played = []
    while meta[M_RESULT] == ONGOING and meta[M_TURN] == turn:
        code = int(decide_nb(params, Wk, budget, S, rng))
        played.append(code)
        step_nb(params, S, code, -1, rng)
    return played
