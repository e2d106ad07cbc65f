"""Every long command stopped by a real Ctrl-C (SIGINT to a subprocess) at a chunk boundary and in the
middle of a chunk, then finished by `simkit CMD --resume --out DIR` alone: exit 130 with one line
and no traceback, the manifest says interrupted and no result file describes part of the command,
and the resumed directory's records and results equal an uninterrupted run's
(simkit.report.interrupt_check)."""
import json
import time

import pytest

from conftest import invoke
from simkit.report.interrupt_check import CASES, MC, ctrl_c, interrupt_and_resume, kept_of, run_cli

@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """Each command's uninterrupted directory, made once."""
    made = {}

    def get(case):
        if case not in made:
            out = tmp_path_factory.mktemp("ref") / case.replace(" ", "")
            args = CASES[case][0]
            code, _, err = run_cli([*args, "--out", out])
            assert code == 0, err
            made[case] = out
        return made[case]
    return get


@pytest.mark.parametrize("where", ["boundary", "mid-chunk"])
@pytest.mark.parametrize("case", list(CASES))
def test_ctrl_c_then_resume_gives_the_uninterrupted_results(case, where, tmp_path, references):
    args, boundary, mid, result = CASES[case]
    r = interrupt_and_resume(args[0], args[1:], tmp_path, boundary if where == "boundary" else mid,
                             reference=references(case))
    assert r["exit"] == 130 and not r["traceback"], r["stderr"]
    assert r["line"].startswith("interrupted: kept ") and r["line"].endswith(
        f"finish with: simkit {args[0]} --resume --out {r['out']}"), r["stderr"]
    kept, total = kept_of(r["line"])
    assert 0 < kept < total and r["kept"] == kept, r["line"]       # some kept, not all
    assert r["status"] == "interrupted", r
    assert result not in r["files_at_ctrl_c"]        # no result written from part of the games
    assert r["resume_exit"] == 0, r["resume_stderr"]
    assert r["resumed_status"] == "complete"
    assert r["differ"] == [], r["differ"]


@pytest.mark.parametrize("pause, kept, total", [("saved:14", 1350, 1500), ("saved:19", 1800, 2300)])
def test_ctrl_c_in_the_skill_checks_keeps_their_games_and_resumes_to_the_same_results(pause, kept, total, tmp_path,
                                                                                     references):
    """run --skill random,greedy: 12 chunks of levels, then the skill-order check (each seating 150 games:
    chunks 13-16, in order/), then the draw diagnosis the drawn greedy level calls for (200 games a run:
    self-play of both levels, cross-play, in draws/). Ctrl-C in either keeps their finished chunks, and the
    line counts the diagnosis's games, which the size before the start could not know."""
    args = CASES["run --skill"][0]
    ref = references("run --skill")
    assert (ref / "order" / "runs" / "greedy-vs-random" / "games.parquet").exists()
    assert (ref / "draws" / "runs" / "greedy-vs-greedy" / "games.parquet").exists()
    r = interrupt_and_resume(args[0], args[1:], tmp_path, pause, reference=ref)
    assert r["exit"] == 130 and not r["traceback"], r["stderr"]
    assert kept_of(r["line"]) == (kept, total) and r["kept"] == kept, r["line"]
    assert r["status"] == "interrupted" and "skill.json" not in r["files_at_ctrl_c"]
    assert r["resume_exit"] == 0 and r["resumed_status"] == "complete", r["resume_stderr"]
    assert r["differ"] == [], r["differ"]


def test_ctrl_c_in_a_strength_tune_then_resume_gives_the_uninterrupted_results(tmp_path):
    """tune --objective strength=max: every setting's seatings against the panel are runs of the tune's
    directory; Ctrl-C in the first round keeps them and --resume replays the search to the same results."""
    args = ["tune", MC, "--policy", "mcts:8", "--knob", "mcts_cutoff=0,60", "--objective", "strength=max",
            "--panel", "greedy,mcts:4", "--games", 6, "--verify-games", 12, "--threads", 1]
    r = interrupt_and_resume(args[0], args[1:], tmp_path, "saved:6")
    assert r["exit"] == 130 and not r["traceback"], r["stderr"]
    # 2 settings x 2 opponents x 2 seats of 6 games, then 2 finalists and a confirmation x 4 runs of 12
    assert kept_of(r["line"]) == (36, 2 * 4 * 6 + 3 * 4 * 12), r["line"]
    assert r["status"] == "interrupted" and "tune.json" not in r["files_at_ctrl_c"]
    assert r["resume_exit"] == 0 and r["resumed_status"] == "complete", r["resume_stderr"]
    assert r["differ"] == [], r["differ"]


def test_the_interrupted_directory_holds_no_result_file(tmp_path):
    """Ctrl-C mid-sweep: the finished cells and chunks are kept, no sweep.csv describes part of it."""
    args, boundary, _, _ = CASES["sweep"]
    out = tmp_path / "sweep"
    c = ctrl_c(args, out, boundary)
    assert c["exit"] == 130
    assert c["manifest"]["status"] == "interrupted" and c["manifest"]["games_kept"] == 600
    assert not (out / "sweep.csv").exists() and not (out / "sweep.parquet").exists()
    assert json.loads((out / "cells" / "000000" / "manifest.json").read_text())["status"] == "complete"
    assert len(list((out / "cells" / "000001" / "chunks").glob("chunk-*.npz"))) == 2


def test_resume_names_the_option_that_differs(tmp_path, runner):
    args = ["run", MC, "--games", 600, "--chunk-size", 100, "--policy", "random"]
    out = tmp_path / "run"
    c = ctrl_c(args, out, "saved:2")
    assert c["exit"] == 130
    r = invoke(runner, ["run", "--resume", "--out", out, "--games", 50000])
    assert r.exit_code == 2
    assert "--games 50000 given, --games 600 in the run" in r.output, r.output
    r = invoke(runner, ["run", "--resume", "--out", out, "--policy", "greedy"])
    assert r.exit_code == 2 and "--policy greedy given, --policy random in the run" in r.output, r.output
    r = invoke(runner, ["sweep", "--resume", "--out", out])
    assert r.exit_code == 2 and "simkit run --resume --out" in r.output, r.output
    # options that change no result may be given; the same value of a result option too
    r = invoke(runner, ["run", "--resume", "--out", out, "--games", 600, "--threads", 1, "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["games"] == 600 and json.loads(r.stdout)["resumed_games"] == 200


def test_a_million_cell_sweep_is_refused_at_once_with_its_estimate(runner, tmp_path):
    args = ["sweep", MC, "--vary", "deadlock_plies=1..1000", "--vary", "clock_plies=1..1000", "--games", 1000,
            "--out", tmp_path / "s"]
    t = time.perf_counter()
    r = invoke(runner, args)
    took = time.perf_counter() - t
    assert r.exit_code == 2
    assert "1,000,000 cells x 1,000 games = 1,000,000,000 games" in r.output and "estimated" in r.output
    assert "above the limit of 1,000 cells and an estimated hour; add --yes" in r.output, r.output
    assert not (tmp_path / "s").exists()
    assert took < 1.0, took


def test_yes_passes_the_guard_and_plays_without_listing_the_grid(tmp_path):
    """--yes: the million-cell sweep starts playing its first cell at once (the grid is computed cell
    by cell, never listed), in bounded memory; Ctrl-C then keeps it."""
    args = ["sweep", MC, "--vary", "deadlock_plies=1..1000", "--vary", "clock_plies=1..1000", "--games", 1000,
            "--yes"]
    out = tmp_path / "s"
    c = ctrl_c(args, out, "saved:1")
    assert c["exit"] == 130, c["stderr"]
    assert "of 1,000,000,000 games" in c["stderr"] and "finish with: simkit sweep --resume" in c["stderr"]
    assert c["manifest"]["cells"] == 1_000_000 and c["manifest"]["games_kept"] == 500
    assert c["seconds"] < 60, c["seconds"]
    assert json.loads((out / "manifest.json").read_text())["command"]["params"]["yes"] is True


def test_progress_lines_in_a_log(runner, monkeypatch):
    """stderr not a terminal: a plain line every SIMKIT_PROGRESS_SECONDS with games done, elapsed and
    the time left; and the size line first, the command being longer than that interval."""
    monkeypatch.setenv("SIMKIT_PROGRESS_SECONDS", "0.05")
    r = invoke(runner, ["run", MC, "--games", 40000, "--chunk-size", 2000, "--policy", "greedy", "--no-save"])
    assert r.exit_code == 0, r.output
    lines = r.stderr.splitlines()
    assert lines[0].startswith("run: 40,000 games of martian_chess (greedy); estimated ")
    assert "at most" not in lines[0], lines[0]      # no --precision: the run plays every game
    prog = [ln for ln in lines if ln.startswith("run: ") and " of 40,000 games (" in ln]
    assert len(prog) >= 2, r.stderr
    assert all(" elapsed" in ln for ln in prog) and any(" left" in ln for ln in prog), prog
    monkeypatch.setenv("SIMKIT_PROGRESS_SECONDS", "600")
    r = invoke(runner, ["run", MC, "--games", 4000, "--policy", "greedy", "--no-save"])
    assert r.stderr == "", r.stderr          # shorter than the interval: nothing extra in the log


def test_the_size_line_of_a_run_that_may_stop_early_gives_its_estimate_as_a_ceiling(runner, monkeypatch):
    """--precision may end a run long before its --games (issue 24: mcts:400 self-play at +-0.02 stopped at
    1,008 of 2,500 Warfare! games): the size line says the estimate is at most that."""
    monkeypatch.setenv("SIMKIT_PROGRESS_SECONDS", "0.05")
    r = invoke(runner, ["run", MC, "--games", 40000, "--chunk-size", 2000, "--policy", "greedy", "--precision", 0.05,
                        "--no-save", "--json"])
    assert r.exit_code == 0, r.output
    first = r.stderr.splitlines()[0]
    assert first.startswith("run: 40,000 games of martian_chess (greedy); estimated "), first
    assert " at most (--precision may stop it sooner) at the measured speed" in first, first
    assert json.loads(r.stdout)["games"] < 40000


def test_a_command_that_outlives_its_ctrl_c_is_reported_with_its_threads_stacks(tmp_path, monkeypatch):
    # a child still running after its Ctrl-C (here: given no time to exit) fails the check with every thread's
    # stack, so a rare hang says where it hangs
    import simkit.report.interrupt_check as check
    wait_for = check.wait_for
    monkeypatch.setattr(check, "wait_for", lambda p, marker, timeout: wait_for(p, marker, 300))
    with pytest.raises(RuntimeError) as e:
        ctrl_c(["run", MC, "--games", 2000, "--chunk-size", 200, "--policy", "random"], tmp_path / "r", "saved:3",
               timeout=0.001)
    assert "of the Ctrl-C" in str(e.value)
    assert "most recent call first" in str(e.value) and "Thread 0x" in str(e.value)
