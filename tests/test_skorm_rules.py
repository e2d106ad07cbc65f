"""Skorm: a hand-built position for every rule and ruling of RULES.md §1."""
import numpy as np
import pytest

from simkit.errors import ScenarioError
from simkit.games.skorm.moves import face_threats_nb
from simkit.games.skorm.policies import POL_GREEDY, POL_RANDOM
from simkit.games.skorm.state import PASS, SC_PASSES, SC_PENDING, SC_PLY, ST_BLOCK, ST_PASS
from skorm_helpers import A, H, S, W, actions, code, default_rules, index_of, params_for, position

P = params_for()
W0 = ((0, -4), 0, W, None)
W1 = ((0, 4), 1, W, None)


def test_shield_blocks_frontal_capture_not_a_side_step():
    # side 1 shieldman at (0,0) faces direction 2: its shield cell is (0,-1)
    target = ((0, 0), 1, S, 2)
    g = position(P, [W0, W1, target, ((0, -1), 0, S, 5)])
    assert code(P, (0, -1), (0, 0)) not in actions(g)
    assert g.blocks[0] == 1                       # counted as a shield block
    # a shieldman beside the shield cell captures from the side
    g = position(P, [W0, W1, target, ((1, -1), 0, S, 5)])
    assert code(P, (1, -1), (0, 0)) in actions(g)
    assert g.blocks[0] == 0
    # a horseman on the shield cell side-steps (via (1,-1) or (-1,0)) and captures
    g = position(P, [W0, W1, target, ((0, -1), 0, H, None)])
    assert code(P, (0, -1), (0, 0)) in actions(g)
    # ... unless both side-step cells are occupied
    g = position(P, [W0, W1, target, ((0, -1), 0, H, None), ((1, -1), 0, A, None), ((-1, 0), 0, A, None)])
    assert code(P, (0, -1), (0, 0)) not in actions(g)
    assert g.blocks[0] == 1
    # two steps straight through the shield cell: the final step comes from it
    g = position(P, [W0, W1, target, ((0, -2), 0, H, None)])
    assert code(P, (0, -2), (0, 0)) not in actions(g)
    # a bent two-step from (1,-2): via (0,-1) blocked, via (1,-1) allowed
    g = position(P, [W0, W1, target, ((1, -2), 0, H, None)])
    assert code(P, (1, -2), (0, 0)) in actions(g)
    g = position(P, [W0, W1, target, ((1, -2), 0, H, None), ((1, -1), 1, A, None)])
    assert code(P, (1, -2), (0, 0)) not in actions(g)


def test_warlord_side_steps_onto_a_shieldman_facing_it():
    g = position(P, [W0, W1, ((0, -3), 1, S, 2)])  # facing the side-0 warlord on (0,-4)
    assert code(P, (0, -4), (0, -3)) in actions(g)  # side-step via (1,-4) or (-1,-3)
    assert g.blocks[0] == 0
    g = position(P, [W0, W1, ((0, -3), 1, S, 2), ((1, -4), 0, A, None), ((-1, -3), 0, A, None)])
    assert code(P, (0, -4), (0, -3)) not in actions(g)
    assert g.blocks[0] == 1


def test_archer_shots_shield_and_over_pieces():
    base = [W0, W1, ((0, -2), 0, A, None)]
    # shieldman at distance 1 facing the archer: no shot; horseman behind it: shot over it
    g = position(P, base + [((0, -1), 1, S, 2), ((0, 0), 1, H, None)])
    acts = actions(g)
    assert code(P, (0, -2), (0, -1), shot=True) not in acts
    assert code(P, (0, -2), (0, 0), shot=True) in acts
    assert g.blocks[0] == 1
    # same shieldman facing elsewhere can be shot
    g = position(P, base + [((0, -1), 1, S, 0)])
    assert code(P, (0, -2), (0, -1), shot=True) in actions(g)
    # distance 2, own piece between: blocked when facing the archer, else shot over it
    base = [W0, W1, ((2, -2), 0, A, None), ((2, -1), 0, H, None)]
    g = position(P, base + [((2, 0), 1, S, 2)])
    assert code(P, (2, -2), (2, 0), shot=True) not in actions(g)
    g = position(P, base + [((2, 0), 1, S, 0)])
    assert code(P, (2, -2), (2, 0), shot=True) in actions(g)
    # never at friendly pieces; never beyond the range
    g = position(P, [W0, W1, ((0, -2), 0, A, None), ((0, -1), 0, S, 5), ((0, 1), 1, H, None)])
    acts = actions(g)
    assert code(P, (0, -2), (0, -1), shot=True) not in acts
    assert code(P, (0, -2), (0, 1), shot=True) not in acts
    P3 = params_for(archer_range=3)
    g = position(P3, [W0, W1, ((0, -2), 0, A, None), ((0, -1), 0, S, 5), ((0, 1), 1, H, None)])
    assert code(P3, (0, -2), (0, 1), shot=True) in actions(g)
    # range 3: a shieldman 3 away facing along the line still blocks it
    g = position(P3, [W0, W1, ((0, -2), 0, A, None), ((0, 1), 1, S, 2)])
    assert code(P3, (0, -2), (0, 1), shot=True) not in actions(g)


def test_shot_removes_the_target_and_the_archer_stays():
    g = position(P, [W0, W1, ((0, -2), 0, A, None), ((0, 0), 1, H, None)])
    g.apply(code(P, (0, -2), (0, 0), shot=True))
    idx = index_of(P)
    assert g.cell[idx[(0, 0)]] == 0 and g.cell[idx[(0, -2)]] == 1 + A
    assert g.stats[16 + A] == 1 and g.stats[0 + 4 + H] == 1  # kill by shot of a side-0 archer, loss of side 1


def test_two_step_cannot_pass_occupied_cells_or_return():
    idx = index_of(P)
    ring = [((1, 0), 0, A, None), ((1, -1), 0, A, None), ((0, -1), 0, A, None),
            ((-1, 0), 0, A, None), ((-1, 1), 0, A, None), ((0, 1), 0, A, None)]
    g = position(P, [W0, W1, ((0, 0), 0, H, None)] + ring)
    assert not [c for c in actions(g) if (c >> 8) & 255 == idx[(0, 0)]]
    # an enemy on the intermediate cell blocks the straight jump (no capture-and-go-on)
    g = position(P, [W0, W1, ((0, 0), 0, H, None), ((0, 1), 1, A, None)])
    acts = actions(g)
    assert code(P, (0, 0), (0, 2)) not in acts
    assert code(P, (0, 0), (0, 1)) in acts
    assert code(P, (0, 0), (1, 1)) in acts            # bent path via (1,0)
    # alone on an open board: 6 + 12 destinations, each once, never the start
    g = position(P, [W0, W1, ((0, 0), 0, H, None)])
    mine = [c for c in g.legal_actions() if (c >> 8) & 255 == idx[(0, 0)]]
    assert len(mine) == 18 == len(set(mine))
    assert idx[(0, 0)] not in {c & 255 for c in mine}
    # horseman_steps = 1 leaves the 6 neighbours
    P1 = params_for(horseman_steps=1)
    g = position(P1, [W0, W1, ((0, 0), 0, H, None)])
    assert len([c for c in g.legal_actions() if (c >> 8) & 255 == idx[(0, 0)]]) == 6


def test_archers_never_capture_by_moving():
    idx = index_of(P)
    g = position(P, [W0, W1, ((0, 0), 0, A, None), ((1, 0), 1, H, None), ((0, 1), 1, S, 0)])
    for c in actions(g):
        if (c >> 8) & 255 == idx[(0, 0)] and (c >> 16) == 0:
            assert g.cell[c & 255] == 0
    assert code(P, (0, 0), (1, 0), shot=True) in actions(g)
    assert code(P, (0, 0), (1, 0)) not in actions(g)


def test_own_warlord_walking_into_danger_kills_and_wins():
    pieces = [((0, -1), 0, W, None), ((0, 0), 1, W, None), ((0, 2), 1, A, None), ((1, 1), 1, H, None)]
    g = position(P, pieces)
    c = code(P, (0, -1), (0, 0))
    assert c in actions(g)
    g.apply(c)
    assert g.done and g.winner == 0 and g.end_reason == "warlord_killed"
    g = position(P, pieces)
    assert g.play(POL_GREEDY) == c                   # greedy takes the win
    assert g.end_reason == "warlord_killed"


def _gold_setup(others_1, extra=()):
    far = [((-4, 4), 1, A, None), ((-4, 3), 1, A, None), ((-3, 4), 1, A, None), ((-4, 2), 1, A, None),
           ((-3, 3), 1, A, None)][:others_1]
    return position(P, [((0, -1), 0, W, None), W1] + far + list(extra))


def test_gold_tile_wins_after_surviving_one_turn():
    g = _gold_setup(4)
    g.apply(code(P, (0, -1), (0, 0)))
    assert not g.done and g.sc[SC_PENDING] == 0
    g.apply(code(P, (0, 4), (1, 3)))
    assert g.done and g.winner == 0 and g.end_reason == "gold_tile"


def test_gold_tile_wait_resolves_after_a_pass_too():
    g = _gold_setup(4)
    g.apply(code(P, (0, -1), (0, 0)))
    g.apply(PASS)
    assert g.end_reason == "gold_tile" and g.winner == 0


def test_gold_tile_lost_when_the_warlord_is_shot_first():
    g = _gold_setup(4, [((0, 2), 1, A, None)])
    g.apply(code(P, (0, -1), (0, 0)))
    assert not g.done
    shot = code(P, (0, 2), (0, 0), shot=True)
    assert shot in actions(g)
    g.apply(shot)
    assert g.done and g.winner == 1 and g.end_reason == "warlord_killed"


def test_gold_tile_immediate_with_three_opposing_pieces():
    g = _gold_setup(3)
    g.apply(code(P, (0, -1), (0, 0)))
    assert g.done and g.winner == 0 and g.end_reason == "gold_tile_immediate"
    # four others: the wait starts instead
    g = _gold_setup(4)
    g.apply(code(P, (0, -1), (0, 0)))
    assert not g.done
    # counted after the arriving capture: 4 others, one of them on the Gold Tile
    g = _gold_setup(3, [((0, 0), 1, H, None)])
    g.apply(code(P, (0, -1), (0, 0)))
    assert g.end_reason == "gold_tile_immediate"
    # the threshold is an option
    P2 = params_for(gold_tile_immediate_max=-1)
    g = position(P2, [((0, -1), 0, W, None), W1])
    g.apply(code(P2, (0, -1), (0, 0)))
    assert not g.done


def test_no_gold_tile_option():
    P2 = params_for(gold_tile=False)
    g = position(P2, [((0, -1), 0, W, None), W1])
    g.apply(code(P2, (0, -1), (0, 0)))
    g.apply(PASS)
    assert not g.done and g.sc[SC_PENDING] == -1


def test_end_check_order_warlord_kill_beats_pending_gold():
    # side 1's warlord waits on the gold tile; side 0 shoots it: warlord_killed, not gold_tile
    g = position(P, [W0, ((0, 1), 1, W, None), ((0, -2), 0, A, None), ((4, -4), 0, A, None),
                     ((4, -3), 0, A, None), ((3, -4), 0, A, None)], to_move=1)
    g.apply(code(P, (0, 1), (0, 0)))
    assert g.sc[SC_PENDING] == 1 and not g.done
    g.apply(code(P, (0, -2), (0, 0), shot=True))
    assert g.winner == 0 and g.end_reason == "warlord_killed"


def test_pass_when_no_action_exists():
    # side 0 has only its warlord, boxed in its corner by shieldmen facing it
    box = [((1, -4), 1, S, 3), ((-1, -3), 1, S, 1), ((0, -3), 1, S, 2)]
    g = position(P, [W0, W1] + box)
    assert len(g.legal_actions()) == 0
    assert g.blocks[0] == 3
    assert g.play(POL_GREEDY) == PASS
    assert g.sc[SC_PASSES] == 1 and g.sc[SC_PLY] == 1 and g.to_move == 1 and not g.done
    assert g.stats[ST_PASS + 0] == 1
    assert g.stats[ST_BLOCK + 1] == 3 and g.stats[ST_BLOCK + 0] == 0  # blocks are the defender's
    assert len(g.legal_actions()) > 0                # side 1 can act; an action resets the count
    g.play(POL_RANDOM)
    assert g.sc[SC_PASSES] == 0 or g.done


def test_two_passes_are_a_stalemate_and_the_cap_a_draw():
    g = position(P, [W0, W1, ((0, -1), 0, S, 5)])
    g.apply(PASS)
    assert not g.done
    g.apply(PASS)
    assert g.done and g.winner == -1 and g.end_reason == "stalemate"
    P3 = params_for(max_plies=3)
    g = position(P3, [W0, W1, ((2, -1), 0, S, 5), ((-2, 1), 1, S, 2)])
    for _ in range(3):
        g.play(POL_RANDOM)
    assert g.done and g.winner == -1 and g.end_reason == "move_limit"


def test_threat_facing_turns_toward_the_attacker():
    idx = index_of(P)
    g = position(P, [W0, W1, ((0, 0), 0, S, 0), ((0, 2), 1, A, None)])  # archer along direction 5
    face_threats_nb(P, g.cell, g.face, g.plist, g.sc, 0, g.counts)
    assert g.face[idx[(0, 0)]] == 5
    # two archers on direction 3, one on direction 5: faces 3
    g = position(P, [W0, W1, ((0, 0), 0, S, 0), ((0, 2), 1, A, None), ((-1, 0), 1, A, None),
                     ((-2, 0), 1, A, None)])
    face_threats_nb(P, g.cell, g.face, g.plist, g.sc, 0, g.counts)
    assert g.face[idx[(0, 0)]] == 3
    # a horseman that can side-step counts on both approach directions; no threat: facing kept
    g = position(P, [W0, W1, ((0, 0), 0, S, 1)])
    face_threats_nb(P, g.cell, g.face, g.plist, g.sc, 0, g.counts)
    assert g.face[idx[(0, 0)]] == 1


def test_greedy_takes_a_safe_gold_arrival_and_keeps_its_warlord_safe():
    g = _gold_setup(5)
    assert g.play(POL_GREEDY) == code(P, (0, -1), (0, 0))
    # the gold tile is covered by an archer: greedy does not walk its warlord there
    g = _gold_setup(5, [((2, -2), 1, A, None)])
    assert g.play(POL_GREEDY) != code(P, (0, -1), (0, 0))


def test_greedy_prefers_material_and_random_facings_are_valid():
    g = position(P, [W0, W1, ((0, -2), 0, A, None), ((0, -1), 1, H, None), ((3, -3), 1, S, 0)])
    assert g.play(POL_GREEDY) == code(P, (0, -2), (0, -1), shot=True)
    g = position(P, [W0, W1, ((0, -1), 0, S, 5)])
    for _ in range(6):
        g.play(POL_RANDOM)
        assert set(np.unique(g.face[g.cell == 1])) <= set(range(6))


@pytest.mark.parametrize("rules, key", [
    ({"army": {"shieldman": 20}}, "zone_depth"),                       # zone cannot hold the army
    ({"zone_depth": 4}, "zone_depth"),                                 # zones overlap
    ({"board_radius": 5, "zone_depth": 4}, "board_radius"),            # reference needs radius 4
    ({"board_radius": 3, "zone_depth": 2, "army": {"shieldman": 1, "archer": 1, "horseman": 1}},
     "board_radius"),                                                  # too small for the reference
    ({"archer_range": 0}, "archer_range"),
    ({"army": {"warlord": 2}}, "army.warlord"),
    ({"army": {"knight": 2}}, "army.knight"),
    ({"remove_0": {"warlord": 1}}, "remove_0.warlord"),
    ({"remove_1": {"archer": 6}}, "remove_1.archer"),
    ({"placement": "phalanx"}, "placement"),
    ({"facing": "north"}, "facing"),
    ({"values": {"archer": -1}}, "values.archer"),
])
def test_bad_options_name_the_key(rules, key):
    with pytest.raises(ScenarioError) as e:
        default_rules(**rules)
    assert e.value.key == key
    assert key in str(e.value)


def test_other_placements_work_on_bigger_boards():
    from skorm_helpers import params_for as pf
    for placement in ("random", "wall"):
        p5 = pf(board_radius=5, zone_depth=4, placement=placement)
        g = __import__("simkit.games.skorm.play", fromlist=["Game"]).Game(p5, seed=3, game=1, first=1)
        assert (g.cell != 0).sum() == 30
        assert g.to_move == 1
