"""Rule schemas: each game declares its options; values are checked against them.

An option is a name, a kind, a default and what is allowed. Kinds:

- ``int`` / ``float``: bounded by ``min`` / ``max`` (inclusive, None = open)
- ``bool``
- ``choice``: one of ``choices`` (strings)
- ``table``: a TOML table (or array) checked by the game's own ``check`` function,
  which raises ``ScenarioError`` naming the entry.

Errors name the key and what is allowed; the loader adds the file name.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any, Callable

from simkit.errors import ScenarioError


@dataclass(frozen=True)
class Option:
    name: str
    kind: str
    default: Any
    help: str
    min: float | None = None
    max: float | None = None
    choices: tuple[str, ...] = ()
    check: Callable[[str, Any], Any] | None = field(default=None, compare=False)
    # a knob of a policy (greedy weights, MCTS settings), not a rule of the game: `sensitivity`
    # and compensation searches leave it alone by default
    policy_knob: bool = False
    # the natural step of a numeric option (`sensitivity` goes one step down and up): None = 1 for
    # integers, 10% of the value for floats
    step: float | None = None

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return "one of " + ", ".join(repr(c) for c in self.choices)
        if self.kind in ("int", "float"):
            word = "an integer" if self.kind == "int" else "a number"
            lo = "" if self.min is None else f"{self.min:g}"
            hi = "" if self.max is None else f"{self.max:g}"
            if lo and hi:
                return f"{word} from {lo} to {hi}"
            if lo:
                return f"{word} >= {lo}"
            if hi:
                return f"{word} <= {hi}"
            return word
        return "a table (see docs/scenario-format.md)"

    def coerce(self, value: Any) -> Any:
        """Return the checked value or raise ScenarioError(key=self.name)."""
        k = self.kind
        if k == "bool":
            if not isinstance(value, bool):
                raise ScenarioError(f"got {value!r}, expected {self.allowed()}", key=self.name)
            return value
        if k in ("int", "float"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ScenarioError(f"got {value!r}, expected {self.allowed()}", key=self.name)
            if k == "int":
                if isinstance(value, float):
                    if not value.is_integer():
                        raise ScenarioError(f"got {value!r}, expected {self.allowed()}", key=self.name)
                    value = int(value)
            else:
                value = float(value)
                if value != value or value in (float("inf"), float("-inf")):
                    raise ScenarioError(f"got {value!r}, expected {self.allowed()}", key=self.name)
            if (self.min is not None and value < self.min) or (self.max is not None and value > self.max):
                raise ScenarioError(f"{value!r} is out of range: expected {self.allowed()}", key=self.name)
            return value
        if k == "choice":
            if value not in self.choices:
                hint = _suggest(str(value), self.choices)
                raise ScenarioError(f"got {value!r}, expected {self.allowed()}{hint}", key=self.name)
            return value
        if k == "table":
            if not isinstance(value, (dict, list)):
                raise ScenarioError(f"got {value!r}, expected {self.allowed()}", key=self.name)
            return self.check(self.name, value) if self.check else value
        raise AssertionError(k)


def _suggest(word: str, names) -> str:
    close = difflib.get_close_matches(word, list(names), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def unknown_key_error(key: str, names) -> ScenarioError:
    hint = _suggest(key, names)
    return ScenarioError(f"unknown key{hint}; allowed keys: {', '.join(sorted(names))}", key=key)


def validate_rules(options: tuple[Option, ...], rules: dict) -> dict:
    """Check every key of ``rules``; fill missing ones with defaults. Returns a new dict."""
    by_name = {o.name: o for o in options}
    for key in rules:
        if key not in by_name:
            raise unknown_key_error(key, by_name)
    out = {}
    for o in options:
        out[o.name] = o.coerce(rules[o.name]) if o.name in rules else o.default
    return out


def table_of_counts(units: tuple[str, ...], *, min_value: int = 0):
    """A ``check`` for tables mapping unit type -> non-negative count."""

    def check(name: str, value):
        if not isinstance(value, dict):
            raise ScenarioError(f"expected a table of unit type -> count, got {value!r}", key=name)
        out = {}
        for unit, n in value.items():
            if unit not in units:
                raise ScenarioError(
                    f"unknown unit type '{unit}'{_suggest(unit, units)}; allowed: {', '.join(units)}",
                    key=f"{name}.{unit}")
            if isinstance(n, bool) or not isinstance(n, int) or n < min_value:
                raise ScenarioError(f"got {n!r}, expected an integer >= {min_value}", key=f"{name}.{unit}")
            out[unit] = n
        return out

    return check


def table_of_values(units: tuple[str, ...], defaults: dict, *, positive: bool = False):
    """A ``check`` for tables mapping unit type -> value (missing units keep their default)."""
    bound = "> 0" if positive else ">= 0"

    def check(name: str, value):
        if not isinstance(value, dict):
            raise ScenarioError(f"expected a table of unit type -> value, got {value!r}", key=name)
        out = dict(defaults)
        for unit, v in value.items():
            if unit not in units:
                raise ScenarioError(
                    f"unknown unit type '{unit}'{_suggest(unit, units)}; allowed: {', '.join(units)}",
                    key=f"{name}.{unit}")
            number = not isinstance(v, bool) and isinstance(v, (int, float)) and v < 1e6
            ok = number and (v > 0 or (not positive and v == 0))
            if not ok:
                raise ScenarioError(f"got {v!r}, expected a number {bound}", key=f"{name}.{unit}")
            out[unit] = float(v)
        return out

    return check


def handicap_options(units: tuple[str, ...]) -> tuple[Option, ...]:
    """``remove_0`` / ``remove_1``: units taken out of one side's starting army.

    Every game offers them; `simkit values` uses them for ablation, and a
    designer can use them for handicap studies.
    """
    return tuple(
        Option(f"remove_{s}", "table", {}, f"units removed from side {s}'s starting army (unit type -> count)",
               check=table_of_counts(units))
        for s in (0, 1)
    )
