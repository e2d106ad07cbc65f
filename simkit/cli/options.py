"""Option decorators shared by the commands that play games."""
from __future__ import annotations

import functools

import click

from simkit.policies import FIRST_MODES
from simkit.scenario.evaluation import EVALUATIONS


def scenario_options(f):
    """--set KEY=VALUE (repeatable) and --eval, which is the rule-like option ``evaluation`` (--eval learned is
    --set evaluation=learned: it reaches every scenario the command loads and its manifest)."""
    command = f

    @functools.wraps(command)
    def with_eval(*args, evaluation=None, **kwargs):
        if evaluation is not None:
            kwargs["sets"] = tuple(kwargs.get("sets") or ()) + (f"evaluation={evaluation}",)
        return command(*args, **kwargs)
    f = click.option("--eval", "evaluation", type=click.Choice(EVALUATIONS), default=None,
                     help="The players' evaluation: the weights `simkit learn` stored for this variant (learned), "
                     "the rules' hand-set ones (default), or learned when stored (auto, the default).")(with_eval)
    f = click.option("--set", "sets", multiple=True, metavar="KEY=VALUE",
                     help="Override a rule option (repeatable); dotted keys reach into tables.")(f)
    return f


# what every --policy help says of Python agents (simkit.env.agents)
PYTHON_POLICY_HELP = ("python:MOD:FACTORY plays your Python agent through the step API: slow (Python runs at "
                      "every decision, far slower than the kernels: ask for fewer games; --backend dask --workers N "
                      "spreads its games over processes where the command has it); docs/agents.md.")


def play_options(f):
    for deco in reversed([
        click.option("--games", "-n", type=int, default=10_000, show_default=True, help="Games to play."),
        click.option("--seed", type=int, default=0, show_default=True, help="Run seed: same seed, same games."),
        click.option("--policy", default=None, help="Policy of both sides (default greedy): a scripted policy, "
                     "mcts:N, eps:P:POLICY, or " + PYTHON_POLICY_HELP),
        click.option("--policy0", default=None, help="Policy of side 0 (overrides --policy)."),
        click.option("--policy1", default=None, help="Policy of side 1 (overrides --policy)."),
        click.option("--first", type=click.Choice(FIRST_MODES), default="alternate", show_default=True,
                     help="Who moves first: alternate by game index, always one side, or at random."),
        click.option("--threads", type=int, default=None, help="Numba threads (default: all cores)."),
        click.option("--chunk-size", type=int, default=None, help="Games per chunk (default: about 40 chunks)."),
        click.option("--snapshot-ply", type=int, default=20, show_default=True,
                     help="Ply at which material is recorded (snap_* columns) for regression unit values."),
    ]):
        f = deco(f)
    return scenario_options(f)


def policies_of(policy, policy0, policy1) -> tuple[str, str]:
    base = policy or "greedy"
    return (policy0 or base, policy1 or base)


def precision_option(f):
    return click.option("--precision", type=float, default=None, metavar="P",
                        help="Stop early once the 95% half-width of the first-player advantage (for compare: "
                             "of the side-0 score and FPA differences) is <= P, never before 2 chunks and "
                             "1,000 games; --games is the ceiling.")(f)


def tolerance_option(f):
    return click.option("--tolerance", type=float, default=None, metavar="T",
                        help="Equivalence test (TOST, 90% interval) of the first-player advantage (compare: also "
                             "of B - A): 'fair within ±T', 'not shown fair within ±T' or 'unfair by more than T'.")(f)


def backend_options(f):
    """--backend/--workers/--scheduler; pass them to `simkit.backends.dask.make_backend`."""
    for deco in reversed([
        click.option("--backend", type=click.Choice(["local", "dask"]), default=None,
                     help="Where chunks run: this process (local, the default) or a Dask cluster "
                          "(a local one of --workers processes, or --scheduler's)."),
        click.option("--workers", type=int, default=None,
                     help="Dask: worker processes of the local cluster (default 2); --threads is per worker."),
        click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Dask: use this running cluster (implies --backend dask; docs/distributed.md)."),
    ]):
        f = deco(f)
    return f
