"""Exact dice distributions against the jitted resolvers, by enumeration and by sampling."""
from fractions import Fraction

import numpy as np
import pytest
from numba import njit

from simkit.engine import dice
from simkit.engine.rng import rng_seed_nb


def test_storm_plus_two_succeeds_ten_in_36():
    d = dice.storm_distribution(2)
    assert d["success"] == Fraction(10, 36)
    assert d["critical_failure"] == Fraction(1, 36)
    assert d["critical_success"] == Fraction(1, 36)


@pytest.mark.parametrize("roll,mod,expected", [
    (2, 20, dice.STORM_CRIT_FAIL), (12, -20, dice.STORM_CRIT_SUCCESS),
    (5, 2, dice.STORM_SUCCESS), (6, 2, dice.STORM_FAIL), (3, 0, dice.STORM_SUCCESS), (4, 0, dice.STORM_FAIL),
])
def test_storm_resolve_injected_rolls(roll, mod, expected):
    assert dice.storm_resolve_nb(roll, mod) == expected


def test_storm_extremes_keep_criticals():
    assert dice.storm_distribution(-10)["success"] == Fraction(1, 36)   # only a natural 12
    assert dice.storm_distribution(10)["success"] == Fraction(35, 36)   # all but a natural 2


def test_warfare_even_and_monotone():
    assert dice.warfare_distribution(0, 0)["attacker_wins"] == Fraction(1, 2)
    assert dice.warfare_distribution(1, 0)["attacker_wins"] == Fraction(21, 31)  # 21 wins, 10 losses, 5 ties of 36
    assert dice.warfare_distribution(6, 0)["attacker_wins"] == 1
    table = dice.warfare_win_table()
    vals = [table[k] for k in sorted(table)]
    assert all(a <= b for a, b in zip(vals, vals[1:]))


@njit(cache=True)
def _sample_storm(seed, modifier, n):
    st = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(st, seed, 0)
    succ = 0
    for _ in range(n):
        r = dice.storm_attack_nb(st, modifier)
        if r == dice.STORM_SUCCESS or r == dice.STORM_CRIT_SUCCESS:
            succ += 1
    return succ


@njit(cache=True)
def _sample_warfare(seed, a, d, n):
    st = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(st, seed, 0)
    wins = 0
    for _ in range(n):
        if dice.warfare_opposed_nb(st, a, d):
            wins += 1
    return wins


@pytest.mark.parametrize("modifier", [-3, 0, 2, 5])
def test_storm_sampling_matches_exact(modifier):
    n = 200_000
    p = float(dice.storm_distribution(modifier)["success"])
    k = _sample_storm(11 + modifier, modifier, n)
    assert abs(k / n - p) < 5 * np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("a,d", [(0, 0), (3, 0), (0, 2), (1, -2)])
def test_warfare_sampling_matches_exact(a, d):
    n = 200_000
    p = float(dice.warfare_distribution(a, d)["attacker_wins"])
    k = _sample_warfare(5 + a, a, d, n)
    assert abs(k / n - p) < 5 * np.sqrt(p * (1 - p) / n + 1e-12)


@pytest.mark.parametrize("mod", range(-12, 13))
def test_search_chance_tables_are_simkit_dice(mod):
    """The search's chance nodes read storm_attack_probs_nb / warfare_win_prob_nb: the same numbers as
    `simkit dice` (the Fraction distributions), to the last bit a float holds."""
    out = np.zeros(3)
    dice.storm_attack_probs_nb(mod, out)
    d = dice.storm_distribution(mod)
    assert out[dice.STORM_O_SUCCESS] == float(d["success"])
    assert out[dice.STORM_O_CRIT_FAIL] == float(d["critical_failure"])
    assert out[dice.STORM_O_FAIL] == float(d["failure"] - d["critical_failure"])
    assert abs(out.sum() - 1.0) < 1e-15
    assert dice.warfare_win_prob_nb(mod, 0) == float(dice.warfare_distribution(mod, 0)["attacker_wins"])
    assert dice.warfare_win_prob_nb(0, mod) == float(dice.warfare_distribution(0, mod)["attacker_wins"])


def test_storm_outcome_class_partitions_the_rolls():
    for mod in range(-8, 9):
        counts = np.zeros(3)
        for a in range(1, 7):
            for b in range(1, 7):
                counts[dice.storm_outcome_class_nb(a + b, mod)] += 1
        out = np.zeros(3)
        dice.storm_attack_probs_nb(mod, out)
        assert np.array_equal(counts / 36.0, out)
    assert dice.two_d6_equals_prob_nb(7) == 6 / 36 and dice.two_d6_equals_prob_nb(13) == 0.0
