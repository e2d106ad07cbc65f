"""Hand-built Warfare! positions for the rule tests."""
import numpy as np

from simkit.games.warfare import moves as M
from simkit.games.warfare.rules import OPTIONS, prepare
from simkit.games.warfare.state import NFIELDS, UNITS
from simkit.scenario.schema import validate_rules


def params(**over):
    rules = validate_rules(OPTIONS, over)
    return tuple(np.ascontiguousarray(p) for p in prepare(rules))


FACE = {"N": 0, "E": 1, "S": 2, "W": 3}


class Pos:
    """Units given as (side, type, x, y, facing) with type a unit name and facing N/E/S/W."""

    def __init__(self, P, units, seed=1, army=False):
        """``army``: number the units as a game does (side 0's from 0, side 1's from the army's n0; the
        search relies on it) and fill the army's other slots with dead units."""
        self.P = P
        ip = P[0]
        self.W = int(ip[0])
        nsq = int(ip[2])
        n = len(units)
        ids = list(range(n))
        if army:
            n0 = int(ip[13])
            n = n0 + int(ip[14])
            left = [0, n0]
            for i, (s, *_) in enumerate(units):
                ids[i] = left[s]
                left[s] += 1
            assert left[0] <= n0 and left[1] <= n
        self.occ = -np.ones(nsq, np.int64)
        self.usq = np.full(n, -1, np.int64)
        self.uface = np.zeros(n, np.int64)
        self.utype = np.zeros(n, np.int64)
        self.uside = np.zeros(n, np.int64)
        if army:
            self.uside[n0:] = 1
        self.alive = np.zeros(2, np.int64)
        for u, (s, t, x, y, f) in zip(ids, units):
            sq = y * self.W + x
            assert self.occ[sq] == -1
            self.occ[sq] = u
            self.usq[u] = sq
            self.uface[u] = FACE[f]
            self.utype[u] = UNITS.index(t)
            self.uside[u] = s
            self.alive[s] += 1
        self.nu = n
        self.ids = ids      # the unit id of each entry of ``units``
        self.rec = np.zeros(NFIELDS, np.int32)
        self.agg = np.zeros(nsq, np.int64)
        self.rng = np.zeros(1, np.uint64)
        from simkit.engine.rng import rng_seed_nb
        rng_seed_nb(self.rng, np.int64(seed), np.int64(0))

    def sq(self, x, y):
        return y * self.W + x

    def at(self, x, y):
        return int(self.occ[self.sq(x, y)])

    def attack(self, u, v, forced=-1):
        ip, tree, urange = self.P[0], self.P[1], self.P[6]
        out, ang, rolled = M.attack_nb(np.int64(u), np.int64(v), ip, tree, urange, self.occ, self.usq, self.uface,
                                       self.uside, self.utype, self.alive, self.rec, self.agg, self.rng,
                                       np.int64(forced))
        return int(out), int(ang), bool(rolled)

    def kind(self, u, v):
        """(kind, attacker modifier, defender modifier) of u attacking v."""
        ip, tree = self.P[0], self.P[1]
        W = self.W
        ranged = self.utype[u] == UNITS.index("archer")
        ang = M.angle_nb(self.usq[u] % W, self.usq[u] // W, self.usq[v] % W, self.usq[v] // W,
                         self.uface[v], ranged)
        k, am, dm = M.combat_kind_nb(np.int64(self.utype[u]), np.int64(self.utype[v]), np.int64(ang),
                                     bool(ranged), np.int64(tree[self.usq[v]]), ip)
        return int(k), int(am), int(dm)

    def angle(self, u, v):
        W = self.W
        ranged = self.utype[u] == UNITS.index("archer")
        return int(M.angle_nb(self.usq[u] % W, self.usq[u] // W, self.usq[v] % W, self.usq[v] // W,
                              self.uface[v], ranged))

    def surround(self, active):
        return int(M.surround_nb(np.int64(active), self.P[0], self.occ, self.usq, self.uside, self.utype,
                                 self.alive, self.rec, self.agg, np.int64(self.nu)))

    def dests(self, u, m):
        P = self.P
        buf = np.zeros(256, np.int64)
        n = M.gen_dests_nb(np.int64(u), np.int64(m), P[0], P[7], P[9], self.occ, self.usq, self.uside, buf)
        return sorted((int(t) % self.W, int(t) // self.W) for t in buf[:n])

    def mask(self, u, m, x, y):
        return int(M.face_mask_nb(np.int64(m), np.int64(self.usq[u]), np.int64(self.sq(x, y)), self.P[10]))

    def move(self, u, x, y, f):
        M.move_nb(np.int64(u), np.int64(self.sq(x, y)), np.int64(FACE[f]), self.occ, self.usq, self.uface)

    def targets(self, u):
        P = self.P
        buf = np.zeros(self.nu + 1, np.int64)
        n = M.gen_targets_nb(np.int64(u), P[0], P[6], self.usq, self.uface, self.uside, self.utype,
                             np.int64(self.nu), buf)
        return sorted(int(v) for v in buf[:n])

    def alive_units(self):
        return [u for u in range(self.nu) if self.usq[u] >= 0]
