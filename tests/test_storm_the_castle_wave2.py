"""Storm the Castle, wave 2: second-player compensation (ST-C1, ST-C2), the trajectory hook, policy knobs."""
import numpy as np
import pytest

from simkit.games.storm_the_castle import SPEC
from simkit.games.storm_the_castle import rules as R
from simkit.games.storm_the_castle.evaluate import lead_nb
from simkit.games.storm_the_castle.play import TERMINAL_LEAD, Game, run_chunk, trajectory
from simkit.games.storm_the_castle.render import play_text
from simkit.games.storm_the_castle.state import ACT_DISPATCH, C_TYPE, G_POINTS, G_SIDE, G_TURN, G_WINNER, L_HAND
from simkit.policies import policy_vector
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


# --- trajectory hook (issue 16) -------------------------------------------------------------

P0 = params()
FIELDS = list(SPEC.record_fields)
KILL_COLS = [i for i, f in enumerate(FIELDS) if f.startswith("kills_")]


@pytest.mark.parametrize("names", [["random", "random"], ["greedy", "greedy"], ["greedy", "random"],
                                   ["eps:0.2:greedy", "greedy"]])
@pytest.mark.parametrize("seed", [0, 11])
def test_trajectory_plays_the_batch_kernels_game(names, seed):
    pv = policy_vector(SPEC, names)
    firsts = np.array([0, 1, 1, 0], np.int8)
    recs, _ = run_chunk(P0, seed, 0, firsts, pv, 20)
    for i in range(len(firsts)):
        values, legal, inter, rec = SPEC.trajectory(P0, seed, i, int(firsts[i]), pv)
        assert np.array_equal(rec, recs[i])
        L = int(rec[2])
        assert values.shape == (L + 1,) and legal.shape == (L,) and inter.shape == (L,)
        assert values.dtype == np.float64 and np.all(np.isfinite(values))
        assert np.all(legal >= 1) and np.all(inter >= 0)
        # every kill of the record happened in exactly one turn
        assert inter.sum() == rec[KILL_COLS].sum()
        if rec[1] >= 0:
            assert values[-1] == (TERMINAL_LEAD if rec[1] == 0 else -TERMINAL_LEAD)


def test_trajectory_values_are_the_lead_before_each_turn():
    """Replay the game turn by turn on the step API (same seed: same dice) and evaluate by hand."""
    pv = policy_vector(SPEC, ["greedy", "greedy"])
    values, legal, inter, rec = trajectory(P0, 4, 2, 1, pv)
    g = Game(P0, 4, 2, 1)
    for t in range(len(legal)):
        assert g.g[G_TURN] == t
        v = lead_nb(g.cards, g.sp, g.zones, g.zn, P0.ctab, P0.wt[0], P0.dist, P0.keep, np.int64(g.g[G_SIDE]))
        assert values[t] == pytest.approx(v, abs=0)
        g.play_turn(pv)
    assert g.g[G_TURN] == rec[2] and g.g[G_WINNER] == rec[1]     # the same game, to its end
    if rec[1] < 0:
        assert values[-1] == lead_nb(g.cards, g.sp, g.zones, g.zn, P0.ctab, P0.wt[0], P0.dist, P0.keep,
                                     np.int64(g.g[G_SIDE]))


def test_trajectory_legal_counts_the_first_real_choice():
    """A hand-built turn: side 0 holds one Knight and has 3 free castle spaces -> the first decision
    (dispatch) has 'end' + 3 options; with an empty hand and deck and no units, no choice at all."""
    from simkit.games.storm_the_castle.play import play_turn_nb, policy_array, search_scratch
    from simkit.games.storm_the_castle.state import G_CHOICE
    t = Table()
    t.to_hand(0, "knight")
    t.empty_deck(0)
    castle = [x for x in range(len(P0.spnames)) if P0.spi[x, R.X_CASTLE] == 0]
    g = t.g
    pv = policy_array([1, 1])
    srch = search_scratch(g.p, pv)

    def turn():
        play_turn_nb(pv, g.p.ctab, g.p.wt, g.p.spi, g.p.adj, g.p.dist, g.p.keep, g.p.iopt, g.p.fopt,
                     g.p.ptable, g.p.prio, g.p.fidx, g.p.mparams, g.cards, g.sp, g.zones, g.zn, g.g, g.seen,
                     g.bq, g.bd, g.buf, g.role, g.rng, g.rec, g.agg, g.log, np.int64(0), srch)
        return int(g.g[G_CHOICE])

    assert turn() == 1 + len(castle)
    t2 = Table()
    t2.empty_deck(1)
    g = t2.g
    g.g[G_SIDE] = 1
    assert turn() == 0          # nothing to decide: trajectory records legal = 1


def test_quality_command_runs_on_storm(tmp_path):
    from simkit.analysis.quality import quality
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    res = quality(load_scenario("storm_the_castle"), RunConfig(games=12, seed=1, policies=("greedy", "greedy")),
                  out_dir=tmp_path / "q")
    m = res.metrics()
    assert m["branching"]["mean"] > 1 and m["interaction"]["mean"] > 0
    assert (tmp_path / "q" / "quality.json").exists()


# --- policy knobs (issue 15) ------------------------------------------------------------------
def test_greedy_and_mcts_knobs_are_policy_knobs_and_rules_are_not():
    from simkit.analysis.sensitivity import rule_knobs
    knobs = {o.name for o in R.OPTIONS if o.policy_knob}
    # every option whose help says it tunes the greedy commander, and the search's knobs
    assert knobs == {o.name for o in R.OPTIONS if o.help.startswith("greedy") or o.name.startswith("mcts_")}
    assert {"attack_threshold", "keep_attack_threshold", "defenders", "dispatch_order", "dispatch_priority",
            "mcts_c", "mcts_scale"} <= knobs
    numeric = {o.name for o in rule_knobs(SPEC)}
    assert numeric == {"dispatch_points", "max_turns", "hand_size", "second_player_dispatch_bonus",
                       "second_player_extra_cards"}
