"""Dice Race through the step API (simkit.env): the kernel's own functions, one event at a time.

Each turn is a chance event (the mover's d6: outcome codes 1-6, each 1/6) then a decision:
the pawn to move (code = the pawn's index, action space ``MAX_PAWNS``). Observation (float32):
both sides' pawn squares (2 x MAX_PAWNS, -1 for a pawn the rules do not have), the observer,
the side to move, the die (0 before the roll) and the turns played.
"""
import numpy as np

from simkit.engine.search import new_tree_nb, tree_capacity
from simkit.env.rules import GameSteps
from simkit.policies import max_budget
from toygame import search
from toygame.game import MAX_PAWNS, finish_record_nb, init_game_nb, policy_pawn_nb, record_turn_nb, roll_nb
from toygame.search import M_ROLL, M_SIDE, M_TURNS

OBS_SIZE = 2 * MAX_PAWNS + 4


class DiceRaceSteps(GameSteps):
    num_actions = MAX_PAWNS
    max_outcomes = 7
    obs_shape = (OBS_SIZE,)

    def __init__(self, spec, params):
        super().__init__(spec, params)
        self.P = params
        track, self.pawns, max_turns = (int(x) for x in params[0])
        self.track = track
        self.agg_size = track + 1
        self.max_decisions = 2 * max_turns
        self.obs_low = np.full(OBS_SIZE, -1, np.float32)
        self.obs_high = np.full(OBS_SIZE, track, np.float32)
        self.obs_high[-4:] = 1, 1, 6, max_turns
        self._codes = np.zeros(MAX_PAWNS, np.int64)
        self._scores = np.zeros(MAX_PAWNS, np.float64)
        self._outs = np.zeros(6, np.int64)
        self._probs = np.zeros(6, np.float64)
        self._scratch = None

    def new_position(self):
        return search.new_state(MAX_PAWNS)

    def start(self, S, first, rng, rec):
        init_game_nb(self.P[0], np.int64(first), S, rec)

    def status(self, S):
        return int(search.status_nb(self.P, S))

    def to_move(self, S):
        return int(S[1][M_SIDE])

    def chance(self, S):
        m = search.chance_nb(self.P, S, self._outs, self._probs)
        return list(zip(self._outs[:m].tolist(), self._probs[:m].tolist()))

    def resolve(self, S, outcome, rng, rec, agg):
        search.resolve_nb(self.P, S, np.int64(outcome), rng)     # a die counts nothing: the move does

    def roll(self, S, rng):
        return int(roll_nb(self.P, S, rng))

    def legal(self, S):
        n = search.decisions_nb(self.P, S, self._codes, self._scores)
        return np.sort(self._codes[:n])

    def apply(self, S, code, rng, rec, agg, snapshot_ply):
        record_turn_nb(self.P, S, np.int64(code), rec, agg, np.int64(snapshot_ply))

    def evaluate(self, S):
        return float(search.evaluate_nb((self.P[0], self.P[1][0]), S))    # (mcts_scale: one for both sides)

    def choose(self, S, policies, rng):
        cap = tree_capacity(max_budget(policies), MAX_PAWNS)
        if self._scratch is None or self._scratch[0][0].shape[0] < cap:
            self._scratch = (new_tree_nb(cap, MAX_PAWNS, 6), search.new_state(MAX_PAWNS), search.new_state(MAX_PAWNS))
        tree, S1, S2 = self._scratch
        return int(policy_pawn_nb(self.P, S, policies, rng, S1, S2, tree))

    def finish(self, S, first, rec, snapshot_ply):
        finish_record_nb(self.P, S, np.int64(first), rec, np.int64(snapshot_ply))

    def observation(self, S, player):
        pos, meta = S
        out = np.full(OBS_SIZE, -1, np.float32)
        out[:2 * MAX_PAWNS].reshape(2, MAX_PAWNS)[:, :self.pawns] = pos[:, :self.pawns]
        out[-4:] = player, meta[M_SIDE], meta[M_ROLL], meta[M_TURNS]
        return out

    def label(self, S, code):
        return f"pawn{int(code)}"

    def describe(self, S, code):
        pos, meta = S
        side = meta[M_SIDE]
        to = min(pos[side, code] + meta[M_ROLL], self.track)
        return f"pawn {int(code)} from {pos[side, code]} to {'home' if to == self.track else to}"

    def outcome_label(self, S, outcome):
        return f"rolls {int(outcome)}"

    def render(self, S):
        pos, meta = S
        rows = [f"side {s}: " + " ".join("home" if x >= self.track else str(x) for x in pos[s, :self.pawns])
                for s in (0, 1)]
        roll = f", rolled {meta[M_ROLL]}" if meta[M_ROLL] else ""
        return "\n".join(rows) + f"\nturn {meta[M_TURNS] + 1}, side {meta[M_SIDE]} to move{roll}"
