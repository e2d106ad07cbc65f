import os

import pytest

os.environ.setdefault("NUMBA_NUM_THREADS", "2")


@pytest.fixture
def runner():
    from click.testing import CliRunner
    return CliRunner()


def invoke(runner, args):
    from simkit.cli import cli
    return runner.invoke(cli, [str(a) for a in args], catch_exceptions=False)
