"""Skorm through the step API (simkit.env): the kernel's own functions (step.py), one ply at a time.

Decision code: the search's ``(type * N + from) * N + to`` on a board of N cells (type 0 a move or
capture, 1 a shot: SK-5b's identity; search.py), and ``2 N^2`` for the pass of a side with no
action (SK-8), so the action space has ``2 N^2 + 1`` ids (7443 on the default 61-cell board).
Start-of-turn rotations and landing facings are no decisions: they follow the ``facing`` option
(SK-4), as the search plays them (a scripted random choice keeps the random policy's own way).
Labels: the piece's letter (upper case side 0, lower case side 1, as the trace) and its cell, then
``-`` a move, ``x`` a capture or ``*`` a shot, then the target cell: ``W(0,-4)-(0,-2)``,
``h(1,3)x(0,2)``, ``A(0,-2)*(0,0)``; ``pass``.

Chance: none under the default rules (Skorm has no dice). With ``facing = "random"`` a moving
Shieldman's landing facing is a chance event of six outcomes, 1/6 each (the search's chance_nb),
drawn from the game's stream as the kernel draws it. Nothing is hidden.

Observation (float32, ``15 N + 8`` values, 923 on the default board), per cell: 8 planes of N, the
pieces by side and kind (``side * 4 + kind``, kinds shieldman, archer, horseman, warlord); 6
planes of N, a Shieldman's facing (one-hot, directions 0-5); 1 plane, the Shieldman whose landing
facing is pending (``facing = "random"``, at a chance event). Then the observer's side (2, one-hot),
the side to move (2), the side whose Warlord waits on the Gold Tile (2, SK-7), the consecutive
passes (0-2) and the plies played.
"""
from __future__ import annotations

import numpy as np

from simkit.env.rules import GameSteps
from simkit.games.skorm import search
from simkit.games.skorm.moves import max_actions_nb
from simkit.games.skorm.render import FACING_NAMES, LETTERS, board_text, cell_name, describe
from simkit.games.skorm.features import features_nb
from simkit.games.skorm.rules import EVAL_FEATURES, FACINGS, I_FACING, I_MAX_PLIES, I_N, P_EVAL, P_I
from simkit.games.skorm.search import action_of_nb, new_search_nb, search_capacity
from simkit.games.skorm.state import LOG_W_EXTRA, SC_PASSES, SC_PENDING, SC_PLY, SC_TOMOVE
from simkit.games.skorm.step import (
    finish_record_nb, pass_code, policy_choice_nb, roll_landing_nb, start_game_nb, step_decision_nb,
)
from simkit.policies import max_budget


class SkormSteps(GameSteps):

    def __init__(self, spec, params):
        super().__init__(spec, params)
        self.P = params
        ip = params[P_I]
        self.N = N = int(ip[I_N])
        self.num_actions = pass_code(N) + 1
        self.pass_code = pass_code(N)
        self.agg_size = N
        self.chance_landing = FACINGS[int(ip[I_FACING])] == "random"
        self.max_outcomes = 6 if self.chance_landing else 0
        max_plies = int(ip[I_MAX_PLIES])
        self.max_decisions = max_plies * (2 if self.chance_landing else 1)   # a ply, and its landing
        size = 15 * N + 8
        self.obs_shape = (size,)
        self.obs_low = np.zeros(size, np.float32)
        high = np.ones(size, np.float32)
        high[-2:] = 2, max_plies
        self.obs_high = high
        maxa = int(max_actions_nb(params))
        self._codes = np.zeros(maxa, np.int32)    # int32, as the search's buffer: decisions_nb compiles once
        self._scores = np.zeros(maxa, np.float64)
        self._outs = np.zeros(6, np.int64)
        self._probs = np.zeros(6, np.float64)
        self._log = np.zeros((0, LOG_W_EXTRA + 2 * N), np.int64)
        self._ws = None

    # --- the position ------------------------------------------------------------------
    def new_position(self):
        return search.new_state_nb(self.P)

    def start(self, S, first, rng, rec):
        start_game_nb(self.P, rng, np.int64(first), S[0], S[1], S[2], S[3], S[4], S[9], self._log)
        S[5][:2] = -1     # no landing pending, no scripted random-style choice
        S[5][2] = 0       # evaluate judges with the weight table's row 0 (search.py: aux[2])

    def status(self, S):
        return int(search.status_nb(self.P, S))

    def to_move(self, S):
        return int(S[4][SC_TOMOVE])

    def chance(self, S):
        m = search.chance_nb(self.P, S, self._outs, self._probs)
        return list(zip(self._outs[:m].tolist(), self._probs[:m].tolist()))

    def roll(self, S, rng):
        return int(roll_landing_nb(rng))

    def resolve(self, S, outcome, rng, rec, agg):     # a landing facing counts nothing in the record
        search.land_nb(self.P[P_I], S[1], S[4], S[5], np.int64(outcome))

    def legal(self, S):
        n = search.decisions_nb(self.P, S, self._codes, self._scores)
        if n == 0:      # no action: the pass (SK-8)
            return np.array([self.pass_code], np.int64)
        return np.sort(self._codes[:n].astype(np.int64))

    def apply(self, S, code, rng, rec, agg, snapshot_ply):
        step_decision_nb(self.P, S, np.int64(code), rng, rec, agg, np.int64(snapshot_ply))

    def evaluate(self, S):
        return float(search.evaluate_nb(self.P, S))

    def features(self, S):
        """(quiet, f): features.features_nb with the weight table's row 0 (the row evaluate reads). A ply in
        progress (a landing facing still to be drawn, ``facing = "random"``) is not quiet: the mover has
        played but the turn has not passed, so "the side to move attacks nothing" would judge the wrong side."""
        f = np.zeros(len(EVAL_FEATURES), np.float64)
        quiet, _ = features_nb(self.P, S[0], S[1], S[2], S[4], S[8], self.P[P_EVAL][0], f)
        return bool(quiet and S[5][0] < 0), f

    def choose(self, S, policies, rng):
        cap = search_capacity(max_budget(policies))
        if self._ws is None or self._ws[0][0][0].shape[0] < cap:
            self._ws = new_search_nb(self.P, np.int64(cap))
        code, greedy = policy_choice_nb(self.P, S, policies, rng, self._ws)
        S[5][1] = -1 if greedy else code     # played in the random policy's way (step.step_decision_nb)
        return int(code)

    def finish(self, S, first, rec, snapshot_ply):
        finish_record_nb(S[4], S[9], np.int64(first), rec, np.int64(snapshot_ply))

    # --- what a player sees -------------------------------------------------------------
    def observation(self, S, player):
        cell, face, sc, aux = S[0], S[1], S[4], S[5]
        N = self.N
        out = np.zeros(self.obs_shape[0], np.float32)
        planes = out[:15 * N].reshape(15, N)
        occupied = np.flatnonzero(cell)
        planes[cell[occupied] - 1, occupied] = 1
        shield = np.flatnonzero((cell == 1) | (cell == 5))
        planes[8 + face[shield], shield] = 1
        if aux[0] >= 0:
            planes[14, aux[0]] = 1
        k = 15 * N
        out[k + player] = 1
        out[k + 2 + sc[SC_TOMOVE]] = 1
        if sc[SC_PENDING] >= 0:
            out[k + 4 + sc[SC_PENDING]] = 1
        out[k + 6] = sc[SC_PASSES]
        out[k + 7] = sc[SC_PLY]
        return out

    def _action(self, code):
        return int(action_of_nb(np.int64(code), self.N))

    def label(self, S, code):
        if int(code) == self.pass_code:
            return "pass"
        act = self._action(code)
        typ, a, t = act >> 16, (act >> 8) & 255, act & 255
        cell = S[0]
        side, kind = (int(cell[a]) - 1) >> 2, (int(cell[a]) - 1) & 3
        letter = LETTERS[kind] if side == 0 else LETTERS[kind].lower()
        sep = "*" if typ == 1 else "x" if cell[t] else "-"
        return f"{letter}{cell_name(self.P, a)}{sep}{cell_name(self.P, t)}"

    def describe(self, S, code):
        mover = int(S[4][SC_TOMOVE])
        act = -1 if int(code) == self.pass_code else self._action(code)
        return describe(self.P, act, S[0], mover)

    def outcome_label(self, S, outcome):
        return f"lands facing {int(outcome)} ({FACING_NAMES[int(outcome)]})"

    def render(self, S):
        cell, face, sc, aux = S[0], S[1], S[4], S[5]
        line = f"ply {int(sc[SC_PLY])}, side {int(sc[SC_TOMOVE])} to move"
        if sc[SC_PENDING] >= 0:
            line += f"; side {int(sc[SC_PENDING])}'s warlord waits on the Gold Tile (SK-7)"
        if aux[0] >= 0:
            line += f"; the shieldman on {cell_name(self.P, int(aux[0]))} lands, its facing drawn next"
        return f"{board_text(self.P, cell, face)}\n{line}"
