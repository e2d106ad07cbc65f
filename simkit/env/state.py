"""``State``: one game of any registered game, played one decision or chance outcome at a time.

    from simkit import env
    s = env.new_game("martian_chess", seed=7, game=3, first=1)
    while not s.is_over():
        if s.is_chance():
            s.roll()                      # as the batch kernel rolls game 3 of a run seeded 7
        else:
            s.apply(s.legal_actions()[0])
    s.returns(), s.record()

Decision codes are the game's search codes: stable integers in ``range(s.num_actions)``.
A chance event (dice) is its own node: ``chance_outcomes()`` gives the outcome codes and
their exact probabilities; ``apply(outcome)`` sets one (a search, OpenSpiel), ``roll()``
draws it from the game's seeded stream exactly as the batch kernel does, so a game stepped
with the scripted policies (``scripted_action``) and ``roll()`` is the batch kernel's game
``game`` of a run seeded ``seed``: the same record, bit for bit.
"""
from __future__ import annotations

import numpy as np

from simkit.engine.rng import rng_seed_nb
from simkit.engine.search import ONGOING

CHANCE = -1      # current_player at a chance node (OpenSpiel's PlayerId.CHANCE)
TERMINAL = -4    # current_player of a finished game (OpenSpiel's PlayerId.TERMINAL)


def _copy_tree(x):
    return tuple(_copy_tree(a) for a in x) if isinstance(x, tuple) else x.copy()


class State:
    """A game in progress; see the module docstring. Build it with ``simkit.env.new_game``."""

    def __init__(self, steps, seed: int = 0, game: int = 0, first: int = 0, snapshot_ply: int = -1,
                 _empty: bool = False):
        self.steps = steps
        self.seed, self.game, self.first, self.snapshot_ply = int(seed), int(game), int(first), int(snapshot_ply)
        if _empty:
            return
        if first not in (0, 1):
            from simkit.errors import UsageError
            raise UsageError(f"first must be 0 or 1, got {first!r}")
        self.S = steps.new_position()
        self.rng = np.zeros(1, np.uint64)
        rng_seed_nb(self.rng, np.int64(seed), np.int64(game))
        self.rec = np.zeros(steps.record_len, np.int32)
        self.agg = np.zeros(steps.agg_size, np.int64)
        self.history: list[tuple[int, int]] = []     # (player or CHANCE, code) in order
        steps.start(self.S, self.first, self.rng, self.rec)
        self._finished = False
        self._refresh()
        self._settle()

    # --- sizes ---------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return self.steps.num_actions

    @property
    def spec(self):
        return self.steps.spec

    # --- whose turn ----------------------------------------------------------------------
    # The position changes only in apply/roll, so its status, pending chance event and legal decisions
    # are read once per position (an agent's search asks for them many times).
    def _refresh(self):
        self._status = int(self.steps.status(self.S))
        self._chance = [] if self._status != ONGOING else self.steps.chance(self.S)
        self._legal = None

    def is_over(self) -> bool:
        return self._status != ONGOING

    def is_chance(self) -> bool:
        return bool(self._chance)

    @property
    def current_player(self) -> int:
        """The side to decide (0 or 1), CHANCE while dice are pending, TERMINAL once the game is over."""
        if self._status != ONGOING:
            return TERMINAL
        if self._chance:
            return CHANCE
        return int(self.steps.to_move(self.S))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The pending chance event's (outcome, probability) pairs, exact; [] at a decision."""
        return [(int(o), float(p)) for o, p in self._chance]

    def legal_actions(self) -> list[int]:
        """Legal decision codes (ascending); at a chance node, the outcome codes; [] once over."""
        if self._legal is None:
            if self._status != ONGOING:
                self._legal = []
            elif self._chance:
                self._legal = sorted(int(o) for o, _ in self._chance)
            else:
                # tolist: Python ints at C speed (a Warfare! decision has hundreds of legal activations)
                self._legal = np.asarray(self.steps.legal(self.S), np.int64).tolist()
        return list(self._legal)

    def legal_mask(self) -> np.ndarray:
        """int8 of ``num_actions``: 1 where a decision is legal (all 0 at a chance node or once over)."""
        mask = np.zeros(self.num_actions, np.int8)
        if self.current_player >= 0:
            mask[self.legal_actions()] = 1
        return mask

    def action_label(self, code: int) -> str:
        """A decision (or, at a chance node, an outcome) in the rules' words."""
        if self.is_chance():
            return self.steps.outcome_label(self.S, int(code))
        return self.steps.label(self.S, int(code))

    # --- moving on -----------------------------------------------------------------------
    def apply(self, code: int):
        """Play a legal decision, or set the pending chance event's outcome. ValueError if illegal."""
        code = int(code)
        player = self.current_player
        if player == TERMINAL:
            raise ValueError("the game is over")
        self.legal_actions()
        if code not in self._legal:
            what = "outcome" if player == CHANCE else "action"
            raise ValueError(f"{what} {code} is not legal here; legal: {self.legal_actions()}")
        if player == CHANCE:
            self.steps.resolve(self.S, code, self.rng, self.rec, self.agg)
        else:
            self.steps.apply(self.S, code, self.rng, self.rec, self.agg, self.snapshot_ply)
        self.history.append((player, code))
        self._refresh()
        self._settle()

    def roll(self) -> int:
        """Settle the pending chance event as the batch kernel does (the game's seeded stream)."""
        if not self.is_chance():
            raise ValueError("no chance event is pending")
        outcome = int(self.steps.roll(self.S, self.rng))
        self.steps.resolve(self.S, outcome, self.rng, self.rec, self.agg)
        self.history.append((CHANCE, outcome))
        self._refresh()
        self._settle()
        return outcome

    def scripted_action(self, policies, rng=None) -> int:
        """The decision simkit's scripted policies make here (a policy vector or names' vector,
        simkit.policies), drawn from the game's stream as the batch kernel draws it; ``rng`` (a stream
        of engine.rng): draw from it instead, so the decisions and the dice use separate streams
        (``simkit luck`` replays one deal and dice under independent decisions)."""
        from simkit.policies import POLICY_VECTOR
        pv = np.zeros(POLICY_VECTOR, np.int64)
        pv[:len(policies)] = np.asarray(policies, np.int64)
        if self.current_player < 0:
            raise ValueError("no decision is pending")
        return int(self.steps.choose(self.S, pv, self.rng if rng is None else rng))

    def value(self) -> float:
        """Side 0's expected score here: the result once over, else the game's evaluation (its search's
        leaf evaluation, in [0, 1]); at a chance node, its outcomes' values weighted by their exact odds."""
        if self.is_over():
            return (self.returns()[0] + 1.0) / 2.0
        if self.is_chance():
            total = 0.0
            for o, p in self.chance_outcomes():
                c = self.clone()
                c.apply(o)
                total += p * c.value()
            return total
        return float(self.steps.evaluate(self.S))

    def _settle(self):
        if not self._finished and self.is_over():
            self.steps.finish(self.S, self.first, self.rec, self.snapshot_ply)
            self._finished = True

    # --- reading -------------------------------------------------------------------------
    def returns(self) -> list[float]:
        """Each side's result: +1 win, -1 loss, 0 a draw or an unfinished game."""
        st = self._status
        if st == 0:
            return [1.0, -1.0]
        if st == 1:
            return [-1.0, 1.0]
        return [0.0, 0.0]

    def winner(self):
        """0 or 1, -1 for a draw, None while the game goes on."""
        return None if self._status == ONGOING else self._status

    def record(self) -> np.ndarray:
        """The game's record row (spec.record_fields), as the batch kernel writes it (complete once over)."""
        return self.rec.copy()

    def observation(self, player: int) -> tuple[np.ndarray, np.ndarray]:
        """(``obs_shape`` float32 tensor of what ``player`` sees, the legal-action mask): the mask is
        all 0 unless ``player`` is to decide."""
        obs = np.asarray(self.steps.observation(self.S, int(player)), np.float32).reshape(self.steps.obs_shape)
        mask = self.legal_mask() if self.current_player == player else np.zeros(self.num_actions, np.int8)
        return obs, mask

    def render(self, player: int | None = None) -> str:
        """The board as the game's trace draws it; ``player``: as that player sees it (in a hidden-card
        game the opponent's hand is hidden: what `simkit playtest` shows the person)."""
        if player is None or self.steps.perfect_information:
            return self.steps.render(self.S)
        return self.steps.render(self.S, int(player))

    def clone(self, player: int | None = None) -> State:
        """An independent copy. ``player``: a copy in which what that player cannot see (the
        opponent's hand, the deck order) is redealt at random, as the search does: what an honest
        agent may search on. The copy's stream is the original's unless redealt."""
        c = State(self.steps, self.seed, self.game, self.first, self.snapshot_ply, _empty=True)
        c.S = _copy_tree(self.S)
        c.rng, c.rec, c.agg = self.rng.copy(), self.rec.copy(), self.agg.copy()
        c.history = list(self.history)
        c._finished = self._finished
        c._status, c._chance, c._legal = self._status, self._chance, self._legal
        if player is not None and not self.steps.perfect_information:
            # a stream of its own, fixed by the game and the moment: an agent's run is reproducible
            rng_seed_nb(c.rng, np.int64(self.seed ^ 0x5EED), np.int64(self.game * 2**20 + len(self.history)))
            self.steps.determinise(c.S, int(player), c.rng)
            c._refresh()
        return c

    def __deepcopy__(self, memo):
        # copy.deepcopy (OpenSpiel clones a Python state so) copies the game, never its rules and scratch
        return self.clone()

    def __str__(self):
        return self.render()
