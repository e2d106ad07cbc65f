"""Warfare! rule schema, validation and ``prepare`` (scenario -> flat numpy params).

Every number of RULES.md section 4 is an option here; the kernels only ever see
the arrays built by ``prepare`` (same dtypes and shapes always, so a changed
value never recompiles anything).
"""
from __future__ import annotations

import numpy as np

from simkit.errors import ScenarioError
from simkit.policies import MC_N, mcts_options, mcts_params
from simkit.scenario.schema import Option, _suggest, handicap_options, table_of_counts, table_of_values

from . import state as S

UNITS = S.UNITS  # ("cavalry", "spearman", "infantry", "archer")

DEFAULT_TREES = [[2, 5], [3, 5], [2, 6], [3, 6], [8, 5], [9, 5], [8, 6], [9, 6]]
DEFAULT_ARMY = {"cavalry": 4, "spearman": 4, "infantry": 6, "archer": 4}
DEFAULT_UNITS = {
    "cavalry": {"move": 3, "range": 1},
    "spearman": {"move": 2, "range": 1},
    "infantry": {"move": 1, "range": 1},
    "archer": {"move": 1, "range": 3},
}
DEFAULT_VALUES = {"cavalry": 3.0, "spearman": 2.0, "infantry": 2.0, "archer": 1.5}

# Greedy commander knobs (name, default, help); floats, stored in order in fp[4:].
GREEDY_KNOBS = (
    ("greedy_attack_threshold", 0.0,
     "attack when value(target)*P(win) - value(own)*P(own death) - danger is above this"),
    ("greedy_w_approach", 0.4, "weight per square of distance to the nearest enemy (lower is better)"),
    ("greedy_w_formation", 1.0, "penalty per row a unit stands ahead of its army's mean line + slack"),
    ("greedy_formation_slack", 1.0, "rows a unit may stand ahead of the mean line before the penalty"),
    ("greedy_w_danger", 0.02, "penalty per enemy able to reach a square next to the unit, times its value"),
    ("greedy_w_cover", 0.6, "bonus for an archer with a friendly non-archer on the square ahead of it"),
    ("greedy_w_facing", 0.5, "bonus for facing the nearest enemy (it stands in the unit's front cone)"),
    ("greedy_min_improve", 0.05, "end the turn when no activation improves the position by more"),
    ("greedy_cavalry_slack", 2.0, "extra formation slack for cavalry (wings may run ahead)"),
)

# MCTS knobs (docs/games/warfare.md, "Search agent"): the engine's, then Warfare!'s own evaluation knobs
# (search.py MK_*, in this order after the engine's in the knob vector)
MCTS_OPTIONS = mcts_options(c=0.7, rollout="greedy", cutoff=2, scale=2.0, prior_temp=0.5, fpu=0.0) + (
    Option("mcts_threat", "float", 0.5, "MCTS evaluation: weight of the threat term (the side to move's best "
           "attacks minus half the other side's, greedy attack scores) added to the material lead",
           min=0.0, max=100.0, policy_knob=True),
    Option("mcts_cap_turns", "float", 3.0, "MCTS evaluation where the cap draws: turns a lead needs per unit "
           "of the trailing side to annihilate it; with fewer turns left the expected score is pulled to 1/2 "
           "(0: never)", min=0.0, max=1000.0, policy_knob=True),
)


def _check_trees(name, value):
    if not isinstance(value, list):
        raise ScenarioError(f"expected an array of [x, y] squares, got {value!r}", key=name)
    out = []
    for i, t in enumerate(value):
        if (not isinstance(t, list) or len(t) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in t)):
            raise ScenarioError(f"got {t!r}, expected [x, y] with integer coordinates", key=f"{name}[{i}]")
        out.append([int(t[0]), int(t[1])])
    return out


def _check_units(name, value):
    if not isinstance(value, dict):
        raise ScenarioError(f"expected a table of unit type -> {{move, range}}, got {value!r}", key=name)
    out = {u: dict(DEFAULT_UNITS[u]) for u in UNITS}
    for unit, stats in value.items():
        if unit not in UNITS:
            raise ScenarioError(f"unknown unit type '{unit}'{_suggest(unit, UNITS)}; allowed: {', '.join(UNITS)}",
                                key=f"{name}.{unit}")
        if not isinstance(stats, dict):
            raise ScenarioError(f"expected a table with 'move' and 'range', got {stats!r}", key=f"{name}.{unit}")
        for k, v in stats.items():
            if k not in ("move", "range"):
                raise ScenarioError(f"unknown stat '{k}'; allowed: move, range", key=f"{name}.{unit}.{k}")
            lo, hi = (0, 8) if k == "move" else (1, 8)
            if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                raise ScenarioError(f"got {v!r}, expected an integer from {lo} to {hi}", key=f"{name}.{unit}.{k}")
            out[unit][k] = v
    for u in UNITS:
        if u != "archer" and out[u]["range"] != 1:
            raise ScenarioError("only archers shoot: melee units have range 1", key=f"{name}.{u}.range")
    return out


def _check_army(name, value):
    counts = table_of_counts(UNITS)(name, value)
    return {u: counts.get(u, 0) for u in UNITS}


def _mod(name, default, help):
    return Option(name, "int", default, help, min=-10, max=10)


OPTIONS = (
    Option("width", "int", 12, "board width (squares)", min=3, max=40),
    Option("height", "int", 12, "board height (squares)", min=3, max=40),
    Option("trees", "table", DEFAULT_TREES, "tree squares: an array of x, y pairs (x from 0 at the left, "
           "y from 0 at side 0's back row)", check=_check_trees),
    Option("deploy_rows", "int", 3, "rows of each side's deployment zone (side 0 from row 0, side 1 from the top)",
           min=1, max=20),
    Option("army", "table", DEFAULT_ARMY, "each side's army: unit type -> count", check=_check_army),
    Option("units", "table", DEFAULT_UNITS, "unit stats: unit type -> {move, range} (range only for archers)",
           check=_check_units),
    _mod("mod_cavalry_charge_infantry", 1, "Cavalry charging the front of Frontline Infantry: + to the Cavalry"),
    _mod("mod_cavalry_vs_archer_fire", 3, "Cavalry shot by Archers: + to the Cavalry (any direction)"),
    _mod("mod_infantry_front_vs_archer", 2, "Frontline Infantry shot from the front: + to the Infantry"),
    _mod("mod_spearman_vs_infantry", -2, "Spearmen fighting Frontline Infantry: + (negative) to the Spearmen"),
    _mod("mod_tree_defense", 1, "defender on a tree square: + against archer fire and cavalry charges"),
    Option("activations", "int", 5, "units that may act per turn from each player's second turn on (phase 3)",
           min=1, max=1000),
    # WF-C1 (docs/games/warfare.md): compensation for moving second; 0 plays the same games
    Option("second_player_extra_activations", "int", 0,
           "WF-C1: extra activations on the second player's first phase-3 turn (its second turn; turn 4 "
           "of a play trace) and, "
           "with second_player_extra_turns > 1, on its next ones", min=0, max=1000),
    Option("second_player_extra_turns", "int", 1,
           "WF-C1: how many of the second player's phase-3 turns, from its first, get "
           "second_player_extra_activations", min=1, max=100000),
    Option("phase2_steps", "int", 2, "WF-2: squares each unit may move in its side's first turn (min with move)",
           min=0, max=8),
    Option("max_turns", "int", 100, "turn cap (turns of both players together)", min=1, max=100000),
    Option("cap_result", "choice", "draw", "result at the turn cap: draw, or material (more unit value wins)",
           choices=("draw", "material")),
    Option("values", "table", DEFAULT_VALUES, "unit values (material adjudication and the greedy commander)",
           check=table_of_values(UNITS, DEFAULT_VALUES, positive=True)),
    Option("deployment", "choice", "line", "deployment policy of both sides: line (battle line) or random",
           choices=("line", "random")),
) + tuple(Option(n, "float", d, h, policy_knob=True) for n, d, h in GREEDY_KNOBS) + handicap_options(UNITS) \
    + MCTS_OPTIONS   # greedy_* and mcts_* tune a policy, not the game: sensitivity leaves them out


def side_army(rules: dict, side: int) -> dict:
    army = rules["army"]
    rem = rules.get(f"remove_{side}", {}) or {}
    return {u: army.get(u, 0) - rem.get(u, 0) for u in UNITS}


def validate(rules: dict) -> None:
    w, h = rules["width"], rules["height"]
    for i, (x, y) in enumerate(rules["trees"]):
        if not (0 <= x < w and 0 <= y < h):
            raise ScenarioError(f"tree [{x}, {y}] is outside the {w}x{h} board "
                                f"(x from 0 to {w - 1}, y from 0 to {h - 1})", key=f"trees[{i}]")
    if 2 * rules["deploy_rows"] > h:
        raise ScenarioError(f"{rules['deploy_rows']} deployment rows per side do not fit a board of height {h}; "
                            f"allowed: at most {h // 2}", key="deploy_rows")
    cap = rules["deploy_rows"] * w
    for s in (0, 1):
        rem = rules.get(f"remove_{s}", {}) or {}
        for u, n in rem.items():
            if n > rules["army"].get(u, 0):
                raise ScenarioError(f"removes {n} {u} but the army has {rules['army'].get(u, 0)}",
                                    key=f"remove_{s}.{u}")
        n = sum(side_army(rules, s).values())
        if n > cap:
            raise ScenarioError(f"an army of {n} units does not fit its deployment zone of "
                                f"{rules['deploy_rows']} rows x {w} = {cap} squares", key="army")
        if n < 1:
            key = f"remove_{s}" if rem else "army"
            raise ScenarioError("each side needs at least one unit", key=key)


# ---------------------------------------------------------------- geometry

def _line_layout(army: dict, width: int, rows: int) -> list[tuple[int, int, int]]:
    """Battle line for side 0: (type, x, row) with row 0 the front row (nearest the enemy).

    The line sequence is cavalry (left half) | spearmen (left half) | infantry |
    spearmen | cavalry, the middle ``width`` of it forms the front row; archers
    stand behind, centred; line units that did not fit the front go to the ends
    of the rows behind (outer units first), then to the next row.
    """
    c, s, i, a = (army[u] for u in UNITS)
    CAV, SPE, INF, ARC = range(4)
    line = [CAV] * ((c + 1) // 2) + [SPE] * ((s + 1) // 2) + [INF] * i + [SPE] * (s // 2) + [CAV] * (c // 2)
    out = []
    n = len(line)
    if n <= width:
        front, left, right = line, [], []
    else:
        cut = (n - width) // 2
        front = line[cut:cut + width]
        left, right = line[:cut], line[cut + width:]
    x0 = (width - len(front)) // 2
    out += [(t, x0 + k, 0) for k, t in enumerate(front)]
    # rows behind: archers centred, leftover line units at the row ends
    pending_arch = [ARC] * a
    row = 1
    while (left or right or pending_arch) and row < rows:
        cells = [None] * width
        lo, hi = 0, width - 1
        while left and lo <= hi:
            cells[lo] = left.pop()  # innermost leftover first, next to the wing
            lo += 1
            if right and lo <= hi:
                cells[hi] = right.pop(0)
                hi -= 1
        while right and lo <= hi:
            cells[hi] = right.pop(0)
            hi -= 1
        free = hi - lo + 1
        k = min(free, len(pending_arch))
        start = lo + (free - k) // 2
        for j in range(k):
            cells[start + j] = pending_arch.pop()
        out += [(t, x, row) for x, t in enumerate(cells) if t is not None]
        row += 1
    if left or right or pending_arch:  # cannot happen after validate(), but fail loudly
        raise ScenarioError("the battle line does not fit the deployment rows", key="army")
    return out


def reach_tables(width: int, height: int, max_move: int):
    """Per move value m and square: destinations (incl. staying) and their facing masks.

    A path is a walk of at most m orthogonal steps on the board (it may pass over
    units; emptiness of the end square is checked in the kernel). Facing mask bit f
    = the walk's last step can be direction f; 15 (any facing) when the square is
    reachable in one straight line or is the start square (WF-3).
    """
    nsq = width * height
    reach = np.zeros((max_move + 1, nsq, nsq), dtype=np.int8)
    for m in range(max_move + 1):
        for s in range(nsq):
            sx, sy = s % width, s // width
            for t in range(nsq):
                tx, ty = t % width, t // width
                dx, dy = tx - sx, ty - sy
                d = abs(dx) + abs(dy)
                if d > m:
                    continue
                if dx == 0 or dy == 0:
                    reach[m, s, t] = 15
                    continue
                mask = (1 << (S.E if dx > 0 else S.W)) | (1 << (S.N if dy > 0 else S.S))
                if m >= d + 2:
                    for f in range(4):
                        px, py = tx - S.DX[f], ty - S.DY[f]
                        if 0 <= px < width and 0 <= py < height:
                            mask |= 1 << f
                reach[m, s, t] = mask
    dmax = max(1, int((reach > 0).sum(axis=2).max()))
    dest = np.full((max_move + 1, nsq, dmax), -1, dtype=np.int64)
    dmask = np.zeros((max_move + 1, nsq, dmax), dtype=np.int64)
    destn = np.zeros((max_move + 1, nsq), dtype=np.int64)
    for m in range(max_move + 1):
        for s in range(nsq):
            ts = np.nonzero(reach[m, s])[0]
            destn[m, s] = len(ts)
            dest[m, s, :len(ts)] = ts
            dmask[m, s, :len(ts)] = reach[m, s, ts]
    return reach, dest, dmask, destn


def win_table(lo: int = S.WIN_LO, hi: int = -S.WIN_LO) -> np.ndarray:
    """P(attacker wins an opposed roll) by modifier difference lo..hi (exact, from dice.py)."""
    from simkit.engine.dice import warfare_distribution   # jitted module: not needed to list the options
    return np.array([float(warfare_distribution(d, 0)["attacker_wins"]) for d in range(lo, hi + 1)])


def prepare(rules: dict):
    """Validated rules -> params tuple (see state.py for the layout)."""
    validate(rules)
    w, h = rules["width"], rules["height"]
    nsq = w * h
    rows = rules["deploy_rows"]
    armies = [side_army(rules, s) for s in (0, 1)]
    maxu = max(sum(a.values()) for a in armies)
    army = np.full((2, maxu), -1, dtype=np.int64)
    linesq = np.full((2, maxu), -1, dtype=np.int64)
    for s in (0, 1):
        lay = _line_layout(armies[s], w, rows)
        for k, (t, x, r) in enumerate(sorted(lay, key=lambda e: (e[0], e[2], e[1]))):
            y = rows - 1 - r if s == 0 else h - rows + r
            army[s, k] = t
            linesq[s, k] = y * w + x
    zone = np.zeros((2, rows * w), dtype=np.int64)
    zone[0] = np.arange(rows * w)
    zone[1] = np.arange((h - rows) * w, h * w)
    tree = np.zeros(nsq, dtype=np.int64)
    for x, y in rules["trees"]:
        tree[y * w + x] = 1
    umove = np.array([rules["units"][u]["move"] for u in UNITS], dtype=np.int64)
    urange = np.array([rules["units"][u]["range"] for u in UNITS], dtype=np.int64)
    max_move = int(umove.max())
    reach, dest, dmask, destn = reach_tables(w, h, max_move)
    ip = np.zeros(S.IP_SIZE, dtype=np.int64)
    ip[S.IP_W] = w
    ip[S.IP_H] = h
    ip[S.IP_NSQ] = nsq
    ip[S.IP_ACT] = rules["activations"]
    ip[S.IP_ACT2] = rules["second_player_extra_activations"]
    ip[S.IP_ACT2N] = rules["second_player_extra_turns"]
    ip[S.IP_P2] = rules["phase2_steps"]
    ip[S.IP_MAXT] = rules["max_turns"]
    ip[S.IP_CAP] = 0 if rules["cap_result"] == "draw" else 1
    ip[S.IP_DEPLOY] = 0 if rules["deployment"] == "line" else 1
    ip[S.IP_MCHARGE] = rules["mod_cavalry_charge_infantry"]
    ip[S.IP_MCAVFIRE] = rules["mod_cavalry_vs_archer_fire"]
    ip[S.IP_MINFFRONT] = rules["mod_infantry_front_vs_archer"]
    ip[S.IP_MSPEAR] = rules["mod_spearman_vs_infantry"]
    ip[S.IP_MTREE] = rules["mod_tree_defense"]
    ip[S.IP_N0] = sum(armies[0].values())
    ip[S.IP_N1] = sum(armies[1].values())
    ip[S.IP_ROWS] = rows
    ip[S.IP_MAXU] = maxu
    fp = np.zeros(S.FP_SIZE, dtype=np.float64)
    for k, u in enumerate(UNITS):
        fp[S.FP_VALUE + k] = rules["values"][u]
    for k, (name, _, _) in enumerate(GREEDY_KNOBS):
        fp[S.FP_GREEDY + k] = rules[name]
    fp[S.FP_MCTS:S.FP_MCTS + MC_N] = mcts_params(rules)[0]   # one row: per-side knobs are Martian Chess's only so far
    fp[S.FP_MCTS + MC_N:S.FP_MCTS + MC_N + S.MCTS_OWN] = [rules["mcts_threat"], rules["mcts_cap_turns"]]
    sqx = np.arange(nsq, dtype=np.int64) % w
    sqy = np.arange(nsq, dtype=np.int64) // w
    # the evaluation's weight table (state.P_EVAL, the last slot: no other index moves): both rows the
    # hand-set weights, each unit type's value and the search's threat weight; a side's row is data
    # (simkit learn swaps in a learned row), so nothing recompiles when it changes
    ev = np.zeros((2, S.NEV), dtype=np.float64)
    for k, u in enumerate(UNITS):
        ev[:, S.EV_MATERIAL + k] = rules["values"][u]
    ev[:, S.EV_THREAT] = rules["mcts_threat"]
    return (ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, win_table(), sqx, sqy,
            mcts_params(rules), ev)
