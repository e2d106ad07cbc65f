"""Skorm restricted play: ``greedy_noshoot`` is greedy without its shots (DESIGN.md, Policies)."""
import json

import numpy as np

from conftest import invoke
from simkit.analysis.matchup import matchup
from simkit.engine.runner import RunConfig, simulate
from simkit.games.skorm import SPEC
from simkit.games.skorm.moves import act_type
from simkit.games.skorm.play import RECORD_FIELDS
from simkit.games.skorm.policies import POL_GREEDY, POL_GREEDY_NOSHOOT, POL_RANDOM
from simkit.scenario import load_scenario
from skorm_helpers import A, H, S, W, code, params_for, position

P = params_for()
W0 = ((0, -4), 0, W, None)
W1 = ((0, 4), 1, W, None)


def test_policy_ids_are_stable():
    assert SPEC.policies[:2] == ("random", "greedy") and (POL_RANDOM, POL_GREEDY) == (0, 1)
    assert SPEC.policies[POL_GREEDY_NOSHOOT] == "greedy_noshoot"


def test_greedy_shoots_where_greedy_noshoot_does_not():
    pieces = [W0, W1, ((0, -2), 0, A, None), ((0, -1), 1, H, None), ((3, -3), 1, S, 0)]
    assert position(P, pieces).play(POL_GREEDY) == code(P, (0, -2), (0, -1), shot=True)
    c = position(P, pieces).play(POL_GREEDY_NOSHOOT)
    assert act_type(c) == 0                         # a move; the archer may still be the piece moved
    # not even a shot that kills the enemy Warlord
    pieces = [W0, ((2, -1), 1, W, None), ((2, -3), 0, A, None)]
    assert position(P, pieces).play(POL_GREEDY) == code(P, (2, -3), (2, -1), shot=True)
    g = position(P, pieces)
    c = g.play(POL_GREEDY_NOSHOOT)
    assert act_type(c) == 0 and not g.done


def test_only_shots_left_greedy_noshoot_takes_greedys_shot():
    # the warlord is boxed in by shieldmen facing it, the archer's three neighbours are enemy horsemen
    box = [((1, -4), 1, S, 3), ((-1, -3), 1, S, 1), ((0, -3), 1, S, 2)]
    pieces = [W0, W1, ((4, -4), 0, A, None), ((3, -4), 1, H, None), ((4, -3), 1, H, None),
              ((3, -3), 1, S, 0)] + box
    g = position(P, pieces)
    acts = g.legal_actions()
    assert len(acts) > 0 and all(act_type(int(a)) == 1 for a in acts)
    c = position(P, pieces).play(POL_GREEDY_NOSHOOT)
    assert act_type(c) == 1 and c == position(P, pieces).play(POL_GREEDY)


def _kills_shot(rec, side):
    return int(sum(rec[:, RECORD_FIELDS.index(f)].sum() for f in RECORD_FIELDS
                   if f.startswith(f"kills_shot_{side}_")))


def test_greedy_noshoot_records_no_shot_kills():
    sc = load_scenario("skorm")
    for side, pols in ((0, ("greedy_noshoot", "greedy")), (1, ("greedy", "greedy_noshoot"))):
        rec = np.asarray(simulate(sc, RunConfig(games=400, seed=11, policies=pols), progress=False,
                                  keep=True).records())
        assert _kills_shot(rec, side) == 0
        assert _kills_shot(rec, 1 - side) > 0      # greedy on the other side does shoot


def test_matchup_greedy_vs_greedy_noshoot(runner, tmp_path):
    res = matchup(load_scenario("skorm"), ["greedy", "greedy_noshoot"], RunConfig(games=2000))
    m = res.matrix
    assert m.shape == (2, 2) and list(m.index) == ["greedy", "greedy_noshoot"]
    c = res.cells[("greedy", "greedy_noshoot")]
    # measured (2000 pairs, seed 0): greedy scores 0.777 [0.764, 0.789] against it
    assert c["ci"][0] > 0.6 and c["p_value"] < 1e-6
    out = tmp_path / "m"
    r = invoke(runner, ["matchup", "skorm", "--policies", "greedy,greedy_noshoot", "-n", 200, "--out", out])
    assert r.exit_code == 0 and "greedy_noshoot" in r.output
    s = json.loads((out / "matchup.json").read_text())
    assert set(s["matrix"]) == {"greedy", "greedy_noshoot"}
