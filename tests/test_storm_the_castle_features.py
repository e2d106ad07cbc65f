"""Storm the Castle's evaluation as weighted features (issue 23): the weight table's rows, who reads which
row, and features.py's features, checked against the game's own lead functions on positions the step API
reaches."""
import numpy as np
import pytest

from simkit import env
from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle import rules as R
from simkit.games.storm_the_castle.env import StormTheCastleSteps
from simkit.games.storm_the_castle.evaluate import W_THREAT, W_THREAT_NOW, lead_nb, material_lead_nb
from simkit.games.storm_the_castle.play import trajectory
from simkit.games.storm_the_castle.search import PD_KIND
from simkit.games.storm_the_castle.state import (C_ACTED, C_OWNER, C_TYPE, G_ATTACKS, G_PHASE, G_SIDE, G_TURN,
                                                 PH_DISPATCH)
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

GAME = "storm_the_castle"
P0 = load_scenario(GAME).params()
T = len(P0.names)
PV = {k: policy_vector(SPEC, k) for k in (("random", "random"), ("greedy", "greedy"), ("greedy", "random"),
                                          ("random", "greedy"))}


def _steps(p):
    return StormTheCastleSteps(SPEC, p)


def _with_rows(p, row0=None, row1=None):
    """``p`` with its weight table's rows replaced (data only: nothing is recompiled)."""
    wt = p.wt.copy()
    if row0 is not None:
        wt[0] = row0
    if row1 is not None:
        wt[1] = row1
    return p._replace(wt=wt)


def _positions(p=P0, seeds=range(4), games=3, every=1):
    """(S copy, first decision of its side's turn?) at the decisions of step-API games: random and greedy
    play, several seeds; chance nodes included (S copy, None)."""
    out = []
    for seed in seeds:
        for k in range(games):
            pv = list(PV.values())[(seed + k) % len(PV)]
            s = env.State(_steps(p), seed, k, k % 2)
            last_turn = -1
            i = 0
            while not s.is_over():
                i += 1
                if s.is_chance():
                    if i % every == 0:
                        out.append((tuple(a.copy() for a in s.S), None))
                    s.roll()
                    continue
                turn = int(s.S[4][G_TURN])
                if i % every == 0:
                    out.append((tuple(a.copy() for a in s.S), turn != last_turn))
                last_turn = turn
                s.apply(s.scripted_action(pv))
    return out


@pytest.fixture(scope="module")
def positions():
    return _positions()


def _material(p, S, w):
    return material_lead_nb(S[0], S[1], S[2], S[3], p.ctab, w, p.dist, p.keep)


def _lead(p, S, w):
    return lead_nb(S[0], S[1], S[2], S[3], p.ctab, w, p.dist, p.keep, np.int64(S[4][G_SIDE]))


def _walk_in_bonus(p, S):
    """lead_nb's fixed terms, by the rules' words: a unit that moves and stands within its move of the empty
    enemy keep is worth W_THREAT_NOW to its side if that side moves next, else W_THREAT."""
    cards, sp = S[0], S[1]
    to_move = int(S[4][G_SIDE])
    bonus = 0.0
    for s in (0, 1):
        ek = p.keep[1 - s]
        if sp[ek, 0] >= 0:
            continue
        threat = any(sp[x, j] >= 0 and cards[sp[x, j], C_OWNER] == s
                     and 0 < p.dist[x, ek] <= p.ctab[cards[sp[x, j], C_TYPE], R.T_MOVE]
                     for x in range(sp.shape[0]) for j in range(2))
        if threat:
            bonus += (1 if s == 0 else -1) * (W_THREAT_NOW if to_move == s else W_THREAT)
    return bonus


def test_the_weight_table_is_declared_and_holds_the_hand_set_weights():
    assert SPEC.eval_slot == R.Params._fields.index("wt") == len(R.Params._fields) - 1
    wt = P0[SPEC.eval_slot]
    n = len(SPEC.eval_features)
    assert wt.dtype == np.float64 and wt.shape == (2, n) == (2, 2 * T + 1)
    assert SPEC.eval_features[:T] == tuple(f"material:{c}" for c in P0.names)
    assert SPEC.eval_features[T:2 * T] == tuple(f"hand:{c}" for c in P0.names)
    assert SPEC.eval_features[-1] == "advance"
    for row in wt:
        assert np.array_equal(row[:T], P0.cval) and np.array_equal(row[T:2 * T], R.W_HAND * P0.cval)
        assert row[-1] == R.W_ADVANCE
    assert P0.cval[P0.names.index("knight")] == 7.0
    # a deck of its own: the features follow it
    deck = dict(R.DEFAULT_DECK)
    deck["archer"] = {"kind": "regular", "cost": 2, "attack": 2, "defense": 1, "copies": 2, "range": 2}
    sc = load_scenario(GAME, {"deck": deck, "dispatch_priority": []})
    assert sc.spec.eval_features[T] == "material:archer" and sc.spec.eval_features[-2] == "hand:archer"
    assert sc.params()[sc.spec.eval_slot].shape == (2, len(sc.spec.eval_features))


def test_features_give_the_lead_for_any_row(positions):
    """(a) For >= 200 positions of random and greedy play: the lead with row w2 minus the lead with row w is
    (w2 - w) . f, and the default row's dot product plus the walk-in bonus is the trajectory's lead."""
    steps = _steps(P0)
    assert len(positions) >= 200
    rng = np.random.default_rng(23)
    w = P0.wt[0]
    nonzero = np.zeros(2 * T + 1, bool)
    for S, _ in positions:
        quiet, f = steps.features(S)
        assert f.dtype == np.float64 and f.shape == (2 * T + 1,)
        nonzero |= f != 0
        w2 = w * rng.uniform(0.0, 3.0, w.shape) + rng.normal(0.0, 2.0, w.shape)
        m, m2 = _material(P0, S, w), _material(P0, S, w2)
        scale = 1.0 + np.abs(w2 - w) @ np.abs(f) + np.abs(w) @ np.abs(f)
        assert abs((m2 - m) - (w2 - w) @ f) <= 1e-9 * scale
        assert abs(m - w @ f) <= 1e-9 * scale
        lead, lead2 = _lead(P0, S, w), _lead(P0, S, w2)
        fixed = _walk_in_bonus(P0, S)
        assert abs(lead - (w @ f + fixed)) <= 1e-9 * scale
        assert abs((lead2 - lead) - (w2 - w) @ f) <= 1e-9 * scale
    assert nonzero[2 * T] and nonzero[T:2 * T].any()
    assert nonzero[:T].sum() >= T - 2          # nearly every card type met on the board


def test_the_step_apis_evaluation_and_the_trajectory_read_row_0(positions):
    w = P0.wt[0]
    other = w.copy()
    other[:T] *= 3.0
    other[-1] = 0.0
    base, row1, row0 = _steps(P0), _steps(_with_rows(P0, row1=other)), _steps(_with_rows(P0, row0=other))
    differs = 0
    for S, first in positions:
        if first is None:
            continue
        v = base.evaluate(S)
        assert row1.evaluate(S) == v
        differs += row0.evaluate(S) != v
    assert differs > len(positions) // 4
    pv = PV[("random", "random")]           # random play reads no row: the same games
    for g in range(3):
        v = trajectory(P0, 5, g, g % 2, pv)
        v1 = trajectory(_with_rows(P0, row1=other), 5, g, g % 2, pv)
        v0 = trajectory(_with_rows(P0, row0=other), 5, g, g % 2, pv)
        for a, b in zip(v, v1):
            assert np.array_equal(a, b)
        assert np.array_equal(v[3], v0[3]) and not np.array_equal(v[0], v0[0])


def _greedy_choice(p, S, pv, seed=7):
    rng = np.array([seed], np.uint64)
    code = _steps(p).choose(tuple(a.copy() for a in S), pv, rng)
    return code, int(rng[0])


def _flip(p, positions, side, pv, rows):
    """A decision of ``side`` whose choice changes when its own row becomes one of ``rows`` (one card's value
    changed) while the other side's row the same does not change it: (S, row) or None."""
    for S, first in positions:
        if first is None or int(S[4][G_SIDE]) != side:
            continue
        base = _greedy_choice(p, S, pv)
        for row in rows:
            own = _with_rows(p, **{f"row{side}": row})
            theirs = _with_rows(p, **{f"row{1 - side}": row})
            if _greedy_choice(own, S, pv)[0] != base[0]:
                assert _greedy_choice(theirs, S, pv) == base     # the other side's row: not even a draw moves
                return S, row
    return None


def _one_card_rows(w, cards, values):
    rows = []
    for c in cards:
        for v in values:
            row = w.copy()
            row[P0.names.index(c)] = v
            rows.append(row)
    return rows


@pytest.mark.parametrize("side", [0, 1])
def test_greedy_reads_the_movers_row(positions, side):
    """(b) An attack choice that flips when the mover's value of one card changes, and not when the other
    side's does (same draws)."""
    pv = PV[("greedy", "greedy")]
    w = P0.wt[side]
    rows = _one_card_rows(w, P0.names, (0.0, 40.0))
    found = _flip(P0, positions, side, pv, rows)
    assert found is not None, "no greedy decision of this side depends on one card's value"
    # and the mover's row with its hand-set values chooses as before: only that card's value moved it
    S, row = found
    assert _greedy_choice(_with_rows(P0, **{f"row{side}": w}), S, pv) == _greedy_choice(P0, S, pv)


def test_greedy_dispatch_by_value_reads_the_movers_row():
    """With dispatch_order = "value", the dispatch order is the mover's values per cost: a card made precious
    in the mover's row is dispatched first; the other side's row changes nothing."""
    p = load_scenario(GAME, {"dispatch_order": "value"}).params()
    assert p.fopt[R.F_PRIO_VALUE] == 1.0 and P0.fopt[R.F_PRIO_VALUE] == 0.0
    pv = PV[("greedy", "greedy")]
    found = 0
    for S, first in _positions(p, seeds=(0,), games=2):
        if not first or S[4][G_PHASE] != PH_DISPATCH:
            continue
        side = int(S[4][G_SIDE])
        base = _greedy_choice(p, S, pv)
        for c in P0.names:
            t = P0.names.index(c)
            row = p.wt[side].copy()
            row[t] = 500.0
            own = _greedy_choice(_with_rows(p, **{f"row{side}": row}), S, pv)
            assert _greedy_choice(_with_rows(p, **{f"row{1 - side}": row}), S, pv) == base
            label = _steps(p).label(S, own[0])
            if own[0] != base[0]:
                assert label.startswith(f"dispatch {c} ")      # the precious card goes first
                found += 1
    assert found >= 3


def test_the_search_reads_the_searchers_row(positions):
    """(b) mcts:N: the other side's row changes nothing in the searcher's tree (the same code, the same draws);
    the searcher's own row moves some decisions."""
    pv = policy_vector(SPEC, ("mcts:24", "mcts:24"))
    w = P0.wt[0]
    odd = w.copy()
    odd[:T] = odd[:T][::-1]          # the card values reversed, no hand value, all on the advance
    odd[T:2 * T] = 0.0
    odd[-1] = 60.0
    moved = 0
    tried = 0
    for S, first in positions[::7]:
        if first is None:
            continue
        side = int(S[4][G_SIDE])
        base = _greedy_choice(P0, S, pv)
        assert _greedy_choice(_with_rows(P0, **{f"row{1 - side}": odd}), S, pv) == base
        moved += _greedy_choice(_with_rows(P0, **{f"row{side}": odd}), S, pv)[0] != base[0]
        tried += 1
        if tried >= 30 and moved >= 2:
            break
    assert moved >= 2


def test_quiet_is_the_start_of_a_turn(positions):
    """(c) Quiet positions are a real share of the positions, and quiet means: the side to move's first
    decision of its turn (in the dispatch phase, or in the action phase when the dispatch offered no choice),
    before anything is spent or done; never while a roll is pending."""
    steps = _steps(P0)
    quiet_n = in_actions = 0
    for S, first in positions:
        quiet, f = steps.features(S)
        g = S[4]
        if first is None:
            assert S[5][PD_KIND] != 0 and not quiet
            continue
        assert quiet == first
        if quiet:
            quiet_n += 1
            in_actions += g[G_PHASE] != PH_DISPATCH
            side = int(g[G_SIDE])
            assert g[G_ATTACKS] == 0 and S[5][PD_KIND] == 0
            assert not any(S[0][c, C_ACTED] for c in range(S[0].shape[0]) if S[0][c, C_OWNER] == side)
    assert quiet_n > 0.05 * len(positions)
    assert 0 < in_actions < quiet_n      # both kinds of turn start are met
