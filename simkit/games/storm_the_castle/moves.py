"""Storm the Castle: legal actions and their effects (jitted).

Argument conventions (all kernels): ``cards, sp, zones, zn, g`` is the state
(see state.py); ``ctab, spi, adj, dist, keep, iopt`` come from Params;
``rec`` is the game's int32 record row, ``fidx`` the stat -> column table,
``agg`` the per-space death counts, ``rng`` the game's RNG state.
An injected ``roll`` >= 2 replaces the 2d6 roll (tests, traces); -1 = roll.
Scalars cross kernel boundaries as int64 (``np.int64(...)`` at every call site, card ids read
from int32 arrays included), so each kernel compiles for one signature only.
"""
import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from simkit.engine.dice import (STORM_CRIT_FAIL, STORM_CRIT_SUCCESS, STORM_SUCCESS, roll_2d6_nb,
                                storm_resolve_nb)
from simkit.engine.rng import rng_below_nb
from simkit.games.storm_the_castle.rules import (AB_ASSASSIN, AB_CATAPULT, AB_CLERIC, AB_SMITH, AB_SORC,
                                                 K_ITEM, K_REG, O_BONUS2, O_CLEARS, O_EXTRA2, O_POINTS, O_SICK,
                                                 SPACE_KINDS,
                                                 S_ATT, S_CRIT, S_DISP, S_KILL, S_LOSS, S_RES, S_REC,
                                                 S_SUCC, T_AB, T_ATT, T_BONUS, T_COST, T_DEF, T_KIND,
                                                 T_MOVE, T_RANGE, T_RANK, T_ROLL, X_CASTLE, X_DEF,
                                                 X_KIND, X_LEVEL, X_SIDE)
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_END,
                                                 ACT_MOVE, ACT_SMITH, ACT_SORC, C_ACTED, C_BUFF,
                                                 C_ITEM, C_OWNER, C_POS, C_TYPE, C_ZONE, G_ATTACKS,
                                                 G_OVER, G_POINTS, G_REASON, G_TURN, G_WINNER, L_DECK,
                                                 L_GRAVE, L_HAND, R_KEEP, Z_BOARD, Z_DECK,
                                                 Z_EQUIP, Z_GRAVE, Z_HAND, Z_NONE)

SK_KEEP = SPACE_KINDS.index("keep")   # spi[x, X_KIND] of a keep

# outcome codes returned by apply (for the log): dice.STORM_* or these
OUT_NONE = -1      # no roll involved (move, dispatch, sorcerer)
OUT_AUTO = 4       # ST-3: support target, success without a roll
OUT_SPECIAL_OK = 5
OUT_SPECIAL_FAIL = 6


@njit(cache=True, _nrt=False, inline="always")
def stat_nb(rec, fidx, s, t, j, inc):
    f = fidx[s, t, j]
    if f >= 0:
        rec[f] += inc


# ---------------------------------------------------------------------------
# setup and draws
@njit(cache=True, _nrt=False)
def init_game_nb(cards, sp, zones, zn, g, copies, nc, hand_size, rng):
    """Empty board, shuffled decks (side 0 then side 1), ``hand_size`` cards drawn each."""
    cards[:, :] = -1
    cards[:, C_ACTED] = 0
    cards[:, C_BUFF] = 0
    cards[:, C_ZONE] = Z_NONE
    sp[:, :] = -1
    zones[:, :, :] = -1
    zn[:, :] = 0
    g[:] = 0
    g[G_WINNER] = -1
    g[G_REASON] = -1
    for s in range(2):
        i = 0
        for t in range(copies.shape[1]):
            for _ in range(copies[s, t]):
                c = s * nc + i
                cards[c, C_TYPE] = t
                cards[c, C_OWNER] = s
                cards[c, C_ZONE] = Z_DECK
                zones[s, L_DECK, i] = c
                i += 1
        zn[s, L_DECK] = i
        for k in range(i - 1, 0, -1):          # Fisher-Yates
            j = rng_below_nb(rng, k + 1)
            tmp = zones[s, L_DECK, k]
            zones[s, L_DECK, k] = zones[s, L_DECK, j]
            zones[s, L_DECK, j] = tmp
    for s in range(2):
        for _ in range(hand_size):
            draw_one_nb(cards, zones, zn, s)


@njit(cache=True, _nrt=False, inline="always")
def draw_one_nb(cards, zones, zn, s):
    """Top card of the deck to the hand; returns it or -1 if the deck is empty."""
    n = zn[s, L_DECK]
    if n == 0:
        return -1
    c = zones[s, L_DECK, n - 1]
    zones[s, L_DECK, n - 1] = -1
    zn[s, L_DECK] = n - 1
    zones[s, L_HAND, zn[s, L_HAND]] = c
    zn[s, L_HAND] += 1
    cards[c, C_ZONE] = Z_HAND
    return c


# ---------------------------------------------------------------------------
# stacks
@njit(cache=True, _nrt=False, inline="always")
def can_enter_nb(cards, sp, ctab, x, c, s):
    """May unit ``c`` of side ``s`` join the stack on space ``x``?"""
    top = sp[x, 0]
    if top < 0:
        return True
    if sp[x, 1] >= 0:
        return False
    if cards[top, C_OWNER] != s:
        return False
    if ctab[cards[top, C_TYPE], T_KIND] == K_REG and ctab[cards[c, C_TYPE], T_KIND] == K_REG:
        return False
    return True


@njit(cache=True, _nrt=False, inline="always")
def stack_put_nb(cards, sp, ctab, x, c):
    top = sp[x, 0]
    if top < 0:
        sp[x, 0] = c
    else:
        kc = ctab[cards[c, C_TYPE], T_KIND]
        kt = ctab[cards[top, C_TYPE], T_KIND]
        if kc == K_REG or (kt != K_REG and ctab[cards[c, C_TYPE], T_RANK] < ctab[cards[top, C_TYPE], T_RANK]):
            sp[x, 1] = top
            sp[x, 0] = c
        else:
            sp[x, 1] = c
    cards[c, C_POS] = x
    cards[c, C_ZONE] = Z_BOARD


@njit(cache=True, _nrt=False, inline="always")
def stack_take_nb(cards, sp, x, c):
    if sp[x, 0] == c:
        sp[x, 0] = sp[x, 1]
        sp[x, 1] = -1
    elif sp[x, 1] == c:
        sp[x, 1] = -1
    cards[c, C_POS] = -1


@njit(cache=True, _nrt=False, inline="always")
def grave_push_nb(cards, zones, zn, s, c):
    zones[s, L_GRAVE, zn[s, L_GRAVE]] = c
    zn[s, L_GRAVE] += 1
    cards[c, C_ZONE] = Z_GRAVE
    cards[c, C_POS] = -1


@njit(cache=True, _nrt=False)
def kill_nb(cards, sp, zones, zn, ctab, rec, fidx, agg, c, killed):
    """Unit ``c`` leaves the board for its graveyard, its item first (ST-5).

    ``killed`` = 1 when an enemy attack killed it (counted in ``agg`` at its space),
    0 for a melee attacker's critical failure."""
    s = cards[c, C_OWNER]
    x = cards[c, C_POS]
    stack_take_nb(cards, sp, x, c)
    it = cards[c, C_ITEM]
    if it >= 0:
        grave_push_nb(cards, zones, zn, s, it)
        stat_nb(rec, fidx, s, cards[it, C_TYPE], S_LOSS, 1)
        cards[c, C_ITEM] = -1
    grave_push_nb(cards, zones, zn, s, c)
    cards[c, C_ACTED] = 0
    cards[c, C_BUFF] = 0
    stat_nb(rec, fidx, s, cards[c, C_TYPE], S_LOSS, 1)
    if killed != 0 and agg.shape[0] > 0:
        agg[x] += 1


@njit(cache=True, _nrt=False, inline="always")
def place_unit_nb(cards, sp, ctab, keep, g, x, c, s):
    """Put unit ``c`` on ``x`` (move, advance); entering the enemy Keep wins at once."""
    stack_put_nb(cards, sp, ctab, x, c)
    if x == keep[1 - s]:
        g[G_WINNER] = s
        g[G_REASON] = R_KEEP
        g[G_OVER] = 1


# ---------------------------------------------------------------------------
# attack arithmetic
def modifier(cards, sp, ctab, spi, att, tgt, buff_extra):
    """(Attack + bonuses) - (Defense + bonuses) of ``att`` attacking ``tgt``."""
    x = cards[att, C_POS]
    y = cards[tgt, C_POS]
    a = ctab[cards[att, C_TYPE], T_ATT] + cards[att, C_BUFF] + buff_extra
    it = cards[att, C_ITEM]
    if it >= 0:
        a += ctab[cards[it, C_TYPE], T_ATT]
    a += spi[x, X_LEVEL] - spi[y, X_LEVEL]
    tt = cards[tgt, C_TYPE]
    d = ctab[tt, T_DEF] + spi[y, X_DEF]
    it = cards[tgt, C_ITEM]
    if it >= 0:
        d += ctab[cards[it, C_TYPE], T_DEF]
    if ctab[tt, T_KIND] == K_REG:
        for j in range(2):
            o = sp[y, j]
            if o >= 0 and o != tgt and ctab[cards[o, C_TYPE], T_AB] == AB_CLERIC:
                d += ctab[cards[o, C_TYPE], T_BONUS]
    return a - d


modifier_nb = njit(cache=True, _nrt=False)(modifier)
# greedy's copy (policies.greedy_choose scores every attack option of every decision, the search's rollouts
# included), where a call passes four arrays field by field: mcts:400 self-play 1.04x. Only there: inlined at
# every call site it gained the same and cost 6-8 s more of Storm the Castle's cold compile (docs/speed.md,
# "Storm the Castle's attack modifier inlined").
modifier_inline_nb = njit(_nrt=False, inline="always")(modifier)


@njit(cache=True, _nrt=False, inline="always")
def is_ranged_nb(cards, ctab, c):
    return ctab[cards[c, C_TYPE], T_RANGE] > 0


@njit(cache=True, _nrt=False, inline="always")
def grave_top_unit_nb(cards, zones, zn, ctab, s):
    n = zn[s, L_GRAVE]
    if n == 0:
        return -1
    c = zones[s, L_GRAVE, n - 1]
    if ctab[cards[c, C_TYPE], T_KIND] == K_ITEM:
        return -1
    return c


# ---------------------------------------------------------------------------
# legal actions
@njit(cache=True, _nrt=False, inline="always")
def _add(buf, n, kind, a, b):
    # buffers have iopt[O_BUF] rows, a proven bound (rules.action_rows): a full buffer is a bug,
    # and an error rather than silently dropped options
    if n >= buf.shape[0]:
        raise IndexError("storm_the_castle: action buffer full (size it with iopt[O_BUF])")
    buf[n, 0] = kind
    buf[n, 1] = a
    buf[n, 2] = b
    return n + 1


@njit(cache=True, _nrt=False)
def _add_targets(cards, sp, ctab, buf, n, c, y):
    """Attack options of unit ``c`` on space ``y``: the top card (Assassin: either card)."""
    n = _add(buf, n, ACT_ATTACK, c, sp[y, 0])
    if sp[y, 1] >= 0 and ctab[cards[c, C_TYPE], T_AB] == AB_ASSASSIN:
        n = _add(buf, n, ACT_ATTACK, c, sp[y, 1])
    return n


@njit(cache=True, _nrt=False, inline="always")
def space_masks_nb(cards, sp, ctab, x, bm):
    """The board masks ``bm`` (board_masks_nb) with space ``x``'s bits as its stack is now."""
    bit = np.int64(1) << x
    occ0, occ1, single, reg, bare = bm
    occ0 &= ~bit
    occ1 &= ~bit
    single &= ~bit
    reg &= ~bit
    bare &= ~bit
    top = sp[x, 0]
    if top >= 0:
        if cards[top, C_OWNER] == 0:
            occ0 |= bit
        else:
            occ1 |= bit
        if sp[x, 1] < 0:
            single |= bit
        if ctab[cards[top, C_TYPE], T_KIND] == K_REG:
            reg |= bit
        if cards[top, C_ITEM] < 0:
            bare |= bit
    return occ0, occ1, single, reg, bare


@njit(cache=True, _nrt=False)
def board_masks_nb(cards, sp, ctab):
    """Bitmasks over spaces (a board has at most 64) of the stacks, whoever moves: (topped by side 0,
    by side 1, one card only, a Regular unit on top, a top without an item).

    A search rollout keeps them from one decision to the next, each action refreshing only the spaces
    it touched (touched_nb), instead of a scan of every space per decision (stack_masks_nb was 10% of
    mcts:400 self-play in a perf profile; keeping them measured 1.04x side by side)."""
    z = np.int64(0)
    bm = (z, z, z, z, z)
    for x in range(sp.shape[0]):
        bm = space_masks_nb(cards, sp, ctab, x, bm)
    return bm


@njit(cache=True, _nrt=False, inline="always")
def side_masks_nb(s, bm, ns):
    """What side ``s``'s generators test per space, from the board masks ``bm`` of ``ns`` spaces:
    (an enemy unit on top, a regular of ``s`` may join (can_enter_nb), a non-regular may join,
    an own regular on top without an item: a holder for a dispatched item, an own stack: a stack is
    one side's (can_enter_nb), so these are the only spaces holding ``s``'s units)."""
    occ0, occ1, single, reg, bare = bm
    own = occ1 if s == 1 else occ0
    enemy = occ0 if s == 1 else occ1
    full = np.int64(-1) if ns >= 64 else (np.int64(1) << ns) - 1
    empty = full & ~(occ0 | occ1)
    enter_other = empty | (own & single)
    enter_reg = empty | (own & single & ~reg)
    return enemy, enter_reg, enter_other, own & reg & bare, own


@njit(cache=True, _nrt=False)
def stack_masks_nb(s, cards, sp, ctab):
    """side_masks_nb's masks of side ``s`` from a scan of the stacks.

    One pass over the stacks per decision, so a unit's options cost a bit test per space
    instead of can_enter_nb's loads per space and unit (the profile: most of the decision)."""
    return side_masks_nb(s, board_masks_nb(cards, sp, ctab), sp.shape[0])


@njit(cache=True, _nrt=False)
def gen_dispatch_nb(s, masks, cards, sp, zones, zn, g, ctab, spi, seen, buf):
    """Dispatch options (one per card type in hand and target) after ``end`` at index 0; ``masks``:
    side ``s``'s (stack_masks_nb).

    Targets in ascending space order (set bits of a mask, lowest first)."""
    n = _add(buf, 0, ACT_END, -1, -1)
    if g[G_OVER] != 0:
        return n
    pts = g[G_POINTS]
    enemy, enter_reg, enter_other, holders, _ = masks
    castle = np.int64(0)
    for x in range(sp.shape[0]):
        if spi[x, X_CASTLE] == s:
            castle |= np.int64(1) << x
    seen[:] = 0
    for i in range(zn[s, L_HAND]):
        c = zones[s, L_HAND, i]
        t = cards[c, C_TYPE]
        if seen[t] != 0:
            continue
        seen[t] = 1
        if ctab[t, T_COST] > pts:
            continue
        kt = ctab[t, T_KIND]
        if kt == K_ITEM:
            m = holders
            while m != 0:
                x = trailing_zeros(m)
                m &= m - 1
                n = _add(buf, n, ACT_DISPATCH, c, sp[x, 0])
        else:
            m = castle & (enter_reg if kt == K_REG else enter_other)
            while m != 0:
                x = trailing_zeros(m)
                m &= m - 1
                n = _add(buf, n, ACT_DISPATCH, c, x)
    return n


def gen_actions(s, masks, cards, sp, zones, zn, g, ctab, spi, adj, dist, seen, bq, bd, buf):
    """Action-phase options after ``end`` at index 0: move, attack, specials; ``masks``: side ``s``'s
    (stack_masks_nb)."""
    n = _add(buf, 0, ACT_END, -1, -1)
    if g[G_OVER] != 0:
        return n
    can_attack = g[G_ATTACKS] < 2
    enemy, enter_reg, enter_other, _, mown = masks
    # only the spaces holding s's stacks, ascending (the order of a scan over every space): the
    # profile's largest part of the rollouts was this scan over mostly empty or enemy spaces
    while mown != 0:
        x = trailing_zeros(mown)
        mown &= mown - 1
        for j in range(2):
            c = sp[x, j]
            if c < 0 or cards[c, C_OWNER] != s or cards[c, C_ACTED] != 0:
                continue
            t = cards[c, C_TYPE]
            mv = ctab[t, T_MOVE]
            rg = ctab[t, T_RANGE]
            melee = can_attack and rg == 0 and ctab[t, T_ATT] > 0
            enter = enter_reg if ctab[t, T_KIND] == K_REG else enter_other
            # ST-A: moves and melee reach: BFS through spaces free of enemy units (own units are passed)
            if mv == 1:
                # one step (most units): the BFS's first ring is adj[x] in order, so the same
                # options in the same order without the queue, the depths and their reset
                for k in range(adj.shape[1]):
                    w = adj[x, k]
                    if w < 0:
                        break
                    bit = np.int64(1) << w
                    if enemy & bit:
                        if melee:
                            n = _add_targets(cards, sp, ctab, buf, n, c, w)
                    elif enter & bit:
                        n = _add(buf, n, ACT_MOVE, c, w)
            elif mv > 0:
                bd[x] = 0
                bq[0] = x
                head = 0
                tail = 1
                while head < tail:
                    u = bq[head]
                    head += 1
                    if bd[u] >= mv:
                        continue
                    for k in range(adj.shape[1]):
                        w = adj[u, k]
                        if w < 0:
                            break
                        if bd[w] >= 0:
                            continue
                        bd[w] = bd[u] + 1
                        bq[tail] = w
                        tail += 1
                        bit = np.int64(1) << w
                        if enemy & bit:
                            bd[w] = 1 << 20          # enemy: a target, never passed through
                            if melee:
                                n = _add_targets(cards, sp, ctab, buf, n, c, w)
                        else:
                            if spi[w, X_KIND] == SK_KEEP and spi[w, X_SIDE] != s:
                                bd[w] = 1 << 20      # ST-7: a path stops in the enemy keep (and wins)
                            if enter & bit:
                                n = _add(buf, n, ACT_MOVE, c, w)
                for k in range(tail):
                    bd[bq[k]] = -1
            # ST-B: ranged units attack only at graph distance 1..range, blockers ignored; attack 0 never
            if can_attack and rg > 0 and ctab[t, T_ATT] > 0:
                cat = ctab[t, T_AB] == AB_CATAPULT
                m = enemy
                while m != 0:
                    y = trailing_zeros(m)
                    m &= m - 1
                    d = dist[x, y]
                    if d < 1 or d > rg:
                        continue
                    if cat and spi[y, X_CASTLE] < 0:
                        continue
                    n = _add_targets(cards, sp, ctab, buf, n, c, y)
            ab = ctab[t, T_AB]
            o = sp[x, 1 - j]
            if ab == AB_CLERIC:     # ST-C: a prayer only when alone and the graveyard top is a unit
                if o < 0 and grave_top_unit_nb(cards, zones, zn, ctab, s) >= 0:
                    n = _add(buf, n, ACT_CLERIC, c, -1)
            elif ab == AB_SORC:     # ST-E: a buff only while the partner regular has not acted
                if o >= 0 and ctab[cards[o, C_TYPE], T_KIND] == K_REG and cards[o, C_ACTED] == 0:
                    n = _add(buf, n, ACT_SORC, c, o)
            elif ab == AB_SMITH:    # ST-D: one option per item type, the topmost of that type
                seen[:] = 0
                for i in range(zn[s, L_GRAVE] - 1, -1, -1):
                    it = zones[s, L_GRAVE, i]
                    ti = cards[it, C_TYPE]
                    if ctab[ti, T_KIND] == K_ITEM and seen[ti] == 0:
                        seen[ti] = 1
                        n = _add(buf, n, ACT_SMITH, c, it)
    return n


gen_actions_nb = njit(cache=True, _nrt=False)(gen_actions)
# the search rollouts' copy, compiled into rollout_nb: a call passes its 14 arrays field by field, and
# pushing them cost about as much as the call's own work (perf of mcts:400 self-play: 7% of the time)
gen_actions_inline_nb = njit(_nrt=False, inline="always")(gen_actions)


# ---------------------------------------------------------------------------
# effects
@njit(cache=True, _nrt=False, inline="always")
def touched_nb(kind, a, b, cards, ctab):
    """The spaces (-1: none) whose stacks apply_nb's option (kind, a, b) may change, read before it is
    played: the actor's and the target's (a move's destination, an attacked unit's space, a unit's
    dispatch space, an item's holder's). Ending, a Sorcerer's buff and a Blacksmith's forging change none."""
    if kind == ACT_DISPATCH:
        if ctab[cards[a, C_TYPE], T_KIND] == K_ITEM:
            return np.int64(cards[b, C_POS]), np.int64(-1)
        return np.int64(b), np.int64(-1)
    if kind == ACT_MOVE:
        return np.int64(cards[a, C_POS]), np.int64(b)
    if kind == ACT_ATTACK:
        return np.int64(cards[a, C_POS]), np.int64(cards[b, C_POS])
    if kind == ACT_CLERIC:
        return np.int64(cards[a, C_POS]), np.int64(-1)
    return np.int64(-1), np.int64(-1)


def apply(kind, a, b, roll, cards, sp, zones, zn, g, ctab, spi, keep, iopt, rec, fidx, agg, rng):
    """Apply one non-end action. Returns the outcome code (dice.STORM_* / OUT_*) * 16 + roll."""
    s = cards[a, C_OWNER]
    ta = cards[a, C_TYPE]
    if kind == ACT_DISPATCH:
        # a: hand card, b: space (unit) or holder card (item)
        h = zn[s, L_HAND]
        for i in range(h):
            if zones[s, L_HAND, i] == a:
                zones[s, L_HAND, i] = zones[s, L_HAND, h - 1]
                zones[s, L_HAND, h - 1] = -1
                zn[s, L_HAND] = h - 1
                break
        g[G_POINTS] -= ctab[ta, T_COST]
        stat_nb(rec, fidx, s, ta, S_DISP, 1)
        if ctab[ta, T_KIND] == K_ITEM:
            cards[a, C_ZONE] = Z_EQUIP
            cards[a, C_POS] = b
            cards[b, C_ITEM] = a
        else:
            stack_put_nb(cards, sp, ctab, b, a)
            cards[a, C_ACTED] = iopt[O_SICK]
        return OUT_NONE * 16
    cards[a, C_ACTED] = 1
    if kind == ACT_MOVE:
        stack_take_nb(cards, sp, cards[a, C_POS], a)
        place_unit_nb(cards, sp, ctab, keep, g, b, a, s)
        return OUT_NONE * 16
    if kind == ACT_SORC:
        cards[b, C_BUFF] += ctab[ta, T_BONUS]
        return OUT_NONE * 16
    if kind == ACT_CLERIC:
        if roll < 2:
            roll = roll_2d6_nb(rng)
        if roll != ctab[ta, T_ROLL]:
            return OUT_SPECIAL_FAIL * 16 + roll
        u = grave_top_unit_nb(cards, zones, zn, ctab, s)   # ST-C: its item stays in the graveyard (ST-5)
        zn[s, L_GRAVE] -= 1
        zones[s, L_GRAVE, zn[s, L_GRAVE]] = -1
        stack_put_nb(cards, sp, ctab, cards[a, C_POS], u)
        cards[u, C_ACTED] = 1     # ST-6: it returns spent, whatever summoning_sickness (ST-2) says
        stat_nb(rec, fidx, s, cards[u, C_TYPE], S_RES, 1)
        return OUT_SPECIAL_OK * 16 + roll
    if kind == ACT_SMITH:
        if roll < 2:
            roll = roll_2d6_nb(rng)
        if roll != ctab[ta, T_ROLL]:
            return OUT_SPECIAL_FAIL * 16 + roll
        n = zn[s, L_GRAVE]
        k = 0
        for i in range(n):
            if zones[s, L_GRAVE, i] == b:
                k = i
                break
        for i in range(k, n - 1):
            zones[s, L_GRAVE, i] = zones[s, L_GRAVE, i + 1]
        zones[s, L_GRAVE, n - 1] = -1
        zn[s, L_GRAVE] = n - 1
        zones[s, L_HAND, zn[s, L_HAND]] = b
        zn[s, L_HAND] += 1
        cards[b, C_ZONE] = Z_HAND
        stat_nb(rec, fidx, s, cards[b, C_TYPE], S_REC, 1)
        return OUT_SPECIAL_OK * 16 + roll
    # attack
    g[G_ATTACKS] += 1
    stat_nb(rec, fidx, s, ta, S_ATT, 1)
    y = cards[b, C_POS]
    ranged = ctab[ta, T_RANGE] > 0
    if ctab[cards[b, C_TYPE], T_KIND] != K_REG:
        res = OUT_AUTO                                   # ST-3, ST-F: an attack and a success, no roll
        roll = 0
    else:
        if roll < 2:
            roll = roll_2d6_nb(rng)
        res = storm_resolve_nb(roll, modifier_nb(cards, sp, ctab, spi, np.int64(a), np.int64(b), np.int64(0)))
    if res == STORM_SUCCESS or res == STORM_CRIT_SUCCESS or res == OUT_AUTO:
        stat_nb(rec, fidx, s, ta, S_SUCC, 1)
        kill_nb(cards, sp, zones, zn, ctab, rec, fidx, agg, np.int64(b), np.int64(1))
        stat_nb(rec, fidx, s, ta, S_KILL, 1)
        if not ranged:
            o = sp[y, 0]
            if iopt[O_CLEARS] != 0 and o >= 0 and sp[y, 1] < 0 and ctab[cards[o, C_TYPE], T_KIND] != K_REG:
                kill_nb(cards, sp, zones, zn, ctab, rec, fidx, agg, np.int64(o), np.int64(1))   # ST-4 on
                stat_nb(rec, fidx, s, ta, S_KILL, 1)
            if sp[y, 0] < 0:        # ST-G: advance into the emptied space, 2 away too; the enemy keep wins
                stack_take_nb(cards, sp, cards[a, C_POS], a)
                place_unit_nb(cards, sp, ctab, keep, g, y, a, s)
    elif res == STORM_CRIT_FAIL:
        stat_nb(rec, fidx, s, ta, S_CRIT, 1)
        if not ranged:
            kill_nb(cards, sp, zones, zn, ctab, rec, fidx, agg, np.int64(a), np.int64(0))
    return res * 16 + roll


apply_nb = njit(cache=True, _nrt=False)(apply)
# the rollouts' copy (search.rollout_nb): a call passes its 14 arrays field by field (perf of mcts:400
# self-play: as much as apply_nb's own 2.5% of the time)
apply_inline_nb = njit(_nrt=False, inline="always")(apply)


@njit(cache=True, _nrt=False)
def begin_turn_nb(cards, zones, zn, g, iopt, s):
    """Reset per-turn flags and draw (2 if the hand is empty, none if the deck is). Returns cards drawn."""
    for c in range(cards.shape[0]):
        cards[c, C_ACTED] = 0
        cards[c, C_BUFF] = 0
    g[G_POINTS] = iopt[O_POINTS]
    g[G_ATTACKS] = 0
    k = 2 if zn[s, L_HAND] == 0 else 1
    if g[G_TURN] == 1:
        # turn 1 is always the second player's first turn (the first player's is turn 0):
        # ST-C1 extra dispatch points, ST-C2 extra cards drawn, both 0 by default
        g[G_POINTS] += iopt[O_BONUS2]
        k += iopt[O_EXTRA2]
    drawn = 0
    for _ in range(k):
        if draw_one_nb(cards, zones, zn, s) >= 0:
            drawn += 1
    return drawn
