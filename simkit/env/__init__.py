"""The step API: play any registered game one decision at a time, from Python.

    from simkit import env
    s = env.new_game("martian_chess", "default", seed=0, first=0)
    s.legal_actions(), s.action_label(a), s.apply(a), s.observation(0), s.render()

``new_game`` returns a ``simkit.env.state.State``; docs/agents.md is the guide (agents,
the PettingZoo and OpenSpiel adapters, ``--policy python:...``, ``simkit playtest``). Each
game's step-API class lives in its own folder (``env.py``) and calls that game's jitted
kernels: there is no second implementation of any rule here.
"""
from __future__ import annotations

from simkit.env.state import CHANCE, TERMINAL, State

__all__ = ["CHANCE", "TERMINAL", "State", "game_scenario", "new_game", "new_game_from", "steps_of"]


def game_scenario(game: str, rules=None, overrides=None):
    """A loaded scenario of ``game``: ``rules`` is a scenario name or path (None: the default), or a
    dict of overrides on the default scenario; ``overrides`` (--set items or a dict) apply on top."""
    from simkit.scenario import load_scenario
    if isinstance(rules, dict):
        overrides, rules = {**rules, **dict(overrides or {})}, None
    if rules is None:
        target = game
    elif "/" in str(rules) or str(rules).endswith(".toml"):
        target = str(rules)
    else:   # a scenario's name: scenarios/<game>/<name>.toml
        from simkit.games import get_game
        from simkit.scenario.load import scenario_dir
        get_game(game)
        target = str(scenario_dir(game) / f"{rules}.toml")
    sc = load_scenario(target, overrides)
    if sc.game != game:
        from simkit.errors import UsageError
        raise UsageError(f"scenario {rules} is a {sc.game} scenario, not {game}")
    return sc


_steps_cache: dict = {}


def steps_of(scenario, policies=None):
    """The game's GameSteps for a loaded scenario (built once per rules); ``policies`` (two names): with
    their own search knobs in their sides' rows (``mcts:400/mcts_c=0.5``, Scenario.params_for)."""
    import json
    key = (scenario.game, json.dumps(scenario.rules, sort_keys=True, default=str), tuple(policies or ()))
    if key not in _steps_cache:
        from simkit.env.rules import steps_for
        params = scenario.params_for(policies) if policies else scenario.params()
        _steps_cache[key] = steps_for(scenario.spec, params)
    return _steps_cache[key]


def new_game_from(scenario, seed: int = 0, game: int = 0, first: int = 0, snapshot_ply: int | None = None,
                  policies=None) -> State:
    """A new game of a loaded scenario (see ``new_game``); ``policies``: as ``steps_of``."""
    if snapshot_ply is None:
        from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY
        snapshot_ply = DEFAULT_SNAPSHOT_PLY
    return State(steps_of(scenario, policies), seed, game, first, snapshot_ply)


def new_game(game: str, rules=None, *, seed: int = 0, game_index: int = 0, first: int = 0, overrides=None,
             snapshot_ply: int | None = None) -> State:
    """A new game of ``game`` (a registered name) with ``rules`` (a scenario name or path, or a dict
    of rule overrides; None: the default scenario), ready for its first decision or chance event.

    ``seed`` and ``game_index`` fix the game's random stream as in ``simkit run --seed SEED``
    (game ``game_index`` of the run); ``first``: the side that moves first. ``snapshot_ply``:
    the ply/turn of the record's snapshot columns (default: the runner's).
    """
    return new_game_from(game_scenario(game, rules, overrides), seed, game_index, first, snapshot_ply)
