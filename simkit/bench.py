"""`simkit bench`: plies/s and games/s per game and policy, 1 thread and all threads.

Each measurement plays a batch sized to last about ``seconds``; the median of
``repeats`` measurements is reported (the machines are shared and noisy).
"""
from __future__ import annotations

import statistics
import time

import numba
import numpy as np

from simkit.engine.runner import environment, play_chunk, set_threads


def _measure(spec, params, pvec, n, seed):
    """(wall seconds, CPU seconds, plies) of one batch of n games.

    CPU seconds count every thread of this process, so plies per CPU-second is
    the per-thread speed even when other processes share the cores.
    """
    t, c = time.perf_counter(), time.process_time()
    _, records, _ = play_chunk(spec.name, params, seed, 0, n, "alternate", pvec, 20)
    return time.perf_counter() - t, time.process_time() - c, int(records[:, 2].astype(np.int64).sum())


def run_bench(games=None, *, seconds=1.0, repeats=3, log=None, mcts_budget=400):
    """Every policy of every game plays itself; MCTS at ``mcts_budget`` iterations per decision."""
    from simkit.games import GAMES, get_game
    from simkit.policies import MCTS, policy_vector
    from simkit.scenario import load_scenario
    top = numba.config.NUMBA_NUM_THREADS
    results = []
    for name in games or list(GAMES):
        spec = get_game(name)
        params = load_scenario(name).params()
        for base in spec.policies:
            policy = f"{MCTS}:{mcts_budget}" if base == MCTS else base
            pid = tuple(int(x) for x in policy_vector(spec, (policy, policy)))
            for threads in sorted({1, top}):
                set_threads(threads)
                _measure(spec, params, pid, 2 * threads, 1)  # compile or load the kernels first
                n = 2 * threads if base == MCTS else 64
                while True:
                    dt, _, _ = _measure(spec, params, pid, n, 2)
                    if dt >= seconds / 4 or n >= 10_000_000:
                        break
                    n *= 4
                n = max(2 * threads if base == MCTS else 64, int(n * seconds / max(dt, 1e-6)))
                rates = [_measure(spec, params, pid, n, 3 + k) for k in range(repeats)]
                pps = statistics.median(p / dt for dt, _, p in rates)
                gps = statistics.median(n / dt for dt, _, _ in rates)
                cpu = statistics.median(p / max(ct, 1e-9) for _, ct, p in rates)
                row = {"game": name, "policy": policy, "threads": threads, "games": n,
                       "plies_per_s": pps, "games_per_s": gps, "plies_per_cpu_s": cpu,
                       "length_unit": spec.length_unit}
                results.append(row)
                if log:
                    log(f"{name:18s} {policy:14s} threads={threads}: {pps:,.0f} {spec.length_unit}/s, "
                        f"{gps:,.0f} games/s, {cpu:,.0f} {spec.length_unit} per CPU-second")
    set_threads(None)
    return {"environment": environment(), "seconds": seconds, "repeats": repeats, "results": results}


def run_dask_bench(game: str = "martian_chess", policy: str = "greedy", *, workers: int = 2, seconds: float = 4.0,
                   repeats: int = 3, log=None) -> dict:
    """The same run on the local backend with 1 thread and on a Dask LocalCluster of ``workers``
    one-thread worker processes: wall seconds (medians) and the speed-up.

    The run is sized so the local one lasts about ``seconds``, in 4 chunks per worker; the
    cluster's start and the workers' warm-up are timed apart and not counted in the speed-up
    (a real sweep pays them once). The two backends' tallies must be identical.
    """
    from simkit.analysis.metrics import summarize
    from simkit.backends.dask import make_backend
    from simkit.engine.runner import RunConfig, simulate
    from simkit.scenario import load_scenario

    scenario = load_scenario(game)

    def config(n):
        return RunConfig(games=n, seed=7, policies=(policy, policy), chunk_size=max(1, -(-n // (4 * workers))))

    def timed(cfg, **kw):
        t = time.perf_counter()
        res = simulate(scenario, cfg, progress=False, keep=False, **kw)
        return time.perf_counter() - t, res

    timed(config(64), threads=1)  # compile or load the kernels
    n = 256
    while True:
        dt, _ = timed(config(n), threads=1)
        if dt >= seconds / 8 or n >= 10_000_000:
            break
        n *= 4
    n = max(8 * workers, int(n * seconds / max(dt, 1e-6)))
    cfg = config(n)
    local = [timed(cfg, threads=1) for _ in range(repeats)]
    t = time.perf_counter()
    with make_backend("dask", workers=workers, threads=1) as backend:
        started = time.perf_counter() - t
        t = time.perf_counter()
        backend.warm(game, scenario.params(), 0, "alternate", (scenario.spec.policy_id(policy),) * 2, 20)
        warmed = time.perf_counter() - t
        remote = [timed(cfg, threads=1, backend=backend) for _ in range(repeats)]
    same = summarize(local[0][1].tally) | {"elapsed_s": 0} == summarize(remote[0][1].tally) | {"elapsed_s": 0}
    local_s = statistics.median(d for d, _ in local)
    dask_s = statistics.median(d for d, _ in remote)
    row = {"game": game, "policy": policy, "games": n, "chunk_size": cfg.chunk_size, "workers": workers,
           "threads_per_worker": 1, "local_1_thread_s": local_s, "dask_s": dask_s, "speedup": local_s / dask_s,
           "cluster_start_s": started, "warm_s": warmed, "identical_tally": bool(same)}
    if log:
        log(f"dask: {game} {policy} {n:,} games: local 1 thread {local_s:.2f} s, Dask {workers} workers "
            f"{dask_s:.2f} s -> speed-up {row['speedup']:.2f}x (cluster start {started:.1f} s, warm-up "
            f"{warmed:.1f} s, not counted){'' if same else '  RESULTS DIFFER'}")
    return row
