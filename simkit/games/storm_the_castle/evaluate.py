"""Storm the Castle: how good a position is (the search's leaf value, the trajectory's lead).

``lead_nb`` is side 0's lead in card-value units (a Knight is worth 7): the cards on the board
(items included) and half those in hand, how close each unit stands to the enemy keep, and a
bonus when a unit could walk into the empty enemy keep. It is the trajectory's value
(play.trajectory) and the material part of the search's evaluation.

Its weights are one row ``w`` of the weight table (rules.Params.wt, rules.eval_row): a card of type t
on the board counts w[t], in hand w[T + t], closeness to the enemy keep w[2T] per unit next to it. The
trajectory reads side 0's row, the search the searcher's; ``material_lead_nb`` (no walk-in bonus) is
the learnable part, dot(w, f) with features.features_nb's f; the walk-in bonuses are fixed terms.

The lead alone says little about who wins: in greedy self-play, positions where side 0 leads by
20 or more end with side 0 scoring 0.55, and trailing by 20 or more 0.44 (measured by
scripts/storm_search_knobs.py's calibration). Games are decided by the keep: about half of
greedy's wins kill a Support unit left alone in the enemy keep and advance into it. So the search
scores a position (``value_nb``) by the chance that the side to move takes the enemy keep now
(``take_chance_nb``), then by a race of both sides' chances to take the other's keep in the
turns that follow, then by the squashed material lead.
"""
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.games.storm_the_castle.moves import modifier_nb, stack_masks_nb
from simkit.games.storm_the_castle.policies import card_value_nb, p_success_nb
from simkit.games.storm_the_castle.rules import K_REG, O_CLEARS, O_MAXTURNS, T_ATT, T_KIND, T_MOVE, T_RANGE
from simkit.games.storm_the_castle.state import C_ACTED, C_OWNER, C_TYPE, G_ATTACKS, G_SIDE, G_TURN, L_HAND

from simkit.games.storm_the_castle.rules import W_ADVANCE, W_HAND  # noqa: F401 (the weight table's defaults)
W_THREAT = 6.0    # a unit that can walk into the empty enemy keep on its side's next turn ...
W_THREAT_NOW = 20.0   # ... and if that side moves next: the game is all but won
CAP_FADE = 20.0   # value_nb: over the last this many turns before the cap, the material lead fades to a draw


@njit(cache=True, _nrt=False, inline="always")
def closeness_nb(dist, keep, s, x, d01, wadv):
    """How close a moving unit of side ``s`` on ``x`` stands to the enemy keep: ``wadv`` (the row's advance
    weight, W_ADVANCE by default) next to it."""
    d = min(dist[x, keep[1 - s]], d01)
    return wadv * (d01 - d) / (d01 - 1 if d01 > 1 else 1)


@njit(cache=True, _nrt=False, inline="always")
def _lead_nb(cards, sp, zones, zn, ctab, w, dist, keep, to_move, threats):
    nt = ctab.shape[0]
    wadv = w[2 * nt]
    d01 = max(dist[keep[0], keep[1]], 1)
    lead = 0.0
    threat0 = False
    threat1 = False
    for x in range(sp.shape[0]):
        for j in range(2):
            c = sp[x, j]
            if c < 0:
                continue
            s = cards[c, C_OWNER]
            v = card_value_nb(cards, ctab, w, c)
            mv = ctab[cards[c, C_TYPE], T_MOVE]
            if mv > 0:
                ek = keep[1 - s]
                v += closeness_nb(dist, keep, s, x, d01, wadv)
                if dist[x, ek] <= mv and sp[ek, 0] < 0:
                    if s == 0:
                        threat0 = True
                    else:
                        threat1 = True
            lead += v if s == 0 else -v
    if threats:
        if threat0:
            lead += W_THREAT_NOW if to_move == 0 else W_THREAT
        if threat1:
            lead -= W_THREAT_NOW if to_move == 1 else W_THREAT
    for s in range(2):
        h = 0.0             # (the hand weights sum: W_HAND times the values' sum exactly, rules.W_HAND)
        for i in range(zn[s, L_HAND]):
            h += w[nt + cards[zones[s, L_HAND, i], C_TYPE]]
        lead += h if s == 0 else -h
    return lead


@njit(cache=True, _nrt=False)
def lead_nb(cards, sp, zones, zn, ctab, w, dist, keep, to_move):
    """Side 0's lead with weight row ``w``: cards on the board (items included) plus the hand (W_HAND
    of its value by default), plus how close each unit stands to the enemy keep, plus whether a side
    could walk into the empty enemy keep (worth most for ``to_move``, the side that moves next)."""
    return _lead_nb(cards, sp, zones, zn, ctab, w, dist, keep, to_move, True)


@njit(cache=True, _nrt=False)
def material_lead_nb(cards, sp, zones, zn, ctab, w, dist, keep):
    """lead_nb without the walk-in bonus (the search's value counts keep threats as chances): the
    evaluation's learnable part, dot(w, features.features_nb's f)."""
    return _lead_nb(cards, sp, zones, zn, ctab, w, dist, keep, 0, False)


@njit(cache=True, _nrt=False)
def reaches_nb(adj, dist, enemy, x, mv, y, bq, bd):
    """Can a unit on ``x`` with move ``mv`` reach ``y`` (to enter it, or to attack it in melee) along a
    path of at most ``mv`` steps through spaces without an enemy on top (``enemy``: their bitmask)?"""
    d = dist[x, y]
    if d > mv:
        return False
    if d <= 1:
        return True
    bd[x] = 0
    bq[0] = x
    head = 0
    tail = 1
    found = False
    while head < tail and not found:
        u = bq[head]
        head += 1
        if bd[u] >= mv:
            continue
        for k in range(adj.shape[1]):
            w = adj[u, k]
            if w < 0:
                break
            if w == y:
                found = True
                break
            if bd[w] >= 0 or (enemy >> w) & 1:
                continue
            bd[w] = bd[u] + 1
            bq[tail] = w
            tail += 1
    for k in range(tail):
        bd[bq[k]] = -1
    return found


# inlined into value_nb, its one caller (three calls per leaf): a call passes its ten arrays field by
# field, and pushing them was most of value_nb's own time (perf of mcts:400 self-play: 5.7% of the time)
@njit(cache=True, _nrt=False, inline="always")
def take_chance_nb(ctab, spi, adj, dist, keep, iopt, ptable, cards, sp, g, s, fresh, enemy, own, bq, bd):
    """The chance that side ``s`` takes the enemy keep in its turn from this position, with the units
    it has not yet used and the attacks it has left (``fresh``: a whole turn, as after its draw).
    ``enemy``, ``own``: the spaces topped by the other side's units and by ``s``'s (stack_masks_nb's
    first and last masks for ``s``; a stack is one side's, so ``own`` holds all of ``s``'s units).

    Walking into the empty keep is certain; a Support unit alone on top dies without a roll (ST-3),
    and a melee attacker advances into the emptied space (a ranged kill needs another unit to walk
    in); a Regular unit dies with its exact P(success), at most two attacks by different units, and
    a Support unit under it needs the second attack. Ignores what the side could dispatch first."""
    ek = keep[1 - s]
    top = sp[ek, 0]
    bot = sp[ek, 1]
    attacks = 2 if fresh else 2 - g[G_ATTACKS]
    walkers = 0
    melee = 0
    ranged = 0
    p1 = 0.0            # the two best chances of killing the keep's top card
    p2 = 0.0
    pm = 0.0            # the best by a melee attacker
    # only the spaces holding s's stacks, ascending (the order of a scan over every space), as in
    # moves.gen_actions_nb
    while own != 0:
        x = trailing_zeros(own)
        own &= own - 1
        for j in range(2):
            c = sp[x, j]
            if c < 0 or cards[c, C_OWNER] != s or (not fresh and cards[c, C_ACTED] != 0):
                continue
            t = cards[c, C_TYPE]
            mv = ctab[t, T_MOVE]
            rg = ctab[t, T_RANGE]
            near = mv > 0 and reaches_nb(adj, dist, enemy, x, mv, ek, bq, bd)
            if near:
                walkers += 1
            if top < 0 or ctab[t, T_ATT] <= 0:
                continue
            hits = False
            if rg > 0:
                hits = dist[x, ek] <= rg       # a keep is a castle space: catapults may shoot it
                if hits:
                    ranged += 1
            elif near:
                hits = True
                melee += 1
            if hits:
                p = 1.0 if ctab[cards[top, C_TYPE], T_KIND] != K_REG else p_success_nb(
                    ptable, modifier_nb(cards, sp, ctab, spi, np.int64(c), np.int64(top), np.int64(0)))
                if rg == 0 and p > pm:
                    pm = p
                if p > p1:
                    p2 = p1
                    p1 = p
                elif p > p2:
                    p2 = p
    if top < 0:
        return 1.0 if walkers > 0 else 0.0
    if attacks <= 0:
        return 0.0
    clears = iopt[O_CLEARS] != 0
    if ctab[cards[top, C_TYPE], T_KIND] != K_REG:
        # Support units only: each dies without a roll
        if bot < 0 or clears:
            if melee > 0 or (ranged > 0 and walkers > 0):
                return 1.0
            return 0.0
        if attacks >= 2 and (melee >= 2 or (melee >= 1 and ranged >= 1) or (ranged >= 2 and walkers > 0)):
            return 1.0
        return 0.0
    if bot < 0 or clears:
        # one kill empties the keep: a melee attacker advances, after a ranged kill a walker enters
        if melee == 0 and walkers == 0:
            return 0.0
        if attacks >= 2:
            return 1.0 - (1.0 - p1) * (1.0 - p2)
        return p1 if walkers > 0 or melee > 0 else 0.0
    # a Support unit under the Regular: kill the Regular, then a melee attacker kills the Support
    if attacks >= 2 and melee >= 2:
        return p1
    if attacks >= 2 and melee == 1 and ranged >= 1:
        return p1 if p1 > pm or p2 > 0.0 else 0.0
    return 0.0


@njit(cache=True, _nrt=False)
def value_nb(ctab, w, spi, adj, dist, keep, iopt, ptable, cards, sp, zones, zn, g, scale, rounds, bq, bd):
    """Side 0's expected score of an unfinished position, as a race for the keeps.

    The side to move ``s`` takes the enemy keep this turn with take_chance_nb's chance ``now``. Else
    the other side ``o`` and ``s`` alternate, ``o`` first, each taking the other's keep in its turn
    with its chance from this position (``h_o``, ``h_s``: whole turns), for ``rounds`` rounds: the
    threats a position holds tend to stay (a Knight next to a keep attacks it turn after turn). What
    is left undecided scores logistic(material lead / ``scale``). The turn cap draws (RULES §3): the
    race lasts at most the rounds left before it, and the material lead fades to a draw over the
    last CAP_FADE turns."""
    s = np.int64(g[G_SIDE])
    # one scan of the stacks for the three chances (each scanned for itself before: 1.10x mcts:400 self-play,
    # with take_chance_nb's loop over the side's own stacks only): the other side's spaces are s's enemy ones
    enemy, _, _, _, own = stack_masks_nb(s, cards, sp, ctab)
    now = take_chance_nb(ctab, spi, adj, dist, keep, iopt, ptable, cards, sp, g, s, False, enemy, own, bq, bd)
    h_o = take_chance_nb(ctab, spi, adj, dist, keep, iopt, ptable, cards, sp, g, 1 - s, True, own, enemy, bq, bd)
    h_s = take_chance_nb(ctab, spi, adj, dist, keep, iopt, ptable, cards, sp, g, s, True, enemy, own, bq, bd)
    left_turns = max(iopt[O_MAXTURNS] - g[G_TURN] - 1, 0)     # whole turns after this one
    x = material_lead_nb(cards, sp, zones, zn, ctab, w, dist, keep) / scale
    base0 = 1.0 if x > 30.0 else (0.0 if x < -30.0 else 1.0 / (1.0 + np.exp(-x)))
    base0 = 0.5 + (base0 - 0.5) * min(left_turns / CAP_FADE, 1.0)
    base = base0 if s == 0 else 1.0 - base0
    q = (1.0 - h_o) * (1.0 - h_s)           # a round with no keep taken
    n = min(rounds, left_turns / 2.0)
    left = q ** n
    first = (1.0 - left) / (1.0 - q) if q < 1.0 - 1e-12 else n    # sum of q**k over the rounds
    win = (1.0 - h_o) * h_s * first         # (the other side's share is h_o * first: the three add up to 1)
    v = now + (1.0 - now) * (win + left * base)
    return v if s == 0 else 1.0 - v
