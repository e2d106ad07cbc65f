"""Issue 13 (speed): the Warfare! fast paths equal the plain computation on reachable positions.

``moves.arc_enemies_nb`` counts the enemies in a front arc by walking the arc's squares through
``occ`` (it replaced an in_arc_nb test per unit, which compiled to a third of the game's machine
code). It feeds the trajectory's ``legal`` counts, so it must agree with the arc as RULES 4 /
WF-B define it, checked here by brute force over every unit on positions of real games.
"""
import importlib

import numpy as np
import pytest

from simkit.games.warfare import candidates as C
from simkit.games.warfare import moves as M
from simkit.games.warfare.rules import OPTIONS, prepare
from simkit.scenario.schema import validate_rules

PL = importlib.import_module("simkit.games.warfare.play")   # the package's `play` is the trace renderer
DX = (0, 1, 0, -1)
DY = (1, 0, -1, 0)


def _in_arc(px, py, f, qx, qy, ranged, rng):
    """Front arc (independent of moves.in_arc_nb): melee the 3 squares ahead; archers the cone
    ahead 1..range rows, at most ``ahead`` squares to either side."""
    ahead = (qx - px) * DX[f] + (qy - py) * DY[f]
    side = abs((qx - px) * DX[(f + 1) % 4] + (qy - py) * DY[(f + 1) % 4])
    if ranged:
        return 1 <= ahead <= rng and side <= ahead
    return ahead == 1 and side <= 1


def _positions(P, games, policies):
    """(occ, usq, uside) at the start of every turn of some real games."""
    ip = P[0]
    n0, n1 = int(ip[13]), int(ip[14])
    uside = np.array([0] * n0 + [1] * n1, dtype=np.int64)
    nsq = int(ip[2])
    for g in range(games):
        _, _, boards, _ = PL.play_one(P, 11, g, g % 2, policies)
        for b in boards[::max(1, len(boards) // 8)]:   # ~8 positions per game, openings to endings
            usq = np.ascontiguousarray(b[:, 0])
            occ = -np.ones(nsq, dtype=np.int64)
            for u, sq in enumerate(usq):
                if sq >= 0:
                    occ[sq] = u
            yield occ, usq, uside


SMALL = {"width": 7, "height": 8, "deploy_rows": 2, "trees": [[3, 4]],
         "army": {"cavalry": 2, "spearman": 2, "infantry": 4, "archer": 3},
         "units": {"archer": {"move": 2, "range": 5}}}   # board edges close, a longer archer cone


@pytest.mark.parametrize("over", [{}, SMALL])
def test_arc_enemies_equals_the_arc_test_per_unit(over):
    P = tuple(np.ascontiguousarray(p) for p in prepare(validate_rules(OPTIONS, over)))
    ip = P[0]
    W, H = int(ip[0]), int(ip[1])
    archer_range = int(P[6][3])
    checked = nonzero = 0
    for occ, usq, uside in _positions(P, 2, [0, 1]):
        for t in range(W * H):
            tx, ty = t % W, t // W
            for f in range(4):
                for side in (0, 1):
                    for ranged, rg in ((False, 1), (True, archer_range)):
                        want = sum(1 for v in range(len(usq)) if usq[v] >= 0 and uside[v] != side
                                   and _in_arc(tx, ty, f, usq[v] % W, usq[v] // W, ranged, rg))
                        out = np.full(len(usq) + 1, -1, np.int64)
                        got = M.arc_enemies_nb(np.int64(tx), np.int64(ty), np.int64(f), np.int64(side),
                                               ranged, np.int64(rg), ip, occ, uside, out)
                        assert got == want, (t, f, side, ranged)
                        # the arc numbers it writes (the step API's attack codes) name those enemies' squares
                        hit = sorted(int(occ[C.arc_square_nb(tx, ty, f, j, W, H)]) for j in out[:got])
                        assert hit == sorted(v for v in range(len(usq)) if usq[v] >= 0 and uside[v] != side
                                             and _in_arc(tx, ty, f, usq[v] % W, usq[v] // W, ranged, rg))
                        checked += 1
                        nonzero += want > 0
    assert checked > 1000 and nonzero > 50   # the positions do put enemies in arcs


def _units(P):
    ip = P[0]
    n0, n1 = int(ip[13]), int(ip[14])
    utype = np.concatenate([P[2][0][:n0], P[2][1][:n1]]).astype(np.int64)
    return n0 + n1, utype


@pytest.mark.parametrize("over", [{}, SMALL])
def test_surround_after_an_activation_equals_the_full_scan(over):
    """surround_after_nb (the moved unit, its swap partner and the enemies next to them) kills the same
    units and counts the same records as surround_nb's scan of every unit, after random activations
    (moves, swaps and the kills of an attack) from real games' positions."""
    P = tuple(np.ascontiguousarray(p) for p in prepare(validate_rules(OPTIONS, over)))
    ip = P[0]
    W, H = int(ip[0]), int(ip[1])
    nu, utype = _units(P)
    rs = np.random.default_rng(5)
    checked = kills = 0
    for occ, usq, uside in _positions(P, 4, [0, 0]):
        for _ in range(30):
            o2, q2 = occ.copy(), usq.copy()
            active = int(rs.integers(2))
            mine = [u for u in range(nu) if q2[u] >= 0 and uside[u] == active]
            if not mine:
                continue
            u = int(rs.choice(mine))
            # any square next to an enemy or a friend (a swap), or empty: a superset of legal moves is fine
            t = int(rs.integers(W * H))
            if o2[t] >= 0 and uside[o2[t]] != active:
                continue
            mate = int(o2[t]) if t != q2[u] else -1
            M.move_nb(np.int64(u), np.int64(t), np.int64(0), o2, q2, np.zeros(nu, np.int64))
            if rs.random() < 0.3:     # an attack killed someone (kills only lower counts)
                v = int(rs.integers(nu))
                if q2[v] >= 0 and v != u and v != mate:
                    o2[q2[v]] = -1
                    q2[v] = -1
            alive = np.array([(q2[uside == s] >= 0).sum() for s in (0, 1)], dtype=np.int64)
            res = []
            for fast in (False, True):
                o3, q3, a3 = o2.copy(), q2.copy(), alive.copy()
                rec = np.zeros(len(PL.RECORD_FIELDS), np.int32)
                agg = np.zeros(W * H, np.int64)
                if fast:
                    k = M.surround_after_nb(np.int64(active), np.int64(u), np.int64(mate), ip, o3, q3, uside, utype,
                                            a3, rec, agg)
                else:
                    k = M.surround_nb(np.int64(active), ip, o3, q3, uside, utype, a3, rec, agg, np.int64(nu))
                res.append((k, o3.tolist(), q3.tolist(), a3.tolist(), rec.tolist(), agg.tolist()))
            assert res[0] == res[1], (u, t, mate)
            # the full scan may only kill next to the activation if the position had no surround before
            checked += 1
            kills += res[0][0] > 0
    assert checked > 100 and kills > 0


def test_greedy_threat_map_equals_the_stencil_per_square():
    """greedy_maps_nb's threat (a run of squares per row) counts, per square, the enemies whose reach
    covers it as the per-square test defines it: archers Chebyshev <= range + move; the others Manhattan
    <= move + 1, or move + 2 off both axes."""
    from simkit.games.warfare.policies import greedy_maps_nb
    P = tuple(np.ascontiguousarray(p) for p in prepare(validate_rules(OPTIONS, SMALL)))
    ip = P[0]
    W, H = int(ip[0]), int(ip[1])
    nu, utype = _units(P)
    umove, urange = P[5], P[6]
    n = 0
    for _occ, usq, uside in _positions(P, 2, [0, 1]):
        for side in (0, 1):
            gmap = np.zeros((3, W * H), np.int64)
            greedy_maps_nb(np.int64(side), P, usq, utype, uside, np.int64(nu), gmap, np.zeros(4))
            want = np.zeros(W * H, np.int64)
            for v in range(nu):
                if usq[v] < 0 or uside[v] == side:
                    continue
                m = int(umove[utype[v]])
                for q in range(W * H):
                    ox, oy = q % W - usq[v] % W, q // W - usq[v] // W
                    if utype[v] == 3:
                        ok = max(abs(ox), abs(oy)) <= urange[3] + m
                    else:
                        man = abs(ox) + abs(oy)
                        ok = man <= m + 1 or (man == m + 2 and ox != 0 and oy != 0)
                    want[q] += ok
            assert (gmap[2] == want).all()
            n += 1
    assert n > 4


@pytest.mark.parametrize("W,H,n", [(12, 12, 36), (40, 12, 150)])
def test_enemy_box_masks_visit_the_enemies_in_the_box_in_id_order(W, H, n):
    """The attack scans (greedy_attack_nb, candidates.unit_attacks_nb and best_attack_nb) visit only the
    enemies policies.box_mask_nb finds within Chebyshev distance r, from mask_span_nb's lo to hi: the same
    enemies in the same (ascending id) order as testing every enemy's distance. Up to 64 ids in the enemy
    span the masks are exact; with more (the 150-unit board) ids share bits and the scan tests each one."""
    from simkit.games.warfare.policies import box_mask_nb, enemy_masks_nb, enemy_span_nb, mask_span_nb
    rs = np.random.default_rng(3)
    sqx = np.arange(W * H, dtype=np.int64) % W
    sqy = np.arange(W * H, dtype=np.int64) // W
    checked = 0
    for _trial in range(30):
        usq = rs.choice(W * H, n, replace=False).astype(np.int64)
        usq[rs.random(n) < 0.3] = -1                  # the dead
        uside = (np.arange(n) >= n // 2).astype(np.int64)
        for side in (0, 1):
            elo, ehi = enemy_span_nb(np.int64(side), usq, uside, np.int64(n))
            em = np.zeros(2 * (W + H), np.int64)
            exact = enemy_masks_nb(np.int64(side), usq, uside, sqx, sqy, np.int64(W), np.int64(H), elo, ehi, em)
            assert exact == (ehi - elo <= 64)
            for _probe in range(20):
                x, y, r = int(rs.integers(0, W)), int(rs.integers(0, H)), int(rs.integers(1, 6))
                want = [v for v in range(n) if usq[v] >= 0 and uside[v] != side
                        and max(abs(sqx[usq[v]] - x), abs(sqy[usq[v]] - y)) <= r]
                bm = box_mask_nb(em, np.int64(W), np.int64(H), np.int64(x), np.int64(y), np.int64(r))
                got = []
                if bm != 0:
                    lo, hi = mask_span_nb(bm, exact, elo, ehi)
                    for v in range(lo, hi):
                        if (int(bm) >> ((v - elo) & 63)) & 1 == 0:
                            continue
                        if not exact and (usq[v] < 0 or uside[v] == side or max(
                                abs(sqx[usq[v]] - x), abs(sqy[usq[v]] - y)) > r):
                            continue
                        got.append(v)
                assert got == want
                checked += 1
    assert checked == 30 * 2 * 20
