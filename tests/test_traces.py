"""`simkit play` traces (issue 16): one header for every game, and what a rules reader needs.

Each game's trace is checked against what the rules let us predict, never against
its own output: hand-built positions with a known result (Storm, Warfare), the
record the kernel wrote for the same game (captures, promotions, losses,
advances, shield blocks), and the dice rules (a printed Storm modifier is the
sum of its printed parts, and the printed outcome follows from the roll).
"""
import re
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from conftest import invoke  # noqa: E402
from simkit.games import get_game  # noqa: E402
from simkit.games.trace import HEADER_KEYS  # noqa: E402
from simkit.scenario import load_scenario  # noqa: E402


def _header_ok(text, title, pols, seed, game, first):
    lines = text.splitlines()[:4]
    assert [ln[:len(k)] for ln, k in zip(lines, HEADER_KEYS)] == list(HEADER_KEYS), lines
    assert title in lines[0]
    assert lines[2] == f"policies: side 0 = {pols[0]}, side 1 = {pols[1]}"
    assert lines[3].startswith(f"seed {seed}, game {game} ") and lines[3].endswith(f"first player: side {first}")


def _fields(spec, rec):
    return dict(zip(spec.record_fields, (int(x) for x in rec)))


# --------------------------------------------------------------------------- Martian Chess

def test_martian_chess_trace_counts_captures_and_field_promotions_as_the_record():
    spec = get_game("martian_chess")
    sc = load_scenario("martian_chess")
    from simkit.games.martian_chess.play import play_one
    params = sc.params()
    # a random game with at least one field promotion (MC-2) and one capture
    for game in range(40):
        rec, _ = play_one(params, 5, game, game % 2, (0, 0))
        f = _fields(spec, rec)
        if f["promotions_0"] + f["promotions_1"] > 0 and f["captures_0"] + f["captures_1"] > 0:
            break
    else:
        pytest.skip("no random game with a field promotion in 40")
    text = spec.play(params, 5, game, game % 2, (0, 0), variant="default (no overrides)")
    _header_ok(text, "Martian Chess", ("random", "random"), 5, game, game % 2)
    for p in (0, 1):
        caps = re.findall(rf"ply \d+: player {p} .*\(captures (\w+): \+(\d)", text)
        assert len(caps) == f[f"captures_{p}"]
        # the captured piece's pips are the mover's points (MC rules): they sum to the final score
        assert sum(int(n) for _, n in caps) == f[f"score_{p}"]
        assert len(re.findall(rf"ply \d+: player {p} .*field promotion", text)) == f[f"promotions_{p}"]
    # a merge gives the summed pips: pawn + pawn -> drone, pawn + drone -> queen
    for a, b, c in re.findall(r"field promotion: (\w+) \+ (\w+) -> (\w+)", text):
        pips = {"pawn": 1, "drone": 2, "queen": 3}
        assert pips[a] + pips[b] == pips[c]


# ----------------------------------------------------------------------------------- Skorm

def test_skorm_trace_shield_blocks_deaths_and_gold_tile_match_the_record():
    spec = get_game("skorm")
    params = load_scenario("skorm").params()
    from simkit.games.skorm.render import run_logged
    seen_gold = False
    for game in range(6):
        _, rec = run_logged(params, 2, game, game % 2, (1, 1))
        f = _fields(spec, rec)
        text = spec.play(params, 2, game, game % 2, (1, 1))
        _header_ok(text, "Skorm", ("greedy", "greedy"), 2, game, game % 2)
        # every removed piece is printed as a death; the replay's shield blocks are the kernel's
        assert text.count(" dies") == sum(v for k, v in f.items() if k.startswith("losses_"))
        m = re.search(r"shield blocks .*: side 0 (\d+), side 1 (\d+)", text)
        assert (int(m[1]), int(m[2])) == (f["shield_blocks_0"], f["shield_blocks_1"])
        per_ply = sum(int(n) for n in re.findall(r"shields block (\d+) of", text))
        assert per_ply == f["shield_blocks_0"] + f["shield_blocks_1"]
        reason = spec.end_reasons[f["end_reason"]]
        if reason == "gold_tile_immediate":
            assert "immediate win (SK-7)" in text
            seen_gold = True
        if reason == "gold_tile":
            assert "wins if it survives" in text and "survived a turn on the Gold Tile" in text
            seen_gold = True
    assert seen_gold, "greedy Skorm games almost always end on the Gold Tile"


# ------------------------------------------------------------------------ Storm the Castle

def test_storm_modifier_parts_deaths_and_advance_in_a_hand_built_attack():
    from storm_helpers import Table
    from simkit.games.storm_the_castle.render import consequences, modifier_parts, _where
    from simkit.games.storm_the_castle.state import ACT_ATTACK
    t = Table()
    a = t.put(0, "knight", "HL0", item="great_sword")
    b = t.put(1, "shield_bearer", "L2")
    att, dfn = modifier_parts(t.g, a, b)
    # RULES §3: Knight A4, Great Sword +1 A, terrain high (2) - low (0) to the attacker; Shield Bearer D3
    assert att == [("knight", 4), ("great_sword", 1), ("terrain high vs low", 2)]
    assert dfn == [("shield_bearer", 3)]
    before = _where(t.g)
    t.g.apply((ACT_ATTACK, a, b), 12)                 # natural 12: success whatever the modifier
    cons = consequences(t.g, before, a, False)
    assert cons == ["1:shield_bearer dies (to its graveyard)", "0:knight advances HL0 -> L2"]

    t = Table()
    a = t.put(0, "knight", "HL0", item="great_sword")
    b = t.put(1, "knight", "L2", item="tower_shield")
    att, dfn = modifier_parts(t.g, a, b)
    assert dfn == [("knight", 3), ("tower_shield", 2)]
    before = _where(t.g)
    t.g.apply((ACT_ATTACK, a, b), 2)                  # natural 2: critical failure, the melee attacker dies
    cons = consequences(t.g, before, a, False)
    assert cons[0] == "the attacker 0:knight dies (to its graveyard)"
    assert "great_sword goes to the graveyard under it" in cons[1]


def test_storm_trace_modifiers_add_up_and_outcomes_follow_the_dice():
    spec = get_game("storm_the_castle")
    params = load_scenario("storm_the_castle").params()
    from simkit.engine.dice import (STORM_CRIT_FAIL, STORM_CRIT_SUCCESS, STORM_FAIL, STORM_SUCCESS,
                                    storm_resolve_nb)
    from simkit.games.storm_the_castle.render import run_logged
    attacks = crits = 0
    for game in range(4):
        _, played, _ = run_logged(params, 4, game, game % 2, (1, 0))
        f = _fields(spec, played.rec)            # the kernel's own counts of the game the trace replays
        text = spec.play(params, 4, game, game % 2, (1, 0), variant="default (no overrides)")
        _header_ok(text, "Storm the Castle", ("greedy", "random"), 4, game, game % 2)
        assert "#" not in text                        # cards by name, never by number
        lines = text.splitlines()
        for i, ln in enumerate(lines):
            m = re.search(r": attack (.*?) = (-?\d+) vs defense (.*?) = (-?\d+): modifier ([+-]\d+), "
                          r"needs 2d6 <= (-?\d+), rolls (\d+): (.*)$", ln)
            if not m:
                continue
            attacks += 1
            # "4 knight +1 great_sword +2 terrain high vs low": the first number, then each signed part
            parts = [int(v) for v in re.findall(r"(?:^| )([+-]?\d+) (?=[A-Za-z])", m[1])]
            dparts = [int(v) for v in re.findall(r"(?:^| )([+-]?\d+) (?=[A-Za-z])", m[3])]
            mod, roll = int(m[5]), int(m[7])
            assert sum(parts) == int(m[2]) and sum(dparts) == int(m[4])
            assert int(m[2]) - int(m[4]) == mod and int(m[6]) == 3 + mod
            res = storm_resolve_nb.py_func(roll, mod)     # 2 fails, 12 succeeds, else roll <= 3 + modifier
            word = {STORM_FAIL: "fail", STORM_SUCCESS: "success", STORM_CRIT_FAIL: "CRITICAL FAIL",
                    STORM_CRIT_SUCCESS: "critical success"}[res]
            assert m[8] == word
            follow = lines[i + 1] if i + 1 < len(lines) else ""
            if res in (STORM_SUCCESS, STORM_CRIT_SUCCESS):
                assert "dies" in follow                   # a successful attack always kills its target
            if res == STORM_CRIT_FAIL:
                crits += 1
                if ln.lstrip().startswith("attack"):      # melee: the attacker dies (ranged: nothing)
                    assert "the attacker" in follow and "dies" in follow
        deaths = len(re.findall(r"dies \(to its graveyard\)|goes to the graveyard under it", text))
        assert deaths == sum(v for k, v in f.items() if k.startswith("losses_"))
        assert text.count("CRITICAL FAIL") == sum(v for k, v in f.items() if k.startswith("crit_fails_"))
        assert "graveyard: " in text
    assert attacks > 0


# ---------------------------------------------------------------------------------- Warfare

def test_warfare_combat_parts_are_the_kernels_modifiers():
    """Every attacker/defender type, angle, range and tree: the printed parts sum to combat_kind_nb's."""
    from simkit.games.warfare.moves import combat_kind_nb
    from simkit.games.warfare.render import combat_parts
    params = load_scenario("warfare").params()
    ip = params[0]
    for at in range(4):
        for dt in range(4):
            for ang in range(3):
                for tree in (0, 1):
                    ranged = at == 3
                    step, am, dm = combat_parts(at, dt, ang, ranged, tree, ip)
                    kind, kam, kdm = combat_kind_nb.py_func(at, dt, ang, ranged, tree, ip)
                    assert (step is None) == (kind == 2)
                    assert (sum(v for _, v in am), sum(v for _, v in dm)) == ((kam, kdm) if kind == 2 else (0, 0))
    # RULES §4: Cavalry charging the front of Frontline Infantry +1; a defender on a tree +1 vs cavalry
    step, am, dm = combat_parts(0, 2, 0, False, 1, ip)
    assert step is None and am == [("cavalry charges infantry's front", 1)]   # the default +1
    assert dm == [("on a tree against a cavalry charge", 1)]


def test_warfare_trace_deaths_and_advances_match_the_record():
    spec = get_game("warfare")
    params = load_scenario("warfare").params()
    from simkit.games.warfare.play import play_one
    # two greedy games, and the first random game in which a surround (WF-6) kills
    games = [(0, (1, 1)), (1, (1, 1))]
    for game in range(40):
        f = _fields(spec, play_one(params, 1, game, game % 2, (0, 0))[0])
        if f["kills_surround_0"] + f["kills_surround_1"] > 0:
            games.append((game, (0, 0)))
            break
    assert len(games) == 3, "no surround in 40 random games"
    for game, pols in games:
        rec, _, _, _ = play_one(params, 1, game, game % 2, pols)
        f = _fields(spec, rec)
        text = spec.play(params, 1, game, game % 2, pols)
        names = ("greedy", "greedy") if pols == (1, 1) else ("random", "random")
        _header_ok(text, "Warfare!", names, 1, game, game % 2)
        for s in (0, 1):
            lost = sum(f[f"losses_{s}_{u}"] for u in spec.unit_types)
            assert re.search(rf"units lost: .*side {s} {lost}\b", text)
            assert len(re.findall(rf"{s}:\w+ advances to", text)) == f[f"advances_{s}"]
        assert text.count("opposed d6") == f["wins_roll_0"] + f["wins_roll_1"]
        surround = f["kills_surround_0"] + f["kills_surround_1"]
        named = sum(len(m.split(", ")) for m in re.findall(r"enemies, (.*) dies? \(WF-6\)", text))
        assert named == surround


# ------------------------------------------------------------------------------------- CLI

def test_play_command_prints_the_variant_in_the_header(runner):
    r = invoke(runner, ["play", "martian_chess", "--seed", 3, "--policy", "random", "--set", "clock=leader"])
    assert r.exit_code == 0
    assert r.stdout.splitlines()[1] == "variant:  default [clock=leader]"
