"""Statistical honesty: the 95% intervals cover the truth about 95% of the time."""
import functools
import math

import numpy as np
import pytest

from simkit.analysis.compare import PairedTally, precision_reached
from simkit.analysis.metrics import MIN_STOP_GAMES, fpa_half_width, precision_stop, summarize
from simkit.analysis.stats import (Z95, fieller, holm, mcnemar_exact_p, mean_interval, newcombe, paired_mean,
                                   score_interval, score_p, tango, tost, wilson)
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


def test_paired_mean_of_zeros_is_not_certainty():
    # no discordant pairs in n: the rule-of-three bound |difference| <= 3/n, not [0, 0]
    d = paired_mean(0.0, 0.0, 1000)
    assert d["diff"] == 0.0 and d["ci"] == pytest.approx([-0.003, 0.003]) and d["p_value"] == 1.0
    m, lo, hi = mean_interval(5 * 400.0, 25 * 400.0, 400)
    assert m == 5.0 and lo < 5.0 < hi


def test_score_interval_is_wilson_on_0_1_and_tango_on_paired_differences():
    from statsmodels.stats.proportion import proportion_confint
    for k, n in ((0, 10), (3, 10), (97, 100), (500, 1000)):
        _, lo, hi = score_interval((0, 1), (n - k, k))
        assert (lo, hi) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-9)
        assert wilson(k, n) == pytest.approx(proportion_confint(k, n, method="wilson"), abs=1e-12)
    for b, c, n in ((0, 0, 500), (3, 0, 1000), (5, 9, 2000), (40, 20, 300), (0, 7, 50)):
        # Tango's closed form (its own quadratic for the restricted MLE) against the general solver
        est, lo, hi = tango(b, c, n)
        e2, lo2, hi2 = score_interval((-1, 0, 1), (c, n - b - c, b))
        assert (e2, lo2, hi2) == pytest.approx((est, lo, hi), abs=1e-9)
        assert lo < est < hi or (b == c == 0 and lo < 0 < hi)
    # no discordant pairs in 500: about +-z^2/n wide, never [0, 0]
    _, lo, hi = score_interval((-1, 0, 1), (0, 500, 0))
    assert hi == pytest.approx(Z95 ** 2 / (500 + Z95 ** 2)) and lo == -hi
    # McNemar: the score test at 0 is the (uncorrected) McNemar chi-square
    from scipy.stats import chi2
    assert score_p((-1, 0, 1), (5, 980, 15)) == pytest.approx(chi2.sf((15 - 5) ** 2 / 20, 1), rel=1e-6)
    assert mcnemar_exact_p(15, 5) == pytest.approx(2 * sum(math.comb(20, i) for i in range(6)) / 2 ** 20)


def test_fpa_score_interval_covers_at_99_9_percent_draws():
    spec = get_game("martian_chess")
    rng = np.random.default_rng(7)
    truth, hits, widths = 0.0005, [], []        # first player wins 0.1%, the rest drawn
    for _ in range(REPS):
        t = Tally(spec)
        t.outcome[0] = rng.multinomial(2000, [0.001, 0.0, 0.999])
        s = summarize(t)
        lo, hi = s["first_player_advantage_ci"]
        hits.append(lo <= truth <= hi)
        widths.append(hi - lo)
    assert np.mean(hits) >= 0.92, np.mean(hits)
    assert min(widths) > 0


def _precision_coverage(rule, p_disc, precision, chunk, reps, seed):
    """Replications of a --precision run on paired score differences: a share p_disc of pairs
    differs, always in B's favour by one point (the case where a run of concordant chunks
    looks like certainty). Returns (coverage of the truth at the stop, median games)."""
    rng = np.random.default_rng(seed)
    probs = [0, 0, 1 - p_disc, 0, p_disc]
    hits, ns = 0, []
    for _ in range(reps):
        counts, chunks = np.zeros(5, dtype=np.int64), 0
        while True:
            counts += rng.multinomial(chunk, probs)
            chunks += 1
            n = int(counts.sum())
            stop, (lo, hi) = rule(counts, n, chunks, precision)
            if stop or n >= 200_000:
                break
        hits += lo <= p_disc <= hi
        ns.append(n)
    return hits / reps, float(np.median(ns))


def _rule_now(counts, n, chunks, precision):
    pt = PairedTally()
    for m in pt.counts:
        if len(pt.counts[m]) == 5:
            pt.counts[m] = counts.copy()
    pt.n, pt.chunks = n, chunks
    return precision_reached(pt, precision), pt.difference("first_player_advantage")["ci"]


def _rule_before(counts, n, chunks, precision):
    # the old rule: t interval, [m, m] when every difference is equal, no minimum sample
    v = np.array([-1, -0.5, 0, 0.5, 1])
    d = paired_mean(float((counts * v).sum()), float((counts * v * v).sum()), n)
    if d.get("no_discordant"):
        d["ci"] = [d["diff"], d["diff"]]
    return (d["ci"][1] - d["ci"][0]) / 2 <= precision, d["ci"]


@pytest.mark.parametrize("p_disc,precision", [(0.001, 0.005), (0.001, 0.002), (0.004, 0.005)])
def test_precision_stop_covers_with_rare_discordant_pairs(p_disc, precision):
    cover, median_n = _precision_coverage(_rule_now, p_disc, precision, 500, 300, 11)
    assert cover >= 0.9, (cover, median_n)
    assert median_n >= MIN_STOP_GAMES


def test_the_old_precision_rule_fails_the_same_coverage_test():
    # the simulation has the power to catch a rule that stops on "no evidence"
    cover, median_n = _precision_coverage(_rule_before, 0.001, 0.005, 500, 300, 11)
    assert cover < 0.8 and median_n == 500, (cover, median_n)


def test_run_precision_stop_waits_for_the_minimum_sample():
    spec = get_game("martian_chess")
    stop = precision_stop(0.05)
    t = Tally(spec)
    t.outcome[0] = [0, 0, 600]               # 600 draws in one chunk: no evidence of anything
    assert not stop(t)
    t.outcome[0] = [0, 0, 1200]              # two chunks, 1,200 games: the score interval is narrow now
    assert stop(t)
    assert fpa_half_width(t) > 0


def test_holm_tost_fieller():
    from statsmodels.stats.multitest import multipletests
    ps = {"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.5}
    adj = holm(ps)
    ref = multipletests(list(ps.values()), method="holm")[1]
    assert [adj[k] for k in ps] == pytest.approx(list(ref))
    assert tost((-0.01, 0.015), 0.02) == "within"
    assert tost((-0.01, 0.03), 0.02) == "not_shown"
    assert tost((0.025, 0.05), 0.02) == "beyond" and tost((-0.05, -0.021), 0.02) == "beyond"
    # Fieller: precise denominator -> close to the delta method; a denominator within noise of 0 -> None
    lo, hi = fieller(2.0, 1.0, 0.01, 0.0001, 0.0)
    assert lo < 2.0 < hi and hi - lo == pytest.approx(2 * Z95 * math.sqrt(0.01 + 4 * 0.0001), rel=0.02)
    assert fieller(2.0, 0.1, 0.01, 0.01, 0.0) is None
    # coverage of Fieller's interval for a ratio of two normal estimates (exact when bounded:
    # the denominator is 8 standard errors from 0, so it almost always is)
    rng = np.random.default_rng(5)
    a = rng.normal(-1.5, 0.2, 2000)
    b = rng.normal(-0.5, 0.0625, 2000)
    cov = [(lambda ci: ci is not None and ci[0] <= 3.0 <= ci[1])(fieller(x, y, 0.04, 0.0625 ** 2, 0.0))
           for x, y in zip(a, b)]
    assert 0.93 <= np.mean(cov) <= 0.97


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
