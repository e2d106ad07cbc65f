"""Warfare!, wave 2: WF-C1 compensation, the trajectory hook, policy knobs."""
import importlib

import numpy as np
import pytest

from simkit.games.warfare import SPEC
from simkit.games.warfare.mcts import SC_LIMIT, SC_N, SC_PLAYER, SC_TURN, begin_turn_nb
from simkit.games.warfare.moves import turn_limit_nb
from simkit.policies import policy_vector
from test_warfare_play import check_game
from warfare_helpers import params

play_mod = importlib.import_module("simkit.games.warfare.play")


@pytest.mark.parametrize("turn, want", [(0, 36), (1, 36), (2, 5), (3, 8), (4, 5), (5, 5), (7, 5)])
def test_wf_c1_extra_activations_only_on_turn_3(turn, want):
    # turn 0 / 1 are the phase-2 turns (every unit acts), turn 3 the second player's first phase-3 turn
    Pm = params(second_player_extra_activations=3)
    assert turn_limit_nb(Pm[0], np.int64(turn), np.int64(36)) == want
    assert turn_limit_nb(params()[0], np.int64(turn), np.int64(36)) == (36 if turn < 2 else 5)


def test_wf_c1_the_search_plays_the_same_limit():
    # MCTS's scratch games start turns through begin_turn_nb: the same limit as the batch kernel
    Pm = params(second_player_extra_activations=2)
    ip = Pm[0]
    nu = int(ip[13] + ip[14])
    utype, uside = np.zeros(nu, np.int64), np.zeros(nu, np.int64)
    for turn in (2, 3, 4):
        occ = -np.ones(int(ip[2]), np.int64)
        usq = np.full(nu, -1, np.int64)
        usq[0], occ[60] = 60, 0                 # one lone infantry of side 0 that can move
        utype[:] = 2
        uside[nu // 2:] = 1
        usq[nu - 1], occ[100] = 100, nu - 1     # and one of side 1
        sc = np.zeros(SC_N, np.int64)
        sc[SC_TURN] = turn
        sc[SC_PLAYER] = turn % 2
        begin_turn_nb(sc, Pm, occ, usq, np.zeros(nu, np.int64), utype, uside, np.zeros(nu, np.int64),
                      np.array([1, 1], np.int64), nu)
        assert sc[SC_LIMIT] == (7 if turn == 3 else 5)


def _acts_per_turn(log):
    out = {}
    for r in log:
        if r[2] >= 0:
            out[int(r[0])] = out.get(int(r[0]), 0) + 1
    return out


def test_wf_c1_second_player_acts_more_on_turn_3():
    # one activation a turn, four more on the second player's turn 3; random play rarely ends a
    # turn early (1 chance in #units + 1), so over a few games turn 3 reaches its 5
    Pm = params(activations=1, second_player_extra_activations=4, max_turns=12)
    best3 = 0
    for game in range(6):
        rec, log, _, _ = play_mod.play_one(Pm, 3, game, game % 2, [0, 0])
        n = _acts_per_turn(log)
        assert all(n.get(t, 0) <= 1 for t in range(2, 12) if t != 3)
        assert n.get(3, 0) <= 5
        best3 = max(best3, n.get(3, 0))
        if n.get(3, 0):
            assert (log[log[:, 0] == 3][:, 1] == 1 - game % 2).all()     # turn 3 is the second player's
        check_game(Pm, 3, game, game % 2, [0, 0])
    assert best3 == 5


def test_wf_c1_changes_greedy_games_and_shifts_them_to_the_second_player():
    firsts = (np.arange(200) % 2).astype(np.int8)
    a, _ = play_mod.run_chunk(params(), 5, 0, firsts, [1, 1], 6)
    b, _ = play_mod.run_chunk(params(second_player_extra_activations=5), 5, 0, firsts, [1, 1], 6)
    assert not np.array_equal(a, b)
    # activations_<side> counts: the second player made more activations in b on the same games
    F = {f: i for i, f in enumerate(SPEC.record_fields)}
    second = 1 - firsts.astype(int)
    act_a = a[np.arange(200), F["activations_0"] + second]
    act_b = b[np.arange(200), F["activations_0"] + second]
    assert act_b.mean() > act_a.mean()
    for game in range(2):
        check_game(params(second_player_extra_activations=5), 5, game, game % 2,
                   tuple(policy_vector(SPEC, ["greedy", "mcts:6"])))


def test_policy_weights_are_policy_knobs_and_sensitivity_varies_only_rules():
    from simkit.analysis.sensitivity import rule_knobs
    knobs = {o.name: o.policy_knob for o in SPEC.options}
    assert all(knobs[n] for n in knobs if n.startswith(("greedy_", "mcts_")))
    assert {o.name for o in rule_knobs(SPEC)} == {
        "width", "height", "deploy_rows", "mod_cavalry_charge_infantry", "mod_cavalry_vs_archer_fire",
        "mod_infantry_front_vs_archer", "mod_spearman_vs_infantry", "mod_tree_defense", "activations",
        "second_player_extra_activations", "phase2_steps", "max_turns"}
