"""Martian Chess state layout.

The board is 32 cells, ``cell = row * 4 + col`` (row 0 is rank 1, col 0 is file a)::

    rank 8  28 29 30 31   \
    rank 7  24 25 26 27    | player 1's zone (cells 16-31)
    rank 6  20 21 22 23    |
    rank 5  16 17 18 19   /
            ~~~~~~~~~~~   the canal
    rank 4  12 13 14 15   \
    rank 3   8  9 10 11    | player 0's zone (cells 0-15)
    rank 2   4  5  6  7    |
    rank 1   0  1  2  3   /
             a  b  c  d

``board[cell]`` holds the piece's pips (0 empty, 1 pawn, 2 drone, 3 queen). Pieces
have no owner: a player controls whatever stands in its zone, so ownership is the
cell's zone. Everything else lives in ``meta`` (int32, indexes below), including one
32-bit mask per piece kind (bit ``cell``): the move generator works on those
(docs/games/martian_chess.md, "Speed"), the board is the square-to-piece index.

A move is ``from * 32 + to``.
"""
import numpy as np

from simkit.games.base import BASE_COLUMNS, column_names, per_side, per_side_unit

NCELLS = 32
ZONE = 16  # cells per zone; zone(cell) = cell // 16
MAX_MOVES = 256  # 18 pieces at most in a zone, a queen has at most 13 targets

# meta fields
M_TO_MOVE = 0
M_PLY = 1
M_SCORE = 2      # 2 and 3: scores of players 0 and 1
M_LAST_FROM = 4  # opponent's last canal crossing (MC-3), -1 if none
M_LAST_TO = 5
M_QUIET = 6      # consecutive plies without a capture
M_CALLED = 7     # clock called (MC-4)
M_CLOCK = 8      # plies without a capture since the call / latest capture after it
M_WINNER = 9     # -1 draw (when ended)
M_END = 10       # end reason index, -1 while the game goes on
M_PIPS = 11      # 11 and 12: pips standing in zones 0 and 1 (kept incrementally)
M_KOMI = 13      # 13 and 14: MC-C1 komi credited to players 0 and 1, in half pips (the second player's)
M_BITS = 15      # 15, 16, 17: bitboards of the pawns, drones, queens (bit = cell; int32 bit patterns,
                 # read them with bits_of_nb); kept by apply_move_nb, derived from the board by new_meta
NMETA = 18

END_REASONS = ("territory_empty", "clock", "move_limit", "stalemate")
END_TERRITORY, END_CLOCK, END_LIMIT, END_STALEMATE = range(4)

# rules array (int64)
R_FIELD_PROMOTION = 0
R_CLOCK_MODE = 1
R_DEADLOCK_PLIES = 2
R_CLOCK_PLIES = 3
R_MAX_PLIES = 4
R_KOMI = 5       # MC-C1: komi in half pips (2 x the `komi` option)
R_POINTS = 6     # 6, 7, 8: what capturing a pawn, a drone, a queen scores (the `points` option; RULES: its pips)
NRULES = 9
CLOCK_MODES = ("deadlock", "leader", "off")
CLOCK_DEADLOCK, CLOCK_LEADER, CLOCK_OFF = range(3)

UNITS = ("pawn", "drone", "queen")  # pips 1, 2, 3

# MC-1: player 0's layout, in removal order for handicaps (last listed goes first).
LAYOUT0 = {"queen": ("d1", "c1", "d2"), "drone": ("b1", "c2", "d3"), "pawn": ("b2", "c3", "b3")}


def cell_of(name: str) -> int:
    return (int(name[1]) - 1) * 4 + "abcd".index(name[0])


def name_of(cell: int) -> str:
    return "abcd"[cell % 4] + str(cell // 4 + 1)


def rotate(cell: int) -> int:
    """The 180-degree rotation: player 1's layout mirrors player 0's."""
    return NCELLS - 1 - cell


def initial_board(remove0: dict, remove1: dict) -> np.ndarray:
    board = np.zeros(NCELLS, dtype=np.int8)
    for side, removed in ((0, remove0), (1, remove1)):
        for unit, cells in LAYOUT0.items():
            keep = len(cells) - removed.get(unit, 0)
            for name in cells[:max(keep, 0)]:
                c = cell_of(name)
                board[c if side == 0 else rotate(c)] = UNITS.index(unit) + 1
    return board


def build_rays() -> np.ndarray:
    """rays[cell, dir, k]: the k+1-th cell along dir, -1 off the board.

    Directions 0-3 orthogonal, 4-7 diagonal (pawns use 4-7, drones 0-3, queens all).
    """
    dirs = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
    rays = -np.ones((NCELLS, 8, 7), dtype=np.int8)
    for c in range(NCELLS):
        r0, c0 = divmod(c, 4)
        for d, (dr, dc) in enumerate(dirs):
            for k in range(7):
                r, cc = r0 + dr * (k + 1), c0 + dc * (k + 1)
                if not (0 <= r < 8 and 0 <= cc < 4):
                    break
                rays[c, d, k] = r * 4 + cc
    return rays


# build_tables() columns (row = the piece's cell; row 32 is all zero):
#   T_RAY + d   the full ray of direction d (state.build_rays order)
#   T_STEP + d  the first cell along d;  T_STEP2 + d (d < 4) the second along an orthogonal d
#   T_PAWN      a pawn's four diagonal steps
#   T_QREL_F / T_QREL_R  the cells whose occupancy decides a queen's reach along its file /
#               along its rank and diagonals (each ray without its last cell): at most 6 each
#   T_DREL      the drone's first steps that have a second step behind them (at most 4)
#   T_QATT_F + i, T_QATT_R + i, T_DATT + i: the reach (first blocker included) for the i-th
#               occupancy of those cells, i = the occupied cells packed in cell order (PEXT)
#   T_ORD_P / T_ORD_D / T_ORD_Q + k: the k-th cell a pawn / drone / queen may reach, in move-list order
T_RAY = 0
T_STEP = 8
T_STEP2 = 16
T_PAWN = 20
T_QREL_F = 21
T_QREL_R = 22
T_DREL = 23
T_QATT_F = 24
T_QATT_R = T_QATT_F + 64
T_DATT = T_QATT_R + 64
T_ORD_P = T_DATT + 16   # the cells a pawn / drone / queen on the row's cell may reach, in move-list order
T_ORD_D = T_ORD_P + 4   # (direction, then distance), padded with 32, a cell no mask has
T_ORD_Q = T_ORD_D + 8
NTABLE = T_ORD_Q + 16
ZONE_MASK = (0x0000FFFF, 0xFFFF0000)   # cells a player controls, by zone


def _reach(rays, c, dirs, limit, occupied) -> int:
    """Cells reached from c along ``dirs`` up to ``limit`` steps, stopping on an occupied one."""
    out = 0
    for d in dirs:
        for k in range(limit):
            t = int(rays[c, d, k])
            if t < 0:
                break
            out |= 1 << t
            if occupied >> t & 1:
                break
    return out


def _subsets(mask: int):
    """(index, subset) for every subset of mask's cells, index = the subset packed in cell order."""
    cells = [c for c in range(NCELLS) if mask >> c & 1]
    for i in range(1 << len(cells)):
        yield i, sum(1 << cells[b] for b in range(len(cells)) if i >> b & 1)


def build_tables() -> np.ndarray:
    """Bitboard move tables (int64 masks) from the rays: see the T_* columns."""
    rays = build_rays()
    tab = np.zeros((NCELLS + 1, NTABLE), dtype=np.int64)
    for c in range(NCELLS):
        for d in range(8):
            for k in range(7):
                t = int(rays[c, d, k])
                if t < 0:
                    break
                tab[c, T_RAY + d] |= 1 << t
                if k == 0:
                    tab[c, T_STEP + d] = 1 << t
                elif k == 1 and d < 4:
                    tab[c, T_STEP2 + d] = 1 << t
        tab[c, T_PAWN] = tab[c, T_STEP + 4] | tab[c, T_STEP + 5] | tab[c, T_STEP + 6] | tab[c, T_STEP + 7]
        for rel_col, att_col, dirs, limit in ((T_QREL_F, T_QATT_F, (0, 1), 7),
                                              (T_QREL_R, T_QATT_R, (2, 3, 4, 5, 6, 7), 7),
                                              (T_DREL, T_DATT, (0, 1, 2, 3), 2)):
            rel = 0
            for d in dirs:
                ray = [int(t) for t in rays[c, d, :limit] if t >= 0]
                rel |= sum(1 << t for t in ray[:-1])   # the last cell blocks nothing behind it
            tab[c, rel_col] = rel
            for i, occupied in _subsets(rel):
                tab[c, att_col + i] = _reach(rays, c, dirs, limit, occupied)
        for col, dirs, limit in ((T_ORD_P, (4, 5, 6, 7), 1), (T_ORD_D, (0, 1, 2, 3), 2), (T_ORD_Q, range(8), 7)):
            order = [int(t) for d in dirs for t in rays[c, d, :limit] if t >= 0]
            tab[c, col:col + len(order)] = order
            tab[c, col + len(order):col + {T_ORD_P: 4, T_ORD_D: 8, T_ORD_Q: 16}[col]] = NCELLS
    assert max(bin(int(tab[c, T_QREL_F])).count("1") for c in range(NCELLS)) <= 6
    assert max(bin(int(tab[c, T_QREL_R])).count("1") for c in range(NCELLS)) <= 6
    return tab


def bitboards(board: np.ndarray):
    """(pawns, drones, queens) masks of ``board``."""
    return tuple(sum(1 << c for c in range(NCELLS) if board[c] == pips) for pips in (1, 2, 3))


def new_meta(first: int, board: np.ndarray, komi_half: int = 0) -> np.ndarray:
    """Meta of a position with ``board``, ``first`` to move, nothing else happened yet.

    ``komi_half``: the MC-C1 komi in half pips, credited to the player who moves second.
    """
    meta = np.zeros(NMETA, dtype=np.int32)
    meta[M_TO_MOVE] = first
    meta[M_KOMI + 1 - first] = komi_half
    meta[M_PIPS] = int(board[:16].sum())
    meta[M_PIPS + 1] = int(board[16:].sum())
    meta[M_LAST_FROM] = meta[M_LAST_TO] = -1
    meta[M_END] = -1
    meta[M_WINNER] = -1
    for k, mask in enumerate(bitboards(board)):
        meta[M_BITS + k] = mask - (1 << 32) if mask >= 1 << 31 else mask   # the int32 bit pattern
    return meta


# record layout (names in RECORD_FIELDS below; here, not in play.py, so the spec needs no numba)
F_FIRST, F_WINNER, F_PLIES, F_END = 0, 1, 2, 3
F_SCORE = 4      # score_0, score_1
F_CAPTURES = 6   # captures_0, captures_1
F_PROMOS = 8     # promotions_0, promotions_1
F_KILLS = 10     # kills_<side>_<unit>: side * 3 + pips - 1
F_LOSSES = 16
F_SNAP = 22
F_FINAL = 28
NFIELDS = 34
# trajectory value of a finished game won by side 0 (minus: by side 1; a draw is 0): far beyond
# any evaluation (36 pips in all), so the winner's chance is 1 once the game is over
TERMINAL_LEAD = 1000.0


# score_<s> is a player's captured pips, its points (RULES.md §2), not the expected score (win 1, draw 1/2)
# every other table means by "score": labelled "points"
RECORD_COLUMNS = (BASE_COLUMNS + per_side("points", name="score") + per_side("captures") + per_side("promotions")
                  + per_side_unit("kills", UNITS) + per_side_unit("losses", UNITS)
                  + per_side_unit("snap", UNITS) + per_side_unit("final", UNITS))   # SPEC.columns
RECORD_FIELDS = column_names(RECORD_COLUMNS)
assert len(RECORD_FIELDS) == NFIELDS

POLICIES = ("random", "greedy", "mcts")   # GameSpec.policies; ids in policies.py

# the evaluation's learnable features (GameSpec.eval_features; features.py; the weight row: policies.W_*)
EVAL_FEATURES = ("score", "material:pawn", "material:drone", "material:queen")
