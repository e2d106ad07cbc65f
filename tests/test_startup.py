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
