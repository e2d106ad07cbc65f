"""Storm the Castle, wave 2: second-player compensation (ST-C1, ST-C2), the trajectory hook, policy knobs."""
import numpy as np
import pytest

from simkit.games.storm_the_castle.play import Game, run_chunk
from simkit.games.storm_the_castle.render import play_text
from simkit.games.storm_the_castle.state import ACT_DISPATCH, C_TYPE, G_POINTS, G_SIDE, G_TURN, L_HAND
from storm_helpers import Table, params


def _dispatchable(t, side):
    """Card names side ``side`` may dispatch now (the dispatch phase's options)."""
    t.g.g[G_SIDE] = side
    return {t.p.names[t.g.cards[a, C_TYPE]] for kind, a, _ in t.g.options(phase=0) if kind == ACT_DISPATCH}


@pytest.mark.parametrize("turn, bonus, want", [(0, 2, 2), (1, 0, 2), (1, 2, 4), (2, 2, 2), (3, 2, 2)])
def test_st_c1_dispatch_bonus_only_on_the_second_players_first_turn(turn, bonus, want):
    t = Table(dispatch_points=2, second_player_dispatch_bonus=bonus)
    side = turn % 2
    t.to_hand(side, "hero")          # costs 4: affordable only with the bonus
    t.g.g[G_TURN] = turn
    t.g.g[G_SIDE] = side
    t.g.begin_turn()
    assert t.g.g[G_POINTS] == want
    assert ("hero" in _dispatchable(t, side)) == (want >= 4)


@pytest.mark.parametrize("turn, extra, want", [(0, 3, 1), (1, 0, 1), (1, 3, 4), (2, 3, 1)])
def test_st_c2_extra_cards_only_on_the_second_players_first_turn(turn, extra, want):
    g = Game(params(second_player_extra_cards=extra), 5, 0, 0)
    g.g[G_TURN] = turn
    g.g[G_SIDE] = turn % 2
    before = int(g.zn[turn % 2, L_HAND])
    assert g.begin_turn() == want
    assert g.zn[turn % 2, L_HAND] == before + want


def test_compensation_defaults_change_nothing_and_zero_equals_default():
    base = params()
    zero = params(second_player_dispatch_bonus=0, second_player_extra_cards=0)
    firsts = (np.arange(60) % 2).astype(np.int8)
    for pols in ([0, 0], [1, 1]):
        a, _ = run_chunk(base, 3, 0, firsts, pols, 20)
        b, _ = run_chunk(zero, 3, 0, firsts, pols, 20)
        assert np.array_equal(a, b)


def test_compensation_changes_games_and_the_trace_replays_them():
    firsts = (np.arange(60) % 2).astype(np.int8)
    a, _ = run_chunk(params(), 3, 0, firsts, [1, 1], 20)
    b, _ = run_chunk(params(second_player_dispatch_bonus=3, second_player_extra_cards=2), 3, 0, firsts, [1, 1], 20)
    assert not np.array_equal(a, b)
    # the trace replays the kernel's game and asserts it ends in the same position; its draws
    # on turn 2 (1-based) show the extra cards
    p = params(second_player_extra_cards=2)
    text = play_text(p, 3, 0, 0, (1, 1))
    turn2 = text.split("== turn 2: side 1 ==")[1].split("== turn 3")[0]
    assert turn2.count("  draws ") == 3
