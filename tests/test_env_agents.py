"""``--policy python:MOD:FACTORY``: a Python agent plays in the commands that run games."""
import json

import numpy as np
import pytest

from conftest import invoke
from simkit.engine.runner import RunConfig, simulate
from simkit.scenario import load_scenario

RANDOM_AGENT = "python:simkit.env.agents:random_agent"


def illegal_agent(game, seed):
    """A broken agent: always plays action 0 (never legal at Martian Chess's start)."""
    return lambda state: 0


def test_a_python_agents_run_is_fixed_by_the_seed_whatever_the_chunking():
    sc = load_scenario("martian_chess")
    runs = [simulate(sc, RunConfig(games=6, seed=4, policies=(RANDOM_AGENT, "greedy"), chunk_size=c), progress=False)
            for c in (6, 2)]
    a, b = (r.records() for r in runs)
    np.testing.assert_array_equal(a, b)
    assert len({tuple(r) for r in a}) > 1, "six different games"
    again = simulate(sc, RunConfig(games=6, seed=5, policies=(RANDOM_AGENT, "greedy")), progress=False).records()
    assert not np.array_equal(a, again), "another seed, other games"


def test_greedy_beats_the_random_agent_as_it_beats_random():
    """The agent plays its side: greedy (side 1) wins most games against a random agent, as against
    the kernel's random policy."""
    sc = load_scenario("martian_chess")
    recs = simulate(sc, RunConfig(games=20, seed=1, policies=(RANDOM_AGENT, "greedy")), progress=False).records()
    assert (recs[:, 1] == 1).sum() >= 14


def test_matchup_ladder_and_compare_take_a_python_agent(runner, tmp_path):
    r = invoke(runner, ["matchup", "martian_chess", "--policies", f"greedy,{RANDOM_AGENT}", "--games", "3",
                        "--no-save", "--json"])
    assert r.exit_code == 0, r.output
    m = json.loads(r.stdout)["matrix"]
    assert m["greedy"][RANDOM_AGENT] + m[RANDOM_AGENT]["greedy"] == pytest.approx(1.0)
    r = invoke(runner, ["ladder", "martian_chess", "--rungs", f"{RANDOM_AGENT},greedy", "--games", "3", "--no-save",
                        "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["rungs"] == [RANDOM_AGENT, "greedy"]
    r = invoke(runner, ["compare", "martian_chess", "--set-b", "komi=1", "--policy0", RANDOM_AGENT, "--games", "4",
                        "--no-save", "--json"])
    assert r.exit_code == 0, r.output
    r = invoke(runner, ["run", "martian_chess", "--policy0", RANDOM_AGENT, "--games", "2", "--out", tmp_path / "r"])
    assert r.exit_code == 0, r.output
    assert json.loads((tmp_path / "r" / "manifest.json").read_text())["config"]["policies"][0] == RANDOM_AGENT


@pytest.mark.parametrize("args, says", [
    (["run", "martian_chess", "--policy0", "python:simkit.env.agents", "--games", "1"],
     "python:package.module:factory"),
    (["run", "martian_chess", "--policy0", "python:no_such_module:f", "--games", "1"], "cannot import no_such_module"),
    (["run", "martian_chess", "--policy0", "python:simkit.env.agents:nothing", "--games", "1"], "no callable nothing"),
    (["run", "martian_chess", "--policy0", f"eps:0.1:{RANDOM_AGENT}", "--games", "1"], "eps wraps simkit's own"),
    (["play", "martian_chess", "--policy0", RANDOM_AGENT], "reads the batch kernel's own games"),
    (["run", "martian_chess", "--policy0", "python:test_env_agents:illegal_agent", "--games", "1", "--no-save"],
     "(side 0, game 0) played 0"),
])
def test_a_bad_python_policy_is_one_line(runner, args, says):
    r = invoke(runner, args)
    assert r.exit_code == 2
    lines = [x for x in r.output.strip().splitlines() if not x.startswith("compiling ")]   # a cold cache's notice
    assert "Traceback" not in r.output and len(lines) == 1 and says in lines[0]


def test_a_python_agent_in_a_game_without_a_step_api_is_one_line(runner, monkeypatch):
    """A game whose folder has no env.py (here Skorm's spec without its hook) refuses a Python agent in one line."""
    import dataclasses
    from simkit import games
    monkeypatch.setitem(games._loaded, "skorm", dataclasses.replace(games.get_game("skorm"), steps=None))
    r = invoke(runner, ["run", "skorm", "--policy0", RANDOM_AGENT, "--games", "1", "--no-save"])
    assert r.exit_code == 2
    lines = [x for x in r.output.strip().splitlines() if not x.startswith("compiling ")]
    assert "Traceback" not in r.output and len(lines) == 1 and "skorm has no step API" in lines[0]
