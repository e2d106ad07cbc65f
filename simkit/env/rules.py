"""What a game gives the step API: ``GameSteps``, written once in the game's folder (``env.py``).

A game's step-API class calls the same jitted functions its batch kernel and its search
call (the search hooks of ``search.py`` and the per-ply pieces the kernel is made of), so
a game played through the step API with the scripted policies is the batch kernel's game,
record for record (tests/test_env_conformance.py). Nothing here knows a game's rules.

The position ``S`` is the game's search state (a tuple of arrays, engine/search.py); the
step API adds the game's random stream, its record row and its aggregate counters.
"""
from __future__ import annotations

import numpy as np

from simkit.games.base import GameSpec


class GameSteps:
    """One game's step-API functions for one set of prepared rules (``params``).

    Sizes, declared once per rules (the adapters build their spaces from them):
    ``num_actions`` (decision codes are 0..num_actions-1), ``max_outcomes`` (chance outcome
    codes are 0..max_outcomes-1; 0: the game has no chance events), ``max_decisions``
    (decisions plus chance events in the longest game), ``obs_shape``/``obs_low``/``obs_high``
    (the observation tensor, float32), ``agg_size`` (the aggregate counters), and
    ``perfect_information`` (False: ``observation`` hides what a player cannot see).
    """
    num_actions: int
    max_outcomes: int = 0
    max_decisions: int
    obs_shape: tuple
    obs_low: np.ndarray
    obs_high: np.ndarray
    agg_size: int
    perfect_information: bool = True

    def __init__(self, spec: GameSpec, params):
        self.spec = spec          # for a game whose record depends on its rules: spec.for_scenario(rules)
        self.params = params

    @property
    def record_len(self) -> int:
        """Columns of the record row."""
        return len(self.spec.record_fields)

    # --- the position ------------------------------------------------------------------
    def new_position(self):
        """Arrays of a position (the search state's shape), contents unset."""
        raise NotImplementedError

    def start(self, S, first: int, rng, rec):
        """The start of a game as the batch kernel sets it up (placement draws from ``rng``), the
        record cleared; then the first event: a chance event or ``first``'s decision."""
        raise NotImplementedError

    def status(self, S) -> int:
        """engine.search.ONGOING (-2), or the winner (0, 1) or -1 for a draw."""
        raise NotImplementedError

    def to_move(self, S) -> int:
        raise NotImplementedError

    def chance(self, S) -> list[tuple[int, float]]:
        """The pending chance event's outcome codes and exact probabilities ([] when none)."""
        return []

    def resolve(self, S, outcome: int, rng, rec, agg):
        """Settle the pending chance event with ``outcome``, counted in the record and the aggregate
        as the batch kernel counts it (a roll can decide what the record counts: an attack's kill)."""
        raise NotImplementedError

    def roll(self, S, rng) -> int:
        """The pending chance event's outcome, drawn from ``rng`` exactly as the batch kernel draws it."""
        raise NotImplementedError

    def legal(self, S) -> np.ndarray:
        """Every legal decision code of the side to move, ascending (int64)."""
        raise NotImplementedError

    def apply(self, S, code: int, rng, rec, agg, snapshot_ply: int):
        """Play a legal decision and count it in the record, as the batch kernel does."""
        raise NotImplementedError

    def choose(self, S, policies, rng) -> int:
        """The decision the scripted policies (a policy vector, simkit.policies) make here, drawn
        from ``rng`` as the batch kernel draws it."""
        raise NotImplementedError

    def finish(self, S, first: int, rec, snapshot_ply: int):
        """The record's last columns, once the game is over."""
        raise NotImplementedError

    def evaluate(self, S) -> float:
        """Side 0's expected score in [0, 1] of an unfinished position with a decision pending: the
        search's leaf evaluation (``evaluate_nb``), so a position is judged as the search judges it."""
        raise NotImplementedError

    def features(self, S) -> tuple[bool, np.ndarray]:
        """(quiet, f): the evaluation's features of this position, side 0's minus side 1's (float64, the
        spec's ``eval_features`` order), so that the evaluation's learned part is the dot product of a weight
        row with ``f``; ``quiet``: no exchange under way (simkit learn samples only quiet positions)."""
        raise NotImplementedError

    def determinise(self, S, player: int, rng):
        """Redeal what ``player`` cannot see (the search's hook; nothing in a perfect-information game)."""

    # --- what a player sees -------------------------------------------------------------
    def observation(self, S, player: int) -> np.ndarray:
        """``obs_shape`` float32: what ``player`` sees (in a hidden-card game, never the opponent's hand)."""
        raise NotImplementedError

    def label(self, S, code: int) -> str:
        """A decision in the rules' words (short, unique among the legal ones)."""
        return str(code)

    def describe(self, S, code: int) -> str:
        """A decision in full (what it captures, promotes, ...), for a person; default: its label."""
        return self.label(S, code)

    def outcome_label(self, S, outcome: int) -> str:
        return str(outcome)

    def render(self, S) -> str:
        """The board as the game's trace draws it. A hidden-card game also takes ``player`` (the board as
        that player sees it: ``render(S, player=None)``)."""
        raise NotImplementedError


def steps_for(spec: GameSpec, params) -> GameSteps:
    """The game's GameSteps for these params (UsageError, one line, for a game that has none)."""
    if spec.steps is None:
        from simkit.errors import UsageError
        raise UsageError(f"{spec.name} has no step API yet (its folder has no env.py)")
    return spec.steps(spec, params)
