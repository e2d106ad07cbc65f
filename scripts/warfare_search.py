"""Warfare!'s search agent: the measurements quoted in docs/games/warfare.md ("Search agent") and
docs/skill.md (the default scenario's draw diagnosis). Each part prints a markdown table with the
command lines and seeds that made it:

    python scripts/warfare_search.py tune [--games N]    the knob defaults: each setting against a panel
    python scripts/warfare_search.py turn                whole turns: combination positions, search vs greedy
    python scripts/warfare_search.py draws [--games N]   draw diagnosis of the default scenario (cap = draw)
    python scripts/warfare_search.py mustshow            issue 22's ladder and matchup (the CLI, as a designer)
    python scripts/warfare_search.py speed [--games N]   CPU seconds per game on one thread (rough: shared machine)
    python scripts/warfare_search.py leaves [--games N]  how many of the nodes a search makes it lists (mcts:400)

Game outcomes do not depend on the machine's load or thread count (only the time does).
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

import numpy as np

GAME = "warfare"
TUNE_SEED = 1        # the ladder and matchup of the docs use seed 0: the defaults were not chosen on those games

# (label, rule overrides) of the settings measured for the defaults; the first is the default itself
SETTINGS = [
    ("defaults", []),
    ("mcts_c=1.4", ["mcts_c=1.4"]),
    ("mcts_c=0.35", ["mcts_c=0.35"]),
    ("mcts_prior_temp=1.0", ["mcts_prior_temp=1.0"]),
    ("mcts_prior_temp=0.25", ["mcts_prior_temp=0.25"]),
    ("mcts_threat=0", ["mcts_threat=0"]),
    ("mcts_threat=1.0", ["mcts_threat=1.0"]),
    ("mcts_cutoff=1", ["mcts_cutoff=1"]),
    ("mcts_cutoff=3", ["mcts_cutoff=3"]),
    ("mcts_scale=4", ["mcts_scale=4"]),
]
# the panel: a budget below (the ladder's rung, material cap) and greedy (the default scenario)
PANEL = [("mcts:400", "mcts:100", ["cap_result=material"]), ("mcts:100", "greedy", [])]


def _pair(p, q, sets, games, seed):
    from simkit.analysis.matchup import pair_score
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    c = pair_score(load_scenario(GAME, sets), RunConfig(games=games, seed=seed), p, q)
    recs = np.concatenate(list(c["records"].values()))
    return c, float(np.mean(recs[:, 3] == 1)), float(recs[:, 2].mean())


def tune(games: int) -> None:
    print(f"Knob settings against the panel ({games} games per seat order, seed {TUNE_SEED}; each cell: the first "
          "policy's paired score [95% interval], capped share)\n")
    print("| setting | " + " | ".join(f"{p} vs {q}{' (' + ', '.join(s) + ')' if s else ''}" for p, q, s in PANEL)
          + " |")
    print("|---" * (len(PANEL) + 1) + "|")
    for label, over in SETTINGS:
        cells = []
        for p, q, sets in PANEL:
            c, cap, _ = _pair(p, q, sets + over, games, TUNE_SEED)
            cells.append(f"{c['score']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}], capped {cap:.2f}")
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n`python scripts/warfare_search.py tune --games {games}`")


# Whole-turn planning: positions whose best turn needs several activations that fit together.
# (units as (side, type, x, y, facing); the check names what the turn must achieve)
CORNER = [(0, "cavalry", 9, 8, "N"), (0, "cavalry", 10, 8, "N"), (0, "infantry", 1, 1, "N"),
          (0, "infantry", 2, 1, "N"), (0, "archer", 1, 0, "N"),
          (1, "infantry", 10, 11, "S"), (1, "infantry", 11, 11, "S"), (1, "infantry", 0, 11, "S"),
          (1, "infantry", 1, 11, "S"), (1, "cavalry", 2, 11, "S"), (1, "spearman", 3, 11, "S")]
TURN_CASES = [
    ("corner: kill Y from its flank, stay out of its square, kill X from the emptied square", CORNER, (5, 6)),
]


def _position(params, units):
    from simkit.games.warfare.state import UNITS
    ip = params[0]
    n0, n = int(ip[13]), int(ip[13] + ip[14])
    usq, uface = np.full(n, -1, np.int64), np.zeros(n, np.int64)
    utype, uside = np.zeros(n, np.int64), np.zeros(n, np.int64)
    uside[n0:] = 1
    nxt, ids = [0, n0], []
    for s, t, x, y, f in units:
        u = nxt[s]
        nxt[s] += 1
        usq[u], uface[u], utype[u] = y * int(ip[0]) + x, "NESW".index(f), UNITS.index(t)
        ids.append(u)
    return (usq, uface, utype, uside), ids


def turn(seeds: int = 20) -> None:
    from simkit.engine.rng import rng_seed_nb
    from simkit.games.warfare import search as WS
    from simkit.scenario import load_scenario
    params = load_scenario(GAME).params()
    print(f"Whole turns: share of {seeds} seeds (the turn's dice) in which side 0's turn achieves the combination\n")
    print("| position | greedy | mcts:25 | mcts:100 | mcts:400 |")
    print("|---|---|---|---|---|")
    for label, units, targets in TURN_CASES:
        arrays, ids = _position(params, units)
        row = []
        for budget in (0, 25, 100, 400):
            ok = 0
            for seed in range(seeds):
                S = WS.position_state(params, *arrays, 10, 0)
                rng = np.zeros(1, np.uint64)
                rng_seed_nb(rng, np.int64(seed), np.int64(0))
                if budget:
                    WS.play_turn(params, S, budget, rng)
                else:
                    WS.playout_nb(params, S, 1, 11, rng)
                ok += all(S[WS.S_USQ][ids[k]] < 0 for k in targets)
            row.append(f"{ok / seeds:.2f}")
        print(f"| {label} | " + " | ".join(row) + " |", flush=True)
    print("\n`python scripts/warfare_search.py turn` (greedy: the rollout policy playing the turn)")


def _cli(args):
    out = subprocess.run([sys.executable, "-m", "simkit", *args, "--json", "--no-save"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def draws(games: int) -> None:
    """The draw diagnosis of the default scenario: draws by kind per budget, cross-play decisiveness in
    both seats, the material curve over turns."""
    from simkit.engine.runner import RunConfig, simulate
    from simkit.games import get_game
    from simkit.policies import policy_vector
    from simkit.scenario import load_scenario
    spec = get_game(GAME)
    sc = load_scenario(GAME)
    params = sc.params()
    levels = ["greedy", "mcts:100", "mcts:400"]
    print("Draw diagnosis of the default scenario (cap_result = draw, max_turns = 100), seed 0\n")
    print(f"Self-play, {games} games per level (first player alternating):\n")
    print("| level | decided | natural draws (stalemate) | capped draws (turn 100) | mean turns |")
    print("|---|---|---|---|---|")
    for lv in levels:
        rec = simulate(sc, RunConfig(games=games, seed=0, policies=(lv, lv)), progress=False).records()
        dec = np.mean(rec[:, 1] >= 0)
        stale = np.mean((rec[:, 1] < 0) & (rec[:, 3] == 2))
        cap = np.mean((rec[:, 1] < 0) & (rec[:, 3] == 1))
        print(f"| {lv} | {dec:.2f} | {stale:.2f} | {cap:.2f} | {rec[:, 2].mean():.1f} |", flush=True)
    print(f"\nStrong against weak, {games} games per seat order (same seeds): decided share in each seat order "
          "and the strong side's score\n")
    print("| strong vs weak | decided, strong as side 0 | decided, strong as side 1 | strong's score [95% CI] |")
    print("|---|---|---|---|")
    for strong, weak in (("mcts:100", "greedy"), ("mcts:400", "mcts:100")):
        c, _, _ = _pair(strong, weak, [], games, 0)
        dec = [float(np.mean(c["records"][k][:, 1] >= 0)) for k in ((strong, weak), (weak, strong))]
        print(f"| {strong} vs {weak} | {dec[0]:.2f} | {dec[1]:.2f} | {c['score']:.3f} [{c['ci'][0]:.3f}, "
              f"{c['ci'][1]:.3f}] |", flush=True)
    marks = list(range(0, 101, 10))
    n = min(games, 20)
    print(f"\nMaterial over turns, self-play ({n} games per level): units alive, both sides together (36 at "
          "the start), and the mean absolute material lead (unit values), at the start of each turn shown; "
          "a finished game counts with its final position\n")
    print("| level | " + " | ".join(f"t={t}" for t in marks) + " |")
    print("|---" * (len(marks) + 1) + "|")
    for lv in levels:
        pv = tuple(int(x) for x in policy_vector(spec, [lv, lv]))
        alive = np.zeros((n, len(marks)))
        lead = np.zeros((n, len(marks)))
        for g in range(n):
            values, _, inter, _ = spec.trajectory(params, 0, g, g % 2, pv)
            lost = np.concatenate([[0], np.cumsum(inter)])
            for i, t in enumerate(marks):
                k = min(t, len(values) - 1)
                alive[g, i] = 36 - lost[k]
                lead[g, i] = abs(values[k])
        print(f"| {lv} | " + " | ".join(f"{a:.1f} ({d:.1f})" for a, d in zip(alive.mean(0), lead.mean(0))) + " |",
              flush=True)
    print(f"\n(cells: units alive (mean |lead|)). `python scripts/warfare_search.py draws --games {games}`")


def mustshow() -> None:
    """Issue 22's must-show, as a designer runs it: the ladder (cap_result = material, through the committed
    example report reports/ladder-warfare) and the matchup on the default scenario."""
    from pathlib import Path

    from simkit.report.analysis_examples import EXAMPLES, run_example
    t = time.time()
    run_example("ladder-warfare", Path("runs/examples"), Path("reports"))
    lad = json.loads(Path("runs/examples/ladder-warfare/result/ladder.json").read_text())
    print(f"`simkit {' '.join(EXAMPLES['ladder-warfare'][0])}` (report: reports/ladder-warfare)\n")
    print("| rung | vs | score [95% CI] | draws |")
    print("|---|---|---|---|")
    for r in lad["steps"]:
        print(f"| {r['rung']} | {r['below']} | {r['score']:.3f} [{r['ci'][0]:.3f}, {r['ci'][1]:.3f}] | "
              f"{r['draw_rate']:.2f} |")
    print(f"\nskill depth {lad['skill_depth']} of {len(lad['steps'])}\n", flush=True)
    m = _cli(["matchup", GAME, "--policies", "greedy,mcts:400", "--games", "100"])
    cell = next(c for c in m["cells"] if c["policy"] == "mcts:400")
    print("`simkit matchup warfare --policies greedy,mcts:400 --games 100`: mcts:400 scores "
          f"{cell['score']:.3f} [{cell['ci'][0]:.3f}, {cell['ci'][1]:.3f}] ({time.time() - t:.0f} s wall)")


def speed(games: int) -> None:
    """Games and turns per CPU-second of one thread (process time, so other work on the machine counts
    less; kernels loaded first)."""
    import numba

    from simkit.games import get_game
    from simkit.policies import policy_vector
    from simkit.scenario import load_scenario
    numba.set_num_threads(1)
    spec = get_game(GAME)
    params = load_scenario(GAME).params()
    firsts = np.arange(games) % 2
    print("| policies (side 0, side 1) | games | games / CPU-s | turns / CPU-s | mean turns |")
    print("|---|---|---|---|---|")
    for pols in (("mcts:400", "greedy"), ("mcts:100", "mcts:100"), ("mcts:400", "mcts:400")):
        pv = policy_vector(spec, list(pols))
        spec.run_chunk(params, 99, 0, firsts[:1], pv, 6)        # load the kernels
        t = time.process_time()
        rec, _ = spec.run_chunk(params, 0, 0, firsts, pv, 6)
        dt = time.process_time() - t
        print(f"| {', '.join(pols)} | {games} | {games / dt:.3f} | {rec[:, 2].sum() / dt:.1f} | "
              f"{rec[:, 2].mean():.1f} |", flush=True)
    print(f"\n`python scripts/warfare_search.py speed --games {games}` (one thread)")


def leaves(games: int) -> None:
    """Of the decision nodes below the root that mcts:400 self-play (seed 3) made, how many it listed and how
    many a second visit never reached (K_LEAF: the engine lists those only when a second visit comes;
    docs/search.md), summed over every search of ``games`` games through the step API."""
    from simkit import env
    from simkit.engine.search import K_DECISION, K_LEAF, ROOT, TI_COUNT, TI_KIND
    from simkit.policies import policy_vector
    from simkit.scenario import load_scenario
    pv = policy_vector(load_scenario(GAME).spec, ("mcts:400", "mcts:400"))
    listed = waiting = 0
    for g in range(games):
        s = env.new_game(GAME, seed=3, game_index=g)
        while not s.is_over():
            if s.is_chance():
                s.roll()
                continue
            code = s.scripted_action(pv)
            work = s.steps._work        # the workspace the step API's last search used
            if work is not None:
                ti = work[1][0][0]
                kinds = ti[1:int(ti[ROOT, TI_COUNT]), TI_KIND]
                listed += int((kinds == K_DECISION).sum())
                waiting += int((kinds == K_LEAF).sum())
            s.apply(code)
    print("| games | nodes listed | nodes scored once, never listed | share never listed |")
    print("|---|---|---|---|")
    print(f"| {games} | {listed:,} | {waiting:,} | {waiting / max(listed + waiting, 1):.1%} |")
    print(f"\n`python scripts/warfare_search.py leaves --games {games}` (mcts:400 self-play, seed 3)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("part", choices=("tune", "turn", "draws", "mustshow", "speed", "leaves"))
    ap.add_argument("--games", type=int, default=50)
    a = ap.parse_args(argv)
    if a.part == "tune":
        tune(a.games)
    elif a.part == "turn":
        turn()
    elif a.part == "draws":
        draws(a.games)
    elif a.part == "speed":
        speed(a.games)
    elif a.part == "leaves":
        leaves(a.games)
    else:
        mustshow()
    return 0


if __name__ == "__main__":
    sys.exit(main())
