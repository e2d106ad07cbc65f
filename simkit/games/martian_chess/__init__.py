"""Martian Chess (RULES §2): 4x8 board, ownership by zone, pips as points."""
from simkit.games.base import GameSpec, Hook
from simkit.games.martian_chess.rules import OPTIONS, prepare, validate
from simkit.games.martian_chess.state import (
    END_REASONS, EVAL_FEATURES, POLICIES, RECORD_COLUMNS, RECORD_FIELDS, UNITS, name_of,
)


def _warm():
    from simkit.games.martian_chess import play as _play
    params = prepare({o.name: o.default for o in OPTIONS})
    _play.run_chunk(params, 0, 0, [0, 1], [1, 1], 10)
    _play.play_one(params, 0, 0, 0, [0, 0])
    _play.run_chunk(params, 0, 0, [0], [2, 1, 2, 0, 0, 0], 10)   # mcts:2 vs greedy
    _play.perft(params, 1)
    _play.trajectory(params, 0, 0, 0, [1, 1])
    from simkit.env.state import State      # the step API's functions (python agents, playtests, adapters)
    from simkit.games.martian_chess.env import MartianChessSteps
    s = State(MartianChessSteps(SPEC, params))
    s.apply(s.scripted_action([2, 0, 2, 0, 0, 0]))   # mcts:2
    s.apply(s.scripted_action([0, 1, 0, 0, 0, 0]))   # greedy
    s.apply(s.scripted_action([0, 0, 0, 0, 0, 0]))   # random


SPEC = GameSpec(
    name="martian_chess",
    title="Martian Chess",
    unit_types=UNITS,
    options=OPTIONS,
    prepare=prepare,
    validate=validate,
    run_chunk=Hook("simkit.games.martian_chess.play", "run_chunk"),
    record_fields=RECORD_FIELDS,
    columns=RECORD_COLUMNS,
    end_reasons=END_REASONS,
    cap_reasons=("move_limit", "stalemate"),
    board="canal",
    board_figsize=(4.6, 6.4),
    policies=POLICIES,
    interaction_fields=("captures_0", "captures_1"),
    reference_unit="pawn",
    play=Hook("simkit.games.martian_chess.render", "play"),
    perft=Hook("simkit.games.martian_chess.play", "perft"),
    aggregate_label="captures per cell",
    aggregate_index=lambda params: [name_of(c) for c in range(32)],
    warm=_warm,
    trajectory=Hook("simkit.games.martian_chess.play", "trajectory"),
    steps=Hook("simkit.games.martian_chess.env", "MartianChessSteps"),
    knobs_slot=4,
    search_knobs=("mcts_prior_moves",),
    action_classes=("capture", "promotion", "crossing", "quiet"),   # search.ACTION_CLASSES (no numba here)
    eval_slot=3,                  # rules.prepare: the weight table, a row per side (policies.W_*)
    eval_features=EVAL_FEATURES,
    # the default search scores moves by captured pips and leaves after 60 random plies: it hardly reads the
    # evaluation, learned or not; with greedy's one-ply values as its priors it does (docs/learn.md, learn-beats)
    learn_search="mcts:50/mcts_prior_moves=greedy",
)
