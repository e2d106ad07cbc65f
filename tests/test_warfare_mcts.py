"""Warfare! MCTS policy (issue 14): a won position found, determinism, the eps degrader, old records kept."""
import hashlib
import importlib

import numba
import numpy as np
import pytest

from simkit.engine.rng import rng_seed_nb
from simkit.engine.runner import RunConfig, simulate
from simkit.games.warfare import SPEC
from simkit.games.warfare.mcts import MODE_ACT, MODE_ADV, mcts_choose_nb, new_search_nb
from simkit.games.warfare.state import END_MOVE_LIMIT, NFIELDS
from simkit.policies import policy_vector
from simkit.scenario import load_scenario
from test_warfare_play import check_game
from warfare_helpers import FACE, Pos, params

play_mod = importlib.import_module("simkit.games.warfare.play")
P = params()


def choose(p, player, budget, mode=MODE_ACT, adv=(-1, -1), seed=5, turn=10):
    """One MCTS decision in the hand-made position ``p`` (phase 3, no unit acted yet)."""
    ip = p.P[0]
    nsq = int(ip[2])
    nbuf = p.P[7].shape[2] + 8 + p.P[4].shape[1]
    n0 = int((p.uside == 0).sum())
    Wk = new_search_nb(np.int64(p.nu), np.int64(n0), np.int64(p.nu - n0), np.int64(nsq), np.int64(nbuf),
                       np.int64(NFIELDS), np.int64(budget + 2))
    gout = np.array([adv[0], adv[1], -1, -1], np.int64)
    rng = np.zeros(1, np.uint64)
    rng_seed_nb(rng, np.int64(seed), np.int64(0))
    occ, usq, uface = p.occ.copy(), p.usq.copy(), p.uface.copy()
    r = mcts_choose_nb(np.int64(mode), np.int64(player), np.int64(turn), np.int64(0), np.int64(ip[3]), p.P[:15],
                       occ, usq, uface, p.utype, p.uside, np.zeros(p.nu, np.int64), p.alive.copy(), np.int64(p.nu),
                       np.int64(budget), Wk, gout, rng)
    # the search plays on copies: the real position is untouched
    assert (occ == p.occ).all() and (usq == p.usq).all() and (uface == p.uface).all()
    return int(r), [int(x) for x in gout]


def test_mcts_finds_the_certain_kill_of_the_last_enemy():
    # Side 1 has one Spearman left, facing S. Side 0's Infantry can step in front of it and roll
    # (Spearmen -2: likely, not certain; a lost roll kills the Infantry); the Cavalry can ride to
    # the Spearman's flank (7,8) and kill it without a roll (RULES 4 step 3), which wins at once.
    # Anything else leaves the Spearman free to charge the Cavalry's front next turn.
    units = [(0, "infantry", 6, 6, "N"), (0, "cavalry", 10, 8, "W"), (1, "spearman", 6, 8, "S")]
    p = Pos(P, units)
    for seed in (1, 2, 3):
        _, (u, t, f, tgt) = choose(p, 0, 40, seed=seed)
        assert (u, tgt) == (1, 2)
        assert (t % p.W, t // p.W) == (7, 8) and f == FACE["W"]
    # and that activation does win: the flank attack kills without a roll
    q = Pos(P, units)
    q.move(1, 7, 8, "W")
    out, _, rolled = q.attack(1, 2)
    assert out == 0 and not rolled and q.alive[1] == 0


def test_mcts_spearman_takes_the_cavalry_from_its_front():
    # A lone Spearman against a lone Cavalry: from the Cavalry's straight-front square (5,4) the
    # Spearman kills it for certain (RULES 4 step 2); from a front diagonal it would only roll,
    # and waiting lets the Cavalry strike first.
    p = Pos(P, [(0, "spearman", 5, 2, "N"), (1, "cavalry", 5, 5, "S")])
    for seed in (1, 2):
        _, (u, t, f, tgt) = choose(p, 0, 30, seed=seed)
        assert u == 0 and tgt == 1
        assert (t % p.W, t // p.W) == (5, 4) and f == FACE["N"]


def test_mcts_advance_decision_is_legal():
    p = Pos(P, [(0, "infantry", 5, 5, "N"), (0, "archer", 5, 3, "N"), (1, "infantry", 9, 9, "S"),
                (1, "cavalry", 2, 9, "S")])
    r, _ = choose(p, 0, 20, mode=MODE_ADV, adv=(0, p.sq(5, 6)))
    assert r in (0, 1)


def _records(monkeypatch, policies, threads, chunk_size, games=8, seed=77):
    seen = []
    kernel = play_mod.batch_nb

    def spy(*args):      # the thread count the kernel really runs with, chunk by chunk
        seen.append(numba.get_num_threads())
        return kernel(*args)

    monkeypatch.setattr(play_mod, "batch_nb", spy)
    cfg = RunConfig(games=games, seed=seed, policies=policies, chunk_size=chunk_size, snapshot_ply=6)
    res = simulate(load_scenario("warfare", ["max_turns=40"]), cfg, threads=threads, progress=False)
    monkeypatch.setattr(play_mod, "batch_nb", kernel)
    assert seen and set(seen) == {threads}
    return res.records()


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_mcts_records_identical_for_threads_and_chunk_sizes(monkeypatch):
    pols = ("mcts:12", "greedy")
    a = _records(monkeypatch, pols, 1, 3)
    b = _records(monkeypatch, pols, 2, 3)
    c = _records(monkeypatch, pols, 2, 8)
    assert a.shape == (8, NFIELDS)
    assert (a == b).all() and (a == c).all()
    swapped = _records(monkeypatch, ("greedy", "mcts:12"), 2, 8)
    assert not (a == swapped).all()                    # the MCTS side matters (the check is not vacuous)


def _run(names, n=8, over=None):
    Pm = params(**(over or {}))
    pv = policy_vector(SPEC, names)
    return SPEC.run_chunk(Pm, 31, 0, np.arange(n) % 2, pv, 6)


def test_eps_zero_is_the_inner_policy_and_eps_one_plays_randomly():
    g, ga = _run(["greedy", "greedy"])
    e0, e0a = _run(["eps:0:greedy", "eps:0:greedy"])
    assert (g == e0).all() and (ga == e0a).all()
    e1, _ = _run(["eps:1:greedy", "greedy"])
    assert not (e1 == g).all()
    # every decision random: the greedy side wins every game it does not draw
    assert ((e1[:, 1] == 1) | (e1[:, 1] == -1)).all() and (e1[:, 1] == 1).mean() >= 0.75
    for game in range(3):
        check_game(P, 31, game, game % 2, tuple(policy_vector(SPEC, ["eps:1:greedy", "eps:0.5:mcts:6"])))
    # random vs random never finishes (100% capped), and eps:1 behaves the same
    r1, _ = _run(["eps:1:greedy", "eps:1:greedy"], n=4)
    assert (r1[:, 3] == END_MOVE_LIMIT).all()


def test_mcts_plays_legal_games():
    for game in range(2):
        check_game(params(max_turns=30), 9, game, game % 2, tuple(policy_vector(SPEC, ["mcts:8", "random"])))


# sha256 prefixes of random/greedy records and aggregates, made by the code before the MCTS
# policy existed (commit 7d0e6fa): adding mcts must not change any existing policy's games.
GOLDEN = {
    ('default', (0, 0)): '2de64cd181546bb4',
    ('default', (1, 1)): 'e6b6cb4c037534aa',
    ('default', (0, 1)): '29319c8acc22cb39',
    ('default', (1, 0)): '47b285efc4a81051',
    ('random_deploy_material', (0, 0)): '76c10ae1a708897e',
    ('random_deploy_material', (1, 1)): '5cf1d9ac93af04b5',
    ('random_deploy_material', (0, 1)): '36f233e26dc8f313',
    ('random_deploy_material', (1, 0)): '6a522ce81fe6a984',
}


@pytest.mark.parametrize("name,over", [("default", {}),
                                       ("random_deploy_material",
                                        {"deployment": "random", "cap_result": "material", "max_turns": 40})])
@pytest.mark.parametrize("pol", [(0, 0), (1, 1), (0, 1), (1, 0)])
def test_existing_policies_records_unchanged(name, over, pol):
    Pm = params(**over)
    r, agg = play_mod.run_chunk(Pm, 2024, 10, np.array([g % 2 for g in range(60)], np.int8), list(pol), 6)
    h = hashlib.sha256(r.tobytes() + agg.astype(np.int64).tobytes()).hexdigest()[:16]
    assert h == GOLDEN[(name, pol)]
