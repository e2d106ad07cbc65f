"""Storm the Castle (RULES.md §3): cards, a castle graph, 2d6 threshold attacks."""
import dataclasses
import functools

from simkit.games.base import GameSpec, Hook, column_names
from simkit.games.storm_the_castle import rules as _r
from simkit.games.storm_the_castle.state import POLICIES
from simkit.games.storm_the_castle.state import END_REASONS


def _play(params, seed, game, first, policies, variant=None):
    from simkit.games.storm_the_castle.render import play_text
    return play_text(params, seed, game, first, policies, variant)


def _aggregate_index(params):
    return list(_r.Params(*params).spnames)


def _warm():
    import numpy as np
    from simkit.games.storm_the_castle.play import run_chunk
    p = _r.prepare(_default_rules())
    run_chunk(p, 0, 0, np.zeros(2, np.int8), np.array([1, 0], np.int64), 5)
    _play(p, 0, 0, 0, (1, 1))
    from simkit.env.state import State      # the step API's functions (python agents, playtests, adapters)
    from simkit.games.storm_the_castle.env import StormTheCastleSteps
    s = State(StormTheCastleSteps(SPEC, p))
    pvs = ([2, 2, 2, 2, 0, 0], [1, 1, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0])   # mcts:2, greedy, random
    for k in range(60):
        if s.is_over():
            break
        if s.is_chance():
            s.roll()
        else:
            s.legal_actions()
            s.apply(s.scripted_action(pvs[k % 3]))
    s.clone(player=0).observation(0)


def _default_rules():
    from simkit.scenario.schema import validate_rules
    return validate_rules(_r.OPTIONS, {})


# the default deck's layout, without prepare() (its dice tables import numba)
_DEFAULT_RULES = _default_rules()
_DEFAULT_NAMES = tuple(n for n, _ in _r.deck_cards(_DEFAULT_RULES))


def _spec_for_rules(rules):
    """The spec of one scenario: the record columns and unit types of its own deck, so a card
    added under a new name is recorded, summarised and reported like any other."""
    return _spec_for_deck(_r.deck_cards(rules)) if "deck" in rules else SPEC


@functools.lru_cache(maxsize=256)
def _spec_for_deck(cards):
    names = tuple(n for n, _ in cards)
    columns = _r.record_columns(names, [k for _, k in cards])[0]
    fields = column_names(columns)
    if names == SPEC.unit_types and fields == SPEC.record_fields:
        return SPEC
    return dataclasses.replace(SPEC, unit_types=names, record_fields=fields, columns=columns,
                               interaction_fields=tuple(f"kills_{s}_{u}" for s in (0, 1) for u in names),
                               eval_features=_r.eval_feature_names(names))


SPEC = GameSpec(
    name="storm_the_castle",
    title="Storm the Castle",
    unit_types=_DEFAULT_NAMES,
    options=_r.OPTIONS,
    prepare=_r.prepare,
    run_chunk=Hook("simkit.games.storm_the_castle.play", "run_chunk"),
    record_fields=_r.record_fields_for(_DEFAULT_RULES),
    columns=_r.record_columns_for(_DEFAULT_RULES),
    end_reasons=END_REASONS,
    cap_reasons=("move_limit", "stalemate"),
    board="graph",
    board_figsize=(8.5, 6.0),
    dice="2d6_target",
    policies=POLICIES,
    interaction_fields=tuple(f"kills_{s}_{u}" for s in (0, 1) for u in _DEFAULT_NAMES),
    reference_unit="shield_bearer",
    play=_play,
    validate=_r.validate,
    perft=None,
    perft_note=("perft does not apply: Storm the Castle has hidden, shuffled cards and 2d6 rolls, "
                "so there is no deterministic move tree to count"),
    aggregate_label="kills",
    aggregate_index=_aggregate_index,
    length_unit="turns",
    warm=_warm,
    for_rules=_spec_for_rules,
    trajectory=Hook("simkit.games.storm_the_castle.play", "trajectory"),
    steps=Hook("simkit.games.storm_the_castle.env", "StormTheCastleSteps"),
    knobs_slot=_r.Params._fields.index("mparams"),    # each side's row of the knob table; decide_nb hands the mover's
    search_knobs=_r.SEARCH_KNOBS,                     # to the search, which reads every knob for the searcher only
    action_classes=("dispatch", "move", "attack", "prayer", "forge", "buff"),   # policies.ACTION_CLASSES (no numba)
    # the evaluation's weight table (rules.Params.wt): each card's value on the board and in hand, closeness to
    # the enemy keep; greedy reads the mover's row, the search the searcher's, the trajectory and step API row 0
    eval_slot=_r.Params._fields.index("wt"),
    eval_features=_r.eval_feature_names(_DEFAULT_NAMES),
    extra={
        "unit_types_for": lambda params: tuple(_r.Params(*params).names),
    },
)
