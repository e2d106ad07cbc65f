"""`simkit luck` (analysis/luck.py): the seed's share recovers a known variance split, a game without
dice has a share near 0, the luck of each side's own rolls averages 0 (the exact odds), upsets are
read off the round robin, and the command compares two variants with intervals."""
import json

import numpy as np
import pytest

from conftest import invoke
from simkit.analysis.luck import play_split, seed_share, upsets


def test_seed_share_recovers_a_known_split():
    rng = np.random.default_rng(3)
    seeds, replays = 300, 4
    a = rng.normal(0, 1.0, (seeds, 1))              # between-seed variance 1
    y = a + rng.normal(0, 1.0, (seeds, replays))     # within 1: share 1/2
    r = seed_share(y, np.zeros(seeds, int), np.random.default_rng(1))
    assert r["ci"][0] < 0.5 < r["ci"][1] and r["ci"][1] - r["ci"][0] < 0.25
    # a seat effect alone is not luck: removed before the split
    firsts = np.arange(seeds) % 2
    y2 = rng.normal(0, 1.0, (seeds, replays)) + 3.0 * firsts[:, None]
    r2 = seed_share(y2, firsts, np.random.default_rng(1))
    assert r2["ci"][0] <= 0.05


def test_a_deterministic_player_gets_no_interval_and_says_why():
    y = np.repeat(np.array([[0.0], [1.0], [1.0], [0.0]]), 3, axis=1)
    r = seed_share(y, np.zeros(4, int))
    assert r["share"] == 1.0 and np.isnan(r["ci"][0]) and "decisions do not vary" in r["note"]


def test_upsets_are_the_weaker_players_wins():
    cells = {("greedy", "random"): {"games": 50, "score": 0.9, "draw_rate": 0.1}}
    (u,) = upsets(cells, ["random", "greedy"])
    # 100 games, the stronger scores 90 points with 10 draws: the weaker won 100 - 90 - 5 = 5
    assert u["weaker"] == "random" and u["gap"] == 1 and u["upset_rate"] == pytest.approx(0.05)
    assert u["ci"][0] < 0.05 < u["ci"][1]


def test_each_sides_own_rolls_average_zero_luck(step_game):
    """Exact odds: a roll's luck (realised value minus expected value) has mean 0 for each side."""
    if step_game == "martian_chess":
        pytest.skip("no dice")
    from simkit import env
    from simkit.games import get_game
    from simkit.policies import policy_vector
    s0 = env.new_game(step_game)
    pv = policy_vector(get_game(step_game), ("random", "random"))
    own = [[], []]
    for g in range(40):
        r = play_split(s0.steps, pv, 11, g, g % 2, 1000 + g)
        own[0].append(r["luck0_own"])
        own[1].append(-r["luck0_opp"])
    if all(np.all(np.array(x) == 0) for x in own):
        pytest.skip(f"{step_game}'s default rules roll no dice")
    for x in own:
        x = np.array(x)
        half = 2.6 * x.std(ddof=1) / np.sqrt(len(x))          # 99%: 4 sides x games must rarely fail
        assert abs(x.mean()) <= half, (x.mean(), half)


def test_luck_command_compares_two_variants(runner, tmp_path, step_game):
    if step_game != "dice_race":
        pytest.skip("one game is enough for the command; the toy is fast")
    out = tmp_path / "luck"
    r = invoke(runner, ["luck", "dice_race", "--set-b", "track=8", "--policies", "random,greedy", "--player",
                        "random", "--seeds", "30", "--replays", "3", "--games", "30", "--out", out])
    assert r.exit_code == 0, r.output
    res = json.loads((out / "luck.json").read_text())
    labels = [e["label"] for e in res["entries"]]
    assert labels[0].endswith("(A)") and labels[1].endswith("(B: track=8)")
    for e in res["entries"]:
        s = e["seed_share"]
        assert 0 <= s["ci"][0] <= s["share"] <= s["ci"][1] <= 1 and s["ci"][0] < s["ci"][1]
        assert e["luck_swing"]["rolls_per_game"] > 0
    d = res["difference"]
    assert d["seed_share"]["ci"][0] < d["seed_share"]["diff"] < d["seed_share"]["ci"][1]
    assert "B - A: seed's share" in r.output
    rep = invoke(runner, ["report", out, "-o", tmp_path / "rep"])
    assert rep.exit_code == 0 and (tmp_path / "rep" / "skill_luck.png").exists()


def test_compare_luck_is_the_luck_study_of_a_and_b(runner, tmp_path, step_game):
    if step_game != "dice_race":
        pytest.skip("one game is enough for the command; the toy is fast")
    out = tmp_path / "cmp"
    r = invoke(runner, ["compare", "dice_race", "--set-b", "track=8", "--games", "20", "--luck", "random,greedy",
                        "--out", out])
    assert r.exit_code == 0, r.output
    res = json.loads((out / "luck.json").read_text())
    assert len(res["entries"]) == 2 and res["player"] == "greedy" and "seed_share" in res["difference"]
    bad = invoke(runner, ["compare", "dice_race", "--set-b", "track=8", "--luck", "random,greedy", "--skill",
                          "random,greedy", "--no-save"])
    assert bad.exit_code == 2 and "--luck runs its own measurement" in bad.output
