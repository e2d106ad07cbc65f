"""Warfare!'s step API at the edges the generic conformance suite does not reach: the record's snapshot
taken at the cap's turn or never, the cap decided on material, a random deployment; and a pending
opposed roll offered with the exact odds of RULES §4's opposed d6."""
from fractions import Fraction

import numpy as np
import pytest

from simkit import env
from simkit.engine.chunk import play_chunk
from simkit.engine.dice import warfare_distribution
from simkit.games import get_game
from simkit.policies import policy_vector


@pytest.mark.parametrize("overrides, snap", [
    (["max_turns=20"], 20),                         # the snapshot's turn is the cap's: no decision is made in it
    (["max_turns=20"], 0),                          # before the first decision
    (["max_turns=20"], -1),                         # no snapshot: the final material
    (["max_turns=12", "cap_result=material"], 5),   # the cap decided on unit value
    (["max_turns=16", "deployment=random"], 3),     # the deployment draws from the game's stream
])
def test_stepped_games_are_the_kernels_at_the_edges(overrides, snap):
    spec = get_game("warfare")
    sc = env.game_scenario("warfare", None, overrides)
    pv = policy_vector(spec, ("random", "random"))
    _, records, agg = play_chunk("warfare", sc.params(), 5, 0, 4, "alternate", tuple(int(x) for x in pv), snap)
    total = np.zeros_like(agg)
    for k in range(4):
        s = env.new_game_from(sc, seed=5, game=k, first=int(records[k, 0]), snapshot_ply=snap)
        while not s.is_over():
            s.roll() if s.is_chance() else s.apply(s.scripted_action(pv))
        np.testing.assert_array_equal(s.record(), records[k])
        total += s.agg
    np.testing.assert_array_equal(total, agg)
    assert (records[:, 3] == 1).any(), "the cap ends some of these games"


def test_a_pending_roll_has_the_opposed_d6_odds():
    from simkit.games.warfare.search import M_PAM, M_PDM, S_META
    pv = policy_vector(get_game("warfare"), ("random", "greedy"))
    seen = set()
    for g in range(6):
        s = env.new_game("warfare", seed=2, game_index=g)
        while not s.is_over():
            if s.is_chance():
                am, dm = int(s.S[S_META][M_PAM]), int(s.S[S_META][M_PDM])     # the roll's modifiers
                p = Fraction(warfare_distribution(am, dm)["attacker_wins"])
                outs = dict(s.chance_outcomes())
                assert Fraction(outs.get(1, 0.0)).limit_denominator(1000) == p
                assert s.action_label(1) == "attacker wins" and s.action_label(0) == "defender wins"
                seen.add(am - dm)
                s.roll()
            else:
                s.apply(s.scripted_action(pv))
    assert len(seen) >= 3, "rolls with several modifier differences"
