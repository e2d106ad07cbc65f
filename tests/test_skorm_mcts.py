"""Skorm mcts:N and eps:P:INNER (issue 14): wins in one found, determinism, the degrader."""
import copy

import numba
import numpy as np
import pytest

from simkit.engine.runner import RunConfig, simulate
from simkit.games.skorm.play import RECORD_FIELDS
from simkit.games.skorm.policies import POL_GREEDY, POL_MCTS
from simkit.games.skorm.state import END_REASONS
from simkit.scenario import load_scenario
from skorm_helpers import A, H, S, W, actions, code, params_for, position

P = params_for()
WINNER = RECORD_FIELDS.index("winner")
REASON = RECORD_FIELDS.index("end_reason")


def _far_archers(side, k):
    cells = [(-4, 4), (-4, 3), (-3, 4), (-4, 2), (-3, 3)] if side == 1 else [(4, -4), (4, -3), (3, -4), (4, -2)]
    return [(c, side, A, None) for c in cells[:k]]


def test_mcts_shoots_the_enemy_warlord_when_it_can():
    # the archer on (1,-2) shoots the Warlord two cells up its line; 20+ other actions
    pieces = [((0, -4), 0, W, None), ((1, -2), 0, A, None), ((-2, 1), 0, H, None), ((2, -3), 0, S, 5),
              ((1, 0), 1, W, None), ((0, 2), 1, H, None), ((-1, 2), 1, S, 2)] + _far_archers(1, 3)
    win = code(P, (1, -2), (1, 0), shot=True)
    g = position(P, pieces)
    assert win in actions(g) and len(actions(g)) > 20
    for budget in (10, 50):
        g = position(P, pieces)
        assert g.play(POL_MCTS, budget=budget) == win
        assert g.done and g.winner == 0 and g.end_reason == "warlord_killed"


def test_mcts_walks_onto_the_gold_tile_for_the_immediate_win():
    # Each side has at most 3 pieces besides its Warlord, so whoever arrives on (0,0)
    # first wins at once (SK-7). Side 0 arrives now; any of its ~30 other actions lets
    # side 1's Warlord step (0,2) -> (0,0) and win. A quiet move, not a capture.
    pieces = [((0, -2), 0, W, None), ((-3, -1), 0, A, None), ((3, -3), 0, H, None),
              ((0, 2), 1, W, None)] + _far_archers(1, 3)
    win = code(P, (0, -2), (0, 0))
    g = position(P, pieces)
    assert win in actions(g) and len(actions(g)) > 20
    g.apply(code(P, (3, -3), (3, -2)))
    g.apply(code(P, (0, 2), (0, 0)))
    assert g.end_reason == "gold_tile_immediate" and g.winner == 1   # the threat is real
    g = position(P, pieces)
    assert g.play(POL_MCTS, budget=40) == win
    assert g.end_reason == "gold_tile_immediate" and g.winner == 0


def test_mcts_plays_only_legal_actions_and_leaves_the_position_alone():
    g = position(P, [((0, -4), 0, W, None), ((-1, -2), 0, S, 5), ((0, -2), 0, A, None), ((1, -3), 0, H, None),
                     ((0, 4), 1, W, None), ((1, 2), 1, S, 2), ((0, 2), 1, A, None), ((-1, 3), 1, H, None)])
    for _ in range(30):
        if g.done:
            break
        legal = actions(g)
        h = copy.deepcopy(g)
        c = g.play(POL_MCTS if g.to_move == 0 else POL_GREEDY, budget=15)
        assert c in legal or (c == -1 and not legal)
        h.apply(c)                             # the search played on scratch only: the real
        assert np.array_equal(h.cell, g.cell)  # position moved by exactly the chosen action
        assert np.array_equal(h.plist, g.plist) and np.array_equal(h.sc, g.sc)


def _records(threads, chunk_size, policies, games=10):
    cfg = RunConfig(games=games, seed=4242, policies=policies, chunk_size=chunk_size, snapshot_ply=6)
    return simulate(load_scenario("skorm"), cfg, threads=threads, progress=False).records()


def _spy_threads(monkeypatch):
    """Record numba's thread count while each Skorm chunk plays (its blocks run on that many threads)."""
    import dataclasses

    import simkit.games
    from simkit.games.skorm import SPEC
    seen = []

    def run_chunk(*args):
        seen.append(numba.get_num_threads())
        return SPEC.run_chunk(*args)

    spied = dataclasses.replace(SPEC, run_chunk=run_chunk)
    real = simkit.games.get_game
    monkeypatch.setattr(simkit.games, "get_game", lambda name: spied if name == "skorm" else real(name))
    return seen


def test_mcts_records_do_not_depend_on_threads_or_chunks(monkeypatch):
    seen = _spy_threads(monkeypatch)
    pols = ("mcts:20", "eps:0.2:greedy")
    one = _records(1, 10, pols)
    assert seen and set(seen) == {1}          # the runner really played on one thread
    assert set(one[:, REASON]) <= set(range(len(END_REASONS)))
    top = min(2, numba.config.NUMBA_NUM_THREADS)
    seen.clear()
    two = _records(top, 10, pols)
    assert set(seen) == {top}
    assert np.array_equal(one, two)
    small = _records(top, 3, pols)
    assert np.array_equal(one, small)


def test_eps_zero_is_the_inner_policy_and_eps_one_is_not():
    greedy = _records(1, 12, ("greedy", "greedy"), games=12)
    eps0 = _records(1, 12, ("eps:0:greedy", "greedy"), games=12)
    assert np.array_equal(greedy, eps0)
    eps1 = _records(1, 12, ("eps:1:greedy", "greedy"), games=12)
    assert not np.array_equal(greedy, eps1)
    # a side playing uniformly random actions loses to greedy far more often
    assert (eps1[:, WINNER] == 1).sum() > (greedy[:, WINNER] == 1).sum()


def test_eps_one_plays_legal_random_plies():
    g = position(P, [((0, -4), 0, W, None), ((-1, -2), 0, S, 5), ((0, -2), 0, A, None), ((1, -3), 0, H, None),
                     ((0, 4), 1, W, None), ((1, 2), 1, S, 2), ((0, 2), 1, A, None), ((-1, 3), 1, H, None)])
    seen = set()
    for _ in range(40):
        if g.done:
            break
        legal = actions(g)
        c = g.play(POL_GREEDY, eps=1.0)
        assert c in legal or (c == -1 and not legal)
        seen.add(c)
    assert len(seen) > 5


@pytest.mark.parametrize("spec", ["mcts:50", "eps:0.5:mcts:10"])
def test_play_trace_names_the_search_policy(spec):
    from simkit.games.skorm import SPEC
    from simkit.policies import policy_vector
    pv = policy_vector(SPEC, [spec, "greedy"])
    text = SPEC.play(P, 3, 1, 1, tuple(int(x) for x in pv))
    assert f"side 0 = {spec}" in text and "result:" in text
