"""Say so when a command is about to compile a game's kernels (a cold numba cache).

A first run compiles every kernel of the game it plays, which takes a minute or
more and prints nothing; a user waiting on a silent terminal presses Ctrl-C.
Here the command line looks, before the first game, whether numba's on-disk
cache holds the kernel about to run for the current sources, and if not prints
one line on stderr.

The check only reads what numba itself reads at load time: the dispatcher's
index file (``*.nbi``: numba's version, the source stamp simkit.engine.cache
gives it, the cached signatures) and the data files it names. It never writes
to the cache and never compiles; when in doubt (numba internals changed, an
unreadable file) it says nothing rather than something false.
"""
from __future__ import annotations

import importlib
import os

import click

# What a cold start costs on the project's idle 2-core machine since the search (issue 24, 2026-12-06):
# a first `simkit run` compiled for 58 s (Storm the Castle) and 63 s (Warfare!); `simkit precompile`
# (every kernel of every game, two games at a time) took 103 s wall, Martian Chess 25 s and Skorm 48 s
# of it. A machine busy with other work takes twice as long or more.
TYPICAL = "about a minute on an idle 2-core machine"


def _dispatchers(module, kernels: str):
    from numba.core.dispatcher import Dispatcher
    own = [v for v in vars(module).values()
           if isinstance(v, Dispatcher) and getattr(v.py_func, "__module__", None) == module.__name__]
    # the batch kernel releases the GIL (engine/threads.py drives it) or runs a prange
    def batch(d):
        return d.targetoptions.get("nogil") or d.targetoptions.get("parallel")
    if kernels == "batch":
        return [d for d in own if batch(d)]
    # the game kernel the traces and trajectories call (the batch kernel calls it too)
    return [d for d in own if d.__name__ in ("play_game_nb", "play_games_nb")] or [d for d in own if not batch(d)]


def _cached(disp) -> bool:
    """The dispatcher is compiled in this process, or its cache index is fresh and its data files exist."""
    if disp.overloads:
        return True
    cache_file = disp._cache._cache_file          # NullCache (cache=False) has none: AttributeError
    index = cache_file._load_index()              # {} when missing, from another numba, or stale
    if not index:
        return False
    return all(os.path.exists(os.path.join(cache_file._cache_path, name)) for name in index.values())


def cold(spec, kernels: str = "batch") -> bool:
    """True when playing ``spec`` through ``kernels`` ("batch" or "trace") will compile first."""
    try:
        hook = spec.run_chunk   # a GameSpec Hook names its module; a plain function has its own
        module = importlib.import_module(getattr(hook, "module", None) or hook.__module__)
        ds = _dispatchers(module, kernels)
        return bool(ds) and not all(_cached(d) for d in ds)
    except Exception:   # numba's private cache API moved: stay quiet rather than wrong
        return False


def message(spec) -> str:
    return (f"compiling {spec.title} kernels (first run; {TYPICAL}; cached afterwards, "
            f"or run `simkit precompile` once)")


class CompileNotice:
    """The listener (simkit.progress) that prints the message once per game and kernel kind."""

    def __init__(self):
        self.seen: set = set()

    def run_started(self, game, games, kernels):
        if kernels is None or (game, kernels) in self.seen:
            return
        self.seen.add((game, kernels))
        try:
            from simkit.games import get_game
            spec = get_game(game)
        except Exception:
            return
        announce(spec, kernels)

    def games_done(self, n):
        pass


def announce(spec, kernels: str = "batch") -> bool:
    """Print the message on stderr if ``spec``'s kernels are not cached yet; True if printed."""
    if not cold(spec, kernels):
        return False
    click.echo(message(spec), err=True)
    return True
