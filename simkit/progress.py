"""Who hears that games are being played: the command line's progress bars and compile notice.

The backends (and the one-game-at-a-time loops, e.g. quality) announce here when
a run of a game starts and when games finish; nothing listens unless the command
line registers a listener, so the library stays silent and pays one empty loop.
A listener is an object with ``run_started(game, games, kernels)`` and ``games_done(n)``, and may
have ``games_saved(n)`` (games written to a result directory: what an interrupt keeps),
``games_resumed(n)`` (games a resume found on disk) and ``games_added(n, runs)`` (games beyond
the size the command announced).
This module imports nothing, so a Dask worker unpickling a backend loads nothing.
"""
from __future__ import annotations

_listeners: list = []


def listen(listener) -> None:
    _listeners.append(listener)


def unlisten(listener) -> None:
    if listener in _listeners:
        _listeners.remove(listener)


def run_started(game: str, games: int, kernels: str | None = "batch") -> None:
    """A run of ``games`` games of ``game`` is about to play its first game. ``kernels``: which
    of the game's kernels this process loads now ("batch": the batch kernel, "trace":
    the one-game kernel; None: none here, e.g. the games play on Dask workers)."""
    for li in list(_listeners):
        li.run_started(game, games, kernels)


def games_done(n: int) -> None:
    for li in list(_listeners):
        li.games_done(n)


def games_resumed(n: int) -> None:
    """A resume found ``n`` games finished on disk (they count as done; none was played now)."""
    for li in list(_listeners):
        f = getattr(li, "games_resumed", None)
        if f is not None:
            f(n)


def games_saved(n: int) -> None:
    """``n`` more games are on disk (a chunk written): what Ctrl-C keeps. A listener may leave it out."""
    for li in list(_listeners):
        f = getattr(li, "games_saved", None)
        if f is not None:
            f(n)


def games_added(n: int, runs: int = 0) -> None:
    """The command plays ``n`` more games (in ``runs`` more runs) than the size it announced before it
    started: work whose need shows only in the games played (a draw diagnosis where draws dominate)."""
    for li in list(_listeners):
        f = getattr(li, "games_added", None)
        if f is not None:
            f(n, runs)
