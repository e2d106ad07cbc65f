"""Read the directories a report is made of: runs, compares, sweeps and unit values.

Every reader is tolerant: a report must never break because a run was
interrupted (no games.parquet), a game is unknown to this checkout, or a newer
command wrote an extra key. What a reader cannot find is left as None and the
report skips the figure that needs it.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from simkit.errors import UsageError

# per-unit stats (the spec's unit columns) a report reads from games.parquet; ACTIVITY are charted
UNIT_STATS = ("kills", "losses", "dispatched", "attacks", "snap", "final")
ACTIVITY = ("kills", "losses", "dispatched", "attacks")
Z95 = 1.959963984540054


def _json(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as e:
        raise UsageError(f"cannot read {path}: {e}") from None


@dataclass
class RunData:
    path: Path
    manifest: dict
    summary: dict
    games: pd.DataFrame | None = None      # plies, end_reason and unit columns (None: no games.parquet)
    aggregate: pd.DataFrame | None = None  # columns cell (str), count (int)
    kind: str = "run"

    @property
    def scenario(self) -> dict:
        return self.manifest.get("scenario") or {}

    @property
    def game(self) -> str:
        return str(self.scenario.get("game") or self.summary.get("game") or "unknown")

    @property
    def name(self) -> str:
        return str(self.scenario.get("name") or self.summary.get("scenario") or self.path.name)

    @property
    def rules(self) -> dict:
        return self.scenario.get("rules") or {}

    @property
    def policies(self) -> list:
        return list((self.manifest.get("config") or {}).get("policies") or self.summary.get("policies") or [])

    @property
    def length_unit(self) -> str:
        return str(self.summary.get("length_unit") or "plies")

    @property
    def title(self) -> str:
        try:
            from simkit.games import get_game
            return get_game(self.game).title
        except Exception:  # an unknown game still gets a report
            return self.game

    @property
    def label(self) -> str:
        pol = " vs ".join(self.policies)
        return f"{self.game} / {self.name}" + (f" ({pol})" if pol else "")

    @property
    def spec(self):
        """The game's spec for this run's rules (its record columns); None for a game unknown
        to this checkout (the report then has no per-unit figures)."""
        return _spec_of(self.game, self.rules)

    def _unit_columns(self) -> list:
        if self.games is None:
            return []
        present = set(self.games.columns)
        return [c for c in _report_unit_columns(self.spec) if c.name in present]

    def length_cap(self) -> int | None:
        for key in ("max_plies", "max_turns"):
            v = self.rules.get(key)
            if isinstance(v, int) and not isinstance(v, bool):
                return v
        return None

    def units(self) -> pd.DataFrame:
        """Per side, unit and stat: per-game mean with a normal 95% interval and the total."""
        rows = []
        if self.games is None or not len(self.games):
            return pd.DataFrame(columns=["side", "unit", "stat", "mean", "lo", "hi", "total"])
        n = len(self.games)
        for c in self._unit_columns():
            if c.stat not in ACTIVITY:
                continue
            x = self.games[c.name].to_numpy(dtype=np.float64)
            mean = float(x.mean())
            half = Z95 * float(x.std()) / math.sqrt(n) if n > 1 else math.nan
            rows.append({"side": c.side, "unit": c.unit, "stat": c.stat, "mean": mean,
                         "lo": mean - half, "hi": mean + half, "total": int(x.sum())})
        return pd.DataFrame(rows, columns=["side", "unit", "stat", "mean", "lo", "hi", "total"])

    def unit_types(self) -> list[str]:
        seen: list[str] = []
        for c in self._unit_columns():
            if c.unit not in seen:
                seen.append(c.unit)
        return seen


def _spec_of(game: str, rules: dict):
    try:
        from simkit.games import get_game
        return get_game(game).for_scenario(rules)
    except Exception:  # an unknown game (or rules this checkout cannot read) still gets a report
        return None


def _report_unit_columns(spec) -> list:
    """The per-side, per-unit columns of ``spec`` a report reads (stats UNIT_STATS)."""
    return [] if spec is None else [c for c in spec.unit_columns() if c.stat in UNIT_STATS]


@dataclass
class CompareData:
    path: Path
    manifest: dict
    compare: dict
    a: RunData | None
    b: RunData | None
    kind: str = "compare"

    def labels(self) -> tuple[str, str]:
        given = self.compare.get("labels") or self.manifest.get("labels") or ["A", "B"]
        if list(given) != ["A", "B"] and len(given) == 2:
            la, lb = str(given[0]), str(given[1])
        else:
            la = self.a.name if self.a is not None else "A"
            lb = self.b.name if self.b is not None else "B"
        if la == lb:
            la, lb = f"A: {la}", f"B: {lb}"
        return la, lb

    def summaries(self) -> tuple[dict, dict]:
        c = self.compare
        sa = (self.a.summary if self.a else None) or c.get("a") or (c.get("summaries") or {}).get("a") or {}
        sb = (self.b.summary if self.b else None) or c.get("b") or (c.get("summaries") or {}).get("b") or {}
        if isinstance(sa, dict) and "summary" in sa:
            sa = sa["summary"]
        if isinstance(sb, dict) and "summary" in sb:
            sb = sb["summary"]
        return sa, sb

    def differences(self) -> pd.DataFrame:
        """metric, a, b, difference, ci_lo, ci_hi, p_value, verdict (from compare.json)."""
        raw = self.compare.get("differences") or self.compare.get("diffs") or {}
        items = raw.items() if isinstance(raw, dict) else ((d.get("metric"), d) for d in raw)
        rows = []
        sa, sb = self.summaries()
        for metric, d in items:
            if not isinstance(d, dict):
                continue
            diff = _first(d, "difference", "diff", "delta", "value", "estimate")
            ci = d.get("ci") or d.get("difference_ci") or [d.get("ci_lo"), d.get("ci_hi")]
            a = _first(d, "a", "value_a")
            b = _first(d, "b", "value_b")
            rows.append({"metric": str(metric), "a": _num(sa.get(metric)) if math.isnan(a) else a,
                         "b": _num(sb.get(metric)) if math.isnan(b) else b,
                         "difference": diff, "ci_lo": _num(ci[0]), "ci_hi": _num(ci[1]),
                         "p_value": _first(d, "p_value", "p"), "verdict": str(d.get("verdict", ""))})
        return pd.DataFrame(rows, columns=["metric", "a", "b", "difference", "ci_lo", "ci_hi", "p_value",
                                           "verdict"])


@dataclass
class SweepData:
    path: Path
    manifest: dict
    table: pd.DataFrame
    params: list[str]
    kind: str = "sweep"

    PRIORITY = ("first_player_advantage", "side0_win_rate", "draw_rate", "mean_plies")

    def metrics(self) -> list[str]:
        """Metric columns with interval columns, most useful first (all-NaN intervals last)."""
        cols = set(self.table.columns)
        ms = [c for c in self.table.columns
              if c not in self.params and f"{c}_ci_lo" in cols and f"{c}_ci_hi" in cols]

        def rank(m):
            has_ci = self.table[f"{m}_ci_lo"].notna().any()
            return (not has_ci, self.PRIORITY.index(m) if m in self.PRIORITY else len(self.PRIORITY))
        return sorted(ms, key=rank)

    @property
    def name(self) -> str:
        sc = self.manifest.get("scenario")
        if isinstance(sc, dict):
            return str(sc.get("name") or self.path.name)
        return str(sc or self.manifest.get("name") or self.path.name)


@dataclass
class ValuesData:
    path: Path
    meta: dict
    table: pd.DataFrame   # method, unit, value, ci_lo, ci_hi (and maybe side)
    kind: str = "values"

    @property
    def name(self) -> str:
        return str(self.meta.get("scenario") if isinstance(self.meta.get("scenario"), str)
                   else (self.meta.get("scenario") or {}).get("name", self.path.name))


def _num(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _first(d: dict, *keys):
    for k in keys:
        if k in d and d[k] is not None:
            return _num(d[k])
    return math.nan


def _read_games(path: Path, spec) -> pd.DataFrame | None:
    p = path / "games.parquet"
    if not p.exists():
        return None
    import pyarrow.parquet as pq
    names = pq.read_schema(p).names
    wanted = {"first", "winner", "plies", "end_reason"} | {c.name for c in _report_unit_columns(spec)}
    cols = [c for c in names if c in wanted]
    return pq.read_table(p, columns=cols).to_pandas()


def _read_aggregate(path: Path) -> pd.DataFrame | None:
    p = path / "aggregate.csv"
    if not p.exists():
        return None
    df = pd.read_csv(p, dtype={"cell": str})
    if list(df.columns[:2]) != ["cell", "count"]:
        return None
    return df


def load_run(path: Path) -> RunData:
    manifest = _json(path / "manifest.json")
    summary = _json(path / "summary.json")
    if not summary:
        raise UsageError(f"{path} holds no summary.json: finish the run first (simkit run --resume --out {path})")
    run = RunData(path, manifest, summary, None, _read_aggregate(path))
    run.games = _read_games(path, run.spec)
    return run


def _sweep_params(manifest: dict, table: pd.DataFrame) -> list[str]:
    for key in ("varied", "vary", "keys", "parameters", "params"):
        v = manifest.get(key)
        if isinstance(v, dict) and v:
            keys = list(v)
        elif isinstance(v, list) and v:
            keys = [x if isinstance(x, str) else (x.get("key") or x.get("name")) for x in v]
        else:
            continue
        keys = [k for k in keys if k in table.columns]
        if keys:
            return keys
    # fallback: the columns before the first metric column
    cols = list(table.columns)
    metric_at = next((i for i, c in enumerate(cols) if f"{c}_ci_lo" in cols), len(cols))
    return [c for c in cols[:metric_at] if c not in ("games", "game", "scenario")]


def load(path) -> RunData | CompareData | SweepData | ValuesData:
    path = Path(path)
    if not path.is_dir():
        raise UsageError(f"{path} is not a directory (give run, compare, sweep or values directories)")
    manifest = _json(path / "manifest.json")
    kind = manifest.get("kind")
    from simkit.report import skill_sections
    found = skill_sections.load(path, kind)
    if found is not None:
        return found
    if kind == "compare" or (kind is None and (path / "compare.json").exists()):
        sub = [load_run(path / k) if (path / k / "summary.json").exists() else None for k in ("a", "b")]
        return CompareData(path, manifest, _json(path / "compare.json"), sub[0], sub[1])
    if kind == "sweep" or (kind is None and (path / "sweep.csv").exists()):
        if (path / "sweep.parquet").exists():
            table = pd.read_parquet(path / "sweep.parquet")
        elif (path / "sweep.csv").exists():
            table = pd.read_csv(path / "sweep.csv")
        else:
            raise UsageError(f"{path}: a sweep directory without sweep.parquet or sweep.csv")
        return SweepData(path, manifest, table, _sweep_params(manifest, table))
    if kind == "values" or (path / "values.json").exists() or (path / "values.csv").exists():
        meta = _json(path / "values.json")
        if (path / "values.csv").exists():
            table = pd.read_csv(path / "values.csv")
        else:
            table = pd.DataFrame(meta.get("values") or meta.get("rows") or [])
        need = {"method", "unit", "value", "ci_lo", "ci_hi"}
        if not need <= set(table.columns):
            raise UsageError(f"{path}: values table needs columns {', '.join(sorted(need))}")
        return ValuesData(path, meta or manifest, table)
    if kind in (None, "run") and ((path / "summary.json").exists() or (path / "manifest.json").exists()):
        return load_run(path)
    raise UsageError(f"{path} is not a run, compare, sweep, values, matchup, ladder, tune, sensitivity, "
                     f"quality or skill directory (no manifest.json, summary.json, compare.json, sweep.csv, "
                     f"values.json or the other kinds' json)")


@dataclass
class Decided:
    """First-player wins among decided games, with a Wilson interval."""
    share: float
    lo: float
    hi: float
    decided: int

    @classmethod
    def of(cls, summary: dict) -> "Decided":
        from simkit.analysis.stats import wilson
        n = int(summary.get("games") or 0)
        fw = round(float(summary.get("first_player_win_rate") or 0) * n)
        sw = round(float(summary.get("second_player_win_rate") or 0) * n)
        d = fw + sw
        lo, hi = wilson(fw, d)
        return cls(fw / d if d else math.nan, lo, hi, d)

