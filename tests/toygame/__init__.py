"""Dice Race: a tiny test game that proves a game is one folder plus one registry line.

It lives under tests/ and is registered only by the tests (``TEST_GAMES`` in
tests/test_registry.py); the generic conformance suite runs it with no other edit.

Rules: each side has ``pawns`` pawns at square 0 of a track of ``track`` squares. On
its turn a side rolls one d6 and moves one of its pawns that far; a pawn reaching
the last square is home (off the track). A pawn ending on a square held by enemy
pawns captures them: they go back to square 0. The first side with every pawn home
wins; after ``max_turns`` turns the game is a draw (``turn_cap``).
Policies: random (a uniformly random pawn still on the track); greedy (capture if
possible, else bring a pawn home, else move the rearmost pawn; lowest index first).
"""
from pathlib import Path

from simkit.engine.cache import register_kernel_dir

register_kernel_dir(Path(__file__).parent)   # before the kernels below are defined

from toygame.game import (END_REASONS, OPTIONS, POLICIES, RECORD_COLUMNS, RECORD_FIELDS, UNITS,  # noqa: E402
                          play, prepare, run_chunk)
from simkit.games.base import GameSpec, Hook  # noqa: E402

SPEC = GameSpec(
    name="dice_race",
    title="Dice Race (test game)",
    unit_types=UNITS,
    options=OPTIONS,
    prepare=prepare,
    run_chunk=run_chunk,
    record_fields=RECORD_FIELDS,
    columns=RECORD_COLUMNS,
    end_reasons=END_REASONS,
    cap_reasons=("turn_cap",),
    policies=POLICIES,
    play=play,
    perft=None,
    perft_note="a die decides every move: the game tree has chance nodes",
    aggregate_label="captures per square",
    aggregate_index=lambda params: [str(i) for i in range(int(params[0][0]) + 1)],
    length_unit="turns",
    scenario_dir=str(Path(__file__).parent / "scenarios"),
    steps=Hook("toygame.env", "DiceRaceSteps"),
    knobs_slot=1,
)
