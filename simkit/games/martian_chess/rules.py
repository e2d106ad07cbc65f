"""Martian Chess rule schema (RULES §2) and its compilation into kernel params."""
import numpy as np

from simkit.errors import ScenarioError
from simkit.policies import mcts_options, mcts_params
from simkit.scenario.schema import Option, handicap_options, table_of_counts
from simkit.games.martian_chess.state import (
    CLOCK_MODES, NRULES, R_CLOCK_MODE, R_CLOCK_PLIES, R_DEADLOCK_PLIES, R_FIELD_PROMOTION,
    R_KOMI, R_MAX_PLIES, R_POINTS, UNITS, build_tables, initial_board,
)

OPTIONS = (
    Option("field_promotion", "bool", True, "MC-2: merge pawn+drone into a queen / pawn+pawn into a drone"),
    Option("clock", "choice", "deadlock", "MC-4: when the clock is called", choices=CLOCK_MODES),
    Option("deadlock_plies", "int", 14, "MC-4 deadlock: quiet plies before the clock is called", min=1, max=1000),
    Option("clock_plies", "int", 7, "MC-4: quiet plies after the call that end the game", min=1, max=1000),
    Option("max_plies", "int", 400, "ply cap; at the cap the higher score wins, equal draws", min=1, max=100000),
    Option("komi", "float", 0.0, "MC-C1: points (a multiple of 0.5) added to the score of the player who moves "
           "second wherever scores are compared; x.5 leaves no equal scores", min=-100, max=100, step=0.5),
    Option("points", "table", {"pawn": 1, "drone": 2, "queen": 3},
           "what capturing a piece scores, by kind (RULES §2: its pips; a variant can make one kind worth more)",
           check=table_of_counts(UNITS)),
    Option("greedy_score", "float", 1.0, "greedy weight: score lead (pips)", min=-100, max=100, policy_knob=True),
    Option("greedy_material", "float", 0.5, "greedy weight: pips controlled, own zone minus opponent's",
           min=-100, max=100, policy_knob=True),
    Option("greedy_hanging", "float", 1.0, "greedy weight: penalty per pip of the best piece left capturable",
           min=-100, max=100, policy_knob=True),
) + mcts_options(c=1.0, rollout="random", cutoff=60, scale=1.0, prior_temp=0.5) + (
    Option("mcts_prior_moves", "choice", "captures", "MCTS prior over moves: greedy's one-ply values, or only the "
           "pips a move captures (cheaper)", choices=("captures", "greedy"), policy_knob=True),
) + handicap_options(UNITS)


SEARCH_KNOBS = ("mcts_prior_moves",)   # the game's own search knobs, after the shared ones (search.MC_PRIOR_MOVES)


def validate(rules: dict) -> None:
    # MC-C1: the kernel keeps scores and komi in half pips, so the komi must be a whole number of them
    if not float(2 * rules["komi"]).is_integer():
        raise ScenarioError(f"{rules['komi']!r} is not a multiple of 0.5 (scores are whole pips; "
                            f"a komi of x.5 breaks every tie)", key="komi")
    for s in (0, 1):
        for unit, n in rules[f"remove_{s}"].items():
            if n > 3:
                raise ScenarioError(f"side {s} has only 3 {unit}s, cannot remove {n}", key=f"remove_{s}.{unit}")
        if sum(rules[f"remove_{s}"].values()) >= 9:
            raise ScenarioError(f"side {s} would start with no pieces", key=f"remove_{s}")


def prepare(rules: dict):
    r = np.zeros(NRULES, dtype=np.int64)
    r[R_FIELD_PROMOTION] = int(rules["field_promotion"])
    r[R_CLOCK_MODE] = CLOCK_MODES.index(rules["clock"])
    r[R_DEADLOCK_PLIES] = rules["deadlock_plies"]
    r[R_CLOCK_PLIES] = rules["clock_plies"]
    r[R_MAX_PLIES] = rules["max_plies"]
    r[R_KOMI] = int(round(2 * rules["komi"]))   # MC-C1, half pips
    for k, u in enumerate(UNITS):
        r[R_POINTS + k] = rules["points"].get(u, k + 1)
    # the evaluation's weight table (GameSpec.eval_slot), a row per side: a learned evaluation replaces a row
    gm = rules["greedy_material"]
    row = np.array([rules["greedy_score"], gm, 2 * gm, 3 * gm, rules["greedy_hanging"]], dtype=np.float64)
    weights = np.stack([row, row])
    # the search's knob table, a row per side (policies.side_params); this game's own knob after the shared
    mc = mcts_params(rules, [o for o in OPTIONS if o.name in SEARCH_KNOBS])
    # params[1]: the bitboard move tables (state.build_tables), where the kernels once took the rays
    return initial_board(rules["remove_0"], rules["remove_1"]), build_tables(), r, weights, mc
