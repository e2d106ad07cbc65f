"""Skill robustness (trend verdicts), degenerate-play flags, the ladder and policy names."""
import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from simkit.analysis.degenerate import count_flags, reversal, stronger
from simkit.analysis.ladder import LadderResult, rungs_of
from simkit.analysis.skill import trend, verdict
from simkit.cli import cli
from simkit.errors import UsageError
from simkit.games import get_game
from simkit.policies import EPS_SCALE, POL_BUDGET, POL_EPS, POL_ID, parse_policy, policy_vector


def est(e, half=0.01):
    return (e, e - half, e + half)


def test_trend_recovers_a_known_slope_and_its_interval():
    t = trend([est(0.10), est(0.08), est(0.06), est(0.04)])
    assert t["slope"] == pytest.approx(-0.02)
    # se = 0.01 / 1.96 per level; slope se = se / sqrt(sum (x - xbar)^2) = se / sqrt(5)
    half = 1.959963984540054 * (0.01 / 1.959963984540054) / math.sqrt(5)
    assert t["ci"][1] - t["slope"] == pytest.approx(half)


def test_verdicts():
    assert verdict([est(0.10), est(0.05), est(0.01)], 0.0) == "converging"
    assert verdict([est(0.01), est(0.05), est(0.10)], 0.0) == "trending"
    assert verdict([est(0.05, 0.04), est(-0.05, 0.04)], 0.0) == "reversing"
    assert verdict([est(0.03, 0.05), est(0.031, 0.05), est(0.029, 0.05)], 0.0) == "stable"
    # unsigned metrics (draw rate) never "converge" to a neutral value
    assert verdict([est(0.7), est(0.5), est(0.3)], None) == "trending"


def test_reversal_flag_names_both_policies():
    f = reversal("first_player_advantage", {"greedy": est(0.05), "mcts:400": est(-0.04), "mcts:100": est(0.0)})
    assert f is not None and "greedy" in f["message"] and "mcts:400" in f["message"]
    assert reversal("first_player_advantage", {"greedy": est(0.05), "mcts:400": est(0.0)}) is None


def test_degenerate_flags_from_counts():
    spec = get_game("storm_the_castle")
    ends = np.zeros(len(spec.end_reasons), dtype=np.int64)
    ends[spec.end_reasons.index("move_limit")] = 30
    ends[spec.end_reasons.index("keep_taken")] = 70
    flags = {f["flag"]: f for f in count_flags(spec, 100, ends, 30, 60, ("greedy", "greedy"))}
    assert set(flags) == {"capped", "no_interaction"}
    assert flags["capped"]["share"] == pytest.approx(0.3) and "greedy vs greedy" in flags["capped"]["message"]
    assert "mcts:400" in flags["capped"]["message"]
    ends[:] = 0
    ends[spec.end_reasons.index("keep_taken")] = 100
    assert count_flags(spec, 100, ends, 0, 10, ("greedy", "greedy")) == []
    all_draws = count_flags(spec, 100, ends, 100, 0, ("random", "random"))
    assert [f["flag"] for f in all_draws] == ["all_draws"]


def test_stronger_suggests_more_search():
    assert stronger(("greedy", "random")) == "mcts:400"
    assert stronger(("mcts:400", "greedy")) == "mcts:1600"
    assert stronger(("eps:0.1:mcts:800", "greedy")) == "mcts:3200"
    # a search with its own knobs is still that search (it suggested mcts:400 after mcts:400/mcts_reuse=true)
    assert stronger(("mcts:400/mcts_reuse=true", "mcts:400/mcts_reuse=true")) == "mcts:1600"
    assert stronger(("ban:move:mcts:100", "greedy")) == "mcts:400"


def test_ladder_rungs_and_depth():
    spec = get_game("martian_chess")
    r = rungs_of(spec, 50, 400)
    assert r[:2] == ["random", "greedy"]
    if "mcts" in spec.policies:
        assert r[2:] == ["mcts:50", "mcts:100", "mcts:200", "mcts:400"]
    steps = [{"rung": r, "below": b, "ci": ci, "score": s, "games": 10, "draw_rate": 0.0}
             for r, b, ci, s in (("b", "a", [0.6, 0.7], 0.65), ("c", "b", [0.45, 0.6], 0.52),
                                 ("d", "c", [0.6, 0.7], 0.65))]
    res = LadderResult("g", "s", ["a", "b", "c", "d"], steps, 10, 0)
    summ = res.summary()
    assert res.depth == 1 and summ["first_rung_without_gain"] == "c"
    # every rung on one Elo scale, anchored at the first rung, in rung order
    assert [r["player"] for r in summ["ratings"]["ratings"]] == ["a", "b", "c", "d"]
    elo = [r["elo"] for r in summ["ratings"]["ratings"]]
    assert elo[0] == 0 and elo[1] > 0 and elo[3] > elo[2] > elo[1]


def test_policy_names_parse_to_the_kernel_vector():
    spec = get_game("martian_chess")
    v = policy_vector(spec, ["random", "eps:0.25:greedy"])
    assert v[POL_ID] == spec.policy_id("random") and v[POL_ID + 1] == spec.policy_id("greedy")
    assert v[POL_EPS] == 0 and v[POL_EPS + 1] == EPS_SCALE // 4 and v[POL_BUDGET + 1] == 0
    for bad in ("mcts:0", "mcts:x", "eps:2:greedy", "eps:0.1", "eps:0.1:eps:0.1:greedy", "nonsense"):
        with pytest.raises(UsageError):
            parse_policy(spec, bad)
    if "mcts" in spec.policies:
        c = parse_policy(spec, "eps:0.1:mcts:400")
        assert (c.base, c.budget, c.eps) == ("mcts", 400, 0.1)


def test_ladder_command_greedy_beats_random(tmp_path):
    out = tmp_path / "lad"
    r = CliRunner().invoke(cli, ["ladder", "martian_chess", "--rungs", "random,greedy", "--games", "60",
                                 "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "ladder.json").read_text())
    step = data["steps"][0]
    assert step["rung"] == "greedy" and step["below"] == "random" and step["games"] == 60
    assert step["score"] > 0.5 and step["ci"][0] < step["score"] < step["ci"][1]
    assert (out / "ladder.csv").exists() and json.loads((out / "manifest.json").read_text())["kind"] == "ladder"


def test_run_skill_reports_each_level(tmp_path):
    out = tmp_path / "sk"
    r = CliRunner().invoke(cli, ["run", "martian_chess", "--games", "200", "--skill", "random,greedy",
                                 "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "skill.json").read_text())
    assert data["levels"] == ["random", "greedy"]
    draws = data["metrics"]["draw_rate"]
    # greedy vs greedy Martian Chess draws far more than random play (the degenerate 0-0 clock games)
    assert draws["estimates"][1][0] > draws["estimates"][0][0] and draws["verdict"] == "trending"
    assert (out / "0-random" / "games.parquet").exists() and (out / "1-greedy" / "games.parquet").exists()
    assert "no capture or kill" in r.output
    # side effects at each level: the cap rate and each end reason that happens at some level
    for m in ("cap_rate", "end_clock"):
        for (e, lo, hi), run in zip(data["metrics"][m]["estimates"], data["runs"]):
            key = "cap_rate" if m == "cap_rate" else None
            share = run[key] if key else run["end_reason_shares"]["clock"]
            assert e == share and lo <= e <= hi
    assert "end_stalemate" not in data["metrics"]          # it ends no game at either level
    assert "'clock' endings" in r.output and "cap rate" in r.output


def test_report_renders_ladder_skill_and_matchup_directories(tmp_path):
    run = CliRunner()
    dirs = []
    for args in (["ladder", "martian_chess", "--rungs", "random,greedy", "--games", "30"],
                 ["run", "martian_chess", "--games", "60", "--skill", "random,greedy"],
                 ["matchup", "martian_chess", "--policies", "random,greedy", "--games", "30"]):
        d = tmp_path / args[0]
        r = run.invoke(cli, args + ["--out", str(d), "--threads", "1"])
        assert r.exit_code == 0, r.output
        dirs.append(str(d))
    r = run.invoke(cli, ["report", *dirs, "-o", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    html = (tmp_path / "rep" / "index.html").read_text()
    assert "Skill ladder: Martian Chess: default" in html and "Over skill: Martian Chess: default" in html
    assert "Matchup:" in html
    for png in ("s1_ladder.png", "s2_skill_0.png", "s3_matchup.png"):
        assert (tmp_path / "rep" / png).stat().st_size > 1000
        assert png in html


def test_compare_skill_finds_the_clock_leader_length_reversal(tmp_path):
    # clock=leader shortens random games but lengthens greedy ones (greedy's 0-0 games at ply 21 now
    # play on): the verdict over skill must say "reversing" for length and flag it
    out = tmp_path / "cs"
    r = CliRunner().invoke(cli, ["compare", "martian_chess", "--set-b", "clock=leader", "--games", "300",
                                 "--skill", "random,greedy", "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "skill.json").read_text())
    length = data["metrics"]["mean_plies"]
    assert length["estimates"][0][2] < 0 < length["estimates"][1][1]
    assert length["verdict"] == "reversing" and "reverses:" in r.output
    assert (out / "0-random" / "compare.json").exists()
    # how games end, B - A at every level (the end reasons that end a game at every level)
    assert "cap_rate" in data["metrics"] and "end_clock" in data["metrics"]
    for lvl, run in zip(data["levels"], data["runs"]):
        e = data["metrics"]["end_clock"]["estimates"][data["levels"].index(lvl)]
        assert e[0] == run["side_effects"]["end_clock"]["diff"]


def test_values_skill_keeps_signs_per_level(tmp_path):
    out = tmp_path / "vs"
    r = CliRunner().invoke(cli, ["values", "martian_chess", "--games", "400", "--skill", "random,greedy",
                                 "--out", str(out), "--threads", "1", "--snapshot-ply", "10"])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "skill.json").read_text())
    keys = set(data["metrics"])
    assert {"regression_coef:pawn", "ablation:pawn", "ablation:drone", "ablation:queen"} <= keys
    for m in data["metrics"].values():
        assert len(m["estimates"]) == 2
        # a value estimated at one level only is marked there and gets no trend verdict
        assert m["verdict"] in ("stable", "converging", "trending", "reversing") if not m.get("missing") \
            else m["verdict"] == "too few levels"


def test_values_skill_reads_every_level_at_one_snapshot_ply_and_marks_what_it_cannot_estimate(tmp_path):
    # random's default snapshot is ply 16, greedy's ply 10: both levels must use the same ply (10), or
    # the trend over levels would mix skill with the moment of the game
    out = tmp_path / "vs"
    r = CliRunner().invoke(cli, ["values", "martian_chess", "--games", "2000", "--skill", "random,greedy",
                                 "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "skill.json").read_text())
    assert data["snapshot_ply"] == 10 and "random 16, greedy 10" in data["snapshot_ply_source"]
    for sub in ("0-random", "1-greedy"):
        assert json.loads((out / sub / "values.json").read_text())["snapshot_ply"] == 10
    assert "snapshot at ply 10 for every level" in r.output
    # greedy's queens differ in too few games for a coefficient: marked at that level, no trend claimed
    queen = data["metrics"]["regression_coef:queen"]
    assert queen["missing"] == {"greedy": "not estimated"} and queen["verdict"] == "too few levels"
    assert "not estimated" in r.output


def test_sweep_and_compare_flag_degenerate_cells(tmp_path):
    out = tmp_path / "sw"
    r = CliRunner().invoke(cli, ["sweep", "martian_chess", "--vary", "deadlock_plies=10,14", "--games", "300",
                                 "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    import pandas as pd
    t = pd.read_csv(out / "sweep.csv")
    # greedy Martian Chess: most games end without a single capture, in every cell
    assert t["degenerate"].str.contains("no_interaction").all()
    r = CliRunner().invoke(cli, ["compare", "martian_chess", "--set-b", "clock=leader", "--games", "300",
                                 "--no-save", "--threads", "1"])
    assert r.exit_code == 0, r.output
    assert "degenerate play (A)" in r.output


def test_pair_score_interval_stays_inside_the_score_range():
    from simkit.analysis.matchup import pair_score
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    c = pair_score(load_scenario("warfare"), RunConfig(games=10, policies=("greedy", "greedy")), "greedy", "random",
                   threads=1)
    assert c["score"] == 1.0 and c["ci"][1] == 1.0 and 0.0 <= c["ci"][0] < 1.0


def test_ladder_says_when_a_rung_loses_to_the_one_below(tmp_path):
    out = tmp_path / "lad"
    r = CliRunner().invoke(cli, ["ladder", "martian_chess", "--rungs", "greedy,random", "--games", "60",
                                 "--out", str(out), "--threads", "1", "--no-draw-diagnosis"])
    assert r.exit_code == 0, r.output
    step = json.loads((out / "ladder.json").read_text())["steps"][0]
    assert step["ci"][1] < 0.5 and step["gain"] == "loses to the rung below"
    assert "loses to the rung below" in r.output and "try a stronger policy" not in r.output


def test_skill_levels_that_are_not_a_skill_order_are_named(tmp_path):
    """greedy before random: the check plays them against each other and says plainly that the second level is
    the weaker one; the draw-dominated greedy level gets the draw diagnosis."""
    out = tmp_path / "sk"
    r = CliRunner().invoke(cli, ["run", "martian_chess", "--games", "160", "--skill", "greedy,random",
                                 "--out", str(out), "--threads", "1"])
    assert r.exit_code == 0, r.output
    data = json.loads((out / "skill.json").read_text())
    (o,) = data["order"]
    assert o["level"] == "random" and o["below"] == "greedy" and o["status"] == "weaker" and o["ci"][1] < 0.5
    assert "random is weaker than greedy here" in r.output and "not a skill order" in r.output
    dd = data["draw_diagnosis"]
    greedy = next(lv for lv in dd["levels"] if lv["level"] == "greedy")
    assert greedy["draw_rate"] == data["runs"][0]["draw_rate"] > 0.5     # the same games as the greedy level
    assert dd["verdict"] in ("game", "players") and "draw diagnosis" in r.output


def test_a_level_whose_games_are_all_drawn_gives_no_information_not_stable(tmp_path):
    """One ply and the cap: every game is a 0-0 draw at both levels, so neither level says anything about who is
    favoured: no balance verdict, never 'stable'."""
    r = CliRunner().invoke(cli, ["run", "martian_chess", "--set", "max_plies=1", "--games", "40", "--skill",
                                 "random,greedy", "--no-save", "--threads", "1", "--json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.output[r.output.index("{"):])
    for m in ("first_player_advantage", "side0_advantage"):
        assert data["metrics"][m]["verdict"] == "no information"
        assert set(data["metrics"][m]["missing"]) == {"random", "greedy"}


def test_draws_command_tells_draws_of_the_players_from_draws_of_the_game(tmp_path):
    """`simkit draws`: greedy self-play in Martian Chess is mostly drawn, a small search decides its games, so
    the draws belong to the weaker players; with a one-ply cap every game is drawn whoever plays, and a
    draw-averse search cannot avoid it: the draws belong to the game."""
    r = CliRunner().invoke(cli, ["draws", "martian_chess", "--levels", "greedy,mcts:50", "--games", "10",
                                 "--out", str(tmp_path / "d"), "--threads", "1"])
    assert r.exit_code == 0, r.output
    d = json.loads((tmp_path / "d" / "draws.json").read_text())
    greedy, search = d["levels"]
    assert greedy["draw_rate"] > 0.5 > search["draw_rate"]
    assert d["verdict"] == "players" and "stronger players decide the games" in d["finding"]
    assert "finding:" in r.output and json.loads((tmp_path / "d" / "manifest.json").read_text())["status"] == "complete"
    r = CliRunner().invoke(cli, ["draws", "martian_chess", "--set", "max_plies=1", "--levels", "greedy,mcts:20",
                                 "--games", "6", "--no-save", "--threads", "1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output[r.output.index("{"):])
    assert all(lv["draw_rate"] == 1.0 and lv["capped_rate"] == 1.0 for lv in d["levels"])
    assert d["contempt_probe"]["draw_rate"] == 1.0
    assert d["verdict"] == "game" and d["finding"].startswith("The draws belong to the game")


def test_policy_names_print_as_typed_not_as_emoji():
    """Rich turns ':100:' into an emoji; a finding such as 'against mcts:100: it scores' must print as written."""
    from simkit.cli.show import console
    c = console()
    with c.capture() as cap:
        c.print("mcts:400 converts games against mcts:100: it scores 0.600")
    assert "mcts:100: it scores" in cap.get()


def test_draw_diagnosis_names_capped_games_where_the_cap_decides_them():
    """Under Warfare!'s cap_result=material a game stopped at the cap is decided on material: what dominates is
    capped games, not draws, and the finding says so."""
    r = CliRunner().invoke(cli, ["draws", "warfare", "--set", "cap_result=material", "--set", "max_turns=4",
                                 "--levels", "greedy,mcts:8", "--games", "4", "--no-save", "--threads", "1", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output[r.output.index("{"):])
    top = d["levels"][-1]
    assert top["capped_rate"] == 1.0 and top["draw_rate"] < 0.5
    assert d["finding"].startswith("The capped games belong to")
