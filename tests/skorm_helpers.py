"""Helpers for the Skorm tests: hand-built positions and an independent,
path-by-path Python move generator written straight from RULES.md §1."""
import numpy as np

from simkit.games.skorm.play import Game
from simkit.games.skorm.rules import DIRS, P_CQ, P_CR, UNITS, default_rules, prepare
from simkit.games.skorm.state import NSC, SC_PENDING, SC_REASON, SC_TOMOVE, SC_WINNER, SC_WL0, SC_WL1, put_piece_nb

S, A, H, W = 0, 1, 2, 3


def params_for(**rules):
    return prepare(default_rules(**rules))


def index_of(params):
    return {(int(q), int(r)): i for i, (q, r) in enumerate(zip(params[P_CQ], params[P_CR]))}


def position(params, pieces, to_move=0):
    """pieces: [((q, r), side, kind, facing)] -> a Game in that position."""
    g = Game(params)
    idx = index_of(params)
    g.cell[:] = 0
    g.face[:] = -1
    g.plist[:] = -1
    g.sc[:] = np.zeros(NSC, np.int64)
    for k in (SC_PENDING, SC_WINNER, SC_REASON, SC_WL0, SC_WL1):
        g.sc[k] = -1
    g.sc[SC_TOMOVE] = to_move
    for (q, r), side, kind, f in pieces:
        put_piece_nb(g.cell, g.face, g.plist, g.sc, idx[(q, r)], side, kind, -1 if f is None else f)
    return g


def code(params, a, t, shot=False):
    idx = index_of(params)
    return (int(shot) << 16) | (idx[a] << 8) | idx[t]


def actions(g):
    return set(int(x) for x in g.legal_actions())


def reference_actions(params, cell, face, side, archer_range=2, steps=(1, 1, 2, 2)):
    """All (type, from, to) actions of ``side`` by enumerating every path."""
    coords = [(int(q), int(r)) for q, r in zip(params[P_CQ], params[P_CR])]
    idx = {c: i for i, c in enumerate(coords)}

    def add(c, d, k=1):
        return idx.get((c[0] + DIRS[d][0] * k, c[1] + DIRS[d][1] * k), -1)

    def owner(i):
        return -1 if cell[i] == 0 else (int(cell[i]) - 1) >> 2

    def kind(i):
        return (int(cell[i]) - 1) & 3

    def shield_allows(final_from, t):
        if kind(t) != S:
            return True
        return add(coords[t], int(face[t])) != final_from

    out = set()
    for a in range(len(coords)):
        if owner(a) != side:
            continue
        k = kind(a)
        paths = []  # (final_from, to)
        for d1 in range(6):
            m = add(coords[a], d1)
            if m < 0:
                continue
            paths.append((a, m))
            if steps[k] >= 2 and cell[m] == 0:
                for d2 in range(6):
                    t = add(coords[m], d2)
                    if t >= 0 and t != a:
                        paths.append((m, t))
        for final_from, t in paths:
            if cell[t] == 0:
                out.add((0, a, t))
            elif owner(t) != side and k != A and shield_allows(final_from, t):
                out.add((0, a, t))
        if k == A:
            for d in range(6):
                for dist in range(1, archer_range + 1):
                    t = add(coords[a], d, dist)
                    if t < 0:
                        break
                    if cell[t] != 0 and owner(t) != side:
                        if not (kind(t) == S and int(face[t]) == (d + 3) % 6):
                            out.add((1, a, t))
    return {(ty << 16) | (a << 8) | t for ty, a, t in out}


__all__ = ["S", "A", "H", "W", "UNITS", "params_for", "position", "code", "actions", "reference_actions",
           "index_of"]
