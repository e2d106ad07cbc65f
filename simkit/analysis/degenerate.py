"""Degenerate-play flags: when the games behind a number are not the game a designer means.

A balance number is only as good as the players that made it. These flags say when
the play itself looks degenerate, name the policies, and suggest stronger play:

- ``capped``: more than CAP_SHARE of the games end by a cap (move limit, clock,
  stalemate) rather than by the game's own ending;
- ``no_interaction``: more than NO_INTERACTION_SHARE of the games have no capture or
  kill at all (every column in ``spec.interaction_fields`` is 0);
- ``all_draws``: every game is drawn;
- ``reverses``: a result whose sign flips between two policies (``reversal``).

Each flag is a dict ``{"flag", "share", "message"}``; the message is one sentence.
"""
from __future__ import annotations

import numpy as np

from simkit.engine.tally import quiet_games

CAP_SHARE = 0.20
NO_INTERACTION_SHARE = 0.50


def stronger(policies) -> str:
    """The next policy worth trying after the strongest of ``policies``."""
    best = 0
    for p in policies:
        # the search inside eps:/ban: wrappers, its own knobs (/KNOB=VALUE) and evaluation (@EVAL) aside
        head = str(p).split("/", 1)[0].split("@", 1)[0]
        i = head.find("mcts:")
        if i >= 0 and head[i + 5:].isdigit():
            best = max(best, int(head[i + 5:]))
    return f"mcts:{max(400, 4 * best)}" if best else "mcts:400"


def play_flags(spec, records: np.ndarray, policies, hint: bool = True) -> list[dict]:
    """Flags of one run's records (one row per game, the game's record layout). ``hint``: suggest a stronger
    policy (not where the caller has just measured whether the stronger one is stronger: the ladder)."""
    ends = np.bincount(records[:, 3].astype(np.int64), minlength=len(spec.end_reasons))
    return count_flags(spec, len(records), ends, int((records[:, 1] < 0).sum()), quiet_games(spec, records),
                       policies, hint)


def tally_flags(tally, policies) -> list[dict]:
    """Flags of a streamed run (a Tally), without its records."""
    return count_flags(tally.spec, tally.games, tally.end_counts, int(tally.outcome[:, 2].sum()),
                       tally.quiet, policies)


def count_flags(spec, n: int, ends, draws: int, quiet: int | None, policies, hint: bool = True) -> list[dict]:
    if n == 0:
        return []
    ends = np.asarray(ends)
    pol = " vs ".join(policies)
    hint = f"; try a stronger policy (e.g. --policy {stronger(policies)})" if hint else ""
    out = []
    caps = [spec.end_reasons.index(r) for r in spec.cap_reasons]
    capped = int(ends[caps].sum()) if caps else 0
    if capped / n > CAP_SHARE:
        out.append({"flag": "capped", "share": capped / n,
                    "message": f"{capped / n:.1%} of {n:,} games under {pol} end by a cap "
                               f"({', '.join(spec.cap_reasons)}), not by the game's own ending{hint}."})
    if quiet is not None and quiet / n > NO_INTERACTION_SHARE:
        out.append({"flag": "no_interaction", "share": quiet / n,
                    "message": f"{quiet / n:.1%} of games under {pol} have no capture or kill at all{hint}."})
    if draws == n:
        out.append({"flag": "all_draws", "share": 1.0,
                    "message": f"every one of {n:,} games under {pol} is drawn: win rates say nothing{hint}."})
    return out


def reversal(metric: str, estimates: dict) -> dict | None:
    """A flag when ``metric`` is significantly positive under one policy and negative under another.

    ``estimates``: policy label -> (estimate, ci_lo, ci_hi).
    """
    pos = [k for k, (_, lo, _) in estimates.items() if lo > 0]
    neg = [k for k, (_, _, hi) in estimates.items() if hi < 0]
    if pos and neg:
        return {"flag": "reverses", "share": None,
                "message": f"{metric.replace('_', ' ')} is positive under {', '.join(pos)} but negative under "
                           f"{', '.join(neg)}: the conclusion depends on the players, not only the rules."}
    return None
