"""Storm the Castle's evaluation as features (issue 23, simkit learn): ``features_nb``.

The learnable part of the evaluation is ``evaluate.material_lead_nb``: side 0's lead with one row ``w``
of the weight table (rules.Params.wt, rules.eval_feature_names), which is linear in ``w``:

    material_lead(w) = sum_t w[t] * f[t] + sum_t w[T + t] * f[T + t] + w[2T] * f[2T]

- ``material:<card>`` f[t]: side 0's cards of type t on the board minus side 1's, an item under a
  unit counted as a card of its own type (card_value_nb: the unit's value plus its item's);
- ``hand:<card>`` f[T + t]: side 0's cards of type t in hand minus side 1's (hand weights: W_HAND of the
  value by default; the search's prior reads them too: a dispatch gains w[t] - w[T + t]);
- ``advance`` f[2T]: the closeness to the enemy keep of each unit that moves (move > 0), side 0's minus
  side 1's, 1 next to the enemy keep, falling linearly to 0 at the keeps' distance (closeness_nb / wadv).

``lead_nb`` (the trajectory's value) adds fixed terms no row weighs: W_THREAT / W_THREAT_NOW when a side
could walk into the empty enemy keep. They are not a position's worth but the game's end one step away
(the search counts them as keep-taking chances, value_nb), so they are not fitted.

**Quiet**: the side to move is at the start of its turn, before its first decision: no roll pending, no
dispatch point spent, and either the dispatch phase, or the action phase of a turn whose dispatch phase
offered nothing to choose (settle_nb ended it: nothing affordable or no free castle space) with no attack
made and no own unit acted yet. Why: in Storm the Castle the exchanges are the attacks of a
turn (a kill, then a melee attacker advancing; a Sorcerer's buff before its partner's attack; a Cleric
raising what was just lost) and the dispatches that answer them. Mid-turn the lead swings with half a
plan: units dispatched but not yet fighting, an attack rolled whose follow-up has not come. At the start
of a turn the previous side's plan is complete and the mover has spent nothing, so the lead is the one
both sides' whole turns leave. Each turn has exactly one quiet position (a side that ends its dispatch
phase without dispatching is past its first decision: that turn's quiet position was the dispatch
phase's). One exception, not met with the default deck (its cards cost 1 to 4): a card of cost 0
dispatched first leaves the position counted quiet.
"""
import numpy as np
from numba import njit

from simkit.games.storm_the_castle.moves import gen_dispatch_nb, stack_masks_nb
from simkit.games.storm_the_castle.rules import O_BONUS2, O_BUF, O_POINTS, O_T, T_MOVE
from simkit.games.storm_the_castle.search import PD_KIND
from simkit.games.storm_the_castle.state import (C_ACTED, C_ITEM, C_OWNER, C_TYPE, G_ATTACKS, G_OVER, G_PHASE,
                                                 G_POINTS, G_SIDE, G_TURN, L_HAND, PH_DISPATCH)


@njit(cache=True)
def quiet_nb(ctab, spi, iopt, cards, sp, zones, zn, g, pend):
    """At the start of the side to move's turn, before its first decision (module doc). Reads the position
    only (the dispatch options are generated into buffers of its own, not the state's)."""
    if g[G_OVER] != 0 or pend[PD_KIND] != 0:
        return False
    full = iopt[O_POINTS] + (iopt[O_BONUS2] if g[G_TURN] == 1 else 0)    # moves.begin_turn_nb's points
    if g[G_POINTS] != full:
        return False
    if g[G_PHASE] == PH_DISPATCH:
        return True
    s = g[G_SIDE]
    if g[G_ATTACKS] != 0:
        return False
    for c in range(cards.shape[0]):
        if cards[c, C_OWNER] == s and cards[c, C_ACTED] != 0:
            return False
    # nothing done this turn: the action phase's first decision if the dispatch phase had nothing to choose
    seen = np.zeros(iopt[O_T], np.int32)
    buf = np.zeros((iopt[O_BUF], 3), np.int32)
    return gen_dispatch_nb(s, stack_masks_nb(s, cards, sp, ctab), cards, sp, zones, zn, g, ctab, spi, seen, buf) == 1


@njit(cache=True)
def features_nb(ctab, spi, iopt, dist, keep, cards, sp, zones, zn, g, pend):
    """(quiet, f): the position's features (rules.eval_feature_names' order), side 0's minus side 1's,
    with dot(w, f) == evaluate.material_lead_nb(..., w, ...) for any weight row ``w``."""
    nt = ctab.shape[0]
    f = np.zeros(2 * nt + 1, np.float64)
    d01 = max(dist[keep[0], keep[1]], 1)
    den = d01 - 1 if d01 > 1 else 1
    for x in range(sp.shape[0]):
        for j in range(2):
            c = sp[x, j]
            if c < 0:
                continue
            sg = 1.0 if cards[c, C_OWNER] == 0 else -1.0
            t = cards[c, C_TYPE]
            f[t] += sg
            it = cards[c, C_ITEM]
            if it >= 0:
                f[cards[it, C_TYPE]] += sg
            if ctab[t, T_MOVE] > 0:
                d = min(dist[x, keep[1 - cards[c, C_OWNER]]], d01)
                f[2 * nt] += sg * (d01 - d) / den
    for s in range(2):
        sg = 1.0 if s == 0 else -1.0
        for i in range(zn[s, L_HAND]):
            f[nt + cards[zones[s, L_HAND, i], C_TYPE]] += sg
    return quiet_nb(ctab, spi, iopt, cards, sp, zones, zn, g, pend), f
