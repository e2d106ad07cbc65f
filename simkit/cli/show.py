"""Printing results for people: rich tables on stdout."""
from __future__ import annotations


from rich.console import Console
from rich.table import Table


def console() -> Console:
    import sys
    # Piped output (CI logs, files) gets room for the widest table instead of rich's 80 columns. No emoji codes:
    # a policy name followed by a colon ("against mcts:100: it scores") would print as an emoji.
    return Console(highlight=False, soft_wrap=True, emoji=False, width=None if sys.stdout.isatty() else 160)


def pct(x) -> str:
    from simkit.report import fmt
    return fmt.rate(x)


def pct_ci(v, ci) -> str:
    from simkit.report import fmt
    return fmt.with_ci(v, *(ci or (None, None)), kind=fmt.rate, sentence=False)


def summary_table(s: dict, title: str) -> Table:
    t = Table(title=title, show_header=True, header_style="bold")
    t.add_column("metric")
    t.add_column("value (95% CI)", justify="right")
    from simkit.report import fmt
    t.add_row("games", fmt.count(s["games"]))
    t.add_row("first player wins", pct_ci(s["first_player_win_rate"], s["first_player_win_rate_ci"]))
    t.add_row("second player wins", pct_ci(s["second_player_win_rate"], s["second_player_win_rate_ci"]))
    t.add_row("draws", pct_ci(s["draw_rate"], s["draw_rate_ci"]))
    t.add_row("side 0 wins", pct_ci(s["side0_win_rate"], s["side0_win_rate_ci"]))
    t.add_row("side 1 wins", pct_ci(s["side1_win_rate"], s["side1_win_rate_ci"]))
    fpa, ci = s["first_player_advantage"], s["first_player_advantage_ci"]
    t.add_row("first-player advantage", fmt.with_ci(fpa, *ci, kind=fmt.advantage, sentence=False))
    t.add_row("decisiveness (not capped)", pct(s["decisiveness"]))
    q = s["plies_quantiles"]
    t.add_row(f"mean {s['length_unit']}",
              f"{fmt.length(s['mean_plies'])}  (median {fmt.number(q['0.5'])}, 10-90% {fmt.number(q['0.1'])}"
              f"-{fmt.number(q['0.9'])})")
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


def frame_table(df, title: str, fmt=None, missing_why: str | None = None) -> Table:
    """A DataFrame as a table: floats as per-game means (three decimals), counts with separators;
    a missing number is "—" with a caption that says why (``missing_why``, else which cells
    have no data), never ``nan``."""
    from simkit.report import fmt as f
    t = Table(title=title, header_style="bold")
    names = list(df.index.names) if df.index.nlevels > 1 else [df.index.name or ""]
    for n in names:
        t.add_column(str(n))
    for c in df.columns:
        t.add_column(str(c), justify="right")
    holes = []
    for idx, row in df.iterrows():
        idx = idx if isinstance(idx, tuple) else (idx,)
        cells = [str(i) for i in idx]
        for col, v in zip(df.columns, row):
            if f.missing(v):
                cells.append(f.MISSING)
                holes.append((" ".join(map(str, idx)), col))
            elif isinstance(v, float):
                cells.append(fmt.format(v) if fmt else f.per_game(v))
            elif isinstance(v, int):
                cells.append(f.count(v))
            else:
                cells.append(str(v))
        t.add_row(*cells)
    if holes:
        t.caption = missing_why or missing_note(holes)
    return t


def missing_note(holes) -> str:
    """Why cells are "—": "no 'attacks' count for great_sword, tower_shield (...)"."""
    from simkit.report import fmt as f
    by_col: dict = {}
    for row, col in holes:
        by_col.setdefault(str(col), []).append(row)
    parts = []
    for col, rows in by_col.items():
        who = sorted(dict.fromkeys(r.split(" ")[-1] for r in rows))
        parts.append(f"no '{col}' count for {', '.join(who)} (the game records none for them: they never make any)")
    return f"{f.MISSING}: " + "; ".join(parts)
