"""Blocks of docs/learn.md: `simkit learn` on every game's default scenario and on the variant that makes one
unit type much stronger or weaker (the weights, their intervals, held-out log-loss, the acceptance matches).
Run through the library (analysis/learn.py) with the command's defaults, so the text has no timings."""
from __future__ import annotations

from simkit.report.doc_blocks import block

# each game's variant (scenarios/<game>/<file>) and the unit type whose weight it should move
VARIANTS = {
    "martian_chess": ("pawns_four", "pawn"),
}


def _learn_text(target: str, cmd: str) -> str:
    from simkit.analysis.learn import LearnConfig, learn, markdown
    from simkit.scenario import load_scenario
    res = learn(load_scenario(target), LearnConfig(), store=False)
    body = markdown(res).replace("## ", "#### ", 1)
    return f"```sh\nsimkit {cmd}\n```\n\n{body}"


def _register(game: str):
    cmd = f"learn {game} --no-store"
    block(f"learn-{game}", "docs/learn.md", "slow", "simkit " + cmd)(lambda: _learn_text(game, cmd))
    if game in VARIANTS:
        name, _unit = VARIANTS[game]
        target = f"scenarios/{game}/{name}.toml"
        vcmd = f"learn {target} --no-store"
        block(f"learn-{game}-{name}", "docs/learn.md", "slow", "simkit " + vcmd)(lambda: _learn_text(target, vcmd))


for _g in ("martian_chess", "skorm", "storm_the_castle", "warfare"):
    _register(_g)
