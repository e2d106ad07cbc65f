"""Skorm restricted play, ``ban:CLASS:POLICY`` (issue 22): the classes (policies.ACTION_CLASSES), every
policy keeping to its unbanned actions, and what a ban costs a player."""
import numpy as np
import pytest

from simkit import env
from simkit.analysis.matchup import matchup
from simkit.engine.chunk import play_chunk
from simkit.engine.runner import RunConfig
from simkit.errors import UsageError
from simkit.games.skorm import SPEC
from simkit.games.skorm.moves import act_to, act_type
from simkit.games.skorm.play import RECORD_FIELDS, run_chunk
from simkit.games.skorm.policies import (
    ACTION_CLASSES, CL_CAPTURE, CL_GOLD, CL_MOVE, CL_SHOT, POL_GREEDY, POL_RANDOM, action_class_nb,
)
from simkit.games.skorm.rules import P_I
from simkit.policies import POL_BAN, parse_policy, policy_vector
from simkit.scenario import load_scenario
from skorm_helpers import A, H, S, W, code, index_of, params_for, position


def test_spec_declares_the_kernels_classes():
    assert SPEC.action_classes == ACTION_CLASSES == ("shot", "capture", "gold", "move")


def test_action_classes_of_hand_built_actions():
    """A shot; the Warlord onto the Gold Tile (a capture there too); a capture; a move; with the Gold Tile
    rule off the Warlord's step onto (0,0) is a plain move or capture."""
    pieces = [((0, -2), 0, W, None), ((0, 4), 1, W, None), ((1, -2), 0, A, None), ((1, -1), 1, H, None),
              ((-1, -1), 0, S, 5), ((-1, 0), 1, A, None)]

    def cls(p, g, a, t, shot=False):
        c = code(p, a, t, shot)
        assert c in set(int(x) for x in g.legal_actions())
        return action_class_nb(p[P_I], g.cell, 0, c)

    for gold_tile, gold_class in ((True, CL_GOLD), (False, CL_MOVE)):
        p = params_for(gold_tile=gold_tile)
        g = position(p, pieces)
        assert cls(p, g, (1, -2), (1, -1), shot=True) == CL_SHOT
        assert cls(p, g, (-1, -1), (-1, 0)) == CL_CAPTURE
        assert cls(p, g, (-1, -1), (-2, 0)) == CL_MOVE
        assert cls(p, g, (0, -2), (0, 0)) == gold_class
        g.cell[index_of(p)[(0, 0)]] = 1 + 4 * 1 + H     # an enemy Horseman on the Gold Tile
        c = code(p, (0, -2), (0, 0))
        assert action_class_nb(p[P_I], g.cell, 0, c) == (CL_GOLD if gold_tile else CL_CAPTURE)


def _label_class(label: str) -> str:
    """A decision's class read off its step-API label (env.py), independently of action_class_nb:
    ``*`` a shot, the Warlord (W/w) landing on (0,0) the Gold Tile, ``x`` a capture, ``-`` a move."""
    if "*" in label:
        return "shot"
    sep = "x" if "x" in label[1:] else "-"
    if label[0] in "Ww" and label.split(sep)[1] == "(0,0)":
        return "gold"
    return "capture" if sep == "x" else "move"


@pytest.mark.parametrize("inner,banned", [("random", "move"), ("greedy", "gold"), ("eps:0.5:greedy", "capture"),
                                          ("mcts:16", "shot"), ("greedy", "shot+capture")])
def test_a_banned_class_is_never_played_while_another_action_is_legal(inner, banned):
    """Games stepped through simkit.env with the scripted policies: each decision of the banned side is of
    an unbanned class whenever one was legal (and the ban did bite: a banned action was legal beside an
    unbanned one); the games are the batch kernel's (same records)."""
    pols = [f"ban:{banned}:{inner}", "greedy"]
    pv = policy_vector(SPEC, pols)
    ban = set(banned.split("+"))
    games = 4
    sc = load_scenario("skorm")
    _, records, _ = play_chunk("skorm", sc.params(), 5, 0, games, "alternate", tuple(int(x) for x in pv), 10)
    bit = 0
    for k in range(games):
        s = env.new_game_from(sc, seed=5, game=k, first=int(records[k, 0]), snapshot_ply=10, policies=pols)
        while not s.is_over():
            side = s.current_player
            c = s.scripted_action(pv)
            if side == 0:
                legal = {_label_class(s.action_label(x)) for x in s.legal_actions() if x != s.steps.pass_code}
                if legal - ban:
                    assert _label_class(s.action_label(c)) not in ban, (k, s.action_label(c))
                    bit += bool(legal & ban)
            s.apply(c)
        np.testing.assert_array_equal(s.record(), records[k], err_msg=f"game {k}")
    assert bit > 0


def test_ban_shot_greedy_is_greedy_noshoot():
    """greedy_noshoot is greedy with the shot class banned: the same games, draw for draw."""
    p = load_scenario("skorm").params()
    firsts = np.array([0, 1] * 100, np.int8)
    a, _ = run_chunk(p, 3, 0, firsts, policy_vector(SPEC, ["ban:shot:greedy", "greedy"]), 10)
    b, _ = run_chunk(p, 3, 0, firsts, policy_vector(SPEC, ["greedy_noshoot", "greedy"]), 10)
    c, _ = run_chunk(p, 3, 0, firsts, policy_vector(SPEC, ["greedy", "greedy"]), 10)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def _shot_kills(rec, side):
    return int(sum(rec[:, RECORD_FIELDS.index(f)].sum() for f in RECORD_FIELDS
                   if f.startswith(f"kills_shot_{side}_")))


@pytest.mark.parametrize("inner,opponent", [("random", "random"), ("eps:0.3:mcts:8", "greedy")])
def test_records_show_no_shot_of_a_ban_shot_side(inner, opponent):
    """Read off the records: the banned side (seat 1 here) kills nothing by a shot, its opponent does, and
    the unbanned policy does shoot in the same games."""
    p = load_scenario("skorm").params()
    firsts = np.array([0, 1] * 10, np.int8)
    banned, _ = run_chunk(p, 9, 0, firsts, policy_vector(SPEC, [opponent, f"ban:shot:{inner}"]), 10)
    free, _ = run_chunk(p, 9, 0, firsts, policy_vector(SPEC, [opponent, inner]), 10)
    assert _shot_kills(banned, 1) == 0 and _shot_kills(banned, 0) > 0 and _shot_kills(free, 1) > 0


def test_banning_the_gold_tile_weakens_greedy():
    """Most greedy games end on the Gold Tile: greedy scores well above 1/2 against greedy that never steps
    onto it (200 games, the interval's lower end)."""
    res = matchup(load_scenario("skorm"), ["greedy", "ban:gold:greedy"], RunConfig(games=200))
    assert res.cells[("greedy", "ban:gold:greedy")]["ci"][0] > 0.5


def test_ban_names_are_checked_and_canonical():
    c = parse_policy(SPEC, "ban:move+shot:greedy")
    assert c.name == "ban:shot+move:greedy" and policy_vector(SPEC, [c.name, "greedy"])[POL_BAN] == 0b1001
    with pytest.raises(UsageError, match="'turn' is not an action class of skorm") as e:
        parse_policy(SPEC, "ban:turn:greedy")
    assert "\n" not in str(e.value)


def test_greedy_keeps_off_the_gold_tile_and_plays_a_banned_action_when_nothing_else_is_legal():
    """Game.play (play_ply_nb): greedy brings its Warlord onto the free Gold Tile, ban:gold:greedy does not;
    where every legal action is a shot, ban:shot:greedy and ban:shot:random shoot (a side must act)."""
    p = params_for()
    pieces = [((0, -2), 0, W, None), ((0, 4), 1, W, None), ((3, -3), 1, S, 0)]
    gold = code(p, (0, -2), (0, 0))
    assert position(p, pieces).play(POL_GREEDY) == gold
    g = position(p, pieces)
    c = g.play(POL_GREEDY, ban=1 << CL_GOLD)
    assert c != gold and act_to(c) != index_of(p)[(0, 0)] and not g.done
    # the Warlord boxed in by Shieldmen facing it, the Archer's three neighbours enemy Horsemen
    box = [((1, -4), 1, S, 3), ((-1, -3), 1, S, 1), ((0, -3), 1, S, 2)]
    pieces = [((0, -4), 0, W, None), ((0, 4), 1, W, None), ((4, -4), 0, A, None), ((3, -4), 1, H, None),
              ((4, -3), 1, H, None), ((3, -3), 1, S, 0)] + box
    assert {act_type(int(a)) for a in position(p, pieces).legal_actions()} == {1}
    for pol in (POL_GREEDY, POL_RANDOM):
        assert act_type(position(p, pieces).play(pol, ban=1 << CL_SHOT)) == 1
