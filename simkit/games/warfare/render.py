"""Warfare! text board and the ``play`` trace (a replay of the kernel's own log).

The kernel logs each activation (unit, move, facing, target, outcome, angle,
advance, surround count) and the board at the start of every turn. The trace
follows the units from one turn's board through the activations and checks it
reaches the next turn's board, which names what the log only counts: the units
a surround kills (WF-6). Each attack says which step of the combat order
(RULES §4) decided it and, for an opposed roll, every modifier with its reason
and the attacker's exact chance.
"""
from __future__ import annotations

from simkit.games.warfare.state import (ANGLES, ARC, ATT_DIES, CAV, DEF_DIES, DIAG, DXA, DYA, END_REASONS,
                                        FACE_CHARS, FLANK, FRONT, INF, IP_H, IP_MCAVFIRE, IP_MCHARGE, IP_MINFFRONT,
                                        IP_MSPEAR, IP_MTREE, IP_N0, IP_N1, IP_W, LETTERS, POLICIES, SPE, UNITS)

OUTCOMES = {0: "defender dies", 1: "attacker dies", 2: "archer misses (survives)"}


def sq_name(sq: int, w: int) -> str:
    return f"({sq % w},{sq // w})"


def unit_name(u: int, utype, uside) -> str:
    """``0:cavalry``: side 0's Cavalry (a unit's square is shown beside it where it matters)."""
    return f"{uside[u]}:{UNITS[utype[u]]}"


def combat_parts(at: int, dt: int, ang: int, ranged: bool, dtree: int, ip):
    """How RULES §4 decides this attack: (step, attacker parts, defender parts), parts being
    (reason, value) lists; step names the rule for an outright kill, or is None for an opposed roll.
    Mirrors moves.combat_kind_nb step by step, with the reasons written out."""
    if not ranged and dt == ARC:
        return "melee against an archer: the archer dies (rule 1)", [], []
    if not ranged and ang == FRONT:
        if at == CAV and dt == SPE:
            return "cavalry charges a spearman's front: the cavalry dies (rule 2)", [], []
        if at == SPE and dt == CAV:
            return "spearman strikes a cavalry's front: the cavalry dies (rule 2)", [], []
    if ang == FLANK and not (at == ARC and dt == CAV):
        return "flank attack: the defender dies (rule 3)", [], []
    am, dm = [], []
    if ang != DIAG:                     # WF-4: a diagonal-front attack uses terrain only
        if at == CAV and dt == INF and ang == FRONT:
            am.append(("cavalry charges infantry's front", int(ip[IP_MCHARGE])))
        if at == ARC and dt == CAV:
            dm.append(("cavalry shot by archers", int(ip[IP_MCAVFIRE])))
        if at == ARC and dt == INF and ang == FRONT:
            dm.append(("infantry shot from the front", int(ip[IP_MINFFRONT])))
        if at == SPE and dt == INF:
            am.append(("spearmen fighting infantry", int(ip[IP_MSPEAR])))
        if at == INF and dt == SPE:
            dm.append(("spearmen fighting infantry", int(ip[IP_MSPEAR])))
    if dtree and (at == ARC or at == CAV):
        dm.append(("on a tree against " + ("archer fire" if at == ARC else "a cavalry charge"), int(ip[IP_MTREE])))
    return None, [p for p in am if p[1]], [p for p in dm if p[1]]


def _mods(parts) -> str:
    if not parts:
        return "+0"
    return " ".join(f"{v:+d} ({why})" for why, v in parts) + (f" = {sum(v for _, v in parts):+d}"
                                                                if len(parts) > 1 else "")


def _surrounded(active, ip, usq, uside, nu):
    """WF-6 as moves.surround_nb plays it: the non-active side first, each death at once."""
    W, H = int(ip[IP_W]), int(ip[IP_H])
    occ = {int(usq[u]): u for u in range(nu) if usq[u] >= 0}
    dead = []
    for side in (1 - active, active):
        for u in range(nu):
            if uside[u] != side or usq[u] < 0:
                continue
            x, y = int(usq[u]) % W, int(usq[u]) // W
            c = 0
            for f in range(4):
                nx, ny = x + int(DXA[f]), y + int(DYA[f])
                o = occ.get(ny * W + nx) if 0 <= nx < W and 0 <= ny < H else None
                if o is not None and uside[o] != side:
                    c += 1
            if c >= 3:
                del occ[int(usq[u])]
                usq[u] = -1
                dead.append(u)
        if not any(usq[v] >= 0 for v in range(nu) if uside[v] == side):
            break
    return dead


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
    from simkit.games.trace import policy_label as label
    return label(POLICIES, policies, p)


def army_types(params):
    ip, army = params[0], params[2]
    n0, n1 = int(ip[IP_N0]), int(ip[IP_N1])
    utype = [int(army[0, k]) for k in range(n0)] + [int(army[1, k]) for k in range(n1)]
    uside = [0] * n0 + [1] * n1
    return utype, uside


def play(params, seed, game, first, policies, snapshot_ply=-1, variant=None) -> str:
    """Text trace of one game: the board at the start of every turn and every activation."""
    from fractions import Fraction

    from simkit.engine.dice import warfare_distribution
    from simkit.games.trace import header
    from simkit.games.warfare.moves import combat_kind_nb
    from simkit.games.warfare.play import play_one
    rec, log, boards, _ = play_one(params, seed, game, first, policies, snapshot_ply)
    utype, uside = army_types(params)
    ip, tree = params[0], params[1]
    w = int(ip[IP_W])
    nu = len(utype)
    out = header("Warfare!", "warfare", seed, game, first, POLICIES, policies, variant)
    out += ["side 0 upper-case (bottom), side 1 lower-case (top); C cavalry S spearman I infantry A archer;",
            "facing ^ > v <; T tree (* = unit on a tree); units named side:type, squares (x,y)", ""]
    rows_by_turn: dict[int, list] = {}
    for r in log:
        rows_by_turn.setdefault(int(r[0]), []).append(r)
    turns = int(rec[2])
    usq = [int(x) for x in boards[0][:, 0]] if len(boards) else [-1] * nu
    deaths = [0, 0]
    for t in range(turns):
        b = boards[t] if t < len(boards) else None
        if b is not None and [int(x) for x in b[:, 0]] != usq:
            raise AssertionError(f"warfare trace replay diverged from the played game at turn {t + 1}")
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
            who = unit_name(u, utype, uside)
            if frm == to:
                what = f"stays at {sq_name(frm, w)}"
            else:
                other = next((v for v in range(nu) if v != u and usq[v] == to), None)
                what = f"{sq_name(frm, w)} -> {sq_name(to, w)}"
                if other is not None:
                    what += f" (swaps with {unit_name(other, utype, uside)})"
                    usq[other] = frm
            usq[u] = to
            line = f"  {who} {what}, faces {FACE_CHARS[f]}"
            if tgt >= 0:
                ranged = utype[u] == ARC
                step, am, dm = combat_parts(utype[u], utype[tgt], ang, ranged, int(tree[tsq]), ip)
                kind, kam, kdm = combat_kind_nb.py_func(utype[u], utype[tgt], ang, ranged, int(tree[tsq]), ip)
                if (step is None) != (kind == 2) or sum(v for _, v in am) != kam or sum(v for _, v in dm) != kdm:
                    raise AssertionError("warfare trace: combat parts disagree with combat_kind_nb")
                line += (f"; {'shoots' if ranged else 'attacks'} {unit_name(tgt, utype, uside)} at "
                         f"{sq_name(tsq, w)} ({ANGLES[ang]})")
                if step is not None:
                    line += f": {step}"
                else:
                    pw = warfare_distribution(int(kam), int(kdm))["attacker_wins"]
                    line += (f": opposed d6, attacker {_mods(am)} vs defender {_mods(dm)} "
                             f"(attacker wins {Fraction(pw).numerator}/{Fraction(pw).denominator}, ties rolled "
                             f"again): {'attacker wins' if res == DEF_DIES else 'defender wins'}")
                if res == DEF_DIES:
                    line += f"; {unit_name(tgt, utype, uside)} dies"
                    usq[tgt] = -1
                    deaths[uside[tgt]] += 1
                elif res == ATT_DIES:
                    line += f"; the attacker {who} dies"
                    usq[u] = -1
                    deaths[uside[u]] += 1
                else:
                    line += "; the archer misses and survives"
                if adv:
                    line += f"; {who} advances to {sq_name(tsq, w)} (WF-5)"
                    usq[u] = tsq
            dead = _surrounded(p, ip, usq, uside, nu) if sk else []
            if len(dead) != sk:
                raise AssertionError("warfare trace: surround deaths disagree with the kernel's count")
            if dead:
                names = ", ".join(f"{unit_name(v, utype, uside)}" for v in dead)
                line += f"; surrounded by 3+ enemies, {names} die{'s' if len(dead) == 1 else ''} (WF-6)"
                for v in dead:
                    deaths[uside[v]] += 1
            out.append(line)
    out.append("--- end ---")
    if len(boards) > turns and [int(x) for x in boards[turns][:, 0]] != usq:
        raise AssertionError("warfare trace replay diverged from the played game at its end")
    if len(boards) > turns:
        out.append(board_text(params, boards[turns][:, 0], boards[turns][:, 1], utype, uside))
    out.append(f"units lost: side 0 {deaths[0]}, side 1 {deaths[1]}")
    winner = int(rec[1])
    out.append(f"result: {'draw' if winner < 0 else f'player {winner} wins'} "
               f"({END_REASONS[int(rec[3])]}, {turns} turns)")
    return "\n".join(out)
