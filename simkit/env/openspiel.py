"""simkit games as OpenSpiel games (``pip install 'simkit[agents]'``), so OpenSpiel's algorithms play them.

    import pyspiel
    import simkit.env.openspiel                      # registers simkit_<game> for every game with a step API
    game = pyspiel.load_game("simkit_martian_chess")  # or {"scenario": "clock_off", "set": "max_plies=200"}
    state = game.new_initial_state()

Actions are the step API's decision codes; dice are explicit chance nodes whose
``chance_outcomes()`` are the game's exact probabilities (outcome codes as chance actions).
Parameters: ``scenario`` (a scenario name or path; "" = the default) and ``set``
(``KEY=VALUE`` overrides separated by ``;``). Rewards are terminal: +1 / -1, 0 for a draw.
A game with hidden cards is registered as imperfect information; its observation tensor is
what that player sees.
"""
from __future__ import annotations

import numpy as np
import pyspiel

from simkit.env import game_scenario, steps_of
from simkit.env.state import CHANCE, TERMINAL, State

PREFIX = "simkit_"


def game_name(game: str) -> str:
    return PREFIX + game


def load_game(game: str, rules=None, **overrides):
    """The OpenSpiel game of simkit ``game`` with ``rules`` (a scenario name or path) and rule overrides."""
    params = {}
    if rules is not None:
        params["scenario"] = str(rules)
    if overrides:
        params["set"] = ";".join(f"{k}={v}" for k, v in overrides.items())
    return pyspiel.load_game(game_name(game), params)


def _game_type(game: str, steps) -> pyspiel.GameType:
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=game_name(game),
        long_name=f"simkit {game}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=(pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC if steps.max_outcomes
                     else pyspiel.GameType.ChanceMode.DETERMINISTIC),
        information=info.PERFECT_INFORMATION if steps.perfect_information else info.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=not steps.perfect_information,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"scenario": "", "set": ""})


def _scenario_of(game: str, params: dict):
    sets = [s.strip() for s in str(params.get("set", "")).split(";") if s.strip()]
    return game_scenario(game, params.get("scenario") or None, sets or None)


class SimkitGame(pyspiel.Game):
    """One simkit game under one set of rules."""

    simkit_game = ""    # set on each game's subclass (register_all)

    def __init__(self, params=None, steps=None):
        params = dict(params or {})
        game = self.simkit_game
        # ``steps``: the rules a caller already has (an agent playing in a simkit run); else from params
        self.steps = steps if steps is not None else steps_of(_scenario_of(game, params))
        info = pyspiel.GameInfo(num_distinct_actions=self.steps.num_actions,
                                max_chance_outcomes=self.steps.max_outcomes,
                                num_players=2, min_utility=-1.0, max_utility=1.0, utility_sum=0.0,
                                max_game_length=self.steps.max_decisions)
        super().__init__(_game_type(game, self.steps), info, params)

    def new_initial_state(self):
        return SimkitState(self, State(self.steps))

    def state_of(self, state):
        """A pyspiel state around a simkit.env State of this game (not copied)."""
        return SimkitState(self, state)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return SimkitObserver(self.steps)


class SimkitState(pyspiel.State):
    """A pyspiel state around a simkit.env State (``.simkit``)."""

    def __init__(self, game, state):
        super().__init__(game)
        self.simkit = state

    def current_player(self):
        p = self.simkit.current_player
        if p == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if p == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return p

    def _legal_actions(self, player):
        return self.simkit.legal_actions()

    def chance_outcomes(self):
        return self.simkit.chance_outcomes()

    def _apply_action(self, action):
        self.simkit.apply(action)

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return self.simkit.steps.outcome_label(self.simkit.S, int(action))
        return self.simkit.steps.label(self.simkit.S, int(action))

    def is_terminal(self):
        return self.simkit.is_over()

    def returns(self):
        return self.simkit.returns()

    def __str__(self):
        return self.simkit.render()


class SimkitObserver:
    """OpenSpiel's PyObserver: the step API's observation tensor of a player."""

    def __init__(self, steps):
        self.steps = steps
        self.tensor = np.zeros(int(np.prod(steps.obs_shape)), np.float32)
        self.dict = {"observation": self.tensor.reshape(steps.obs_shape)}

    def set_from(self, state, player):
        self.tensor[:] = self.steps.observation(state.simkit.S, player).ravel()

    def string_from(self, state, player):
        if self.steps.perfect_information:
            return state.simkit.render()
        return " ".join(f"{x:g}" for x in self.steps.observation(state.simkit.S, player).ravel())


_classes: dict = {}


def game_for(steps) -> SimkitGame:
    """The OpenSpiel game of a simkit game's GameSteps (the rules an agent was handed)."""
    return _classes[steps.spec.name](None, steps)


def mcts_bot(simulations: int = 400, uct_c: float = 2.0, rollouts: int = 1):
    """A ``--policy python:...`` factory of OpenSpiel's MCTSBot: UCT with ``uct_c`` (2, as OpenSpiel's
    examples), random rollouts (RandomRolloutEvaluator), ``simulations`` per decision, solver on."""
    def factory(game, seed):
        from open_spiel.python.algorithms import mcts
        spiel = game_for(game)
        evaluator = mcts.RandomRolloutEvaluator(rollouts, np.random.RandomState(seed))
        bot = mcts.MCTSBot(spiel, uct_c, simulations, evaluator, random_state=np.random.RandomState(seed + 1))
        return lambda state: bot.step(spiel.state_of(state))
    return factory


mcts400 = mcts_bot(400)   # python:simkit.env.openspiel:mcts400


def register_all():
    """Register ``simkit_<game>`` for every registered game that has a step API (idempotent)."""
    from simkit.games import GAMES, get_game
    for name in GAMES:
        spec = get_game(name)
        if spec.steps is None or name in _classes:
            continue
        scenario = game_scenario(name)
        steps = steps_of(scenario)
        # a class per game, not a closure: OpenSpiel's registry keeps the factory until after Python has
        # finalised, and releasing a closure then aborts the interpreter (a class outlives it)
        cls = _classes[name] = type(f"SimkitGame_{name}", (SimkitGame,), {"simkit_game": name})
        pyspiel.register_game(_game_type(name, steps), cls)


register_all()
