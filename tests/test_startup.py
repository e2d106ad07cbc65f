"""Start-up: `simkit --help` answers without importing numba (issue 13: instant start)."""
import subprocess
import sys


def test_help_does_not_import_numba_or_pandas():
    code = ("import sys\n"
            "from click.testing import CliRunner\n"
            "from simkit.cli import cli\n"
            "r = CliRunner().invoke(cli, ['--help'])\n"
            "assert r.exit_code == 0 and 'simkit run' in r.output, r.output\n"
            "print(','.join(m for m in ('numba', 'pandas', 'statsmodels', 'matplotlib') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "", f"imported at --help: {out.strip()}"


def _imports_numba(args) -> bool:
    code = ("import sys\n"
            "from click.testing import CliRunner\n"
            "from simkit.cli import cli\n"
            f"r = CliRunner().invoke(cli, {list(args)!r})\n"
            "assert r.exit_code == 0, r.output\n"
            "print('numba' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return out.strip() == "True"


def test_games_and_rules_do_not_import_numba():
    # GameSpec hooks import a game's kernels only when one is called
    from simkit.games import GAMES
    assert not _imports_numba(["games"])
    for game in GAMES:
        assert not _imports_numba(["rules", game]), game


def test_a_hook_is_its_target_for_callers_and_pickle():
    import inspect
    import pickle
    from simkit.games import get_game
    from simkit.games.martian_chess.render import play
    hook = get_game("martian_chess").play
    assert inspect.signature(hook) == inspect.signature(play)
    assert pickle.loads(pickle.dumps(hook)).target() is play


def _main_at_exit(args) -> subprocess.CompletedProcess:
    """`simkit ARGS` through the console entry point, with a handler registered before main() that runs after
    every handler main() registers (atexit is last in, first out) and reports what exit will collect."""
    code = ("import atexit, gc, sys\n"
            "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0))\n"
            f"sys.argv = ['simkit', *{list(args)!r}]\n"
            "from simkit.cli import main\n"
            "main()\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_exit_skips_collecting_the_objects_a_command_leaves():
    # CPython's last collections walked every object numba, pandas and pyarrow leave: 0.36 s of a
    # 1,000,000-game run (docs/speed.md, "Exit"); the output, the exit code and atexit handlers stay
    ok = _main_at_exit(["games"])
    assert ok.returncode == 0, ok.stderr
    assert "martian_chess" in ok.stdout and ok.stdout.rstrip().endswith("frozen at exit: True")
    bad = _main_at_exit(["rules", "no_such_game"])
    assert bad.returncode == 2 and bad.stderr.startswith("error: "), (bad.returncode, bad.stderr)
    assert bad.stdout.strip() == "frozen at exit: True"
