"""The unit of work a backend ships: play games start..start+count-1 of one run.

This module sits below both the runner and the backends (it imports only the
game registry, the RNG and the policy vector layout), so a backend can ship
`play_chunk` to a Dask worker without importing the runner, and the runner can
use any backend without an import cycle.
"""
from __future__ import annotations

import numpy as np

from simkit.engine.rng import FIRST_MODES, first_players_nb


def play_chunk(game: str, params, seed: int, start: int, count: int, first: str,
               policy_ids: tuple[int, ...], snapshot_ply: int):
    """Play games start..start+count-1 -> (start, records, aggregate). Importable, picklable.

    ``policy_ids`` is the policy vector of simkit.policies (ids, MCTS budgets, epsilons);
    a bare pair of ids means budget 0 and epsilon 0; a side whose id is a ``python:...`` name
    is a Python agent, and the chunk is played through the step API (simkit.env.agents). A game's dice depend only on
    (seed, game index), so any process playing this chunk gets the same records.
    """
    from simkit.games import get_game
    from simkit.policies import POLICY_VECTOR

    spec = get_game(game)
    firsts = np.zeros(count, dtype=np.int8)
    first_players_nb(FIRST_MODES.index(first), np.int64(seed), np.int64(start), np.int64(count), firsts)
    if any(isinstance(x, str) for x in policy_ids):   # a Python agent plays a side
        from simkit.env.agents import play_chunk_agents
        records, aggregate = play_chunk_agents(game, params, seed, start, firsts, policy_ids, snapshot_ply)
        return start, records, aggregate
    pv = np.zeros(POLICY_VECTOR, dtype=np.int64)
    pv[:len(policy_ids)] = policy_ids
    records, aggregate = spec.run_chunk(params, seed, start, firsts, pv, snapshot_ply)
    return start, records, aggregate
