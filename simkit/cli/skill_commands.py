"""`simkit ladder`, and the table `run --skill` prints: how conclusions depend on skill."""
from __future__ import annotations

import click

from simkit.cli import cli
from simkit.cli.analysis_commands import _echo_json, _out_dir
from simkit.cli.longrun import long_command
from simkit.cli.options import PYTHON_POLICY_HELP, scenario_options
from simkit.cli.progress import progress_option
from simkit.policies import FIRST_MODES


def _players(f):
    """--policy/--policy0/--policy1, --seed and --first, as every playing command has them."""
    for deco in reversed([
        click.option("--policy", default=None, help="Policy of both sides (default greedy)."),
        click.option("--policy0", default=None, help="Policy of side 0."),
        click.option("--policy1", default=None, help="Policy of side 1."),
        click.option("--seed", type=int, default=0, show_default=True),
        click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True),
    ]):
        f = deco(f)
    return f


def _threads(f):
    return click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")(f)


def _saves(files: str, kind: str, printed: str):
    """--out DIR (the result directory), --no-save and --json."""
    def deco(f):
        f = click.option("--json", "as_json", is_flag=True, help=f"Print {printed}.")(f)
        f = click.option("--no-save", is_flag=True, help="Write no directory.")(f)
        return click.option("--out", type=click.Path(file_okay=False), default=None,
                            help=f"Directory for {files} (default: runs/{kind}-<game>-<time>).")(f)
    return deco


@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--rungs", default=None, metavar="P1,P2,...",
              help="The ladder's policies, weakest first (default: random, greedy, mcts:START doubling "
                   "up to --ceiling); " + PYTHON_POLICY_HELP)
@click.option("--start", type=int, default=50, show_default=True, help="First MCTS budget.")
@click.option("--ceiling", type=int, default=400, show_default=True, help="Largest MCTS budget.")
@click.option("--games", "-n", type=int, default=200, show_default=True, help="Games per seat order per rung.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--draw-diagnosis/--no-draw-diagnosis", default=True, show_default=True,
              help="Where draws or capped games dominate a rung, measure whether they belong to the game or the "
                   "players (docs/skill.md, \"Draw diagnosis\").")
@_saves("ladder.json/ladder.csv", "ladder", "ladder.json")
@progress_option
@long_command
def ladder(target, sets, rungs, start, ceiling, games, seed, first, threads, draw_diagnosis, out, no_save, as_json,
           progress, lr):
    """Skill ladder of TARGET: each rung against the rung below, both seat orders, same seeds.

    A rung gains when its score's 95% interval is above 1/2; the skill depth is
    the number of rungs that gain, from the bottom, before the first that does not.
    Ctrl-C keeps every finished seating; --resume --out DIR finishes the ladder.

    \b
    Examples:
      simkit ladder martian_chess
      simkit ladder skorm --ceiling 1600 --games 400
      simkit ladder warfare --rungs greedy,mcts:100,mcts:400 --games 100
    """
    from simkit.analysis.ladder import ladder as run_ladder, rungs_of
    from simkit.engine.runner import RunConfig
    from simkit.errors import UsageError
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    lr.require(target=target)
    sc = load_scenario(target, list(sets))
    if start < 1 or ceiling < start:
        raise UsageError(f"--start must be >= 1 and --ceiling >= --start, got {start} and {ceiling}")
    names = rungs.split(",") if rungs else rungs_of(sc.spec, start, ceiling)
    config = RunConfig(games=games, seed=seed, policies=(names[0], names[0]), first=first)
    out_dir = _out_dir("ladder", f"{sc.game}-{sc.name}", out, no_save)
    # each rung against the one below, both seat orders (a draw diagnosis, where one is needed, plays more:
    # how many is known only after the rungs)
    lr.size(Plan("ladder", len(names) - 1, "rungs", [Part(sc.game, seats, games) for lo, hi in zip(names, names[1:])
                                                     for seats in ((hi, lo), (lo, hi))], threads=threads))
    with lr.progress(progress):
        res = run_ladder(sc, names, config, threads=threads, out_dir=lr.work(out_dir), draws=draw_diagnosis)
    if as_json:
        return _echo_json(res.summary())
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=f"{sc.spec.title} skill ladder: {sc.name} ({games:,} games per seat order, seed {seed})",
              header_style="bold")
    for col in ("rung", "vs", "score [95% CI]", "draws", "gain", "Elo [95% CI]"):
        t.add_column(col, justify="right" if col in ("score [95% CI]", "draws", "Elo [95% CI]") else "left")
    ratings = res.ratings
    for s in res.steps:
        elo = ratings.rating(s["rung"])
        t.add_row(s["rung"], s["below"], f"{s['score']:.3f} [{s['ci'][0]:.3f}, {s['ci'][1]:.3f}]",
                  f"{s['draw_rate']:.1%}", s["gain"], f"{elo[0]:.0f} [{elo[1]:.0f}, {elo[2]:.0f}]")
    t.caption = f"Elo: every rung on one scale, {ratings.anchor} = 0 (simkit ratings; docs/skill.md)"
    c = console()
    c.print(t)
    summ = res.summary()
    stop = summ["first_rung_without_gain"]
    c.print(f"skill depth: {res.depth} of {len(res.steps)} rungs gain significantly"
            + (f"; {stop} is the first that does not" if stop else ""))
    from simkit.analysis.ratings import ratings_text
    for line in ratings_text(ratings)[len(ratings.players):]:      # the span, per doubling, separated pairs
        c.print(line, highlight=False)
    for s in res.steps:
        for f in s["flags"]:
            c.print(f"[yellow]degenerate play:[/yellow] {f}")
    if res.draw_diagnosis:
        c.print(f"[yellow]draw diagnosis:[/yellow] {res.draw_diagnosis['finding']}")
    if out_dir:
        c.print(f"ladder directory: {out_dir} (ladder.json, ladder.csv)")


@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--levels", default="greedy,mcts:100,mcts:400", show_default=True, metavar="P1,P2,...",
              help="The players, weakest first: self-play at each, the strongest against the one below, and "
                   "the strongest against a draw-averse copy of itself.")
@click.option("--games", "-n", type=int, default=20, show_default=True,
              help="Games per level and per seat order of each pairing.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@_saves("draws.json", "draws", "draws.json")
@progress_option
@long_command
def draws(target, sets, levels, games, seed, first, threads, out, no_save, as_json, progress, lr):
    """Why are TARGET's games drawn: the game itself, or its players?

    Measures (docs/skill.md, "Draw diagnosis"): each level's draws split into
    the game's own draws and games stopped by a cap; the strongest level
    against the one below in both seats (does a stronger player convert the
    games?); a draw-averse copy of the strongest search (mcts_contempt) against
    the neutral one (can the draws be avoided at no cost?); and the size of the
    evaluation lead over each fifth of the strongest level's games. `ladder` and
    `run --skill` run the same diagnosis where draws or capped games dominate.
    Ctrl-C keeps every finished run; --resume --out DIR finishes the diagnosis.

    \b
    Examples:
      simkit draws warfare
      simkit draws martian_chess --levels greedy,mcts:100 --games 50 --set clock=deadlock
    """
    from simkit.analysis.draws import diagnosis_parts, draw_diagnosis
    from simkit.analysis.matchup import check_policies
    from simkit.engine.runner import RunConfig
    from simkit.errors import UsageError
    from simkit.plan import Plan
    from simkit.scenario import load_scenario
    lr.require(target=target)
    sc = load_scenario(target, list(sets))
    names = check_policies(sc.spec, [x.strip() for x in levels.split(",") if x.strip()])
    if games < 1:
        raise UsageError(f"--games must be >= 1, got {games}")
    config = RunConfig(games=games, seed=seed, policies=(names[0], names[0]), first=first)
    out_dir = _out_dir("draws", f"{sc.game}-{sc.name}", out, no_save)
    lr.size(Plan("draws", len(names), "levels", diagnosis_parts(sc, names, games), threads=threads))
    with lr.progress(progress):
        res = draw_diagnosis(sc, names, config, threads=threads, out_dir=lr.work(out_dir))
    if as_json:
        return _echo_json(res)
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=f"{sc.spec.title} draw diagnosis: {sc.name} ({games:,} games per level, seed {seed})",
              header_style="bold")
    for col in ("self-play", "draws [95% CI]", "the game's own draws", "drawn at a cap", "capped"):
        t.add_column(col, justify="left" if col == "self-play" else "right")
    for r in res["levels"]:
        t.add_row(r["level"], f"{r['draw_rate']:.1%} [{r['draw_ci'][0]:.1%}, {r['draw_ci'][1]:.1%}]",
                  f"{r['natural_draw_rate']:.1%}", f"{r['capped_draw_rate']:.1%}", f"{r['capped_rate']:.1%}")
    c = console()
    c.print(t)
    cx = res.get("cross_play")
    if cx:
        c.print(f"cross-play: {cx['strong']} against {cx['weak']} (both seats) scores {cx['score']:.3f} "
                f"[{cx['ci'][0]:.3f}, {cx['ci'][1]:.3f}], {cx['decided_rate']:.1%} of the games decided")
    cp = res.get("contempt_probe")
    if cp:
        c.print(f"contempt probe: {cp['probe']} against {cp['against']} draws {cp['draw_rate']:.1%} "
                f"[{cp['draw_ci'][0]:.1%}, {cp['draw_ci'][1]:.1%}] (neutral self-play {cp['neutral_draw_rate']:.1%}) "
                f"and scores {cp['score']:.3f} [{cp['ci'][0]:.3f}, {cp['ci'][1]:.3f}]")
    elif res.get("contempt_probe_skipped"):
        c.print(f"contempt probe: skipped: {res['contempt_probe_skipped']}")
    mc = res.get("material_curve")
    if mc:
        leads = ", ".join("-" if x is None else f"{x:.2f}" for x in mc["mean_abs_lead_by_fifth"])
        c.print(f"lead over the game ({mc['policy']} self-play, {mc['games']} games): mean |lead| by fifth {leads}")
    c.print(f"[bold]finding:[/bold] {res['finding']}")
    if out_dir:
        c.print(f"draws directory: {out_dir} (draws.json)")


def print_skill(result, title: str, differences: bool = False, unit: str = "plies"):
    """The per-metric table of `run --skill` (and of compare/values --skill, whose metrics are
    ``differences``): estimate per level and the verdict; shares of games (draws, end reasons) in
    percent, or percentage points for a difference."""
    from rich.table import Table
    from simkit.analysis.side_effects import label
    from simkit.cli.show import console
    from simkit.report import fmt as F
    t = Table(title=title, header_style="bold")
    t.add_column("metric")
    for lvl in result.levels:
        t.add_column(lvl, justify="right")
    t.add_column("trend per level [95% CI]", justify="right")
    t.add_column("verdict")
    side = [m for m in result.metrics if m == "cap_rate" or m.startswith("end_")]
    names = list(result.metrics)
    for i, (m, v) in enumerate(result.metrics.items()):
        rate = F.kind_of(m) is F.rate
        why = v.get("missing") or {}
        if rate:
            kind = F.rate_diff if differences else F.rate
            cells = [why.get(lvl, "-") if e != e else f"{kind(e)} {F.interval(lo, hi, kind).removesuffix(' pp')}"
                     for lvl, (e, lo, hi) in zip(result.levels, v["estimates"])]
        else:
            f = "{:+.1f}" if m in ("mean_length", "mean_plies") else "{:+.4f}"
            cells = [why.get(lvl, "-") if e != e else f"{f.format(e)} [{f.format(lo)}, {f.format(hi)}]"
                     for lvl, (e, lo, hi) in zip(result.levels, v["estimates"])]
        tr = v["trend"]
        name = label(m, unit) if m in side else m.replace("_", " ")
        slope = "-" if tr["slope"] != tr["slope"] else \
            f"{F.rate_diff(tr['slope'])} {F.interval(*tr['ci'], F.rate_diff).removesuffix(' pp')}" if rate else \
            f"{tr['slope']:+.4g} [{tr['ci'][0]:+.4g}, {tr['ci'][1]:+.4g}]"
        # a line between the balance metrics and the side effects (how games end)
        t.add_row(name, *cells, slope, v["verdict"],
                  end_section=bool(side) and i + 1 < len(names) and names[i + 1] == side[0])
    c = console()
    c.print(t)
    for v in result.metrics.values():
        if "flag" in v:
            c.print(f"[yellow]reverses:[/yellow] {v['flag']}")
    for lvl, s in zip(result.levels, result.runs):
        for f in s.get("degenerate", []):
            c.print(f"[yellow]degenerate play ({lvl}):[/yellow] {f}")
    for msg in result.info.get("order_messages", []):
        c.print(f"[yellow]skill order:[/yellow] {msg}")
    dd = result.info.get("draw_diagnosis")
    if dd:
        c.print(f"[yellow]draw diagnosis:[/yellow] {dd['finding']}")


@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--knob", "knobs", multiple=True, metavar="KEY=RANGE",
              help="A rule option to search: KEY=A..B (integers), KEY=A..B:STEP (floats) or KEY=V1,V2,... "
                   "(repeatable).")
@click.option("--objective", "objectives", multiple=True, metavar="METRIC=T",
              help="METRIC=T, METRIC<=T, METRIC>=T or METRIC=A..B, optionally @WEIGHT, or METRIC=min / "
                   "METRIC=max with the other objectives as constraints (repeatable); metrics: "
                   "first_player_advantage, draw_rate, mean_length, decisiveness, side0_win_rate, ...")
@click.option("--lexicographic", is_flag=True, help="Compare objectives in the order given, not by weighted sum.")
@click.option("--tolerance", type=float, default=0.01, show_default=True,
              help="How close counts as meeting METRIC=T (TOST); also the loss scale of rates.")
@click.option("--games", "-n", type=int, default=2000, show_default=True,
              help="Games per setting in the first round (doubled each round).")
@click.option("--verify-games", type=int, default=None,
              help="Games per finalist in the verification (default 8x --games).")
@click.option("--finalists", type=click.IntRange(1, 10), default=3, show_default=True)
@click.option("--panel", default=None, metavar="P1,P2,...",
              help="With --objective strength: the opponents every setting of --policy plays, both seats "
                   "(default: greedy, the policy with its current knobs, the policy at half its budget).")
@_players
@_threads
@_saves("tune.json/tune.csv", "tune", "tune.json")
@progress_option
@long_command
def tune(target, sets, knobs, objectives, lexicographic, tolerance, games, verify_games, finalists, panel, policy,
         policy0, policy1, seed, first, threads, out, no_save, as_json, progress, lr):
    """Search rule knobs of TARGET for the setting that meets the objectives.

    Successive halving on common random numbers, then a verification of the
    finalists on fresh games; prints the recommended setting with every
    objective's estimate, 95% interval and whether it is met, and its side
    effects: length, draws, caps and end reasons against the unchanged
    scenario on the same games (the verdict names those that moved). Ctrl-C keeps every
    finished evaluation; --resume --out DIR replays the search from them and plays the rest.

    \b
    Examples:
      simkit tune storm_the_castle --knob dispatch_points=2..6 --objective first_player_advantage=0
      simkit tune martian_chess --knob deadlock_plies=8..20 --objective first_player_advantage=0 \\
          --objective draw_rate<=0.3 --policy random
      simkit tune martian_chess --knob clock=deadlock,leader --knob komi=0,0.5 --policy greedy \\
          --objective draw_rate=min --objective first_player_advantage=0 --tolerance 0.02
      simkit tune skorm --policy mcts:400 --knob mcts_c=0.5,1,2 --knob mcts_prior_temp=0.5,1 \\
          --objective strength=max --games 100

    With --objective strength the knobs are the search knobs of --policy (mcts_*, the
    game's own): each setting plays a panel of opponents (--panel) in both seats, and
    its strength is its expected score against them.
    """
    from simkit.analysis.tune import metric_ci, plan as tune_plan, tune as run_tune
    from simkit.cli.options import policies_of
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    lr.require(target=target)
    sc = load_scenario(target, list(sets))
    config = RunConfig(games=games, seed=seed, policies=policies_of(policy, policy0, policy1), first=first)
    strength = any(o.split("=")[0].split("<")[0].split(">")[0].strip() == "strength" for o in objectives)
    if strength:
        from simkit.analysis.tune import strength_plan
        lr.size(strength_plan(target, list(knobs), config, panel=panel.split(",") if panel else None,
                              base_sets=list(sets), verify_games=verify_games, finalists=finalists, threads=threads))
    else:
        lr.size(tune_plan(target, list(knobs), config, base_sets=list(sets), verify_games=verify_games,
                          finalists=finalists, threads=threads))
    out_dir = _out_dir("tune", f"{sc.game}-{sc.name}", out, no_save)
    log = None if as_json else (lambda m: click.echo(m, err=True))
    with lr.progress(progress):
        if strength:
            from simkit.analysis.tune import tune_strength
            res = tune_strength(target, list(knobs), list(objectives), config, base_sets=list(sets),
                                panel=panel.split(",") if panel else None, verify_games=verify_games,
                                tolerance=tolerance, finalists=finalists, threads=threads, out_dir=lr.work(out_dir),
                                log=log)
        else:
            res = run_tune(target, list(knobs), list(objectives), config, base_sets=list(sets),
                           verify_games=verify_games, tolerance=tolerance, finalists=finalists,
                           lexicographic=lexicographic, threads=threads, out_dir=lr.work(out_dir), log=log)
    s = res.summary()
    if as_json:
        return _echo_json(s)
    from rich.table import Table
    from rich.markup import escape
    from simkit.analysis.tune import METRICS, goal_of, loss_number
    from simkit.cli.analysis_commands import print_side_effects
    from simkit.cli.show import console
    from simkit.report import fmt
    c = console()
    goal = goal_of(res.objectives)
    rec = s["recommended"]

    def table(title, entries, mark=None):
        t = Table(title=title, header_style="bold")
        for k in res.keys:
            t.add_column(k)
        for o in res.objectives:
            t.add_column(o.text, justify="right")
        t.add_column("loss" if goal is None else "constraints' loss", justify="right")
        for v in entries:
            cells = []
            for o in res.objectives:
                e, lo, hi = metric_ci(v["summary"], o.metric)
                judged = o.met(v["summary"], tolerance) or ("← chosen" if v is mark else "")
                cells.append(f"{fmt.with_ci(e, lo, hi, fmt.kind_of(METRICS[o.metric]), sentence=False)} {judged}")
            t.add_row(*[escape(fmt.option_value(x)) for x in v["point"]], *cells,
                      f"{loss_number(v['loss'], res.objectives):.3g}")
        c.print(t)

    def side_effects(entries, stage):
        if stage not in res.unchanged:       # a strength tune changes the players, not the rules
            return
        base = res.unchanged[stage]
        print_side_effects(c, res.keys, [], [base["summary"]] + [v["summary"] for v in entries], sc.spec,
                           f"Side effects on the same {base['games']:,} games (first the unchanged scenario: "
                           f"{escape(fmt.overrides(dict(zip(res.keys, base['point']))))}; share of games with its "
                           f"95% interval)",
                           labels=["unchanged"] + [escape(fmt.overrides(dict(zip(res.keys, v["point"]))))
                                                   for v in entries])

    who = " vs ".join(config.policies) if not strength else f"{config.policies[0]} against {', '.join(res.panel)}"
    role = "they choose the recommendation" if len(res.verified) > 1 else "nothing to choose: they measure it"
    table(f"{sc.spec.title} tune: verified finalists ({res.verified[0]['games']:,} fresh games each, {who}; "
          f"{role})", res.verified, res.verified[0] if len(res.verified) > 1 else None)
    side_effects(res.verified, "verify")
    if res.confirmed:
        table(f"confirmation: the recommendation on {res.confirmed['games']:,} further fresh games (the "
              f"estimates below did not choose it)", [res.confirmed])
        side_effects([res.confirmed], "confirm")
    c.print(f"recommended: {escape(fmt.overrides(rec['setting']))} — {escape(rec['verdict'])}")
    if rec.get("vs_next"):
        n = rec["vs_next"]
        m = METRICS[goal.metric]
        c.print(f"{goal.metric}: chosen - runner-up ({escape(fmt.overrides(n['setting']))}) = "
                f"{fmt.metric_diff(m, n['diff'])} {fmt.metric_diff_ci(m, *n['ci'])} on the verification games "
                f"({fmt.p_phrase(n['p_value'])})")
    if out_dir:
        c.print(f"tune directory: {out_dir} (tune.json, tune.csv: every evaluated setting, the unchanged scenario "
                f"and their side effects)")


@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--option", "options", multiple=True, metavar="KEY",
              help="A numeric rule option to vary (repeatable; default: every numeric rule option).")
@click.option("--games", "-n", type=int, default=4000, show_default=True, help="Games per setting.")
@_players
@_threads
@_saves("sensitivity.json/.csv", "sensitivity", "sensitivity.json")
@progress_option
@long_command
def sensitivity(target, sets, options, games, policy, policy0, policy1, seed, first, threads, out, no_save,
                as_json, progress, lr):
    """One step down and up of every numeric rule of TARGET: effects on balance, draws and length.

    Paired on common random numbers against the unchanged scenario, 95%
    intervals, p-values Holm-adjusted over every effect; `simkit report DIR`
    draws the tornado chart. Ctrl-C keeps every finished setting; --resume --out DIR finishes.

    \b
    Examples:
      simkit sensitivity warfare --games 2000
      simkit sensitivity storm_the_castle --option dispatch_points --option hand_size
    """
    from simkit.analysis.sensitivity import plan as sens_plan, sensitivity as run_sens, tornado_order
    from simkit.cli.options import policies_of
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    lr.require(target=target)
    sc = load_scenario(target, list(sets))
    config = RunConfig(games=games, seed=seed, policies=policies_of(policy, policy0, policy1), first=first)
    lr.size(sens_plan(sc, config, list(options), threads=threads))
    out_dir = _out_dir("sensitivity", f"{sc.game}-{sc.name}", out, no_save)
    log = None if as_json else (lambda m: click.echo(m, err=True))
    with lr.progress(progress):
        res = run_sens(target, config, options=list(options), base_sets=list(sets), threads=threads,
                       out_dir=lr.work(out_dir), log=log)
    if as_json:
        return _echo_json(res.summary())
    from rich.table import Table
    from simkit.cli.show import console
    t = Table(title=f"{sc.spec.title} sensitivity: {sc.name} ({games:,} games per setting, "
                    f"{' vs '.join(config.policies)}, seed {seed}; variant - base, 95% CI, Holm p)",
              header_style="bold")
    for col in ("option", "step", "first-player advantage", "draw rate", f"length ({sc.spec.length_unit})"):
        t.add_column(col, justify="left" if col in ("option", "step") else "right")
    by = {}
    for r in res.rows:
        by.setdefault((r["option"], r["direction"], r["value"]), {})[r["metric"]] = r
    order = tornado_order(res.rows, "first_player_advantage")
    for opt in order:
        for (o, direction, v), m in by.items():
            if o != opt:
                continue
            cells = []
            for metric, fmt in (("first_player_advantage", "{:+.4f}"), ("draw_rate", "{:+.4f}"),
                                ("mean_length", "{:+.2f}")):
                r = m[metric]
                star = " *" if r["p_holm"] < 0.05 else ""
                cells.append(f"{fmt.format(r['effect'])} [{fmt.format(r['ci_lo'])}, {fmt.format(r['ci_hi'])}]{star}")
            t.add_row(o, f"{direction} to {v:g}", *cells)
    c = console()
    c.print(t)
    c.print("* significant after Holm's correction over all effects tested")
    for o, v, why in res.skipped:
        c.print(f"skipped {o}={v}: {why}")
    if out_dir:
        c.print(f"sensitivity directory: {out_dir} (sensitivity.json, sensitivity.csv)")


@cli.command()
@click.argument("target", required=False)
@scenario_options
@click.option("--games", "-n", type=int, default=1000, show_default=True, help="Games to trace.")
@_players
@_saves("quality.json and quality_games.csv", "quality", "quality.json")
@progress_option
@long_command
def quality(target, sets, games, policy, policy0, policy1, seed, first, out, no_save, as_json, progress, lr):
    """Game-quality metrics of TARGET from per-move trajectories, with 95% intervals.

    Lead changes, drama, decisiveness, uncertainty, stability, decision moves,
    branching factor and its trend, interaction per turn (docs/quality.md). Ctrl-C keeps
    the games traced so far (in chunks of 200); --resume --out DIR traces the rest.

    \b
    Examples:
      simkit quality martian_chess --games 2000
      simkit quality warfare --policy mcts:100 --games 100
    """
    from simkit.analysis.quality import quality as run_quality
    from simkit.cli.options import policies_of
    from simkit.engine.runner import RunConfig
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    lr.require(target=target)
    sc = load_scenario(target, list(sets))
    config = RunConfig(games=games, seed=seed, policies=policies_of(policy, policy0, policy1), first=first)
    lr.size(Plan("quality", 1, "runs", [Part(sc.game, config.policies, games, traced=True)]))
    out_dir = _out_dir("quality", f"{sc.game}-{sc.name}", out, no_save)
    with lr.progress(progress):
        res = run_quality(sc, config, out_dir=lr.work(out_dir))
    s = res.summary()
    if as_json:
        return _echo_json(s)
    from rich.table import Table
    from simkit.cli.show import console
    unit = sc.spec.length_unit
    t = Table(title=f"{sc.spec.title} game quality: {sc.name} ({games:,} games, {' vs '.join(config.policies)}, "
                    f"seed {seed}; per {'ply' if unit == 'plies' else unit.rstrip('s')})", header_style="bold")
    for col in ("metric", "mean", "95% CI", "games"):
        t.add_column(col, justify="left" if col == "metric" else "right")
    for m, v in s["metrics"].items():
        if v["mean"] is None:
            t.add_row(m.replace("_", " "), "-", "-", "0")
            continue
        t.add_row(m.replace("_", " "), f"{v['mean']:.4f}", f"[{v['ci'][0]:.4f}, {v['ci'][1]:.4f}]",
                  f"{v['games']:,}")
    c = console()
    c.print(t)
    if out_dir:
        c.print(f"quality directory: {out_dir} (quality.json, quality_games.csv)")
