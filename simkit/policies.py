"""Policy names as a designer writes them, and the int64 vector kernels receive.

Grammar (anywhere a policy name is accepted: run, compare, sweep, values,
matchup, play, report):

    NAME                 a game's scripted policy: random, greedy, greedy_noshoot, ...
    mcts:N               Monte-Carlo tree search with N iterations per decision
    eps:P:INNER          with probability P a uniformly random legal action, else INNER
                         (INNER is any policy above, e.g. eps:0.1:mcts:400)
    ban:CLASS:INNER      INNER never plays a decision of the action class CLASS the game declares
                         (``spec.action_classes``; ``ban:shoot+swap:greedy`` bans two): restricted play
                         (Jaffe). A decision with nothing but banned options plays one of them.
    python:MOD:FACTORY   a Python agent (simkit.env.agents), played through the step API:
                         far slower; in the commands that run games (run, matchup, ladder,
                         compare, ...), not in the ones that read a kernel's trace (play)
    POLICY/KNOB=VALUE    any of the above with its own value of a search knob (an ``mcts_*`` rule
                         option), for this side only: ``mcts:400/mcts_c=0.5`` against ``mcts:400``
    POLICY@EVAL          any of the above scoring positions with its own evaluation: ``@learned`` (the
                         weights ``simkit learn`` stored for the variant) or ``@default`` (the rules'
                         hand-set weights), whatever ``--eval`` says: ``greedy@learned`` against ``greedy``

The kernels receive one int64 array ``policies`` of length ``POLICY_VECTOR``:

    policies[POL_ID + p]      base policy id of side p (index in ``spec.policies``)
    policies[POL_BUDGET + p]  MCTS iterations per decision of side p (0 unless mcts)
    policies[POL_EPS + p]     epsilon of side p in parts per million (0 = never random)
    policies[POL_BAN + p]     bit mask of the action classes side p never plays (bit k: spec.action_classes[k])

Side p's base id is at ``policies[p]``, so kernels written before the budget and
epsilon slots existed read the same ids. The MCTS knobs that are not in the
name (exploration constant, rollout policy, rollout cut-off) are rule options
(``MCTS_OPTIONS``) every game adds to its schema.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simkit.errors import UsageError

# who moves first in game g of a run (the kernel switch is engine/rng.first_players_nb); here,
# not in engine/, so the CLI can list them without importing numba
FIRST_MODES = ("alternate", "side0", "side1", "random")

POL_ID, POL_BUDGET, POL_EPS, POL_BAN = 0, 2, 4, 6
POLICY_VECTOR = 8
EPS_SCALE = 1_000_000
MAX_BUDGET = 1_000_000
MCTS = "mcts"


@dataclass(frozen=True)
class PolicyChoice:
    name: str          # as written, normalised (e.g. "eps:0.1:mcts:400")
    base: str          # the game's policy name the kernel switches on ("mcts", "greedy", ...)
    budget: int = 0    # MCTS iterations per decision
    eps: float = 0.0   # probability of a uniformly random legal action
    knobs: tuple = ()  # ((option name, value), ...): this side's own search knobs
    ban: tuple = ()    # the action classes this side never plays (ban:CLASS:INNER)
    evaluation: str | None = None   # POLICY@EVAL: "learned" or "default"; None: the scenario's (--eval)


def _parse_knobs(spec, name: str, items) -> tuple:
    from simkit.errors import ScenarioError
    from simkit.scenario.load import parse_set
    from simkit.scenario.schema import _suggest
    allowed = side_knob_names(spec)
    out = []
    for item in items:
        try:
            key, value = parse_set(item)
        except ScenarioError:
            raise UsageError(f"policy '{name}': write POLICY/KNOB=VALUE, e.g. mcts:400/mcts_c=0.5") from None
        if key not in allowed:
            if key in knob_columns(spec):
                raise UsageError(f"policy '{name}': both sides of {spec.name} share '{key}' (its search hooks read "
                                 f"it for either side): set it with --set {key}=...; one side's knobs: "
                                 f"{', '.join(allowed)}")
            raise UsageError(f"policy '{name}': '{key}' is not a search knob of {spec.name}"
                             f"{_suggest(key, allowed)}; knobs: {', '.join(allowed) or 'none'}")
        try:
            value = spec.option(key).coerce(value)
        except ScenarioError as e:
            raise UsageError(f"policy '{name}': {key}: {e.detail}") from None
        out.append((key, value))
    return tuple(out)


def _knob_text(knobs) -> str:
    def fmt(v):
        return str(v).lower() if isinstance(v, bool) else (f"{v:g}" if isinstance(v, float) else str(v))
    return "".join(f"/{k}={fmt(v)}" for k, v in knobs)


PYTHON = "python"


def parse_policy(spec, text: str) -> PolicyChoice:
    """Parse one policy name for game ``spec``; UsageError (one line) if it is not one."""
    name = str(text).strip()
    if "@" in name and not name.startswith(PYTHON + ":"):
        head, ev = name.rsplit("@", 1)
        from simkit.scenario.evaluation import EVALUATIONS
        if ev not in EVALUATIONS[1:]:
            raise UsageError(f"policy '{name}': write POLICY@learned or POLICY@default, e.g. greedy@learned")
        if getattr(spec, "eval_slot", None) is None:
            raise UsageError(f"policy '{name}': {spec.name} declares no evaluation features, so it has no "
                             f"learned evaluation")
        c = parse_policy(spec, head)
        if c.evaluation is not None:
            raise UsageError(f"policy '{name}': one @EVAL per policy")
        return replace(c, name=f"{c.name}@{ev}", evaluation=ev)
    if name.startswith(PYTHON + ":"):
        from simkit.env.agents import load_factory
        if getattr(spec, "steps", None) is None:
            raise UsageError(f"policy '{name}': {spec.name} has no step API yet, so no Python agent can play it")
        load_factory(name)
        return PolicyChoice(name, PYTHON)
    if "/" in name:
        head, *items = name.split("/")
        c = parse_policy(spec, head)
        knobs = _parse_knobs(spec, name, items)
        return PolicyChoice(c.name + _knob_text(knobs), c.base, c.budget, c.eps, knobs, c.ban, c.evaluation)
    if name.startswith("ban:"):
        parts = name.split(":", 2)
        if len(parts) < 3 or not parts[1] or not parts[2]:
            raise UsageError(f"policy '{name}': write ban:CLASS:POLICY, e.g. ban:shoot:greedy")
        classes = tuple(dict.fromkeys(parts[1].split("+")))
        declared = tuple(getattr(spec, "action_classes", ()) or ())
        if not declared:
            raise UsageError(f"policy '{name}': {spec.name} declares no action classes to ban")
        for k in classes:
            if k not in declared:
                from simkit.scenario.schema import _suggest
                raise UsageError(f"policy '{name}': '{k}' is not an action class of {spec.name}"
                                 f"{_suggest(k, declared)}; classes: {', '.join(declared)}")
        c = parse_policy(spec, parts[2])
        if c.ban:
            raise UsageError(f"policy '{name}': ban cannot wrap another ban; write ban:A+B:POLICY")
        classes = tuple(k for k in declared if k in classes)      # the declared order: one canonical name
        return PolicyChoice(f"ban:{'+'.join(classes)}:{c.name}", c.base, c.budget, c.eps, c.knobs, classes)
    eps = 0.0
    inner = name
    if name.startswith("eps:"):
        parts = name.split(":", 2)
        if len(parts) < 3 or not parts[2]:
            raise UsageError(f"policy '{name}': write eps:P:POLICY, e.g. eps:0.1:greedy")
        try:
            eps = float(parts[1])
        except ValueError:
            raise UsageError(f"policy '{name}': P in eps:P:POLICY must be a number from 0 to 1") from None
        if not 0.0 <= eps <= 1.0:
            raise UsageError(f"policy '{name}': P in eps:P:POLICY must be from 0 to 1, got {eps:g}")
        inner = parts[2]
        if inner.startswith("eps:") or inner.startswith(PYTHON + ":"):
            raise UsageError(f"policy '{name}': eps wraps simkit's own policies only, not {inner.split(':')[0]}")
    budget = 0
    base = inner
    if inner == MCTS or inner.startswith(MCTS + ":"):
        parts = inner.split(":")
        if len(parts) != 2 or not parts[1].isdigit() or not 1 <= int(parts[1]) <= MAX_BUDGET:
            raise UsageError(f"policy '{name}': write mcts:N with N iterations per decision from 1 to "
                             f"{MAX_BUDGET:,}, e.g. mcts:400")
        budget = int(parts[1])
        base = MCTS
    if base not in spec.policies:
        from simkit.scenario.schema import _suggest
        names = [p for p in spec.policies if p != MCTS] + ([f"{MCTS}:N"] if MCTS in spec.policies else [])
        raise UsageError(f"unknown policy '{name}' for {spec.name}{_suggest(inner, spec.policies)}; policies: "
                         f"{', '.join(names)}, eps:P:POLICY")
    canon = inner if eps == 0.0 and not name.startswith("eps:") else f"eps:{eps:g}:{inner}"
    return PolicyChoice(canon, base, budget, eps)


def policy_ids(spec, names) -> tuple:
    """The policy vector as a tuple, a Python agent's id slot holding its ``python:...`` name
    (simkit.engine.chunk plays such a chunk through the step API)."""
    if len(names) != 2:
        raise UsageError(f"two policies are needed (side 0, side 1), got {len(names)}")
    v: list = [0] * POLICY_VECTOR
    for p, n in enumerate(names):
        c = parse_policy(spec, n)
        if c.base == PYTHON:
            v[POL_ID + p] = c.name
            continue
        v[POL_ID + p] = spec.policy_id(c.base)
        v[POL_BUDGET + p] = c.budget
        v[POL_EPS + p] = int(round(c.eps * EPS_SCALE))
        v[POL_BAN + p] = sum(1 << spec.action_classes.index(k) for k in c.ban)
    return tuple(v)


def policy_vector(spec, names) -> np.ndarray:
    """The kernels' int64 policy vector for the two sides' policy names (simkit's own policies)."""
    v = policy_ids(spec, names)
    agents = [x for x in v if isinstance(x, str)]
    if agents:
        raise UsageError(f"policy '{agents[0]}': this command reads the batch kernel's own games; a Python "
                         f"agent plays in run, matchup, ladder, compare and the other commands that run games")
    return np.asarray(v, dtype=np.int64)


def max_budget(policies) -> int:
    """Largest MCTS budget in a policy vector (sizes the search tree a kernel allocates)."""
    pv = np.asarray(policies)
    if pv.shape[0] < POLICY_VECTOR:
        return 0
    return int(max(pv[POL_BUDGET], pv[POL_BUDGET + 1]))


def policy_names(spec) -> list[str]:
    """The names a user can type for this game, for help and listings."""
    out = [p for p in spec.policies if p != MCTS]
    if MCTS in spec.policies:
        out.append("mcts:N")
    out.append("eps:P:POLICY")
    if getattr(spec, "action_classes", ()):
        out.append("ban:CLASS:POLICY")
    if getattr(spec, "steps", None) is not None:
        out.append("python:MOD:FACTORY")
    return out


# --- MCTS knobs as rule options -------------------------------------------------------------
# A game adds ``mcts_options(...)`` to its schema and puts ``mcts_params(rules)`` into its
# prepared params; the search engine (simkit/engine/search.py) reads the vector by these indices
# and a game's own knobs follow from MC_N. docs/search.md says what each knob does.
MC_C, MC_ROLLOUT, MC_CUTOFF, MC_SCALE, MC_PRIOR_T, MC_FPU, MC_DECISIVE, MC_CONTEMPT, MC_REUSE, MC_STOP = range(10)
MC_N = 10
ROLLOUTS = ("random", "greedy")


def mcts_options(*, c: float = 1.0, rollout: str = "random", cutoff: int = 0, scale: float = 1.0,
                 prior_temp: float = 1.0, fpu: float = 0.0, decisive: bool = True, contempt: float = 0.0,
                 reuse: bool = False, stop: bool = False):
    """The rule options of the MCTS policy, with this game's defaults.

    A game chooses defaults that make its ladder gain at every budget (``simkit tune`` with a
    strength objective), and documents them in its doc; a designer overrides them like any rule
    (``--set mcts_c=0.7``).
    """
    from simkit.scenario.schema import Option
    return (
        Option("mcts_c", "float", float(c), "MCTS exploration constant of PUCT (rewards in [0, 1])",
               min=0.0, max=100.0, policy_knob=True),
        Option("mcts_rollout", "choice", rollout, "MCTS rollout policy after the tree: random or greedy",
               choices=ROLLOUTS, policy_knob=True),
        Option("mcts_cutoff", "int", int(cutoff),
               "MCTS rollouts stop once this many turns have ended, counting the searching side's current "
               "turn (a turn: one side's whole turn, a ply in Martian Chess and Skorm); the position is then "
               "scored with the evaluation; 0 scores every leaf at once", min=0, max=100_000, policy_knob=True),
        Option("mcts_scale", "float", float(scale),
               "MCTS: evaluation lead that counts as a 73% winning chance (reward = logistic(lead / scale))",
               min=1e-6, max=1e9, policy_knob=True),
        Option("mcts_prior_temp", "float", float(prior_temp),
               "MCTS: temperature of the prior over decisions, in evaluation units (softmax of the game's "
               "heuristic scores; 0 = uniform prior)", min=0.0, max=1e9, policy_knob=True),
        Option("mcts_fpu", "float", float(fpu),
               "MCTS first-play urgency: an untried decision counts as the node's mean reward minus this",
               min=0.0, max=1.0, policy_knob=True),
        Option("mcts_decisive", "bool", bool(decisive),
               "MCTS: a decision that wins at once is played without search (and proves its node won)",
               policy_knob=True),
        Option("mcts_contempt", "float", float(contempt),
               "MCTS: the searching side counts a finished draw as 1/2 minus this (a draw-averse player; "
               "0 = neutral)", min=-0.5, max=0.5, policy_knob=True),
        Option("mcts_reuse", "bool", bool(reuse),
               "MCTS tree reuse: a side's next search starts from the subtree its previous search grew for the "
               "position it now faces (below the decision it played, or below the other side's reply where each "
               "side has a tree of its own), and runs only the iterations the budget has left (the same visits at "
               "the root, fewer computed)", policy_knob=True),
        Option("mcts_stop", "bool", bool(stop),
               "MCTS early stop: a search ends once no other decision can overtake the most visited one in the "
               "iterations left (the same choice, fewer iterations; unless the iterations left would have proven "
               "a decision won or lost)", policy_knob=True),
    )


KNOB_COLUMNS = ("mcts_c", "mcts_rollout", "mcts_cutoff", "mcts_scale", "mcts_prior_temp", "mcts_fpu",
                "mcts_decisive", "mcts_contempt", "mcts_reuse", "mcts_stop")   # the first MC_N columns, MC_* order
# the shared knobs a side may set for itself in a game whose hooks read mcts_scale from one row for both sides
# (its evaluation is shared): a GameSpec's ``side_knobs``
SIDE_KNOBS_BUT_SCALE = tuple(k for k in KNOB_COLUMNS if k != "mcts_scale")


def knob_columns(spec) -> tuple[str, ...]:
    """The columns of ``spec``'s knob table: the shared MCTS knobs, then the game's own (``search_knobs``);
    empty for a game without the table."""
    if getattr(spec, "knobs_slot", None) is None:
        return ()
    return KNOB_COLUMNS + tuple(spec.search_knobs)


def side_knob_names(spec) -> tuple[str, ...]:
    """The knobs a policy may set for its own side (``POLICY/KNOB=VALUE``): the game's ``side_knobs``, else
    every column of its knob table."""
    cols = knob_columns(spec)
    side = getattr(spec, "side_knobs", None)
    return cols if side is None else tuple(k for k in cols if k in side)


def knob_value(option, value) -> float:
    """A knob's value as the knob table holds it: a choice by its index, a bool as 0/1, a number as is."""
    if option.kind == "choice":
        return float(option.choices.index(value))
    return float(value)


def mcts_params(rules: dict, extra=()) -> np.ndarray:
    """The knob table the search engine reads: one float64 row per side (indices MC_*, then the game's own
    knobs ``extra``: their Options, in order), both rows from ``rules``; a policy string's ``/KNOB=VALUE``
    changes one side's row (side_params). A kernel passes the mover's row to the search."""
    v = np.zeros(MC_N + len(extra), dtype=np.float64)
    v[MC_C] = rules["mcts_c"]
    v[MC_ROLLOUT] = ROLLOUTS.index(rules["mcts_rollout"])
    v[MC_CUTOFF] = rules["mcts_cutoff"]
    v[MC_SCALE] = rules["mcts_scale"]
    v[MC_PRIOR_T] = rules["mcts_prior_temp"]
    v[MC_FPU] = rules["mcts_fpu"]
    v[MC_DECISIVE] = 1.0 if rules["mcts_decisive"] else 0.0
    v[MC_CONTEMPT] = rules["mcts_contempt"]
    v[MC_REUSE] = 1.0 if rules["mcts_reuse"] else 0.0
    v[MC_STOP] = 1.0 if rules["mcts_stop"] else 0.0
    for k, option in enumerate(extra):
        v[MC_N + k] = knob_value(option, rules[option.name])
    return np.stack([v, v])


def side_params(spec, rules: dict, params, names):
    """``params`` with each side's knob row rebuilt from ``rules`` and that side's policy knobs (``names``:
    the two policy names); ``params`` itself when no side names a knob."""
    choices = [parse_policy(spec, n) for n in names]
    if not any(c.knobs for c in choices):
        return params
    slot = spec.knobs_slot
    table = np.array(params[slot], dtype=np.float64, copy=True)
    for side, c in enumerate(choices):
        if c.knobs:
            table[side] = mcts_params({**rules, **dict(c.knobs)}, [spec.option(k) for k in spec.search_knobs])[side]
    return with_slot(params, slot, table)


def with_slot(params, slot: int, value):
    """``params`` (a tuple or a namedtuple) with item ``slot`` replaced by ``value``."""
    items = list(params)
    items[slot] = value
    return type(params)(*items) if hasattr(params, "_fields") else tuple(items)
