"""`make reports` (second half): example reports of the analysis commands, committed under reports/.

    python -m simkit.report.analysis_examples [NAME ...]

Each example runs one simkit command into runs/examples/<name>/ and writes
reports/<name>/ from it; ``quality`` traces every game's default scenario into one
report (the defaults' quality table for all four games). The command lines are the
EXAMPLES table below, so every committed report says exactly how it was made.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

EXAMPLES = {
    "compare-clock-leader": [["compare", "martian_chess", "--set-b", "clock=leader", "--policy", "random",
                              "--games", "20000"]],
    "sweep-storm-compensation": [["sweep", "storm_the_castle", "--vary", "second_player_dispatch_bonus=0..3",
                                  "--games", "8000"]],
    "values-martian-chess": [["values", "martian_chess", "--games", "20000"]],
    "matchup-martian-chess": [["matchup", "martian_chess", "--policies", "random,greedy,mcts:100",
                               "--games", "200"]],
    # issue 22's ladder in every game: each rung against the one below, 100 games per seat order. Warfare!'s under
    # cap_result=material (its default draws at the cap; the draw diagnosis of the default is in docs/skill.md)
    **{f"ladder-{name}": [["ladder", game, "--rungs", "random,greedy,mcts:100,mcts:400,mcts:1600", "--games", "100",
                           *sets]]
       for name, game, sets in (("martian-chess", "martian_chess", []), ("skorm", "skorm", []),
                                ("storm_the_castle", "storm_the_castle", []),
                                ("warfare", "warfare", ["--set", "cap_result=material"]))},
    # issue 26: the four games on one skill-luck chart, and a dice rule's effect on luck and skill (Warfare! without
    # its combat modifiers: the plain opposed d6 decides every fight)
    "luck-games": [["luck", "martian_chess", "skorm", "storm_the_castle", "warfare"]],
    "luck-warfare-modifiers": [["compare", "warfare", *[x for k in ("mod_cavalry_charge_infantry",
                                "mod_cavalry_vs_archer_fire", "mod_infantry_front_vs_archer",
                                "mod_spearman_vs_infantry", "mod_tree_defense") for x in ("--set-b", f"{k}=0")],
                                "--games", "100", "--luck", "random,greedy,mcts:100"]],
    "skill-warfare": [["run", "warfare", "--games", "100", "--skill", "greedy,mcts:25,mcts:100"]],
    "quality": [["quality", g, "--games", "500"] for g in ("martian_chess", "skorm", "storm_the_castle", "warfare")],
    # compare/sweep --quality: the quality metrics of two variants (or of every cell) on the same seeds
    "compare-quality-martian-chess": [["compare", "martian_chess", "--set-b", "max_plies=20", "--policy", "greedy",
                                       "--games", "4000", "--quality", "--quality-games", "1000"]],
    "sweep-quality-warfare": [["sweep", "warfare", "--vary", "activations=2..6", "--policy", "greedy",
                               "--games", "400", "--quality", "--quality-games", "200"]],
    # the commands of the tune and sensitivity examples in docs/ (their tables: simkit.report.doc_blocks)
    "sensitivity-warfare": [["sensitivity", "warfare", "--games", "1000"]],
    "tune-storm": [["tune", "storm_the_castle", "--knob", "second_player_dispatch_bonus=0..4", "--objective",
                    "first_player_advantage=0"]],
    "tune-mc-2knob": [["tune", "martian_chess", "--knob", "komi=-0.5..0.5:0.5", "--knob", "deadlock_plies=10..18",
                       "--objective", "first_player_advantage=0", "--objective", "draw_rate<=0.3", "--policy",
                       "random", "--games", "4000"]],
    "tune-skorm": [["tune", "skorm", "--knob", "second_player_first_actions=1..4", "--objective",
                    "first_player_advantage=0", "--games", "4000"]],
    "tune-warfare-2knob-4000": [["tune", "warfare", "--knob", "second_player_extra_activations=1..4", "--knob",
                                 "second_player_extra_turns=1,3,5,8", "--objective", "first_player_advantage=0",
                                 "--games", "4000", "--verify-games", "16000"]],
    # "fewer draws, still fair": minimise the draw rate with the first-player advantage as a constraint, and
    # see what it costs (the side effects against the unchanged scenario; docs/tune.md quotes its output)
    "tune-mc-fewer-draws": [["tune", "martian_chess", "--knob", "clock=deadlock,leader", "--knob",
                             "clock_plies=4..14", "--knob", "komi=0,0.5", "--objective", "draw_rate=min",
                             "--objective", "first_player_advantage=0", "--tolerance", "0.02", "--policy", "greedy",
                             "--games", "4000"]],
}


def _learn_compare(game: str, variant: str, games: int, values_games: int) -> list:
    """Issue 23: a variant that changes one unit's worth against the default, judged once by players with the
    hand-set evaluation and once by players with the evaluation learned for each variant: learn both, then
    compare (first-player advantage) and values (unit values) under --eval default and learned; greedy
    players throughout (values' own default, random, reads no evaluation). The learned compare is --eval auto:
    each variant's players on its learned weights, or on the hand-set ones where learn rejected the fit (what
    learning concluded is that variant's best evaluation)."""
    target = f"scenarios/{game}/{variant}.toml"
    out = [["learn", game], ["learn", target]]
    for ev in ("default", "auto"):
        out.append(["compare", game, target, "--games", str(games), "--eval", ev])
    for ev in ("default", "learned"):
        out.append(["values", target, "--games", str(values_games), "--policy", "greedy", "--eval", ev])
    # does the learned player beat the default one on the variant? greedy, then the search that judges learned
    # weights (GameSpec.learn_search); where that is not the default search, the default search too
    from simkit.games import get_game
    search = get_game(game).learn_search
    greedy_games, search_games = LEARN_MATCHUPS[game]
    out.append(["matchup", target, "--policies", "greedy@learned,greedy@default", "--games", str(greedy_games)])
    players = [f"{search}@learned", f"{search}@default"] + (["mcts:50@learned", "mcts:50@default"]
                                                           if search != "mcts:50" else [])
    out.append(["matchup", target, "--policies", ",".join(players), "--games", str(search_games)])
    return out


# each game's variant that makes one unit type much stronger or weaker by its rules (scenarios/<game>/<name>.toml),
# the unit, and the games of its compares and of each values run (the slower games play fewer)
LEARN_VARIANTS = {"martian_chess": ("pawns_four", "pawn"), "skorm": ("archers_range4", "archer"),
                  "storm_the_castle": ("heavy_cavalry", "cavalry"), "warfare": ("short_bows", "archer")}
LEARN_SIZES = {"martian_chess": (20000, 20000), "skorm": (10000, 4000), "storm_the_castle": (2000, 1000),
               "warfare": (2000, 1000)}
# games per seat order of the two matchups (greedy; the search): a greedy game is cheap, and a small edge needs
# many games for an interval that excludes 0.5
LEARN_MATCHUPS = {"martian_chess": (2000, 400), "skorm": (2000, 1000), "storm_the_castle": (10000, 1000),
                  "warfare": (10000, 1000)}


def learn_example_name(game: str) -> str:
    return "learn-compare-" + game.replace("_", "-")


# each example of issue 23 learns into a store of its own (runs/examples/<name>/store), so it reads no weights
# learned elsewhere and leaves none behind
LEARN_EXAMPLES = {learn_example_name(g): _learn_compare(g, v, *LEARN_SIZES[g]) for g, (v, _u) in LEARN_VARIANTS.items()}
EXAMPLES.update(LEARN_EXAMPLES)


def subdir(cmds: list, i: int) -> str:
    """A command's result directory in its example: the target, or its index and kind when targets repeat."""
    if len(cmds) == 1:
        return "result"
    targets = [c[1] for c in cmds]
    if len(set(targets)) == len(targets):
        return cmds[i][1]
    return f"{i + 1}-{cmds[i][0]}-{Path(cmds[i][1]).stem}" + ("-" + cmds[i][-1] if "--eval" in cmds[i] else "")


def run_example(name: str, runs: Path, reports: Path) -> Path:
    import os
    dirs = []
    env = dict(os.environ)
    if name in LEARN_EXAMPLES:
        store = runs / name / "store"
        shutil.rmtree(store, ignore_errors=True)
        env["SIMKIT_EVALUATIONS"] = str(store.resolve())
    for i, cmd in enumerate(EXAMPLES[name]):
        d = runs / name / subdir(EXAMPLES[name], i)
        shutil.rmtree(d, ignore_errors=True)
        d.parent.mkdir(parents=True, exist_ok=True)
        # --yes: an example is as big as it is on purpose (the size guard asks before an hour's work); learn
        # has no size guard
        yes = [] if cmd[0] == "learn" else ["--yes"]
        r = subprocess.run([sys.executable, "-m", "simkit", *cmd, "--out", str(d), *yes], stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, env=env)
        if r.returncode == 2 and b"no learned evaluation" in r.stderr:
            # learn rejected a variant's weights (below 0.5 in a match): there is no learned evaluation to compare
            # with, and the example says so instead of inventing one
            d.mkdir(parents=True, exist_ok=True)
            (d / "skipped.txt").write_text(r.stderr.decode().strip() + "\n")
            continue
        if r.returncode != 0:
            sys.stderr.write(r.stderr.decode())
            raise subprocess.CalledProcessError(r.returncode, cmd)
        dirs.append(str(d))
    out = reports / name
    shutil.rmtree(out, ignore_errors=True)
    title = f"simkit example: {' ; '.join('simkit ' + ' '.join(c) for c in EXAMPLES[name])}"
    if name == "quality":
        title = "simkit example: game quality of every game's default scenario (greedy vs greedy, 500 games each)"
    subprocess.run([sys.executable, "-m", "simkit", "report", *dirs, "-o", str(out), "--title", title], check=True,
                   stdout=subprocess.DEVNULL)
    return out / "index.html"


def main(argv=None) -> int:
    names = (sys.argv[1:] if argv is None else argv) or list(EXAMPLES)
    unknown = [n for n in names if n not in EXAMPLES]
    if unknown:
        print(f"unknown example(s) {', '.join(unknown)}; examples: {', '.join(EXAMPLES)}")
        return 2
    for n in names:
        t = time.perf_counter()
        index = run_example(n, Path("runs/examples"), Path("reports"))
        print(f"{n}: {index} ({time.perf_counter() - t:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
