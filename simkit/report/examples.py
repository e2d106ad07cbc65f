"""`make reports`: an example report of every registered game's default scenario.

    python -m simkit.report.examples [--games N] [GAME ...]

Plays greedy vs greedy (N games, default 20,000: intervals of about ±0.7
points on a rate) into runs/examples/<game>/ and writes reports/<game>/.
"""
from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

DEFAULT_GAMES = 20_000


def committed_reports(root: Path) -> list[Path]:
    """The ``index.html`` of every example report git tracks under ``root/reports`` (``root``: the
    checkout). `make demo` writes the git-ignored reports/demo/ next to them, which is the user's
    output, not a committed example; outside a git checkout every report there is taken."""
    import subprocess
    try:
        out = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", "reports/*/index.html"],
                             capture_output=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        return sorted((root / "reports").glob("*/index.html"))
    return sorted(root / p for p in out.stdout.decode().split("\0") if p)


def example(game: str, games: int, runs: Path, reports: Path, seed: int = 0) -> Path:
    from simkit.engine.runner import RunConfig, simulate
    from simkit.report import build_report
    from simkit.scenario import load_scenario

    run_dir = runs / game
    shutil.rmtree(run_dir, ignore_errors=True)
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    simulate(load_scenario(game), RunConfig(games=games, seed=seed, policies=("greedy", "greedy")),
             out_dir=run_dir, progress=False, keep=False)
    out = reports / game
    shutil.rmtree(out, ignore_errors=True)
    return build_report([run_dir], out)


def main(argv=None) -> int:
    from simkit.games import GAMES
    ap = argparse.ArgumentParser(prog="python -m simkit.report.examples", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("games_list", nargs="*", metavar="GAME", help="games (default: every registered game)")
    ap.add_argument("--games", type=int, default=DEFAULT_GAMES, help="games per report (default %(default)s)")
    ap.add_argument("--runs", default="runs/examples", help="where the runs go (default %(default)s)")
    ap.add_argument("--reports", default="reports", help="where the reports go (default %(default)s)")
    args = ap.parse_args(argv)
    names = args.games_list or list(GAMES)
    unknown = [g for g in names if g not in GAMES]
    if unknown:
        ap.error(f"unknown game(s) {', '.join(unknown)}; games: {', '.join(GAMES)}")
    for game in names:
        t = time.perf_counter()
        index = example(game, args.games, Path(args.runs), Path(args.reports))
        size = sum(p.stat().st_size for p in index.parent.iterdir())
        print(f"{game}: {index} ({size / 1e6:.2f} MB, {time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
