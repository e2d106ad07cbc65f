"""Skorm: hex board, facing shields, archers shooting over pieces, the Gold Tile.

Rules: RULES.md §1 (SK-1 .. SK-9). See docs/games/skorm.md.
"""
from __future__ import annotations

import numpy as np

from simkit.games.base import GameSpec, Hook
from simkit.games.skorm.layout import END_REASONS, POLICIES, RECORD_COLUMNS, RECORD_FIELDS
from simkit.games.skorm.rules import (
    EVAL_FEATURES, OPTIONS, P_CQ, P_CR, P_EVAL, P_KNOBS, SIDE_KNOBS, UNITS, prepare, validate,
)


def aggregate_index(params) -> list[str]:
    return [f"{int(q)},{int(r)}" for q, r in zip(params[P_CQ], params[P_CR])]


def warm() -> None:
    """Compile (or load from cache) every kernel: batch, trace, perft."""
    from simkit.games.skorm.play import perft, run_chunk
    from simkit.games.skorm.render import play
    from simkit.games.skorm.rules import default_rules
    params = prepare(default_rules())
    run_chunk(params, 0, 0, np.zeros(2, np.int8), (1, 0), 0)
    run_chunk(params, 0, 0, np.zeros(1, np.int8), (3, 1, 2, 0, 0, 0), 0)   # mcts:2 vs greedy
    play(params, 0, 0, 0, (0, 1))
    perft(params, 1)
    from simkit.env.state import State      # the step API's functions (python agents, playtests, adapters)
    from simkit.games.skorm.env import SkormSteps
    s = State(SkormSteps(SPEC, params))
    s.apply(s.scripted_action([3, 0, 2, 0, 0, 0]))   # mcts:2
    s.apply(s.scripted_action([0, 1, 0, 0, 0, 0]))   # greedy
    s.apply(s.scripted_action([0, 0, 0, 0, 0, 0]))   # random
    s.steps.features(s.S)                            # the evaluation's features (simkit learn)


SPEC = GameSpec(
    name="skorm",
    title="Skorm",
    unit_types=UNITS,
    options=OPTIONS,
    prepare=prepare,
    run_chunk=Hook("simkit.games.skorm.play", "run_chunk"),
    record_fields=RECORD_FIELDS,
    columns=RECORD_COLUMNS,
    end_reasons=END_REASONS,
    cap_reasons=("stalemate", "move_limit"),
    board="hex",
    board_figsize=(7.0, 6.4),
    policies=POLICIES,
    interaction_fields=tuple(f"kills_{s}_{u}" for s in (0, 1) for u in UNITS),
    reference_unit="shieldman",
    game_ending_units=("warlord",),
    play=Hook("simkit.games.skorm.render", "play"),
    validate=validate,
    perft=Hook("simkit.games.skorm.play", "perft"),
    aggregate_label="deaths",
    aggregate_index=aggregate_index,
    length_unit="plies",
    warm=warm,
    trajectory=Hook("simkit.games.skorm.play", "trajectory"),
    steps=Hook("simkit.games.skorm.env", "SkormSteps"),
    knobs_slot=P_KNOBS,
    side_knobs=SIDE_KNOBS,
    action_classes=("shot", "capture", "gold", "move"),   # policies.ACTION_CLASSES (no numba here)
    # params[P_EVAL]: the (2, 4) weight table of the lead (rules.py; features.py gives its features)
    eval_slot=P_EVAL,
    eval_features=EVAL_FEATURES,
    # learn from search games: in greedy self-play the Gold Tile distance predicts the winner, yet weights
    # fitted there walk the Warlord into danger and play weaker at every step (docs/learn.md); mcts:50's games
    # fit weights that play better for greedy and the search alike
    learn_policy="mcts:50",
)
