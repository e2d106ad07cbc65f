"""Ratings: every player of a ladder or matchup on one Elo scale, with intervals.

The model is Elo's logistic one with draws as half points (as Ordo and most chess rating
lists count them): a player rated ``d`` Elo above its opponent has the expected score
``E(d) = 1 / (1 + 10^(-d/400))``. Each pair that met contributes the binomial
(quasi-)likelihood of its points: ``s log E(d) + (n - s) log(1 - E(d))`` with ``s`` the wins
plus half the draws over its ``n`` games (both seat orders). Draws make the real variance of a
game's score smaller than ``E(1 - E)``, so the intervals err on the wide side.

**Prior.** Every pair that met also gets one virtual draw (BayesElo's device): a pair where one
side won every game (random against greedy, 200-0) has no finite maximum-likelihood gap, and
the virtual draw keeps it finite. Such a pair is *separated*; its gap is reported, but the
data only bound it from below, and the result says so (``separated``).

**Anchor and intervals.** The anchor (random when it played, else the first player) is rated 0.
The ratings are the posterior mode (Newton's method); their 95% intervals come from the
inverse of the Hessian at the mode (the Laplace approximation), so a rating's interval is its
uncertainty *relative to the anchor*. The covariance also gives the interval of any contrast:
the skill span (strongest minus the anchor) and the Elo gained per doubling of a search budget.
tests/test_ratings.py recovers the ratings of synthetic tournaments with known strengths
within these intervals at their nominal rate.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

import numpy as np

from simkit.analysis.stats import Z95

ELO = 400.0 / math.log(10.0)       # Elo points per natural-log unit of odds
VIRTUAL_DRAWS = 1.0                # prior: virtual draws added to every pair that met


@dataclass
class Pair:
    """Games between two players: ``a``'s points (wins + half the draws) over ``games`` games."""
    a: str
    b: str
    games: int
    points: float
    draws: int = 0

    @classmethod
    def from_score(cls, a, b, games, score, draw_rate=0.0):
        """From a ladder step or matchup cell: ``games`` games in all, ``a``'s mean score, the draw share."""
        return cls(a, b, int(games), float(score) * games, int(round(float(draw_rate or 0.0) * games)))

    @property
    def separated(self) -> bool:
        return self.points <= 0 or self.points >= self.games


@dataclass
class Ratings:
    players: list
    anchor: str
    elo: np.ndarray                  # posterior mode, Elo, anchor = 0
    cov: np.ndarray                  # covariance (Elo^2) of all players' ratings (anchor row/column 0)
    pairs: list
    separated: list = field(default_factory=list)     # "a-b" pairs in which one side won every game

    def index(self, p: str) -> int:
        return self.players.index(p)

    def interval(self, weights) -> tuple[float, float, float]:
        """(estimate, lo, hi) of the contrast ``sum w_i R_i`` (weights by player name or a vector)."""
        w = np.zeros(len(self.players))
        for p, x in (weights.items() if isinstance(weights, dict) else zip(self.players, weights)):
            w[self.index(p)] += x
        est = float(w @ self.elo)
        half = Z95 * math.sqrt(max(float(w @ self.cov @ w), 0.0))
        return est, est - half, est + half

    def rating(self, p: str) -> tuple[float, float, float]:
        return self.interval({p: 1.0})

    @property
    def strongest(self) -> str:
        return self.players[int(np.argmax(self.elo))]

    def span(self) -> tuple[float, float, float]:
        """The skill span: the strongest player's rating above the anchor (random where it played)."""
        return self.interval({self.strongest: 1.0, self.anchor: -1.0})

    def per_doubling(self) -> dict | None:
        """Elo per doubling of a search budget (``NAME:BUDGET`` players of one kind): the least-squares
        slope of rating on log2(budget) over those players, with its interval; None without two budgets."""
        budgets = {}
        for p in self.players:
            m = re.fullmatch(r"([a-z_]+):(\d+)", p)
            if m:
                budgets.setdefault(m.group(1), []).append((int(m.group(2)), p))
        for kind, items in budgets.items():
            if len({b for b, _ in items}) < 2:
                continue
            x = np.log2([b for b, _ in items])
            x = x - x.mean()
            w = {p: xi / float(x @ x) for (b, p), xi in zip(items, x)}
            est, lo, hi = self.interval(w)
            return {"policy": kind, "budgets": [b for b, _ in items], "elo_per_doubling": est, "ci": [lo, hi]}
        return None

    def table(self):
        import pandas as pd
        rows = []
        for p in self.players:
            est, lo, hi = self.rating(p)
            rows.append({"player": p, "elo": est, "ci_lo": lo if p != self.anchor else 0.0,
                         "ci_hi": hi if p != self.anchor else 0.0, "anchor": p == self.anchor,
                         "games": sum(q.games for q in self.pairs if p in (q.a, q.b))})
        return pd.DataFrame(rows)

    def summary(self) -> dict:
        span = self.span()
        pd_ = self.per_doubling()
        return {"model": "Elo, logistic, draws as half points; one virtual draw per pair that met (prior); "
                         "95% Laplace intervals relative to the anchor",
                "anchor": self.anchor,
                "ratings": [{"player": r["player"], "elo": r["elo"], "ci": [r["ci_lo"], r["ci_hi"]],
                             "games": int(r["games"])} for r in self.table().to_dict("records")],
                "skill_span": {"from": self.anchor, "to": self.strongest, "elo": span[0], "ci": [span[1], span[2]]},
                "per_doubling": pd_, "separated": self.separated,
                "note": (f"separated pairs ({', '.join(self.separated)}): one side won every game, so the data only "
                         "bound that gap from below; its estimate leans on the prior" if self.separated else "")}


def fit(pairs, anchor: str | None = None, prior: float = VIRTUAL_DRAWS, order=()) -> Ratings:
    """The ratings of every player in ``pairs`` (a list of Pair), anchored at ``anchor``
    (default: "random" if it played, else the first player named), listed in ``order`` (then as
    they first appear). ValueError when the players do not all connect through games played
    (their ratings would not be on one scale)."""
    pairs = [p for p in pairs if p.games > 0]
    met = {x for q in pairs for x in (q.a, q.b)}
    players = [p for p in order if p in met]
    for q in pairs:
        for x in (q.a, q.b):
            if x not in players:
                players.append(x)
    if not players:
        raise ValueError("no games to rate")
    anchor = anchor or ("random" if "random" in players else players[0])
    if anchor not in players:
        raise ValueError(f"the anchor {anchor} played no game here; players: {', '.join(players)}")
    _check_connected(players, pairs)
    k = len(players)
    ia = np.array([players.index(q.a) for q in pairs])
    ib = np.array([players.index(q.b) for q in pairs])
    s = np.array([q.points + prior / 2 for q in pairs])        # one virtual draw: half a point each
    n = np.array([q.games + prior for q in pairs], float)
    free = np.array([i for i in range(k) if i != players.index(anchor)])
    theta = np.zeros(k)
    for _ in range(100):
        e = 1.0 / (1.0 + np.exp(-(theta[ia] - theta[ib])))
        g_pair = s - n * e                       # d loglik / d (theta_a - theta_b)
        grad = np.zeros(k)
        np.add.at(grad, ia, g_pair)
        np.add.at(grad, ib, -g_pair)
        step = np.linalg.solve(_hessian(k, ia, ib, n * e * (1 - e))[np.ix_(free, free)], grad[free])
        theta[free] += step
        if np.max(np.abs(step)) < 1e-10:
            break
    e = 1.0 / (1.0 + np.exp(-(theta[ia] - theta[ib])))
    H = _hessian(k, ia, ib, n * e * (1 - e))
    cov = np.zeros((k, k))
    cov[np.ix_(free, free)] = np.linalg.inv(H[np.ix_(free, free)]) * ELO ** 2
    return Ratings(players, anchor, theta * ELO, cov, list(pairs),
                   [f"{q.a}-{q.b}" for q in pairs if q.separated])


def _hessian(k, ia, ib, h_pair):
    """Minus the log-likelihood's Hessian in the ratings: each pair adds its information
    ``n E (1 - E)`` to its two players' diagonal entries and subtracts it off the diagonal."""
    H = np.zeros((k, k))
    np.add.at(H, (ia, ia), h_pair)
    np.add.at(H, (ib, ib), h_pair)
    np.add.at(H, (ia, ib), -h_pair)
    np.add.at(H, (ib, ia), -h_pair)
    return H


def _check_connected(players, pairs):
    seen, todo = {players[0]}, [players[0]]
    while todo:
        x = todo.pop()
        for q in pairs:
            for u, v in ((q.a, q.b), (q.b, q.a)):
                if u == x and v not in seen:
                    seen.add(v)
                    todo.append(v)
    if len(seen) < len(players):
        rest = [p for p in players if p not in seen]
        raise ValueError(f"{', '.join(rest)} never met {', '.join(sorted(seen))} (directly or through others): "
                         "their ratings are not on one scale")


def pairs_of_summary(summary: dict) -> list[Pair]:
    """The pairs a ladder.json or matchup.json summary records (each pair once, both seat orders)."""
    out = []
    if summary.get("kind") == "ladder":
        for st in summary["steps"]:
            out.append(Pair.from_score(st["rung"], st["below"], 2 * st["games"], st["score"], st.get("draw_rate")))
    elif summary.get("kind") == "matchup":
        done = set()
        for c in summary["cells"]:
            key = frozenset((c["policy"], c["opponent"]))
            if key not in done:
                done.add(key)
                out.append(Pair.from_score(c["policy"], c["opponent"], 2 * c["games"], c["score"],
                                           c.get("draw_rate")))
    else:
        raise ValueError(f"not a ladder or matchup summary (kind {summary.get('kind')!r})")
    return out


def merge(pairs) -> list[Pair]:
    """Pairs of the same two players (from several directories) added into one."""
    acc: dict = {}
    for q in pairs:
        key = tuple(sorted((q.a, q.b)))
        pts = q.points if key == (q.a, q.b) else q.games - q.points
        g, p, d = acc.get(key, (0, 0.0, 0))
        acc[key] = (g + q.games, p + pts, d + q.draws)
    return [Pair(a, b, g, p, d) for (a, b), (g, p, d) in acc.items()]


def elo_of_score(score: float) -> float:
    """The Elo gap at which the stronger side's expected score is ``score`` (inf at 1)."""
    if score >= 1:
        return math.inf
    if score <= 0:
        return -math.inf
    return ELO * math.log(score / (1 - score))


def ratings_text(r: Ratings) -> list[str]:
    """The ratings as lines a designer reads: each player, the span, the gain per doubling."""
    lines = []
    for row in r.table().to_dict("records"):
        if row["anchor"]:
            lines.append(f"  {row['player']:>14}  {0:>6.0f}  (anchor)")
        else:
            lines.append(f"  {row['player']:>14}  {row['elo']:>6.0f}  [{row['ci_lo']:.0f}, {row['ci_hi']:.0f}]")
    est, lo, hi = r.span()
    lines.append(f"skill span ({r.strongest} above {r.anchor}): {est:.0f} Elo [{lo:.0f}, {hi:.0f}]")
    pd_ = r.per_doubling()
    if pd_:
        lo, hi = pd_["ci"]
        lines.append(f"Elo per doubling of the {pd_['policy']} budget ({', '.join(map(str, pd_['budgets']))}): "
                     f"{pd_['elo_per_doubling']:.0f} [{lo:.0f}, {hi:.0f}]")
    if r.separated:
        lines.append(f"separated: {', '.join(r.separated)} (one side won every game): that gap is only bounded "
                     "from below; its estimate leans on the prior of one virtual draw")
    return lines


# ---- synthetic tournaments: does fit() recover known ratings? -------------------------------

SYNTHETIC = {"random": 0.0, "greedy": 250.0, "mcts:100": 400.0, "mcts:200": 480.0, "mcts:400": 560.0}
LADDER_DESIGN = [("greedy", "random"), ("mcts:100", "greedy"), ("mcts:200", "mcts:100"), ("mcts:400", "mcts:200")]
ROUND_ROBIN = [(a, b) for i, a in enumerate(SYNTHETIC) for b in list(SYNTHETIC)[:i]]


def synthetic_tournament(rng, true: dict, design, games: int, draw_share: float = 0.2) -> list[Pair]:
    """Each pair of ``design`` plays ``games`` games between players of known Elo ``true``: the expected
    score is E(d), with draws taking ``draw_share`` of the games at an even gap and fewer as it widens."""
    out = []
    for a, b in design:
        e = 1.0 / (1.0 + 10 ** (-(true[a] - true[b]) / 400))
        p_draw = draw_share * 2 * min(e, 1 - e)
        p_win = e - p_draw / 2
        w, d, _ = rng.multinomial(games, [p_win, p_draw, 1 - p_win - p_draw])
        out.append(Pair(a, b, games, w + d / 2, int(d)))
    return out


def coverage(design, reps: int = 300, games: int = 400, seed: int = 2026) -> dict:
    """The share of ``reps`` synthetic tournaments whose 95% intervals hold each true rating, and the
    true Elo per doubling of the mcts budget."""
    rng = np.random.default_rng(seed)
    hits = {p: 0 for p in SYNTHETIC if p != "random"}
    dbl, true_dbl = 0, (SYNTHETIC["mcts:400"] - SYNTHETIC["mcts:100"]) / 2
    for _ in range(reps):
        r = fit(synthetic_tournament(rng, SYNTHETIC, design, games))
        for p in hits:
            _, lo, hi = r.rating(p)
            hits[p] += lo <= SYNTHETIC[p] <= hi
        lo, hi = r.per_doubling()["ci"]
        dbl += lo <= true_dbl <= hi
    return {**{p: h / reps for p, h in hits.items()}, "per doubling": dbl / reps}


def coverage_table(reps: int = 300, games: int = 400, seed: int = 2026) -> str:
    """docs/skill.md's table: the coverage of the ratings' 95% intervals in a ladder and a round robin."""
    cols = [p for p in SYNTHETIC if p != "random"] + ["per doubling"]
    rows = ["| design | " + " | ".join(cols) + " |", "| --- |" + " ---: |" * len(cols)]
    for name, design in (("ladder", LADDER_DESIGN), ("round robin", ROUND_ROBIN)):
        c = coverage(design, reps, games, seed)
        rows.append(f"| {name} | " + " | ".join(f"{c[k]:.3f}" for k in cols) + " |")
    true = ", ".join(f"{p} {v:.0f}" for p, v in SYNTHETIC.items())
    return (f"Synthetic tournaments (`simkit.analysis.ratings.coverage_table`: {reps} tournaments per design, "
            f"{games} games a pair, 20% draws at an even gap, seed {seed}; true Elo {true}), share of 95% "
            f"intervals holding the true value:\n\n" + "\n".join(rows) + "\n")
