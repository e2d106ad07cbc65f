"""Storm the Castle: every rule and ruling on hand-built situations with injected dice."""
from fractions import Fraction

import pytest

from simkit.engine.dice import (STORM_CRIT_FAIL, STORM_CRIT_SUCCESS, STORM_FAIL, STORM_SUCCESS,
                                storm_distribution, storm_success_array)
from simkit.games.storm_the_castle import rules as R
from simkit.games.storm_the_castle.moves import OUT_AUTO, OUT_SPECIAL_FAIL, OUT_SPECIAL_OK, modifier_nb
from simkit.games.storm_the_castle.play import Game
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_END, ACT_MOVE,
                                                 ACT_SMITH, ACT_SORC, C_ACTED, C_BUFF, G_ATTACKS, G_OVER,
                                                 G_PHASE, G_POINTS, G_REASON, G_WINNER, L_DECK, L_HAND,
                                                 PH_ACTIONS, PH_DISPATCH, R_KEEP)
from storm_helpers import Table, check_invariants, params

P = params()


def opts(t, kind=None, a=None):
    return [o for o in t.g.options() if (kind is None or o[0] == kind) and (a is None or o[1] == a)]


def mod(t, a, b, extra=0):
    g = t.g
    return int(modifier_nb(g.cards, g.sp, t.p.ctab, t.p.spi, a, b, extra))


# --- board and deck data -----------------------------------------------------
def test_board_matches_rules_with_st1():
    names = P.spnames
    assert len(names) == 22
    d = lambda a, b: int(P.dist[names.index(a), names.index(b)])
    assert d("L1", "L2") == 1 and d("L3", "L4") == 1
    assert d("L2", "L3") > 1                                   # ST-1: no L2-L3 link
    assert d("K0", "K1") == 6
    for s in (0, 1):
        castle = {names[x] for x in range(len(names)) if P.spi[x, R.X_CASTLE] == s}
        assert castle == {f"{k}{s}" for k in ("K", "TL", "TR", "BL", "BR")}
        k = names.index(f"K{s}")
        assert (P.spi[k, R.X_LEVEL], P.spi[k, R.X_DEF]) == (2, 1)
        assert P.spi[names.index(f"TL{s}"), R.X_DEF] == 2
        assert P.spi[names.index(f"OL{s}"), R.X_LEVEL] == 1
    assert P.copies.sum(axis=1).tolist() == [29, 29]


# --- draw ---------------------------------------------------------------------
def test_draw_one_two_when_hand_empty_none_when_deck_empty():
    t = Table()
    assert t.g.begin_turn() == 2 and t.g.zn[0, L_HAND] == 2      # empty hand: two
    assert t.g.begin_turn() == 1 and t.g.zn[0, L_HAND] == 3
    t.empty_deck(0)
    assert t.g.begin_turn() == 0 and t.g.zn[0, L_HAND] == 3


def test_setup_draws_hand_size():
    g = Game(params(hand_size=3), 5, 0, 0)
    assert g.zn[:, L_HAND].tolist() == [3, 3]
    assert g.zn[:, L_DECK].tolist() == [26, 26]
    check_invariants(g)


# --- dispatch -----------------------------------------------------------------
def test_dispatch_castle_spaces_points_and_items():
    t = Table()
    t.g.g[G_PHASE] = PH_DISPATCH
    hero = t.to_hand(0, "hero")
    sword = t.to_hand(0, "great_sword")
    t.put(1, "knight", "TL0")                                  # an enemy in my tower blocks it
    t.put(0, "shield_bearer", "BL0")
    o = t.g.options()
    assert o[0] == (ACT_END, -1, -1)
    hero_targets = {t.p.spnames[b] for k, a, b in o if a == hero}
    assert hero_targets == {"K0", "TR0", "BR0"}                # not the enemy's, not onto a regular
    sb = t.stack("BL0")[0]
    assert (ACT_DISPATCH, sword, sb) in o                      # items onto own regular units
    t.g.apply((ACT_DISPATCH, hero, t.sp("K0")))
    assert t.g.g[G_POINTS] == 0
    assert opts(t, ACT_DISPATCH) == []                         # no points left for the sword
    check_invariants(t.g)


def test_item_only_on_regular_without_item():
    t = Table()
    t.g.g[G_PHASE] = PH_DISPATCH
    sword = t.to_hand(0, "great_sword")
    t.put(0, "knight", "L1", item="tower_shield")
    t.put(0, "cleric", "L2")
    s = t.put(0, "cavalry", "L3")
    targets = {b for k_, a, b in opts(t, ACT_DISPATCH, sword)}
    assert targets == {s}
    t.g.apply((ACT_DISPATCH, sword, s))
    assert t.g.cards[s, 4] == sword and t.stack("L3") == [s]   # under the unit, not in the stack


# --- stacking -----------------------------------------------------------------
def test_stacking_rules():
    t = Table()
    t.put(0, "cleric", "L1")
    t.put(0, "knight", "L1")
    assert t.names("L1") == ["knight", "cleric"]               # regular always on top
    t.put(0, "sorcerer", "L2")
    t.put(0, "assassin", "L2")
    assert t.names("L2") == ["assassin", "sorcerer"]           # alphabetical
    t.put(0, "shield_bearer", "L3", item="great_sword")
    cav = t.put(0, "cavalry", "OL0")
    moves = {t.p.spnames[b] for k, a, b in opts(t, ACT_MOVE, cav)}
    assert "L3" not in moves                                   # never two regulars
    assert "L1" not in moves                                   # at most two cards
    sm = t.put(0, "blacksmith", "HR0")
    assert "L3" in {t.p.spnames[b] for k, a, b in opts(t, ACT_MOVE, sm)}   # item does not count
    check_invariants(t.g)


def test_moves_blocked_by_enemy_and_cavalry_reach():
    t = Table()
    cav = t.put(0, "cavalry", "OL0")
    reach = {t.p.spnames[b] for k, a, b in opts(t, ACT_MOVE, cav)}
    assert reach == {"TL0", "HL0", "L1", "K0", "BL0", "L2", "OL1"}
    t.put(1, "shield_bearer", "L1")
    reach = {t.p.spnames[b] for k, a, b in opts(t, ACT_MOVE, cav)}
    assert "L1" not in reach and "OL1" not in reach           # no moving through enemies
    assert "L2" in reach                                      # via HL0
    # melee reach: L1 (adjacent); with an enemy on L2 too, both are targets within move 2
    t.put(1, "knight", "HL1")
    targets = {t.p.spnames[t.g.cards[b, 3]] for k, a, b in opts(t, ACT_ATTACK, cav)}
    assert targets == {"L1"}                                  # HL1 is 3 away
    t.put(1, "knight", "L2")
    targets = {t.p.spnames[t.g.cards[b, 3]] for k, a, b in opts(t, ACT_ATTACK, cav)}
    assert targets == {"L1", "L2"}


def test_melee_reach_needs_enemy_free_path():
    t = Table()
    cav = t.put(0, "cavalry", "TL0")
    t.put(1, "shield_bearer", "OL0")
    t.put(1, "knight", "L1")                                  # 2 away, but only through OL0
    targets = {t.p.spnames[t.g.cards[b, 3]] for k, a, b in opts(t, ACT_ATTACK, cav)}
    assert targets == {"OL0"}


# --- attacks ------------------------------------------------------------------
def test_modifier_terrain_space_items_cleric_sorcerer():
    t = Table()
    kn = t.put(0, "knight", "HL0", item="great_sword")       # A 4+1, level 2
    sb = t.put(1, "shield_bearer", "L2", item="tower_shield")  # D 3+2, level 0, low
    assert mod(t, kn, sb) == (4 + 1 + 2) - (3 + 2)           # the seed's worked example: +2
    t2 = Table()
    kn = t2.put(0, "knight", "OL1")                          # level 1
    sb = t2.put(1, "shield_bearer", "TL1")                   # tower +2 D, level 2
    assert mod(t2, kn, sb) == 4 + (1 - 2) - (3 + 2)
    t2.put(1, "cleric", "TL1")
    assert mod(t2, kn, sb) == 4 - 1 - (3 + 2 + 3)            # Cleric +3 D to the regular in its space
    so = t2.put(0, "sorcerer", "OL1")
    o = opts(t2, ACT_SORC, so)
    assert o == [(ACT_SORC, so, kn)]
    t2.g.apply(o[0])
    assert t2.g.cards[kn, C_BUFF] == 3 and t2.g.cards[so, C_ACTED] == 1 and t2.g.cards[kn, C_ACTED] == 0
    assert mod(t2, kn, sb) == 4 + 3 - 1 - 8
    t2.g.begin_turn()                                         # "for the rest of this turn"
    assert t2.g.cards[kn, C_BUFF] == 0


@pytest.mark.parametrize("roll", range(2, 13))
def test_threshold_and_criticals_melee(roll):
    t = Table()
    kn = t.put(0, "knight", "L1", item="great_sword")        # +2 vs a shield bearer on L2 (same level)
    sb = t.put(1, "shield_bearer", "L2")
    m = mod(t, kn, sb)
    assert m == 2
    res, r = t.g.apply((ACT_ATTACK, kn, sb), roll)
    assert r == roll
    if roll == 2:
        assert res == STORM_CRIT_FAIL
        assert t.stack("L1") == [] and t.grave(0) == ["great_sword", "knight"]   # attacker dies (ST-5 order)
        assert t.stack("L2") == [sb]
    elif roll == 12 or roll <= 3 + m:
        assert res in (STORM_SUCCESS, STORM_CRIT_SUCCESS)
        assert t.stack("L2") == [kn] and t.stack("L1") == []                      # advance into the space
        assert t.grave(1) == ["shield_bearer"]
    else:
        assert res == STORM_FAIL
        assert t.stack("L1") == [kn] and t.stack("L2") == [sb]
    check_invariants(t.g)


def test_natural_12_always_succeeds_and_2_always_fails():
    t = Table()
    sb = t.put(0, "shield_bearer", "L1")
    hero = t.put(1, "hero", "L2", item="tower_shield")
    assert mod(t, sb, hero) <= -5
    assert t.g.apply((ACT_ATTACK, sb, hero), 12)[0] == STORM_CRIT_SUCCESS
    t = Table()
    hero = t.put(0, "hero", "HL0", item="great_sword")
    sb = t.put(1, "shield_bearer", "L2")
    assert mod(t, hero, sb) >= 5
    assert t.g.apply((ACT_ATTACK, hero, sb), 2)[0] == STORM_CRIT_FAIL


def test_engine_resolution_matches_exact_table():
    """For each modifier, the share of the 36 roll outcomes the engine counts as success
    equals dice.py's exact probability (modifier +2 -> 10/36)."""
    assert storm_success_array(R.PT_LO, R.PT_HI)[2 - R.PT_LO] == pytest.approx(10 / 36)
    assert P.ptable[2 - R.PT_LO] == pytest.approx(10 / 36)
    ways = {s: 6 - abs(s - 7) for s in range(2, 13)}
    for target, extra_def in (("shield_bearer", None), ("knight", "tower_shield"), ("hero", "tower_shield")):
        for attacker_space in ("L1", "OL0"):
            wins = 0
            for roll, w in ways.items():
                t = Table()
                kn = t.put(0, "knight", attacker_space)
                tg = t.put(1, target, "L2" if attacker_space == "L1" else "L1", item=extra_def)
                m = mod(t, kn, tg)
                res, _ = t.g.apply((ACT_ATTACK, kn, tg), roll)
                wins += w * (res in (STORM_SUCCESS, STORM_CRIT_SUCCESS))
            assert Fraction(wins, 36) == storm_distribution(m)["success"]
            assert wins / 36 == pytest.approx(P.ptable[m - R.PT_LO])


def test_support_dies_without_roll_st3_and_assassin_chooses():
    t = Table()
    kn = t.put(0, "knight", "L1")
    cl = t.put(1, "cleric", "L2")
    res, roll = t.g.apply((ACT_ATTACK, kn, cl), 2)           # an injected 2 is ignored: no roll
    assert res == OUT_AUTO and roll == 0
    assert t.stack("L2") == [kn]
    assert t.g.stat("successes_0_knight") == 1 and t.g.stat("kills_0_knight") == 1


def test_assassin_chooses_and_top_defends_first():
    t = Table()
    kn = t.put(0, "knight", "L1")
    asn = t.put(0, "assassin", "L3")
    ek = t.put(1, "knight", "L2")
    sm = t.put(1, "blacksmith", "L2")
    assert [o[2] for o in opts(t, ACT_ATTACK, kn)] == [ek]   # top card only
    t2 = Table()
    asn = t2.put(0, "assassin", "HL0")
    ek = t2.put(1, "knight", "L2")
    sm = t2.put(1, "blacksmith", "L2")
    assert sorted(o[2] for o in opts(t2, ACT_ATTACK, asn)) == sorted([ek, sm])
    res, _ = t2.g.apply((ACT_ATTACK, asn, sm))
    assert res == OUT_AUTO
    assert t2.stack("L2") == [ek] and t2.stack("HL0") == [asn]   # space not empty: the assassin stays


@pytest.mark.parametrize("clears", [False, True])
def test_st4_support_left_alone(clears):
    t = Table(melee_clears_stack=clears)
    kn = t.put(0, "knight", "L1")
    ek = t.put(1, "knight", "L2")
    cl = t.put(1, "cleric", "L2")
    assert mod(t, kn, ek) == 4 - (3 + 3)                      # the cleric's +3 D
    res, _ = t.g.apply((ACT_ATTACK, kn, ek), 12)
    assert res == STORM_CRIT_SUCCESS
    if clears:
        assert t.stack("L2") == [kn] and t.grave(1) == ["knight", "cleric"]
        assert t.g.stat("kills_0_knight") == 2
    else:
        assert t.stack("L2") == [cl] and t.stack("L1") == [kn]
        assert t.g.stat("kills_0_knight") == 1
    check_invariants(t.g)


def test_two_attacks_by_different_units():
    t = Table()
    a = t.put(0, "knight", "L1")
    b = t.put(0, "hero", "HL0")
    c = t.put(0, "cavalry", "OL0")
    t.put(1, "shield_bearer", "L2")
    t.put(1, "shield_bearer", "OL1")
    first = opts(t, ACT_ATTACK, a)[0]
    t.g.apply(first, 7)                                      # a fails
    assert opts(t, ACT_ATTACK, a) == []                      # one action per unit
    t.g.apply(opts(t, ACT_ATTACK, b)[0], 7)
    assert t.g.g[G_ATTACKS] == 2
    assert opts(t, ACT_ATTACK) == []                         # at most two attacks per turn
    assert opts(t, ACT_MOVE, c) != []                        # the third unit may still move


def test_ranged_and_catapult_castle_only():
    t = Table()
    cat = t.put(0, "catapult", "OL1")
    sb = t.put(1, "shield_bearer", "K1")                     # 2 away, a castle space
    t.put(1, "knight", "HL1")                           # 1 away, not a castle space
    assert [o[2] for o in opts(t, ACT_ATTACK, cat)] == [sb]
    res, _ = t.g.apply((ACT_ATTACK, cat, sb), 2)             # ranged critical failure: nothing
    assert res == STORM_CRIT_FAIL and t.stack("OL1") == [cat] and t.stack("K1") == [sb]
    t.g.begin_turn()
    res, _ = t.g.apply((ACT_ATTACK, cat, sb), 12)
    assert t.stack("K1") == [] and t.stack("OL1") == [cat]   # ranged success: attacker stays
    assert t.g.g[G_OVER] == 0


def test_graveyard_order_st5():
    t = Table()
    kn = t.put(0, "knight", "L1")
    ek = t.put(1, "knight", "L2", item="tower_shield")
    t.g.apply((ACT_ATTACK, kn, ek), 12)
    assert t.grave(1) == ["tower_shield", "knight"]          # the unit on top of its item
    assert t.g.stat("losses_1_knight") == 1 and t.g.stat("losses_1_tower_shield") == 1


# --- specials -----------------------------------------------------------------
def test_cleric_resurrects_on_exactly_7_only_alone_and_only_units():
    t = Table()
    cl = t.put(0, "cleric", "L1")
    t.to_grave(0, "tower_shield")
    assert opts(t, ACT_CLERIC) == []                          # graveyard top is an item
    t.to_grave(0, "knight")
    assert opts(t, ACT_CLERIC) == [(ACT_CLERIC, cl, -1)]
    res, r = t.g.apply((ACT_CLERIC, cl, -1), 6)
    assert res == OUT_SPECIAL_FAIL and t.grave(0) == ["tower_shield", "knight"]
    t.g.begin_turn()
    res, r = t.g.apply((ACT_CLERIC, cl, -1), 7)
    assert res == OUT_SPECIAL_OK
    assert t.names("L1") == ["knight", "cleric"] and t.grave(0) == ["tower_shield"]
    assert t.g.stat("resurrections_0_knight") == 1
    t.g.begin_turn()
    t.to_grave(0, "knight")
    assert opts(t, ACT_CLERIC) == []                          # not while sharing its space
    check_invariants(t.g)


def test_blacksmith_recovers_item_on_7():
    t = Table()
    sm = t.put(0, "blacksmith", "K0")
    t.to_grave(0, "great_sword")
    t.to_grave(0, "knight")
    t.to_grave(0, "tower_shield")
    o = opts(t, ACT_SMITH, sm)
    assert len(o) == 2                                        # one option per item type
    sword = [x for x in o if t.p.names[t.g.cards[x[2], 0]] == "great_sword"][0]
    assert t.g.apply(sword, 8)[0] == OUT_SPECIAL_FAIL
    t.g.begin_turn()
    len(t.hand(0))
    assert t.g.apply(sword, 7)[0] == OUT_SPECIAL_OK
    assert t.grave(0) == ["knight", "tower_shield"] and t.hand(0)[-1] == "great_sword"
    assert t.g.stat("items_recovered_0_great_sword") == 1
    check_invariants(t.g)


# --- winning, caps -------------------------------------------------------------
def test_moving_into_enemy_keep_wins():
    t = Table()
    kn = t.put(0, "knight", "TL1")
    t.g.apply((ACT_MOVE, kn, t.sp("K1")))
    assert t.g.g[G_OVER] == 1 and t.g.g[G_WINNER] == 0 and t.g.g[G_REASON] == R_KEEP


def test_melee_advance_into_enemy_keep_wins():
    t = Table()
    kn = t.put(0, "knight", "TL1")
    d = t.put(1, "shield_bearer", "K1")
    t.g.apply((ACT_ATTACK, kn, d), 12)
    assert t.g.g[G_WINNER] == 0 and t.g.g[G_REASON] == R_KEEP


def test_summoning_sickness_option():
    for sick in (False, True):
        t = Table(summoning_sickness=sick)
        t.g.g[G_PHASE] = PH_DISPATCH
        kn = t.to_hand(0, "knight")
        t.g.apply((ACT_DISPATCH, kn, t.sp("TL0")))
        t.g.g[G_PHASE] = PH_ACTIONS
        assert (opts(t, ACT_MOVE, kn) == []) == sick


# --- ST-7: a move stops at the enemy Keep; no path passes through it -----------
def test_st7_cavalry_stops_in_enemy_keep_and_cannot_pass_through():
    t = Table()
    cav = t.put(0, "cavalry", "TL1")                          # move 2, next to the enemy keep
    reach = {t.p.spnames[b] for k, a, b in opts(t, ACT_MOVE, cav)}
    assert "K1" in reach
    # TR1 and BR1 are two steps away only through K1: a path may not pass through the enemy keep
    assert "TR1" not in reach and "BR1" not in reach
    assert {"BL1", "OL1", "HL1", "L1"} <= reach               # other two-step paths stay open
    t.put(1, "knight", "TR1")
    assert opts(t, ACT_ATTACK, cav) == []                     # nor does a melee reach through it
    t.g.apply((ACT_MOVE, cav, t.sp("K1")))
    assert t.g.g[G_OVER] == 1 and t.g.g[G_WINNER] == 0 and t.g.g[G_REASON] == R_KEEP
    assert t.stack("K1") == [cav]


def test_st7_own_keep_is_passed_through():
    t = Table()
    cav = t.put(0, "cavalry", "TL0")
    reach = {t.p.spnames[b] for k, a, b in opts(t, ACT_MOVE, cav)}
    assert {"K0", "TR0", "BR0"} <= reach                      # only the enemy keep stops a path


# --- ST-6: a resurrected unit cannot act in the turn it returns -----------------
@pytest.mark.parametrize("sick", [False, True])
def test_st6_resurrected_unit_cannot_act_this_turn(sick):
    t = Table(summoning_sickness=sick)
    cl = t.put(0, "cleric", "L1")
    kn = t.to_grave(0, "knight")
    t.put(1, "shield_bearer", "L2")                           # a target next to the cleric's space
    res, _ = t.g.apply((ACT_CLERIC, cl, -1), 7)
    assert res == OUT_SPECIAL_OK and t.stack("L1") == [kn, cl]
    assert opts(t, a=kn) == []                                # no move, no attack, whatever ST-2 says
    assert t.g.cards[kn, C_ACTED] == 1
    t.g.begin_turn()                                          # its owner's next turn: it acts again
    t.g.g[G_PHASE] = PH_ACTIONS
    assert opts(t, ACT_MOVE, kn) != [] and opts(t, ACT_ATTACK, kn) != []


# --- the action buffer can hold every option -----------------------------------
def _star_board(n):
    """A hub joined to n spaces: K0, K1 and n-2 low spaces; every space within 2 of every other."""
    spaces = {"HUB": {"side": -1, "kind": "low", "level": 0, "defense": 0},
              "K0": {"side": 0, "kind": "keep", "level": 0, "defense": 0},
              "K1": {"side": 1, "kind": "keep", "level": 0, "defense": 0}}
    spaces.update({f"S{i}": {"side": -1, "kind": "low", "level": 0, "defense": 0} for i in range(n - 2)})
    return {"spaces": spaces, "edges": [f"HUB-{x}" for x in spaces if x != "HUB"]}


def test_action_buffer_holds_every_option_of_a_crowded_board():
    """60 long-range Assassins facing 30 spaces of two support units each: 3,600 attack options
    in one decision (the old fixed buffer of 2,048 rows silently dropped the rest)."""
    deck = {"sniper": {"kind": "support", "cost": 1, "attack": 3, "move": 0, "range": 2, "copies": 60,
                       "ability": "assassin"},
            "dummy": {"kind": "support", "cost": 1, "copies": 60}}
    t = Table(deck=deck, board=_star_board(63), dispatch_priority=[])
    snipers = [t.put(0, "sniper", f"S{i // 2}") for i in range(60)]          # S0..S29, two each
    dummies = {t.put(1, "dummy", f"S{30 + i // 2}") for i in range(60)}       # S30..S59, two each
    o = t.g.options()
    attacks = {(a, b) for k, a, b in o if k == ACT_ATTACK}
    assert attacks == {(a, b) for a in snipers for b in dummies}             # each Assassin picks either card
    assert len(o) == 1 + 60 * 60 and o[0] == (ACT_END, -1, -1)
    assert t.p.iopt[R.O_BUF] >= len(o)


def test_action_rows_bounds_the_default_scenario_below_the_old_buffer():
    """The proven bound for the default deck and board is below the old 2,048 rows, so the
    default game never lost an option (its records did not change with the buffer)."""
    assert len(P.spnames) + 1 <= P.iopt[R.O_BUF] < 2048
