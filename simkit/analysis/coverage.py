"""How often each command's interval for a discrete outcome covers the truth (seeded simulation).

    python -m simkit.analysis.coverage          # the table docs/metrics.md quotes ("Coverage")

Every case is a known distribution of per-game (or per-pair) values on the support a
command sees, in the regime where intervals fail: most values equal (two variants that
rarely play a game differently, two policies that split most pairs 1-1, a rung that wins
almost every pair). ``REPLICATIONS`` samples of ``n`` values are drawn at once (numpy,
one seeded generator per case), and each sample's interval is computed by the command's
own function (`matchup.pair_interval`, `sensitivity.effect`, `quality_compare.difference`,
and compare's support through `stats.discrete_mean`). An interval depends on the sample
only through its counts on the support, so each distinct count vector is passed through
the command once (as the values it stands for) and weighted by how many samples share it.
The paired t interval the commands used before (`stats.paired_mean`, rule-of-three floor
when every value is equal) is measured on the same samples, for contrast.

The tests (tests/test_coverage.py) require >= 0.93 of every case at a nominal 95%.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

REPLICATIONS = 1000
SEED = 20261201


@dataclass(frozen=True)
class Case:
    command: str          # which command's interval
    what: str             # the per-game value, in words
    regime: str           # the distribution, in words
    support: tuple
    probs: tuple          # on the support
    n: int

    @property
    def truth(self) -> float:
        return float(np.dot(self.support, self.probs))


PAIR = (0.0, 0.25, 0.5, 0.75, 1.0)
HALVES = (-1.0, -0.5, 0.0, 0.5, 1.0)
ONES = (-1.0, 0.0, 1.0)
LEADS = (-3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0)

CASES = (
    Case("matchup, ladder", "pair score", "3% of pairs not split 1-1, all one way", PAIR, (0, 0, 0.97, 0.03, 0), 100),
    Case("matchup, ladder", "pair score", "1% of pairs not split 1-1, all one way", PAIR, (0, 0, 0.99, 0.01, 0), 300),
    Case("matchup, ladder", "pair score", "a strong rung: 95% of pairs won twice", PAIR,
         (0, 0, 0.01, 0.04, 0.95), 100),
    Case("sensitivity", "first player's score difference", "3% of games change, all one way", HALVES,
         (0, 0, 0.97, 0, 0.03), 100),
    Case("sensitivity", "first player's score difference", "1% of games change, all one way", HALVES,
         (0, 0, 0.99, 0, 0.01), 300),
    Case("sensitivity", "draw difference", "3% of games change, all one way", ONES, (0, 0.97, 0.03), 100),
    Case("compare", "side 0's score difference", "3% of games change, both ways", HALVES,
         (0.005, 0.005, 0.97, 0.01, 0.01), 100),
    Case("quality (compare/sweep --quality)", "lead-change difference", "3% of games change, all one way", LEADS,
         (0, 0, 0, 0.97, 0.02, 0.01, 0), 100),
    Case("quality (compare/sweep --quality)", "lead-change difference", "3% of games change, both ways", LEADS,
         (0, 0, 0.01, 0.97, 0.012, 0.005, 0.003), 300),
)


def command_interval(case: Case, values: np.ndarray) -> tuple[float, float]:
    """The 95% interval the command computes from these per-game values."""
    if case.command.startswith("matchup"):
        from simkit.analysis.matchup import pair_interval
        return tuple(pair_interval(values)["ci"])
    if case.command == "sensitivity":
        from simkit.analysis.sensitivity import effect
        metric = "draw_rate" if case.support == ONES else "first_player_advantage"
        return tuple(effect(metric, values, np.zeros_like(values))["ci"])
    if case.command == "compare":
        from simkit.analysis.compare import SUPPORT
        from simkit.analysis.stats import discrete_mean
        return tuple(discrete_mean(values, SUPPORT["side0_expected_score"])["ci"])
    from simkit.analysis.quality_compare import difference
    return tuple(difference("lead_changes", np.zeros_like(values), values)["ci"])


def _t_interval(values: np.ndarray, span: float) -> tuple[float, float]:
    from simkit.analysis.stats import paired_mean
    r = paired_mean(float(values.sum()), float((values * values).sum()), len(values), span=span)
    return tuple(r["ci"])


def coverage(case: Case, replications: int = REPLICATIONS, seed: int = SEED) -> dict:
    """Share of ``replications`` samples whose interval contains the true mean: the command's and the
    paired t interval's."""
    rng = np.random.default_rng([seed, CASES.index(case)])
    counts = rng.multinomial(case.n, case.probs, size=replications)
    rows, weight = np.unique(counts, axis=0, return_counts=True)
    support = np.asarray(case.support, dtype=np.float64)
    span = float(np.abs(support).max())
    hit_cmd = hit_t = 0
    for c, w in zip(rows, weight):
        values = np.repeat(support, c)
        lo, hi = command_interval(case, values)
        hit_cmd += w * (lo <= case.truth <= hi)
        lo, hi = _t_interval(values, span)
        hit_t += w * (lo <= case.truth <= hi)
    return {"command": hit_cmd / replications, "t": hit_t / replications, "distinct_samples": len(rows)}


def table() -> str:
    """The markdown table docs/metrics.md quotes."""
    lines = ["| command | per-game value | regime | n | true mean | command's interval | paired t (before) |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: |"]
    for case in CASES:
        c = coverage(case)
        lines.append(f"| {case.command} | {case.what} | {case.regime} | {case.n} | {case.truth:+.4f} | "
                     f"{c['command']:.3f} | {c['t']:.3f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(f"coverage of 95% intervals, {REPLICATIONS:,} seeded replications each (seed {SEED})")
    print(table(), end="")
