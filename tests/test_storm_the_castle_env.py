"""Storm the Castle's step API beyond the conformance suite: its chance nodes carry the rules'
exact odds (a shot's critical failure a class of its own, as the record counts it), a player's
observation holds its own hand and not the opponent's, and each side's search knobs."""
from fractions import Fraction

import numpy as np
import pytest

from simkit import env
from simkit.engine.dice import STORM_O_CRIT_FAIL, STORM_O_FAIL, STORM_O_SUCCESS, storm_distribution
from simkit.games.storm_the_castle.moves import modifier_nb
from simkit.games.storm_the_castle.rules import O_NC, T_RANGE
from simkit.games.storm_the_castle.search import MC_ROUNDS, PD_A, PD_B, PD_KIND
from simkit.games.storm_the_castle.state import (ACT_ATTACK, C_TYPE, C_ZONE, G_SIDE, L_DECK, L_HAND, Z_BOARD, Z_DECK,
                                                 Z_HAND)
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

GAME = "storm_the_castle"


def _shot_at_a_regular(max_games=40):
    """A random game stopped at a Catapult's roll against a Regular unit."""
    pv = policy_vector(load_scenario(GAME).spec, ("random", "random"))
    for k in range(max_games):
        s = env.new_game(GAME, seed=11, game_index=k)
        while not s.is_over():
            if s.is_chance():
                p = s.steps.p
                a = int(s.S[5][PD_A])
                if s.S[5][PD_KIND] == ACT_ATTACK and p.ctab[s.S[0][a, C_TYPE], T_RANGE] > 0:
                    return s
                s.roll()
            else:
                s.apply(s.scripted_action(pv))
    raise AssertionError("no shot at a Regular unit in the random games")


def test_a_shots_odds_are_the_rules_and_its_critical_failure_is_counted():
    s = _shot_at_a_regular()
    p, cards, sp = s.steps.p, s.S[0], s.S[1]
    a, b = int(s.S[5][PD_A]), int(s.S[5][PD_B])
    exact = storm_distribution(int(modifier_nb(cards, sp, p.ctab, p.spi, a, b, 0)))
    crit = exact["critical_failure"]
    want = {STORM_O_FAIL: exact["failure"] - crit, STORM_O_SUCCESS: exact["success"], STORM_O_CRIT_FAIL: crit}
    got = dict(s.chance_outcomes())
    assert set(got) == {o for o, q in want.items() if q > 0} and STORM_O_CRIT_FAIL in got
    for o, pr in got.items():
        assert Fraction(pr).limit_denominator(36) == want[o]
    side = int(s.S[4][G_SIDE])          # the shooter's
    column = s.spec.record_fields.index(f"crit_fails_{side}_{p.names[cards[a, C_TYPE]]}")
    before = int(s.record()[column])
    s.apply(STORM_O_CRIT_FAIL)
    assert int(s.record()[column]) == before + 1
    assert s.S[0][a, C_ZONE] == Z_BOARD     # a shot's critical failure does nothing else: the shooter stays


def test_a_player_sees_its_own_hand_and_only_the_size_of_the_opponents():
    s = env.new_game(GAME, seed=3)
    cards, zones, zn = s.S[0], s.S[2], s.S[3]
    nc = int(s.steps.p.iopt[O_NC])
    o = 1 - s.current_player
    hand = [int(c) for c in zones[o, L_HAND, :zn[o, L_HAND]]]
    deck = [int(c) for c in zones[o, L_DECK, :zn[o, L_DECK]]]
    i, j = next((i, j) for i, c in enumerate(hand) for j, d in enumerate(deck)
                if cards[c, C_TYPE] != cards[d, C_TYPE])
    mine, theirs = s.observation(1 - o)[0], s.observation(o)[0]
    c, d = hand[i], deck[j]                 # swap a card of the opponent's hand with a card of another type
    zones[o, L_HAND, i], zones[o, L_DECK, j] = d, c
    cards[c, C_ZONE], cards[d, C_ZONE] = Z_DECK, Z_HAND
    assert all(o * nc <= x < (o + 1) * nc for x in (c, d))
    np.testing.assert_array_equal(s.observation(1 - o)[0], mine)
    assert not np.array_equal(s.observation(o)[0], theirs), "a player's own hand is in its observation"


def test_each_side_has_its_own_search_knobs():
    sc = load_scenario(GAME)
    s = env.new_game_from(sc, policies=("mcts:4/mcts_keep_rounds=1", "mcts:4"))
    knobs = s.steps.tabs[11]
    assert knobs.shape[0] == 2 and knobs[0, MC_ROUNDS] == 1.0 and knobs[1, MC_ROUNDS] == sc.rules["mcts_keep_rounds"]
    pv = policy_vector(sc.spec, ("mcts:4/mcts_keep_rounds=1", "mcts:4"))
    assert s.scripted_action(pv) in s.legal_actions()
    from simkit.errors import UsageError
    with pytest.raises(UsageError, match="not a search knob"):
        policy_vector(sc.spec, ("mcts:4/attack_threshold=0.5", "greedy"))
