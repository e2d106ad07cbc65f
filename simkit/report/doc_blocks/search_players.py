"""Blocks of search players' numbers (cost "mcts": expensive, and rewritten with the next search engine;
run only when named)."""
from __future__ import annotations

from simkit.report.doc_blocks import block, ci, pct, shown, simkit, simkit_json
from simkit.report.doc_blocks.games import profile


block("profile-martian_chess-mcts", "docs/games/martian_chess.md", "mcts",
      "simkit run martian_chess --policy mcts:400 --games 300")(
    lambda: profile("martian_chess", [("mcts:400", "mcts:400", 300)]))
block("profile-storm_the_castle-mcts", "docs/games/storm_the_castle.md", "mcts",
      "simkit run storm_the_castle --policy0 mcts:400 --policy1 greedy --games 20 (and the seats swapped)",
      "simkit run storm_the_castle --policy0 mcts:400 --policy1 mcts:1600 --games 5 (and the seats swapped)")(
    lambda: profile("storm_the_castle", [("mcts:400", "greedy", 20), ("greedy", "mcts:400", 20),
                                         ("mcts:400", "mcts:1600", 5), ("mcts:1600", "mcts:400", 5)]))
block("profile-warfare-mcts", "docs/games/warfare.md", "mcts", "simkit run warfare --policy mcts:400 --games 20")(
    lambda: profile("warfare", [("mcts:400", "mcts:400", 20)]))


def matchup_table(game: str, *cmds: str) -> str:
    """`simkit matchup GAME ...` cells as rows (the later policy of each pair against the earlier)."""
    lines = ["| policy | opponent | score [95%] | as side 0 | as side 1 | draws | games | command |",
             "| --- | --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for cmd in cmds:
        s = simkit_json(f"matchup {game} {cmd}")
        pols = s["policies"]
        for c in s["cells"]:
            if pols.index(c["policy"]) > pols.index(c["opponent"]):
                lines.append(f"| {c['policy']} | {c['opponent']} | {ci(c['score'], *c['ci'], '{:.3f}')} | "
                             f"{c['as_side0']:.3f} | {c['as_side1']:.3f} | {pct(c['draw_rate'])} | "
                             f"{2 * c['games']:,} | `simkit matchup {game} {cmd}` |")
    return "Row policy's expected score (win 1, draw ½), both seat orders averaged, 95% score interval:\n\n" \
        + "\n".join(lines) + "\n"


def speed_text(*games: str) -> str:
    return shown(_speed_cmd(*games), simkit(_speed_cmd(*games)))


def _speed_cmd(*games: str) -> str:
    return f"bench {' '.join(games)} --policy mcts --mcts-budget 400 --threads 1"


# issue 22's bars: mcts:400 against greedy (>= 0.75), and a doubled-and-doubled budget against it (> 1/2). The
# games per seat order are what the shared 2-core machine affords per game (a search game costs seconds).
STRENGTH_GAMES = {"martian_chess": 100, "skorm": 50, "storm_the_castle": 50, "warfare": 50}


# the commands a game's block was measured with when they are not the default ones (Storm the Castle: issue 22's
# seed 7, and fewer mcts:1600 games: one costs about 15 CPU-s)
STRENGTH_MEASURED = {"storm_the_castle": ("--policies greedy,mcts:400 --games 100 --seed 7 --threads 1",
                                          "--policies mcts:400,mcts:1600 --games 40 --seed 7 --threads 1")}


def strength_commands(game: str) -> tuple[str, str]:
    if game in STRENGTH_MEASURED:
        return STRENGTH_MEASURED[game]
    n = STRENGTH_GAMES[game]
    return f"--policies greedy,mcts:400 --games {n}", f"--policies mcts:400,mcts:1600 --games {n}"


for _game in STRENGTH_GAMES:
    block(f"strength-{_game}", f"docs/games/{_game}.md", "mcts",
          *(f"simkit matchup {_game} {c}" for c in strength_commands(_game)))(
        lambda g=_game: matchup_table(g, *strength_commands(g)))


def draw_diagnosis_text(game: str, levels: str, games: int) -> str:
    """`simkit draws GAME --levels ... --games N`: the diagnosis's finding and its tables, as printed."""
    cmd = f"draws {game} --levels {levels} --games {games}"
    return shown(cmd, simkit(f"{cmd} --no-save"))


block("draws-warfare", "docs/skill.md", "mcts", "simkit draws warfare --levels greedy,mcts:100,mcts:400 --games 20")(
    lambda: draw_diagnosis_text("warfare", "greedy,mcts:100,mcts:400", 20))
block("speed-mcts", "docs/search.md", "mcts", "simkit " + _speed_cmd("martian_chess", "skorm", "storm_the_castle",
                                                                   "warfare"))(
    lambda: speed_text("martian_chess", "skorm", "storm_the_castle", "warfare"))
for _game in ("martian_chess", "storm_the_castle", "warfare"):
    block(f"speed-{_game}-mcts", f"docs/games/{_game}.md", "mcts", "simkit " + _speed_cmd(_game))(
        lambda g=_game: speed_text(g))


# a speed knob of the search side by side with plain mcts:400 (docs/search.md): speed in one run, strength
# per game. mcts_reuse ("Tree reuse"); mcts_stop ("Early stop"), also with reuse
KNOB_GAMES = ("martian_chess", "skorm", "storm_the_castle", "warfare")


def beside_bench(games, variants) -> str:
    """`simkit bench` of search variants beside plain mcts:400, in one run (one thread, 10 s a cell)."""
    policies = " ".join(f"--policy {p}" for p in ("mcts:400",) + tuple(variants))
    return f"bench {' '.join(games)} {policies} --threads 1 --seconds 10"


def knob_blocks(name: str, *variants: str) -> None:
    bench = beside_bench(KNOB_GAMES, variants)
    block(f"{name}-speed", "docs/search.md", "mcts", f"simkit {bench}")(lambda: shown(bench, simkit(bench)))
    # each variant against plain mcts:400: a knob alone, and with the others it is used with
    matchups = tuple(f"--policies mcts:400,{v} --games 200" for v in variants)
    for game in KNOB_GAMES:
        block(f"{name}-strength-{game}", "docs/search.md", "mcts", *(f"simkit matchup {game} {m}" for m in matchups))(
            lambda g=game: matchup_table(g, *matchups))


knob_blocks("reuse", "mcts:400/mcts_reuse=true")
knob_blocks("stop", "mcts:400/mcts_stop=true", "mcts:400/mcts_reuse=true/mcts_stop=true")


# issue 24's "rollouts longer than the evaluation needs" (docs/speed.md, "Shorter rollouts"): the two games short of
# 2 games/s at mcts:400, with rollouts one (and two) turns shorter than their default mcts_cutoff (Storm the
# Castle 3, Warfare! 2): the speed side by side, the strength against the default, and Warfare!'s ladder there
CUTOFF_PROBES = {"storm_the_castle": ("mcts:400/mcts_cutoff=2", "mcts:400/mcts_cutoff=1"),
                 "warfare": ("mcts:400/mcts_cutoff=1",)}
CUTOFF_MATCHUPS = {
    "storm_the_castle": ("--policies mcts:400,mcts:400/mcts_cutoff=2 --games 200",
                         "--policies mcts:400,mcts:400/mcts_cutoff=1 --games 100"),
    "warfare": ("--policies mcts:400,mcts:400/mcts_cutoff=1 --games 200",
                "--policies greedy,mcts:400/mcts_cutoff=1 --games 50",
                "--policies mcts:400/mcts_cutoff=1,mcts:1600/mcts_cutoff=1 --games 100"),
}

_CUTOFF_BENCHES = [beside_bench((g,), v) for g, v in CUTOFF_PROBES.items()]
block("cutoff-speed", "docs/speed.md", "mcts", *(f"simkit {b}" for b in _CUTOFF_BENCHES))(
    lambda: "\n".join(shown(b, simkit(b)) for b in _CUTOFF_BENCHES))
for _game, _cmds in CUTOFF_MATCHUPS.items():
    block(f"cutoff-strength-{_game}", "docs/speed.md", "mcts", *(f"simkit matchup {_game} {c}" for c in _cmds))(
        lambda g=_game, cs=_cmds: matchup_table(g, *cs))
