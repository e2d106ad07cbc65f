"""How much of Storm the Castle's action phase a listing repeats: python scripts/storm_option_overlap.py [--games 30]

Greedy self-play through the step API (seed 5): at each action-phase decision after the first of its phase,
the share of its options (decision codes) that were options of the previous decision too. The search's
rollouts play greedy and list every decision afresh (`moves.gen_actions`, inlined into `rollout_nb`);
this share bounds what listing only the changed stacks could skip (docs/speed.md, "Storm the Castle's
action listings"). Greedy self-play stands in for the rollouts, which play greedy from the search's states.
"""
import argparse

from simkit import env
from simkit.games.storm_the_castle.state import G_PHASE, G_TURN, PH_ACTIONS
from simkit.policies import policy_vector
from simkit.scenario import load_scenario

GAME = "storm_the_castle"


def overlap(games: int, seed: int = 5) -> None:
    pv = policy_vector(load_scenario(GAME).spec, ("greedy", "greedy"))
    same = total = decisions = 0
    for gi in range(games):
        s = env.new_game(GAME, seed=seed, game_index=gi)
        prev_key, prev = None, set()
        while not s.is_over():
            if s.is_chance():
                s.roll()
                prev_key = None         # a roll's outcome changes the board: start a new comparison
                continue
            key = (int(s.S[4][G_TURN]), int(s.S[4][G_PHASE]))
            codes = set(s.legal_actions())
            if key == prev_key and key[1] == PH_ACTIONS:
                same += len(codes & prev)
                total += len(codes)
                decisions += 1
            prev_key, prev = key, codes
            s.apply(s.scripted_action(pv))
    print("| games | decisions compared | options | of them options of the previous decision | options per decision |")
    print("|---|---:|---:|---:|---:|")
    print(f"| {games} | {decisions:,} | {total:,} | {same:,} ({same / max(total, 1):.1%}) | {total / max(decisions, 1):.1f} |")
    print(f"\n`python scripts/storm_option_overlap.py --games {games}` (greedy self-play, seed {seed})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=30)
    a = ap.parse_args(argv)
    overlap(a.games)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
