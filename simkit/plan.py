"""The size of a long command before it starts: its cells, games and policies, and an estimate of
its time from the games' measured speeds.

A command describes what it will play as a `Plan` (parts: game, policies, games per run, runs);
`Plan.seconds` prices every part at the speed `simkit/speeds.json` holds for that game and
policy (games per second of the batch kernel at 1 and all threads, and of the one-game trace
kernel that quality uses), measured on the machine the docs quote by

    python -m simkit.plan --measure            # every game (about 3 minutes), or name some

A policy pair costs the mean of its two policies' times per game; ``mcts:N`` costs the time measured
at the largest budget of ``MCTS_BUDGETS`` not above N (the smallest below it), scaled by the budgets'
ratio (the search dominates), ``eps:P:X`` what X costs, ``P/KNOB=V`` what P costs. The search is
measured at 400 too because games between searchers change length with the budget: priced from
mcts:100, the 2,500-game mcts:400 runs of Storm the Castle and Warfare! were estimated 22-23% long
(docs/speed.md, "The 2,500-game runs"). A game the
table does not hold gets no estimate (the size is still printed; only the cell limit applies).
The speeds are at each game's default rules: rules that lengthen games lengthen the run, which
the progress lines (simkit/cli/progress.py) then show from the games' real pace.

This module imports neither numba nor numpy, so a refusal costs a fraction of a second.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path

SPEEDS = Path(__file__).with_name("speeds.json")
LIMIT_SECONDS = 3600.0      # an estimate above this needs --yes
LIMIT_CELLS = 1000          # so do more cells than this (a sweep's grid, ...)
MCTS_BUDGETS = (100, 400)   # the budgets the table's search speeds are measured at
SEARCH_GAMES = 16           # games per search measurement at least: their lengths vary (10-90%: 18-80 turns)
HINT_SECONDS = 300.0        # a command that could stop early and is estimated longer names --precision


@dataclass(frozen=True)
class Part:
    game: str
    policies: tuple            # (side 0, side 1)
    games: int                 # per run
    runs: int = 1
    traced: bool = False       # one game at a time through the trajectory hook (quality)


@dataclass
class Plan:
    what: str                  # the command, e.g. "sweep"
    cells: int                 # the settings it plays: sweep cells, levels, tune settings, ...
    unit: str = "cells"        # what a cell is called here
    parts: list = field(default_factory=list)
    threads: int | None = None
    # --precision: None for a command without the option; True when given (it may end the command before its
    # games, so the estimate is a ceiling); False when not given (a long estimate then names the option:
    # a designer asking "within ±0.02?" needs fewer games than a fixed count when many games are drawn)
    early_stop: bool | None = None

    @property
    def games(self) -> int:
        return sum(p.games * p.runs for p in self.parts)

    @property
    def runs(self) -> int:
        return sum(p.runs for p in self.parts)

    def seconds(self) -> float | None:
        """Estimated playing time, or None when a part's game or policy has no measured speed."""
        table = speeds()
        total = 0.0
        for p in self.parts:
            t = seconds_per_game(table, p.game, p.policies, self.threads, p.traced)
            if t is None:
                return None
            total += t * p.games * p.runs
        return total

    def policies(self) -> list[str]:
        seen = []
        for p in self.parts:
            pair = p.policies[0] if p.policies[0] == p.policies[1] else " vs ".join(p.policies)
            if pair not in seen:
                seen.append(pair)
        return seen

    def describe(self, hint: bool = True) -> str:
        """'sweep: 13 cells x 20,000 games = 260,000 games of martian_chess (greedy); estimated 1 min 5 s ...'
        (``hint``: name --precision when it applies; a refusal names the limits instead)"""
        games = {p.game for p in self.parts}
        runs = {p.games for p in self.parts if not p.traced}
        if self.cells == 1:
            size = f"{self.games:,} games"
        elif len(runs) == 1 and all(not p.traced for p in self.parts) and self.games == self.cells * min(runs):
            size = f"{self.cells:,} {self.unit} x {next(iter(runs)):,} games = {self.games:,} games"
        else:
            size = f"{self.cells:,} {self.unit}, {self.games:,} games"
        est = self.seconds()
        most = " at most (--precision may stop it sooner)" if self.early_stop else ""
        tip = ("; --precision W (e.g. 0.02) can stop it sooner: once the 95% interval's half-width is at most W"
               if hint and self.early_stop is False and est is not None and est >= HINT_SECONDS else "")
        when = (f"estimated {duration(est)}{most} at the measured speed of {', '.join(sorted(games))} "
                f"(simkit/speeds.json, default rules, {self._threads()} threads){tip}" if est is not None
                else f"no time estimate ({', '.join(sorted(games))} has no measured speed for "
                     f"{', '.join(self.policies())}: python -m simkit.plan --measure adds it)")
        return f"{self.what}: {size} of {', '.join(sorted(games))} ({'; '.join(self.policies())}); {when}"

    def _threads(self) -> int:
        return self.threads or default_threads()

    def over(self) -> list[str]:
        """The limits the plan is above (empty: none)."""
        out = []
        if self.cells > LIMIT_CELLS:
            out.append(f"{LIMIT_CELLS:,} {self.unit}")
        est = self.seconds()
        if est is not None and est > LIMIT_SECONDS:
            out.append("an estimated hour")
        return out


def default_threads() -> int:
    """The numba thread count a run gets by default, without importing numba."""
    env = os.environ.get("NUMBA_NUM_THREADS")
    if env and env.isdigit() and int(env) > 0:
        return int(env)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def duration(seconds: float) -> str:
    """'45 s', '3 min 20 s', '2 h 05 min', '3.2 days'."""
    if seconds < 60:
        return f"{max(seconds, 0.1):.1f} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"
    if seconds < 2 * 86400:
        return f"{int(seconds // 3600)} h {int(seconds % 3600 // 60):02d} min"
    return f"{seconds / 86400:.1f} days"


_table: dict | None = None


def speeds() -> dict:
    global _table
    if _table is None:
        _table = json.loads(SPEEDS.read_text()) if SPEEDS.exists() else {"games": {}}
    return _table


def seconds_per_game(table: dict, game: str, policies, threads: int | None, traced: bool = False) -> float | None:
    """Mean seconds per game of a policy pair (None: not measured)."""
    t = [_policy_seconds(table, game, p, threads, traced) for p in policies]
    return None if None in t else sum(t) / len(t)


def _policy_seconds(table, game, policy: str, threads, traced):
    g = (table.get("games") or {}).get(game)
    if g is None:
        return None
    name, scale = str(policy), 1.0        # not yet validated: a malformed name has no price
    name = name.split("/", 1)[0]          # per-side search knobs (mcts:400/mcts_c=0.5) priced as the search
    if name.startswith("eps:"):
        name = name.split(":", 2)[-1]
    if name.startswith("mcts:"):
        budget = name.split(":")[1]
        if not budget.isdigit():
            return None
        n = int(budget)
        measured = [b for b in MCTS_BUDGETS if f"mcts:{b}" in (g.get("policies") or {})] or [MCTS_BUDGETS[0]]
        ref = max((b for b in measured if b <= n), default=min(measured))
        scale = n / ref
        name = f"mcts:{ref}"     # not measured at all: no row below, no estimate
    row = (g.get("policies") or {}).get(name)
    if row is None:
        return None
    if traced:
        # the trace kernel plays one game at a time on one thread: the batch kernel's 1-thread time
        # times the game's measured trace/batch ratio
        return scale * g.get("trace_ratio", 1.0) / row["1"]
    by = {int(k): v for k, v in row.items()}
    t = threads or default_threads()
    have = max((k for k in by if k <= t), default=min(by))
    return scale / (by[have] * min(t, max(by)) / have)


# ---- measuring the table ------------------------------------------------------------------------

def measure(games=None, seconds: float = 1.0, log=print) -> dict:
    """Games per second of every game and policy at 1 and all threads (`simkit bench`), and each game's
    trace kernel against its batch kernel (greedy, 1 thread)."""
    import time

    import numba

    from simkit.bench import run_bench
    from simkit.engine.runner import RunConfig, environment, set_threads
    from simkit.games import GAMES, get_game
    from simkit.scenario import load_scenario
    names = list(games or GAMES)
    load = os.getloadavg()[0]
    if load > 1.0:   # 2026-12-02's table was measured at load 15: its estimates were 3-10x too long
        log(f"warning: load average {load:.1f}: other work shares the cores, so these speeds (and every "
            f"estimate made from them) will be too slow; measure on an idle machine")
    bench = run_bench(names, seconds=seconds, repeats=1, mcts_budgets=MCTS_BUDGETS, search_games=SEARCH_GAMES,
                      log=log)
    table = {"measured": time.strftime("%Y-%m-%d"), "command": "python -m simkit.plan --measure",
             "environment": environment(), "load_average": list(os.getloadavg()), "games": {}}
    for r in bench["results"]:
        g = table["games"].setdefault(r["game"], {"policies": {}})
        g["policies"].setdefault(r["policy"], {})[str(r["threads"])] = r["games_per_s"]
    from simkit.analysis.quality import trace_games
    set_threads(1)
    for name in names:
        spec = get_game(name)
        if getattr(spec, "trajectory", None) is None or "greedy" not in spec.policies:
            continue
        sc = load_scenario(name)
        n = 16
        trace_games(sc, RunConfig(games=2, policies=("greedy", "greedy")))        # kernels loaded first
        while True:
            t = time.perf_counter()
            trace_games(sc, RunConfig(games=n, policies=("greedy", "greedy")))
            dt = time.perf_counter() - t
            if dt >= seconds or n >= 100_000:
                break
            n *= 4
        trace_gps = n / dt
        batch_gps = table["games"][name]["policies"]["greedy"]["1"]
        table["games"][name]["trace_ratio"] = batch_gps / trace_gps
        log(f"{name}: traces {trace_gps:,.0f} games/s, {batch_gps / trace_gps:.1f}x the batch kernel's time")
    set_threads(numba.config.NUMBA_NUM_THREADS)
    return table


def main(argv=None):
    import argparse
    ap = argparse.ArgumentParser(prog="python -m simkit.plan", description=__doc__.split("\n\n")[0])
    ap.add_argument("--measure", action="store_true", help="measure the speeds and write simkit/speeds.json")
    ap.add_argument("games", nargs="*", help="only these games (the others keep their measured speeds)")
    ap.add_argument("--seconds", type=float, default=1.0, help="target seconds per measurement")
    a = ap.parse_args(argv)
    if not a.measure:
        print(json.dumps(speeds(), indent=2))
        return
    new = measure(a.games or None, a.seconds)
    if a.games and SPEEDS.exists():
        old = json.loads(SPEEDS.read_text())
        new["games"] = old.get("games", {}) | new["games"]
    SPEEDS.write_text(json.dumps(new, indent=2, sort_keys=False) + "\n")
    print(f"wrote {SPEEDS}")


if __name__ == "__main__":
    main()
