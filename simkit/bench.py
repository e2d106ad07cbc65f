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


def rate_text(x: float) -> str:
    """A rate with enough digits to read at any size: 258,794 / 31.5 / 1.00 / 0.483 (three significant
    digits below 10, trailing zeros kept: Warfare!'s 1.00 games/s read as "1")."""
    return f"{x:,.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:#.3g}"


def _measure(spec, params, pvec, n, seed):
    """(wall seconds, CPU seconds, plies) of one batch of n games.

    CPU seconds count every thread of this process, so plies per CPU-second is
    the per-thread speed even when other processes share the cores.
    """
    t, c = time.perf_counter(), time.process_time()
    _, records, _ = play_chunk(spec.name, params, seed, 0, n, "alternate", pvec, 20)
    return time.perf_counter() - t, time.process_time() - c, int(records[:, 2].astype(np.int64).sum())


def _cells(spec, budgets, policies):
    """The policies to bench for ``spec``: each scripted one, and the search at each budget; ``policies``
    keeps a subset (a scripted name, ``mcts`` for every budget, or ``mcts:N`` for one)."""
    from simkit.policies import MCTS
    out = []
    for base in spec.policies:
        names = [f"{MCTS}:{b}" for b in budgets] if base == MCTS else [base]
        out += [n for n in names if not policies or n in policies or base in policies]
    if policies:      # a search budget asked for by name, not in the default budgets
        out += [p for p in policies if p.startswith(f"{MCTS}:") and p not in out and MCTS in spec.policies]
    return out


def _iterations_per_s(spec, policy, seconds):
    """Search iterations per CPU-second on the positions of greedy self-play (the step API's states), the
    policy's own knobs in play: each search from a position with more than one decision runs the policy's
    budget exactly. None for a search that may stop sooner (``mcts_stop``): its iterations are not counted."""
    try:
        from simkit import env
        from simkit.policies import parse_policy, policy_vector
        from simkit.scenario import load_scenario
    except ImportError:       # an older checkout (bench --against) has no step API
        return None
    choice = parse_policy(spec, policy)
    if getattr(spec, "steps", None) is None or dict(choice.knobs or ()).get("mcts_stop"):
        return None
    scenario = load_scenario(spec.name)
    search = np.asarray(policy_vector(spec, (policy, policy)))
    greedy = np.asarray(policy_vector(spec, ("greedy", "greedy")))
    s = env.new_game_from(scenario, seed=11, policies=(policy, policy))
    while s.is_chance():
        s.roll()
    s.scripted_action(search)           # load (or compile) the step kernel untimed
    iters = 0
    cpu = 0.0
    g = 0
    while cpu < seconds and g < 50:
        s = env.new_game_from(scenario, seed=11, game=g, policies=(policy, policy))
        k = 0
        while not s.is_over():
            if s.is_chance():
                s.roll()
                continue
            if k % 3 == 0 and len(s.legal_actions()) > 1:
                t = time.process_time()
                s.scripted_action(search)
                cpu += time.process_time() - t
                iters += choice.budget
            s.apply(s.scripted_action(greedy))
            k += 1
        g += 1
    return iters / cpu if cpu > 0 else None


def run_bench(games=None, *, seconds=1.0, repeats=3, log=None, mcts_budget=None, mcts_budgets=(400, 1600),
              policies=None, thread_counts=None, search_games=0):
    """Every policy of every game plays itself; the search at each of ``mcts_budgets`` iterations per decision
    (``mcts_budget``: one budget, for older callers), with its iterations per CPU-second where the game has a
    step API.

    ``policies`` / ``thread_counts`` restrict the cells (default: every policy, 1 thread and all threads).
    ``search_games``: play at least this many games per search measurement (a few searched games a second:
    their lengths vary, and games per second with them).
    """
    from simkit.games import GAMES, get_game
    from simkit.policies import MCTS, policy_vector
    from simkit.scenario import load_scenario
    from simkit.scenario.evaluation import describe
    budgets = (mcts_budget,) if mcts_budget else tuple(mcts_budgets)
    top = numba.config.NUMBA_NUM_THREADS
    results = []
    for name in games or list(GAMES):
        spec = get_game(name)
        scenario = load_scenario(name)
        base_params = scenario.params()
        for policy in _cells(spec, budgets, policies):
            base = MCTS if policy.startswith(f"{MCTS}:") else policy
            # a policy's own knobs (mcts:400/mcts_reuse=true) and the evaluation a run would play (--eval auto:
            # the learned weights `simkit learn` stored for the default scenario, if any) in both sides' rows
            params = scenario.params_for((policy, policy), base_params)
            pid = tuple(int(x) for x in policy_vector(spec, (policy, policy)))
            for threads in sorted({min(t, top) for t in thread_counts or (1, top)}):
                set_threads(threads)
                _measure(spec, params, pid, 2 * threads, 1)  # compile or load the kernels first
                n = 2 * threads if base == MCTS else 64
                while True:
                    dt, _, _ = _measure(spec, params, pid, n, 2)
                    if dt >= seconds / 4 or n >= 10_000_000:
                        break
                    n *= 4
                least = max(2 * threads, search_games) if base == MCTS else 64
                n = max(least, int(n * seconds / max(dt, 1e-6)))
                rates = [_measure(spec, params, pid, n, 3 + k) for k in range(repeats)]
                pps = statistics.median(p / dt for dt, _, p in rates)
                gps = statistics.median(n / dt for dt, _, _ in rates)
                cpu = statistics.median(p / max(ct, 1e-9) for _, ct, p in rates)
                row = {"game": name, "policy": policy, "threads": threads, "games": n,
                       "plies_per_s": pps, "games_per_s": gps, "plies_per_cpu_s": cpu,
                       "games_per_cpu_s": statistics.median(n / max(ct, 1e-9) for _, ct, _ in rates),
                       "length_unit": spec.length_unit, "evaluation": describe(scenario.evaluation)}
                if base == MCTS and threads == 1:
                    row["iterations_per_cpu_s"] = _iterations_per_s(spec, policy, seconds)
                results.append(row)
                if log:
                    its = row.get("iterations_per_cpu_s")
                    log(f"{name:18s} {policy:14s} threads={threads}: {pps:,.0f} {spec.length_unit}/s, "
                        f"{rate_text(gps)} games/s, {cpu:,.0f} {spec.length_unit} per CPU-second"
                        + (f", {its:,.0f} search iterations per CPU-second" if its else "")
                        + (" (learned evaluation)" if scenario.evaluation is not None else ""))
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
    from simkit.policies import policy_vector
    from simkit.scenario import load_scenario

    scenario = load_scenario(game)

    def config(n):
        return RunConfig(games=n, seed=7, policies=(policy, policy), chunk_size=max(1, -(-n // (4 * workers))))

    def timed(cfg, **kw):
        t = time.perf_counter()
        res = simulate(scenario, cfg, progress=False, keep=False, **kw)
        return time.perf_counter() - t, res

    timed(config(2), threads=1)  # compile or load the kernels
    n = 4   # a search plays a few games a second: start small, grow by 4x
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
        backend.warm(game, scenario.params(), 0, "alternate",
                     tuple(int(x) for x in policy_vector(scenario.spec, (policy, policy))), 20)
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


def run_against(other: str, games=None, *, seconds=1.0, repeats=5, log=None, mcts_budget=400,
                policies=None, thread_counts=None) -> dict:
    # (one search budget: the older checkout's search is measured by this file's run_bench as well)
    """This checkout and another (e.g. a git worktree of an older commit) measured side by side.

    Each repeat runs one `simkit bench --repeats 1` per checkout in a fresh process, the order
    alternating, so both see the same machine load over the same minutes; medians per cell and
    the ratio this/other. The other checkout's kernels are cached in ``<other>/.bench-cache``.
    """
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    import simkit
    here = str(Path(simkit.__file__).resolve().parents[1])
    other = str(Path(other).resolve())
    if not (Path(other) / "simkit" / "__init__.py").exists():
        raise ValueError(f"--against {other}: not a simkit checkout (no simkit/__init__.py there)")
    cell = json.dumps({"games": list(games or ()) or None, "seconds": seconds, "repeats": 1,
                       "mcts_budget": mcts_budget, "policies": list(policies or ()) or None,
                       "thread_counts": list(thread_counts or ()) or None})
    # The measuring loop is this file's run_bench, executed against the other checkout's package: it
    # uses only APIs every simkit has had (registry, scenario, policy_vector, play_chunk), so an older
    # checkout without this option is measured by the very same code.
    driver = f"exec(compile(open({__file__!r}).read(), {__file__!r}, 'exec'), {{'__name__': '__main__'}})"

    def once(tree):
        env = dict(os.environ, PYTHONPATH=tree)
        if tree == other:   # its own cache: the same kernel files with other sources would evict ours
            env["NUMBA_CACHE_DIR"] = str(Path(other) / ".bench-cache")
        out = subprocess.run([sys.executable, "-c", driver, cell], env=env, cwd=tree, capture_output=True, text=True)
        if out.returncode:
            raise RuntimeError(f"bench in {tree} failed:\n{out.stderr[-2000:]}")
        return json.loads(out.stdout)

    runs = {here: [], other: []}
    for r in range(repeats + 1):            # repeat 0 compiles or loads the kernels, not counted
        for tree in ((here, other) if r % 2 else (other, here)):
            res = once(tree)
            if r:
                runs[tree].append(res)
            if log:
                log(f"repeat {r}/{repeats} {'(warm-up) ' if not r else ''}{'this' if tree == here else 'other'} "
                    f"checkout done")
    key = ("game", "policy", "threads")
    rows = []
    for cell in runs[here][0]["results"]:
        k = tuple(cell[f] for f in key)

        def med(tree, field, k=k):
            return statistics.median(next(c[field] for c in res["results"]
                                          if tuple(c[f] for f in key) == k)
                                     for res in runs[tree])
        row = {f: cell[f] for f in key} | {"length_unit": cell["length_unit"]}
        for field in ("plies_per_s", "plies_per_cpu_s", "games_per_s"):
            new, old = med(here, field), med(other, field)
            row[field] = new
            row[f"{field}_other"] = old
            row[f"{field}_ratio"] = new / old if old else float("nan")
        rows.append(row)
    return {"environment": environment(), "seconds": seconds, "repeats": repeats, "this": here,
            "other": other, "results": rows}


def run_whole_commands(*, cold_compile: bool = False, repeats: int = 3, log=None) -> list[dict]:
    """Wall seconds of whole commands in fresh processes, as a user meets them (medians):
    a one-game run with a warm cache (start-up), 1,000,000 random Martian Chess games on 2
    threads, and with ``cold_compile`` a `simkit precompile` into an empty cache (once)."""
    import os
    import subprocess
    import sys
    import tempfile
    rows = []

    def timed(args, env=None):
        t = time.perf_counter()
        out = subprocess.run([sys.executable, "-m", "simkit", *args], capture_output=True, text=True, env=env)
        if out.returncode:
            raise RuntimeError(f"simkit {' '.join(args)} failed:\n{out.stderr[-2000:]}")
        return time.perf_counter() - t

    with tempfile.TemporaryDirectory() as tmp:
        cases = [("run martian_chess --games 1", ["run", "martian_chess", "--games", "1", "--out"]),
                 ("run martian_chess --games 1000000 --policy random --threads 2",
                  ["run", "martian_chess", "--games", "1000000", "--policy", "random", "--threads", "2", "--out"])]
        timed(cases[0][1] + [os.path.join(tmp, "warm")])     # load (or compile) the kernels first
        for c, (label, args) in enumerate(cases):
            secs = [timed(args + [os.path.join(tmp, f"case{c}-{k}")]) for k in range(repeats)]
            rows.append({"command": f"simkit {label}", "wall_s": statistics.median(secs), "repeats": repeats})
            if log:
                log(f"simkit {label}: {rows[-1]['wall_s']:.2f} s wall (median of {repeats})")
        if cold_compile:
            env = dict(os.environ, NUMBA_CACHE_DIR=os.path.join(tmp, "cold-cache"))
            rows.append({"command": "simkit precompile (empty cache)", "wall_s": timed(["precompile"], env),
                         "repeats": 1})
            if log:
                log(f"simkit precompile into an empty cache: {rows[-1]['wall_s']:.1f} s wall")
    return rows


if __name__ == "__main__":      # one measurement for run_against, in whichever checkout is on PYTHONPATH
    import json
    import sys
    print(json.dumps(run_bench(**json.loads(sys.argv[1]))))
