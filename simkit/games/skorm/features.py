"""Skorm's evaluation as weighted features (simkit learn; GameSpec.eval_features, rules.EVAL_FEATURES).

The lead the players score with (evaluate.lead_nb: the search's leaf, its priors through greedy, greedy
itself, the quality trajectory) is, in side 0's view,

    lead = sum_k W[k] * (units of type k of side 0 - of side 1)                 k = shieldman, archer, horseman
         + W[gold] * (side 1's Warlord's hex distance to the Gold Tile - side 0's)
         +- TAKE * W[k*]      (k*: the type of the best enemy piece the side to move attacks and could take)

with ``W`` a row of the weight table (rules.P_EVAL). ``features_nb`` gives ``f`` with ``lead == W . f``:
f[k] = the material difference by type (plus +-TAKE on the type k* the side to move is about to take),
f[gold] = the Warlords' Gold Tile distance difference. Nothing is fixed outside the dot product: the
lead's other constant (TAKE) is folded into f.

**The choice of k\\*.** Which attacked piece the mover is credited with depends on the weights (the most
valuable one by W), so in a position with an exchange under way the identity holds for the rows that rank
the attacked types as the row ``W`` given to features_nb does, not for every row. That is why simkit learn
samples *quiet* positions only, and there it holds for any row: no take is pending, the TAKE term is 0.

**Quiet**: the side to move attacks no enemy piece it could take, Warlord included: no enemy piece on its
attack map (moves.attack_bits_nb, exact for captures and shots) except Shieldmen attacked only from the
direction they face (SK-6: the shield stops exactly those), i.e. no capture or shot is among its legal
actions. Then no exchange is under way: a position in mid-exchange has a lead that swings by a piece's
value on the next ply, and material there says less about the result than the take about to happen. A
position the search settles in one ply (evaluate.settled_nb) is not quiet when the mover attacks the enemy
Warlord; a Gold Tile race the mover wins is quiet (no piece is attacked) though the search scores it
exactly rather than by the lead.
"""
import numpy as np
from numba import njit

from simkit.games.skorm.evaluate import TAKE
from simkit.games.skorm.moves import attack_bits_nb, bit_nb, threat_dirs_nb
from simkit.games.skorm.rules import NW, P_DISTG, W_GOLD
from simkit.games.skorm.state import SC_CNT, SC_PN0, SC_TOMOVE, SC_WL0


@njit(cache=True)
def features_nb(params, cell, face, plist, sc, counts, W, f):
    """(quiet, f) of the position (module docstring): ``f`` (float64, NW entries, filled here) = side 0's
    features minus side 1's, so that evaluate.lead_nb(..., W) == W . f; ``W``: the row whose unit values
    pick the piece the side to move is credited with taking (only where the position is not quiet);
    ``counts``: int64 scratch of 6 entries (threat_dirs_nb's)."""
    distg = params[P_DISTG]
    s = sc[SC_TOMOVE]
    o = 1 - s
    for k in range(NW):
        f[k] = 0.0
    for k in range(3):
        f[k] = np.float64(sc[SC_CNT + k] - sc[SC_CNT + 4 + k])
    # as lead_nb reads it (a finished game's missing Warlord included), so the identity holds everywhere
    f[W_GOLD] = np.float64(distg[sc[SC_WL0 + 1]] - distg[sc[SC_WL0]])
    w0, w1 = attack_bits_nb(params, cell, plist, sc, s, np.int64(-1))
    quiet = True
    best = -1                  # the type lead_nb credits: the first attacked piece of the highest W value
    gain = 0.0
    for j in range(sc[SC_PN0 + o]):
        p = plist[o, j]
        if bit_nb(w0, w1, p) == 0:
            continue
        k = (cell[p] - 1) & 3
        if k == 0 and (threat_dirs_nb(params, cell, p, s, counts) & ~(1 << face[p])) == 0:
            continue           # a Shieldman attacked only from where it faces: shielded
        quiet = False          # a take is on (the enemy Warlord too: the mover wins)
        if k != 3 and W[k] > gain:
            gain = W[k]
            best = k
    if best >= 0:
        f[best] += TAKE if s == 0 else -TAKE
    return quiet, f
