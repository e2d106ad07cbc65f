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
from simkit.games.skorm.layout import POLICIES

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
    """The action in the rules' words; a shot or capture names the piece that dies."""
    if code < 0:
        return f"side {mover} passes (no action)"
    typ, a, t = code >> 16, (code >> 8) & 255, code & 255
    who = UNITS[(int(before_cell[a]) - 1) & 3]
    victim = int(before_cell[t])
    if typ == 1:
        return (f"side {mover} archer {cell_name(params, a)} shoots the {UNITS[(victim - 1) & 3]} at "
                f"{cell_name(params, t)}: side {1 - mover}'s {UNITS[(victim - 1) & 3]} dies")
    text = f"side {mover} {who} {cell_name(params, a)} -> {cell_name(params, t)}"
    if victim:
        text += f" captures: side {1 - mover}'s {UNITS[(victim - 1) & 3]} dies"
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
    from simkit.games.trace import policy_label as label
    return label(POLICIES, pv, p)


def play(params, seed, game, first, policies, variant=None) -> str:
    """The text trace of one game, exactly as the batch kernel plays it.

    The kernel's log holds each ply's action and the position after it; the
    trace replays the actions on a step-API game (simkit.games.skorm.play.Game)
    to read what the log does not hold: how many captures and shots the shield
    rule (SK-6) forbade the mover (the defender's ``shield_blocks``), and the
    Gold Tile's state (SK-7). The replay must reach every logged position.
    """
    from simkit.games.skorm.play import Game
    from simkit.games.skorm.rules import I_GOLD_IMM, I_GOLD_ON
    from simkit.games.skorm.state import SC_PENDING, SC_WL0
    from simkit.games.trace import header
    N = int(params[P_I][I_N])
    gold = int(params[P_I][I_GOLD])
    log, rec = run_logged(params, seed, game, first, policies)
    pv = policy_array(policies)
    out = header("Skorm", "skorm", seed, game, first, POLICIES, pv, variant)
    out += ["side 0 upper case (top), side 1 lower case; S shieldman + facing digit, A archer, H horseman, "
            "W warlord, * gold tile", LEGEND, ""]
    placed = [r for r in log if r[0] == 0]
    order = ", ".join(f"{piece_name(int(r[3 + int(r[1])]))}@{cell_name(params, int(r[1]))}"
                      for r in placed[1:])
    out.append(f"placement (warlords on their corners, then in turn): {order}")
    prev = placed[-1]
    out.append(board_text(params, prev[3:3 + N], prev[3 + N:]))
    g = Game(params, seed, game, first)
    if not np.array_equal(g.cell, prev[3:3 + N]):
        raise AssertionError("skorm trace replay: placement differs from the played game")
    ply = 0
    blocked = [0, 0]
    for r in log:
        if r[0] == 0:
            continue
        ply += 1
        code, mover = int(r[1]), int(r[2])
        out.append("")
        g.face[:] = prev[3 + N:]
        g.legal_actions()                            # counts what the shield rule forbids, as the kernel does
        nblk = int(g.blocks[0])
        blocked[1 - mover] += nblk
        line = f"ply {ply}: " + describe(params, code, prev[3:3 + N], mover)
        cell, face = r[3:3 + N], r[3 + N:]
        turned = [f"{cell_name(params, c)}->{int(face[c])}" for c in range(N)
                  if cell[c] == 1 + 4 * mover and prev[3 + c] == cell[c] and face[c] != prev[3 + N + c]]
        if code >= 0 and (code >> 16) == 0 and cell[code & 255] == 1 + 4 * mover:
            turned.append(f"lands facing {int(face[code & 255])}")
        if turned:
            line += "; shields: " + ", ".join(turned)
        if nblk:
            line += (f"; side {1 - mover}'s shields block {nblk} of side {mover}'s captures/shots (SK-6)")
        pending = int(g.sc[SC_PENDING])
        g.apply(code, int(face[code & 255]) if code >= 0 and (code >> 16) == 0 else -1)
        g.face[:] = face                            # start-of-turn rotations (SK-4) are in the log, not the code
        if not np.array_equal(g.cell, cell):
            raise AssertionError(f"skorm trace replay diverged from the played game at ply {ply}")
        if params[P_I][I_GOLD_ON] == 1:
            if g.done and g.end_reason == "gold_tile_immediate":
                line += (f"; side {mover}'s warlord ends the turn on the Gold Tile and side {1 - mover} has "
                         f"at most {int(params[P_I][I_GOLD_IMM])} pieces besides its warlord: immediate win (SK-7)")
            elif g.done and g.end_reason == "gold_tile":
                line += f"; side {1 - mover}'s warlord survived a turn on the Gold Tile: side {1 - mover} wins (SK-7)"
            elif int(g.sc[SC_PENDING]) == mover and pending != mover and int(g.sc[SC_WL0 + mover]) == gold:
                line += (f"; side {mover}'s warlord ends the turn on the Gold Tile: side {mover} wins if it "
                         f"survives side {1 - mover}'s next turn (SK-7)")
        if g.done and g.end_reason == "warlord_killed":
            line += f"; side {mover} killed the enemy warlord"
        out.append(line)
        out.append(board_text(params, cell, face))
        prev = r
    fields = dict(zip(RECORD_FIELDS, (int(x) for x in rec)))
    w = fields["winner"]
    result = "draw" if w < 0 else f"player {w} wins"
    out.append("")
    out.append(f"shield blocks (captures and shots the shield rule forbade the opponent): side 0 {blocked[0]}, "
               f"side 1 {blocked[1]}")
    out.append(f"result: {result} ({END_REASONS[fields['end_reason']]}) after {fields['plies']} plies")
    return "\n".join(out)
