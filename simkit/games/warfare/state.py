"""Warfare! state layout, constants and the params tuple.

Board: squares ``sq = y * W + x``; x from 0 (left) to W-1, y from 0 (side 0's
back row) to H-1 (side 1's back row). Facings are the four orthogonal
directions (WF-1); side 0 deploys facing N, side 1 facing S, toward the enemy::

        y=H-1  +----------------------+   side 1 deploys in the top
               |  s< a v c v ...      |   deploy_rows rows, facing S (v)
               |                      |
               |     T T      T T     |   trees (default rows 5-6)
               |     T T      T T     |
               |                      |
        y=0    |  C^ I^ S^ ...        |   side 0: bottom rows, facing N (^)
               +----------------------+
                 x=0              x=W-1

    facing f:   N=0 (0,+1)   E=1 (+1,0)   S=2 (0,-1)   W=3 (-1,0)
    "ahead"  of a unit at p facing f, for a square q: (q-p).DIR[f]
    "side"   offset:                                   (q-p).DIR[(f+1)%4]

Per-game state (scratch arrays allocated once per block, reset per game)::

    occ   int64[NSQ]   unit id on the square, -1 empty
    usq   int64[NU]    square of unit u, -1 once dead      NU = n0 + n1
    uface int64[NU]    facing 0..3                         units 0..n0-1 are side 0,
    utype int64[NU]    unit type (CAV, SPE, INF, ARC)      n0..NU-1 are side 1
    uside int64[NU]
    acted int64[NU]    1 once the unit acted this turn
    alive int64[2]     units left per side

The params tuple built by ``rules.prepare``::

    (ip, tree, army, linesq, zone, umove, urange, dest, dmask, destn, reach, fp, wintab, sqx, sqy, knobs, ev)
    ip      int64[IP_SIZE]     integer rule values (IP_* indexes below)
    tree    int64[NSQ]         1 on a tree square
    army    int64[2, MAXU]     unit type of each slot of each side's army (-1 pad)
    linesq  int64[2, MAXU]     'line' deployment square of each slot
    zone    int64[2, Z]        deployment squares of each side (Z = deploy_rows * W)
    umove   int64[T]           move of each unit type; urange int64[T] (archers' range)
    dest    int64[M+1,NSQ,D]   destinations within m steps (incl. the square itself), -1 pad
    dmask   int64[M+1,NSQ,D]   facing mask of each destination (15 = may turn freely)
    destn   int64[M+1,NSQ]     number of destinations
    reach   int8[M+1,NSQ,NSQ]  facing mask from square to square within m steps, 0 = out of reach
    fp      float64[FP_SIZE]   unit values (FP_VALUE+type), greedy knobs (FP_GREEDY+k), MCTS knobs (FP_MCTS+MC_*)
    wintab  float64[2*20+1]    P(attacker wins) by modifier difference -20..20 (dice.py, exact)
    sqx     int64[NSQ]         x of each square; sqy int64[NSQ] its y
    knobs   float64[2, MC_N]   the search knob table, a row per side (simkit.policies.mcts_params): the engine
                               gets the mover's row; the hooks read fp's (scale, cap turns: both sides)
    ev      float64[2, NEV]    the evaluation's weight table (simkit learn; GameSpec.eval_slot = P_EVAL), a row
                               per side, columns EVAL_FEATURES: each unit type's value (EV_MATERIAL + type),
                               then the search's threat weight (EV_THREAT). Both rows are the rules' ``values``
                               and ``mcts_threat`` unless a side plays a learned evaluation. The greedy
                               commander reads the mover's row, the search the searcher's row (its leaf
                               evaluation, priors and greedy rollouts), the trajectory and the step API's
                               evaluate row 0; the cap's ``material`` adjudication reads fp's ``values``
                               (a rule, not a player's judgement)
"""
import numpy as np

from simkit.games.base import BASE_COLUMNS, column_names, per_side, per_side_unit, unit_vs_unit
from simkit.policies import MC_N

# Options of the jitted helpers that only other kernels call: no CPython / C-function wrapper. Each
# dispatcher's own library otherwise compiles a wrapper unboxing every argument (a params tuple is
# 15 arrays), a sixth of all the game's LLVM code and never run. Not callable from Python; a helper
# that tests or traces call directly keeps plain @njit(cache=True).
INNER = dict(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False)

UNITS = ("cavalry", "spearman", "infantry", "archer")
CAV, SPE, INF, ARC = 0, 1, 2, 3
NT = 4
LETTERS = "CSIA"

N, E, S, W = 0, 1, 2, 3
DX = (0, 1, 0, -1)
DY = (1, 0, -1, 0)
FACE_CHARS = "^>v<"
DXA = np.array(DX, dtype=np.int64)
DYA = np.array(DY, dtype=np.int64)

# attack angles (judged against the defender's facing)
FRONT, DIAG, FLANK, SURROUND = 0, 1, 2, 3
ANGLES = ("front", "diagfront", "flank", "surround")

# combat outcomes
DEF_DIES, ATT_DIES, NOTHING = 0, 1, 2

WIN_LO = -20

IP_W, IP_H, IP_NSQ, IP_ACT, IP_P2, IP_MAXT, IP_CAP, IP_DEPLOY = range(8)
IP_MCHARGE, IP_MCAVFIRE, IP_MINFFRONT, IP_MSPEAR, IP_MTREE = range(8, 13)
IP_N0, IP_N1, IP_ROWS, IP_MAXU = range(13, 17)
IP_ACT2 = 17     # WF-C1: extra activations of the second player's first phase-3 turn(s)
IP_ACT2N = 18    # WF-C1: how many of its phase-3 turns get them
IP_SIZE = 19

FP_VALUE = 0
FP_GREEDY = 4
(G_THRESH, G_APPROACH, G_FORM, G_SLACK, G_DANGER, G_COVER, G_FACING, G_MINIMP, G_CAVSLACK) = range(
    FP_GREEDY, FP_GREEDY + 9)
# MCTS knobs live in fp too, so the params tuple keeps its shape: the engine's (simkit.policies.mcts_params,
# indices MC_*) and then Warfare!'s own (search.py: MK_*, from index MC_N of the knob vector)
FP_MCTS = FP_GREEDY + 9
MCTS_OWN = 2
FP_SIZE = FP_MCTS + MC_N + MCTS_OWN

# The evaluation's weight table, params[P_EVAL] (float64 [2, NEV]; features.py, docs/games/warfare.md
# "Evaluation features"). A unit's value sits at the same index in a row as in fp (FP_VALUE = 0), so a
# kernel that scores with unit values takes ``val`` = a row of the table (a player's judgement) or ``fp``
# (the rules' values: the threat term, which must not depend on the row for the features to be linear).
P_EVAL = 16
EV_MATERIAL = 0            # + unit type
EV_THREAT = NT             # the search's threat term (mcts_threat)
NEV = NT + 1
EVAL_FEATURES = tuple(f"material:{u}" for u in UNITS) + ("threat",)
assert FP_VALUE == 0 and EV_MATERIAL == FP_VALUE

END_REASONS = ("annihilation", "move_limit", "stalemate")
END_ANNIHILATION, END_MOVE_LIMIT, END_STALEMATE = 0, 1, 2
POLICIES = ("random", "greedy", "mcts")


def record_columns():
    """What each record column counts (SPEC.columns), in record order."""
    c = BASE_COLUMNS
    for kind in ("losses", "kills", "attacks", "snap", "final"):
        c += per_side_unit(kind, UNITS)
    for a in ANGLES:
        c += per_side(f"kills_{a}")
    c += unit_vs_unit("kills", UNITS)   # attacker x defender type
    for stat in ("wins_roll", "lost_rolls", "archer_misses", "advances", "activations"):
        c += per_side(stat)
    return c


def record_fields():
    return column_names(record_columns())


RECORD_COLUMNS = record_columns()
RECORD_FIELDS = column_names(RECORD_COLUMNS)
_IDX = {n: i for i, n in enumerate(RECORD_FIELDS)}
R_LOSSES = _IDX["losses_0_cavalry"]      # + side*4 + type
R_KILLS = _IDX["kills_0_cavalry"]
R_ATTACKS = _IDX["attacks_0_cavalry"]
R_SNAP = _IDX["snap_0_cavalry"]
R_FINAL = _IDX["final_0_cavalry"]
R_ANGLE = _IDX["kills_front_0"]          # + angle*2 + side
R_MATCH = _IDX["kills_cavalry_x_cavalry"]  # + attacker_type*4 + defender_type
R_WONROLL = _IDX["wins_roll_0"]          # opposed rolls won by side (as attacker or defender)
R_LOSTROLL = _IDX["lost_rolls_0"]
R_MISS = _IDX["archer_misses_0"]         # archer shots lost (the archer survives)
R_ADV = _IDX["advances_0"]
R_ACT = _IDX["activations_0"]
NFIELDS = len(RECORD_FIELDS)
