"""Skorm game loop, batch kernel, perft and a small step API for tests."""
from __future__ import annotations

import numpy as np
from numba import njit

from simkit.engine.rng import rng_seed_nb
from simkit.engine.threads import run_blocks
from simkit.games.skorm.layout import (   # noqa: F401 (the record layout, re-exported)
    F_BLOCK, F_FINAL, F_KCAP, F_KILL, F_KSHOT, F_LOSS, F_PASS, F_SNAP, NFIELDS, RECORD_COLUMNS, RECORD_FIELDS,
)
from simkit.games.skorm.evaluate import trajectory_lead_nb
from simkit.games.skorm.moves import apply_action_nb, end_ply_nb, gen_actions_nb, max_actions_nb
from simkit.games.skorm.policies import POL_MCTS, POL_RANDOM, act_nb, greedy_ply_nb, played_as_nb, random_ply_nb
from simkit.games.skorm.search import new_search_nb, search_capacity
from simkit.games.skorm.step import finish_record_nb, mcts_choice_nb, snapshot_nb, start_game_nb
from simkit.games.skorm.rules import (
    I_MAX_PLIES, I_N, I_P, P_ADJB, P_APPR, P_DEST, P_DIST, P_DISTG, P_EVAL, P_F, P_FRAY, P_I, P_NB, P_RAY, P_SHOTB,
)
from simkit.games.skorm.state import (
    END_REASONS, LOG_W_EXTRA, NSC, NSTAT, PASS, SC_DONE, SC_PLY, SC_REASON, SC_TOMOVE, SC_WINNER,
    ST_BLOCK, ST_KCAP, ST_KSHOT, copy_position_nb, index_slots_nb, log_row_nb, setup_game_nb,
)
from simkit.policies import EPS_SCALE, POL_BAN, POL_BUDGET, POL_EPS, POL_ID, POLICY_VECTOR, max_budget

SIDES = (0, 1)
TERMINAL_LEAD = 1000.0   # trajectory: side 0's lead after a won game, far beyond any position's lead


def max_actions(params) -> int:
    return int(max_actions_nb(params))


@njit(cache=True)
def play_ply_nb(params, rng, policies, cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, ws):
    """One ply of the side to move under its entry of the policy vector
    (simkit.policies); returns the action (PASS = -1). ``ws``: the search's arrays (new_search_nb).

    ``eps:P:INNER``: with probability P the ply is the random policy's (uniform
    action, its landing facing, no rotations), else INNER's. The draw is made only
    when P > 0 and there is an action, so records without eps keep their stream.

    The step API's entry (Game.play); play_game_nb makes the same dispatch itself, so
    the batch kernel has one level less to compile. ``random`` never lists its actions
    (random_ply_nb); greedy lists them for its evaluation (greedy_ply_nb).
    """
    s = sc[SC_TOMOVE]
    pol = policies[POL_ID + s]
    eps = policies[POL_EPS + s]
    if policies[POL_BAN + s] != 0:
        return restricted_ply_nb(params, rng, policies, cell, face, plist, slot, sc, acts, blocks, counts, stats, agg,
                                 ws)
    ip, F, nb, ray, dest, appr, adjb, shotb, fray, dist, distg = (
        params[P_I], params[P_F], params[P_NB], params[P_RAY], params[P_DEST], params[P_APPR], params[P_ADJB],
        params[P_SHOTB], params[P_FRAY], params[P_DIST], params[P_DISTG])
    if pol == POL_RANDOM:
        return random_ply_nb(ip, nb, ray, dest, appr, adjb, shotb, fray, rng, eps, cell, face, plist, slot, sc,
                             counts, stats, agg)
    if pol != POL_MCTS:
        return greedy_ply_nb(ip, F, params[P_EVAL][s], nb, ray, dest, appr, adjb, shotb, fray, dist, distg, rng, pol,
                             eps, np.int64(0), cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, ws[4])
    return mcts_ply_nb(params, rng, policies[POL_BUDGET + s], eps, np.int64(0), cell, face, plist, slot, sc, acts,
                       blocks, counts, stats, agg, ws)


@njit(cache=True)
def restricted_ply_nb(params, rng, policies, cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, ws):
    """One ply of a side with a ban mask (``ban:CLASS:INNER``): INNER's ply among the unbanned actions
    (policies.py; ``ban:CLASS:random`` plays as greedy's degrader, played_as_nb). Out of line, so the
    unbanned plies of play_game_nb compile with a ban of 0 folded in: a ban read in their loop cost the
    random ply about a fifth of its speed (simkit bench --against)."""
    s = sc[SC_TOMOVE]
    ban = policies[POL_BAN + s]
    pol, eps = played_as_nb(policies[POL_ID + s], policies[POL_EPS + s], ban)
    if pol == POL_MCTS:
        return mcts_ply_nb(params, rng, policies[POL_BUDGET + s], eps, ban, cell, face, plist, slot, sc, acts,
                           blocks, counts, stats, agg, ws)
    return greedy_ply_nb(params[P_I], params[P_F], params[P_EVAL][s], params[P_NB], params[P_RAY], params[P_DEST],
                         params[P_APPR], params[P_ADJB], params[P_SHOTB], params[P_FRAY], params[P_DIST],
                         params[P_DISTG], rng, pol, eps, ban, cell, face, plist, slot, sc, acts, blocks, counts, stats,
                         agg, ws[4])


@njit(cache=True, inline="always")
def mcts_ply_nb(params, rng, budget, eps, ban, cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, ws):
    """One ply of ``mcts:N`` (ban mask ``ban``): its choice (step.mcts_choice_nb), the shield blocks counted
    for the defender, the action played in the chosen style (act_nb). Inlined, as the choice is."""
    code, search = mcts_choice_nb(params, rng, budget, eps, ban, cell, face, plist, slot, sc, acts, blocks, counts,
                                  stats, agg, ws)
    stats[ST_BLOCK + 1 - sc[SC_TOMOVE]] += blocks[0]
    act_nb(params[P_I], params[P_NB], params[P_ADJB], params[P_FRAY], rng, code, search, cell, face, plist, slot, sc,
           counts, stats, agg)
    return code


@njit(cache=True)
def _kills_nb(stats):
    k = 0
    for j in range(8):
        k += stats[ST_KCAP + j] + stats[ST_KSHOT + j]
    return k


@njit(cache=True)
def play_game_nb(params, seed, game, first, policies, snapshot_ply, cell, face, plist, slot, sc, acts,
                 blocks, counts, stats, rng, rec, agg, log, ws, tv, tl):
    """Play one whole game (placement included); fill ``rec``; return log rows used.

    ``tv, tl``: the quality trajectory (``trajectory``), empty arrays when not wanted (the
    batch kernel, traces); filling them reads the position and never touches the game's
    stream or scratch, so records are the same either way. tv[t] = side 0's
    ``trajectory_lead_nb`` before ply t and after the last; tl[t] = (legal actions at ply t,
    kills in ply t)."""
    rng_seed_nb(rng, seed, game)
    li = start_game_nb(params, rng, first, cell, face, plist, slot, sc, stats, log)
    # the tables the ply paths take one by one (a call passing the params tuple is slow)
    ip, F, nb, ray, dest, appr, adjb, shotb, fray, dist, distg, evw = (
        params[P_I], params[P_F], params[P_NB], params[P_RAY], params[P_DEST], params[P_APPR], params[P_ADJB],
        params[P_SHOTB], params[P_FRAY], params[P_DIST], params[P_DISTG], params[P_EVAL])
    traj = tv.shape[0] > 0
    tk = np.zeros(counts.shape[0] if traj else 0, np.int64)   # the lead's scratch, not the policies'
    tb = np.zeros(1, np.int64)
    while sc[SC_DONE] == 0:
        snapshot_nb(sc, rec, snapshot_ply)
        s = sc[SC_TOMOVE]
        t = sc[SC_PLY]
        if traj:
            tv[t] = trajectory_lead_nb(params, cell, face, plist, sc, tk)
            # the list random draws from (a forced pass: 0); play_ply_nb regenerates it
            tl[t, 0] = gen_actions_nb(params, cell, face, plist, sc, s, acts, tb)
            tl[t, 1] = -_kills_nb(stats)
        pol = policies[POL_ID + s]
        eps = policies[POL_EPS + s]
        if policies[POL_BAN + s] != 0:      # ban:CLASS:INNER, out of line (restricted_ply_nb)
            code = restricted_ply_nb(params, rng, policies, cell, face, plist, slot, sc, acts, blocks, counts, stats,
                                     agg, ws)
        elif pol == POL_RANDOM:
            code = random_ply_nb(ip, nb, ray, dest, appr, adjb, shotb, fray, rng, eps, cell, face, plist, slot, sc,
                                 counts, stats, agg)
        elif pol == POL_MCTS:
            code = mcts_ply_nb(params, rng, policies[POL_BUDGET + s], eps, np.int64(0), cell, face, plist, slot, sc,
                               acts, blocks, counts, stats, agg, ws)
        else:
            code = greedy_ply_nb(ip, F, evw[s], nb, ray, dest, appr, adjb, shotb, fray, dist, distg, rng, pol, eps,
                                 np.int64(0), cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, ws[4])
        if traj:
            tl[t, 1] += _kills_nb(stats)
        if log.shape[0] > 0:
            li = log_row_nb(log, li, 1 if code >= 0 else 2, code, s, cell, face)
    finish_record_nb(sc, stats, first, rec, snapshot_ply)
    if traj:
        # a decided game ends on its outcome, as the search scores a finished game: after a
        # Gold Tile win the material lead can still favour the loser, and after a Warlord kill
        # the lead has no Warlord to look at; a drawn game ends on the position
        if sc[SC_WINNER] == 0:
            tv[sc[SC_PLY]] = TERMINAL_LEAD
        elif sc[SC_WINNER] == 1:
            tv[sc[SC_PLY]] = -TERMINAL_LEAD
        else:
            tv[sc[SC_PLY]] = trajectory_lead_nb(params, cell, face, plist, sc, tk)
    return li


@njit(cache=True, inline="always")
def play_block_nb(params, seed, start, lo, hi, firsts, policies, tree_cap, snapshot_ply, records, agg, log, tv, tl):
    """Games start+lo .. start+hi-1 on one block's scratch (run_batch_nb's loop body; inlined there: as a
    function of its own it optimised and emitted the whole game again, 3 s of every cold compile)."""
    ip = params[P_I]
    N = ip[I_N]
    P = ip[I_P]
    maxa = max_actions_nb(params)
    cell = np.zeros(N, np.int8)
    face = np.zeros(N, np.int8)
    plist = np.zeros((2, P), np.int64)
    slot = np.zeros(N, np.int8)
    sc = np.zeros(NSC, np.int64)
    acts = np.zeros(maxa, np.int64)
    blocks = np.zeros(1, np.int64)
    counts = np.zeros(6 + 3 * P + N, np.int64)
    stats = np.zeros(NSTAT, np.int64)
    rng = np.zeros(1, np.uint64)
    ws = new_search_nb(params, tree_cap)
    for i in range(lo, hi):
        play_game_nb(params, seed, start + i, np.int64(firsts[i]), policies, snapshot_ply, cell, face,
                     plist, slot, sc, acts, blocks, counts, stats, rng, records[i], agg, log, ws, tv, tl)


@njit(cache=True, nogil=True)
def run_batch_nb(params, seed, start, firsts, policies, tree_cap, snapshot_ply, records, agg, log, tv, tl,
                 b0, b1):
    """Blocks b0..b1-1 of games start .. start+n-1 in ``agg.shape[0]`` blocks (engine/threads.py
    runs blocks on threads). ``log, tv, tl``: the trace log and the trajectory buffers of a
    one-game run (play_game_nb), empty otherwise: traces and trajectories run through this
    kernel too, so the game's call graph is compiled under one entry point, not two."""
    n = firsts.shape[0]
    nblocks = agg.shape[0]
    for b in range(b0, b1):
        play_block_nb(params, seed, start, b * n // nblocks, (b + 1) * n // nblocks, firsts, policies, tree_cap,
                      snapshot_ply, records, agg[b], log, tv, tl)


def policy_array(policies) -> np.ndarray:
    """The policy vector (simkit.policies) as the kernels take it; a bare pair of ids is padded."""
    pv = np.zeros(POLICY_VECTOR, np.int64)
    pv[:len(policies)] = np.asarray(policies, np.int64)
    return pv


def run_chunk(params, seed, start, firsts, policies, snapshot_ply):
    n = len(firsts)
    pv = policy_array(policies)
    N = int(params[P_I][I_N])
    records = np.zeros((n, NFIELDS), np.int32)
    nblocks = max(1, min(n, 64))
    agg = np.zeros((nblocks, N), np.int64)
    # no game (n = 0) still calls the kernel: LocalBackend loads (or compiles) it so before timing any game
    args = (params, np.int64(seed), np.int64(start), np.asarray(firsts, np.int8), pv,
            np.int64(search_capacity(max_budget(pv))), np.int64(snapshot_ply), records, agg, *no_trace(params))
    run_blocks(lambda b0, b1: run_batch_nb(*args, np.int64(b0), np.int64(b1)), nblocks)
    return records, agg.sum(axis=0)


def no_trace(params):
    """run_batch_nb's empty log and trajectory buffers (a batch run writes neither)."""
    N = int(params[P_I][I_N])
    return np.zeros((0, LOG_W_EXTRA + 2 * N), np.int64), np.zeros(0, np.float64), np.zeros((0, 2), np.int64)


def run_one(params, seed, game, first, policies, snapshot_ply, log, tv, tl):
    """One game through run_batch_nb with a trace ``log`` and/or trajectory buffers ``tv, tl``;
    returns its record and how many log rows it wrote (unused rows keep kind -1)."""
    pv = policy_array(policies)
    N = int(params[P_I][I_N])
    records = np.zeros((1, NFIELDS), np.int32)
    log[:, 0] = -1
    run_batch_nb(params, np.int64(seed), np.int64(game), np.full(1, first, np.int8), pv,
                 np.int64(search_capacity(max_budget(pv))), np.int64(snapshot_ply), records, np.zeros((1, N), np.int64),
                 log, tv, tl, np.int64(0), np.int64(1))
    return records[0], int((log[:, 0] >= 0).sum())


def trajectory(params, seed, game, first, policies, snapshot_ply=None):
    """(values, legal, interactions, record) of one game for simkit quality, played by the batch
    kernel's own ``play_game_nb`` (so the record is run_chunk's for the same seed, game, first,
    policies and snapshot ply).

    Per ply t of the L plies (passes included): values[t] = side 0's ``trajectory_lead_nb``
    (evaluate.py: the lead the search's evaluation squashes, greedy's material and Gold Tile
    distance terms plus the mover's best pending take, in greedy's units as ``mcts_scale``; a
    position one ply settles +-WON_LEAD) before ply t, and values[L] after the last (a won game:
    +-TERMINAL_LEAD); legal[t] = the side to move's legal
    actions at ply t as the random policy counts them (0 for a forced pass); interactions[t] =
    pieces killed in ply t (captures + shots)."""
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY
    snap = DEFAULT_SNAPSHOT_PLY if snapshot_ply is None else snapshot_ply
    ip = params[P_I]
    N, L = int(ip[I_N]), int(ip[I_MAX_PLIES])
    tv = np.zeros(L + 1, np.float64)
    tl = np.zeros((L, 2), np.int64)
    rec, _ = run_one(params, seed, game, first, policies, snap, np.zeros((0, LOG_W_EXTRA + 2 * N), np.int64), tv, tl)
    n = int(rec[2])
    return tv[:n + 1].copy(), tl[:n, 0].copy(), tl[:n, 1].copy(), rec


# ------------------------------------------------------------------ perft
@njit(cache=True)
def perft_nb(params, cell0, face0, plist0, slot0, sc0, depth, out):
    """out[d] = number of positions at depth d (SK-9), d = 1..depth."""
    ip = params[P_I]
    N = cell0.shape[0]
    P = plist0.shape[1]
    maxa = max_actions_nb(params)
    cellS = np.zeros((depth + 1, N), np.int8)
    faceS = np.zeros((depth + 1, N), np.int8)
    plS = np.zeros((depth + 1, 2, P), np.int64)
    slS = np.zeros((depth + 1, N), np.int8)
    scS = np.zeros((depth + 1, NSC), np.int64)
    acts = np.zeros((depth + 1, maxa), np.int64)
    nacts = np.zeros(depth + 1, np.int64)
    idx = np.zeros(depth + 1, np.int64)
    blocks = np.zeros(1, np.int64)
    stats = np.zeros(NSTAT, np.int64)
    agg = np.zeros(N, np.int64)
    copy_position_nb(cell0, face0, plist0, slot0, sc0, cellS[0], faceS[0], plS[0], slS[0], scS[0])
    if depth == 0 or sc0[SC_DONE] != 0:
        return
    lvl = 0
    n = gen_actions_nb(params, cellS[0], faceS[0], plS[0], scS[0], scS[0, SC_TOMOVE], acts[0], blocks)
    if n == 0:
        acts[0, 0] = PASS
        n = 1
    nacts[0] = n
    idx[0] = 0
    while lvl >= 0:
        if idx[lvl] >= nacts[lvl]:
            lvl -= 1
            continue
        code = acts[lvl, idx[lvl]]
        idx[lvl] += 1
        nx = lvl + 1
        copy_position_nb(cellS[lvl], faceS[lvl], plS[lvl], slS[lvl], scS[lvl], cellS[nx], faceS[nx], plS[nx], slS[nx],
                         scS[nx])
        if code >= 0:
            apply_action_nb(cellS[nx], faceS[nx], plS[nx], slS[nx], scS[nx], code, np.int64(-1), stats, agg)
        end_ply_nb(ip, scS[nx], code < 0)
        out[nx] += 1
        if nx < depth and scS[nx, SC_DONE] == 0:
            n = gen_actions_nb(params, cellS[nx], faceS[nx], plS[nx], scS[nx], scS[nx, SC_TOMOVE], acts[nx],
                               blocks)
            if n == 0:
                acts[nx, 0] = PASS
                n = 1
            nacts[nx] = n
            idx[nx] = 0
            lvl = nx


# ------------------------------------------------------------------ step API (tests, render)
class Game:
    """One game's arrays, for tests and traces: placement done, ready to play."""

    def __init__(self, params, seed=0, game=0, first=0):
        ip = params[P_I]
        N, P = int(ip[I_N]), int(ip[I_P])
        self.params = params
        self.cell = np.zeros(N, np.int8)
        self.face = np.zeros(N, np.int8)
        self.plist = np.zeros((2, P), np.int64)
        self.slot = np.zeros(N, np.int8)
        self.sc = np.zeros(NSC, np.int64)
        self.acts = np.zeros(max_actions(params), np.int64)
        self.blocks = np.zeros(1, np.int64)
        self.counts = np.zeros(6 + 3 * P + N, np.int64)
        self.stats = np.zeros(NSTAT, np.int64)
        self.agg = np.zeros(N, np.int64)
        self.rng = np.zeros(1, np.uint64)
        rng_seed_nb(self.rng, np.int64(seed), np.int64(game))
        log = np.zeros((0, LOG_W_EXTRA + 2 * N), np.int64)
        setup_game_nb(params, self.rng, np.int64(first), self.cell, self.face, self.plist, self.slot, self.sc, log)
        self.ws = None

    def _index(self):
        # tests build positions by writing cell/plist directly: keep the square-to-piece index in step
        index_slots_nb(self.plist, self.sc, self.slot)

    @property
    def done(self):
        return bool(self.sc[SC_DONE])

    @property
    def to_move(self):
        return int(self.sc[SC_TOMOVE])

    @property
    def winner(self):
        return int(self.sc[SC_WINNER])

    @property
    def end_reason(self):
        return END_REASONS[self.sc[SC_REASON]] if self.sc[SC_DONE] else None

    def legal_actions(self):
        """The side to move's actions (empty for a finished game)."""
        if self.done:
            return np.zeros(0, np.int64)
        self.blocks[0] = 0
        n = gen_actions_nb(self.params, self.cell, self.face, self.plist, self.sc, self.sc[SC_TOMOVE],
                           self.acts, self.blocks)
        return self.acts[:n].copy()

    def play(self, policy, budget=0, eps=0.0, ban=0):
        """One ply of the side to move under policy id ``policy`` (MCTS: ``budget``
        iterations; ``eps``: the degrader's probability; ``ban``: the bit mask of the action
        classes it never plays, policies.ACTION_CLASSES); returns the action code (PASS = -1)."""
        assert not self.done
        s = self.to_move
        pv = np.zeros(POLICY_VECTOR, np.int64)
        pv[POL_ID + s] = policy
        pv[POL_BUDGET + s] = budget
        pv[POL_EPS + s] = int(round(eps * EPS_SCALE))
        pv[POL_BAN + s] = ban
        cap = search_capacity(budget)
        if self.ws is None or self.ws[0][0][0].shape[0] < cap:
            self.ws = new_search_nb(self.params, np.int64(cap))
        self._index()
        return int(play_ply_nb(self.params, self.rng, pv, self.cell, self.face, self.plist, self.slot,
                               self.sc, self.acts, self.blocks, self.counts, self.stats, self.agg, self.ws))

    def apply(self, code, landface=-1):
        """Apply a given action (or PASS) and run the end checks; no facing policy."""
        assert not self.done
        if code >= 0:
            self._index()
            apply_action_nb(self.cell, self.face, self.plist, self.slot, self.sc, np.int64(code),
                            np.int64(landface), self.stats, self.agg)
        end_ply_nb(self.params[P_I], self.sc, code < 0)


def perft(params, depth: int) -> list[int]:
    """Counts for depths 1..depth from the placed start position (reference
    formation by default), side 0 to move, no rotations, facings kept (SK-9)."""
    g = Game(params, seed=0, game=0, first=0)
    out = np.zeros(depth + 1, np.int64)
    perft_nb(params, g.cell, g.face, g.plist, g.slot, g.sc, np.int64(depth), out)
    return [int(x) for x in out[1:]]
