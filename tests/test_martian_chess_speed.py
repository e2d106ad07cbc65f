"""The bitboard move generator (issue 13) against a plain generator written from RULES.md §2.

The reference below knows nothing of the kernel's rays, tables or bitboards: cells are
(row, col), pieces move by direction vectors, and ownership is the zone the cell lies in.
On positions reached by random play it must give exactly the kernel's moves; the kernel's
count-then-select random choice (count_moves_nb + nth_move_nb, no list) must pick, for every
draw, the move the list-based choice (gen_moves_nb's list indexed by the draw) picked; and
greedy's incremental candidate values must equal copying the position, playing the move and
valuing it from scratch (the reference's capturable pieces).
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hst

from simkit.engine.rng import rng_below_nb, rng_seed_nb
from simkit.games.martian_chess import SPEC
from simkit.games.martian_chess import bits
from simkit.games.martian_chess import moves as mv
from simkit.games.martian_chess import state as st
from simkit.games.martian_chess.play import play_one
from simkit.games.martian_chess.policies import WIN, after_move_value_nb

PAWN_STEPS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ORTHO = ((1, 0), (-1, 0), (0, 1), (0, -1))


def params(**rules):
    base = {o.name: o.default for o in SPEC.options}
    base.update(rules)
    return SPEC.prepare(base)


def zone(cell):
    return 0 if cell < 16 else 1     # rows 1-4 are player 0's, rows 5-8 player 1's


def reference_moves(board, p, last_from, last_to, promote):
    """RULES §2 "Moves", MC-2, MC-3: the set of (from, to) the mover p may play."""
    own = [c for c in range(32) if board[c] and zone(c) == p]
    has_queen = any(board[c] == 3 for c in own)
    has_drone = any(board[c] == 2 for c in own)
    out = set()
    for s in own:
        v = board[s]
        steps, reach = {1: (PAWN_STEPS, 1), 2: (ORTHO, 2), 3: (ORTHO + PAWN_STEPS, 7)}[v]
        r0, c0 = divmod(s, 4)
        for dr, dc in steps:
            for k in range(1, reach + 1):
                r, c = r0 + dr * k, c0 + dc * k
                if not (0 <= r < 8 and 0 <= c < 4):
                    break
                t = r * 4 + c
                w = board[t]
                if w == 0 or zone(t) != p:
                    ok = True                        # empty, or a capture in the opponent's zone
                else:                                # an own piece: only a field promotion
                    ok = promote and ((not has_queen and {v, w} == {1, 2}) or
                                      (not has_drone and v == 1 and w == 1))
                if ok and not (s == last_to and t == last_from):   # MC-3 no rejection
                    out.add((s, t))
                if w:
                    break                            # nothing jumps
    return out


def reference_hanging(board, attacker):
    """Pips of the best piece in the other zone that one of ``attacker``'s pieces could capture."""
    best = 0
    for _, t in reference_moves(board, attacker, -1, -1, False):
        if board[t] and zone(t) != attacker:
            best = max(best, board[t])
    return best


def random_position(seed, plies, first, p):
    """The position after ``plies`` uniformly random plies (fewer if the game ends first)."""
    init, tab, rules = p[:3]
    board, meta = init.copy(), st.new_meta(first, init, int(rules[st.R_KOMI]))
    out = np.zeros(st.MAX_MOVES, np.int32)
    rng = np.zeros(1, np.uint64)
    rng_seed_nb(rng, seed, 0)
    for _ in range(plies):
        mv.start_turn_nb(meta, rules)
        n = mv.gen_moves_nb(board, meta, tab, rules, out)
        if n == 0:
            break
        mv.apply_move_nb(board, meta, rules, out[rng_below_nb(rng, n)])
        if meta[st.M_END] >= 0:
            break
    mv.start_turn_nb(meta, rules)
    return board, meta


@settings(max_examples=60, deadline=None)
@given(seed=hst.integers(0, 2**40), plies=hst.integers(0, 150), first=hst.integers(0, 1),
       promote=hst.booleans())
def test_bitboard_moves_equal_the_reference_and_count_then_select_equals_the_list(seed, plies, first, promote):
    p = params(field_promotion=promote)
    board, meta = random_position(seed, plies, first, p)
    if meta[st.M_END] >= 0:
        return
    tab, rules = p[1], p[2]
    # the masks the kernel keeps move by move are the board's
    assert [int(x) for x in meta[st.M_BITS:st.M_BITS + 3]] == \
        [m - (1 << 32) if m >= 1 << 31 else m for m in st.bitboards(board)]
    out = np.zeros(st.MAX_MOVES, np.int32)
    n = mv.gen_moves_nb(board, meta, tab, rules, out)
    listed = [(int(m) // 32, int(m) % 32) for m in out[:n]]
    ref = reference_moves(board.tolist(), int(meta[st.M_TO_MOVE]), int(meta[st.M_LAST_FROM]),
                          int(meta[st.M_LAST_TO]), promote)
    assert len(set(listed)) == n and set(listed) == ref
    cnt = np.zeros(st.MAX_MOVES, np.int32)
    assert mv.count_moves_nb(board, meta, tab, rules, cnt) == n
    assert (mv.count_moves_nb(board, meta, tab, rules, cnt.copy(), True) > 0) == (n > 0)   # status_nb's question
    for r in range(n):   # every draw the random policy can make picks the listed move
        assert mv.nth_move_nb(board, meta, tab, rules, cnt, np.int64(r)) == out[r]


@settings(max_examples=30, deadline=None)
@given(seed=hst.integers(0, 2**40), plies=hst.integers(0, 120), first=hst.integers(0, 1),
       clock=hst.sampled_from(["deadlock", "leader", "off"]), max_plies=hst.integers(1, 80))
def test_greedy_incremental_values_equal_play_then_evaluate(seed, plies, first, clock, max_plies):
    p = params(clock=clock, max_plies=max_plies, deadlock_plies=3, clock_plies=2)
    board, meta = random_position(seed, plies, first, p)
    if meta[st.M_END] >= 0:
        return
    tab, rules = p[1], p[2]
    q = int(meta[st.M_TO_MOVE])
    weights = p[3][q]      # the mover's row: score, pawn, drone, queen (greedy_material per pip), hanging
    bb = [int(x) for x in st.bitboards(board)]
    out = np.zeros(st.MAX_MOVES, np.int32)
    for m in out[:mv.gen_moves_nb(board, meta, tab, rules, out)]:
        b, x = board.copy(), meta.copy()
        mv.apply_move_nb(b, x, rules, m)
        if x[st.M_END] >= 0:
            w = int(x[st.M_WINNER])
            want = WIN if w == q else (-WIN if w == 1 - q else 0.0)
        else:
            score = int(x[st.M_SCORE + q]) - int(x[st.M_SCORE + 1 - q])
            material = int(b[16 * q:16 * q + 16].sum()) - int(b[16 * (1 - q):16 * (1 - q) + 16].sum())
            want = weights[0] * score + weights[1] * material - weights[4] * reference_hanging(b.tolist(), 1 - q)
        got = after_move_value_nb(board, meta, tab, rules, weights, np.int64(q), np.int64(bb[0]), np.int64(bb[1]),
                                  np.int64(bb[2]), np.int64(m))
        assert got == want, (st.name_of(m // 32), st.name_of(m % 32))


@given(seed=hst.integers(0, 2**40), game=hst.integers(0, 10_000), first=hst.integers(0, 1))
@settings(max_examples=10, deadline=None)
def test_random_game_draws_as_the_list_based_policy(seed, game, first):
    """The whole random game: each ply draws rng_below(n) once and takes list[draw], as before."""
    p = params()
    init, tab, rules = p[:3]
    _, log = play_one(p, seed, game, first, [0, 0])
    board, meta = init.copy(), st.new_meta(first, init)
    rng = np.zeros(1, np.uint64)
    rng_seed_nb(rng, seed, game)
    out = np.zeros(st.MAX_MOVES, np.int32)
    for ply, played in enumerate(log):
        mv.start_turn_nb(meta, rules)
        n = mv.gen_moves_nb(board, meta, tab, rules, out)
        assert out[rng_below_nb(rng, n)] == played, ply
        mv.apply_move_nb(board, meta, rules, played)
    assert meta[st.M_END] >= 0


def test_bit_tricks_agree_with_their_portable_fallbacks():
    rng = np.random.default_rng(13)
    for x in [1, 2, 3, 0x80000000, 0xFFFFFFFF, 0x11111111] + [int(v) for v in rng.integers(1, 2**32, 200)]:
        x = np.int64(x)
        assert bits.popcount_nb(x) == bits._popcount_swar(x) == bin(int(x)).count("1")
        assert bits.lowest_nb(x) == bits._lowest_debruijn(x) == (int(x) & -int(x)).bit_length() - 1
        assert bits.highest_nb(x) == bits._highest_fold(x) == int(x).bit_length() - 1
        for k in (0, bin(int(x)).count("1") - 1):
            want = [c for c in range(32) if int(x) >> c & 1][k]
            assert bits.nth_bit_nb(x, np.int64(k)) == bits._nth_bit_loop(x, np.int64(k)) == want


def test_reach_lookups_agree_with_the_slides_they_replace():
    """Both versions of the queen / drone reach (PEXT tables, ray slides) on random occupancies."""
    if not bits.HAVE_PDEP:
        pytest.skip("no BMI2: the kernels use the slides")
    tab = params()[1]
    rng = np.random.default_rng(7)
    for occ in [0, 0xFFFFFFFF] + [int(v) for v in rng.integers(0, 2**32, 300)]:
        for s in range(32):
            o = np.int64(occ & ~(1 << s))
            assert mv._queen_reach_pext_nb(tab, s, o) == mv._queen_reach_slides_nb(tab, s, o)
            assert mv._drone_reach_pext_nb(tab, s, o) == mv._drone_reach_steps_nb(tab, s, o)
