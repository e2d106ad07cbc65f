"""Fuzzed `simkit run` argument lists (small --games): a valid run (exit 0) or a clean error
(exit 2, one line, no traceback), never a hang, and never a run directory that looks complete
without a games.parquet holding every row."""
import itertools
import os

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_helpers import TEXT, check_cli_result
from simkit.cli import cli
from simkit.games import GAMES

N = int(os.environ.get("SIMKIT_FUZZ_EXAMPLES", "1"))
_dirs = itertools.count()

INTS = st.one_of(st.integers(-3, 40), st.sampled_from([2**31, 2**63 - 1, 2**63, -(2**63) - 1, 10**30]))
OPTION_VALUES = {
    "--games": st.one_of(st.integers(-2, 12), st.sampled_from(["0", "x", "1e3", "", "-1", "10" * 20, "2" + "0" * 25])),
    "--seed": st.one_of(INTS, TEXT),
    "--policy": st.one_of(st.sampled_from(["random", "greedy", "Random", ""]), TEXT),
    "--policy0": st.sampled_from(["random", "greedy", "minimax"]),
    "--policy1": st.sampled_from(["random", "greedy", "???"]),
    "--first": st.sampled_from(["alternate", "side0", "side1", "random", "third"]),
    "--threads": st.one_of(st.integers(-1, 4), st.just(10**6)),
    "--chunk-size": st.one_of(st.integers(-2, 7), INTS),
    "--snapshot-ply": INTS,
    "--set": st.one_of(
        st.sampled_from(["max_plies=20", "clock=off", "clock=leader", "max_turns=5", "max_plies=1",
                         "remove_0.pawn=1", "remove_0={}", "army.cavalry=0", "width=3", "board_radius=2",
                         "dispatch_points=0", "hand_size=0", "max_plies=-1", "=", "x", "a.b.c=1",
                         "max_plies=1e400", "max_plies=nan", "clock=[1,2]", "values={}", "deck={}"]),
        st.builds(lambda k, v: f"{k}={v}", TEXT, TEXT)),
    "--precision": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["x", "0.5"])),
    "--backend": st.just("local"),
    "--workers": st.sampled_from([0, -1, 10**6]),          # with dask: rejected before any cluster starts
    "--scheduler": st.sampled_from(["nonsense", "", "8786"]),
    "--resume": None, "--no-save": None, "--json": None, "--progress": None, "--no-progress": None,
    "--bogus": None, "-x": None, "--help": None,
}
TARGETS = st.one_of(st.sampled_from(sorted(GAMES) + ["martian", "nonexistent", "x.toml", "", "-", "/",
                                                    "scenarios/martian_chess/clock_off.toml",
                                                    "scenarios/storm_the_castle/sickness.toml"]), TEXT)


@st.composite
def argv(draw):
    args = ["run", draw(TARGETS)]
    has_games = False
    for opt in draw(st.lists(st.sampled_from(sorted(OPTION_VALUES)), max_size=6)):
        strat = OPTION_VALUES[opt]
        if opt == "--help" and draw(st.integers(0, 5)):
            continue
        args.append(opt)
        if strat is not None:
            args.append(str(draw(strat)))
        has_games |= opt == "--games"
    if "--backend" in args and draw(st.booleans()):
        args += ["--backend", "dask"]       # then --workers/--scheduler values above make it fail fast
        if "--workers" not in args and "--scheduler" not in args:
            args += ["--workers", "0"]
    if not has_games:
        args += ["--games", str(draw(st.integers(1, 6)))]
    return args


@settings(max_examples=80 * N, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(args=argv(), save=st.booleans())
@pytest.mark.timeout(300)
def test_run_arguments(tmp_path_factory, args, save):
    out = None
    if save and "--no-save" not in args:
        out = tmp_path_factory.getbasetemp() / f"fuzz-cli-{next(_dirs)}"
        args = args + ["--out", str(out)]
    elif "--no-save" not in args:
        args = args + ["--no-save"]
    r = CliRunner().invoke(cli, args)
    check_cli_result(r, out)
