"""Contract tests for every registered game: they need no edits when a game is added."""
import json
import tomllib
from pathlib import Path

import numba
import numpy as np
import pytest

from simkit.backends.local import LocalBackend
from simkit.engine.runner import RunConfig, simulate
from simkit.games import GAMES, get_game
from simkit.games.base import BASE_FIELDS
from simkit.scenario import load_scenario
from simkit.scenario.load import scenario_dir

DATA = Path(__file__).parent / "data"


# games registered only while these tests run: name -> module (tests/ is on sys.path)
TEST_GAMES = {"dice_race": "toygame"}


@pytest.fixture(params=list(GAMES) + [g for g in TEST_GAMES if g not in GAMES])
def game(request, monkeypatch):
    if request.param in TEST_GAMES:
        monkeypatch.syspath_prepend(str(Path(__file__).parent))
        monkeypatch.setitem(GAMES, request.param, TEST_GAMES[request.param])
    return request.param


def test_default_scenario_lists_every_option_with_its_default(game):
    spec = get_game(game)
    raw = tomllib.loads((scenario_dir(game) / "default.toml").read_text())
    assert raw["game"] == game
    for o in spec.options:
        assert o.name in raw, f"{o.name} missing from {scenario_dir(game)}/default.toml"
        loaded = load_scenario(game).rules[o.name]
        if o.kind != "table":
            assert loaded == o.default, o.name


def test_every_variant_loads_and_differs_from_default(game):
    files = sorted(scenario_dir(game).glob("*.toml"))
    assert len(files) >= 3, "a default and at least two variants"
    default = load_scenario(game).rules
    for f in files:
        s = load_scenario(str(f))
        assert s.game == game
        if f.name != "default.toml":
            assert s.rules != default, f"{f.name} changes nothing"


class ThreadSpy(LocalBackend):
    """Records numba's thread count at the moment each chunk plays."""

    def __init__(self):
        self.seen = []

    def map_chunks(self, *args):
        for item in super().map_chunks(*args):
            self.seen.append(numba.get_num_threads())
            yield item


def _records(game, threads, chunk_size, policies=("random", "greedy"), games=96):
    cfg = RunConfig(games=games, seed=12345, policies=policies, chunk_size=chunk_size, snapshot_ply=6)
    spy = ThreadSpy()
    res = simulate(load_scenario(game), cfg, threads=threads, progress=False, backend=spy)
    # the chunks really played on the threads asked for (a runner that resets the count fails here)
    assert res.threads == threads and set(spy.seen) == {threads}, (threads, spy.seen)
    return res.records()


def test_determinism_threads_and_chunks(game):
    spec = get_game(game)
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads to compare with 1")
    base = _records(game, 1, 96)
    assert base.shape == (96, len(spec.record_fields))
    assert tuple(spec.record_fields[:4]) == BASE_FIELDS
    for threads, chunk in ((2, 96), (2, 7), (1, 50)):
        assert np.array_equal(base, _records(game, threads, chunk)), (threads, chunk)
    other = _records(game, 2, 96)
    assert np.array_equal(base, other)
    # a different seed gives different games
    cfg = RunConfig(games=96, seed=54321, policies=("random", "greedy"), snapshot_ply=6)
    assert not np.array_equal(base, simulate(load_scenario(game), cfg, progress=False).records())


def test_search_determinism_threads_and_chunks(game):
    """Every game that offers mcts:N gets it from the one engine; the search draws only from the game's
    own stream, so its records do not depend on threads or chunk size either."""
    spec = get_game(game)
    if "mcts" not in spec.policies:
        pytest.skip("no search policy")
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads to compare with 1")
    pols = ("mcts:8", "eps:0.2:mcts:6")
    base = _records(game, 1, 6, policies=pols, games=6)
    assert (base[:, 3] >= 0).all()
    for threads, chunk in ((2, 6), (2, 4)):
        assert np.array_equal(base, _records(game, threads, chunk, policies=pols, games=6)), (threads, chunk)


def test_reuse_determinism_threads_and_chunks(game):
    """mcts_reuse keeps a searcher's tree from one decision to its next: never across a chunk or a thread's
    block of games (a game's first position is never one a search of another game predicted)."""
    from simkit.policies import side_knob_names
    spec = get_game(game)
    if "mcts_reuse" not in side_knob_names(spec) or numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("no per-side mcts_reuse, or 1 numba thread")
    pols = ("mcts:16/mcts_reuse=true", "mcts:12/mcts_reuse=true")
    base = _records(game, 1, 6, policies=pols, games=6)
    for threads, chunk in ((2, 6), (2, 4), (1, 1)):
        assert np.array_equal(base, _records(game, threads, chunk, policies=pols, games=6)), (threads, chunk)


def test_records_are_consistent(game):
    spec = get_game(game)
    r = _records(game, 2, 50, policies=("random", "random"), games=200)
    first, winner, plies, end = r[:, 0], r[:, 1], r[:, 2], r[:, 3]
    assert set(np.unique(first)) == {0, 1}                      # alternate
    assert np.array_equal(first, np.arange(200) % 2)
    assert set(np.unique(winner)) <= {-1, 0, 1}
    assert (plies >= 1).all()
    assert ((end >= 0) & (end < len(spec.end_reasons))).all()
    fields = list(spec.record_fields)
    for s in (0, 1):
        for u in spec.unit_types:
            for stat in ("losses", "kills", "snap", "final"):
                assert f"{stat}_{s}_{u}" in fields, f"{stat}_{s}_{u}"
            assert (r[:, fields.index(f"losses_{s}_{u}")] >= 0).all()
    # every kill made by one side is a loss of the other
    kills = [sum(r[:, fields.index(f"kills_{s}_{u}")].sum() for u in spec.unit_types) for s in (0, 1)]
    losses = [sum(r[:, fields.index(f"losses_{s}_{u}")].sum() for u in spec.unit_types) for s in (0, 1)]
    assert kills[0] <= losses[1] and kills[1] <= losses[0]


def test_perft_goldens(game):
    spec = get_game(game)
    golden = DATA / game / "perft.json"
    if spec.perft is None:
        assert spec.perft_note, "a game without perft must say why"
        return
    expected = json.loads(golden.read_text())
    depth = min(len(expected), 4)
    got = spec.perft(load_scenario(game).params(), depth)
    assert got == [expected[str(d)] for d in range(1, depth + 1)]


def test_play_trace_matches_batch_game(game):
    """`simkit play` shows the very game `simkit run` plays at that index (same seed)."""
    spec = get_game(game)
    scenario = load_scenario(game)
    cfg = RunConfig(games=4, seed=7, policies=("random", "greedy"), snapshot_ply=6)
    rec = simulate(scenario, cfg, progress=False).records()[3]
    text = spec.play(scenario.params(), 7, 3, int(rec[0]), (0, 1))
    last = text.strip().splitlines()[-1]
    assert spec.end_reasons[rec[3]] in last
    assert str(int(rec[2])) in last
    assert ("draw" in last) if rec[1] < 0 else (f"player {rec[1]} wins" in last)
