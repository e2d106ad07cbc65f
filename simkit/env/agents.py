"""Python agents in simkit's commands: ``--policy python:package.module:factory``.

``factory(game, seed)`` is called once per game a side plays: ``game`` is the game's
``GameSteps`` for the run's rules (``game.spec.name``, ``game.num_actions``,
``game.obs_shape``), ``seed`` an integer fixed by the run seed, the game index and the side,
so a seeded agent plays the same game again. It returns the agent: ``agent(state) -> action``,
called at each of its decisions with a copy of the step API's State (in a game with hidden
cards, a copy in which what the agent cannot see is redealt). The other side plays
simkit's policy through the same step API, drawing from the game's stream as the batch
kernel does; dice are rolled as the batch kernel rolls them.

A Python agent plays one decision at a time in Python: orders of magnitude slower than
the batch kernels. ``--backend dask --workers N`` plays chunks in N processes.
"""
from __future__ import annotations

import importlib

import numpy as np

from simkit.errors import SimkitError, UsageError

PREFIX = "python:"


def is_agent(name: str) -> bool:
    return str(name).startswith(PREFIX)


def load_factory(name: str):
    """The factory named by ``python:package.module:factory`` (UsageError, one line, if it is not one)."""
    text = str(name)[len(PREFIX):]
    mod, _, attr = text.partition(":")
    if not mod or not attr or ":" in attr:
        raise UsageError(f"policy '{name}': write python:package.module:factory, e.g. "
                         f"python:simkit.env.openspiel:mcts400")
    try:
        module = importlib.import_module(mod)
    except ImportError as e:
        raise UsageError(f"policy '{name}': cannot import {mod} ({e})") from None
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise UsageError(f"policy '{name}': {mod} has no callable {attr}")
    return factory


def agent_seed(seed: int, game: int, side: int) -> int:
    """The seed a side's agent gets in game ``game`` of a run seeded ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(game), int(side)]).generate_state(1)[0])


_steps: dict = {}


def _steps_for(game: str, params):
    key = (game, id(params))
    if key not in _steps:
        from simkit.env.rules import steps_for
        from simkit.games import get_game
        _steps.clear()   # one run's rules at a time; the params object is kept alive by the entry
        _steps[key] = (steps_for(get_game(game), params), params)
    return _steps[key][0]


def play_chunk_agents(game: str, params, seed: int, start: int, firsts, policy_ids, snapshot_ply: int):
    """The batch kernel's chunk, played through the step API because a side is a Python agent:
    (records, aggregate). ``policy_ids``: the policy vector, a Python side's id slot holding its
    ``python:...`` name."""
    from simkit.env.state import State
    from simkit.policies import POL_ID, POLICY_VECTOR
    steps = _steps_for(game, params)
    factories = [load_factory(policy_ids[POL_ID + p]) if is_agent(policy_ids[POL_ID + p]) else None
                 for p in (0, 1)]
    pv = np.zeros(POLICY_VECTOR, np.int64)
    for k, x in enumerate(policy_ids):
        pv[k] = 0 if is_agent(x) else int(x)
    records = np.zeros((len(firsts), steps.record_len), np.int32)
    agg = np.zeros(steps.agg_size, np.int64)
    for k, first in enumerate(firsts):
        g = start + k
        s = State(steps, seed, g, int(first), snapshot_ply)
        agents = [f(steps, agent_seed(seed, g, p)) if f is not None else None for p, f in enumerate(factories)]
        while not s.is_over():
            if s.is_chance():
                s.roll()
                continue
            p = s.current_player
            if agents[p] is None:
                s.apply(s.scripted_action(pv))
                continue
            action = agents[p](s.clone(player=p))
            try:
                s.apply(action)
            except (ValueError, TypeError) as e:
                raise SimkitError(f"{policy_ids[POL_ID + p]} (side {p}, game {g}) played {action!r}: {e}") from None
        records[k] = s.rec
        agg += s.agg
    return records, agg


def random_agent(game, seed):
    """An example agent (``python:simkit.env.agents:random_agent``): a uniformly random legal action."""
    rng = np.random.default_rng(seed)
    return lambda state: int(rng.choice(state.legal_actions()))
