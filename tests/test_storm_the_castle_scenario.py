"""Storm the Castle: scenario files, bad boards/decks (each error names the entry)."""
import copy
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simkit.errors import ScenarioError
from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle import rules as R
from simkit.scenario.schema import validate_rules

ROOT = Path(__file__).resolve().parents[1]


def rules_with(**over):
    r = validate_rules(R.OPTIONS, over)
    R.validate(r)
    return r


def bad(key, **over):
    with pytest.raises(ScenarioError) as e:
        rules_with(**over)
    assert e.value.key == key, (e.value.key, str(e.value))
    return str(e.value)


def deck(**cards):
    d = copy.deepcopy({k: dict(v) for k, v in R.DEFAULT_DECK.items()})
    for name, fields in cards.items():
        if fields is None:
            d.pop(name)
        else:
            d.setdefault(name, {}).update(fields)
    return d


def board(spaces=None, edges=None):
    b = copy.deepcopy(R.DEFAULT_BOARD)
    return {"spaces": spaces if spaces is not None else b["spaces"],
            "edges": edges if edges is not None else [f"{a}-{c}" for a, c in b["edges"]]}


def test_defaults_come_from_default_toml():
    r = rules_with()
    assert r["dispatch_points"] == 4 and r["summoning_sickness"] is False
    assert r["melee_clears_stack"] is False and r["max_turns"] == 80 and r["hand_size"] == 5
    assert r["deck"]["knight"] == {"kind": "regular", "ability": "none", "cost": 3, "attack": 4,
                                   "defense": 3, "move": 1, "range": 0, "copies": 4, "bonus": 3, "roll": 7}
    assert r["deck"]["catapult"]["range"] == 2 and r["deck"]["tower_shield"]["defense"] == 2


def test_bad_deck_entries_name_the_key():
    assert "expected an integer >= 0" in bad("deck.knight.cost", deck=deck(knight={"cost": -1}))
    bad("deck.knight.copies", deck=deck(knight={"copies": -2}))
    msg = bad("deck.cleric.ability", deck=deck(cleric={"ability": "healer"}))
    assert "allowed: none, cleric" in msg
    bad("deck.knight.kind", deck=deck(knight={"kind": "hero"}))
    bad("deck.knight.speed", deck=deck(knight={"speed": 2}))
    bad("deck.knight.defense", deck=deck(knight={"defense": 0}))      # a regular needs D >= 1
    bad("deck.cleric.defense", deck=deck(cleric={"defense": 2}))      # support units have D 0
    bad("deck.great_sword.ability", deck=deck(great_sword={"ability": "cleric"}))
    bad("deck.archer.cost", deck=deck(archer={"kind": "regular", "attack": 2, "defense": 1, "copies": 1}))
    bad("deck", deck={})


def test_deck_size_bounds():
    msg = bad("deck", deck=deck(shield_bearer={"copies": 120}))
    assert "allowed 1 to 120" in msg
    empty = {k: dict(v, copies=0) for k, v in R.DEFAULT_DECK.items()}
    bad("deck", deck=empty)


def test_bad_removals_and_priority():
    bad("remove_0.wizard", remove_0={"wizard": 1})
    bad("remove_1.hero", remove_1={"hero": 2})
    bad("remove_0.knight", remove_0={"knight": -1})
    bad("dispatch_priority[1]", dispatch_priority=["hero", "wizard"])


def test_bad_board_entries_name_the_key():
    b = board()
    edges = list(b["edges"])
    edges[3] = "K0-XX9"
    assert "no space named 'XX9'" in bad("board.edges[3]", board=board(edges=edges))
    edges = list(b["edges"])
    edges[5] = "K0-K0"
    bad("board.edges[5]", board=board(edges=edges))
    edges = list(b["edges"]) + [b["edges"][0]]
    bad(f"board.edges[{len(edges) - 1}]", board=board(edges=edges))
    edges = [e for e in b["edges"] if e not in ("OL0-L1", "HL0-L2", "HR0-L3", "OR0-L4")]
    assert "not connected" in bad("board.edges", board=board(edges=edges))
    sp = copy.deepcopy(b["spaces"])
    sp["K1"]["kind"] = "tower"
    assert "side 1 needs exactly one keep" in bad("board.spaces", board=board(spaces=sp))
    sp = copy.deepcopy(b["spaces"])
    sp["TL0"]["side"] = -1
    bad("board.spaces.TL0.side", board=board(spaces=sp))
    sp = copy.deepcopy(b["spaces"])
    sp["L1"]["level"] = -1
    bad("board.spaces.L1.level", board=board(spaces=sp))
    sp = copy.deepcopy(b["spaces"])
    sp["L1"]["kind"] = "swamp"
    bad("board.spaces.L1.kind", board=board(spaces=sp))


def test_redrawn_board_and_new_card_need_no_code():
    b = board(edges=[f"{a}-{c}" for a, c in R.DEFAULT_BOARD["edges"]] + ["L2-L3"])
    p = R.prepare(rules_with(board=b))
    n = p.spnames
    assert p.dist[n.index("L2"), n.index("L3")] == 1
    d = deck(archer={"kind": "regular", "cost": 2, "attack": 2, "defense": 1, "range": 2, "copies": 2})
    p = R.prepare(rules_with(deck=d))
    rec, agg = SPEC.run_chunk(p, 3, 0, np.zeros(20, np.int8), np.array([0, 0]), 5)
    assert rec.shape == (20, len(R.fields_for(p))) and (rec[:, 2] >= 1).all()
    assert R.fields_for(p) == R.record_fields_for(rules_with(deck=d))


def test_a_new_card_gets_its_own_columns_in_records_and_summary():
    """A card added under a new name is recorded like the default deck's cards: records,
    the run's spec, the per-unit table and the saved games all carry its columns."""
    from simkit.analysis.metrics import unit_table
    from simkit.engine.runner import RunConfig, simulate
    from simkit.scenario import load_scenario
    archer = {"kind": "regular", "cost": 1, "attack": 3, "defense": 1, "range": 2, "copies": 6}
    sc = load_scenario("storm_the_castle", {"deck.archer": archer,
                                            "dispatch_priority": ["archer", "knight", "cavalry"]})
    spec = sc.spec
    assert "archer" in spec.unit_types and "archer" not in SPEC.unit_types
    for stat in ("dispatched", "attacks", "kills", "losses", "snap", "final"):
        assert f"{stat}_0_archer" in spec.record_fields and f"{stat}_1_archer" in spec.record_fields
    assert spec.record_fields == R.fields_for(sc.params())
    res = simulate(sc, RunConfig(games=60, seed=4, policies=("greedy", "greedy")), threads=1, progress=False)
    rec, f = res.records(), list(spec.record_fields)
    assert rec.shape == (60, len(f))
    for s in (0, 1):
        assert rec[:, f.index(f"dispatched_{s}_archer")].sum() > 0       # greedy wants archers first
    kills = sum(int(rec[:, f.index(f"kills_{s}_archer")].sum()) for s in (0, 1))
    deaths = sum(int(rec[:, f.index(f"losses_{s}_archer")].sum()) for s in (0, 1))
    assert kills > 0 and deaths > 0
    table = unit_table(res.tally)
    assert table.loc[(0, "archer"), "dispatched"] == rec[:, f.index("dispatched_0_archer")].sum()
    assert table.loc[(1, "archer"), "kills"] == rec[:, f.index("kills_1_archer")].sum()
    # the default scenario keeps the default layout (its records are unchanged)
    assert load_scenario("storm_the_castle").spec is SPEC


def test_variants_load():
    from simkit.scenario import load_scenario
    five = load_scenario(str(ROOT / "scenarios/storm_the_castle/five_points.toml"))
    assert five.rules["dispatch_points"] == 5
    sick = load_scenario(str(ROOT / "scenarios/storm_the_castle/sickness.toml"))
    assert sick.rules["summoning_sickness"] is True
    with pytest.raises(ScenarioError) as e:
        load_scenario("storm_the_castle", ["deck.knight.cost=-3"])
    assert e.value.key == "deck.knight.cost"
    s = load_scenario("storm_the_castle", ["deck.knight.cost=4"])
    assert s.params().ctab[s.params().names.index("knight"), R.T_COST] == 4


def test_handicap_removes_cards_from_one_side():
    from simkit.games.storm_the_castle.play import Game
    from storm_helpers import check_invariants
    p = R.prepare(rules_with(remove_0={"hero": 1, "knight": 2}))
    assert p.copies.sum(axis=1).tolist() == [26, 29]
    assert p.copies[0, p.names.index("knight")] == 2 and p.copies[1, p.names.index("knight")] == 4
    for seed in range(3):
        g = Game(p, seed, 0, seed % 2)
        while not g.over:
            g.play_turn((1, 0))
            check_invariants(g)
    rec, _ = SPEC.run_chunk(p, 0, 0, np.zeros(10, np.int8), np.array([1, 1]), 5)
    f = list(SPEC.record_fields)
    assert (rec[:, f.index("dispatched_0_hero")] == 0).all()


_vals = st.one_of(st.integers(-3, 130), st.booleans(), st.text(max_size=4), st.floats(allow_nan=True),
                  st.sampled_from(["regular", "support", "item", "cleric", "keep", "low", "K0-TL0", "K0"]),
                  st.lists(st.sampled_from(["K0", "L1", "XX"]), max_size=3))


@settings(max_examples=150, deadline=None)
@given(card=st.sampled_from(["knight", "cleric", "great_sword", "new_card"]),
       field=st.sampled_from(list(R.CARD_KEYS) + ["bogus"]), value=_vals,
       space=st.sampled_from(["K0", "L2", "TR1"]), sfield=st.sampled_from(list(R.SPACE_KEYS)), svalue=_vals,
       edge=st.integers(0, 40), evalue=_vals)
def test_fuzzed_decks_and_boards_give_scenario_errors_or_run(card, field, value, space, sfield, svalue,
                                                             edge, evalue):
    d = deck(**{card: {field: value}})
    b = board()
    b["spaces"][space][sfield] = svalue
    if edge < len(b["edges"]):
        b["edges"][edge] = evalue
    for over in ({"deck": d}, {"board": b}):
        try:
            r = rules_with(**over)
        except ScenarioError as e:
            assert e.key and (e.key.startswith(("deck", "board")))
            continue
        p = R.prepare(r)
        rec, _ = SPEC.run_chunk(p, 1, 0, np.zeros(2, np.int8), np.array([0, 1]), 3)
        assert rec.shape[0] == 2


def test_a_scenario_derived_from_resolved_rules_checks_again():
    """values' ablation and --pair derive scenarios from resolved rules (with_overrides): the board's edges
    are (A, B) tuples there, and they must pass the check again (they failed: "got ('K0', 'TL0')")."""
    from simkit.scenario import load_scenario
    sc = load_scenario("storm_the_castle").with_overrides(["remove_0.knight=1"])
    assert sc.rules["remove_0"] == {"knight": 1}
    assert sc.with_overrides(["dispatch_points=5"]).rules["board"]["edges"] == sc.rules["board"]["edges"]
