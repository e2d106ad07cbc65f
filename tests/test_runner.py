"""The shared runner: run directories, interruption and resume, streaming summary."""
import json

import numpy as np
import pytest

from simkit.analysis.metrics import summarize
from simkit.analysis.tally import Tally
from simkit.backends.local import LocalBackend
from simkit.engine.runner import RunConfig, simulate
from simkit.errors import UsageError
from simkit.scenario import load_scenario

CFG = RunConfig(games=400, seed=9, policies=("random", "greedy"), chunk_size=60)


class InterruptAfter(LocalBackend):
    """Raises Ctrl-C after ``n`` chunks, as a user would."""

    def __init__(self, n):
        self.n = n

    def map_chunks(self, *args):
        for i, item in enumerate(super().map_chunks(*args)):
            if i == self.n:
                raise KeyboardInterrupt
            yield item


def test_interrupted_run_keeps_chunks_and_resumes_to_identical_records(tmp_path):
    sc = load_scenario("martian_chess")
    full = simulate(sc, CFG, progress=False).records()
    out = tmp_path / "run"
    part = simulate(sc, CFG, out_dir=out, progress=False, backend=InterruptAfter(3))
    assert part.interrupted and part.games_done == 180
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["games_done"] == 180
    assert len(list((out / "chunks").glob("chunk-*.npz"))) == 3
    assert not (out / "games.parquet").exists()      # an unfinished run never looks complete
    assert not (out / ".games.parquet.tmp").exists()  # ... and the file it was encoding as it went is gone
    done = simulate(sc, CFG, out_dir=out, resume=True, progress=False)
    assert not done.interrupted and done.games_done == 400
    assert np.array_equal(done.records(), full)
    from simkit.backends.store import read_records
    assert np.array_equal(read_records(out, sc.spec), full)   # the chunks found on disk were encoded too
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"


def test_resume_refuses_other_options_and_fresh_run_refuses_existing_dir(tmp_path):
    sc = load_scenario("martian_chess")
    out = tmp_path / "run"
    simulate(sc, CFG, out_dir=out, progress=False, backend=InterruptAfter(1))
    with pytest.raises(UsageError, match="started with config.seed = 9, not 10"):   # names what differs
        simulate(sc, RunConfig(games=400, seed=10, policies=("random", "greedy"), chunk_size=60),
                 out_dir=out, resume=True, progress=False)
    with pytest.raises(UsageError, match="already holds a run"):
        simulate(sc, CFG, out_dir=out, progress=False)


class SlowFirst(InterruptAfter):
    """Each chunk takes at least ``pause`` s: a first session that cost measurably more than the resume."""

    def __init__(self, n, pause):
        super().__init__(n)
        self.pause = pause

    def map_chunks(self, *args):
        import time
        for item in super().map_chunks(*args):
            time.sleep(self.pause)
            yield item


def test_resumed_run_reports_the_whole_runs_elapsed_and_speed(tmp_path):
    sc = load_scenario("martian_chess")
    out = tmp_path / "run"
    part = simulate(sc, CFG, out_dir=out, progress=False, backend=SlowFirst(3, 0.3))
    assert part.games_done == 180 and part.elapsed >= 0.9
    done = simulate(sc, CFG, out_dir=out, resume=True, progress=False)
    s = done.summary()
    # the time of both sessions, not only the resume's (which alone gave 36,607 games/s for 20,000)
    assert s["elapsed_s"] >= 0.9 and s["games_per_s"] <= 400 / 0.9
    assert s["resumed_games"] == 180
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["elapsed_s"] >= 0.9 and manifest["resumed_games"] == 180


def test_a_runs_speed_leaves_out_loading_its_kernel(monkeypatch):
    import simkit.backends.local as local
    from conftest import slow_kernel_load
    slow_kernel_load(monkeypatch, local)
    backend = LocalBackend()
    res = simulate(load_scenario("martian_chess"), CFG, progress=False, backend=backend)
    assert backend.setup_seconds >= 1.0
    assert res.games_done == 400 and res.elapsed < 0.9      # 400 games of Martian Chess: milliseconds


def test_resume_refuses_a_run_started_by_other_kernel_sources(tmp_path, runner):
    from conftest import invoke
    from simkit.engine.cache import game_sources
    sc = load_scenario("martian_chess")
    out = tmp_path / "run"
    simulate(sc, CFG, out_dir=out, progress=False, backend=InterruptAfter(2))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["sources"] == game_sources(sc.spec)
    assert manifest["sources"]["folder"] == "simkit/games/martian_chess"
    # as a run started before an edit of the game's kernels (or simkit/engine) would look
    manifest["sources"]["stamp"] = "0" * 32
    (out / "manifest.json").write_text(json.dumps(manifest))
    args = ["run", "martian_chess", "--games", 400, "--seed", 9, "--policy0", "random", "--policy1", "greedy",
            "--chunk-size", 60, "--out", out, "--resume"]
    r = invoke(runner, args)
    assert r.exit_code == 2
    lines = r.output.strip().splitlines()
    assert len(lines) == 1 and "started by other simkit code" in lines[0] and "start afresh" in lines[0], r.output
    assert not (out / "games.parquet").exists()
    del manifest["sources"]           # a run started by a simkit that recorded no stamp: refused too
    (out / "manifest.json").write_text(json.dumps(manifest))
    assert invoke(runner, args).exit_code == 2
    manifest["sources"] = game_sources(sc.spec)
    (out / "manifest.json").write_text(json.dumps(manifest))
    r = invoke(runner, args)
    assert r.exit_code == 0, r.output


def test_streaming_tally_equals_whole_tally():
    sc = load_scenario("martian_chess")
    res = simulate(sc, CFG, progress=False)
    whole = Tally(sc.spec).add(res.records())
    assert summarize(whole) == summarize(res.tally)
    # merging two halves in either order gives the same counts
    r = res.records()
    a, b = Tally(sc.spec).add(r[:123]), Tally(sc.spec).add(r[123:])
    assert summarize(a.merge(b)) == summarize(b.merge(a)) == summarize(whole)


def test_first_player_advantage_formula():
    sc = load_scenario("martian_chess")
    r = simulate(sc, CFG, progress=False).records()
    s = summarize(Tally(sc.spec).add(r))
    first_won = (r[:, 1] == r[:, 0]).mean()
    draw = (r[:, 1] < 0).mean()
    assert s["first_player_advantage"] == pytest.approx(first_won + draw / 2 - 0.5)
    side0 = (r[:, 1] == 0).mean()
    assert s["side0_win_rate"] == pytest.approx(side0)


def test_stop_callback_ends_early():
    sc = load_scenario("martian_chess")
    res = simulate(sc, CFG, progress=False, stop=lambda t: t.games >= 120)
    assert res.games_done == 120


def test_side_and_matrix_tables_are_per_game_means():
    from simkit.analysis.metrics import matrix_tables, side_table
    sc = load_scenario("martian_chess")
    res = simulate(sc, CFG, progress=False)
    r, fields = res.records(), list(sc.spec.record_fields)
    sides = side_table(res.tally)
    assert set(sides.index) == {"points", "captures", "promotions"}     # pips, not an expected score
    assert sides.loc["points", "side 1"] == pytest.approx(r[:, fields.index("score_1")].mean())
    assert matrix_tables(res.tally) == {}


def test_matrix_tables_read_row_x_column_columns():
    from simkit.analysis.metrics import matrix_tables
    sc = load_scenario("warfare")
    res = simulate(sc, RunConfig(games=40, seed=1, policies=("greedy", "greedy")), progress=False)
    m = matrix_tables(res.tally)["kills"]
    fields = list(sc.spec.record_fields)
    r = res.records()
    assert list(m.columns) == list(m.index) == list(sc.spec.unit_types)
    assert m.loc["archer", "cavalry"] == pytest.approx(r[:, fields.index("kills_archer_x_cavalry")].mean())


class OutOfOrder(LocalBackend):
    """Finishes chunks as a Dask cluster may: each pair in swapped order (1, 0, 3, 2, ...),
    optionally raising Ctrl-C after ``interrupt_after`` chunks."""

    def __init__(self, interrupt_after=None):
        self.interrupt_after = interrupt_after

    def map_chunks(self, game, params, seed, chunks, *rest):
        chunks = list(chunks)
        order = []
        for i in range(0, len(chunks), 2):
            order += chunks[i:i + 2][::-1]
        for i, item in enumerate(super().map_chunks(game, params, seed, order, *rest)):
            if i == self.interrupt_after:
                raise KeyboardInterrupt
            yield item


def test_out_of_order_chunks_stopped_early_count_only_a_prefix(tmp_path):
    sc = load_scenario("martian_chess")
    full = simulate(sc, CFG, progress=False).records()
    # chunks of 60 arrive 60, 0, 180, 120, ...; stop once 150 games are counted. Counting in
    # arrival order would stop at 0-119 + 180-239; a prefix stops at 0-179.
    stop = lambda t: t.games >= 150
    res = simulate(sc, CFG, progress=False, backend=OutOfOrder(), stop=stop)
    assert res.games_done == 180
    assert np.array_equal(res.records(), full[:180])
    assert list(res.games["game"]) == list(range(180))
    assert summarize(res.tally) == summarize(Tally(sc.spec).add(full[:180]))
    # the same with a run directory: games.parquet holds exactly the counted prefix
    out = tmp_path / "stopped"
    res = simulate(sc, CFG, out_dir=out, progress=False, backend=OutOfOrder(), stop=stop, keep=False)
    assert np.array_equal(res.records(), full[:180])
    assert json.loads((out / "summary.json").read_text())["games"] == 180


def test_out_of_order_interrupt_keeps_prefix_and_resume_replays_only_the_gap(tmp_path):
    sc = load_scenario("martian_chess")
    full = simulate(sc, CFG, progress=False).records()
    out = tmp_path / "run"
    # arrivals: chunk 60, chunk 0, chunk 180, then Ctrl-C: games 0..119 counted, chunk 180 only stored
    part = simulate(sc, CFG, out_dir=out, progress=False, backend=OutOfOrder(interrupt_after=3))
    assert part.interrupted and part.games_done == 120
    assert np.array_equal(part.records(), full[:120])
    assert json.loads((out / "manifest.json").read_text())["games_done"] == 120
    from simkit.backends.store import read_records
    assert np.array_equal(read_records(out, sc.spec), full[:120])   # the stored chunk past the gap is not read
    assert (out / "chunks" / "chunk-000000000180.npz").exists()  # ... but kept for resume

    played = []

    class Spy(LocalBackend):
        def map_chunks(self, game, params, seed, chunks, *rest):
            chunks = list(chunks)
            played.extend(s for s, _ in chunks)
            yield from super().map_chunks(game, params, seed, chunks, *rest)

    done = simulate(sc, CFG, out_dir=out, resume=True, progress=False, backend=Spy())
    assert 180 not in played and 120 in played
    assert done.games_done == 400 and np.array_equal(done.records(), full)


@pytest.mark.parametrize("chunk_size", [50, 7])
def test_games_parquet_holds_exactly_the_records_for_one_chunk_or_many(tmp_path, chunk_size):
    # one chunk is moved into place (no second pass); many are streamed into one file
    import pyarrow.parquet as pq
    cfg = RunConfig(games=50, seed=3, policies=("random", "greedy"), chunk_size=chunk_size)
    res = simulate(load_scenario("martian_chess"), cfg, threads=1, progress=False, out_dir=tmp_path / "run")
    table = pq.read_table(tmp_path / "run" / "games.parquet")
    spec = res.scenario.spec
    got = np.stack([table.column(f).to_numpy() for f in spec.record_fields], axis=1)
    assert np.array_equal(got, res.records()) and table.column("game").to_pylist() == list(range(50))
    assert not (tmp_path / "run" / "chunks").exists()


def test_blocks_run_on_numbas_thread_count_and_each_block_once():
    import threading

    if numba_threads() < 2:
        pytest.skip("needs 2 CPUs")

    import numba
    from simkit.engine.threads import run_blocks
    from simkit.engine.runner import set_threads
    calls, names = [], set()

    def play(b0, b1):
        calls.append((b0, b1))
        names.add(threading.current_thread().name)
    for threads in (1, 2):
        calls.clear()
        names.clear()
        set_threads(threads)
        assert numba.get_num_threads() == threads
        run_blocks(play, 9)
        assert sorted(calls) == ([(0, 9)] if threads == 1 else [(b, b + 1) for b in range(9)])
        assert (names == {threading.current_thread().name}) == (threads == 1)
    set_threads(None)


def numba_threads():
    import numba
    return numba.config.NUMBA_NUM_THREADS


def test_a_searching_run_is_cut_into_small_chunks_a_scripted_one_into_large():
    # 2,500 games of search are hours on a core: 40 chunks, so an interrupt loses one and a cluster's
    # workers share them evenly; scripted games keep chunks of at least 500 (a chunk's fixed cost)
    assert [n for _, n in RunConfig(games=2500, policies=("mcts:1600", "mcts:1600")).chunks()] == [63] * 39 + [43]
    assert len(RunConfig(games=2500, policies=("greedy", "mcts:400")).chunks()) == 40
    assert len(RunConfig(games=2500, policies=("greedy", "random")).chunks()) == 5
    assert len(RunConfig(games=100, policies=("ban:capture:mcts:400", "greedy")).chunks()) == 7   # 16 a chunk
    assert RunConfig(games=2500, policies=("mcts:400", "mcts:400"), chunk_size=1000).chunks()[0] == (0, 1000)


def test_the_run_writer_falls_at_most_a_few_chunks_behind_and_raises_what_a_write_raised(tmp_path, monkeypatch):
    import threading

    from simkit.backends import store
    gate = threading.Event()
    written = []

    def stuck_write(out, spec, seed, start, *rest):   # a writer stuck on a slow disk until the gate opens
        gate.wait(10)
        written.append(start)

    monkeypatch.setattr(store, "write_chunk", stuck_write)
    spec = load_scenario("martian_chess").spec
    w = store.RunWriter(tmp_path, spec, 0, records=False)
    rec, agg = np.zeros((1, 1), np.int32), np.zeros(1, np.int64)
    for k in range(store.RunWriter.BEHIND):    # handed over without waiting
        w.chunk(k, rec, agg, 0.0)
    one_more = threading.Thread(target=w.chunk, args=(store.RunWriter.BEHIND, rec, agg, 0.0))
    one_more.start()
    one_more.join(0.3)
    assert one_more.is_alive() and written == []          # the run waits for its writer
    gate.set()
    one_more.join(10)
    assert not one_more.is_alive()
    assert w.finish(0) is False and written == list(range(store.RunWriter.BEHIND + 1))

    def full_disk(*args):
        raise OSError("No space left on device")

    monkeypatch.setattr(store, "write_chunk", full_disk)
    w = store.RunWriter(tmp_path, spec, 0, records=False)
    w.chunk(0, rec, agg, 0.0)
    with pytest.raises(OSError, match="No space"):          # a complete run does not end as if saved
        w.finish(1)
    w = store.RunWriter(tmp_path, spec, 0, records=False)
    w.chunk(0, rec, agg, 0.0)
    w.abandon()                                            # an interrupted one keeps what it has, quietly
