"""Skorm rule schema, validation and ``prepare`` (scenario -> flat numpy params).

Everything a kernel needs is in the params tuple (see ``P_*`` indexes below);
a changed option value never changes a dtype or an ndim, so it never recompiles.

Geometry is built once per board here (RULES.md §1, axial coordinates):

- cells are indexed row by row (``r`` from -R to R, then ``q``); ``CQ``/``CR``
  give the coordinates back;
- ``NB[c, d]``: neighbour of ``c`` in direction ``d`` (-1 off the board);
- ``RAY[c, d, k]``: the cell ``k + 1`` steps from ``c`` along ``d`` (-1 off);
- ``DEST[c, j]`` / ``APPR[c, j, i]``: the destinations of a one- or two-step
  move from ``c`` (``j < 6``: the neighbour in direction ``j``; ``j >= 6``: the
  12 cells at distance 2) and, for each, up to three *final-step-from* cells:
  ``c`` itself for the direct step (always ``APPR[c, j, 0]`` for ``j < 6``),
  otherwise the intermediate cell of a two-step path, which must be empty.
  The shield rule (SK-6) looks only at that final-step-from cell, so this table
  is exactly what SK-5b/SK-6 need: a (from, to) action exists when one open
  approach has a final step the shield allows;
- ``DISTG[c]``: hex distance to the Gold Tile ``(0, 0)``; ``DIST[a, b]``: hex
  distance between any two cells;
- ``ADJB[c]`` / ``SHOTB[c]``: 2x64-bit masks of the neighbours of ``c`` and of
  the cells an Archer on ``c`` can shoot (``archer_range`` along the six lines);
- ``MCTS``: the MCTS knobs (simkit.policies ``MC_*`` indices);
- ``FRAY[c, d]``: 2x64-bit mask of the first ``archer_range`` cells along direction ``d``
  from ``c``: the Archers there shoot ``c`` from direction ``d``, and a Shieldman on ``c``
  facing ``d`` is shielded against exactly them (SK-6). The mask kernels (bits.py) use it.
"""
from __future__ import annotations

import numpy as np

from simkit.errors import ScenarioError
from simkit.policies import SIDE_KNOBS_BUT_SCALE, mcts_options, mcts_params
from simkit.scenario.schema import Option, handicap_options, table_of_counts, table_of_values

UNITS = ("shieldman", "archer", "horseman", "warlord")
SHIELDMAN, ARCHER, HORSEMAN, WARLORD = 0, 1, 2, 3
DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))
PLACEMENTS = ("reference", "random", "wall")
FACINGS = ("none", "random", "threat")
MAX_RADIUS = 6  # 127 cells: the attack masks are two 64-bit words

DEFAULT_ARMY = {"shieldman": 5, "archer": 5, "horseman": 4, "warlord": 1}
DEFAULT_VALUES = {"shieldman": 1.0, "archer": 1.5, "horseman": 2.0, "warlord": 0.0}

# Reference formation for player 0 (RULES.md §1); player 1 is the point reflection.
REFERENCE = {
    "warlord": [(0, -4)],
    "horseman": [(-1, -3), (1, -4), (-3, -1), (3, -4)],
    "archer": [(-2, -2), (-1, -2), (0, -2), (1, -3), (2, -4)],
    "shieldman": [(-2, -1), (-1, -1), (0, -1), (1, -2), (2, -3)],
}
REFERENCE_FACING = 5


# MCTS defaults (docs/games/skorm.md "Search agent (MCTS)": measured by scripts/skorm_search.py)
MCTS = dict(c=1.0, rollout="greedy", cutoff=2, scale=4.0, prior_temp=1.0, fpu=0.0, decisive=True)


def _check_army(name, value):
    out = table_of_counts(UNITS)(name, value)
    full = dict(DEFAULT_ARMY)
    full.update(out)
    if full["warlord"] != 1:
        raise ScenarioError(f"got {full['warlord']!r}, every army has exactly 1 warlord", key=f"{name}.warlord")
    return full


OPTIONS = (
    Option("board_radius", "int", 4, "hexagon radius R: cells with max(|q|,|r|,|q+r|) <= R (4 = 61 cells)",
           min=2, max=MAX_RADIUS),
    Option("zone_depth", "int", 3, "placement zone: cells within this hex distance of the own corner (SK-1)",
           min=1, max=2 * MAX_RADIUS),
    Option("army", "table", dict(DEFAULT_ARMY), "pieces per player (unit type -> count; exactly 1 warlord)",
           check=_check_army),
    Option("archer_range", "int", 2, "an Archer shoots along the six lines up to this distance, over any piece",
           min=1, max=2 * MAX_RADIUS),
    Option("horseman_steps", "int", 2, "a Horseman moves 1 or up to 2 steps (1 or 2)", min=1, max=2),
    Option("warlord_steps", "int", 2, "the Warlord moves 1 or up to 2 steps (1 or 2)", min=1, max=2),
    Option("gold_tile", "bool", True, "the Gold Tile win is in play (SK-7)"),
    Option("gold_tile_immediate_max", "int", 3,
           "a Warlord arriving on the Gold Tile wins at once when the opponent has at most this many pieces "
           "other than its Warlord (-1: never immediate)", min=-1, max=1000),
    # SK-C1 (docs/games/skorm.md): tempo compensation for the player who moves second
    Option("second_player_first_actions", "int", 1,
           "SK-C1: actions (plies) the second player takes in its first turn, one after another; the Gold "
           "Tile checks wait for the turn's end (1 = the rules as written)", min=1, max=8),
    Option("max_plies", "int", 300, "ply cap (passes included); the game is then a draw (move_limit)",
           min=1, max=100000),
    Option("placement", "choice", "reference",
           "placement policy (SK-3): 'reference' formation (radius 4 / zone 3 only), 'random' (uniform piece, "
           "cell and facing), 'wall' (shield wall in front, archers behind, horsemen on the wings)",
           choices=PLACEMENTS),
    Option("facing", "choice", "threat",
           "how the greedy policy turns Shieldmen (SK-4): 'none' (never), 'random' (a moving Shieldman lands "
           "facing a uniform direction), 'threat' (every Shieldman faces its most dangerous attacker)",
           choices=FACINGS, policy_knob=True),
    Option("values", "table", dict(DEFAULT_VALUES), "unit values used by the greedy policy's material term",
           check=table_of_values(UNITS, DEFAULT_VALUES), policy_knob=True),
    Option("w_warlord_safety", "float", 20.0, "greedy: penalty when the own Warlord can be taken next turn",
           min=0, policy_knob=True),
    Option("w_gold_distance", "float", 0.25, "greedy: penalty per hex between the own Warlord and the Gold Tile",
           min=0, policy_knob=True),
    Option("w_hanging", "float", 0.5,
           "greedy: penalty x value of the most valuable own piece the opponent could take next turn", min=0,
           policy_knob=True),
    Option("w_advance", "float", 0.5,
           "greedy: bonus per hex a piece other than the Warlord moves toward the enemy Warlord (aggression)",
           min=0, policy_knob=True),
) + handicap_options(UNITS) + mcts_options(**MCTS)

# ---------------------------------------------------------------- params layout
P_I, P_F, P_NB, P_RAY, P_DEST, P_APPR, P_DISTG, P_ADJB, P_SHOTB, P_FORM, P_ZONE, P_ARMY, P_CQ, P_CR, P_DIST, \
    P_MCTS, P_FRAY, P_KNOBS, P_EVAL = range(19)
# P_MCTS: the knob row the hooks read (the evaluation's mcts_scale, the same for both sides); P_KNOBS: the knob
# table, a row per side, from which the kernel hands the mover's row to the engine (POLICY/KNOB=VALUE)
# P_EVAL: the evaluation's weight table (GameSpec.eval_slot; simkit learn), float64 (2, NW), row p = side p's
# weights of EVAL_FEATURES; both rows are the rules' ``values`` and ``w_gold_distance`` unless a side plays a
# learned evaluation. Greedy reads the mover's row, the search the searcher's row (evaluate.py, search.py),
# the quality trajectory and the step API's evaluate row 0. P_F keeps the rules' 1-D weights for the rest.
SIDE_KNOBS = SIDE_KNOBS_BUT_SCALE

# integer params (P_I)
I_N, I_R, I_RANGE, I_STEPS_H, I_STEPS_W, I_GOLD_ON, I_GOLD_IMM, I_MAX_PLIES, I_PLACEMENT, I_FACING, \
    I_P, I_GOLD, I_CORNER0, I_CORNER1, I_Z, I_FIRST_ACTIONS2 = range(16)
NI = 16
# float params (P_F): unit values 0..3 then weights
F_W_WARLORD, F_W_GOLD, F_W_HANG, F_W_ADV = 4, 5, 6, 7
NF = 8
# the evaluation's features (P_EVAL's columns, features.py): the material of the three unit types a side can
# lose (the Warlord's loss ends the game: it has no material value) and the Warlord's Gold Tile distance
EVAL_FEATURES = ("material:shieldman", "material:archer", "material:horseman", "gold_distance")
W_GOLD = 3          # P_EVAL's column of w_gold_distance; columns 0..2 are the unit values (UNITS order)
NW = 4


def cells_of(radius: int) -> list[tuple[int, int]]:
    return [(q, r) for r in range(-radius, radius + 1) for q in range(-radius, radius + 1)
            if max(abs(q), abs(r), abs(q + r)) <= radius]


def hex_dist(a, b) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return max(abs(dq), abs(dr), abs(dq + dr))


def zone_cells(radius: int, depth: int, side: int) -> list[tuple[int, int]]:
    corner = (0, -radius) if side == 0 else (0, radius)
    return [c for c in cells_of(radius) if hex_dist(c, corner) <= depth]


def army_of(rules: dict, side: int) -> dict:
    army = dict(rules["army"])
    for unit, n in rules[f"remove_{side}"].items():
        army[unit] -= n
    return army


def validate(rules: dict) -> None:
    R, z = rules["board_radius"], rules["zone_depth"]
    if z >= R:
        raise ScenarioError(
            f"zone_depth {z} makes the two placement zones overlap on a radius-{R} board: "
            f"expected at most {R - 1}", key="zone_depth")
    zsize = len(zone_cells(R, z, 0))
    total = sum(rules["army"].values())
    if total > zsize:
        raise ScenarioError(
            f"the placement zone of depth {z} has {zsize} cells but the army has {total} pieces: "
            f"raise zone_depth or shrink the army", key="zone_depth")
    for s in (0, 1):
        for unit, n in rules[f"remove_{s}"].items():
            if unit == "warlord" and n:
                raise ScenarioError("the warlord cannot be removed", key=f"remove_{s}.warlord")
            if n > rules["army"][unit]:
                raise ScenarioError(f"removes {n} but the army has {rules['army'][unit]}",
                                    key=f"remove_{s}.{unit}")
    if rules["placement"] == "reference":
        if R != 4:
            raise ScenarioError(
                f"the reference formation is defined only for board_radius 4 and zone_depth 3 (got {R}); "
                "set placement = 'random' or 'wall'", key="board_radius")
        if z != 3:
            raise ScenarioError(
                f"the reference formation is defined only for board_radius 4 and zone_depth 3 (got {z}); "
                "set placement = 'random' or 'wall'", key="zone_depth")
        for unit, cells in REFERENCE.items():
            if rules["army"][unit] > len(cells):
                raise ScenarioError(
                    f"the reference formation has {len(cells)} {unit} cells but the army has "
                    f"{rules['army'][unit]}; set placement = 'random' or 'wall'", key=f"army.{unit}")


def reflect(cell, side):
    return cell if side == 0 else (-cell[0], -cell[1])


def formation(rules: dict, side: int) -> list[tuple[tuple[int, int], int, int]]:
    """(cell, kind, facing) for side's pieces in placement order, warlord first.

    ``reference``: RULES.md §1, removed units taken from the end of each list.
    ``wall``: shieldmen fill the zone from its front row (farthest from the own
    corner) outwards from the centre line; archers fill the rows behind the
    wall, centre first; horsemen take the widest remaining cells (the wings),
    front first. Shieldmen face the enemy corner.
    """
    R, z = rules["board_radius"], rules["zone_depth"]
    army = army_of(rules, side)
    fwd = 5 if side == 0 else 2
    if rules["placement"] == "reference":
        out = []
        for unit in ("warlord", "shieldman", "archer", "horseman"):
            k = UNITS.index(unit)
            for c in REFERENCE[unit][:army[unit]]:
                out.append((reflect(c, side), k, fwd if k == SHIELDMAN else -1))
        return out
    # wall, computed for side 0 then reflected
    corner = (0, -R)
    zone = [c for c in zone_cells(R, z, 0) if c != corner]
    free = set(zone)
    out = [(corner, WARLORD, -1)]
    shields = sorted(zone, key=lambda c: (-hex_dist(c, corner), abs(c[0]), c[0]))[:army["shieldman"]]
    for c in shields:
        out.append((c, SHIELDMAN, 5))
        free.discard(c)
    back = min((hex_dist(c, corner) for c in shields), default=z + 1)
    archers = sorted(free, key=lambda c: (hex_dist(c, corner) >= back, -hex_dist(c, corner), abs(c[0]), c[0]))
    for c in archers[:army["archer"]]:
        out.append((c, ARCHER, -1))
        free.discard(c)
    horses = sorted(free, key=lambda c: (-abs(c[0]), -hex_dist(c, corner), c[0]))
    for c in horses[:army["horseman"]]:
        out.append((c, HORSEMAN, -1))
        free.discard(c)
    return [(reflect(c, side), k, (f if side == 0 or f < 0 else (f + 3) % 6)) for c, k, f in out]


def geometry(R: int, rng: int):
    cells = cells_of(R)
    index = {c: i for i, c in enumerate(cells)}
    N = len(cells)
    K = max(2 * R, rng)
    nb = np.full((N, 6), -1, np.int64)
    ray = np.full((N, 6, K), -1, np.int64)
    dest = np.full((N, 18), -1, np.int64)
    appr = np.full((N, 18, 3), -1, np.int64)
    distg = np.zeros(N, np.int64)
    adjb = np.zeros((N, 2), np.uint64)
    shotb = np.zeros((N, 2), np.uint64)

    def at(q, r):
        return index.get((q, r), -1)

    def setbit(arr, c, t):
        arr[c, t >> 6] |= np.uint64(1) << np.uint64(t & 63)

    for i, (q, r) in enumerate(cells):
        distg[i] = hex_dist((q, r), (0, 0))
        for d, (dq, dr) in enumerate(DIRS):
            nb[i, d] = at(q + dq, r + dr)
            if nb[i, d] >= 0:
                setbit(adjb, i, nb[i, d])
            for k in range(K):
                t = at(q + dq * (k + 1), r + dr * (k + 1))
                ray[i, d, k] = t
                if t >= 0 and k < rng:
                    setbit(shotb, i, t)
        for d, (dq, dr) in enumerate(DIRS):
            t = at(q + dq, r + dr)
            if t < 0:
                continue
            dest[i, d] = t
            appr[i, d, 0] = i
            n = 1
            for e in ((d + 1) % 6, (d + 5) % 6):  # the two common neighbours
                m = at(q + DIRS[e][0], r + DIRS[e][1])
                if m >= 0:
                    appr[i, d, n] = m
                    n += 1
        for d, (dq, dr) in enumerate(DIRS):
            j = 6 + 2 * d
            t = at(q + 2 * dq, r + 2 * dr)  # straight: one path
            if t >= 0:
                dest[i, j] = t
                m = at(q + dq, r + dr)
                appr[i, j, 0] = m
            e = (d + 1) % 6
            t = at(q + dq + DIRS[e][0], r + dr + DIRS[e][1])  # bent: two paths
            if t >= 0:
                dest[i, j + 1] = t
                n = 0
                for m in (at(q + dq, r + dr), at(q + DIRS[e][0], r + DIRS[e][1])):
                    if m >= 0:
                        appr[i, j + 1, n] = m
                        n += 1
    cq = np.array([c[0] for c in cells], np.int64)
    cr = np.array([c[1] for c in cells], np.int64)
    return cells, index, nb, ray, dest, appr, distg, adjb, shotb, cq, cr


def prepare(rules: dict):
    """Validated rules -> params tuple (see P_* / I_* / F_* for the layout)."""
    validate(rules)
    R, z = rules["board_radius"], rules["zone_depth"]
    cells, index, nb, ray, dest, appr, distg, adjb, shotb, cq, cr = geometry(R, rules["archer_range"])
    N = len(cells)
    armies = [army_of(rules, s) for s in (0, 1)]
    P = max(sum(a.values()) for a in armies)
    army = np.array([[a[u] for u in UNITS] for a in armies], np.int64)
    zones = [[index[c] for c in zone_cells(R, z, s)] for s in (0, 1)]
    Z = len(zones[0])
    zone = np.array(zones, np.int64)
    form = np.full((2, P, 3), -1, np.int64)
    if rules["placement"] != "random":
        for s in (0, 1):
            for i, (c, k, f) in enumerate(formation(rules, s)):
                form[s, i] = (index[c], k, f)
    ip = np.zeros(NI, np.int64)
    ip[I_N], ip[I_R], ip[I_RANGE] = N, R, rules["archer_range"]
    ip[I_STEPS_H], ip[I_STEPS_W] = rules["horseman_steps"], rules["warlord_steps"]
    ip[I_GOLD_ON], ip[I_GOLD_IMM] = int(rules["gold_tile"]), rules["gold_tile_immediate_max"]
    ip[I_MAX_PLIES] = rules["max_plies"]
    ip[I_PLACEMENT] = PLACEMENTS.index(rules["placement"])
    ip[I_FACING] = FACINGS.index(rules["facing"])
    ip[I_P], ip[I_GOLD] = P, index[(0, 0)]
    ip[I_CORNER0], ip[I_CORNER1], ip[I_Z] = index[(0, -R)], index[(0, R)], Z
    ip[I_FIRST_ACTIONS2] = rules["second_player_first_actions"]
    F = np.zeros(NF, np.float64)
    for k, u in enumerate(UNITS):
        F[k] = rules["values"][u]
    F[F_W_WARLORD], F[F_W_GOLD], F[F_W_HANG] = rules["w_warlord_safety"], rules["w_gold_distance"], rules["w_hanging"]
    F[F_W_ADV] = rules["w_advance"]
    dist = np.array([[hex_dist(a, b) for b in cells] for a in cells], np.int64)
    fray = np.zeros((N, 6, 2), np.uint64)
    for c in range(N):
        for d in range(6):
            for k in range(rules["archer_range"]):
                t = ray[c, d, k] if k < ray.shape[2] else -1
                if t < 0:
                    break
                fray[c, d, t >> 6] |= np.uint64(1) << np.uint64(t & 63)
    knobs = mcts_params(rules)
    w = np.zeros(NW, np.float64)
    w[:3] = F[:3]
    w[W_GOLD] = F[F_W_GOLD]
    return (ip, F, nb, ray, dest, appr, distg, adjb, shotb, form, zone, army, cq, cr, dist, knobs[0].copy(), fray,
            knobs, np.stack([w, w]))


def default_rules(**overrides) -> dict:
    from simkit.scenario.schema import validate_rules
    rules = validate_rules(OPTIONS, overrides)
    validate(rules)
    return rules
