"""Storm the Castle: the start- and end-of-turn bookkeeping the game loop, the search and the
step API share.

Kept apart from play.py so the search (search.py) can open and close turns inside its
scratch games exactly as the real game does, without importing the game loop.
"""
from numba import njit

from simkit.games.storm_the_castle.moves import begin_turn_nb
from simkit.games.storm_the_castle.state import (G_CHOICE, G_COULD, G_IDLE, G_OVER, G_PHASE, G_REASON, G_SIDE,
                                                 G_TURN, G_WINNER, PH_DISPATCH, R_STALEMATE)


@njit(cache=True, _nrt=False)
def open_turn_nb(cards, zones, zn, g, iopt, s):
    """Side ``s``'s turn begins: per-turn flags reset, its draw, the dispatch phase. Returns the cards drawn.

    ST-S: the turn is idle unless a card is drawn or a decision has more than one option; kept in
    g (not read by the records) so that the search's copies of the game count it the same way."""
    drawn = begin_turn_nb(cards, zones, zn, g, iopt, s)
    g[G_COULD] = 1 if drawn > 0 else 0
    g[G_CHOICE] = 0
    g[G_PHASE] = PH_DISPATCH
    return drawn


@njit(cache=True, _nrt=False)
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
