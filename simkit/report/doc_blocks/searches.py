"""Blocks of tune and sensitivity searches (slow: thousands of games per setting)."""
from __future__ import annotations

from simkit.report.doc_blocks import block, ci, pct, shown, simkit, simkit_json


def tune_table(cmd: str) -> str:
    """`simkit tune ...` as a markdown table: one row per setting raced, one column per stage (search
    rounds: the objectives' estimates; verification and confirmation: with the 95% interval and the
    judgement), then the recommendation."""
    from simkit.analysis.tune import metric_ci
    s = simkit_json(f"tune {cmd}")
    res = _last_tune
    keys, objs = res.keys, res.objectives
    stages = sorted({(e["round"], e["stage"], e["games"], e["seed"]) for e in res.evaluated}
                    | {(e["round"], e["stage"], e["games"], e["seed"]) for e in res.verified}
                    | ({(res.confirmed["round"], "confirm", res.confirmed["games"], res.confirmed["seed"])}
                       if res.confirmed else set()))
    names = {"search": "round {r} ({g:,} games, seed {s})", "verify": "verification ({g:,} fresh games)",
             "confirm": "confirmation ({g:,} further fresh games)"}
    entries = res.evaluated + res.verified + ([res.confirmed] if res.confirmed else [])
    points = list(dict.fromkeys(e["point"] for e in entries))

    def cell(e):
        parts = []
        for o in objs:
            est, lo, hi = metric_ci(e["summary"], o.metric)
            if e["stage"] == "search":
                parts.append(f"{est:+.4f}")
            else:
                parts.append(f"{ci(est, lo, hi)} {o.met(e['summary'], res.tolerance)}")
        return " / ".join(parts)
    head = "| " + ", ".join(keys) + " | " + " | ".join(names[st].format(r=r, g=g, s=sd) for r, st, g, sd in stages) \
        + " |"
    lines = [f"`simkit tune {cmd}` (objective{'s' if len(objs) > 1 else ''} "
             f"{' / '.join(o.text for o in objs)}; verification and confirmation seeds derived from the search "
             f"seed):", "", head, "| --- |" + " --- |" * len(stages)]
    for pt in points:
        row = []
        for r, st, _, _ in stages:
            e = next((e for e in entries if e["point"] == pt and e["round"] == r and e["stage"] == st), None)
            row.append("" if e is None else cell(e))
        lines.append(f"| {', '.join(str(v) for v in pt)} | " + " | ".join(row) + " |")
    rec = s["recommended"]
    lines += ["", f"Recommended: {', '.join(f'`{k} = {v}`' for k, v in rec['setting'].items())} — "
              + ("meets every objective" if rec["meets_all"] else "does not meet every objective")
              + f"; its estimates are from {rec['measured_on']}."]
    if s.get("identical_settings"):
        lines.append(f"{len(s['identical_settings'])} setting(s) resolve to the same rules as one raced and were "
                     f"not raced again.")
    return "\n".join(lines) + "\n"


_last_tune = None


def _capture_tune():
    """Keep the TuneResult of the next `simkit tune` in this process (its JSON has no per-round rows)."""
    import simkit.analysis.tune as tune_module
    original = tune_module.tune

    def capturing(*a, **k):
        global _last_tune
        _last_tune = original(*a, **k)
        return _last_tune
    return tune_module, original, capturing


def tune_table_of(cmd: str) -> str:
    module, original, capturing = _capture_tune()
    module.tune = capturing
    try:
        return tune_table(cmd)
    finally:
        module.tune = original


def tune_output(cmd: str) -> str:
    """`simkit tune ...` exactly as it prints (rounds on stderr, the finalists' and confirmation tables)."""
    return shown(f"tune {cmd}", simkit(f"tune {cmd} --no-save"))


_TUNE = {
    "tune-storm_the_castle": ("docs/games/storm_the_castle.md", "slow", tune_table_of,
                              "storm_the_castle --knob second_player_dispatch_bonus=0..4 "
                              "--objective first_player_advantage=0"),
    "tune-storm_the_castle-2knob": ("docs/games/storm_the_castle.md", "slow", tune_table_of,
                                    "storm_the_castle --knob second_player_dispatch_bonus=0..3 "
                                    "--knob second_player_extra_cards=0..2 --objective first_player_advantage=0 "
                                    "--games 1000"),
    "tune-warfare": ("docs/games/warfare.md", "slow", tune_table_of,
                     "warfare --knob second_player_extra_activations=1..4 --knob second_player_extra_turns=1,3,5,8 "
                     "--objective first_player_advantage=0 --games 4000 --verify-games 16000"),
    "tune-skorm": ("docs/games/skorm.md", "slow", tune_output,
                   "skorm --knob second_player_first_actions=1..4 --objective first_player_advantage=0 "
                   "--games 4000"),
    "tune-martian_chess": ("docs/tune.md", "slow", tune_output,
                           "martian_chess --knob komi=-1..1:0.5 --objective first_player_advantage=0 --games 4000"),
    "tune-martian_chess-2knob": ("docs/tune.md", "slow", tune_output,
                                 "martian_chess --knob komi=-0.5..0.5:0.5 --knob deadlock_plies=10..18 "
                                 "--objective first_player_advantage=0 --objective draw_rate<=0.3 --policy random "
                                 "--games 4000"),
    "tune-martian_chess-mcts50": ("docs/tune.md", "mcts", tune_output,
                                  "martian_chess --knob komi=-0.5..0.5:0.5 --objective first_player_advantage=0 "
                                  "--policy mcts:50 --games 500 --verify-games 3000"),
}
for _name, (_doc, _cost, _how, _cmd) in _TUNE.items():
    block(_name, _doc, _cost, f"simkit tune {_cmd}")(lambda h=_how, c=_cmd: h(c))


FEWER_DRAWS = ("martian_chess --knob clock=deadlock,leader --knob clock_plies=4..14 --knob komi=0,0.5 "
               "--objective draw_rate=min --objective first_player_advantage=0 --tolerance 0.02 --policy greedy "
               "--games 4000")


def fewer_draws(cmd: str = FEWER_DRAWS) -> str:
    """docs/tune.md's "fewer draws, still fair": the tune's output as it prints, then what its first round
    says about the settings the constraint drops (komi 0.5) and the parity of `clock_plies`."""
    module, original, capturing = _capture_tune()
    module.tune = capturing
    try:
        out = tune_output(cmd)
    finally:
        module.tune = original
    r0 = [e for e in _last_tune.evaluated if e["round"] == 0]
    at = {dict(zip(_last_tune.keys, e["point"]))["komi"]: [] for e in r0}
    for e in r0:
        at[dict(zip(_last_tune.keys, e["point"]))["komi"]].append(e)

    def span(entries, key, f):
        lo, hi = (f(g(e["summary"][key] for e in entries)) for g in (min, max))
        return lo if lo == hi else f"{lo} to {hi}"
    komi = [e for k, es in at.items() if k for e in es]
    leader = [e for e in at.get(0, []) if dict(zip(_last_tune.keys, e["point"]))["clock"] == "leader"]
    odd = [e for e in leader if dict(zip(_last_tune.keys, e["point"]))["clock_plies"] % 2]
    even = [e for e in leader if not dict(zip(_last_tune.keys, e["point"]))["clock_plies"] % 2]
    signed = "{:+.3f}".format
    return out + (f"\nIn the first round ({r0[0]['games']:,} games per setting), half a point of komi: draws "
                  f"{span(komi, 'draw_rate', pct)}, first-player advantage "
                  f"{span(komi, 'first_player_advantage', signed)}. Leader clock, no komi: draws "
                  f"{span(odd, 'draw_rate', pct)} at an odd `clock_plies`, {span(even, 'draw_rate', pct)} at an "
                  f"even one.\n")


block("tune-martian_chess-fewer-draws", "docs/tune.md", "slow", f"simkit tune {FEWER_DRAWS}")(fewer_draws)


def sensitivity_table(cmd: str, metric: str = "first_player_advantage", top: int = 6) -> str:
    """The ``top`` largest effects of `simkit sensitivity ...` on ``metric``, with length beside them."""
    s = simkit_json(f"sensitivity {cmd}")
    rows = s["rows"]
    by = {(r["option"], r["direction"], r["metric"]): r for r in rows}
    main = sorted((r for r in rows if r["metric"] == metric and r["effect"] == r["effect"]),
                  key=lambda r: -abs(r["effect"]))[:top]
    lines = [f"`simkit sensitivity {cmd}` (seed 0; `*` significant after Holm over all "
             f"{len(rows)} effects):", "", "| option | step | first-player advantage [95%] | length [95%] |",
             "| --- | --- | --- | --- |"]
    for r in main:
        ln = by[(r["option"], r["direction"], "mean_length")]

        def star(x):
            return " *" if x["p_holm"] == x["p_holm"] and x["p_holm"] < 0.05 else ""
        lines.append(f"| `{r['option']}` | {r['direction']} to {r['value']:g} | "
                     f"{ci(r['effect'], r['ci_lo'], r['ci_hi'], '{:+.3f}')}{star(r)} | "
                     f"{ci(ln['effect'], ln['ci_lo'], ln['ci_hi'], '{:+.1f}')}{star(ln)} |")
    return "\n".join(lines) + "\n"


block("sensitivity-warfare", "docs/games/warfare.md", "slow", "simkit sensitivity warfare --games 1000")(
    lambda: sensitivity_table("warfare --games 1000"))
