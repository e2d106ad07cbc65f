"""`simkit report`: files, valid PNGs, self-contained HTML, compare/sweep/values, escaping."""
import json
import shutil

import pytest
from conftest import invoke
from report_helpers import check_report, make_compare, make_run, make_sweep, make_values


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("runs")
    a = make_run(base / "a", games=400)
    b = make_run(base / "b", games=400, sets=["clock=off", "max_plies=60"])
    return a, b


def test_run_report_files_and_figures(runner, runs, tmp_path):
    out = tmp_path / "rep"
    r = invoke(runner, ["report", runs[0], "-o", out])
    assert r.exit_code == 0, r.output
    index = out / "index.html"
    pngs = check_report(index)
    for key in ("outcomes", "fpa", "lengths", "ends", "units", "board"):
        assert f"{key}.png" in pngs
    for csv in ("summary.csv", "units.csv", "end_reasons.csv", "lengths.csv", "aggregate.csv"):
        assert (out / csv).is_file() and (out / csv).read_text().count("\n") >= 2
    text = index.read_text()
    assert "Findings" in text and "95% CI" in text and "Figure 1" in text
    # the length histogram table sums to the number of games
    import pandas as pd
    assert pd.read_csv(out / "lengths.csv")["games"].sum() == 400


def test_default_out_dir_is_under_runs_not_the_committed_examples(runner, runs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = invoke(runner, ["report", runs[0]])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "runs" / "reports" / runs[0].name / "index.html").is_file()
    assert not (tmp_path / "reports").exists()


def test_multiple_runs_get_an_overview(runner, runs, tmp_path):
    out = tmp_path / "rep"
    assert invoke(runner, ["report", runs[0], runs[1], "-o", out]).exit_code == 0
    pngs = check_report(out / "index.html")
    assert "fpa_all.png" in pngs and "s1_outcomes.png" in pngs and "s2_outcomes.png" in pngs
    assert "Key findings" in (out / "index.html").read_text()


def test_capped_games_are_flagged(runs):
    from simkit.report import data, findings
    run = data.load(runs[1])      # clock off, 60-ply cap: most random games hit the cap
    fs = findings.run_findings(run)
    capped = [f for f in fs if "cap" in f.text and "move_limit" in f.text]
    share = run.summary["end_reasons"]["move_limit"] / run.summary["games"]
    assert share > 0.5 and capped and capped[0].flag and "degenerate" in capped[0].text


def test_unused_unit_type_is_flagged(runs, tmp_path):
    import pyarrow.parquet as pq
    from simkit.report import data, findings
    run = data.load(runs[0])
    # zero every queen kill/loss column: the queen becomes an unused unit type
    for col in run.games.columns:
        if col.endswith("_queen") and col.startswith(("kills", "losses")):
            run.games[col] = 0
    fs = findings.run_findings(run)
    assert any(f.flag and "'queen' is unused" in f.text for f in fs)
    assert not any("'pawn' is unused" in f.text for f in fs)
    assert pq.read_schema(runs[0] / "games.parquet")  # the run itself is untouched


def test_compare_report(runner, runs, tmp_path):
    cmp = make_compare(tmp_path / "cmp", runs[0], runs[1])
    out = tmp_path / "rep"
    assert invoke(runner, ["report", cmp, "-o", out]).exit_code == 0
    pngs = check_report(out / "index.html")
    assert {"rates.png", "differences.png", "fpa.png"} <= set(pngs)
    assert "differences_length.png" in pngs      # mean plies on its own scale
    text = (out / "index.html").read_text()
    assert "B differs from A (test)" in text and "minus" in text


def test_sweep_reports_lines_and_heatmaps(runner, tmp_path):
    one = make_sweep(tmp_path / "sw1", ["deadlock_plies"], [[8, 14, 20]])
    two = make_sweep(tmp_path / "sw2", ["deadlock_plies", "clock_plies"], [[8, 14], [5, 7, 9]])
    out = tmp_path / "rep"
    assert invoke(runner, ["report", one, two, "-o", out]).exit_code == 0
    pngs = check_report(out / "index.html")
    assert "s1_sweep_first_player_advantage.png" in pngs and "s2_sweep_first_player_advantage.png" in pngs
    from simkit.report import data
    sw = data.load(two)
    assert sw.params == ["deadlock_plies", "clock_plies"] and sw.metrics()[0] == "first_player_advantage"


def test_sweep_plots_draw_their_kind():
    import matplotlib.pyplot as plt
    import pandas as pd
    from simkit.report import plots
    t = pd.DataFrame({"k": [1, 2, 3], "m": [0.1, 0.2, 0.15], "m_ci_lo": [0.0, 0.1, 0.1], "m_ci_hi": [0.2, 0.3, 0.2]})
    fig, ax = plt.subplots()
    assert plots.sweep_lines((t, "k", "m"), ax) is ax
    assert len(ax.lines) >= 1 and len(ax.collections) >= 1        # the line and its band
    plt.close(fig)
    t2 = pd.DataFrame({"x": [1, 1, 2, 2], "y": [5, 7, 5, 7], "m": [-0.1, 0.1, 0.0, 0.2],
                       "m_ci_lo": [-0.2, 0.05, -0.1, 0.1], "m_ci_hi": [0.0, 0.15, 0.1, 0.3]})
    fig, ax = plt.subplots()
    plots.sweep_heatmap((t2, "x", "y", "m"), ax)
    assert ax.images and ax.images[0].get_array().shape == (2, 2)
    plt.close(fig)


def test_values_report(runner, tmp_path):
    v = make_values(tmp_path / "val")
    out = tmp_path / "rep"
    assert invoke(runner, ["report", v, "-o", out]).exit_code == 0
    pngs = check_report(out / "index.html")
    assert "values.png" in pngs and "values_1.png" in pngs      # one figure per method
    assert "queen +0.0600 (95% CI [+0.0500, +0.0700])" in (out / "index.html").read_text()   # fmt.py formats


def test_scenario_names_are_escaped(runner, runs, tmp_path):
    run = tmp_path / "evil"
    shutil.copytree(runs[0], run)
    m = json.loads((run / "manifest.json").read_text())
    m["scenario"]["name"] = "<script>alert(1)</script>"
    m["scenario"]["description"] = "<img src=x onerror=alert(2)>"
    m["scenario"]["rules"]["<b>key</b>"] = "<i>v</i>"
    (run / "manifest.json").write_text(json.dumps(m))
    out = tmp_path / "rep"
    assert invoke(runner, ["report", run, "-o", out, "--title", "<u>t</u>"]).exit_code == 0
    text = (out / "index.html").read_text()
    assert "<script>" not in text and "<img src=x" not in text and "<b>key" not in text and "<u>" not in text
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    check_report(out / "index.html")


def test_bad_directories_are_one_line_errors(runner, tmp_path):
    r = invoke(runner, ["report", tmp_path / "missing"])
    assert r.exit_code == 2 and "not a directory" in r.output
    (tmp_path / "empty").mkdir()
    r = invoke(runner, ["report", tmp_path / "empty"])
    assert r.exit_code == 2 and "is not a run, compare, sweep, values" in r.output
    r = invoke(runner, ["report", "--help"])
    assert "Example" in r.output


def test_interrupted_run_without_games_parquet_still_reports(runner, runs, tmp_path):
    run = tmp_path / "partial"
    shutil.copytree(runs[0], run)
    (run / "games.parquet").unlink()
    (run / "aggregate.csv").unlink()
    out = tmp_path / "rep"
    assert invoke(runner, ["report", run, "-o", out]).exit_code == 0
    pngs = check_report(out / "index.html")
    assert "outcomes.png" in pngs and "lengths.png" not in pngs


def test_examples_module_writes_a_report(tmp_path, capsys):
    from simkit.report.examples import main
    assert main(["martian_chess", "--games", "300", "--runs", str(tmp_path / "runs"),
                 "--reports", str(tmp_path / "reports")]) == 0
    check_report(tmp_path / "reports" / "martian_chess" / "index.html")
    assert "martian_chess: " in capsys.readouterr().out


def test_committed_example_reports_are_self_contained_and_small():
    from pathlib import Path
    from simkit.report.examples import committed_reports
    indexes = committed_reports(Path(__file__).resolve().parents[1])
    assert len(indexes) >= 20       # the examples under reports/ (make reports)
    for index in indexes:
        check_report(index)
        assert sum(p.stat().st_size for p in index.parent.iterdir()) < 2_000_000, index


def test_committed_reports_are_what_git_tracks_not_the_demo_output(tmp_path):
    """`make demo` writes the git-ignored reports/demo/ (2 MB+): the committed-example tests must not
    pick it up, or `make demo && make test` fails on a fresh clone."""
    import subprocess
    from simkit.report.examples import committed_reports
    for name in ("kept", "demo"):
        (tmp_path / "reports" / name).mkdir(parents=True)
        (tmp_path / "reports" / name / "index.html").write_text("<html></html>")
    (tmp_path / ".gitignore").write_text("reports/demo/\n")
    git = ["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "x"], check=True)
    assert committed_reports(tmp_path) == [tmp_path / "reports" / "kept" / "index.html"]


def test_report_of_real_compare_sweep_and_values_directories(runner, tmp_path):
    """The directories the real `simkit compare/sweep/values` write, not fixtures."""
    cmp, sw, val = tmp_path / "cmp", tmp_path / "sw", tmp_path / "val"
    common = ["--policy", "random", "--games", 300]
    assert invoke(runner, ["compare", "martian_chess", "--set-b", "clock=leader", *common, "--out", cmp]).exit_code == 0
    assert invoke(runner, ["sweep", "martian_chess", "--vary", "deadlock_plies=10,14", "--vary",
                           "field_promotion=true,false", *common, "--out", sw]).exit_code == 0
    assert invoke(runner, ["values", "martian_chess", *common, "--out", val]).exit_code == 0
    out = tmp_path / "rep"
    r = invoke(runner, ["report", cmp, sw, val, "-o", out])
    assert r.exit_code == 0, r.output
    pngs = set(check_report(out / "index.html"))
    assert {"s1_rates.png", "s1_differences.png", "s2_sweep_first_player_advantage.png", "s3_values.png"} <= pngs
    # side effects: how games end, B - A (compare), and per cell (sweep)
    assert {"s1_side_effects.png", "s2_sweep_ends.png"} <= pngs
    assert (out / "s1_side_effects.csv").exists()
    from simkit.report import data
    s = data.load(sw)
    assert s.params == ["deadlock_plies", "field_promotion"]
    d = data.load(cmp).differences()
    assert "first_player_advantage" in set(d["metric"]) and d["ci_lo"].notna().all()


def test_a_game_this_checkout_does_not_know_still_reports(runner, runs, tmp_path):
    run = tmp_path / "newgame"
    shutil.copytree(runs[0], run)
    m = json.loads((run / "manifest.json").read_text())
    m["scenario"]["game"] = "brand_new_game"
    (run / "manifest.json").write_text(json.dumps(m))
    s = json.loads((run / "summary.json").read_text())
    s["game"] = "brand_new_game"
    (run / "summary.json").write_text(json.dumps(s))
    out = tmp_path / "rep"
    assert invoke(runner, ["report", run, "-o", out]).exit_code == 0
    assert "board.png" in check_report(out / "index.html")
    assert "brand_new_game" in (out / "index.html").read_text()
