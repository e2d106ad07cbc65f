"""Warfare!'s search (mcts:N on simkit/engine/search.py): hand-built positions the search must solve, the
chance nodes' exact odds, the hooks playing the game's own rules, decision codes, strength, determinism."""
import hashlib
import importlib
from fractions import Fraction

import numba
import numpy as np
import pytest

from simkit.analysis.matchup import pair_score
from simkit.engine.dice import warfare_distribution
from simkit.engine.rng import rng_seed_nb
from simkit.engine.runner import RunConfig, simulate
from simkit.engine.search import (DECISIVE, K_CHANCE, ONGOING, ROOT, TF_PRIOR, TF_VISITS, TI_CODE, TI_FIRST, TI_KIND,
                                  TI_NEXT, TI_REUSE, TI_STAMPS, tree_capacity)
from simkit.games.warfare import SPEC
from simkit.games.warfare import candidates as C
from simkit.games.warfare import search as WS
from simkit.games.warfare.moves import ROLL, face_mask_nb, gen_dests_nb, in_arc_nb
from simkit.games.warfare.state import ARC, DEF_DIES, END_MOVE_LIMIT, IP_W, NFIELDS
from simkit.policies import policy_vector
from simkit.scenario import load_scenario
from test_warfare_play import army_of, check_game
from warfare_helpers import FACE, Pos, params

play_mod = importlib.import_module("simkit.games.warfare.play")
P = params()


def _rng(seed):
    rng = np.zeros(1, np.uint64)
    rng_seed_nb(rng, np.int64(seed), np.int64(0))
    return rng


def search(p, player, budget, seed=5, turn=10, adv=None, nact=0):
    """One search decision in the hand-made position ``p`` (Pos with army=True), side ``player`` to move in
    turn ``turn`` after ``nact`` activations: (code, workspace).
    ``adv`` = (unit, square): that unit has just killed the enemy on the square (WF-5 decision pending)."""
    Pm = p.P
    Wk = WS.new_workspace_nb(Pm, np.int64(tree_capacity(budget, WS.SEARCH_WIDTH)), np.int64(WS.max_decisions(Pm)))
    S = _state(Pm, p.usq, p.uface, turn, player, p.utype, p.uside)
    meta = S[WS.S_META]
    meta[WS.M_NACT] = nact
    if adv is not None:
        meta[WS.M_ADVU], meta[WS.M_ADVSQ] = adv
        meta[WS.M_ACTU] = adv[0]
        S[WS.S_ACTED][adv[0]] = 1
    before = [a.copy() for a in S[:8]]
    code = WS.decide_nb(Pm, Wk, np.int64(budget), S, _rng(seed))
    # the search plays on copies: the real position is untouched
    assert all((a == b).all() for a, b in zip(before, S[:8]))
    return int(code), Wk


def activation(p, code, player):
    """(unit, (x, y), facing, target unit or -1) of an activation code."""
    ip = p.P[0]
    u, t, f, j = (int(x) for x in C.decode_nb(code, player, ip[13], ip[2], C.arc_max_nb(p.P[6])))
    tgt = -1
    if j:
        tgt = int(p.occ[C.arc_square_nb(t % p.W, t // p.W, f, j, p.W, int(ip[1]))])
    return u, (t % p.W, t // p.W), f, tgt


def test_search_takes_the_certain_kill_of_the_last_enemy():
    # Side 1 has one Spearman left, facing S. Side 0's Infantry can step in front of it and roll
    # (Spearmen -2: likely, not certain; a lost roll kills the Infantry); the Cavalry can ride to
    # the Spearman's flank (7,8) and kill it without a roll (RULES 4 step 3), which wins at once.
    units = [(0, "infantry", 6, 6, "N"), (0, "cavalry", 10, 8, "W"), (1, "spearman", 6, 8, "S")]
    for decisive in (True, False):       # offered as DECISIVE, or found by the search (a proven win)
        p = Pos(params(mcts_decisive=decisive), units, army=True)
        inf, cav, spear = p.ids
        for seed in (1, 2, 3):
            code, _ = search(p, 0, 40, seed=seed)
            assert activation(p, code, 0) == (cav, (7, 8), FACE["W"], spear)


def test_search_finds_a_win_two_activations_deep_without_the_shortcut():
    # Two enemy Infantry left, both facing S; each can be taken from its flank without a roll, by a
    # different unit of side 0 (the Cavalry on the left one's W side, the Spearman behind the right one).
    # Neither kill wins alone; both in one turn do. Without mcts_decisive the search must find the pair:
    # its first activation is one of the two certain kills (the rolls of frontal attacks are worse).
    units = [(0, "cavalry", 1, 5, "N"), (0, "spearman", 9, 9, "S"), (0, "infantry", 5, 5, "N"),
             (1, "infantry", 3, 7, "S"), (1, "infantry", 8, 7, "S")]
    p = Pos(params(mcts_decisive=False), units, army=True)
    cav, spear, inf, left, right = p.ids
    for seed in (1, 2):
        code, Wk = search(p, 0, 200, seed=seed)
        u, _, _, tgt = activation(p, code, 0)
        assert (u, tgt) in ((cav, left), (spear, right))


def test_search_spearman_takes_the_cavalry_from_its_front():
    # A lone Spearman against a lone Cavalry: from the Cavalry's straight-front square (5,4) the
    # Spearman kills it for certain (RULES 4 step 2); from a front diagonal it would only roll,
    # and waiting lets the Cavalry strike first.
    p = Pos(P, [(0, "spearman", 5, 2, "N"), (1, "cavalry", 5, 5, "S"), (1, "infantry", 0, 11, "S")], army=True)
    spear, cav, _ = p.ids
    for seed in (1, 2):
        code, _ = search(p, 0, 60, seed=seed)
        assert activation(p, code, 0) == (spear, (5, 4), FACE["N"], cav)


def test_search_advances_when_advancing_surrounds_an_enemy():
    # Side 0's Infantry on (5,5) has just killed the enemy on (5,6) (WF-5: advance or stay). Two more of
    # its units stand W and E of the enemy Spearman on (5,7): advancing puts a third enemy next to it and
    # the surround rule (WF-6) removes it at once; staying leaves it, and this was the turn's last
    # activation. The heuristic (greedy's position score) does not prefer the advance (the army's line
    # is far behind): the search finds it.
    units = [(0, "infantry", 5, 5, "N"), (0, "infantry", 4, 7, "E"), (0, "infantry", 6, 7, "W"),
             (0, "archer", 5, 1, "N"), (0, "archer", 6, 1, "N"),
             (0, "infantry", 8, 1, "N"), (0, "infantry", 9, 1, "N"), (0, "infantry", 10, 1, "N"),
             (1, "spearman", 5, 7, "S"), (1, "cavalry", 0, 11, "S"),
             (1, "infantry", 8, 11, "S"), (1, "infantry", 9, 11, "S"), (1, "infantry", 10, 11, "S"),
             (1, "infantry", 11, 11, "S")]     # far away: the material is about level
    p = Pos(P, units, army=True)
    adv_sq = p.sq(5, 6)
    S = _state(P, p.usq, p.uface, 10, 0, p.utype, p.uside)
    S[WS.S_META][WS.M_ADVU] = p.ids[0]
    S[WS.S_META][WS.M_ADVSQ] = adv_sq
    codes, scores = np.zeros(4, np.int32), np.zeros(4)
    assert WS.offer_nb(P, S, codes, scores) == 2 and sorted(codes[:2].tolist()) == [C.STAY, C.ADVANCE]
    assert scores[list(codes[:2]).index(C.ADVANCE)] <= scores[list(codes[:2]).index(C.STAY)]
    for seed in (1, 2):
        code, _ = search(p, 0, 50, seed=seed, adv=(p.ids[0], adv_sq), nact=4)
        assert code == C.ADVANCE


def test_chance_nodes_carry_the_exact_odds_of_simkit_dice():
    # Frontal fights of every kind within reach: Cavalry charging Infantry (+1), Spearman vs Infantry (-2),
    # Archer fire on Cavalry (+3 to the Cavalry), on Infantry's front (+2), a tree (+1)...
    units = [(0, "cavalry", 4, 4, "N"), (0, "spearman", 7, 4, "N"), (0, "archer", 5, 3, "N"),
             (0, "infantry", 2, 4, "N"),
             (1, "infantry", 4, 7, "S"), (1, "infantry", 7, 7, "S"), (1, "cavalry", 5, 6, "S"),
             (1, "infantry", 2, 6, "S")]
    p = Pos(P, units, army=True)
    code, Wk = search(p, 0, 300, seed=3)
    ti, tf = Wk[0][0], Wk[0][1]
    seen = set()
    ch = ti[ROOT, TI_FIRST]
    while ch >= 0:
        if ti[ch, TI_KIND] == K_CHANCE:
            u, _, _, tgt = activation(p, int(ti[ch, TI_CODE]), 0)
            q = Pos(P, units, army=True)
            (t, f) = (C.decode_nb(int(ti[ch, TI_CODE]), 0, P[0][13], P[0][2], C.arc_max_nb(P[6]))[1:3])
            q.move(u, int(t) % q.W, int(t) // q.W, "NESW"[int(f)])
            kind, am, dm = q.kind(u, tgt)
            assert kind == ROLL
            want = warfare_distribution(am, dm)["attacker_wins"]
            got = {}
            o = ti[ch, TI_FIRST]
            while o >= 0:
                got[int(ti[o, TI_CODE])] = float(tf[o, TF_PRIOR])
                o = ti[o, TI_NEXT]
            assert set(got) == {0, 1} and abs(got[1] + got[0] - 1.0) < 1e-15
            assert got[1] == float(want)                      # the exact ratio (of at most 36 rolls)
            assert Fraction(got[0]).limit_denominator(36) == 1 - want
            seen.add((am, dm))
        ch = ti[ch, TI_NEXT]
    assert len(seen) >= 3         # several different modifier pairs were checked


def _game_positions(Pm, seed, games, pols):
    """(boards, log, record) of traced games."""
    out = []
    for g in range(games):
        rec, log, boards, _ = play_mod.play_one(Pm, seed, g, g % 2, pols)
        out.append((boards, log, rec))
    return out


def _state(Pm, usq, uface, t, player, utype=None, uside=None):
    """A search state at the start of turn t of ``player`` (units numbered as in a game)."""
    if utype is None:
        utype, uside = army_of(Pm)
    return WS.position_state(Pm, usq, uface, utype, uside, t, player)


def _board_state(Pm, boards, t, first):
    return _state(Pm, boards[t, :, 0], boards[t, :, 1], t, first if t % 2 == 0 else 1 - first)


@pytest.mark.parametrize("over", [{}, {"width": 6, "height": 6, "trees": [[2, 2], [3, 3]], "deploy_rows": 2,
                                       "army": {"cavalry": 2, "spearman": 2, "infantry": 4, "archer": 2},
                                       "deployment": "random", "max_turns": 60}])
def test_the_hooks_replay_the_games_of_the_batch_kernel(over):
    # Each logged activation of a traced game, replayed through apply_nb (its code), settle_nb (the
    # logged roll) and the advance decision, gives the batch kernel's board at every turn start, ends
    # the game the same way, and leaves a roll pending exactly when the game rolled.
    Pm = params(**over)
    ip = Pm[0]
    am = C.arc_max_nb(Pm[6])
    rolls = advances = 0
    for boards, log, rec in _game_positions(Pm, 11, 4, (1, 0)) + _game_positions(Pm, 12, 2, (1, 1)):
        first = int(rec[0])
        S = _board_state(Pm, boards, 0, first)
        meta = S[WS.S_META]
        rng = _rng(0)
        for t in range(int(rec[2])):
            if meta[WS.M_TURN] > t:      # a passed turn: begin_turn_nb passed it too
                assert (log[log[:, 0] == t][:, 2] == -1).all()
                continue
            assert meta[WS.M_TURN] == t and meta[WS.M_RESULT] == ONGOING
            for r in log[(log[:, 0] == t) & (log[:, 2] >= 0)]:
                u, frm, to, f, tgt, tsq = (int(x) for x in r[2:8])
                side = int(r[1])
                k = u - (0 if side == 0 else int(ip[13]))
                j = C.arc_index_nb(to % ip[0], to // ip[0], f, tsq % ip[0], tsq // ip[0]) if tgt >= 0 else 0
                rolled = WS.step_nb(Pm, S, C.act_code_nb(k, to, f, j, ip[2], am), 1 if r[8] == DEF_DIES else 0, rng)
                assert rolled == bool(r[12])
                rolls += rolled
                if meta[WS.M_ADVU] >= 0:
                    advances += 1
                    WS.step_nb(Pm, S, C.ADVANCE if r[10] else C.STAY, -2, rng)
            if meta[WS.M_RESULT] == ONGOING and meta[WS.M_TURN] == t:
                WS.step_nb(Pm, S, C.END, -2, rng)
            if meta[WS.M_RESULT] == ONGOING:
                assert (S[WS.S_USQ] == boards[t + 1, :, 0]).all()
                live = boards[t + 1, :, 0] >= 0
                assert (S[WS.S_FACE][live] == boards[t + 1, live, 1]).all()
        assert meta[WS.M_RESULT] == rec[1]
    assert rolls > 10 and advances > 0


def _legal(Pm, S, code):
    """Is ``code`` a legal decision of the side to move in search state S (checked against the rules)?"""
    ip = Pm[0]
    meta = S[WS.S_META]
    if meta[WS.M_ADVU] >= 0:
        return code in (C.STAY, C.ADVANCE)
    if code == C.END:
        return True
    side = int(meta[WS.M_PLAYER])
    u, t, f, j = (int(x) for x in C.decode_nb(code, side, ip[13], ip[2], C.arc_max_nb(Pm[6])))
    usq, occ = S[WS.S_USQ], S[WS.S_OCC]
    if not (0 <= u < len(usq)) or S[WS.S_SIDE][u] != side or usq[u] < 0 or S[WS.S_ACTED][u]:
        return False
    m = int(Pm[5][S[WS.S_TYPE][u]])
    if meta[WS.M_TURN] < 2:
        m = min(m, int(ip[4]))
    buf = np.zeros(512, np.int64)
    n = gen_dests_nb(np.int64(u), np.int64(m), ip, Pm[7], Pm[9], occ, usq, S[WS.S_SIDE], buf)
    if t not in buf[:n] or not (face_mask_nb(np.int64(m), usq[u], np.int64(t), Pm[10]) >> f) & 1:
        return False
    if j == 0:
        return True
    W = int(ip[0])
    q = C.arc_square_nb(t % W, t // W, f, j, W, int(ip[1]))
    v = occ[q] if q >= 0 else -1
    ranged = S[WS.S_TYPE][u] == ARC
    return (meta[WS.M_TURN] >= 2 and v >= 0 and S[WS.S_SIDE][v] != side
            and in_arc_nb(t % W, t // W, f, q % W, q // W, ranged, Pm[6][S[WS.S_TYPE][u]]))


def test_decisions_are_legal_and_offer_every_kind_of_decision():
    Pm = P
    ip = Pm[0]
    codes = np.zeros(WS.max_decisions(Pm), np.int32)
    scores = np.zeros(len(codes), np.float64)
    kinds = set()
    widths = []
    n_act = C.n_actions(Pm)
    for boards, _, rec in _game_positions(Pm, 5, 3, (1, 1)):
        for t in range(0, int(rec[2]), 3):
            S = _board_state(Pm, boards, t, int(rec[0]))
            if S[WS.S_META][WS.M_RESULT] != ONGOING:
                continue
            n = WS.offer_nb(Pm, S, codes, scores)
            widths.append(n)
            assert len(set(codes[:n].tolist())) == n                    # no decision twice
            side = int(S[WS.S_META][WS.M_PLAYER])
            for code in codes[:n].tolist():
                assert 0 <= code < n_act and _legal(Pm, S, code), (t, C.decision_label(Pm, code, side))
                if code == C.END:
                    kinds.add("end")
                    continue
                u, to, f, j = C.decode_nb(code, side, ip[13], ip[2], C.arc_max_nb(Pm[6]))
                frm = S[WS.S_USQ][u]
                kinds.add("attack" if j else ("swap" if S[WS.S_OCC][to] >= 0 and to != frm else
                                              ("turn" if to == frm else "move")))
    assert kinds == {"end", "move", "turn", "swap", "attack"}
    assert max(widths) <= WS.SEARCH_WIDTH
    # labels name the unit, square, facing and target
    code = C.act_code_nb(2, 5 * 12 + 4, 0, 2, ip[2], C.arc_max_nb(Pm[6]))
    # slot 2 is the third unit of the army table (by type: a cavalry); arc square 2 is straight ahead
    assert C.decision_label(Pm, code, 0) == "cavalry #2 to (4,5) facing N (^), attacks (4,6)"
    assert C.decision_label(Pm, C.END) == "end the turn"
    assert n_act < 2 ** 31


def test_decisive_constant_matches_the_engine():
    assert C.DECISIVE == DECISIVE


def test_search_2n_beats_n():
    # paired games (same seeds, both seat orders) on a 16-turn material-capped scenario: mcts:32 must
    # score significantly above 1/2 against mcts:16 (the lower end of the 95% interval above 0.5;
    # measured 0.669 [0.564, 0.773])
    sc = load_scenario("warfare", ["cap_result=material", "max_turns=16"])
    c = pair_score(sc, RunConfig(games=40, seed=3), "mcts:32", "mcts:16")
    assert c["ci"][0] > 0.5, c["score"]


def _records(monkeypatch, policies, threads, chunk_size, games=8, seed=77):
    seen = []
    kernel = play_mod.batch_nb

    def spy(*args):      # the thread count the kernel really runs with, chunk by chunk
        seen.append(numba.get_num_threads())
        return kernel(*args)

    monkeypatch.setattr(play_mod, "batch_nb", spy)
    cfg = RunConfig(games=games, seed=seed, policies=policies, chunk_size=chunk_size, snapshot_ply=6)
    res = simulate(load_scenario("warfare", ["max_turns=40"]), cfg, threads=threads, progress=False)
    monkeypatch.setattr(play_mod, "batch_nb", kernel)
    assert seen and set(seen) == {threads}
    return res.records()


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_mcts_records_identical_for_threads_and_chunk_sizes(monkeypatch):
    pols = ("mcts:12", "greedy")
    a = _records(monkeypatch, pols, 1, 3)
    b = _records(monkeypatch, pols, 2, 3)
    c = _records(monkeypatch, pols, 2, 8)
    assert a.shape == (8, NFIELDS)
    assert (a == b).all() and (a == c).all()
    swapped = _records(monkeypatch, ("greedy", "mcts:12"), 2, 8)
    assert not (a == swapped).all()                    # the MCTS side matters (the check is not vacuous)


def _run(names, n=8, over=None):
    Pm = params(**(over or {}))
    pv = policy_vector(SPEC, names)
    return SPEC.run_chunk(Pm, 31, 0, np.arange(n) % 2, pv, 6)


def test_eps_zero_is_the_inner_policy_and_eps_one_plays_randomly():
    g, ga = _run(["greedy", "greedy"])
    e0, e0a = _run(["eps:0:greedy", "eps:0:greedy"])
    assert (g == e0).all() and (ga == e0a).all()
    e1, _ = _run(["eps:1:greedy", "greedy"])
    assert not (e1 == g).all()
    # every decision random: the greedy side wins every game it does not draw
    assert ((e1[:, 1] == 1) | (e1[:, 1] == -1)).all() and (e1[:, 1] == 1).mean() >= 0.75
    for game in range(3):
        check_game(P, 31, game, game % 2, tuple(policy_vector(SPEC, ["eps:1:greedy", "eps:0.5:mcts:6"])))
    # random vs random never finishes (100% capped), and eps:1 behaves the same
    r1, _ = _run(["eps:1:greedy", "eps:1:greedy"], n=4)
    assert (r1[:, 3] == END_MOVE_LIMIT).all()


def test_mcts_plays_legal_games():
    for game in range(2):
        check_game(params(max_turns=30), 9, game, game % 2, tuple(policy_vector(SPEC, ["mcts:8", "random"])))


# sha256 prefixes of random/greedy records and aggregates, made by the code before the MCTS
# policy existed (commit 7d0e6fa): adding mcts must not change any existing policy's games.
GOLDEN = {
    ('default', (0, 0)): '2de64cd181546bb4',
    ('default', (1, 1)): 'e6b6cb4c037534aa',
    ('default', (0, 1)): '29319c8acc22cb39',
    ('default', (1, 0)): '47b285efc4a81051',
    ('random_deploy_material', (0, 0)): '76c10ae1a708897e',
    ('random_deploy_material', (1, 1)): '5cf1d9ac93af04b5',
    ('random_deploy_material', (0, 1)): '36f233e26dc8f313',
    ('random_deploy_material', (1, 0)): '6a522ce81fe6a984',
}


@pytest.mark.parametrize("name,over", [("default", {}),
                                       ("random_deploy_material",
                                        {"deployment": "random", "cap_result": "material", "max_turns": 40})])
@pytest.mark.parametrize("pol", [(0, 0), (1, 1), (0, 1), (1, 0)])
def test_existing_policies_records_unchanged(name, over, pol):
    Pm = params(**over)
    r, agg = play_mod.run_chunk(Pm, 2024, 10, np.array([g % 2 for g in range(60)], np.int8), list(pol), 6)
    h = hashlib.sha256(r.tobytes() + agg.astype(np.int64).tobytes()).hexdigest()[:16]
    assert h == GOLDEN[(name, pol)]


# Two enemy Infantry in the top-right corner, facing S: Y on (10,11), X on (11,11). X's only flank square
# is Y's. Side 0's Cavalry C1 can take Y from its flank (9,11) for certain; C2 can then ride to the emptied
# (10,11) and take X from its flank for certain -- if C1 does not advance into it (WF-5). Anything else
# fights X from the front with a roll. Other units stand far away (the material stays about level).
CORNER = [(0, "cavalry", 9, 8, "N"), (0, "cavalry", 10, 8, "N"), (0, "infantry", 1, 1, "N"),
          (0, "infantry", 2, 1, "N"), (0, "archer", 1, 0, "N"),
          (1, "infantry", 10, 11, "S"), (1, "infantry", 11, 11, "S"), (1, "infantry", 0, 11, "S"),
          (1, "infantry", 1, 11, "S"), (1, "cavalry", 2, 11, "S"), (1, "spearman", 3, 11, "S")]


def test_search_plans_the_turns_activations_together():
    # the turn's three decisions must fit together: the kill, staying out of the square, the second kill
    p = Pos(P, CORNER, army=True)
    y, x = p.ids[5], p.ids[6]
    for seed in (1, 2, 3):
        S = _state(P, p.usq, p.uface, 10, 0, p.utype, p.uside)
        played = WS.play_turn(P, S, 100, _rng(seed))
        assert S[WS.S_USQ][y] < 0 and S[WS.S_USQ][x] < 0, [C.decision_label(P, c) for c in played]
        assert C.STAY in played and S[WS.S_META][WS.M_TURN] == 11
    # the rollout policy alone (greedy) advances into the corner square and leaves X to a frontal roll
    S = _state(P, p.usq, p.uface, 10, 0, p.utype, p.uside)
    WS.playout_nb(P, S, 1, 11, _rng(1))
    assert S[WS.S_USQ][p.ids[0]] == p.sq(10, 11)


def test_one_side_carries_its_own_engine_knobs():
    """`mcts:8/mcts_c=3` against greedy plays exactly the games of mcts:8 against greedy under `--set mcts_c=3`,
    and other games than the default's; knobs the hooks read for both sides (mcts_scale) are refused per side."""
    from simkit.engine.runner import RunConfig, simulate
    from simkit.errors import UsageError
    from simkit.policies import parse_policy
    from simkit.scenario import load_scenario

    def recs(sets, pols):
        return simulate(load_scenario("warfare", sets), RunConfig(games=4, seed=5, policies=pols), threads=1,
                        progress=False).records()

    own = recs([], ("mcts:8/mcts_c=3", "greedy"))
    assert np.array_equal(own, recs(["mcts_c=3"], ("mcts:8", "greedy")))
    assert not np.array_equal(own, recs([], ("mcts:8", "greedy")))
    with pytest.raises(UsageError, match="both sides of warfare share 'mcts_scale'"):
        parse_policy(load_scenario("warfare").spec, "mcts:8/mcts_scale=2")


def _subtree_visits(ti, tf, node):
    """{code: visits} of ``node``'s children."""
    out = {}
    ch = ti[node, TI_FIRST]
    while ch >= 0:
        out[int(ti[ch, TI_CODE])] = float(tf[ch, TF_VISITS])
        ch = ti[ch, TI_NEXT]
    return out


def _turn_with_reuse(Pm, budget, seed, meddle=False):
    """A turn of CORNER played by the search decision by decision (one workspace). Returns [(reused visits or
    None, the stamps the search used)] per decision; ``meddle`` moves an unplayed enemy unit between decisions."""
    p = Pos(Pm, CORNER, army=True)
    Wk = WS.new_workspace_nb(Pm, np.int64(tree_capacity(budget, WS.SEARCH_WIDTH)), np.int64(WS.max_decisions(Pm)))
    ti, tf = Wk[0][0], Wk[0][1]
    S = _state(Pm, p.usq, p.uface, 10, 0, p.utype, p.uside)
    rng = _rng(seed)
    out = []
    while S[WS.S_META][WS.M_RESULT] == ONGOING and S[WS.S_META][WS.M_TURN] == 10:
        ch = int(ti[ROOT, TI_REUSE])
        kept = (float(tf[ch, TF_VISITS]), _subtree_visits(ti, tf, ch), int(ti[ROOT, TI_STAMPS])) if ch > 0 else None
        code = int(WS.decide_nb(Pm, Wk, np.int64(budget), S, rng))
        out.append((kept, int(ti[ROOT, TI_STAMPS]), float(tf[ROOT, TF_VISITS]), _subtree_visits(ti, tf, ROOT)))
        WS.step_nb(Pm, S, code, -1, rng)
        if meddle:      # an enemy unit far from the fight steps back: the predicted position is gone
            u, w = p.ids[7], int(Pm[0][IP_W])
            q = S[WS.S_USQ][u]
            if S[WS.S_OCC][q - w] < 0:
                S[WS.S_OCC][q], S[WS.S_OCC][q - w] = -1, u
                S[WS.S_USQ][u] = q - w
    return out


def test_reuse_starts_from_the_subtree_of_the_decision_played():
    """mcts_reuse: after a decision that leaves the same side to decide (no roll pending), the next search
    starts from that decision's subtree, keeps its statistics and runs only the iterations the budget has
    left (the root ends with exactly ``budget`` visits); without the knob, or when the position is not the
    one predicted, every search starts afresh."""
    budget = 120
    Pm = params(mcts_reuse=True)
    reused = 0
    for kept, stamps, visits, kids in _turn_with_reuse(Pm, budget, seed=2):
        assert visits == budget
        if kept is None:
            assert stamps == budget                    # a fresh tree: stamps 0 .. budget-1
            continue
        v, old_kids, old_stamps = kept
        reused += 1
        assert stamps == old_stamps + budget - int(v)  # only what the budget had left was searched
        assert all(kids[c] >= n for c, n in old_kids.items())
    assert reused >= 1
    # the default (no reuse) and a position changed behind the search's back: fresh searches only
    assert all(k is None and s == budget for k, s, _, _ in _turn_with_reuse(P, budget, seed=2))
    meddled = _turn_with_reuse(Pm, budget, seed=2, meddle=True)
    assert all(s == budget for _, s, _, _ in meddled) and any(k is not None for k, _, _, _ in meddled)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
def test_reuse_records_identical_for_threads_and_chunk_sizes(monkeypatch):
    pols = ("mcts:12/mcts_reuse=true", "greedy")
    a = _records(monkeypatch, pols, 1, 3)
    assert (a == _records(monkeypatch, pols, 2, 8)).all()
    assert not (a == _records(monkeypatch, ("mcts:12", "greedy"), 1, 3)).all()   # the knob plays differently


def test_search_records_unchanged_by_listing_leaves_at_their_second_visit():
    """Digests of mcts:100 self-play taken at 04c0cd2, before a node below the root was listed only when a
    second visit reached it (engine K_LEAF; decisive_nb: the enemy has one unit left): the same games. The
    uniform prior (prior_temp 0) spreads the visits over many more nodes."""
    want = {"mcts:100": "d82f75e9299a9c30", "mcts:100/mcts_prior_temp=0": "496c3fc6bb89ca3e"}
    for pol, digest in want.items():
        rec = simulate(load_scenario("warfare"), RunConfig(games=4, seed=3, policies=(pol, pol)), threads=1,
                       progress=False).records()
        assert hashlib.sha256(np.ascontiguousarray(rec).tobytes()).hexdigest()[:16] == digest, pol


def test_leaves_wait_for_a_second_visit_but_not_under_tree_reuse():
    """Most nodes of a search are visited once: they stay unlisted (K_LEAF); with mcts_reuse every node is
    listed at its first visit, as a kept subtree's priors must not depend on the next search's root."""
    from simkit.engine.search import K_LEAF, TI_COUNT
    leaves = {}
    for reuse in (False, True):
        p = Pos(params(mcts_reuse=reuse), CORNER, army=True)
        _, Wk = search(p, 0, 200, seed=1)
        ti = Wk[0][0]
        n = int(ti[ROOT, TI_COUNT])
        leaves[reuse] = int((ti[:n, TI_KIND] == K_LEAF).sum())
    assert leaves[False] > 20 and leaves[True] == 0


def test_listing_decisions_leaves_the_greedy_caches_as_it_found_them():
    """decisions_nb keys the greedy caches to the position it lists (the formation line of where the side
    stands); the search may list a node in the middle of a descent, and the rollout below must key them as
    if it had not: a new key is put back with the old line and the maps marked stale. A key already current
    is left alone (its maps made). The decisions are the same either way."""
    from simkit.games.warfare.policies import formation_line_nb
    p = Pos(P, CORNER, army=True)
    codes = np.zeros(WS.max_decisions(P), np.int32)
    scores = np.zeros(len(codes), np.float64)
    got = []
    for keyed in (False, True):
        S = _state(P, p.usq, p.uface, 10, 0, p.utype, p.uside)
        gf = S[WS.S_GF]
        if keyed:       # the key and line greedy_choose_nb would take here, its maps stale
            usq, utype, uside = S[WS.S_USQ], S[WS.S_TYPE], S[WS.S_SIDE]
            line = formation_line_nb(0, P, usq, utype, uside, len(usq))
            gf[0], gf[1], gf[3] = 10 * 1000 + S[WS.S_ALIVE][1], line, 1.0
        else:           # another position's key and line, its maps current
            gf[0], gf[1], gf[3] = -7.0, 123.0, 0.0
        before = gf.copy()
        n = WS.offer_nb(P, S, codes, scores)
        got.append((codes[:n].copy(), scores[:n].copy()))
        if keyed:
            assert (gf[0], gf[1], gf[3]) == (before[0], before[1], 0.0)
        else:
            assert (gf[0], gf[1], gf[3]) == (-7.0, 123.0, 1.0)
    assert len(got[0][0]) > 5 and (got[0][0] == got[1][0]).all() and (got[0][1] == got[1][1]).all()
