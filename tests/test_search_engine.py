"""The one search engine (simkit/engine/search.py), proven on the toy game Dice Race, which gets
``mcts:N`` from its hooks alone (tests/toygame/search.py): chance nodes with exact probabilities,
probability-weighted values, a stronger budget beating a weaker one, determinism."""
import numpy as np
import pytest

from simkit.engine.search import (K_CHANCE, K_DECISION, ROOT, TF_PRIOR, TF_VALUE, TF_VISITS, TI_FIRST, TI_KIND,
                                  TI_NEXT, TI_OWNER, child_q_nb, new_tree_nb, tree_capacity)
from simkit.policies import policy_vector


@pytest.fixture
def toy(monkeypatch):
    from simkit.games import GAMES, _loaded
    monkeypatch.setitem(GAMES, "dice_race", "toygame")
    _loaded.pop("dice_race", None)
    from simkit.games import get_game
    return get_game("dice_race")


def _params(spec, **over):
    rules = {o.name: o.default for o in spec.options}
    rules.update(over)
    return spec.prepare(rules)


def _search_from(params, pos, side, roll, budget, seed=1):
    from toygame.search import NMETA, choose_nb, new_state
    root = new_state(8)
    root[0][:, :] = pos
    root[1][:] = (side, 10, -2, roll)[:NMETA]
    tree = new_tree_nb(tree_capacity(budget, 8), 8, 6)
    rng = np.array([seed], np.uint64)
    code = choose_nb((params[0], params[1][0]), root, new_state(8), new_state(8), budget, rng, tree)
    return code, tree


def _children(ti, node):
    out = []
    ch = ti[node, TI_FIRST]
    while ch >= 0:
        out.append(ch)
        ch = ti[ch, TI_NEXT]
    return out


def test_chance_nodes_carry_exact_probabilities_and_weight_values_by_them(toy):
    """Each decision leads to the opponent's die: a chance node whose six outcomes carry 1/6 each, are
    visited in proportion (stratified), and whose value is the probability-weighted mean of theirs."""
    p = _params(toy)
    pos = np.zeros((2, 8), np.int64)
    pos[0, :3] = (3, 8, 12)
    pos[1, :3] = (5, 9, 17)
    _, (ti, tf, *_rest) = _search_from(p, pos, 0, 4, 400)
    assert ti[ROOT, TI_KIND] == K_DECISION
    chance = [c for c in _children(ti, ROOT) if ti[c, TI_KIND] == K_CHANCE]
    assert len(chance) == 3
    for c in chance:
        outs = _children(ti, c)
        assert len(outs) == 6 and all(tf[o, TF_PRIOR] == 1.0 / 6.0 for o in outs)
        assert all(ti[o, TI_OWNER] == ti[c, TI_OWNER] == 0 for o in outs)
        visits = np.array([tf[o, TF_VISITS] for o in outs])
        assert visits.max() - visits.min() <= 1          # stratified: in proportion to 1/6 each
        means = np.array([tf[o, TF_VALUE] / tf[o, TF_VISITS] for o in outs])
        assert abs(child_q_nb(ti, tf, c) - means.mean()) < 1e-12
        assert means.max() - means.min() > 0.01           # the outcomes really differ


def _pair_scores(spec, params, strong, weak, games, seed=3):
    """Per game pair (both seat orders, same seed and index): the strong policy's mean score."""
    from simkit.engine.chunk import play_chunk
    a = tuple(int(x) for x in policy_vector(spec, [strong, weak]))
    b = tuple(int(x) for x in policy_vector(spec, [weak, strong]))
    _, r1, _ = play_chunk("dice_race", params, seed, 0, games, "alternate", a, 10)
    _, r2, _ = play_chunk("dice_race", params, seed, 0, games, "alternate", b, 10)
    s1 = np.where(r1[:, 1] == 0, 1.0, np.where(r1[:, 1] == 1, 0.0, 0.5))
    s2 = np.where(r2[:, 1] == 1, 1.0, np.where(r2[:, 1] == 0, 0.0, 0.5))
    return (s1 + s2) / 2


def test_double_the_budget_plays_better(toy):
    """mcts:32 against mcts:16 over 300 paired games: the pair-score interval lies above 1/2."""
    d = _pair_scores(toy, _params(toy), "mcts:32", "mcts:16", 300)
    lo = d.mean() - 1.96 * d.std(ddof=1) / np.sqrt(len(d))
    assert lo > 0.5, (d.mean(), lo)


def test_search_beats_greedy(toy):
    d = _pair_scores(toy, _params(toy), "mcts:64", "greedy", 200)
    assert d.mean() - 1.96 * d.std(ddof=1) / np.sqrt(len(d)) > 0.5, d.mean()


def test_early_stop_plays_the_whole_budgets_choice_in_fewer_iterations(toy):
    """mcts_stop ends a search once its most visited decision leads every other by more than the iterations
    left: from the same position and seed it chooses what the whole budget chooses, and where it stopped,
    the lead was larger than the iterations it skipped."""
    full, stop = _params(toy), _params(toy, mcts_stop=True)
    draw = np.random.default_rng(5)
    budget, stopped = 200, 0
    for k in range(60):
        pos = np.zeros((2, 8), np.int64)
        pos[:, :3] = draw.integers(0, 18, size=(2, 3))
        side, roll = int(draw.integers(0, 2)), int(draw.integers(1, 7))
        code, _ = _search_from(full, pos, side, roll, budget, seed=k)
        code_stop, (ti, tf, *_rest) = _search_from(stop, pos, side, roll, budget, seed=k)
        assert code_stop == code, k
        made = tf[ROOT, TF_VISITS]
        if made < budget:
            stopped += 1
            visits = sorted(tf[c, TF_VISITS] for c in _children(ti, ROOT))
            assert visits[-1] - (visits[-2] if len(visits) > 1 else 0) > budget - made
    assert stopped >= 10, stopped


def test_reroot_keeps_the_chosen_subtree_and_drops_the_rest():
    """mcts_reuse's re-rooting on a hand-built tree: the child's subtree moves to the front with its links,
    codes and statistics, everything else is dropped."""
    from simkit.engine.search import TF_VALUE as V, TI_CODE, TI_COUNT, TI_PARENT, reroot_nb
    ti, tf = new_tree_nb(16, 4, 1)[:2]
    path = np.zeros(16, np.int64)
    # node: (parent, code); children are contiguous and created after their parents, as the engine makes them
    nodes = [(-1, 0), (0, 10), (0, 11), (0, 12), (2, 20), (2, 21), (1, 30), (4, 40), (4, 41), (3, 50)]
    for k, (par, code) in enumerate(nodes):
        ti[k, TI_CODE], ti[k, TI_PARENT], ti[k, TI_FIRST], ti[k, TI_NEXT] = code, par, -1, -1
        tf[k, TF_VISITS], tf[k, V] = 100 - k, 0.5 * (100 - k)
        sibs = [j for j, (q, _) in enumerate(nodes) if q == par and par >= 0]
        if par >= 0 and sibs[0] == k:
            ti[par, TI_FIRST] = k
        if par >= 0 and k != sibs[-1]:
            ti[k, TI_NEXT] = k + 1
    ti[ROOT, TI_COUNT] = len(nodes)
    reroot_nb(ti, tf, path, 2)
    assert ti[ROOT, TI_COUNT] == 5
    assert ti[ROOT, TI_PARENT] == -1 and ti[ROOT, TI_NEXT] == -1 and tf[ROOT, TF_VISITS] == 98
    kids = _children(ti, ROOT)
    assert [ti[k, TI_CODE] for k in kids] == [20, 21] and [tf[k, TF_VISITS] for k in kids] == [96, 95]
    assert all(ti[k, TI_PARENT] == ROOT for k in kids)
    grand = _children(ti, kids[0])
    assert [ti[k, TI_CODE] for k in grand] == [40, 41] and [tf[k, TF_VISITS] for k in grand] == [93, 92]
    assert all(ti[k, TI_PARENT] == kids[0] for k in grand) and _children(ti, kids[1]) == []
