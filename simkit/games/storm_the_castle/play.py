"""Storm the Castle: one turn, one game, the batch kernel and run_chunk.

The game loop is made of step.py's pieces (the start, a scripted side's choice, the snapshot, the
record's last columns) and turn.py's (a turn's start and end), which the step API (env.py) calls too."""
import numpy as np
from numba import njit

from simkit.engine.rng import rng_seed_nb
from simkit.engine.threads import run_blocks
from simkit.games.storm_the_castle.evaluate import lead_nb
from simkit.games.storm_the_castle.search import encode_nb, new_search_nb, search_code_nb, tree_capacity
from simkit.games.storm_the_castle.moves import (apply_nb, begin_turn_nb, gen_actions_nb, gen_dispatch_nb,
                                                 stack_masks_nb)
from simkit.games.storm_the_castle.policies import P_GREEDY, assign_roles_nb
from simkit.games.storm_the_castle.rules import O_BUF, O_F, O_MAXTURNS, O_NC, O_NS, O_T, Params
from simkit.games.storm_the_castle.state import (ACT_END, EV_DRAW, EV_END, EV_TURN, G_CHOICE, G_COULD, G_OVER,
                                                 G_PHASE, G_REASON, G_SIDE, G_TURN, G_WINNER, L_HAND, LOG_COLS, NCF,
                                                 NG, PH_ACTIONS, PH_DISPATCH, R_LIMIT)
from simkit.games.storm_the_castle.step import (decide_nb, finish_record_nb, snapshot_nb, start_game_nb)
from simkit.games.storm_the_castle.step import material_nb  # noqa: F401 (re-exported)
from simkit.games.storm_the_castle.turn import close_turn_nb, open_turn_nb
from simkit.policies import POL_ID, POLICY_VECTOR, max_budget

# trajectory: side 0's lead after a won game (card-value units, as lead_nb): far beyond any
# position's lead, so its chance logistic(lead / mcts_scale) is 1 (or 0) in float64
TERMINAL_LEAD = 1000.0


@njit(cache=True, inline="always")
def _log(log, nl, kind, a, b, tag, roll, out):
    if nl < log.shape[0]:
        log[nl, 0] = kind
        log[nl, 1] = a
        log[nl, 2] = b
        log[nl, 3] = tag
        log[nl, 4] = roll
        log[nl, 5] = out
        return nl + 1
    return nl


@njit(cache=True, _nrt=False)
def play_turn_nb(pols, ctab, wt, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, mp,
                 cards, sp, zones, zn, g, seen, bq, bd, buf, role, rng, rec, agg, log, nl, srch):
    """Play the turn of side g[G_SIDE] with its policy in ``pols`` (the policy vector);
    returns the new log length. ``srch``: the search's scratch (search_scratch); ``wt``: the weight
    table (rules.Params.wt, both sides' rows). The step API's entry (Game.play_turn); the game loop
    inlines ``turn_nb`` itself."""
    return turn_nb(pols, (ctab, wt, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, mp),
                   (cards, sp, zones, zn, g), (seen, bq, bd, buf, role, rng), rec, agg, log, nl, srch)


# Inlined into play_game_nb, so the turn has no library of its own that would optimise and emit
# the whole game (search included) once more. Under 30 arguments: CPython passes a longer call
# as *args, which numba cannot inline.
@njit(cache=True, inline="always")
def turn_nb(pols, tabs, state, scratch, rec, agg, log, nl, srch):
    """play_turn_nb's body, the tables, state and scratch packed in tuples."""
    (ctab, wt, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, mp) = tabs
    (cards, sp, zones, zn, g) = state
    (seen, bq, bd, buf, role, rng) = scratch
    s = np.int64(g[G_SIDE])
    pol = pols[POL_ID + s]
    tag = g[G_TURN] * 2 + s
    nl = _log(log, nl, EV_TURN, g[G_TURN], s, tag, 0, 0)
    drawn = open_turn_nb(cards, zones, zn, g, iopt, s)
    for i in range(drawn):
        nl = _log(log, nl, EV_DRAW, zones[s, L_HAND, zn[s, L_HAND] - drawn + i], -1, tag, 0, 0)
    while True:
        n = gen_dispatch_nb(s, stack_masks_nb(s, cards, sp, ctab), cards, sp, zones, zn, g, ctab, spi, seen, buf)
        if n > 1:
            g[G_COULD] = 1
            if g[G_CHOICE] == 0:
                g[G_CHOICE] = n
        k = decide_nb(pols, tabs, s, n, cards, sp, zones, zn, g, buf, role, rng, srch)
        if k == 0:
            break
        out = apply_nb(np.int64(buf[k, 0]), np.int64(buf[k, 1]), np.int64(buf[k, 2]), np.int64(-1), cards, sp,
                       zones, zn, g, ctab, spi, keep, iopt, rec, fidx, agg, rng)
        nl = _log(log, nl, buf[k, 0], buf[k, 1], buf[k, 2], tag, out % 16, out // 16)
    g[G_PHASE] = PH_ACTIONS
    if pol == P_GREEDY:
        assign_roles_nb(s, cards, sp, ctab, dist, keep, iopt, role)
    while g[G_OVER] == 0:
        n = gen_actions_nb(s, stack_masks_nb(s, cards, sp, ctab), cards, sp, zones, zn, g, ctab, spi, adj, dist, seen,
                           bq, bd, buf)
        if n > 1:
            g[G_COULD] = 1
            if g[G_CHOICE] == 0:
                g[G_CHOICE] = n
        k = decide_nb(pols, tabs, s, n, cards, sp, zones, zn, g, buf, role, rng, srch)
        if k == 0:
            break
        out = apply_nb(np.int64(buf[k, 0]), np.int64(buf[k, 1]), np.int64(buf[k, 2]), np.int64(-1), cards, sp,
                       zones, zn, g, ctab, spi, keep, iopt, rec, fidx, agg, rng)
        nl = _log(log, nl, buf[k, 0], buf[k, 1], buf[k, 2], tag, out % 16, out // 16)
    close_turn_nb(g, g[G_COULD] != 0)
    return nl


@njit(cache=True, _nrt=False)
def play_game_nb(ctab, wt, copies, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, eidx, mp,
                 seed, game, first, pols, snapshot,
                 cards, sp, zones, zn, g, seen, bq, bd, buf, role, rng, rec, agg, log, srch, tv, tl):
    """Play one whole game into ``rec``; returns the log length.

    ``tv, tl``: the trajectory (``trajectory``), empty arrays when not wanted. tv[t] = side 0's
    lead before turn t and after the last; tl[t] = (options at turn t's first decision with a
    choice, or 1; kills in turn t, from ``agg``, which must then count every kill), the lead with side 0's
    row of the weight table ``wt`` (rules.Params.wt)."""
    rng_seed_nb(rng, seed, game)
    start_game_nb(cards, sp, zones, zn, g, copies, iopt, first, rec, rng)
    nl = np.int64(0)
    maxt = iopt[O_MAXTURNS]
    tabs = (ctab, wt, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, mp)
    state = (cards, sp, zones, zn, g)
    scratch = (seen, bq, bd, buf, role, rng)
    while True:
        snapshot_nb(cards, sp, fidx, g, rec, snapshot)
        if g[G_TURN] >= maxt:
            g[G_WINNER] = -1
            g[G_REASON] = R_LIMIT
            break
        t = g[G_TURN]
        kills = np.int64(0)
        if tv.shape[0] > 0:
            tv[t] = lead_nb(cards, sp, zones, zn, ctab, wt[0], dist, keep, np.int64(g[G_SIDE]))
            for x in range(agg.shape[0]):
                kills -= agg[x]
        nl = turn_nb(pols, tabs, state, scratch, rec, agg, log, nl, srch)
        if tv.shape[0] > 0:
            for x in range(agg.shape[0]):
                kills += agg[x]
            tl[t, 0] = g[G_CHOICE] if g[G_CHOICE] > 0 else 1
            tl[t, 1] = kills
        if g[G_OVER] != 0:
            break
    finish_record_nb(cards, sp, zn, g, fidx, eidx, rec)
    if tv.shape[0] > 0:
        # a decided game ends on its outcome (as the search scores a finished game 1 / 0),
        # a drawn one on the position
        if g[G_WINNER] == 0:
            tv[g[G_TURN]] = TERMINAL_LEAD
        elif g[G_WINNER] == 1:
            tv[g[G_TURN]] = -TERMINAL_LEAD
        else:
            tv[g[G_TURN]] = lead_nb(cards, sp, zones, zn, ctab, wt[0], dist, keep, np.int64(g[G_SIDE]))
    nl = _log(log, nl, EV_END, g[G_WINNER], g[G_REASON], g[G_TURN], 0, 0)
    return nl


@njit(cache=True, nogil=True)
def run_batch_nb(ctab, wt, copies, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, eidx, mp,
                 seed, start, firsts, pols, snapshot, cap, records, agg, b0, b1):
    """Blocks b0..b1-1 of the chunk (engine/threads.py runs blocks on threads). ``cap``: search-tree nodes
    for the largest MCTS budget (search.tree_capacity), allocated once per block.

    Serial and ``nogil`` as every game's batch kernel: a ``parallel=True`` kernel also compiled its prange
    body as a gufunc with two wrappers, each optimising and emitting the whole game again (6.7 s of LLVM
    finalising of a 50 s cold compile, scripts/compile_profile.py)."""
    n = firsts.shape[0]
    nblocks = min(n, agg.shape[0])
    nc = iopt[O_NC]
    ns = iopt[O_NS]
    nt = iopt[O_T]
    for blk in range(b0, min(b1, nblocks)):
        lo = blk * n // nblocks
        hi = (blk + 1) * n // nblocks
        cards = np.zeros((2 * nc, NCF), np.int32)
        sp = np.zeros((ns, 2), np.int32)
        zones = np.zeros((2, 3, nc), np.int32)
        zn = np.zeros((2, 3), np.int32)
        g = np.zeros(NG, np.int32)
        seen = np.zeros(nt, np.int32)
        bq = np.zeros(ns + 1, np.int32)
        bd = -np.ones(ns, np.int32)
        buf = np.zeros((iopt[O_BUF], 3), np.int32)
        role = np.zeros(2 * nc, np.int32)
        rng = np.zeros(1, np.uint64)
        log = np.zeros((0, LOG_COLS), np.int32)
        tv = np.zeros(0, np.float64)
        tl = np.zeros((0, 2), np.int64)
        srch = new_search_nb(iopt, cap)
        aggb = agg[blk]
        for i in range(lo, hi):
            play_game_nb(ctab, wt, copies, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, eidx, mp,
                         seed, start + i, np.int64(firsts[i]), pols, snapshot,
                         cards, sp, zones, zn, g, seen, bq, bd, buf, role, rng, records[i], aggb, log, srch, tv, tl)


def kernel_args(p: Params):
    return (p.ctab, p.wt, p.copies, p.spi, p.adj, p.dist, p.keep, p.iopt, p.fopt, p.ptable, p.prio,
            p.fidx, p.eidx, p.mparams)


def policy_array(policies) -> np.ndarray:
    """The full policy vector (a bare pair of ids: no budget, no eps)."""
    pv = np.zeros(POLICY_VECTOR, np.int64)
    pol = np.asarray(policies, np.int64)
    pv[:len(pol)] = pol
    return pv


def tabs_of(p: Params, side=None):
    """The kernels' table tuple (play_turn_nb's ``tabs``, with both sides' rows of the weight and knob
    tables); with ``side``: the search's ``P`` for that side (its own rows, search.side_tabs_nb)."""
    knobs = p.mparams if side is None else p.mparams[side]
    w = p.wt if side is None else p.wt[side]
    return (p.ctab, w, p.spi, p.adj, p.dist, p.keep, p.iopt, p.fopt, p.ptable, p.prio, p.fidx, knobs)


def search_scratch(p: Params, pv):
    """The search's scratch for the largest budget in ``pv``, for a step-API game or a trace (the batch
    kernel makes its own)."""
    return new_search_nb(p.iopt, np.int64(tree_capacity(max_budget(pv))))


def run_chunk(params, seed, start, firsts, policies, snapshot_ply):
    p = Params(*params) if not isinstance(params, Params) else params
    n = len(firsts)
    nf = int(p.iopt[O_F])
    records = np.zeros((n, nf), np.int32)
    agg = np.zeros((max(1, min(n, 64)), int(p.iopt[O_NS])), np.int64)
    pv = policy_array(policies)
    # no game (n = 0) still calls the kernel: LocalBackend loads (or compiles) it so before timing any game
    args = (*kernel_args(p), np.int64(seed), np.int64(start), np.asarray(firsts, np.int8),
            pv, np.int64(snapshot_ply), np.int64(tree_capacity(max_budget(pv))), records, agg)
    run_blocks(lambda b0, b1: run_batch_nb(*args, np.int64(b0), np.int64(b1)), agg.shape[0])
    return records, agg.sum(axis=0)


def trajectory(params, seed, game, first, policies, snapshot_ply=None):
    """(values, legal, interactions, record) of one game, played by the batch kernel's own
    ``play_game_nb`` (so the record is run_chunk's for the same seed, game, first and policies).

    Per turn t of the L turns (the game's length unit): values[t] = side 0's ``lead_nb``
    (mcts_scale's units) at the start of turn t, before its draw, with the side about to move
    as ``to_move``; values[L] after the last turn (a won game: +-TERMINAL_LEAD); legal[t] = the
    options at turn t's first decision that had more than one (1 if none had: a turn with
    nothing to decide); interactions[t] = units killed by enemy attacks in turn t (a melee
    attacker's critical failure is a loss, not a kill, as in the records)."""
    from simkit.engine.runner import DEFAULT_SNAPSHOT_PLY
    p = Params(*params) if not isinstance(params, Params) else params
    snap = DEFAULT_SNAPSHOT_PLY if snapshot_ply is None else snapshot_ply
    g = Game(p, seed, game, first)
    pv = policy_array(policies)
    srch = search_scratch(p, pv)
    maxt = int(p.iopt[O_MAXTURNS])
    tv = np.zeros(maxt + 1, np.float64)
    tl = np.zeros((maxt, 2), np.int64)
    play_game_nb(*kernel_args(p), np.int64(seed), np.int64(game), np.int64(first), pv, np.int64(snap),
                 g.cards, g.sp, g.zones, g.zn, g.g, g.seen, g.bq, g.bd, g.buf, g.role, g.rng, g.rec, g.agg,
                 g.log, srch, tv, tl)
    n = int(g.rec[2])
    return tv[:n + 1].copy(), tl[:n, 0].copy(), tl[:n, 1].copy(), g.rec.copy()


class Game:
    """Step API (tests, traces): one game's state plus scratch, driven from Python."""

    def __init__(self, params, seed=0, game=0, first=0):
        self.p = p = Params(*params) if not isinstance(params, Params) else params
        nc, ns, nt = int(p.iopt[O_NC]), int(p.iopt[O_NS]), int(p.iopt[O_T])
        self.cards = np.zeros((2 * nc, NCF), np.int32)
        self.sp = np.zeros((ns, 2), np.int32)
        self.zones = np.zeros((2, 3, nc), np.int32)
        self.zn = np.zeros((2, 3), np.int32)
        self.g = np.zeros(NG, np.int32)
        self.seen = np.zeros(nt, np.int32)
        self.bq = np.zeros(ns + 1, np.int32)
        self.bd = -np.ones(ns, np.int32)
        self.buf = np.zeros((int(p.iopt[O_BUF]), 3), np.int32)
        self.role = np.zeros(2 * nc, np.int32)
        self.rng = np.zeros(1, np.uint64)
        self.rec = np.zeros(int(p.iopt[O_F]), np.int32)
        self.agg = np.zeros(ns, np.int64)
        self.log = np.zeros((0, LOG_COLS), np.int32)
        self.nc = nc
        rng_seed_nb(self.rng, np.int64(seed), np.int64(game))
        start_game_nb(self.cards, self.sp, self.zones, self.zn, self.g, p.copies, p.iopt, np.int64(first),
                      self.rec, self.rng)

    # -- whole turns -----------------------------------------------------
    def play_turn(self, pols=(0, 0)):
        """One whole turn; ``pols`` is a policy vector (or a bare pair of policy ids)."""
        p = self.p
        pv = policy_array(pols)
        play_turn_nb(pv, p.ctab, p.wt, p.spi, p.adj, p.dist, p.keep, p.iopt,
                     p.fopt, p.ptable, p.prio, p.fidx, p.mparams, self.cards, self.sp, self.zones, self.zn, self.g,
                     self.seen, self.bq, self.bd, self.buf, self.role, self.rng, self.rec, self.agg,
                     self.log, np.int64(0), search_scratch(p, pv))

    def search(self, budget, srch=None, ban=0):
        """The decision code ``budget`` iterations of the search choose for the side to move, at a
        decision with more than one option; ``srch`` (search_scratch) keeps the tree for inspection;
        ``ban``: the side's banned action classes (policies.ACTION_CLASSES, a bit mask)."""
        p = self.p
        srch = search_scratch(p, policy_array([0, 0, budget, budget])) if srch is None else srch
        self.g[G_COULD] = 1       # the decision has options: this turn is not idle (ST-S)
        return int(search_code_nb(tabs_of(p, int(self.g[G_SIDE])), self.cards, self.sp, self.zones, self.zn, self.g,
                                  srch, np.int64(budget), self.rng, np.int64(ban)))

    def code(self, option):
        """The decision code (search.encode_nb) of one of options()' (kind, a, b) tuples."""
        kind, a, b = option
        return int(encode_nb(np.int64(self.g[G_PHASE]), np.int64(kind), np.int64(a), np.int64(b), self.cards,
                             self.sp, self.p.ctab, self.p.iopt))

    @property
    def over(self):
        return bool(self.g[G_OVER]) or self.g[G_TURN] >= self.p.iopt[O_MAXTURNS]

    # -- single decisions ------------------------------------------------
    def begin_turn(self):
        s = int(self.g[G_SIDE])
        d = begin_turn_nb(self.cards, self.zones, self.zn, self.g, self.p.iopt, np.int64(s))
        self.g[G_PHASE] = PH_DISPATCH
        return d

    def options(self, phase=None):
        """Legal options of the current phase as (kind, a, b) tuples; index 0 is 'end'."""
        p = self.p
        s = np.int64(self.g[G_SIDE])
        phase = self.g[G_PHASE] if phase is None else phase
        if phase == PH_DISPATCH:
            n = gen_dispatch_nb(s, stack_masks_nb(s, self.cards, self.sp, p.ctab), self.cards, self.sp, self.zones,
                                self.zn, self.g, p.ctab, p.spi, self.seen, self.buf)
        else:
            n = gen_actions_nb(s, stack_masks_nb(s, self.cards, self.sp, p.ctab), self.cards, self.sp, self.zones,
                               self.zn, self.g, p.ctab, p.spi, p.adj, p.dist, self.seen, self.bq, self.bd, self.buf)
        return [tuple(int(v) for v in self.buf[k]) for k in range(n)]

    def apply(self, action, roll=-1):
        """Apply (kind, a, b); ``roll`` >= 2 injects the 2d6 total. Returns (outcome, roll)."""
        p = self.p
        kind, a, b = action
        if kind == ACT_END:
            self.g[G_PHASE] = PH_ACTIONS
            return None
        out = apply_nb(np.int64(kind), np.int64(a), np.int64(b), np.int64(roll), self.cards, self.sp,
                       self.zones, self.zn, self.g, p.ctab, p.spi, p.keep, p.iopt, self.rec, p.fidx,
                       self.agg, self.rng)
        return out // 16, out % 16

    def stat(self, name):
        from simkit.games.storm_the_castle.rules import fields_for
        return int(self.rec[fields_for(self.p).index(name)])
