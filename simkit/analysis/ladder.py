"""Skill ladder: random, greedy, then MCTS with the budget doubled at each rung.

Each rung plays the rung below it in both seat orders on common random numbers
(``matchup.pair_score``): its score is the expected score (win 1, draw 1/2) against
the rung below, with the 95% score interval of `matchup.pair_interval`. A rung
*gains* when the interval's lower end is above 1/2. The **skill depth** is the number of rungs, from the bottom, that
each gain significantly over the one below before the first that does not: a game
whose depth stays small rewards little extra thinking (TAG's SkillLadder and Ludii's
SkillTrace measure the same thing).
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.analysis.degenerate import play_flags
from simkit.analysis.draws import DRAWISH, diagnose, drawish_share
from simkit.analysis.matchup import pair_score

DEFAULT_START = 50
DEFAULT_CEILING = 400


def rungs_of(spec, start: int = DEFAULT_START, ceiling: int = DEFAULT_CEILING) -> list[str]:
    """random, greedy, mcts:start, mcts:2*start, ... up to ceiling (MCTS only where the game has it)."""
    out = [p for p in ("random", "greedy") if p in spec.policies]
    if "mcts" in spec.policies and start >= 1:
        b = start
        while b <= ceiling:
            out.append(f"mcts:{b}")
            b *= 2
    return out


@dataclass
class LadderResult:
    game: str
    scenario: str
    rungs: list
    steps: list          # one dict per rung above the first: rung, below, score, ci, p_value, ...
    games: int
    seed: int
    out_dir: Path | None = None
    draw_diagnosis: dict | None = None

    @property
    def depth(self) -> int:
        d = 0
        for s in self.steps:
            if s["ci"][0] > 0.5:
                d += 1
            else:
                break
        return d

    @property
    def ratings(self):
        """Every rung on one Elo scale (analysis/ratings.py), random = 0 where it is a rung."""
        from simkit.analysis.ratings import fit, pairs_of_summary
        return fit(pairs_of_summary({"kind": "ladder", "steps": self.steps}), order=self.rungs)

    def summary(self) -> dict:
        stop = self.steps[self.depth]["rung"] if self.depth < len(self.steps) else None
        return {"kind": "ladder", "game": self.game, "scenario": self.scenario, "rungs": self.rungs,
                "games_per_seating": self.games, "seed": self.seed,
                "score": "expected score of each rung against the rung below (win 1, draw 1/2), "
                         "both seat orders averaged, 95% score interval on {0, 1/4, 1/2, 3/4, 1}",
                "skill_depth": self.depth, "first_rung_without_gain": stop,
                "steps": self.steps, "ratings": self.ratings.summary(),
                **({"draw_diagnosis": self.draw_diagnosis} if self.draw_diagnosis else {})}

    @property
    def table(self):
        import pandas as pd
        r = self.ratings
        return pd.DataFrame([{"rung": s["rung"], "below": s["below"], "score": s["score"], "ci_lo": s["ci"][0],
                              "ci_hi": s["ci"][1], "p_value": s["p_value"], "draw_rate": s["draw_rate"],
                              "gain": s["gain"], "significant_gain": s["ci"][0] > 0.5,
                              "elo": r.rating(s["rung"])[0], "elo_lo": r.rating(s["rung"])[1],
                              "elo_hi": r.rating(s["rung"])[2], "flags": "; ".join(s["flags"])}
                             for s in self.steps])


def gain_word(step) -> str:
    """A rung's verdict against the rung below: it gains, loses to it, or neither is shown."""
    lo, hi = step["ci"]
    return "gains" if lo > 0.5 else "loses to the rung below" if hi < 0.5 else "no significant gain"


def ladder(scenario, rungs, config, *, threads=None, out_dir=None, log=None, resume=False,
           draws=True) -> LadderResult:
    """Play each rung of ``rungs`` against the one below (``config.games`` games per seat order);
    ``out_dir`` keeps each seating's run (`backends/work.py`: Ctrl-C keeps them, ``resume`` finishes).

    ``draws``: when draws or capped games dominate a rung, diagnose them there (analysis/draws.py; its games
    are runs in ``draws/``) and put the finding in the result."""
    from simkit.analysis.matchup import check_policies
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.backends.work import Work

    rungs = check_policies(scenario.spec, rungs)
    work = Work.of(out_dir, resume)
    out = work.out
    identity = {"scenario": scenario.to_dict(), "rungs": rungs, "config": config.to_dict(), "draws": draws}
    with work.start("ladder", identity, scenario=scenario.to_dict(), rungs=rungs, config=config.to_dict()):
        steps = []
        for below, rung in zip(rungs, rungs[1:]):
            before = work.elapsed
            c = pair_score(scenario, config, rung, below, threads=threads, work=work)
            flags = []
            recs = c.pop("records")
            for (a, b), rec in recs.items():
                # no "try a stronger policy" here: the ladder itself shows whether the next rung is stronger
                flags += [f["message"] for f in play_flags(scenario.spec, rec, (a, b), hint=False)]
            drawish = drawish_share(scenario.spec, np.concatenate(list(recs.values())))
            steps.append({"rung": rung, "below": below, **c, "flags": sorted(set(flags)), "drawish_share": drawish,
                          "gain": None, "elapsed_s": round(work.elapsed - before, 3)})
            steps[-1]["gain"] = gain_word(steps[-1])
            if log:
                log(f"{rung} vs {below}: {c['score']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]")
        res = LadderResult(scenario.game, scenario.name, rungs, steps, config.games, config.seed, out)
        top = max((i for i, st in enumerate(steps) if st["drawish_share"] > DRAWISH), default=None)
        if draws and top is not None:
            res.draw_diagnosis = diagnose(scenario, config, [steps[top]["below"], steps[top]["rung"]],
                                          threads=threads, work=work.child("draws"))
        if out is not None:
            atomic_write_json(out / "ladder.json", res.summary())
            atomic_write_bytes(out / "ladder.csv", res.table.to_csv(index=False).encode())
        work.complete()
    return res
