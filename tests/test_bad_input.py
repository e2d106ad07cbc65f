"""Bad input: a one-line error naming the file/key/value and what is allowed, exit 2, no traceback."""
import pytest

from conftest import invoke


def run_bad(runner, args):
    r = invoke(runner, args)
    assert r.exit_code == 2, r.output
    text = r.output.strip()
    assert "Traceback" not in text
    return text


def test_unknown_game(runner):
    t = run_bad(runner, ["run", "martian_chez"])
    assert "martian_chez" in t and "did you mean 'martian_chess'" in t


def test_unknown_key_suggests_nearest(runner, tmp_path):
    f = tmp_path / "v.toml"
    f.write_text('game = "martian_chess"\nfeild_promotion = false\n')
    t = run_bad(runner, ["run", f, "-n", 10])
    assert str(f) in t and "feild_promotion" in t and "did you mean 'field_promotion'" in t
    assert len(t.splitlines()) == 1


def test_unknown_set_key(runner):
    t = run_bad(runner, ["run", "martian_chess", "--set", "max_ply=3"])
    assert "--set" in t and "max_ply" in t and "max_plies" in t


def test_wrong_type(runner, tmp_path):
    f = tmp_path / "v.toml"
    f.write_text('game = "martian_chess"\nfield_promotion = "yes"\n')
    t = run_bad(runner, ["run", f])
    assert "field_promotion" in t and "'yes'" in t and "true or false" in t


def test_out_of_range(runner):
    t = run_bad(runner, ["run", "martian_chess", "--set", "max_plies=0"])
    assert "max_plies" in t and "from 1 to" in t


def test_bad_choice(runner):
    t = run_bad(runner, ["run", "martian_chess", "--set", "clock=leeder"])
    assert "'leeder'" in t and "'leader'" in t


def test_malformed_toml_gives_line_number(runner, tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('game = "martian_chess"\nclock = "off"\nmax_plies = = 3\n')
    t = run_bad(runner, ["run", f])
    assert str(f) in t and "line 3" in t


def test_games_zero_and_unknown_policy(runner):
    assert "--games" in run_bad(runner, ["run", "martian_chess", "--games", 0])
    t = run_bad(runner, ["run", "martian_chess", "--policy", "smart"])
    assert "smart" in t and "random" in t and "greedy" in t


def test_missing_file_and_extends_cycle(runner, tmp_path):
    assert "no such file" in run_bad(runner, ["run", tmp_path / "nope.toml"])
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.write_text('extends = "b.toml"\ngame = "martian_chess"\n')
    b.write_text('extends = "a.toml"\n')
    assert "cycle" in run_bad(runner, ["run", a])


def test_extends_inherits_and_overrides(tmp_path):
    from simkit.scenario import load_scenario
    from simkit.scenario.load import scenario_root
    f = tmp_path / "v.toml"
    f.write_text(f'extends = "{scenario_root() / "martian_chess" / "clock_leader.toml"}"\nmax_plies = 99\n')
    s = load_scenario(str(f), ["deadlock_plies=20"])
    assert s.game == "martian_chess" and s.rules["clock"] == "leader"
    assert s.rules["max_plies"] == 99 and s.rules["deadlock_plies"] == 20
    assert s.rules["field_promotion"] is True


@pytest.mark.parametrize("args", [["perft", "nogame"], ["rules", "nogame"], ["play", "nogame"]])
def test_other_commands_reject_unknown_games(runner, args):
    assert "unknown game" in run_bad(runner, args)


def test_handicap_validation(runner):
    t = run_bad(runner, ["run", "martian_chess", "--set", "remove_0.pawn=4"])
    assert "remove_0.pawn" in t
    t = run_bad(runner, ["run", "martian_chess", "--set", "remove_0.knight=1"])
    assert "knight" in t and "pawn" in t


def test_error_in_an_indexed_set_value_blames_set(runner):
    t = run_bad(runner, ["run", "warfare", "--set", "trees=[[2,5],[99,5]]", "-n", 10])
    assert t.startswith("error: --set: key 'trees[1]'") and "outside" in t
