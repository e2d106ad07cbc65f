"""`simkit ratings` (every player of some ladder and matchup directories on one Elo scale) and
`simkit luck` (how much the dice and the deal decide a game, and how much skill does)."""
from __future__ import annotations

import json
from pathlib import Path

import click

from simkit.cli import cli
from simkit.cli.longrun import long_command
from simkit.cli.options import scenario_options
from simkit.cli.progress import progress_option


def _summary_of(d: Path) -> tuple[dict, dict]:
    """(ladder.json or matchup.json, manifest.json) of a result directory; UsageError naming what is missing."""
    from simkit.errors import UsageError
    for name in ("ladder.json", "matchup.json"):
        if (d / name).exists():
            manifest = json.loads((d / "manifest.json").read_text()) if (d / "manifest.json").exists() else {}
            return json.loads((d / name).read_text()), manifest
    raise UsageError(f"{d}: not a ladder or matchup directory (no ladder.json or matchup.json; did the command "
                     "finish?)")


@cli.command()
@click.argument("dirs", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--anchor", default=None, help="The player rated 0 (default: random where it played, else the first).")
@click.option("--json", "as_json", is_flag=True, help="Print the ratings as JSON.")
@click.option("--out", type=click.Path(dir_okay=False), default=None, help="Also write the ratings table as CSV.")
def ratings(dirs, anchor, as_json, out):
    """Elo ratings of every player in ladder and matchup DIRS, on one scale, with 95% intervals.

    Every pair played in any of the directories counts (a pair played in two directories adds
    up). The directories must all be runs of one variant: the same game and resolved rules.
    Model: logistic Elo with draws as half points, one virtual draw per pair as the prior,
    Laplace intervals relative to the anchor (docs/skill.md, "Ratings").

    \b
    Examples:
      simkit ratings runs/ladder-skorm-default-20261202-101500
      simkit ratings runs/ladder-a runs/matchup-b --anchor greedy --out ratings.csv
    """
    from simkit.analysis.ratings import fit, merge, pairs_of_summary, ratings_text
    from simkit.cli.analysis_commands import _echo_json
    from simkit.errors import UsageError
    pairs, order, rules = [], [], None
    for d in map(Path, dirs):
        summ, manifest = _summary_of(d)
        sc = manifest.get("scenario") or {}
        here = (sc.get("game"), json.dumps(sc.get("rules"), sort_keys=True, default=str))
        if rules is not None and here != rules:
            raise UsageError(f"{d}: a different variant ({here[0]}, other rules) from {dirs[0]}; ratings put one "
                             "variant's players on one scale")
        rules = here
        pairs += pairs_of_summary(summ)
        order += [p for p in (summ.get("rungs") or summ.get("policies") or []) if p not in order]
    try:
        r = fit(merge(pairs), anchor=anchor, order=order)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if out:
        r.table().to_csv(out, index=False)
    if as_json:
        return _echo_json(r.summary())
    click.echo(f"Elo ratings of {rules[0]}, {len(r.players)} players, {sum(q.games for q in r.pairs):,} games "
               f"({len(dirs)} director{'y' if len(dirs) == 1 else 'ies'}), 95% intervals:")
    for line in ratings_text(r):
        click.echo(line)


@cli.command()
@click.argument("targets", nargs=-1)
@scenario_options
@click.option("--set-b", "sets_b", multiple=True, metavar="KEY=VALUE",
              help="A variant B of the (single) target: its luck and skill beside A's, with B - A and intervals.")
@click.option("--policies", default="random,greedy,mcts:100", show_default=True, metavar="P1,P2,...",
              help="The round robin's players, weakest first: upsets, ratings and the skill span.")
@click.option("--games", "-n", type=int, default=100, show_default=True,
              help="Games per seat order of each pair of the round robin.")
@click.option("--player", default="mcts:100", show_default=True,
              help="Who plays the replays (self-play): the seed's share and the luck of each roll.")
@click.option("--seeds", type=int, default=100, show_default=True, help="Deals (seeds) replayed.")
@click.option("--replays", type=int, default=4, show_default=True,
              help="Plays of each deal, each with decisions of their own.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--threads", type=int, default=None, help="Numba threads (default: all cores).")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Directory for luck.json/luck.csv (default: runs/luck-<games>-<time>).")
@click.option("--json", "as_json", is_flag=True, help="Print luck.json.")
@progress_option
@long_command
def luck(targets, sets, sets_b, policies, games, player, seeds, replays, seed, threads, out, as_json, progress, lr):
    """How much do the dice and the deal decide TARGETS, and how much does skill?

    For each target (a game or a scenario file): a round robin of --policies (the
    upset rate at each gap, every player's Elo and the skill span: strongest
    above random), then --seeds deals each played --replays times by --player
    with decisions of their own: the share of outcome variance the seed explains,
    and for dice games the luck of every roll (its value minus its expected
    value, exact odds) and how often the luckier side won. docs/skill.md, "Luck".
    The replays step through the step API (slower than a batch run). Ctrl-C
    keeps the round robins' runs; --resume --out DIR plays the rest.

    \b
    Examples:
      simkit luck martian_chess skorm storm_the_castle warfare
      simkit luck storm_the_castle --set-b critical_hits=false --seeds 200
    """
    from simkit.analysis.luck import study
    from simkit.analysis.matchup import check_policies
    from simkit.cli.analysis_commands import _out_dir
    from simkit.engine.runner import RunConfig
    from simkit.errors import UsageError
    from simkit.plan import Part, Plan
    from simkit.scenario import load_scenario
    lr.require(targets=targets)
    if sets_b and len(targets) != 1:
        raise UsageError("--set-b compares two variants of one target; give one TARGET with it")
    if seeds < 2 or replays < 2 or games < 1:
        raise UsageError(f"--seeds and --replays must be >= 2 and --games >= 1, got {seeds}, {replays}, {games}")
    entries = []
    for t in targets:
        sc = load_scenario(t, list(sets))
        entries.append((sc.spec.title if not sets_b else f"{sc.spec.title} (A)", sc))
    if sets_b:
        sc_b = load_scenario(targets[0], list(sets) + list(sets_b))
        entries.append((f"{sc_b.spec.title} (B: {', '.join(sets_b)})", sc_b))
    names = check_policies(entries[0][1].spec, [p for p in policies.split(",") if p.strip()])
    from simkit.policies import parse_policy
    for _, sc in entries:
        check_policies(sc.spec, names)
        player = parse_policy(sc.spec, player).name
    config = RunConfig(games=games, seed=seed, policies=(names[0], names[0]))
    out_dir = _out_dir("luck", "-".join(sc.game for _, sc in entries), out, None)
    pairs = [(q, p) for i, p in enumerate(names) for q in names[i + 1:]]
    lr.size(Plan("luck", len(entries), "variants", [Part(sc.game, seats, games) for _, sc in entries
                                                   for q, p in pairs for seats in ((q, p), (p, q))], threads=threads))
    with lr.progress(progress):
        res = study(entries, names, config, seeds=seeds, replays=replays, player=player, threads=threads,
                    out_dir=lr.work(out_dir))
    show_luck(res, out_dir, as_json)


def show_luck(res: dict, out_dir, as_json: bool):
    """What `simkit luck` and `compare --luck` print: luck.json, or the lines of `luck_text`."""
    if as_json:
        from simkit.cli.analysis_commands import _echo_json
        return _echo_json(res)
    from simkit.analysis.luck import luck_text
    for line in luck_text(res):
        click.echo(line)
    if out_dir:
        click.echo(f"luck directory: {out_dir} (luck.json, luck.csv; simkit report {out_dir} draws the chart)")
