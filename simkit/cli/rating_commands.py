"""`simkit ratings`: every player of some ladder and matchup directories on one Elo scale."""
from __future__ import annotations

import json
from pathlib import Path

import click

from simkit.cli import cli


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
