"""Storm the Castle restricted play, ``ban:CLASS:POLICY`` (issue 22): the classes (policies.ACTION_CLASSES),
every policy keeping to its unbanned decisions, and what a ban costs a player."""
import numpy as np
import pytest

from simkit import env
from simkit.analysis.matchup import matchup
from simkit.engine.chunk import play_chunk
from simkit.engine.runner import RunConfig
from simkit.errors import UsageError
from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle.play import run_chunk
from simkit.games.storm_the_castle.policies import ACTION_CLASSES, CL_ATTACK, CL_NONE
from simkit.games.storm_the_castle.search import class_nb
from simkit.policies import POL_BAN, parse_policy, policy_vector
from simkit.scenario import load_scenario

GAME = "storm_the_castle"
# a decision's class read off its step-API label (search.decision_label), independently of class_nb
LABEL_CLASS = {"dispatch": "dispatch", "move": "move", "attack": "attack", "cleric": "prayer",
               "blacksmith": "forge", "sorcerer": "buff", "end": None}


def _label_class(label: str):
    return LABEL_CLASS[label.split()[0]]


def test_spec_declares_the_kernels_classes():
    assert SPEC.action_classes == ACTION_CLASSES == ("dispatch", "move", "attack", "prayer", "forge", "buff")


def test_class_nb_agrees_with_the_labels_of_the_legal_decisions():
    """Every legal code of some random games: class_nb names the class its label names; ending the
    phase or turn is no class (a bit no ban sets)."""
    pv = policy_vector(SPEC, ("random", "random"))
    seen = set()
    for k in range(6):
        s = env.new_game(GAME, seed=2, game_index=k)
        while not s.is_over():
            if s.is_chance():
                s.roll()
                continue
            for c in s.legal_actions():
                want = _label_class(s.action_label(int(c)))
                got = int(class_nb(s.steps.P, s.S, np.int64(c)))
                assert got == (CL_NONE if want is None else ACTION_CLASSES.index(want)), s.action_label(int(c))
                seen.add(want)
            s.apply(s.scripted_action(pv))
    assert seen == set(LABEL_CLASS.values())


@pytest.mark.parametrize("inner,banned", [("random", "attack"), ("greedy", "attack"), ("greedy", "move"),
                                          ("eps:0.5:greedy", "dispatch"), ("mcts:8", "attack+prayer")])
def test_a_banned_class_is_never_played(inner, banned):
    """Games stepped through simkit.env with the scripted policies: the banned side (seat 0) never plays a
    decision of a banned class, although such decisions were legal (ending the phase or turn is always
    an unbanned option, so a banned side is never left with banned decisions only); the games are the
    batch kernel's (same records)."""
    pols = [f"ban:{banned}:{inner}", "greedy"]
    pv = policy_vector(SPEC, pols)
    ban = set(banned.split("+"))
    games = 3 if inner.startswith("mcts") else 6
    sc = load_scenario(GAME)
    _, records, _ = play_chunk(GAME, sc.params(), 5, 0, games, "alternate", tuple(int(x) for x in pv), 10)
    bit = 0
    for k in range(games):
        s = env.new_game_from(sc, seed=5, game=k, first=int(records[k, 0]), snapshot_ply=10, policies=pols)
        while not s.is_over():
            if s.is_chance():
                s.roll()
                continue
            side = s.current_player
            c = s.scripted_action(pv)
            if side == 0:
                assert _label_class(s.action_label(c)) not in ban, (k, s.action_label(c))
                bit += any(_label_class(s.action_label(int(x))) in ban for x in s.legal_actions())
            s.apply(c)
        np.testing.assert_array_equal(s.record(), records[k], err_msg=f"game {k}")
    assert bit > 0


def _count(rec, stat, side):
    return int(sum(rec[:, SPEC.record_fields.index(f)].sum() for f in SPEC.record_fields
                   if f.startswith(f"{stat}_{side}_")))


@pytest.mark.parametrize("inner,opponent", [("random", "random"), ("eps:0.3:greedy", "greedy")])
def test_records_show_no_attack_or_prayer_of_a_banned_side(inner, opponent):
    """Read off the records: the banned side (seat 1 here) attacks and prays for no one, its opponent
    does, and the same policy unbanned does both in the same games."""
    p = load_scenario(GAME).params()
    firsts = np.array([0, 1] * 20, np.int8)
    banned, _ = run_chunk(p, 9, 0, firsts, policy_vector(SPEC, [opponent, f"ban:attack+prayer:{inner}"]), 5)
    free, _ = run_chunk(p, 9, 0, firsts, policy_vector(SPEC, [opponent, inner]), 5)
    for stat in ("attacks", "resurrections"):
        assert _count(banned, stat, 1) == 0 and _count(banned, stat, 0) > 0 and _count(free, stat, 1) > 0, stat


def test_the_search_leaves_out_a_banned_class_at_the_root():
    """Game.search with the attack class banned never answers an attack, at decisions where the unbanned
    search (same seed) does attack."""
    from simkit.games.storm_the_castle.play import Game, search_scratch
    p = load_scenario(GAME).params()
    attacked = 0
    pv = policy_vector(SPEC, ("greedy", "greedy"))
    s = env.new_game(GAME, seed=4)
    while not s.is_over() and attacked < 3:
        if s.is_chance():
            s.roll()
            continue
        if any(_label_class(s.action_label(int(x))) == "attack" for x in s.legal_actions()):
            codes = []
            for ban in (0, 1 << CL_ATTACK):
                g = Game(p, 0, 0, 0)
                for a, b in zip((g.cards, g.sp, g.zones, g.zn, g.g), s.S[:5]):
                    a[...] = b
                codes.append(g.search(16, search_scratch(p, policy_vector(SPEC, ("mcts:16", "mcts:16"))), ban))
            assert _label_class(s.action_label(codes[1])) != "attack"
            attacked += _label_class(s.action_label(codes[0])) == "attack"
        s.apply(s.scripted_action(pv))
    assert attacked > 0


def test_banning_attacks_weakens_greedy():
    """Greedy wins by fighting its way into the enemy keep: greedy that never attacks scores below 1/2
    against it (200 games, the interval's upper end)."""
    res = matchup(load_scenario(GAME), ["greedy", "ban:attack:greedy"], RunConfig(games=200))
    assert res.cells[("ban:attack:greedy", "greedy")]["ci"][1] < 0.5


def test_ban_names_are_checked_and_canonical():
    c = parse_policy(SPEC, "ban:buff+dispatch:greedy")
    assert c.name == "ban:dispatch+buff:greedy" and policy_vector(SPEC, [c.name, "greedy"])[POL_BAN] == 0b100001
    with pytest.raises(UsageError, match="'shoot' is not an action class of storm_the_castle"):
        parse_policy(SPEC, "ban:shoot:greedy")
