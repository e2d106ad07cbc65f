"""Warfare! text board and the ``play`` trace (a replay of the kernel's own log)."""
from __future__ import annotations

from .state import ANGLES, END_REASONS, FACE_CHARS, IP_H, IP_N0, IP_N1, IP_W, LETTERS, POLICIES, UNITS

OUTCOMES = {0: "defender dies", 1: "attacker dies", 2: "archer misses (survives)"}


def sq_name(sq: int, w: int) -> str:
    return f"({sq % w},{sq // w})"


def unit_name(u: int, utype, uside) -> str:
    return f"{UNITS[utype[u]]}#{u}/{uside[u]}"


def board_text(params, usq, uface, utype, uside) -> str:
    """Side 0 upper-case (C S I A), side 1 lower-case, facing ^ > v <; trees T; y grows upwards."""
    ip, tree = params[0], params[1]
    w, h = int(ip[IP_W]), int(ip[IP_H])
    cells = {}
    for u in range(len(usq)):
        if usq[u] >= 0:
            ch = LETTERS[utype[u]]
            cells[int(usq[u])] = (ch if uside[u] == 0 else ch.lower()) + FACE_CHARS[uface[u]]
    lines = []
    for y in range(h - 1, -1, -1):
        row = []
        for x in range(w):
            sq = y * w + x
            if sq in cells:
                row.append(cells[sq] + ("*" if tree[sq] else " "))
            else:
                row.append("T  " if tree[sq] else ".  ")
        lines.append(f"{y:>2} " + "".join(row).rstrip())
    lines.append("   " + "".join(f"{x:<3}" for x in range(w)).rstrip())
    return "\n".join(lines)


def policy_label(policies, p: int) -> str:
    """Side p's policy name from the kernels' policy vector (a bare pair of ids also works)."""
    from simkit.policies import EPS_SCALE, MCTS, POL_BUDGET, POL_EPS
    name = POLICIES[int(policies[p])]
    if name == MCTS:
        name = f"{MCTS}:{int(policies[POL_BUDGET + p])}" if len(policies) > POL_BUDGET + p else MCTS
    if len(policies) > POL_EPS + p and int(policies[POL_EPS + p]) > 0:
        name = f"eps:{int(policies[POL_EPS + p]) / EPS_SCALE:g}:{name}"
    return name


def army_types(params):
    ip, army = params[0], params[2]
    n0, n1 = int(ip[IP_N0]), int(ip[IP_N1])
    utype = [int(army[0, k]) for k in range(n0)] + [int(army[1, k]) for k in range(n1)]
    uside = [0] * n0 + [1] * n1
    return utype, uside


def play(params, seed, game, first, policies, snapshot_ply=-1) -> str:
    """Text trace of one game: the board at the start of every turn and every activation."""
    from .play import play_one
    rec, log, boards, _ = play_one(params, seed, game, first, policies, snapshot_ply)
    utype, uside = army_types(params)
    w = int(params[0][IP_W])
    pol = [policy_label(policies, p) for p in (0, 1)]
    out = [f"Warfare!  seed {seed}  game {game}  first player {first}  policies {pol[0]} vs {pol[1]}",
           "side 0 upper-case (bottom), side 1 lower-case (top); C cavalry S spearman I infantry A archer;",
           "facing ^ > v <; T tree (* = unit on a tree)", ""]
    rows_by_turn: dict[int, list] = {}
    for r in log:
        rows_by_turn.setdefault(int(r[0]), []).append(r)
    turns = int(rec[2])
    for t in range(turns):
        b = boards[t] if t < len(boards) else None
        player = first if t % 2 == 0 else 1 - first
        acts = rows_by_turn.get(t, [])
        phase = "phase 2" if t < 2 else "phase 3"
        out.append(f"--- turn {t + 1} ({phase}), player {player} ---")
        if b is not None:
            out.append(board_text(params, b[:, 0], b[:, 1], utype, uside))
        for r in acts:
            (_, p, u, frm, to, f, tgt, tsq, res, ang, adv, sk, rolled) = (int(x) for x in r)
            if u < 0:
                out.append(f"  player {p} has no legal action: pass")
                continue
            what = "stays" if frm == to else f"{sq_name(frm, w)} -> {sq_name(to, w)}"
            line = f"  {unit_name(u, utype, uside)} {what}, faces {FACE_CHARS[f]}"
            if tgt >= 0:
                line += (f"; attacks {unit_name(tgt, utype, uside)} at {sq_name(tsq, w)} "
                         f"({ANGLES[ang]}{', rolled' if rolled else ''}): {OUTCOMES[res]}")
                if adv:
                    line += ", advances"
            if sk:
                line += f"; {sk} unit(s) die surrounded"
            out.append(line)
    out.append("--- end ---")
    if len(boards) > turns:
        out.append(board_text(params, boards[turns][:, 0], boards[turns][:, 1], utype, uside))
    winner = int(rec[1])
    out.append(f"result: {'draw' if winner < 0 else f'player {winner} wins'} "
               f"({END_REASONS[int(rec[3])]}, {turns} turns)")
    return "\n".join(out)
