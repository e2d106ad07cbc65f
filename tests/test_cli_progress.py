"""Progress bars of the long commands and the cold-cache notice (issue 16, "Progress and first start")."""
import os
import subprocess
import sys
import time

import numpy as np
import pytest

from conftest import invoke

BAR = "━"   # rich's bar glyph: on stderr only when a bar was drawn

COMMANDS = {
    "matchup": ["matchup", "martian_chess", "--policies", "random,greedy", "--games", 100],
    "compare": ["compare", "martian_chess", "--set-b", "clock=leader", "--policy", "random", "--games", 200],
    "sweep": ["sweep", "martian_chess", "--vary", "deadlock_plies=10,14", "--policy", "random", "--games", 200],
    "values": ["values", "martian_chess", "--games", 200],
    "quality": ["quality", "martian_chess", "--policy", "random", "--games", 10],
}


@pytest.mark.parametrize("name", list(COMMANDS))
def test_progress_bar_only_when_asked_or_on_a_terminal(runner, name):
    args = COMMANDS[name] + ["--no-save"]
    forced = invoke(runner, args + ["--progress"])
    assert forced.exit_code == 0, forced.output
    assert BAR in forced.stderr and name in forced.stderr and "games" in forced.stderr
    plain = invoke(runner, args)           # CliRunner's stderr is no terminal: no bar by default
    assert plain.exit_code == 0, plain.output
    assert BAR not in plain.stderr and "\x1b[" not in plain.stderr
    off = invoke(runner, args + ["--no-progress"])
    assert BAR not in off.stderr
    assert plain.stdout == off.stdout
    if name != "quality":                  # quality prints its elapsed time; the others are deterministic
        assert forced.stdout == plain.stdout


def test_progress_bar_counts_every_game_of_a_multi_run_command(runner):
    r = invoke(runner, ["matchup", "martian_chess", "--policies", "random,greedy", "--games", 100, "--no-save",
                        "--progress"])
    # two seat orders of 100 games: the bar's total is known up front and reached
    assert "run 2/2" in r.stderr and "200/200" in r.stderr


def _simkit(env, *args):
    return subprocess.Popen([sys.executable, "-m", "simkit", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def test_cold_cache_says_it_is_compiling_and_a_warm_one_does_not(tmp_path):
    from simkit.games import get_game
    from simkit.scenario import load_scenario
    args = ("run", "martian_chess", "--games", "10", "--no-save", "--threads", "1")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "empty-cache"))
    p = _simkit(env, *args)
    try:
        line = p.stderr.readline()          # printed before the first game, i.e. before compiling
    finally:
        p.kill()
        p.wait()
    assert line.startswith("compiling Martian Chess kernels (first run;") and "simkit precompile" in line
    # this process has the batch kernel in its own cache (loaded or compiled now): a second start says nothing
    spec = get_game("martian_chess")
    spec.run_chunk(load_scenario("martian_chess").params(), 0, 0, np.zeros(1, np.int8), np.array([0, 0]), 10)
    from simkit.cli.compiling import cold
    assert not cold(spec)
    t = time.perf_counter()
    out, err = _simkit(dict(os.environ), *args).communicate(timeout=300)
    assert "compiling" not in err, err
    assert "10 games" in out or "games" in out
    assert time.perf_counter() - t < 300
