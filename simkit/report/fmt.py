"""One number format per kind, shared by the terminal (simkit/cli) and the HTML reports.

Kinds and their one format:

- rate (a share of games: wins, draws, decisiveness, an end reason): percent with one
  decimal, ``35.4%``; a difference of two rates in percentage points, ``+12.2 pp``;
- advantage (an expected score minus 1/2, a difference of expected scores): signed, four
  decimals, ``+0.0293``;
- score (an expected score in 0..1, matchup and ladder cells): three decimals, ``0.512``;
- count (games, kills, cells): an integer with thousands separators, ``20,000``;
- length (a mean game length in plies or turns) and per-game means: ``47.3`` / ``2.069``;
- p-value: ``0.0123``, ``<0.0001``;
- an interval: ``[lo, hi]`` in the kind of its estimate (``[34.3%, 36.4%]``); a sentence
  says ``95% CI [lo, hi]``;
- a missing number (not applicable, no data): ``—`` (MISSING), explained by a footnote where shown;
- an option value: as ``--set`` accepts it (TOML: ``true``/``false``, bare words, ``[1, 2]``).

Nothing here imports numpy/pandas at module level, so the CLI stays quick to start.
"""
from __future__ import annotations

import math
import re

MISSING = "—"
MISSING_NOTE = f"{MISSING}: not applicable or no data"


def missing(x) -> bool:
    """None, NaN (Python or numpy float) or pandas NA."""
    if x is None:
        return True
    try:
        return bool(x != x)          # NaN and pandas NA are not equal to themselves
    except (TypeError, ValueError):
        return False


def _f(x) -> float:
    return float(x)


def rate(x, digits: int = 1) -> str:
    return MISSING if missing(x) else f"{_f(x) * 100:.{digits}f}%"


def rate_diff(x, digits: int = 1) -> str:
    return MISSING if missing(x) else f"{_f(x) * 100:+.{digits}f} pp"


def advantage(x) -> str:
    return MISSING if missing(x) else f"{_f(x):+.4f}"


def score(x) -> str:
    return MISSING if missing(x) else f"{_f(x):.3f}"


def count(x) -> str:
    return MISSING if missing(x) else f"{int(round(_f(x))):,}"


def length(x) -> str:
    return MISSING if missing(x) else f"{_f(x):,.1f}"


def per_game(x) -> str:
    return MISSING if missing(x) else f"{_f(x):,.3f}"


def signed(x, digits: int = 3) -> str:
    return MISSING if missing(x) else f"{_f(x):+.{digits}f}"


def ratio(x) -> str:
    """A value relative to a reference unit (regression / |reference|): signed, two decimals."""
    return signed(x, 2)


def coefficient(x) -> str:
    """A raw regression (logit) coefficient: signed, three decimals."""
    return signed(x, 3)


def number(x) -> str:
    """A number of no particular kind: four significant digits, separators above 100,000."""
    if missing(x):
        return MISSING
    v = _f(x)
    if v == int(v) and abs(v) < 1e15:
        return f"{int(v):,}"
    return f"{v:.4g}" if abs(v) < 1e5 else f"{v:,.0f}"


def p_value(p) -> str:
    if missing(p):
        return MISSING
    return "<0.0001" if _f(p) < 1e-4 else f"{_f(p):.4f}"


def p_phrase(p) -> str:
    """'p = 0.0167' or 'p < 0.0001' (in a sentence)."""
    text = p_value(p)
    return f"p {text[0]} {text[1:]}" if text.startswith("<") else f"p = {text}"


def interval(lo, hi, kind=None) -> str:
    """``[lo, hi]`` with each end in the format ``kind`` (a function of this module)."""
    f = kind or number
    if missing(lo) and missing(hi):
        return MISSING
    if f is rate_diff:            # "[+11.6, +12.9] pp", not "[+11.6 pp, +12.9 pp]"
        pp = [MISSING if missing(x) else f"{_f(x) * 100:+.1f}" for x in (lo, hi)]
        return f"[{pp[0]}, {pp[1]}] pp"
    return f"[{f(lo)}, {f(hi)}]"


def with_ci(v, lo, hi, kind=None, sentence: bool = True) -> str:
    """``35.4% (95% CI [34.3%, 36.4%])`` in a sentence, ``35.4% [34.3%, 36.4%]`` in a cell."""
    f = kind or number
    if missing(lo) and missing(hi):
        return f(v)
    return f"{f(v)} (95% CI {interval(lo, hi, f)})" if sentence else f"{f(v)} {interval(lo, hi, f)}"


# ---- kinds of metrics by name (the metric names the summaries and tables use) ----------------

_RATE = re.compile(r"(_rate|_share|^decisiveness|^share|_shares)$|^end_")
_ADV = re.compile(r"advantage|^difference$")
_SCORE = re.compile(r"expected_score|^score$|^strength$")
_LENGTH = re.compile(r"^(mean|median)_(plies|turns|length)|_plies$|_turns$")


# unit values (`simkit values`) by method: an ablation is a change of expected score
UNIT_VALUE_KINDS = {"ablation": advantage, "regression": ratio, "regression_coef": coefficient}


def kind_of(metric: str):
    """The format of a metric by its name: rate, advantage, score, length or number."""
    m = str(metric)
    if m in UNIT_VALUE_KINDS:
        return UNIT_VALUE_KINDS[m]
    if _RATE.search(m):
        return rate
    if _ADV.search(m):
        return advantage
    if _SCORE.search(m):
        return score
    if _LENGTH.search(m):
        return length
    return number


def metric_value(metric: str, x) -> str:
    return kind_of(metric)(x)


def metric_diff(metric: str, x) -> str:
    """A difference B - A of ``metric``: rates in percentage points, the rest signed."""
    k = kind_of(metric)
    if k is rate:
        return rate_diff(x)
    if k in (advantage, score):
        return advantage(x)
    if k is length:
        return MISSING if missing(x) else f"{_f(x):+,.2f}"
    return MISSING if missing(x) else f"{_f(x):+.4g}"


def metric_diff_ci(metric: str, lo, hi) -> str:
    k = kind_of(metric)
    if k is rate:
        return interval(lo, hi, rate_diff)
    return f"[{metric_diff(metric, lo)}, {metric_diff(metric, hi)}]"


def metric_label(metric: str, unit: str = "plies") -> str:
    """A metric's name for people: ``mean_plies`` of a turn-based game is 'mean turns'."""
    return with_unit(str(metric), unit).replace("_", " ")


_LENGTH_NAME = re.compile(r"^((mean|median)_plies(_ci_lo|_ci_hi|_ci)?|plies(_std|_quantiles|_per_s)?)$")


def with_unit(name: str, unit: str = "plies") -> str:
    """The length metrics' names say the game's length unit: mean_plies -> mean_turns for a turn-based game
    (the records call every game's length 'plies'; rule options such as deadlock_plies keep theirs)."""
    if unit and unit != "plies" and _LENGTH_NAME.match(name):
        return name.replace("plies", unit)
    return name


# ---- option values, as --set accepts them (TOML) ----------------------------------------------

_BARE = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")


def option_value(v, _inner: bool = False) -> str:
    """An option value as ``--set KEY=VALUE`` (and ``--vary``) accepts it: TOML, a bare word for a
    string that reads back as itself (``mode=fast``), ``true``/``false`` for booleans."""
    if hasattr(v, "item") and not isinstance(v, (list, tuple, dict, str)):
        v = v.item()                     # numpy scalars (a pandas column of a sweep table)
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return MISSING
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return MISSING
        return repr(v) if v != int(v) or abs(v) >= 1e16 else f"{v:.1f}"
    if isinstance(v, str):
        if not _inner and _BARE.match(v) and v not in ("true", "false", "inf", "nan"):
            return v          # a bare word reads back as a string on its own, not inside [..] or {..}
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(option_value(x, True) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_key(k)} = {option_value(x, True)}" for k, x in v.items()) + "}"
    return str(v)


def _key(k) -> str:
    k = str(k)
    return k if re.match(r"^[A-Za-z0-9_\-]+$", k) else '"' + k.replace('"', '\\"') + '"'


def setting(key: str, v) -> str:
    """``key=value`` exactly as it can be passed to --set."""
    return f"{key}={option_value(v)}"


def overrides(over: dict | None) -> str:
    return ", ".join(setting(k, v) for k, v in (over or {}).items())


# ---- labels: game, variant, policies, first-player mode, seed, games --------------------------

def variant(name: str | None, over: dict | None) -> str:
    """A scenario with its --set overrides: 'default' alone; 'dispatch_bonus=2' for the default
    with one override; 'fast + max_plies=60' for a named scenario with one."""
    name = str(name or "?")
    extra = overrides(over)
    if not extra:
        return name
    return extra if name == "default" else f"{name} + {extra}"


def game_variant(title: str, name: str | None, over: dict | None) -> str:
    """'<Game title>: <variant>', e.g. 'Some Game: dispatch_bonus=2'."""
    return f"{title}: {variant(name, over)}"


def context(policies=None, first=None, seed=None, games=None, games_what: str = "games") -> str:
    """'greedy vs greedy · first player alternate · seed 0 · 20,000 games' (what is known)."""
    parts = []
    if policies:
        parts.append(" vs ".join(map(str, policies)))
    if first is not None:
        parts.append(f"first player {first}")
    if seed is not None:
        parts.append(f"seed {seed}")
    if games is not None and not missing(games):
        parts.append(f"{count(games)} {games_what}")
    return " · ".join(parts)


def unit_singular(unit: str) -> str:
    return {"plies": "ply", "turns": "turn"}.get(unit, unit)
