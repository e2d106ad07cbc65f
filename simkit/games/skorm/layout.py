"""Skorm's record layout and policy names: plain data, so the GameSpec (and `simkit games`,
`simkit rules`) need not import the jitted modules."""
from simkit.games.base import BASE_COLUMNS, column_names, per_side, per_side_unit
from simkit.games.skorm.rules import UNITS

POLICIES = ("random", "greedy", "greedy_noshoot", "mcts")   # ids: index here (policies.POL_*)
END_REASONS = ("warlord_killed", "gold_tile", "gold_tile_immediate", "stalemate", "move_limit")   # state.R_*


def _columns():
    c = BASE_COLUMNS
    for prefix in ("losses", "kills", "kills_capture", "kills_shot", "snap", "final"):
        c += per_side_unit(prefix, UNITS)
    return c + per_side("shield_blocks") + per_side("passes")


RECORD_COLUMNS = _columns()   # what each column counts (SPEC.columns)
RECORD_FIELDS = column_names(RECORD_COLUMNS)
F_LOSS, F_KILL, F_KCAP, F_KSHOT, F_SNAP, F_FINAL = 4, 12, 20, 28, 36, 44
F_BLOCK, F_PASS = 52, 54
NFIELDS = 56
assert len(RECORD_FIELDS) == NFIELDS
