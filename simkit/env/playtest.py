"""``simkit playtest``: a person plays a game in the terminal against simkit's AI, through the step API.

The session prints the board as the game's trace draws it, the legal decisions as short
codes, the AI's decisions and every chance result with its odds; the person types a code
(or its number), ``hint`` (the AI's choice for the person's side), ``undo`` (back to the
person's previous decision), ``resign`` or ``help``. The game is saved as a run directory
(manifest, a one-row games.parquet tagged with the person's side, aggregate, summary) plus
``moves.json`` (every decision and chance outcome) and ``trace.txt`` (the transcript
without the prompts); ``simkit play --replay DIR`` replays it and checks every AI decision
and die against the seed.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np

from simkit.env.state import CHANCE, State
from simkit.errors import SimkitError, UsageError

HUMAN = "human"
COMMANDS = "type a code or its number; hint, undo, resign, help"


def odds(p: float) -> str:
    f = Fraction(p).limit_denominator(100_000)
    return f"{f.numerator}/{f.denominator}" if f.denominator > 1 else "certain"


class Transcript:
    """The trace lines of a game played through the step API (the playtest prints and saves them; the
    replay prints them again): the header, the board, each decision and chance result, the result."""

    def __init__(self, scenario, seed: int, first: int, names):
        from simkit.games.trace import variant_label
        spec = scenario.spec
        self.names = list(names)
        self.lines = [f"game:     {spec.title} ({spec.name})",
                      f"variant:  {variant_label(scenario)}",
                      f"policies: side 0 = {names[0]}, side 1 = {names[1]}",
                      f"seed {seed}, game 0 (the game `simkit run --seed {seed}` plays at index 0 with these "
                      f"players); first player: side {first}"]

    def board(self, state: State):
        self.lines += ["", state.render()]

    def event(self, state: State, player: int, code: int) -> str:
        """The line of a decision or chance outcome, before it is applied to ``state``."""
        n = len(state.history) + 1
        if player == CHANCE:
            p = dict(state.chance_outcomes())[code]
            line = f"{n}. chance: {state.action_label(code)} (odds {odds(p)})"
        else:
            line = f"{n}. side {player} ({self.names[player]}): {state.action_label(code)}"
            full = state.steps.describe(state.S, code)
            if full != state.action_label(code):
                line += f"  [{full}]"
        self.lines += ["", line]
        return line

    def result(self, state: State, resigned: int | None):
        spec = state.spec
        length = f"{int(state.rec[2])} {spec.length_unit}"
        if resigned is not None:
            self.lines += ["", f"side {resigned} ({self.names[resigned]}) resigns: side {1 - resigned} wins"]
        else:
            w = state.winner()
            who = "draw" if w < 0 else f"side {w} ({self.names[w]}) wins"
            self.lines += ["", f"{who} ({spec.end_reasons[int(state.rec[3])]}) after {length}"]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


class AI:
    """The opponent (and the hints): one of simkit's policies, or a python:... agent."""

    def __init__(self, spec, steps, name: str, seed: int):
        from simkit.env.agents import agent_seed, is_agent, load_factory
        from simkit.policies import policy_vector
        self.name = name
        if is_agent(name):
            self.agent = load_factory(name)(steps, agent_seed(seed, 0, 2))
            self.pv = None
        else:
            self.agent = None
            self.pv = policy_vector(spec, (name, name))

    def choose(self, state: State) -> int:
        """The AI's decision at ``state`` (a simkit policy draws from the game's stream, as in a run)."""
        if self.agent is not None:
            return int(self.agent(state.clone(player=state.current_player)))
        return state.scripted_action(self.pv)

    def hint(self, state: State) -> int:
        """What the AI would play here for the side to move, leaving the game's stream alone."""
        return self.choose(state.clone())


def _parse(text: str, state: State, labels: list[str]):
    """The decision a person typed (a label or its number in the list), or None."""
    t = text.strip()
    legal = state.legal_actions()
    if t.isdigit() and 1 <= int(t) <= len(legal):
        return legal[int(t) - 1]
    low = [lab.lower() for lab in labels]
    return legal[low.index(t.lower())] if t.lower() in low else None


def legal_table(state: State, width: int = 100) -> str:
    cells = [f"{k + 1:>3} {state.action_label(a)}" for k, a in enumerate(state.legal_actions())]
    w = max(len(c) for c in cells) + 2
    per = max(1, width // w)
    return "\n".join("".join(c.ljust(w) for c in cells[i:i + per]).rstrip() for i in range(0, len(cells), per))


def playtest(scenario, human: int, against: str, seed: int = 0, first: int = 0, out=None, ask=input, say=print,
             watch=None):
    """Play one game: the person is side ``human``, the AI plays ``against``. Returns (state, transcript,
    resigned side or None). ``ask``/``say``: the terminal (input/print); ``watch(state)``, if given, sees
    the position before each prompt (a scripted person reads it)."""
    from simkit.env import new_game_from
    from simkit.policies import parse_policy
    if human not in (0, 1):
        raise UsageError(f"--human must be 0 or 1, got {human}")
    spec = scenario.spec
    parse_policy(spec, against)
    # the AI's own search knobs (mcts:400/mcts_c=0.5) in both rows: its decisions and its hints
    state = new_game_from(scenario, seed=seed, game=0, first=first, policies=(against, against))
    ai = AI(spec, state.steps, against, seed)
    names = [HUMAN, against] if human == 0 else [against, HUMAN]
    tr = Transcript(scenario, seed, first, names)
    for line in tr.lines:
        say(line)
    tr.board(state)
    say("\n" + state.render(human))
    undo: list[tuple[State, int]] = []     # (state, transcript length) at each of the person's decisions
    resigned = None
    while not state.is_over():
        p = state.current_player
        if p == CHANCE:
            outcome = int(state.steps.roll(state.S, state.rng))
            say(tr.event(state, CHANCE, outcome))
            state.apply(outcome)
            continue
        if p != human:
            code = ai.choose(state)
            say(tr.event(state, p, code))
            state.apply(code)
            tr.board(state)
            say(state.render(human))
            continue
        labels = [state.action_label(a) for a in state.legal_actions()]
        say(f"\nyour move, side {human}: {COMMANDS}\n{legal_table(state)}")
        while True:
            if watch is not None:
                watch(state)
            try:
                text = ask("> ")
            except EOFError:
                text = "resign"
            cmd = text.strip().lower()
            if cmd in ("hint", "h", "?"):
                h = ai.hint(state)
                say(f"hint ({against}): {state.action_label(h)}")
                continue
            if cmd in ("undo", "u"):
                if not undo:
                    say("nothing to undo: this is your first decision")
                    continue
                state, n = undo.pop()
                del tr.lines[n:]
                say("undone; back to your previous decision\n" + state.render(human))
                labels = [state.action_label(a) for a in state.legal_actions()]
                say(f"\nyour move, side {human}: {COMMANDS}\n{legal_table(state)}")
                continue
            if cmd == "resign":
                resigned = human
                break
            if cmd in ("help", ""):
                say(COMMANDS)
                continue
            code = _parse(text, state, labels)
            if code is None:
                say(f"not a legal move here: {text.strip()!r}; {COMMANDS}")
                continue
            undo.append((state.clone(), len(tr.lines)))
            say(tr.event(state, p, code))
            state.apply(code)
            tr.board(state)
            say(state.render(human))
            break
        if resigned is not None:
            break
    tr.result(state, resigned)
    say(tr.lines[-1])
    if out is not None:
        save(Path(out), scenario, state, tr, names, human, against, resigned)
        say(f"saved: {out} (replay: simkit play --replay {out})")
    return state, tr, resigned


def save(out: Path, scenario, state: State, tr: Transcript, names, human: int, against: str, resigned):
    """The run directory of one played game, plus moves.json and trace.txt."""
    from simkit.backends import store
    from simkit.engine.runner import RunConfig, RunResult
    from simkit.engine.tally import Tally
    from simkit.games.base import RESIGNED
    spec = scenario.spec
    rec = state.record()
    if resigned is not None:   # the rules did not end the game: the person conceded it
        state.steps.finish(state.S, state.first, rec, state.snapshot_ply)
        rec[1], rec[3] = 1 - resigned, RESIGNED
    config = RunConfig(games=1, seed=state.seed, policies=tuple(names), first=f"side{state.first}")
    store.start_run(out, scenario, config, threads=1)
    store.write_chunk(out, spec, state.seed, 0, rec[None, :], state.agg,
                      extra={"human": human, "resigned": int(resigned is not None)})
    result = RunResult(scenario, config, Tally(spec).add(rec[None, :], state.agg), 0.0, out_dir=out)
    store.finish_run(out, result, complete=True)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["playtest"] = {"human": human, "against": against, "resigned": resigned}
    store.atomic_write_json(out / "manifest.json", manifest)
    store.atomic_write_json(out / "moves.json", {"history": [[int(p), int(c)] for p, c in state.history],
                                                 "human": human, "against": against, "resigned": resigned,
                                                 "seed": state.seed, "first": state.first})
    store.atomic_write_bytes(out / "trace.txt", (tr.text + "\n").encode())


def replay(out) -> tuple[str, np.ndarray]:
    """Replay a saved playtest: (its transcript, its record). Every die and every decision of a
    simkit policy is drawn again from the seed and must be the one recorded (UsageError if not)."""
    from simkit.env import new_game_from
    from simkit.scenario import Scenario
    out = Path(out)
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        moves = json.loads((out / "moves.json").read_text())
    except (OSError, ValueError) as e:
        raise UsageError(f"{out}: not a saved playtest (manifest.json and moves.json): {e}") from None
    sc = dict(manifest["scenario"])
    try:   # the rules as saved, validated now: an option added since then takes its default
        from simkit.games import get_game
        from simkit.scenario.schema import validate_rules
        sc["rules"] = validate_rules(get_game(sc["game"]).options, sc["rules"])
    except SimkitError as e:
        raise UsageError(f"{out}/manifest.json: {e}") from None
    scenario = Scenario(**sc)
    human, against, resigned = moves["human"], moves["against"], moves["resigned"]
    state = new_game_from(scenario, seed=moves["seed"], game=0, first=moves["first"], policies=(against, against))
    names = [HUMAN, against] if human == 0 else [against, HUMAN]
    ai = AI(scenario.spec, state.steps, against, moves["seed"])
    tr = Transcript(scenario, moves["seed"], moves["first"], names)
    tr.board(state)
    for k, (p, code) in enumerate(moves["history"]):
        if p == CHANCE:
            again = int(state.steps.roll(state.S, state.rng))
        elif p != human and ai.pv is not None:
            again = ai.choose(state)
        else:
            again = code
        if again != code:
            raise UsageError(f"{out}/moves.json: event {k + 1} was {code}, but the seed gives {again} "
                             f"(a different simkit or rules)")
        tr.event(state, p, code)
        state.apply(code)
        if p != CHANCE:
            tr.board(state)
    tr.result(state, resigned)
    rec = state.record()
    if resigned is not None:
        from simkit.games.base import RESIGNED
        state.steps.finish(state.S, state.first, rec, state.snapshot_ply)
        rec[1], rec[3] = 1 - resigned, RESIGNED
    return tr.text, rec
