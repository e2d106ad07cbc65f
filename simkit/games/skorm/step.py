"""One Skorm ply, in pieces the batch kernel (play.py) and the step API (env.py) both call.

A game is: ``start_game_nb`` (placement, counters cleared), then per ply ``snapshot_nb`` (the
record's material snapshot before ply ``snapshot_ply``), the mover's choice and the ply played
and counted, until the game is over; ``finish_record_nb`` writes the record. A scripted side's
choice is ``random_choice_nb`` / ``greedy_choice_nb`` (policies.py) or ``mcts_choice_nb`` (here),
each drawing from the game's stream as the kernel's plies draw; ``act_nb`` (policies.py) plays it.

A policy's choice comes with its *style*: the random policy, and a degrader's random action,
play an action in the random way (a moving Shieldman lands facing a uniform direction, no
rotations); greedy and the search follow the ``facing`` option (SK-4). The style is part of
the scripted policy's decision, not of the action (SK-5b), so the step API keeps it beside
the position (``step_decision_nb``).

The step API's decision codes are the search's (search.py, ``2 N^2``) plus ``pass_code(N)``:
the pass of a side with no action (SK-8, SK-9: a position with no action has one child, the
pass), a decision of its own because the policy's style still matters there (greedy turns its
Shieldmen on a pass, random does not).
"""
from numba import njit

from simkit.engine.rng import rng_below_nb
from simkit.games.skorm.moves import count_actions_nb, gen_list_nb
from simkit.games.skorm.policies import (
    POL_MCTS, POL_RANDOM, act_nb, drop_banned_nb, greedy_choice_nb, played_as_nb, random_choice_nb,
)
from simkit.games.skorm.rules import (
    I_N, P_ADJB, P_APPR, P_DEST, P_DIST, P_DISTG, P_EVAL, P_F, P_FRAY, P_I, P_KNOBS, P_NB, P_RAY, P_SHOTB,
)
from simkit.games.skorm.search import action_of_nb, decision_of_nb, lands_later_nb, search_nb
from simkit.games.skorm.state import (
    PASS, SC_CNT, SC_PLY, SC_REASON, SC_TOMOVE, SC_WINNER, ST_BLOCK, ST_KCAP, ST_KSHOT, ST_LOSS, ST_PASS, setup_game_nb,
)
from simkit.games.skorm.layout import F_BLOCK, F_FINAL, F_KCAP, F_KILL, F_KSHOT, F_LOSS, F_PASS, F_SNAP
from simkit.policies import EPS_SCALE, POL_BAN, POL_BUDGET, POL_EPS, POL_ID


def pass_code(n_cells: int) -> int:
    """The step API's code of a forced pass: the first code past the search's ``2 N^2``."""
    return 2 * n_cells * n_cells


@njit(cache=True)
def start_game_nb(params, rng, first, cell, face, plist, slot, sc, stats, log):
    """The placed start position (state.setup_game_nb: the placement draws from ``rng``), ``first``
    to move, the per-game counters cleared; returns the log rows used."""
    li = setup_game_nb(params, rng, first, cell, face, plist, slot, sc, log)
    stats[:] = 0
    return li


@njit(cache=True, inline="always")
def snapshot_nb(sc, rec, snapshot_ply):
    """Before a ply: the record's material snapshot when this is ply ``snapshot_ply``."""
    if sc[SC_PLY] == snapshot_ply:
        for j in range(8):
            rec[F_SNAP + j] = sc[SC_CNT + j]


@njit(cache=True)
def finish_record_nb(sc, stats, first, rec, snapshot_ply):
    """The record of a finished game: result, final material (also the snapshot of a game that
    ended before ply ``snapshot_ply``, or of no snapshot: -1), the per-game counters."""
    if not 0 <= snapshot_ply < sc[SC_PLY]:
        for j in range(8):
            rec[F_SNAP + j] = sc[SC_CNT + j]
    for j in range(8):
        rec[F_FINAL + j] = sc[SC_CNT + j]
    rec[0] = first
    rec[1] = sc[SC_WINNER]
    rec[2] = sc[SC_PLY]
    rec[3] = sc[SC_REASON]
    for j in range(8):
        rec[F_LOSS + j] = stats[ST_LOSS + j]
        rec[F_KCAP + j] = stats[ST_KCAP + j]
        rec[F_KSHOT + j] = stats[ST_KSHOT + j]
        rec[F_KILL + j] = stats[ST_KCAP + j] + stats[ST_KSHOT + j]
    for s in range(2):
        rec[F_BLOCK + s] = stats[ST_BLOCK + s]
        rec[F_PASS + s] = stats[ST_PASS + s]


@njit(cache=True, inline="always")
def mcts_choice_nb(params, rng, budget, eps, ban, cell, face, plist, slot, sc, acts, blocks, counts, stats, agg, ws):
    """The action of ``mcts:N`` (``budget`` iterations of the engine's search, search.py) under the degrader
    ``eps``: one draw per decision (a ply with an action; a forced pass is none). ``ban``: the classes the
    side never plays while it has another action (policies.ACTION_CLASSES; the search and the degrader
    both leave them out). Returns (action or PASS, greedy's style: False when the degrader played);
    ``blocks[0]``: the shield blocks the listing met.
    Inlined (a few lines): a compiled layer of its own would re-optimise the whole search again."""
    s = sc[SC_TOMOVE]
    blocks[0] = 0
    ip = params[P_I]
    n = gen_list_nb(ip, params[P_NB], params[P_RAY], params[P_DEST], params[P_APPR], params[P_ADJB], cell, face,
                    plist, sc, s, acts, blocks)
    search = True
    if eps > 0 and n > 0 and rng_below_nb(rng, EPS_SCALE) < eps:
        search = False
    code = PASS
    if n > 0:
        if search:
            trees, S, S2s, aux, keys = ws   # each side searches its own tree (mcts_reuse keeps it between plies)
            aux[2] = s      # the searcher judges with its own row of the weight table (search.py)
            # the engine's search_nb itself, not search.choose_nb: a compiled layer less to re-optimise
            code = action_of_nb(search_nb(params, (cell, face, plist, slot, sc, aux, acts, blocks, counts, stats, agg,
                                                   keys), S, S2s[s], params[P_KNOBS][s], budget, rng, trees[s], ban),
                                ip[I_N]) if n > 1 else acts[0]
        else:
            code = acts[rng_below_nb(rng, n if ban == 0 else drop_banned_nb(ip, cell, s, acts, n, ban))]
    return code, search


@njit(cache=True)
def policy_choice_nb(params, S, policies, rng, ws):
    """The step API's scripted decision: the side to move's choice under its entry of the policy vector
    (simkit.policies), drawn from ``rng`` exactly as the kernel's ply draws it, as (decision code, greedy's
    style). ``S``: the step API's position (search.py's state), left as it is; ``ws``: new_search_nb's."""
    cell, face, plist, slot, sc, acts, blocks, counts = S[0], S[1], S[2], S[3], S[4], S[6], S[7], S[8]
    ip = params[P_I]
    s = sc[SC_TOMOVE]
    ban = policies[POL_BAN + s]
    pol, eps = played_as_nb(policies[POL_ID + s], policies[POL_EPS + s], ban)   # ban:CLASS:random: greedy's degrader
    if pol == POL_RANDOM:
        code, _ = random_choice_nb(ip, params[P_NB], params[P_RAY], params[P_DEST], params[P_APPR], params[P_ADJB],
                                   params[P_SHOTB], params[P_FRAY], rng, eps, cell, face, plist, sc, counts)
        style = False
    elif pol == POL_MCTS:
        # the search's root as the kernel builds it: the block's own aux (no landing pending) and keys
        code, style = mcts_choice_nb(params, rng, policies[POL_BUDGET + s], eps, ban, cell, face, plist, slot, sc,
                                     acts, blocks, counts, S[9], S[10], ws)
    else:
        code, style = greedy_choice_nb(ip, params[P_F], params[P_EVAL][s], params[P_NB], params[P_RAY],
                                       params[P_DEST], params[P_APPR], params[P_ADJB], params[P_SHOTB], params[P_FRAY],
                                       params[P_DIST], params[P_DISTG], rng, pol, eps, ban, cell, face, plist, sc, acts,
                                       blocks, counts, ws[4])
    N = ip[I_N]
    return (2 * N * N if code < 0 else decision_of_nb(code, N)), style


@njit(cache=True)
def step_decision_nb(params, S, code, rng, rec, agg, snapshot_ply):
    """Play decision ``code`` of the side to move through the step API and count it as the kernel's ply
    does: the snapshot, the shield blocks the mover meets (count_actions_nb: what every policy's listing
    counts), then the action in its style. ``S[5][1]`` holds the code a scripted choice made in the random
    style (policy_choice_nb; -1: none): only that code is played so, once. With ``facing = "random"`` a
    moving Shieldman's landing is left to a chance event (search.lands_later_nb; step_land_nb settles it)."""
    cell, face, plist, slot, sc, aux, counts, stats = S[0], S[1], S[2], S[3], S[4], S[5], S[8], S[9]
    ip = params[P_I]
    nb, adjb, fray = params[P_NB], params[P_ADJB], params[P_FRAY]
    N = ip[I_N]
    snapshot_nb(sc, rec, snapshot_ply)
    s = sc[SC_TOMOVE]
    _, nblk = count_actions_nb(ip, nb, adjb, params[P_SHOTB], fray, cell, face, plist, sc, s, counts)
    stats[ST_BLOCK + 1 - s] += nblk
    greedy = aux[1] != code
    aux[1] = -1
    act = PASS if code == 2 * N * N else action_of_nb(code, N)
    if act >= 0 and lands_later_nb(ip, cell, face, plist, slot, sc, aux, act, stats, agg):
        return
    act_nb(ip, nb, adjb, fray, rng, act, greedy, cell, face, plist, slot, sc, counts, stats, agg)


@njit(cache=True)
def roll_landing_nb(rng):
    """A pending landing facing drawn from the game's stream as act_nb draws it (``facing = "random"``)."""
    return rng_below_nb(rng, 6)
