"""Variant comparison with common random numbers: game i of A vs game i of B.

A and B are played with the same seed, the same game indices (so the same first
players and, while the positions agree, the same dice) and the same policies, chunk
by chunk in lockstep. Every difference is **B - A**, the mean of per-game paired
differences with a t interval and p-value (docs/metrics.md, "Comparing two
variants"). Comparing a scenario with itself gives exactly 0.
"""
from __future__ import annotations

import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from simkit.analysis.metrics import PAIRED_METRICS, check_precision, game_values
from simkit.analysis.stats import half_width, newcombe, paired_mean

ALPHA = 0.05
# the differences the verdict is about
VERDICT_METRICS = ("first_player_advantage", "side0_win_rate")
# rates that also get Newcombe's interval for independent samples (what pairing is compared with)
RATE_COUNTS = {"side0_win_rate": "side0_win", "first_player_win_rate": "first_win", "draw_rate": "draw"}


class PairedTally:
    """Streaming sums of per-game differences B - A (and counts for the unpaired intervals)."""

    def __init__(self):
        self.n = 0
        self.sums = {m: 0.0 for m in PAIRED_METRICS}
        self.sq = {m: 0.0 for m in PAIRED_METRICS}
        self.count_a = {k: 0.0 for k in RATE_COUNTS.values()}
        self.count_b = {k: 0.0 for k in RATE_COUNTS.values()}
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

    def _fold(self, ra: np.ndarray, rb: np.ndarray):
        assert len(ra) == len(rb)
        va, vb = game_values(ra), game_values(rb)
        for m, key in PAIRED_METRICS.items():
            d = vb[key] - va[key]
            self.sums[m] += float(d.sum())
            self.sq[m] += float((d * d).sum())
        for key in RATE_COUNTS.values():
            self.count_a[key] += float(va[key].sum())
            self.count_b[key] += float(vb[key].sum())
        self.n += len(ra)

    def difference(self, metric: str) -> dict:
        return paired_mean(self.sums[metric], self.sq[metric], self.n, ALPHA)

    def differences(self) -> dict:
        out = {}
        for m in PAIRED_METRICS:
            d = self.difference(m)
            entry = {"diff": d["diff"], "ci": d["ci"], "p_value": d["p_value"], "se": d["se"], "paired": True}
            if m in RATE_COUNTS:
                k = RATE_COUNTS[m]
                _, lo, hi = newcombe(self.count_b[k], self.n, self.count_a[k], self.n, ALPHA)
                entry["ci_independent"] = [lo, hi]
            out[m] = entry
        return out

    def identical(self) -> bool:
        return self.n > 0 and all(self.sums[m] == 0 and self.sq[m] == 0 for m in PAIRED_METRICS)


def precision_reached(paired: PairedTally, precision: float) -> bool:
    return half_width(paired.difference("first_player_advantage")["ci"]) <= precision


def verdict(diffs: dict, identical: bool, n: int) -> str:
    """One line: is B different from A (FPA and side-0 win rate), at the 95% level."""
    if n == 0:
        return "no games played"
    if identical:
        return f"A and B played identical games ({n:,} pairs): no difference"

    def part(m, label):
        d = diffs[m]
        lo, hi = d["ci"]
        return f"{label} {d['diff']:+.4f} [{lo:+.4f}, {hi:+.4f}], p={_p(d['p_value'])}"

    parts = [part("first_player_advantage", "FPA"), part("side0_win_rate", "side-0 win rate")]
    sig = [m for m in VERDICT_METRICS if diffs[m]["p_value"] < ALPHA]
    if sig:
        names = " and ".join("first-player advantage" if m == "first_player_advantage" else "side-0 win rate"
                             for m in sig)
        return f"B differs from A in {names} (95%): " + "; ".join(parts)
    return "no significant difference between A and B (95%): " + "; ".join(parts)


def _p(p: float) -> str:
    if p is None or math.isnan(p):
        return "n/a"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


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
    _diffs: dict = field(default=None, repr=False)

    @property
    def differences(self) -> dict:
        if self._diffs is None:
            self._diffs = self.paired.differences()
        return self._diffs

    @property
    def verdict(self) -> str:
        return verdict(self.differences, self.paired.identical(), self.paired.n)

    def summary(self) -> dict:
        return {"kind": "compare", "a": self.a.summary(), "b": self.b.summary(), "labels": list(self.labels),
                "games": self.paired.n, "games_requested": self.a.config.games,
                "precision": self.precision, "stopped_at_precision": self.stopped_at_precision,
                "interrupted": self.interrupted, "difference": "B - A", "alpha": ALPHA,
                "differences": self.differences, "verdict": self.verdict}

    @property
    def table(self):
        """One row per metric: A, B, B - A with its 95% interval and p-value."""
        import pandas as pd
        sa, sb = self.a.summary(), self.b.summary()
        rows = []
        for m, d in self.differences.items():
            rows.append({"metric": m, "a": sa[m], "b": sb[m], "diff": d["diff"], "ci_lo": d["ci"][0],
                         "ci_hi": d["ci"][1], "p_value": d["p_value"]})
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
            progress=None, labels=("A", "B"), backend=None) -> CompareResult:
    """Play A and B on common random numbers, chunk by chunk in lockstep.

    ``out_dir``: writes DIR/manifest.json (kind compare), DIR/a/ and DIR/b/ (run
    directories) and DIR/compare.json. ``backend``: where both runs' chunks play
    (shared; `simkit.backends.dask.make_backend`). ``precision``: stop once the 95% half-width of
    the FPA difference is <= it (``config.games`` is the ceiling).
    """
    from simkit.backends.store import atomic_write_json
    from simkit.engine.runner import RunSession, _progress, environment
    from simkit.errors import UsageError

    check_precision(precision)
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
            if precision is not None and not paired._pending["a"] and not paired._pending["b"] \
                    and precision_reached(paired, precision):
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
    result = CompareResult(ra, rb, paired, precision, stopped, interrupted, out, tuple(labels))
    if out is not None:
        summary = result.summary()
        atomic_write_json(out / "compare.json", summary)
        manifest = json.loads((out / "manifest.json").read_text())
        manifest["status"] = "interrupted" if interrupted else "complete"
        manifest["games_done"] = paired.n
        manifest["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        atomic_write_json(out / "manifest.json", manifest)
    return result
