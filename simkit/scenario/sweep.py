"""Grids of overrides for `simkit sweep`: ``--vary KEY=V1,V2,...`` and ``--vary KEY=A..B``.

- ``KEY`` is a rule option of the game (dotted keys reach into tables:
  ``remove_0.queen=0..2``); an unknown key is refused with the nearest name.
- ``V1,V2,...``: each value is read as a TOML value (``3``, ``0.5``, ``true``,
  ``"x"``), a bare word is a string (``clock=off,leader``).
- ``A..B``: the integers A, A+1, ..., B (inclusive); ``A..B`` with B < A has no
  values and is refused; float ranges are refused (list float values instead).

The grid is every combination, the first ``--vary`` varying slowest. It is a `Grid`: cell i
is computed from i when asked, so a million-cell grid costs nothing until its cells play.
"""
from __future__ import annotations

import itertools
import math
import re
import tomllib
from typing import Any

from simkit.errors import UsageError

_RANGE = re.compile(r"^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$")
_FLOATISH = re.compile(r"^\s*-?[\d.eE+-]+\s*\.\.\s*-?[\d.eE+-]+\s*$")


def _value(raw: str) -> Any:
    raw = raw.strip()
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def parse_vary(item: str) -> tuple[str, list]:
    """``KEY=V1,V2`` or ``KEY=A..B`` -> (key, values)."""
    if "=" not in item:
        raise UsageError(f"--vary expects KEY=V1,V2,... or KEY=A..B, got {item!r}")
    key, raw = item.split("=", 1)
    key, raw = key.strip(), raw.strip()
    if not key or not raw:
        raise UsageError(f"--vary expects KEY=V1,V2,... or KEY=A..B, got {item!r}")
    m = _RANGE.match(raw)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
        if hi < lo:
            raise UsageError(f"--vary {key}={raw}: the range has no values (write A..B with A <= B)")
        return key, list(range(lo, hi + 1))
    if ".." in raw:
        if _FLOATISH.match(raw):
            raise UsageError(f"--vary {key}={raw}: ranges A..B are integers with step 1; "
                             f"list other values instead (e.g. {key}=0.5,0.75,1.0)")
        raise UsageError(f"--vary {key}={raw}: expected A..B with integers A <= B, or a list V1,V2,...")
    values = [_value(v) for v in raw.split(",")]
    if any(isinstance(v, str) and v == "" for v in values):
        raise UsageError(f"--vary {key}={raw}: empty value in the list")
    seen = []
    for v in values:
        if any(v == s and type(v) is type(s) for s in seen):
            raise UsageError(f"--vary {key}: value {v!r} listed twice")
        seen.append(v)
    return key, values


class Grid:
    """Every combination of some lists of values, the first list varying slowest: ``len``,
    ``grid[i]`` and iteration, each cell computed on demand (nothing is listed)."""

    def __init__(self, lists):
        self.lists = [list(v) for v in lists]

    def __len__(self) -> int:
        return math.prod(len(v) for v in self.lists)

    def __getitem__(self, i: int) -> tuple:
        if not -len(self) <= i < len(self):
            raise IndexError(i)
        i %= len(self)
        out = []
        for values in reversed(self.lists):
            i, k = divmod(i, len(values))
            out.append(values[k])
        return tuple(reversed(out))

    def __iter__(self):
        return itertools.product(*self.lists)


def parse_grid(items, spec) -> tuple[list[str], Grid]:
    """The varied keys and every combination of their values (the first key varies slowest)."""
    from simkit.scenario.schema import _suggest
    if not items:
        raise UsageError("give at least one --vary KEY=V1,V2,... (or KEY=A..B)")
    names = [o.name for o in spec.options]
    keys, lists = [], []
    for item in items:
        key, values = parse_vary(item)
        top = key.split(".")[0]
        if top not in names:
            raise UsageError(f"--vary: unknown key '{key}' for {spec.name}{_suggest(top, names)}; "
                             f"keys: {', '.join(names)} (see `simkit rules {spec.name}`)")
        if key in keys:
            raise UsageError(f"--vary: key '{key}' given twice; list all its values in one --vary")
        keys.append(key)
        lists.append(values)
    return keys, Grid(lists)


def cell_overrides(base_sets, keys: list[str], values: tuple) -> dict:
    """The overrides of one grid cell: the common --set first, then the varied keys."""
    from simkit.scenario.load import parse_set
    items = base_sets.items() if isinstance(base_sets, dict) else (parse_set(s) for s in base_sets or [])
    out = dict(items)
    out.update(zip(keys, values))
    return out
