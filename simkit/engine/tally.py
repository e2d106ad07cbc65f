"""A streaming summary of game records: everything `summary.json` needs, in O(1) memory.

Chunks are folded in one at a time (`add`), so a run of any size is summarised
without holding its records. Two tallies merge by addition, in any order, with
identical results (integer counts only).
"""
from __future__ import annotations

import numpy as np

from simkit.games.base import BASE_FIELDS


class Tally:
    def __init__(self, spec):
        self.spec = spec
        # outcome[first side, k]: k = 0 first player won, 1 second player won, 2 draw
        self.outcome = np.zeros((2, 3), dtype=np.int64)
        self.length_hist = np.zeros(1, dtype=np.int64)
        self.end_counts = np.zeros(len(spec.end_reasons), dtype=np.int64)
        self.column_sums = np.zeros(len(spec.record_fields), dtype=np.int64)
        self.aggregate = None
        # games with no interaction (every spec.interaction_fields column 0); None if none declared
        self.quiet = 0 if spec.interaction_fields else None

    @property
    def games(self) -> int:
        return int(self.outcome.sum())

    def add(self, records: np.ndarray, aggregate: np.ndarray | None = None) -> "Tally":
        if len(records):
            first = records[:, 0].astype(np.int64)
            winner = records[:, 1].astype(np.int64)
            k = np.where(winner < 0, 2, np.where(winner == first, 0, 1))
            np.add.at(self.outcome, (first, k), 1)
            hist = np.bincount(records[:, 2].astype(np.int64))
            if len(hist) > len(self.length_hist):
                self.length_hist = np.pad(self.length_hist, (0, len(hist) - len(self.length_hist)))
            self.length_hist[: len(hist)] += hist
            reasons = records[:, 3][records[:, 3] >= 0]   # RESIGNED (-1): ended outside the rules
            self.end_counts += np.bincount(reasons, minlength=len(self.end_counts))[: len(self.end_counts)]
            self.column_sums += records.sum(axis=0, dtype=np.int64)
            if self.quiet is not None:
                self.quiet += quiet_games(self.spec, records)
        if aggregate is not None:
            agg = np.asarray(aggregate, dtype=np.int64)
            self.aggregate = agg.copy() if self.aggregate is None else self.aggregate + agg
        return self

    def merge(self, other: "Tally") -> "Tally":
        out = Tally(self.spec)
        for t in (self, other):
            out.outcome += t.outcome
            out.end_counts += t.end_counts
            out.column_sums += t.column_sums
            if out.quiet is not None:
                out.quiet += t.quiet
            if len(t.length_hist) > len(out.length_hist):
                out.length_hist = np.pad(out.length_hist, (0, len(t.length_hist) - len(out.length_hist)))
            out.length_hist[: len(t.length_hist)] += t.length_hist
            if t.aggregate is not None:
                out.aggregate = t.aggregate.copy() if out.aggregate is None else out.aggregate + t.aggregate
        return out

    def column_totals(self) -> dict[str, int]:
        """Sums of every non-base record column (kills, losses, ... over all games)."""
        return {f: int(v) for f, v in zip(self.spec.record_fields, self.column_sums) if f not in BASE_FIELDS}


def quiet_games(spec, records: np.ndarray) -> int | None:
    """Games with no interaction: every ``spec.interaction_fields`` column is 0 (None if none declared)."""
    fields = [spec.record_fields.index(f) for f in spec.interaction_fields if f in spec.record_fields]
    if not fields:
        return None
    return int((records[:, fields].sum(axis=1) == 0).sum())
