"""The PettingZoo and OpenSpiel adapters pass those libraries' own conformance checks on every game
with a step API (the toy game too), and OpenSpiel's algorithms play simkit games through them."""
import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("pyspiel")



def test_pettingzoo_api_test_and_seed_test(step_game):
    game = step_game
    from pettingzoo.test import api_test, seed_test
    from simkit.env.pettingzoo import env
    api_test(env(game), num_cycles=1000)
    seed_test(lambda: env(game), num_cycles=500)


def test_pettingzoo_rewards_are_the_step_apis_result(step_game):
    """A game driven through the AEC env ends with the rewards the step API's returns() give, and
    the env's dice are the kernel's (same seed, same game)."""
    game = step_game
    from simkit import env as step_env
    from simkit.env.pettingzoo import env
    e = env(game)
    e.reset(seed=17, options={"first": 1})
    s = step_env.new_game(game, seed=17, first=1)
    total = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        while s.is_chance():
            s.roll()
        assert agent == f"player_{s.current_player}"
        np.testing.assert_array_equal(obs["observation"], s.observation(s.current_player)[0])
        a = int(np.flatnonzero(obs["action_mask"])[-1])
        assert a == s.legal_actions()[-1]
        e.step(a)
        s.apply(a)
    assert s.is_over()
    assert [total[f"player_{p}"] for p in (0, 1)] == s.returns()


def test_openspiel_random_simulation_checks(step_game):
    game = step_game
    import pyspiel
    from simkit.env import openspiel
    openspiel.register_all()
    pyspiel.random_sim_test(openspiel.load_game(game), num_sims=5, serialize=False, verbose=False)


def test_openspiel_chance_nodes_carry_the_exact_odds(step_game):
    game = step_game
    import pyspiel
    from simkit.env import openspiel
    openspiel.register_all()
    g = openspiel.load_game(game)
    s = g.new_initial_state()
    rng = np.random.default_rng(0)
    seen = 0
    while not s.is_terminal() and seen < 50:
        if s.is_chance_node():
            outs = s.chance_outcomes()
            assert outs == s.simkit.chance_outcomes() and abs(sum(p for _, p in outs) - 1) < 1e-12
            assert g.get_type().chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
            seen += 1
        s.apply_action(int(rng.choice(s.legal_actions())))
    if g.get_type().chance_mode == pyspiel.GameType.ChanceMode.DETERMINISTIC:
        assert seen == 0


def test_openspiel_bots_play_through_the_adapter(step_game):
    """evaluate_bots plays OpenSpiel's MCTSBot (random rollouts) against its uniform random bot."""
    game = step_game
    from open_spiel.python.algorithms import evaluate_bots, mcts
    import pyspiel
    from simkit.env import openspiel
    openspiel.register_all()
    g = openspiel.load_game(game)
    bot = mcts.MCTSBot(g, 2.0, 20, mcts.RandomRolloutEvaluator(1, np.random.RandomState(1)),
                       random_state=np.random.RandomState(2))
    rand = pyspiel.make_uniform_random_bot(1, 3)
    returns = evaluate_bots.evaluate_bots(g.new_initial_state(), [bot, rand], np.random.RandomState(4))
    assert list(returns) in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
