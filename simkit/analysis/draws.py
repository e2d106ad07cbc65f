"""Draw diagnosis: when draws or capped games dominate, do they belong to the game or to the players?

A ladder rung or a ``--skill`` level whose games are mostly drawn or capped says
little about balance, and a designer needs to know why. Four measurements, each a
few paired games:

1. **Draw split per level**: self-play at every level, its draws split into the
   game's own draws and games stopped by a cap (``spec.cap_reasons``).
2. **Cross-play**: the strongest level against the one below it, in both seats:
   how many games are decided and how the stronger side scores. A game that a
   stronger player converts into wins is not drawn by nature.
3. **Contempt probe**: the strongest search with ``mcts_contempt`` (a finished draw
   worth 1/2 - contempt to it: a player that dislikes draws) against the same search
   without it, both seats. If it draws less and scores at least 1/2, the draws were a
   choice of the players (they could be avoided at no cost); if it draws as often or
   loses for trying, they belong to the game.
4. **Material curve**: side 0's evaluation lead over the course of the strongest
   level's self-play games (the game's quality trajectory): the mean size of the lead
   in each fifth of the game. A lead that never grows means nobody makes progress.

Verdict: "the players" when the draws vanish at the strongest level, the contempt
probe avoids draws at no cost or the stronger side converts the cross-play games;
"few draws" when no level's games are mostly drawn or capped; otherwise "the game".
The finding states the numbers it rests on.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from simkit.analysis.stats import wilson

DRAWISH = 0.5          # draws + capped games above this share of a level's games call for a diagnosis
CONTEMPT = 0.3         # the probe's draw aversion (a draw is worth 0.2 to it)
AVOIDED = 0.10         # the probe must draw at least this much less (and significantly) to count as avoiding


def drawish_share(spec, records) -> float:
    """Draws plus decided games that ended by a cap, as a share of ``records``' games."""
    if len(records) == 0:
        return 0.0
    caps = [spec.end_reasons.index(r) for r in spec.cap_reasons]
    capped = np.isin(records[:, 3], caps) if caps else np.zeros(len(records), bool)
    return float(np.mean((records[:, 1] < 0) | capped))


def _split(spec, records) -> dict:
    n = len(records)
    caps = [spec.end_reasons.index(r) for r in spec.cap_reasons]
    capped = np.isin(records[:, 3], caps) if caps else np.zeros(n, bool)
    draws = records[:, 1] < 0
    return {"games": n, "draw_rate": float(draws.mean()), "draw_ci": list(wilson(int(draws.sum()), n)),
            "natural_draw_rate": float((draws & ~capped).mean()), "capped_rate": float(capped.mean()),
            "capped_draw_rate": float((draws & capped).mean()), "drawish_rate": float((draws | capped).mean())}


def _self_play(scenario, config, policy, threads, work):
    from simkit.analysis.matchup import run_name
    return work.run(run_name(policy, policy), scenario, replace(config, policies=(policy, policy)),
                    threads=threads).records()


def _material_curve(scenario, config, policy, games: int) -> dict:
    spec = scenario.spec
    if getattr(spec, "trajectory", None) is None or games <= 0:
        return {}
    from simkit.engine.rng import FIRST_MODES, first_players_nb
    from simkit.engine.runner import validate_config
    cfg = replace(config, policies=(policy, policy))
    pv = validate_config(spec, cfg)
    params = scenario.params_for(cfg.policies)
    firsts = np.zeros(games, dtype=np.int8)
    first_players_nb(FIRST_MODES.index(cfg.first), np.int64(cfg.seed), np.int64(0), np.int64(games), firsts)
    total = np.zeros(5)
    count = np.zeros(5)
    for g in range(games):
        values = np.asarray(spec.trajectory(params, cfg.seed, g, int(firsts[g]), pv)[0], dtype=float)[:-1]
        for k, part in enumerate(np.array_split(np.abs(values), 5)):
            if len(part):            # a game shorter than five moves leaves some fifths empty
                total[k] += part.mean()
                count[k] += 1
    return {"policy": policy, "games": games, "unit": "evaluation lead (the game's trajectory units)",
            "mean_abs_lead_by_fifth": [float(t / c) if c else None for t, c in zip(total, count)]}


def _probe_skipped(spec, strong: str) -> str | None:
    """Why the contempt probe does not apply to ``strong`` (None: it does)."""
    from simkit.policies import MCTS, parse_policy, side_knob_names
    if parse_policy(spec, strong).base != MCTS:
        return f"{strong} is not a search: no draw-averse copy of it to probe"
    if "mcts_contempt" not in side_knob_names(spec):
        # the probe is a policy knob of one side (POLICY/mcts_contempt=0.3): a game without the per-side knob table
        # cannot seat a draw-averse search against a neutral one
        return f"{spec.name} has no per-side search knobs (POLICY/KNOB=VALUE): no probe"
    return None


def diagnosis_parts(scenario, levels, games: int, contempt: float = CONTEMPT) -> list:
    """The runs `diagnose` plays, as parts of a command's `simkit.plan.Plan`: self-play at each level, the
    strongest against the one below and, where it applies, the contempt probe against the neutral search
    (both seats each)."""
    from simkit.plan import Part
    levels = list(levels)
    strong, g = levels[-1], scenario.game
    parts = [Part(g, (lv, lv), games) for lv in levels]
    if len(levels) >= 2:
        parts += [Part(g, seats, games) for seats in ((strong, levels[-2]), (levels[-2], strong))]
    if _probe_skipped(scenario.spec, strong) is None:
        probe = f"{strong}/mcts_contempt={contempt:g}"
        parts += [Part(g, seats, games) for seats in ((probe, strong), (strong, probe))]
    return parts


def diagnose(scenario, config, levels, *, threads=None, contempt: float = CONTEMPT, traced: int = 20,
             work=None, announce: bool = True) -> dict:
    """Run the four measurements for ``levels`` (weakest first) and return the finding with its numbers.

    ``work``: the command's `Work` (backends/work.py) the games are runs of, each named by its seating
    (``runs/<policy>-vs-<policy>``, self-play too), so Ctrl-C keeps them and a resume reloads them; the
    material curve's few traced games are played again (they are not kept). ``announce``: tell the progress
    (`simkit.progress.games_added`) that these games were not in the command's size (ladder and ``--skill``
    know they need a diagnosis only from the games they played)."""
    from simkit.analysis.matchup import pair_score
    from simkit.backends.work import Work
    spec = scenario.spec
    work = work or Work()
    levels = list(levels)
    strong = levels[-1]
    if announce:
        from simkit import progress
        parts = diagnosis_parts(scenario, levels, config.games, contempt)
        progress.games_added(sum(p.games for p in parts), len(parts))
    rows = []
    for lv in levels:
        rows.append({"level": lv, **_split(spec, _self_play(scenario, config, lv, threads, work))})
    out = {"kind": "draw_diagnosis", "game": spec.name, "scenario": scenario.name, "levels": rows,
           "games_per_seating": config.games, "seed": config.seed}
    evidence = []
    if len(levels) >= 2:
        weak = levels[-2]
        c = pair_score(scenario, config, strong, weak, threads=threads, work=work)
        recs = np.concatenate(list(c.pop("records").values()))
        decided = float(np.mean(recs[:, 1] >= 0))
        out["cross_play"] = {"strong": strong, "weak": weak, "score": c["score"], "ci": c["ci"],
                             "decided_rate": decided, "draw_rate": 1.0 - decided}
        if c["ci"][0] > 0.5 and (1.0 - decided) < rows[-1]["draw_rate"] - AVOIDED:
            evidence.append(f"{strong} converts games against {weak}: it scores {c['score']:.3f} "
                            f"[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] and {decided:.1%} of the games are decided, "
                            f"where its self-play draws {rows[-1]['draw_rate']:.1%}")
    skipped = _probe_skipped(spec, strong)
    if skipped:
        out["contempt_probe_skipped"] = skipped
    else:
        probe = f"{strong}/mcts_contempt={contempt:g}"
        c = pair_score(scenario, config, probe, strong, threads=threads, work=work)
        recs = np.concatenate(list(c.pop("records").values()))
        n = len(recs)
        d = int((recs[:, 1] < 0).sum())
        base = rows[-1]
        lo, hi = wilson(d, n)
        out["contempt_probe"] = {"probe": probe, "against": strong, "score": c["score"], "ci": c["ci"],
                                 "draw_rate": d / n, "draw_ci": [lo, hi], "neutral_draw_rate": base["draw_rate"],
                                 "neutral_draw_ci": base["draw_ci"]}
        if hi < base["draw_ci"][0] and d / n <= base["draw_rate"] - AVOIDED and c["ci"][1] >= 0.5:
            evidence.append(f"a draw-averse {strong} (contempt {contempt:g}) draws {d / n:.1%} "
                            f"[{lo:.1%}, {hi:.1%}] instead of {base['draw_rate']:.1%} and scores {c['score']:.3f} "
                            f"[{c['ci'][0]:.3f}, {c['ci'][1]:.3f}] against the neutral one: the draws can be "
                            f"avoided at no cost")
    out["material_curve"] = _material_curve(scenario, config, strong, traced)
    top = rows[-1]
    # draws that vanish as skill grows belong to the weaker players, whatever the probes say
    top_drawish = top["drawish_rate"]
    worst = max(rows, key=lambda r: r["drawish_rate"])
    worst_drawish = worst["drawish_rate"]
    if top_drawish < DRAWISH and worst is not top and worst_drawish > DRAWISH:
        evidence.insert(0, f"draws and capped games fall from {worst_drawish:.1%} under {worst['level']} to "
                           f"{top_drawish:.1%} under {strong}: stronger players decide the games")
    elif not evidence and worst_drawish <= DRAWISH:
        out["verdict"] = "few draws"
        out["finding"] = (f"Draws do not dominate at any level: at most {worst_drawish:.1%} of a level's games are "
                          f"drawn or capped ({worst['level']}); {strong} self-play draws {top['draw_rate']:.1%} "
                          f"[{top['draw_ci'][0]:.1%}, {top['draw_ci'][1]:.1%}].")
        return out
    # where the cap decides its games (Warfare!'s cap_result=material), what dominates is capped games, not draws
    what = "capped games" if top["capped_rate"] - top["capped_draw_rate"] > top["draw_rate"] else "draws"
    split = (f"{strong} self-play: {top['draw_rate']:.1%} drawn ({top['natural_draw_rate']:.1%} by the game's own "
             f"ending, {top['capped_draw_rate']:.1%} at a cap), {top['capped_rate']:.1%} of games capped")
    if evidence:
        out["verdict"] = "players"
        out["finding"] = f"The {what} belong to the players, not the game: {'; '.join(evidence)}. ({split}.)"
    else:
        reasons = []
        cp = out.get("contempt_probe")
        if cp:
            reasons.append(f"a draw-averse {strong} still draws {cp['draw_rate']:.1%} and scores {cp['score']:.3f} "
                           f"[{cp['ci'][0]:.3f}, {cp['ci'][1]:.3f}] against the neutral one")
        cx = out.get("cross_play")
        if cx:
            reasons.append(f"{cx['strong']} against {cx['weak']} decides {cx['decided_rate']:.1%} of the games "
                           f"(score {cx['score']:.3f} [{cx['ci'][0]:.3f}, {cx['ci'][1]:.3f}])")
        if "contempt_probe_skipped" in out:
            reasons.append(f"no contempt probe ({out['contempt_probe_skipped']})")
        mc = out["material_curve"]
        if mc:
            leads = ", ".join("-" if x is None else f"{x:.2f}" for x in mc["mean_abs_lead_by_fifth"])
            reasons.append(f"the mean size of the lead by fifth of the game is {leads}")
        out["verdict"] = "game"
        out["finding"] = (f"The {what} belong to the game, not the players: {'; '.join(reasons) or 'no probe applies'}."
                          f" ({split}.)")
    return out


def draw_diagnosis(scenario, levels, config, *, threads=None, out_dir=None, resume=False) -> dict:
    """`simkit draws`: `diagnose` as a command of its own. ``out_dir`` keeps every run it plays
    (`backends/work.py`: Ctrl-C keeps them, ``resume`` finishes) and, at the end, draws.json."""
    from simkit.backends.store import atomic_write_json
    from simkit.backends.work import Work
    levels = list(levels)
    work = Work.of(out_dir, resume)
    identity = {"scenario": scenario.to_dict(), "levels": levels, "config": config.to_dict()}
    with work.start("draws", identity, scenario=scenario.to_dict(), levels=levels, config=config.to_dict()):
        res = diagnose(scenario, config, levels, threads=threads, work=work, announce=False)
        if work.out is not None:
            atomic_write_json(work.out / "draws.json", res)
        work.complete()
    return res
