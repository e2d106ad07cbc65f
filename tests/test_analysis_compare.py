"""compare: common random numbers, paired differences, the compare directory, --precision."""
import json
import re

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import invoke
from simkit.analysis.compare import compare
from simkit.engine.runner import RunConfig
from simkit.scenario import load_scenario

CFG = RunConfig(games=3000, seed=5, policies=("random", "random"))


def test_a_scenario_compared_with_itself_differs_by_exactly_zero():
    sc = load_scenario("martian_chess")
    res = compare(sc, load_scenario("martian_chess"), CFG, keep=True)
    for m, d in res.differences.items():
        # no discordant pairs: the estimate is 0, the interval is not [0, 0] (no certainty from no evidence)
        assert d["diff"] == 0.0 and d["ci"][0] < 0 < d["ci"][1] and d["p_value"] == 1.0, m
        assert d["ci"][1] <= 4.0 / 3000 * (1 if m != "mean_plies" else res.paired.max_length), m
    assert "identical rules" in res.verdict and res.summary()["same_rules"] is True
    assert np.array_equal(res.a.records(), res.b.records())


def test_identical_games_from_different_rules_are_not_called_identical():
    # a cap of 300 or 400 plies: different rules, but no random game of 600 gets near either cap
    res = compare(load_scenario("martian_chess", ["max_plies=300"]), load_scenario("martian_chess", ["max_plies=400"]),
                  RunConfig(games=600, seed=5, policies=("random", "random")))
    assert not res.same_rules and res.paired.discordant == 0
    v = res.verdict
    assert "identical" not in v
    # the bound the verdict quotes is the widest interval of the table, not a formula beside it
    widest = max((d["ci"][1] - d["ci"][0]) / 2 for m, d in res.differences.items() if m != "mean_plies")
    length = res.differences["mean_plies"]["ci"]
    assert v.startswith(f"no discordant pairs in 600: every score and rate difference within ±{widest:.4f} and "
                        f"mean plies within ±{(length[1] - length[0]) / 2:.4g} (95% intervals)"), v
    assert f"{widest:.4f}" != f"{3 / 600:.4f}"
    d = res.differences["first_player_advantage"]
    assert d["ci"][1] - d["ci"][0] > 0


def test_clock_leader_verdict_leads_with_the_draw_rate():
    res = compare(load_scenario("martian_chess"), load_scenario("martian_chess", ["clock=leader"]),
                  RunConfig(games=4000, seed=0, policies=("random", "random")))
    d = res.differences
    assert d["draw_rate"]["verdict"] == "matters" and d["draw_rate"]["diff"] < -0.15
    # in percentage points, as every report prints a rate difference
    assert re.match(r"B differs from A in draw rate -\d\d?\.\d pp \[-\d", res.verdict), res.verdict
    # every metric that matters is named, largest (relative to its threshold) first
    assert d["mean_plies"]["verdict"] == "matters"
    assert res.verdict.index("draw rate") < res.verdict.index("mean plies")
    assert "primary: side 0 expected score" in res.verdict and "Holm" in res.verdict
    # Holm: adjusted p-values are never below the raw ones
    assert all(e["p_holm"] >= e["p_value"] for e in d.values())


def test_win_rates_that_move_only_with_the_draws_are_not_called_a_change_in_who_wins():
    # the leader clock turns most of greedy play's draws into decided games, about half to each side
    res = compare(load_scenario("martian_chess"), load_scenario("martian_chess", ["clock=leader"]),
                  RunConfig(games=4000, seed=0, policies=("greedy", "greedy")))
    d, split = res.differences, res.summary()["win_rate_split"]
    for win, score in (("side0_win_rate", "side0_expected_score"), ("first_player_win_rate", "first_player_advantage")):
        assert d[win]["verdict"] == "matters" and d[score]["verdict"] != "matters"
        # exact: per game, win = score - draw / 2
        assert split[win]["from_draws"] + split[win]["from_who_wins"] == pytest.approx(d[win]["diff"], abs=1e-12)
        lo, hi = split[win]["from_draws_ci"]
        assert lo <= split[win]["from_draws"] <= hi and lo > 0.25
    v = res.verdict
    changes = v.split(" (95%, Holm")[0]
    assert "draw rate" in changes and "win rate" not in changes, v
    assert re.search(r"side-0 win rate \+\d\d\.\d pp and first-player win rate \+\d\d\.\d pp come from fewer "
                     r"draws", v), v
    assert "not a change in who wins that matters (first-player advantage" in v


def test_a_change_in_who_wins_is_not_put_down_to_the_draws():
    # half a point of komi for the second player: draws vanish AND the second player wins them
    res = compare(load_scenario("martian_chess"), load_scenario("martian_chess", ["komi=0.5"]),
                  RunConfig(games=3000, seed=0, policies=("greedy", "greedy")))
    d = res.differences
    assert d["first_player_advantage"]["verdict"] == "matters" and d["draw_rate"]["verdict"] == "matters"
    changes, rest = res.verdict.split(" (95%, Holm")
    # the first player's lost wins are a change in who wins; side 0 (first in half the games) only gains the draws
    assert "first-player advantage -0." in changes and "first-player win rate" in changes
    assert re.search(r"; side-0 win rate \+\d\d\.\d pp comes from fewer draws", rest), res.verdict


def test_end_reasons_are_paired_side_effects():
    # without the clock a random game runs to the territory ending or the cap: the clock endings vanish
    res = compare(load_scenario("martian_chess"), load_scenario("scenarios/martian_chess/clock_off.toml"),
                  RunConfig(games=1000, seed=0, policies=("random", "random")))
    fx = res.side_effects
    sa, sb = res.a.summary(), res.b.summary()
    for r in ("clock", "territory_empty"):
        e = fx[f"end_{r}"]
        assert e["diff"] == pytest.approx(sb["end_reason_shares"][r] - sa["end_reason_shares"][r], abs=1e-12)
        assert e["ci"][0] <= e["diff"] <= e["ci"][1]
    assert fx["end_clock"]["diff"] < -0.3 and fx["end_clock"]["verdict"] == "matters"
    assert fx["cap_rate"]["diff"] == pytest.approx(sb["cap_rate"] - sa["cap_rate"], abs=1e-12)
    assert all(e["p_holm"] >= e["p_value"] for e in fx.values())
    assert "how games end: 'clock' endings fall: " in res.verdict, res.verdict


def test_clock_off_verdict_names_the_game_length():
    res = compare(load_scenario("martian_chess"), load_scenario("scenarios/martian_chess/clock_off.toml"),
                  RunConfig(games=1000, seed=0, policies=("random", "random")))
    assert res.differences["mean_plies"]["verdict"] == "matters"
    assert res.verdict.startswith("B differs from A in mean plies +")


def test_tolerance_gives_an_equivalence_verdict():
    res = compare(load_scenario("martian_chess"), load_scenario("martian_chess", ["clock=leader"]),
                  RunConfig(games=4000, seed=0, policies=("random", "random")), tolerance=0.05)
    eq = res.summary()["equivalence"]
    fpa = eq["difference"]["first_player_advantage"]
    lo, hi = fpa["ci90"]
    assert fpa["result"] == ("within" if -0.05 < lo and hi < 0.05 else "not_shown")
    fa = eq["fairness"]["a"]
    assert fa["verdict"].startswith(("fair within", "not shown fair", "unfair by more"))
    # the 90% interval sits inside the 95% one
    d95 = res.differences["first_player_advantage"]["ci"]
    assert d95[0] < lo and hi < d95[1]


def test_paired_difference_is_the_difference_of_the_two_summaries():
    res = compare(load_scenario("martian_chess"), load_scenario("martian_chess", ["clock=leader"]), CFG)
    s = res.summary()
    for m in ("first_player_advantage", "side0_win_rate", "draw_rate", "mean_plies"):
        assert s["differences"][m]["diff"] == pytest.approx(s["b"][m] - s["a"][m], abs=1e-12)
        lo, hi = s["differences"][m]["ci"]
        assert lo <= s["differences"][m]["diff"] <= hi
    # the leader clock makes far fewer draws: a clear, significant difference
    assert s["differences"]["draw_rate"]["p_value"] < 1e-6
    assert s["differences"]["side0_win_rate"]["p_value"] < 1e-6
    assert s["verdict"].startswith("B differs from A")
    t = res.table
    assert list(t.columns) == ["a", "b", "diff", "ci_lo", "ci_hi", "p_value", "p_holm", "verdict"]


def test_precision_stops_within_the_half_width_and_before_the_ceiling():
    a, b = load_scenario("martian_chess"), load_scenario("martian_chess", ["clock=leader"])
    res = compare(a, b, RunConfig(games=200_000, seed=1, policies=("random", "random"), chunk_size=1000),
                  precision=0.01)
    d = res.differences["first_player_advantage"]
    assert res.stopped_at_precision and res.paired.n < 200_000
    assert (d["ci"][1] - d["ci"][0]) / 2 <= 0.01
    assert res.paired.n >= 1000 and res.paired.chunks >= 2          # the minimum sample
    # one chunk fewer would not have been enough (it stops at the first chunk that reaches it)
    prev = compare(a, b, RunConfig(games=res.paired.n - 1000, seed=1, policies=("random", "random"),
                                   chunk_size=1000))
    dp = prev.differences["first_player_advantage"]
    assert (dp["ci"][1] - dp["ci"][0]) / 2 > 0.01
    s = res.summary()
    assert s["games"] == res.paired.n and s["a"]["games"] == s["b"]["games"] == res.paired.n
    assert s["stopped_at_precision"] is True and s["a"]["stopped_at_precision"] is True


def test_compare_cli_writes_the_compare_directory(runner, tmp_path):
    out = tmp_path / "cmp"
    r = invoke(runner, ["compare", "martian_chess", "--set-b", "clock=off", "--games", 1000, "--policy", "random",
                        "--seed", 2, "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    assert s["kind"] == "compare" and s["games"] == 1000
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "compare" and manifest["status"] == "complete"
    assert manifest["b"]["rules"]["clock"] == "off" and manifest["a"]["rules"]["clock"] == "deadlock"
    for side in ("a", "b"):
        m = json.loads((out / side / "manifest.json").read_text())
        assert m["kind"] == "run" and m["status"] == "complete" and m["config"]["seed"] == 2
        assert len(pq.read_table(out / side / "games.parquet")) == 1000
    c = json.loads((out / "compare.json").read_text())
    assert {"a", "b", "differences", "verdict"} <= set(c)
    for m in ("first_player_advantage", "side0_win_rate"):
        assert {"diff", "ci", "p_value"} <= set(c["differences"][m])
    # how games end, paired: the clock endings vanish without the clock
    fx = c["side_effects"]
    assert fx["end_clock"]["verdict"] == "matters" and fx["end_clock"]["b"] == 0 and "cap_rate" in fx
    assert set(c["win_rate_split"]) == {"side0_win_rate", "first_player_win_rate"}
    text = invoke(runner, ["compare", "martian_chess", "scenarios/martian_chess/clock_off.toml", "-n", 500,
                           "--policy", "random", "--no-save"]).output
    assert "verdict:" in text and "B - A" in text
    assert "'clock' endings" in text and "capped" in text and "from the draws" in text


def test_compare_cli_errors(runner):
    from simkit.cli import cli
    r = runner.invoke(cli, ["compare", "martian_chess", "--set-b", "clok=off", "-n", "10", "--no-save"])
    assert r.exit_code == 2 and "clock" in r.output
    r = runner.invoke(cli, ["compare", "martian_chess", "--set-b", "clock=off", "--precision", "0", "-n", "10",
                            "--no-save"])
    assert r.exit_code == 2 and "--precision" in r.output
    r = runner.invoke(cli, ["compare", "martian_chess", "--set-b", "clock=off", "--tolerance", "0", "-n", "10",
                            "--no-save"])
    assert r.exit_code == 2 and "--tolerance" in r.output


@pytest.mark.parametrize("args,msg", [
    (["martian_chess", "skorm"], "two variants of one game"),
    (["martian_chess"], "identical rules"),
    (["martian_chess", "--set-a", "clock=off", "--set-b", "clock=off"], "identical rules"),
    (["martian_chess", "--set-b", "clock=deadlock"], "identical rules"),   # the default, spelled out
])
def test_compare_refuses_meaningless_comparisons(runner, args, msg):
    from simkit.cli import cli
    r = runner.invoke(cli, ["compare", *args, "-n", "10", "--no-save"])
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.output.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and msg in lines[0] and "Traceback" not in r.output


def test_run_precision_reports_games_and_stop(runner):
    s = json.loads(invoke(runner, ["run", "martian_chess", "-n", 100_000, "--chunk-size", 2000, "--policy", "random",
                                   "--precision", 0.01, "--no-save", "--json"]).output)
    assert s["stopped_at_precision"] is True and s["games"] < 100_000 and s["games"] % 2000 == 0
    lo, hi = s["first_player_advantage_ci"]
    assert (hi - lo) / 2 <= 0.01
    s = json.loads(invoke(runner, ["run", "martian_chess", "-n", 1000, "--policy", "random", "--precision", 0.001,
                                   "--no-save", "--json"]).output)
    assert s["stopped_at_precision"] is False and s["games"] == 1000


def test_run_precision_run_directory_is_complete(tmp_path):
    from simkit.engine.runner import simulate
    out = tmp_path / "run"
    res = simulate(load_scenario("martian_chess"), RunConfig(games=50_000, chunk_size=1000,
                                                             policies=("random", "random")),
                   out_dir=out, progress=False, precision=0.02)
    assert res.stopped_at_precision and res.games_done < 50_000
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["games_done"] == res.games_done
    assert len(pq.read_table(out / "games.parquet")) == res.games_done
    assert json.loads((out / "summary.json").read_text())["stopped_at_precision"] is True


def test_python_api_returns_tidy_frames():
    import simkit
    res = simkit.compare("martian_chess", games=500, overrides_b={"clock": "off"}, policies="random")
    g = res.games
    assert list(g["variant"].value_counts().sort_index()) == [500, 500]
    assert (g[g.variant == "a"]["first"].to_numpy() == g[g.variant == "b"]["first"].to_numpy()).all()
    assert set(res.table.index) >= {"first_player_advantage", "side0_win_rate"}
    assert res.summary()["kind"] == "compare"
    run = simkit.simulate("martian_chess", 50_000, policies="random", chunk_size=1000, precision=0.02)
    assert run.summary()["stopped_at_precision"] and len(run.games) == run.summary()["games"] < 50_000


def test_run_tolerance_is_an_equivalence_test(runner):
    args = ["run", "martian_chess", "-n", 4000, "--policy", "random", "--no-save", "--json"]
    wide = json.loads(invoke(runner, args + ["--tolerance", 0.1]).output)["equivalence"]
    narrow = json.loads(invoke(runner, args + ["--tolerance", 0.001]).output)["equivalence"]
    lo, hi = wide["ci90"]
    assert wide["ci90"] == narrow["ci90"] and lo < hi
    assert wide["verdict"] == "fair within ±0.1"           # random play is fair to within 10 points
    assert narrow["verdict"] == "not shown fair within ±0.001"
    # a side that always wins as first player: unfair by more than any small tolerance
    from simkit.analysis.metrics import fpa_equivalence
    from simkit.analysis.tally import Tally
    from simkit.games import get_game
    t = Tally(get_game("martian_chess"))
    t.outcome[0] = [900, 100, 0]
    assert fpa_equivalence(t, 0.05)["verdict"] == "unfair by more than 0.05"
    text = invoke(runner, ["run", "martian_chess", "-n", 2000, "--policy", "random", "--no-save",
                           "--tolerance", 0.1]).output
    assert "--tolerance 0.1: first-player advantage 90% CI" in text
