import numpy as np
from numba import njit

from simkit.engine.rng import first_players_nb, rng_below_nb, rng_float_nb, rng_seed_nb


@njit(cache=True)
def _draws(seed, game, n, k):
    st = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(st, seed, game)
    out = np.zeros(n, dtype=np.int64)
    for i in range(n):
        out[i] = rng_below_nb(st, k)
    return out


def test_stream_depends_only_on_seed_and_game():
    a = _draws(7, 3, 100, 1000)
    assert np.array_equal(a, _draws(7, 3, 100, 1000))
    assert not np.array_equal(a, _draws(7, 4, 100, 1000))
    assert not np.array_equal(a, _draws(8, 3, 100, 1000))


def test_below_is_uniform():
    k = 6
    counts = np.bincount(_draws(1, 0, 600_000, k), minlength=k)
    expected = 100_000
    chi2 = ((counts - expected) ** 2 / expected).sum()
    assert chi2 < 25  # 5 dof: p < 0.0002 to fail by chance
    assert counts.min() >= 0 and len(counts) == k


def test_float_in_unit_interval():
    st = np.zeros(1, dtype=np.uint64)
    rng_seed_nb(st, 3, 9)
    xs = [rng_float_nb(st) for _ in range(10_000)]
    assert 0.0 <= min(xs) and max(xs) < 1.0
    assert abs(np.mean(xs) - 0.5) < 0.02


def test_first_player_modes():
    out = np.zeros(10, dtype=np.int8)
    first_players_nb(0, 1, 5, 10, out)
    assert list(out) == [(5 + i) % 2 for i in range(10)]
    first_players_nb(2, 1, 5, 10, out)
    assert set(out) == {1}
    big = np.zeros(10_000, dtype=np.int8)
    first_players_nb(3, 1, 0, 10_000, big)
    assert 0.45 < big.mean() < 0.55
