"""Storm the Castle: invariants over reachable states, determinism, caps, records, trace."""
import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle import rules as R
from simkit.games.storm_the_castle.play import Game
from simkit.games.storm_the_castle.state import (END_REASONS, G_OVER, G_REASON, G_TURN, G_WINNER, R_LIMIT, R_STALEMATE)
from storm_helpers import Table, check_invariants, params

P = params()
FIELDS = list(SPEC.record_fields)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**40), first=st.integers(0, 1), pols=st.sampled_from([(0, 0), (1, 1), (0, 1), (1, 0)]),
       sick=st.booleans(), clears=st.booleans())
def test_conservation_and_stacking_after_every_turn(seed, first, pols, sick, clears):
    p = P if not (sick or clears) else params(summoning_sickness=sick, melee_clears_stack=clears)
    g = Game(p, seed, 0, first)
    check_invariants(g)
    while not g.over:
        g.play_turn(pols)
        check_invariants(g)
        assert g.g[G_TURN] <= p.iopt[R.O_MAXTURNS]


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**31), first=st.integers(0, 1), clears=st.booleans())
def test_invariants_after_every_action(seed, first, clears):
    """Uniformly random actions one at a time through the step API (dice from the game's stream)."""
    import random
    picks = random.Random(seed)
    p = P if not clears else params(melee_clears_stack=True)
    g = Game(p, seed, 0, first)
    seen_kinds = set()
    for turn in range(60):
        g.g[G_TURN] = turn
        g.begin_turn()
        for phase in (0, 1):
            while True:
                o = g.options(phase)
                a = picks.choice(o) if len(o) > 1 and picks.random() < 0.9 else o[0]
                if a[0] == 0:
                    break
                seen_kinds.add(a[0])
                g.g[2] = phase
                g.apply(a)
                check_invariants(g)
                if g.g[G_OVER]:
                    assert g.options(0) == [(0, -1, -1)] and g.options(1) == [(0, -1, -1)]
                    return
            g.g[2] = 1
        g.g[1] = 1 - g.g[1]
    assert {1, 2} <= seen_kinds


def test_step_api_plays_the_batch_game():
    """Turn by turn through the step API gives the batch kernel's game (same seed and index)."""
    n = 6
    firsts = (np.arange(n) % 2).astype(np.int8)
    rec, _ = SPEC.run_chunk(P, 11, 0, firsts, np.array([1, 0]), 1000)
    skip = {i for i, f in enumerate(FIELDS) if f.startswith(("snap_", "final_", "deck_left", "hand_left", "grave_"))}
    for i in range(n):
        g = Game(P, 11, i, int(firsts[i]))
        while not g.over:
            g.play_turn((1, 0))
        g.rec[1] = g.g[G_WINNER]
        g.rec[2] = g.g[G_TURN]
        g.rec[3] = g.g[G_REASON] if g.g[G_OVER] else R_LIMIT
        keep = [j for j in range(len(FIELDS)) if j not in skip]
        assert np.array_equal(g.rec[keep], rec[i, keep]), i


def test_determinism_chunks_and_threads():
    n = 60
    firsts = (np.arange(n) % 2).astype(np.int8)
    pols = np.array([1, 0])
    whole, agg = SPEC.run_chunk(P, 5, 0, firsts, pols, 10)
    a, agg_a = SPEC.run_chunk(P, 5, 0, firsts[:17], pols, 10)
    b, agg_b = SPEC.run_chunk(P, 5, 17, firsts[17:], pols, 10)
    assert np.array_equal(whole, np.concatenate([a, b]))
    assert np.array_equal(agg, agg_a + agg_b)
    numba.set_num_threads(1)
    try:
        one, agg1 = SPEC.run_chunk(P, 5, 0, firsts, pols, 10)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(whole, one) and np.array_equal(agg, agg1)
    other, _ = SPEC.run_chunk(P, 6, 0, firsts, pols, 10)
    assert not np.array_equal(whole, other)


def test_records_and_aggregate_are_consistent():
    n = 300
    firsts = (np.arange(n) % 2).astype(np.int8)
    rec, agg = SPEC.run_chunk(P, 2, 0, firsts, np.array([1, 1]), 10)
    col = {f: rec[:, i].astype(np.int64) for i, f in enumerate(FIELDS)}
    assert set(np.unique(col["end_reason"])) <= {0, 1, 2}
    assert ((col["winner"] >= 0) == (col["end_reason"] == 0)).all()
    assert agg.shape == (len(P.spnames),) and SPEC.aggregate_index(P) == list(P.spnames)
    units = [u for u in P.names if P.ctab[P.names.index(u), R.T_KIND] != R.K_ITEM]
    deaths = sum(col[f"losses_{s}_{u}"] for s in (0, 1) for u in units)
    kills = sum(col[f"kills_{s}_{u}"] for s in (0, 1) for u in units)
    crits = sum(col[f"crit_fails_{s}_{u}"] for s in (0, 1) for u in units if P.ctab[P.names.index(u), R.T_RANGE] == 0)
    assert agg.sum() == kills.sum()                           # kills per space
    assert (kills + crits == deaths).all()                    # every death is a kill or a melee critical failure
    for s in (0, 1):
        total = sum(P.copies[s])
        units = [u for u in P.names if P.ctab[P.names.index(u), R.T_KIND] != R.K_ITEM]
        on_board = sum(col[f"final_{s}_{u}"] for u in P.names)
        assert (col[f"deck_left_{s}"] + col[f"hand_left_{s}"] + col[f"grave_{s}"] + on_board == total).all()
        for u in units:
            assert (col[f"successes_{s}_{u}"] <= col[f"attacks_{s}_{u}"]).all()
            assert (col[f"crit_fails_{s}_{u}"] <= col[f"attacks_{s}_{u}"]).all()
        kills = sum(col[f"kills_{s}_{u}"] for u in units)
        losses_other = sum(col[f"losses_{1 - s}_{u}"] for u in units)
        assert (kills <= losses_other).all()
        disp = sum(col[f"dispatched_{s}_{u}"] for u in P.names)
        assert (disp > 0).all()


def test_max_turns_cap_is_a_draw():
    p = params(max_turns=3)
    rec, _ = SPEC.run_chunk(p, 1, 0, np.zeros(20, np.int8), np.array([0, 1]), 10)
    assert (rec[:, 1] == -1).all() and (rec[:, 2] == 3).all()
    assert (rec[:, 3] == END_REASONS.index("move_limit")).all()


def test_stalemate_when_nobody_can_do_anything():
    t = Table()
    t.to_hand(0, "great_sword")                # an item with no regular unit to carry it
    t.empty_deck(1)
    t.empty_deck(0)
    t.g.play_turn((0, 0))
    assert t.g.g[G_OVER] == 0
    t.g.play_turn((0, 0))
    assert t.g.g[G_OVER] == 1 and t.g.g[G_REASON] == R_STALEMATE and t.g.g[G_WINNER] == -1


def test_no_stalemate_while_a_deck_can_draw():
    t = Table()
    t.empty_deck(1)
    for _ in range(6):
        t.g.play_turn((1, 1))
    assert t.g.g[G_OVER] == 0 or t.g.g[G_REASON] != R_STALEMATE


def test_play_trace_is_readable_and_matches():
    text = SPEC.play(P, 1, 0, 0, (1, 1))
    rec, _ = SPEC.run_chunk(P, 1, 0, np.zeros(1, np.int8), np.array([1, 1]), 10)
    assert "== turn 1: side 0 ==" in text and "draws" in text and "dispatch" in text
    assert "rolls" in text
    last = text.strip().splitlines()[-1]
    assert END_REASONS[rec[0, 3]] in last and f"after {rec[0, 2]} turns" in last
    assert SPEC.perft is None and "hidden" in SPEC.perft_note and SPEC.length_unit == "turns"


def test_greedy_beats_random():
    n = 200
    firsts = (np.arange(n) % 2).astype(np.int8)
    rec, _ = SPEC.run_chunk(P, 9, 0, firsts, np.array([1, 0]), 10)
    assert (rec[:, 1] == 0).mean() > 0.8


def test_traces_replay_exactly():
    """play_text replays the kernel's log and checks it reaches the kernel's final position."""
    for seed in range(4):
        for pols in ((0, 0), (1, 1), (0, 1)):
            SPEC.play(P, seed, seed, seed % 2, pols)
    p = params(melee_clears_stack=True, summoning_sickness=True)
    SPEC.play(p, 3, 0, 0, (0, 0))
