"""Skorm's position evaluation and decision scores, for the search (search.py) and the quality trajectory.

Three things, each in greedy's units (a Shieldman is 1, a Horseman 2):

- ``settled_nb``: the winner of a position one ply settles, exactly, else -1. The side to move wins if
  it attacks the enemy Warlord (the attack map is exact for a Warlord: it has no shield), or if its own
  Warlord can step onto the Gold Tile for an immediate win (SK-7) or where no enemy piece could take it
  during the opponent's turn; it loses if the enemy Warlord waits on the Gold Tile and it cannot take it
  (SK-8). Nothing else is called certain. The Gold Tile claims are made only once SK-C1's long first
  turn is over (``second_player_first_actions`` > 1 skips the checks in mid-turn).
- ``lead_nb``: side 0's heuristic lead of an unsettled position: material by greedy's ``values``,
  ``w_gold_distance`` per hex of Warlord distance to the Gold Tile, and ``TAKE`` x the best enemy piece
  the side to move attacks (it is about to take it; a Shieldman attacked only from the direction it
  faces is safe). Bounded by the armies' material. The unit values and ``w_gold_distance`` are a row of
  the evaluation's weight table (rules.P_EVAL): the searcher's in the search, row 0 for the trajectory
  and the step API; features.py gives the features whose dot product with the row is this lead.
- ``decision_scores_nb``: the search's prior scores of the mover's actions: greedy's one-ply evaluation
  (material taken, own Warlord attacked after the move: - ``w_warlord_safety``, pieces left hanging,
  Gold Tile distance, advance), minus ``w_warlord_safety`` again when the move lets the enemy Warlord
  win on the Gold Tile next turn (the Gold Tile race greedy does not see), and ``DECISIVE`` for the
  actions that win: taking the enemy Warlord, or the own Warlord onto the Gold Tile for an immediate
  win or where no enemy piece can take it.
"""
import numpy as np
from numba import njit

from simkit.engine.search import DECISIVE
from simkit.games.skorm.moves import act_from, act_to, act_type, attack_bits_nb, bit_nb, threat_dirs_nb
from simkit.games.skorm.policies import WIN_SCORE, greedy_scores_nb
from simkit.games.skorm.rules import (
    F_W_WARLORD, I_FIRST_ACTIONS2, I_GOLD, I_GOLD_IMM, I_GOLD_ON, I_STEPS_H, I_STEPS_W, P_ADJB, P_DIST,
    P_DISTG, P_EVAL, P_F, P_FRAY, P_I, P_NB, P_SHOTB, W_GOLD,
)
from simkit.games.skorm.state import SC_CNT, SC_PENDING, SC_PLY, SC_PN0, SC_TOMOVE, SC_WL0

TAKE = 0.8          # share of the best attacked enemy piece's value credited to the side to move
WON_LEAD = 20.0     # a trajectory's lead for a position one ply settles (greedy's w_warlord_safety default):
#                     a strong claim (99.3% at mcts_scale 4), not a certainty, since the policy may miss the win
NEAR_WIN = 50.0     # the score of a Gold Tile arrival greedy calls a win where SK-C1's long turn makes it unsure


@njit(cache=True, inline="always")
def gold_claims_nb(ip, sc):
    """Are the Gold Tile checks exact one ply ahead? Not during SK-C1's long first turn of the second
    player (the checks wait for its end) nor just before it (the reply is then several plies)."""
    k = ip[I_FIRST_ACTIONS2]
    return ip[I_GOLD_ON] == 1 and (k == 1 or sc[SC_PLY] >= k)


@njit(cache=True, _nrt=False, inline="always")
def settled_nb(params, cell, plist, sc, w0, w1):
    """The winner of a position the side to move's next ply settles exactly, else -1 (module docstring).
    ``w0, w1``: the side to move's attack map (attack_bits_nb)."""
    ip = params[P_I]
    s = sc[SC_TOMOVE]
    o = 1 - s
    if bit_nb(w0, w1, sc[SC_WL0 + o]) != 0:
        return s
    if not gold_claims_nb(ip, sc):
        return -1
    if sc[SC_PENDING] == o:
        return o                      # SK-8: the waiting Warlord wins when this ply cannot take it
    gold = ip[I_GOLD]
    wl = sc[SC_WL0 + s]
    c = cell[gold]
    if wl == gold or (c != 0 and (c - 1) >> 2 == s) or c == 1 + 4 * o:
        return -1                     # no arrival (an enemy Shieldman there may be shielded: no claim)
    nb = params[P_NB]
    reach = params[P_DIST][wl, gold] == 1
    if not reach and ip[I_STEPS_W] >= 2:
        for d in range(6):
            m = nb[wl, d]
            if m >= 0 and cell[m] == 0 and params[P_DIST][m, gold] == 1:
                reach = True
                break
    if not reach:
        return -1
    if sc[SC_PN0 + o] - 1 - (1 if c != 0 else 0) <= ip[I_GOLD_IMM]:
        return s                      # SK-7: immediate
    # a safe arrival: no enemy piece could take the Warlord on the Gold Tile in the opponent's one ply
    wcode = cell[wl]
    cell[wl] = 0
    cell[gold] = wcode
    e0, e1 = attack_bits_nb(params, cell, plist, sc, o, gold if c != 0 else -1)
    cell[gold] = c
    cell[wl] = wcode
    return s if bit_nb(e0, e1, gold) == 0 else -1


@njit(cache=True, _nrt=False, inline="always")
def lead_nb(params, cell, face, plist, sc, counts, w0, w1, W):
    """Side 0's heuristic lead (module docstring); ``w0, w1``: the side to move's attack map;
    ``counts``: int64 scratch of 6 entries; ``W``: the weight row (rules.P_EVAL) it judges with. Every
    weight is W's, so this is features.features_nb's dot product with W (same terms, same order here as
    before the table, so the default rows give the same floats)."""
    distg = params[P_DISTG]
    s = sc[SC_TOMOVE]
    o = 1 - s
    lead = 0.0
    for k in range(3):
        lead += W[k] * (sc[SC_CNT + k] - sc[SC_CNT + 4 + k])
    lead += W[W_GOLD] * (distg[sc[SC_WL0 + 1]] - distg[sc[SC_WL0]])
    gain = 0.0
    for j in range(sc[SC_PN0 + o]):
        p = plist[o, j]
        k = (cell[p] - 1) & 3
        if k == 3 or W[k] <= gain or bit_nb(w0, w1, p) == 0:
            continue
        if k == 0 and (threat_dirs_nb(params, cell, p, s, counts) & ~(1 << face[p])) == 0:
            continue
        gain = W[k]
    return lead + (TAKE * gain if s == 0 else -TAKE * gain)


@njit(cache=True, _nrt=False)
def assess_nb(params, cell, face, plist, sc, counts, W):
    """(winner one ply settles or -1, side 0's heuristic lead by the weight row ``W``; 0.0 when settled).
    attack_bits_nb, settled_nb and lead_nb are inlined here (the search's leaf): each call took the whole
    params tuple, whose passing cost a few percent of the search."""
    s = sc[SC_TOMOVE]
    w0, w1 = attack_bits_nb(params, cell, plist, sc, s, np.int64(-1))
    won = settled_nb(params, cell, plist, sc, w0, w1)
    if won >= 0:
        return won, 0.0
    return won, lead_nb(params, cell, face, plist, sc, counts, w0, w1, W)


@njit(cache=True, _nrt=False)
def trajectory_lead_nb(params, cell, face, plist, sc, counts):
    """Side 0's lead for the quality trajectory: ``lead_nb`` by the weight table's row 0 (the quality
    measure judges every game with one yardstick), or +-WON_LEAD where one ply settles the game
    (bounded: a random player may not take its win)."""
    won, lead = assess_nb(params, cell, face, plist, sc, counts, params[P_EVAL][0])
    if won == 0:
        return WON_LEAD
    if won == 1:
        return -WON_LEAD
    return lead


@njit(cache=True, _nrt=False)
def _moved_attacks_cell_nb(ip, nb, adjb, shotb, cell, plist, sc, s, a, t, skip, c):
    """Does side ``s`` attack cell ``c`` with its piece from ``a`` already standing on ``t`` in ``cell`` (plist
    still says ``a``); ``skip``: a cell of ``s`` whose piece is being captured (-1 none)? The bit ``c`` of
    the attack map (attack_bits_nb's, built piece by piece), stopping at the first piece that attacks it:
    the search's priors ask this for every action, and the whole map is not needed."""
    two_h = ip[I_STEPS_H] >= 2
    two_w = ip[I_STEPS_W] >= 2
    for i in range(sc[SC_PN0 + s]):
        x = plist[s, i]
        if x == a:
            x = t
        if x == skip:
            continue
        kind = (cell[x] - 1) & 3
        if kind == 1:
            if bit_nb(shotb[x, 0], shotb[x, 1], c) != 0:
                return True
            continue
        if bit_nb(adjb[x, 0], adjb[x, 1], c) != 0:
            return True
        if (kind == 2 and two_h) or (kind == 3 and two_w):
            for d in range(6):
                m = nb[x, d]
                if m >= 0 and cell[m] == 0 and bit_nb(adjb[m, 0], adjb[m, 1], c) != 0:
                    return True
    return False


@njit(cache=True, _nrt=False)
def gives_gold_nb(ip, nb, adjb, shotb, dist, cell, plist, sc, code):
    """After the mover's action ``code``, could the enemy Warlord step onto the Gold Tile and win (at
    once, or where none of the mover's pieces can take it)? A prior's warning, not a claim: the shield
    of the mover's Shieldman on the Gold Tile is ignored. The tables come one by one (not ``params``): it is
    called per action, and passing the whole tuple to a call costs more than its work (moves.gen_list_nb)."""
    s = sc[SC_TOMOVE]
    o = 1 - s
    ewl = sc[SC_WL0 + o]
    gold = ip[I_GOLD]
    if ewl < 0 or dist[ewl, gold] > (2 if ip[I_STEPS_W] >= 2 else 1):
        return False
    typ = act_type(code)
    a = act_from(code)
    t = act_to(code)
    if t == ewl:
        return False
    ca = cell[a]
    ct = cell[t]
    if typ == 1:
        cell[t] = 0
    else:
        cell[t] = ca
        cell[a] = 0
    threat = False
    g = cell[gold]
    if g == 0 or (g - 1) >> 2 == s:      # the enemy Warlord may enter (taking what stands there)
        reach = dist[ewl, gold] == 1
        if not reach:
            for d in range(6):
                m = nb[ewl, d]
                if m >= 0 and cell[m] == 0 and dist[m, gold] == 1:
                    reach = True
                    break
        if reach:
            mine = sc[SC_PN0 + s] - 1 - (1 if g != 0 else 0)
            if mine <= ip[I_GOLD_IMM]:
                threat = True
            else:       # the enemy Warlord on the Gold Tile: can the mover's pieces take it there?
                ew = cell[ewl]
                cell[ewl] = 0
                cell[gold] = ew
                hit = _moved_attacks_cell_nb(ip, nb, adjb, shotb, cell, plist, sc, s, a if typ == 0 else -1, t,
                                             gold if g != 0 else -1, gold)
                cell[gold] = g
                cell[ewl] = ew
                threat = not hit
    cell[a] = ca
    cell[t] = ct
    return threat


@njit(cache=True, _nrt=False)
def decision_scores_nb(params, cell, face, plist, sc, acts, n, counts, scores, W):
    """The search's prior scores of the side to move's ``n`` actions (module docstring) into ``scores``.
    ``counts``: greedy's int64 scratch (6 + 3P + N); ``W``: the searcher's weight row (rules.P_EVAL)."""
    return decision_scores_tab_nb(params[P_I], params[P_F], params[P_NB], params[P_ADJB], params[P_SHOTB],
                                  params[P_FRAY], params[P_DIST], params[P_DISTG], cell, face, plist, sc, acts, n,
                                  counts, scores, W)


@njit(cache=True, _nrt=False)
def decision_scores_tab_nb(ip, F, nb, adjb, shotb, fray, dist, distg, cell, face, plist, sc, acts, n, counts, scores,
                           W):
    """decision_scores_nb with the tables one by one: the search calls it at every expansion, and passing the
    whole params tuple to a call cost a few percent of the search (the profile's decisions_nb)."""
    greedy_scores_nb(ip, F, W, nb, adjb, shotb, fray, dist, distg, cell, face, plist, sc, acts, n, counts,
                     np.int64(0), scores)
    claims = gold_claims_nb(ip, sc)
    ewl = sc[SC_WL0 + 1 - sc[SC_TOMOVE]]
    # gives_gold_nb is False for every action while the enemy Warlord cannot reach the Gold Tile in one
    # ply (its own first test, which no action changes): asked once here, not per action
    near = ewl >= 0 and dist[ewl, ip[I_GOLD]] <= (2 if ip[I_STEPS_W] >= 2 else 1)
    for i in range(n):
        if scores[i] >= WIN_SCORE:
            # greedy's wins: the enemy Warlord taken (always exact) or the Gold Tile reached
            scores[i] = DECISIVE if act_to(acts[i]) == ewl or claims else NEAR_WIN
        elif claims and near and gives_gold_nb(ip, nb, adjb, shotb, dist, cell, plist, sc, acts[i]):
            scores[i] -= F[F_W_WARLORD]
    return n
