"""Skorm, wave 2: the SK-C1 compensation, the quality trajectory hook, the policy knobs."""
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from simkit.games.skorm.play import run_chunk
from simkit.games.skorm.state import R_GOLD, R_GOLD_IMM, R_WARLORD, SC_PENDING, SC_PLY, SC_REASON
from skorm_helpers import A, H, W, code, params_for, position

GOLDEN = json.loads((Path(__file__).parent / "data" / "skorm" / "wave2_golden.json").read_text())
CASES = {"random": (0, 0), "greedy": (1, 1), "greedy_noshoot-greedy": (2, 1), "mcts:8-greedy": (3, 1, 8, 0, 0, 0)}


def _records(params, pol, n, seed=11):
    rec, _ = run_chunk(params, seed, 0, (np.arange(n) % 2).astype(np.int8), pol, 30)
    return rec


@pytest.mark.parametrize("name", sorted(CASES))
def test_default_records_are_those_before_sk_c1(name):
    pol = CASES[name]
    rec = _records(params_for(), pol, 6 if 3 in pol[:2] else 30)
    assert hashlib.sha256(np.ascontiguousarray(rec, np.int32).tobytes()).hexdigest() == GOLDEN[name]


# ---------------------------------------------------------------- SK-C1 by hand
# side 1 moves second: its first turn is plies 1 .. k; the positions below start at ply 1
W0, W1 = ((0, -4), 0, W, None), ((0, 4), 1, W, None)
FAR0 = [((-4, 0), 0, A, None), ((-4, 1), 0, A, None), ((-4, 2), 0, A, None), ((-4, 3), 0, A, None)]


def _second_turn(params, pieces):
    g = position(params, pieces, to_move=1)
    g.sc[SC_PLY] = 1
    return g


@pytest.mark.parametrize("k", [1, 2, 3])
def test_sk_c1_second_player_keeps_the_turn_for_k_plies(k):
    P = params_for(second_player_first_actions=k)
    g = _second_turn(P, [W0, W1, ((3, 1), 1, H, None)])
    movers = []
    for _ in range(k + 2):
        movers.append(g.to_move)
        g.apply(g.legal_actions()[0])
    assert movers == [1] * k + [0, 1]
    assert not g.done


def test_sk_c1_a_waiting_warlord_wins_when_the_whole_turn_is_over():
    on_gold = ((0, 0), 0, W, None)
    for k in (1, 2):
        g = _second_turn(params_for(second_player_first_actions=k), [on_gold, W1, ((3, 1), 1, H, None)])
        g.sc[SC_PENDING] = 0          # side 0's Warlord arrived in its first turn (a small board's case)
        g.apply(code(g.params, (3, 1), (4, 0)))
        if k == 2:
            assert not g.done         # mid-turn: the wait is judged at the turn's end
            g.apply(code(g.params, (4, 0), (3, 1)))
        assert g.done and g.winner == 0 and g.sc[SC_REASON] == R_GOLD


def test_sk_c1_a_warlord_kill_in_mid_turn_ends_the_game_at_once():
    g = _second_turn(params_for(second_player_first_actions=2),
                     [((0, 0), 0, W, None), W1, ((0, 1), 1, H, None)])
    g.sc[SC_PENDING] = 0
    g.apply(code(g.params, (0, 1), (0, 0)))
    assert g.done and g.winner == 1 and g.sc[SC_REASON] == R_WARLORD


def test_sk_c1_gold_arrival_counts_where_the_turn_ends():
    P = params_for(second_player_first_actions=2)
    many = [W0, ((0, 2), 1, W, None), ((3, 1), 1, H, None)] + FAR0   # side 0: 4 pieces besides its Warlord
    # arrive in mid-turn, step off again: no wait is left behind
    g = _second_turn(P, many)
    g.apply(code(P, (0, 2), (0, 0)))
    assert not g.done and g.sc[SC_PENDING] == -1 and g.to_move == 1
    g.apply(code(P, (0, 0), (0, 1)))
    assert not g.done and g.sc[SC_PENDING] == -1 and g.to_move == 0
    # arrive in mid-turn and stay: the wait starts at the turn's end
    g = _second_turn(P, many)
    g.apply(code(P, (0, 2), (0, 0)))
    g.apply(code(P, (3, 1), (4, 0)))
    assert not g.done and g.sc[SC_PENDING] == 1 and g.to_move == 0
    # against at most 3 other pieces the arrival wins at the turn's end, not before
    g = _second_turn(P, many[:-1])
    g.apply(code(P, (0, 2), (0, 0)))
    assert not g.done
    g.apply(code(P, (3, 1), (4, 0)))
    assert g.done and g.winner == 1 and g.sc[SC_REASON] == R_GOLD_IMM


def test_sk_c1_changes_the_games_from_the_second_players_first_turn():
    base = _records(params_for(), (1, 1), 40, seed=3)
    more = _records(params_for(second_player_first_actions=2), (1, 1), 40, seed=3)
    assert not np.array_equal(base, more)
    # a game the first player wins in one ply cannot exist; lengths stay plausible
    assert (more[:, 2] > 2).all()


# ---------------------------------------------------------------- trajectory (issue 16)
from simkit.games.skorm.play import Game, trajectory  # noqa: E402
from simkit.games.skorm.evaluate import trajectory_lead_nb  # noqa: E402
from simkit.games.skorm.play import TERMINAL_LEAD  # noqa: E402
from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY  # noqa: E402


@pytest.mark.parametrize("pol,seed", [((0, 0), 0), ((1, 1), 0), ((1, 1), 5), ((0, 1), 2), ((1, 0), 9)])
def test_trajectory_plays_run_chunks_game(pol, seed):
    P = params_for()
    firsts = np.array([0, 1, 1, 0], np.int8)
    rec, _ = run_chunk(P, seed, 0, firsts, pol, DEFAULT_SNAPSHOT_PLY)
    for g in range(len(firsts)):
        values, legal, inter, r = trajectory(P, seed, g, int(firsts[g]), pol)
        assert np.array_equal(r, rec[g])
        L = int(rec[g, 2])
        assert len(values) == L + 1 and len(legal) == L and len(inter) == L
        kills = sum(int(rec[g, 12 + j]) for j in range(8))   # kills_<s>_<u>
        assert inter.sum() == kills


def test_trajectory_values_legal_and_kills_follow_the_plies():
    """Replay the same game ply by ply with the step API (same stream: greedy's
    tie-breaks and facing draws come from it in the same order) and compare."""
    P = params_for()
    values, legal, inter, rec = trajectory(P, 4, 1, 1, (1, 1))
    g = Game(P, seed=4, game=1, first=1)
    counts = np.zeros(g.counts.shape[0], np.int64)
    for t in range(len(legal)):
        assert values[t] == trajectory_lead_nb(P, g.cell, g.face, g.plist, g.sc, counts)
        assert legal[t] == len(g.legal_actions())
        before = g.sc[11:19].sum()          # pieces on the board (SC_CNT)
        g.play(1)
        assert inter[t] == before - g.sc[11:19].sum()
    assert g.done and g.winner == rec[1]
    assert values[-1] == (TERMINAL_LEAD if rec[1] == 0 else -TERMINAL_LEAD if rec[1] == 1 else values[-1])


def test_quality_runs_on_skorm(tmp_path):
    from simkit.analysis.quality import quality
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    res = quality(load_scenario("skorm"), RunConfig(games=6, seed=1, policies=("greedy", "greedy")),
                  out_dir=tmp_path / "q")
    m = res.metrics()
    assert m["branching"]["mean"] > 1 and m["interaction"]["mean"] > 0
    assert (tmp_path / "q" / "quality.json").exists()


# ---------------------------------------------------------------- policy knobs (issue 15)
def test_greedy_and_mcts_knobs_are_policy_knobs_and_rules_are_not():
    from simkit.games.skorm.rules import OPTIONS
    knobs = {o.name for o in OPTIONS if o.policy_knob}
    assert {"w_warlord_safety", "w_gold_distance", "w_hanging", "w_advance", "values", "facing",
            "mcts_c", "mcts_rollout", "mcts_cutoff", "mcts_scale", "mcts_prior_temp", "mcts_fpu",
            "mcts_decisive"} <= knobs
    # options that change the game for every policy (random included) are rules
    assert not knobs & {"board_radius", "zone_depth", "army", "archer_range", "horseman_steps", "warlord_steps",
                        "gold_tile", "gold_tile_immediate_max", "max_plies", "placement",
                        "second_player_first_actions", "remove_0", "remove_1"}
