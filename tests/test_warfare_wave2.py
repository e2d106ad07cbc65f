"""Warfare!, wave 2: WF-C1 compensation, the trajectory hook, policy knobs."""
import importlib

import numpy as np
import pytest

from simkit.games.warfare import SPEC
from simkit.games.warfare import search as WS
from simkit.games.warfare.moves import turn_limit_nb
from simkit.policies import policy_vector
from test_warfare_play import check_game
from warfare_helpers import params

play_mod = importlib.import_module("simkit.games.warfare.play")


@pytest.mark.parametrize("turn, want, want2", [(0, 36, 36), (1, 36, 36), (2, 5, 5), (3, 8, 8), (4, 5, 5), (5, 5, 8),
                                              (6, 5, 5), (7, 5, 5)])
def test_wf_c1_extra_activations_only_on_the_second_players_first_phase3_turns(turn, want, want2):
    # turns 0 / 1 are the phase-2 turns (every unit acts); the second player's phase-3 turns are 3, 5, 7...
    Pm = params(second_player_extra_activations=3)
    assert turn_limit_nb(Pm[0], np.int64(turn), np.int64(36)) == want
    Pm = params(second_player_extra_activations=3, second_player_extra_turns=2)
    assert turn_limit_nb(Pm[0], np.int64(turn), np.int64(36)) == want2
    assert turn_limit_nb(params()[0], np.int64(turn), np.int64(36)) == (36 if turn < 2 else 5)


def test_wf_c1_the_search_plays_the_same_limit():
    # the search's games start turns through begin_turn_nb: the same limit as the batch kernel
    Pm = params(second_player_extra_activations=2)
    ip = Pm[0]
    nu = int(ip[13] + ip[14])
    for turn in (2, 3, 4):
        S = WS.new_state_nb(np.int64(nu), ip[2], np.int64(8), np.int64(8))
        occ, usq, utype, uside, alive, meta = (S[WS.S_OCC], S[WS.S_USQ], S[WS.S_TYPE], S[WS.S_SIDE], S[WS.S_ALIVE],
                                               S[WS.S_META])
        occ[:] = -1
        usq[:] = -1
        usq[0], occ[60] = 60, 0                 # one lone infantry of side 0 that can move
        utype[:] = 2
        uside[nu // 2:] = 1
        usq[nu - 1], occ[100] = 100, nu - 1     # and one of side 1
        alive[:] = 1
        meta[WS.M_TURN] = turn
        meta[WS.M_PLAYER] = turn % 2
        meta[WS.M_RESULT] = -2
        WS.start_turn_nb(Pm, S)
        assert meta[WS.M_LIMIT] == (7 if turn == 3 else 5) and meta[WS.M_RESULT] == -2


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
        "second_player_extra_activations", "second_player_extra_turns", "phase2_steps", "max_turns"}


# ------------------------------------------------------------------ trajectory (issue 16)

def _count(p, side, phase2):
    from simkit.games.warfare.moves import count_activations_nb
    P = p.P
    nbuf = P[7].shape[2] + 8 + P[4].shape[1]
    return int(count_activations_nb(np.int64(side), phase2, P[0], P[5], P[6], P[7], P[9], P[10], p.occ, p.usq,
                                    p.uface, p.uside, p.utype, np.int64(p.nu), np.zeros(nbuf, np.int64)))


def test_first_decision_options_counted_by_hand():
    from warfare_helpers import Pos
    # side 0: Infantry (5,5) facing N with an Archer behind it on (5,4); side 1: Infantry (5,7).
    # Infantry: stay, W, E, N (5,6) and the swap onto (5,4): 5 squares, each a one-step straight
    # move (any of 4 facings) = 20; the only attack: from (5,6) facing N.  -> 21
    # Archer: stay, (4,4), (6,4), (5,3) and the swap onto (5,5): 20; shots at (5,7) facing N from
    # (5,4), (4,4), (6,4) and (5,5) (distance ahead <= 3, sideways <= ahead); (5,3) is 4 away -> 24
    # plus ending the turn: 1 + 21 + 24 = 46; in phase 2 nobody attacks: 1 + 20 + 20 = 41
    p = Pos(params(), [(0, "infantry", 5, 5, "N"), (0, "archer", 5, 4, "N"), (1, "infantry", 5, 7, "S")])
    assert _count(p, 0, False) == 46
    assert _count(p, 0, True) == 41


def _kills_per_turn(log, turns):
    k = np.zeros(turns, np.int64)
    for r in log:
        if r[2] >= 0:
            k[r[0]] += (1 if r[8] in (0, 1) else 0) + r[11]
    return k


@pytest.mark.parametrize("names, over", [(["random", "random"], {"max_turns": 30}), (["greedy", "greedy"], {}),
                                         (["greedy", "random"], {"deployment": "random"}),
                                         (["mcts:6", "greedy"], {"max_turns": 16})])
def test_trajectory_plays_run_chunks_game(names, over):
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY
    F = {f: i for i, f in enumerate(SPEC.record_fields)}
    Pm = params(**over)
    pv = np.array(policy_vector(SPEC, names), np.int64)
    vals = np.array([2.0 if u in ("spearman", "infantry") else 3.0 if u == "cavalry" else 1.5
                     for u in ("cavalry", "spearman", "infantry", "archer")])
    for seed in (4, 9):
        for game in range(2):
            first = (game + seed) % 2
            v, legal, inter, rec = play_mod.trajectory(Pm, seed, game, first, pv)
            want, _ = play_mod.run_chunk(Pm, seed, game, np.array([first], np.int8), pv, DEFAULT_SNAPSHOT_PLY)
            assert np.array_equal(rec, want[0])
            L = int(rec[2])
            assert len(v) == L + 1 and len(legal) == L and len(inter) == L
            # kills per turn: the activation log's deaths (combat outcomes + surround kills)
            _, log, _, _ = play_mod.play_one(Pm, seed, game, first, pv, DEFAULT_SNAPSHOT_PLY)
            assert np.array_equal(inter, _kills_per_turn(log, L))
            assert inter.sum() == sum(int(rec[F[f"losses_{s}_{u}"]]) for s in (0, 1) for u in UNITS4)
            # material lead: equal armies start level, the end is the record's final material
            assert v[0] == 0.0
            fin = [sum(vals[k] * int(rec[F[f"final_{s}_{u}"]]) for k, u in enumerate(UNITS4)) for s in (0, 1)]
            assert v[-1] == pytest.approx(fin[0] - fin[1])
            # the lead moves only in turns in which a unit died
            assert (np.diff(v)[inter == 0] == 0).all()
            if rec[1] in (0, 1) and rec[3] == 0:
                assert np.sign(v[-1]) == (1 if rec[1] == 0 else -1)
            assert (legal >= 1).all()
            assert (legal[:2] > 1).all()       # both phase-2 turns: every unit may move


UNITS4 = ("cavalry", "spearman", "infantry", "archer")


def test_quality_runs_on_warfare(tmp_path):
    from simkit.analysis.quality import quality
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    res = quality(load_scenario("warfare", ["max_turns=40"]), RunConfig(games=6, seed=1, policies=("greedy", "greedy")))
    m = res.metrics()
    assert m["branching"]["mean"] > 1 and 0 <= m["decision_moves"]["mean"] <= 1
    assert res.per_game["length"].max() <= 40
