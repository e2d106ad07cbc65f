"""Storm the Castle: state layout.

Cards are numbered globally: side ``s`` owns ids ``s*NC .. s*NC + size_s - 1``
(``NC`` = the larger deck; unused ids of the smaller deck stay in zone NONE).
The owner of card ``c`` is ``c // NC``.

::

    cards  int32 [2*NC, NCF]          one row per card
           +------+-------+------+-----+------+-------+------+
           | TYPE | OWNER | ZONE | POS | ITEM | ACTED | BUFF |
           +------+-------+------+-----+------+-------+------+
             ZONE: NONE, DECK, HAND, GRAVE, BOARD (a unit on a space),
                   EQUIP (an item under a unit)
             POS:  BOARD -> space index; EQUIP -> the holder's card id; else -1
             ITEM: a unit's equipped item card id, or -1
             ACTED: 1 once the unit moved/attacked/used its special this turn
             BUFF: Sorcerer attack bonus for the rest of this turn

    sp     int32 [NS, 2]              the stack on each space: [top, bottom]
                                      (-1 = empty; items are not in it)
    zones  int32 [2, 3, NC]           per side: DECK, HAND, GRAVE lists
    zn     int32 [2, 3]               their lengths; the deck's top and the
                                      graveyard's top are the LAST entries
    g      int32 [NG]                 game globals (G_* below)

Turn = one player's three phases (draw, dispatch, actions); ``plies`` counts
turns. ``G_PHASE`` is DISPATCH or ACTIONS while a turn is being played.
"""
import numpy as np

# card columns
C_TYPE, C_OWNER, C_ZONE, C_POS, C_ITEM, C_ACTED, C_BUFF = range(7)
NCF = 7
# zones
Z_NONE, Z_DECK, Z_HAND, Z_GRAVE, Z_BOARD, Z_EQUIP = range(6)
ZONE_NAMES = ("none", "deck", "hand", "grave", "board", "equip")
# per-side lists in zones[s, L_*]
L_DECK, L_HAND, L_GRAVE = 0, 1, 2
# globals
# G_CHOICE: options at this turn's first decision that had more than one (0 until then);
# read only by the trajectory hook (play.trajectory), so records never depend on it
(G_TURN, G_SIDE, G_PHASE, G_POINTS, G_ATTACKS, G_WINNER, G_REASON, G_OVER,
 G_IDLE, G_COULD, G_SNAPPED, G_CHOICE) = range(12)
NG = 12
PH_DISPATCH, PH_ACTIONS = 0, 1
# end reasons (index into SPEC.end_reasons)
END_REASONS = ("keep_taken", "move_limit", "stalemate")
R_KEEP, R_LIMIT, R_STALEMATE = 0, 1, 2

# actions: buf[k] = (kind, a, b)
ACT_END, ACT_DISPATCH, ACT_MOVE, ACT_ATTACK, ACT_CLERIC, ACT_SMITH, ACT_SORC = range(7)
ACT_NAMES = ("end", "dispatch", "move", "attack", "cleric", "blacksmith", "sorcerer")
# log-only event kinds
EV_DRAW, EV_TURN, EV_END = 7, 8, 9
# The action buffer has Params.iopt[O_BUF] rows: rules.action_rows, a bound proven from the
# scenario's deck and board, so a decision's options always fit (no fixed row count).
MAXA = 2048      # legacy fixed size, only for scratch not yet sized by iopt[O_BUF] (moves._add raises when full)
LOG_COLS = 6     # (kind, a, b, turn*2+side, roll, outcome)


def alloc(nc, ns):
    """Fresh per-game state arrays (re-initialised by init_game_nb)."""
    return (np.zeros((2 * nc, NCF), np.int32), np.zeros((ns, 2), np.int32),
            np.zeros((2, 3, nc), np.int32), np.zeros((2, 3), np.int32), np.zeros(NG, np.int32))

POLICIES = ("random", "greedy", "mcts")   # GameSpec.policies; ids: index here (policies.py)
