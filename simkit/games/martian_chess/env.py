"""Martian Chess through the step API (simkit.env): the kernel's own functions, one ply at a time.

Decision code: ``from * 32 + to`` (cells a1=0 .. d8=31, as search.py's codes), so the action
space has 1024 ids. No chance, nothing hidden. Observation (float32, 170 values): for each
pips value 1-3 a 32-cell plane of the pieces standing there; the observer's side (2, one-hot),
the side to move (2); the scores in half pips with the komi (MC-C1) (2); the opponent's last
canal crossing as from and to planes (64, MC-3); the clock called, its count, the quiet plies
and the ply (4).
"""
from __future__ import annotations

import numpy as np

from simkit.engine.search import new_tree_nb, tree_capacity
from simkit.env.rules import GameSteps
from simkit.games.martian_chess import search
from simkit.games.martian_chess.moves import gen_moves_nb, start_turn_nb
from simkit.games.martian_chess.play import SEARCH_WIDTH
from simkit.games.martian_chess.render import board_text, move_text
from simkit.games.martian_chess.state import (
    M_CALLED, M_CLOCK, M_END, M_KOMI, M_LAST_FROM, M_LAST_TO, M_PLY, M_QUIET, M_SCORE, M_TO_MOVE, MAX_MOVES, NMETA,
    R_KOMI, R_MAX_PLIES, name_of,
)
from simkit.games.martian_chess.step import (
    finish_record_nb, init_game_nb, policy_move_nb, record_ply_nb,
)
from simkit.policies import max_budget

OBS_SIZE = 3 * 32 + 2 + 2 + 2 + 64 + 4


class MartianChessSteps(GameSteps):
    num_actions = 32 * 32
    agg_size = 32
    obs_shape = (OBS_SIZE,)

    def __init__(self, spec, params):
        super().__init__(spec, params)
        self.init_board, rays, rules, weights, mc = params
        self.P = (rays, rules, weights, mc)
        # the search's view of the position (a side's weights and knobs): its hooks then compile once, for both
        self._P0 = (rays, rules, weights[0], mc[0])
        self.max_decisions = int(rules[R_MAX_PLIES])
        pips = int(self.init_board.sum())
        self.obs_low = np.zeros(OBS_SIZE, np.float32)
        high = np.ones(OBS_SIZE, np.float32)
        high[3 * 32 + 4:3 * 32 + 6] = 2 * pips + int(rules[R_KOMI])      # half pips: every piece plus the komi
        high[-3:] = self.max_decisions
        self.obs_high = high
        self._buf = np.zeros(MAX_MOVES, np.int32)
        self._scratch = None

    def new_position(self):
        return search.new_state_nb()

    def start(self, S, first, rng, rec):
        board, meta, moves = S
        rules = self.P[1]
        init_game_nb(self.init_board, rules, np.int64(first), board, meta, rec)
        start_turn_nb(meta, rules)      # the search state's convention: the mover's turn started

    def status(self, S):
        return int(search.status_nb(self._P0, S))     # (a mover with no move: the draw, MC-5, recorded here)

    def to_move(self, S):
        return int(S[1][M_TO_MOVE])

    def legal(self, S):
        n = gen_moves_nb(S[0], S[1], self.P[0], self.P[1], self._buf)
        return np.sort(self._buf[:n].astype(np.int64))

    def apply(self, S, code, rng, rec, agg, snapshot_ply):
        board, meta = S[0], S[1]
        rules = self.P[1]
        record_ply_nb(rules, board, meta, np.int32(code), rec, agg, np.int64(snapshot_ply))
        if meta[M_END] < 0:
            start_turn_nb(meta, rules)

    def features(self, S):
        from simkit.games.martian_chess.features import features
        return features(self, S)

    def evaluate(self, S):
        return float(search.evaluate_nb(self._P0, S))    # (only mcts_scale: shared)

    def choose(self, S, policies, rng):
        cap = tree_capacity(max_budget(policies), SEARCH_WIDTH)
        if self._scratch is None or self._scratch[0][0][0].shape[0] < cap:
            trees = (new_tree_nb(cap, MAX_MOVES, 1), new_tree_nb(cap, MAX_MOVES, 1))
            self._scratch = (trees, search.new_state_nb(), (search.new_state_nb(), search.new_state_nb()),
                             np.zeros(32, np.int8), np.zeros(NMETA, np.int32))
        trees, S1, S2s, sb, sm = self._scratch
        mv, _ = policy_move_nb(self.P, S, policies, rng, trees, S1, S2s, sb, sm)
        return int(mv)

    def finish(self, S, first, rec, snapshot_ply):
        finish_record_nb(S[0], S[1], rec, np.int64(snapshot_ply))

    def observation(self, S, player):
        board, meta = S[0], S[1]
        out = np.zeros(OBS_SIZE, np.float32)
        for pips in (1, 2, 3):
            out[(pips - 1) * 32:pips * 32] = board == pips
        k = 96
        out[k + player] = 1
        out[k + 2 + meta[M_TO_MOVE]] = 1
        out[k + 4] = 2 * meta[M_SCORE] + meta[M_KOMI]
        out[k + 5] = 2 * meta[M_SCORE + 1] + meta[M_KOMI + 1]
        k += 6
        if meta[M_LAST_FROM] >= 0:
            out[k + meta[M_LAST_FROM]] = 1
            out[k + 32 + meta[M_LAST_TO]] = 1
        k += 64
        out[k:k + 4] = meta[M_CALLED], meta[M_CLOCK], meta[M_QUIET], meta[M_PLY]
        return out

    def label(self, S, code):
        s, t = divmod(int(code), 32)
        board = S[0]
        sep = "x" if board[t] and t // 16 != s // 16 else "-"
        return f"{name_of(s)}{sep}{name_of(t)}"

    def describe(self, S, code):
        return move_text(S[0], code, int(S[1][M_TO_MOVE]))

    def render(self, S):
        meta = S[1]
        score = f"score {meta[M_SCORE]}-{meta[M_SCORE + 1]}"
        if meta[M_KOMI] or meta[M_KOMI + 1]:
            score += f" (komi {meta[M_KOMI] / 2:g}-{meta[M_KOMI + 1] / 2:g})"
        return f"{board_text(S[0])}\nply {meta[M_PLY]}, {score}, player {meta[M_TO_MOVE]} to move"
