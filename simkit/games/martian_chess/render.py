"""Text board and move-by-move trace for `simkit play martian_chess`."""
from simkit.games.martian_chess.moves import apply_move_nb
from simkit.games.martian_chess.play import play_one
from simkit.games.martian_chess.state import END_REASONS, R_KOMI, UNITS, name_of, new_meta

SYMBOL = ".pdq"


def board_text(board) -> str:
    """Rank 8 at the top; player 1's pieces (its zone) upper case, player 0's lower case."""
    lines = []
    for row in range(7, -1, -1):
        cells = []
        for col in range(4):
            c = row * 4 + col
            s = SYMBOL[board[c]]
            cells.append(s.upper() if c >= 16 else s)
        lines.append(f"  {row + 1}  {' '.join(cells)}")
        if row == 4:
            lines.append("     ~~~~~~~  canal")
    lines.append("     a b c d")
    return "\n".join(lines)


def move_text(board, mv, mover) -> str:
    """The move in the rules' words: a capture names the piece taken and its pips (the mover's
    points), a merge names the field promotion (MC-2), a canal crossing the piece's new owner."""
    s, t = divmod(int(mv), 32)
    v, w = board[s], board[t]
    crosses = t // 16 != s // 16
    sep = "x" if w and crosses else "-"
    text = f"{UNITS[v - 1]} {name_of(s)}{sep}{name_of(t)}"
    if w and sep == "-":
        text += f" (field promotion: {UNITS[v - 1]} + {UNITS[w - 1]} -> {UNITS[v + w - 1]})"
    elif w:
        text += f" (captures {UNITS[w - 1]}: +{w} to player {mover}; the {UNITS[v - 1]} now belongs to " \
                f"player {1 - mover})"
    elif crosses:
        text += f" (crosses the canal: now player {1 - mover}'s)"
    return text


def play(params, seed, game, first, policies, variant=None) -> str:
    from simkit.games.martian_chess.moves import start_turn_nb
    from simkit.games.martian_chess.state import POLICIES
    from simkit.games.martian_chess.state import M_CALLED, M_CLOCK, R_CLOCK_PLIES, R_DEADLOCK_PLIES
    from simkit.games.trace import header
    init_board, rays, rules = params[:3]
    rec, log = play_one(params, seed, game, first, policies)
    board = init_board.copy()
    meta = new_meta(first, board, int(rules[R_KOMI]))
    komi = f", komi {rules[R_KOMI] / 2:g} to player {1 - first} (MC-C1)" if rules[R_KOMI] else ""
    out = header("Martian Chess", "martian_chess", seed, game, first, POLICIES, policies, variant)
    out += [f"player {first} moves first{komi}",
            "(player 0's zone is ranks 1-4, lower case; player 1's is ranks 5-8, upper case; a player "
            "controls the pieces in its own zone)",
            board_text(board)]
    for ply, mv in enumerate(log):
        called = int(meta[M_CALLED])
        start_turn_nb(meta, rules)
        if meta[M_CALLED] and not called:
            out.append(f"\nplayer {int(meta[0])} leads and calls the clock (MC-4 leader)")
        p = int(meta[0])
        out.append(f"\nply {ply + 1}: player {p} {move_text(board, mv, p)}")
        called = int(meta[M_CALLED])
        apply_move_nb(board, meta, rules, mv)
        line = f"score {meta[2]}-{meta[3]}"
        if meta[M_CALLED] and not called:
            line += f"; the clock is called ({int(rules[R_DEADLOCK_PLIES])} plies without a capture, MC-4)"
        elif meta[M_CALLED]:
            line += f"; clock {int(meta[M_CLOCK])}/{int(rules[R_CLOCK_PLIES])} quiet plies"
        out.append(line)
        out.append(board_text(board))
    w = int(rec[1])
    result = "draw" if w < 0 else f"player {w} wins"
    out.append(f"captures: player 0 {rec[6]}, player 1 {rec[7]}; field promotions: player 0 {rec[8]}, "
               f"player 1 {rec[9]}")
    out.append(f"\n{result} ({END_REASONS[rec[3]]}) after {rec[2]} plies, score {rec[4]}-{rec[5]}{komi}")
    return "\n".join(out)
