"""Storm the Castle policies (jitted), chosen by id = index in state.POLICIES.

- ``random``: uniform over the options of each decision; "end the phase"
  (dispatch) / "end the turn" (actions) is always one of them (no action is
  ever forced in this game).
- ``greedy``: a scripted commander whose knobs come from the scenario
  (``dispatch_order``/``dispatch_priority``, ``attack_threshold``, ``defenders``):
  dispatch the most wanted affordable card (units to the castle space nearest
  the enemy keep, Clerics/Sorcerers onto a lone regular, items onto the
  strongest regular without one); then in the action phase, by score:
  enter the enemy keep if possible > Sorcerer buff before its partner's
  attack > attacks with exact P(success) >= ``attack_threshold`` (on a unit
  in the enemy keep: >= ``keep_attack_threshold``), best expected value
  first > Cleric/Blacksmith specials > moves (defenders to the own keep, the
  rest one step along a shortest path to the enemy keep, Clerics/Sorcerers/
  Blacksmiths joining a lone regular) > end the turn. Ties at random.
- ``mcts``: Monte-Carlo tree search (search.py, on engine/search.py); ``mcts:N`` runs N
  iterations per decision. ``choose_nb`` plays only random and greedy (also the
  rollouts' policies); step.decide_nb sends mcts decisions to the search and
  applies the eps degrader.
- ``ban:CLASS:INNER`` (restricted play, issue 22): the side never plays a decision of a banned
  class (``ACTION_CLASSES``: the decision kinds of the search's codes, a special split by its
  ability). Ending the phase or turn is no class and always legal, so a banned side always has
  an unbanned option. step.decide_nb moves the unbanned options to the front of the buffer
  (``drop_banned_nb``) before any choice: random, the eps degrader and greedy choose among
  them, and the search drops the banned codes itself (search.class_nb). Without a ban nothing
  is moved and no draw changes.
"""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.games.storm_the_castle.moves import modifier_inline_nb, modifier_nb
from simkit.games.storm_the_castle.rules import (AB_CLERIC, AB_SMITH, AB_SORC, F_KEEP_THRESHOLD, F_PRIO_VALUE,
                                                 F_THRESHOLD, K_ITEM, K_REG, O_DEFENDERS, PT_HI, PT_LO, T_AB, T_ATT,
                                                 T_BONUS, T_COST, T_DEF, T_KIND, T_RANGE, X_DEF, X_LEVEL)
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_END,
                                                 ACT_MOVE, ACT_SMITH, ACT_SORC, C_ITEM,
                                                 C_OWNER, C_POS, C_TYPE, PH_DISPATCH)

P_RANDOM, P_GREEDY, P_MCTS = 0, 1, 2      # mcts: search.py (step.decide_nb dispatches to it)
P_CRIT = 1.0 / 36.0

# action classes a ban:CLASS:POLICY side can refuse (GameSpec.action_classes, in this order): the kinds
# of decision (state.ACT_*), the specials by ability: a Cleric's prayer (ST-C), a Blacksmith's forging
# (ST-D), a Sorcerer's buff (ST-E). Class k is decision kind k + 1.
ACTION_CLASSES = ("dispatch", "move", "attack", "prayer", "forge", "buff")
CL_DISPATCH, CL_MOVE, CL_ATTACK, CL_PRAYER, CL_FORGE, CL_BUFF = range(6)
CL_NONE = len(ACTION_CLASSES)   # ending the phase or turn: a bit no ban sets


@njit(cache=True, _nrt=False, inline="always")
def kind_class_nb(kind):
    """The action class of a decision of kind ``kind`` (state.ACT_*; CL_NONE for ending)."""
    if kind < ACT_DISPATCH or kind > ACT_SORC:
        return np.int64(CL_NONE)
    return np.int64(kind - ACT_DISPATCH)


@njit(cache=True, _nrt=False)
def drop_banned_nb(buf, n, ban):
    """Move the options of buf[:n] whose class is not in the bit mask ``ban`` to the front (keeping their
    order, 'end' first) and return how many; all ``n`` if every one is banned (never, while ending is
    an option). Rows are swapped, not dropped: buf[:n] keeps the decision's options for the search."""
    k = 0
    for i in range(n):
        if (ban >> kind_class_nb(buf[i, 0])) & 1 == 0:
            if i != k:
                for j in range(3):
                    t = buf[i, j]
                    buf[i, j] = buf[k, j]
                    buf[k, j] = t
            k += 1
    return np.int64(k if k > 0 else n)


@njit(cache=True, _nrt=False, inline="always")
def p_success_nb(ptable, mod):
    if mod < PT_LO:
        mod = PT_LO
    if mod > PT_HI:
        mod = PT_HI
    return ptable[mod - PT_LO]


@njit(cache=True, _nrt=False)
def assign_roles_nb(s, cards, sp, ctab, dist, keep, iopt, role):
    """Greedy: mark the ``defenders`` own regular units nearest the own keep (role 1)."""
    role[:] = 0
    want = iopt[O_DEFENDERS]
    ns = sp.shape[0]
    k = keep[s]
    for _ in range(want):
        best = -1
        bestd = 1 << 30
        for x in range(ns):
            c = sp[x, 0]
            if c >= 0 and cards[c, C_OWNER] == s and role[c] == 0 and ctab[cards[c, C_TYPE], T_KIND] == K_REG:
                if dist[x, k] < bestd:
                    bestd = dist[x, k]
                    best = c
        if best < 0:
            break
        role[best] = 1


@njit(cache=True, _nrt=False, inline="always")
def card_value_nb(cards, ctab, cval, c):
    v = cval[cards[c, C_TYPE]]
    it = cards[c, C_ITEM]
    if it >= 0:
        v += cval[cards[it, C_TYPE]]
    return v


@njit(cache=True, _nrt=False, inline="always")
def _is_follower(ctab, t):
    ab = ctab[t, T_AB]
    return ctab[t, T_KIND] != K_REG and (ab == AB_CLERIC or ab == AB_SORC or ab == AB_SMITH)


@njit(cache=True, _nrt=False, inline="always")
def _attack_p(cards, sp, ctab, spi, ptable, a, b, extra):
    if ctab[cards[b, C_TYPE], T_KIND] != K_REG:
        return 1.0
    return p_success_nb(ptable, modifier_nb(cards, sp, ctab, spi, np.int64(a), np.int64(b), np.int64(extra)))


@njit(cache=True, _nrt=False)
def greedy_sorc_nb(s, a, b, n, buf, cards, sp, ctab, spi, keep, fopt, ptable):
    """Greedy's Sorcerer buff of ``b`` by ``a``: only if the partner then has an attack that
    reaches the threshold and is improved (2e5), else -1."""
    bonus = ctab[cards[a, C_TYPE], T_BONUS]
    for i in range(n):
        if buf[i, 0] == ACT_ATTACK and buf[i, 1] == b:
            p1 = _attack_p(cards, sp, ctab, spi, ptable, b, buf[i, 2], bonus)
            p0 = _attack_p(cards, sp, ctab, spi, ptable, b, buf[i, 2], 0)
            thr = fopt[F_THRESHOLD]
            if cards[buf[i, 2], C_POS] == keep[1 - s] and fopt[F_KEEP_THRESHOLD] < thr:
                thr = fopt[F_KEEP_THRESHOLD]
            if p1 >= thr and p1 > p0:
                return 2e5
    return -1.0


def greedy_choose(phase, s, n, buf, cards, sp, ctab, cval, spi, dist, keep, fopt, ptable, prio, role, rng):
    """Greedy's pick among buf[:n]: the best score, ties uniformly (argmax_step_nb's rule with
    eps 0: every option scored in order, a tie draws rng_below(ties)).

    ``cval``: the deciding side's row of the weight table (rules.Params.wt; its first T entries are the
    card values greedy reads): the mover's row in a game, the searcher's in the search's rollouts. With
    ``dispatch_order = "value"`` (fopt[F_PRIO_VALUE]) the dispatch order is that row's value per cost
    (prepare's ``prio`` formula, the same division); with "list" it is ``prio``, the scenario's list.

    The score of each option is written out in the loop, one value per branch, not called: an
    inlined scorer taking the arrays made numba count references to all twelve of them for
    every option (the profile: ~90% of greedy's choice). Same arithmetic, same order."""
    ek = keep[1 - s]
    ok = keep[s]
    best = -1e300
    pick = np.int64(0)
    ties = np.int64(0)
    for k in range(n):
        kind = buf[k, 0]
        a = buf[k, 1]
        b = buf[k, 2]
        v = -1.0
        if kind == ACT_END:
            v = 0.0 if phase != PH_DISPATCH else -1.0
        elif kind == ACT_DISPATCH:
            t = cards[a, C_TYPE]
            if fopt[F_PRIO_VALUE] != 0.0:
                sc = 1000.0 * (cval[t] / max(ctab[t, T_COST], 0.25))
            else:
                sc = 1000.0 * prio[t]
            if ctab[t, T_KIND] == K_ITEM:
                ht = cards[b, C_TYPE]
                v = sc + ctab[ht, T_ATT] + ctab[ht, T_DEF]
            else:
                sc -= dist[b, ek]
                top = sp[b, 0]
                if top >= 0:
                    ab = ctab[t, T_AB]
                    follower = ctab[t, T_KIND] != K_REG and (ab == AB_CLERIC or ab == AB_SORC or ab == AB_SMITH)
                    if follower and ctab[cards[top, C_TYPE], T_KIND] == K_REG:
                        sc += 50.0
                    elif ctab[t, T_KIND] == K_REG:
                        sc += 5.0
                v = sc
        elif kind == ACT_MOVE:
            if b == ek:
                v = 1e9
            else:
                x = cards[a, C_POS]
                t = cards[a, C_TYPE]
                ab = ctab[t, T_AB]
                if role[a] == 1:
                    gain = dist[x, ok] - dist[b, ok]
                    v = 1000.0 + 10.0 * gain if gain > 0 else -1.0
                elif ctab[t, T_KIND] != K_REG and (ab == AB_CLERIC or ab == AB_SORC or ab == AB_SMITH):
                    j = 1 if sp[x, 0] == a else 0
                    o = sp[x, j]
                    top = sp[b, 0]
                    if o >= 0 and ctab[cards[o, C_TYPE], T_KIND] == K_REG:
                        v = -1.0                      # stay with its regular
                    elif top >= 0 and ctab[cards[top, C_TYPE], T_KIND] == K_REG:
                        v = 500.0 + 20.0 - dist[b, ek]
                    else:
                        gain = dist[x, ek] - dist[b, ek]
                        v = 100.0 + gain if gain > 0 else -1.0
                else:
                    gain = dist[x, ek] - dist[b, ek]
                    if gain > 0:
                        v = 1000.0 + 10.0 * gain + spi[b, X_DEF] + spi[b, X_LEVEL]
        elif kind == ACT_ATTACK:
            tb = cards[b, C_TYPE]
            if ctab[tb, T_KIND] != K_REG:
                p = 1.0
            else:
                mod = modifier_inline_nb(cards, sp, ctab, spi, np.int64(a), np.int64(b), np.int64(0))
                p = p_success_nb(ptable, mod)
            thr = fopt[F_THRESHOLD]
            if cards[b, C_POS] == ek and fopt[F_KEEP_THRESHOLD] < thr:
                thr = fopt[F_KEEP_THRESHOLD]
            if p >= thr:
                vb = cval[tb]                          # card_value_nb(b)
                it = cards[b, C_ITEM]
                if it >= 0:
                    vb += cval[cards[it, C_TYPE]]
                ev = p * vb
                ta = cards[a, C_TYPE]
                if ctab[ta, T_RANGE] == 0:
                    if ctab[tb, T_KIND] == K_REG:
                        va = cval[ta]                  # card_value_nb(a)
                        it = cards[a, C_ITEM]
                        if it >= 0:
                            va += cval[cards[it, C_TYPE]]
                        ev -= P_CRIT * va
                    if cards[b, C_POS] == ek:
                        ev += 100.0 * p
                v = 1e5 + 100.0 * ev
        elif kind == ACT_SORC:
            v = greedy_sorc_nb(s, np.int64(a), np.int64(b), n, buf, cards, sp, ctab, spi, keep, fopt, ptable)
        elif kind == ACT_CLERIC or kind == ACT_SMITH:
            v = 5e4
        if v > best:
            best = v
            ties = np.int64(1)
            pick = np.int64(k)
        elif v >= best:
            ties += 1
            if rng_below_nb(rng, ties) == 0:
                pick = np.int64(k)
    return pick


greedy_choose_nb = njit(cache=True, _nrt=False)(greedy_choose)
# the search rollouts' copy (search.rollout_nb's one call site, through rollout_choose_nb): a call passes its
# 13 arrays field by field, and pushing them cost half as much as the scoring (perf of mcts:400 self-play).
# Only there: inlined into the game's own decisions too (the game loop, the step API) it added 10 s to
# the cold compile (scripts/compile_profile.py) for decisions that are a small part of a game's time.
greedy_choose_inline_nb = njit(_nrt=False, inline="always")(greedy_choose)


def _chooser(greedy):
    @njit(cache=True, _nrt=False, inline="always")
    def choose(pol, phase, s, n, buf, cards, sp, ctab, cval, spi, dist, keep, fopt, ptable, prio, role, rng):
        """Index of the chosen option among buf[:n] (index 0 is always 'end').

        A small dispatch inlined into its callers: random is one draw, greedy ``greedy``."""
        if n == 1:
            return np.int64(0)
        if pol == P_RANDOM:
            return rng_below_nb(rng, np.int64(n))
        return greedy(np.int64(phase), np.int64(s), np.int64(n), buf, cards, sp, ctab, cval, spi, dist, keep,
                      fopt, ptable, prio, role, rng)
    return choose


choose_nb = _chooser(greedy_choose_nb)                   # the game's decisions: greedy is one call
rollout_choose_nb = _chooser(greedy_choose_inline_nb)    # the rollouts': greedy inlined

