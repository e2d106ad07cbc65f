"""Variant comparison with common random numbers: game i of A vs game i of B.

A and B are played with the same seed, the same game indices (so the same first
players and, while the positions agree, the same dice) and the same policies, chunk
by chunk in lockstep. Every difference is **B - A**, the mean of per-game paired
differences (docs/metrics.md, "Comparing two variants"): score intervals on the
known support of the differences (Tango's interval for 0/1 outcomes), a t interval
for game length. The verdict names every metric whose change is significant after
Holm's correction and at least its practical threshold, largest first.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.analysis.metrics import (PAIRED_METRICS, check_precision, check_tolerance, enough_to_stop,
                                     game_values, practical_threshold)
from simkit.analysis.stats import (holm, half_width, mcnemar_exact_p, newcombe, paired_mean,
                                   score_interval, score_p, tost)

ALPHA = 0.05
# the primary metrics: the --precision stop waits for both, --tolerance tests both
PRIMARY = ("side0_expected_score", "first_player_advantage")
# support of each discrete paired difference (a score difference moves in halves; an indicator's in ones)
SCORE_DIFFS = (-1.0, -0.5, 0.0, 0.5, 1.0)
INDICATOR_DIFFS = (-1.0, 0.0, 1.0)
SUPPORT = {"side0_expected_score": SCORE_DIFFS, "first_player_advantage": SCORE_DIFFS,
           "side0_win_rate": INDICATOR_DIFFS, "first_player_win_rate": INDICATOR_DIFFS,
           "draw_rate": INDICATOR_DIFFS}
# rates that also get Newcombe's interval for independent samples (what pairing is compared with)
RATE_COUNTS = {"side0_win_rate": "side0_win", "first_player_win_rate": "first_win", "draw_rate": "draw"}
LABELS = {"side0_expected_score": "side 0 expected score", "first_player_advantage": "first-player advantage",
          "side0_win_rate": "side-0 win rate", "first_player_win_rate": "first-player win rate",
          "draw_rate": "draw rate", "mean_plies": "mean length"}


class PairedTally:
    """Streaming counts of per-game differences B - A (and counts for the unpaired intervals)."""

    def __init__(self):
        self.n = 0
        self.chunks = 0
        self.discordant = 0            # pairs whose records differ in winner or length
        self.counts = {m: np.zeros(len(sup), dtype=np.int64) for m, sup in SUPPORT.items()}
        self.sums = {m: 0.0 for m in PAIRED_METRICS}
        self.sq = {m: 0.0 for m in PAIRED_METRICS}
        self.max_length = 0
        self.mean_length_a = 0.0
        self.count_a = {k: 0.0 for k in RATE_COUNTS.values()}
        self.count_b = {k: 0.0 for k in RATE_COUNTS.values()}
        self._ends = np.zeros((0, 0), dtype=np.int64)     # [A's end reason, B's end reason] -> pairs
        self._pending: dict = {"a": {}, "b": {}}

    def add(self, which: str, start: int, records: np.ndarray):
        """Add one side's chunk; it is folded in once the other side's chunk at ``start`` arrives."""
        other = "b" if which == "a" else "a"
        if start in self._pending[other]:
            mine = records
            theirs = self._pending[other].pop(start)
            ra, rb = (mine, theirs) if which == "a" else (theirs, mine)
            self._fold(ra, rb)
        else:
            self._pending[which][start] = records

    @property
    def settled(self) -> bool:
        """Every chunk played so far has been paired."""
        return not self._pending["a"] and not self._pending["b"]

    def _fold(self, ra: np.ndarray, rb: np.ndarray):
        assert len(ra) == len(rb)
        va, vb = game_values(ra), game_values(rb)
        for m, key in PAIRED_METRICS.items():
            d = vb[key] - va[key]
            self.sums[m] += float(d.sum())
            self.sq[m] += float((d * d).sum())
            if m in SUPPORT:
                sup = SUPPORT[m]
                step = sup[1] - sup[0]
                idx = np.rint((d - sup[0]) / step).astype(np.int64)
                self.counts[m] += np.bincount(idx, minlength=len(sup))[: len(sup)]
        for key in RATE_COUNTS.values():
            self.count_a[key] += float(va[key].sum())
            self.count_b[key] += float(vb[key].sum())
        if len(ra):
            self.max_length = max(self.max_length, int(va["plies"].max()), int(vb["plies"].max()))
            tot = self.mean_length_a * self.n + float(va["plies"].sum())
            self.mean_length_a = tot / (self.n + len(ra))
        self.discordant += int(((ra[:, 1] != rb[:, 1]) | (ra[:, 2] != rb[:, 2])).sum())
        if len(ra):
            self._ends = self.ends_matrix(int(max(ra[:, 3].max(), rb[:, 3].max())) + 1)
            np.add.at(self._ends, (ra[:, 3].astype(np.int64), rb[:, 3].astype(np.int64)), 1)
        self.n += len(ra)
        self.chunks += 1

    def ends_matrix(self, k: int) -> np.ndarray:
        """Pairs by (A's end reason, B's end reason), at least k x k (the side effects read it)."""
        m = np.zeros((max(k, len(self._ends)),) * 2, dtype=np.int64)
        m[:len(self._ends), :len(self._ends)] = self._ends
        return m

    def difference(self, metric: str, alpha: float = ALPHA) -> dict:
        """B - A of one metric: estimate, interval, p-value (score test, or t for length)."""
        if self.n == 0:
            return {"diff": math.nan, "ci": [math.nan, math.nan], "p_value": math.nan, "n": 0}
        if metric in SUPPORT:
            sup, c = SUPPORT[metric], self.counts[metric]
            diff, lo, hi = score_interval(sup, c, alpha)
            out = {"diff": diff, "ci": [lo, hi], "p_value": score_p(sup, c, 0.0), "n": self.n,
                   "method": "score interval on the paired differences"}
            if len(sup) == 3:        # 0/1 outcome: c[2] pairs with B only, c[0] with A only
                out["method"] = "Tango score interval; exact McNemar p_exact"
                out["discordant"] = {"b_only": int(c[2]), "a_only": int(c[0])}
                out["p_exact"] = mcnemar_exact_p(int(c[2]), int(c[0]))
            return out
        d = paired_mean(self.sums[metric], self.sq[metric], self.n, alpha, span=max(self.max_length, 1))
        d["method"] = "paired t interval" + (" (rule of three: no discordant pairs)" if d.get("no_discordant")
                                             else "")
        return d

    def differences(self) -> dict:
        out = {}
        for m in PAIRED_METRICS:
            d = self.difference(m)
            entry = {"diff": d["diff"], "ci": d["ci"], "p_value": d["p_value"], "paired": True,
                     "method": d.get("method", "")}
            for k in ("discordant", "p_exact"):
                if k in d:
                    entry[k] = d[k]
            if m in RATE_COUNTS:
                k = RATE_COUNTS[m]
                _, lo, hi = newcombe(self.count_b[k], self.n, self.count_a[k], self.n, ALPHA)
                entry["ci_independent"] = [lo, hi]
            entry["threshold"] = practical_threshold(m, self.mean_length_a)
            out[m] = entry
        adj = holm({m: e["p_value"] for m, e in out.items()})
        for m, e in out.items():
            e["p_holm"] = adj[m]
            sig = e["p_holm"] is not None and not math.isnan(e["p_holm"]) and e["p_holm"] < ALPHA
            e["verdict"] = ("not significant" if not sig else
                            "matters" if abs(e["diff"]) >= e["threshold"] else "significant but negligible")
        return out

    def identical(self) -> bool:
        """No pair of games differed at all (not the same as identical rules)."""
        return self.n > 0 and self.discordant == 0

    def equivalence(self, tolerance: float) -> dict:
        """TOST of each primary difference against ±tolerance (90% intervals)."""
        words = {"within": f"B - A within ±{tolerance:g}: equivalent",
                 "not_shown": f"not shown within ±{tolerance:g}",
                 "beyond": f"B - A differs by more than {tolerance:g}"}
        out = {}
        for m in PRIMARY:
            d = self.difference(m, alpha=0.10)
            r = tost(d["ci"], tolerance)
            out[m] = {"ci90": d["ci"], "result": r, "verdict": words[r]}
        return out


def precision_reached(paired: PairedTally, precision: float) -> bool:
    """--precision: after the minimum sample, both primary differences are within ±precision."""
    return enough_to_stop(paired.n, paired.chunks) and \
        all(half_width(paired.difference(m)["ci"]) <= precision for m in PRIMARY)


# a win rate is the expected score minus half the draws (per game: win = score - draw / 2), so B - A of
# a win rate splits exactly into half the change in draws (to each side) and the change in who wins
WIN_SPLIT = {"side0_win_rate": "side0_expected_score", "first_player_win_rate": "first_player_advantage"}


def win_rate_split(diffs: dict) -> dict:
    """B - A of each win rate as the part that comes from the draws (-1/2 x the draw rate's change,
    with its interval) plus the part that comes from who wins (the expected score's change)."""
    d = diffs["draw_rate"]
    out = {}
    for win, score in WIN_SPLIT.items():
        s = diffs[score]
        out[win] = {"diff": diffs[win]["diff"], "from_draws": -d["diff"] / 2,
                    "from_draws_ci": [-d["ci"][1] / 2, -d["ci"][0] / 2], "who_wins": score,
                    "from_who_wins": s["diff"], "from_who_wins_ci": list(s["ci"]), "who_wins_verdict": s["verdict"]}
    return out


def from_draws(diffs: dict) -> list[str]:
    """The win rates whose change matters only because the draws' does: their expected score (who
    wins, draws counted half) does not change by an amount that matters."""
    if diffs["draw_rate"]["verdict"] != "matters":
        return []
    return [w for w, sc in WIN_SPLIT.items() if diffs[w]["verdict"] == "matters" and diffs[sc]["verdict"] != "matters"]


def verdict(diffs: dict, identical: bool, n: int, same_rules: bool = False, length_unit: str = "plies",
            effects: dict | None = None, caps=()) -> str:
    """One line: which metrics changed by an amount that matters, largest (relative to its
    threshold) first, then the primary metric. A win rate that moves only because draws did
    (its expected score does not move by an amount that matters) is said to come from the
    draws, not counted as a change in who wins; ``effects`` (`side_effects.paired` of the end
    reasons) adds how the way games end changed."""
    if n == 0:
        return "no games played"
    if same_rules:
        return f"A and B resolve to identical rules: identical games ({n:,} pairs), no difference"
    family = f"Holm-adjusted over {len(diffs)} metrics"
    if identical:
        # the bounds quoted are the table's own intervals (score intervals; length's rule of three)
        rates = max(half_width(d["ci"]) for m, d in diffs.items() if m != "mean_plies")
        length = half_width(diffs["mean_plies"]["ci"]) if "mean_plies" in diffs else math.nan
        return (f"no discordant pairs in {n:,}: every score and rate difference within ±{rates:.4f} and mean "
                f"{length_unit} within ±{length:.4g} (95% intervals); no difference shown")
    labels = dict(LABELS, mean_plies=f"mean {length_unit}")

    from simkit.report import fmt as F     # one number format per kind: rates in pp, scores signed

    def fmt(m):
        d = diffs[m]
        return f"{labels[m]} {F.metric_diff(m, d['diff'])} {F.metric_diff_ci(m, d['ci'][0], d['ci'][1])}"

    p0 = diffs["side0_expected_score"]
    primary = f"primary: {fmt('side0_expected_score')} ({p0['verdict']})"

    def rank(m):
        return abs(diffs[m]["diff"]) / diffs[m]["threshold"]
    matters = sorted((m for m, d in diffs.items() if d["verdict"] == "matters"), key=rank, reverse=True)
    explained = from_draws(diffs)
    matters = [m for m in matters if m not in explained]
    split = ""
    if explained:
        dr = diffs["draw_rate"]
        half = F.interval(-dr["ci"][1] / 2, -dr["ci"][0] / 2, F.rate_diff)
        who = [fmt(WIN_SPLIT[w]) + f": {diffs[WIN_SPLIT[w]]['verdict']}" for w in explained
               if WIN_SPLIT[w] != "side0_expected_score"]      # the primary is quoted on its own
        wins = " and ".join(f"{labels[w]} {F.rate_diff(diffs[w]['diff'])}" for w in explained)
        verb = "comes" if len(explained) == 1 else "come"
        split = (f"; {wins} {verb} from {'fewer' if dr['diff'] < 0 else 'more'} draws: half of the draw change goes "
                 f"to each side ({F.rate_diff(-dr['diff'] / 2)} {half}), not a change in who wins that matters"
                 + (f" ({'; '.join(who)})" if who else ""))
    negligible = [m for m, d in diffs.items() if d["verdict"] == "significant but negligible"
                  and m != "side0_expected_score"]          # the primary's own verdict is quoted with it
    tail = (f"; significant but negligible: {', '.join(labels[m] for m in negligible)}" if negligible else "")
    if effects:
        from simkit.analysis.side_effects import sentence
        ends = sentence(effects, length_unit, caps)
        tail += f"; how games end: {ends} (Holm over the end reasons)" if ends else ""
    if matters:
        body = "; ".join(fmt(m) for m in matters)
        extra = "" if "side0_expected_score" in matters else f"; {primary}"
        return (f"B differs from A in {body} (95%, {family}, each beyond its practical threshold){split}{extra}"
                f"{tail}")
    if negligible or split:
        return f"no difference that matters (95%, {family}){split}: {primary}{tail}"
    return (f"no significant difference between A and B (95%, {family}): {primary}; "
            + fmt("first_player_advantage") + tail)


def _p(p: float) -> str:
    if p is None or math.isnan(p):
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def same_rules(a, b) -> bool:
    """A and B are the same game with identical resolved parameters (so identical games)."""
    if a.game != b.game:
        return False
    return _same_params(a.params(), b.params())


def _same_params(p, q) -> bool:
    if isinstance(p, (tuple, list)):
        return isinstance(q, (tuple, list)) and len(p) == len(q) and all(_same_params(x, y) for x, y in zip(p, q))
    return bool(np.array_equal(np.asarray(p), np.asarray(q)))


@dataclass
class CompareResult:
    a: object                      # RunResult
    b: object                      # RunResult
    paired: PairedTally
    precision: float | None = None
    stopped_at_precision: bool = False
    interrupted: bool = False
    out_dir: Path | None = None
    labels: tuple[str, str] = ("A", "B")
    same_rules: bool = False
    tolerance: float | None = None
    _diffs: dict = field(default=None, repr=False)
    _effects: dict = field(default=None, repr=False)

    @property
    def differences(self) -> dict:
        if self._diffs is None:
            self._diffs = self.paired.differences()
        return self._diffs

    @property
    def side_effects(self) -> dict:
        """B - A of the cap rate and of each end reason's share (`side_effects.paired`; the length
        and the draw rate are among the differences), Holm-adjusted over these."""
        if self._effects is None:
            from simkit.analysis.side_effects import paired
            self._effects = paired(self.paired, self.a.scenario.spec, self.a.summary(), self.b.summary(),
                                   metrics=()) if self.paired.n else {}
        return self._effects

    @property
    def verdict(self) -> str:
        spec = self.a.scenario.spec
        return verdict(self.differences, self.paired.identical(), self.paired.n, self.same_rules,
                       spec.length_unit, self.side_effects, spec.cap_reasons)

    def equivalence(self) -> dict | None:
        """--tolerance: TOST of the primary differences and of each variant's fairness."""
        if self.tolerance is None or self.paired.n == 0:
            return None
        from simkit.analysis.metrics import fpa_equivalence
        return {"tolerance": self.tolerance, "difference": self.paired.equivalence(self.tolerance),
                "fairness": {"a": fpa_equivalence(self.a.tally, self.tolerance),
                             "b": fpa_equivalence(self.b.tally, self.tolerance)}}

    def summary(self) -> dict:
        out = {"kind": "compare", "a": self.a.summary(), "b": self.b.summary(), "labels": list(self.labels),
               "games": self.paired.n, "games_requested": self.a.config.games,
               "precision": self.precision, "stopped_at_precision": self.stopped_at_precision,
               "interrupted": self.interrupted, "difference": "B - A", "alpha": ALPHA,
               "multiple_comparisons": f"Holm over the {len(PAIRED_METRICS)} metrics (p_holm); intervals are "
                                       f"per metric (95%)",
               "primary": "side0_expected_score", "same_rules": self.same_rules,
               "discordant_pairs": self.paired.discordant,
               "differences": self.differences,
               # how the ways games end changed (B - A, Holm over these), and each win rate's change split
               # into the part the draws explain and the part from who wins
               "side_effects": self.side_effects,
               "win_rate_split": win_rate_split(self.differences) if self.paired.n else {},
               "verdict": self.verdict}
        eq = self.equivalence()
        if eq is not None:
            out["equivalence"] = eq
        return out

    @property
    def table(self):
        """One row per metric: A, B, B - A with its 95% interval and p-value."""
        import pandas as pd
        sa, sb = self.a.summary(), self.b.summary()
        rows = []
        for m, d in self.differences.items():
            rows.append({"metric": m, "a": sa[m], "b": sb[m], "diff": d["diff"], "ci_lo": d["ci"][0],
                         "ci_hi": d["ci"][1], "p_value": d["p_value"], "p_holm": d["p_holm"],
                         "verdict": d["verdict"]})
        return pd.DataFrame(rows).set_index("metric")

    @property
    def games(self):
        """Per-game records of both variants (needs keep=True), with a `variant` column 'a'/'b'."""
        import pandas as pd
        ga, gb = self.a.games, self.b.games
        ga.insert(0, "variant", "a")
        gb.insert(0, "variant", "b")
        return pd.concat([ga, gb], ignore_index=True)


def compare(scenario_a, scenario_b, config, *, threads=None, out_dir=None, precision=None, keep=False,
            progress=None, labels=("A", "B"), backend=None, tolerance=None) -> CompareResult:
    """Play A and B on common random numbers, chunk by chunk in lockstep.

    ``out_dir``: writes DIR/manifest.json (kind compare), DIR/a/ and DIR/b/ (run
    directories) and DIR/compare.json. ``backend``: where both runs' chunks play
    (shared; `simkit.backends.dask.make_backend`). ``precision``: stop once the 95% half-width of
    both primary differences is <= it, after the minimum sample (``config.games`` is the ceiling).
    ``tolerance``: also test equivalence (TOST) within ±tolerance. Different games are refused.
    """
    from simkit.backends.store import atomic_write_json
    from simkit.engine.runner import RunSession, _progress, environment
    from simkit.errors import UsageError

    check_precision(precision)
    check_tolerance(tolerance)
    if scenario_a.game != scenario_b.game:
        raise UsageError(f"compare needs two variants of one game, got {scenario_a.game} and {scenario_b.game}")
    identical_rules = same_rules(scenario_a, scenario_b)
    out = Path(out_dir) if out_dir is not None else None
    if out is not None:
        if (out / "manifest.json").exists():
            raise UsageError(f"directory {out} already holds results; choose another --out")
        out.mkdir(parents=True, exist_ok=True)
        manifest = {"kind": "compare", "status": "running", "labels": list(labels),
                    "a": scenario_a.to_dict(), "b": scenario_b.to_dict(), "config": config.to_dict(),
                    "precision": precision, "versions": environment(),
                    "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
        atomic_write_json(out / "manifest.json", manifest)
    sa = RunSession(scenario_a, config, threads=threads, out_dir=out / "a" if out else None, progress=False,
                    keep=keep, precision=precision, backend=backend)
    try:
        sb = RunSession(scenario_b, config, threads=threads, out_dir=out / "b" if out else None, progress=False,
                        keep=keep, precision=precision, backend=backend)
    except BaseException:
        sa.close()
        raise
    paired = PairedTally()
    bar = _progress(progress, 2 * config.games, 0)
    stopped = interrupted = False
    try:
        while True:
            got_a = sa.step()
            got_b = sb.step()
            if got_a is None and got_b is None:
                break
            for which, got in (("a", got_a), ("b", got_b)):
                if got is not None:
                    paired.add(which, got[0], got[1])
                    if bar:
                        bar.update(len(got[1]))
            if precision is not None and paired.settled and precision_reached(paired, precision):
                stopped = True
                break
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        sa.close()
        sb.close()
        raise
    finally:
        if bar:
            bar.close()
    ra = sa.finish(interrupted=interrupted, stopped=stopped)
    rb = sb.finish(interrupted=interrupted, stopped=stopped)
    result = CompareResult(ra, rb, paired, precision, stopped, interrupted, out, tuple(labels), identical_rules,
                           tolerance)
    if out is not None:
        summary = result.summary()
        atomic_write_json(out / "compare.json", summary)
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["status"] = "interrupted" if interrupted else "complete"
        manifest["games_done"] = paired.n
        manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        atomic_write_json(out / "manifest.json", manifest)
    return result
