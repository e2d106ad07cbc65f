"""Martian Chess, issues 15-16: the MC-C1 komi, the per-ply trajectory, policy knobs."""
import numpy as np
import pytest

from simkit.errors import ScenarioError
from simkit.games import get_game
from simkit.games.martian_chess import moves as mv
from simkit.games.martian_chess import state as st
from simkit.games.martian_chess.play import F_PLIES, play_one, trajectory
from simkit.games.martian_chess.policies import evaluate_nb
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

SPEC = get_game("martian_chess")
C = st.cell_of


def params(**rules):
    base = {o.name: o.default for o in SPEC.options}
    base.update(rules)
    SPEC.validate(base)
    return SPEC.prepare(base)


def pv(*names):
    return tuple(int(x) for x in policy_vector(SPEC, list(names)))


def position(pieces, to_move=0, komi_half=0, first=0, **fields):
    board = np.zeros(32, dtype=np.int8)
    for name, pips in pieces.items():
        board[C(name)] = pips
    meta = st.new_meta(first, board, komi_half)
    meta[st.M_TO_MOVE] = to_move
    for k, v in fields.items():
        if k.startswith("score_"):
            meta[st.M_SCORE + int(k[-1])] = v
        else:
            meta[getattr(st, "M_" + k.upper())] = v
    return board, meta


# ---------------------------------------------------------------- MC-C1 komi

@pytest.mark.parametrize("komi_half, first, winner", [(0, 0, -1), (1, 0, 1), (1, 1, 0), (-1, 0, 0), (2, 0, -1)])
def test_komi_decides_a_clock_ending_at_equal_scores(komi_half, first, winner):
    """The clock's 7th quiet ply at 1-1: equal scores draw (MC-4) unless a komi makes them
    unequal; a half-point komi wins it for the player who moved second, a negative one for
    the first player. Komi 1 (2 half pips) exactly offsets a 1-0 deficit: a draw."""
    p = params()
    score_1 = 0 if komi_half == 2 else 1   # komi 1 to the second player offsets its 1-pip deficit
    board, meta = position({"a1": 1, "d8": 1}, to_move=0, komi_half=komi_half, first=first,
                           score_0=1, score_1=score_1, called=1, clock=6)
    mv.apply_move_nb(board, meta, p[2], C("a1") * 32 + C("b2"))
    assert meta[st.M_END] == st.END_CLOCK
    assert meta[st.M_WINNER] == winner


def test_komi_breaks_the_territory_tie_against_the_mover():
    """Territory end with equal pips: the mover wins the tie (RULES); a half-point komi for
    the other player means the scores are no longer equal."""
    p = params()
    for komi_half, winner in ((0, 0), (1, 1)):
        board, meta = position({"b4": 1, "a8": 1}, to_move=0, komi_half=komi_half, first=0)
        mv.apply_move_nb(board, meta, p[2], C("b4") * 32 + C("a5"))   # player 0's last piece crosses
        assert meta[st.M_END] == st.END_TERRITORY and meta[st.M_WINNER] == winner


def test_leader_clock_counts_the_komi():
    """MC-4 leader with a komi: the second player, 0-0 on the board, leads by the komi and
    calls the clock as its first turn begins; without a komi nobody leads."""
    p = params(clock="leader")
    for komi_half, called in ((0, 0), (1, 1)):
        board, meta = position({"a1": 1, "d8": 1}, to_move=1, komi_half=komi_half, first=0)
        mv.start_turn_nb(meta, p[2])
        assert meta[st.M_CALLED] == called


def test_komi_option_validation_and_params():
    with pytest.raises(ScenarioError):
        params(komi=0.3)
    assert params(komi=1.5)[2][st.R_KOMI] == 3 and params(komi=-2.0)[2][st.R_KOMI] == -4
    with pytest.raises(ScenarioError):
        load_scenario("martian_chess", ["komi=0.25"])


def test_greedy_evaluation_counts_the_komi():
    p = params()
    board, meta = position({"a1": 1, "b2": 2, "c7": 3}, score_0=2)
    base = evaluate_nb(board, meta, p[1], p[3][0], 0)
    meta[st.M_KOMI + 1] = 3            # 1.5 pips to player 1
    assert evaluate_nb(board, meta, p[1], p[3][0], 0) == pytest.approx(base - 1.5)
    meta[st.M_KOMI + 1] = 0
    base1 = evaluate_nb(board, meta, p[1], p[3][1], 1)
    meta[st.M_KOMI + 1] = 3
    assert evaluate_nb(board, meta, p[1], p[3][1], 1) == pytest.approx(base1 + 1.5)


def _winner_by_rules(row, komi):
    """Independent re-reading of RULES §2 scoring from a record: komi to the second player."""
    first, plies, end = int(row[0]), int(row[2]), int(row[3])
    s = [float(row[4]), float(row[5])]
    s[1 - first] += komi
    if end == st.END_STALEMATE:
        return -1
    if s[0] != s[1]:
        return 0 if s[0] > s[1] else 1
    if end == st.END_TERRITORY:
        return first if plies % 2 == 1 else 1 - first   # the mover of the last ply wins the tie
    return -1


@pytest.mark.parametrize("komi", [0.5, 1.0, -0.5])
def test_komi_in_whole_games(komi):
    """Every game's winner follows the scores with the komi added for the second player;
    a half-point komi leaves no draw at all (MC-5 stalemates cannot arise)."""
    p = load_scenario("martian_chess", [f"komi={komi}"]).params()
    for ids in ((1, 1), (0, 0)):
        rec, _ = SPEC.run_chunk(p, 3, 0, np.array([0, 1] * 100, np.int8), ids, 20)
        for row in rec:
            assert row[1] == _winner_by_rules(row, komi), row[:6]
        if komi % 1:
            assert (rec[:, 1] >= 0).all()


def test_default_komi_plays_the_same_games():
    """komi=0 (the default) is the published game: records equal the defaults' (the MCTS tests
    also hold digests of random/greedy records taken before the komi existed)."""
    a = load_scenario("martian_chess").params()
    b = load_scenario("martian_chess", ["komi=0"]).params()
    for ids in ((1, 1), (0, 1)):
        ra, da = SPEC.run_chunk(a, 5, 0, np.array([0, 1] * 50, np.int8), ids, 20)
        rb, db = SPEC.run_chunk(b, 5, 0, np.array([0, 1] * 50, np.int8), ids, 20)
        assert (ra == rb).all() and (da == db).all()


# ---------------------------------------------------------------- trajectory

@pytest.mark.parametrize("names", [("random", "random"), ("greedy", "greedy"), ("greedy", "random"),
                                   ("mcts:8", "greedy")])
@pytest.mark.parametrize("seed", [0, 17])
def test_trajectory_plays_the_batch_kernels_game(names, seed):
    p = load_scenario("martian_chess", ["komi=0.5"] if seed else []).params()
    pol = pv(*names)
    for game in (0, 3, 8):
        first = game % 2
        values, legal, inter, rec = trajectory(p, seed, game, first, pol)
        batch, _ = SPEC.run_chunk(p, seed, game, np.array([first], np.int8), pol, 20)
        assert (rec == batch[0]).all()
        L = int(rec[F_PLIES])
        assert len(values) == L + 1 and len(legal) == L and len(inter) == L
        assert int(inter.sum()) == int(rec[6] + rec[7])            # captures_0 + captures_1
        assert values[-1] == (1000.0 if rec[1] == 0 else -1000.0 if rec[1] == 1 else 0.0)


def test_trajectory_values_and_legal_counts_replay_the_game():
    """Replaying the move log position by position: legal[t] is the mover's move count before
    ply t, inter[t] whether ply t captured, values[t] side 0's evaluation of the player not to
    move (its hanging term is a threat only while the other player moves) before ply t."""
    p = load_scenario("martian_chess", ["komi=1.5"]).params()
    init, rays, rules, weights, _ = p
    pol = pv("greedy", "random")
    for game, first in ((1, 1), (2, 0)):
        values, legal, inter, rec = trajectory(p, 9, game, first, pol)
        _, log = play_one(p, 9, game, first, pol, 20)
        board, meta = init.copy(), st.new_meta(first, init, 3)
        out = np.zeros(st.MAX_MOVES, np.int32)
        for t, m in enumerate(log):
            q = 1 - int(meta[st.M_TO_MOVE])
            v = evaluate_nb(board, meta, rays, weights[0], q)
            assert values[t] == pytest.approx(v if q == 0 else -v)
            mv.start_turn_nb(meta, rules)
            assert legal[t] == mv.gen_moves_nb(board, meta, rays, rules, out)
            assert inter[t] == (1 if mv.apply_move_nb(board, meta, rules, m) else 0)
        assert len(log) == len(legal)
    # the opening position: nothing is attacked, material and score level, so only the komi
    # counts: 1.5 pips for the second player
    values, legal, _, _ = trajectory(p, 0, 0, 0, pv("random", "random"))
    assert values[0] == pytest.approx(-1.5)
    assert legal[0] == SPEC.perft(p, 1)[0]


def test_quality_runs_on_martian_chess(tmp_path):
    from simkit.analysis.quality import quality
    from simkit.engine.runner import RunConfig
    sc = load_scenario("martian_chess")
    res = quality(sc, RunConfig(games=30, seed=1, policies=("greedy", "greedy")), out_dir=tmp_path / "q")
    m = res.metrics()
    assert m["branching"]["mean"] > 1 and 0 <= m["decision_moves"]["mean"] <= 1
    assert (tmp_path / "q" / "quality.json").exists()


# ---------------------------------------------------------------- policy knobs

def test_policy_weights_are_policy_knobs_and_komi_is_a_rule():
    by = {o.name: o for o in SPEC.options}
    for k in ("greedy_score", "greedy_material", "greedy_hanging", "mcts_c", "mcts_cutoff", "mcts_scale",
              "mcts_prior_temp", "mcts_fpu", "mcts_decisive", "mcts_contempt"):
        assert by[k].policy_knob, k
    for k in ("komi", "deadlock_plies", "clock_plies", "max_plies"):
        assert not by[k].policy_knob, k
