"""The commands: games, rules, run, play, perft, dice, bench, precompile."""
from __future__ import annotations

import json
import sys
import time
from fractions import Fraction
from pathlib import Path

import click

from simkit.cli import cli
from simkit.cli.options import backend_options, play_options, policies_of, precision_option, scenario_options
from simkit.cli.longrun import long_command
from simkit.cli.options import tolerance_option
from simkit.errors import UsageError


def _echo_json(obj):
    from simkit.backends.store import _jsonable
    click.echo(json.dumps(obj, indent=2, default=_jsonable))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def games(as_json):
    """List the games with their unit types and policies.

    \b
    Example:
      simkit games
    """
    from simkit.games import all_games
    from simkit.policies import policy_names
    rows = [{"name": g.name, "title": g.title, "unit_types": list(g.unit_types), "policies": policy_names(g)}
            for g in all_games()]
    if as_json:
        return _echo_json(rows)
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(header_style="bold")
    for c in ("game", "title", "unit types", "policies"):
        t.add_column(c)
    for r in rows:
        t.add_row(r["name"], r["title"], ", ".join(r["unit_types"]), ", ".join(r["policies"]))
    console().print(t)


@cli.command()
@click.argument("game")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def rules(game, as_json):
    """Every rule option of GAME with its default and allowed values.

    \b
    Example:
      simkit rules martian_chess
    """
    from simkit.games import get_game
    spec = get_game(game)
    rows = [{"key": o.name, "default": o.default, "allowed": o.allowed(), "help": o.help} for o in spec.options]
    if as_json:
        return _echo_json(rows)
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=f"{spec.title} rule options", header_style="bold")
    for c in ("key", "default", "allowed", "meaning"):
        t.add_column(c, overflow="fold")
    for r in rows:
        default = r["default"]
        from simkit.report.fmt import option_value
        t.add_row(r["key"], "(table)" if isinstance(default, (dict, list)) and default else option_value(default),
                  r["allowed"], r["help"])
    console().print(t)
    click.echo(f"\nTables and full defaults: scenarios/{spec.name}/default.toml; "
               f"override any key with --set KEY=VALUE.")


def _default_out(scenario) -> Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    safe = "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in scenario.name)[:40]
    base = Path("runs") / f"{scenario.game}-{safe}-{stamp}"
    out, k = base, 1
    while out.exists():
        out, k = Path(f"{base}-{k}"), k + 1
    return out


@cli.command()
@click.argument("target", required=False)
@play_options
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Run directory (default: runs/<game>-<scenario>-<time>).")
@click.option("--no-save", is_flag=True, help="Write no run directory.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as one JSON object.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr (default: on a terminal; in a log, a line every minute).")
@precision_option
@tolerance_option
@backend_options
@click.option("--skill", default=None, metavar="P1,P2,...",
              help="Repeat the run at each skill level (both sides play it; same seeds) and say, per metric, "
                   "whether the result is stable, converging or reversing over skill.")
@long_command
def run(target, sets, games, seed, policy, policy0, policy1, first, threads, chunk_size, snapshot_ply,
        out, no_save, as_json, progress, precision, tolerance, backend, workers, scheduler, skill, lr):
    """Play a balance run of TARGET (a game name or a scenario file).

    Ctrl-C keeps the finished chunks (exit 130); `--resume --out DIR` finishes the run with the
    options it was started with.

    \b
    Examples:
      simkit run martian_chess --games 100000 --policy random
      simkit run scenarios/martian_chess/clock_leader.toml --policy0 greedy --policy1 random
      simkit run martian_chess --set clock=off --set max_plies=200 --json
      simkit run martian_chess --games 1000000 --precision 0.005
      simkit run martian_chess --policy random --tolerance 0.02
      simkit run martian_chess --games 1000000 --backend dask --workers 2
      simkit run warfare --games 400 --skill greedy,mcts:100,mcts:400
      simkit run --resume --out runs/my-run
    """
    from simkit.analysis.metrics import check_precision, check_tolerance
    from simkit.plan import Part, Plan
    lr.require(target=target)
    check_precision(precision)
    check_tolerance(tolerance)
    from simkit.scenario import load_scenario
    scenario = load_scenario(target, list(sets))
    pols = policies_of(policy, policy0, policy1)
    levels = skill.split(",") if skill else None
    if levels:      # each level, then the check that they are a skill order (`skill.order_parts`)
        from simkit.analysis.skill import order_parts
        lr.size(Plan("run", len(levels), "levels", [Part(scenario.game, (lvl, lvl), games) for lvl in levels]
                     + order_parts(scenario.game, levels, games), threads=threads))
    else:
        lr.size(Plan("run", 1, "runs", [Part(scenario.game, pols, games)], threads=threads,
                     early_stop=precision is not None))
    from simkit.engine.runner import RunConfig, simulate
    config = RunConfig(games=games, seed=seed, policies=pols, first=first, chunk_size=chunk_size,
                       snapshot_ply=snapshot_ply)
    out_dir = None if no_save else Path(out) if out else _default_out(scenario)
    if skill:
        return _run_skill(scenario, config, levels, threads, out_dir, as_json, precision, backend, progress, lr)
    from simkit.backends.dask import make_backend
    from simkit.engine.runner import validate_config
    validate_config(scenario.spec, config)      # option errors before any cluster starts
    lr.out = out_dir
    with make_backend(backend, scheduler, workers, threads) as be, lr.progress(progress, bar=False):
        result = simulate(scenario, config, threads=threads, out_dir=out_dir, resume=lr.resume,
                          progress=progress, keep=False, precision=precision, backend=be, command=lr.command)
    s = result.summary()
    if tolerance is not None and result.games_done:
        from simkit.analysis.metrics import fpa_equivalence
        s["equivalence"] = fpa_equivalence(result.tally, tolerance)
    if as_json:
        _echo_json(s)
    else:
        _print_run(result, s, out_dir)
    if result.interrupted:
        click.echo(f"interrupted: kept {result.games_done:,} of {games:,} games in {out_dir}; finish with: "
                   f"{lr.finish_with()}" if out_dir else f"interrupted after {result.games_done:,} of {games:,} "
                   f"games: nothing kept (--no-save); run with --out DIR to be able to stop and resume", err=True)
        sys.exit(130)


def _run_skill(scenario, config, levels, threads, out_dir, as_json, precision, backend, progress, lr):
    from simkit.analysis.skill import skill_run
    from simkit.cli.skill_commands import print_skill
    if precision is not None or backend:
        raise UsageError("--skill runs locally to completion: drop --precision and --backend")
    with lr.progress(progress):
        res = skill_run(scenario, levels, config, threads=threads, out_dir=lr.work(out_dir), resume=lr.resume)
    if as_json:
        return _echo_json(res.summary())
    print_skill(res, f"{scenario.spec.title}: {scenario.name} over skill ({config.games:,} games per level, "
                     f"seed {config.seed}, first player {config.first}; below the line: how games end)",
                unit=scenario.spec.length_unit)
    if out_dir:
        click.echo(f"skill directory: {out_dir} (skill.json; one run directory per level)")


def _print_run(result, s, out_dir):
    from simkit.analysis.metrics import matrix_tables, side_table, unit_table
    from simkit.cli.show import console, end_table, frame_table, summary_table
    from rich.markup import escape
    from simkit.report import fmt
    c = console()
    sc, cfg = result.scenario, result.config
    c.print(summary_table(s, escape(f"{fmt.game_variant(sc.spec.title, sc.name, sc.overrides)} "
                                    f"({fmt.context(cfg.policies, cfg.first, cfg.seed)})")))
    c.print(end_table(s))
    units = unit_table(result.tally)
    cols = [k for k in ("kills", "losses", "deaths", "dispatched", "attacks") if k in units.columns]
    if cols and result.games_done:
        per_game = units[cols] / result.games_done
        c.print(frame_table(per_game, "per game, by side and unit type"))
    sides = side_table(result.tally)
    if not sides.empty:
        c.print(frame_table(sides, "per game, by side"))
    for stat, matrix in matrix_tables(result.tally).items():
        c.print(frame_table(matrix, f"{stat.replace('_', ' ')} per game: row unit against column unit"))
    from simkit.analysis.degenerate import tally_flags
    for f in tally_flags(result.tally, result.config.policies):
        c.print(f"[yellow]degenerate play:[/yellow] {f['message']}")
    if s.get("first_player_advantage_significance") in ("matters", "negligible"):
        lo, hi = s["first_player_advantage_ci"]
        c.print(f"first-player advantage {s['first_player_advantage']:+.4f} [{lo:+.4f}, {hi:+.4f}]: "
                + ("significant and at least" if s["first_player_advantage_significance"] == "matters"
                   else "significant but negligible, below")
                + f" the practical threshold {s['practical_threshold']:g}")
    if s.get("equivalence"):
        e = s["equivalence"]
        c.print(f"--tolerance {e['tolerance']:g}: first-player advantage 90% CI [{e['ci90'][0]:+.4f}, "
                f"{e['ci90'][1]:+.4f}]: {e['verdict']}")
    if s.get("precision") is not None:
        c.print(f"--precision {s['precision']}: " + (f"reached after {s['games']:,} games" if s["stopped_at_precision"]
                else f"not reached within {s['games']:,} games"))
    resumed = s.get("resumed_games") or 0
    from simkit.bench import rate_text      # a search's 0.75 games/s, not "1 games/s"
    c.print(f"{s['games']:,} games in {s['elapsed_s']:.2f} s ({rate_text(s['games_per_s'])} games/s)"
            + (f" over the whole run ({resumed:,} of them played before this --resume)" if resumed else "")
            if s.get("games_per_s") else "")
    if out_dir:
        c.print(f"run directory: {out_dir}")


@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--replay", type=click.Path(file_okay=False), default=None, metavar="DIR",
              help="Replay a saved playtest (simkit playtest --out DIR): its transcript, every die and AI "
                   "decision drawn again from the seed and checked against the recorded game.")
@click.option("--seed", type=int, default=0, show_default=True, help="Run seed.")
@click.option("--game", "game_index", type=int, default=0, show_default=True,
              help="Game index within the run (the same game `simkit run` plays at that index).")
@click.option("--policy", default=None, help="Policy of both sides (default greedy).")
@click.option("--policy0", default=None, help="Policy of side 0.")
@click.option("--policy1", default=None, help="Policy of side 1.")
@click.option("--first", type=click.Choice(["side0", "side1"]), default=None,
              help="Who moves first (default: as `run --first alternate` would).")
def play(target, sets, replay, seed, game_index, policy, policy0, policy1, first):
    """Play one game of TARGET move by move, with a text board.

    The trace opens with the game, variant, policies, seed, game index and first
    player; then every move with what the rules did: each combat's modifiers and
    roll, every death and advance, captures, promotions, shield blocks, the Gold
    Tile, the graveyards. Its last line is the result.

    \b
    Examples:
      simkit play martian_chess --seed 3 --policy random
      simkit play storm_the_castle --policy0 greedy --policy1 random --game 5
      simkit play warfare --set activations=3 --seed 2
      simkit play --replay runs/playtest-martian_chess-20261202-101500
    """
    if replay is not None:
        from simkit.env.playtest import replay as replay_game
        text, _ = replay_game(replay)
        return click.echo(text)
    if target is None:
        raise UsageError("give TARGET (a game name or scenario file), or --replay DIR")
    from simkit.engine.runner import RunConfig, validate_config
    from simkit.scenario import load_scenario
    scenario = load_scenario(target, list(sets))
    spec = scenario.spec
    config = RunConfig(games=1, seed=seed, policies=policies_of(policy, policy0, policy1))
    validate_config(spec, config)
    from simkit.policies import policy_vector
    ids = tuple(int(x) for x in policy_vector(spec, config.policies))   # a trace is the kernel's own game
    if game_index < 0:
        raise UsageError(f"--game must be >= 0, got {game_index}")
    side = game_index % 2 if first is None else (0 if first == "side0" else 1)
    from simkit.cli.compiling import announce
    announce(spec, "trace")
    import inspect
    from simkit.games.trace import variant_label
    kw = {"variant": variant_label(scenario)} if "variant" in inspect.signature(spec.play).parameters else {}
    click.echo(spec.play(scenario.params_for(config.policies), seed, game_index, side, ids, **kw))


@cli.command()
@click.argument("game")
@click.option("--depth", "-d", type=click.IntRange(1, 10), default=3, show_default=True)
@scenario_options
@click.option("--json", "as_json", is_flag=True, help='Print {"1": n1, "2": n2, ...}.')
def perft(game, depth, sets, as_json):
    """Count leaf positions at depths 1..D from the start position (move-generator check).

    \b
    Example:
      simkit perft martian_chess --depth 4
    """
    from simkit.scenario import load_scenario
    scenario = load_scenario(game, list(sets))
    spec = scenario.spec
    if spec.perft is None:
        raise UsageError(f"perft does not apply to {spec.name}: {spec.perft_note}")
    counts = spec.perft(scenario.params(), depth)
    if as_json:
        return _echo_json({str(d): n for d, n in enumerate(counts, 1)})
    for d, n in enumerate(counts, 1):
        click.echo(f"depth {d}: {n:,}")


@cli.group()
def dice():
    """Exact dice probabilities of the games' dice mechanics.

    \b
    Examples:
      simkit dice storm --modifier 2
      simkit dice storm --attack 4 --defense 3 --defense-bonus 1
      simkit dice warfare --attacker-mod 3 --defender-mod 0
    """


def _frac(f: Fraction) -> str:
    return f"{f.numerator}/{f.denominator}" if f.denominator != 1 else str(f.numerator)


@dice.command("storm")
@click.option("--modifier", type=int, default=None, help="(Attack + bonuses) - (Defense + bonuses).")
@click.option("--attack", type=int, default=None)
@click.option("--defense", type=int, default=None)
@click.option("--attack-bonus", type=int, default=0, show_default=True)
@click.option("--defense-bonus", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def dice_storm(modifier, attack, defense, attack_bonus, defense_bonus, as_json):
    """Storm the Castle 2d6 threshold: success when roll <= 3 + modifier, 2 fails, 12 succeeds.

    \b
    Example:
      simkit dice storm --modifier 2     # success 10/36
    """
    from simkit.engine.dice import storm_distribution
    if modifier is None:
        if attack is None or defense is None:
            raise UsageError("give --modifier M, or --attack A and --defense D")
        modifier = (attack + attack_bonus) - (defense + defense_bonus)
    elif attack is not None or defense is not None:
        raise UsageError("give either --modifier or --attack/--defense, not both")
    d = storm_distribution(modifier)
    keys = ("success", "critical_failure", "critical_success")
    if as_json:
        return _echo_json({"modifier": modifier, **{k: float(d[k]) for k in keys},
                           **{f"{k}_exact": _frac(d[k]) for k in keys}})
    click.echo(f"modifier {modifier:+d} (success when 2d6 <= {3 + modifier}, natural 2 fails, natural 12 succeeds)")
    for k in keys:
        click.echo(f"  P({k.replace('_', ' ')}) = {_frac(d[k]):>6} = {float(d[k]):.6f}")


@dice.command("warfare")
@click.option("--attacker-mod", type=int, default=0, show_default=True)
@click.option("--defender-mod", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def dice_warfare(attacker_mod, defender_mod, as_json):
    """Warfare! opposed d6 with modifiers, ties rolled again.

    \b
    Example:
      simkit dice warfare --attacker-mod 3 --defender-mod 0
    """
    from simkit.engine.dice import warfare_distribution
    d = warfare_distribution(attacker_mod, defender_mod)
    if as_json:
        return _echo_json({k: float(v) for k, v in d.items()} | {f"{k}_exact": _frac(v) for k, v in d.items()})
    click.echo(f"attacker {attacker_mod:+d} vs defender {defender_mod:+d}, ties re-rolled")
    for k, v in d.items():
        click.echo(f"  P({k.replace('_', ' ')}) = {_frac(v):>6} = {float(v):.6f}")


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--seconds", type=float, default=1.0, show_default=True, help="Target seconds per measurement.")
@click.option("--repeats", type=int, default=3, show_default=True, help="Measurements per cell (median quoted).")
@click.option("--output", type=click.Path(dir_okay=False), default=None, help="Also write the results as JSON here.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--dask", "with_dask", is_flag=True,
              help="Also time runs on a Dask LocalCluster of 2 one-thread workers against the local backend "
                   "with 1 thread (the speed-up; needs simkit[dask]): greedy and the search at the first "
                   "--mcts-budget, or the --policy ones.")
@click.option("--mcts-budget", "mcts_budgets", type=click.IntRange(1, 1_000_000), multiple=True,
              help="Search budgets of the mcts rows (repeatable; default 400 and 1600).")
@click.option("--policy", "policies", multiple=True,
              help="Only these policies (repeatable): a scripted one, mcts (every budget) or mcts:N.")
@click.option("--threads", "thread_counts", type=click.IntRange(1, 1024), multiple=True,
              help="Only these thread counts (repeatable; default 1 and all).")
@click.option("--commands", "whole", is_flag=True,
              help="Also time whole commands in fresh processes: a one-game run (start-up) and 1,000,000 "
                   "random Martian Chess games on 2 threads.")
@click.option("--cold-compile", is_flag=True,
              help="With --commands: also time `simkit precompile` into an empty numba cache.")
@click.option("--against", type=click.Path(file_okay=False, exists=True), default=None,
              help="Another simkit checkout (e.g. `git worktree add /tmp/base v1`) measured side by side: "
                   "fresh processes alternating between the two, medians and the ratio this/other.")
def bench(games, seconds, repeats, output, as_json, with_dask, mcts_budgets, policies, thread_counts, whole,
          cold_compile, against):
    """Plies (or turns) per second and games/s per game and policy, 1 thread and all threads (medians).

    Each game's speed is in its own length unit: plies for Martian Chess and Skorm, turns
    for the turn-based games. "per CPU-s" divides by the CPU time this process used, the
    per-thread speed even when other work shares the machine.

    \b
    Examples:
      simkit bench
      simkit bench martian_chess --repeats 5 --output bench.json
      simkit bench martian_chess --dask
      simkit bench skorm --dask --policy mcts:400 --threads 1
      simkit bench warfare --policy mcts:400 --threads 1
      simkit bench martian_chess --policy random --threads 1 --against /tmp/base
      simkit bench martian_chess --commands --cold-compile
    """
    from simkit.bench import rate_text, run_against, run_bench, run_dask_bench
    log = None if as_json else lambda m: click.echo(m, err=True)
    budgets = mcts_budgets or (400, 1600)
    if against:
        results = run_against(against, list(games) or None, seconds=seconds, repeats=repeats, log=log,
                              mcts_budget=budgets[0], policies=policies, thread_counts=thread_counts)
        if output:
            from simkit.backends.store import atomic_write_json
            atomic_write_json(Path(output), results)
        return _echo_json(results) if as_json else _print_against(results)
    results = run_bench(list(games) or None, seconds=seconds, repeats=repeats, log=log, mcts_budgets=budgets,
                        policies=policies, thread_counts=thread_counts)
    if not results["results"]:
        raise UsageError(f"no bench cell matches --policy {', '.join(policies)}: name a policy of the game, "
                         f"mcts, or mcts:N")
    if whole or cold_compile:
        from simkit.bench import run_whole_commands
        results["commands"] = run_whole_commands(cold_compile=cold_compile, log=log)
    if with_dask:   # a scripted run and a search-level run (or the --policy ones), each on the cluster
        search = f"mcts:{budgets[0]}"
        dask_policies = [p if p != "mcts" else search for p in policies] or ["greedy", search]
        results["dask"] = [run_dask_bench(games[0] if games else "martian_chess", p, seconds=max(4.0, 4 * seconds),
                                          repeats=repeats, log=log) for p in dask_policies]
    if output:
        from simkit.backends.store import atomic_write_json
        atomic_write_json(Path(output), results)
    if as_json:
        return _echo_json(results)
    from rich.table import Table
    from simkit.cli.show import console
    from simkit.report import fmt
    t = Table(title="simkit bench (medians; speed in each game's own unit: plies or turns)", header_style="bold")
    for c in ("game", "policy", "threads", "unit", "per s", "per s per thread", "per CPU-s", "games/s",
              "games/CPU-s", "iterations/CPU-s"):
        t.add_column(c, justify="right" if c not in ("game", "policy", "unit") else "left")
    for r in results["results"]:
        unit = r.get("length_unit") or "plies"
        its = r.get("iterations_per_cpu_s")
        t.add_row(r["game"], r["policy"], str(r["threads"]), unit, f"{fmt.count(r['plies_per_s'])} {unit}/s",
                  f"{fmt.count(r['plies_per_s'] / r['threads'])} {unit}/s", f"{fmt.count(r['plies_per_cpu_s'])} {unit}",
                  rate_text(r["games_per_s"]),
                  rate_text(r["games_per_cpu_s"]) if r.get("games_per_cpu_s") else "", fmt.count(its) if its else "")
    console().print(t)
    for r in results.get("commands", ()):
        console().print(f"{r['command']}: {r['wall_s']:.2f} s wall" + (f" (median of {r['repeats']})"
                                                                       if r["repeats"] > 1 else ""))
    for d in results.get("dask", ()):
        console().print(f"Dask, {d['workers']} workers x 1 thread vs local 1 thread ({d['game']} {d['policy']}, "
                        f"{d['games']:,} games): {d['dask_s']:.2f} s vs {d['local_1_thread_s']:.2f} s, "
                        f"speed-up {d['speedup']:.2f}x")


def _print_against(results):
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=f"simkit bench: this checkout vs {results['other']} (medians of {results['repeats']})",
              header_style="bold")
    for c in ("game", "policy", "threads", "unit", "this /CPU-s", "other /CPU-s", "ratio", "this /s", "other /s",
              "ratio (wall)"):
        t.add_column(c, justify="left" if c in ("game", "policy", "unit") else "right")
    for r in results["results"]:
        t.add_row(r["game"], r["policy"], str(r["threads"]), r["length_unit"], f"{r['plies_per_cpu_s']:,.0f}",
                  f"{r['plies_per_cpu_s_other']:,.0f}", f"{r['plies_per_cpu_s_ratio']:.2f}x",
                  f"{r['plies_per_s']:,.0f}", f"{r['plies_per_s_other']:,.0f}", f"{r['plies_per_s_ratio']:.2f}x")
    console().print(t)


def _warm_game(name: str) -> float:
    """Compile (or load) one game's kernels in this process -> seconds it took."""
    from simkit.games import get_game
    t = time.perf_counter()
    spec = get_game(name)
    if spec.warm:
        spec.warm()
    return time.perf_counter() - t


@cli.command()
@click.argument("games", nargs=-1)
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Games compiled at once, each in its own process (default: the CPUs this process may use).")
def precompile(games, jobs):
    """Compile (or load from cache) every game's kernels, so runs start at once.

    numba compiles on one core, so the games compile in parallel processes, one per CPU;
    each game's time is printed as it finishes, then the wall time of the whole step.

    \b
    Examples:
      simkit precompile
      simkit precompile warfare --jobs 1
    """
    import concurrent.futures as cf
    import multiprocessing
    import os
    from simkit.cli.compiling import TYPICAL, cold
    from simkit.games import GAMES, get_game
    names = list(games) or list(GAMES)
    specs = [get_game(n) for n in names]   # unknown names fail here, with the list of games
    for spec in specs:
        if spec.warm and cold(spec):
            click.echo(f"{spec.name}: compiling ({TYPICAL})...", err=True)
    jobs = min(jobs or len(os.sched_getaffinity(0)), len(names))
    t = time.perf_counter()
    if jobs == 1:
        for n in names:
            click.echo(f"{n}: ready in {_warm_game(n):.1f} s")
    else:
        with cf.ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(_warm_game, n): n for n in reversed(names)}   # the big kernels last in the registry
            for f in cf.as_completed(futures):
                click.echo(f"{futures[f]}: ready in {f.result():.1f} s")
    click.echo(f"all {len(names)} games ready in {time.perf_counter() - t:.1f} s wall ({jobs} at a time)")


@cli.command()
@click.argument("target")
@click.argument("scenario", required=False)
@scenario_options
@click.option("--human", type=click.IntRange(0, 1), default=0, show_default=True, help="The side you play.")
@click.option("--against", default="mcts:400", show_default=True,
              help="The AI's policy (any policy name, e.g. greedy, mcts:1600, python:MOD:FACTORY).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the dice and the AI's draws.")
@click.option("--first", type=click.IntRange(0, 1), default=0, show_default=True, help="The side that moves first.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Where the game is saved (default: runs/playtest-<game>-<time>).")
@click.option("--no-save", is_flag=True, help="Save nothing.")
def playtest(target, scenario, sets, human, against, seed, first, out, no_save):
    """Play TARGET yourself in the terminal against simkit's AI.

    TARGET is a game name or a scenario file; SCENARIO a scenario of that game by
    name. The board is drawn as `simkit play` draws it; your legal moves are listed
    as short codes: type one (or its number), `hint` for the AI's suggestion, `undo`
    to take back your last move, `resign`, or `help`. Dice are rolled as a run rolls
    them and shown with their odds. The game is saved as a run directory (a
    games.parquet row tagged with your side, moves.json, trace.txt); replay it with
    `simkit play --replay DIR`.

    \b
    Examples:
      simkit playtest martian_chess --human 0 --against mcts:400
      simkit playtest martian_chess clock_off --set komi=1 --human 1 --against greedy
    """
    from simkit.env import game_scenario
    from simkit.env.playtest import playtest as run_playtest
    if scenario is not None or "/" not in target and not target.endswith(".toml"):
        sc = game_scenario(target, scenario, list(sets) or None)
    else:
        from simkit.scenario import load_scenario
        sc = load_scenario(target, list(sets))
    from simkit.cli.compiling import announce
    announce(sc.spec, "trace")
    if out is None and not no_save:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = Path("runs") / f"playtest-{sc.game}-{stamp}"
    run_playtest(sc, human, against, seed=seed, first=first, out=None if no_save else out)
