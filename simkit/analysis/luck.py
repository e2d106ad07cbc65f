"""Luck and skill: how much the dice and the deal decide a game, and how much the players do.

Three measurements of one variant (docs/skill.md, "Luck"):

- **Upset rate** (from a round robin of players, weakest first, both seat orders on common
  seeds, `matchup.pair_score`): how often the weaker of two players wins, per pair and per gap
  in the list, with Wilson intervals; the same games give every player's **rating**
  (analysis/ratings.py) and the **skill span**, the strongest above random.
- **The seed's share**: ``seeds`` deals are each played ``replays`` times by one player in
  self-play through the step API, the dice and the deal from the game's stream (seeded as
  `simkit run` seeds game ``i``) and every decision from a stream of its own
  (`State.scripted_action(rng=...)`). A one-way random-effects ANOVA of side 0's score over the
  seeds (after removing the seat's mean) gives the share of outcome variance that the seed
  explains: ``(MSB - MSW) / J`` over itself plus ``MSW``. The rest is what the decisions decide
  (their own randomness, and how they meet the dice). The 95% interval resamples the seeds
  (bootstrap, seeded). A game without dice or deal (Martian Chess) has a share near 0.
- **Luck swing** (games with chance events): at every roll, the realised outcome's value minus
  the roll's expected value, both from the exact outcome probabilities and the game's evaluation
  (`State.value`: the search's leaf evaluation, side 0's expected score). Summed per game it is
  side 0's luck; per side, the luck of that side's own rolls (mean 0 when the probabilities are
  exact: a check). Also: how often the side with the better luck won.
"""
from __future__ import annotations

import itertools

import numpy as np

from simkit.analysis.stats import wilson

BOOTSTRAP = 2000


# ---- one game on two streams ------------------------------------------------------------------

def play_split(steps, pv, seed: int, game: int, first: int, decision_seed: int, swings: bool = True) -> dict:
    """Game ``game`` of a run seeded ``seed`` (its deal and dice), every decision drawn from a stream
    seeded by ``decision_seed``: side 0's score, and the luck of each roll when ``swings``."""
    from simkit.engine.rng import rng_seed_nb
    from simkit.env.state import State
    s = State(steps, seed, game, first)
    drng = np.zeros(1, np.uint64)
    rng_seed_nb(drng, np.int64(decision_seed), np.int64(game))
    luck = [0.0, 0.0]          # side 0's gain from the rolls made in each side's turn
    rolls = 0
    while not s.is_over():
        if s.is_chance():
            owner = int(s.steps.to_move(s.S))      # the side whose turn the roll is in
            if swings:
                values = {}
                for o, _ in s.chance_outcomes():
                    c = s.clone()
                    c.apply(o)
                    values[o] = c.value()
                expected = sum(p * values[o] for o, p in s.chance_outcomes())
                o = s.roll()
                luck[owner] += values[o] - expected
            else:
                s.roll()
            rolls += 1
        else:
            s.apply(s.scripted_action(pv, rng=drng))
    return {"score0": (s.returns()[0] + 1.0) / 2.0, "winner": s.winner(), "first": first,
            "luck0_own": luck[0], "luck0_opp": luck[1], "rolls": rolls}


# ---- the seed's share ---------------------------------------------------------------------------

def seed_share(y: np.ndarray, firsts: np.ndarray, rng=None) -> dict:
    """Share of the variance of ``y`` (seeds x replays) between seeds, the seat's mean removed,
    with a 95% bootstrap interval over the seeds."""
    y = np.array(y, float)          # a copy: the seat's mean is removed in place
    firsts = np.asarray(firsts)
    for f in np.unique(firsts):
        y[firsts == f] -= y[firsts == f].mean()
    share = _icc(y)
    shape = {"seeds": int(y.shape[0]), "replays": int(y.shape[1])}
    if not np.isfinite(share):
        return {"share": float("nan"), "ci": [float("nan"), float("nan")], **shape,
                "note": "every game had the same result: no variance to share out"}
    if np.all(y == y[:, :1]):
        return {"share": 1.0, "ci": [float("nan"), float("nan")], **shape,
                "note": "every replay of a seed gave the same result: the player's decisions do not vary, so the "
                        "seed decides everything by construction (no interval); a player with randomness of its "
                        "own (mcts:N, eps:0.1:greedy) shows what decisions decide"}
    rng = rng or np.random.default_rng(0)
    boots = np.array([_icc(y[rng.integers(0, len(y), len(y))]) for _ in range(BOOTSTRAP)])
    boots = boots[np.isfinite(boots)]
    lo, hi = np.quantile(boots, [0.025, 0.975])
    return {"share": share, "ci": [float(min(lo, share)), float(max(hi, share))], **shape}


def _icc(y: np.ndarray) -> float:
    """One-way random-effects ANOVA: the between-row variance component over the total, clipped at 0."""
    n, j = y.shape
    rows = y.mean(axis=1)
    msb = j * rows.var(ddof=1) if n > 1 else 0.0
    msw = float(((y - rows[:, None]) ** 2).sum() / (n * (j - 1)))
    between = max((msb - msw) / j, 0.0)
    total = between + msw
    return between / total if total > 0 else float("nan")


# ---- upsets ---------------------------------------------------------------------------------

def upsets(cells: dict, order: list) -> list[dict]:
    """For each pair of ``order`` (weakest first): the share of games the weaker player won, with its
    Wilson interval, and the gap (positions apart in ``order``)."""
    out = []
    for i, j in itertools.combinations(range(len(order)), 2):
        weak, strong = order[i], order[j]
        c = cells[(strong, weak)]
        n = 2 * c["games"]
        draws = c["draw_rate"] * n
        wins = max(round((1.0 - c["score"]) * n - draws / 2, 6), 0.0)     # (rounding: no 1e-18 upsets)
        lo, hi = wilson(round(wins), n)
        out.append({"weaker": weak, "stronger": strong, "gap": j - i, "games": n, "upset_rate": wins / n,
                    "ci": [lo, hi], "draw_rate": c["draw_rate"], "stronger_score": c["score"]})
    return out


def upsets_by_gap(rows) -> list[dict]:
    by = {}
    for r in rows:
        w, n = by.get(r["gap"], (0.0, 0))
        by[r["gap"]] = (w + r["upset_rate"] * r["games"], n + r["games"])
    return [{"gap": g, "games": n, "upset_rate": w / n, "ci": list(wilson(round(w), n))}
            for g, (w, n) in sorted(by.items())]


# ---- a whole measurement --------------------------------------------------------------------

def measure(scenario, policies, config, *, seeds: int, replays: int, player: str, threads=None, work=None,
            swings: bool = True) -> dict:
    """Upsets, ratings and skill span from a round robin of ``policies`` (``config.games`` per seat order),
    then the seed's share and the luck swing from ``player``'s self-play on ``seeds`` x ``replays`` games."""
    from simkit import env
    from simkit.analysis.matchup import check_policies, pair_score
    from simkit.analysis.ratings import Pair, fit
    from simkit.backends.work import Work
    from simkit.analysis.tune import stage_seed
    from simkit.policies import policy_vector
    spec = scenario.spec
    pols = check_policies(spec, policies)
    work = work or Work()
    cells = {}
    for p, q in itertools.combinations(pols, 2):
        c = pair_score(scenario, config, q, p, threads=threads, work=work)      # q: the stronger
        c.pop("records")
        cells[(q, p)] = c
    rows = upsets(cells, pols)
    ratings = fit([Pair.from_score(q, p, 2 * c["games"], c["score"], c["draw_rate"]) for (q, p), c in cells.items()],
                  order=pols)
    span = ratings.span()

    steps = env.steps_of(scenario, [player, player])
    pv = policy_vector(spec, (player, player))
    y = np.zeros((seeds, replays))
    firsts = np.array([i % 2 for i in range(seeds)])
    games = []
    decision_seeds = [stage_seed(config.seed, f"luck decisions {j}") for j in range(replays)]
    for i in range(seeds):
        for j in range(replays):
            g = play_split(steps, pv, config.seed, i, int(firsts[i]), decision_seeds[j], swings)
            y[i, j] = g["score0"]
            games.append(g)
    share = seed_share(y, firsts, np.random.default_rng(config.seed))
    out = {"kind": "luck", "game": spec.name, "scenario": scenario.name, "policies": pols, "player": player,
           "games_per_seating": config.games, "seed": config.seed,
           "upsets": rows, "upsets_by_gap": upsets_by_gap(rows), "ratings": ratings.summary(),
           "skill_span": {"elo": span[0], "ci": [span[1], span[2]], "from": ratings.anchor, "to": ratings.strongest},
           "seed_share": share}
    if swings and sum(g["rolls"] for g in games):
        out["luck_swing"] = swing_summary(games, replays)
    else:
        out["luck_swing"] = None
    return out


def swing_summary(games, replays: int = 1) -> dict:
    """Per side, the mean luck of its own rolls (0 within its interval when the odds are exact); the
    mean |luck| of a game; how often the side with the better luck won (decided games, luck != 0).
    ``games`` are seeds x ``replays`` in order: a seed's replays share its dice (and, with a
    deterministic player, are the same game), so the means' intervals are over the seeds' means and
    "the luckier side won" counts each seed's first replay only."""
    def per_seed(x):
        return np.asarray(x, float).reshape(-1, replays).mean(axis=1)
    own0 = per_seed([g["luck0_own"] for g in games])           # side 0's gain from its own rolls
    own1 = -per_seed([g["luck0_opp"] for g in games])          # side 1's gain from its own rolls
    total = np.array([g["luck0_own"] + g["luck0_opp"] for g in games])    # side 0's luck in the game
    n = len(games)

    def mean_ci(x):
        m, se = float(x.mean()), float(x.std(ddof=1) / np.sqrt(len(x))) if len(x) > 1 else float("nan")
        return {"mean": m, "ci": [m - 1.96 * se, m + 1.96 * se]}
    firsts = list(range(0, n, replays))
    decided = [(total[k], games[k]["winner"]) for k in firsts if games[k]["winner"] in (0, 1) and total[k] != 0]
    lucky_won = sum((t > 0) == (w == 0) for t, w in decided)
    lo, hi = wilson(lucky_won, len(decided)) if decided else (float("nan"), float("nan"))
    return {"games": n, "rolls_per_game": float(np.mean([g["rolls"] for g in games])),
            "own_rolls": {"side 0": mean_ci(own0), "side 1": mean_ci(own1)},
            "mean_abs_luck": mean_ci(per_seed(np.abs(total))),
            "luckier_side_won": {"share": lucky_won / len(decided) if decided else float("nan"), "ci": [lo, hi],
                                 "games": len(decided)}}


def difference(a: dict, b: dict) -> dict:
    """B - A of the seed's share (bootstrap intervals combined as independent normal ones) and of the
    skill span (its Laplace interval's half-widths likewise)."""
    def diff(x, y):
        if not (np.isfinite(x["est"]) and np.isfinite(y["est"])):
            return {"diff": float("nan"), "ci": [float("nan"), float("nan")]}
        d = y["est"] - x["est"]
        half = np.hypot(x["half"], y["half"])
        return {"diff": d, "ci": [d - half, d + half]}

    def of(e, key, field):
        v = e[key]
        return {"est": v[field], "half": (v["ci"][1] - v["ci"][0]) / 2}
    return {"seed_share": diff(of(a, "seed_share", "share"), of(b, "seed_share", "share")),
            "skill_span": diff(of(a, "skill_span", "elo"), of(b, "skill_span", "elo"))}


def study(entries, policies, config, *, seeds: int, replays: int, player: str, threads=None, out_dir=None,
          resume: bool = False, log=None) -> dict:
    """`measure` for each (label, scenario) of ``entries`` (each in its own `Work` child, so Ctrl-C keeps
    every finished run), with B - A differences when two entries are variants of one game."""
    from simkit.backends.store import atomic_write_bytes, atomic_write_json
    from simkit.backends.work import Work
    work = Work.of(out_dir, resume)
    identity = {"entries": [(lab, sc.to_dict()) for lab, sc in entries], "policies": list(policies),
                "config": config.to_dict(), "seeds": seeds, "replays": replays, "player": player}
    with work.start("luck", identity, config=config.to_dict()):
        rows = []
        for k, (label, sc) in enumerate(entries):
            r = measure(sc, policies, config, seeds=seeds, replays=replays, player=player, threads=threads,
                        work=work.child(f"entry-{k}"))
            rows.append({"label": label, "rules": sc.to_dict().get("rules"), **r})
            if log:
                log(f"{label}: seed's share {r['seed_share']['share']:.3f}, "
                    f"skill span {r['skill_span']['elo']:.0f} Elo")
        out = {"kind": "luck", "policies": list(policies), "player": player, "seeds": seeds, "replays": replays,
               "games_per_seating": config.games, "seed": config.seed, "entries": rows}
        if len(rows) == 2 and rows[0]["game"] == rows[1]["game"]:
            out["difference"] = {"a": rows[0]["label"], "b": rows[1]["label"], **difference(rows[0], rows[1])}
        if work.out is not None:
            atomic_write_json(work.out / "luck.json", out)
            atomic_write_bytes(work.out / "luck.csv", table(out).to_csv(index=False).encode())
        work.complete()
    return out


def table(study_result: dict):
    """One row per entry: the seed's share and the skill span with their intervals, the upset rate at gap 1."""
    import pandas as pd
    rows = []
    for e in study_result["entries"]:
        s, k = e["seed_share"], e["skill_span"]
        gap1 = next((u for u in e["upsets_by_gap"] if u["gap"] == 1), None)
        sw = e.get("luck_swing") or {}
        rows.append({"entry": e["label"], "game": e["game"], "seed_share": s["share"], "seed_share_lo": s["ci"][0],
                     "seed_share_hi": s["ci"][1], "skill_span_elo": k["elo"], "skill_span_lo": k["ci"][0],
                     "skill_span_hi": k["ci"][1], "strongest": k["to"],
                     "upset_rate_gap1": gap1["upset_rate"] if gap1 else float("nan"),
                     "luckier_side_won": (sw.get("luckier_side_won") or {}).get("share", float("nan"))})
    return pd.DataFrame(rows)


def skill_luck_chart(study_result: dict, ax):
    """Each entry placed by the seed's share (luck, x) and the skill span (y), 95% intervals both ways."""
    import textwrap
    for e in study_result["entries"]:
        s, k = e["seed_share"], e["skill_span"]
        x, y = s["share"], k["elo"]
        xerr = None if not np.all(np.isfinite(s["ci"])) else [[x - s["ci"][0]], [s["ci"][1] - x]]
        # a variant's label can be long (every --set-b): the point gets a short tag, the legend the whole label
        tag = e["label"][0] if e["label"][:4] in ("A = ", "B = ") else textwrap.shorten(e["label"], 28)
        ax.errorbar([x], [y], xerr=xerr, yerr=[[y - k["ci"][0]], [k["ci"][1] - y]], fmt="o", capsize=4,
                    label=textwrap.fill(e["label"], 70))
        ax.annotate(tag, (x, y), textcoords="offset points", xytext=(6, 6), fontsize=9)
    if any(len(e["label"]) > 28 for e in study_result["entries"]):
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=8, frameon=False)
    ax.set_xlim(-0.05, 1.05)
    ax.set_xlabel("luck: share of outcome variance the seed (dice, deal) explains")
    ax.set_ylabel("skill span: Elo of the strongest above random")
    ax.grid(alpha=0.3)
    return ax


def luck_text(res: dict) -> list[str]:
    """What `simkit luck` prints: per entry its luck and skill, then B - A."""
    lines = []
    for e in res["entries"]:
        s, k = e["seed_share"], e["skill_span"]
        lines.append(f"{e['label']}:")
        share = (f"{s['share']:.3f} [{s['ci'][0]:.3f}, {s['ci'][1]:.3f}]" if s["ci"][0] == s["ci"][0]
                 else f"{s['share']:.3f} (no interval: {s.get('note', '')})")
        lines.append(f"  seed's share of the outcome ({res['player']} self-play, {s['seeds']} seeds x {s['replays']} "
                     f"replays): {share}")
        lines.append(f"  skill span: {k['to']} is {k['elo']:.0f} Elo [{k['ci'][0]:.0f}, {k['ci'][1]:.0f}] above "
                     f"{k['from']}")
        for u in e["upsets_by_gap"]:
            lines.append(f"  upsets at gap {u['gap']}: the weaker player won {u['upset_rate']:.1%} "
                         f"[{u['ci'][0]:.1%}, {u['ci'][1]:.1%}] of {u['games']:,} games")
        sw = e.get("luck_swing")
        if sw:
            w = sw["luckier_side_won"]
            m = sw["mean_abs_luck"]
            lines.append(f"  luck of the rolls ({sw['rolls_per_game']:.1f} per game): mean |luck| of a game "
                         f"{m['mean']:.3f} [{m['ci'][0]:.3f}, {m['ci'][1]:.3f}] (side 0's expected score); the "
                         f"luckier side won {w['share']:.1%} [{w['ci'][0]:.1%}, {w['ci'][1]:.1%}] of {w['games']} "
                         "decided games")
            for side, v in sw["own_rolls"].items():
                lines.append(f"    {side}'s own rolls: mean luck {v['mean']:+.4f} [{v['ci'][0]:+.4f}, "
                             f"{v['ci'][1]:+.4f}] per game (0 expected: the odds are exact)")
        else:
            lines.append("  no rolls: nothing of the outcome is dice")
    d = res.get("difference")
    if d:
        ss, sk = d["seed_share"], d["skill_span"]
        lines.append(f"B - A: seed's share {ss['diff']:+.3f} [{ss['ci'][0]:+.3f}, {ss['ci'][1]:+.3f}], skill span "
                     f"{sk['diff']:+.0f} Elo [{sk['ci'][0]:+.0f}, {sk['ci'][1]:+.0f}]")
    return lines
