"""Warfare! (RULES §4): square grid, facing, flanking, opposed d6."""
from simkit.games.base import GameSpec, Hook
from simkit.games.warfare.rules import OPTIONS, prepare, validate
from simkit.games.warfare.state import (END_REASONS, EVAL_FEATURES, IP_NSQ, IP_W, P_EVAL, POLICIES, RECORD_COLUMNS,
                                        RECORD_FIELDS, UNITS)
from simkit.policies import SIDE_KNOBS_BUT_SCALE


def _warm():
    from simkit.games.warfare import play as _play
    params = prepare({o.name: o.default for o in OPTIONS})
    _play.run_chunk(params, 0, 0, [0, 1], [0, 1], 10)
    _play.run_chunk(params, 0, 0, [0], [2, 1, 4, 0, 0, 0], 10)   # mcts:4 (same kernel, other branches)
    _play.play_one(params, 0, 0, 0, [1, 0])
    from simkit.env.state import State      # the step API's functions (python agents, playtests, adapters)
    from simkit.games.warfare.env import WarfareSteps
    s = State(WarfareSteps(SPEC, params))
    for pv in ([2, 1, 2, 0, 0, 0], [1, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0]):     # mcts:2, greedy, random
        s.apply(s.scripted_action(pv))
    s.legal_actions(), s.observation(0)


def _index(params):
    w = int(params[0][IP_W])
    return [f"{sq % w},{sq // w}" for sq in range(int(params[0][IP_NSQ]))]


SPEC = GameSpec(
    name="warfare",
    title="Warfare!",
    unit_types=UNITS,
    options=OPTIONS,
    prepare=prepare,
    validate=validate,
    run_chunk=Hook("simkit.games.warfare.play", "run_chunk"),
    record_fields=RECORD_FIELDS,
    columns=RECORD_COLUMNS,
    end_reasons=END_REASONS,
    cap_reasons=("move_limit", "stalemate"),
    board="square",
    dice="opposed_d6",
    policies=POLICIES,
    interaction_fields=tuple(f"kills_{s}_{u}" for s in (0, 1) for u in UNITS),
    reference_unit="infantry",
    play=Hook("simkit.games.warfare.render", "play"),
    perft=None,
    perft_note=("dice decide every contested attack, so the game tree has chance nodes; "
                "perft of the deterministic move tree is not provided"),
    aggregate_label="deaths per square",
    aggregate_index=_index,
    length_unit="turns",
    warm=_warm,
    trajectory=Hook("simkit.games.warfare.play", "trajectory"),
    steps=Hook("simkit.games.warfare.env", "WarfareSteps"),
    knobs_slot=15,      # params[15]: the search knob table (rules.prepare); the hooks read scale, threat and cap turns
    # scale, threat and cap turns come from fp for both sides, so a side carries only the engine's own knobs
    side_knobs=SIDE_KNOBS_BUT_SCALE,
    action_classes=("shoot", "melee", "advance", "swap", "move"),   # policies.ACTION_CLASSES (no numba here)
    # params[16]: the evaluation's weight table (rules.prepare, state.P_EVAL): each unit type's value and the
    # search's threat weight, a row per side (features.py; the cap's material adjudication keeps fp's values)
    eval_slot=P_EVAL,
    eval_features=EVAL_FEATURES,
)
