"""Read a scenario TOML (with ``extends``), apply ``--set`` overrides, validate.

A scenario file has a few meta keys (``game``, ``name``, ``description``,
``extends``); every other top-level key is a rule option of the game.
"""
from __future__ import annotations

import copy
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simkit.errors import ScenarioError, UnknownGameError

META_KEYS = ("game", "name", "description", "extends")


def scenario_root() -> Path:
    """The default scenarios are package data (simkit/scenarios/<game>/*.toml), so a wheel install
    finds them. In the checkout simkit/scenarios is a symlink to the top-level ``scenarios/``
    (the paths the README uses); the wheel holds a copy."""
    from importlib.resources import files
    return Path(str(files("simkit") / "scenarios"))


@dataclass
class Scenario:
    game: str
    name: str
    rules: dict[str, Any]
    path: str | None = None
    description: str = ""
    overrides: dict[str, Any] = field(default_factory=dict)
    # a learned evaluation not yet stored, played in place of the store's (simkit learn's acceptance match)
    learned: dict | None = None

    @property
    def spec(self):
        """The game's spec for this scenario (record columns may follow its rules, e.g. Storm's deck)."""
        from simkit.games import get_game
        return get_game(self.game).for_scenario(self.rules)

    def params(self):
        """Stage 2: the flat numpy parameter arrays the kernels take."""
        return self.spec.prepare(self.rules)

    def params_for(self, policies, base=None):
        """The parameter arrays for a game between these two policies: a policy's own search knobs
        (``mcts:400/mcts_c=0.5``) go into its side's row of the knob table, and each side's evaluation
        (learned or hand-set) into its row of the weight table. ``base``: ``self.params()`` when the
        caller prepared it already (the rules are prepared once for many policies)."""
        from simkit.policies import parse_policy, side_params
        from simkit.scenario.evaluation import with_evaluations
        spec = self.spec
        params = side_params(spec, self.rules, self.params() if base is None else base, policies)
        owns = [None if str(n).startswith("python:") else parse_policy(spec, n).evaluation for n in policies]
        return with_evaluations(spec, self.rules, params, owns, self.learned)

    @property
    def evaluation(self) -> dict | None:
        """The learned evaluation the scenario's ``evaluation`` option gives (None: the default weights);
        a policy's own ``@EVAL`` may differ for its side."""
        from simkit.scenario.evaluation import evaluation_of
        return evaluation_of(self.spec, self.rules, None, self.learned)

    def to_dict(self) -> dict:
        out = {"game": self.game, "name": self.name, "description": self.description,
               "path": self.path, "overrides": self.overrides, "rules": self.rules}
        if getattr(self.spec, "eval_slot", None) is not None:
            # the learned weights a run played with are part of what it is (a resume with others is refused)
            from simkit.scenario.evaluation import describe, load_learned
            rec = self.learned if self.learned is not None else load_learned(self.spec, self.rules)
            if rec is not None:
                out["learned_evaluation"] = {"describe": describe(rec), "weights": rec["weights"],
                                             "features": rec["features"], "games": rec["games"]}
        return out

    def with_overrides(self, overrides: list[str] | dict | None) -> "Scenario":
        """This scenario with ``overrides`` (``--set`` items or {key: value}) applied on top of its
        resolved ``rules`` — not re-read from its file, so rules changed in Python are kept
        (ablation and sweep cells derive from it this way). Validated like `load_scenario`."""
        from simkit.games import get_game
        items = _override_items(overrides)
        rules = _overridden(get_game(self.game), self.rules, items, self.path or "<scenario>")
        return Scenario(game=self.game, name=self.name, rules=rules, path=self.path,
                        description=self.description, overrides={**self.overrides, **dict(items)})


def scenario_dir(game: str) -> Path:
    """Where a registered game's scenarios live: its spec's ``scenario_dir`` (a game registered
    from outside the package, e.g. a test game) or the packaged simkit/scenarios/<game>/."""
    from simkit.games import get_game
    own = getattr(get_game(game), "scenario_dir", None)
    return Path(own) if own else scenario_root() / game


def _read_toml(path: Path) -> dict:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such file", file=str(path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as e:   # ValueError: a NUL byte in the path
        raise ScenarioError(f"cannot read: {e}", file=str(path)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ScenarioError(f"malformed TOML: {e}", file=str(path)) from None


def _read_chain(path: Path, seen: tuple = ()) -> tuple[dict, str | None]:
    """The file's keys merged over those of the file it extends (recursively)."""
    try:
        path = path.resolve()
    except (OSError, ValueError, RuntimeError) as e:
        raise ScenarioError(f"cannot read: {e}", file=str(path)) from None
    if path in seen:
        raise ScenarioError("'extends' forms a cycle", file=str(path), key="extends")
    data = _read_toml(path)
    parent = data.get("extends")
    if parent is None:
        return data, data.get("game")
    if not isinstance(parent, str):
        raise ScenarioError(f"got {parent!r}, expected a file name", file=str(path), key="extends")
    base, game = _read_chain(path.parent / parent, seen + (path,))
    merged = _merge(base, {k: v for k, v in data.items() if k != "extends"})
    merged.pop("extends", None)
    return merged, data.get("game", game)


def _merge(base: dict, top: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in top.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _top_key(key: str) -> str:
    """The option a (dotted or indexed) key belongs to: 'deck.knight.cost', 'trees[1]' -> 'deck', 'trees'."""
    return re.split(r"[.\[]", key, maxsplit=1)[0]


def parse_set(item: str) -> tuple[str, Any]:
    """``key=value`` with a TOML value; a bare word is a string (``clock=leader``)."""
    if "=" not in item:
        raise ScenarioError(f"--set expects KEY=VALUE, got {item!r}")
    key, raw = item.split("=", 1)
    key, raw = key.strip(), raw.strip()
    if not key:
        raise ScenarioError(f"--set expects KEY=VALUE, got {item!r}")
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


def _apply_override(rules: dict, key: str, value: Any, source: str):
    """Dotted keys reach into tables: ``deck.knight.cost=4``."""
    parts = key.split(".")
    node = rules
    for i, p in enumerate(parts[:-1]):
        if p not in node:
            raise ScenarioError("no such table", file=source, key=".".join(parts[: i + 1]))
        if not isinstance(node[p], dict):
            raise ScenarioError("is not a table", file=source, key=".".join(parts[: i + 1]))
        node = node[p]
    node[parts[-1]] = value


def resolve_target(target: str) -> tuple[Path, str | None]:
    """A game name (its default scenario) or a path to a scenario file."""
    from simkit.games import GAMES, get_game

    if target in GAMES:
        return scenario_dir(target) / "default.toml", target
    p = Path(target)
    try:
        exists = p.exists()
    except (OSError, ValueError):   # a NUL byte or an over-long name: no such file
        exists = False
    if p.suffix == ".toml" or exists:
        return p, None
    get_game(target)  # raises UnknownGameError with a suggestion
    raise UnknownGameError(f"unknown game or scenario file '{target}'")


def _override_items(overrides) -> list[tuple[str, Any]]:
    if isinstance(overrides, dict):
        return list(overrides.items())
    return [parse_set(s) for s in (overrides or [])]


def _overridden(spec, rules: dict, items: list, source: str) -> dict:
    """``rules`` (not modified) with the ``--set`` items applied, validated by the game's schema."""
    from simkit.scenario.schema import unknown_key_error, validate_rules
    rules = copy.deepcopy(rules)
    names = {o.name for o in spec.options}
    for key, value in items:
        if key.split(".")[0] not in names:
            e = unknown_key_error(key.split(".")[0], names)
            raise ScenarioError(e.detail, file="--set", key=key)
        _apply_override(rules, key, value, "--set")
    try:
        rules = validate_rules(spec.options, rules)
        spec.validate(rules)
    except ScenarioError as e:
        from_set = e.key is not None and any(_top_key(e.key) == _top_key(k) for k, _ in items)
        raise ScenarioError(e.detail, file="--set" if from_set else source, key=e.key) from None
    return rules


def load_scenario(target: str, overrides: list[str] | dict | None = None) -> Scenario:
    from simkit.games import get_game

    path, game_name = resolve_target(target)
    data, file_game = _read_chain(path)
    source = str(path)
    game = file_game if file_game is not None else game_name
    if game is None:
        raise ScenarioError("missing 'game' (the game this scenario is for)", file=source, key="game")
    if not isinstance(game, str):
        raise ScenarioError(f"got {game!r}, expected a game name (a string)", file=source, key="game")
    try:
        spec = get_game(game)
    except UnknownGameError as e:
        raise ScenarioError(str(e), file=source, key="game") from None
    rules = {k: v for k, v in data.items() if k not in META_KEYS}
    items = _override_items(overrides)
    rules = _overridden(spec, rules, items, source)
    name = data.get("name") or path.stem
    for k in ("name", "description"):
        if k in data and not isinstance(data[k], str):
            raise ScenarioError(f"got {data[k]!r}, expected a string", file=source, key=k)
    return Scenario(game=game, name=str(name), rules=rules, path=source,
                    description=str(data.get("description", "")), overrides=dict(items))
