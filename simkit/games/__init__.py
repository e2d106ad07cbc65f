"""The game registry: one line per game."""
from __future__ import annotations

import difflib
import importlib

from simkit.engine.cache import install as _install_cache
from simkit.errors import UnknownGameError

_install_cache()   # before a game module defines its kernels (see simkit/engine/cache.py)

# name -> module that defines SPEC. Adding a game is one line here.
GAMES = {
    "martian_chess": "simkit.games.martian_chess",
    "skorm": "simkit.games.skorm",
    "storm_the_castle": "simkit.games.storm_the_castle",
    "warfare": "simkit.games.warfare",
}

_loaded: dict = {}


def get_game(name: str):
    if name not in GAMES:
        close = difflib.get_close_matches(str(name), list(GAMES), n=1, cutoff=0.5)
        hint = f" (did you mean '{close[0]}'?)" if close else ""
        raise UnknownGameError(f"unknown game '{name}'{hint}; games: {', '.join(GAMES)}")
    if name not in _loaded:
        _loaded[name] = importlib.import_module(GAMES[name]).SPEC
    return _loaded[name]


def find_game(name: str):
    """The spec of a registered game, or None (e.g. a result directory of a game this install lacks)."""
    try:
        return get_game(name)
    except UnknownGameError:
        return None


def all_games():
    return [get_game(n) for n in GAMES]
