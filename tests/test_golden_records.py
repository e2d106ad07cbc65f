"""Records of every game and policy are locked to the code before the speed work (issue 13).

The hashes in data/golden_records.json were made at commit 9cf2164, whose engines had been
checked against independent implementations (perft goldens, the independent Skorm move
generator, the Storm and Warfare! hand-built positions). A faster kernel (bitboards,
incremental greedy, split policy paths, nogil drivers) must play exactly those games: every
record column, every aggregate counter and every trajectory value.
Regenerate only when a ruling changes a game: `python tests/test_golden_records.py`.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from simkit.engine.chunk import play_chunk
from simkit.games import GAMES, get_game
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

DATA = Path(__file__).parent / "data" / "golden_records.json"
# (label, policies, games): a mix, so a policy that reads another's state is caught too
CASES = [("random", ("random", "random"), 120), ("greedy", ("greedy", "greedy"), 120),
         ("greedy-random", ("greedy", "random"), 120), ("eps", ("eps:0.25:greedy", "random"), 60),
         ("mcts", ("mcts:12", "greedy"), 6)]
GAME_NAMES = [g for g in GAMES]


def _digest(game: str, policies, games: int) -> str:
    spec = get_game(game)
    params = load_scenario(game).params()
    pv = tuple(int(x) for x in policy_vector(spec, policies))
    _, records, agg = play_chunk(game, params, 20261201, 5, games, "alternate", pv, 6)
    h = hashlib.sha256(np.ascontiguousarray(records).tobytes())
    h.update(np.ascontiguousarray(np.asarray(agg, dtype=np.int64)).tobytes())
    return h.hexdigest()[:20]


def _trajectory_digest(game: str) -> str:
    spec = get_game(game)
    params = load_scenario(game).params()
    h = hashlib.sha256()
    for g, pols in enumerate((("greedy", "greedy"), ("random", "greedy"))):
        pv = tuple(int(x) for x in policy_vector(spec, pols))
        values, legal, inter, record = spec.trajectory(params, 20261201, g, g % 2, pv)
        for a in (values, legal, inter, record):
            h.update(np.ascontiguousarray(np.asarray(a)).tobytes())
    return h.hexdigest()[:20]


def _all() -> dict:
    out = {}
    for game in GAME_NAMES:
        for label, pols, n in CASES:
            out[f"{game}/{label}"] = _digest(game, pols, n)
        out[f"{game}/trajectory"] = _trajectory_digest(game)
    return out


GOLDEN = json.loads(DATA.read_text()) if DATA.exists() else {}


@pytest.mark.parametrize("game", GAME_NAMES)
@pytest.mark.parametrize("label,pols,n", CASES)
def test_records_match_the_pre_speed_work_engines(game, label, pols, n):
    assert _digest(game, pols, n) == GOLDEN[f"{game}/{label}"]


@pytest.mark.parametrize("game", GAME_NAMES)
def test_trajectories_match_the_pre_speed_work_engines(game):
    assert _trajectory_digest(game) == GOLDEN[f"{game}/trajectory"]


if __name__ == "__main__":
    DATA.write_text(json.dumps(_all(), indent=1, sort_keys=True) + "\n")
    print("wrote", DATA, file=sys.stderr)
