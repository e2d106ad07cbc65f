"""Skill-gap matrix: every pair of policies, both seat orders, common random numbers.

For policies p and q, game i is played twice with the same seed and index: p as
side 0 against q, and q as side 0 against p. p's score in pair i is the mean of its
two scores (win 1, draw 1/2, loss 0), one of 0, 1/4, 1/2, 3/4, 1; the matrix entry
M[p, q] is the mean over i with the score interval on that support (`stats.discrete_mean`:
a t interval undercovers when most pairs split 1-1), and M[q, p] = 1 - M[p, q]. The
diagonal is empty (a policy against itself scores 1/2 by symmetry of the seat swap).
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.analysis.metrics import game_values
from simkit.analysis.stats import discrete_mean


def check_policies(spec, policies) -> list[str]:
    from simkit.errors import UsageError
    pols = [p.strip() for p in policies if p.strip()]
    if len(pols) < 2:
        raise UsageError(f"--policies needs at least two policies (comma-separated); {spec.name} has: "
                         f"{', '.join(spec.policies)}")
    from simkit.policies import parse_policy
    pols = [parse_policy(spec, p).name for p in pols]
    dup = sorted({p for p in pols if pols.count(p) > 1})
    if dup:
        raise UsageError(f"--policies lists {', '.join(dup)} more than once; list each policy once")
    return pols


@dataclass
class MatchupResult:
    policies: list
    cells: dict        # (p, q) -> {"score", "ci", "p_value", "as_side0", "as_side1"}
    games: int
    out_dir: Path | None = None
    flags: list = field(default_factory=list)    # degenerate-play messages of the games played

    @property
    def matrix(self):
        """Rows: the policy; columns: its opponent; entries: the row policy's expected score."""
        import pandas as pd
        m = pd.DataFrame(np.nan, index=self.policies, columns=self.policies)
        for (p, q), c in self.cells.items():
            m.loc[p, q] = c["score"]
        m.index.name = "policy"
        return m

    @property
    def table(self):
        import pandas as pd
        rows = [{"policy": p, "opponent": q, "score": c["score"], "ci_lo": c["ci"][0], "ci_hi": c["ci"][1],
                 "p_value": c["p_value"], "score_as_side0": c["as_side0"], "score_as_side1": c["as_side1"]}
                for (p, q), c in self.cells.items()]
        return pd.DataFrame(rows)

    @property
    def ratings(self):
        """Every policy on one Elo scale (analysis/ratings.py), random = 0 where it played."""
        from simkit.analysis.ratings import fit, pairs_of_summary
        return fit(pairs_of_summary({"kind": "matchup", "cells": [{"policy": p, "opponent": q, **c}
                                                                   for (p, q), c in self.cells.items()]}),
                   order=self.policies)

    def summary(self) -> dict:
        return {"kind": "matchup", "policies": self.policies, "games_per_seating": self.games,
                "ratings": self.ratings.summary(),
                "score": "expected score of the row policy (win 1, draw 1/2), both seat orders averaged",
                "matrix": {p: {q: self.cells[(p, q)]["score"] for q in self.policies if q != p}
                           for p in self.policies},
                "cells": [{"policy": p, "opponent": q, **c} for (p, q), c in self.cells.items()],
                "degenerate": self.flags}


def run_name(a: str, b: str) -> str:
    """The run directory of policy ``a`` as side 0 against ``b`` (a result directory's runs/...)."""
    return "runs/" + "-vs-".join(x.replace(":", "_").replace("/", "_") for x in (a, b))


def pair_score(scenario, config, p: str, q: str, *, threads=None, work=None) -> dict:
    """p's expected score against q: game i is played with p as side 0 and again with q as
    side 0 (same seed and index), and p's score in pair i is the mean of its two scores.

    Returns {"score", "ci", "p_value", "as_side0", "as_side1", "games", "draw_rate", "records"}:
    the mean with its score interval (`pair_interval`), the p-value of "equally strong" (score
    1/2), p's score in each seat, the pairs played, the share of drawn games, and the two runs'
    records. ``work``: the command's `Work` (each seating is one of its runs).
    """
    from dataclasses import replace
    from simkit.backends.work import Work
    work = work or Work()
    s0, recs = {}, {}
    for a, b in ((p, q), (q, p)):
        rec = work.run(run_name(a, b), scenario, replace(config, policies=(a, b)), threads=threads).records()
        recs[(a, b)] = rec
        s0[(a, b)] = game_values(rec)["side0_score"]
    score_p = (s0[(p, q)] + (1.0 - s0[(q, p)])) / 2
    pm = pair_interval(score_p)
    draws = float(np.mean(np.concatenate([r[:, 1] < 0 for r in recs.values()]))) if len(score_p) else float("nan")
    return {"score": pm["score"], "ci": pm["ci"], "p_value": pm["p_value"], "as_side0": float(s0[(p, q)].mean()),
            "as_side1": float(1.0 - s0[(q, p)].mean()), "games": len(score_p), "draw_rate": draws,
            "records": recs}


PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)    # a policy's mean score over the two seatings of a pair


def pair_interval(pair_scores, alpha: float = 0.05) -> dict:
    """Mean pair score with its score interval on {0, 1/4, 1/2, 3/4, 1} and the p-value of
    "equally strong" (mean 1/2). The interval stays inside [0, 1] by construction."""
    r = discrete_mean(pair_scores, PAIR_SCORES, alpha, null=0.5)
    return {"score": r["mean"], "ci": r["ci"], "p_value": r["p_value"]}


def flip_cell(c: dict) -> dict:
    """q's view of p's cell: score 1 - s, interval mirrored, seats swapped."""
    return {"score": 1.0 - c["score"], "ci": [1.0 - c["ci"][1], 1.0 - c["ci"][0]], "p_value": c["p_value"],
            "as_side0": 1.0 - c["as_side1"], "as_side1": 1.0 - c["as_side0"], "games": c["games"],
            "draw_rate": c["draw_rate"]}


def matchup(scenario, policies, config, *, threads=None, out_dir=None, log=None, resume=False) -> MatchupResult:
    """Every pair of ``policies`` in both seat orders; ``out_dir`` keeps each seating's run
    (`backends/work.py`: Ctrl-C keeps them, ``resume`` finishes the matrix)."""
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.backends.work import Work

    pols = check_policies(scenario.spec, policies)
    work = Work.of(out_dir, resume)
    out = work.out
    from simkit.analysis.degenerate import play_flags
    identity = {"scenario": scenario.to_dict(), "policies": pols, "config": config.to_dict()}
    with work.start("matchup", identity, scenario=scenario.to_dict(), policies=pols, config=config.to_dict()):
        cells = {}
        flags = []
        for p, q in itertools.combinations(pols, 2):
            cells[(p, q)] = pair_score(scenario, config, p, q, threads=threads, work=work)
            for seats, rec in cells[(p, q)].pop("records").items():
                flags += [f["message"] for f in play_flags(scenario.spec, rec, seats)]
            cells[(q, p)] = flip_cell(cells[(p, q)])
            if log:
                log(f"{p} vs {q}: {p} scores {cells[(p, q)]['score']:.4f}")
        order = {(p, q): None for p in pols for q in pols if p != q}
        result = MatchupResult(pols, {k: cells[k] for k in order}, config.games, out, flags)
        if out is not None:
            atomic_write_json(out / "matchup.json", result.summary())
            atomic_write_bytes(out / "matchup.csv", result.table.to_csv(index=False).encode())
        work.complete()
    return result
