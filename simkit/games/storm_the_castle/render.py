"""Storm the Castle: text board and the readable turn log (``simkit play``).

The trace is the game the batch kernel plays: ``play_game_nb`` runs once with a
log, then the log is replayed in Python on a step-API ``Game`` (injecting the
logged rolls) to show the board after every turn.
"""
import numpy as np

from simkit.engine.dice import STORM_CRIT_FAIL, STORM_CRIT_SUCCESS, STORM_FAIL, STORM_SUCCESS
from simkit.games.storm_the_castle.moves import OUT_AUTO, OUT_SPECIAL_OK, modifier_nb
from simkit.games.storm_the_castle.play import Game, kernel_args, play_game_nb, policy_array, search_scratch
from simkit.games.storm_the_castle.rules import Params
from simkit.games.storm_the_castle.state import (ACT_ATTACK, ACT_CLERIC, ACT_DISPATCH, ACT_MOVE, ACT_SMITH,
                                                 ACT_SORC, C_ITEM, C_POS, C_TYPE, END_REASONS,
                                                 EV_DRAW, EV_END, EV_TURN, G_SIDE, G_TURN, L_DECK, L_GRAVE, L_HAND,
                                                 LOG_COLS)

RESULT = {STORM_FAIL: "fail", STORM_SUCCESS: "success", STORM_CRIT_FAIL: "CRITICAL FAIL",
          STORM_CRIT_SUCCESS: "critical success", OUT_AUTO: "success (support unit, no roll)"}


def card_name(game: Game, c: int) -> str:
    c = int(c)
    s = c // game.nc
    return f"{game.p.names[game.cards[c, C_TYPE]]}#{c - s * game.nc}.{s}"


def board_text(game: Game) -> str:
    """Spaces grouped by distance from side 0's keep, one row per distance."""
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
                    txt = card_name(game, c)
                    it = game.cards[c, C_ITEM]
                    if it >= 0:
                        txt += "+" + p.names[game.cards[it, C_TYPE]]
                    stack.append(txt)
            cells.append(f"{p.spnames[x]}[{' / '.join(stack)}]" if stack else f"{p.spnames[x]}[ ]")
        lines.append("  " + "  ".join(cells))
    for s in (0, 1):
        lines.append(f"  side {s}: deck {game.zn[s, L_DECK]}, hand "
                     + (", ".join(p.names[game.cards[game.zones[s, L_HAND, i], C_TYPE]]
                                  for i in range(game.zn[s, L_HAND])) or "-")
                     + f", graveyard {game.zn[s, L_GRAVE]}")
    return "\n".join(lines)


def policy_label(policies, s) -> str:
    """Side ``s``'s policy as a user writes it (mcts:N, eps:P:INNER) from the policy vector."""
    from simkit.games.storm_the_castle.policies import POLICIES
    from simkit.policies import EPS_SCALE, MCTS, POL_BUDGET, POL_EPS, POL_ID
    pv = policy_array(policies)
    name = POLICIES[pv[POL_ID + s]]
    if name == MCTS:
        name = f"{MCTS}:{pv[POL_BUDGET + s]}"
    if pv[POL_EPS + s] > 0:
        name = f"eps:{pv[POL_EPS + s] / EPS_SCALE:g}:{name}"
    return name


def run_logged(params, seed, game, first, policies, max_log=200000):
    p = Params(*params) if not isinstance(params, Params) else params
    g = Game(p, seed, game, first)
    log = np.zeros((max_log, LOG_COLS), np.int32)
    pv = policy_array(policies)
    ti, tf, ws = search_scratch(p, pv)
    nl = play_game_nb(*kernel_args(p), np.int64(seed), np.int64(game), np.int64(first),
                      pv, np.int64(-1), g.cards, g.sp, g.zones, g.zn, g.g, g.seen,
                      g.bq, g.bd, g.buf, g.role, g.rng, g.rec, g.agg, log, ti, tf, ws,
                      np.zeros(0, np.float64), np.zeros((0, 2), np.int64))
    return p, g, log[:nl]


def play_text(params, seed, game, first, policies) -> str:
    p, played, log = run_logged(params, seed, game, first, policies)
    out = [f"Storm the Castle — seed {seed}, game {game}, first player {first}, "
           f"policies {policy_label(policies, 0)} (side 0) vs {policy_label(policies, 1)} (side 1)"]
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
            txt = (f"  attack {card_name(g, a)} ({p.spnames[x]}) -> {card_name(g, b)} ({p.spnames[y]})")
            if res == OUT_AUTO:
                txt += ": " + RESULT[res]
            else:
                txt += f": modifier {mod:+d}, needs <= {3 + mod}, rolls {roll}: {RESULT[res]}"
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
        g.apply((kind, a, b), roll if roll >= 2 else -1)
    # the replay must end in the very position the kernel reached
    if not (np.array_equal(g.sp, played.sp) and np.array_equal(g.zn, played.zn)
            and np.array_equal(g.zones, played.zones)):
        raise AssertionError("storm_the_castle trace replay diverged from the played game")
    return "\n".join(out)
