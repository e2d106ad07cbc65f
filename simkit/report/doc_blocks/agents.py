"""docs/agents.md: OpenSpiel's MCTSBot against simkit's mcts:400 in Martian Chess (cost mcts: the bot
runs in Python, about half an hour on the shared 2-core machine)."""
from __future__ import annotations

from simkit.report.doc_blocks import block

GAMES = 20
BOT = "python:simkit.env.openspiel:mcts400"


@block("agents.openspiel-mcts", "docs/agents.md", "mcts",
       f"matchup martian_chess --policies mcts:400,{BOT} --games {GAMES} --seed 0")
def openspiel_mcts() -> str:
    from simkit.env.examples import openspiel_matchup
    return openspiel_matchup(GAMES)
