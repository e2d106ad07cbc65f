"""Warfare! restricted play, ``ban:CLASS:POLICY`` (issue 22): the classes (policies.ACTION_CLASSES), every
policy keeping to its unbanned decisions, and what a ban costs a player."""
from collections import Counter

import numpy as np
import pytest

from simkit import env
from simkit.analysis.matchup import matchup
from simkit.engine.chunk import play_chunk
from simkit.engine.runner import RunConfig
from simkit.errors import UsageError
from simkit.games.warfare import SPEC
from simkit.games.warfare.candidates import ADVANCE, END, STAY, decision_class_nb
from simkit.games.warfare.play import run_chunk
from simkit.games.warfare.policies import ACTION_CLASSES, CL_NONE
from simkit.games.warfare.search import M_PLAYER, S_META
from simkit.games.warfare.state import RECORD_FIELDS, UNITS
from simkit.policies import POL_BAN, parse_policy, policy_vector
from simkit.scenario import load_scenario


def test_spec_declares_the_kernels_classes():
    assert SPEC.action_classes == ACTION_CLASSES == ("shoot", "melee", "advance", "swap", "move")


def _described_class(s, code):
    """A decision's class read off the step API's description (env.describe), independently of
    decision_class_nb: ``shoots`` / ``attacks`` an attack, ``swaps to`` a swap, else a move."""
    if code in (END, STAY):
        return None
    if code == ADVANCE:
        return "advance"
    d = s.steps.describe(s.S, code)
    if ", shoots " in d:
        return "shoot"
    if ", attacks " in d:
        return "melee"
    return "swap" if " swaps to " in d else "move"


def _stepped_classes(sc, pols, games, seed=5):
    """Step ``games`` games through simkit.env with the scripted policies ``pols``; the classes side 0
    played (Counter). Each game's record must be the batch kernel's, and each chosen decision's class as
    the kernels compute it (decision_class_nb) the one its description tells."""
    pv = policy_vector(SPEC, pols)
    _, records, _ = play_chunk("warfare", sc.params(), seed, 0, games, "alternate", tuple(int(x) for x in pv), 10)
    seen = Counter()
    for k in range(games):
        s = env.new_game_from(sc, seed=seed, game=k, first=int(records[k, 0]), snapshot_ply=10)
        P = s.steps.P
        while not s.is_over():
            if s.is_chance():
                s.roll()
                continue
            c = s.scripted_action(pv)
            side = int(s.S[S_META][M_PLAYER])
            want = _described_class(s, c)
            got = int(decision_class_nb(P, s.S[0], s.S[1], s.S[6], np.int64(side), np.int64(c)))
            assert got == (CL_NONE if want is None else ACTION_CLASSES.index(want)), s.steps.describe(s.S, c)
            if side == 0 and want is not None:
                seen[want] += 1
            s.apply(c)
        np.testing.assert_array_equal(s.record(), records[k], err_msg=f"game {k}")
    return seen


@pytest.mark.parametrize("inner,banned,games", [
    ("random", "move", 3), ("random", "advance+swap", 3), ("greedy", "melee", 4), ("eps:0.5:greedy", "shoot", 4),
    ("eps:0.3:greedy", "swap", 4), ("mcts:8", "melee+shoot", 1),
])
def test_a_banned_class_is_never_played(inner, banned, games):
    """Games stepped through simkit.env: the banned side never plays a decision of a banned class (END and
    STAY, never banned, are always there), while the same policy unbanned does in the same games; the
    kernel plays the same games (records)."""
    sc = env.game_scenario("warfare", None, ["max_turns=30"])
    ban = set(banned.split("+"))
    restricted = _stepped_classes(sc, [f"ban:{banned}:{inner}", "greedy"], games)
    free = _stepped_classes(sc, [inner, "greedy"], games)
    assert not ban & set(restricted), restricted
    assert ban & set(free), f"{inner} never plays {banned} here: the test would not see a ban fail"
    assert restricted, "the banned side still acts"


def _col(rec, name):
    return rec[:, RECORD_FIELDS.index(name)]


@pytest.mark.parametrize("inner", ["random", "greedy", "eps:0.3:greedy"])
def test_records_show_no_banned_attack_or_advance(inner):
    """Read off the batch kernel's records (seat 1 banned, 40 games): no archer attack under ban:shoot, no
    other unit's attack under ban:melee, no advance under ban:advance; the same policy unbanned does each
    in the same games."""
    p = load_scenario("warfare").params()
    firsts = np.array([0, 1] * 20, np.int8)

    def run(pol):
        return run_chunk(p, 9, 0, firsts, policy_vector(SPEC, ["greedy", pol]), 10)[0]

    free = run(inner)
    melee = sum(_col(free, f"attacks_1_{u}").sum() for u in UNITS if u != "archer")
    assert _col(free, "attacks_1_archer").sum() > 0 and melee > 0 and _col(free, "advances_1").sum() > 0
    rec = run(f"ban:shoot:{inner}")
    assert _col(rec, "attacks_1_archer").sum() == 0
    rec = run(f"ban:melee:{inner}")
    assert sum(_col(rec, f"attacks_1_{u}").sum() for u in UNITS if u != "archer") == 0
    assert _col(rec, "attacks_1_archer").sum() > 0
    rec = run(f"ban:advance:{inner}")
    assert _col(rec, "advances_1").sum() == 0


def test_ban_swap_greedy_is_greedy():
    """Greedy never swaps (policies.py): banning swaps plays greedy's games draw for draw, while banning
    melee changes them."""
    p = load_scenario("warfare").params()
    firsts = np.array([0, 1] * 50, np.int8)
    a, _ = run_chunk(p, 3, 0, firsts, policy_vector(SPEC, ["ban:swap:greedy", "greedy"]), 10)
    b, _ = run_chunk(p, 3, 0, firsts, policy_vector(SPEC, ["greedy", "greedy"]), 10)
    c, _ = run_chunk(p, 3, 0, firsts, policy_vector(SPEC, ["ban:melee:greedy", "greedy"]), 10)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(b, c)


def test_banning_melee_weakens_greedy():
    """Melee does most of the killing: greedy scores well above 1/2 against greedy that never attacks in
    contact (200 games, the interval's lower end)."""
    res = matchup(load_scenario("warfare"), ["greedy", "ban:melee:greedy"], RunConfig(games=200))
    assert res.cells[("greedy", "ban:melee:greedy")]["ci"][0] > 0.5


def test_ban_names_are_checked_and_canonical():
    c = parse_policy(SPEC, "ban:move+shoot:greedy")
    assert c.name == "ban:shoot+move:greedy" and policy_vector(SPEC, [c.name, "greedy"])[POL_BAN] == 0b10001
    with pytest.raises(UsageError, match="'end' is not an action class of warfare") as e:
        parse_policy(SPEC, "ban:end:greedy")
    assert "\n" not in str(e.value)
