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


def _measure(spec, params, policy_id, n, seed):
    """(wall seconds, CPU seconds, plies) of one batch of n games.

    CPU seconds count every thread of this process, so plies per CPU-second is
    the per-thread speed even when other processes share the cores.
    """
    t, c = time.perf_counter(), time.process_time()
    _, records, _ = play_chunk(spec.name, params, seed, 0, n, "alternate", (policy_id, policy_id), 20)
    return time.perf_counter() - t, time.process_time() - c, int(records[:, 2].astype(np.int64).sum())


def run_bench(games=None, *, seconds=1.0, repeats=3, log=None):
    from simkit.games import GAMES, get_game
    from simkit.scenario import load_scenario
    top = numba.config.NUMBA_NUM_THREADS
    results = []
    for name in games or list(GAMES):
        spec = get_game(name)
        params = load_scenario(name).params()
        for policy in spec.policies:
            pid = spec.policy_id(policy)
            for threads in sorted({1, top}):
                set_threads(threads)
                _measure(spec, params, pid, 64, 1)  # compile or load the kernels first
                n = 64
                while True:
                    dt, _, _ = _measure(spec, params, pid, n, 2)
                    if dt >= seconds / 4 or n >= 10_000_000:
                        break
                    n *= 4
                n = max(64, int(n * seconds / max(dt, 1e-6)))
                rates = [_measure(spec, params, pid, n, 3 + k) for k in range(repeats)]
                pps = statistics.median(p / dt for dt, _, p in rates)
                gps = statistics.median(n / dt for dt, _, _ in rates)
                cpu = statistics.median(p / max(ct, 1e-9) for _, ct, p in rates)
                row = {"game": name, "policy": policy, "threads": threads, "games": n,
                       "plies_per_s": pps, "games_per_s": gps, "plies_per_cpu_s": cpu,
                       "length_unit": spec.length_unit}
                results.append(row)
                if log:
                    log(f"{name:18s} {policy:8s} threads={threads}: {pps:,.0f} {spec.length_unit}/s, "
                        f"{gps:,.0f} games/s, {cpu:,.0f} {spec.length_unit} per CPU-second")
    set_threads(None)
    return {"environment": environment(), "seconds": seconds, "repeats": repeats, "results": results}
