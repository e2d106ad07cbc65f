"""Reports and terminal output a person can trust at a glance (issue 16): labels that tell variants
apart, the game's length unit, no nan, option values as --set takes them, one number format per
kind, sharp readable figures, and findings that say each fact once and name the striking ones."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from conftest import invoke
from report_helpers import check_report, make_run, make_sweep

from simkit.report import fmt


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    base = tmp_path_factory.mktemp("polish")
    return (make_run(base / "a", games=200, sets=["max_plies=80"]),
            make_run(base / "b", games=200, sets=["max_plies=60", "field_promotion=false"]))


# ---- 5. one number format per kind, in one module ---------------------------------------------

def test_one_format_per_kind():
    assert fmt.rate(0.35412) == "35.4%" and fmt.rate(float("nan")) == fmt.MISSING
    assert fmt.advantage(0.02931) == "+0.0293" and fmt.count(20000) == "20,000"
    assert fmt.interval(0.343, 0.364, fmt.rate) == "[34.3%, 36.4%]"
    assert fmt.with_ci(0.354, 0.343, 0.364, fmt.rate) == "35.4% (95% CI [34.3%, 36.4%])"
    assert fmt.metric_diff("draw_rate", -0.254) == "-25.4 pp"
    assert fmt.metric_diff_ci("draw_rate", -0.26, -0.247) == "[-26.0, -24.7] pp"
    assert fmt.metric_value("first_player_advantage", 0.0069) == "+0.0069"
    assert fmt.metric_value("side0_win_rate", 0.5) == "50.0%"
    assert fmt.p_phrase(1e-9) == "p < 0.0001" and fmt.p_phrase(0.01667) == "p = 0.0167"


def test_terminal_and_html_share_the_formats():
    from simkit.cli import show
    assert show.pct(0.354) == fmt.rate(0.354)
    assert show.pct_ci(0.354, [0.343, 0.364]) == "35.4% [34.3%, 36.4%]"
    from simkit.report.html import table_html
    html = table_html(pd.DataFrame({"metric": ["draw_rate", "first_player_advantage"], "value": [0.354, 0.0293],
                                    "ci_lo": [0.343, 0.0238], "ci_hi": [0.364, 0.0348]}))
    assert "<td>35.4%</td>" in html and "<td>+0.0293</td>" in html and "<td>[" not in html


# ---- 4. option values as --set accepts them ---------------------------------------------------

@pytest.mark.parametrize("value", [True, False, 3, 0.5, -2.25, "leader", "two words", "true", [1, 2],
                                   ["hero", "knight"], {"cost": 4, "name": "x y"}])
def test_option_values_read_back_through_set(value):
    from simkit.scenario.load import parse_set
    assert parse_set(fmt.setting("k", value)) == ("k", value)
    assert "True" not in fmt.option_value(value) and "False" not in fmt.option_value(value)


def test_numpy_booleans_of_a_sweep_table_print_as_set_takes_them():
    col = pd.Series([True, False])
    assert [fmt.option_value(v) for v in col] == ["true", "false"]
    from simkit.report.html import table_html
    html = table_html(pd.DataFrame({"field_promotion": col, "games": [1000, 1000]}), options=("field_promotion",))
    assert "<td>true</td>" in html and "<td>false</td>" in html and "True" not in html
    assert "<td>1,000</td>" in html


# ---- 1. labels: game, variant with its overrides, policies, first player, seed, games ----------

def test_runs_of_different_set_never_share_a_label(two_runs):
    from simkit.report import data
    a, b = (data.load(p) for p in two_runs)
    assert a.label != b.label
    for run, over in ((a, "max_plies=80"), (b, "field_promotion=false")):
        assert run.label.startswith("Martian Chess: ") and over in run.label
        for part in ("random vs random", "first player alternate", "seed 0", "200 games"):
            assert part in run.label, run.label


def test_real_compare_and_sweep_reports_carry_every_label(runner, tmp_path):
    cmp, sw = tmp_path / "cmp", tmp_path / "sw"
    common = ["--policy", "random", "--games", 200]
    r = invoke(runner, ["compare", "martian_chess", "--set-b", "field_promotion=false", *common, "--out", cmp])
    assert r.exit_code == 0, r.output
    assert "Martian Chess: field_promotion=false" in r.output and "first player alternate" in r.output
    r = invoke(runner, ["sweep", "martian_chess", "--vary", "field_promotion=true,false", *common, "--out", sw])
    assert r.exit_code == 0, r.output
    assert "True" not in r.output and "False" not in r.output       # the sweep table's values
    assert re.search(r"\btrue\b", r.output) and re.search(r"\bfalse\b", r.output)
    assert "Sweep of Martian Chess: default over field_promotion" in r.output
    out = tmp_path / "rep"
    assert invoke(runner, ["report", cmp, sw, "-o", out]).exit_code == 0
    text = (out / "index.html").read_text()
    assert "Compare: Martian Chess: default vs Martian Chess: field_promotion=false" in text
    assert "Sweep of Martian Chess: default over field_promotion" in text
    assert text.count("random vs random · first player alternate · seed 0") >= 4   # titles and captions
    assert "200 games per cell" in text and "200 games each" in text
    assert "True" not in text and "False" not in text
    assert re.search(r"\bnan\b", text, re.I) is None
    assert (pd.read_csv(out / "s2_sweep.csv", dtype=str)["field_promotion"].tolist() == ["true", "false"])


# ---- 2. units from the game -------------------------------------------------------------------

def test_a_turn_based_games_sweep_says_turns(runner, tmp_path):
    sw = make_sweep(tmp_path / "sw", ["dispatch_points"], [[3, 4, 5]])
    t = pd.read_csv(sw / "sweep.csv")
    t["mean_plies"], t["mean_plies_ci_lo"], t["mean_plies_ci_hi"] = 40.0, 39.0, 41.0
    t.to_csv(sw / "sweep.csv", index=False)
    t.to_parquet(sw / "sweep.parquet")
    m = json.loads((sw / "manifest.json").read_text())
    m["game"] = "storm_the_castle"           # its GameSpec.length_unit is "turns"
    (sw / "manifest.json").write_text(json.dumps(m))
    out = tmp_path / "rep"
    assert invoke(runner, ["report", sw, "-o", out]).exit_code == 0
    text = (out / "index.html").read_text()
    assert "mean turns" in text and "mean_turns" in text and "plies" not in text
    assert "mean_turns" in pd.read_csv(out / "sweep.csv").columns
    assert re.search(r"Sweep of Storm the Castle: \S+ over dispatch_points", text)


def test_bench_table_says_each_games_unit(runner, monkeypatch):
    import simkit.bench
    rows = [{"game": g, "policy": "greedy", "threads": 1, "games": 10, "plies_per_s": 1000.0, "games_per_s": 5.0,
             "plies_per_cpu_s": 1100.0, "length_unit": u} for g, u in (("storm_the_castle", "turns"),
                                                                        ("skorm", "plies"))]
    monkeypatch.setattr(simkit.bench, "run_bench", lambda *a, **k: {"results": rows})
    r = invoke(runner, ["bench"])
    assert r.exit_code == 0, r.output
    storm = next(ln for ln in r.output.splitlines() if "storm_the_castle" in ln)
    skorm = next(ln for ln in r.output.splitlines() if "skorm" in ln)
    assert "turns/s" in storm and "plies" not in storm and "plies/s" in skorm


def test_compare_lengths_are_in_the_games_unit():
    from simkit.report.data import CompareData
    sa = {"game": "warfare", "length_unit": "turns", "games": 100, "mean_plies": 23.0}
    sb = dict(sa, mean_plies=25.0)
    cmp = CompareData(__import__("pathlib").Path("."), {}, {"a": sa, "b": sb, "differences": {
        "mean_plies": {"diff": 2.0, "ci": [1.0, 3.0], "p_value": 0.01}}}, None, None)
    assert list(cmp.differences()["metric"]) == ["mean_turns"]
    from simkit.report.findings import compare_findings
    assert compare_findings(cmp)[0].text.startswith("mean turns:")


# ---- 3. no nan where a person reads -----------------------------------------------------------

def test_missing_numbers_show_a_dash_and_say_why():
    from rich.console import Console
    from simkit.cli.show import frame_table
    idx = pd.MultiIndex.from_tuples([(0, "knight"), (0, "great_sword")], names=["side", "unit"])
    df = pd.DataFrame({"kills": [2.0, 0.0], "attacks": [7.3, float("nan")]}, index=idx)
    c = Console(width=200, record=True)
    c.print(frame_table(df, "per game"))
    out = c.export_text()
    assert "nan" not in out.lower() and fmt.MISSING in out
    assert "no 'attacks' count for great_sword" in out
    from simkit.report.html import table_html
    html = table_html(pd.DataFrame({"unit": ["knight", "great_sword"], "attacks": [7.3, float("nan")]}),
                      note="—: great_sword never attacks")
    assert "nan" not in html.lower() and "<td>—</td>" in html and "great_sword never attacks" in html


def test_run_report_has_no_nan(runner, two_runs, tmp_path):
    out = tmp_path / "rep"
    assert invoke(runner, ["report", *two_runs, "-o", out]).exit_code == 0
    text = (out / "index.html").read_text()
    assert re.search(r"\bnan\b", text, re.I) is None and "True" not in text
    assert "Martian Chess: max_plies=80" in text and "Martian Chess: max_plies=60, field_promotion=false" in text


# ---- 6. figures: sharp, text >= 10 px on the page, nothing clipped, per game, defaults ---------

def _fig():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=(7.5, 4), layout="constrained")


def _summary():
    s = {"games": 1000, "first_player_advantage": 0.02, "first_player_advantage_ci": [0.01, 0.03]}
    for k in ("first_player_win_rate", "second_player_win_rate", "draw_rate", "side0_win_rate", "side1_win_rate"):
        s[k], s[f"{k}_ci"] = 0.33, [0.3, 0.36]
    return s


def _plot_cases():
    from fractions import Fraction
    from simkit.report import plots
    t = pd.DataFrame({"k": [1, 2, 3], "m": [0.1, 0.2, 0.15], "m_ci_lo": [0.0, 0.1, 0.1], "m_ci_hi": [0.2, 0.3, 0.2]})
    t2 = pd.DataFrame({"x": [1, 1, 2, 2], "y": [5, 7, 5, 7], "m": [-0.1, 0.1, 0.0, 0.2],
                       "m_ci_lo": [-0.2, 0.05, -0.1, 0.1], "m_ci_hi": [0.0, 0.15, 0.1, 0.3]})
    units = pd.DataFrame([{"side": s, "unit": u, "stat": st, "mean": 1.0, "lo": 0.9, "hi": 1.1, "total": 10}
                          for s in (0, 1) for u in ("a", "b") for st in ("kills", "losses")])
    diffs = pd.DataFrame([{"metric": "draw_rate", "a": 0.3, "b": 0.2, "difference": -0.1, "ci_lo": -0.12,
                           "ci_hi": -0.08, "p_value": 0.001, "verdict": "matters"}])
    vals = pd.DataFrame({"method": ["ablation"] * 2, "unit": ["a", "b"], "value": [0.1, 0.2], "ci_lo": [0.0, 0.1],
                         "ci_hi": [0.2, 0.3]})
    return [(plots.outcomes, _summary()), (plots.fpa, [("x", 0.02, 0.01, 0.03)]),
            (plots.lengths, (np.arange(1, 60), "turns", 80)), (plots.end_reasons, {"won": 90, "move_limit": 10}),
            (plots.unit_stats, units), (plots.unit_values, vals), (plots.compare_differences, diffs),
            (plots.compare_rates, (("A", _summary()), ("B", _summary()))), (plots.sweep_lines, (t, "k", "m", 2)),
            (plots.sweep_heatmap, (t2, "x", "y", "m", {"x": 1, "y": 7})),
            (plots.target_2d6_dice, {m: Fraction(max(0, min(36, 6 + 3 * m)), 36) for m in range(-4, 9)}),
            (plots.opposed_d6_dice, {d: Fraction(1, 2) for d in range(-3, 4)}),
            (plots.cell_bars, (["a", "b"], [3, 4], "deaths"))]


def test_every_figures_text_is_at_least_10_px_on_the_page():
    from simkit.report import sections
    assert sections.MIN_FONT_PT * sections.DISPLAY_PPI / 72 >= 10
    import matplotlib.pyplot as plt
    for fn, data in _plot_cases():
        fig, ax = _fig()
        fn(data, ax)
        assert sections.small_texts(fig) == [], fn.__name__
        plt.close(fig)


@pytest.mark.parametrize("game", ["martian_chess", "skorm", "storm_the_castle", "warfare"])
def test_board_text_is_at_least_10_px_and_counts_per_game(game, tmp_path):
    import matplotlib.pyplot as plt
    from test_report_boards import _default
    from simkit.report import boards, sections
    _, rules, labels = _default(game)
    counts = np.linspace(0, 1234.0, len(labels)) / 200          # per game over 200 games
    fig, ax = plt.subplots(figsize=sections.board_size(game, len(labels)), layout="constrained")
    boards.draw(game, boards.BoardData(labels, counts, rules, "deaths per game"), ax)
    assert sections.small_texts(fig) == []
    shown = [t.get_text() for t in ax.texts]
    assert all(len(x) <= 4 for x in shown if re.fullmatch(r"[<\d.]+", x)), shown   # fits a cell or node
    plt.close(fig)


def test_storm_board_numbers_fit_their_shapes():
    import matplotlib.pyplot as plt
    from matplotlib.transforms import Affine2D
    from test_report_boards import _default
    from simkit.report import boards
    _, rules, labels = _default("storm_the_castle")
    counts = np.full(len(labels), 12.345)          # "12": the widest number a node shows at this scale
    counts[::3] = 0.345                           # "0.35": four characters
    fig, ax = plt.subplots(figsize=(8.5, 6.0), layout="constrained")
    boards.graph_board(boards.BoardData(labels, counts, rules, "deaths per game"), ax)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    numbers = [t for t in ax.texts if t.get_gid() == "node-number"]
    nodes = [c for c in ax.collections if len(c.get_offsets()) == 1]
    assert len(numbers) == len(nodes) == len(labels)
    px_per_pt = fig.dpi / 72
    for t, node in zip(numbers, nodes):
        cx, cy = ax.transData.transform(node.get_offsets()[0])
        side = np.sqrt(node.get_sizes()[0]) * px_per_pt
        path = node.get_paths()[0].transformed(Affine2D().scale(side).translate(cx, cy))
        e = t.get_window_extent(r)
        corners = [(e.x0, e.y0), (e.x1, e.y0), (e.x0, e.y1), (e.x1, e.y1)]
        assert path.contains_points(corners).all(), (t.get_text(), e, path.get_extents())
    plt.close(fig)


def test_saved_figures_are_2x_and_never_clip_a_label(tmp_path):
    from PIL import Image
    from simkit.report import plots, sections
    w = sections.Writer(tmp_path, "")
    sec = sections.Section("s", "t")
    # the compare FPA figure at its report size: two long labels, a long x label
    rows = [("Some Game: a_long_option_name=12, another_option=true", 0.01, -0.01, 0.03),
            ("Some Game: default", -0.02, -0.03, -0.01)]
    w.figure(sec, "fpa", plots.fpa, rows, "cap", size=(7.5, 2.4))
    fig_meta = sec.figures[0]
    with Image.open(tmp_path / "fpa.png") as im:
        width, height = im.size
    assert width >= 2 * fig_meta.width_px - 2          # >= 2 device pixels per CSS pixel
    # every text of the figure inside the saved box
    import matplotlib.pyplot as plt
    with plt.rc_context(sections.STYLE):
        fig, ax = plt.subplots(figsize=(7.5, 2.4), layout="constrained")
        plots.fpa(rows, ax)
        fig.canvas.draw()
        box = fig.get_tightbbox(fig.canvas.get_renderer()).padded(0.06)
        assert sections.clipped_texts(fig, box) == []
        plt.close(fig)
    assert round(height / width * fig_meta.width_px) <= round(box.height * sections.DISPLAY_PPI) + 2


def test_sweep_figures_mark_the_default(runner, tmp_path):
    import matplotlib.pyplot as plt
    from simkit.report import data, plots
    one = make_sweep(tmp_path / "sw1", ["deadlock_plies"], [[8, 14, 20]])
    sw = data.load(one)
    assert sw.default_setting == {"deadlock_plies": 14}       # scenarios/martian_chess/default.toml
    fig, ax = _fig()
    plots.sweep_lines((sw.table, "deadlock_plies", "first_player_advantage", 14), ax)
    marks = [ln for ln in ax.lines if ln.get_label().startswith("default")]
    assert marks and marks[0].get_xdata()[0] == 14 and "default 14" in ax.get_xlabel()
    plt.close(fig)
    two = make_sweep(tmp_path / "sw2", ["deadlock_plies", "clock_plies"], [[8, 14], [5, 7, 9]])
    fig, ax = _fig()
    sw2 = data.load(two)
    plots.sweep_heatmap((sw2.table, "deadlock_plies", "clock_plies", "first_player_advantage",
                         sw2.default_setting), ax)
    assert any(p.get_label() == "default" for p in ax.patches)
    plt.close(fig)
    out = tmp_path / "rep"
    assert invoke(runner, ["report", one, "-o", out]).exit_code == 0
    assert "the default deadlock_plies=14 marked" in (out / "index.html").read_text()


def test_board_counts_are_per_game(runner, two_runs, tmp_path):
    out = tmp_path / "rep"
    assert invoke(runner, ["report", two_runs[0], "-o", out]).exit_code == 0
    agg = pd.read_csv(out / "aggregate.csv")
    assert np.allclose(agg["per_game"], agg["count"] / 200)
    assert "per game on the board" in (out / "index.html").read_text()


# ---- 7. findings: each fact once, and the striking ones ---------------------------------------

def _run(game, summary, games=None):
    from simkit.report.data import RunData
    return RunData(__import__("pathlib").Path("."), {"scenario": {"game": game, "name": "default", "rules": {}}},
                   summary, games)


def _base_summary(n, ends, draws):
    s = _summary()
    s.update(games=n, end_reasons=ends, draw_rate=draws / n, draw_rate_ci=[draws / n - 0.01, draws / n + 0.01],
             first_player_win_rate=0.35, second_player_win_rate=0.3, side0_win_rate=0.33, side1_win_rate=0.32)
    return s


def test_a_draw_that_is_a_cap_is_said_once():
    from simkit.report.findings import run_findings
    run = _run("storm_the_castle", _base_summary(1000, {"keep_taken": 646, "move_limit": 354}, 354))
    said = [f.text for f in run_findings(run) if "35.4%" in f.text]
    assert len(said) == 1 and "drawn" in said[0] and "cap" in said[0], said


def test_an_ending_that_ends_most_games_is_named():
    from simkit.report.findings import run_findings
    ends = {"warlord_killed": 121, "gold_tile": 24, "gold_tile_immediate": 844, "move_limit": 11}
    fs = run_findings(_run("skorm", _base_summary(1000, ends, 11)))
    hit = [f for f in fs if "gold tile immediate" in f.text]
    assert hit and "84.4%" in hit[0].text and "844 of 1,000" in hit[0].text and hit[0].flag


def _warfare_games(n, wipe_cavalry: bool):
    from simkit.games import get_game
    spec = get_game("warfare").for_scenario({})
    g = pd.DataFrame({c.name: np.ones(n, dtype=np.int64) for c in (*spec.unit_columns(), *spec.side_columns())})
    g["plies"] = 20
    if wipe_cavalry:
        for side in (0, 1):
            g[f"final_{side}_cavalry"] = 0
    return g


def test_a_unit_that_dies_in_every_game_is_named():
    from simkit.report.findings import run_findings
    s = _base_summary(50, {"annihilation": 50}, 0)
    fs = run_findings(_run("warfare", s, _warfare_games(50, True)))
    hit = [f for f in fs if "cavalry" in f.text and "dies" in f.text]
    assert hit and "all 50 games" in hit[0].text and hit[0].flag
    assert not any("dies" in f.text for f in run_findings(_run("warfare", s, _warfare_games(50, False))))


def test_a_rule_that_never_fires_is_named():
    from simkit.report.findings import run_findings
    g = _warfare_games(40, False)
    g["advances_0"] = g["advances_1"] = 0
    fs = run_findings(_run("warfare", _base_summary(40, {"annihilation": 40}, 0), g))
    hit = [f for f in fs if "'advances' never happens" in f.text]
    assert hit and "all 40 games" in hit[0].text and hit[0].flag
    g = pd.concat([g] * 10, ignore_index=True)
    g.loc[7, "advances_1"] = 3                       # fired in 1 of 400 games: almost never
    fs = run_findings(_run("warfare", _base_summary(400, {"annihilation": 400}, 0), g))
    assert any("'advances' almost never happens: 3 times in all, in 1 of 400 games (0.25%)" in f.text for f in fs)


def test_report_code_names_no_game():
    """Findings, sections, figures and formats are generic: what they say comes from the data and the
    GameSpec, never from a game's name, units or endings written into the report code."""
    from pathlib import Path
    from simkit.games import all_games
    words = set()
    for g in all_games():
        spec = g
        words |= {g.name, g.title.lower(), *g.unit_types, *(e for e in g.end_reasons if e not in g.cap_reasons)}
        words |= {c.stat for c in spec.side_columns()} - {"points"}     # typography's and percentage points
    root = Path(__file__).resolve().parents[1] / "simkit" / "report"
    for name in ("findings.py", "sections.py", "plots.py", "html.py", "data.py", "fmt.py"):
        text = (root / name).read_text().lower()
        found = sorted(w for w in words if re.search(rf"\b{re.escape(w.lower())}\b", text))
        assert not found, (name, found)


def test_the_committed_reports_show_no_nan_and_no_python_booleans():
    from pathlib import Path
    from simkit.report.examples import committed_reports
    for index in committed_reports(Path(__file__).resolve().parents[1]):
        text = index.read_text(encoding="utf-8")
        assert re.search(r"\bnan\b", text, re.I) is None, index
        assert re.search(r">(True|False)<|=(True|False)\b", text) is None, index
        check_report(index)


def test_difference_labels_stay_inside_their_axes():
    import matplotlib.pyplot as plt
    from simkit.report import plots
    diffs = pd.DataFrame([{"metric": m, "a": 0.3, "b": 0.3 + d, "difference": d, "ci_lo": d - 0.006,
                           "ci_hi": d + 0.006, "p_value": 1e-9, "verdict": "matters"}
                          for m, d in (("draw_rate", -0.254), ("side0_win_rate", 0.122),
                                       ("first_player_advantage", -0.0068))])
    fig, ax = plt.subplots(figsize=(7.5, 2.6), layout="constrained")
    plots.compare_differences(diffs, ax)
    fig.canvas.draw()
    box = ax.get_window_extent()
    for t in ax.texts:
        e = t.get_window_extent()
        assert box.x0 <= e.x0 and e.x1 <= box.x1, t.get_text()
    assert "-25.4 pp  p<0.0001" in [t.get_text() for t in ax.texts]
    plt.close(fig)


def test_bench_cells_name_search_budgets_and_rates_keep_their_digits():
    from simkit.bench import _cells, rate_text
    from simkit.games import get_game
    spec = get_game("martian_chess")
    assert _cells(spec, (400, 1600), None) == ["random", "greedy", "mcts:400", "mcts:1600"]
    assert _cells(spec, (400, 1600), ("mcts:400",)) == ["mcts:400"]         # a budget by name (issue 24)
    assert _cells(spec, (400, 1600), ("mcts",)) == ["mcts:400", "mcts:1600"]
    assert _cells(spec, (400,), ("mcts:100",)) == ["mcts:100"]
    assert [rate_text(x) for x in (258794.2, 31.46, 1.0, 1.2, 0.4831)] == ["258,794", "31.5", "1.00", "1.20", "0.483"]


def test_bench_plays_a_policys_own_knobs(monkeypatch):
    """`simkit bench --policy mcts:400/mcts_reuse=true` measures the knob it names (it measured plain mcts:400)."""
    import simkit.bench as bench
    from simkit.policies import MC_REUSE
    rows = []

    def fake(spec, params, pvec, n, seed):
        rows.append(np.asarray(params[spec.knobs_slot])[:, MC_REUSE].tolist())
        return 1.0, 1.0, 10

    monkeypatch.setattr(bench, "_measure", fake)
    monkeypatch.setattr(bench, "_iterations_per_s", lambda *a: None)
    bench.run_bench(["warfare"], policies=("mcts:4", "mcts:4/mcts_reuse=true"), thread_counts=(1,), repeats=1)
    assert rows[0] == [0.0, 0.0] and rows[-1] == [1.0, 1.0]


def test_bench_counts_search_iterations_with_the_policys_own_knobs(monkeypatch):
    """The iterations row searches with the policy's knobs (it searched plain mcts whatever was named), and
    an early-stopping search has none: it does not run its budget, so budget x searches would overstate it."""
    import simkit.bench as bench
    from simkit import env
    from simkit.games import get_game
    seen = []
    real = env.new_game_from

    def spy(scenario, *a, policies=None, **k):
        seen.append(policies)
        return real(scenario, *a, policies=policies, **k)

    monkeypatch.setattr(env, "new_game_from", spy)
    spec = get_game("martian_chess")
    assert bench._iterations_per_s(spec, "mcts:8/mcts_c=0.25", 0.05) > 0
    assert seen and set(seen) == {("mcts:8/mcts_c=0.25", "mcts:8/mcts_c=0.25")}
    assert bench._iterations_per_s(spec, "mcts:8/mcts_stop=true", 0.05) is None


def test_bench_plays_the_evaluation_a_run_would(monkeypatch, tmp_path):
    """With learned weights stored for the default scenario, a run plays them (--eval auto): so does bench, and
    its rows say so (it measured the hand-set weights whatever was stored)."""
    import simkit.bench as bench
    from simkit.games import get_game
    from simkit.scenario import load_scenario
    from simkit.scenario.evaluation import save_learned
    spec = get_game("martian_chess")
    rows = []

    def fake(spec, params, pvec, n, seed):
        rows.append(np.asarray(params[spec.eval_slot])[:, :len(spec.eval_features)].tolist())
        return 1.0, 1.0, 10

    monkeypatch.setattr(bench, "_measure", fake)
    monkeypatch.setenv("SIMKIT_EVALUATIONS", str(tmp_path / "store"))
    hand = bench.run_bench(["martian_chess"], policies=("greedy",), thread_counts=(1,), repeats=1)["results"][0]
    weights = [2.0, -0.5, -0.25, 0.125]
    save_learned(spec, load_scenario("martian_chess").rules,
                 {"features": list(spec.eval_features), "weights": weights, "games": 100,
                  "logloss_learned": 0.6, "logloss_default": 0.65})
    rows.clear()
    learned = bench.run_bench(["martian_chess"], policies=("greedy",), thread_counts=(1,), repeats=1)["results"][0]
    assert hand["evaluation"].startswith("default") and learned["evaluation"].startswith("learned")
    assert rows[-1] == [weights, weights]
