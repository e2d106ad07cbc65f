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
from simkit.report import fmt

# per-unit stats (the spec's unit columns) a report reads from games.parquet; ACTIVITY are charted
UNIT_STATS = ("kills", "losses", "dispatched", "attacks", "snap", "final")
ACTIVITY = ("kills", "losses", "dispatched", "attacks")
# statistics that are a position (material left), not events: never "a rule that never fires"
STATE_STATS = ("snap", "final")
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
    def overrides(self) -> dict:
        return self.scenario.get("overrides") or {}

    @property
    def config(self) -> dict:
        return self.manifest.get("config") or {}

    @property
    def variant(self) -> str:
        """'default', or the scenario with its --set overrides ('second_player_dispatch_bonus=2')."""
        from simkit.report import fmt
        return fmt.variant(self.name, self.overrides)

    @property
    def context(self) -> str:
        """'greedy vs greedy · first player alternate · seed 0 · 20,000 games'."""
        from simkit.report import fmt
        cfg = self.config
        return fmt.context(self.policies, cfg.get("first"), cfg.get("seed", self.summary.get("seed")),
                           self.summary.get("games"))

    @property
    def length_unit(self) -> str:
        return str(self.summary.get("length_unit") or length_unit_of(self.game))

    @property
    def title(self) -> str:
        try:
            from simkit.games import get_game
            return get_game(self.game).title
        except Exception:  # an unknown game still gets a report
            return self.game

    @property
    def label(self) -> str:
        """Game, variant (with its overrides), policies, first-player mode, seed and games: two
        runs of different --set never share a label."""
        return f"{self.title}: {self.variant}" + (f" ({self.context})" if self.context else "")

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

    def counters(self) -> dict[str, tuple[int, int]]:
        """Each per-side statistic of the records (unit and side columns, every unit and side
        summed) -> (its total over all games, the games in which it happened at least once).
        A total of 0 is a rule that never fired."""
        out: dict[str, tuple[int, int]] = {}
        spec = self.spec
        if self.games is None or spec is None:
            return out
        present = set(self.games.columns)
        cols: dict[str, list[str]] = {}
        for c in (*spec.unit_columns(), *spec.side_columns()):
            if c.name in present and c.stat not in STATE_STATS:
                cols.setdefault(c.stat, []).append(c.name)
        for stat, names in cols.items():
            x = self.games[names].to_numpy()
            out[stat] = (int(x.sum()), int((x > 0).any(axis=1).sum()))
        return out

    def wiped_out(self) -> pd.DataFrame:
        """Per unit type: in how many side-games (2 per game) the side had the type on the board
        and lost every one of it (losses > 0, none left at the end: the ``final`` column is 0)."""
        cols = ["unit", "side_games", "wiped", "games_both_sides_wiped", "games"]
        spec = self.spec
        if self.games is None or spec is None or not len(self.games):
            return pd.DataFrame(columns=cols)
        g = self.games
        rows = []
        for unit in self.unit_types():
            per_side = []
            for side in (0, 1):
                lc, fc = spec.column("losses", side, unit), spec.column("final", side, unit)
                if lc is None or fc is None or lc.name not in g or fc.name not in g:
                    break
                per_side.append((g[lc.name].to_numpy() > 0) & (g[fc.name].to_numpy() == 0))
            if len(per_side) != 2:
                continue
            had = []
            for side in (0, 1):
                lc = spec.column("losses", side, unit)
                fc = spec.column("final", side, unit)
                had.append((g[lc.name].to_numpy() + g[fc.name].to_numpy()) > 0)
            rows.append({"unit": unit, "side_games": int(had[0].sum() + had[1].sum()),
                         "wiped": int(per_side[0].sum() + per_side[1].sum()),
                         "games_both_sides_wiped": int((per_side[0] & per_side[1]).sum()), "games": len(g)})
        return pd.DataFrame(rows, columns=cols)

    def unit_types(self) -> list[str]:
        seen: list[str] = []
        for c in self._unit_columns():
            if c.unit not in seen:
                seen.append(c.unit)
        return seen


def length_unit_of(game: str) -> str:
    """The game's length unit (GameSpec.length_unit): 'turns' or 'plies' ('plies' if unknown)."""
    try:
        from simkit.games import find_game
        return str(getattr(find_game(game), "length_unit", None) or "plies")
    except Exception:
        return "plies"


def title_of(game: str) -> str:
    try:
        from simkit.games import get_game
        return get_game(game).title
    except Exception:  # an unknown game still gets a report
        return str(game)


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

    def _scenario(self, which: str) -> dict:
        sc = self.manifest.get(which)
        if isinstance(sc, dict) and sc.get("game"):
            return sc
        run = self.a if which == "a" else self.b
        return run.scenario if run is not None else {}

    @property
    def game(self) -> str:
        sa, sb = self.summaries()
        return str(self._scenario("a").get("game") or sa.get("game") or sb.get("game") or "unknown")

    @property
    def length_unit(self) -> str:
        sa, sb = self.summaries()
        return str(sa.get("length_unit") or sb.get("length_unit") or length_unit_of(self.game))

    @property
    def context(self) -> str:
        """Policies, first-player mode, seed and games of the pair (common to A and B)."""
        from simkit.report import fmt
        cfg = self.manifest.get("config") or (self.a.config if self.a is not None else {})
        sa, _ = self.summaries()
        games = self.compare.get("games") or sa.get("games")
        return fmt.context(cfg.get("policies") or sa.get("policies"), cfg.get("first"),
                           cfg.get("seed", sa.get("seed")), games, "games each")

    def labels(self) -> tuple[str, str]:
        """Game and variant of A and B with their overrides (never identical: a compare needs
        two different rule sets; if the files do not say how they differ, 'A: ' and 'B: ')."""
        from simkit.report import fmt
        out = []
        for which in ("a", "b"):
            sc = self._scenario(which)
            if sc.get("game"):
                out.append(fmt.game_variant(title_of(sc["game"]), sc.get("name"), sc.get("overrides")))
        if len(out) != 2:
            given = self.compare.get("labels") or self.manifest.get("labels") or ["A", "B"]
            if list(given) != ["A", "B"] and len(given) == 2:
                out = [str(given[0]), str(given[1])]
            else:
                out = [self.a.name if self.a is not None else "A", self.b.name if self.b is not None else "B"]
        la, lb = out
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
            rows.append({"metric": fmt.with_unit(str(metric), self.length_unit),
                         "a": _num(sa.get(metric)) if math.isnan(a) else a,
                         "b": _num(sb.get(metric)) if math.isnan(b) else b,
                         "difference": diff, "ci_lo": _num(ci[0]), "ci_hi": _num(ci[1]),
                         "p_value": _first(d, "p_value", "p"), "verdict": str(d.get("verdict", ""))})
        return pd.DataFrame(rows, columns=["metric", "a", "b", "difference", "ci_lo", "ci_hi", "p_value",
                                           "verdict"])

    def side_effects(self) -> pd.DataFrame:
        """B - A of the cap rate and each end reason (compare.json's ``side_effects``; empty for a
        compare written before they existed)."""
        return side_effects_frame(self.compare.get("side_effects"))


def side_effects_frame(effects: dict) -> pd.DataFrame:
    """B - A of each way games end (compare.json's or tune.json's ``side_effects``): metric, a, b,
    difference, ci_lo, ci_hi, p_value, p_holm, verdict."""
    rows = [{"metric": m, "a": _num(e.get("a")), "b": _num(e.get("b")), "difference": _num(e.get("diff")),
             "ci_lo": _num((e.get("ci") or [None, None])[0]), "ci_hi": _num((e.get("ci") or [None, None])[1]),
             "p_value": _num(e.get("p_value")), "p_holm": _num(e.get("p_holm")), "verdict": str(e.get("verdict", ""))}
            for m, e in (effects or {}).items() if isinstance(e, dict)]
    return pd.DataFrame(rows, columns=["metric", "a", "b", "difference", "ci_lo", "ci_hi", "p_value", "p_holm",
                                       "verdict"])


@dataclass
class SweepData:
    path: Path
    manifest: dict
    table: pd.DataFrame
    params: list[str]
    kind: str = "sweep"

    PRIORITY = ("first_player_advantage", "side0_win_rate", "draw_rate", "mean_plies", "mean_turns")

    def metrics(self) -> list[str]:
        """Metric columns with interval columns, most useful first (all-NaN intervals last)."""
        cols = set(self.table.columns)
        ms = [c for c in self.table.columns
              if c not in self.params and f"{c}_ci_lo" in cols and f"{c}_ci_hi" in cols]

        def rank(m):
            has_ci = self.table[f"{m}_ci_lo"].notna().any()
            return (not has_ci, self.PRIORITY.index(m) if m in self.PRIORITY else len(self.PRIORITY))
        return sorted(ms, key=rank)

    def end_shares(self) -> dict:
        """End reason -> its share of games in each cell (the sweep table's end_<reason> columns),
        only the reasons that end a game somewhere in the sweep."""
        out = {}
        for c in self.table.columns:
            if c.startswith("end_") and not c.endswith(("_ci_lo", "_ci_hi")) and (self.table[c] > 0).any():
                out[c[4:]] = self.table[c].to_numpy(dtype=float)
        return out

    @property
    def name(self) -> str:
        sc = self.manifest.get("scenario")
        if isinstance(sc, dict):
            return str(sc.get("name") or self.path.name)
        return str(sc or self.manifest.get("name") or self.path.name)

    @property
    def game(self) -> str:
        sc = self.manifest.get("scenario")
        return str(self.manifest.get("game") or (sc.get("game") if isinstance(sc, dict) else None) or "unknown")

    @property
    def title(self) -> str:
        return title_of(self.game)

    @property
    def length_unit(self) -> str:
        return str(self.manifest.get("length_unit") or length_unit_of(self.game))

    @property
    def base_overrides(self) -> dict:
        """The --set overrides every cell shares (the varied keys are not among them)."""
        from simkit.scenario.load import parse_set
        raw = self.manifest.get("base_overrides") or []
        if isinstance(raw, dict):
            return dict(raw)
        out = {}
        for item in raw:
            try:
                k, v = parse_set(str(item))
            except Exception:
                continue
            out[k] = v
        return out

    @property
    def default_setting(self) -> dict:
        """Each varied key's value in the base scenario (its rules without the sweep): the default a
        sweep figure marks on its axis; a key the files cannot tell is left out."""
        sc = self.manifest.get("scenario")
        path = sc.get("path") if isinstance(sc, dict) else None
        out = {}
        try:
            from simkit.scenario import load_scenario
            base = load_scenario(path if path and Path(path).exists() else self.game,
                                 [fmt.setting(k, v) for k, v in self.base_overrides.items()])
            for k in self.params:
                if k in base.rules:
                    out[k] = base.rules[k]
        except Exception:   # a game or scenario this checkout cannot load: no default marked
            pass
        return out

    @property
    def context(self) -> str:
        cfg = self.manifest.get("config") or {}
        games = sorted(set(int(g) for g in self.table["games"])) if "games" in self.table else []
        per_cell = (f"{fmt.count(games[0])} games per cell" if len(games) == 1
                    else f"{fmt.count(min(games))}-{fmt.count(max(games))} games per cell" if games else None)
        return " · ".join(x for x in (fmt.context(cfg.get("policies"), cfg.get("first"), cfg.get("seed")), per_cell)
                          if x)


@dataclass
class ValuesData:
    path: Path
    meta: dict
    table: pd.DataFrame   # method, unit, value, ci_lo, ci_hi (and maybe side)
    kind: str = "values"

    manifest: dict | None = None

    @property
    def name(self) -> str:
        return str(self.meta.get("scenario") if isinstance(self.meta.get("scenario"), str)
                   else (self.meta.get("scenario") or {}).get("name", self.path.name))

    def _scenario(self) -> dict:
        for d in (self.manifest or {}, self.meta):
            if isinstance(d.get("scenario"), dict):
                return d["scenario"]
        return {}

    @property
    def game(self) -> str:
        return str(self.meta.get("game") or self._scenario().get("game") or "unknown")

    @property
    def label(self) -> str:
        return fmt.game_variant(title_of(self.game), self.name, self._scenario().get("overrides"))

    @property
    def context(self) -> str:
        cfg = (self.manifest or {}).get("config") or {}
        return fmt.context(self.meta.get("policies") or cfg.get("policies"), cfg.get("first"),
                           cfg.get("seed"), self.meta.get("games") or cfg.get("games"), "games per run")


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
    # the base fields, every per-unit and per-side count (the findings look for counters that stay 0)
    wanted = {"first", "winner", "plies", "end_reason"}
    if spec is not None:
        wanted |= {c.name for c in (*spec.unit_columns(), *spec.side_columns())}
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
        unit = str(manifest.get("length_unit") or length_unit_of(str(manifest.get("game") or "")))
        # the game's length unit in the column names (a turn-based game's mean_plies counts turns)
        table = table.rename(columns=lambda c: fmt.with_unit(str(c), unit))
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
        return ValuesData(path, meta or manifest, table, manifest=manifest)
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

