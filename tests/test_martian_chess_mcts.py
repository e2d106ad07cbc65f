"""Martian Chess mcts:N (the engine's search through the game's hooks) and eps:P:INNER policies."""
import functools
import hashlib

import numba
import numpy as np
import pytest

from conftest import invoke
from simkit.backends.local import LocalBackend
from simkit.engine.search import K_DECISION, ROOT, TF_PRIOR, TF_VISITS, TI_CODE, TI_FIRST, TI_KIND, TI_NEXT
from simkit.engine.search import new_tree_nb, tree_capacity
from simkit.engine.runner import RunConfig, play_chunk, simulate
from simkit.errors import UsageError
from simkit.games import get_game
from simkit.games.martian_chess import moves as mv
from simkit.games.martian_chess import state as st
from simkit.games.martian_chess.search import choose_nb, new_state_nb
from simkit.games.martian_chess.play import play_one
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

SPEC = get_game("martian_chess")
C = st.cell_of


def params(**rules):
    base = {o.name: o.default for o in SPEC.options}
    base.update(rules)
    return SPEC.prepare(base)


def pv(*names):
    return tuple(int(x) for x in policy_vector(SPEC, list(names)))


def test_random_and_greedy_records_unchanged_by_the_search_policy():
    """Digests taken at commit 7d0e6fa, before mcts and eps existed in the kernel: adding
    them must not move a single draw of the old policies."""
    p = load_scenario("martian_chess").params()
    want = {(0, 1): "c4b5a6676fa8a85f34f99e082faa992ef80f8bdf",
            (1, 1): "c1b6e2537440eaca673a3b8cf997da7c65a5062d"}
    for ids, digest in want.items():
        _, rec, agg = play_chunk("martian_chess", p, 7, 0, 400, "alternate", ids, 20)
        assert hashlib.sha1(rec.tobytes() + agg.tobytes()).hexdigest() == digest, ids


def _search(p, board, meta, budget, seed):
    init, rays, rules, weights, mc = p
    moves = np.zeros(st.MAX_MOVES, dtype=np.int32)
    mv.start_turn_nb(meta, rules)
    n = mv.gen_moves_nb(board, meta, rays, rules, moves)
    tree = new_tree_nb(tree_capacity(budget, 48), st.MAX_MOVES, 1)
    rng = np.array([seed], dtype=np.uint64)
    before = board.copy(), meta.copy()
    S1, S2 = new_state_nb(), new_state_nb()
    m = choose_nb((rays, rules, weights[0], mc[0]), (board, meta, moves), S1, S2, budget, rng, tree)
    assert (board == before[0]).all() and (meta == before[1]).all()   # the real position is untouched
    return m, moves[:n], tree


def _win_in_one():
    """Player 0 trails 0-2 with a lone queen on b2. Taking the queen on b6 (+3) empties
    its zone, which ends the game 3-2 in its favour (MC territory end); crossing
    anywhere else also ends it, but lost; the quiet moves leave the game open."""
    board = np.zeros(32, np.int8)
    for name, pips in {"b2": 3, "b6": 3, "a8": 1, "c7": 1, "d8": 1}.items():
        board[C(name)] = pips
    meta = st.new_meta(0, board)
    meta[st.M_SCORE + 1] = 2
    return board, meta


@pytest.mark.parametrize("decisive,prior_temp,prior_moves", [(True, 1.0, "captures"), (True, 1.0, "greedy"),
                                                              (False, 1.0, "captures"), (False, 0.0, "captures")])
def test_mcts_finds_the_one_move_that_wins_at_once(decisive, prior_temp, prior_moves):
    """With the decisive shortcut the engine plays the win without searching; without it and with a
    uniform prior (prior_temp 0: greedy's scores do not point at it) the search itself must find the
    one winning move among the crossings that lose and the quiet moves."""
    p = params(mcts_decisive=decisive, mcts_prior_temp=prior_temp, mcts_prior_moves=prior_moves)
    board, meta = _win_in_one()
    _, moves, _ = _search(p, board.copy(), meta.copy(), 1, 0)
    wins = []
    for m in moves:
        b, x = board.copy(), meta.copy()
        mv.apply_move_nb(b, x, p[2], m)
        if x[st.M_END] >= 0 and x[st.M_WINNER] == 0:
            wins.append(int(m))
    assert wins == [C("b2") * 32 + C("b6")] and len(moves) >= 10   # the position is what the docstring says
    for seed in range(5):
        m, _, tree = _search(p, board.copy(), meta.copy(), 60, seed)
        assert m == wins[0], (seed, st.name_of(m // 32), st.name_of(m % 32))
        ti, tf = tree[0], tree[1]
        visited = {}
        ch = ti[ROOT, TI_FIRST]
        while ch >= 0:
            visited[int(ti[ch, TI_CODE])] = tf[ch, TF_VISITS]
            ch = ti[ch, TI_NEXT]
        # without the shortcut the win is known only once an iteration has played it (then the solver
        # proves the root); with it, no iteration runs at all
        assert visited[wins[0]] >= 1 if not decisive else sum(visited.values()) == 0


def test_priors_are_greedys_values_softmaxed():
    """The prior over a node's moves is the softmax of greedy's one-ply value of each move at
    ``mcts_prior_temp``: a sharper temperature concentrates it on greedy's choice."""
    from simkit.games.martian_chess.policies import after_move_value_nb
    board, meta = _win_in_one()
    meta[st.M_SCORE + 1] = 0      # no move ends the game: every value is a heuristic one
    for temp in (0.5, 2.0):
        p = params(mcts_decisive=False, mcts_prior_temp=temp, mcts_prior_moves="greedy")
        _, moves, tree = _search(p, board.copy(), meta.copy(), 2, 0)
        ti, tf = tree[0], tree[1]
        assert ti[ROOT, TI_KIND] == K_DECISION
        pri = {}
        ch = ti[ROOT, TI_FIRST]
        while ch >= 0:
            pri[int(ti[ch, TI_CODE])] = tf[ch, TF_PRIOR]
            ch = ti[ch, TI_NEXT]
        vals = np.array([after_move_value_nb(board, meta, p[1], p[2], p[3][0], 0, mv.bits_of_nb(meta, 0),
                                             mv.bits_of_nb(meta, 1), mv.bits_of_nb(meta, 2), m) for m in moves])
        want = np.exp((vals - vals.max()) / temp)
        want /= want.sum()
        assert len(set(vals.round(9))) > 2      # the moves really differ
        assert np.allclose([pri[int(m)] for m in moves], want, rtol=1e-12, atol=0)
    # the default prior (captures): the pips each move takes from the opponent's zone, softmaxed alike
    p = params(mcts_decisive=False, mcts_prior_temp=0.5, mcts_prior_moves="captures")
    _, moves, tree = _search(p, board.copy(), meta.copy(), 2, 0)
    ti, tf = tree[0], tree[1]
    pri = {}
    ch = ti[ROOT, TI_FIRST]
    while ch >= 0:
        pri[int(ti[ch, TI_CODE])] = tf[ch, TF_PRIOR]
        ch = ti[ch, TI_NEXT]
    from simkit.games.martian_chess.policies import WIN, move_outcome_nb
    pips = []
    for m in moves:
        taken = float(board[m % 32]) if board[m % 32] and m % 32 // 16 != 0 else 0.0
        b, x = board.copy(), meta.copy()
        mv.apply_move_nb(b, x, p[2], m)
        end = WIN if x[st.M_WINNER] == 0 else -WIN if x[st.M_WINNER] == 1 else 0.0
        pips.append(taken if x[st.M_END] < 0 else end)
        assert move_outcome_nb(board, meta, p[2], 0, m)[0] == taken
    pips = np.array(pips)
    assert (pips == WIN).any() and (pips == 0).any()      # captures that win at once, quiet moves
    want = np.exp((pips - pips.max()) / 0.5)
    assert np.allclose([pri[int(m)] for m in moves], want / want.sum(), rtol=1e-12, atol=0)


def mv_list(board, meta, p):
    out = np.zeros(st.MAX_MOVES, dtype=np.int32)
    n = mv.gen_moves_nb(board, meta, p[1], p[2], out)
    return out[:n].tolist()


class ThreadSpy(LocalBackend):
    """Records numba's thread count at the moment each chunk plays."""

    def __init__(self):
        self.seen = []

    def map_chunks(self, *args):
        for item in super().map_chunks(*args):
            self.seen.append(numba.get_num_threads())
            yield item


def _records(threads, chunk_size, policies):
    spy = ThreadSpy()
    cfg = RunConfig(games=6, seed=99, policies=policies, chunk_size=chunk_size, snapshot_ply=6)
    res = simulate(load_scenario("martian_chess"), cfg, threads=threads, progress=False, backend=spy)
    assert set(spy.seen) == {threads}, (threads, spy.seen)   # the chunks really ran on that many threads
    return res.records()


def test_mcts_records_identical_for_threads_and_chunk_sizes():
    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("needs 2 numba threads to compare with 1")
    pols = ("mcts:30", "eps:0.2:mcts:20")
    base = _records(1, 6, pols)
    assert (base[:, 3] >= 0).all() and len({tuple(r) for r in base}) > 1
    for threads, chunk in ((2, 6), (2, 4), (1, 1)):
        assert np.array_equal(_records(threads, chunk, pols), base), (threads, chunk)


def _legal_log(p, first, log):
    init, rays, rules = p[:3]
    board, meta = init.copy(), st.new_meta(first, init)
    out = np.zeros(st.MAX_MOVES, dtype=np.int32)
    for m in log:
        mv.start_turn_nb(meta, rules)
        n = mv.gen_moves_nb(board, meta, rays, rules, out)
        assert m in out[:n]
        mv.apply_move_nb(board, meta, rules, m)
    return meta[st.M_END] >= 0


def test_eps_degrader():
    p = load_scenario("martian_chess").params()
    g = pv("greedy", "greedy")
    assert pv("eps:0:greedy", "eps:0:greedy") == g
    same = [play_one(p, 5, i, i % 2, pv("eps:0:greedy", "greedy")) for i in range(6)]
    assert all(np.array_equal(a[0], play_one(p, 5, i, i % 2, g)[0]) for i, a in enumerate(same))
    # eps 1: every move is the uniform one, so the inner policy never matters (nor draws)
    for i in range(6):
        rec, log = play_one(p, 5, i, i % 2, pv("eps:1:greedy", "eps:1:greedy"))
        rec2, log2 = play_one(p, 5, i, i % 2, pv("eps:1:mcts:50", "eps:1:random"))
        assert np.array_equal(rec, rec2) and np.array_equal(log, log2)
        assert _legal_log(p, i % 2, log) and len(log) == rec[2]
    greedy_logs = [play_one(p, 5, i, i % 2, g)[1] for i in range(6)]
    eps_logs = [play_one(p, 5, i, i % 2, pv("eps:1:greedy", "eps:1:greedy"))[1] for i in range(6)]
    assert sum(not np.array_equal(a, b) for a, b in zip(greedy_logs, eps_logs)) >= 5


@pytest.mark.parametrize("bad", ["mcts", "mcts:0", "mcts:abc", "mcts:50:3", "mtcs:50", "eps:2:greedy",
                                 "eps:0.1:mcts", "eps:x:greedy", "eps:0.1:eps:0.1:greedy"])
def test_bad_policy_names(bad):
    with pytest.raises(UsageError):
        policy_vector(SPEC, [bad, "greedy"])


def test_play_and_run_accept_mcts(runner):
    r = invoke(runner, ["play", "martian_chess", "--policy0", "mcts:20", "--policy1", "eps:0.1:greedy"])
    assert r.exit_code == 0 and ("wins" in r.output.splitlines()[-1] or "draw" in r.output.splitlines()[-1])
    r = invoke(runner, ["run", "martian_chess", "--games", "4", "--policy0", "mcts:20", "--policy1", "greedy",
                        "--no-save", "--threads", "1"])
    assert r.exit_code == 0, r.output
    r = invoke(runner, ["run", "martian_chess", "--games", "4", "--policy", "mcts:x", "--no-save"])
    assert r.exit_code != 0 and "mcts:N" in r.output


def test_a_side_can_have_its_own_search_knobs():
    """``mcts:N/KNOB=VALUE`` changes that side's row of the knob table only: the other side plays as it
    did, and a change of the knob changes the games."""
    from simkit.policies import parse_policy
    sc = load_scenario("martian_chess")
    c = parse_policy(SPEC, "mcts:30/mcts_c=0.25/mcts_decisive=false")
    assert c.base == "mcts" and c.budget == 30 and c.knobs == (("mcts_c", 0.25), ("mcts_decisive", False))
    assert c.name == "mcts:30/mcts_c=0.25/mcts_decisive=false"
    base = sc.params_for(["mcts:30", "mcts:30"])
    mixed = sc.params_for([c.name, "mcts:30"])
    assert np.array_equal(mixed[4][1], base[4][1]) and not np.array_equal(mixed[4][0], base[4][0])
    assert mixed[4][0][0] == 0.25 and base[4][0][0] == sc.rules["mcts_c"]
    ids = pv("mcts:30", "mcts:30")
    same = [play_one(base, 3, g, g % 2, ids)[1] for g in range(4)]
    diff = [play_one(mixed, 3, g, g % 2, ids)[1] for g in range(4)]
    assert any(not np.array_equal(a, b) for a, b in zip(same, diff))


@pytest.mark.parametrize("bad,words", [("mcts:30/mcts_c", "KNOB=VALUE"),
                                       ("mcts:30/greedy_score=2", "not a search knob"),
                                       ("mcts:30/mcts_c=-1", "mcts_c"), ("mcts:30/mcts_cc=1", "did you mean")])
def test_bad_policy_knobs(bad, words):
    with pytest.raises(UsageError, match=words):
        policy_vector(SPEC, [bad, "greedy"])


def test_contempt_turns_a_safe_draw_down():
    """The clock has run to one ply before its end with the scores level: every quiet move ends the game
    drawn; the one capture (a4 takes b5, a pip) goes on but opens the a-file, and the enemy queen on a8
    then takes the drone on a2. The neutral search takes the draw; a draw-averse one (contempt 0.45: a draw
    is worth 0.05 to it) plays on."""
    board = np.zeros(32, np.int8)
    for name, pips in {"a4": 1, "a2": 2, "c1": 3, "b5": 1, "d7": 2, "a8": 3}.items():
        board[C(name)] = pips
    meta = st.new_meta(0, board)
    meta[st.M_CALLED] = 1
    meta[st.M_CLOCK] = 6
    capture = C("a4") * 32 + C("b5")
    p = params()
    _, moves, _ = _search(p, board.copy(), meta.copy(), 1, 0)
    for m in moves:    # the position is what the docstring says
        b, x = board.copy(), meta.copy()
        mv.apply_move_nb(b, x, p[2], m)
        assert (x[st.M_END] < 0) == (m == capture) and (m == capture or x[st.M_WINNER] == -1), st.name_of(m // 32)
        if m == capture:
            mv.start_turn_nb(x, p[2])
            replies = mv_list(b, x, p)
            assert C("a8") * 32 + C("a2") in replies
    assert capture in moves and len(moves) > 3
    takes = {}
    for contempt in (0.0, 0.45):      # over 20 searches (seeds): the capture is close to the draw for neutral
        pc = params(mcts_contempt=contempt)
        takes[contempt] = sum(_search(pc, board.copy(), meta.copy(), 600, seed)[0] == capture for seed in range(20))
    assert takes[0.0] <= 5 and takes[0.45] >= 15, takes


def test_double_the_budget_plays_better():
    """mcts:64 against mcts:32, 150 game pairs (both seat orders, same seed and index): the pair-score
    interval lies above 1/2."""
    from simkit.engine.chunk import play_chunk
    p = load_scenario("martian_chess").params()
    _, r1, _ = play_chunk("martian_chess", p, 7, 0, 150, "alternate", pv("mcts:64", "mcts:32"), 10)
    _, r2, _ = play_chunk("martian_chess", p, 7, 0, 150, "alternate", pv("mcts:32", "mcts:64"), 10)
    s1 = np.where(r1[:, 1] == 0, 1.0, np.where(r1[:, 1] == 1, 0.0, 0.5))
    s2 = np.where(r2[:, 1] == 1, 1.0, np.where(r2[:, 1] == 0, 0.0, 0.5))
    d = (s1 + s2) / 2
    assert d.mean() - 1.96 * d.std(ddof=1) / np.sqrt(len(d)) > 0.5, d.mean()


@pytest.mark.parametrize("inner", ["random", "greedy", "eps:0.3:greedy", "mcts:40"])
def test_ban_capture_never_captures(inner):
    """ban:capture:POLICY (restricted play): that side's records show no capture, the other side's do, and
    the unrestricted policy does capture in the same games."""
    p = load_scenario("martian_chess").params()
    banned = [play_one(p, 4, g, g % 2, pv(f"ban:capture:{inner}", "greedy"))[0] for g in range(24)]
    free = [play_one(p, 4, g, g % 2, pv(inner, "greedy"))[0] for g in range(24)]
    cap0 = SPEC.record_fields.index("captures_0")
    assert sum(r[cap0] for r in banned) == 0 and sum(r[cap0] for r in free) > 0
    assert sum(r[cap0 + 1] for r in banned) > 0


def test_ban_names_are_checked_and_canonical():
    from simkit.policies import POL_BAN, parse_policy
    c = parse_policy(SPEC, "ban:quiet+capture:eps:0.1:greedy")
    assert c.name == "ban:capture+quiet:eps:0.1:greedy" and c.ban == ("capture", "quiet") and c.eps == 0.1
    assert policy_vector(SPEC, [c.name, "greedy"])[POL_BAN] == 0b1001
    for bad, words in (("ban:shoot:greedy", "not an action class"), ("ban::greedy", "ban:CLASS:POLICY"),
                       ("ban:capture:ban:quiet:greedy", "cannot wrap")):
        with pytest.raises(UsageError, match=words):
            parse_policy(SPEC, bad)


def test_reuse_carries_the_subtree_of_the_reply_played():
    """mcts_reuse with a tree of its own (each side has one in the kernels): after its move and the other
    side's reply, a side's next search starts from that reply's node of its last tree, keeps its statistics
    and runs only what the budget has left; after another move than the one it chose, it starts afresh."""
    from simkit.engine.search import TI_REUSE, TI_STAMPS
    init, rays, rules, weights, mc = params(mcts_reuse=True)
    P0 = (rays, rules, weights[0], mc[0])
    budget = 300

    def kids(tree, node):
        ti, tf = tree[0], tree[1]
        out, ch = {}, ti[node, TI_FIRST]
        while ch >= 0:
            out[int(ti[ch, TI_CODE])] = (ch, float(tf[ch, TF_VISITS]), int(ti[ch, TI_KIND]))
            ch = ti[ch, TI_NEXT]
        return out

    for pick in ("most", "other"):
        board, meta = init.copy(), st.new_meta(0, init)
        moves = np.zeros(st.MAX_MOVES, dtype=np.int32)
        tree = new_tree_nb(tree_capacity(budget, 48), st.MAX_MOVES, 1)
        S1, S2 = new_state_nb(), new_state_nb()
        rng = np.array([3], dtype=np.uint64)
        mv.start_turn_nb(meta, rules)
        mine = choose_nb(P0, (board, meta, moves), S1, S2, budget, rng, tree)
        ti, tf = tree[0], tree[1]
        ch = int(ti[ROOT, TI_REUSE])
        assert ch > 0 and ti[ch, TI_CODE] == mine
        replies = kids(tree, ch)
        reply = max(replies, key=lambda c: replies[c][1])
        node, v, _ = replies[reply]
        below, stamps = kids(tree, node), int(ti[ROOT, TI_STAMPS])
        if pick == "other":            # a move the search did not choose (then a reply legal after it)
            mine = next(c for c in kids(tree, ROOT) if c != mine)
            reply = next(iter(kids(tree, kids(tree, ROOT)[mine][0])))
        for m in (mine, reply):        # the game plays both moves (as the kernel: the move, then the turn start)
            mv.play_move_nb(board, meta, rules, m)
            mv.start_turn_nb(meta, rules)
        choose_nb(P0, (board, meta, moves), S1, S2, budget, rng, tree)
        assert tf[ROOT, TF_VISITS] == budget
        if pick == "most":
            assert v > 1 and int(ti[ROOT, TI_STAMPS]) == stamps + budget - int(v)
            now = kids(tree, ROOT)
            assert all(now[c][1] >= n for c, (_, n, _) in below.items())
        else:
            assert int(ti[ROOT, TI_STAMPS]) == budget       # nothing to start from: a fresh search


@functools.cache
def _eager_choose():
    """The same search over the same hooks without decisive_nb: every node listed at its first visit, as before."""
    from simkit.engine.search import make_search
    from simkit.games.martian_chess import search as ms
    eager = make_search(ms.copy_nb, ms.determinise_nb, ms.status_nb, ms.to_move_nb, ms.turn_nb, ms.decisions_nb,
                        ms.apply_nb, ms.chance_nb, ms.resolve_nb, ms.evaluate_nb, ms.rollout_nb, ms.closed_loop_nb,
                        ms.class_nb, same_nb=ms.same_nb)

    @numba.njit
    def choose(P, root, S, S2, budget, rng, tree):
        return eager(P, root, S, S2, P[3], budget, rng, tree, 0)
    return choose


def _positions(p, plies, seed):
    """The positions (after the mover's MC-4 turn start) of a game played at random for ``plies`` plies."""
    init, rays, rules, weights, mc = p
    pick = np.random.default_rng(seed)
    board = init.copy()
    meta = st.new_meta(0, board)
    moves = np.zeros(st.MAX_MOVES, np.int32)
    out = []
    for _ in range(plies):
        mv.start_turn_nb(meta, rules)
        n = mv.gen_moves_nb(board, meta, rays, rules, moves)
        if meta[st.M_END] >= 0 or n == 0:
            break
        out.append((board.copy(), meta.copy()))
        mv.apply_move_nb(board, meta, rules, moves[pick.integers(n)])
        if meta[st.M_END] >= 0:
            break
    return out


@pytest.mark.parametrize("rules", [{}, {"mcts_prior_temp": 0.0}, {"mcts_prior_moves": "greedy"}, {"max_plies": 12},
                                   {"clock": "deadlock", "deadlock_plies": 3, "clock_plies": 3}])
def test_leaves_listed_at_their_second_visit_grow_the_same_tree(rules):
    """A node below the root where no move can end the game is listed only when a second visit reaches it
    (engine K_LEAF, the game's decisive_nb): against the same search listing every node at once, every root
    decision has the same visits and value, the same move is chosen, and the game's stream is left in the
    same state (the same draws), with fewer nodes made. The rules put the ply limit, the MC-4 clock and a
    lone piece in play, where decisive_nb must answer yes."""
    from simkit.engine.search import K_LEAF, TF_VALUE, TI_COUNT
    from simkit.games.martian_chess.search import decisive_nb
    p = params(**rules)
    _, rays, rules_, weights, mc = p
    P = (rays, rules_, weights[0], mc[0])
    eager = _eager_choose()
    saved = 0
    decisive = []
    # the lone queen's win at once at the root, and below it: player 1 to move first, most of its moves leave
    # player 0 the win (a node the search must prove at its first visit, as before)
    board, meta = _win_in_one()
    reply = st.new_meta(1, board)
    reply[st.M_SCORE + 1] = 2
    extra = [(board, meta), (board.copy(), reply)]
    for _, m in extra:
        mv.start_turn_nb(m, rules_)
    positions = _positions(p, 40, 1) + extra
    for k, (board, meta) in enumerate(positions):
        root = (board, meta, np.zeros(st.MAX_MOVES, np.int32))
        decisive.append(bool(decisive_nb(P, root)))
        got = []
        for choose in (choose_nb, eager):
            tree = new_tree_nb(tree_capacity(300, 48), st.MAX_MOVES, 1)
            rng = np.array([k + 11], dtype=np.uint64)
            m = choose(P, root, new_state_nb(), new_state_nb(), 300, rng, tree)
            ti, tf = tree[0], tree[1]
            kids = []
            ch = ti[ROOT, TI_FIRST]
            while ch >= 0:
                kids.append((int(ti[ch, TI_CODE]), tf[ch, TF_VISITS], tf[ch, TF_VALUE]))
                ch = ti[ch, TI_NEXT]
            n = int(ti[ROOT, TI_COUNT])
            got.append((m, kids, int(rng[0]), n, int((ti[:n, TI_KIND] == K_LEAF).sum())))
        (m1, kids1, rng1, n1, _), (m2, kids2, rng2, n2, leaves2) = got
        assert (m1, kids1, rng1) == (m2, kids2, rng2), k
        assert leaves2 == 0 and n1 <= n2
        saved += n2 - n1
    assert saved > 0 and len(positions) >= 6
    assert any(decisive) and not all(decisive)      # both answers met: the lone queen at least says yes
