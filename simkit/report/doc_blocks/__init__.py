"""The generated blocks of docs/ (`simkit.report.doc_numbers` runs them): each writes the text between
its markers from the command(s) it names, so every number there is what that command prints now.

A block's text carries its command line, so a reader can run it. The prose around a block
interprets; it does not copy the block's digits (they would go stale beside it). The blocks, by
page: `analysis` (docs/metrics.md, docs/skill.md), `games` (docs/games/*.md), `searches` (tune and
sensitivity, slow), `search_players` (MCTS strength and speed, left for the next search engine),
`agents` (OpenSpiel's MCTSBot through the adapter, docs/agents.md).
"""
from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Block:
    doc: str                      # file, relative to the checkout
    cost: str                     # "cheap", "slow" or "mcts" (simkit.report.doc_numbers)
    commands: tuple               # the simkit command lines it runs (for --list and the reader)
    make: Callable[[], str]


BLOCKS: dict[str, Block] = {}


def block(name: str, doc: str, cost: str, *commands: str):
    def deco(f):
        BLOCKS[name] = Block(doc, cost, commands, f)
        return f
    return deco


# ---- running commands -----------------------------------------------------------------------

def simkit(cmd: str, *, stdout_only: bool = False) -> str:
    """Run ``simkit CMD`` in this process and return what it prints (stdout, then what it logs on
    stderr as a terminal would show it, unless ``stdout_only``), trailing spaces stripped. No size
    or progress line (simkit/cli/longrun.py): they tell how long a command takes on a machine at a
    moment, and a block holds what the command finds."""
    from click.testing import CliRunner
    from simkit.cli import cli
    r = CliRunner().invoke(cli, shlex.split(cmd), catch_exceptions=False, env={"SIMKIT_PROGRESS_SECONDS": "1e12"})
    if r.exit_code != 0:
        raise RuntimeError(f"simkit {cmd} exited {r.exit_code}: {r.output[-2000:]}")
    text = r.stdout if stdout_only else r.output
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def simkit_json(cmd: str) -> dict:
    return json.loads(simkit(cmd + " --json --no-save", stdout_only=True))


def shown(cmd: str, output: str) -> str:
    """A command and its output as the docs show them."""
    return f"```sh\nsimkit {shlex.join(shlex.split(cmd))}\n```\n\n```\n{output.rstrip()}\n```\n"


def ci(v, lo, hi, f="{:+.4f}") -> str:
    return f"{f.format(v)} [{f.format(lo)}, {f.format(hi)}]"


def pct(x, digits=1) -> str:
    return f"{100 * x:.{digits}f}%"


def lines_starting(output: str, *starts: str) -> str:
    return "".join(line + "\n" for line in output.splitlines() if line.startswith(starts))


def run_summary(game: str, policies, n: int, sets=(), seed: int = 0):
    """`simkit run GAME --policy0 A --policy1 B --games N [--set ...]` as a library call: its summary and
    the share of games without a capture or kill."""
    from simkit.engine.runner import RunConfig, simulate
    from simkit.scenario import load_scenario
    res = simulate(load_scenario(game, list(sets)), RunConfig(games=n, seed=seed, policies=tuple(policies)),
                   progress=False, keep=False)
    s = res.summary()
    s["quiet_share"] = None if res.tally.quiet is None else res.tally.quiet / res.games_done
    return s


def policy_args(policies) -> str:
    a, b = policies
    return f"--policy {a}" if a == b else f"--policy0 {a} --policy1 {b}"


# registration: importing the pages fills BLOCKS (cheap ones first: the default run order)
from simkit.report.doc_blocks import analysis, games, searches, search_players, agents, long_commands  # noqa: E402,F401
from simkit.report.doc_blocks import learn  # noqa: E402,F401
