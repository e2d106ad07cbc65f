"""The one dice module: jitted resolvers for the games and exact distributions.

Resolvers are split from the roll (``storm_resolve_nb(roll, modifier)``) so that
tests and traces can inject a roll. Exact distributions use Fractions and are
cross-checked against the resolvers by sampling in the tests.
"""
from fractions import Fraction

import numpy as np
from numba import njit

from simkit.engine.rng import rng_below_nb

# Storm the Castle outcomes of a 2d6 threshold attack.
STORM_FAIL = 0
STORM_SUCCESS = 1
STORM_CRIT_FAIL = 2
STORM_CRIT_SUCCESS = 3
STORM_BASE = 3  # success when roll <= 3 + modifier


@njit(cache=True, inline="always")
def roll_d6_nb(state):
    return 1 + rng_below_nb(state, 6)


@njit(cache=True, inline="always")
def roll_2d6_nb(state):
    return 2 + rng_below_nb(state, 6) + rng_below_nb(state, 6)


@njit(cache=True)
def storm_resolve_nb(roll, modifier):
    """Outcome of a 2d6 roll: natural 2 fails, natural 12 succeeds, else roll <= 3 + modifier."""
    if roll == 2:
        return STORM_CRIT_FAIL
    if roll == 12:
        return STORM_CRIT_SUCCESS
    if roll <= STORM_BASE + modifier:
        return STORM_SUCCESS
    return STORM_FAIL


@njit(cache=True)
def storm_attack_nb(state, modifier):
    return storm_resolve_nb(roll_2d6_nb(state), modifier)


@njit(cache=True)
def warfare_opposed_nb(state, attacker_mod, defender_mod):
    """Both roll 1d6 + modifier, ties rolled again. True when the attacker wins."""
    while True:
        a = roll_d6_nb(state) + attacker_mod
        d = roll_d6_nb(state) + defender_mod
        if a != d:
            return a > d


# --- exact outcome probabilities for the search's chance nodes (one table with `simkit dice`: the
# Fraction distributions below and these enumerate the same resolvers; tests/test_dice.py checks) ---
STORM_OUTCOMES = 3          # the classes a Storm attack's search branches on: failure, success, critical failure
STORM_O_FAIL, STORM_O_SUCCESS, STORM_O_CRIT_FAIL = 0, 1, 2


@njit(cache=True)
def storm_attack_probs_nb(modifier, out):
    """P(failure that is not critical), P(success, the natural 12 included), P(critical failure) of a 2d6
    attack with this modifier, into ``out[0:3]`` (exact: counts of the 36 rolls / 36)."""
    out[0] = 0.0
    out[1] = 0.0
    out[2] = 0.0
    for a in range(1, 7):
        for b in range(1, 7):
            r = storm_resolve_nb(a + b, modifier)
            if r == STORM_SUCCESS or r == STORM_CRIT_SUCCESS:
                out[STORM_O_SUCCESS] += 1.0
            elif r == STORM_CRIT_FAIL:
                out[STORM_O_CRIT_FAIL] += 1.0
            else:
                out[STORM_O_FAIL] += 1.0
    for k in range(3):
        out[k] /= 36.0


@njit(cache=True)
def storm_outcome_class_nb(roll, modifier):
    """The search's outcome class (STORM_O_*) of a 2d6 roll."""
    r = storm_resolve_nb(roll, modifier)
    if r == STORM_SUCCESS or r == STORM_CRIT_SUCCESS:
        return STORM_O_SUCCESS
    if r == STORM_CRIT_FAIL:
        return STORM_O_CRIT_FAIL
    return STORM_O_FAIL


@njit(cache=True)
def two_d6_equals_prob_nb(total):
    """P(2d6 == total) (Storm's Cleric and Blacksmith succeed on exactly 7)."""
    if total < 2 or total > 12:
        return 0.0
    return (6 - abs(total - 7)) / 36.0


@njit(cache=True)
def warfare_win_prob_nb(attacker_mod, defender_mod):
    """P(the attacker wins) of an opposed d6 roll with ties rolled again (exact ratio of the 36 rolls)."""
    win = 0
    lose = 0
    for a in range(1, 7):
        for d in range(1, 7):
            if a + attacker_mod > d + defender_mod:
                win += 1
            elif a + attacker_mod < d + defender_mod:
                lose += 1
    return win / (win + lose)


def _two_d6():
    return {s: Fraction(6 - abs(s - 7), 36) for s in range(2, 13)}


def storm_distribution(modifier: int) -> dict[str, Fraction]:
    """Exact outcome probabilities of a Storm the Castle attack with this modifier.

    ``success`` includes the critical success (natural 12); ``failure`` includes
    the critical failure (natural 2).
    """
    out = {"success": Fraction(0), "failure": Fraction(0),
           "critical_failure": Fraction(0), "critical_success": Fraction(0)}
    for roll, p in _two_d6().items():
        r = storm_resolve_nb.py_func(roll, modifier)
        if r in (STORM_SUCCESS, STORM_CRIT_SUCCESS):
            out["success"] += p
        else:
            out["failure"] += p
        if r == STORM_CRIT_FAIL:
            out["critical_failure"] += p
        if r == STORM_CRIT_SUCCESS:
            out["critical_success"] += p
    return out


def warfare_distribution(attacker_mod: int, defender_mod: int) -> dict[str, Fraction]:
    """Exact P(attacker wins) of an opposed d6 roll with re-rolled ties."""
    win = lose = Fraction(0)
    for a in range(1, 7):
        for d in range(1, 7):
            if a + attacker_mod > d + defender_mod:
                win += Fraction(1, 36)
            elif a + attacker_mod < d + defender_mod:
                lose += Fraction(1, 36)
    decided = win + lose
    return {"attacker_wins": win / decided, "defender_wins": lose / decided}


def storm_success_table(modifiers=range(-6, 10)) -> dict[int, Fraction]:
    return {m: storm_distribution(m)["success"] for m in modifiers}


def warfare_win_table(differences=range(-6, 7)) -> dict[int, Fraction]:
    """P(attacker wins) by modifier difference (attacker minus defender)."""
    return {d: warfare_distribution(d, 0)["attacker_wins"] for d in differences}


# Exported for kernels that need the per-modifier success chance as a table
# (e.g. greedy commanders choosing attacks by exact probability).
def storm_success_array(lo: int = -20, hi: int = 20) -> np.ndarray:
    return np.array([float(storm_distribution(m)["success"]) for m in range(lo, hi + 1)])


# exact odds tables by dice model name (GameSpec.dice), for the report
EXACT_TABLES = {"2d6_target": storm_success_table, "opposed_d6": warfare_win_table}
