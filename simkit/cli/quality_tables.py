"""The game-quality tables `compare --quality` and `sweep --quality` print (docs/quality.md)."""
from __future__ import annotations

import math

import click


def quality_options(f):
    """--quality and --quality-games N, as compare and sweep have them."""
    f = click.option("--quality-games", type=click.IntRange(2, None), default=100, show_default=True,
                     help="Trajectory games per variant (or cell) for --quality: games 0..N-1 of the run, "
                          "same seeds in every variant.")(f)
    return click.option("--quality", is_flag=True,
                        help="Also compare the game-quality metrics (lead changes, drama, decisiveness, "
                             "branching, ...) from per-move trajectories (docs/quality.md).")(f)


def _f(x, fmt) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def _fmt_of(metric: str) -> tuple[str, str]:
    big = metric in ("lead_changes", "branching", "branching_trend")
    return ("{:.2f}", "{:+.2f}") if big else ("{:.4f}", "{:+.4f}")


def _p(p) -> str:
    if p is None or (isinstance(p, float) and math.isnan(p)):
        return "-"
    return "<0.0001" if p < 1e-4 else f"{p:.4f}"


def print_quality_compare(qc, out_dir=None):
    from rich.markup import escape
    from rich.table import Table

    from simkit.analysis.quality_compare import label
    from simkit.cli.analysis_commands import _console
    s = qc.summary()
    t = Table(title=f"Game quality, B - A\nA = {escape(s['labels'][0])}\nB = {escape(s['labels'][1])}\n"
                    f"({' vs '.join(s['policies'])}, first {s['first']}, seed {s['seed']}, "
                    f"{s['games']:,} trajectory games each)", header_style="bold")
    for col in ("metric", "A [95% CI]", "B [95% CI]", "B - A  [95% CI]", "p", "p (Holm)", "interval"):
        t.add_column(col, justify="left" if col in ("metric", "interval") else "right")
    for m, d in s["differences"].items():
        fmt, dfmt = _fmt_of(m)
        a, b = s["a"][m], s["b"][m]
        cell = [f"{_f(v['mean'], fmt)} [{_f(v['ci'][0], fmt)}, {_f(v['ci'][1], fmt)}]"
                + (f" n={v['games']}" if v["games"] != s["games"] else "") for v in (a, b)]
        diff = f"{_f(d['diff'], dfmt)} [{_f(d['ci'][0], dfmt)}, {_f(d['ci'][1], dfmt)}]"
        how = "bootstrap" if "bootstrap" in d["method"] else "score" if "score" in d["method"] else "paired t"
        if "rule of three" in d["method"]:
            how += ", 3/n floor"
        style = "bold red" if d["significant"] else ""
        t.add_row(escape(label(m, s["length_unit"])), *cell, f"[{style}]{diff}[/]" if style else diff,
                  _p(d["p_value"]), _p(d["p_holm"]), how)
    c = _console()
    c.print(t)
    sig = [m for m, d in s["differences"].items() if d["significant"]]
    c.print(f"p (Holm): adjusted over the {len(s['differences'])} quality metrics; red: significant after Holm. "
            f"n=: games that define a metric (decided games for drama, decisiveness and doubt share).")
    if s["identical_games"]:
        c.print("quality: A and B played identical trajectory games (every paired difference is 0; the "
                "intervals are the rule-of-three floor)")
    elif sig:
        c.print("quality: B differs from A in " + ", ".join(m.replace("_", " ") for m in sig)
                + " (95%, Holm-adjusted)")
    else:
        c.print("quality: no quality metric differs significantly (95%, Holm-adjusted)")
    if out_dir:
        c.print(f"quality files: {out_dir}/compare_quality.json, compare_quality.csv, quality_games.csv")


def print_sweep_quality(res, spec, out_dir=None):
    """Metrics as rows, cells as columns (a sweep has few cells; a metric reads across the knob)."""
    from rich.markup import escape
    from rich.table import Table

    from simkit.analysis.quality import PER_GAME
    from simkit.analysis.quality_compare import label
    q = res.quality
    t = Table(title=f"{spec.title} game quality per cell ({' vs '.join(q['policies'])}, first {q['first']}, "
                    f"seed {q['seed']}, {q['games']:,} trajectory games per cell; mean [95% CI])",
                    header_style="bold")
    t.add_column("metric")
    defaults = q.get("defaults") or {}
    for cell in q["cells"]:
        name = ", ".join(f"{k}={_setting(v)}" for k, v in cell["setting"].items())
        if all(defaults.get(k) == v for k, v in cell["setting"].items()):
            name += " (default)"
        t.add_column(escape(name), justify="right")
    for m in PER_GAME:
        fmt, _ = _fmt_of(m)
        t.add_row(escape(label(m, q["length_unit"])),
                  *[f"{_f(c['metrics'][m]['mean'], fmt)} [{_f(c['metrics'][m]['ci'][0], fmt)}, "
                    f"{_f(c['metrics'][m]['ci'][1], fmt)}]" for c in q["cells"]])
    from simkit.cli.analysis_commands import _console
    c = _console()
    c.print(t)
    if out_dir:
        c.print(f"quality files: {out_dir}/sweep_quality.json, sweep_quality.csv (and quality_* columns in "
                f"sweep.csv)")


def _setting(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)
