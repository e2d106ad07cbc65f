"""Skorm's fast paths (issue 13) against the list-based code they replace.

- the square-to-piece index stays consistent with the piece lists over random,
  greedy and mixed play (hypothesis over seeds and rule variants);
- the random policy's count-then-select (count_actions_nb + select_action_nb) visits
  exactly gen_actions_nb's list, in its order, with its shield-block count, so every
  draw picks the action the listed version picked;
- the incremental greedy picks what the pre-speed greedy (kept here verbatim) picks,
  with the same tie-break draws, on positions of every rule variant;
- the mask-based facing policy turns Shieldmen as threat_dirs_nb's counts say.
The golden records (test_golden_records.py) cover the default rules; these cover the
variants too (one-step horsemen, archer range 3, radius 5, facing none/random, ...).
"""
import numpy as np
from hypothesis import given, settings, strategies as st
from numba import njit

from simkit.engine.rng import argmax_step_nb, rng_below_nb
from simkit.games.skorm.moves import (
    act_from, act_to, act_type, bit_nb, count_actions_nb, face_threats_nb, gen_actions_nb, select_action_nb,
    static_attack_bits_nb, threat_dirs_nb, two_step_bits_nb,
)
from simkit.games.skorm.play import Game, play_ply_nb
from simkit.games.skorm.policies import CL_SHOT, POL_GREEDY, POL_RANDOM, WIN_SCORE, greedy_choose_nb
from simkit.games.skorm.rules import (
    F_W_ADV, F_W_GOLD, F_W_HANG, F_W_WARLORD, I_FACING, I_GOLD, I_GOLD_IMM, I_GOLD_ON, I_STEPS_H, I_STEPS_W,
    P_ADJB, P_APPR, P_DEST, P_DIST, P_DISTG, P_EVAL, P_F, P_FRAY, P_I, P_NB, P_RAY, P_SHOTB,
)
from simkit.games.skorm.state import SC_PN0, SC_TOMOVE, SC_WL0
from simkit.policies import POL_EPS, POL_ID, POLICY_VECTOR
from skorm_helpers import params_for

VARIANTS = [
    params_for(),
    params_for(placement="random"),
    params_for(archer_range=3, placement="wall", facing="none"),
    params_for(board_radius=5, zone_depth=4, placement="wall", gold_tile_immediate_max=6),
    params_for(horseman_steps=1, army={"shieldman": 3, "archer": 2, "horseman": 2}, placement="random",
               remove_1={"archer": 2}, facing="random"),
    params_for(placement="random", facing="none", warlord_steps=1, gold_tile=False, max_plies=120),
    params_for(board_radius=6, zone_depth=5, placement="random", archer_range=4),  # cells >= 64: both words
]


@njit(cache=True)
def reference_greedy_nb(params, cell, face, plist, sc, acts, n, rng, counts, noshoot):
    """The pre-speed-work greedy (commit 9cf2164), verbatim: every candidate re-scans
    the opponent's two-steppers and every attacked Shieldman's threat directions."""
    if noshoot:
        noshoot = False
        for i in range(n):
            if act_type(acts[i]) == 0:
                noshoot = True
                break
    ip = params[P_I]
    F = params[P_F]
    distg = params[P_DISTG]
    s = sc[SC_TOMOVE]
    o = 1 - s
    gold = ip[I_GOLD]
    gold_on = ip[I_GOLD_ON] == 1
    imm = ip[I_GOLD_IMM]
    threat = ip[I_FACING] == 2
    wl = sc[SC_WL0 + s]
    ewl = sc[SC_WL0 + o]
    others_o = sc[SC_PN0 + o] - 1
    w_wl = F[F_W_WARLORD]
    w_gold = F[F_W_GOLD]
    w_hang = F[F_W_HANG]
    w_adv = F[F_W_ADV]
    dist = params[P_DIST]
    npc = sc[SC_PN0 + s]
    # the opponent's attacks that do not depend on occupancy (archer lines,
    # neighbours of every piece), and its two-steppers listed in counts[6:]
    adjb = params[P_ADJB]
    nb = params[P_NB]
    base0, base1 = static_attack_bits_nb(adjb, params[P_SHOTB], cell, plist, sc, o, -1)
    nhw = 0
    lo2 = 3 + 4 * o
    for j in range(sc[SC_PN0 + o]):
        x = plist[o, j]
        c = cell[x]
        if (c == lo2 and ip[I_STEPS_H] >= 2) or (c == lo2 + 1 and ip[I_STEPS_W] >= 2):
            counts[6 + nhw] = x
            nhw += 1
    best = -np.inf
    choice = 0
    ties = 0
    for i in range(n):
        code = acts[i]
        typ = act_type(code)
        if noshoot and typ == 1:
            continue
        a = act_from(code)
        t = act_to(code)
        ca = cell[a]
        ct = cell[t]
        mk = (ca - 1) & 3
        gain = 0.0
        skip = -1
        if ct != 0:
            gain = F[(ct - 1) & 3]
            skip = t
        if ct != 0 and t == ewl:
            score = WIN_SCORE
        else:
            if typ == 1:
                cell[t] = 0
            else:
                cell[t] = ca
                cell[a] = 0
            if skip >= 0:
                w0, w1 = static_attack_bits_nb(adjb, params[P_SHOTB], cell, plist, sc, o, skip)
            else:
                w0 = base0
                w1 = base1
            for j in range(nhw):
                x = counts[6 + j]
                if x != skip:
                    w0, w1 = two_step_bits_nb(nb, adjb, cell, x, w0, w1)
            wpos = wl
            if typ == 0 and mk == 3:
                wpos = t
            wl_att = bit_nb(w0, w1, wpos) != 0
            win = False
            if gold_on and wpos == gold and typ == 0 and mk == 3:
                oth = others_o
                if ct != 0:
                    oth -= 1
                if oth <= imm or not wl_att:
                    win = True
            if win:
                score = WIN_SCORE
            else:
                score = gain - w_gold * distg[wpos]
                if typ == 0 and mk != 3:
                    score += w_adv * (dist[a, ewl] - dist[t, ewl])
                if wl_att:
                    score -= w_wl
                hang = 0.0
                shield_v = F[0]
                for sh in range(2):  # other pieces first: attacked Shieldmen need a closer look
                    if sh == 1 and shield_v <= hang:
                        break
                    for j in range(npc):
                        p = plist[s, j]
                        f = face[p]
                        if typ == 0 and p == a:
                            p = t
                        k = (cell[p] - 1) & 3
                        if k == 3 or (k == 0) != (sh == 1):
                            continue
                        v = F[k]
                        if v <= hang or bit_nb(w0, w1, p) == 0:
                            continue
                        if k == 0:
                            m = threat_dirs_nb(params, cell, p, o, counts)
                            if threat:
                                if (m & (m - 1)) == 0:
                                    continue
                            elif (m & ~(1 << f)) == 0:
                                continue
                        hang = v
                score -= w_hang * hang
            cell[a] = ca
            cell[t] = ct
        take, best, ties = argmax_step_nb(score, best, ties, rng, 1e-9)
        if take:
            choice = i
    return choice


def _policy_vector(p0, p1, eps0=0):
    pv = np.zeros(POLICY_VECTOR, np.int64)
    pv[POL_ID], pv[POL_ID + 1], pv[POL_EPS] = p0, p1, eps0
    return pv


def _slots_consistent(g):
    for s in (0, 1):
        n = int(g.sc[SC_PN0 + s])
        for i in range(n):
            assert g.slot[g.plist[s, i]] == i
    occupied = set(int(c) for s in (0, 1) for c in g.plist[s, :g.sc[SC_PN0 + s]])
    for c in range(g.cell.shape[0]):
        assert (g.slot[c] >= 0) == (c in occupied) == (g.cell[c] != 0)


def _ply(g, pv):
    """One ply straight through the kernel: no re-indexing in between (Game.play rebuilds it)."""
    return play_ply_nb(g.params, g.rng, pv, g.cell, g.face, g.plist, g.slot, g.sc, g.acts, g.blocks, g.counts,
                       g.stats, g.agg, g.ws)


def _play_positions(p, seed, pv, plies=400):
    """Games of one seed under pv, yielding (game, ply) before every ply."""
    from simkit.games.skorm.search import new_search_nb, search_capacity
    for game in range(2):
        g = Game(p, seed=seed, game=game, first=game % 2)
        g.ws = new_search_nb(p, np.int64(search_capacity(0)))
        while not g.done and plies > 0:
            yield g
            _ply(g, pv)
            plies -= 1


@settings(max_examples=12, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(range(len(VARIANTS))),
       st.sampled_from([(POL_RANDOM, POL_RANDOM), (POL_GREEDY, POL_RANDOM), (POL_GREEDY, POL_GREEDY)]))
def test_square_to_piece_index_follows_the_piece_lists(seed, v, pols):
    pv = _policy_vector(*pols, eps0=200_000)
    for g in _play_positions(VARIANTS[v], seed, pv, plies=150):
        _slots_consistent(g)


def _listed(g):
    s = g.to_move
    g.blocks[0] = 0
    n = gen_actions_nb(g.params, g.cell, g.face, g.plist, g.sc, s, g.acts, g.blocks)
    return g.acts[:n].copy(), int(g.blocks[0])


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(range(len(VARIANTS))))
def test_count_then_select_visits_the_action_list_in_order(seed, v):
    p = VARIANTS[v]
    ip = p[P_I]
    npa = np.zeros(p[P_NB].shape[0], np.int64)
    pv = _policy_vector(POL_RANDOM, POL_GREEDY)
    for g in _play_positions(p, seed, pv, plies=200):
        s = g.to_move
        acts, blocks = _listed(g)
        n, nblk = count_actions_nb(ip, p[P_NB], p[P_ADJB], p[P_SHOTB], p[P_FRAY], g.cell, g.face, g.plist, g.sc,
                                   np.int64(s), npa)
        assert (n, nblk) == (len(acts), blocks)
        walked = []
        for i in range(int(g.sc[SC_PN0 + s])):
            a = g.plist[s, i]
            for r in range(npa[i]):
                walked.append(select_action_nb(ip, p[P_NB], p[P_ADJB], p[P_RAY], p[P_DEST], p[P_APPR], g.cell, g.face,
                                               np.int64(s), a, np.int64(r)))
        assert walked == acts.tolist()


def test_random_ply_draws_and_picks_as_the_listed_random_policy():
    """A random ply from the kernel == rng % n over gen_actions_nb's list, with the same stream after it."""
    p = VARIANTS[0]
    pv = _policy_vector(POL_RANDOM, POL_RANDOM)
    seen = 0
    for g in _play_positions(p, 11, pv, plies=300):
        acts, _ = _listed(g)
        rng = g.rng.copy()
        want = int(acts[rng_below_nb(rng, len(acts))]) if len(acts) else -1
        if want >= 0 and g.cell[act_from(want)] == 1 + 4 * g.to_move and act_type(want) == 0:
            rng_below_nb(rng, 6)  # the landing facing
        assert _ply(g, pv) == want
        assert g.rng[0] == rng[0]
        seen += 1
    assert seen > 100


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(range(len(VARIANTS))), st.booleans())
def test_incremental_greedy_chooses_as_the_pre_speed_greedy(seed, v, noshoot):
    p = VARIANTS[v]
    pv = _policy_vector(POL_GREEDY, POL_GREEDY, eps0=300_000)  # degraded: positions greedy alone would not reach
    for g in _play_positions(p, seed, pv, plies=120):
        acts, _ = _listed(g)
        n = len(acts)
        if n == 0:
            continue
        r1 = g.rng.copy()
        r2 = g.rng.copy()
        cell = g.cell.copy()
        got = greedy_choose_nb(p[P_I], p[P_F], p[P_EVAL][g.to_move], p[P_NB], p[P_ADJB], p[P_SHOTB], p[P_FRAY],
                               p[P_DIST], p[P_DISTG], g.cell, g.face, g.plist, g.sc, acts, np.int64(n), r1, g.counts,
                               np.int64(1 << CL_SHOT if noshoot else 0), np.zeros(n, np.float64))
        want = reference_greedy_nb(p, g.cell, g.face, g.plist, g.sc, acts, np.int64(n), r2, g.counts.copy(),
                                   noshoot)
        assert got == want and r1[0] == r2[0]
        assert np.array_equal(cell, g.cell)   # candidates are undone


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**31), st.sampled_from(range(len(VARIANTS))))
def test_mask_facing_follows_threat_dirs(seed, v):
    p = VARIANTS[v]
    pv = _policy_vector(POL_RANDOM, POL_RANDOM)
    counts = np.zeros(6, np.int64)
    for g in _play_positions(p, seed, pv, plies=120):
        s = g.to_move
        want = g.face.copy()
        for c in g.plist[s, :g.sc[SC_PN0 + s]]:
            if g.cell[c] != 1 + 4 * s:
                continue
            if threat_dirs_nb(p, g.cell, c, 1 - s, counts) == 0:
                continue
            best, bd = counts[want[c]], want[c]
            for i in range(6):
                d = ((5 if s == 0 else 2) + i) % 6
                if counts[d] > best:
                    best, bd = counts[d], d
            want[c] = bd
        face = g.face.copy()
        face_threats_nb(p, g.cell, face, g.plist, g.sc, np.int64(s), g.counts)
        assert np.array_equal(face, want)
