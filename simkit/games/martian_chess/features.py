"""Martian Chess's evaluation features (simkit learn; GameSpec.eval_features = policies.EVAL_FEATURES).

The evaluation (policies.evaluate_nb) scores a position for player p as
``w_score x score lead + sum over kinds of w_kind x (kind in p's zone - kind in the opponent's zone)
- w_hanging x hanging``; the first two terms are the learnable part, the hanging penalty is a
threat to the side about to move, not a value of the position, and stays hand-set. So in side 0's view
the learnable part is ``dot(row[:4], f)`` with f the score lead (komi counted as the end of the game counts
it) and the pieces of each kind in side 0's zone minus those in side 1's.

A position is quiet when the side to move can capture nothing: in Martian Chess a capture is a score
already half made, and a fit on positions in mid-exchange would credit material to whoever happens to
move.
"""
import numpy as np
from numba import njit

from simkit.games.martian_chess.bits import popcount_nb
from simkit.games.martian_chess.moves import bits_of_nb, hanging_nb, zone_mask_nb
from simkit.games.martian_chess.state import M_KOMI, M_SCORE, M_TO_MOVE


@njit(cache=True)
def features_nb(tab, meta, f):
    """Fill ``f`` (4 floats: score, pawns, drones, queens; side 0 minus side 1) and return quiet."""
    pawns = bits_of_nb(meta, 0)
    drones = bits_of_nb(meta, 1)
    queens = bits_of_nb(meta, 2)
    f[0] = (meta[M_SCORE] - meta[M_SCORE + 1]) + 0.5 * (meta[M_KOMI] - meta[M_KOMI + 1])
    z0 = zone_mask_nb(0)
    z1 = zone_mask_nb(1)
    f[1] = popcount_nb(pawns & z0) - popcount_nb(pawns & z1)
    f[2] = popcount_nb(drones & z0) - popcount_nb(drones & z1)
    f[3] = popcount_nb(queens & z0) - popcount_nb(queens & z1)
    return hanging_nb(tab, meta[M_TO_MOVE], pawns, drones, queens) == 0


def features(steps, S) -> tuple[bool, np.ndarray]:
    f = np.zeros(4, dtype=np.float64)
    quiet = features_nb(steps.P[0], S[1], f)
    return bool(quiet), f
