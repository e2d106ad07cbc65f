"""Storm the Castle: rule options, scenario validation and ``prepare`` (-> params).

Board and deck are data (``board`` and ``deck`` tables of the scenario); see
``scenarios/storm_the_castle/default.toml``. ``prepare`` compiles a validated
rule dict into the flat numpy arrays the kernels take (``Params``).
"""
from __future__ import annotations

import dataclasses
from collections import deque
from typing import NamedTuple

import numpy as np

from simkit.games.base import BASE_COLUMNS, Column, column_names
from simkit.errors import ScenarioError
from simkit.policies import mcts_options, mcts_params
from simkit.scenario.schema import Option, _suggest

# ---------------------------------------------------------------------------
# vocabulary
KINDS = ("regular", "support", "item")
K_REG, K_SUP, K_ITEM = 0, 1, 2
ABILITIES = ("none", "cleric", "blacksmith", "sorcerer", "assassin", "catapult")
AB_NONE, AB_CLERIC, AB_SMITH, AB_SORC, AB_ASSASSIN, AB_CATAPULT = range(6)
SPACE_KINDS = ("keep", "tower", "battlement", "open", "high", "low")
CASTLE_KINDS = ("keep", "tower", "battlement")

# card-type table columns (ctab[t, col])
T_KIND, T_COST, T_ATT, T_DEF, T_MOVE, T_RANGE, T_AB, T_BONUS, T_ROLL, T_RANK = range(10)
NT_COLS = 10
# space table columns (spi[x, col])
X_SIDE, X_KIND, X_LEVEL, X_DEF, X_CASTLE = range(5)   # X_CASTLE: owning side if castle space else -1
NX_COLS = 5
# integer options (iopt[i])
(O_POINTS, O_SICK, O_CLEARS, O_MAXTURNS, O_HAND, O_DEFENDERS, O_NC, O_T, O_NS, O_F, O_BUF,
 O_BONUS2, O_EXTRA2) = range(13)
NI_OPTS = 13     # O_BUF: rows of the action buffer, a proven bound on one decision's options (action_rows)
# O_BONUS2 / O_EXTRA2: the second player's compensation on its first turn (ST-C1 / ST-C2)
# float options (fopt[i])
F_THRESHOLD, F_KEEP_THRESHOLD, F_PRIO_VALUE = 0, 1, 2
NF_OPTS = 3      # F_PRIO_VALUE: 1.0 when greedy dispatches by value per cost (dispatch_order = "value"), else 0.0
PT_LO, PT_HI = -30, 30           # success table covers modifiers PT_LO..PT_HI (clamped outside)

# The evaluation's hand-set position weights (evaluate.py's lead; the weight table's defaults, see
# eval_row): a card in hand counts W_HAND of its value (it still costs points and a turn to field),
# a unit next to the enemy keep W_ADVANCE, scaled down linearly with distance. W_HAND is a power of
# two, so a hand weight W_HAND * value is exact and a sum of them is W_HAND times the sum of values,
# bit for bit (the lead's sums keep their floating-point results with the table).
W_HAND = 0.5
W_ADVANCE = 8.0

MAX_DECK = 120                   # cards per side
MAX_SPACES = 64
MAX_TYPES = 32

# per-side, per-type statistics recorded (name, applies to units, applies to items)
STATS = (
    ("dispatched", True, True),
    ("attacks", True, False),
    ("successes", True, False),
    ("crit_fails", True, False),
    ("kills", True, True),
    ("losses", True, True),
    ("resurrections", True, False),
    ("items_recovered", False, True),
    ("snap", True, True),
    ("final", True, True),
)
S_DISP, S_ATT, S_SUCC, S_CRIT, S_KILL, S_LOSS, S_RES, S_REC, S_SNAP, S_FINAL = range(len(STATS))
NSTAT = len(STATS)
# per-side extras after the per-type block: cards left in deck, in hand, in graveyard
EXTRAS = ("deck_left", "hand_left", "grave")

CARD_KEYS = ("kind", "cost", "attack", "defense", "move", "range", "copies", "ability",
             "bonus", "roll", "value")
SPACE_KEYS = ("side", "kind", "level", "defense")


# ---------------------------------------------------------------------------
# table checks (each error names the entry)
def _int(value, key, lo=0, hi=None):
    if isinstance(value, bool) or not isinstance(value, int):
        raise ScenarioError(f"got {value!r}, expected an integer >= {lo}"
                            + (f" and <= {hi}" if hi is not None else ""), key=key)
    if value < lo or (hi is not None and value > hi):
        raise ScenarioError(f"{value!r} is out of range: expected an integer >= {lo}"
                            + (f" and <= {hi}" if hi is not None else ""), key=key)
    return value


def check_deck(name, value):
    if not isinstance(value, dict) or not value:
        raise ScenarioError("expected a non-empty table of card name -> card table", key=name)
    if len(value) > MAX_TYPES:
        raise ScenarioError(f"{len(value)} card types; at most {MAX_TYPES} allowed", key=name)
    out = {}
    for card, spec in value.items():
        key = f"{name}.{card}"
        if not card.replace("_", "").isalnum() or not card.islower():
            raise ScenarioError("card names must be lower_case words (letters, digits, '_')", key=key)
        if not isinstance(spec, dict):
            raise ScenarioError(f"expected a card table, got {spec!r}", key=key)
        for k in spec:
            if k not in CARD_KEYS:
                raise ScenarioError(f"unknown card field{_suggest(k, CARD_KEYS)}; allowed: "
                                    + ", ".join(CARD_KEYS), key=f"{key}.{k}")
        kind = spec.get("kind")
        if kind not in KINDS:
            raise ScenarioError(f"got {kind!r}, expected one of {', '.join(KINDS)}", key=f"{key}.kind")
        ability = spec.get("ability", "none")
        if ability not in ABILITIES:
            raise ScenarioError(f"unknown ability {ability!r}{_suggest(str(ability), ABILITIES)}; "
                                f"allowed: {', '.join(ABILITIES)}", key=f"{key}.ability")
        c = {"kind": kind, "ability": ability}
        for k, lo, hi, default in (("cost", 0, 99, None), ("attack", 0, 99, 0), ("defense", 0, 99, 0),
                                   ("move", 0, 9, 1), ("range", 0, 9, 0), ("copies", 0, MAX_DECK, None),
                                   ("bonus", 0, 99, 3), ("roll", 2, 12, 7)):
            if k not in spec:
                if default is None:
                    raise ScenarioError(f"missing '{k}' (an integer >= {lo})", key=f"{key}.{k}")
                c[k] = default
            else:
                c[k] = _int(spec[k], f"{key}.{k}", lo, hi)
        if "value" in spec:
            v = spec["value"]
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0:
                raise ScenarioError(f"got {v!r}, expected a number >= 0", key=f"{key}.value")
            c["value"] = float(v)
        if kind == "regular" and c["defense"] < 1:
            raise ScenarioError("a regular unit needs defense >= 1 (defense 0 makes it a support unit)",
                                key=f"{key}.defense")
        if kind == "support" and c["defense"] != 0:
            raise ScenarioError("a support unit has defense 0 (it dies when attacked, ST-3)",
                                key=f"{key}.defense")
        if kind == "item" and ability != "none":
            raise ScenarioError("items have no ability; expected 'none'", key=f"{key}.ability")
        if kind == "item" and (c["move"] != 1 and "move" in spec or c["range"] != 0):
            raise ScenarioError("items do not move or shoot", key=f"{key}.{'range' if c['range'] else 'move'}")
        if ability == "catapult" and c["range"] < 1:
            raise ScenarioError("a catapult needs range >= 1", key=f"{key}.range")
        out[card] = c
    return out


def _edge_pair(e, key):
    if isinstance(e, str) and e.count("-") == 1:
        a, b = (p.strip() for p in e.split("-"))
        return a, b
    # a list from TOML, or the (A, B) tuple a resolved board holds: a scenario derived from resolved rules
    # (with_overrides: values' ablation, --pair, sweep cells) is checked again
    if isinstance(e, (list, tuple)) and len(e) == 2 and all(isinstance(p, str) for p in e):
        return e[0], e[1]
    raise ScenarioError(f"got {e!r}, expected \"A-B\" or [\"A\", \"B\"] naming two spaces", key=key)


def check_board(name, value):
    if not isinstance(value, dict):
        raise ScenarioError("expected a table with 'spaces' and 'edges'", key=name)
    for k in value:
        if k not in ("spaces", "edges"):
            raise ScenarioError("unknown key; allowed: spaces, edges", key=f"{name}.{k}")
    spaces = value.get("spaces")
    if not isinstance(spaces, dict) or not spaces:
        raise ScenarioError("expected a non-empty table of space name -> space table", key=f"{name}.spaces")
    if len(spaces) > MAX_SPACES:
        raise ScenarioError(f"{len(spaces)} spaces; at most {MAX_SPACES} allowed", key=f"{name}.spaces")
    out_spaces = {}
    for sname, sp in spaces.items():
        key = f"{name}.spaces.{sname}"
        if "-" in sname or not sname:
            raise ScenarioError("space names may not contain '-'", key=key)
        if not isinstance(sp, dict):
            raise ScenarioError(f"expected a space table, got {sp!r}", key=key)
        for k in sp:
            if k not in SPACE_KEYS:
                raise ScenarioError(f"unknown space field{_suggest(k, SPACE_KEYS)}; allowed: "
                                    + ", ".join(SPACE_KEYS), key=f"{key}.{k}")
        side = sp.get("side")
        if side not in (-1, 0, 1) or isinstance(side, bool):
            raise ScenarioError(f"got {side!r}, expected 0, 1 or -1 (shared)", key=f"{key}.side")
        kind = sp.get("kind")
        if kind not in SPACE_KINDS:
            raise ScenarioError(f"got {kind!r}, expected one of {', '.join(SPACE_KINDS)}", key=f"{key}.kind")
        if kind in CASTLE_KINDS and side == -1:
            raise ScenarioError(f"a {kind} belongs to a side: expected side 0 or 1", key=f"{key}.side")
        level = _int(sp.get("level"), f"{key}.level", 0, 9)
        defense = _int(sp.get("defense", 0), f"{key}.defense", 0, 99)
        out_spaces[sname] = {"side": side, "kind": kind, "level": level, "defense": defense}
    edges = value.get("edges")
    if not isinstance(edges, list):
        raise ScenarioError("expected a list of edges \"A-B\"", key=f"{name}.edges")
    out_edges, seen = [], set()
    for i, e in enumerate(edges):
        key = f"{name}.edges[{i}]"
        a, b = _edge_pair(e, key)
        for p in (a, b):
            if p not in out_spaces:
                raise ScenarioError(f"no space named {p!r}{_suggest(p, out_spaces)}", key=key)
        if a == b:
            raise ScenarioError("an edge must join two different spaces", key=key)
        if frozenset((a, b)) in seen:
            raise ScenarioError(f"duplicate edge {a}-{b}", key=key)
        seen.add(frozenset((a, b)))
        out_edges.append((a, b))
    for s in (0, 1):
        keeps = [n for n, sp in out_spaces.items() if sp["side"] == s and sp["kind"] == "keep"]
        if len(keeps) != 1:
            raise ScenarioError(f"side {s} needs exactly one keep, found {len(keeps)}", key=f"{name}.spaces")
    # connected
    names = list(out_spaces)
    nb = {n: [] for n in names}
    for a, b in out_edges:
        nb[a].append(b)
        nb[b].append(a)
    seen_n, q = {names[0]}, deque([names[0]])
    while q:
        for m in nb[q.popleft()]:
            if m not in seen_n:
                seen_n.add(m)
                q.append(m)
    if len(seen_n) != len(names):
        cut = sorted(set(names) - seen_n)
        raise ScenarioError(f"the board is not connected: {', '.join(cut)} cannot be reached from "
                            f"{names[0]}", key=f"{name}.edges")
    return {"spaces": out_spaces, "edges": out_edges}


def check_priority(name, value):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ScenarioError("expected a list of card names", key=name)
    return list(value)


def check_removals(name, value):
    if not isinstance(value, dict):
        raise ScenarioError(f"expected a table of card name -> count, got {value!r}", key=name)
    for card, n in value.items():
        _int(n, f"{name}.{card}", 0)
    return dict(value)


# MCTS knobs (docs/games/storm_the_castle.md, "Search agent"): tuned so mcts:400 beats greedy
CAREFUL = ("none", "self", "both")     # mcts_careful (search.py: CAREFUL_*)
MCTS_DEFAULTS = {"c": 1.0, "rollout": "greedy", "cutoff": 3, "scale": 64.0, "prior_temp": 2.0, "fpu": 0.0,
                 "decisive": True}

OPTIONS = (
    Option("dispatch_points", "int", 4, "dispatch points per turn", min=0, max=99),
    Option("summoning_sickness", "bool", False, "ST-2: units put on the board this turn cannot act"),
    Option("melee_clears_stack", "bool", False,
           "ST-4: a Support unit left alone after a successful melee also dies"),
    Option("max_turns", "int", 80, "turn cap (both players together); draw at the cap", min=1, max=100000),
    Option("hand_size", "int", 5, "cards drawn at setup", min=0, max=MAX_DECK),
    Option("second_player_dispatch_bonus", "int", 0,
           "ST-C1: extra dispatch points on the second player's first turn (compensation for moving second)",
           min=0, max=99),
    Option("second_player_extra_cards", "int", 0,
           "ST-C2: extra cards the second player draws on its first turn (compensation for moving second)",
           min=0, max=MAX_DECK),
    # the greedy commander's knobs: how the policy plays, not rules of the game (policy_knob, so
    # `simkit sensitivity` and compensation searches leave them alone)
    Option("attack_threshold", "float", 0.15, "greedy: attack when P(success) >= this", min=0.0, max=1.0,
           policy_knob=True),
    Option("keep_attack_threshold", "float", 0.05,
           "greedy: attack a unit in the enemy keep when P(success) >= this", min=0.0, max=1.0,
           policy_knob=True),
    Option("defenders", "int", 1, "greedy: regular units kept in the own keep", min=0, max=MAX_DECK,
           policy_knob=True),
    Option("dispatch_order", "choice", "list", "greedy dispatch priority: 'list' (dispatch_priority) "
           "or 'value' (card value per dispatch cost)", choices=("list", "value"), policy_knob=True),
    Option("dispatch_priority", "table", [], "greedy: card names, most wanted first", check=check_priority,
           policy_knob=True),
    Option("board", "table", None, "the board graph: spaces and edges", check=check_board),
    Option("deck", "table", None, "the deck (each side gets one): card name -> card table", check=check_deck),
) + tuple(
    Option(f"remove_{s}", "table", {}, f"cards removed from side {s}'s deck (card name -> count)",
           check=check_removals)
    for s in (0, 1)
) + mcts_options(**MCTS_DEFAULTS) + (
    Option("mcts_keep_rounds", "float", 3.0, "MCTS evaluation: for how many rounds of turns each side's chance to "
           "take the other's keep is counted as lasting (the rest of the position scores by material)", min=0.0,
           max=100.0, policy_knob=True),
    Option("mcts_careful", "choice", "self", "MCTS rollouts: whose greedy play never takes the Regular unit out "
           "of its own keep (none, self = the searching side, both)", choices=CAREFUL, policy_knob=True),
)
# the game's own knobs after the engine's in each side's row of the knob table (search.MC_ROUNDS, MC_CAREFUL)
SEARCH_KNOBS = ("mcts_keep_rounds", "mcts_careful")
SEARCH_KNOB_OPTIONS = tuple(o for k in SEARCH_KNOBS for o in OPTIONS if o.name == k)


def _load_default():
    import tomllib
    from simkit.scenario.load import scenario_root
    p = scenario_root() / "storm_the_castle" / "default.toml"   # package data: works from a wheel
    with open(p, "rb") as f:
        d = tomllib.load(f)
    return check_board("board", d["board"]), check_deck("deck", d["deck"]), list(d["dispatch_priority"])


# the table defaults are the default scenario's (one source of truth)
# ST-1: its board links L1-L2 and L3-L4 but not L2-L3 (the whole graph is the `board` option)
DEFAULT_BOARD, DEFAULT_DECK, DEFAULT_PRIORITY = _load_default()
_TABLE_DEFAULTS = {"board": DEFAULT_BOARD, "deck": DEFAULT_DECK, "dispatch_priority": DEFAULT_PRIORITY}
# (dataclasses.replace keeps every other field, policy_knob included)
OPTIONS = tuple(dataclasses.replace(o, default=_TABLE_DEFAULTS.get(o.name, o.default)) for o in OPTIONS)


def validate(rules):
    """Cross-key checks (run after each option's own check)."""
    deck = rules["deck"]
    for s in (0, 1):
        key = f"remove_{s}"
        for card, n in rules[key].items():
            if card not in deck:
                raise ScenarioError(f"unknown card '{card}'{_suggest(card, deck)}; allowed: "
                                    + ", ".join(deck), key=f"{key}.{card}")
            if n > deck[card]["copies"]:
                raise ScenarioError(f"cannot remove {n}: the deck has {deck[card]['copies']}",
                                    key=f"{key}.{card}")
        size = sum(c["copies"] for c in deck.values()) - sum(rules[key].values())
        if not 1 <= size <= MAX_DECK:
            raise ScenarioError(f"side {s}'s deck has {size} cards; allowed 1 to {MAX_DECK}",
                                key="deck" if size > MAX_DECK or not rules[key] else key)
    for i, card in enumerate(rules["dispatch_priority"]):
        if card not in deck:
            raise ScenarioError(f"unknown card '{card}'{_suggest(card, deck)}; allowed: " + ", ".join(deck),
                                key=f"dispatch_priority[{i}]")


# ---------------------------------------------------------------------------
class Params(NamedTuple):
    ctab: np.ndarray      # int64 [T, NT_COLS]   card types
    cval: np.ndarray      # float64 [T]          hand-set value of a card (wt's default; the kernels read wt)
    copies: np.ndarray    # int64 [2, T]         deck composition per side
    spi: np.ndarray       # int64 [NS, NX_COLS]  spaces
    adj: np.ndarray       # int64 [NS, MD]       neighbours, -1 padded
    dist: np.ndarray      # int64 [NS, NS]       shortest path lengths (edges)
    keep: np.ndarray      # int64 [2]            keep space per side
    iopt: np.ndarray      # int64 [NI_OPTS]
    fopt: np.ndarray      # float64 [NF_OPTS]
    ptable: np.ndarray    # float64 [PT_HI-PT_LO+1]  exact P(success) by modifier
    prio: np.ndarray      # float64 [T]          greedy dispatch priority score
    fidx: np.ndarray      # int64 [2, T, NSTAT]  record column of each stat (-1 = not recorded)
    eidx: np.ndarray      # int64 [2, 3]         record columns of deck_left/hand_left/grave
    names: tuple          # card type names
    spnames: tuple        # space names
    mparams: np.ndarray   # float64 [2, MC_N + 2] each side's MCTS knobs (policies.mcts_params), MC_ROUNDS, MC_CAREFUL
    wt: np.ndarray        # float64 [2, 2T + 1] each side's evaluation weights (eval_row; GameSpec.eval_slot)


# The weight table (issue 23, simkit learn): one row per side, the evaluation's terms a designer would want
# fitted, in this order (eval_feature_names): each card type's value on the board (greedy's cval: a unit, or
# an item under one), each card type's value in hand (W_HAND of it), then the weight of closeness to the
# enemy keep (W_ADVANCE). Readers index a row: w[t], w[T + t], w[2 * T] (T = ctab.shape[0]).
def eval_feature_names(names) -> tuple[str, ...]:
    return (tuple(f"material:{n}" for n in names) + tuple(f"hand:{n}" for n in names) + ("advance",))


def eval_row(cval) -> np.ndarray:
    """The hand-set row of a deck with card values ``cval``."""
    cval = np.asarray(cval, np.float64)
    return np.concatenate([cval, W_HAND * cval, [W_ADVANCE]])


def default_value(c):
    if "value" in c:
        return c["value"]
    v = c["attack"] + c["defense"] + c["range"] + max(c["move"] - 1, 0)
    if c["ability"] in ("cleric", "sorcerer"):
        v += c["bonus"]
    if c["ability"] == "blacksmith":
        v += 1
    return float(max(v, 0.5))


def record_columns(names, kinds):
    """What each record column counts (the spec's columns) for a deck of these card names and
    kinds, and where the kernel writes each card stat (fidx) and side extra (eidx)."""
    cols = list(BASE_COLUMNS)
    fidx = -np.ones((2, len(names), NSTAT), np.int64)
    eidx = np.zeros((2, len(EXTRAS)), np.int64)
    for s in (0, 1):
        for t, (n, k) in enumerate(zip(names, kinds)):
            for j, (stat, units, items) in enumerate(STATS):
                if (items if k == K_ITEM else units):
                    fidx[s, t, j] = len(cols)
                    cols.append(Column(f"{stat}_{s}_{n}", stat, side=s, unit=n))
        for j, e in enumerate(EXTRAS):
            eidx[s, j] = len(cols)
            cols.append(Column(f"{e}_{s}", e, side=s))
    return tuple(cols), fidx, eidx


def record_fields(names, kinds):
    cols, fidx, eidx = record_columns(names, kinds)
    return column_names(cols), fidx, eidx


def action_rows(ctab, copies, spi) -> int:
    """An upper bound on the options of any one decision (moves.gen_dispatch_nb/gen_actions_nb),
    so the action buffer (this many rows) can never overflow. Each term counts what one
    generator loop can add at most:

    - dispatch: 'end', then per card type in hand either one option per space (an item goes
      onto at most one own regular per space) or one per own castle space (a unit);
    - actions: 'end', then per own unit on the board (at most ``copies`` of each type):
      the BFS visits every other space once, giving a move or (melee) up to 2 targets
      (2 only for an Assassin, which may pick either card); a ranged unit adds up to 2
      targets per other space; a special adds 1 (Cleric, Sorcerer) or one per item type
      (Blacksmith).
    """
    NS = spi.shape[0]
    other = NS - 1
    items = int((ctab[:, T_KIND] == K_ITEM).sum())
    rows = 1
    for s in (0, 1):
        castle = int((spi[:, X_CASTLE] == s).sum())
        disp = 1 + sum(NS if ctab[t, T_KIND] == K_ITEM else castle
                       for t in range(ctab.shape[0]) if copies[s, t] > 0)
        act = 1
        for t in range(ctab.shape[0]):
            if ctab[t, T_KIND] == K_ITEM or copies[s, t] == 0:
                continue
            per_space = 2 if ctab[t, T_AB] == AB_ASSASSIN else 1
            u = 0
            if ctab[t, T_MOVE] > 0:
                u += other * (per_space if ctab[t, T_RANGE] == 0 and ctab[t, T_ATT] > 0 else 1)
            if ctab[t, T_RANGE] > 0 and ctab[t, T_ATT] > 0:
                u += other * per_space
            u += {AB_CLERIC: 1, AB_SORC: 1, AB_SMITH: items}.get(int(ctab[t, T_AB]), 0)
            act += int(copies[s, t]) * u
        rows = max(rows, disp, act)
    return rows


def prepare(rules) -> Params:
    deck, board = rules["deck"], rules["board"]
    names = tuple(deck)
    T = len(names)
    order = sorted(names)  # alphabetical stacking of two supports: lower rank on top
    ctab = np.zeros((T, NT_COLS), np.int64)
    cval = np.zeros(T, np.float64)
    copies = np.zeros((2, T), np.int64)
    for t, n in enumerate(names):
        c = deck[n]
        ctab[t] = (KINDS.index(c["kind"]), c["cost"], c["attack"], c["defense"], c["move"], c["range"],
                   ABILITIES.index(c["ability"]), c["bonus"], c["roll"], order.index(n))
        cval[t] = default_value(c)
        for s in (0, 1):
            copies[s, t] = c["copies"] - rules[f"remove_{s}"].get(n, 0)
    spnames = tuple(board["spaces"])
    NS = len(spnames)
    spi = np.zeros((NS, NX_COLS), np.int64)
    for x, n in enumerate(spnames):
        sp = board["spaces"][n]
        spi[x] = (sp["side"], SPACE_KINDS.index(sp["kind"]), sp["level"], sp["defense"],
                  sp["side"] if sp["kind"] in CASTLE_KINDS else -1)
    nbrs = [[] for _ in range(NS)]
    for a, b in board["edges"]:
        ia, ib = spnames.index(a), spnames.index(b)
        nbrs[ia].append(ib)
        nbrs[ib].append(ia)
    md = max(1, max(len(v) for v in nbrs))
    adj = -np.ones((NS, md), np.int64)
    for x, v in enumerate(nbrs):
        adj[x, :len(v)] = sorted(v)
    dist = np.full((NS, NS), 10**6, np.int64)
    for x in range(NS):
        dist[x, x] = 0
        q = deque([x])
        while q:
            u = q.popleft()
            for w in nbrs[u]:
                if dist[x, w] > dist[x, u] + 1:
                    dist[x, w] = dist[x, u] + 1
                    q.append(w)
    keep = np.array([next(i for i in range(NS) if spi[i, X_SIDE] == s and spi[i, X_KIND] == 0)
                     for s in (0, 1)], np.int64)
    nc = int(copies.sum(axis=1).max())
    # Record columns follow this scenario's deck: every card, one added under a new name too,
    # has its own block (the run's spec has the same layout: SPEC.for_rules -> record_fields_for)
    fields, fidx, eidx = record_fields(names, ctab[:, T_KIND])
    iopt = np.array([rules["dispatch_points"], int(rules["summoning_sickness"]),
                     int(rules["melee_clears_stack"]), rules["max_turns"], rules["hand_size"],
                     rules["defenders"], nc, T, NS, len(fields), action_rows(ctab, copies, spi),
                     rules["second_player_dispatch_bonus"], rules["second_player_extra_cards"]], np.int64)
    fopt = np.array([rules["attack_threshold"], rules["keep_attack_threshold"],
                     1.0 if rules["dispatch_order"] == "value" else 0.0], np.float64)
    from simkit.engine.dice import storm_success_array   # jitted module: not needed to list the options
    ptable = storm_success_array(PT_LO, PT_HI).astype(np.float64)
    prio = np.zeros(T, np.float64)
    if rules["dispatch_order"] == "list":
        plist = rules["dispatch_priority"]
        for t, n in enumerate(names):
            prio[t] = (len(plist) - plist.index(n) + 1) if n in plist else 1.0 / (t + 2)
    else:
        # the hand-set values' order; greedy computes it from its own row (policies.greedy_choose_nb,
        # fopt[F_PRIO_VALUE]), so a side with learned card values dispatches by them
        for t in range(T):
            prio[t] = cval[t] / max(ctab[t, T_COST], 0.25)
    wt = np.tile(eval_row(cval), (2, 1))
    return Params(ctab, cval, copies, spi, adj, dist, keep, iopt, fopt, ptable, prio, fidx, eidx,
                  names, spnames, mcts_params(rules, SEARCH_KNOB_OPTIONS), wt)


def fields_for(params: Params) -> tuple[str, ...]:
    """The record columns of a run with these params: one block per card of its deck."""
    return record_fields(params.names, params.ctab[:, T_KIND])[0]


def deck_cards(rules) -> tuple[tuple[str, int], ...]:
    """(card name, kind index) of a validated rule dict's deck: all the record layout depends on."""
    return tuple((n, KINDS.index(c["kind"])) for n, c in rules["deck"].items())


def record_fields_for(rules) -> tuple[str, ...]:
    """The record columns of a scenario with these rules (== fields_for(prepare(rules)))."""
    return column_names(record_columns_for(rules))


def record_columns_for(rules) -> tuple[Column, ...]:
    """What each record column of a scenario with these rules counts (its spec's columns)."""
    cards = deck_cards(rules)
    return record_columns(tuple(n for n, _ in cards), [k for _, k in cards])[0]


RECORD_FIELDS = record_fields_for({"deck": DEFAULT_DECK})   # the default deck's (SPEC.record_fields)
