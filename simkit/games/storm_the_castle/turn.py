"""Storm the Castle: the end-of-turn bookkeeping the game loop and the search share.

Kept apart from play.py so the search (search.py) can close turns inside its
scratch games exactly as the real game does, without importing the game loop.
"""
from numba import njit

from simkit.games.storm_the_castle.state import (G_IDLE, G_OVER, G_REASON, G_SIDE, G_TURN, G_WINNER,
                                                 R_STALEMATE)


@njit(cache=True)
def close_turn_nb(g, could):
    """Count the turn just played; ST-S: two idle turns in a row end the game; pass the turn on.

    ``could``: the player drew a card or had an option other than ending the phase/turn."""
    s = g[G_SIDE]
    g[G_TURN] += 1
    if g[G_OVER] == 0:
        if could:
            g[G_IDLE] = 0
        else:
            g[G_IDLE] += 1
            if g[G_IDLE] >= 2:
                g[G_OVER] = 1
                g[G_WINNER] = -1
                g[G_REASON] = R_STALEMATE
        g[G_SIDE] = 1 - s
