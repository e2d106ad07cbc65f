"""Skorm's evaluation as weighted features (issue 23): the weight table, who reads which row, features.py.

(a) the lead (evaluate.lead_nb) is the dot product of a weight row with features_nb's f: two rows' leads
    differ by exactly (w2 - w) . f, and the default row's dot product is the lead;
(b) greedy reads the mover's row, the search the searcher's row, the trajectory and the step API row 0;
(c) quiet positions are a real share and quiet means "no capture or shot among the mover's actions".
"""
import numpy as np
import pytest

from simkit import env
from simkit.engine.search import squash_nb
from simkit.games import get_game
from simkit.games.skorm.evaluate import assess_nb, lead_nb
from simkit.games.skorm.features import features_nb
from simkit.games.skorm.moves import act_to, act_type, attack_bits_nb
from simkit.games.skorm.play import run_chunk, trajectory
from simkit.games.skorm.policies import POL_GREEDY, POL_MCTS, POL_RANDOM
from simkit.games.skorm.rules import EVAL_FEATURES, P_DISTG, P_EVAL, P_MCTS, UNITS, W_GOLD, default_rules, prepare
from simkit.games.skorm.search import action_of_nb, new_search_nb, search_capacity
from simkit.games.skorm.state import SC_TOMOVE
from simkit.games.skorm.step import policy_choice_nb
from simkit.policies import MC_SCALE, policy_vector

SPEC = get_game("skorm")
ARCHER, HORSEMAN = UNITS.index("archer"), UNITS.index("horseman")


def _positions():
    """Positions reached by step-API play (random and greedy, several seeds): (state, quiet, f)."""
    out = []
    for seed in range(3):
        for pols in (("random", "random"), ("greedy", "greedy"), ("greedy", "random")):
            s = env.new_game("skorm", seed=seed, game_index=1)
            pv = policy_vector(SPEC, pols)
            while not s.is_over() and len(s.history) < 120:
                quiet, f = s.steps.features(s.S)
                out.append((s.clone(), quiet, f))
                s.apply(s.scripted_action(pv))
    return out


POSITIONS = None


def positions():
    global POSITIONS
    if POSITIONS is None:
        POSITIONS = _positions()
    return POSITIONS


def _lead(P, S, W):
    """The game's own lead function (the search's leaf, the trajectory) by the weight row W."""
    w0, w1 = attack_bits_nb(P, S[0], S[2], S[4], S[4][SC_TOMOVE], np.int64(-1))
    return lead_nb(P, S[0], S[1], S[2], S[4], S[8], w0, w1, np.asarray(W, np.float64))


def _with_row(P, side, k, value):
    T = P[P_EVAL].copy()
    T[side, k] = value
    return tuple(P[:P_EVAL]) + (T,)


def test_the_table_is_declared_and_holds_the_rules_weights():
    P = prepare(default_rules(values={"archer": 1.75}, w_gold_distance=0.4))
    T = P[SPEC.eval_slot]
    assert SPEC.eval_slot == P_EVAL == len(P) - 1 and SPEC.eval_features == EVAL_FEATURES
    assert T.dtype == np.float64 and T.shape == (2, len(EVAL_FEATURES)) and T.flags.c_contiguous
    assert EVAL_FEATURES == ("material:shieldman", "material:archer", "material:horseman", "gold_distance")
    for row in T:
        assert row.tolist() == [1.0, 1.75, 2.0, 0.4]


# ---------------------------------------------------------------- (a) the lead is W . f
def test_the_lead_is_the_dot_product_of_a_row_with_the_features():
    pos = positions()
    assert len(pos) >= 200
    rng = np.random.default_rng(23)
    P = pos[0][0].steps.P
    w = P[P_EVAL][0].copy()
    quiet_checked = loud_checked = 0
    for s, quiet, f in pos:
        lead = _lead(P, s.S, w)
        assert lead == pytest.approx(w @ f, rel=1e-9, abs=1e-12)       # no fixed term: TAKE is inside f
        # any row at all on a quiet position; a row ranking the unit values as w does on the others (which
        # attacked piece the mover is credited with taking is the most valuable one by the row: features.py)
        w2 = np.concatenate([rng.uniform(-1.0, 5.0, 3), rng.uniform(-1.0, 1.0, 1)])
        if not quiet:
            w2[:3] = np.sort(rng.uniform(0.1, 5.0, 3))[np.argsort(np.argsort(w[:3]))]
            loud_checked += 1
        else:
            quiet_checked += 1
        assert _lead(P, s.S, w2) - lead == pytest.approx((w2 - w) @ f, rel=1e-9, abs=1e-9)
    assert quiet_checked >= 50 and loud_checked >= 50


def test_features_are_the_material_and_gold_distance_differences():
    """Each feature moves as its name says: a quiet position's f is exactly the piece count differences
    by type and the Warlords' Gold Tile distance difference (side 0's minus side 1's)."""
    from simkit.games.skorm.state import SC_CNT, SC_WL0
    P = prepare(default_rules())
    for s, quiet, f in positions():
        sc = s.S[4]
        base = [sc[SC_CNT + k] - sc[SC_CNT + 4 + k] for k in range(3)]
        if quiet:
            assert f[:3].tolist() == base
        else:   # +-TAKE on one type at most
            assert np.count_nonzero(np.abs(f[:3] - base) > 1e-12) <= 1
        d = P[P_DISTG]
        assert f[W_GOLD] == d[sc[SC_WL0 + 1]] - d[sc[SC_WL0]]


def test_the_step_api_evaluates_with_row_0():
    """The step API's evaluate is the squashed W0 . f where nothing is settled, and reads row 0 only."""
    pos = positions()
    P = pos[0][0].steps.P
    scale = P[P_MCTS][MC_SCALE]
    n = 0
    for s, _quiet, f in pos[::7]:
        won, _ = assess_nb(P, s.S[0], s.S[1], s.S[2], s.S[4], s.S[8], P[P_EVAL][0])
        if won >= 0:
            continue
        assert s.value() == pytest.approx(squash_nb(P[P_EVAL][0] @ f, scale), rel=1e-12)
        n += 1
    assert n >= 20
    s = next(s for s, quiet, f in pos[len(pos) // 2:] if quiet and f[ARCHER] != 0
             and assess_nb(P, s.S[0], s.S[1], s.S[2], s.S[4], s.S[8], P[P_EVAL][0])[0] < 0)
    v = s.steps.evaluate(s.S)
    assert v == s.value()
    for side, changed in ((1, False), (0, True)):
        steps2 = type(s.steps)(SPEC, _with_row(P, side, ARCHER, 9.0))
        assert (steps2.evaluate(s.S) != v) == changed


# ---------------------------------------------------------------- (b) who reads which row
def _choice(P, S, pv, rng, budget=0):
    ws = new_search_nb(P, np.int64(search_capacity(budget)))
    code, _ = policy_choice_nb(P, S, pv, rng.copy(), ws)
    return int(code), ws[0][int(S[4][SC_TOMOVE])]    # the mover's tree


def test_greedy_reads_the_movers_row():
    """Over positions of play: changing one unit's weight in the other side's row never changes greedy's
    choice; in the mover's row it does (a searched-for position where it flips)."""
    pv = policy_vector(SPEC, ("greedy", "greedy"))
    P = positions()[0][0].steps.P
    flips = 0
    n = 0
    for s, _, _ in positions()[::3]:
        if s.is_over() or s.is_chance():
            continue
        m = int(s.S[4][SC_TOMOVE])
        for k, v in ((ARCHER, 6.0), (HORSEMAN, 0.3)):
            c0, _ = _choice(P, s.S, pv, s.rng)
            assert _choice(_with_row(P, 1 - m, k, v), s.S, pv, s.rng)[0] == c0
            flips += _choice(_with_row(P, m, k, v), s.S, pv, s.rng)[0] != c0
            n += 1
    assert n >= 100 and flips >= 5


def test_the_search_reads_the_searchers_row():
    """mcts:32: with the other side's row changed the search is the same, tree for tree (its priors, leaves
    and rollouts of both sides all judge with the searcher's row); with the searcher's row changed the
    choice flips in some positions."""
    B = 32
    pv = policy_vector(SPEC, (f"mcts:{B}", f"mcts:{B}"))
    P = positions()[0][0].steps.P
    flips = 0
    n = 0
    for s, _, _ in positions()[5:200:8]:
        if s.is_over() or s.is_chance() or len(s.legal_actions()) < 2:
            continue
        m = int(s.S[4][SC_TOMOVE])
        c0, t0 = _choice(P, s.S, pv, s.rng, B)
        co, to = _choice(_with_row(P, 1 - m, HORSEMAN, 0.3), s.S, pv, s.rng, B)
        assert co == c0 and np.array_equal(t0[0], to[0]) and np.array_equal(t0[1], to[1])
        flips += _choice(_with_row(P, m, HORSEMAN, 0.3), s.S, pv, s.rng, B)[0] != c0
        n += 1
    assert n >= 15 and flips >= 2


@pytest.mark.parametrize("pols,reader", [((POL_GREEDY, POL_RANDOM), 0), ((POL_RANDOM, POL_GREEDY), 1),
                                         ((POL_RANDOM, POL_MCTS, 0, 8), 1)])
def test_the_batch_kernel_plays_each_side_with_its_own_row(pols, reader):
    """Records of the batch kernel: changing the row of the side that reads weights changes the games,
    changing the random side's row leaves them bit for bit."""
    P = prepare(default_rules())
    base, agg = run_chunk(P, 3, 0, np.array([0, 1] * 6, np.int8), pols, 0)
    same, agg2 = run_chunk(_with_row(P, 1 - reader, ARCHER, 6.0), 3, 0, np.array([0, 1] * 6, np.int8), pols, 0)
    other, _ = run_chunk(_with_row(P, reader, ARCHER, 6.0), 3, 0, np.array([0, 1] * 6, np.int8), pols, 0)
    assert np.array_equal(base, same) and np.array_equal(agg, agg2)
    assert not np.array_equal(base, other)


def test_the_trajectory_judges_with_row_0():
    P = prepare(default_rules())
    v, *_ = trajectory(P, 5, 0, 0, (POL_RANDOM, POL_RANDOM))
    v1, *_ = trajectory(_with_row(P, 1, ARCHER, 6.0), 5, 0, 0, (POL_RANDOM, POL_RANDOM))
    v0, *_ = trajectory(_with_row(P, 0, ARCHER, 6.0), 5, 0, 0, (POL_RANDOM, POL_RANDOM))
    assert np.array_equal(v, v1) and not np.array_equal(v, v0)


# ---------------------------------------------------------------- (c) quiet
def test_quiet_positions_are_a_real_share_and_quiet_means_no_take():
    """Quiet <=> no capture and no shot among the mover's legal actions (the shield rule included), on
    every position; and quiet positions are more than 5% of positions of play."""
    pos = positions()
    quiet_n = 0
    for s, quiet, _f in pos:
        N = s.steps.N
        takes = False
        for c in s.legal_actions():
            if c == s.steps.pass_code:
                continue
            a = int(action_of_nb(np.int64(c), N))
            takes |= act_type(a) == 1 or s.S[0][act_to(a)] != 0
        assert quiet == (not takes)
        quiet_n += quiet
    share = quiet_n / len(pos)
    assert 0.05 < share < 0.95, share


def test_a_pending_landing_is_not_quiet():
    """facing = "random": between a Shieldman's move and its landing facing the turn has not passed."""
    s = env.new_game("skorm", seed=1, game_index=0, overrides={"facing": "random"})
    pv = policy_vector(SPEC, ("random", "random"))
    seen = 0
    while not s.is_over() and seen < 3:
        if s.is_chance():
            assert s.steps.features(s.S)[0] is False
            seen += 1
            s.roll()
        else:
            s.apply(s.scripted_action(pv))
    assert seen == 3


def test_features_nb_fills_the_given_array():
    s, quiet, f = positions()[10]
    P = s.steps.P
    out = np.full(len(EVAL_FEATURES), 99.0)
    q, g = features_nb(P, s.S[0], s.S[1], s.S[2], s.S[4], s.S[8], P[P_EVAL][0], out)
    assert g is out or np.shares_memory(g, out)
    assert q == quiet and np.array_equal(out, f)
