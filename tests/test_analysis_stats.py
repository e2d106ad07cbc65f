"""Statistical honesty: the 95% intervals cover the truth about 95% of the time."""
import functools
import math

import numpy as np
import pytest

from simkit.analysis.compare import PairedTally
from simkit.analysis.metrics import summarize
from simkit.analysis.stats import newcombe, paired_mean, wilson
from simkit.analysis.tally import Tally
from simkit.engine.dice import STORM_CRIT_FAIL, STORM_CRIT_SUCCESS, STORM_SUCCESS, storm_attack_nb, storm_distribution
from simkit.engine.rng import rng_seed_nb
from simkit.games import get_game

REPS = 400


def test_wilson_covers_a_known_proportion():
    rng = np.random.default_rng(1)
    p, n = 0.3, 120
    ks = rng.binomial(n, p, size=REPS)
    cover = np.mean([lo <= p <= hi for lo, hi in (wilson(int(k), n) for k in ks)])
    assert 0.92 <= cover <= 0.98, cover


def test_newcombe_covers_a_known_difference():
    rng = np.random.default_rng(2)
    p1, p2, n = 0.45, 0.35, 150
    k1, k2 = rng.binomial(n, p1, size=REPS), rng.binomial(n, p2, size=REPS)
    cover = np.mean([lo <= p1 - p2 <= hi for _, lo, hi in (newcombe(a, n, b, n) for a, b in zip(k1, k2))])
    assert 0.92 <= cover <= 0.98, cover


@functools.lru_cache(maxsize=None)
def _coin_records(seed, games, modifier, nfields):
    """Fake games decided by one Storm attack per game from the game's own RNG stream: success -> the
    first player wins, natural 2 -> draw, otherwise the second player wins. Same (seed, game) -> same dice."""
    rec = np.zeros((games, nfields), dtype=np.int32)
    state = np.zeros(1, np.uint64)
    for g in range(games):
        rng_seed_nb(state, np.int64(seed), np.int64(g))
        r = storm_attack_nb(state, np.int64(modifier))
        first = g % 2
        if r in (STORM_SUCCESS, STORM_CRIT_SUCCESS):
            winner = first
        else:
            winner = -1 if r == STORM_CRIT_FAIL else 1 - first
        rec[g, 0], rec[g, 1], rec[g, 2] = first, winner, 1
    return rec


def _true_fpa(modifier):
    d = storm_distribution(modifier)
    return float(d["success"] + d["critical_failure"] / 2) - 0.5


def test_fpa_interval_covers_a_dice_coin_flip():
    spec = get_game("martian_chess")
    truth = _true_fpa(4)
    hits = []
    for rep in range(REPS):
        s = summarize(Tally(spec).add(_coin_records(rep, 300, 4, len(spec.record_fields))))
        lo, hi = s["first_player_advantage_ci"]
        hits.append(lo <= truth <= hi)
    assert 0.92 <= np.mean(hits) <= 0.98, np.mean(hits)


def test_paired_difference_covers_the_true_difference_on_common_dice():
    spec = get_game("martian_chess")
    truth = _true_fpa(5) - _true_fpa(4)
    hits, widths_paired, widths_indep = [], [], []
    for rep in range(REPS):
        pt = PairedTally()
        nf = len(spec.record_fields)
        ra, rb = _coin_records(rep, 300, 4, nf), _coin_records(rep, 300, 5, nf)
        pt.add("a", 0, ra)
        pt.add("b", 0, rb)
        d = pt.difference("first_player_advantage")
        hits.append(d["ci"][0] <= truth <= d["ci"][1])
        widths_paired.append(d["ci"][1] - d["ci"][0])
        sa, sb = summarize(Tally(spec).add(ra)), summarize(Tally(spec).add(rb))
        ca, cb = sa["first_player_advantage_ci"], sb["first_player_advantage_ci"]
        widths_indep.append(2 * math.hypot((ca[1] - ca[0]) / 2, (cb[1] - cb[0]) / 2))
    assert 0.92 <= np.mean(hits) <= 0.98, np.mean(hits)
    # common random numbers make the paired interval far narrower than an independent one
    assert np.mean(widths_paired) < 0.7 * np.mean(widths_indep)


def test_paired_mean_of_zeros_is_exactly_zero():
    d = paired_mean(0.0, 0.0, 1000)
    assert d["diff"] == 0.0 and d["ci"] == [0.0, 0.0] and d["p_value"] == 1.0


def test_paired_mean_matches_scipy_ttest():
    from scipy import stats
    x = np.random.default_rng(3).normal(0.1, 1, 200)
    d = paired_mean(x.sum(), (x * x).sum(), len(x))
    t = stats.ttest_1samp(x, 0.0)
    assert d["p_value"] == pytest.approx(t.pvalue, rel=1e-9)
    lo, hi = t.confidence_interval(0.95)
    assert d["ci"] == pytest.approx([lo, hi], rel=1e-9)


def test_end_reason_shares_and_decisiveness():
    from simkit.engine.runner import RunConfig, simulate
    from simkit.scenario import load_scenario
    sc = load_scenario("martian_chess", ["max_plies=30"])
    s = simulate(sc, RunConfig(games=400, policies=("random", "random")), progress=False).summary()
    shares = s["end_reason_shares"]
    assert sum(shares.values()) == pytest.approx(1.0)
    assert shares["move_limit"] > 0
    assert s["decisiveness"] == pytest.approx(1 - shares["move_limit"] - shares["stalemate"])
    lo, hi = s["end_reason_shares_ci"]["move_limit"]
    assert lo <= shares["move_limit"] <= hi
    assert s["mean_plies_ci"][0] <= s["mean_plies"] <= s["mean_plies_ci"][1]
