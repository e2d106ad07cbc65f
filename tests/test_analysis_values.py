"""Unit values by ablation and regression (signs kept), the direct pair test; the values directory."""
import json

import numpy as np
import pandas as pd
import pytest

from conftest import invoke
from simkit.analysis.values import ablation_entry, pair_test, regression, unit_values
from simkit.engine.runner import RunConfig
from simkit.games import get_game
from simkit.scenario import load_scenario


@pytest.fixture(scope="module")
def mc_values():
    # the `simkit values` defaults (random play) with fewer games
    return unit_values(load_scenario("martian_chess"), RunConfig(games=20_000, seed=0, policies=("random", "random")))


def test_martian_chess_signs_are_kept(mc_values):
    d = mc_values.summary()
    reg = d["regression"]
    assert reg["reference"] == "pawn" and reg["ratios"] is True
    for u, r in reg["units"].items():
        # material is a target in Martian Chess: every raw coefficient is significantly negative ...
        assert r["coef"] < 0 and r["coef_ci"][1] < 0, u
        # ... and the ratios keep that sign (none positive): the reference is -1, not +1
        assert r["value"] < 0 and r["ci"][1] < 0, u
    assert reg["units"]["pawn"]["value"] == -1.0
    assert reg["units"]["queen"]["value"] < reg["units"]["drone"]["value"] < -1.0
    # ablation: one more queen helps its side, one more pawn hurts it (both significant)
    abl = d["ablation"]
    assert abl["queen"]["ci"][0] > 0 and abl["pawn"]["ci"][1] < 0
    assert d["ranking"]["ablation"] == ["queen", "drone", "pawn"]
    # the two methods contradict each other on the queen, and the output says so
    assert any("queen" in m and "opposite signs" in m for m in d["methods_disagree"])
    assert any("the methods disagree" in n for n in d["notes"])
    assert reg["draws"] == "dropped" and reg["draws_dropped"] > 0
    for a in abl.values():
        assert set(a["sides"]) == {"0", "1"} and a["ci"][0] <= a["value"] <= a["ci"][1]
        assert a["p_value"] <= a["p_holm"] <= 1
    assert any("Holm" in n for n in d["notes"])


def test_table_is_tidy(mc_values):
    t = mc_values.table
    assert list(t.columns) == ["method", "unit", "value", "ci_lo", "ci_hi"]
    assert len(t) == 9 and set(t["method"]) == {"ablation", "regression", "regression_coef"}


def test_ablation_skips_what_cannot_be_removed():
    sc = load_scenario("martian_chess", ["remove_0.queen=3", "remove_1.queen=3"])
    res = unit_values(sc, RunConfig(games=300, policies=("random", "random")), snapshot_ply=10)
    q = res.summary()["ablation"]["queen"]
    assert set(q["skipped"]) == {"0", "1"} and "queen" in q["skipped"]["0"]
    assert q["value"] != q["value"]   # NaN: no side could lose a queen
    assert res.summary()["ablation"]["pawn"]["sides"].keys() == {"0", "1"}


def _crn_scores(u, win_below, draw_above=0.9):
    """Side 0's score in games decided by one common uniform u per game (common random numbers)."""
    return np.where(u >= draw_above, 0.5, np.where(u < win_below, 1.0, 0.0))


def test_ablation_recovers_a_known_truth():
    """Synthetic: side 0 wins when u < 0.55 in the base game; losing a unit moves that to 0.45 for
    side 0 and to 0.62 for side 1 (so its value is 0.10 for side 0, 0.07 for side 1, 0.085 on average);
    a liability moves side 0's threshold the other way."""
    rng = np.random.default_rng(4)
    hits = 0
    reps = 400
    for _ in range(reps):
        u = rng.random(2000)
        e = ablation_entry(_crn_scores(u, 0.55), {0: _crn_scores(u, 0.45), 1: _crn_scores(u, 0.62)})
        hits += e["ci"][0] <= 0.085 <= e["ci"][1]
    assert 0.925 <= hits / reps <= 0.975, hits / reps
    u = rng.random(20_000)
    e = ablation_entry(_crn_scores(u, 0.55), {0: _crn_scores(u, 0.45), 1: _crn_scores(u, 0.62)})
    assert e["value"] == pytest.approx(0.085, abs=0.005) and e["ci"][0] > 0
    assert e["sides"]["0"]["value"] == pytest.approx(0.10, abs=0.006)
    assert e["sides"]["1"]["value"] == pytest.approx(0.07, abs=0.006)
    assert e["sides_disagree"] is True            # 0.10 vs 0.07 on 20,000 paired games
    # a liability: removing it raises its side's score -> a negative value, significantly
    e = ablation_entry(_crn_scores(u, 0.55), {0: _crn_scores(u, 0.60), 1: _crn_scores(u, 0.50)})
    assert e["value"] == pytest.approx(-0.05, abs=0.005) and e["ci"][1] < 0
    assert e["sides_disagree"] is False
    # no effect at all: zero, an interval around it (not [0, 0]), not significant
    e = ablation_entry(_crn_scores(u, 0.55), {0: _crn_scores(u, 0.55)})
    assert e["value"] == 0 and e["ci"][0] < 0 < e["ci"][1] and e["p_value"] == 1.0


def _synthetic(weights, n=20_000, seed=0, plies=50):
    spec = get_game("martian_chess")
    f = list(spec.record_fields)
    rng = np.random.default_rng(seed)
    rec = np.zeros((n, len(f)), dtype=np.int32)
    dp, dq = rng.integers(-2, 3, n), rng.integers(-1, 2, n)
    rec[:, f.index("snap_0_pawn")] = 3 + dp
    rec[:, f.index("snap_1_pawn")] = 3
    rec[:, f.index("snap_0_queen")] = 2 + dq
    rec[:, f.index("snap_1_queen")] = 2
    rec[:, 0] = np.arange(n) % 2
    rec[:, 2] = plies
    p = 1 / (1 + np.exp(-(weights[0] * dp + weights[1] * dq)))
    rec[:, 1] = np.where(rng.random(n) < p, 0, 1)
    return spec, rec


def test_regression_recovers_known_weights_with_signs():
    """P(side 0 wins) = logistic(1.0 * d_pawn + 3.0 * d_queen), drones never differing."""
    spec, rec = _synthetic((1.0, 3.0))
    r = regression(spec, rec)
    q = r["units"]["queen"]
    assert r["ratios"] and r["units"]["pawn"]["value"] == 1.0
    assert q["ci"][0] <= 3.0 <= q["ci"][1] and q["ci"][1] - q["ci"][0] < 0.6
    assert q["coef_ci"][0] <= 3.0 <= q["coef_ci"][1]
    assert "drone" not in r["units"] and any("drone" in n for n in r["notes"])
    # the same game with material as a target: the signs stay negative
    spec, rec = _synthetic((-1.0, -3.0))
    r = regression(spec, rec)
    assert r["units"]["pawn"]["value"] == -1.0
    assert -3.3 < r["units"]["queen"]["value"] < -2.7 and r["units"]["queen"]["ci"][1] < 0
    # mixed signs: no ratios, raw coefficients only
    spec, rec = _synthetic((1.0, -3.0))
    r = regression(spec, rec)
    assert not r["ratios"] and all(v["value"] != v["value"] for v in r["units"].values())
    assert r["units"]["queen"]["coef"] < 0 < r["units"]["pawn"]["coef"]
    assert any("mixed signs" in n for n in r["notes"])
    # a reference with no effect: its interval contains 0, so no ratios
    spec, rec = _synthetic((0.0, 2.0), n=3000)
    r = regression(spec, rec)
    assert not r["ratios"] and any("contains 0" in n for n in r["notes"])


def test_regression_fits_only_games_running_at_the_snapshot():
    spec, rec = _synthetic((1.0, 3.0), plies=50)
    f = list(spec.record_fields)
    # games that ended by ply 20 with their final material: a queen up always won, whatever the weights
    ended = rec[:4000].copy()
    ended[:, 2] = 15
    dq = ended[:, f.index("snap_0_queen")] - ended[:, f.index("snap_1_queen")]
    ended[:, 1] = np.where(dq > 0, 0, np.where(dq < 0, 1, ended[:, 1]))
    both = np.concatenate([rec, ended])
    r = regression(spec, both, snapshot_ply=20)
    assert r["games_used"] == len(rec) and r["ended_before_snapshot"] == 4000
    assert r["units"]["queen"]["coef_ci"][0] <= 3.0 <= r["units"]["queen"]["coef_ci"][1]
    leaky = regression(spec, both)               # no filter: the end states inflate the queen
    assert leaky["units"]["queen"]["coef"] > r["units"]["queen"]["coef_ci"][1]


def test_skorm_leaves_the_warlord_out():
    spec = get_game("skorm")
    assert spec.game_ending_units == ("warlord",) and spec.reference_unit == "shieldman"
    res = unit_values(load_scenario("skorm"), RunConfig(games=100, policies=("random", "random")), snapshot_ply=60,
                      threads=1).summary()
    assert "warlord" not in res["regression"]["units"] and "warlord" in res["regression"]["left_out"]
    assert res["ablation"]["warlord"].get("game_ending") and res["ablation"]["warlord"]["value"] != \
        res["ablation"]["warlord"]["value"]
    assert "warlord" not in res["ranking"]["ablation"] and "warlord" not in res["ranking"]["regression"]
    assert set(res["ranking"]["ablation"]) == {"shieldman", "archer", "horseman"}


def test_pair_test_queen_against_pawn():
    sc = load_scenario("martian_chess")
    r = pair_test(sc, "queen", "pawn", RunConfig(games=6000, seed=1, policies=("random", "random")))
    assert r["value"] > 0 and r["ci"][0] > 0 and r["verdict"] == "queen is worth more than pawn"
    assert set(r["sides"]) == {"0", "1"}
    # antisymmetric: the same games, the other way round
    r2 = pair_test(sc, "pawn", "queen", RunConfig(games=6000, seed=1, policies=("random", "random")))
    assert r2["value"] == pytest.approx(-r["value"]) and r2["verdict"] == "queen is worth more than pawn"


def test_values_cli_writes_directory(runner, tmp_path):
    out = tmp_path / "v"
    r = invoke(runner, ["values", "martian_chess", "--games", 1000, "--snapshot-ply", 12, "--out", out])
    assert r.exit_code == 0, r.output
    assert "ablation" in r.output and "coefficient" in r.output and "queen" in r.output
    assert json.loads((out / "manifest.json").read_text())["kind"] == "values"
    v = json.loads((out / "values.json").read_text())
    assert v["snapshot_ply"] == 12 and v["games"] == 1000 and v["policies"] == ["random", "random"]
    csv = pd.read_csv(out / "values.csv")
    assert list(csv.columns) == ["method", "unit", "value", "ci_lo", "ci_hi"]
    j = json.loads(invoke(runner, ["values", "martian_chess", "-n", 600, "--no-save", "--json"]).output)
    assert j["kind"] == "values" and "half the median" in j["snapshot_ply_source"]


def test_values_pair_cli(runner):
    from simkit.cli import cli
    r = invoke(runner, ["values", "martian_chess", "--pair", "queen,pawn", "-n", 2000, "--no-save"])
    assert r.exit_code == 0 and "queen - pawn" in r.output
    for pair, msg in (("queen,queen", "two different"), ("queen,bishop", "no unit type"), ("queen", "two unit")):
        r = runner.invoke(cli, ["values", "martian_chess", "--pair", pair, "-n", 10, "--no-save"])
        assert r.exit_code == 2 and msg in r.output, r.output
    r = runner.invoke(cli, ["values", "skorm", "--pair", "warlord,archer", "-n", 10, "--no-save"])
    assert r.exit_code == 2 and "ends the game" in r.output


def test_a_fit_that_does_not_converge_gives_no_estimates():
    """Side 0 wins exactly when it has the extra pawn (separation): the logit runs off to infinity and
    its coefficients must not be printed (or tabled, ranked, compared) as estimates."""
    import math
    from simkit.analysis.values import ValuesResult, regression
    from simkit.games import get_game
    spec = get_game("martian_chess")
    f = list(spec.record_fields)
    rng = np.random.default_rng(0)
    n = 300
    r = np.zeros((n, len(f)), dtype=np.int32)
    r[:, 0], r[:, 2] = np.arange(n) % 2, 30
    extra = rng.choice([-1, 1], n)
    r[:, f.index("snap_0_pawn")], r[:, f.index("snap_1_pawn")] = 4 + extra, 4
    for u in ("drone", "queen"):
        r[:, f.index(f"snap_0_{u}")], r[:, f.index(f"snap_1_{u}")] = rng.integers(1, 3, n), 2
    r[:, 1] = np.where(extra > 0, 0, 1)
    reg = regression(spec, r, 10)
    assert reg["converged"] is False and reg["units"] and not any(v["converged"] for v in reg["units"].values())
    assert not reg["ratios"] and any("did not converge" in x for x in reg["notes"])
    table = ValuesResult({"ablation": {}, "regression": reg}).table
    assert table[table["method"] == "regression_coef"]["value"].map(math.isnan).all()


def test_a_unit_that_rarely_differs_gets_no_coefficient():
    """Greedy Martian Chess at ply 10: the queens differ in 2 of 534 games, which made the whole fit
    diverge (queen -12.8 [-113,751, +113,725]); the unit is left out and the rest is estimated."""
    from simkit.analysis.values import regression
    from simkit.engine.runner import RunConfig, simulate
    sc = load_scenario("martian_chess")
    rec = simulate(sc, RunConfig(games=2000, policies=("greedy", "greedy"), snapshot_ply=10), progress=False,
                   threads=1).records()
    reg = regression(sc.spec, rec, 10)
    assert "queen" not in reg["units"] and any("queen: the material difference varies in only 2 of" in x
                                               for x in reg["notes"])
    assert reg["converged"] and {"pawn", "drone"} <= set(reg["units"])
    assert all(v["converged"] and v["coef_ci"][1] - v["coef_ci"][0] < 2 for v in reg["units"].values())
