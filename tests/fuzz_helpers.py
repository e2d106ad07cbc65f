"""Shared pieces of the fuzz tests: a tiny TOML writer, value strategies, the CLI contract check."""
from __future__ import annotations

import json
import math
import re

from hypothesis import strategies as st

from simkit.games import GAMES, get_game

# -- writing TOML (inline tables everywhere, so any nesting is one line per top-level key) --------

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def toml_key(k: str) -> str:
    return k if _BARE.match(k) else toml_str(k)


def toml_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif o < 0x20 or o == 0x7F:
            out.append(f"\\u{o:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return toml_str(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{toml_key(str(k))} = {toml_value(x)}" for k, x in v.items()) + "}"
    raise TypeError(type(v))


def toml_doc(d: dict) -> str:
    return "".join(f"{toml_key(str(k))} = {toml_value(v)}\n" for k, v in d.items())


# -- values ----------------------------------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
NAMES = st.sampled_from(["pawn", "queen", "drone", "knight", "hero", "archer", "cavalry", "spearman",
                         "infantry", "warlord", "shieldman", "horseman", "side", "kind", "level", "cost",
                         "spaces", "links", "count", "move", "range", "x", "y", "0", "1", "K0", "K1"])
KEYS = st.one_of(NAMES, TEXT)
SCALARS = st.one_of(
    st.integers(min_value=-5, max_value=130),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 2**31 - 1, -(2**31), 2**63 - 1, -(2**63), 2**64, 10**30]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.booleans(),
    TEXT,
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                        st.dictionaries(KEYS, inner, max_size=4)),
                      max_leaves=12)


def game_defaults(game: str) -> dict:
    return {o.name: o.default for o in get_game(game).options}


@st.composite
def mutated_rules(draw):
    """A game's default rules with a few random edits: replaced, deleted or added entries at any depth."""
    game = draw(st.sampled_from(sorted(GAMES)))
    rules = json.loads(json.dumps(game_defaults(game)))
    for _ in range(draw(st.integers(1, 3))):
        node, path = rules, []
        while isinstance(node, (dict, list)) and node and draw(st.booleans()):
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            k = draw(st.sampled_from(keys))
            if not isinstance(node[k], (dict, list)) or not node[k]:
                break
            node, path = node[k], path + [k]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if isinstance(node, dict):
            if action == "add" or not node:
                node[draw(KEYS)] = draw(VALUES)
            else:
                k = draw(st.sampled_from(list(node)))
                if action == "delete":
                    del node[k]
                else:
                    node[k] = draw(VALUES)
        elif isinstance(node, list):
            if action == "add" or not node:
                node.append(draw(VALUES))
            else:
                i = draw(st.integers(0, len(node) - 1))
                if action == "delete":
                    node.pop(i)
                else:
                    node[i] = draw(VALUES)
    meta = {"game": game}
    if draw(st.integers(0, 9)) == 0:
        meta["game"] = draw(VALUES)
    if draw(st.integers(0, 9)) == 0:
        meta["name"] = draw(VALUES)
    return {**meta, **rules}


def check_cli_result(result, out_dir=None):
    """The contract: exit 0, or exit 2 with one clean error line; never a traceback.

    With an ``out_dir``: a run directory is "complete" only with a games.parquet of all rows."""
    exc = result.exception
    assert exc is None or isinstance(exc, SystemExit), (
        f"crash: {type(exc).__name__}: {exc}\n{result.output[-2000:]}")
    assert result.exit_code in (0, 2), (result.exit_code, result.output[-2000:])
    assert "Traceback" not in result.output, result.output[-2000:]
    if result.exit_code == 2:
        lines = [ln for ln in result.output.splitlines() if ln.strip()]
        assert lines and (lines[-1].startswith("error:") or lines[-1].startswith("Error:")), result.output[-2000:]
    if out_dir is not None and (out_dir / "manifest.json").exists():
        manifest = json.loads((out_dir / "manifest.json").read_text())
        if manifest.get("status") == "complete":
            import pyarrow.parquet as pq
            n = pq.read_metadata(out_dir / "games.parquet").num_rows
            assert n == manifest["games_done"], (n, manifest)
            if not manifest.get("stopped_at_precision") and not result.exit_code:
                assert n == manifest["config"]["games"]
        else:
            assert result.exit_code != 0 or manifest.get("status") == "interrupted"
