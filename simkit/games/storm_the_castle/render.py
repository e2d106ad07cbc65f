"""Storm the Castle: text board and the readable turn log (``simkit play``).

The trace is the game the batch kernel plays: ``play_game_nb`` runs once with a
log, then the log is replayed in Python on a step-API ``Game`` (injecting the
logged rolls) to show the board after every turn. The replay also reads what
the log does not hold: each attack's modifier taken apart (attack, item,
Sorcerer, terrain against defense, space, item, Cleric), and what an action did
to the board, by comparing it before and after — every unit that died (the
target, a Support unit cleared with it, the attacker on a critical failure),
every melee advance (ST-G) and the Keep it may take.

Cards are named by their type and owner (``0:knight``: side 0's Knight); copies
of one type are interchangeable, so no card number is shown.
"""
import numpy as np

from simkit.engine.dice import STORM_CRIT_FAIL, STORM_CRIT_SUCCESS, STORM_FAIL, STORM_SUCCESS
from simkit.games.storm_the_castle.moves import OUT_AUTO, OUT_SPECIAL_OK, modifier_nb
from simkit.games.storm_the_castle.play import Game, kernel_args, play_game_nb, policy_array, search_scratch
from simkit.games.storm_the_castle.rules import (AB_CLERIC, K_REG, T_AB, T_ATT, T_BONUS, T_DEF, T_KIND, T_RANGE,
                                                 X_DEF, X_LEVEL, Params)
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_MOVE, ACT_SMITH,
                                                 ACT_SORC, C_BUFF, C_ITEM, C_OWNER, C_POS, C_TYPE, C_ZONE, END_REASONS,
                                                 EV_DRAW, EV_END, EV_TURN, G_OVER, G_REASON, G_SIDE, G_TURN,
                                                 G_WINNER, L_DECK, L_GRAVE, L_HAND, LOG_COLS, R_KEEP, Z_BOARD,
                                                 Z_EQUIP, Z_GRAVE)

RESULT = {STORM_FAIL: "fail", STORM_SUCCESS: "success", STORM_CRIT_FAIL: "CRITICAL FAIL",
          STORM_CRIT_SUCCESS: "critical success", OUT_AUTO: "success (support unit, no roll)"}


def card_name(game: Game, c: int) -> str:
    c = int(c)
    return f"{game.cards[c, C_OWNER]}:{game.p.names[game.cards[c, C_TYPE]]}"


def with_item(game: Game, c: int) -> str:
    it = game.cards[c, C_ITEM]
    return card_name(game, c) + (f"+{game.p.names[game.cards[it, C_TYPE]]}" if it >= 0 else "")


LEVELS = ("low", "mid", "high")


def modifier_parts(game: Game, a: int, b: int):
    """(attack parts, defense parts) of ``a`` attacking ``b``: lists of (label, value) whose sums
    differ by exactly ``modifier_nb`` (RULES §3 Attacks: terrain, space, items, Cleric, Sorcerer)."""
    p, cards = game.p, game.cards
    x, y = cards[a, C_POS], cards[b, C_POS]
    ta, tb = cards[a, C_TYPE], cards[b, C_TYPE]
    att = [(p.names[ta], int(p.ctab[ta, T_ATT]))]
    if cards[a, C_BUFF]:
        att.append(("sorcerer", int(cards[a, C_BUFF])))
    it = cards[a, C_ITEM]
    if it >= 0 and p.ctab[cards[it, C_TYPE], T_ATT]:
        att.append((p.names[cards[it, C_TYPE]], int(p.ctab[cards[it, C_TYPE], T_ATT])))
    lx, ly = int(p.spi[x, X_LEVEL]), int(p.spi[y, X_LEVEL])
    if lx != ly:
        att.append((f"terrain {LEVELS[lx] if lx < 3 else lx} vs {LEVELS[ly] if ly < 3 else ly}", lx - ly))
    dfn = [(p.names[tb], int(p.ctab[tb, T_DEF]))]
    if p.spi[y, X_DEF]:
        dfn.append((p.spnames[y], int(p.spi[y, X_DEF])))
    it = cards[b, C_ITEM]
    if it >= 0 and p.ctab[cards[it, C_TYPE], T_DEF]:
        dfn.append((p.names[cards[it, C_TYPE]], int(p.ctab[cards[it, C_TYPE], T_DEF])))
    if p.ctab[tb, T_KIND] == K_REG:
        for j in range(2):
            o = game.sp[y, j]
            if o >= 0 and o != b and p.ctab[cards[o, C_TYPE], T_AB] == AB_CLERIC:
                dfn.append(("cleric", int(p.ctab[cards[o, C_TYPE], T_BONUS])))
    return att, dfn


def parts_text(parts) -> str:
    first, rest = parts[0], parts[1:]
    return f"{first[1]} {first[0]}" + "".join(f" {v:+d} {k}" for k, v in rest) + f" = {sum(v for _, v in parts)}"


def _where(game: Game):
    """Every card's (zone, space) now: what an action changed is the difference."""
    return [(int(game.cards[c, C_ZONE]), int(game.cards[c, C_POS])) for c in range(game.cards.shape[0])]


def consequences(game: Game, before, actor: int, over_before: bool, attack: bool = True) -> list[str]:
    """What the action just applied did to the board: deaths, the melee advance (``attack``), the Keep."""
    p = game.p
    out = []
    for c, (zone, _) in enumerate(before):
        if zone == Z_BOARD and game.cards[c, C_ZONE] == Z_GRAVE:
            who = "the attacker " if c == actor else ""
            out.append(f"{who}{card_name(game, c)} dies (to its graveyard)")
        elif zone == Z_EQUIP and game.cards[c, C_ZONE] == Z_GRAVE:
            out.append(f"its {p.names[game.cards[c, C_TYPE]]} goes to the graveyard under it (ST-5)")
    zone, pos = before[actor]
    if attack and zone == Z_BOARD and game.cards[actor, C_ZONE] == Z_BOARD and game.cards[actor, C_POS] != pos:
        out.append(f"{card_name(game, actor)} advances {p.spnames[pos]} -> {p.spnames[game.cards[actor, C_POS]]}")
    if not over_before and game.g[G_OVER] and game.g[G_REASON] == R_KEEP:
        out.append(f"side {game.g[G_WINNER]} takes the enemy Keep")
    return out


def graveyard_text(game: Game, s: int) -> str:
    n = game.zn[s, L_GRAVE]
    names = [game.p.names[game.cards[game.zones[s, L_GRAVE, i], C_TYPE]] for i in range(n)]
    return "empty" if not names else ", ".join(names) + " (top last)"


def board_text(game: Game, viewer: int | None = None) -> str:
    """Spaces grouped by distance from side 0's keep, one row per distance; ``viewer``: the hands as that
    side sees them (the opponent's is only its size)."""
    p = game.p
    rows = {}
    k0 = int(p.keep[0])
    for x in range(len(p.spnames)):
        rows.setdefault(int(p.dist[k0, x]), []).append(x)
    lines = []
    for d in sorted(rows):
        cells = []
        for x in rows[d]:
            stack = []
            for j in range(2):
                c = game.sp[x, j]
                if c >= 0:
                    stack.append(with_item(game, c))
            cells.append(f"{p.spnames[x]}[{' / '.join(stack)}]" if stack else f"{p.spnames[x]}[ ]")
        lines.append("  " + "  ".join(cells))
    for s in (0, 1):
        hand = (f"{game.zn[s, L_HAND]} cards (hidden)" if viewer is not None and s != viewer
                else ", ".join(p.names[game.cards[game.zones[s, L_HAND, i], C_TYPE]]
                               for i in range(game.zn[s, L_HAND])) or "-")
        lines.append(f"  side {s}: deck {game.zn[s, L_DECK]}, hand {hand}; graveyard: {graveyard_text(game, s)}")
    return "\n".join(lines)


def policy_label(policies, s) -> str:
    """Side ``s``'s policy as a user writes it (mcts:N, eps:P:INNER) from the policy vector."""
    from simkit.games.storm_the_castle.state import POLICIES
    from simkit.games.trace import policy_label as label
    return label(POLICIES, policy_array(policies), s)


def run_logged(params, seed, game, first, policies, max_log=200000):
    p = Params(*params) if not isinstance(params, Params) else params
    g = Game(p, seed, game, first)
    log = np.zeros((max_log, LOG_COLS), np.int32)
    pv = policy_array(policies)
    nl = play_game_nb(*kernel_args(p), np.int64(seed), np.int64(game), np.int64(first),
                      pv, np.int64(-1), g.cards, g.sp, g.zones, g.zn, g.g, g.seen,
                      g.bq, g.bd, g.buf, g.role, g.rng, g.rec, g.agg, log, search_scratch(p, pv),
                      np.zeros(0, np.float64), np.zeros((0, 2), np.int64))
    return p, g, log[:nl]


def play_text(params, seed, game, first, policies, variant=None) -> str:
    from simkit.games.storm_the_castle.state import POLICIES
    from simkit.games.trace import header
    p, played, log = run_logged(params, seed, game, first, policies)
    out = header("Storm the Castle", "storm_the_castle", seed, game, first, POLICIES, policy_array(policies),
                 variant)
    out.append("cards: owner:type (0:knight is side 0's Knight), +item under a unit; spaces: name[top / under]")
    g = Game(p, seed, game, first)
    out.append("setup: each side shuffles its deck and draws; board:")
    out.append(board_text(g))
    started = False
    for kind, a, b, tag, roll, res in log.tolist():
        if kind == EV_TURN:
            if started:
                out.append(board_text(g))
            started = True
            g.g[G_SIDE] = b
            g.g[G_TURN] = a          # the draw and the points depend on the turn (ST-C1, ST-C2)
            g.begin_turn()
            out.append(f"\n== turn {a + 1}: side {b} ==")
            continue
        if kind == EV_DRAW:
            out.append(f"  draws {card_name(g, a)}")
            continue
        if kind == EV_END:
            out.append(board_text(g))
            why = END_REASONS[b] if b >= 0 else "?"
            out.append(f"\nresult: {'draw' if a < 0 else f'player {a} wins'} ({why}) after {tag} turns")
            continue
        s = int(a) // g.nc
        if kind == ACT_DISPATCH:
            tgt = (f"onto {p.spnames[b]}" if p.ctab[g.cards[a, C_TYPE], 0] != 2
                   else f"equipped to {card_name(g, b)} on {p.spnames[g.cards[b, C_POS]]}")
            out.append(f"  dispatch {card_name(g, a)} {tgt}")
        elif kind == ACT_MOVE:
            out.append(f"  move {card_name(g, a)} {p.spnames[g.cards[a, C_POS]]} -> {p.spnames[b]}")
        elif kind == ACT_ATTACK:
            x, y = g.cards[a, C_POS], g.cards[b, C_POS]
            mod = modifier_nb(g.cards, g.sp, p.ctab, p.spi, a, b, 0)
            ranged = p.ctab[g.cards[a, C_TYPE], T_RANGE] > 0
            txt = (f"  {'shoot' if ranged else 'attack'} {with_item(g, a)} ({p.spnames[x]}) -> "
                   f"{with_item(g, b)} ({p.spnames[y]})")
            if res == OUT_AUTO:
                txt += ": " + RESULT[res]
            else:
                att, dfn = modifier_parts(g, a, b)
                if sum(v for _, v in att) - sum(v for _, v in dfn) != mod:
                    raise AssertionError("storm_the_castle trace: modifier parts do not add up")
                txt += (f": attack {parts_text(att)} vs defense {parts_text(dfn)}: modifier {mod:+d}, "
                        f"needs 2d6 <= {3 + mod}, rolls {roll}: {RESULT[res]}")
            out.append(txt)
        elif kind == ACT_CLERIC:
            out.append(f"  {card_name(g, a)} prays (needs {p.ctab[g.cards[a, C_TYPE], 8]}), rolls {roll}: "
                       + ("resurrects " + card_name(g, g.zones[s, L_GRAVE, g.zn[s, L_GRAVE] - 1])
                          if res == OUT_SPECIAL_OK else "nothing"))
        elif kind == ACT_SMITH:
            out.append(f"  {card_name(g, a)} forges {card_name(g, b)} (needs {p.ctab[g.cards[a, C_TYPE], 8]}),"
                       f" rolls {roll}: " + ("back to hand" if res == OUT_SPECIAL_OK else "nothing"))
        elif kind == ACT_SORC:
            out.append(f"  {card_name(g, a)} empowers {card_name(g, b)} (+{p.ctab[g.cards[a, C_TYPE], 7]} A)")
        before, over = _where(g), bool(g.g[G_OVER])
        g.apply((kind, a, b), roll if roll >= 2 else -1)
        out += [f"    {c}" for c in consequences(g, before, int(a), over, kind == ACT_ATTACK)]
    # the replay must end in the very position the kernel reached
    if not (np.array_equal(g.sp, played.sp) and np.array_equal(g.zn, played.zn)
            and np.array_equal(g.zones, played.zones)):
        raise AssertionError("storm_the_castle trace replay diverged from the played game")
    return "\n".join(out)
