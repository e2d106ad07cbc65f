"""Skorm text board and the ``play`` trace.

The board is drawn pointy-top, row ``r`` per line (side 0's corner ``(0,-R)``
on top). Side 0's pieces are upper case, side 1's lower case: ``S`` Shieldman
(followed by its facing digit), ``A`` Archer, ``H`` Horseman, ``W`` Warlord;
``*`` is the empty Gold Tile, ``.`` an empty cell. Facing digits: 0 = east
(+q), 1 = north-east, 2 = north-west (-r), 3 = west, 4 = south-west, 5 =
south-east (+r).
"""
from __future__ import annotations

import numpy as np

from simkit.games.skorm.play import no_trace, policy_array, run_one, RECORD_FIELDS
from simkit.games.skorm.rules import I_GOLD, I_N, I_P, P_CQ, P_CR, P_I, UNITS
from simkit.games.skorm.state import END_REASONS, LOG_W_EXTRA
from simkit.games.skorm.policies import POLICIES
from simkit.policies import POL_BUDGET, POL_EPS, POL_ID, EPS_SCALE, MCTS

LETTERS = "SAHW"
FACING_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
LEGEND = "shield facing: " + " ".join(f"{d}={n}" for d, n in enumerate(FACING_NAMES))


def cell_name(params, c: int) -> str:
    return f"({int(params[P_CQ][c])},{int(params[P_CR][c])})"


def piece_name(code: int) -> str:
    side, kind = (code - 1) >> 2, (code - 1) & 3
    return f"{side}:{UNITS[kind]}"


def board_text(params, cell, face) -> str:
    cq, cr = params[P_CQ], params[P_CR]
    gold = int(params[P_I][I_GOLD])
    R = int(max(cr))
    rows = {}
    for c in range(len(cq)):
        code = int(cell[c])
        if code == 0:
            tok = "*" if c == gold else "."
        else:
            side, kind = (code - 1) >> 2, (code - 1) & 3
            ch = LETTERS[kind] if side == 0 else LETTERS[kind].lower()
            tok = ch + (str(int(face[c])) if kind == 0 else "")
        rows.setdefault(int(cr[c]), []).append((int(cq[c]), tok))
    lines = []
    for r in range(-R, R + 1):
        cells = sorted(rows[r])
        line = " " * (2 * abs(r)) + "".join(f"{tok:<4}" for _, tok in cells)
        lines.append(f"r={r:+d} " + line.rstrip())
    return "\n".join(lines)


def describe(params, code: int, before_cell, mover: int) -> str:
    if code < 0:
        return f"side {mover} passes"
    typ, a, t = code >> 16, (code >> 8) & 255, code & 255
    who = UNITS[(int(before_cell[a]) - 1) & 3]
    victim = int(before_cell[t])
    if typ == 1:
        return (f"side {mover} archer {cell_name(params, a)} shoots "
                f"{UNITS[(victim - 1) & 3]} at {cell_name(params, t)}")
    text = f"side {mover} {who} {cell_name(params, a)} -> {cell_name(params, t)}"
    if victim:
        text += f" captures {UNITS[(victim - 1) & 3]}"
    return text


def run_logged(params, seed, game, first, policies, snapshot_ply=0):
    ip = params[P_I]
    N, P = int(ip[I_N]), int(ip[I_P])
    from simkit.games.skorm.rules import I_MAX_PLIES
    rows = 2 * P + 2 + int(ip[I_MAX_PLIES]) + 2
    log = np.zeros((rows, LOG_W_EXTRA + 2 * N), np.int64)
    rec, li = run_one(params, seed, game, first, policies, snapshot_ply, log, *no_trace(params)[1:])
    return log[:li], rec


def policy_label(pv, p) -> str:
    """Side ``p``'s policy as a designer writes it (mcts:N, eps:P:INNER)."""
    name = POLICIES[int(pv[POL_ID + p])]
    if name == MCTS:
        name = f"{MCTS}:{int(pv[POL_BUDGET + p])}"
    if pv[POL_EPS + p] > 0:
        name = f"eps:{pv[POL_EPS + p] / EPS_SCALE:g}:{name}"
    return name


def play(params, seed, game, first, policies) -> str:
    """The text trace of one game, exactly as the batch kernel plays it."""
    N = int(params[P_I][I_N])
    log, rec = run_logged(params, seed, game, first, policies)
    pv = policy_array(policies)
    pol = [policy_label(pv, p) for p in (0, 1)]
    out = [f"Skorm: seed {seed} game {game}; side 0 = {pol[0]}, side 1 = {pol[1]}; side {first} moves first",
           "side 0 upper case (top), side 1 lower case; S shieldman + facing digit, A archer, H horseman, "
           "W warlord, * gold tile", LEGEND, ""]
    placed = [r for r in log if r[0] == 0]
    order = ", ".join(f"{piece_name(int(r[3 + int(r[1])]))}@{cell_name(params, int(r[1]))}"
                      for r in placed[1:])
    out.append(f"placement (warlords on their corners, then in turn): {order}")
    prev = placed[-1]
    out.append(board_text(params, prev[3:3 + N], prev[3 + N:]))
    ply = 0
    for r in log:
        if r[0] == 0:
            continue
        ply += 1
        code, mover = int(r[1]), int(r[2])
        out.append("")
        line = f"ply {ply}: " + describe(params, code, prev[3:3 + N], mover)
        cell, face = r[3:3 + N], r[3 + N:]
        turned = [f"{cell_name(params, c)}->{int(face[c])}" for c in range(N)
                  if cell[c] == 1 + 4 * mover and prev[3 + c] == cell[c] and face[c] != prev[3 + N + c]]
        if code >= 0 and (code >> 16) == 0 and cell[code & 255] == 1 + 4 * mover:
            turned.append(f"lands facing {int(face[code & 255])}")
        if turned:
            line += "; shields: " + ", ".join(turned)
        out.append(line)
        out.append(board_text(params, cell, face))
        prev = r
    fields = dict(zip(RECORD_FIELDS, (int(x) for x in rec)))
    w = fields["winner"]
    result = "draw" if w < 0 else f"player {w} wins"
    out.append("")
    out.append(f"result: {result} ({END_REASONS[fields['end_reason']]}) after {fields['plies']} plies")
    return "\n".join(out)
