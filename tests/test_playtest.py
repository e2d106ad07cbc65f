"""``simkit playtest`` driven as a person drives it, through a pseudo-terminal, and its replay."""
import json
import os
import pty
import select
import signal
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from conftest import invoke
from simkit.games.base import RESIGNED


class Terminal:
    """A child process on a pseudo-terminal: read until a text shows, type a line."""

    def __init__(self, argv, cwd):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:   # the child: the command on the terminal
            os.chdir(cwd)
            os.execv(argv[0], argv)
        self.seen = ""

    def expect(self, text, timeout=120):
        end = time.time() + timeout
        while text not in self.seen:
            left = end - time.time()
            if left <= 0:
                raise AssertionError(f"{text!r} did not show; the terminal shows:\n{self.seen[-3000:]}")
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:   # the child closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"{text!r} did not show before the end:\n{self.seen[-3000:]}")
                self.seen += chunk.decode(errors="replace").replace("\r\n", "\n")
        at = self.seen.index(text) + len(text)
        before, self.seen = self.seen[:at], self.seen[at:]
        return before

    def type(self, line):
        os.write(self.fd, (line + "\n").encode())

    def close(self, timeout=30):
        """The child's exit code; a child still waiting (a failed check) is killed."""
        end = time.time() + timeout
        while True:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > end:
                os.kill(self.pid, signal.SIGKILL)
                _, status = os.waitpid(self.pid, 0)
                break
            time.sleep(0.1)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)


def test_a_person_plays_hints_undoes_and_resigns_on_a_terminal(tmp_path, runner):
    out = tmp_path / "game"
    t = Terminal([sys.executable, "-m", "simkit", "playtest", "martian_chess", "--set", "max_plies=40",
                  "--against", "greedy", "--seed", "3", "--out", str(out)], cwd=tmp_path)
    try:
        screen = t.expect("> ")
        assert "your move, side 0" in screen and "  1 " in screen and "a b c d" in screen   # board and codes
        t.type("hint")                                # (the terminal echoes what is typed)
        t.expect("hint (greedy): ")
        hinted = t.expect("\n").strip()
        t.type("zz9")
        t.expect("not a legal move here: 'zz9'")
        t.type("1")
        t.expect("2. side 1 (greedy): ")
        t.expect("> ")
        t.type("undo")
        assert "undone" in t.expect("> ")
        t.type(hinted)                                # a code as listed
        assert f"1. side 0 (human): {hinted}" in t.expect("2. side 1 (greedy): ")
        t.expect("> ")
        t.type("resign")
        assert "side 0 (human) resigns: side 1 wins" in t.expect("saved: ")
        t.expect("replay")
    finally:
        code = t.close()
    assert code == 0
    row = pq.read_table(out / "games.parquet").to_pylist()
    assert len(row) == 1
    assert (row[0]["human"], row[0]["resigned"], row[0]["winner"], row[0]["end_reason"]) == (0, 1, 1, RESIGNED)
    assert row[0]["plies"] == 2
    moves = json.loads((out / "moves.json").read_text())
    assert len(moves["history"]) == 2 and moves["against"] == "greedy"
    r = invoke(runner, ["play", "--replay", out])
    assert r.exit_code == 0
    assert r.stdout == (out / "trace.txt").read_text()
    assert f"1. side 0 (human): {hinted}" in r.stdout


def test_a_whole_game_with_dice_replays_to_the_same_transcript_and_record(tmp_path, monkeypatch):
    """Dice Race (dice every turn): the transcript shows each roll with its odds; the replay draws the
    dice and the AI's moves again from the seed and gives the same transcript and record."""
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    from simkit.games import GAMES
    monkeypatch.setitem(GAMES, "dice_race", "toygame")
    from simkit.env import game_scenario
    from simkit.env.playtest import playtest, replay
    said = []
    answers = iter(["hint", "2", "undo"] + ["1"] * 1000)
    state, tr, resigned = playtest(game_scenario("dice_race", None, ["track=12"]), 1, "mcts:20", seed=5, first=0,
                                   out=tmp_path / "g", ask=lambda prompt: next(answers), say=said.append)
    assert state.is_over() and resigned is None
    assert "chance: rolls " in tr.text and "(odds 1/6)" in tr.text
    assert "hint (mcts:20): pawn" in "\n".join(said)
    text, rec = replay(tmp_path / "g")
    assert text + "\n" == (tmp_path / "g" / "trace.txt").read_text() == tr.text + "\n"
    row = pq.read_table(tmp_path / "g" / "games.parquet").to_pylist()[0]
    assert [row[f] for f in state.spec.record_fields] == rec.tolist() == state.record().tolist()
    assert row["human"] == 1 and row["resigned"] == 0


def test_a_replay_that_the_seed_does_not_give_is_refused(tmp_path, runner):
    from simkit.env import game_scenario
    from simkit.env.playtest import playtest
    answers = iter(["1"] * 1000)
    playtest(game_scenario("martian_chess", None, ["max_plies=10"]), 0, "greedy", seed=1, out=tmp_path / "g",
             ask=lambda prompt: next(answers), say=lambda s: None)
    moves = json.loads((tmp_path / "g" / "moves.json").read_text())
    p, code = moves["history"][1]                       # the AI's first decision
    legal = np.array(sorted(set(range(1024)) - {code}))
    moves["history"][1] = [p, int(legal[0])]
    (tmp_path / "g" / "moves.json").write_text(json.dumps(moves))
    r = invoke(runner, ["play", "--replay", tmp_path / "g"])
    assert r.exit_code == 2 and "event 2 was" in r.output


@pytest.mark.parametrize("args, says", [
    (["playtest", "martian_chess", "--against", "best"], "unknown policy 'best'"),
    (["play", "--replay", "/nonexistent/dir"], "not a saved playtest"),
    (["play"], "give TARGET"),
])
def test_bad_playtest_input_is_one_line(runner, args, says):
    r = invoke(runner, args)
    assert r.exit_code == 2 and says in r.output and "Traceback" not in r.output


DOCS_PLAYTESTS = sorted((Path(__file__).parents[1] / "docs" / "playtests").glob("*/moves.json"))


@pytest.mark.parametrize("moves", DOCS_PLAYTESTS, ids=lambda p: p.parent.name)
def test_the_recorded_playtests_in_docs_replay_to_their_transcripts(moves):
    """docs/playtests/<game>/ (python -m simkit.env.examples --only playtest): the replay draws every
    die and AI decision again and gives the recorded transcript and games.parquet row."""
    from simkit.env.playtest import replay
    out = moves.parent
    text, rec = replay(out)
    assert text + "\n" == (out / "trace.txt").read_text()
    row = pq.read_table(out / "games.parquet").to_pylist()[0]
    manifest = json.loads((out / "manifest.json").read_text())
    from simkit.games import get_game
    fields = get_game(manifest["scenario"]["game"]).record_fields
    assert [row[f] for f in fields] == rec.tolist() and row["human"] == 0
    assert (out / "session.txt").read_text().splitlines()[0].startswith("$ simkit playtest ")


def test_docs_hold_a_recorded_playtest_of_every_game_with_a_step_api():
    from simkit.games import GAMES, get_game
    assert {m.parent.name for m in DOCS_PLAYTESTS} == {g for g in GAMES if get_game(g).steps is not None}
