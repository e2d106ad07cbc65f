"""The CLI contract, through click's CliRunner (and one real subprocess)."""
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from conftest import invoke

SUMMARY_KEYS = {"games", "first_player_win_rate", "second_player_win_rate", "draw_rate", "side0_win_rate",
                "side1_win_rate", "first_player_advantage", "first_player_advantage_ci", "mean_plies",
                "end_reasons"}


def test_games_and_rules(runner):
    r = invoke(runner, ["games", "--json"])
    rows = json.loads(r.output)
    mc = next(g for g in rows if g["name"] == "martian_chess")
    assert mc["unit_types"] == ["pawn", "drone", "queen"]
    r = invoke(runner, ["rules", "martian_chess", "--json"])
    keys = {o["key"]: o for o in json.loads(r.output)}
    assert keys["clock"]["default"] == "deadlock" and "leader" in keys["clock"]["allowed"]
    assert keys["max_plies"]["default"] == 400


def test_run_json_and_run_directory(runner, tmp_path):
    out = tmp_path / "run"
    r = invoke(runner, ["run", "martian_chess", "--games", 300, "--policy", "random", "--seed", 3,
                        "--out", out, "--json"])
    assert r.exit_code == 0, r.output
    s = json.loads(r.output)
    assert SUMMARY_KEYS <= set(s)
    assert s["games"] == 300
    assert abs(s["first_player_win_rate"] + s["second_player_win_rate"] + s["draw_rate"] - 1) < 1e-12
    assert abs(s["side0_win_rate"] + s["side1_win_rate"] + s["draw_rate"] - 1) < 1e-12
    lo, hi = s["first_player_advantage_ci"]
    assert lo <= s["first_player_advantage"] <= hi
    assert sum(s["end_reasons"].values()) == 300
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["status"] == "complete"
    assert manifest["config"]["seed"] == 3 and manifest["config"]["policies"] == ["random", "random"]
    assert manifest["scenario"]["rules"]["clock"] == "deadlock"
    assert {"simkit", "numba"} <= set(manifest["versions"])
    games = pq.read_table(out / "games.parquet").to_pandas()
    assert len(games) == 300 and list(games["game"]) == list(range(300))
    assert json.loads((out / "summary.json").read_text())["games"] == 300
    assert abs(games["plies"].mean() - s["mean_plies"]) < 1e-9


def test_run_table_output_and_policies_per_side(runner, tmp_path):
    r = invoke(runner, ["run", "martian_chess", "--games", 200, "--policy0", "greedy", "--policy1", "random",
                        "--no-save"])
    assert r.exit_code == 0
    assert "first-player advantage" in r.output and "greedy vs random" in r.output


def test_first_option(runner):
    r = invoke(runner, ["run", "martian_chess", "--games", 100, "--first", "side1", "--no-save", "--json",
                        "--policy", "random"])
    s = json.loads(r.output)
    assert s["side1_win_rate"] == pytest.approx(s["first_player_win_rate"])


def test_set_override_changes_outcome(runner):
    base = json.loads(invoke(runner, ["run", "martian_chess", "-n", 400, "--no-save", "--json",
                                      "--policy", "random"]).output)
    off = json.loads(invoke(runner, ["run", "martian_chess", "-n", 400, "--no-save", "--json", "--policy", "random",
                                     "--set", "clock=off"]).output)
    assert base["end_reasons"]["clock"] > 0 and off["end_reasons"]["clock"] == 0


def test_perft_json(runner):
    r = invoke(runner, ["perft", "martian_chess", "--depth", 3, "--json"])
    assert json.loads(r.output) == {"1": 10, "2": 104, "3": 1328}


def test_dice_commands(runner):
    s = json.loads(invoke(runner, ["dice", "storm", "--modifier", 2, "--json"]).output)
    assert s["success"] == pytest.approx(10 / 36) and s["success_exact"] == "5/18"
    s2 = json.loads(invoke(runner, ["dice", "storm", "--attack", 4, "--defense", 3, "--defense-bonus", 1,
                                    "--attack-bonus", 2, "--json"]).output)
    assert s2["modifier"] == 2 and s2["success"] == s["success"]
    w = json.loads(invoke(runner, ["dice", "warfare", "--attacker-mod", 1, "--json"]).output)
    assert w["attacker_wins"] == pytest.approx(21 / 31) and w["defender_wins"] == pytest.approx(10 / 31)
    text = invoke(runner, ["dice", "storm", "--modifier", 2]).output
    assert "5/18" in text


def test_play_shows_board_and_result(runner):
    r = invoke(runner, ["play", "martian_chess", "--seed", 3, "--policy", "random"])
    assert r.exit_code == 0
    assert "canal" in r.output and "ply 1:" in r.output
    assert ("wins" in r.output.splitlines()[-1]) or ("draw" in r.output.splitlines()[-1])


def test_help_has_an_example_for_every_command(runner):
    from simkit.cli import cli
    for name in cli.commands:
        r = invoke(runner, [name, "--help"])
        assert "Example" in r.output, name


def test_console_script_runs_in_a_new_process(tmp_path):
    r = subprocess.run([sys.executable, "-m", "simkit", "run", "martian_chess", "-n", "50", "--no-save", "--json",
                        "--policy", "random"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["games"] == 50


def test_precompile_times_each_game_and_the_whole_step(runner):
    # two games in two spawned processes: each reports its own time, then the wall time
    res = invoke(runner, ["precompile", "martian_chess", "skorm", "--jobs", "2"])
    assert res.exit_code == 0, res.output
    lines = res.output.strip().splitlines()
    ready = [line for line in lines if ": ready in " in line]   # a cold cache adds "compiling" lines
    assert sorted(line.split(":")[0] for line in ready) == ["martian_chess", "skorm"]
    assert lines[-1].startswith("all 2 games ready in") and "(2 at a time)" in lines[-1]
    bad = invoke(runner, ["precompile", "nope"])
    assert bad.exit_code != 0 and "martian_chess" in bad.output
