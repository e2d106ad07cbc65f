"""What every game's ``simkit play`` trace shares: the header and the policy names.

Every trace opens with the same four lines, so a reader (or a script) finds the
game, the variant, who played whom, and which game of which run it is in one
place whatever the game:

    game:     Martian Chess (martian_chess)
    variant:  default [clock=leader]
    policies: side 0 = greedy, side 1 = mcts:100
    seed 7, game 3 (the game `simkit run --seed 7` plays at index 3); first player: side 1

Game-specific notes (legend, komi, ...) follow; the last line is the result.
This module is not a kernel file: editing it recompiles nothing.
"""
from __future__ import annotations

HEADER_KEYS = ("game:", "variant:", "policies:", "seed ")


def policy_label(names, policies, p: int) -> str:
    """Side ``p``'s policy as a user writes it (``mcts:N``, ``eps:P:INNER``), from the policy vector
    the kernels receive (simkit.policies) or a bare pair of policy ids."""
    from simkit.policies import EPS_SCALE, MCTS, POL_BUDGET, POL_EPS, POL_ID
    pv = [int(x) for x in policies]
    name = names[pv[POL_ID + p]]
    if name == MCTS:
        name = f"{MCTS}:{pv[POL_BUDGET + p]}" if len(pv) > POL_BUDGET + p else MCTS
    if len(pv) > POL_EPS + p and pv[POL_EPS + p] > 0:
        name = f"eps:{pv[POL_EPS + p] / EPS_SCALE:g}:{name}"
    return name


def header(title: str, game_name: str, seed: int, game: int, first: int, names, policies,
           variant: str | None = None) -> list[str]:
    """The four header lines of every trace. ``variant``: the scenario and its overrides as the
    command line resolved them (``simkit play`` passes it; a direct call may not know it)."""
    pol = [policy_label(names, policies, p) for p in (0, 1)]
    return [f"game:     {title} ({game_name})",
            f"variant:  {variant or 'as given (parameters passed directly)'}",
            f"policies: side 0 = {pol[0]}, side 1 = {pol[1]}",
            f"seed {seed}, game {game} (the game `simkit run --seed {seed}` plays at index {game}); "
            f"first player: side {first}"]


def variant_label(scenario) -> str:
    """``name [key=value, ...]`` of a loaded scenario (the overrides as --set would write them)."""
    import json
    def show(v):
        return json.dumps(v) if not isinstance(v, str) else v
    extra = ", ".join(f"{k}={show(v)}" for k, v in scenario.overrides.items())
    return scenario.name + (f" [{extra}]" if extra else " (no overrides)")
