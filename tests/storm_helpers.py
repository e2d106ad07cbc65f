"""Helpers to build Storm the Castle situations by hand (shared by the storm tests)."""
import numpy as np

from simkit.games.storm_the_castle import rules as R
from simkit.games.storm_the_castle.moves import stack_put_nb
from simkit.games.storm_the_castle.play import Game
from simkit.games.storm_the_castle.state import (C_ITEM, C_OWNER, C_POS, C_TYPE, C_ZONE, G_PHASE, G_SIDE,
                                                 L_DECK, L_GRAVE, L_HAND, PH_ACTIONS, Z_BOARD, Z_DECK,
                                                 Z_EQUIP, Z_GRAVE, Z_HAND, Z_NONE)
from simkit.scenario.schema import validate_rules


def params(**over):
    rules = validate_rules(R.OPTIONS, over)
    R.validate(rules)
    return R.prepare(rules)


class Table:
    """An empty board with every card back in its deck; put cards where a test needs them."""

    def __init__(self, p=None, side=0, **over):
        self.p = p if p is not None else params(**over)
        self.g = Game(self.p, 0, 0, side)
        g = self.g
        g.sp[:] = -1
        for c in range(g.cards.shape[0]):
            if g.cards[c, C_ZONE] != Z_NONE:
                g.cards[c, C_ZONE] = Z_DECK
                g.cards[c, C_POS] = -1
                g.cards[c, C_ITEM] = -1
        g.zn[:] = 0
        g.zones[:] = -1
        self._sync_deck()
        g.g[G_SIDE] = side
        g.g[G_PHASE] = PH_ACTIONS
        g.g[3] = int(self.p.iopt[R.O_POINTS])  # G_POINTS

    def _sync_deck(self):
        g = self.g
        for s in (0, 1):
            ids = [c for c in range(s * g.nc, (s + 1) * g.nc) if g.cards[c, C_ZONE] == Z_DECK]
            g.zones[s, L_DECK, :] = -1
            g.zones[s, L_DECK, :len(ids)] = ids
            g.zn[s, L_DECK] = len(ids)

    def sp(self, name):
        return self.p.spnames.index(name)

    def take(self, side, card):
        g = self.g
        t = self.p.names.index(card)
        for c in range(side * g.nc, (side + 1) * g.nc):
            if g.cards[c, C_ZONE] == Z_DECK and g.cards[c, C_TYPE] == t:
                g.cards[c, C_ZONE] = Z_NONE
                self._sync_deck()
                return c
        raise AssertionError(f"no {card} left in side {side}'s deck")

    def put(self, side, card, space, item=None):
        g = self.g
        c = self.take(side, card)
        stack_put_nb(g.cards, g.sp, self.p.ctab, np.int64(self.sp(space)), np.int64(c))
        if item:
            it = self.take(side, item)
            g.cards[it, C_ZONE] = Z_EQUIP
            g.cards[it, C_POS] = c
            g.cards[c, C_ITEM] = it
        return c

    def to_hand(self, side, card):
        g = self.g
        c = self.take(side, card)
        g.zones[side, L_HAND, g.zn[side, L_HAND]] = c
        g.zn[side, L_HAND] += 1
        g.cards[c, C_ZONE] = Z_HAND
        return c

    def to_grave(self, side, card):
        g = self.g
        c = self.take(side, card)
        g.zones[side, L_GRAVE, g.zn[side, L_GRAVE]] = c
        g.zn[side, L_GRAVE] += 1
        g.cards[c, C_ZONE] = Z_GRAVE
        return c

    def empty_deck(self, side):
        g = self.g
        for c in range(side * g.nc, (side + 1) * g.nc):
            if g.cards[c, C_ZONE] == Z_DECK:
                g.cards[c, C_ZONE] = Z_NONE
        self._sync_deck()

    def stack(self, space):
        x = self.sp(space)
        return [int(c) for c in self.g.sp[x] if c >= 0]

    def names(self, space):
        return [self.p.names[self.g.cards[c, C_TYPE]] for c in self.stack(space)]

    def grave(self, side):
        g = self.g
        return [self.p.names[g.cards[g.zones[side, L_GRAVE, i], C_TYPE]] for i in range(g.zn[side, L_GRAVE])]

    def hand(self, side):
        g = self.g
        return [self.p.names[g.cards[g.zones[side, L_HAND, i], C_TYPE]] for i in range(g.zn[side, L_HAND])]


def check_invariants(g: Game):
    """Card conservation and legal stacks; raises AssertionError with the reason."""
    p = g.p
    nc = g.nc
    seen = {}
    for s in (0, 1):
        for L, z in ((L_DECK, Z_DECK), (L_HAND, Z_HAND), (L_GRAVE, Z_GRAVE)):
            for i in range(g.zn[s, L]):
                c = int(g.zones[s, L, i])
                assert c // nc == s and g.cards[c, C_ZONE] == z, (c, s, L)
                assert c not in seen, c
                seen[c] = z
    for x in range(g.sp.shape[0]):
        top, bot = int(g.sp[x, 0]), int(g.sp[x, 1])
        assert not (top < 0 and bot >= 0), x
        for c in (top, bot):
            if c >= 0:
                assert g.cards[c, C_ZONE] == Z_BOARD and g.cards[c, C_POS] == x, (c, x)
                assert c not in seen
                seen[c] = Z_BOARD
                it = int(g.cards[c, C_ITEM])
                if it >= 0:
                    assert p.ctab[g.cards[c, C_TYPE], R.T_KIND] == R.K_REG
                    assert g.cards[it, C_ZONE] == Z_EQUIP and g.cards[it, C_POS] == c
                    assert it not in seen
                    seen[it] = Z_EQUIP
        if bot >= 0:
            assert g.cards[top, C_OWNER] == g.cards[bot, C_OWNER], x
            kt, kb = p.ctab[g.cards[top, C_TYPE], R.T_KIND], p.ctab[g.cards[bot, C_TYPE], R.T_KIND]
            assert not (kt == R.K_REG and kb == R.K_REG), x
            assert kb != R.K_REG, f"regular under a support on {p.spnames[x]}"
            if kt != R.K_REG:
                assert p.names[g.cards[top, C_TYPE]] <= p.names[g.cards[bot, C_TYPE]], x
    # conservation: every card of each side's deck is somewhere exactly once
    for s in (0, 1):
        counts = np.zeros(len(p.names), int)
        for c in range(s * nc, (s + 1) * nc):
            if g.cards[c, C_ZONE] != Z_NONE:
                assert c in seen, f"card {c} ({p.names[g.cards[c, C_TYPE]]}) is nowhere"
                counts[g.cards[c, C_TYPE]] += 1
        assert (counts == p.copies[s]).all(), (s, counts, p.copies[s])
    assert len(seen) == int(p.copies.sum())
