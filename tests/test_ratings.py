"""Ratings (analysis/ratings.py) recover known strengths: synthetic tournaments whose players have
known Elo ratings, played with draws, give 95% intervals that hold the true ratings at about
their nominal rate, and the skill span and the gain per budget doubling likewise."""
import math

import numpy as np
import pytest

from simkit.analysis.ratings import (
    ELO, LADDER_DESIGN, ROUND_ROBIN, SYNTHETIC, Pair, coverage, elo_of_score, fit, merge, pairs_of_summary,
    synthetic_tournament,
)

TRUE = SYNTHETIC


@pytest.mark.parametrize("design", [LADDER_DESIGN, ROUND_ROBIN], ids=["ladder", "round-robin"])
def test_intervals_hold_the_true_ratings_at_their_nominal_rate(design):
    rng = np.random.default_rng(5)
    for _ in range(20):
        r = fit(synthetic_tournament(rng, TRUE, design, 400))
        assert r.anchor == "random" and r.rating("random")[0] == 0
        for p in list(TRUE)[1:]:
            est, lo, hi = r.rating(p)
            assert lo < est < hi                       # never zero-width
        assert r.per_doubling()["budgets"] == [100, 200, 400]
    cover = coverage(design, reps=300, seed=2026)
    # 95% intervals (draws counted as half points err wide): each at least 0.91 over 300 tournaments,
    # and not so wide that they always cover
    assert min(cover.values()) >= 0.91, cover
    assert min(cover.values()) < 0.995, cover


def test_a_seeded_tournament_recovers_every_rating_within_its_interval():
    r = fit(synthetic_tournament(np.random.default_rng(7), TRUE, ROUND_ROBIN, 2000))
    for p, v in TRUE.items():
        est, lo, hi = r.rating(p) if p != "random" else (0, 0, 0)
        assert lo <= v <= hi, (p, est, lo, hi)
    # the intervals are useful, not just wide: with 2,000 games a pair, each within +-60 Elo
    assert max(hi - lo for _, lo, hi in (r.rating(p) for p in list(TRUE)[1:])) < 120


def test_a_separated_pair_is_flagged_and_finite():
    r = fit([Pair("greedy", "random", 200, 200.0), Pair("mcts:100", "greedy", 200, 150.0)])
    assert r.separated == ["greedy-random"]
    est, lo, hi = r.rating("greedy")
    assert math.isfinite(est) and lo > elo_of_score(0.9)       # far above random, bounded
    assert "only bound" in r.summary()["note"]


def test_even_results_give_equal_ratings_and_symmetric_intervals():
    r = fit([Pair("a", "b", 100, 50.0, 20)], anchor="a")
    est, lo, hi = r.rating("b")
    assert abs(est) < 1e-9 and abs(lo + hi) < 1e-9
    # one pair: the interval is the logistic's Wald interval on (n+1) games at E = 1/2
    assert hi == pytest.approx(1.959964 * ELO * 2 / math.sqrt(101), rel=1e-6)


def test_players_who_never_met_are_refused():
    with pytest.raises(ValueError, match="never met"):
        fit([Pair("a", "b", 10, 5.0), Pair("c", "d", 10, 5.0)])


def test_summaries_and_merge():
    ladder = {"kind": "ladder", "steps": [{"rung": "greedy", "below": "random", "games": 50, "score": 0.9,
                                           "draw_rate": 0.1}]}
    (q,) = pairs_of_summary(ladder)
    assert (q.games, q.points, q.draws) == (100, 90.0, 10)
    # the same pair from two directories, one of them seen from the other side
    m = merge([q, Pair("random", "greedy", 100, 20.0, 10)])
    assert len(m) == 1 and m[0].games == 200 and m[0].points == pytest.approx(90.0 + 80.0)
