"""Record columns are data the GameSpec declares (spec.columns), not parsed names.

The readers (unit_table, side_table, matrix_tables, units_long, the report's unit figures,
unit values' snapshot material) used to find per-unit, per-side and unit-vs-unit columns by
parsing names. Here a frozen copy of that parsing computes the "before" tables on a small
run of every game (and a Storm deck with a card under a new name); the readers, now driven
by spec.columns, must give identical tables.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from simkit.games import GAMES
from simkit.games.base import Column, GameSpec

TEST_GAMES = {"dice_race": "toygame"}
NEW_CARD = {"deck.archer": {"kind": "regular", "cost": 1, "attack": 3, "defense": 1, "range": 2, "copies": 6},
            "dispatch_priority": ["archer", "knight", "cavalry"]}
CASES = [(g, {}) for g in GAMES] + [("dice_race", {}), ("storm_the_castle", NEW_CARD)]


# ---- the name parsing the readers did before spec.columns (frozen copy) -------------------

def old_unit_table(totals, unit_types):
    rows = {}
    for name, total in totals.items():
        parts = name.split("_")
        for i, p in enumerate(parts):
            if p in ("0", "1") and i + 1 < len(parts):
                unit = "_".join(parts[i + 1:])
                if unit in unit_types:
                    rows.setdefault((int(p), unit), {})["_".join(parts[:i])] = total
                break
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index = pd.MultiIndex.from_tuples(df.index, names=["side", "unit"])
    return df.sort_index()


def old_side_table(totals, n):
    rows: dict = {}
    for name, total in totals.items():
        stat, _, side = name.rpartition("_")
        if side in ("0", "1") and stat and not any(stat.endswith(f"_{s}") for s in ("0", "1")):
            rows.setdefault(stat, {})[f"side {side}"] = total / n
    if not rows:
        return pd.DataFrame()
    df = pd.DataFrame.from_dict(rows, orient="index")
    df.index.name = "per game"
    return df


def old_matrix_tables(totals, unit_types, n):
    mats: dict = {}
    for name, total in totals.items():
        if "_x_" not in name:
            continue
        left, col = name.split("_x_", 1)
        for u in sorted(unit_types, key=len, reverse=True):
            if left.endswith("_" + u):
                mats.setdefault(left[: -len(u) - 1], {}).setdefault(u, {})[col] = total / n
                break
    return {stat: pd.DataFrame.from_dict(m, orient="index").rename_axis(f"{stat} (row x column)")
            for stat, m in mats.items()}


def old_units_long(df, unit_types):
    rows = []
    for col in df.columns:
        parts = str(col).split("_")
        for i, p in enumerate(parts):
            if p in ("0", "1") and "_".join(parts[i + 1:]) in unit_types:
                rows.append(("_".join(parts[:i]), int(p), "_".join(parts[i + 1:]), col))
                break
    if not rows:
        return pd.DataFrame(columns=["game", "stat", "side", "unit", "value"])
    return pd.concat([pd.DataFrame({"game": df["game"], "stat": stat, "side": side, "unit": unit,
                                    "value": df[col].to_numpy()}) for stat, side, unit, col in rows],
                     ignore_index=True)


OLD_UNIT_COL = re.compile(r"^(kills|losses|dispatched|attacks|snap|final)_([01])_(.+)$")


def old_report_units(games):
    """RunData.units() and unit_types() as they were: regex over games.parquet's columns."""
    n, rows, seen = len(games), [], []
    for col in games.columns:
        m = OLD_UNIT_COL.match(str(col))
        if m and m.group(3) not in seen:
            seen.append(m.group(3))
        if not m or m.group(1) not in ("kills", "losses", "dispatched", "attacks"):
            continue
        x = games[col].to_numpy(dtype=np.float64)
        mean = float(x.mean())
        half = 1.959963984540054 * float(x.std()) / np.sqrt(n) if n > 1 else np.nan
        rows.append({"side": int(m.group(2)), "unit": m.group(3), "stat": m.group(1), "mean": mean,
                     "lo": mean - half, "hi": mean + half, "total": int(x.sum())})
    return pd.DataFrame(rows, columns=["side", "unit", "stat", "mean", "lo", "hi", "total"]), seen


def old_snap_units(spec):
    fields = list(spec.record_fields)
    return [u for u in spec.unit_types if f"snap_0_{u}" in fields and f"snap_1_{u}" in fields
            and u not in spec.game_ending_units]


# ---- the comparison ------------------------------------------------------------------------

@pytest.fixture
def registered(monkeypatch):
    for name, module in TEST_GAMES.items():
        monkeypatch.setitem(GAMES, name, module)


@pytest.mark.parametrize("game,overrides", CASES, ids=[g + ("+card" if o else "") for g, o in CASES])
def test_readers_of_declared_columns_match_the_old_name_parsing(game, overrides, registered, tmp_path):
    from simkit.analysis.frames import games_frame, units_long
    from simkit.analysis.metrics import matrix_tables, side_table, unit_table
    from simkit.analysis.values import regression
    from simkit.engine.runner import RunConfig, simulate
    from simkit.report.data import load_run
    from simkit.scenario import load_scenario

    sc = load_scenario(game, overrides)
    spec = sc.spec
    res = simulate(sc, RunConfig(games=24, seed=7, policies=("greedy", "random"), snapshot_ply=6),
                   threads=1, out_dir=tmp_path / "run", progress=False)
    tally, rec = res.tally, res.records()
    totals, n = tally.column_totals(), max(tally.games, 1)

    new, old = unit_table(tally), old_unit_table(totals, spec.unit_types)
    assert not new.empty   # every game here records per-unit stats: the comparison is not vacuous
    pd.testing.assert_frame_equal(new, old)
    # the same numbers; a row is labelled by its declared stat, which may differ from the name's prefix
    # (Martian Chess's score_<s> columns are pips: "points", not the expected "score")
    label = {c.name.rpartition("_")[0]: c.stat for c in spec.side_columns()}
    pd.testing.assert_frame_equal(side_table(tally), old_side_table(totals, n).rename(index=label))
    new_m, old_m = matrix_tables(tally), old_matrix_tables(totals, spec.unit_types, n)
    assert new_m.keys() == old_m.keys()
    for stat in old_m:
        pd.testing.assert_frame_equal(new_m[stat], old_m[stat])

    df = games_frame(rec, spec, seed=7)
    pd.testing.assert_frame_equal(units_long(df, spec), old_units_long(df, spec.unit_types))

    run = load_run(tmp_path / "run")
    import pyarrow.parquet as pq
    old_units, old_types = old_report_units(pq.read_table(tmp_path / "run" / "games.parquet").to_pandas())
    assert len(old_units)
    pd.testing.assert_frame_equal(run.units(), old_units)
    assert run.unit_types() == old_types

    # unit values: the regression on the snapshot material of synthetic records (so the fit
    # always works) gives the coefficients of a logit on the old name-found snap columns
    import statsmodels.api as sm
    units = old_snap_units(spec)
    assert units
    fields = list(spec.record_fields)
    rng = np.random.default_rng(3)
    r = np.zeros((400, len(fields)), np.int32)
    r[:, 0] = rng.integers(0, 2, len(r))
    r[:, 2] = 100
    for u in units:
        for s in (0, 1):
            r[:, fields.index(f"snap_{s}_{u}")] = rng.integers(0, 4, len(r))
    diff = np.column_stack([r[:, fields.index(f"snap_0_{u}")] - r[:, fields.index(f"snap_1_{u}")]
                            for u in units]).astype(np.float64)
    r[:, 1] = (rng.random(len(r)) > 1 / (1 + np.exp(-0.4 * diff.sum(axis=1)))).astype(np.int32)
    reg = regression(spec, r, 6)
    fit = sm.Logit((r[:, 1] == 0).astype(np.float64),
                   np.column_stack([np.ones(len(r)), (r[:, 0] == 0).astype(np.float64), diff])).fit(disp=0)
    assert list(reg["units"]) == units
    np.testing.assert_allclose([reg["units"][u]["coef"] for u in units], np.asarray(fit.params)[2:], rtol=1e-9)


def test_columns_describe_every_record_field_and_stay_consistent():
    """A spec's columns are its record fields, in order; a derived spec that changes the fields
    without its columns is refused (Storm's per-deck spec derives both)."""
    import dataclasses

    from simkit.games import get_game
    from simkit.scenario import load_scenario
    for g in GAMES:
        spec = get_game(g)
        assert tuple(c.name for c in spec.columns) == spec.record_fields
        assert {c.unit for c in spec.unit_columns()} == set(spec.unit_types)
    storm = load_scenario("storm_the_castle", NEW_CARD).spec
    assert storm.column("kills", 1, "archer").name == "kills_1_archer"
    assert get_game("storm_the_castle").column("kills", 1, "archer") is None
    with pytest.raises(AssertionError):
        dataclasses.replace(get_game("skorm"), record_fields=storm.record_fields)
    # a column's name is free text: the readers go by its declared stat, side and unit
    spec = GameSpec(name="t", title="t", unit_types=("pawn",), options=(), prepare=None, run_chunk=None,
                    record_fields=("first", "winner", "plies", "end_reason", "pawns lost by white"),
                    end_reasons=("x",), policies=("random",), play=None,
                    columns=(Column("first", "first"), Column("winner", "winner"), Column("plies", "plies"),
                             Column("end_reason", "end_reason"),
                             Column("pawns lost by white", "losses", side=0, unit="pawn")))
    assert [c.name for c in spec.unit_columns()] == ["pawns lost by white"]
    # no columns given: every field is plain (no per-unit statistics)
    plain = dataclasses.replace(spec, columns=())
    assert plain.unit_columns() == () and len(plain.columns) == 5
