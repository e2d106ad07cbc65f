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

from simkit.analysis.degenerate import play_flags
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

    @property
    def depth(self) -> int:
        d = 0
        for s in self.steps:
            if s["ci"][0] > 0.5:
                d += 1
            else:
                break
        return d

    def summary(self) -> dict:
        stop = self.steps[self.depth]["rung"] if self.depth < len(self.steps) else None
        return {"kind": "ladder", "game": self.game, "scenario": self.scenario, "rungs": self.rungs,
                "games_per_seating": self.games, "seed": self.seed,
                "score": "expected score of each rung against the rung below (win 1, draw 1/2), "
                         "both seat orders averaged, 95% score interval on {0, 1/4, 1/2, 3/4, 1}",
                "skill_depth": self.depth, "first_rung_without_gain": stop,
                "steps": self.steps}

    @property
    def table(self):
        import pandas as pd
        return pd.DataFrame([{"rung": s["rung"], "below": s["below"], "score": s["score"], "ci_lo": s["ci"][0],
                              "ci_hi": s["ci"][1], "p_value": s["p_value"], "draw_rate": s["draw_rate"],
                              "significant_gain": s["ci"][0] > 0.5, "flags": "; ".join(s["flags"])}
                             for s in self.steps])


def ladder(scenario, rungs, config, *, threads=None, out_dir=None, log=None, resume=False) -> LadderResult:
    """Play each rung of ``rungs`` against the one below (``config.games`` games per seat order);
    ``out_dir`` keeps each seating's run (`backends/work.py`: Ctrl-C keeps them, ``resume`` finishes)."""
    from simkit.analysis.matchup import check_policies
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.backends.work import Work

    rungs = check_policies(scenario.spec, rungs)
    work = Work.of(out_dir, resume)
    out = work.out
    identity = {"scenario": scenario.to_dict(), "rungs": rungs, "config": config.to_dict()}
    with work.start("ladder", identity, scenario=scenario.to_dict(), rungs=rungs, config=config.to_dict()):
        steps = []
        for below, rung in zip(rungs, rungs[1:]):
            before = work.elapsed
            c = pair_score(scenario, config, rung, below, threads=threads, work=work)
            flags = []
            for (a, b), rec in c.pop("records").items():
                flags += [f["message"] for f in play_flags(scenario.spec, rec, (a, b))]
            steps.append({"rung": rung, "below": below, **c, "flags": sorted(set(flags)),
                          "elapsed_s": round(work.elapsed - before, 3)})
            if log:
                log(f"{rung} vs {below}: {c['score']:.3f} [{c['ci'][0]:.3f}, {c['ci'][1]:.3f}]")
        res = LadderResult(scenario.game, scenario.name, rungs, steps, config.games, config.seed, out)
        if out is not None:
            atomic_write_json(out / "ladder.json", res.summary())
            atomic_write_bytes(out / "ladder.csv", res.table.to_csv(index=False).encode())
        work.complete()
    return res
