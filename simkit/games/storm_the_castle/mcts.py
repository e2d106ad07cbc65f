"""Storm the Castle: information-set MCTS (ISMCTS) on the shared tree (simkit.engine.mcts).

**Decisions.** A turn is many decisions (each dispatch, each unit's move /
attack / special, "end the phase", "end the turn"); each is one tree level, and
``TI_PLAYER`` records whose decision it was, so a turn of the mover is several
levels of its own nodes and the opponent's reply turn follows below them. A
decision is one int32 code (``encode_nb``) built from public facts only, so the
same code means the same decision in every determinisation:

    kind + 8 * u + 1024 * v
    end of turn          0
    end of dispatch      7 (CODE_END_DISPATCH)
    dispatch             u = card type,            v = target space (item: its holder's space)
    move                 u = unit (space*2 + slot), v = destination space
    attack               u = attacker,             v = target (space*2 + slot)
    cleric / sorcerer    u = the special's unit
    blacksmith           u = the blacksmith,       v = item type

(slot 0 = top of the stack, 1 = bottom). Card ids are not used: two
determinisations give the same hand card different ids.

**Determinisation (from the mover's view, every iteration).** What the mover
cannot see: the opponent's hand (it knows how many cards), the opponent's deck
(how many) and the order of its own deck. What it knows: which cards each side
owns (the deck list is public) and everything on the board, equipped and in the
graveyards. So the opponent's unseen cards are exactly its cards in neither of
those zones; they are gathered in card-id order (never reading the hand or the
deck lists), shuffled with the game's rng, and dealt back: as many to the hand as
the hand holds, the rest to the deck. The mover's own deck is reshuffled the
same way. The scratch game then plays on with these cards; 2d6 rolls are sampled
as they come (open loop). An item the opponent got back with a Blacksmith is
treated as unseen too (a small loss of information, never a leak).

**Decisive move.** A move into the enemy keep is taken without searching (see
``mcts_choose_nb``).

**Leaf value.** A rollout (random or greedy, ``mcts_rollout``) runs until
``mcts_cutoff`` turns have ended counting from the root (1: the rest of the
mover's turn; 2: and the opponent's reply) or the game is over; a finished game
scores 1 / 0.5 / 0 for side 0, an unfinished one ``logistic(lead_nb / mcts_scale)``.
The horizon is the same for every leaf: measured from the leaf, a leaf reached by
ending the turn would be scored after one more own turn than a leaf reached by
moving a unit, and the search would learn to end turns early.
"""
import numpy as np
from numba import njit

from simkit.engine.mcts import (ROOT, backprop_nb, best_action_nb, reward_from_eval_nb, reward_from_winner_nb,
                                select_nb, tree_reset_nb)
from simkit.engine.rng import rng_below_nb
from simkit.games.storm_the_castle.moves import apply_nb, begin_turn_nb, gen_actions_nb, gen_dispatch_nb
from simkit.games.storm_the_castle.policies import P_GREEDY, P_RANDOM, assign_roles_nb, card_value_nb, choose_nb
from simkit.games.storm_the_castle.rules import K_ITEM, O_MAXTURNS, O_NC, T_KIND, T_MOVE
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_DISPATCH, ACT_END, ACT_MOVE, ACT_SMITH, C_POS,
                                                 C_OWNER, C_TYPE, C_ZONE, G_COULD, G_OVER, G_PHASE, G_REASON,
                                                 G_SIDE, G_TURN, G_WINNER, L_DECK, L_HAND, NCF, NG,
                                                 PH_ACTIONS, PH_DISPATCH, R_LIMIT, Z_DECK, Z_HAND)
from simkit.games.storm_the_castle.turn import close_turn_nb
from simkit.policies import MC_C, MC_CUTOFF, MC_ROLLOUT, MC_SCALE

CODE_END_DISPATCH = 7

# lead_nb weights, in card-value units (a Knight is worth 7, a Shield Bearer 4)
W_HAND = 0.5      # a card in hand: half its value (it still costs points and a turn to field)
W_ADVANCE = 8.0   # a unit standing next to the enemy keep, scaled down linearly with distance
W_THREAT = 6.0    # a unit that can walk into the empty enemy keep on its side's next turn ...
W_THREAT_NOW = 20.0   # ... and if that side moves next: the game is all but won


@njit(cache=True, inline="always")
def unit_code_nb(cards, sp, c):
    x = cards[c, C_POS]
    return x * 2 + (0 if sp[x, 0] == c else 1)


@njit(cache=True)
def encode_nb(phase, kind, a, b, cards, sp, ctab):
    """The decision's int32 code (module doc): the same in every determinisation."""
    if kind == ACT_END:
        return CODE_END_DISPATCH if phase == PH_DISPATCH else ACT_END
    if kind == ACT_DISPATCH:
        t = cards[a, C_TYPE]
        y = cards[b, C_POS] if ctab[t, T_KIND] == K_ITEM else b
        return ACT_DISPATCH + 8 * t + 1024 * y
    v = 0
    if kind == ACT_MOVE:
        v = b
    elif kind == ACT_ATTACK:
        v = unit_code_nb(cards, sp, b)
    elif kind == ACT_SMITH:
        v = cards[b, C_TYPE]
    return kind + 8 * unit_code_nb(cards, sp, a) + 1024 * v


@njit(cache=True)
def new_workspace_nb(nc, ns, nt, nf, cap, nbuf):
    """Scratch for one searcher: a game copy, move-generation buffers (``nbuf`` = iopt[O_BUF] rows),
    codes, the path and a card pool."""
    return (np.zeros((2 * nc, NCF), np.int32), np.zeros((ns, 2), np.int32), np.zeros((2, 3, nc), np.int32),
            np.zeros((2, 3), np.int32), np.zeros(NG, np.int32),
            np.zeros(nt, np.int32), np.zeros(ns + 1, np.int32), -np.ones(ns, np.int32),
            np.zeros((nbuf, 3), np.int32), np.zeros(2 * nc, np.int32), np.zeros(nf, np.int32),
            np.zeros(0, np.int64), np.zeros(nbuf, np.int32), np.zeros(cap, np.int32), np.zeros(2 * nc, np.int32))


@njit(cache=True)
def _shuffle_nb(pool, m, rng):
    for k in range(m - 1, 0, -1):
        j = rng_below_nb(rng, k + 1)
        tmp = pool[k]
        pool[k] = pool[j]
        pool[j] = tmp


@njit(cache=True)
def determinise_nb(s, cards, zones, zn, nc, pool, rng):
    """Redeal every card side ``s`` cannot see into a random arrangement consistent with what it knows.

    Reads only zone membership of the cards (hand-or-deck is the complement of the public
    zones) and the hand and deck sizes, never the hand or deck lists themselves."""
    o = 1 - s
    m = np.int64(0)
    for c in range(o * nc, (o + 1) * nc):
        z = cards[c, C_ZONE]
        if z == Z_HAND or z == Z_DECK:
            pool[m] = c
            m += 1
    _shuffle_nb(pool, m, rng)
    h = zn[o, L_HAND]
    for i in range(m):
        c = pool[i]
        if i < h:
            zones[o, L_HAND, i] = c
            cards[c, C_ZONE] = Z_HAND
        else:
            zones[o, L_DECK, i - h] = c
            cards[c, C_ZONE] = Z_DECK
    m = np.int64(0)
    for c in range(s * nc, (s + 1) * nc):
        if cards[c, C_ZONE] == Z_DECK:
            pool[m] = c
            m += 1
    _shuffle_nb(pool, m, rng)
    for i in range(m):
        zones[s, L_DECK, i] = pool[i]


@njit(cache=True)
def lead_nb(cards, sp, zones, zn, ctab, cval, dist, keep, to_move):
    """Side 0's lead: cards on the board (items included) plus W_HAND of the hand, plus how close
    each unit stands to the enemy keep, plus whether a side could walk into the empty enemy keep
    (worth most for ``to_move``, the side that moves next)."""
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
            v = card_value_nb(cards, ctab, cval, c)
            mv = ctab[cards[c, C_TYPE], T_MOVE]
            if mv > 0:
                ek = keep[1 - s]
                d = min(dist[x, ek], d01)
                v += W_ADVANCE * (d01 - d) / (d01 - 1 if d01 > 1 else 1)
                if d <= mv and sp[ek, 0] < 0:
                    if s == 0:
                        threat0 = True
                    else:
                        threat1 = True
            lead += v if s == 0 else -v
    if threat0:
        lead += W_THREAT_NOW if to_move == 0 else W_THREAT
    if threat1:
        lead -= W_THREAT_NOW if to_move == 1 else W_THREAT
    for s in range(2):
        h = 0.0
        for i in range(zn[s, L_HAND]):
            h += cval[cards[zones[s, L_HAND, i], C_TYPE]]
        lead += W_HAND * h if s == 0 else -W_HAND * h
    return lead


@njit(cache=True, inline="always")
def gen_nb(cards, sp, zones, zn, g, ctab, spi, adj, dist, seen, bq, bd, buf):
    """Options of the decision the game is at (dispatch or actions phase of side g[G_SIDE])."""
    s = np.int64(g[G_SIDE])
    if g[G_PHASE] == PH_DISPATCH:
        return gen_dispatch_nb(s, cards, sp, zones, zn, g, ctab, spi, seen, buf)
    return gen_actions_nb(s, cards, sp, zones, zn, g, ctab, spi, adj, dist, seen, bq, bd, buf)


@njit(cache=True)
def step_nb(k, buf, cards, sp, zones, zn, g, ctab, spi, keep, iopt, rec, fidx, agg, rng):
    """Play option ``k`` in a scratch game; ending the turn runs the next turn's draw (chance)."""
    kind = buf[k, 0]
    if kind != ACT_END:
        apply_nb(np.int64(kind), np.int64(buf[k, 1]), np.int64(buf[k, 2]), np.int64(-1), cards, sp, zones, zn, g,
                 ctab, spi, keep, iopt, rec, fidx, agg, rng)
        return
    if g[G_PHASE] == PH_DISPATCH:
        g[G_PHASE] = PH_ACTIONS
        return
    close_turn_nb(g, g[G_COULD] != 0)
    if g[G_OVER] == 0 and g[G_TURN] >= iopt[O_MAXTURNS]:
        g[G_OVER] = 1
        g[G_WINNER] = -1
        g[G_REASON] = R_LIMIT
    if g[G_OVER] == 0:
        drawn = begin_turn_nb(cards, zones, zn, g, iopt, np.int64(g[G_SIDE]))
        g[G_COULD] = 1 if drawn > 0 else 0
        g[G_PHASE] = PH_DISPATCH


# inlined into its one caller (mcts_choose_nb): one library less re-optimising the game's kernels
@njit(cache=True, inline="always")
def rollout_nb(rp, t_end, scale, cards, sp, zones, zn, g, seen, bq, bd, buf, role, rec, agg,
               ctab, cval, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, rng):
    """Side 0's reward of a scratch game played on by policy ``rp`` until turn ``t_end`` (the horizon)."""
    if rp == P_GREEDY and g[G_PHASE] == PH_ACTIONS:
        assign_roles_nb(np.int64(g[G_SIDE]), cards, sp, ctab, dist, keep, iopt, role)
    while g[G_OVER] == 0 and g[G_TURN] < t_end:
        n = gen_nb(cards, sp, zones, zn, g, ctab, spi, adj, dist, seen, bq, bd, buf)
        if n > 1:
            g[G_COULD] = 1
        ph = np.int64(g[G_PHASE])
        k = choose_nb(rp, ph, np.int64(g[G_SIDE]), n, buf, cards, sp, ctab, cval, spi, dist, keep, fopt, ptable, prio,
                      role, rng)
        step_nb(k, buf, cards, sp, zones, zn, g, ctab, spi, keep, iopt, rec, fidx, agg, rng)
        if rp == P_GREEDY and ph == PH_DISPATCH and g[G_PHASE] == PH_ACTIONS:
            assign_roles_nb(np.int64(g[G_SIDE]), cards, sp, ctab, dist, keep, iopt, role)
    if g[G_OVER] != 0:
        return reward_from_winner_nb(g[G_WINNER])
    return reward_from_eval_nb(lead_nb(cards, sp, zones, zn, ctab, cval, dist, keep, np.int64(g[G_SIDE])), scale)


@njit(cache=True)
def mcts_choose_nb(s, budget, mp, n_real, buf_real, cards, sp, zones, zn, g,
                   ctab, cval, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, rng, ti, tf, ws):
    """Index into ``buf_real[:n_real]`` of side ``s``'s decision after ``budget`` ISMCTS iterations.

    The real game (``cards .. g``) is only read; every iteration plays in the workspace ``ws``."""
    (cards2, sp2, zones2, zn2, g2, seen2, bq2, bd2, buf2, role2, rec2, agg2, codes, path, pool) = ws
    # Decisive move: walking into the enemy keep wins now. The search alone would not insist on
    # it: its greedy rollouts walk in later in the turn, so every option looks like a win and
    # the most visited one need not be the winning walk (then, turn after turn, it may never be).
    for k in range(n_real):
        if buf_real[k, 0] == ACT_MOVE and buf_real[k, 2] == keep[1 - s]:
            return k
    c_uct = mp[MC_C]
    rp = np.int64(P_GREEDY if mp[MC_ROLLOUT] >= 0.5 else P_RANDOM)
    cutoff = np.int64(mp[MC_CUTOFF])
    scale = mp[MC_SCALE]
    nc = iopt[O_NC]
    iters = max(budget, 1)
    # The horizon counts from the root, not from each leaf: a leaf reached by ending the turn
    # must not be scored a whole own turn later than one reached by moving a unit.
    horizon = g[G_TURN] + cutoff
    tree_reset_nb(ti, tf)
    for _ in range(iters):
        cards2[:, :] = cards
        sp2[:, :] = sp
        zones2[:, :, :] = zones
        zn2[:, :] = zn
        g2[:] = g
        determinise_nb(s, cards2, zones2, zn2, nc, pool, rng)
        g2[G_COULD] = 1          # the root decision has options, so this turn is not idle
        node = np.int64(ROOT)
        depth = np.int64(0)
        while g2[G_OVER] == 0:
            n = gen_nb(cards2, sp2, zones2, zn2, g2, ctab, spi, adj, dist, seen2, bq2, bd2, buf2)
            if n == 1:            # nothing to decide: no tree node (the real game does not search either)
                step_nb(np.int64(0), buf2, cards2, sp2, zones2, zn2, g2, ctab, spi, keep, iopt, rec2, fidx, agg2, rng)
                continue
            g2[G_COULD] = 1
            ph = np.int64(g2[G_PHASE])
            for k in range(n):
                codes[k] = encode_nb(ph, buf2[k, 0], buf2[k, 1], buf2[k, 2], cards2, sp2, ctab)
            k, child, fresh = select_nb(ti, tf, node, codes, n, g2[G_SIDE], c_uct, rng)
            step_nb(np.int64(k), buf2, cards2, sp2, zones2, zn2, g2, ctab, spi, keep, iopt, rec2, fidx, agg2, rng)
            if child < 0:
                break
            path[depth] = child
            depth += 1
            node = child
            if fresh:
                break
        r = rollout_nb(rp, horizon, scale, cards2, sp2, zones2, zn2, g2, seen2, bq2, bd2, buf2, role2, rec2, agg2,
                       ctab, cval, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, rng)
        backprop_nb(ti, tf, path, depth, r)
    code = best_action_nb(ti, tf, rng)
    ph = np.int64(g[G_PHASE])
    for k in range(n_real):
        if encode_nb(ph, buf_real[k, 0], buf_real[k, 1], buf_real[k, 2], cards, sp, ctab) == code:
            return k
    return 0
