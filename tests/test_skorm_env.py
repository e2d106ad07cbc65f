"""Skorm's step API (simkit/games/skorm/env.py) where the shared conformance suite does not look:
the landing facing as a chance event (``facing = "random"``), random placement, the pass of a side
with no action, labels and the observation's planes."""
import numpy as np
import pytest

from simkit import env
from simkit.engine.chunk import play_chunk
from simkit.games import get_game
from simkit.games.skorm.state import SC_TOMOVE, ST_PASS, index_slots_nb
from simkit.policies import policy_vector
from skorm_helpers import A, S, W, params_for, position

RANDOM_LANDING = {"facing": "random", "placement": "random"}


def play_out(state, pv):
    while not state.is_over():
        state.roll() if state.is_chance() else state.apply(state.scripted_action(pv))


@pytest.mark.parametrize("pols", [("random", "greedy"), ("eps:0.3:greedy", "mcts:4")], ids="-".join)
def test_random_landings_are_chance_events_and_the_game_is_the_kernels(pols):
    """facing = "random": every Shieldman move leaves its landing to a chance event (six facings, 1/6 each);
    rolled from the game's stream it is the kernel's draw, so the record and the deaths are the kernel's."""
    spec = get_game("skorm")
    sc = env.game_scenario("skorm", RANDOM_LANDING)
    pv = policy_vector(spec, pols)
    games = 6
    _, records, agg = play_chunk("skorm", sc.params_for(pols), 11, 0, games, "alternate",
                                 tuple(int(x) for x in pv), 8)
    total = np.zeros_like(agg)
    landings = 0
    for k in range(games):
        s = env.new_game_from(sc, seed=11, game=k, first=int(records[k, 0]), snapshot_ply=8, policies=pols)
        while not s.is_over():
            if s.is_chance():
                assert s.chance_outcomes() == [(d, 1 / 6) for d in range(6)]
                assert s.current_player == env.CHANCE and "lands" in s.render()
                landings += 1
                s.roll()
            else:
                s.apply(s.scripted_action(pv))
        np.testing.assert_array_equal(s.record(), records[k], err_msg=f"game {k}")
        total += s.agg
    np.testing.assert_array_equal(total, agg)
    assert landings > 0
    steps = env.steps_of(sc)
    assert steps.max_outcomes == 6 and steps.max_decisions == 2 * 300


def test_default_skorm_has_no_chance_event():
    s = env.new_game("skorm", seed=2)
    assert s.steps.max_outcomes == 0 and s.steps.num_actions == 2 * 61 * 61 + 1
    play_out(s, policy_vector(get_game("skorm"), ("random", "random")))
    assert all(p in (0, 1) for p, _ in s.history)


def _into_state(state, game):
    """Put a hand-built position (skorm_helpers.position) into a step-API state."""
    S_ = state.S
    for k, a in enumerate((game.cell, game.face, game.plist)):
        S_[k][...] = a
    S_[4][:] = game.sc
    index_slots_nb(S_[2], S_[4], S_[3])
    state._refresh()


def test_a_side_with_no_action_has_one_decision_the_pass():
    """Side 0's Warlord alone in its corner, the three cells next to it held by enemy Shieldmen facing it
    (SK-6: no capture; no empty cell to step through): its only decision is the pass, counted in the record."""
    s = env.new_game("skorm")
    g = position(params_for(), [((0, -4), 0, W, None), ((1, -4), 1, S, 3), ((-1, -3), 1, S, 1),
                                ((0, -3), 1, S, 2), ((0, 4), 1, W, None), ((2, 2), 1, A, None)])
    _into_state(s, g)
    assert s.legal_actions() == [s.steps.pass_code] and s.action_label(s.steps.pass_code) == "pass"
    for pol in ("random", "greedy", "mcts:4"):
        assert s.clone().scripted_action(policy_vector(get_game("skorm"), (pol, pol))) == s.steps.pass_code
    s.apply(s.steps.pass_code)
    assert int(s.S[4][SC_TOMOVE]) == 1 and int(s.S[9][ST_PASS]) == 1
    assert s.steps.pass_code not in s.legal_actions()


def test_labels_describe_and_observation_planes():
    s = env.new_game("skorm", seed=0, first=0)
    labels = {s.action_label(a): a for a in s.legal_actions()}
    assert "S(0,-1)-(0,0)" in labels and "W(0,-4)-(0,-3)" in labels
    assert all(lab[0] in "SAHW" for lab in labels)     # side 0 to move: upper case, as the trace
    assert s.steps.describe(s.S, labels["S(0,-1)-(0,0)"]) == "side 0 shieldman (0,-1) -> (0,0)"
    obs, mask = s.observation(1)
    N = 61
    planes = obs[:15 * N].reshape(15, N)
    assert planes[:8].sum(axis=1).tolist() == [5, 5, 4, 1] * 2          # pieces by side and kind
    assert planes[8:14].sum() == 10 and planes[8 + 5].sum() == 5         # side 0's Shieldmen face 5, side 1's 2
    assert obs[15 * N:15 * N + 4].tolist() == [0, 1, 1, 0] and mask.sum() == 0
    # a shot's label and its code's round trip through the rules' words
    pv = policy_vector(get_game("skorm"), ("greedy", "greedy"))
    for _ in range(40):
        if s.is_over():
            break
        for a in s.legal_actions():
            lab = s.action_label(a)
            assert ("*" in lab) == (a >= N * N and a != s.steps.pass_code)
        s.apply(s.scripted_action(pv))


def test_openspiel_sees_random_landings_as_explicit_chance():
    """Under ``facing = "random"`` the OpenSpiel game declares explicit chance nodes with six outcomes and
    passes OpenSpiel's random-simulation checks (the default rules are deterministic: test_env_adapters)."""
    pyspiel = pytest.importorskip("pyspiel")
    from simkit.env import openspiel
    g = openspiel.load_game("skorm", facing="random")
    assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert g.max_chance_outcomes() == 6
    pyspiel.random_sim_test(g, num_sims=3, serialize=False, verbose=False)
