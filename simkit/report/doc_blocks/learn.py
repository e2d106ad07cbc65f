"""Blocks of docs/learn.md: `simkit learn` on every game's default scenario and on the variant that makes one
unit type much stronger or weaker (the weights, their intervals, held-out log-loss, the acceptance matches,
and how far the unit's weight moved from the default rules' fit). Run through the library
(analysis/learn.py) with the command's defaults, so the text has no timings."""
from __future__ import annotations

import functools
import math

from simkit.report.doc_blocks import block

# each game's variant (scenarios/<game>/<name>.toml) and the unit type whose weight it should move
VARIANTS = {
    "martian_chess": ("pawns_four", "pawn"),
    "skorm": ("archers_range4", "archer"),
    "storm_the_castle": ("heavy_cavalry", "cavalry"),
}
Z95 = 1.959963984540054


@functools.lru_cache(maxsize=None)
def _learned(target: str):
    from simkit.analysis.learn import LearnConfig, learn
    from simkit.scenario import load_scenario
    return learn(load_scenario(target), LearnConfig(), store=False)


def _learn_text(target: str, cmd: str) -> str:
    from simkit.analysis.learn import markdown
    body = markdown(_learned(target)).replace("## ", "#### ", 1)
    return f"```sh\nsimkit {cmd}\n```\n\n{body}"


def _moved(game: str, target: str, name: str, unit: str) -> str:
    """The unit's learned weight on the default rules and on the variant, and their difference (two
    independent fits: the standard errors add in quadrature)."""
    d, v = _learned(game), _learned(target)
    i = d.features.index(f"material:{unit}")
    wd, sd = d.fit["weights"][i], d.fit["se"][i]
    wv, sv = v.fit["weights"][i], v.fit["se"][i]
    diff, se = wv - wd, math.hypot(sd, sv)
    return (f"The {unit}'s learned weight: {wd:.3f} [{wd - Z95 * sd:.3f}, {wd + Z95 * sd:.3f}] on the default "
            f"rules, {wv:.3f} [{wv - Z95 * sv:.3f}, {wv + Z95 * sv:.3f}] in {name}: moved by {diff:+.3f} "
            f"[{diff - Z95 * se:+.3f}, {diff + Z95 * se:+.3f}].\n")


def _register(game: str):
    cmd = f"learn {game} --no-store"
    block(f"learn-{game}", "docs/learn.md", "slow", "simkit " + cmd)(lambda: _learn_text(game, cmd))
    if game in VARIANTS:
        name, unit = VARIANTS[game]
        target = f"scenarios/{game}/{name}.toml"
        vcmd = f"learn {target} --no-store"
        block(f"learn-{game}-{name}", "docs/learn.md", "slow", "simkit " + vcmd, "simkit " + cmd)(
            lambda: _learn_text(target, vcmd) + "\n" + _moved(game, target, name, unit))


for _g in ("martian_chess", "skorm", "storm_the_castle", "warfare"):
    _register(_g)
