"""The pieces of the long-command contract, in process: a `Work`'s runs reloaded or resumed, its
refusals, a resumed run's chunks replayed in order (so a --precision stop is the same), the saved
tally, and the size estimate (simkit/plan.py)."""
import json

import numpy as np
import pytest

from simkit.backends.local import LocalBackend
from simkit.backends.work import Interrupted, Work
from simkit.engine.runner import RunConfig, simulate
from simkit.errors import UsageError
from simkit.scenario import load_scenario

CFG = RunConfig(games=400, seed=5, policies=("random", "random"), chunk_size=50)


class InterruptAfter(LocalBackend):
    """Ctrl-C after ``n`` chunks of the runs it plays (counted over every run)."""

    def __init__(self, n):
        self.n, self.seen = n, 0

    def map_chunks(self, *args):
        for item in super().map_chunks(*args):
            if self.seen == self.n:
                raise KeyboardInterrupt
            self.seen += 1
            yield item


def _sweep(out, resume=False, backend=None):
    from simkit.analysis.sweep import sweep
    from simkit.scenario.sweep import parse_grid
    sc = load_scenario("martian_chess")
    keys, grid = parse_grid(["deadlock_plies=10,14,18"], sc.spec)
    return sweep("martian_chess", keys, grid, CFG, out_dir=out, resume=resume, backend=backend)


def test_an_interrupted_sweep_raises_keeps_its_cells_and_resumes_to_the_same_rows(tmp_path):
    whole = _sweep(tmp_path / "whole")
    out = tmp_path / "cut"
    with pytest.raises(Interrupted) as e:
        _sweep(out, backend=InterruptAfter(11))          # 8 chunks a cell: mid-way through the second
    assert e.value.kept == 550 and e.value.runs_done == 1 and e.value.out == out
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "interrupted" and manifest["games_kept"] == 550
    assert not (out / "sweep.csv").exists()
    done = _sweep(out, resume=True)
    assert done.table.equals(whole.table)
    assert (out / "sweep.csv").read_bytes() == (tmp_path / "whole" / "sweep.csv").read_bytes()
    assert json.loads((out / "manifest.json").read_text())["status"] == "complete"
    # a cell keeps its tally, not its records: a large sweep stays small on disk
    cell = out / "cells" / "000000"
    assert (cell / "tally.npz").exists() and not (cell / "games.parquet").exists()
    with pytest.raises(UsageError, match="already complete"):
        _sweep(out, resume=True)


def test_a_complete_run_is_reloaded_not_played(tmp_path, monkeypatch):
    sc = load_scenario("martian_chess")
    w = Work(tmp_path, resume=False)
    with w.start("test", {"x": 1}):
        first = w.run("runs/a", sc, CFG)
    import simkit.engine.runner as runner
    monkeypatch.setattr(runner, "simulate", lambda *a, **k: pytest.fail("a complete run was played again"))
    w = Work(tmp_path, resume=True, top=False)
    with w.start("test", {"x": 1}):
        again = w.run("runs/a", sc, CFG)
    assert np.array_equal(again.records(), first.records())
    assert again.summary() | {"elapsed_s": 0, "games_per_s": 0, "plies_per_s": 0} == \
        first.summary() | {"elapsed_s": 0, "games_per_s": 0, "plies_per_s": 0, "resumed_games": 400}
    assert w.games_kept == 400 and again.elapsed == pytest.approx(first.elapsed, abs=1e-3)


def test_a_resume_names_what_differs_and_what_it_is(tmp_path):
    w = Work(tmp_path)
    with pytest.raises(Interrupted):
        with w.start("sweep", {"config": {"games": 100, "seed": 1}}):
            raise KeyboardInterrupt
    with pytest.raises(UsageError, match=r"started with config.games = 100, not 200"):
        with Work(tmp_path, resume=True).start("sweep", {"config": {"games": 200, "seed": 1}}):
            pass
    with pytest.raises(UsageError, match="holds a sweep result, not a tune"):
        with Work(tmp_path, resume=True).start("tune", {}):
            pass
    with pytest.raises(UsageError, match="already holds results"):
        with Work(tmp_path).start("sweep", {}):
            pass
    with pytest.raises(UsageError, match="holds no tune to finish"):
        with Work(tmp_path / "empty", resume=True).start("tune", {}):
            pass


def test_a_resumed_run_replays_its_chunks_so_a_precision_stop_is_the_same(tmp_path):
    sc = load_scenario("martian_chess")
    cfg = RunConfig(games=20_000, seed=3, policies=("random", "random"), chunk_size=500)
    whole = simulate(sc, cfg, precision=0.012, progress=False)
    assert whole.stopped_at_precision and 2500 < whole.games_done < cfg.games
    out = tmp_path / "run"
    part = simulate(sc, cfg, out_dir=out, precision=0.012, progress=False, backend=InterruptAfter(5))
    assert part.interrupted and part.games_done == 2500
    done = simulate(sc, cfg, out_dir=out, resume=True, precision=0.012, progress=False)
    assert done.stopped_at_precision and done.games_done == whole.games_done
    assert np.array_equal(done.records(), whole.records())


def test_a_compare_resumes_to_the_same_pairs_and_replays_finished_runs(tmp_path):
    """compare pairs its runs chunk by chunk: a resumed run, and a finished one (killed after both runs
    completed, before compare.json), give back their games in the same chunks, so every float is equal."""
    from simkit.analysis.compare import compare
    a = load_scenario("martian_chess")
    b = load_scenario("martian_chess", ["clock=off"])
    whole = compare(a, b, CFG, out_dir=tmp_path / "whole")
    strip = {"elapsed_s", "games_per_s", "plies_per_s", "resumed_games"}

    def clean(x):
        return {k: clean(v) for k, v in x.items() if k not in strip} if isinstance(x, dict) else x
    out = tmp_path / "cut"
    with pytest.raises(Interrupted):
        compare(a, b, CFG, out_dir=out, backend=InterruptAfter(5))
    assert clean(compare(a, b, CFG, out_dir=out, resume=True).summary()) == clean(whole.summary())
    # both runs complete, the compare not: as a kill between the runs' end and compare.json leaves it
    (out / "compare.json").unlink()
    manifest = json.loads((out / "manifest.json").read_text())
    (out / "manifest.json").write_text(json.dumps(manifest | {"status": "running"}))
    again = compare(a, b, CFG, out_dir=out, resume=True, backend=InterruptAfter(0))   # plays nothing
    assert clean(again.summary()) == clean(whole.summary())


def test_tally_round_trip():
    from simkit.engine.tally import Tally
    sc = load_scenario("skorm")
    t = simulate(sc, RunConfig(games=200, policies=("random", "random")), progress=False).tally
    back = Tally.from_arrays(sc.spec, t.arrays())
    from simkit.analysis.metrics import summarize
    assert json.dumps(summarize(back), default=str) == json.dumps(summarize(t), default=str)
    assert np.array_equal(back.aggregate, t.aggregate) and back.quiet == t.quiet


def test_the_estimate_prices_each_policy_and_the_limits():
    from simkit.plan import LIMIT_CELLS, Part, Plan, seconds_per_game
    table = {"games": {"g": {"policies": {"random": {"1": 1000.0, "2": 1800.0}, "greedy": {"1": 100.0, "2": 200.0},
                                          "mcts:100": {"1": 2.0, "2": 4.0}}, "trace_ratio": 3.0}}}
    assert seconds_per_game(table, "g", ("random", "random"), 2) == pytest.approx(1 / 1800)
    assert seconds_per_game(table, "g", ("random", "greedy"), 1) == pytest.approx((1 / 1000 + 1 / 100) / 2)
    assert seconds_per_game(table, "g", ("mcts:400", "mcts:400"), 2) == pytest.approx(4 / 4)   # budget x4
    # measured at 400 too (games between searchers change length with the budget): each budget is priced from
    # the largest measured one not above it, the smallest when below all
    table["games"]["g"]["policies"]["mcts:400"] = {"1": 0.4, "2": 0.8}
    assert seconds_per_game(table, "g", ("mcts:400", "mcts:400"), 2) == pytest.approx(1 / 0.8)
    assert seconds_per_game(table, "g", ("mcts:1600", "mcts:1600"), 2) == pytest.approx(4 / 0.8)
    assert seconds_per_game(table, "g", ("mcts:200", "mcts:200"), 2) == pytest.approx(2 / 4)
    assert seconds_per_game(table, "g", ("mcts:50", "greedy"), 2) == pytest.approx((0.5 / 4 + 1 / 200) / 2)
    assert seconds_per_game(table, "g", ("eps:0.1:greedy", "greedy"), 2) == pytest.approx(1 / 200)
    assert seconds_per_game(table, "g", ("greedy", "greedy"), 1, traced=True) == pytest.approx(3 / 100)
    assert seconds_per_game(table, "g", ("other", "greedy"), 2) is None
    assert seconds_per_game(table, "g", ("mcts:x", "eps:", "greedy"), 2) is None     # refused later, by name
    assert seconds_per_game(table, "nope", ("greedy", "greedy"), 2) is None
    big = Plan("sweep", LIMIT_CELLS + 1, "cells", [Part("martian_chess", ("random", "random"), 1, LIMIT_CELLS + 1)])
    assert big.over() == [f"{LIMIT_CELLS:,} cells"]
    long = Plan("run", 1, "runs", [Part("martian_chess", ("mcts:400", "mcts:400"), 1_000_000)])
    assert long.over() == ["an estimated hour"] and long.seconds() > 3600
    assert Plan("run", 1, "runs", [Part("martian_chess", ("random", "random"), 1000)]).over() == []


def test_a_long_estimate_names_precision_where_the_command_takes_it():
    from simkit.plan import HINT_SECONDS, Part, Plan
    part = Part("martian_chess", ("mcts:400", "mcts:400"), 100_000)
    assert Plan("run", 1, "runs", [part]).seconds() > HINT_SECONDS
    hint = "--precision W (e.g. 0.02) can stop it sooner"
    assert hint in Plan("run", 1, "runs", [part], early_stop=False).describe()
    assert hint not in Plan("run", 1, "runs", [part], early_stop=False).describe(hint=False)   # a refusal
    asked = Plan("run", 1, "runs", [part], early_stop=True).describe()       # given: the estimate is a ceiling
    assert hint not in asked and "at most (--precision may stop it sooner)" in asked
    assert hint not in Plan("values", 1, "runs", [part]).describe()           # a command without --precision
    short = Part("martian_chess", ("random", "random"), 1000)
    assert hint not in Plan("run", 1, "runs", [short], early_stop=False).describe()
