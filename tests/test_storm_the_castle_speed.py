"""Storm the Castle speed work (issue 13): the fast kernels against plain-Python references.

The option generators now test stacks through per-decision bitmasks and walk one-step units
without the BFS queue; greedy's scores are written out in greedy_choose_nb's loop. The
golden records only cover the default scenario, so here the kernels are compared, decision
by decision on reachable states (random play, several seeds and decks), with references
written from RULES.md's wording the pre-speed code followed (can_enter per space, a BFS for
every unit, a scorer per option, argmax_step_nb's tie rule): the same options in the same
order, the same greedy pick and the same RNG draws.
"""
import copy
from collections import deque

import numpy as np
from hypothesis import given, settings, strategies as st

from simkit.engine.rng import rng_below_nb
from simkit.games.storm_the_castle import rules as R
from simkit.games.storm_the_castle.moves import board_masks_nb, space_masks_nb, touched_nb
from simkit.games.storm_the_castle.play import Game
from simkit.games.storm_the_castle.policies import greedy_choose_nb
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_END, ACT_MOVE,
                                                 ACT_SMITH, ACT_SORC, C_ACTED, C_ITEM, C_OWNER, C_POS, C_TYPE,
                                                 G_ATTACKS, G_OVER, G_PHASE, G_POINTS, G_SIDE, L_GRAVE, L_HAND,
                                                 PH_ACTIONS, PH_DISPATCH)
from storm_helpers import params

REG, ITEM = R.K_REG, R.K_ITEM


# ---------------------------------------------------------------------------
# references (plain Python, one rule at a time)
def _can_enter(g, p, x, c, s):
    top = g.sp[x, 0]
    if top < 0:
        return True
    if g.sp[x, 1] >= 0 or g.cards[top, C_OWNER] != s:
        return False
    kind = p.ctab[:, R.T_KIND]
    return not (kind[g.cards[top, C_TYPE]] == REG and kind[g.cards[c, C_TYPE]] == REG)


def _targets(g, p, c, y):
    out = [(ACT_ATTACK, c, int(g.sp[y, 0]))]
    if g.sp[y, 1] >= 0 and p.ctab[g.cards[c, C_TYPE], R.T_AB] == R.AB_ASSASSIN:
        out.append((ACT_ATTACK, c, int(g.sp[y, 1])))
    return out


def ref_dispatch(g, p, s):
    out = [(ACT_END, -1, -1)]
    if g.g[G_OVER]:
        return out
    seen = set()
    for i in range(g.zn[s, L_HAND]):
        c = int(g.zones[s, L_HAND, i])
        t = g.cards[c, C_TYPE]
        if t in seen:
            continue
        seen.add(t)
        if p.ctab[t, R.T_COST] > g.g[G_POINTS]:
            continue
        for x in range(p.spi.shape[0]):
            h = g.sp[x, 0]
            if p.ctab[t, R.T_KIND] == ITEM:
                if h >= 0 and g.cards[h, C_OWNER] == s and p.ctab[g.cards[h, C_TYPE], R.T_KIND] == REG \
                        and g.cards[h, C_ITEM] < 0:
                    out.append((ACT_DISPATCH, c, int(h)))
            elif p.spi[x, R.X_CASTLE] == s and _can_enter(g, p, x, c, s):
                out.append((ACT_DISPATCH, c, x))
    return out


def ref_actions(g, p, s):
    out = [(ACT_END, -1, -1)]
    if g.g[G_OVER]:
        return out
    ns = p.spi.shape[0]
    can_attack = g.g[G_ATTACKS] < 2
    for x in range(ns):
        for j in range(2):
            c = int(g.sp[x, j])
            if c < 0 or g.cards[c, C_OWNER] != s or g.cards[c, C_ACTED]:
                continue
            t = g.cards[c, C_TYPE]
            mv, rg, att = p.ctab[t, R.T_MOVE], p.ctab[t, R.T_RANGE], p.ctab[t, R.T_ATT]
            melee = can_attack and rg == 0 and att > 0
            depth = {x: 0}
            q = deque([x])
            while q and mv > 0:          # ST-A / ST-7: the BFS, every unit
                u = q.popleft()
                if depth[u] >= mv:
                    continue
                for w in p.adj[u]:
                    w = int(w)
                    if w < 0:
                        break
                    if w in depth:
                        continue
                    depth[w] = depth[u] + 1
                    q.append(w)
                    top = g.sp[w, 0]
                    if top >= 0 and g.cards[top, C_OWNER] != s:
                        depth[w] = 1 << 20
                        if melee:
                            out += _targets(g, p, c, w)
                    else:
                        if p.spi[w, R.X_KIND] == 0 and p.spi[w, R.X_SIDE] != s:
                            depth[w] = 1 << 20
                        if _can_enter(g, p, w, c, s):
                            out.append((ACT_MOVE, c, w))
            if can_attack and rg > 0 and att > 0:      # ST-B
                for y in range(ns):
                    top = g.sp[y, 0]
                    if not 1 <= p.dist[x, y] <= rg or top < 0 or g.cards[top, C_OWNER] == s:
                        continue
                    if p.ctab[t, R.T_AB] == R.AB_CATAPULT and p.spi[y, R.X_CASTLE] < 0:
                        continue
                    out += _targets(g, p, c, y)
            ab = p.ctab[t, R.T_AB]
            o = g.sp[x, 1 - j]
            n_grave = g.zn[s, L_GRAVE]
            if ab == R.AB_CLERIC:
                if o < 0 and n_grave and p.ctab[g.cards[g.zones[s, L_GRAVE, n_grave - 1], C_TYPE], R.T_KIND] != ITEM:
                    out.append((ACT_CLERIC, c, -1))
            elif ab == R.AB_SORC:
                if o >= 0 and p.ctab[g.cards[o, C_TYPE], R.T_KIND] == REG and not g.cards[o, C_ACTED]:
                    out.append((ACT_SORC, c, int(o)))
            elif ab == R.AB_SMITH:
                got = set()
                for i in range(n_grave - 1, -1, -1):
                    it = int(g.zones[s, L_GRAVE, i])
                    ti = g.cards[it, C_TYPE]
                    if p.ctab[ti, R.T_KIND] == ITEM and ti not in got:
                        got.add(ti)
                        out.append((ACT_SMITH, c, it))
    return out


def _value(g, p, c):
    v = p.cval[g.cards[c, C_TYPE]]
    if g.cards[c, C_ITEM] >= 0:
        v += p.cval[g.cards[g.cards[c, C_ITEM], C_TYPE]]
    return v


def _p_attack(g, p, a, b, extra):
    tb = g.cards[b, C_TYPE]
    if p.ctab[tb, R.T_KIND] != REG:
        return 1.0
    x, y = g.cards[a, C_POS], g.cards[b, C_POS]
    at = p.ctab[g.cards[a, C_TYPE], R.T_ATT] + g.cards[a, 6] + extra      # C_BUFF
    if g.cards[a, C_ITEM] >= 0:
        at += p.ctab[g.cards[g.cards[a, C_ITEM], C_TYPE], R.T_ATT]
    at += p.spi[x, R.X_LEVEL] - p.spi[y, R.X_LEVEL]
    d = p.ctab[tb, R.T_DEF] + p.spi[y, R.X_DEF]
    if g.cards[b, C_ITEM] >= 0:
        d += p.ctab[g.cards[g.cards[b, C_ITEM], C_TYPE], R.T_DEF]
    for o in g.sp[y]:
        if o >= 0 and o != b and p.ctab[g.cards[o, C_TYPE], R.T_AB] == R.AB_CLERIC:
            d += p.ctab[g.cards[o, C_TYPE], R.T_BONUS]
    return p.ptable[min(max(at - d, R.PT_LO), R.PT_HI) - R.PT_LO]


def _follower(p, t):
    return p.ctab[t, R.T_KIND] != REG and p.ctab[t, R.T_AB] in (R.AB_CLERIC, R.AB_SORC, R.AB_SMITH)


def ref_greedy_score(g, p, phase, s, opts, k):
    """The greedy commander of policies.py's docstring, one option at a time (the pre-speed scorer)."""
    kind, a, b = opts[k]
    ek, ok = p.keep[1 - s], p.keep[s]
    cards, sp, ctab, dist = g.cards, g.sp, p.ctab, p.dist

    def thr_for(target):
        thr = p.fopt[R.F_THRESHOLD]
        if cards[target, C_POS] == ek and p.fopt[R.F_KEEP_THRESHOLD] < thr:
            thr = p.fopt[R.F_KEEP_THRESHOLD]
        return thr
    if kind == ACT_END:
        return 0.0 if phase != PH_DISPATCH else -1.0
    if kind == ACT_DISPATCH:
        t = cards[a, C_TYPE]
        sc = 1000.0 * p.prio[t]
        if ctab[t, R.T_KIND] == ITEM:
            ht = cards[b, C_TYPE]
            return sc + ctab[ht, R.T_ATT] + ctab[ht, R.T_DEF]
        sc -= dist[b, ek]
        top = sp[b, 0]
        if top >= 0:
            if _follower(p, t) and ctab[cards[top, C_TYPE], R.T_KIND] == REG:
                sc += 50.0
            elif ctab[t, R.T_KIND] == REG:
                sc += 5.0
        return sc
    if kind == ACT_MOVE:
        if b == ek:
            return 1e9
        x, t = cards[a, C_POS], cards[a, C_TYPE]
        if g.role[a] == 1:
            gain = dist[x, ok] - dist[b, ok]
            return 1000.0 + 10.0 * gain if gain > 0 else -1.0
        if _follower(p, t):
            o = sp[x, 1 if sp[x, 0] == a else 0]
            if o >= 0 and ctab[cards[o, C_TYPE], R.T_KIND] == REG:
                return -1.0
            top = sp[b, 0]
            if top >= 0 and ctab[cards[top, C_TYPE], R.T_KIND] == REG:
                return 500.0 + 20.0 - dist[b, ek]
            gain = dist[x, ek] - dist[b, ek]
            return 100.0 + gain if gain > 0 else -1.0
        gain = dist[x, ek] - dist[b, ek]
        return 1000.0 + 10.0 * gain + p.spi[b, R.X_DEF] + p.spi[b, R.X_LEVEL] if gain > 0 else -1.0
    if kind == ACT_ATTACK:
        pr = _p_attack(g, p, a, b, 0)
        if pr < thr_for(b):
            return -1.0
        ev = pr * _value(g, p, b)
        if ctab[cards[a, C_TYPE], R.T_RANGE] == 0:
            if ctab[cards[b, C_TYPE], R.T_KIND] == REG:
                ev -= (1.0 / 36.0) * _value(g, p, a)
            if cards[b, C_POS] == ek:
                ev += 100.0 * pr
        return 1e5 + 100.0 * ev
    if kind == ACT_SORC:
        bonus = ctab[cards[a, C_TYPE], R.T_BONUS]
        for k2, b2, tgt in opts:
            if k2 == ACT_ATTACK and b2 == b:
                p1, p0 = _p_attack(g, p, b, tgt, bonus), _p_attack(g, p, b, tgt, 0)
                if p1 >= thr_for(tgt) and p1 > p0:
                    return 2e5
        return -1.0
    if kind in (ACT_CLERIC, ACT_SMITH):
        return 5e4
    return -1.0


def ref_greedy_pick(g, p, phase, s, opts, rng):
    """argmax_step_nb's rule (eps 0): a better score takes over, a tie draws rng_below(ties)."""
    best, pick, ties = -1e300, 0, 0
    for k in range(len(opts)):
        v = ref_greedy_score(g, p, phase, s, opts, k)
        if v > best:
            best, ties, pick = v, 1, k
        elif v >= best:
            ties += 1
            if rng_below_nb(rng, np.int64(ties)) == 0:
                pick = k
    return pick


# ---------------------------------------------------------------------------
def _walk(p, seed, turns, check):
    """Random play through the step API; ``check(g, phase, s, opts)`` at every decision."""
    g = Game(p, seed, seed % 7, seed % 2)
    pick = np.random.default_rng(seed)
    decisions = 0
    for _ in range(turns):
        if g.over:
            break
        s = int(g.g[G_SIDE])
        g.begin_turn()
        for phase in (PH_DISPATCH, PH_ACTIONS):
            g.g[G_PHASE] = phase
            while not g.g[G_OVER]:
                opts = g.options()
                check(g, phase, s, opts)
                decisions += 1
                k = int(pick.integers(len(opts)))
                if k == 0:
                    break
                g.apply(opts[k])
        g.g[1] = 1 - s        # G_SIDE: the next turn (close_turn_nb's idle count is not needed here)
        g.g[0] += 1           # G_TURN
    return decisions


def _generators_match(g, phase, s, opts):
    ref = ref_dispatch(g, g.p, s) if phase == PH_DISPATCH else ref_actions(g, g.p, s)
    assert opts == ref, (phase, s, opts, ref)


def _greedy_matches(g, phase, s, opts):
    p = g.p
    g.role[:] = 0
    for c in range(g.cards.shape[0]):          # some defenders, so the role branch is exercised
        if g.cards[c, C_POS] >= 0 and g.cards[c, C_OWNER] == s and c % 3 == 0:
            g.role[c] = 1
    r1 = np.array([12345 + len(opts)], np.uint64)
    r2 = r1.copy()
    buf = np.zeros((max(len(opts), 1), 3), np.int32)
    buf[:len(opts)] = opts
    got = greedy_choose_nb(np.int64(phase), np.int64(s), np.int64(len(opts)), buf, g.cards, g.sp, p.ctab, p.wt[s],
                           p.spi, p.dist, p.keep, p.fopt, p.ptable, p.prio, g.role, r1)
    want = ref_greedy_pick(g, p, phase, s, opts, r2)
    assert (got, r1[0]) == (want, r2[0]), (phase, opts, got, want)


def test_generators_equal_the_reference_on_reachable_default_states():
    p = params()
    n = sum(_walk(p, seed, 60, _generators_match) for seed in range(6))
    assert n > 500


def test_greedy_pick_and_draws_equal_the_reference_scorer():
    p = params()
    n = sum(_walk(p, seed, 50, _greedy_matches) for seed in range(4))
    assert n > 300


# decks that reach the other branches: long moves (the BFS path), ranged units of range 3,
# assassins among stacks, several item types for the Blacksmith, cheap cards (full castles)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), move=st.integers(1, 3), rng_=st.integers(1, 3), cost=st.integers(0, 2),
       points=st.integers(1, 8), sorc=st.sampled_from([0, 2]))
def test_generators_and_greedy_on_other_decks(seed, move, rng_, cost, points, sorc):
    deck = {n: dict(c) for n, c in R.DEFAULT_DECK.items()}
    deck["shield_bearer"].update(move=move, cost=cost)
    deck["catapult"].update(range=rng_)
    deck["assassin"].update(copies=4, cost=cost)
    deck["sorcerer"].update(copies=sorc)
    p = params(deck=deck, dispatch_points=points)

    def both(g, phase, s, opts):
        _generators_match(g, phase, s, opts)
        _greedy_matches(g, phase, s, opts)
    assert _walk(p, seed, 40, both) > 0


# ---------------------------------------------------------------------------
# the search rollout keeps the board masks between decisions (search.rollout_nb): after each action it
# refreshes only the spaces touched_nb names, so those must be every space whose stack the action can change
def _masks_follow_every_option(g, phase, s, opts):
    p = g.p
    for opt in opts[1:]:
        for roll in (2, 7, 12):     # a critical failure, a middling roll, a critical success (ST-1)
            h = copy.deepcopy(g)
            bm = board_masks_nb(h.cards, h.sp, p.ctab)
            kind, a, b = (np.int64(v) for v in opt)
            touched = touched_nb(kind, a, b, h.cards, p.ctab)
            h.apply(opt, roll)
            for x in touched:
                if x >= 0:
                    bm = space_masks_nb(h.cards, h.sp, p.ctab, np.int64(x), bm)
            assert bm == board_masks_nb(h.cards, h.sp, p.ctab), (phase, opt, roll)


def test_kept_board_masks_equal_a_fresh_scan_after_every_option():
    p = params()
    n = sum(_walk(p, seed, 30, _masks_follow_every_option) for seed in range(3))
    assert n > 150
