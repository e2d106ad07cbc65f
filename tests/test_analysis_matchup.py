"""matchup: the skill-gap matrix and its errors."""
import json

import numpy as np
import pytest

from conftest import invoke
from simkit.analysis.matchup import matchup
from simkit.engine.runner import RunConfig
from simkit.errors import UsageError
from simkit.scenario import load_scenario


def test_matrix_shape_symmetry_and_skill_gap():
    res = matchup(load_scenario("martian_chess"), ["random", "greedy"], RunConfig(games=600))
    m = res.matrix
    assert m.shape == (2, 2) and list(m.index) == list(m.columns) == ["random", "greedy"]
    assert np.isnan(m.loc["random", "random"]) and np.isnan(m.loc["greedy", "greedy"])
    assert m.loc["random", "greedy"] + m.loc["greedy", "random"] == pytest.approx(1.0)
    assert m.loc["greedy", "random"] > 0.8          # greedy beats random clearly
    c = res.cells[("greedy", "random")]
    assert c["ci"][0] <= c["score"] <= c["ci"][1] and c["p_value"] < 1e-6
    assert c["score"] == pytest.approx((c["as_side0"] + c["as_side1"]) / 2)


@pytest.mark.parametrize("pols,msg", [(["random", "random"], "more than once"), (["random"], "at least two"),
                                      (["random", "greedyy"], "did you mean 'greedy'")])
def test_policy_errors(pols, msg):
    with pytest.raises(UsageError, match=msg):
        matchup(load_scenario("martian_chess"), pols, RunConfig(games=10))


def test_matchup_cli(runner, tmp_path):
    out = tmp_path / "m"
    r = invoke(runner, ["matchup", "martian_chess", "--policies", "random,greedy", "-n", 300, "--out", out])
    assert r.exit_code == 0 and "greedy" in r.output
    assert json.loads((out / "manifest.json").read_text())["kind"] == "matchup"
    s = json.loads((out / "matchup.json").read_text())
    assert set(s["matrix"]) == {"random", "greedy"}
    from simkit.cli import cli
    r = runner.invoke(cli, ["matchup", "martian_chess", "--policies", "greedy,greedy", "--no-save"])
    assert r.exit_code == 2 and "more than once" in r.output
