"""simkit tune: the search finds a known optimum of a noisy objective; objectives parse and judge."""
import json
import math

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from simkit.analysis.tune import Objective, loss_of, parse_objective, search
from simkit.cli import cli
from simkit.errors import UsageError


RHO = 0.8     # correlation of two candidates' noise: common random numbers help, but do not remove it


def synthetic(truth_at=7, slope=0.02):
    """A game-like objective: FPA falls linearly with the knob, crossing 0 at ``truth_at``, estimated from
    ``games`` games with binomial-like noise. Common random numbers correlate the candidates' luck
    (a shared draw per (games, seed)) without making it identical: each candidate has its own part too,
    so the search has to eliminate under noise that differs between candidates."""
    def evaluate(pt, games, seed):
        k = pt[0]
        common = np.random.default_rng([seed, games]).standard_normal()
        own = np.random.default_rng([seed, games, k]).standard_normal()
        z = RHO * common + math.sqrt(1 - RHO ** 2) * own
        se = 0.5 / math.sqrt(games)
        fpa = slope * (truth_at - k) + z * se
        return {"first_player_advantage": fpa, "first_player_advantage_ci": [fpa - 1.96 * se, fpa + 1.96 * se],
                "first_player_advantage_ci90": [fpa - 1.645 * se, fpa + 1.645 * se],
                "draw_rate": 0.1, "draw_rate_ci": [0.09, 0.11]}
    return evaluate


@pytest.mark.parametrize("truth", [0, 7, 13, 20])
def test_search_finds_the_known_root(truth):
    objs = [parse_objective("first_player_advantage=0")]
    res = search([(k,) for k in range(0, 21)], synthetic(truth), objs, games=500, verify_games=80000, seed=3,
                 tolerance=0.01)
    assert res.best["point"] == (truth,)
    assert objs[0].met(res.best["summary"], 0.01) == "met"
    # the noise differs between candidates: some round-0 neighbours come out in the wrong order
    first = {e["point"][0]: e["summary"]["first_player_advantage"] for e in res.evaluated if e["round"] == 0}
    assert any(first[k + 1] > first[k] for k in range(20))
    # halving: 21 -> 11 -> 6 -> 3 settings, games doubling each round
    rounds = sorted({(e["round"], e["games"]) for e in res.evaluated})
    assert rounds == [(0, 500), (1, 1000), (2, 2000), (3, 4000)]


def test_the_recommendation_is_measured_on_games_that_did_not_choose_it():
    objs = [parse_objective("first_player_advantage=0")]
    res = search([(k,) for k in range(0, 21)], synthetic(7), objs, games=500, verify_games=20000, seed=3,
                 tolerance=0.01)
    assert len(res.verified) == 3 and res.best is res.confirmed
    assert res.confirmed["point"] == res.verified[0]["point"] and res.confirmed["stage"] == "confirm"
    seeds = {e["seed"] for e in res.evaluated} | {res.verified[0]["seed"]} | {res.confirmed["seed"]}
    assert len(seeds) == 3 and {e["seed"] for e in res.evaluated} == {3}
    # the confirmation's estimate is not the verification's (other games, its own luck)
    assert res.confirmed["summary"] != res.verified[0]["summary"]
    # one finalist: nothing is chosen on the verification games, which then measure it
    one = search([(k,) for k in range(0, 3)], synthetic(1), objs, games=500, verify_games=2000, seed=3,
                 tolerance=0.01, finalists=1)
    assert one.confirmed is None and one.best is one.verified[0]


def test_stage_seeds_do_not_collide_with_other_runs():
    from simkit.analysis.tune import stage_seed
    seeds = {stage_seed(s, st) for s in range(1000) for st in ("verify", "confirm")}
    assert len(seeds) == 2000 and min(seeds) >= 2 ** 62 and max(seeds) < 2 ** 63
    # the old scheme verified --seed 0 on seed 1, which --seed 1's search played again


def _summary(est, ci95, ci90=None):
    s = {"first_player_advantage": est, "first_player_advantage_ci": list(ci95), "mean_plies": est,
         "mean_plies_ci": list(ci95), "draw_rate": est, "draw_rate_ci": list(ci95)}
    if ci90 is not None:
        s["first_player_advantage_ci90"] = list(ci90)
    return s


def draws_and_fairness(feasible_up_to=12, noise=True):
    """A knob k that lowers the draw rate (0.5 - 0.02 k) and keeps the game fair up to ``feasible_up_to``,
    beyond which the first player gains 0.05 per step; each candidate's estimates carry noise of their own
    (correlated across candidates through the shared seed, not identical), shrinking with the games."""
    def evaluate(pt, games, seed):
        k = pt[0]
        z = np.random.default_rng([seed, games, k]).standard_normal(2) if noise else np.zeros(2)
        se = 0.5 / math.sqrt(games)
        fpa = 0.05 * max(0, k - feasible_up_to) + z[0] * se
        draw = 0.5 - 0.02 * k + z[1] * se
        return {"first_player_advantage": fpa, "first_player_advantage_ci": [fpa - 1.96 * se, fpa + 1.96 * se],
                "first_player_advantage_ci90": [fpa - 1.645 * se, fpa + 1.645 * se],
                "draw_rate": draw, "draw_rate_ci": [draw - 1.96 * se, draw + 1.96 * se]}
    return evaluate


@pytest.mark.parametrize("edge", [5, 12, 20])
def test_min_objective_is_lowest_where_the_constraint_holds(edge):
    objs = [parse_objective("draw_rate=min"), parse_objective("first_player_advantage=0")]
    res = search([(k,) for k in range(0, 21)], draws_and_fairness(edge), objs, games=2000, verify_games=20000,
                 seed=3, tolerance=0.02)
    # the fewest draws among the fair settings: the last fair one (fewer draws beyond it cost fairness)
    assert res.best["point"] == (edge,)
    s = res.summary()["recommended"]
    assert s["objectives"][0]["objective"] == "draw_rate=min"
    assert s["objectives"][0]["result"].startswith("lowest of the ")
    assert s["objectives"][1]["result"] == "met" and s["meets_all"]


def test_max_objective_and_no_feasible_setting():
    objs = [parse_objective("draw_rate=max"), parse_objective("first_player_advantage=0")]
    res = search([(k,) for k in range(0, 11)], draws_and_fairness(12, noise=False), objs, games=1000,
                 verify_games=4000, seed=1, tolerance=0.02)
    assert res.best["point"] == (0,)                   # the most draws, all settings fair
    assert res.summary()["recommended"]["objectives"][0]["result"].startswith("highest of the ")
    # nobody is fair (every setting hands the first player >= 0.05): the least unfair wins, and says so
    res = search([(k,) for k in range(13, 20)], draws_and_fairness(12, noise=False), objs, games=1000,
                 verify_games=4000, seed=1, tolerance=0.02)
    assert res.best["point"] == (13,)
    rec = res.summary()["recommended"]
    assert "every finalist misses one" in rec["objectives"][0]["result"] and not rec["meets_all"]


def test_min_max_losses_and_parsing():
    goal, fair = parse_objective("draw_rate=min"), parse_objective("first_player_advantage=0")
    assert (goal.op, goal.text) == ("min", "draw_rate=min") and parse_objective("mean_length=max").op == "max"
    s = {"draw_rate": 0.3, "draw_rate_ci": [0.29, 0.31], "first_player_advantage": 0.015,
         "first_player_advantage_ci": [0.012, 0.018], "first_player_advantage_ci90": [0.0125, 0.0175]}
    noisy = s | {"first_player_advantage_ci": [-0.005, 0.035], "first_player_advantage_ci90": [-0.002, 0.032]}
    # an "=" constraint is broken only when the games show it missed (its interval beyond ± the tolerance), by
    # as much as the estimate lies beyond: 0.015 is 2 tolerances beyond ±0.005; with ±0.02 it is kept, and a
    # sample too small to tell (not shown) costs nothing either
    assert fair.met(s, 0.005) == "missed"
    assert loss_of(s, [goal, fair], 0.005, False) == pytest.approx((2.0, 0.3))
    assert loss_of(s, [goal, fair], 0.02, False) == (0.0, 0.3)
    assert fair.met(noisy, 0.005) == "not shown" and loss_of(noisy, [goal, fair], 0.005, False) == (0.0, 0.3)
    assert loss_of(s, [parse_objective("draw_rate=max"), fair], 0.02, True) == (0.0, -0.3)
    # without a goal the loss is unchanged: the distance to the target, no allowance
    assert loss_of(s, [fair], 0.02, False) == pytest.approx(0.75)
    for bad in ("draw_rate=min@2", "draw_rate=least"):
        with pytest.raises(UsageError):
            parse_objective(bad)
    r = CliRunner().invoke(cli, ["tune", "martian_chess", "--knob", "komi=0,0.5", "--objective", "draw_rate=min",
                                 "--objective", "mean_length=max"])
    assert r.exit_code == 2 and "at most one METRIC=min or METRIC=max" in r.output


def test_fewer_draws_still_fair_shows_what_it_costs(tmp_path):
    # greedy Martian Chess: half a point of komi ends every draw but hands the draws to the second player;
    # the leader clock ends most draws fairly, and its games last about twice as long
    out = tmp_path / "t"
    r = CliRunner().invoke(cli, ["tune", "martian_chess", "--knob", "clock=deadlock,leader", "--knob", "komi=0,0.5",
                                 "--objective", "draw_rate=min", "--objective", "first_player_advantage=0",
                                 "--tolerance", "0.02", "--policy", "greedy", "--games", "400", "--verify-games",
                                 "1000", "--finalists", "3", "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    s = json.loads((out / "tune.json").read_text())
    rec = s["recommended"]
    assert rec["setting"] == {"clock": "leader", "komi": 0}
    fx = rec["side_effects"]
    assert "draw_rate" not in fx                          # the objective is the target, not a side effect
    # each finalist against the unchanged scenario on the verification games
    base, first = s["unchanged"]["side_effects"], s["finalists"][0]
    assert s["unchanged"]["setting"] == {"clock": "deadlock", "komi": 0.0} and s["unchanged"]["games"] == 1000
    for m in ("mean_plies", "cap_rate", "end_clock"):
        d = first["side_effects_vs_unchanged"][m]
        assert d["diff"] == pytest.approx(first["side_effects"][m][0] - base[m][0], abs=1e-12), m
        assert d["ci"][0] <= d["diff"] <= d["ci"][1]
    # the recommendation against the unchanged scenario on the confirmation games (which did not choose it)
    rows = pd.read_csv(out / "tune.csv").set_index("stage")
    assert {"verify_unchanged", "confirm_unchanged", "confirm"} <= set(rows.index)
    assert {"mean_plies_ci_lo", "end_clock_ci_hi"} <= set(rows.columns)
    for m in ("mean_plies", "cap_rate", "end_clock"):
        assert fx[m]["diff"] == pytest.approx(rows.loc["confirm", m] - rows.loc["confirm_unchanged", m], abs=1e-12)
    a, b = rows.loc["confirm_unchanged", "mean_plies"], rows.loc["confirm", "mean_plies"]
    assert fx["mean_plies"]["verdict"] == "matters" and b > 1.5 * a
    assert f"and games get {round(100 * (b - a) / a)}% longer: " in rec["verdict"] and rec["verdict"] in r.output
    assert "Side effects on the same 1,000 games" in r.output and "unchanged" in r.output
    # the runner-up on the goal's metric, paired on the verification games
    nxt = next(f for f in s["finalists"] if f["setting"] == rec["vs_next"]["setting"])
    assert rec["vs_next"]["diff"] == pytest.approx(first["side_effects"]["draw_rate"][0]
                                                   - nxt["side_effects"]["draw_rate"][0])
    r = CliRunner().invoke(cli, ["report", str(out), "-o", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "tune_length.png" in html and "Side effects of the recommendation against the unchanged scenario: " \
        "games get" in html


def test_objective_judgements():
    o = parse_objective("first_player_advantage=0")
    assert o.met(_summary(0.001, (-0.004, 0.006), (-0.003, 0.005)), 0.01) == "met"
    assert o.met(_summary(0.03, (0.025, 0.035), (0.026, 0.034)), 0.01) == "missed"
    assert o.met(_summary(0.005, (-0.02, 0.03), (-0.016, 0.026)), 0.01) == "not shown"
    d = parse_objective("draw_rate<=0.1@2")
    assert (d.op, d.lo, d.weight) == ("<=", 0.1, 2.0)
    assert d.violation(0.15) == pytest.approx(0.05) and d.violation(0.05) == 0
    r = parse_objective("mean_length=40..60")
    assert r == Objective("mean_length", "range", 40.0, 60.0)
    assert r.met(_summary(50, (45, 55)), 0.01) == "met" and r.met(_summary(70, (65, 75)), 0.01) == "missed"
    for bad in ("nonsense=1", "draw_rate~1", "draw_rate=abc", "mean_length=60..40", "draw_rate<=0.1@0"):
        with pytest.raises(UsageError):
            parse_objective(bad)


def test_equality_objectives_use_the_90_percent_interval_itself_not_a_rescaled_95():
    """Near 0 a rate's interval is asymmetric: 5 draws in 1,000 have a 95% Wilson interval of
    [0.0021, 0.0117]; scaling its half-width to 90% gives an upper end 0.0090, inside ±0.01 ("met"),
    while the 90% Wilson interval itself reaches 0.0106 ("not shown")."""
    from simkit.analysis.stats import wilson
    from simkit.analysis.tune import metric_ci
    n, k = 1000, 5
    s = {"games": n, "draw_rate": k / n, "draw_rate_ci": list(wilson(k, n))}
    _, lo90, hi90 = metric_ci(s, "draw_rate", alpha=0.10)
    assert (lo90, hi90) == pytest.approx(wilson(k, n, 0.10))
    half95 = (s["draw_rate_ci"][1] - s["draw_rate_ci"][0]) / 2
    assert k / n + half95 * 1.6449 / 1.96 < 0.01 < hi90        # the old rescaling would have said "met"
    assert parse_objective("draw_rate=0").met(s, 0.01) == "not shown"
    # the advantage's 90% interval is its score interval from the counts
    from simkit.analysis.stats import score_interval
    s = {"games": 400, "first_player_win_rate": 0.5, "second_player_win_rate": 0.45,
         "first_player_advantage": 0.525 - 0.5, "first_player_advantage_ci": [0, 0.05]}
    _, lo, hi = score_interval((0, 0.5, 1), [180, 20, 200], alpha=0.10)
    assert metric_ci(s, "first_player_advantage", 0.10)[1:] == pytest.approx((lo - 0.5, hi - 0.5))


def test_tune_command_writes_every_point(tmp_path):
    out = tmp_path / "t"
    r = CliRunner().invoke(cli, ["tune", "martian_chess", "--knob", "deadlock_plies=8..11", "--objective",
                                 "first_player_advantage=0", "--policy", "random", "--games", "200",
                                 "--verify-games", "400", "--finalists", "2", "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    s = json.loads((out / "tune.json").read_text())
    assert s["knobs"] == ["deadlock_plies"] and s["recommended"]["setting"]["deadlock_plies"] in (8, 9, 10, 11)
    rows = (out / "tune.csv").read_text().splitlines()
    # header, round 0 (4), round 1 (2), verification (2), confirmation (1), the unchanged scenario on the
    # verification and on the confirmation games (2)
    assert len(rows) == 1 + 4 + 2 + 2 + 1 + 2
    assert "recommended: deadlock_plies=" in r.output
    r = CliRunner().invoke(cli, ["report", str(out), "-o", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "Tune: Martian Chess: default" in html and "tune_0.png" in html and "Recommended deadlock_plies=" in html
    assert (tmp_path / "rep" / "tune_0.png").stat().st_size > 1000


def test_tune_races_settings_with_identical_rules_once(tmp_path):
    # komi 0 (an integer) and 0.0 resolve to the same rules: one of them is raced, the other reported
    out = tmp_path / "t"
    r = CliRunner().invoke(cli, ["tune", "martian_chess", "--knob", "komi=0,0.0,0.5", "--objective",
                                 "first_player_advantage=0", "--policy", "random", "--games", "100",
                                 "--verify-games", "200", "--finalists", "2", "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    s = json.loads((out / "tune.json").read_text())
    assert s["identical_settings"] == [{"setting": {"komi": 0.0}, "plays_as": {"komi": 0}}]
    assert s["evaluations"] == 2


def test_tune_refuses_bad_knobs():
    r = CliRunner().invoke(cli, ["tune", "martian_chess", "--knob", "nosuchkey=1..3", "--objective",
                                 "first_player_advantage=0"])
    assert r.exit_code == 2 and "unknown key" in r.output


def test_sensitivity_steps_and_tornado_report(tmp_path):
    from simkit.analysis.sensitivity import steps_of
    from simkit.scenario.schema import Option
    assert steps_of(Option("k", "int", 3, "", min=3, max=10), 3) == [("up", 4)]
    assert steps_of(Option("f", "float", 0.5, "", min=0.0, max=1.0), 0.5) == [("down", 0.45), ("up", 0.55)]
    assert steps_of(Option("f", "float", 0.0, "", min=0.0), 0.0) == [("up", 0.1)]
    assert steps_of(Option("komi", "float", 0.0, "", min=-100, max=100, step=0.5), 0.0) == [("down", -0.5),
                                                                                            ("up", 0.5)]
    out = tmp_path / "sens"
    r = CliRunner().invoke(cli, ["sensitivity", "martian_chess", "--option", "deadlock_plies", "--option",
                                 "max_plies", "--games", "300", "--policy", "random", "--out", str(out),
                                 "--threads", "1"])
    assert r.exit_code == 0, r.output
    s = json.loads((out / "sensitivity.json").read_text())
    rows = {(x["option"], x["direction"], x["metric"]): x for x in s["rows"]}
    assert len(rows) == 2 * 2 * 3
    # a longer quiet spell before the clock makes games longer; a 1-ply change of a 400-ply cap that random
    # games (about 36 plies) never reach changes nothing, and its interval still has width (3/n rule)
    assert rows[("deadlock_plies", "up", "mean_length")]["ci_lo"] > 0
    cap = rows[("max_plies", "up", "first_player_advantage")]
    assert cap["effect"] == 0 and cap["ci_hi"] > 0 > cap["ci_lo"]
    assert all(0 <= x["p_holm"] <= 1 for x in s["rows"] if x["p_holm"] == x["p_holm"])
    r = CliRunner().invoke(cli, ["report", str(out), "-o", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "Sensitivity: Martian Chess: default" in html and "tornado_0.png" in html


def test_a_taken_out_dir_is_refused_before_any_game(tmp_path, monkeypatch):
    import simkit.engine.runner as runner
    (tmp_path / "manifest.json").write_text("{}")
    played = []
    monkeypatch.setattr(runner, "simulate", lambda *a, **k: played.append(1))
    for args in (["tune", "martian_chess", "--knob", "komi=0,0.5", "--objective", "first_player_advantage=0"],
                 ["quality", "martian_chess"], ["sensitivity", "martian_chess"], ["ladder", "martian_chess"]):
        r = CliRunner().invoke(cli, args + ["--out", str(tmp_path)])
        assert r.exit_code == 2 and "already holds results" in r.output, (args, r.output)
    assert played == []


def test_sensitivity_effects_use_the_score_interval_and_a_length_floor_in_game_lengths():
    from simkit.analysis.sensitivity import effect
    from simkit.analysis.stats import discrete_mean
    base = np.zeros(400)
    first = base.copy()
    first[:4] = 1.0                       # 4 of 400 first-player scores rise from a loss to a win
    e = effect("first_player_advantage", first, base)
    assert e["ci"] == discrete_mean(first - base, (-1, -0.5, 0, 0.5, 1))["ci"]
    assert e["ci"][0] > 0 or e["p_value"] >= 0.05          # the interval and the score test agree
    # every game the same length (48 turns): the rule-of-three floor is 3 x 48 / n, not 3 / n
    lengths = np.full(400, 48.0)
    e = effect("mean_length", lengths, lengths.copy())
    assert e["effect"] == 0 and e["ci"] == pytest.approx([-3 * 48 / 400, 3 * 48 / 400])


def test_tune_strength_races_search_knobs_against_a_panel(tmp_path):
    """--objective strength=max: each setting of mcts:40's knobs plays the default panel (greedy, mcts:40 as it
    is, mcts:20) in both seats; random playouts to the game's end (cutoff 60) beat scoring the leaf at once
    (cutoff 0), and the setting's knobs go on its side only."""
    from simkit.analysis.tune import default_panel, tune_strength
    from simkit.engine.runner import RunConfig
    from simkit.games import get_game
    assert default_panel(get_game("martian_chess"), "mcts:40") == ["greedy", "mcts:40", "mcts:20"]
    res = tune_strength("martian_chess", ["mcts_cutoff=0,60"], ["strength=max"],
                        RunConfig(games=24, seed=3, policies=("mcts:40", "mcts:40")), verify_games=48,
                        out_dir=tmp_path / "t")
    assert res.verified[0]["point"] == (60,) and res.best["point"] == (60,)
    s = {v["point"]: v["summary"] for v in res.verified}
    assert s[(60,)]["strength"] > s[(0,)]["strength"] and s[(60,)]["games"] == 3 * 48
    assert set(s[(60,)]["strength_vs"]) == {"greedy", "mcts:40", "mcts:20"}
    assert s[(0,)]["strength_vs"]["mcts:40"] < 0.5 < s[(60,)]["strength_vs"]["greedy"]
    lo, hi = s[(60,)]["strength_ci"]
    assert lo < s[(60,)]["strength"] < hi
    data = json.loads((tmp_path / "t" / "tune.json").read_text())
    assert data["panel"] == ["greedy", "mcts:40", "mcts:20"] and data["recommended"]["setting"] == {"mcts_cutoff": 60}


def test_tune_strength_refuses_rule_knobs_and_mixed_objectives():
    from simkit.analysis.tune import tune_strength
    from simkit.engine.runner import RunConfig
    cfg = RunConfig(games=4, seed=1, policies=("mcts:10", "mcts:10"))
    with pytest.raises(UsageError, match="search knobs"):
        tune_strength("martian_chess", ["komi=0,0.5"], ["strength=max"], cfg)
    with pytest.raises(UsageError, match="tuned alone"):
        tune_strength("martian_chess", ["mcts_c=1,2"], ["strength=max", "draw_rate<=0.3"], cfg)
