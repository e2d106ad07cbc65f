"""Storm the Castle, one decision at a time: the pieces the batch kernel (play.py) and the step API
(env.py) both call.

A game is: ``start_game_nb`` (decks shuffled from the game's stream, hands dealt, the record
cleared); per turn ``open_turn_nb`` (turn.py: the draw), then decisions, each one ``decide_nb``
(a scripted side's choice, drawn from the game's stream) and the rules' ``apply_nb`` (moves.py:
it plays the option and counts it in the record and the kills per space; an attack on a Regular
unit, a prayer or a forging rolls 2d6 from the stream there); ``close_turn_nb`` (turn.py) ends
the turn, ``snapshot_nb`` takes the material snapshot at the start of the snapshot turn, and
``finish_record_nb`` writes the record's last columns.

The step API plays on the search's state (search.py: ``S`` with ``pend``), so its decisions are
the search's codes and its chance events the search's outcome classes: ``play_code_nb`` is the
search's ``apply_nb`` (which stops before a roll), ``roll_outcome_nb`` draws the roll the rules
would draw at that moment (the same ``roll_2d6_nb`` on the same stream) and names its class, and
``resolve_outcome_nb`` is the search's ``resolve_nb``, which plays the rules with a roll of that
class: the record and the board depend on the class only, so the game is the kernel's game.
"""
import numpy as np
from numba import njit

from simkit.engine.dice import (STORM_O_FAIL, STORM_O_SUCCESS, roll_2d6_nb, storm_outcome_class_nb)
from simkit.engine.rng import rng_below_nb
from simkit.games.storm_the_castle.moves import init_game_nb, modifier_nb
from simkit.games.storm_the_castle.policies import P_MCTS, assign_roles_nb, choose_nb, drop_banned_nb
from simkit.games.storm_the_castle.rules import O_HAND, O_NC, S_FINAL, S_SNAP, T_ROLL
from simkit.games.storm_the_castle.search import (PD_A, PD_B, PD_KIND, _resolve_pending_nb, apply_nb, attack_classes_nb,
                                                  chance_nb,
                                                  choose_code_nb, encode_nb, options_nb, outcome_roll_nb, settle_nb,
                                                  side_tabs_nb)
from simkit.games.storm_the_castle.state import (ACT_ATTACK, C_ITEM, C_OWNER, C_TYPE, G_OVER, G_PHASE, G_REASON,
                                                 G_SIDE, G_SNAPPED, G_TURN, G_WINNER, L_DECK, L_GRAVE, L_HAND,
                                                 PH_ACTIONS, PH_DISPATCH)
from simkit.games.storm_the_castle.turn import close_turn_nb, open_turn_nb
from simkit.policies import EPS_SCALE, POL_BAN, POL_BUDGET, POL_EPS, POL_ID


# ---------------------------------------------------------------------------
# the game's start and end, and its record
@njit(cache=True)
def material_nb(cards, sp, fidx, rec, stat):
    """Count units on the board (and their items) per side and type into stat ``stat``."""
    for x in range(sp.shape[0]):
        for j in range(2):
            c = sp[x, j]
            if c >= 0:
                s = cards[c, C_OWNER]
                f = fidx[s, cards[c, C_TYPE], stat]
                if f >= 0:
                    rec[f] += 1
                it = cards[c, C_ITEM]
                if it >= 0:
                    f = fidx[s, cards[it, C_TYPE], stat]
                    if f >= 0:
                        rec[f] += 1


@njit(cache=True)
def start_game_nb(cards, sp, zones, zn, g, copies, iopt, first, rec, rng):
    """The start: empty board, both decks shuffled from ``rng`` and hands dealt, ``first`` to move
    (its turn not yet opened), a cleared record."""
    init_game_nb(cards, sp, zones, zn, g, copies, iopt[O_NC], iopt[O_HAND], rng)
    rec[:] = 0
    rec[0] = first
    g[G_SIDE] = first


@njit(cache=True)
def snapshot_nb(cards, sp, fidx, g, rec, snapshot):
    """The material snapshot, once, when turn ``snapshot`` has begun (-1: none).

    The kernel asks at the start of every turn; the step API before every decision, where the
    board is still the one the snapshot turn began with (only its draw and ending a phase with
    nothing to choose came between), so both take the same counts."""
    if 0 <= snapshot <= g[G_TURN] and g[G_SNAPPED] == 0:
        material_nb(cards, sp, fidx, rec, np.int64(S_SNAP))
        g[G_SNAPPED] = 1


@njit(cache=True)
def finish_record_nb(cards, sp, zn, g, fidx, eidx, rec):
    """The record's last columns: the snapshot of a game that ended before its snapshot turn (the
    final material), the final material, the cards left per side, the result."""
    if g[G_SNAPPED] == 0:
        material_nb(cards, sp, fidx, rec, np.int64(S_SNAP))
        g[G_SNAPPED] = 1
    material_nb(cards, sp, fidx, rec, np.int64(S_FINAL))
    for s in range(2):
        rec[eidx[s, 0]] = zn[s, L_DECK]
        rec[eidx[s, 1]] = zn[s, L_HAND]
        rec[eidx[s, 2]] = zn[s, L_GRAVE]
    rec[1] = g[G_WINNER]
    rec[2] = g[G_TURN]
    rec[3] = g[G_REASON]


# ---------------------------------------------------------------------------
# a scripted side's choice
# inlined (small, called from the game loop and policy_code_nb only): no library of its own
# re-optimising the search
@njit(cache=True, inline="always")
def decide_nb(pols, tabs, s, n, cards, sp, zones, zn, g, buf, role, rng, srch):
    """Side ``s``'s choice among buf[:n] under the policy vector ``pols`` (simkit.policies).

    A lone option ('end') is taken without a draw. ``eps:P`` draws once per decision with more
    than one option, and only when its epsilon is > 0, so records of policies without eps keep
    their dice. ``srch``: the search's tree, states and root ``pend`` (play.search_scratch).

    ``ban:CLASS:INNER`` (a mask in ``pols[POL_BAN + s]``): the unbanned options are moved to the front
    of ``buf`` and the rest of the choice sees only those (the returned index is into the reordered
    ``buf``, which the callers read after the choice); a decision left with 'end' alone is taken
    without a draw, as any lone option. The search drops the banned codes itself, so it gets the mask.

    ``tabs``: the kernel's table tuple with both sides' rows of the weight table (tabs[1]) and of the
    knob table (tabs[11]); side ``s`` reads its own."""
    (ctab, wt, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, mp) = tabs
    if n == 1:
        return np.int64(0)
    ban = pols[POL_BAN + s]
    if ban != 0:
        n = drop_banned_nb(buf, n, ban)
        if n == 1:
            return np.int64(0)
    eps = pols[POL_EPS + s]
    if eps > 0 and rng_below_nb(rng, np.int64(EPS_SCALE)) < eps:
        return rng_below_nb(rng, np.int64(n))    # a uniformly random legal option, as random plays
    pol = pols[POL_ID + s]
    if pol == P_MCTS:
        code = choose_code_nb(side_tabs_nb(tabs, s), cards, sp, zones, zn, g, srch, pols[POL_BUDGET + s], rng, ban)
        ph = np.int64(g[G_PHASE])
        for k in range(n):
            if encode_nb(ph, buf[k, 0], buf[k, 1], buf[k, 2], cards, sp, ctab, iopt) == code:
                return np.int64(k)
        return np.int64(0)
    # greedy reads the mover's row of the weight table (the search reads the searcher's: side_tabs_nb)
    return choose_nb(pol, np.int64(g[G_PHASE]), s, n, buf, cards, sp, ctab, wt[s], spi, dist, keep, fopt, ptable,
                     prio, role, rng)


# ---------------------------------------------------------------------------
# the step API's pieces, on a search state S (search.py)
@njit(cache=True, inline="always")
def counting_nb(S, rec, agg):
    """``S`` counting into the game's record row and kills per space (a search state has scratch there)."""
    return (S[0], S[1], S[2], S[3], S[4], S[5], S[6], S[7], S[8], S[9], S[10], rec, agg, S[13])


@njit(cache=True)
def after_event_nb(P, S, turn, phase):
    """What the game loop does around a decision that the search's functions leave out: a keep taken
    ends the turn too (the kernel closes every turn it plays, so the winning turn is counted), and
    greedy's defenders are picked where the action phase begins (``S``'s ``role``: the kernel's)."""
    dist, keep, iopt, ctab = P[4], P[5], P[6], P[0]
    cards, sp, g, role = S[0], S[1], S[4], S[10]
    if g[G_OVER] != 0:
        if g[G_TURN] == turn:
            close_turn_nb(g, np.bool_(True))      # over: only counts the turn (a bool, not a literal: one compile)
        return
    if g[G_PHASE] == PH_ACTIONS and (g[G_TURN] != turn or phase == PH_DISPATCH):
        assign_roles_nb(np.int64(g[G_SIDE]), cards, sp, ctab, dist, keep, iopt, role)


@njit(cache=True)
def first_decision_nb(P, S, copies, first, rec, rng):
    """The game's start, played on to the first decision with a choice (the search state's convention)."""
    iopt = P[6]
    cards, sp, zones, zn, g = S[0], S[1], S[2], S[3], S[4]
    start_game_nb(cards, sp, zones, zn, g, copies, iopt, first, rec, rng)
    open_turn_nb(cards, zones, zn, g, iopt, first)
    settle_nb(P, S)
    after_event_nb(P, S, np.int64(-1), np.int64(PH_DISPATCH))


@njit(cache=True)
def play_code_nb(P, S, code, rng, rec, agg, snapshot):
    """Play decision ``code`` for the side to move, counted in ``rec`` and ``agg``; a roll it needs
    is left pending (``roll_outcome_nb``, ``resolve_outcome_nb``)."""
    fidx = P[10]
    g = S[4]
    snapshot_nb(S[0], S[1], fidx, g, rec, snapshot)
    turn, phase = np.int64(g[G_TURN]), np.int64(g[G_PHASE])
    apply_nb(P, counting_nb(S, rec, agg), code, rng)
    after_event_nb(P, S, turn, phase)


@njit(cache=True)
def chance_classes_nb(P, S, outcomes, probs):
    """The pending roll's outcome classes with their exact probabilities: the search's (search.chance_nb),
    except that a ranged attack's critical failure is a class of its own. The search folds it into
    failure (a shot that misses does nothing either way), but the record counts critical failures."""
    if S[5][PD_KIND] == ACT_ATTACK:
        return attack_classes_nb(P, S, outcomes, probs, False)
    return chance_nb(P, S, outcomes, probs)


@njit(cache=True)
def roll_outcome_nb(P, S, rng):
    """The pending roll's class, its 2d6 drawn from ``rng`` as the rules' apply_nb draws it in the kernel."""
    ctab, spi = P[0], P[2]
    cards, sp, pend = S[0], S[1], S[5]
    a = np.int64(pend[PD_A])
    roll = roll_2d6_nb(rng)
    if pend[PD_KIND] == ACT_ATTACK:
        return storm_outcome_class_nb(roll, modifier_nb(cards, sp, ctab, spi, a, np.int64(pend[PD_B]), np.int64(0)))
    return STORM_O_SUCCESS if roll == ctab[cards[a, C_TYPE], T_ROLL] else STORM_O_FAIL


@njit(cache=True)
def resolve_outcome_nb(P, S, outcome, rng, rec, agg):
    """Settle the pending roll with outcome class ``outcome`` (search.resolve_nb), counted in ``rec`` and ``agg``."""
    g = S[4]
    turn, phase = np.int64(g[G_TURN]), np.int64(g[G_PHASE])
    C = counting_nb(S, rec, agg)
    _resolve_pending_nb(P, C, outcome_roll_nb(P, C, outcome), rng)
    settle_nb(P, C)
    after_event_nb(P, S, turn, phase)


@njit(cache=True)
def policy_code_nb(pols, P, S, srch, rng):
    """The decision code of the side to move under the policy vector ``pols``, drawn from ``rng`` as the
    kernel's ``decide_nb`` draws it (``srch``: play.search_scratch)."""
    cards, sp, zones, zn, g, buf, role = S[0], S[1], S[2], S[3], S[4], S[9], S[10]
    ctab, iopt = P[0], P[6]
    n = options_nb(P, S)
    k = decide_nb(pols, P, np.int64(g[G_SIDE]), n, cards, sp, zones, zn, g, buf, role, rng, srch)
    return encode_nb(np.int64(g[G_PHASE]), buf[k, 0], buf[k, 1], buf[k, 2], cards, sp, ctab, iopt)
