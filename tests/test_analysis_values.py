"""Unit values by ablation and regression; the values directory."""
import json

import pandas as pd
import pytest

from conftest import invoke
from simkit.analysis.values import regression, unit_values
from simkit.engine.runner import RunConfig
from simkit.scenario import load_scenario


@pytest.fixture(scope="module")
def mc_values():
    # the `simkit values` defaults (random play) with fewer games: the ranking is already clear
    return unit_values(load_scenario("martian_chess"), RunConfig(games=20_000, seed=0, policies=("random", "random")))


def test_martian_chess_ranks_queen_drone_pawn_both_ways(mc_values):
    d = mc_values.summary()
    assert d["ranking"]["ablation"] == ["queen", "drone", "pawn"]
    assert d["ranking"]["regression"] == ["queen", "drone", "pawn"]
    reg = d["regression"]["units"]
    assert d["regression"]["weakest"] == "pawn" and reg["pawn"]["value"] == 1.0
    # queen clearly above pawn in both methods (intervals do not overlap)
    assert reg["queen"]["ci"][0] > 1.0
    assert d["ablation"]["queen"]["ci"][0] > d["ablation"]["pawn"]["ci"][1]
    assert d["regression"]["draws"] == "dropped" and d["regression"]["draws_dropped"] > 0
    for a in d["ablation"].values():
        assert set(a["sides"]) == {"0", "1"} and a["ci"][0] <= a["value"] <= a["ci"][1]


def test_table_is_tidy(mc_values):
    t = mc_values.table
    assert list(t.columns) == ["method", "unit", "value", "ci_lo", "ci_hi"]
    assert len(t) == 6 and set(t["method"]) == {"ablation", "regression"}


def test_ablation_skips_what_cannot_be_removed():
    sc = load_scenario("martian_chess", ["remove_0.queen=3", "remove_1.queen=3"])
    res = unit_values(sc, RunConfig(games=300, policies=("random", "random")), snapshot_ply=10)
    q = res.summary()["ablation"]["queen"]
    assert set(q["skipped"]) == {"0", "1"} and "queen" in q["skipped"]["0"]
    assert q["value"] != q["value"]   # NaN: no side could lose a queen
    assert res.summary()["ablation"]["pawn"]["sides"].keys() == {"0", "1"}


def test_regression_recovers_known_weights():
    """Synthetic records with P(side 0 wins) = logistic(1.0 * d_pawn + 3.0 * d_queen) and drones never differing."""
    import numpy as np
    from simkit.games import get_game
    spec = get_game("martian_chess")
    f = list(spec.record_fields)
    rng = np.random.default_rng(0)
    n = 20_000
    rec = np.zeros((n, len(f)), dtype=np.int32)
    dp, dq = rng.integers(-2, 3, n), rng.integers(-1, 2, n)
    rec[:, f.index("snap_0_pawn")] = 3 + dp
    rec[:, f.index("snap_1_pawn")] = 3
    rec[:, f.index("snap_0_queen")] = 2 + dq
    rec[:, f.index("snap_1_queen")] = 2
    rec[:, 0] = np.arange(n) % 2
    p = 1 / (1 + np.exp(-(1.0 * dp + 3.0 * dq)))
    rec[:, 1] = np.where(rng.random(n) < p, 0, 1)
    r = regression(spec, rec)
    assert r["weakest"] == "pawn"
    lo, hi = r["units"]["queen"]["ci"]
    assert lo <= 3.0 <= hi and hi - lo < 0.6
    assert "drone" not in r["units"] and any("drone" in n for n in r["notes"])


def test_values_cli_writes_directory(runner, tmp_path):
    out = tmp_path / "v"
    r = invoke(runner, ["values", "martian_chess", "--games", 1000, "--snapshot-ply", 12, "--out", out])
    assert r.exit_code == 0, r.output
    assert "ablation" in r.output and "regression" in r.output and "queen" in r.output
    assert json.loads((out / "manifest.json").read_text())["kind"] == "values"
    v = json.loads((out / "values.json").read_text())
    assert v["snapshot_ply"] == 12 and v["games"] == 1000 and v["policies"] == ["random", "random"]
    csv = pd.read_csv(out / "values.csv")
    assert list(csv.columns) == ["method", "unit", "value", "ci_lo", "ci_hi"]
    j = json.loads(invoke(runner, ["values", "martian_chess", "-n", 600, "--no-save", "--json"]).output)
    assert j["kind"] == "values" and "half the median" in j["snapshot_ply_source"]
