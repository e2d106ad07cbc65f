"""simkit games as PettingZoo AEC environments (``pip install 'simkit[agents]'``).

    from simkit.env.pettingzoo import env
    e = env("martian_chess")                 # or env("martian_chess", "clock_off", max_plies=200)
    e.reset(seed=42)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated or truncated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents ``player_0`` and ``player_1`` are the game's sides 0 and 1. An observation is a dict:
``observation`` (the step API's float32 tensor for that player) and ``action_mask`` (int8, 1 for
the legal actions of the agent to move). Actions are the step API's decision codes (Discrete of
the game's declared size). Dice are rolled by the environment from the game's stream, as the
batch kernel rolls game 0 of a run seeded ``seed`` (``reset(seed=...)``; options ``first`` (the
side that moves first, default 0) and ``game`` (the game index) pick another game of that run).
The reward is +1 / -1 to the winner / loser, 0 each for a draw, given at the end; a game that
hits the rules' cap ends as the rules say (terminated, not truncated).
"""
from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from simkit.env import game_scenario, new_game_from, steps_of
from simkit.env.state import TERMINAL

AGENTS = ("player_0", "player_1")


def env(game: str, rules=None, render_mode: str | None = None, **overrides) -> AECEnv:
    """The AEC environment of ``game`` with ``rules`` (a scenario name or path; None: the default)
    and rule ``overrides`` as keywords (``max_plies=200``)."""
    return SimkitAEC(game, rules, render_mode, overrides)


class SimkitAEC(AECEnv):
    """One simkit game as an AEC environment (see the module docstring)."""

    def __init__(self, game: str, rules=None, render_mode: str | None = None, overrides=None):
        super().__init__()
        self.scenario = game_scenario(game, rules, overrides or None)
        steps = steps_of(self.scenario)
        self.metadata = {"render_modes": ["ansi", "human"], "name": f"simkit_{game}_v0",
                         "is_parallelizable": False}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(AGENTS)
        obs = spaces.Box(low=np.broadcast_to(steps.obs_low, steps.obs_shape).astype(np.float32),
                         high=np.broadcast_to(steps.obs_high, steps.obs_shape).astype(np.float32),
                         dtype=np.float32)
        mask = spaces.Box(low=0, high=1, shape=(steps.num_actions,), dtype=np.int8)
        self.observation_spaces = {a: spaces.Dict({"observation": obs, "action_mask": mask}) for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(steps.num_actions) for a in AGENTS}
        self.state_ = None

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None):
        options = options or {}
        if seed is None:
            seed = int(np.random.SeedSequence().entropy % 2**62)
        self.state_ = new_game_from(self.scenario, seed=int(seed), game=int(options.get("game", 0)),
                                    first=int(options.get("first", 0)))
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self._roll_dice()
        self.agent_selection = AGENTS[self.state_.current_player]

    def _roll_dice(self):
        while self.state_.is_chance():
            self.state_.roll()

    def observe(self, agent):
        obs, mask = self.state_.observation(AGENTS.index(agent))
        return {"observation": obs, "action_mask": mask}

    def step(self, action):
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self.state_.apply(int(action))
        self._roll_dice()
        player = self.state_.current_player
        if player == TERMINAL:
            for a, r in zip(AGENTS, self.state_.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self.agent_selection = AGENTS[player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self):
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() needs render_mode 'ansi' or 'human'")
            return None
        text = self.state_.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self):
        pass
