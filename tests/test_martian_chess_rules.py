"""Martian Chess: a hand-built position for every rule and ruling of RULES §2."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as hst

from simkit.games import get_game
from simkit.games.martian_chess import moves as mv
from simkit.games.martian_chess import state as st
from simkit.games.martian_chess.play import play_one
from simkit.games.martian_chess.policies import choose_greedy_nb

SPEC = get_game("martian_chess")
C = st.cell_of


def params(**rules):
    base = {o.name: o.default for o in SPEC.options}
    base.update(rules)
    return SPEC.prepare(base)


def position(pieces: dict, to_move=0, **meta_fields):
    board = np.zeros(32, dtype=np.int8)
    for name, pips in pieces.items():
        board[C(name)] = pips
    meta = st.new_meta(to_move, board)
    for k, v in meta_fields.items():
        if k.startswith("score_"):
            meta[st.M_SCORE + int(k[-1])] = v
        else:
            meta[getattr(st, "M_" + k.upper())] = v
    return board, meta


def legal(board, meta, p):
    out = np.zeros(st.MAX_MOVES, dtype=np.int32)
    n = mv.gen_moves_nb(board, meta, p[1], p[2], out)
    return {f"{st.name_of(m // 32)}-{st.name_of(m % 32)}" for m in out[:n]}


def play(board, meta, p, text):
    s, t = text.split("-")
    return mv.apply_move_nb(board, meta, p[2], C(s) * 32 + C(t))


def test_mc1_setup():
    board = params()[0]
    for cells in (({"d1": 3, "c1": 3, "d2": 3, "b1": 2, "c2": 2, "d3": 2, "b2": 1, "c3": 1, "b3": 1}),
                        ({"a8": 3, "b8": 3, "a7": 3, "c8": 2, "b7": 2, "a6": 2, "c7": 1, "b6": 1, "c6": 1})):
        for name, pips in cells.items():
            assert board[C(name)] == pips, name
    assert board.sum() == 36 and np.count_nonzero(board) == 18


def test_piece_movement_and_no_jumping():
    p = params()
    board, meta = position({"b2": 1, "c1": 2, "a4": 3, "c3": 1, "a8": 1})
    moves = legal(board, meta, p)
    assert {m for m in moves if m.startswith("b2")} == {"b2-a1", "b2-a3"}   # pawn: diagonals only
    # drone: one or two straight steps; the own pawn on c3 blocks
    assert {m for m in moves if m.startswith("c1")} == {"c1-c2", "c1-b1", "c1-a1", "c1-d1"}
    assert {"a4-a5", "a4-a6", "a4-a7", "a4-a8", "a4-b5", "a4-c6", "a4-d7", "a4-b4", "a4-a3"} <= moves
    assert "c3-c4" not in moves and "c3-b4" in moves


def test_queen_slides_until_blocked():
    p = params()
    board, meta = position({"a1": 3, "c3": 1, "a5": 1, "a8": 1})
    moves = legal(board, meta, p)
    assert "a1-b2" in moves and "a1-c3" not in moves and "a1-d4" not in moves   # own pawn blocks
    assert "a1-a5" in moves and "a1-a6" not in moves                            # capture ends the slide


def test_capture_scores_pips_and_changes_control():
    p = params()
    board, meta = position({"a4": 3, "a5": 2, "d8": 1})
    assert play(board, meta, p, "a4-a5") == 2
    assert meta[st.M_SCORE] == 2 and board[C("a5")] == 3   # the queen now belongs to player 1's zone
    assert meta[st.M_TO_MOVE] == 1


@pytest.mark.parametrize("pieces,move,merged", [
    ({"b2": 1, "c3": 2, "a1": 1}, "b2-c3", 3),     # pawn onto drone -> queen
    ({"c2": 2, "c3": 1, "a1": 1}, "c2-c3", 3),     # drone onto pawn -> queen
    ({"b2": 1, "c3": 1, "a1": 3}, "b2-c3", 2),     # pawn onto pawn -> drone (no drone controlled)
])
def test_mc2_field_promotion(pieces, move, merged):
    p = params()
    pieces = dict(pieces, a8=1)
    board, meta = position(pieces)
    assert move in legal(board, meta, p)
    play(board, meta, p, move)
    assert board[C(move[-2:])] == merged
    assert meta[st.M_SCORE] == 0


def test_mc2_no_promotion_while_controlling_queen_or_when_off():
    board, meta = position({"b2": 1, "c3": 2, "d1": 3, "a8": 1})
    assert "b2-c3" not in legal(board, meta, params())          # controls a queen
    board, meta = position({"b2": 1, "c3": 1, "d1": 2, "a8": 1})
    assert "b2-c3" not in legal(board, meta, params())          # controls a drone
    board, meta = position({"b2": 1, "c3": 2, "a8": 1})
    assert "b2-c3" not in legal(board, meta, params(field_promotion=False))
    board, meta = position({"c1": 3, "c2": 3, "a8": 1})
    assert "c1-c2" not in legal(board, meta, params())          # queens never merge


def test_mc3_no_rejection_then_allowed_later():
    p = params()
    board, meta = position({"b4": 1, "d7": 1, "a1": 1, "d2": 1})
    play(board, meta, p, "b4-c5")          # player 0 carries a pawn across the canal
    assert "c5-b4" not in legal(board, meta, p) and "c5-d4" in legal(board, meta, p)
    play(board, meta, p, "d7-c8")          # player 1 plays elsewhere
    play(board, meta, p, "a1-b2")          # player 0 quiet move
    assert "c5-b4" in legal(board, meta, p)  # now it may go back


def test_territory_empty_higher_score_wins_and_tie_goes_to_mover():
    p = params()
    board, meta = position({"d4": 1, "a8": 1, "b8": 1}, score_0=0, score_1=2)
    play(board, meta, p, "d4-c5")           # player 0 empties its own zone
    assert meta[st.M_END] == st.END_TERRITORY and meta[st.M_WINNER] == 1
    board, meta = position({"d4": 1, "a8": 1}, score_0=3, score_1=3)
    play(board, meta, p, "d4-c5")
    assert meta[st.M_WINNER] == 0           # equal scores: the player who ended it wins


def _quiet_shuffle(p, plies, to_move=0, **meta_fields):
    board, meta = position({"a1": 2, "d8": 2}, to_move=to_move, **meta_fields)
    shuttle = {0: ("a1-a2", "a2-a1"), 1: ("d8-d7", "d7-d8")}
    for i in range(plies):
        if meta[st.M_END] >= 0:
            return board, meta, i
        mover = meta[st.M_TO_MOVE]
        mv.start_turn_nb(meta, p[2])
        play(board, meta, p, shuttle[mover][(i // 2) % 2])
    return board, meta, plies


def test_mc4_deadlock_clock_ends_after_21_quiet_plies():
    p = params()
    _, meta, n = _quiet_shuffle(p, 40, score_0=1)
    assert n == 21 and meta[st.M_END] == st.END_CLOCK and meta[st.M_WINNER] == 0


def test_mc4_clock_equal_scores_draw_and_off_never_ends():
    _, meta, n = _quiet_shuffle(params(), 40)
    assert n == 21 and meta[st.M_WINNER] == -1
    _, meta, n = _quiet_shuffle(params(clock="off", max_plies=100), 60)
    assert meta[st.M_END] == -1 and n == 60


def test_mc4_leader_calls_clock_at_its_turn():
    p = params(clock="leader")
    _, meta, n = _quiet_shuffle(p, 40, score_0=2)   # player 0 leads: calls at once, game ends 7 plies on
    assert n == 7 and meta[st.M_END] == st.END_CLOCK and meta[st.M_WINNER] == 0
    _, meta, n = _quiet_shuffle(p, 40)               # nobody leads: never called
    assert meta[st.M_END] == -1


def test_capture_after_call_restarts_the_count():
    p = params(clock="leader")
    board, meta = position({"a4": 3, "a5": 1, "d8": 2, "b5": 1, "c1": 2}, score_0=1)
    mv.start_turn_nb(meta, p[2])
    assert meta[st.M_CALLED] == 1
    play(board, meta, p, "c1-c2")     # quiet: clock 1
    play(board, meta, p, "d8-d7")     # quiet: clock 2
    play(board, meta, p, "a4-a5")     # capture resets
    assert meta[st.M_CLOCK] == 0 and meta[st.M_END] == -1


def test_move_limit_scores_decide():
    p = params(max_plies=3, clock="off")
    _, meta, n = _quiet_shuffle(p, 10, score_1=1)
    assert n == 3 and meta[st.M_END] == st.END_LIMIT and meta[st.M_WINNER] == 1


def test_own_pieces_block_without_merging():
    p = params()
    board, meta = position({"a1": 1, "b2": 3, "a8": 1})      # pawn never merges with a queen
    assert "a1-b2" not in legal(board, meta, p)
    board, meta = position({"a1": 1, "b2": 2, "c3": 3, "a8": 1})  # pawn+drone, but a queen is controlled
    assert not any(m.startswith("a1") for m in legal(board, meta, p))


def test_mc5_player_without_a_move_draws_at_once():
    """MC-5 cannot arise in play (the mover's piece nearest the canal always has a
    forward move), so the kernel's branch is driven directly: a mover with no move
    ends the game at once as a drawn `stalemate`, before any ply."""
    init, rays, rules, weights, mc = params()
    blocked = init.copy()
    blocked[:16] = 0                       # player 0 has nothing to move
    rec, log = play_one((blocked, rays, rules, weights, mc), 1, 0, 0, (0, 0))
    assert rec[3] == st.END_STALEMATE and rec[1] == -1 and rec[2] == 0 and len(log) == 0


def test_greedy_takes_a_winning_move():
    p = params()
    # player 0 leads 5-0; moving its last piece across ends the game and wins
    board, meta = position({"d4": 1, "a8": 1, "b8": 1}, score_0=5)
    moves = np.zeros(st.MAX_MOVES, dtype=np.int32)
    n = mv.gen_moves_nb(board, meta, p[1], p[2], moves)
    rng = np.zeros(1, np.uint64)
    m = choose_greedy_nb(board, meta, p[1], p[2], p[3][0], moves, n, rng,
                         np.zeros(32, np.int8), np.zeros(st.NMETA, np.int32))
    assert st.name_of(m // 32) == "d4" and m % 32 >= 16


def test_greedy_prefers_capturing_a_queen_with_a_pawn():
    p = params()
    board, meta = position({"b4": 1, "c5": 3, "a1": 2, "d8": 1})
    moves = np.zeros(st.MAX_MOVES, dtype=np.int32)
    n = mv.gen_moves_nb(board, meta, p[1], p[2], moves)
    m = choose_greedy_nb(board, meta, p[1], p[2], p[3][0], moves, n, np.zeros(1, np.uint64),
                         np.zeros(32, np.int8), np.zeros(st.NMETA, np.int32))
    assert (st.name_of(m // 32), st.name_of(m % 32)) == ("b4", "c5")


@settings(max_examples=40, deadline=None)
@given(seed=hst.integers(0, 2**40), game=hst.integers(0, 10_000), first=hst.integers(0, 1),
       pol=hst.sampled_from([(0, 0), (1, 1), (0, 1)]))
def test_reachable_states_keep_invariants(seed, game, first, pol):
    """Pips are conserved (board + scores = 36), control follows zones, finished games have no move."""
    p = params()
    rec, log = play_one(p, seed, game, first, pol)
    board, meta = p[0].copy(), st.new_meta(first, p[0])
    out = np.zeros(st.MAX_MOVES, dtype=np.int32)
    for m in log:
        assert meta[st.M_END] == -1
        mv.start_turn_nb(meta, p[2])
        n = mv.gen_moves_nb(board, meta, p[1], p[2], out)
        assert m in out[:n]                                  # the policy chose a legal move
        assert all((x // 32) // 16 == meta[st.M_TO_MOVE] for x in out[:n])  # only own-zone pieces move
        mv.apply_move_nb(board, meta, p[2], m)
        assert int(board.sum()) + meta[st.M_SCORE] + meta[st.M_SCORE + 1] == 36
        assert (meta[st.M_PIPS], meta[st.M_PIPS + 1]) == (board[:16].sum(), board[16:].sum())
        assert board.min() >= 0 and board.max() <= 3
    assert meta[st.M_END] == rec[3] or rec[3] == st.END_STALEMATE
    assert rec[2] == len(log)
    if rec[3] == st.END_STALEMATE:
        mv.start_turn_nb(meta, p[2])
        assert mv.gen_moves_nb(board, meta, p[1], p[2], out) == 0
