"""The recorded playtests of docs/agents.md (``python -m simkit.env.examples``), and the text of its
MCTSBot block (``openspiel_matchup``; regenerate it with
``python -m simkit.report.doc_numbers agents.openspiel-mcts``, simkit/report/doc_blocks/agents.py).

- ``openspiel_matchup``: OpenSpiel's MCTSBot (UCT c=2, random rollouts, 400 simulations, through
  simkit.env.openspiel) against simkit's mcts:400 in Martian Chess, as
  ``simkit matchup martian_chess --policies mcts:400,python:simkit.env.openspiel:mcts400`` plays it.
- ``main``: one recorded playtest of each game with a step API: a scripted person (it asks for a
  hint, takes a move back, then plays greedy's choice) against mcts:400, saved under
  docs/playtests/<game>/ (the run directory, its trace and the terminal session); the script
  replays each and stops if the replay differs (tests/test_playtest.py checks it again).
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

PLAYTESTS = Path(__file__).resolve().parents[2] / "docs" / "playtests"
BOT = "python:simkit.env.openspiel:mcts400"


def openspiel_matchup(games: int, seed: int = 0) -> str:
    from simkit.analysis.matchup import matchup
    from simkit.engine.runner import RunConfig
    from simkit.scenario import load_scenario
    sc = load_scenario("martian_chess")
    pols = ["mcts:400", BOT]
    t0 = time.perf_counter()
    res = matchup(sc, pols, RunConfig(games=games, seed=seed, policies=tuple(pols)))
    secs = time.perf_counter() - t0
    c = res.cells[(BOT, "mcts:400")]
    lo, hi = c["ci"]
    cmd = (f"simkit matchup martian_chess --policies mcts:400,{BOT} --games {games} --seed {seed}")
    return "\n".join([
        "```sh", cmd, "```", "",
        "| player | score against simkit's mcts:400 | 95% interval | as side 0 | as side 1 | draws |",
        "| --- | --- | --- | --- | --- | --- |",
        f"| OpenSpiel MCTSBot (400 simulations, random rollouts) | {c['score']:.3f} | [{lo:.3f}, {hi:.3f}] | "
        f"{c['as_side0']:.3f} | {c['as_side1']:.3f} | {c['draw_rate']:.0%} |",
        "",
        f"Martian Chess, default scenario, seed {seed}: {games} games in each seat order ({2 * games} games, "
        f"first player alternating), p-value of \"equally strong\" {c['p_value']:.3g}. Score: win 1, draw 1/2. "
        f"Took {secs / 60:.0f} minutes on the shared 2-core machine (the bot runs in Python).",
    ])


class ScriptedPerson:
    """A person at the terminal: asks for a hint, plays move 1, takes it back, then plays greedy's choice.
    What it sees and types is kept as the terminal session."""

    def __init__(self, spec):
        from simkit.policies import policy_vector
        self.pv = policy_vector(spec, ("greedy", "greedy"))
        self.session: list[str] = []
        self.state = None
        self.script = ["hint", "1", "undo"]

    def say(self, text):
        self.session.append(text)

    def watch(self, state):
        self.state = state

    def ask(self, prompt):
        if self.script:
            typed = self.script.pop(0)
        else:
            typed = self.state.action_label(self.state.clone().scripted_action(self.pv))
        self.session.append(prompt + typed)
        return typed


def record_playtest(game: str, against: str = "mcts:400", seed: int = 0) -> Path:
    from simkit.env import game_scenario
    from simkit.env.playtest import playtest, replay
    sc = game_scenario(game)
    out = PLAYTESTS / game
    shutil.rmtree(out, ignore_errors=True)
    person = ScriptedPerson(sc.spec)
    playtest(sc, 0, against, seed=seed, first=0, out=out, ask=person.ask, say=person.say, watch=person.watch)
    text, _ = replay(out)
    if text + "\n" != (out / "trace.txt").read_text():
        raise SystemExit(f"{out}: the replay differs from the recorded trace")
    cmd = f"$ simkit playtest {game} --human 0 --against {against} --seed {seed} --out docs/playtests/{game}"
    (out / "session.txt").write_text(cmd + "\n" + "\n".join(person.session) + "\n")
    return out


def main():
    from simkit.games import GAMES, get_game
    for g in GAMES:
        if get_game(g).steps is not None:
            print("recorded", record_playtest(g))


if __name__ == "__main__":
    main()
