"""Wall time of one simkit command line in two checkouts, side by side:
python scripts/wall_vs.py BEFORE_DIR [--repeats 9] -- run martian_chess --games 1 --threads 1 --no-save

Runs `python -m simkit ARGS` alternately from BEFORE_DIR (an earlier commit: `git worktree add DIR REV`) and
from this checkout, each in a fresh process (the other checkout with a numba cache of its own; one untimed
run each first), bytecode written and read as on a designer's machine; prints every wall time and the medians.
"""
import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from anchors import ROOT, checkout_env     # this folder: the same environment for a checkout as anchors.py's


def wall(checkout: Path, args) -> float:
    t = time.perf_counter()
    subprocess.run([sys.executable, "-m", "simkit", *args], cwd=checkout, env=checkout_env(checkout), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("--repeats", type=int, default=9)
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    args = argv[cut + 1:]
    sides = {"before": a.before.resolve(), "this": ROOT}
    times = {k: [] for k in sides}
    for d in sides.values():
        wall(d, args)                  # the kernels compiled or loaded once: the runs below time no compile
    for r in range(a.repeats):
        for k in (("before", "this") if r % 2 == 0 else ("this", "before")):
            times[k].append(wall(sides[k], args))
    for k, ts in times.items():
        print(f"{k:6s} {sides[k]}: median {statistics.median(ts):.3f} s  ({' '.join(f'{t:.3f}' for t in ts)})")


if __name__ == "__main__":
    main()
