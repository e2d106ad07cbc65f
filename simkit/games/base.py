"""GameSpec: everything the shared runner, CLI and analysis need from a game.

A game folder (``simkit/games/<game>/``) builds one ``SPEC = GameSpec(...)`` and
``simkit/games/__init__.py`` registers it. Nothing outside the folder knows the
game's rules.

Kernel contract (``run_chunk``) — the one call the runner makes:

    records, aggregate = spec.run_chunk(params, seed, start, firsts, policies, snapshot_ply)

- ``params``: whatever ``prepare(rules)`` returned (a tuple of numpy arrays and
  scalars; picklable, so chunks can travel to Dask workers).
- ``seed``: the run seed (int >= 0); game ``g`` seeds its RNG from ``(seed, g)``
  with ``rng_seed_nb`` — never from anything else.
- ``start``: index of the chunk's first game; ``firsts``: int8 array, the side
  that moves first in each game of the chunk (``len(firsts)`` games).
- ``policies``: int64 array of 2, the policy id of side 0 and side 1
  (indexes into ``spec.policies``).
- ``snapshot_ply``: the ply at which the ``snap`` material columns (per side and unit)
  are recorded (the final position if the game ends earlier).
- ``records``: int32 array ``(len(firsts), len(spec.record_fields))``; the first
  four fields are always ``first, winner, plies, end_reason`` (winner -1 = draw;
  end_reason indexes ``spec.end_reasons``).
- ``aggregate``: int64 array summed over chunks (e.g. deaths per cell), shape
  fixed by params.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from simkit.scenario.schema import Option

BASE_FIELDS = ("first", "winner", "plies", "end_reason")
# end_reason of a game that ended outside the rules: a person resigned a playtest (simkit.env.playtest)
RESIGNED = -1
SIDES = (0, 1)


@dataclass(frozen=True)
class Column:
    """One record column as data: its name and what it counts.

    ``stat`` is the statistic ("kills", "losses", "snap", "final", "captures", ...);
    ``side`` the side it belongs to (None: the game as a whole); ``unit`` the unit type
    (None: the side as a whole); ``vs_unit`` the other unit type of a unit-vs-unit count
    (``unit`` is the row: the attacker of kills by attacker x victim). Analysis and report
    read these fields, never the name, so a column's name is free text.
    """
    name: str
    stat: str
    side: int | None = None
    unit: str | None = None
    vs_unit: str | None = None


def plain_columns(*names: str) -> tuple[Column, ...]:
    """Columns of the game as a whole (the base fields, a score): stat = name."""
    return tuple(Column(n, n) for n in names)


def per_side(stat: str, name: str | None = None) -> tuple[Column, ...]:
    """``<name>_<side>`` for each side (``name`` defaults to ``stat``: the label tables print)."""
    return tuple(Column(f"{name or stat}_{s}", stat, side=s) for s in SIDES)


def per_side_unit(stat: str, units) -> tuple[Column, ...]:
    """``<stat>_<side>_<unit>``, side-major (side 0's units, then side 1's)."""
    return tuple(Column(f"{stat}_{s}_{u}", stat, side=s, unit=u) for s in SIDES for u in units)


def unit_vs_unit(stat: str, units, vs_units=None) -> tuple[Column, ...]:
    """``<stat>_<unit>_x_<vs_unit>``, row-major (both sides together)."""
    return tuple(Column(f"{stat}_{a}_x_{d}", stat, unit=a, vs_unit=d)
                 for a in units for d in (units if vs_units is None else vs_units))


def column_names(columns) -> tuple[str, ...]:
    return tuple(c.name for c in columns)


BASE_COLUMNS = plain_columns(*BASE_FIELDS)


@dataclass(frozen=True)
class Hook:
    """A GameSpec function that lives in a jitted module, imported on its first call: listing the
    games or their rules then imports no numba (issue 13). Picklable, so a spec can travel."""
    module: str
    name: str

    def target(self):
        import importlib
        return getattr(importlib.import_module(self.module), self.name)

    def __call__(self, *args, **kwargs):
        return self.target()(*args, **kwargs)

    @property
    def __signature__(self):   # inspect.signature(hook) is the target's (callers look for keywords)
        import inspect
        return inspect.signature(self.target())


@dataclass(frozen=True)
class GameSpec:
    name: str
    title: str
    unit_types: tuple[str, ...]
    options: tuple[Option, ...]
    prepare: Callable[[dict], Any]
    run_chunk: Callable[..., tuple]
    record_fields: tuple[str, ...]
    end_reasons: tuple[str, ...]
    policies: tuple[str, ...]
    # (params, seed, game, first, policies) -> text trace of that game; its last line states
    # "player W wins" or "draw", the end reason name and the length (plies or turns)
    play: Callable[..., str]
    validate: Callable[[dict], None] = lambda rules: None   # cross-key checks
    perft: Callable[[Any, int], list[int]] | None = None     # (params, depth) -> counts for 1..depth
    perft_note: str = ""                            # why perft does not apply, when it doesn't
    aggregate_label: str = "deaths"                  # what aggregate counts
    aggregate_index: Callable[[Any], list[str]] | None = None  # labels of aggregate cells
    length_unit: str = "plies"                      # 'plies' or 'turns'
    warm: Callable[[], None] | None = None           # compile/load every kernel (precompile)
    # rules -> the spec of one scenario, for a game whose record columns depend on its rules
    # (Storm the Castle: one block per card of the scenario's deck); None: one layout for all
    for_rules: Callable[[dict], Any] | None = None
    # record columns that count interactions (captures, kills, shots); a game where all are 0
    # had no interaction at all, which the degenerate-play flags report
    interaction_fields: tuple[str, ...] = ()
    # (params, seed, game, first, policies) -> (values, legal, interactions, record) of one game as
    # the batch kernel plays it: side 0's evaluation lead before each ply/turn and after the last,
    # legal actions and captures/kills per ply/turn (simkit/analysis/quality.py)
    trajectory: Callable[..., tuple] | None = None
    # unit values (`simkit values`): the unit the others are expressed in (signs kept), and the
    # units whose loss ends the game (their material separates the outcome; left out of both methods)
    reference_unit: str | None = None
    game_ending_units: tuple[str, ...] = ()
    # end reasons that stop a game without deciding it (a move cap, a stalemate): decisiveness
    # and the report's red bars read this, never end-reason names
    cap_reasons: tuple[str, ...] = ()
    # the report's board drawing for the aggregate: "hex" (axial "q,r" cells), "square"
    # ("x,y" cells), "canal" (a 4x8 board "a1".."d8" with a canal), "graph" (named spaces of a
    # graph) or None (a bar chart per cell); its figure size in inches (None: by cell count)
    board: str | None = None
    board_figsize: tuple[float, float] | None = None
    # the dice model the report tabulates exactly: "2d6_target" (2d6 <= 3 + modifier),
    # "opposed_d6" (attacker d6 + mod vs defender d6 + mod, ties re-rolled) or None
    dice: str | None = None
    # folder of the game's scenarios when it lives outside simkit/scenarios/ (a test game)
    scenario_dir: str | None = None
    # where the search's knob table (simkit.policies.mcts_params: a row per side) sits in the params tuple,
    # and the game's own knobs after the shared ones (option names); None: policies take no /KNOB=VALUE
    knobs_slot: int | None = None
    search_knobs: tuple[str, ...] = ()
    # the knobs one side may carry (POLICY/KNOB=VALUE) when the game's hooks read some knobs for both sides at
    # once (Skorm's evaluation reads one mcts_scale): only those the engine itself reads per side; None: all
    side_knobs: tuple[str, ...] | None = None
    # the action classes a ``ban:CLASS:POLICY`` player never uses (bit k of its ban mask = class k); the kernel
    # filters them out of that side's options for every policy, and its search hooks name each decision's class
    action_classes: tuple[str, ...] = ()
    # the evaluation as a weighted sum of named features (simkit learn; docs/learn.md): params[eval_slot] is a
    # float64 (2, len(eval_features)) table, row p = side p's weights (both rows the rules' hand-set weights
    # unless a side plays a learned evaluation); a scripted policy reads the mover's row, the search the
    # searcher's row everywhere in its tree and rollouts; the step API's ``features`` gives the features
    eval_slot: int | None = None
    eval_features: tuple[str, ...] = ()
    # simkit learn's defaults (docs/learn.md): the self-play whose quiet positions are fitted, and the search that
    # judges a learned evaluation beside greedy. That search must read the evaluation: one whose priors and
    # rollouts ignore it (Martian Chess's default: captured pips, 60 random plies) cannot show a better one
    learn_policy: str = "greedy"
    learn_search: str = "mcts:50"
    extra: dict = field(default_factory=dict)
    # (spec, params) -> the game's simkit.env.rules.GameSteps: the step API (simkit.env), its adapters,
    # python agents and playtests; None: the game cannot be played from outside yet
    steps: Callable[..., Any] | None = None
    # what each record column counts, in record order (names == record_fields): per-unit,
    # per-side and unit-vs-unit statistics as data (unit_table, the report, unit values read
    # these). Empty: every column is plain (no per-unit or per-side statistics).
    columns: tuple[Column, ...] = ()

    def __post_init__(self):
        assert self.record_fields[:4] == BASE_FIELDS, self.record_fields[:4]
        if not self.columns:
            object.__setattr__(self, "columns", plain_columns(*self.record_fields))
        # a spec derived with dataclasses.replace(record_fields=...) must derive its columns too
        assert column_names(self.columns) == tuple(self.record_fields), "columns do not match record_fields"
        units = set(self.unit_types)
        assert all(c.unit is None or c.unit in units for c in self.columns), "a column names an unknown unit"
        assert all(c.vs_unit is None or c.unit is not None for c in self.columns)
        assert set(self.cap_reasons) <= set(self.end_reasons), (self.cap_reasons, self.end_reasons)
        if self.eval_slot is not None and not any(o.name == "evaluation" for o in self.options):
            from simkit.scenario.evaluation import EVALUATIONS
            # which weights the players score positions with (simkit/scenario/evaluation.py; --eval)
            ev = Option("evaluation", "choice", "auto", "the players' evaluation: auto (learned for this variant "
                        "when simkit learn stored one, else default), default (the hand-set weights) or learned",
                        choices=EVALUATIONS, policy_knob=True)
            object.__setattr__(self, "options", tuple(self.options) + (ev,))

    def unit_columns(self) -> tuple[Column, ...]:
        """Per side and unit type (``<stat>_<side>_<unit>``)."""
        return tuple(c for c in self.columns if c.side is not None and c.unit is not None and c.vs_unit is None)

    def side_columns(self) -> tuple[Column, ...]:
        """Per side, no unit type (kills by attack angle, shield blocks, scores)."""
        return tuple(c for c in self.columns if c.side is not None and c.unit is None)

    def matrix_columns(self) -> tuple[Column, ...]:
        """Unit vs unit (kills by attacker x victim unit type)."""
        return tuple(c for c in self.columns if c.vs_unit is not None)

    def column(self, stat: str, side: int | None = None, unit: str | None = None,
               vs_unit: str | None = None) -> Column | None:
        """The column counting ``stat`` for this side / unit (None: the game records none)."""
        return next((c for c in self.columns
                     if (c.stat, c.side, c.unit, c.vs_unit) == (stat, side, unit, vs_unit)), None)

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    def policy_id(self, name: str) -> int:
        return self.policies.index(name)

    def for_scenario(self, rules: dict) -> GameSpec:
        """The spec of a scenario with these (validated) rules: its record columns and unit types."""
        return self.for_rules(rules) if self.for_rules is not None else self
