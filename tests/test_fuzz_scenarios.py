"""Fuzzed scenario files: random keys, types, nesting, huge and negative numbers, unicode and
garbage bytes. `simkit run FILE` either runs (exit 0) or fails cleanly (exit 2, one line)."""
import os

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzz_helpers import KEYS, VALUES, check_cli_result, mutated_rules, toml_doc
from simkit.cli import cli
from simkit.games import GAMES

N = int(os.environ.get("SIMKIT_FUZZ_EXAMPLES", "1"))
pytestmark = pytest.mark.timeout(300)     # a hang fails the test instead of stalling the suite
def fuzz(n):
    return settings(max_examples=n * N, deadline=None, database=None, suppress_health_check=list(HealthCheck))
RUN = ["--games", "2", "--no-save", "--json", "--threads", "1"]


def _run(tmp_path, name: str, content: bytes, extra=()):
    path = tmp_path / name
    path.write_bytes(content)
    return CliRunner().invoke(cli, ["run", str(path), *RUN, *extra])


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


@fuzz(60)
@given(rules=mutated_rules(), policy=st.sampled_from(["random", "greedy"]))
def test_mutated_default_scenarios(tmp, rules, policy):
    r = _run(tmp, "mutated.toml", toml_doc(rules).encode(), ["--policy", policy])
    check_cli_result(r)


@fuzz(40)
@given(doc=st.dictionaries(KEYS, VALUES, max_size=6), game=st.sampled_from(sorted(GAMES) + [None]))
def test_random_documents(tmp, doc, game):
    if game is not None:
        doc = {"game": game, **doc}
    check_cli_result(_run(tmp, "random.toml", toml_doc(doc).encode()))


@fuzz(30)
@given(data=st.binary(max_size=200))
def test_garbage_bytes(tmp, data):
    check_cli_result(_run(tmp, "garbage.toml", data))


@fuzz(30)
@given(data=st.data())
def test_corrupted_default_files(tmp, data):
    """Byte flips, cuts and insertions in a real scenario file."""
    game = data.draw(st.sampled_from(sorted(GAMES)))
    from simkit.scenario.load import scenario_dir
    text = bytearray((scenario_dir(game) / "default.toml").read_bytes())
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, max(0, len(text) - 1)))
        op = data.draw(st.sampled_from(["flip", "cut", "insert"]))
        if op == "flip" and text:
            text[i] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del text[i:i + data.draw(st.integers(1, 40))]
        else:
            text[i:i] = data.draw(st.sampled_from([b"-", b"9999999999999999999999", b"\xff", b"[", b"=",
                                                   b"\"", b"{}", b"nan", b"-1", b"\n[x]\n", b"\xe2\x82"]))
    check_cli_result(_run(tmp, "corrupt.toml", bytes(text)))


@fuzz(25)
@given(extends=st.one_of(st.sampled_from(["", ".", "..", "/", "/dev/null", "/etc/hostname", "corrupt.toml",
                                          "self.toml", "missing.toml", "../fuzz", "nul\x00byte.toml", "a" * 300]),
                         VALUES))
def test_extends_anything(tmp, extends):
    (tmp / "self.toml").write_text('game = "martian_chess"\nextends = "self.toml"\n')
    doc = {"game": "martian_chess", "extends": extends}
    check_cli_result(_run(tmp, "ext.toml", toml_doc(doc).encode()))
