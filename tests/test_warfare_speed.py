"""Issue 13 (speed): the Warfare! fast paths equal the plain computation on reachable positions.

``moves.arc_enemies_nb`` counts the enemies in a front arc by walking the arc's squares through
``occ`` (it replaced an in_arc_nb test per unit, which compiled to a third of the game's machine
code). It feeds the trajectory's ``legal`` counts, so it must agree with the arc as RULES 4 /
WF-B define it, checked here by brute force over every unit on positions of real games.
"""
import importlib

import numpy as np
import pytest

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
                        got = M.arc_enemies_nb(np.int64(tx), np.int64(ty), np.int64(f), np.int64(side),
                                               ranged, np.int64(rg), ip, occ, uside)
                        assert got == want, (t, f, side, ranged)
                        checked += 1
                        nonzero += want > 0
    assert checked > 1000 and nonzero > 50   # the positions do put enemies in arcs
