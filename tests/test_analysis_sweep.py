"""sweep: grid parsing and its errors, the sweep directory, one row per cell."""
import json

import pandas as pd
import pytest

from conftest import invoke
from simkit.errors import ScenarioError, UsageError
from simkit.games import get_game
from simkit.scenario.sweep import parse_grid, parse_vary

MC = get_game("martian_chess")


def test_parse_vary_lists_and_ranges():
    assert parse_vary("deadlock_plies=2..6") == ("deadlock_plies", [2, 3, 4, 5, 6])
    assert parse_vary("deadlock_plies=4..4") == ("deadlock_plies", [4])
    assert parse_vary("x=-1..1") == ("x", [-1, 0, 1])
    assert parse_vary("greedy_score=0.5,0.75,1.0") == ("greedy_score", [0.5, 0.75, 1.0])
    assert parse_vary("clock=off,leader") == ("clock", ["off", "leader"])
    assert parse_vary("field_promotion=true,false") == ("field_promotion", [True, False])


@pytest.mark.parametrize("item,msg", [
    ("deadlock_plies=6..2", "no values"),
    ("greedy_score=0.5..1.5", "integers"),
    ("deadlock_plies", "KEY=V1,V2"),
    ("deadlock_plies=", "KEY=V1,V2"),
    ("clock=off,,leader", "empty value"),
    ("clock=off,off", "twice"),
])
def test_parse_vary_errors(item, msg):
    with pytest.raises(UsageError, match=msg):
        parse_vary(item)


def test_grid_is_every_combination_first_key_slowest():
    keys, grid = parse_grid(["deadlock_plies=1..2", "clock=off,leader,deadlock"], MC)
    assert keys == ["deadlock_plies", "clock"]
    assert grid == [(1, "off"), (1, "leader"), (1, "deadlock"), (2, "off"), (2, "leader"), (2, "deadlock")]


def test_grid_errors_unknown_key_suggests_and_duplicates():
    with pytest.raises(UsageError, match="did you mean 'deadlock_plies'"):
        parse_grid(["deadlock_plys=1..3"], MC)
    with pytest.raises(UsageError, match="given twice"):
        parse_grid(["clock=off", "clock=leader"], MC)
    with pytest.raises(UsageError, match="at least one --vary"):
        parse_grid([], MC)


def test_invalid_values_name_the_key():
    from simkit.analysis.sweep import load_cells
    keys, grid = parse_grid(["deadlock_plies=0..2"], MC)
    with pytest.raises(ScenarioError, match="deadlock_plies") as e:
        load_cells("martian_chess", keys, grid, [])
    assert e.value.key == "deadlock_plies"
    keys, grid = parse_grid(["remove_0.queen=3..4"], MC)
    with pytest.raises(ScenarioError, match="remove_0.queen"):
        load_cells("martian_chess", keys, grid, [])


def test_sweep_cli_writes_table_and_manifest(runner, tmp_path):
    out = tmp_path / "sw"
    r = invoke(runner, ["sweep", "martian_chess", "--vary", "clock=off,leader", "--vary", "remove_1.queen=0..1",
                        "--games", 400, "--policy", "random", "--out", out])
    assert r.exit_code == 0, r.output
    assert "FPA" in r.output and "leader" in r.output
    m = json.loads((out / "manifest.json").read_text())
    assert m["kind"] == "sweep" and m["keys"] == ["clock", "remove_1.queen"]
    assert m["values"] == {"clock": ["off", "leader"], "remove_1.queen": [0, 1]}
    df = pd.read_parquet(out / "sweep.parquet")
    csv = pd.read_csv(out / "sweep.csv")
    assert len(df) == len(csv) == 4
    assert list(df.columns[:3]) == ["clock", "remove_1.queen", "games"]
    for col in ("first_player_advantage", "first_player_advantage_ci_lo", "first_player_advantage_ci_hi",
                "side0_win_rate_ci_lo", "draw_rate", "mean_plies", "end_clock"):
        assert col in df.columns
    assert (df["first_player_advantage_ci_lo"] <= df["first_player_advantage"]).all()
    assert list(df["clock"]) == ["off", "off", "leader", "leader"] and list(df["games"]) == [400] * 4
    # a queen less for side 1 helps side 0 (same seeds in every cell)
    assert (df["side0_win_rate"].iloc[[1, 3]].to_numpy() != df["side0_win_rate"].iloc[[0, 2]].to_numpy()).all()


def test_sweep_cells_show_their_side_effects(runner, tmp_path):
    # without the clock, random games run to the territory ending or the 400-ply cap; with it, most end
    # at the clock: each cell's length, draws, cap rate and end reasons, with intervals, in every output
    out = tmp_path / "sw"
    r = invoke(runner, ["sweep", "martian_chess", "--vary", "clock=deadlock,off", "--games", 300, "--policy",
                        "random", "--out", out, "--threads", 1])
    assert r.exit_code == 0, r.output
    df = pd.read_csv(out / "sweep.csv").set_index("clock")
    for m in ("cap_rate", "end_clock", "end_territory_empty", "end_move_limit"):
        assert (df[f"{m}_ci_lo"] <= df[m]).all() and (df[m] <= df[f"{m}_ci_hi"]).all(), m
    assert df.loc["deadlock", "end_clock"] > 0.9 and df.loc["off", "end_clock"] == 0
    assert df.loc["off", "cap_rate"] == pytest.approx(df.loc["off", "end_move_limit"] + df.loc["off", "end_stalemate"])
    assert df.loc["off", "end_clock_ci_hi"] > 0          # never seen is not "impossible"
    side = r.output.split("Side effects per cell")[1]
    assert "'clock' endings" in side and "capped" in side and "never ends any game here: stalemate" in side
    assert f"{df.loc['off', 'mean_plies']:.1f} [" in side
    r = invoke(runner, ["report", out, "-o", tmp_path / "rep"])
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "sweep_ends.png" in html and "Side effect: cap rate ranges from" in html


def test_sweep_cli_errors(runner):
    from simkit.cli import cli
    r = runner.invoke(cli, ["sweep", "martian_chess", "--vary", "clok=off", "-n", 10, "--no-save"])
    assert r.exit_code == 2 and "did you mean 'clock'" in r.output
    r = runner.invoke(cli, ["sweep", "martian_chess", "--vary", "deadlock_plies=5..3", "-n", 10, "--no-save"])
    assert r.exit_code == 2 and "no values" in r.output
    r = runner.invoke(cli, ["sweep", "martian_chess", "--vary", "clock=off,sometimes", "-n", 10, "--no-save"])
    assert r.exit_code == 2 and "key 'clock'" in r.output and "leader" in r.output


def test_sweep_precision_and_api():
    import simkit
    res = simkit.sweep("martian_chess", {"clock": ["off", "leader"]}, games=40_000, chunk_size=1000,
                       policies="random", precision=0.02)
    t = res.table
    assert list(t["clock"]) == ["off", "leader"]
    assert t["stopped_at_precision"].all() and (t["games"] < 40_000).all()
    assert ((t["first_player_advantage_ci_hi"] - t["first_player_advantage_ci_lo"]) / 2 <= 0.02).all()
    assert res.summary()["kind"] == "sweep"


def test_holm_over_cells_and_practical_significance():
    from simkit.analysis.sweep import holm_cells
    rows = [{"first_player_advantage": 0.05, "first_player_advantage_p": 0.01},     # x3 = 0.03: matters
            {"first_player_advantage": 0.005, "first_player_advantage_p": 0.001},   # x4 = 0.004: negligible
            {"first_player_advantage": 0.04, "first_player_advantage_p": 0.03},     # x2 = 0.06: not after Holm
            {"first_player_advantage": 0.0, "first_player_advantage_p": 0.9}]
    holm_cells(rows)
    assert [r["first_player_advantage_significance"] for r in rows] == \
        ["matters", "negligible", "not significant", "not significant"]
    assert rows[0]["first_player_advantage_p_holm"] == pytest.approx(0.03)
    assert rows[2]["first_player_advantage_p_holm"] == pytest.approx(0.06)
