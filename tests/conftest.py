import os

import pytest

os.environ.setdefault("NUMBA_NUM_THREADS", "2")
# learned evaluations (simkit learn) are found in a store outside the checkout: the tests read an empty one of
# their own, so weights a developer learned never change a golden record
os.environ["SIMKIT_EVALUATIONS"] = os.path.join(
    os.environ.get("PYTEST_TMP_EVALUATIONS") or __import__("tempfile").mkdtemp(prefix="simkit-eval-"), "store")


@pytest.fixture
def runner():
    from click.testing import CliRunner
    return CliRunner()


def invoke(runner, args):
    from simkit.cli import cli
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)


def slow_kernel_load(monkeypatch, backend_module, seconds=1.0):
    """Make a backend's no-game chunk (its kernel load; on a cold cache, a compile) take ``seconds`` longer."""
    import time
    real = backend_module.play_chunk

    def slow_load(*a):
        if a[4] == 0:           # the chunk's game count
            time.sleep(seconds)
        return real(*a)
    monkeypatch.setattr(backend_module, "play_chunk", slow_load)


# games registered only while a test runs: name -> module (tests/ is on sys.path)
TEST_GAMES = {"dice_race": "toygame"}


def _game_names():
    from simkit.games import GAMES
    return list(GAMES) + [g for g in TEST_GAMES if g not in GAMES]


@pytest.fixture(params=_game_names())
def step_game(request, monkeypatch):
    """Every registered game and the toy game; a game without a step API (no env.py) is skipped."""
    from pathlib import Path
    from simkit.games import GAMES, get_game
    if request.param in TEST_GAMES:
        monkeypatch.syspath_prepend(str(Path(__file__).parent))
        monkeypatch.setitem(GAMES, request.param, TEST_GAMES[request.param])
    if get_game(request.param).steps is None:
        pytest.skip(f"{request.param} has no step API yet (no env.py in its folder)")
    return request.param
