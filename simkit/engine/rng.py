"""Counter-based per-game random streams (SplitMix64).

Every game owns one stream derived from ``(seed, game_index)`` alone, so a
game's dice and random choices never depend on thread count, chunk size or
backend. The state is a one-element ``uint64`` array (mutable inside numba):
each draw advances a Weyl counter by the golden gamma and mixes it, exactly as
Java's SplittableRandom does; SplitMix64 passes BigCrush.

All arithmetic stays in uint64: numba promotes mixed int64/uint64 to float.
"""
import numpy as np
from numba import njit

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)
_STREAM = np.uint64(0xD1B54A32D192ED03)


@njit(cache=True, inline="always")
def mix64_nb(z):
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def new_state():
    """A fresh, unseeded state array (seed it with rng_seed_nb)."""
    return np.zeros(1, dtype=np.uint64)


@njit(cache=True)
def rng_seed_nb(state, seed, game):
    """Derive the stream of game ``game`` of a run seeded with ``seed``."""
    s = mix64_nb(np.uint64(seed) + GAMMA)
    g = mix64_nb(np.uint64(game) * _STREAM + GAMMA)
    state[0] = mix64_nb(s ^ g)


@njit(cache=True, inline="always")
def rng_next_nb(state):
    state[0] += GAMMA
    return mix64_nb(state[0])


@njit(cache=True, inline="always")
def rng_below_nb(state, n):
    """Uniform integer in [0, n) for 0 < n < 2**31 (Lemire's multiply-shift)."""
    x = rng_next_nb(state) >> _S32
    return np.int64((x * np.uint64(n)) >> _S32)


@njit(cache=True, inline="always")
def rng_float_nb(state):
    """Uniform float in [0, 1)."""
    return np.float64(rng_next_nb(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def first_players_nb(mode, seed, start, count, out):
    """Who moves first in games start..start+count-1.

    mode 0 alternate (side 0 in even games), 1 side0, 2 side1, 3 random
    (from a stream of its own, so it does not shift the game's dice).
    """
    st = np.zeros(1, dtype=np.uint64)
    for i in range(count):
        g = start + i
        if mode == 0:
            out[i] = g % 2
        elif mode == 1:
            out[i] = 0
        elif mode == 2:
            out[i] = 1
        else:
            rng_seed_nb(st, seed ^ 0x5EA7, g)
            out[i] = rng_below_nb(st, 2)


from simkit.policies import FIRST_MODES  # noqa: E402,F401  (re-exported: the modes first_players_nb takes)


@njit(cache=True, inline="always")
def argmax_step_nb(value, best, ties, state, eps):
    """One step of "take the best value, ties broken uniformly" (reservoir sampling).

    Returns ``(take, best, ties)``: ``take`` says the current candidate becomes the
    choice. A value within ``eps`` of the best counts as a tie. Every greedy policy
    uses this, so all of them break ties the same, unbiased way.
    """
    if value > best + eps:
        return True, value, 1
    if value >= best - eps:
        ties += 1
        return rng_below_nb(state, ties) == 0, best, ties
    return False, best, ties
