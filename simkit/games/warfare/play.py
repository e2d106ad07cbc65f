"""Warfare! games: one game (play_game_nb), the batch kernel, run_chunk.

A "ply" of the record is a turn (one player's turn, ``length_unit = "turns"``).
Turn 0 is the first player's phase-2 turn, turn 1 the other player's (WF-2);
phase 3 starts at turn 2.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_seed_nb
from simkit.engine.threads import run_blocks
from simkit.policies import POL_BAN, POL_EPS, POL_ID, POLICY_VECTOR, max_budget

from simkit.engine.search import tree_capacity

from .search import SEARCH_WIDTH, material_lead_nb, max_decisions, new_workspace_nb

from .moves import attack_nb, can_act_nb, cap_winner_nb, count_activations_nb, move_nb, surround_after_nb, \
    turn_limit_nb
from .policies import BANNED, BANNED_EPS, RANDOM, random_target_nb
from .state import (ARC, DEF_DIES, END_ANNIHILATION, END_MOVE_LIMIT, END_STALEMATE, IP_ACT, IP_ACT2, IP_MAXT,
                    INNER, IP_H, IP_N0, IP_N1, IP_NSQ, IP_W, NFIELDS, R_LOSSES, R_SNAP, RECORD_FIELDS)
from .step import (begin_game_nb, count_activation_nb, count_advance_nb, count_roll_nb, finish_record_nb, material_nb,
                   mcts_advance_nb, policy_activation_nb, policy_advance_nb)

LOG_COLS = 13
# log row: turn, player, unit, from, to, facing, target, target_sq, outcome, angle, advanced, surround_kills,
#          rolled  (unit -1: the player passed; outcome -1: no attack)


# batch_nb is its only caller (traces and trajectories run a batch of one game), so no CPython wrapper; not
# inlined there: batch_nb allocates, so it runs with numba's reference counting, and inlined the game's every
# call would pay increfs and decrefs on its arrays (random games measured 4.7x slower)
@njit(**INNER)
def play_game_nb(P, seed, game, first, policies, snapshot_turn, rec, agg, log, boards, tval, tloss, tlegal,
                 occ, usq, uface, utype, uside, acted, alive, buf, tbuf, gmap, gf, plan, plansc, gout, rng, Wk):
    """Play one game; fill ``rec`` (one record row, int32) and add deaths per square into ``agg``.

    ``policies`` is the policy vector of simkit.policies; ``Wk`` the search's workspace
    (search.new_workspace_nb). A side with epsilon > 0 draws once per decision -- each activation
    (ending the turn included) and each advance decision after a melee kill, the decisions the
    search makes -- whether to play it as the random policy would; with epsilon 0 nothing is drawn.

    ``log`` (rows > 0) receives one row per activation; ``boards`` (rows > 0) the
    (square, facing) of every unit at the start of each turn — for traces.

    Trajectory buffers (``trajectory``; empty in the batch kernel, which then does no extra
    work): ``tval[t]`` side 0's material lead (material_lead_nb with row 0 of the weight table, state.P_EVAL:
    the material of the search's evaluation)
    and ``tloss[t]`` the units lost so far (both sides) at the start of turn t, and after the last
    turn at t = turns; ``tlegal[t]`` the options of turn t's first decision
    (count_activations_nb; 1 for a turn passed). None of it draws a random number.
    """
    ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev = P
    rng_seed_nb(rng, seed, game)
    nu = ip[IP_N0] + ip[IP_N1]
    begin_game_nb(P, first, occ, usq, uface, utype, uside, alive, buf, rng, rec)
    # np.int64, not 0: numba types a variable first by its literal value and would compile every callee
    # it reaches (turn_limit_nb, greedy_choose_nb, mcts_choose_nb...) once more for Literal[int](0)
    turn = np.int64(0)
    player = first
    passes = 0
    winner = -1
    end = -1
    nlog = 0
    snapped = False
    gf[0] = -1.0
    gf[2] = -1.0
    maxt = ip[IP_MAXT]
    while True:
        if turn == snapshot_turn:
            material_nb(usq, utype, uside, nu, rec, np.int64(R_SNAP))
            snapped = True
        if turn < boards.shape[0]:
            for u in range(nu):
                boards[turn, u, 0] = usq[u]
                boards[turn, u, 1] = uface[u]
        if turn < tval.shape[0]:
            tval[turn] = material_lead_nb(ev[0], usq, utype, uside, nu)
            tloss[turn] = 0
            for k in range(8):
                tloss[turn] += rec[R_LOSSES + k]
        if turn >= maxt:
            end = END_MOVE_LIMIT
            winner = cap_winner_nb(ip, fp, usq, utype, uside, nu)
            break
        phase2 = turn < 2
        if not can_act_nb(player, phase2, ip, umove, urange, dest, destn, occ, usq, uface, uside, utype, nu):
            if turn < tlegal.shape[0]:
                tlegal[turn] = 1        # passing is the only option
            if nlog < log.shape[0]:
                log[nlog, :] = -1
                log[nlog, 0] = turn
                log[nlog, 1] = player
                nlog += 1
            passes += 1
            if passes >= 2:
                end = END_STALEMATE
                turn += 1
                break
            turn += 1
            player = 1 - player
            continue
        passes = 0
        for u in range(nu):
            acted[u] = 0
        if turn < tlegal.shape[0]:
            tlegal[turn] = count_activations_nb(player, phase2, ip, umove, urange, dest, destn, reach, occ, usq,
                                                uface, uside, utype, nu, buf)
        limit = turn_limit_nb(ip, turn, nu)
        nact = np.int64(0)
        while nact < limit:
            act, u, t, f, tgt = policy_activation_nb(P, Wk, policies, player, turn, nact, limit, occ, usq, uface,
                                                     utype, uside, acted, alive, buf, tbuf, gmap, gf, plan, plansc,
                                                     gout, rng)
            if u < 0:
                break
            frm = usq[u]
            mate = occ[t] if t != frm else -1    # a swap partner ends on frm
            move_nb(u, t, f, occ, usq, uface)
            acted[u] = 1
            nact += 1
            out = -1
            ang = -1
            adv = 0
            rolled = False
            tsq = -1
            if not phase2 and act == RANDOM:
                tgt = random_target_nb(u, P, usq, uface, uside, utype, nu, tbuf, rng)
            count_activation_nb(rec, player, utype[u], not phase2 and tgt >= 0)
            if not phase2:
                if tgt >= 0:
                    tsq = usq[tgt]
                    at = utype[u]
                    out, ang, rolled = attack_nb(u, tgt, ip, tree, urange, occ, usq, uface, uside, utype, alive,
                                                 rec, agg, rng, np.int64(-1))
                    if rolled:
                        count_roll_nb(rec, player, out)
                    # WF-5, WF-C: only the attacker advances after a melee kill, never an Archer
                    if out == DEF_DIES and at != ARC and alive[1 - player] > 0:
                        adv = policy_advance_nb(P, policies, player, turn, u, tsq, occ, usq, uface, utype, uside,
                                                alive, gmap, gf, rng)
                        if adv < 0:
                            adv = mcts_advance_nb(P, Wk, policies, player, turn, nact - 1, limit, u, tsq, mate, occ,
                                                  usq, uface, utype, uside, acted, alive, rng)
                        if adv == 1:
                            move_nb(u, tsq, uface[u], occ, usq, uface)
                            count_advance_nb(rec, player)
            sk = surround_after_nb(player, u, mate, ip, occ, usq, uside, utype, alive, rec, agg)
            if nlog < log.shape[0]:
                log[nlog, 0] = turn
                log[nlog, 1] = player
                log[nlog, 2] = u
                log[nlog, 3] = frm
                log[nlog, 4] = t
                log[nlog, 5] = f
                log[nlog, 6] = tgt
                log[nlog, 7] = tsq
                log[nlog, 8] = out
                log[nlog, 9] = ang
                log[nlog, 10] = adv
                log[nlog, 11] = sk
                log[nlog, 12] = 1 if rolled else 0
                nlog += 1
            if alive[0] == 0 or alive[1] == 0:
                end = END_ANNIHILATION
                winner = player if alive[1 - player] == 0 else 1 - player
                break
        turn += 1
        if end >= 0:
            break
        player = 1 - player
    if turn < boards.shape[0]:
        for u in range(nu):
            boards[turn, u, 0] = usq[u]
            boards[turn, u, 1] = uface[u]
    if turn < tval.shape[0]:
        tval[turn] = material_lead_nb(ev[0], usq, utype, uside, nu)
        tloss[turn] = 0
        for k in range(8):
            tloss[turn] += rec[R_LOSSES + k]
    finish_record_nb(usq, utype, uside, nu, rec, snapped, winner, turn, end)
    return nlog


def scratch(params):
    """Per-game scratch arrays (allocated once per block in the batch kernel)."""
    ip = params[0]
    nu = int(ip[IP_N0] + ip[IP_N1])
    nsq = int(ip[IP_NSQ])
    nbuf = int(params[7].shape[2] + 8 + params[4].shape[1])
    return nu, nsq, nbuf


@njit(cache=True, nogil=True)
def batch_nb(P, seed, start, firsts, policies, snapshot_turn, records, agg, cap, maxa, b0, b1,
             log, boards, tval, tloss, tlegal):
    """Play blocks b0..b1-1 of len(firsts) games; block b adds its deaths into agg[b]
    (race-free; engine/threads.py runs blocks on threads). Returns the last game's log rows.

    ``cap``: search tree nodes per block (engine/search.py tree_capacity for the largest budget);
    ``maxa``: most decisions a position offers the search (search.max_decisions).
    ``log``, ``boards``, ``tval``, ``tloss``, ``tlegal``: play_game_nb's trace and trajectory buffers,
    empty (no rows) in a run; a trace plays one game through here.
    """
    ip = P[0]
    n = firsts.shape[0]
    nblocks = agg.shape[0]
    nu = ip[IP_N0] + ip[IP_N1]
    nsq = ip[IP_NSQ]
    nbuf = P[7].shape[2] + 8 + P[4].shape[1]
    nlog = 0
    for b in range(b0, b1):
        occ = np.zeros(nsq, dtype=np.int64)
        usq = np.zeros(nu, dtype=np.int64)
        uface = np.zeros(nu, dtype=np.int64)
        utype = np.zeros(nu, dtype=np.int64)
        uside = np.zeros(nu, dtype=np.int64)
        acted = np.zeros(nu, dtype=np.int64)
        alive = np.zeros(2, dtype=np.int64)
        buf = np.zeros(nbuf, dtype=np.int64)
        tbuf = np.zeros(nu + 1, dtype=np.int64)
        gmap = np.zeros((3, nsq), dtype=np.int64)
        gf = np.zeros(4, dtype=np.float64)
        plan = np.zeros((nu, 3), dtype=np.int64)
        plansc = np.zeros(nu, dtype=np.float64)
        gout = np.zeros(4 + 2 * (ip[IP_W] + ip[IP_H]), dtype=np.int64)    # greedy's choice, then its scratch
        rng = np.zeros(1, dtype=np.uint64)
        Wk = new_workspace_nb(P, cap, maxa)
        lo = b * n // nblocks
        hi = (b + 1) * n // nblocks
        for i in range(lo, hi):
            nlog = play_game_nb(P, seed, start + i, np.int64(firsts[i]), policies, snapshot_turn, records[i], agg[b],
                         log, boards, tval, tloss, tlegal, occ, usq, uface, utype, uside, acted, alive, buf, tbuf,
                         gmap, gf, plan, plansc, gout, rng, Wk)
    return nlog


def _typed(params):
    return tuple(np.ascontiguousarray(p) for p in params)


def _policy_vector(policies):
    """The kernels' view of a policy vector (a bare pair of ids means budget 0 and epsilon 0): a side with a
    ban (``ban:CLASS:INNER``) has the id BANNED + INNER's id and its degrader at BANNED_EPS + side
    (policies.BANNED), so the unbanned plies never read the ban: the random activation's code stays as it
    was (with the ban read in the activation loop, bench --against measured the random games at 0.92-0.96x;
    on a loaded machine, where the base against itself varies by a few percent)."""
    pv = np.zeros(POLICY_VECTOR + 2, dtype=np.int64)
    p = np.asarray(policies, dtype=np.int64)[:POLICY_VECTOR]
    pv[:len(p)] = p
    for s in (0, 1):
        if pv[POL_BAN + s] != 0:
            pv[POL_ID + s] += BANNED
            pv[BANNED_EPS + s] = pv[POL_EPS + s]
            pv[POL_EPS + s] = 0
    return pv


def _search_sizes(P, pv):
    """(tree capacity, most decisions) for the largest budget of the policy vector (tiny without search)."""
    budget = max_budget(pv)
    return (np.int64(tree_capacity(budget, SEARCH_WIDTH) if budget else 2),
            np.int64(max_decisions(P) if budget else 2))


def run_chunk(params, seed, start, firsts, policies, snapshot_ply):
    P = _typed(params)
    pv = _policy_vector(policies)
    n = len(firsts)
    nsq = int(P[0][IP_NSQ])
    records = np.zeros((n, NFIELDS), dtype=np.int32)
    agg = np.zeros((max(1, min(n, 64)), nsq), dtype=np.int64)
    # no game (n = 0) still calls the kernel: LocalBackend loads (or compiles) it so before timing any game
    args = (P, np.int64(seed), np.int64(start), np.asarray(firsts, dtype=np.int8), pv,
            np.int64(snapshot_ply), records, agg) + _search_sizes(P, pv)
    nu = int(P[0][IP_N0] + P[0][IP_N1])
    none = _buffers(nu, 0, 0, 0)
    run_blocks(lambda b0, b1: batch_nb(*args, np.int64(b0), np.int64(b1), *none), agg.shape[0])
    return records, agg.sum(axis=0)


def _buffers(nu, log_rows, board_turns, traj_turns):
    """play_game_nb's trace buffers (log, boards) and trajectory buffers (tval, tloss, tlegal); 0 rows: none."""
    return (np.zeros((log_rows, LOG_COLS), dtype=np.int64), np.full((board_turns, nu, 2), -1, dtype=np.int64),
            np.zeros(traj_turns, dtype=np.float64), np.zeros(traj_turns, dtype=np.int64),
            np.zeros(traj_turns, dtype=np.int64))


def _play_recorded(params, seed, game, first, policies, snapshot_ply, trace, traj):
    """One game through the batch kernel with the trace (log, boards) or the trajectory buffers."""
    P = _typed(params)
    ip = P[0]
    nu, nsq, _ = scratch(P)
    maxt = int(ip[IP_MAXT])
    # a unit acts at most once a turn (WF-C1's extra activations included)
    rows = 2 * nu + (maxt + 2) * (min(int(ip[IP_ACT] + ip[IP_ACT2]), nu) + 1) + 16
    bufs = _buffers(nu, rows if trace else 0, maxt + 2 if trace else 0, maxt + 2 if traj else 0)
    records = np.zeros((1, NFIELDS), dtype=np.int32)
    agg = np.zeros((1, nsq), dtype=np.int64)
    pv = _policy_vector(policies)
    # game ``game`` of the seed's stream is game 0 of a batch that starts there
    nlog = batch_nb(P, np.int64(seed), np.int64(game), np.array([first], dtype=np.int8), pv,
                    np.int64(snapshot_ply), records, agg, *_search_sizes(P, pv), np.int64(0), np.int64(1), *bufs)
    log, boards, tval, tloss, tlegal = bufs
    return records[0], agg[0], log[:nlog], boards, tval, tloss, tlegal


def play_one(params, seed, game, first, policies, snapshot_ply=-1):
    """One game exactly as the batch kernel plays it: (record row, activation log, boards per turn)."""
    rec, agg, log, boards, _, _, _ = _play_recorded(params, seed, game, first, policies, snapshot_ply, True, False)
    turns = int(rec[2])
    return rec, log, boards[:turns + 1], agg


def trajectory(params, seed, game, first, policies, snapshot_ply=None):
    """(values, legal, interactions, record) of one game, played by the batch kernel's own
    ``play_game_nb`` (so the record is run_chunk's for the same seed, game, first, policies).

    Per turn t of the game's L turns (its length unit): values[t] = side 0's material lead
    (unit values; the lead the MCTS cut-off scores, in mcts_scale's units) at the start of
    turn t, values[L] after the last turn; legal[t] = the options of turn t's first decision
    (moves.count_activations_nb: ending the turn plus every (unit, square, facing, target or
    none) activation; 1 for a passed turn); interactions[t] = units killed in turn t (both
    sides, combat and surround)."""
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY
    snap = DEFAULT_SNAPSHOT_PLY if snapshot_ply is None else snapshot_ply
    rec, _, _, _, tval, tloss, tlegal = _play_recorded(params, seed, game, first, policies, snap, False, True)
    n = int(rec[2])
    return tval[:n + 1].copy(), tlegal[:n].copy(), np.diff(tloss[:n + 1]), rec


__all__ = ["RECORD_FIELDS", "run_chunk", "play_one", "trajectory", "batch_nb", "play_game_nb"]
