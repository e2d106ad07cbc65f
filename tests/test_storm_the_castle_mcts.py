"""Storm the Castle: mcts:N on the one search engine (search.py's hooks) and the eps degrader.

Budgets stay small and games few: these check behaviour (strength is measured by
scripts/storm_search_knobs.py and `simkit ladder`, docs/games/storm_the_castle.md), except the
test that a doubled budget wins."""
from fractions import Fraction

import numba
import numpy as np
import pytest

from simkit.engine.dice import STORM_O_CRIT_FAIL, STORM_O_FAIL, STORM_O_SUCCESS, storm_distribution
from simkit.engine.search import K_CHANCE, ROOT, TF_PRIOR, TF_VISITS, TI_CODE, TI_COUNT, TI_FIRST, TI_KIND, TI_NEXT
from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle import play as storm_play
from simkit.games.storm_the_castle.moves import modifier_nb
from simkit.games.storm_the_castle.play import Game, policy_array, search_scratch
from simkit.games.storm_the_castle.search import decision_label, n_actions
from simkit.games.storm_the_castle.state import (C_OWNER, C_TYPE, C_ZONE, G_OVER, G_PHASE, G_SIDE, G_WINNER,
                                                 L_DECK, L_HAND, PH_ACTIONS, PH_DISPATCH, Z_BOARD, Z_DECK, Z_HAND)
from simkit.policies import policy_vector
from storm_helpers import Table, params

P = params()


def search(g: Game, budget, rng_state):
    """One search from ``g`` with the rng at ``rng_state``: (decision label, used tree rows ti, tf)."""
    srch = search_scratch(g.p, policy_array([0, 0, budget, budget]))
    g.rng[:] = rng_state
    code = g.search(budget, srch)
    ti, tf = srch[0][0], srch[0][1]
    used = ti[ROOT, TI_COUNT]
    return decision_label(g.p, code), ti[:used].copy(), tf[:used].copy()


def play_label(g: Game, label):
    """Play the option whose decision label is ``label``; the outcome of a roll as the game rolls it."""
    opts = g.options()
    labels = [decision_label(g.p, g.code(o)) for o in opts]
    return g.apply(opts[labels.index(label)])


def root_children(g, ti, tf):
    """{label: (visits, kind, child row)} of the root's children."""
    out = {}
    ch = ti[ROOT, TI_FIRST]
    while ch >= 0:
        out[decision_label(g.p, int(ti[ch, TI_CODE]))] = (tf[ch, TF_VISITS], ti[ch, TI_KIND], ch)
        ch = ti[ch, TI_NEXT]
    return out


def test_decision_codes_are_stable_ids_in_the_declared_space():
    """Every option of real decisions has a code in [0, n_actions) that names it alone, and the label names
    the cards and spaces it involves."""
    size = n_actions(P)
    seen = 0
    for turns in range(12):
        g = Game(P, 3, 0, 0)
        for _ in range(turns):
            g.play_turn((1, 1))
        g.begin_turn()
        for phase in (PH_DISPATCH, PH_ACTIONS):
            g.g[G_PHASE] = phase
            codes = [g.code(o) for o in g.options()]
            assert len(set(codes)) == len(codes)
            assert all(0 <= c < size for c in codes)
            seen += len(codes)
    assert seen > 100
    t = Table(side=0)
    t.put(0, "knight", "L3")
    t.put(1, "shield_bearer", "HR1")
    assert "attack L3/top -> HR1/top" in [decision_label(P, t.g.code(o)) for o in t.g.options()]


def test_finds_a_win_two_decisions_deep_without_the_shortcut():
    """Two Support units stacked in the enemy keep: the first attack kills the top one (the attacker stays),
    the second, by another unit, empties the keep and advances into it. With ``mcts_decisive`` off no
    decision is played without search; among more than fifteen options the search finds both."""
    p = params(mcts_decisive=False)
    for seed in range(3):
        t = Table(p, side=0)
        t.put(0, "knight", "TL1")
        t.put(0, "shield_bearer", "BL1")
        t.put(0, "cavalry", "L3")
        t.put(0, "hero", "K0")
        t.put(0, "knight", "OR0")
        t.put(1, "cleric", "K1")
        t.put(1, "sorcerer", "K1")
        t.put(1, "catapult", "HR1")           # a Support unit worth more than either: greedy's attack
        t.put(1, "assassin", "OR1")
        g = t.g
        assert len(g.options()) > 15
        first, _, _ = search(g, 200, np.array([1000 + seed], np.uint64))
        assert first in ("attack TL1/top -> K1/top", "attack BL1/top -> K1/top"), first
        play_label(g, first)
        second, _, _ = search(g, 200, np.array([2000 + seed], np.uint64))
        assert second in ("attack TL1/top -> K1/top", "attack BL1/top -> K1/top"), second
        play_label(g, second)
        assert g.g[G_OVER] == 1 and g.g[G_WINNER] == 0


def play_own_turn(g: Game, budget, seed):
    """The searcher's whole turn from its dispatch phase: each decision from ``search`` (one that has a
    single option played as the game loop plays it); the labels chosen."""
    side = int(g.g[G_SIDE])
    rng = np.array([seed], np.uint64)
    labels = []
    for _ in range(12):
        opts = g.options()
        if g.g[G_OVER] or g.g[G_SIDE] != side or (len(opts) <= 1 and g.g[G_PHASE] == PH_ACTIONS):
            break
        label = "end dispatch" if len(opts) <= 1 else search(g, budget, rng)[0]
        rng += 1
        labels.append(label)
        if label == "end turn":
            break
        if label == "end dispatch":
            g.apply(opts[0])
        else:
            play_label(g, label)
    return labels


def test_the_search_guards_its_keep_over_a_whole_turn():
    """An enemy Knight stands next to the empty own keep and will walk in next turn unless a Regular unit
    holds the keep or the Knight dies. With a Hero or a Knight in hand the search's turn (dispatch, then
    actions, several decisions planned in one tree) ends with the keep held or the Knight dead."""
    for card in ("hero", "knight"):
        for seed in range(3):
            t = Table(side=0)
            enemy = t.put(1, "knight", "TL0")
            t.put(1, "hero", "K1")
            t.put(0, "shield_bearer", "L3")
            t.to_hand(0, card)
            t.to_hand(1, "cavalry")
            t.g.g[G_PHASE] = PH_DISPATCH
            labels = play_own_turn(t.g, 100, 7 + seed)
            top = t.g.sp[t.sp("K0"), 0]
            held = top >= 0 and t.g.cards[top, C_OWNER] == 0 and P.names[t.g.cards[top, C_TYPE]] == card
            assert held or t.g.cards[enemy, C_ZONE] != Z_BOARD, (card, seed, labels)
            assert labels[0].startswith(f"dispatch {card}"), labels


def test_chance_nodes_carry_the_exact_dice_probabilities():
    """After a search, each attack at the root is a chance node whose outcomes are `simkit dice`'s exact
    classes (a melee attack: failure, success, critical failure; a ranged one: failure with the critical
    failure, success); a Cleric's prayer succeeds with P(2d6 = 7) = 1/6; an attack on a Support unit
    (no roll, ST-3) is no chance node."""
    t = Table(side=0)
    knight = t.put(0, "knight", "HL0")
    cat = t.put(0, "catapult", "OL1")
    t.put(0, "cleric", "TR0")
    t.to_grave(0, "cavalry")
    sb = t.put(1, "shield_bearer", "L2")
    kn = t.put(1, "knight", "TL1")
    t.put(1, "assassin", "OL0")
    label, ti, tf = search(t.g, 300, np.array([5], np.uint64))
    kids = root_children(t.g, ti, tf)
    checked = set()
    for lab, (visits, kind, ch) in kids.items():
        if not (lab.startswith("attack") or lab.startswith("cleric")) or visits == 0:
            continue
        if lab.startswith("cleric"):
            assert kind == K_CHANCE
            want = {STORM_O_FAIL: Fraction(5, 6), STORM_O_SUCCESS: Fraction(1, 6)}
        elif "-> OL0/top" in lab:             # the Assassin: a Support unit dies without a roll
            assert kind != K_CHANCE
            checked.add("support")
            continue
        else:
            assert kind == K_CHANCE, lab
            att = knight if lab.startswith("attack HL0") else cat
            tgt = sb if "-> L2" in lab else kn
            d = storm_distribution(int(modifier_nb(t.g.cards, t.g.sp, P.ctab, P.spi, np.int64(att), np.int64(tgt),
                                                   np.int64(0))))
            if att == knight:
                want = {STORM_O_FAIL: d["failure"] - d["critical_failure"], STORM_O_SUCCESS: d["success"],
                        STORM_O_CRIT_FAIL: d["critical_failure"]}
            else:
                want = {STORM_O_FAIL: d["failure"], STORM_O_SUCCESS: d["success"]}
        got = {}
        o = ti[ch, TI_FIRST]
        while o >= 0:
            got[int(ti[o, TI_CODE])] = tf[o, TF_PRIOR]
            o = ti[o, TI_NEXT]
        assert got == {k: float(v) for k, v in want.items() if v > 0}, (lab, got, want)
        checked.add(lab.split()[0] + (" ranged" if "OL1" in lab else ""))
    assert checked == {"attack", "attack ranged", "cleric", "support"}, (checked, kids.keys())


def _midgame(seed=5, turns=4):
    """A real greedy game after at most ``turns`` turns (fewer if greedy has emptied a hand by
    then), at the next player's dispatch decision: units on the board, cards in both hands."""
    for t in range(turns, 0, -1):
        g = Game(P, seed, 0, 0)
        for _ in range(t):
            g.play_turn((1, 1))
        g.begin_turn()
        g.g[G_PHASE] = PH_DISPATCH
        s = int(g.g[G_SIDE])
        if g.zn[1 - s, L_HAND] > 0 and g.zn[s, L_HAND] > 0 and len(g.options()) > 1:
            return g
    raise AssertionError("no suitable position")


def _swap_hand_and_deck(g: Game, side):
    """Exchange side's first hand card with a deck card of another type (same counts)."""
    h = g.zones[side, L_HAND, 0]
    for i in range(g.zn[side, L_DECK]):
        d = g.zones[side, L_DECK, i]
        if g.cards[d, C_TYPE] != g.cards[h, C_TYPE]:
            g.zones[side, L_HAND, 0], g.zones[side, L_DECK, i] = d, h
            g.cards[d, C_ZONE], g.cards[h, C_ZONE] = Z_HAND, Z_DECK
            return
    raise AssertionError("no card of another type in the deck")


def _reverse_deck(g: Game, side):
    n = g.zn[side, L_DECK]
    g.zones[side, L_DECK, :n] = g.zones[side, L_DECK, :n][::-1].copy()


def test_decision_ignores_the_hidden_cards():
    """Same seed: the opponent's hand, its deck order and the mover's deck order change, and the
    whole search tree (hence the decision) stays the same; the mover's own hand is a control."""
    for seed, turns in ((5, 4), (9, 6)):
        g = _midgame(seed, turns)
        s = int(g.g[G_SIDE])
        o = 1 - s
        assert g.zn[o, L_HAND] > 0 and g.zn[o, L_DECK] > 0 and g.zn[s, L_HAND] > 0
        assert len(g.options()) > 1
        state = g.rng.copy()
        k0, ti0, tf0 = search(g, 40, state)
        _swap_hand_and_deck(g, o)
        _reverse_deck(g, o)
        _reverse_deck(g, s)
        k1, ti1, tf1 = search(g, 40, state)
        assert k1 == k0
        assert np.array_equal(ti1, ti0) and np.array_equal(tf1, tf0)
        # control: the mover's own hand is information it has, so the search must see the change
        _swap_hand_and_deck(g, s)
        _, ti2, tf2 = search(g, 40, state)
        assert ti2.shape != ti0.shape or not (np.array_equal(ti2, ti0) and np.array_equal(tf2, tf0))


def test_search_leaves_the_real_game_alone():
    g = _midgame()
    before = [a.copy() for a in (g.cards, g.sp, g.zones, g.zn, g.g)]
    search(g, 25, g.rng.copy())
    for a, b in zip(before, (g.cards, g.sp, g.zones, g.zn, g.g)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("searcher", ["mcts:12", "mcts:12/mcts_reuse=true"])
def test_records_same_for_threads_and_chunk_sizes(monkeypatch, searcher):
    from simkit.engine.runner import RunConfig, simulate
    from simkit.scenario import load_scenario
    seen = []
    batch = storm_play.run_batch_nb

    def spy(*args):
        seen.append(numba.get_num_threads())
        return batch(*args)

    monkeypatch.setattr(storm_play, "run_batch_nb", spy)
    sc = load_scenario("storm_the_castle", ["max_turns=30"])
    out = {}
    for threads, chunk in ((1, 4), (2, 4), (2, 1), (1, 3)):
        cfg = RunConfig(games=4, seed=3, policies=(searcher, "eps:0.2:greedy"), chunk_size=chunk)
        seen.clear()
        out[threads, chunk] = simulate(sc, cfg, threads=threads, progress=False).records()
        assert seen and set(seen) == {threads}, (threads, seen)     # the runner plays on what it was told
    ref = out[1, 4]
    assert (ref[:, 1] >= -1).all() and ref.shape[0] == 4
    for key, rec in out.items():
        assert np.array_equal(rec, ref), key


def test_eps_zero_is_the_inner_policy_and_eps_plays_randomly():
    firsts = (np.arange(30) % 2).astype(np.int8)
    run = lambda names: SPEC.run_chunk(P, 2, 0, firsts, policy_vector(SPEC, names), 20)[0]   # noqa: E731
    greedy = run(["greedy", "greedy"])
    assert np.array_equal(run(["eps:0:greedy", "eps:0:greedy"]), greedy)
    assert not np.array_equal(run(["eps:0.5:greedy", "greedy"]), greedy)


def test_play_trace_names_the_search_policy():
    sc_p = params(max_turns=4)
    text = SPEC.play(sc_p, 0, 1, 1, tuple(policy_vector(SPEC, ["mcts:8", "eps:0.1:greedy"])))
    assert "policies: side 0 = mcts:8, side 1 = eps:0.1:greedy" in text   # the common header (games/trace.py)
    assert "result:" in text


def test_search_2n_beats_n():
    """mcts:32 against mcts:16 on the default scenario, paired seeds and both seat orders: the lower end of the
    95% score interval above 1/2 (measured 0.66 [0.55, 0.75] at 30 games per seat order)."""
    from simkit.analysis.matchup import pair_score
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    c = pair_score(load_scenario("storm_the_castle"), RunConfig(games=40, seed=3), "mcts:32", "mcts:16", threads=1)
    assert c["ci"][0] > 0.5, (c["score"], c["ci"])
