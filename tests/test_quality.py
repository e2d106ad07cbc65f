"""Game-quality metrics: known values on hand-made trajectories (fractional, so no integer division can
hide), ranges, and invariance under swapping the sides."""
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from simkit.analysis.quality import BOUNDED, NEEDS_WINNER, PER_GAME, chances, game_metrics, lead_changes


def test_known_values_on_a_comeback():
    # side 0 trails, draws level, then leads and wins: 4 plies, 5 points
    p = np.array([0.5, 0.3, 0.4, 0.6, 0.9])
    legal = np.array([3, 1, 2, 4])
    inter = np.array([0, 1, 0, 1])
    m = game_metrics(p, legal, inter, winner=0)
    assert m["lead_changes"] == 1                     # side 1 led, then side 0 (0.5 keeps no leader)
    assert m["lead_change_rate"] == pytest.approx(1 / 4)
    assert m["drama"] == pytest.approx(((1 - 0.6) + (1 - 0.8)) / 2)   # behind at 0.3 and 0.4
    assert m["decisiveness_threshold"] == pytest.approx(0.7)           # the loser's best chance
    assert m["decisiveness_moves"] == pytest.approx(1 / 5)             # only 0.9 > 0.7
    assert m["doubt_share"] == pytest.approx(3 / 5)                    # leads for good from point 3
    assert m["uncertainty"] == pytest.approx(np.mean([1.0, 0.6, 0.8, 0.8, 0.2]))
    assert m["stability"] == pytest.approx(np.var(p))
    assert m["decision_moves"] == pytest.approx(3 / 4)
    assert m["branching"] == pytest.approx(2.5)
    assert m["branching_trend"] == pytest.approx(4 - 3)              # last third (1 ply) - first third
    assert m["interaction"] == pytest.approx(0.5)


def test_a_wire_to_wire_win_has_no_drama_and_no_doubt():
    m = game_metrics(np.array([0.6, 0.7, 0.8]), np.array([2, 2]), np.array([0, 0]), winner=1 - 1)
    assert m["drama"] == 0 and m["doubt_share"] == 0 and m["lead_changes"] == 0


def test_draws_leave_winner_metrics_undefined():
    m = game_metrics(np.array([0.5, 0.4, 0.5]), np.array([2, 2]), np.array([0, 0]), winner=-1)
    assert all(math.isnan(m[k]) for k in NEEDS_WINNER)
    assert not math.isnan(m["uncertainty"])


def test_lead_changes_ignore_exact_ties():
    assert lead_changes(np.array([0.6, 0.5, 0.6, 0.5, 0.4, 0.5, 0.7])) == 2


def test_chances_squash_leads_by_the_scale():
    p = chances(np.array([0.0, 1.0, -1.0, 1e9]), 1.0)
    assert p[0] == 0.5 and p[1] == pytest.approx(0.7310585786) and p[2] == pytest.approx(1 - p[1])
    assert p[3] == pytest.approx(1.0)


trajectories = st.integers(1, 40).flatmap(lambda L: st.tuples(
    st.lists(st.floats(0.0, 1.0), min_size=L + 1, max_size=L + 1),
    st.lists(st.integers(0, 30), min_size=L, max_size=L),
    st.lists(st.integers(0, 3), min_size=L, max_size=L),
    st.sampled_from([0, 1, -1])))


@settings(max_examples=150, deadline=None)
@given(trajectories)
def test_ranges_and_side_swap_invariance(t):
    p, legal, inter, winner = np.array(t[0]), np.array(t[1]), np.array(t[2]), t[3]
    m = game_metrics(p, legal, inter, winner)
    for k in BOUNDED:
        if not math.isnan(m[k]):
            assert -1e-12 <= m[k] <= 1 + 1e-12, (k, m[k])
    assert m["lead_changes"] <= len(legal)
    swapped = game_metrics(1.0 - p, legal, inter, {0: 1, 1: 0, -1: -1}[winner])
    for k in PER_GAME:
        a, b = m[k], swapped[k]
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12), k
