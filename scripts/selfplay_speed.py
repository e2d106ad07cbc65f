"""Self-play speed and records digest of one checkout: python scripts/selfplay_speed.py GAME POLICY N [BUDGET] [SEED]

Plays N games of POLICY (random, greedy, mcts) against itself on 1 thread through the game's
``run_chunk`` (the kernels loaded first) and prints a digest of the records and the games per
CPU-second (median of 3 passes; 1 for mcts). Run it in two checkouts alternately (each with its
own NUMBA_CACHE_DIR) to compare a change side by side: equal digests mean the same games.
"""
import hashlib
import statistics
import sys
import time

import numba
import numpy as np

from simkit.games import get_game
from simkit.policies import policy_vector


def main(game: str, policy: str, n: int, budget: int = 0, seed: int = 7) -> None:
    numba.set_num_threads(1)
    spec = get_game(game)
    params = spec.prepare({o.name: o.default for o in spec.options})
    name = f"{policy}:{budget}" if budget else policy
    pv = policy_vector(spec, (name, name))
    spec.run_chunk(params, 0, 0, [0], pv, 10)   # load (or compile) the kernels first
    firsts = [i % 2 for i in range(n)]
    rates = []
    for _ in range(3 if policy != "mcts" else 1):
        t = time.process_time()
        rec, agg = spec.run_chunk(params, seed, 0, firsts, pv, 10)
        rates.append(n / (time.process_time() - t))
    h = hashlib.sha256(np.ascontiguousarray(rec).tobytes() + np.ascontiguousarray(agg).tobytes()).hexdigest()[:16]
    print(f"{game} {policy}:{budget} {n} games seed {seed}: digest {h}  {statistics.median(rates):.3f} games/CPU-s")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), *(int(a) for a in sys.argv[4:6]))
