"""compare/sweep --quality: quality metrics compared between variants on common random numbers.

Small budgets (Martian Chess, greedy, 30-40 trajectory games): the first use compiles the
game's kernels once."""
import json
import math

import numpy as np
import pytest
from conftest import invoke
from report_helpers import check_report

from simkit.analysis.quality import PER_GAME
from simkit.analysis.quality_compare import RANGE, difference, quality_compare
from simkit.engine.runner import RunConfig
from simkit.scenario import load_scenario

CFG = RunConfig(games=40, seed=3, policies=("greedy", "greedy"))


# ---- the difference of one metric, on hand-made per-game values --------------------------------

def test_per_game_metric_is_the_paired_t_on_the_differences():
    from scipy import stats as st
    xa = np.array([0.2, 0.5, 0.4, 0.9, 0.3])
    xb = np.array([0.3, 0.5, 0.7, 0.8, 0.6])
    d = difference("uncertainty", xa, xb)
    assert d["diff"] == pytest.approx(np.mean(xb - xa)) and d["method"] == "paired t"
    assert d["p_value"] == pytest.approx(st.ttest_rel(xb, xa).pvalue)
    assert d["ci"][0] < d["diff"] < d["ci"][1]


def test_ratio_metric_is_the_difference_of_the_means_over_defining_games():
    # drama over decided games: A decides games 0, 1, 3; B decides 0, 2, 3, 4 (NaN: drawn)
    xa = np.array([0.1, 0.4, np.nan, 0.7, np.nan])
    xb = np.array([0.2, np.nan, 0.5, 0.6, 0.3])
    d = difference("drama", xa, xb)
    assert d["diff"] == pytest.approx((0.2 + 0.5 + 0.6 + 0.3) / 4 - (0.1 + 0.4 + 0.7) / 3)
    assert "bootstrap" in d["method"]
    assert d["ci"][0] <= d["diff"] <= d["ci"][1] and d["ci"][1] > d["ci"][0]
    assert 0 < d["p_value"] <= 1
    # the same seed gives the same interval (a result directory is reproducible)
    assert difference("drama", xa, xb)["ci"] == d["ci"]


def test_a_clear_ratio_shift_is_significant_with_its_sign():
    rng = np.random.default_rng(1)
    xa = rng.uniform(0.1, 0.4, 60)
    xb = xa + 0.3
    xa[::7] = np.nan            # some draws in A only
    d = difference("doubt_share", xa, xb)
    assert d["ci"][0] > 0.2 and d["p_value"] < 0.01


@pytest.mark.parametrize("metric", ["drama", "stability", "branching_trend"])
def test_equal_values_give_a_zero_difference_with_the_rule_of_three_floor(metric):
    x = np.array([0.25, np.nan, 0.5, 0.125, 2.0, 0.75, np.nan, 0.5])
    if metric == "stability":
        x = np.nan_to_num(x, nan=1.0)           # per-game metrics are defined in every game
    d = difference(metric, x, x.copy())
    n = int(np.isfinite(x).sum())
    span = RANGE.get(metric, max(np.nanmax(np.abs(x)), 1.0))
    assert d["diff"] == 0.0 and d["p_value"] == 1.0
    assert d["ci"] == pytest.approx([-3 * span / n, 3 * span / n])
    assert "rule of three" in d["method"]


def test_a_count_gets_the_score_interval_on_the_integers():
    """Lead changes are whole numbers: B - A per game is an integer (support: the range seen and one
    step beyond on each side), where the score interval keeps its coverage when few games change (a t interval
    does not)."""
    x = np.array([3.0, 0, 5, 1, 2, 4, 0, 1] * 5)
    same = difference("lead_changes", x, x.copy())
    assert same["diff"] == 0.0 and same["p_value"] == 1.0 and same["ci"][0] < 0 < same["ci"][1]
    assert same["method"] == "score interval on the integers -2..2"
    assert difference("lead_changes", x, x + 2 * (np.arange(40) == 3))["method"] == \
        "score interval on the integers -2..3"
    y = x.copy()
    y[0] += 1                                   # one game of 40 changes by one lead change
    d = difference("lead_changes", x, y)
    assert d["diff"] == pytest.approx(1 / 40) and d["ci"][0] < 0 < d["ci"][1]
    from simkit.analysis.stats import paired_mean
    t = paired_mean(1.0, 1.0, 40)
    assert d["ci"][1] > t["ci"][1]              # wider than the t interval where t undercovers


# ---- the analysis on real games ------------------------------------------------------------------

def test_a_variant_against_itself_differs_by_exactly_zero_never_a_zero_width_interval():
    a = load_scenario("martian_chess", [])
    res = quality_compare(a, a, CFG, 30)
    assert res.identical_games
    for m in PER_GAME:
        d = res.diffs[m]
        if res.a[m]["games"] == 0:
            continue
        assert d["diff"] == 0.0, m
        lo, hi = d["ci"]
        assert lo < 0 < hi and hi - lo > 0, (m, d)
        assert d["p_value"] == 1.0 and d["p_holm"] == 1.0 and not d["significant"]
        assert res.a[m]["mean"] == res.b[m]["mean"]


def test_a_short_cap_is_detected_with_the_right_sign():
    # an 8-ply cap: a game has at most 8 points at which the lead can change, and Martian Chess's
    # branching grows over the game (A's trend is positive, checked), so cut-short games branch less
    a = load_scenario("martian_chess", [])
    b = load_scenario("martian_chess", ["max_plies=8"])
    res = quality_compare(a, b, CFG, 40)
    assert res.a["branching_trend"]["mean"] > 0
    lc, br = res.diffs["lead_changes"], res.diffs["branching"]
    assert lc["diff"] < 0 and lc["ci"][1] < 0 and lc["significant"]
    assert br["diff"] < 0 and br["ci"][1] < 0 and br["significant"]
    assert all((res.per_game_b["length"] <= 8).tolist())
    # the paired difference is exactly the difference of the two variants' means
    for m in PER_GAME:
        if res.a[m]["mean"] is not None and res.b[m]["mean"] is not None:
            assert res.diffs[m]["diff"] == pytest.approx(res.b[m]["mean"] - res.a[m]["mean"])


def test_sweep_quality_has_one_row_per_cell_with_its_interval(tmp_path):
    from simkit.analysis.sweep import sweep
    res = sweep("martian_chess", ["max_plies"], [(8,), (30,), (400,)], RunConfig(games=60, seed=1, policies=(
        "greedy", "greedy")), out_dir=tmp_path / "sw", progress=False, quality_games=30)
    assert len(res.rows) == 3
    for r in res.rows:
        for m in PER_GAME:
            v, lo, hi = r[f"quality_{m}"], r[f"quality_{m}_ci_lo"], r[f"quality_{m}_ci_hi"]
            if not math.isnan(v):
                assert lo <= v <= hi and hi > lo, (r["max_plies"], m, lo, v, hi)
    # common random numbers across cells: the 8-ply cell has fewer lead changes than the uncapped one
    assert res.rows[0]["quality_lead_changes"] < res.rows[2]["quality_lead_changes"]
    import pandas as pd
    long = pd.read_csv(tmp_path / "sw" / "sweep_quality.csv")
    assert len(long) == 3 * len(PER_GAME) and set(long["max_plies"]) == {8, 30, 400}
    q = json.loads((tmp_path / "sw" / "sweep_quality.json").read_text())
    assert q["defaults"] == {"max_plies": 400} and q["games"] == 30 and q["length_unit"] == "plies"
    assert "quality_drama_ci_lo" in pd.read_csv(tmp_path / "sw" / "sweep.csv").columns


# ---- the CLI writes the files and the report renders them -------------------------------------------

def test_compare_quality_cli_files_and_report(runner, tmp_path):
    out = tmp_path / "cmp"
    r = invoke(runner, ["compare", "martian_chess", "--set-b", "max_plies=10", "--policy", "greedy", "--games", 100,
                        "--seed", 3, "--quality", "--quality-games", 30, "--out", out, "--threads", 1])
    assert r.exit_code == 0, r.output
    assert "Game quality, B - A" in r.output and "max_plies=10" in r.output
    for f in ("compare.json", "compare_quality.json", "compare_quality.csv", "quality_games.csv"):
        assert (out / f).is_file(), f
    q = json.loads((out / "compare_quality.json").read_text())
    assert q["overrides"] == {"a": {}, "b": {"max_plies": 10}} and q["games"] == 30 and q["first"] == "alternate"
    rep = tmp_path / "rep"
    assert invoke(runner, ["report", out, "-o", rep]).exit_code == 0
    pngs = check_report(rep / "index.html")
    assert {"quality_differences.png", "quality_differences_counts.png", "differences.png"} <= set(pngs)
    text = (rep / "index.html").read_text()
    assert "Game quality: Martian Chess" in text and "max_plies=10" in text and "greedy vs greedy" in text
    assert "seed 3" in text and "30 trajectory games per variant" in text
    import pandas as pd
    assert len(pd.read_csv(rep / "quality_compare.csv")) == len(PER_GAME)


def test_sweep_quality_cli_and_report_mark_the_default(runner, tmp_path):
    out = tmp_path / "sw"
    r = invoke(runner, ["sweep", "martian_chess", "--vary", "max_plies=10,400", "--policy", "greedy", "--games", 60,
                        "--quality", "--quality-games", 30, "--out", out, "--threads", 1])
    assert r.exit_code == 0, r.output
    assert "game quality per cell" in r.output and "max_plies=400 (default)" in r.output
    rep = tmp_path / "rep"
    assert invoke(runner, ["report", out, "-o", rep]).exit_code == 0
    pngs = check_report(rep / "index.html")
    assert {"quality_sweep.png", "quality_sweep_counts.png"} <= set(pngs)
    text = (rep / "index.html").read_text()
    assert "Game quality: Martian Chess" in text and "max_plies=400" in text and "30 trajectory games per cell" in text
    import pandas as pd
    table = pd.read_csv(rep / "quality_sweep.csv")
    assert len(table) == 2 and "400 (default)" in set(table["max_plies"].astype(str))


def test_quality_with_skill_is_refused(runner):
    r = runner.invoke(__import__("simkit.cli", fromlist=["cli"]).cli,
                      ["compare", "martian_chess", "--set-b", "max_plies=10", "--skill", "random,greedy",
                       "--quality", "--no-save"])
    assert r.exit_code != 0 and "--quality" in r.output


def test_a_variant_without_decided_games_leaves_winner_metrics_undefined_not_nan(tmp_path):
    # a 1-ply cap: nobody scores in one ply, so every game is drawn at the cap (no winner)
    a = load_scenario("martian_chess", [])
    b = load_scenario("martian_chess", ["max_plies=1"])
    res = quality_compare(a, b, CFG, 20, out_dir=tmp_path)
    assert (res.per_game_b["winner"] == -1).all()
    s = res.summary()
    json.dumps(s, allow_nan=False)                  # strict JSON: undefined is null, never NaN
    for m in ("drama", "doubt_share"):
        assert s["b"][m]["mean"] is None and s["differences"][m]["diff"] is None
    assert s["differences"]["uncertainty"]["diff"] is not None
    from simkit.report.quality_sections import compare_quality_section
    from simkit.report.sections import Writer

    class Cmp:
        path = tmp_path
    (tmp_path / "rep").mkdir()
    sec = compare_quality_section(Cmp(), Writer(tmp_path / "rep", ""), "q")
    assert sec.figures and not any("nan" in f.text.lower() for f in sec.findings)
    from simkit.report.html import table_html
    shown = table_html(sec.tables[0].frame)
    assert ">nan<" not in shown.lower() and ">None<" not in shown
