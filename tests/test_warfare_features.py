"""Warfare!'s evaluation as weighted features (issue 23, simkit learn): the weight table params[16], a row per
side; the lead is dot(row, features) for any row; each reader reads its own side's row; quiet positions."""
import numpy as np
import pytest

from simkit.engine.rng import rng_seed_nb
from simkit.env.state import State
from simkit.games.warfare import SPEC
from simkit.games.warfare import search as WS
from simkit.games.warfare.env import WarfareSteps
from simkit.games.warfare.features import features_nb, lead_of_nb
from simkit.games.warfare.moves import cap_winner_nb
from simkit.games.warfare.state import EV_THREAT, EVAL_FEATURES, FP_VALUE, NEV, P_EVAL, UNITS
from simkit.policies import POLICY_VECTOR
from warfare_helpers import Pos, params

P = params()
GREEDY = [1, 1]


def _rng(seed):
    rng = np.zeros(1, np.uint64)
    rng_seed_nb(rng, np.int64(seed), np.int64(0))
    return rng


def _pv(ids):
    pv = np.zeros(POLICY_VECTOR, np.int64)
    pv[:len(ids)] = ids
    return pv


def with_rows(P, row0=None, row1=None):
    """``P`` with side 0's and/or side 1's row of the weight table replaced (a copy: rows are data)."""
    table = P[P_EVAL].copy()
    if row0 is not None:
        table[0] = row0
    if row1 is not None:
        table[1] = row1
    return P[:P_EVAL] + (table,) + P[P_EVAL + 1:]


def positions(n_games=6, cap=160):
    """(state, S) at every decision of step-API games, random and greedy (and a random-vs-greedy mix),
    several seeds; each S is a copy, so later moves do not change it."""
    out = []
    for g in range(n_games):
        pols = ([0, 0], [1, 1], [0, 1])[g % 3]
        s = State(WarfareSteps(SPEC, P), seed=11 + g, first=g % 2)
        k = 0
        while not s.is_over() and k < cap:
            if s.is_chance():
                s.roll()
                continue
            out.append((g, tuple(a.copy() for a in s.S)))
            s.apply(s.scripted_action(pols))
            k += 1
    return out


@pytest.fixture(scope="module")
def stepped():
    return positions()


def test_the_spec_declares_the_table_and_both_rows_are_the_rules_weights():
    assert SPEC.eval_slot == P_EVAL == len(P) - 1 and SPEC.knobs_slot == 15      # appended: no index moved
    assert SPEC.eval_features == EVAL_FEATURES == ("material:cavalry", "material:spearman", "material:infantry",
                                                    "material:archer", "threat")
    table = P[P_EVAL]
    assert table.dtype == np.float64 and table.shape == (2, NEV)
    rules_values = [3.0, 2.0, 2.0, 1.5]
    for side in (0, 1):
        assert table[side, :4].tolist() == rules_values == P[11][FP_VALUE:FP_VALUE + 4].tolist()
        assert table[side, EV_THREAT] == 0.5
    q = params(values={"archer": 4.0}, mcts_threat=1.25)
    assert q[P_EVAL][1].tolist() == [3.0, 2.0, 2.0, 4.0, 1.25]


def test_the_lead_is_the_dot_product_of_any_row_with_the_features(stepped):
    assert len(stepped) >= 200
    w = P[P_EVAL][0].copy()
    rs = np.random.default_rng(3)
    rows = [np.array([1.0, 5.0, 0.5, 3.0, 0.0]), np.array([2.0, 1.0, 4.0, 0.25, -0.7])]
    rows += [np.concatenate([rs.uniform(0.1, 6.0, 4), rs.uniform(-1.0, 2.0, 1)]) for _ in range(3)]
    n_threat = 0
    for _, S in stepped:
        quiet, f = features_nb(P, S)
        assert f.shape == (NEV,) and f.dtype == np.float64
        # material: side 0's units of each type minus side 1's
        usq, utype, uside = S[WS.S_USQ], S[WS.S_TYPE], S[WS.S_SIDE]
        live = usq >= 0
        for t in range(4):
            assert f[t] == np.sum(live & (utype == t) & (uside == 0)) - np.sum(live & (utype == t) & (uside == 1))
        n_threat += f[EV_THREAT] != 0.0
        lead = lead_of_nb(P, S, w)
        # no fixed term: the default row's dot product is the lead the players score with
        assert lead == pytest.approx(float(np.dot(w, f)), rel=1e-9, abs=1e-9)
        for w2 in rows:
            lead2 = lead_of_nb(P, S, w2)
            assert lead2 - lead == pytest.approx(float(np.dot(w2 - w, f)), rel=1e-9, abs=1e-9)
    assert n_threat > len(stepped) // 10          # the threat feature is not a constant 0


def test_the_step_evaluation_reads_row_0_and_squashes_the_lead(stepped):
    from simkit.engine.search import squash_nb
    from simkit.games.warfare.state import FP_MCTS
    from simkit.policies import MC_SCALE
    fp = P[11]
    big = P[P_EVAL][0].copy()
    big[3] = 9.0                          # archers worth 9 to side 0's row only
    steps0, steps_b0, steps_b1 = (WarfareSteps(SPEC, q) for q in (P, with_rows(P, row0=big), with_rows(P, row1=big)))
    moved = 0
    for _, S in stepped[::7]:
        v = steps0.evaluate(S)
        assert steps_b1.evaluate(S) == v                       # side 1's row is not the step API's
        vb = steps_b0.evaluate(S)
        moved += vb != v
        lead = lead_of_nb(P, S, P[P_EVAL][0])
        meta = S[WS.S_META]
        if (100 - meta[WS.M_TURN]) >= 3.0 * 18:   # far from the cap (it draws): no pull to 1/2
            assert v == pytest.approx(float(squash_nb(lead, fp[FP_MCTS + MC_SCALE])), abs=1e-12)
    assert moved > 0


def test_the_trajectory_reads_row_0():
    from simkit.games.warfare import play
    wild = np.array([5.0, -3.0, 5.0, -3.0, 5.0])
    v = play.trajectory(P, 3, 0, 0, [0, 0])[0]           # random play: the games do not read the table
    assert np.array_equal(play.trajectory(with_rows(P, row1=wild), 3, 0, 0, [0, 0])[0], v)
    w = play.trajectory(with_rows(P, row0=wild), 3, 0, 0, [0, 0])[0]
    assert not np.array_equal(w, v)
    assert w[0] == 0.0 and v[0] == 0.0                   # mirror armies: level at the start either way


def _greedy_choice(Pm, p, player=0, turn=10):
    steps = WarfareSteps(SPEC, Pm)
    S = WS.position_state(steps.P, p.usq, p.uface, p.utype, p.uside, turn, player)
    code = steps.choose(S, _pv(GREEDY), _rng(1))
    return steps._decode(S, code)


def _search_choice(Pm, p, budget, seed, player=0, turn=10):
    steps = WarfareSteps(SPEC, Pm)
    S = WS.position_state(steps.P, p.usq, p.uface, p.utype, p.uside, turn, player)
    Wk = WS.new_workspace_nb(steps.P, np.int64(WS.tree_capacity(budget, WS.SEARCH_WIDTH)),
                             np.int64(WS.max_decisions(steps.P)))
    code = int(WS.decide_nb(steps.P, Wk, np.int64(budget), S, _rng(seed)))
    return code, steps._decode(S, code), [a.copy() for a in Wk[0]]


# Side 0's Cavalry on (5,3) can ride to the flank of the enemy Spearman on (3,5) (it faces S: from (4,5) a
# certain kill) or to the enemy Archer on (7,5) (melee against an Archer: a certain kill). Greedy's attack
# score is the target's value times P(win) = 1: the Spearman (2) over the Archer (1.5) by the rules' values.
TWO_TARGETS = [(0, "cavalry", 5, 3, "N"), (1, "spearman", 3, 5, "S"), (1, "archer", 7, 5, "S"),
               (1, "infantry", 0, 11, "S")]


def test_greedy_reads_the_movers_row():
    p = Pos(P, TWO_TARGETS, army=True)
    cav, spear, arch, _ = p.ids
    u, _, _, v = _greedy_choice(P, p)
    assert (u, v) == (cav, spear)
    row = P[P_EVAL][0].copy()
    row[UNITS.index("archer")] = 2.5
    # side 0 (the mover) values archers above spearmen: it takes the Archer
    assert _greedy_choice(with_rows(P, row0=row), p)[3] == arch
    # only side 1's row changed: side 0's choice is the same
    assert _greedy_choice(with_rows(P, row1=row), p)[3] == spear
    # and side 1 moving reads its own row (mirror: side 1's Cavalry, side 0's Spearman and Archer)
    mirror = Pos(P, [(1, "cavalry", 5, 8, "S"), (0, "spearman", 3, 6, "N"), (0, "archer", 7, 6, "N"),
                     (0, "infantry", 0, 0, "N")], army=True)
    _, m_spear, m_arch, _ = mirror.ids
    assert _greedy_choice(P, mirror, player=1)[3] == m_spear
    assert _greedy_choice(with_rows(P, row1=row), mirror, player=1)[3] == m_arch
    assert _greedy_choice(with_rows(P, row0=row), mirror, player=1)[3] == m_spear


def test_the_search_reads_the_searchers_row():
    p = Pos(P, TWO_TARGETS, army=True)
    cav, spear, arch, _ = p.ids
    row = P[P_EVAL][0].copy()
    row[UNITS.index("archer")] = 6.0
    for seed in (1, 2):
        code, (u, _, _, v), tree = _search_choice(P, p, 150, seed)
        assert (u, v) == (cav, spear)
        assert _search_choice(with_rows(P, row0=row), p, 150, seed)[1][3] == arch
        # the other side's row is never read by side 0's search, not even at side 1's nodes or in the
        # rollouts: the very same decision from the very same tree (visits, values, priors)
        odd = np.array([0.5, 7.0, 0.25, 6.0, 3.0])
        same = _search_choice(with_rows(P, row1=odd), p, 150, seed)
        assert same[0] == code and all((a == b).all() for a, b in zip(same[2], tree))


def _turn_starts(n_games=4, cap=200):
    """(quiet, S, starts_a_turn) at every position of step-API games; starts_a_turn from the history alone:
    the game's first position, or the first decision after the turn number moved on."""
    out = []
    for g in range(n_games):
        pols = ([1, 1], [0, 1], [0, 0], [1, 0])[g % 4]
        s = State(WarfareSteps(SPEC, P), seed=40 + g, first=g % 2)
        last_turn = None
        k = 0
        while not s.is_over() and k < cap:
            turn = int(s.S[WS.S_META][WS.M_TURN])
            quiet, f = s.steps.features(s.S)
            starts = not s.is_chance() and turn != last_turn
            out.append((quiet, tuple(a.copy() for a in s.S), starts, s.is_chance()))
            if s.is_chance():
                s.roll()
            else:
                last_turn = turn
                s.apply(s.scripted_action(pols))
            k += 1
    return out


def test_quiet_is_the_start_of_a_turn_and_a_real_share():
    seen = _turn_starts()
    quiet = [q for q, *_ in seen]
    assert 0.05 < np.mean(quiet) < 0.9
    for q, S, starts, chance in seen:
        assert isinstance(q, bool)
        assert q == starts                     # quiet exactly where a side's turn begins
        meta = S[WS.S_META]
        if q:
            # nothing under way: no activation made, no roll or advance pending, every unit may still act
            assert meta[WS.M_NACT] == 0 and meta[WS.M_PU] < 0 and meta[WS.M_ADVU] < 0
            assert not S[WS.S_ACTED].any()
        else:
            assert chance or meta[WS.M_NACT] > 0 or meta[WS.M_ADVU] >= 0


def test_the_cap_adjudication_reads_the_rules_values_not_the_table():
    from simkit.games.warfare import play
    from simkit.games.warfare.state import END_MOVE_LIMIT, R_FINAL
    Pm = params(cap_result="material", max_turns=60)
    big = np.array([0.1, 0.1, 0.1, 50.0, 0.5])    # archers dominate the table's material, both rows
    Pb = with_rows(Pm, row0=big, row1=big)
    # random play reads no weights: the same games, and the same winners at the cap
    r0, _ = play.run_chunk(Pm, 5, 0, [0, 1] * 20, [0, 0], -1)
    r1, _ = play.run_chunk(Pb, 5, 0, [0, 1] * 20, [0, 0], -1)
    assert (r0 == r1).all()
    # ... though the table would have decided some of those games otherwise: the test can fail
    final = r0[:, R_FINAL:R_FINAL + 8].astype(float)
    by_rules = final[:, :4] @ Pm[11][:4] - final[:, 4:] @ Pm[11][:4]
    by_table = final[:, :4] @ big[:4] - final[:, 4:] @ big[:4]
    capped = r0[:, 3] == END_MOVE_LIMIT
    assert capped.all()
    assert (r0[capped, 1] == np.where(by_rules > 0, 0, np.where(by_rules < 0, 1, -1))[capped]).all()
    assert (np.sign(by_rules) != np.sign(by_table))[capped].any()
    p = Pos(Pm, [(0, "cavalry", 0, 0, "N"), (0, "cavalry", 1, 0, "N"), (1, "archer", 5, 11, "S")])
    assert cap_winner_nb(Pb[0], Pb[11], p.usq, p.utype, p.uside, np.int64(p.nu)) == 0


def test_a_changed_row_compiles_nothing():
    from simkit.games.warfare import play
    p = Pos(P, TWO_TARGETS, army=True)

    def run(Pm):
        play.run_chunk(Pm, 1, 0, [0], [1, 1], -1)
        play.run_chunk(Pm, 1, 0, [0], [2, 1, 8, 0, 0, 0], -1)
        S = WS.position_state(Pm, p.usq, p.uface, p.utype, p.uside, 10, 0)
        features_nb(Pm, S)
        lead_of_nb(Pm, S, Pm[P_EVAL][1])
        return [len(f.signatures) for f in (play.batch_nb, features_nb, lead_of_nb)]

    before = run(P)
    assert run(with_rows(P, row0=np.array([1.0, 4.0, 3.0, 2.0, 0.2]), row1=np.array([2.0, 2.0, 2.0, 2.0, 0.0]))) \
        == before
