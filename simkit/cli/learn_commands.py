"""`simkit learn`: evaluation weights fitted to game outcomes for one rule variant (simkit/analysis/learn.py)."""
from __future__ import annotations

import click

from simkit.cli import cli
from simkit.cli.options import scenario_options


@cli.command()
@click.argument("target")
@scenario_options
@click.option("--policy", default=None,
              help="Self-play policy whose games are fitted (greedy, mcts:N, eps:P:POLICY).  [default: the game's: "
                   "greedy; Skorm mcts:50]")
@click.option("--games", "-n", type=int, default=4000, show_default=True, help="Self-play games per round.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed: same seed, same games and fit.")
@click.option("--iterations", type=int, default=1, show_default=True,
              help="Rounds: each plays with the last round's weights and fits again.")
@click.option("--prior-sd", type=float, default=0.5, show_default=True,
              help="The hand-set weights are the fit's prior, with this sd as a share of each weight (0: none).")
@click.option("--ridge", type=float, default=1.0, show_default=True,
              help="L2 penalty of the nuisance terms (and of every weight with --prior-sd 0).")
@click.option("--accept-games", type=int, default=400, show_default=True,
              help="Pairs per acceptance match (each pair: both seat orders).")
@click.option("--accept", "accept_policies", default=None, metavar="P1,P2",
              help="The policies whose learned player must score at least 0.5 against the default one.  "
                   "[default: greedy and the game's search that reads the evaluation: mcts:50; Martian Chess "
                   "mcts:50/mcts_prior_moves=greedy]")
@click.option("--steps", default="1,0.5,0.25", show_default=True, metavar="T1,T2,...",
              help="How far toward the fit the played weights go (hand-set + T x (fitted - hand-set)), tried in "
                   "order until the acceptance matches pass.")
@click.option("--no-store", is_flag=True, help="Fit and match, but do not store the weights for the variant.")
@click.option("--threads", type=int, default=None, help="Numba threads of the acceptance matches.")
@click.option("--out", type=click.Path(file_okay=False), default=None,
              help="Write learn.json, weights.csv and learn.md (the report section) here.")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def learn(target, sets, policy, games, seed, iterations, prior_sd, ridge, accept_games, accept_policies, steps,
          no_store, threads, out, as_json):
    """Fit the evaluation's weights to game outcomes for TARGET's variant and keep them if they play better.

    Plays --games self-play games, takes the quiet positions' features (material per unit type and the
    positional terms the game's evaluation weighs), fits a ridge logistic regression of the result on
    them (a draw is half a win; intervals cluster-robust by game), compares held-out log-loss with the
    hand-set weights, and plays the learned player against the default one (both seat orders). Weights
    that score at least 0.5 in every match are stored for this variant (game + rules) and every command
    uses them from then on (--eval auto); --eval default or POLICY@default plays the hand-set weights (docs/learn.md).

    \b
    Examples:
      simkit learn skorm
      simkit learn skorm --set archer_range=4 --games 8000 --out runs/learn-skorm-archers4
      simkit learn martian_chess --iterations 2 --accept greedy,mcts:100
    """
    from simkit.cli.commands import _echo_json
    from simkit.analysis.learn import LearnConfig, learn as run_learn, markdown, write
    from simkit.errors import UsageError
    from simkit.scenario import load_scenario
    if games < 50:
        raise UsageError(f"--games {games}: at least 50 games are needed to fit and hold out")
    if iterations < 1 or accept_games < 1:
        raise UsageError("--iterations and --accept-games must be at least 1")
    sc = load_scenario(target, list(sets))
    try:
        step_list = tuple(float(x) for x in steps.split(",") if x.strip())
    except ValueError:
        raise UsageError(f"--steps {steps}: numbers in (0, 1], e.g. 1,0.5,0.25") from None
    if not step_list or any(not 0 < t <= 1 for t in step_list):
        raise UsageError(f"--steps {steps}: numbers in (0, 1], e.g. 1,0.5,0.25")
    if prior_sd < 0:
        raise UsageError(f"--prior-sd {prior_sd:g}: a share of each weight, 0 or more")
    cfg = LearnConfig(games=games, policy=policy, seed=seed, ridge=ridge, prior_sd=prior_sd,
                      iterations=iterations,
                      accept_games=accept_games, steps=step_list,
                      accept_policies=tuple(p.strip() for p in (accept_policies or "").split(",") if p.strip()) or None)
    try:
        res = run_learn(sc, cfg, threads=threads, log=None if as_json else lambda s: click.echo(s, err=True),
                        store=not no_store)
    except KeyboardInterrupt:
        # nothing half-made is kept: the weights are stored only after the acceptance matches, in one write
        click.echo("interrupted: nothing stored (simkit learn keeps no partial fit; run it again)", err=True)
        raise SystemExit(130) from None
    if out:
        write(res, out)
    if as_json:
        return _echo_json(res.to_dict())
    click.echo(markdown(res))
    click.echo(f"({res.elapsed_s:.0f} s{'; stored in ' + res.stored if res.stored else ''})")
