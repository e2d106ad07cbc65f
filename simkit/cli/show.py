"""Printing results for people: rich tables on stdout."""
from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table


def console() -> Console:
    import sys
    # Piped output (CI logs, files) gets room for the widest table instead of rich's 80 columns.
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def pct(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def pct_ci(v, ci) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{100 * v:.2f}%  [{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]"


def summary_table(s: dict, title: str) -> Table:
    t = Table(title=title, show_header=True, header_style="bold")
    t.add_column("metric")
    t.add_column("value (95% CI)", justify="right")
    t.add_row("games", f"{s['games']:,}")
    t.add_row("first player wins", pct_ci(s["first_player_win_rate"], s["first_player_win_rate_ci"]))
    t.add_row("second player wins", pct_ci(s["second_player_win_rate"], s["second_player_win_rate_ci"]))
    t.add_row("draws", pct_ci(s["draw_rate"], s["draw_rate_ci"]))
    t.add_row("side 0 wins", pct_ci(s["side0_win_rate"], s["side0_win_rate_ci"]))
    t.add_row("side 1 wins", pct_ci(s["side1_win_rate"], s["side1_win_rate_ci"]))
    fpa, ci = s["first_player_advantage"], s["first_player_advantage_ci"]
    t.add_row("first-player advantage", "-" if math.isnan(fpa) else f"{fpa:+.4f}  [{ci[0]:+.4f}, {ci[1]:+.4f}]")
    t.add_row("decisiveness (not capped)", pct(s["decisiveness"]))
    q = s["plies_quantiles"]
    t.add_row(f"mean {s['length_unit']}",
              f"{s['mean_plies']:.1f}  (median {q['0.5']:.0f}, 10-90% {q['0.1']:.0f}-{q['0.9']:.0f})")
    return t


def end_table(s: dict) -> Table:
    t = Table(title="end reasons", header_style="bold")
    t.add_column("reason")
    t.add_column("games", justify="right")
    t.add_column("share", justify="right")
    n = max(s["games"], 1)
    for r, c in s["end_reasons"].items():
        t.add_row(r, f"{c:,}", pct(c / n))
    return t


def frame_table(df, title: str, fmt="{:.3f}") -> Table:
    t = Table(title=title, header_style="bold")
    names = list(df.index.names) if df.index.nlevels > 1 else [df.index.name or ""]
    for n in names:
        t.add_column(str(n))
    for c in df.columns:
        t.add_column(str(c), justify="right")
    for idx, row in df.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = [str(i) for i in idx]
        for v in row:
            cells.append(fmt.format(v) if isinstance(v, float) else f"{v:,}" if isinstance(v, int) else str(v))
        t.add_row(*cells)
    return t
