"""Identical records everywhere: local (1 or 2 threads, any chunk size) and Dask (1 and 2 workers),
and a Dask run that loses a worker mid-run still completes with the same records."""
import json
import os
import signal
import time

import numpy as np
import pytest

pytest.importorskip("distributed")

from conftest import invoke  # noqa: E402
from simkit.backends.dask import DaskBackend, DaskError, make_backend  # noqa: E402
from simkit.backends.local import LocalBackend  # noqa: E402
from simkit.engine.runner import RunConfig, simulate  # noqa: E402
from simkit.errors import UsageError  # noqa: E402
from simkit.games import GAMES  # noqa: E402
from simkit.scenario import load_scenario  # noqa: E402

CFG = RunConfig(games=700, seed=11, policies=("random", "greedy"), first="random", chunk_size=90)


@pytest.fixture(scope="module")
def scenario():
    return load_scenario("martian_chess", ["max_plies=300"])


@pytest.fixture(scope="module")
def reference(scenario):
    return simulate(scenario, CFG, threads=1, progress=False).records()


@pytest.fixture(scope="module")
def cluster2():
    """One LocalCluster of two worker processes (one numba thread each) for the whole module."""
    with make_backend("dask", workers=2, threads=1) as be:
        yield be


def _numba_threads():
    import numba
    return numba.config.NUMBA_NUM_THREADS


@pytest.mark.parametrize("threads,chunk", [(2, None), (2, 1), (1, 700), (2, 333)])
def test_local_threads_and_chunk_sizes_give_identical_records(scenario, reference, threads, chunk):
    cfg = RunConfig(**{**CFG.__dict__, "chunk_size": chunk})
    assert np.array_equal(simulate(scenario, cfg, threads=threads, progress=False).records(), reference)


def test_dask_two_worker_processes_identical_records_and_reusable(scenario, reference, cluster2, tmp_path):
    assert len(cluster2.workers()) == 2
    assert set(cluster2.client.run(_numba_threads).values()) == {1}    # --threads reached the workers
    r = simulate(scenario, CFG, progress=False, backend=cluster2, out_dir=tmp_path / "run")
    assert np.array_equal(r.records(), reference)
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["status"] == "complete" and manifest["games_done"] == CFG.games
    # the same backend serves a second run (close() ends a run, not the cluster)
    cfg = RunConfig(**{**CFG.__dict__, "chunk_size": 45})
    assert np.array_equal(simulate(scenario, cfg, progress=False, backend=cluster2, keep=True).records(),
                          reference)


@pytest.mark.parametrize("game", sorted(GAMES))
def test_dask_identical_records_for_every_game(cluster2, game):
    sc = load_scenario(game)
    cfg = RunConfig(games=96, seed=3, policies=("greedy", "random"), chunk_size=17)
    local = simulate(sc, cfg, threads=2, progress=False)
    remote = simulate(sc, cfg, progress=False, backend=cluster2)
    assert np.array_equal(remote.records(), local.records())
    assert np.array_equal(remote.tally.aggregate, local.tally.aggregate)


def test_dask_one_worker_identical_records(scenario, reference):
    with DaskBackend(workers=1, processes=False) as be:
        r = simulate(scenario, CFG, progress=False, backend=be)
    assert np.array_equal(r.records(), reference)


def test_a_dask_runs_speed_leaves_out_loading_its_kernel(scenario, monkeypatch):
    """The workers' warm-up (a no-game chunk each, on a cold cache a minute of compiling) is timed apart."""
    import simkit.backends.dask as dask_backend
    from conftest import slow_kernel_load
    slow_kernel_load(monkeypatch, dask_backend)
    with DaskBackend(workers=1, processes=False) as be:     # in-process: the patched function runs
        res = simulate(scenario, RunConfig(games=400, seed=3), progress=False, backend=be)
        assert be.setup_seconds >= 1.0
    assert res.games_done == 400 and res.elapsed < 0.9


def test_cli_run_with_dask_backend(runner, monkeypatch, cluster2, tmp_path, scenario):
    """`simkit run --backend dask` goes through make_backend (here: the module's cluster)."""
    seen = {}

    class Shared:
        name = "dask"

        def __init__(self, *a):
            seen["args"] = a

        def __enter__(self):
            return cluster2

        def __exit__(self, *exc):
            pass

    monkeypatch.setattr("simkit.backends.dask.make_backend", Shared)
    out = tmp_path / "cli"
    r = invoke(runner, ["run", "martian_chess", "--games", 300, "--policy", "random", "--backend", "dask",
                        "--workers", 2, "--chunk-size", 50, "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    assert seen["args"] == ("dask", None, 2, None)
    local = invoke(runner, ["run", "martian_chess", "--games", 300, "--policy", "random", "--chunk-size", 50,
                            "--no-save", "--json"])
    a, b = json.loads(r.output), json.loads(local.output)
    for k in ("games", "first_player_win_rate", "mean_plies", "end_reasons"):
        assert a[k] == b[k]


def test_make_backend_rejects_bad_combinations():
    assert isinstance(make_backend("local"), LocalBackend)
    with pytest.raises(UsageError, match="need --backend dask"):
        make_backend("local", workers=2)
    with pytest.raises(UsageError, match="--workers must be from 1"):
        make_backend("dask", workers=0)
    with pytest.raises(UsageError, match="--workers must be from 1"):
        make_backend("dask", workers=10_000)
    with pytest.raises(UsageError, match="--threads must be from 1"):
        make_backend("dask", workers=1, threads=0)
    with pytest.raises(UsageError, match="NUMBA_NUM_THREADS"):
        make_backend(None, scheduler="tcp://127.0.0.1:1", threads=2)
    with pytest.raises(UsageError, match="--scheduler expects"):
        make_backend("dask", scheduler="nonsense")
    with pytest.raises(DaskError, match="cannot reach"):
        DaskBackend(scheduler="tcp://127.0.0.1:1", connect_timeout=0.5)


class KillAWorker:
    """Wraps a DaskBackend: after the first chunk arrives, SIGKILLs a worker process that is busy."""

    def __init__(self, inner):
        self.inner, self.killed = inner, None

    def map_chunks(self, *args):
        client = self.inner.client
        for i, item in enumerate(self.inner.map_chunks(*args)):
            if i == 0:
                pids = client.run(os.getpid)
                for _ in range(4000):         # the moment a worker is running a chunk (up to 20 s on a loaded machine)
                    processing = client.processing()
                    busy = [w for w, keys in processing.items() if keys and w in pids]
                    if busy:
                        break
                    time.sleep(0.005)
                self.killed = (busy[0], pids[busy[0]], list(processing[busy[0]]))
                os.kill(pids[busy[0]], signal.SIGKILL)
            yield item

    def close(self):
        self.inner.close()


def test_dask_worker_killed_mid_run_is_retried_with_identical_records(scenario, cluster2):
    # chunks long enough (greedy, 500 games) that a worker is still busy when the first result arrives
    cfg = RunConfig(games=12000, seed=4, policies=("greedy", "greedy"), chunk_size=500)
    ref = simulate(scenario, cfg, progress=False).records()
    be = KillAWorker(cluster2)
    r = simulate(scenario, cfg, progress=False, backend=be)
    addr, pid, keys = be.killed
    assert keys, "the killed worker was running a chunk"
    assert not r.interrupted and r.games_done == cfg.games
    assert np.array_equal(r.records(), ref)
    cluster2.client.wait_for_workers(2, timeout=60)        # the nanny restarted it
    assert pid not in cluster2.client.run(os.getpid).values()


def test_missing_dask_is_a_clean_error(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "distributed", None)       # as if not installed
    with pytest.raises(UsageError, match=r"pip install 'simkit\[dask\]'"):
        make_backend("dask", workers=1)
    from click.testing import CliRunner
    from simkit.cli import cli
    r = CliRunner().invoke(cli, ["run", "martian_chess", "-n", "5", "--backend", "dask", "--no-save"])
    assert r.exit_code == 2 and "simkit[dask]" in r.output and r.exception.__class__ is SystemExit


def test_compare_and_sweep_on_dask_equal_local(cluster2):
    """compare and sweep distribute their chunks and give the local backend's numbers."""
    import simkit
    kw = dict(games=400, seed=4, policies="random", chunk_size=50)
    local = simkit.compare("martian_chess", overrides_b={"clock": "leader"}, **kw)
    remote = simkit.compare("martian_chess", overrides_b={"clock": "leader"}, backend=cluster2, **kw)
    assert local.paired.n == remote.paired.n == 400
    assert local.differences == remote.differences
    assert local.differences["first_player_advantage"]["diff"] != 0
    sl = simkit.sweep("martian_chess", {"deadlock_plies": [10, 20]}, **kw)
    sr = simkit.sweep("martian_chess", {"deadlock_plies": [10, 20]}, backend=cluster2, **kw)
    assert sl.table.drop(columns=[c for c in sl.table.columns if "per_s" in c or "elapsed" in c]).equals(
        sr.table.drop(columns=[c for c in sr.table.columns if "per_s" in c or "elapsed" in c]))
