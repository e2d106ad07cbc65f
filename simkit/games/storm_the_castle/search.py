"""Storm the Castle's search hooks: ``mcts:N`` is simkit/engine/search.py played through them.

**States.** ``P`` is the play kernel's table tuple ``(ctab, w, spi, adj, dist, keep, iopt,
fopt, ptable, prio, fidx, knobs)`` for the searching side: ``w`` its row of the evaluation's weight
table (rules.Params.wt), ``knobs`` its row of the knob table (side_tabs_nb), read by every evaluation,
prior and rollout in its tree. A search state ``S = (cards, sp, zones, zn, g, pend, seen, bq,
bd, buf, role, rec, agg, pool)``: the game's own five arrays (state.py), ``pend`` (a chance event
waiting for its outcome, and how many options of the next decision ``buf`` holds), then scratch
that ``copy_nb`` does not copy (move generation, greedy roles, the record row the rules write
into, the determinisation's card pool). A state is always at a real decision (more than one
option), at a pending chance event, or over: a decision whose only option is "end the phase /
turn" is played at once (``settle_nb``), as the game loop does without asking the policy.

**Decisions.** Every decision of a turn is one tree level: each dispatch, each unit's move /
attack / special, ending the dispatch phase, ending the turn; the opponent's reply turn follows
below. A decision's code names it by public facts only, so the same code means the same decision
in every determinisation (card ids differ between them)::

    code = kind + 8 * (u + U * v)          U = max(2 * spaces, card types); N_ACTIONS = 8 * U * U
    end of turn      kind 0                end of dispatch   kind 7
    dispatch         u = card type,        v = target space (an item: its holder's space)
    move             u = unit,             v = destination space
    attack           u = attacker,         v = target
    cleric/sorcerer  u = the unit          blacksmith: v = the item type it forges
    (a unit is space * 2 + slot, slot 0 the top of the stack, 1 the one under it)

Every legal option is offered (no cut): a decision has 10-60 options, and PUCT's prior decides
which are tried first.

**Chance nodes.** A decision that rolls 2d6 stops before the roll (``pend``); its outcome classes
come with exact probabilities from engine/dice.py, the table ``simkit dice`` prints: a melee
attack on a Regular unit branches on failure / success / critical failure
(``storm_attack_probs_nb``; the attacker dies on a critical failure), a ranged one on failure
(critical included: it does nothing) / success; a Cleric's prayer or a Blacksmith's forging on
success / failure (``two_d6_equals_prob_nb`` of its ``roll``). ``resolve_nb`` plays the rules'
own ``apply_nb`` with a roll of that class. An attack on a Support unit needs no roll (ST-3) and
is no chance node. The draws at the start of a turn are no chance nodes: the deck order is
redealt per iteration with the hidden cards (below).

**Hidden cards.** ``determinise_nb`` redeals, at every iteration, what the searcher cannot see:
the opponent's hand and deck (its cards on neither the board, equipment nor the graveyard,
gathered in card-id order without reading the hand or deck lists, shuffled, as many dealt to the
hand as it holds) and the order of the searcher's own deck. The tree is open loop
(``closed_loop_nb`` False): a node holds every decision any determinisation met there, and only
the ones legal in this iteration's deal compete.

**Priors** (``prior_nb``): the decision's one-ply change of the evaluation's lead, in card-value
units: a dispatch gains its card's value above half its value in hand, plus its closeness to the
enemy keep; a move the change of closeness; an attack P(success) times the target's worth, minus
P(critical failure) times a melee attacker's worth on a Regular target, plus the advance; a
Cleric's prayer P(7) times the unit it raises, a Blacksmith's P(7) times half its item; a
Sorcerer's buff the best gain in its partner's attacks. Walking into the enemy keep, or a melee
attack that empties the enemy keep of its only Support unit, wins at once (``DECISIVE``).

**Leaf value.** ``evaluate_nb``: ``logistic(lead / mcts_scale)`` of ``lead_nb`` (card values on
the board and half those in hand, closeness to the enemy keep, a unit able to walk into the empty
enemy keep); the rollout (``rollout_nb``: the random or greedy policy) plays to the engine's
horizon first.
"""
import numpy as np
from numba import njit

from simkit.engine.dice import (STORM_O_CRIT_FAIL, STORM_O_FAIL, STORM_O_SUCCESS, STORM_BASE, storm_attack_probs_nb,
                                two_d6_equals_prob_nb)
from simkit.engine.rng import rng_below_nb
from simkit.engine.search import DECISIVE, ONGOING, copy_into_nb, make_search, new_tree_nb, same_array_nb
from simkit.engine.search import tree_capacity as engine_tree_capacity
from simkit.games.storm_the_castle.evaluate import closeness_nb, value_nb
from simkit.games.storm_the_castle.moves import (apply_inline_nb, apply_nb as rules_apply_nb, board_masks_nb,
                                                 gen_actions_inline_nb, gen_actions_nb, gen_dispatch_nb,
                                                 grave_top_unit_nb, modifier_nb, side_masks_nb, space_masks_nb,
                                                 stack_masks_nb, touched_nb)
from simkit.games.storm_the_castle.policies import (P_GREEDY, P_RANDOM, assign_roles_nb, card_value_nb,
                                                    kind_class_nb, rollout_choose_nb)
from simkit.games.storm_the_castle.policies import P_CRIT, p_success_nb
from simkit.games.storm_the_castle.rules import (K_ITEM, K_REG, O_BUF, O_CLEARS, O_F, O_MAXTURNS, O_NC, O_NS, O_T,
                                                 T_BONUS, T_KIND, T_MOVE, T_RANGE, T_ROLL)
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_END, ACT_MOVE, ACT_NAMES,
                                                 ACT_SMITH, C_OWNER, C_POS, C_TYPE, C_ZONE, G_COULD,
                                                 G_OVER, G_PHASE, G_REASON, G_SIDE, G_TURN, G_WINNER, L_DECK, L_HAND,
                                                 NCF, NG, PH_ACTIONS, PH_DISPATCH, R_LIMIT, Z_DECK, Z_HAND)
from simkit.games.storm_the_castle.turn import close_turn_nb, open_turn_nb
from simkit.policies import MC_N, MC_SCALE

CODE_END_DISPATCH = 7
# pend[]: the pending chance event (kind 0: none; ACT_ATTACK / ACT_CLERIC / ACT_SMITH with its
# attacker or special unit and target), the searching side (PD_ROOT, set by determinise_nb) and
# PD_N: options of the next decision already in buf (-1: none; the one entry copy_nb does not copy)
PD_KIND, PD_A, PD_B, PD_ROOT, PD_N = range(5)
NPEND = 5
MAX_OUTCOMES = 3
# the game's own knobs after the engine's (rules.py): evaluate.value_nb's rounds of the keep race, and
# which sides' rollouts keep their keep's Regular unit at home (CAREFUL_*)
MC_ROUNDS, MC_CAREFUL = MC_N, MC_N + 1
CAREFUL_NONE, CAREFUL_SELF, CAREFUL_BOTH = 0, 1, 2
# children a search iteration may add (a decision has 10-60 options); a full tree stops growing
SEARCH_WIDTH = 64

# ---------------------------------------------------------------------------
# decision codes (the step API's action ids)
@njit(cache=True, _nrt=False, inline="always")
def code_unit_nb(iopt):
    """U of the code layout: enough for a unit (space * 2 + slot) and for a card type."""
    return max(2 * iopt[O_NS], iopt[O_T])


def n_actions(params) -> int:
    """Size of the action space: every decision code is in [0, n_actions)."""
    iopt = params.iopt
    u = max(2 * int(iopt[O_NS]), int(iopt[O_T]))
    return 8 * u * u


@njit(cache=True, _nrt=False, inline="always")
def unit_code_nb(cards, sp, c):
    x = cards[c, C_POS]
    return x * 2 + (0 if sp[x, 0] == c else 1)


@njit(cache=True, _nrt=False)
def encode_nb(phase, kind, a, b, cards, sp, ctab, iopt):
    """The option's decision code (module doc): the same in every determinisation."""
    if kind == ACT_END:
        return CODE_END_DISPATCH if phase == PH_DISPATCH else ACT_END
    U = code_unit_nb(iopt)
    if kind == ACT_DISPATCH:
        t = cards[a, C_TYPE]
        y = cards[b, C_POS] if ctab[t, T_KIND] == K_ITEM else b
        return ACT_DISPATCH + 8 * (t + U * y)
    v = 0
    if kind == ACT_MOVE:
        v = b
    elif kind == ACT_ATTACK:
        v = unit_code_nb(cards, sp, b)
    elif kind == ACT_SMITH:
        v = cards[b, C_TYPE]
    return kind + 8 * (unit_code_nb(cards, sp, a) + U * v)


def decision_label(params, code: int) -> str:
    """A decision code in words: ``attack L3/top -> HR1/top``, ``dispatch knight -> BR0``."""
    u_size = max(2 * int(params.iopt[O_NS]), int(params.iopt[O_T]))
    kind, rest = code % 8, code // 8
    u, v = rest % u_size, rest // u_size
    names, spaces = params.names, params.spnames

    def unit(w):
        return f"{spaces[w // 2]}/{'top' if w % 2 == 0 else 'under'}"
    if kind == CODE_END_DISPATCH:
        return "end dispatch"
    if kind == ACT_END:
        return "end turn"
    if kind == ACT_DISPATCH:
        return f"dispatch {names[u]} -> {spaces[v]}"
    if kind == ACT_MOVE:
        return f"move {unit(u)} -> {spaces[v]}"
    if kind == ACT_ATTACK:
        return f"attack {unit(u)} -> {unit(v)}"
    if kind == ACT_SMITH:
        return f"blacksmith {unit(u)} forges {names[v]}"
    return f"{ACT_NAMES[kind]} {unit(u)}"


# ---------------------------------------------------------------------------
# states
@njit(cache=True)
def new_state_nb(nc, ns, nt, nbuf, nf):
    pend = np.zeros(NPEND, np.int32)
    pend[PD_N] = -1
    return (np.zeros((2 * nc, NCF), np.int32), np.zeros((ns, 2), np.int32), np.zeros((2, 3, nc), np.int32),
            np.zeros((2, 3), np.int32), np.zeros(NG, np.int32), pend,
            np.zeros(nt, np.int32), np.zeros(ns + 1, np.int32), -np.ones(ns, np.int32), np.zeros((nbuf, 3), np.int32),
            np.zeros(2 * nc, np.int32), np.zeros(max(nf, 1), np.int32), np.zeros(0, np.int64),
            np.zeros(2 * nc, np.int32))


@njit(cache=True)
def new_search_nb(iopt, cap):
    """A searcher's scratch: the engine's tree (``cap`` nodes), two search states, the root's ``pend``."""
    nc, ns, nt, nbuf, nf = iopt[O_NC], iopt[O_NS], iopt[O_T], iopt[O_BUF], iopt[O_F]
    rpend = np.zeros(NPEND, np.int32)
    rpend[PD_N] = -1
    return (new_tree_nb(cap, nbuf, MAX_OUTCOMES), new_state_nb(nc, ns, nt, nbuf, nf),
            new_state_nb(nc, ns, nt, nbuf, nf), rpend)


def tree_capacity(budget) -> int:
    """Tree nodes for a search of ``budget`` iterations (engine/search.py: tree_capacity)."""
    return engine_tree_capacity(budget, SEARCH_WIDTH)


@njit(cache=True, _nrt=False, inline="always")
def root_state_nb(cards, sp, zones, zn, g, pend, S):
    """The real game as a search root: its own arrays, ``pend`` with nothing pending, ``S``'s scratch
    (the engine only copies from a root)."""
    return (cards, sp, zones, zn, g, pend, S[6], S[7], S[8], S[9], S[10], S[11], S[12], S[13])


@njit(cache=True, _nrt=False)
def copy_nb(P, src, dst):
    copy_into_nb(src[0], dst[0])
    copy_into_nb(src[1], dst[1])
    copy_into_nb(src[2], dst[2])
    copy_into_nb(src[3], dst[3])
    copy_into_nb(src[4], dst[4])
    for i in range(PD_N):
        dst[5][i] = src[5][i]
    dst[5][PD_N] = -1           # the option buffer is scratch: not copied


@njit(cache=True, _nrt=False)
def _shuffle_nb(pool, m, rng):
    for k in range(m - 1, 0, -1):
        j = rng_below_nb(rng, k + 1)
        tmp = pool[k]
        pool[k] = pool[j]
        pool[j] = tmp


@njit(cache=True, _nrt=False)
def redeal_nb(s, cards, zones, zn, nc, pool, rng):
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


@njit(cache=True, _nrt=False)
def determinise_nb(P, S, player, rng):
    redeal_nb(player, S[0], S[2], S[3], P[6][O_NC], S[13], rng)
    S[5][PD_ROOT] = player
    S[5][PD_N] = -1


@njit(cache=True, _nrt=False)
def status_nb(P, S):
    g = S[4]
    if g[G_OVER] == 0:
        return ONGOING
    return g[G_WINNER]


@njit(cache=True, _nrt=False)
def to_move_nb(P, S):
    return S[4][G_SIDE]


@njit(cache=True, _nrt=False)
def turn_nb(P, S):
    return S[4][G_TURN]


# ---------------------------------------------------------------------------
# playing on a search state
@njit(cache=True, _nrt=False, inline="always")
def gen_nb(P, S):
    """The options of the decision the state is at (into ``buf``); their count. (The rollouts keep their
    masks between decisions and generate in rollout_nb.)"""
    ctab, spi, adj, dist = P[0], P[2], P[3], P[4]
    cards, sp, zones, zn, g, seen, bq, bd, buf = S[0], S[1], S[2], S[3], S[4], S[6], S[7], S[8], S[9]
    s = np.int64(g[G_SIDE])
    masks = stack_masks_nb(s, cards, sp, ctab)
    if g[G_PHASE] == PH_DISPATCH:
        return gen_dispatch_nb(s, masks, cards, sp, zones, zn, g, ctab, spi, seen, buf)
    return gen_actions_nb(s, masks, cards, sp, zones, zn, g, ctab, spi, adj, dist, seen, bq, bd, buf)


@njit(cache=True, _nrt=False, inline="always")
def options_nb(P, S):
    """``buf``'s options of the current decision, generated unless already there."""
    pend = S[5]
    if pend[PD_N] < 0:
        pend[PD_N] = gen_nb(P, S)
    return np.int64(pend[PD_N])


@njit(cache=True, _nrt=False)
def end_nb(P, S):
    """End the dispatch phase, or the turn: ST-S idle count, the turn cap, the next side's draw."""
    iopt = P[6]
    cards, zones, zn, g = S[0], S[2], S[3], S[4]
    if g[G_PHASE] == PH_DISPATCH:
        g[G_PHASE] = PH_ACTIONS
        return
    close_turn_nb(g, g[G_COULD] != 0)
    if g[G_OVER] == 0 and g[G_TURN] >= iopt[O_MAXTURNS]:
        g[G_OVER] = 1
        g[G_WINNER] = -1
        g[G_REASON] = R_LIMIT
    if g[G_OVER] == 0:
        open_turn_nb(cards, zones, zn, g, iopt, np.int64(g[G_SIDE]))


@njit(cache=True, _nrt=False, inline="always")
def play_option_nb(P, S, k, roll, rng):
    """The rules' effect of option ``k`` of ``buf`` (``roll`` >= 2 injects the 2d6 total)."""
    ctab, spi, keep, iopt, fidx = P[0], P[2], P[5], P[6], P[10]
    cards, sp, zones, zn, g, pend, buf, rec, agg = S[0], S[1], S[2], S[3], S[4], S[5], S[9], S[11], S[12]
    kind = buf[k, 0]
    pend[PD_N] = -1
    if kind == ACT_END:
        end_nb(P, S)
    else:
        rules_apply_nb(np.int64(kind), np.int64(buf[k, 1]), np.int64(buf[k, 2]), np.int64(roll), cards, sp, zones, zn,
                       g, ctab, spi, keep, iopt, rec, fidx, agg, rng)


@njit(cache=True, _nrt=False)
def settle_nb(P, S):
    """Play on while the only option is to end the phase or turn (the game loop asks no policy then);
    leave the next real decision's options in ``buf``."""
    g, pend = S[4], S[5]
    while g[G_OVER] == 0 and pend[PD_KIND] == 0:
        pend[PD_N] = -1
        n = options_nb(P, S)
        if n > 1:
            g[G_COULD] = 1          # the turn was not idle (ST-S), whatever is chosen
            return
        end_nb(P, S)
    pend[PD_N] = -1


@njit(cache=True, _nrt=False)
def codes_nb(P, S, codes):
    """The decisions' codes, as ``decisions_nb`` lists them, without their priors (the engine's open-loop
    visits score only decisions they meet for the first time)."""
    ctab, iopt = P[0], P[6]
    cards, sp, g, buf = S[0], S[1], S[4], S[9]
    n = options_nb(P, S)
    ph = np.int64(g[G_PHASE])
    for k in range(n):
        codes[k] = encode_nb(ph, buf[k, 0], buf[k, 1], buf[k, 2], cards, sp, ctab, iopt)
    return n


@njit(cache=True, _nrt=False)
def decisions_nb(P, S, codes, scores):
    """Every option of the decision, with its prior score (module doc); the enemy keep entered: DECISIVE."""
    n = codes_nb(P, S, codes)
    for k in range(n):
        scores[k] = prior_nb(P, S, k, n)
    return n


@njit(cache=True, _nrt=False, inline="always")
def needs_roll_nb(ctab, cards, kind, b):
    """Is this option's outcome decided by 2d6 (a chance node)? Attacks on Support units are not (ST-3)."""
    if kind == ACT_CLERIC or kind == ACT_SMITH:
        return True
    return kind == ACT_ATTACK and ctab[cards[b, C_TYPE], T_KIND] == K_REG


@njit(cache=True, _nrt=False)
def apply_nb(P, S, code, rng):
    """Play decision ``code``; a roll it needs is left pending (``chance_nb`` / ``resolve_nb``)."""
    ctab, iopt = P[0], P[6]
    cards, sp, g, pend, buf = S[0], S[1], S[4], S[5], S[9]
    n = options_nb(P, S)
    ph = np.int64(g[G_PHASE])
    k = 0
    for i in range(n):
        if encode_nb(ph, buf[i, 0], buf[i, 1], buf[i, 2], cards, sp, ctab, iopt) == code:
            k = i
            break
    kind = buf[k, 0]
    if needs_roll_nb(ctab, cards, kind, buf[k, 2]):
        pend[PD_KIND] = kind
        pend[PD_A] = buf[k, 1]
        pend[PD_B] = buf[k, 2]
        pend[PD_N] = -1
        return
    play_option_nb(P, S, k, -1, rng)
    settle_nb(P, S)


@njit(cache=True, _nrt=False)
def attack_classes_nb(P, S, outcomes, probs, fold_ranged_crit):
    """The pending attack's outcome classes with their exact probabilities: failure (when it can fail),
    success (a natural 12 always succeeds), critical failure (a natural 2: a melee attacker dies). With
    ``fold_ranged_crit`` a shot's critical failure joins failure: it does nothing either way (the search's
    classes); the step API keeps it apart, because the record counts critical failures."""
    ctab, spi = P[0], P[2]
    cards, sp, pend = S[0], S[1], S[5]
    a = np.int64(pend[PD_A])
    storm_attack_probs_nb(modifier_nb(cards, sp, ctab, spi, a, np.int64(pend[PD_B]), np.int64(0)), probs)
    p_fail, p_succ, p_crit = probs[STORM_O_FAIL], probs[STORM_O_SUCCESS], probs[STORM_O_CRIT_FAIL]
    if fold_ranged_crit and ctab[cards[a, C_TYPE], T_RANGE] > 0:
        p_fail += p_crit
        p_crit = 0.0
    m = 0
    if p_fail > 0.0:
        outcomes[m] = STORM_O_FAIL
        probs[m] = p_fail
        m += 1
    outcomes[m] = STORM_O_SUCCESS
    probs[m] = p_succ
    m += 1
    if p_crit > 0.0:
        outcomes[m] = STORM_O_CRIT_FAIL
        probs[m] = p_crit
        m += 1
    return m


@njit(cache=True, _nrt=False)
def chance_nb(P, S, outcomes, probs):
    """The pending roll's outcome classes with their exact probabilities (module doc)."""
    ctab = P[0]
    cards, pend = S[0], S[5]
    kind = pend[PD_KIND]
    if kind == 0:
        return 0
    a = np.int64(pend[PD_A])
    if kind == ACT_ATTACK:
        return attack_classes_nb(P, S, outcomes, probs, True)
    p = two_d6_equals_prob_nb(ctab[cards[a, C_TYPE], T_ROLL])
    outcomes[0] = STORM_O_FAIL
    probs[0] = 1.0 - p
    outcomes[1] = STORM_O_SUCCESS
    probs[1] = p
    return 2


@njit(cache=True, _nrt=False)
def outcome_roll_nb(P, S, outcome):
    """A 2d6 total of the pending roll's outcome class (the rules then play it as if rolled)."""
    ctab, spi = P[0], P[2]
    cards, sp, pend = S[0], S[1], S[5]
    a = np.int64(pend[PD_A])
    if pend[PD_KIND] == ACT_ATTACK:
        if outcome == STORM_O_SUCCESS:
            return 12
        if outcome == STORM_O_CRIT_FAIL:
            return 2
        mod = modifier_nb(cards, sp, ctab, spi, a, np.int64(pend[PD_B]), np.int64(0))
        return 11 if STORM_BASE + mod < 11 else 2     # a plain failure (2 only for a ranged attack's class)
    need = ctab[cards[a, C_TYPE], T_ROLL]
    if outcome == STORM_O_SUCCESS:
        return need
    return 2 if need != 2 else 3


@njit(cache=True, _nrt=False)
def _resolve_pending_nb(P, S, roll, rng):
    ctab, spi, keep, iopt, fidx = P[0], P[2], P[5], P[6], P[10]
    cards, sp, zones, zn, g, pend, rec, agg = S[0], S[1], S[2], S[3], S[4], S[5], S[11], S[12]
    kind = pend[PD_KIND]
    pend[PD_KIND] = 0
    pend[PD_N] = -1
    rules_apply_nb(np.int64(kind), np.int64(pend[PD_A]), np.int64(pend[PD_B]), np.int64(roll), cards, sp, zones, zn,
                   g, ctab, spi, keep, iopt, rec, fidx, agg, rng)


@njit(cache=True, _nrt=False)
def resolve_nb(P, S, outcome, rng):
    _resolve_pending_nb(P, S, outcome_roll_nb(P, S, outcome), rng)
    settle_nb(P, S)


@njit(cache=True, _nrt=False)
def evaluate_nb(P, S):
    """Side 0's expected score (evaluate.value_nb): keep-taking chances, then the material lead."""
    (ctab, w, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, knobs) = P
    return value_nb(ctab, w, spi, adj, dist, keep, iopt, ptable, S[0], S[1], S[2], S[3], S[4], knobs[MC_SCALE],
                    knobs[MC_ROUNDS], S[7], S[8])


@njit(cache=True, _nrt=False)
def leaves_keep_nb(P, S, k):
    """Would option ``k`` take a unit out of its own keep (a move away, or a melee kill it advances after),
    other than into the enemy keep?"""
    ctab, keep, iopt = P[0], P[5], P[6]
    cards, sp, buf = S[0], S[1], S[9]
    kind = buf[k, 0]
    if kind != ACT_MOVE and kind != ACT_ATTACK:
        return False
    a = buf[k, 1]
    b = buf[k, 2]
    s = cards[a, C_OWNER]
    if cards[a, C_POS] != keep[s] or ctab[cards[a, C_TYPE], T_KIND] != K_REG:
        return False
    if kind == ACT_MOVE:
        return b != keep[1 - s]
    if ctab[cards[a, C_TYPE], T_RANGE] > 0:
        return False
    y = cards[b, C_POS]
    o = sp[y, 1] if sp[y, 0] == b else sp[y, 0]
    empties = o < 0 or (iopt[O_CLEARS] != 0 and ctab[cards[o, C_TYPE], T_KIND] != K_REG)
    return empties and y != keep[1 - s]


@njit(cache=True, _nrt=False)
def rollout_nb(P, S, policy, horizon, rng):
    """Roll a pending 2d6 as the game does, then play ``policy`` (0 random, 1 greedy) to the horizon.

    ``mcts_careful``: the searching side's rollouts (or both sides') never take the Regular unit out of
    their own keep: greedy's defender attacks a lone neighbour and advances out of the keep, leaving it
    to the first enemy next to it."""
    (ctab, w, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, knobs) = P
    cards, sp, g, pend, buf, role = S[0], S[1], S[4], S[5], S[9], S[10]
    if pend[PD_KIND] != 0:
        _resolve_pending_nb(P, S, np.int64(-1), rng)
    rp = np.int64(P_GREEDY if policy == 1 else P_RANDOM)
    careful = np.int64(knobs[MC_CAREFUL])
    if rp == P_GREEDY and g[G_PHASE] == PH_ACTIONS:
        assign_roles_nb(np.int64(g[G_SIDE]), cards, sp, ctab, dist, keep, iopt, role)
    # the board masks kept from one decision to the next: each action refreshes the spaces it touched
    # instead of options_nb's scan of every space (moves.board_masks_nb)
    bm = board_masks_nb(cards, sp, ctab)
    while g[G_OVER] == 0 and g[G_TURN] < horizon:
        ph = np.int64(g[G_PHASE])
        side = np.int64(g[G_SIDE])
        if pend[PD_N] < 0:      # options_nb, with the kept masks and the action phase's generator inlined
            masks = side_masks_nb(side, bm, sp.shape[0])
            if ph == PH_ACTIONS:
                pend[PD_N] = gen_actions_inline_nb(side, masks, cards, sp, S[2], S[3], g, ctab, spi, adj, dist, S[6],
                                                   S[7], S[8], buf)
            else:
                pend[PD_N] = gen_dispatch_nb(side, masks, cards, sp, S[2], S[3], g, ctab, spi, S[6], buf)
        n = np.int64(pend[PD_N])
        if n > 1:
            g[G_COULD] = 1
        keep_safe = careful == CAREFUL_BOTH or (careful == CAREFUL_SELF and side == pend[PD_ROOT])
        while True:             # one call site: rollout_choose_nb inlines greedy's scoring
            k = rollout_choose_nb(rp, ph, side, n, buf, cards, sp, ctab, w, spi, dist, keep, fopt, ptable, prio, role,
                                  rng)
            if not keep_safe or k == 0 or not leaves_keep_nb(P, S, k):
                break
            n -= 1              # drop the option (the row is not needed again: the buffer is rebuilt)
            buf[k, 0], buf[k, 1], buf[k, 2] = buf[n, 0], buf[n, 1], buf[n, 2]
        x1, x2 = touched_nb(buf[k, 0], buf[k, 1], buf[k, 2], cards, ctab)
        pend[PD_N] = -1         # play_option_nb, with the rules' apply inlined (moves.apply_inline_nb)
        if buf[k, 0] == ACT_END:
            end_nb(P, S)
        else:
            apply_inline_nb(np.int64(buf[k, 0]), np.int64(buf[k, 1]), np.int64(buf[k, 2]), np.int64(-1), cards, sp,
                            S[2], S[3], g, ctab, spi, keep, iopt, S[11], fidx, S[12], rng)
        if x1 >= 0:
            bm = space_masks_nb(cards, sp, ctab, x1, bm)
        if x2 >= 0:
            bm = space_masks_nb(cards, sp, ctab, x2, bm)
        if rp == P_GREEDY and ph == PH_DISPATCH and g[G_PHASE] == PH_ACTIONS:
            assign_roles_nb(np.int64(g[G_SIDE]), cards, sp, ctab, dist, keep, iopt, role)
    pend[PD_N] = -1


@njit(cache=True, _nrt=False)
def closed_loop_nb(P):
    return False        # hidden cards: each iteration plays its own deal


# ---------------------------------------------------------------------------
# priors
@njit(cache=True, _nrt=False, inline="always")
def worth_nb(P, cards, c, d01):
    """A unit's part of the lead where it stands: its value (item included) and its closeness."""
    ctab, w, dist, keep = P[0], P[1], P[4], P[5]
    v = card_value_nb(cards, ctab, w, c)
    if ctab[cards[c, C_TYPE], T_MOVE] > 0:
        v += closeness_nb(dist, keep, cards[c, C_OWNER], cards[c, C_POS], d01, w[2 * ctab.shape[0]])
    return v


@njit(cache=True, _nrt=False)
def attack_gain_nb(P, S, a, b, extra, d01):
    """Expected lead change of ``a`` attacking ``b`` (attack bonus ``extra``); DECISIVE if it surely wins."""
    ctab, spi, dist, keep, iopt, ptable = P[0], P[2], P[4], P[5], P[6], P[8]
    wadv = P[1][2 * ctab.shape[0]]
    cards, sp = S[0], S[1]
    x = cards[a, C_POS]
    y = cards[b, C_POS]
    s = cards[a, C_OWNER]
    reg = ctab[cards[b, C_TYPE], T_KIND] == K_REG
    p = p_success_nb(ptable, modifier_nb(cards, sp, ctab, spi, a, b, extra)) if reg else 1.0
    gain = p * worth_nb(P, cards, b, d01)
    if ctab[cards[a, C_TYPE], T_RANGE] == 0:
        if reg:
            gain -= P_CRIT * worth_nb(P, cards, a, d01)
        o = sp[y, 1] if sp[y, 0] == b else sp[y, 0]
        empties = o < 0 or (iopt[O_CLEARS] != 0 and ctab[cards[o, C_TYPE], T_KIND] != K_REG)
        if empties:
            if not reg and y == keep[1 - s]:
                return DECISIVE         # no roll (ST-3), the space empties, the attacker advances into the keep
            gain += p * (closeness_nb(dist, keep, s, y, d01, wadv) - closeness_nb(dist, keep, s, x, d01, wadv))
    return gain


@njit(cache=True, _nrt=False, inline="always")   # one caller (decisions_nb): no call with P and S per option
def prior_nb(P, S, k, n):
    """Option ``k``'s prior score: its one-ply change of the lead, card-value units (module doc), with the
    searcher's weight row ``w``: a card of type t counts w[t] on the board, w[T + t] in hand, w[2T] the
    closeness to the enemy keep."""
    ctab, w, dist, keep = P[0], P[1], P[4], P[5]
    nt = ctab.shape[0]
    wadv = w[2 * nt]
    cards, zones, zn, buf = S[0], S[2], S[3], S[9]
    kind = buf[k, 0]
    a = np.int64(buf[k, 1])
    b = np.int64(buf[k, 2])
    d01 = max(dist[keep[0], keep[1]], 1)
    if kind == ACT_END:
        return 0.0
    s = cards[a, C_OWNER]
    ta = cards[a, C_TYPE]
    if kind == ACT_DISPATCH:
        v = w[ta] - w[nt + ta]      # (1 - W_HAND) * value by default, the same float (W_HAND = 1/2)
        if ctab[ta, T_KIND] != K_ITEM and ctab[ta, T_MOVE] > 0:
            v += closeness_nb(dist, keep, s, b, d01, wadv)
        return v
    if kind == ACT_MOVE:
        if b == keep[1 - s]:
            return DECISIVE
        if ctab[ta, T_MOVE] == 0:
            return 0.0
        return closeness_nb(dist, keep, s, b, d01, wadv) - closeness_nb(dist, keep, s, cards[a, C_POS], d01, wadv)
    if kind == ACT_ATTACK:
        return attack_gain_nb(P, S, a, b, np.int64(0), d01)
    if kind == ACT_CLERIC:
        u = grave_top_unit_nb(cards, zones, zn, ctab, s)
        v = w[cards[u, C_TYPE]]
        if ctab[cards[u, C_TYPE], T_MOVE] > 0:
            v += closeness_nb(dist, keep, s, cards[a, C_POS], d01, wadv)
        return two_d6_equals_prob_nb(ctab[ta, T_ROLL]) * v
    if kind == ACT_SMITH:
        # the forged item goes to the hand: its hand weight (W_HAND * value by default: p * W_HAND * value's float)
        return two_d6_equals_prob_nb(ctab[ta, T_ROLL]) * w[nt + cards[b, C_TYPE]]
    # Sorcerer: the best gain its bonus brings to one of the partner's attacks
    best = 0.0
    for i in range(n):
        if buf[i, 0] == ACT_ATTACK and buf[i, 1] == b:
            t = np.int64(buf[i, 2])
            d = (attack_gain_nb(P, S, b, t, np.int64(ctab[ta, T_BONUS]), d01)
                 - attack_gain_nb(P, S, b, t, np.int64(0), d01))
            if d > best:
                best = d
    return best


@njit(cache=True, _nrt=False)
def class_nb(P, S, code):
    """A decision code's action class (policies.ACTION_CLASSES): its kind, the code's low three bits (ending
    the dispatch, kind 7, or the turn, kind 0: no class). A ``ban:CLASS:mcts`` searcher never plays one."""
    return kind_class_nb(code % 8)


@njit(cache=True, _nrt=False)
def same_nb(P, A, B):
    """The same position for the search (mcts_reuse): what copy_nb copies, hidden cards included (a reusing
    searcher compares the real game with the real game its last search predicted)."""
    for i in range(PD_N):
        if A[5][i] != B[5][i]:
            return False
    return (same_array_nb(A[0], B[0]) and same_array_nb(A[1], B[1]) and same_array_nb(A[2], B[2])
            and same_array_nb(A[3], B[3]) and same_array_nb(A[4], B[4]))


search_nb = make_search(copy_nb, determinise_nb, status_nb, to_move_nb, turn_nb, decisions_nb, apply_nb, chance_nb,
                        resolve_nb, evaluate_nb, rollout_nb, closed_loop_nb, class_nb, codes_nb, same_nb)


@njit(cache=True, _nrt=False, inline="always")
def side_tabs_nb(tabs, s):
    """The kernel's table tuple with side ``s``'s rows of the weight table and of the knob table: the
    search's ``P`` for that side."""
    return (tabs[0], tabs[1][s], tabs[2], tabs[3], tabs[4], tabs[5], tabs[6], tabs[7], tabs[8], tabs[9], tabs[10],
            tabs[11][s])


@njit(cache=True, _nrt=False, inline="always")
def choose_code_nb(P, cards, sp, zones, zn, g, srch, budget, rng, ban):
    """The decision code ``budget`` iterations of the engine's search prefer in the game ``cards .. g``
    (only read) for its side to move; ``srch``: new_search_nb's scratch (its tree holds the search);
    ``ban``: the side's banned action classes (a bit mask; its own decisions in the tree leave them out)."""
    tree, S, S2, rpend = srch
    return search_nb(P, root_state_nb(cards, sp, zones, zn, g, rpend, S), S, S2, P[11], budget, rng, tree, ban)


@njit(cache=True, _nrt=False)
def search_code_nb(P, cards, sp, zones, zn, g, srch, budget, rng, ban):
    """choose_code_nb as a kernel of its own, for Python callers (tests, the step API)."""
    return choose_code_nb(P, cards, sp, zones, zn, g, srch, budget, rng, ban)
