"""Warfare! through the step API (simkit.env): the kernel's own pieces (step.py) on the search's state.

**Decisions** are the search's codes (candidates.py), a fixed space of ``n_actions`` ids: END (0) ends
the turn; STAY (1) / ADVANCE (2) answer the WF-5 advance after a melee kill; an activation is
``A0 + ((k * NSQ + t) * 4 + f) * (ARC + 1) + j``: the side's unit in army slot k moves to square t (its
own square: it holds; a friend's: a swap), faces f (N E S W) and attacks the enemy on square j of its
front arc (0: no attack). Every legal activation is offered (step.step_legal_nb), not only the search's
candidates. Labels: ``end``, ``stay``, ``advance``, and e.g. ``C3,0-3,3^x3,4`` -- the cavalry on (3,0)
goes to (3,3), faces ^ and attacks (3,4) (letters and facings as the trace's board: side 0 upper case).

**Chance**: an attack that goes to the opposed roll (RULES §4 step 4) is a chance event of two
outcomes, 1 the attacker wins and 0 the defender wins, with the exact odds of the opposed d6 with
ties rolled again (search.chance_nb); every other combat result is certain. Nothing is hidden.

**Observation** (float32, ``16 * NSQ + 9`` values, squares ``y * W + x``): 16 planes of the board --
a unit of side s and type t (8: cavalry, spearman, infantry, archer of side 0, then of side 1), the
facing of the unit there (4, N E S W), the unit has acted this turn (1), a tree (1), the unit waiting
on an advance or a roll (the attacker) and the square it may advance to or the defender (2) --
then the observer (2, one-hot), the side to move (2), the turn (0-based), the activations made and
allowed this turn, the passes in a row, and the phase (1 in phase 3).
"""
from __future__ import annotations

import numpy as np

from simkit.env.rules import GameSteps
from simkit.games.warfare import search, step
from simkit.games.warfare.candidates import A0, ADVANCE, END, STAY, arc_size, arc_square_nb, decode_nb, n_actions
from simkit.games.warfare.moves import turn_limit_nb
from simkit.games.warfare.play import _policy_vector, _search_sizes, _typed, scratch
from simkit.games.warfare.render import board_text, combat_parts, sq_name, unit_name
from simkit.games.warfare.search import (M_ADVSQ, M_ADVU, M_LIMIT, M_NACT, M_PASSES, M_PLAYER, M_PU, M_PV, M_TURN,
                                         S_AGG, S_REC)
from simkit.games.warfare.state import (ARC, FACE_CHARS, IP_ACT, IP_ACT2, IP_H, IP_MAXT, IP_MAXU, IP_N0, IP_NSQ,
                                        IP_W, LETTERS)

PLANES = 16
SCALARS = 9
P_FACE, P_ACTED, P_TREE, P_ACTOR, P_TARGET = 8, 12, 13, 14, 15


class WarfareSteps(GameSteps):
    max_outcomes = 2

    def __init__(self, spec, params):
        super().__init__(spec, params)
        self.P = _typed(params)
        ip = self.P[0]
        self.W, self.H, self.nsq = int(ip[IP_W]), int(ip[IP_H]), int(ip[IP_NSQ])
        self.nu, _, self.nbuf = scratch(self.P)
        self.num_actions = n_actions(self.P)
        self.am = arc_size(self.P)
        self.agg_size = self.nsq
        maxt, maxu = int(ip[IP_MAXT]), int(ip[IP_MAXU])
        # per turn: END, and per activation its decision, a roll and an advance
        self.max_decisions = sum(3 * min(int(turn_limit_nb(ip, t, self.nu)), maxu) + 1 for t in range(maxt))
        self.obs_shape = (PLANES * self.nsq + SCALARS,)
        self.obs_low = np.zeros(self.obs_shape, np.float32)
        high = np.ones(self.obs_shape, np.float32)
        high[-5:-1] = maxt, self.nu, max(self.nu, int(ip[IP_ACT] + ip[IP_ACT2])), 2
        self.obs_high = high
        self._codes = np.zeros(3 + maxu * (self.P[7].shape[2] + 4) * 4 * (self.am + 1), np.int64)
        self._outs = np.zeros(2, np.int64)
        self._probs = np.zeros(2, np.float64)
        self._work = None       # the search's workspace, sized for the largest budget asked for

    # --- the position ------------------------------------------------------------------
    def new_position(self):
        ip = self.P[0]
        return search.new_state_nb(np.int64(self.nu), ip[IP_NSQ], np.int64(self.nbuf),
                                   np.int64(ip[IP_ACT] + ip[IP_ACT2] + 8))

    def start(self, S, first, rng, rec):
        step.step_start_nb(self.P, S, np.int64(first), rng)
        rec[:] = S[S_REC]

    def status(self, S):
        return int(S[search.S_META][search.M_RESULT])

    def to_move(self, S):
        return int(S[search.S_META][M_PLAYER])

    def chance(self, S):
        m = step.step_chance_nb(self.P, S, self._outs, self._probs)
        return list(zip(self._outs[:m].tolist(), self._probs[:m].tolist()))

    def roll(self, S, rng):
        return int(step.step_roll_nb(self.P, S, rng))

    def resolve(self, S, outcome, rng, rec, agg):
        step.step_settle_nb(self.P, S, np.int64(outcome), rng)
        rec[:] = S[S_REC]       # a roll's kill counts in the record and the deaths per square
        agg[:] = S[S_AGG]

    def evaluate(self, S):
        return float(step.step_evaluate_nb(self.P, S))

    def features(self, S):
        """(quiet, f): features.features_nb -- the lead of the evaluation is dot(a weight row, f); quiet at the
        start of a side's turn (no activation made, nothing pending)."""
        from simkit.games.warfare.features import features_nb
        quiet, f = features_nb(self.P, S)
        return bool(quiet), f

    def legal(self, S):
        n = step.step_legal_nb(self.P, S, self._codes)
        return np.sort(self._codes[:n])

    def apply(self, S, code, rng, rec, agg, snapshot_ply):
        step.step_apply_nb(self.P, S, np.int64(code), np.int64(snapshot_ply), rng)
        rec[:] = S[S_REC]
        agg[:] = S[S_AGG]

    def choose(self, S, policies, rng):
        cap, maxa = _search_sizes(self.P, policies)     # the kernel's sizes: a full tree stops where it stops
        if self._work is None or self._work[0] != (cap, maxa):
            self._work = ((cap, maxa), search.new_workspace_nb(self.P, cap, maxa))
        return int(step.step_choose_nb(self.P, S, self._work[1], _policy_vector(policies), rng))   # the kernels' view

    def finish(self, S, first, rec, snapshot_ply):
        step.step_finish_nb(self.P, S, np.int64(snapshot_ply))
        rec[:] = S[S_REC]

    # --- what a player sees -------------------------------------------------------------
    def observation(self, S, player):
        occ, usq, uface, acted, alive, meta, utype, uside = S[:8]
        nsq = self.nsq
        out = np.zeros(self.obs_shape, np.float32)
        board = out[:PLANES * nsq].reshape(PLANES, nsq)
        live = usq >= 0
        sq = usq[live]
        board[uside[live] * 4 + utype[live], sq] = 1
        board[P_FACE + uface[live], sq] = 1
        board[P_ACTED, sq] = acted[live]
        board[P_TREE] = self.P[1]
        actor, target = -1, -1
        if meta[M_PU] >= 0:
            actor, target = usq[meta[M_PU]], usq[meta[M_PV]]
        elif meta[M_ADVU] >= 0:
            actor, target = usq[meta[M_ADVU]], meta[M_ADVSQ]
        if actor >= 0:
            board[P_ACTOR, actor] = 1
            board[P_TARGET, target] = 1
        k = PLANES * nsq
        out[k + player] = 1
        out[k + 2 + meta[M_PLAYER]] = 1
        out[k + 4:k + 9] = meta[M_TURN], max(meta[M_NACT], 0), max(meta[M_LIMIT], 0), meta[M_PASSES], meta[M_TURN] >= 2
        return out

    def _decode(self, S, code):
        """(unit, square, facing, target unit or -1) of an activation code of the side to move."""
        side = int(S[search.S_META][M_PLAYER])
        u, t, f, j = (int(x) for x in decode_nb(np.int64(code), side, self.P[0][IP_N0], self.nsq, self.am))
        v = -1
        if j:
            q = int(arc_square_nb(t % self.W, t // self.W, f, j, self.W, self.H))
            v = int(S[0][q]) if q >= 0 else -1
        return u, t, f, v

    def _xy(self, sq):
        return f"{sq % self.W},{sq // self.W}"

    def label(self, S, code):
        code = int(code)
        if code < A0:
            return {END: "end", STAY: "stay", ADVANCE: "advance"}[code]
        u, t, f, v = self._decode(S, code)
        usq, utype, uside = S[1], S[6], S[7]
        letter = LETTERS[utype[u]] if uside[u] == 0 else LETTERS[utype[u]].lower()
        s = f"{letter}{self._xy(usq[u])}-{self._xy(t)}{FACE_CHARS[f]}"
        return s + (f"x{self._xy(usq[v])}" if v >= 0 else "")

    def describe(self, S, code):
        code = int(code)
        occ, usq, uface, utype, uside = S[0], S[1], S[2], S[6], S[7]
        meta = S[search.S_META]
        if code == END:
            return "end the turn"
        if code in (STAY, ADVANCE):
            u = int(meta[M_ADVU])
            where = sq_name(int(meta[M_ADVSQ]), self.W)
            return f"{unit_name(u, utype, uside)} " + (f"advances to {where} (WF-5)" if code == ADVANCE
                                                      else f"stays at {sq_name(int(usq[u]), self.W)}")
        u, t, f, v = self._decode(S, code)
        what = "stays at" if t == usq[u] else "swaps to" if occ[t] >= 0 else "moves to"
        s = f"{unit_name(u, utype, uside)} at {sq_name(int(usq[u]), self.W)} {what} {sq_name(t, self.W)}, " \
            f"faces {FACE_CHARS[f]}"
        if v < 0:
            return s
        from fractions import Fraction

        from simkit.engine.dice import warfare_distribution
        from simkit.games.warfare.moves import angle_nb
        from simkit.games.warfare.state import ANGLES
        ranged = utype[u] == ARC
        ang = int(angle_nb(t % self.W, t // self.W, usq[v] % self.W, usq[v] // self.W, uface[v], ranged))
        rule, am, dm = combat_parts(int(utype[u]), int(utype[v]), ang, ranged, int(self.P[1][usq[v]]), self.P[0])
        s += f", {'shoots' if ranged else 'attacks'} {unit_name(v, utype, uside)} at {sq_name(int(usq[v]), self.W)}" \
             f" ({ANGLES[ang]})"
        if rule is not None:
            return s + f": {rule}"
        pw = Fraction(warfare_distribution(sum(x for _, x in am), sum(x for _, x in dm))["attacker_wins"])
        return s + f": opposed d6, attacker wins {pw.numerator}/{pw.denominator}"

    def outcome_label(self, S, outcome):
        return "attacker wins" if int(outcome) == 1 else "defender wins"

    def render(self, S):
        usq, uface, utype, uside = S[1], S[2], S[6], S[7]
        meta = S[search.S_META]
        turn = int(meta[M_TURN])
        text = board_text(self.P, usq, uface, utype, uside)
        phase = "phase 2" if turn < 2 else "phase 3"
        line = f"turn {turn + 1} ({phase}), player {meta[M_PLAYER]} to move, " \
               f"activations {max(meta[M_NACT], 0)} of {max(meta[M_LIMIT], 0)}"
        if meta[M_PU] >= 0:
            line += f"; opposed roll pending: {unit_name(int(meta[M_PU]), utype, uside)} " \
                    f"against {unit_name(int(meta[M_PV]), utype, uside)}"
        elif meta[M_ADVU] >= 0:
            line += f"; {unit_name(int(meta[M_ADVU]), utype, uside)} may advance to " \
                    f"{sq_name(int(meta[M_ADVSQ]), self.W)}"
        return f"{text}\n{line}"

