"""The generated blocks of docs/ (`simkit.report.doc_numbers` runs them): each writes the text between
its markers from the command(s) it names, so every number there is what that command prints now.

A block's text carries its command line, so a reader can run it. The prose around a block
interprets; it does not copy the block's digits (they would go stale beside it).
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
    stderr as a terminal would show it, unless ``stdout_only``), trailing spaces stripped."""
    from click.testing import CliRunner
    from simkit.cli import cli
    r = CliRunner().invoke(cli, shlex.split(cmd), catch_exceptions=False)
    if r.exit_code != 0:
        raise RuntimeError(f"simkit {cmd} exited {r.exit_code}: {r.output[-2000:]}")
    text = r.stdout if stdout_only else r.output
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def simkit_json(cmd: str) -> dict:
    return json.loads(simkit(cmd + " --json --no-save", stdout_only=True))


def shown(cmd: str, output: str) -> str:
    """A command and its output as the docs show them."""
    return f"```sh\nsimkit {cmd}\n```\n\n```\n{output.rstrip()}\n```\n"


def ci(v, lo, hi, f="{:+.4f}") -> str:
    return f"{f.format(v)} [{f.format(lo)}, {f.format(hi)}]"


def pct(x, digits=1) -> str:
    return f"{100 * x:.{digits}f}%"


# ---- docs/metrics.md --------------------------------------------------------------------------

@block("coverage", "docs/metrics.md", "cheap", "python -m simkit.analysis.coverage")
def _coverage():
    from simkit.analysis.coverage import REPLICATIONS, SEED, table
    return (f"`python -m simkit.analysis.coverage` ({REPLICATIONS:,} replications per case, seed {SEED}; "
            f"nominal 95%):\n\n" + table())


@block("compare-no-discordant", "docs/metrics.md", "cheap",
       "simkit compare martian_chess --set-b max_plies=110 --policy random --precision 0.005 --seed S")
def _compare_no_discordant():
    rows, verdict = [], None
    for seed in (0, 1, 2):
        s = simkit_json(f"compare martian_chess --set-b max_plies=110 --policy random --precision 0.005 "
                        f"--seed {seed}")
        d = s["differences"]["first_player_advantage"]
        rows.append(f"| {seed} | {s['games']:,} | {s['discordant_pairs']} | {ci(d['diff'], *d['ci'])} |")
        if verdict is None and s["discordant_pairs"] == 0:
            verdict = f"the verdict of seed {seed}: \"{s['verdict']}\""
    return ("`simkit compare martian_chess --set-b max_plies=110 --policy random --precision 0.005 --seed S` "
            "(a random game rarely reaches ply 110):\n\n| seed | pairs when it stopped | discordant pairs | "
            "FPA difference [95%] |\n| ---: | ---: | ---: | --- |\n" + "\n".join(rows)
            + (f"\n\nand {verdict}\n" if verdict else "\n"))


# ---- docs/skill.md ----------------------------------------------------------------------------

@block("skill-clock-leader", "docs/skill.md", "cheap",
       "simkit compare martian_chess --set-b clock=leader --games 2000 --skill random,greedy")
def _skill_clock_leader():
    s = simkit_json("compare martian_chess --set-b clock=leader --games 2000 --skill random,greedy")
    length = s["metrics"]["mean_plies"]
    (r, rlo, rhi), (g, glo, ghi) = length["estimates"]
    f = "{:+.1f}"
    return (f"Example, `simkit compare martian_chess --set-b clock=leader --games 2000 --skill random,greedy`: "
            f"`clock=leader` changes random games' mean length by {ci(r, rlo, rhi, f)} plies and greedy "
            f"games' by {ci(g, glo, ghi, f)} (greedy's 0–0 games no longer end at ply 21): mean length is "
            f"\"{length['verdict']}\".\n")


# ---- game quality (docs/games/*.md) ------------------------------------------------------------

def quality_table(game: str, policies=("greedy",), games: int = 500) -> str:
    from simkit.analysis.quality import PER_GAME
    from simkit.analysis.quality_compare import label
    from simkit.cli.quality_tables import _fmt_of
    from simkit.games import get_game
    runs = {p: simkit_json(f"quality {game} --games {games} --policy {p} --no-progress") for p in policies}
    unit = get_game(game).length_unit
    cmds = " and ".join(f"`simkit quality {game} --games {games}" + ("" if p == "greedy" else f" --policy {p}")
                        + "`" for p in policies)
    head = f"{cmds} ({' and '.join(f'{p} vs {p}' for p in policies)}, seed 0, first player alternating):\n\n"
    lines = ["| metric | " + " | ".join(policies) + " |", "| --- |" + " --- |" * len(policies)]
    for m in PER_GAME:
        f, _ = _fmt_of(m)
        cells = []
        for p in policies:
            q = runs[p]["metrics"][m]
            cells.append("-" if q["mean"] is None else ci(q["mean"], *q["ci"], f))
        lines.append(f"| {label(m, unit)} | " + " | ".join(cells) + " |")
    decided = [f"{runs[p]['metrics']['drama']['games']:,} of {runs[p]['metrics']['lead_changes']['games']:,}"
               for p in policies]
    lines.append("| games (decided: the metrics that need a winner) | " + " | ".join(decided) + " |")
    return head + "\n".join(lines) + "\n"


for _game, _pols in (("martian_chess", ("greedy", "random")), ("skorm", ("greedy",)),
                     ("storm_the_castle", ("greedy",)), ("warfare", ("greedy",))):
    block(f"quality-{_game}", f"docs/games/{_game}.md", "cheap",
          *(f"simkit quality {_game} --games 500 --policy {p}" for p in _pols))(
        lambda g=_game, p=_pols: quality_table(g, p))


@block("compare-verdicts", "docs/metrics.md", "cheap",
       "simkit compare martian_chess --set-b clock=leader --policy random",
       "simkit compare scenarios/martian_chess/default.toml scenarios/martian_chess/clock_off.toml --policy random")
def _compare_verdicts():
    out = []
    for cmd in ("compare martian_chess --set-b clock=leader --policy random",
                "compare scenarios/martian_chess/default.toml scenarios/martian_chess/clock_off.toml --policy random"):
        s = simkit_json(cmd)
        out.append(f"`simkit {cmd}` ({s['games']:,} pairs, seed 0): \"{s['verdict']}\"")
    return "\n\n".join(out) + "\n"


def _lines(output: str, *starts: str) -> str:
    return "".join(line + "\n" for line in output.splitlines() if line.startswith(starts))


@block("tolerance-example", "docs/metrics.md", "cheap",
       "simkit run martian_chess --policy random -n 20000 --tolerance T",
       "simkit compare martian_chess --set-b field_promotion=false --policy random -n 20000 --tolerance 0.02")
def _tolerance_example():
    text = ""
    for t in ("0.02", "0.005"):
        cmd = f"run martian_chess --policy random -n 20000 --tolerance {t} --no-save"
        text += f"$ simkit {cmd}\n" + _lines(simkit(cmd), "--tolerance")
    cmd = "compare martian_chess --set-b field_promotion=false --policy random -n 20000 --tolerance 0.02 --no-save"
    text += f"$ simkit {cmd}\n" + simkit(cmd)
    return "```\n" + text + "```\n"
