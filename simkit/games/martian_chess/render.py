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


def move_text(board, mv) -> str:
    s, t = divmod(int(mv), 32)
    v, w = board[s], board[t]
    sep = "x" if w and t // 16 != s // 16 else "-"
    text = f"{UNITS[v - 1]} {name_of(s)}{sep}{name_of(t)}"
    if w and sep == "-":
        text += f" (promotes to {UNITS[v + w - 1]})"
    elif w:
        text += f" (captures {UNITS[w - 1]}, +{w})"
    return text


def play(params, seed, game, first, policies) -> str:
    init_board, rays, rules = params[:3]
    rec, log = play_one(params, seed, game, first, policies)
    board = init_board.copy()
    meta = new_meta(first, board, int(rules[R_KOMI]))
    komi = f", komi {rules[R_KOMI] / 2:g} to player {1 - first} (MC-C1)" if rules[R_KOMI] else ""
    out = [f"Martian Chess, game {game} of seed {seed}: player {first} moves first{komi}",
           "(player 0's zone is ranks 1-4, lower case; player 1's is ranks 5-8, upper case)",
           board_text(board)]
    for ply, mv in enumerate(log):
        p = int(meta[0])
        out.append(f"\nply {ply + 1}: player {p} {move_text(board, mv)}")
        apply_move_nb(board, meta, rules, mv)
        out.append(f"score {meta[2]}-{meta[3]}")
        out.append(board_text(board))
    w = int(rec[1])
    result = "draw" if w < 0 else f"player {w} wins"
    out.append(f"\n{result} ({END_REASONS[rec[3]]}) after {rec[2]} plies, score {rec[4]}-{rec[5]}{komi}")
    return "\n".join(out)
