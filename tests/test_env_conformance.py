"""The step API's conformance suite, over every registered game (the toy game too).

A game played through simkit.env with a seed and the scripted policies is the batch kernel's
game: the same record row and aggregate, bit for bit. Shapes and the action space are as
declared, clone() is independent, and an observation shows nothing a player cannot see (it
does not change when what the player cannot see is redealt).
"""
import numpy as np
import pytest

from simkit import env
from simkit.engine.chunk import play_chunk
from simkit.games import get_game
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

# a mix: both scripted policies, the degrader and the search (one with its own knob row), so a
# step-API path that draws from the game's stream differently from the kernel is caught
POLICY_PAIRS = [("random", "greedy"), ("eps:0.3:greedy", "mcts:8"), ("greedy", "mcts:6/mcts_c=0.3")]
SEED = 20261202


def play_out(state, pv, limit=100_000):
    """Play to the end with the scripted policies and the kernel's dice; the number of events."""
    n = 0
    while not state.is_over() and n < limit:
        if state.is_chance():
            state.roll()
        else:
            state.apply(state.scripted_action(pv))
        n += 1
    return n


@pytest.mark.parametrize("pols", POLICY_PAIRS, ids=lambda p: "-".join(p))
def test_step_api_game_is_the_batch_kernels_game(step_game, pols):
    game = step_game
    spec = get_game(game)
    sc = load_scenario(game)
    params = sc.params_for(pols)
    pv = policy_vector(spec, pols)
    games = 8
    _, records, agg = play_chunk(game, params, SEED, 3, games, "alternate", tuple(int(x) for x in pv), 6)
    total = np.zeros_like(agg)
    for k in range(games):
        s = env.new_game_from(sc, seed=SEED, game=3 + k, first=int(records[k, 0]), snapshot_ply=6, policies=pols)
        play_out(s, pv)
        assert s.is_over()
        np.testing.assert_array_equal(s.record(), records[k], err_msg=f"{game} game {3 + k}")
        assert s.winner() == records[k, 1]
        total += s.agg
    np.testing.assert_array_equal(total, agg)


def test_shapes_and_action_space_are_as_declared(step_game):
    game = step_game
    steps = env.new_game(game).steps
    rng = np.random.default_rng(5)
    for g in range(4):
        s = env.new_game(game, seed=1, game_index=g, first=g % 2)
        events = 0
        while not s.is_over():
            for p in (0, 1):
                obs, mask = s.observation(p)
                assert obs.shape == steps.obs_shape and obs.dtype == np.float32
                low, high = steps.obs_low.reshape(obs.shape), steps.obs_high.reshape(obs.shape)
                assert (obs >= low).all() and (obs <= high).all()
                assert mask.shape == (steps.num_actions,) and mask.dtype == np.int8
                assert mask.sum() == (len(s.legal_actions()) if s.current_player == p else 0)
            legal = s.legal_actions()
            assert legal == sorted(set(legal)) and legal
            if s.is_chance():
                outs = s.chance_outcomes()
                assert all(0 <= o < steps.max_outcomes and pr > 0 for o, pr in outs)
                assert abs(sum(pr for _, pr in outs) - 1.0) < 1e-12
                assert s.current_player == env.CHANCE
            else:
                assert all(0 <= a < steps.num_actions for a in legal)
                assert s.current_player in (0, 1)
                labels = [s.action_label(a) for a in legal]
                assert len(set(labels)) == len(labels), "labels must tell the legal decisions apart"
                illegal = next(a for a in range(steps.num_actions) if a not in legal)
                with pytest.raises(ValueError):
                    s.apply(illegal)
            s.apply(int(rng.choice(legal)))
            events += 1
        assert events <= steps.max_decisions
        assert s.current_player == env.TERMINAL and s.legal_actions() == []
        assert s.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
        assert sum(s.returns()) == 0


def _snapshot(s):
    return (s.render(), s.legal_actions(), s.record().tolist(), s.observation(0)[0].tolist(), s.current_player)


def test_clone_is_independent(step_game):
    game = step_game
    pv = policy_vector(get_game(game), ("random", "random"))
    s = env.new_game(game, seed=3)
    for _ in range(5):
        (s.roll() if s.is_chance() else s.apply(s.scripted_action(pv)))
    before = _snapshot(s)
    c = s.clone()
    play_out(c, pv)
    assert c.is_over() and not s.is_over()
    assert _snapshot(s) == before, "playing a clone changed the original"
    play_out(s, pv)   # the original, on the same stream, plays the clone's game
    assert _snapshot(s) == _snapshot(c) and s.history == c.history


def test_observation_shows_nothing_a_player_cannot_see(step_game):
    """Redealing what a player cannot see (the opponent's hand, the deck order: the search's
    determinise hook) leaves that player's observation unchanged."""
    game = step_game
    pv = policy_vector(get_game(game), ("random", "random"))
    for g in range(3):
        s = env.new_game(game, seed=9, game_index=g)
        for _ in range(4 + 3 * g):
            if s.is_over():
                break
            (s.roll() if s.is_chance() else s.apply(s.scripted_action(pv)))
        for p in (0, 1):
            redealt = s.clone(player=p)
            np.testing.assert_array_equal(redealt.observation(p)[0], s.observation(p)[0])
            assert redealt.legal_actions() == s.legal_actions() or s.current_player != p
