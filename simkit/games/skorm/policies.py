"""Skorm play policies (jitted), chosen by id = index in ``layout.POLICIES``.

- ``random``: uniform over the legal actions (SK-5b identities); no
  start-of-turn rotations; a moving Shieldman lands facing a uniform direction.
- ``greedy``: a winning action if there is one (kill the enemy Warlord, or
  bring the own Warlord onto the Gold Tile when that wins at once or when no
  enemy piece could take it there next turn); otherwise the best one-ply
  evaluation

      value of the piece taken
      - w_warlord_safety  * [own Warlord could be taken next turn]
      - w_gold_distance   * hex distance of the own Warlord to the Gold Tile
      - w_hanging         * value of the most valuable other own piece the
                            opponent could take next turn
      + w_advance         * hexes the moved piece (not the Warlord) comes
                            closer to the enemy Warlord

  ties broken uniformly at random. "Could be taken" uses the attack map of the
  opponent after the move (one bitmask per candidate, not the opponent's move
  list); an attacked Shieldman counts as safe when every attack comes from one
  direction and the facing policy is ``threat`` (it will turn to face it), or
  when every attack comes from the direction it faces (other facing policies).
  Facing follows the scenario's ``facing`` option (``threat`` by default).
- ``greedy_noshoot``: restricted play (DESIGN.md "greedy that never shoots"):
  exactly ``greedy`` (evaluation, tie-breaks, facing) over the side's actions
  without its shots; its archers still move. It
  does not shoot even when a shot would kill the enemy Warlord. Skorm has no
  voluntary pass (RULES.md: a side passes only when it has no action), so when
  every legal action is a shot it takes the shot greedy rates best.
- ``mcts``: the engine's search (simkit/engine/search.py) over Skorm's hooks
  (simkit/games/skorm/search.py); its Shieldmen face as greedy's do (the ``facing`` option).
- ``ban:CLASS:POLICY`` (simkit.policies; the mask at ``policies[POL_BAN + side]``): every policy
  above chooses among the side's actions outside the banned ``ACTION_CLASSES`` only, while
  there is one (a side with an action must act: RULES.md has no voluntary pass). Greedy
  scores the banned ones -inf as ``greedy_noshoot`` leaves out its shots (``greedy_noshoot``
  is greedy with the shot bit set), the degrader draws among the others, the search drops
  them from its own decisions (search.class_nb). A banned ``random`` side is played as greedy
  whose degrader always fires (``played_as_nb``): a uniform unbanned action, in the random
  style; random_ply_nb draws without listing the actions, so it cannot see their classes.
  Without a ban every policy draws from the game's stream exactly as before.

Every policy then plays its action through ``act_nb``: ``random`` in the random
style (a moving Shieldman lands facing a uniform direction, no rotations), the
others in greedy's style (the ``facing`` option).
"""
import numpy as np
from numba import njit

from simkit.engine.rng import argmax_step_nb, rng_below_nb
from simkit.games.skorm.bits import cellbit_nb, lowest_cell_nb
from simkit.games.skorm.moves import (
    act_from, act_to, act_type, apply_action_nb, bit_nb, count_actions_nb, end_ply_nb, gen_list_nb,
    select_action_nb, static_attack_bits_nb, threat_mask_nb, turn_shields_nb, two_step_bits_nb,
)
from simkit.games.skorm.rules import (
    F_W_ADV, F_W_HANG, F_W_WARLORD, I_FACING, I_GOLD, I_GOLD_IMM, I_GOLD_ON, I_STEPS_H, I_STEPS_W, W_GOLD,
)
from simkit.games.skorm.state import PASS, SC_PN0, SC_TOMOVE, SC_WL0, ST_BLOCK, ST_PASS
from simkit.policies import EPS_SCALE

POL_RANDOM, POL_GREEDY, POL_GREEDY_NOSHOOT, POL_MCTS = 0, 1, 2, 3
WIN_SCORE = 1e18

# The action classes a ban:CLASS:POLICY side never plays (GameSpec.action_classes, in this order: bit k of
# the ban mask is class k). They are what a decision code tells apart (SK-5b: a shot, or a move onto a
# cell, which captures when an enemy stands there), plus the Warlord's step onto the Gold Tile (SK-7), the
# game's other way to win. Start-of-turn rotations and landing facings are no decisions (the ``facing``
# option turns Shieldmen for every policy; ``facing = none`` is play without turning), so no class.
ACTION_CLASSES = ("shot", "capture", "gold", "move")
CL_SHOT, CL_CAPTURE, CL_GOLD, CL_MOVE = 0, 1, 2, 3


@njit(cache=True, inline="always")
def action_class_nb(ip, cell, s, act):
    """The class of side ``s``'s action ``act`` (ACTION_CLASSES): an Archer's shot; the own Warlord stepping
    onto the Gold Tile while the Gold Tile rule holds (also when it captures there: ``ban:gold`` is then
    play that never goes for the Tile); a capture; any other move."""
    if act_type(act) == 1:
        return CL_SHOT
    t = act_to(act)
    if t == ip[I_GOLD] and ip[I_GOLD_ON] == 1 and cell[act_from(act)] == 4 + 4 * s:
        return CL_GOLD
    if cell[t] != 0:
        return CL_CAPTURE
    return CL_MOVE


@njit(cache=True, _nrt=False)
def drop_banned_nb(ip, cell, s, acts, n, ban):
    """Move side ``s``'s actions whose class is not in the bit mask ``ban`` to the front of ``acts[:n]``
    (keeping their order) and return how many; all ``n`` when every action is banned (a side must act)."""
    k = 0
    for i in range(n):
        act = acts[i]
        if (ban >> action_class_nb(ip, cell, s, act)) & 1 == 0:
            acts[i] = acts[k]
            acts[k] = act
            k += 1
    return k if k > 0 else n


@njit(cache=True, inline="always")
def played_as_nb(pol, eps, ban):
    """The (policy id, degrader) a side with the ban mask ``ban`` plays as: ``ban:CLASS:random`` is greedy
    whose degrader always fires (a uniform action among the unbanned ones, played in the random style)."""
    if pol == POL_RANDOM and ban != 0:
        return np.int64(POL_GREEDY), np.int64(EPS_SCALE)
    return pol, eps


@njit(cache=True, inline="always")
def act_nb(ip, nb, adjb, fray, rng, code, greedy_style, cell, face, plist, slot, sc, counts, stats, agg):
    """Play the chosen action ``code`` (PASS: the side has none) of the side to
    move, turn its Shieldmen and close the ply (SK-8).

    ``greedy_style`` False is the random policy's way (a moving Shieldman lands
    facing a uniform direction, no rotations); True follows the ``facing`` option.
    Inlined: every ply plays through it since the ply was split into choice and
    play (step.py), and a call layer cost the random ply ~5% (simkit bench --against).
    """
    s = sc[SC_TOMOVE]
    facing = ip[I_FACING]
    if code >= 0:
        landface = -1
        a = act_from(code)
        if act_type(code) == 0 and cell[a] == 1 + 4 * s and (not greedy_style or facing == 1):
            landface = rng_below_nb(rng, 6)
        apply_action_nb(cell, face, plist, slot, sc, code, landface, stats, agg)
    else:
        stats[ST_PASS + s] += 1
    if greedy_style and facing == 2:
        turn_shields_nb(ip, nb, adjb, fray, cell, face, plist, sc, s, counts)
    end_ply_nb(ip, sc, code < 0)


@njit(cache=True, inline="always")
def random_choice_nb(ip, nb, ray, dest, appr, adjb, shotb, fray, rng, eps, cell, face, plist, sc, npa):
    """The ``random`` policy's action (also under ``eps:P:random``) without an action
    list: count the legal actions piece by piece (count_actions_nb), draw the degrader
    (only when eps > 0 and there is an action: its outcome is random play either way),
    draw ``rng % n`` as the listed version did, walk to the piece that holds the drawn
    action and pick it in gen_actions_nb's order. Returns (action or PASS, the shield
    blocks the count met). ``npa``: int64 scratch of at least P entries. The tables
    (params) come one by one, as on every hot path (see gen_list_nb)."""
    s = sc[SC_TOMOVE]
    n, nblk = count_actions_nb(ip, nb, adjb, shotb, fray, cell, face, plist, sc, s, npa)
    if eps > 0 and n > 0:
        rng_below_nb(rng, EPS_SCALE)
    code = PASS
    if n > 0:
        r = rng_below_nb(rng, n)
        i = 0
        while r >= npa[i]:
            r -= npa[i]
            i += 1
        code = select_action_nb(ip, nb, adjb, ray, dest, appr, cell, face, s, plist[s, i], r)
    return code, nblk


@njit(cache=True, _nrt=False)
def random_ply_nb(ip, nb, ray, dest, appr, adjb, shotb, fray, rng, eps, cell, face, plist, slot, sc, npa, stats, agg):
    """One ply of the ``random`` policy: its choice (random_choice_nb), the shield blocks
    counted for the defender, the action played in the random style (act_nb: a moving
    Shieldman lands facing a uniform direction, no rotations). The draws (degrader,
    action, landing facing) are the listed version's, so the records are the same."""
    code, nblk = random_choice_nb(ip, nb, ray, dest, appr, adjb, shotb, fray, rng, eps, cell, face, plist, sc, npa)
    stats[ST_BLOCK + 1 - sc[SC_TOMOVE]] += nblk
    act_nb(ip, nb, adjb, fray, rng, code, False, cell, face, plist, slot, sc, npa, stats, agg)
    return code


@njit(cache=True, _nrt=False)
def greedy_choice_nb(ip, F, W, nb, ray, dest, appr, adjb, shotb, fray, dist, distg, rng, pol, eps, ban, cell, face,
                     plist, sc, acts, blocks, counts, scores):
    """The action of ``greedy`` or ``greedy_noshoot`` (``pol``) under the degrader ``eps``
    (parts per million) and the ban mask ``ban`` (ACTION_CLASSES): list the actions
    (``blocks[0]``: the shield blocks met), draw the degrader (only when eps > 0 and there
    is an action), pick greedy's action or a uniform one, both among the unbanned actions
    while there is one. Returns (action or PASS, greedy's style: False when the degrader
    played). ``greedy_noshoot`` is greedy with the shot class banned, its degrader not (as
    before the ban existed). ``W``: the mover's row of the evaluation's weight table (rules.P_EVAL)."""
    s = sc[SC_TOMOVE]
    blocks[0] = 0
    n = gen_list_nb(ip, nb, ray, dest, appr, adjb, cell, face, plist, sc, s, acts, blocks)
    greedy = True
    if eps > 0 and n > 0 and rng_below_nb(rng, EPS_SCALE) < eps:
        greedy = False
    code = PASS
    if n > 0:
        if greedy:
            mask = ban | (1 << CL_SHOT) if pol == POL_GREEDY_NOSHOOT else ban
            code = acts[greedy_choose_nb(ip, F, W, nb, adjb, shotb, fray, dist, distg, cell, face, plist, sc, acts,
                                         n, rng, counts, mask, scores)]
        else:
            code = acts[rng_below_nb(rng, n if ban == 0 else drop_banned_nb(ip, cell, s, acts, n, ban))]
    return code, greedy


@njit(cache=True, _nrt=False)
def greedy_ply_nb(ip, F, W, nb, ray, dest, appr, adjb, shotb, fray, dist, distg, rng, pol, eps, ban, cell, face,
                  plist, slot, sc, acts, blocks, counts, stats, agg, scores):
    """One ply of ``greedy`` or ``greedy_noshoot`` (ban mask ``ban``): its choice (greedy_choice_nb), the
    shield blocks counted for the defender, the action played in the chosen style (act_nb). ``W``: the
    evaluation's weight row it plays with (the mover's; the search's rollouts pass the searcher's)."""
    code, greedy = greedy_choice_nb(ip, F, W, nb, ray, dest, appr, adjb, shotb, fray, dist, distg, rng, pol, eps,
                                    ban, cell, face, plist, sc, acts, blocks, counts, scores)
    stats[ST_BLOCK + 1 - sc[SC_TOMOVE]] += blocks[0]
    act_nb(ip, nb, adjb, fray, rng, code, greedy, cell, face, plist, slot, sc, counts, stats, agg)
    return code


@njit(cache=True, _nrt=False)
def greedy_choose_nb(ip, F, W, nb, adjb, shotb, fray, dist, distg, cell, face, plist, sc, acts, n, rng, counts, ban,
                     scores):
    """Index in ``acts[:n]`` of greedy's choice; ``ban``: leave out the actions of these
    classes (bit mask over ACTION_CLASSES) unless every action is banned. ``counts``:
    int64 scratch of 6 + 3P + N entries; ``scores``: float64 scratch of n entries
    (greedy_scores_nb's). The best score wins,
    ties broken uniformly at random in the list's order (one draw per tie, as always)."""
    greedy_scores_nb(ip, F, W, nb, adjb, shotb, fray, dist, distg, cell, face, plist, sc, acts, n, counts, ban, scores)
    best = -np.inf
    choice = 0
    ties = 0
    for i in range(n):
        if scores[i] == -np.inf:
            continue        # a banned action (greedy_noshoot's shots, ban:CLASS)
        take, best, ties = argmax_step_nb(scores[i], best, ties, rng, 1e-9)
        if take:
            choice = i
    return choice


@njit(cache=True, _nrt=False)
def greedy_scores_nb(ip, F, W, nb, adjb, shotb, fray, dist, distg, cell, face, plist, sc, acts, n, counts, ban, scores):
    """``scores[i]``: greedy's one-ply evaluation of ``acts[i]`` for the side to move (WIN_SCORE: wins at
    once, or the own Warlord lands on the Gold Tile where no enemy piece can take it); -inf for an action
    of a class in the bit mask ``ban`` (ACTION_CLASSES; when the side has an unbanned action). The
    search's priors start from these scores (no ban).

    ``W``: the weight row (rules.P_EVAL, EVAL_FEATURES) of the side whose judgement this is: the unit
    values (the piece taken, the piece left hanging) and ``w_gold_distance`` come from it, the other
    weights (Warlord safety, hanging, advance: penalties of a decision, not position values) from ``F``.

    Each candidate is evaluated in place and incrementally: the opponent's attack map
    is the static part (archer lines, neighbours; recomputed only when the candidate
    takes a piece) plus each enemy two-stepper's reach, cached for the position and
    recomputed only for the two-steppers next to a cell the candidate empties or
    fills; the own pieces' exposure is read from kind masks and, for an attacked
    Shieldman, a mask test per direction (the same directions threat_dirs_nb finds),
    cached for the position and redone only when the candidate changes a cell within
    two steps of the Shieldman or on its lines of fire."""
    s = sc[SC_TOMOVE]
    if ban != 0:
        # a side with an action must act: the ban holds only while an unbanned action is left
        keep = 0
        for i in range(n):
            if (ban >> action_class_nb(ip, cell, s, acts[i])) & 1 == 0:
                keep = ban
                break
        ban = keep
    o = 1 - s
    gold = ip[I_GOLD]
    gold_on = ip[I_GOLD_ON] == 1
    imm = ip[I_GOLD_IMM]
    threat = ip[I_FACING] == 2
    wl = sc[SC_WL0 + s]
    ewl = sc[SC_WL0 + o]
    others_o = sc[SC_PN0 + o] - 1
    w_wl = F[F_W_WARLORD]
    w_gold = W[W_GOLD]
    w_hang = F[F_W_HANG]
    w_adv = F[F_W_ADV]
    npc = sc[SC_PN0 + s]
    two_h = ip[I_STEPS_H] >= 2
    two_w = ip[I_STEPS_W] >= 2
    zero = np.uint64(0)
    # the opponent's attacks that do not depend on occupancy (archer lines,
    # neighbours of every piece); its two-steppers (cells in counts[6:], their
    # reach in the position before the move from word RB on); its pieces by role
    base0, base1 = static_attack_bits_nb(adjb, shotb, cell, plist, sc, o, np.int64(-1))
    reach = counts.view(np.uint64)
    RB = 6 + plist.shape[1]
    lo = 1 + 4 * o
    nhw = 0
    occ0 = zero
    occ1 = zero
    ecap0 = zero   # enemy pieces that capture by moving onto a neighbour
    ecap1 = zero
    earc0 = zero   # enemy archers
    earc1 = zero
    etwo0 = zero   # enemy two-steppers
    etwo1 = zero
    for j in range(sc[SC_PN0 + o]):
        x = plist[o, j]
        c = cell[x]
        b0, b1 = cellbit_nb(x)
        occ0 |= b0
        occ1 |= b1
        if c == lo + 1:
            earc0 |= b0
            earc1 |= b1
        else:
            ecap0 |= b0
            ecap1 |= b1
        if (c == lo + 2 and two_h) or (c == lo + 3 and two_w):
            counts[6 + nhw] = x
            r0, r1 = two_step_bits_nb(nb, adjb, cell, x, zero, zero)
            reach[RB + 2 * nhw] = r0
            reach[RB + 2 * nhw + 1] = r1
            etwo0 |= b0
            etwo1 |= b1
            nhw += 1
    # every two-stepper's reach at once, and the cells whose emptiness could change one
    all0 = zero
    all1 = zero
    near0 = zero
    near1 = zero
    for j in range(nhw):
        x = counts[6 + j]
        all0 |= reach[RB + 2 * j]
        all1 |= reach[RB + 2 * j + 1]
        near0 |= adjb[x, 0]
        near1 |= adjb[x, 1]
    TB = RB + 2 * plist.shape[1]  # counts[TB + c]: threat directions of the own Shieldman on c, before the move
    own_s0 = zero  # own pieces by kind (shieldman, archer, horseman)
    own_s1 = zero
    own_a0 = zero
    own_a1 = zero
    own_h0 = zero
    own_h1 = zero
    for j in range(npc):
        x = plist[s, j]
        k = (cell[x] - 1) & 3
        b0, b1 = cellbit_nb(x)
        occ0 |= b0
        occ1 |= b1
        if k == 0:
            own_s0 |= b0
            own_s1 |= b1
        elif k == 1:
            own_a0 |= b0
            own_a1 |= b1
        elif k == 2:
            own_h0 |= b0
            own_h1 |= b1
    # counts[TB + c] is filled lazily, the first time a candidate asks for the Shieldman on c (a pure function
    # of the pre-move masks, so the same value as computed up front); tb0, tb1: the cells whose entry holds
    tb0 = zero
    tb1 = zero
    for i in range(n):
        code = acts[i]
        typ = act_type(code)
        if ban != 0 and (ban >> action_class_nb(ip, cell, s, code)) & 1 != 0:
            scores[i] = -np.inf
            continue
        a = act_from(code)
        t = act_to(code)
        ca = cell[a]
        ct = cell[t]
        mk = (ca - 1) & 3
        gain = 0.0
        skip = -1
        if ct != 0:
            if (ct - 1) & 3 != 3:     # the enemy Warlord taken wins (below): W has no Warlord column
                gain = W[(ct - 1) & 3]
            skip = t
        if ct != 0 and t == ewl:
            score = WIN_SCORE
        else:
            if typ == 1:
                cell[t] = 0
            else:
                cell[t] = ca
                cell[a] = 0
            ta0, ta1 = cellbit_nb(t)
            aa0, aa1 = cellbit_nb(a)
            # the cells whose emptiness the candidate changes
            ch0 = zero
            ch1 = zero
            if typ == 0:
                ch0 = aa0
                ch1 = aa1
            if typ == 1 or ct == 0:
                ch0 |= ta0
                ch1 |= ta1
            if skip >= 0:
                w0, w1 = static_attack_bits_nb(adjb, shotb, cell, plist, sc, o, skip)
            else:
                w0 = base0
                w1 = base1
            if skip < 0 and ((near0 & ch0) | (near1 & ch1)) == zero:
                w0 |= all0  # no two-stepper's reach changes
                w1 |= all1
            else:
                for j in range(nhw):
                    x = counts[6 + j]
                    if x != skip:
                        if ((adjb[x, 0] & ch0) | (adjb[x, 1] & ch1)) != zero:
                            w0, w1 = two_step_bits_nb(nb, adjb, cell, x, w0, w1)
                        else:
                            w0 |= reach[RB + 2 * j]
                            w1 |= reach[RB + 2 * j + 1]
            wpos = wl
            if typ == 0 and mk == 3:
                wpos = t
            wl_att = bit_nb(w0, w1, wpos) != 0
            win = False
            if gold_on and wpos == gold and typ == 0 and mk == 3:
                oth = others_o
                if ct != 0:
                    oth -= 1
                if oth <= imm or not wl_att:
                    win = True
            if win:
                score = WIN_SCORE
            else:
                score = gain - w_gold * distg[wpos]
                if typ == 0 and mk != 3:
                    score += w_adv * (dist[a, ewl] - dist[t, ewl])
                if wl_att:
                    score -= w_wl
                # the most valuable own piece (not the Warlord) the opponent could take
                # next turn: archers and horsemen from the kind masks, then Shieldmen,
                # which are safe when one facing covers every attack
                s0 = own_s0
                s1 = own_s1
                ar0 = own_a0
                ar1 = own_a1
                h0 = own_h0
                h1 = own_h1
                if typ == 0:
                    if mk == 0:
                        s0 = (s0 & ~aa0) | ta0
                        s1 = (s1 & ~aa1) | ta1
                    elif mk == 1:
                        ar0 = (ar0 & ~aa0) | ta0
                        ar1 = (ar1 & ~aa1) | ta1
                    elif mk == 2:
                        h0 = (h0 & ~aa0) | ta0
                        h1 = (h1 & ~aa1) | ta1
                hang = 0.0
                if W[1] > hang and ((ar0 & w0) | (ar1 & w1)) != zero:
                    hang = W[1]
                if W[2] > hang and ((h0 & w0) | (h1 & w1)) != zero:
                    hang = W[2]
                if W[0] > hang and ((s0 & w0) | (s1 & w1)) != zero:
                    # the position after the candidate, for the threat directions
                    e0 = occ0
                    e1 = occ1
                    if typ == 0:
                        e0 = (e0 & ~aa0) | ta0
                        e1 = (e1 & ~aa1) | ta1
                    else:
                        e0 &= ~ta0
                        e1 &= ~ta1
                    cap0 = ecap0 & ~ta0
                    cap1 = ecap1 & ~ta1
                    arc0 = earc0 & ~ta0
                    arc1 = earc1 & ~ta1
                    tw0 = etwo0 & ~ta0
                    tw1 = etwo1 & ~ta1
                    # the attacked Shieldmen, lowest cell first (any unsafe one settles it)
                    q0 = s0 & w0
                    q1 = s1 & w1
                    while (q0 | q1) != zero:
                        p = lowest_cell_nb(q0, q1)
                        b0, b1 = cellbit_nb(p)
                        q0 &= ~b0
                        q1 &= ~b1
                        moved = typ == 0 and p == t
                        f = face[a] if moved else face[p]
                        if moved or dist[p, a] <= 2 or dist[p, t] <= 2 or bit_nb(shotb[p, 0], shotb[p, 1], t) != 0:
                            m = threat_mask_nb(nb, adjb, fray, p, ~e0, ~e1, cap0, cap1, tw0, tw1, arc0, arc1)
                        else:
                            if ((tb0 & b0) | (tb1 & b1)) == zero:
                                counts[TB + p] = threat_mask_nb(nb, adjb, fray, p, ~occ0, ~occ1, ecap0, ecap1, etwo0,
                                                                etwo1, earc0, earc1)
                                tb0 |= b0
                                tb1 |= b1
                            m = counts[TB + p]
                        if threat:
                            if (m & (m - 1)) == 0:
                                continue
                        elif (m & ~(1 << f)) == 0:
                            continue
                        hang = W[0]
                        break
                score -= w_hang * hang
            cell[a] = ca
            cell[t] = ct
        scores[i] = score
