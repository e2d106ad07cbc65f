"""Storm the Castle: the ISMCTS policy (mcts:N) and the eps degrader.

Budgets stay small (<= 50 iterations) and games few: these check behaviour, not strength
(strength is measured by `simkit matchup`, docs/games/storm_the_castle.md)."""
import numba
import numpy as np

from simkit.engine.mcts import TI_COUNT
from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle import play as storm_play
from simkit.games.storm_the_castle.mcts import mcts_choose_nb
from simkit.games.storm_the_castle.play import Game, policy_array, search_scratch
from simkit.games.storm_the_castle.state import (ACT_DISPATCH, ACT_MOVE, C_TYPE, C_ZONE, G_OVER, G_PHASE, G_SIDE,
                                                 L_DECK, L_HAND, PH_DISPATCH, Z_DECK, Z_HAND)
from simkit.policies import policy_vector
from storm_helpers import Table, params

P = params()


def search(g: Game, budget, rng_state):
    """Run one search from ``g`` with the rng at ``rng_state``; (choice, used tree rows)."""
    p = g.p
    n = len(g.options())
    ti, tf, ws = search_scratch(p, policy_array([0, 0, budget, budget]))
    g.rng[:] = rng_state
    k = mcts_choose_nb(np.int64(g.g[G_SIDE]), np.int64(budget), p.mparams, np.int64(n), g.buf, g.cards, g.sp,
                       g.zones, g.zn, g.g, p.ctab, p.cval, p.spi, p.adj, p.dist, p.keep, p.iopt, p.fopt, p.ptable,
                       p.prio, p.fidx, g.rng, ti, tf, ws)
    used = ti[0, TI_COUNT]
    return int(k), ti[:used].copy(), tf[:used].copy()


def test_finds_the_win_in_one_move():
    """A knight next to the empty enemy keep among a dozen other options: walking in wins."""
    for seed in range(4):
        t = Table(side=0)
        knight = t.put(0, "knight", "TL1")
        t.put(0, "cavalry", "L2")
        t.put(0, "shield_bearer", "K0")
        t.put(0, "cavalry", "HR0")
        t.put(1, "shield_bearer", "OL1")
        t.put(1, "knight", "BL1")
        t.g.rng[:] = np.uint64(1000 + seed)
        opts = t.g.options()
        win = (ACT_MOVE, knight, t.sp("K1"))
        assert win in opts and len(opts) >= 10
        k, _, _ = search(t.g, 30, t.g.rng.copy())
        assert opts[k] == win, (seed, opts[k])
        t.g.apply(opts[k])
        assert t.g.g[G_OVER] == 1


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


def test_own_hand_changes_the_dispatch():
    """With a Hero in hand the search fields it (it could also end the phase or misplace nothing
    better); with only a Blacksmith it cannot: the decision follows the mover's own hand."""
    picks = []
    for card in ("hero", "blacksmith"):
        t = Table(side=0)
        t.put(0, "shield_bearer", "K0")
        t.put(1, "knight", "K1")
        t.to_hand(0, card)
        for _ in range(3):
            t.to_hand(1, "cavalry")
        t.g.g[G_PHASE] = PH_DISPATCH
        opts = t.g.options()
        k, _, _ = search(t.g, 30, np.array([7], np.uint64))
        picks.append(P.names[t.g.cards[opts[k][1], C_TYPE]] if opts[k][0] == ACT_DISPATCH else "end")
    assert picks[0] == "hero" and picks[1] != "hero"


def test_search_leaves_the_real_game_alone():
    g = _midgame()
    before = [a.copy() for a in (g.cards, g.sp, g.zones, g.zn, g.g)]
    search(g, 25, g.rng.copy())
    for a, b in zip(before, (g.cards, g.sp, g.zones, g.zn, g.g)):
        assert np.array_equal(a, b)


def test_records_same_for_threads_and_chunk_sizes(monkeypatch):
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
        cfg = RunConfig(games=4, seed=3, policies=("mcts:12", "eps:0.2:greedy"), chunk_size=chunk)
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
