"""simkit's Martian Chess against the native references, side by side (issue 24's measuring sticks).

    python scripts/anchors.py [--anchors ../shared/anchors] [--repeats 3]

Each repeat runs, alternating which goes first, in the same minutes:
- random playouts: `mc_ref play` vs `simkit bench martian_chess --policy random --threads 1`
  (plies per CPU-second; both time only the playout loop);
- the search: `mc_uct selfplay` (its own knobs: rollouts of 20 plies, and 60 as simkit's default
  mcts_cutoff) vs simkit's mcts:400 self-play (games and search iterations per CPU-second;
  simkit's priors changed after mc_uct was written, so iterations compare the machinery best);
- a whole run: the wall time of `mc_ref play 1000000` vs `simkit run martian_chess --games 1000000
  --threads 1 --policy random` in a fresh process (start-up, records and Parquet included; the
  kernels loaded from the cache).
`--before DIR` times the whole run of another checkout too (an earlier commit: `git worktree add DIR REV`),
in the same rounds, with its own numba cache: a change to whole runs measured side by side. `--runs-only`
times the whole runs and nothing else.
Prints a markdown table of medians and the ratios simkit / reference.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIMKIT = [sys.executable, "-m", "simkit"]


def anchor(binary: Path, *args) -> dict:
    out = subprocess.run([str(binary), *map(str, args)], capture_output=True, text=True, check=True).stdout
    vals = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2:
            try:
                vals[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return vals


def simkit_bench(policy: str) -> dict:
    out = subprocess.run([*SIMKIT, "bench", "martian_chess", "--policy", policy, "--threads", "1", "--repeats", "1",
                          "--json"], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return json.loads(out)["results"][0]


def wall(cmd, cwd=ROOT, env=None) -> float:
    t = time.perf_counter()
    subprocess.run([str(c) for c in cmd], capture_output=True, check=True, cwd=cwd, env=env)
    return time.perf_counter() - t


def checkout_env(checkout: Path) -> dict:
    """The environment that runs `python -m simkit` from ``checkout`` (another checkout: with a numba cache of
    its own), bytecode written and read as on a designer's machine."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if checkout != ROOT:
        env["PYTHONPATH"] = str(checkout)
        env["NUMBA_CACHE_DIR"] = str(Path(tempfile.gettempdir()) / f"anchors-numba-{checkout.name}")
    return env


def simkit_run_1m(checkout: Path = ROOT) -> float:
    d = Path(tempfile.mkdtemp(prefix="anchors-"))
    try:
        return wall([*SIMKIT, "run", "martian_chess", "--games", "1000000", "--threads", "1", "--policy", "random",
                     "--out", str(d / "run")], cwd=checkout, env=checkout_env(checkout))
    finally:
        shutil.rmtree(d, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--anchors", default=str(ROOT.parent / "shared" / "anchors"))
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--before", type=Path, help="another checkout whose whole run is timed in the same rounds")
    ap.add_argument("--runs-only", action="store_true", help="time the whole runs only")
    a = ap.parse_args()
    mc_ref, mc_uct = Path(a.anchors) / "mc_ref", Path(a.anchors) / "mc_uct"
    wall([*SIMKIT, "precompile", "martian_chess"])      # a warm cache: the runs below time no compile
    before = a.before.resolve() if a.before else None
    if before:
        wall([*SIMKIT, "precompile", "martian_chess"], cwd=before, env=checkout_env(before))
    names = [] if a.runs_only else ["random plies/CPU-s", "mcts:400 games/CPU-s (mc_uct cutoff 20)",
                                    "mcts:400 iterations/CPU-s (mc_uct cutoff 20)",
                                    "mcts:400 games/CPU-s (mc_uct cutoff 60)",
                                    "mcts:400 iterations/CPU-s (mc_uct cutoff 60)"]
    names.append("1,000,000 games, wall s")
    run_before = f"1,000,000 games, wall s, {before.name if before else ''}'s code"
    if before:
        names.append(run_before)
    rows = {k: ([], []) for k in names}
    for r in range(a.repeats):
        order = (0, 1) if r % 2 == 0 else (1, 0)
        for who in order:
            if who == 0:
                if not a.runs_only:
                    rows["random plies/CPU-s"][0].append(simkit_bench("random")["plies_per_cpu_s"])
                    m = simkit_bench("mcts:400")
                    for cut in (20, 60):
                        rows[f"mcts:400 games/CPU-s (mc_uct cutoff {cut})"][0].append(m["games_per_cpu_s"])
                        rows[f"mcts:400 iterations/CPU-s (mc_uct cutoff {cut})"][0].append(m["iterations_per_cpu_s"])
                rows["1,000,000 games, wall s"][0].append(simkit_run_1m())
                if before:
                    rows[run_before][0].append(simkit_run_1m(before))
            else:
                if not a.runs_only:
                    ref = anchor(mc_ref, "play", 1_000_000, r + 1)
                    rows["random plies/CPU-s"][1].append(ref["plies_per_s"])
                    for cut in (20, 60):
                        u = anchor(mc_uct, "selfplay", 100, 400, r + 1, cut)
                        rows[f"mcts:400 games/CPU-s (mc_uct cutoff {cut})"][1].append(u["games_per_cpu_s"])
                        rows[f"mcts:400 iterations/CPU-s (mc_uct cutoff {cut})"][1].append(u["iterations_per_cpu_s"])
                t = wall([str(mc_ref), "play", 1_000_000, r + 1])
                rows["1,000,000 games, wall s"][1].append(t)
                if before:
                    rows[run_before][1].append(t)
        print(f"repeat {r + 1}/{a.repeats} done", file=sys.stderr)
    print(f"| measure (medians of {a.repeats}) | simkit | reference | simkit / reference |")
    print("| --- | ---: | ---: | ---: |")
    for name, (mine, ref) in rows.items():
        x, y = statistics.median(mine), statistics.median(ref)
        ratio = y / x if "wall s" in name else x / y     # a time: the reference's over simkit's
        fmt = (lambda v: f"{v:.2f}") if "wall s" in name else (lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.1f}")
        print(f"| {name} | {fmt(x)} | {fmt(y)} | {ratio:.2f}x |")


if __name__ == "__main__":
    main()
