"""Report assembly: directories -> OUT/index.html with its PNG figures and CSV tables.

The page is self-contained for offline reading: inline CSS, no scripts, no
network; every image and link is a file beside index.html. Every string that
comes from a file (scenario names, descriptions, rule values, labels) is
escaped with ``html.escape``.
"""
from __future__ import annotations

import math
import os
import re
import time
from html import escape
from pathlib import Path

import pandas as pd

from simkit.errors import UsageError
from simkit.report import data as rdata
from simkit.report import fmt, plots, sections
from simkit.report.findings import Finding

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;max-width:1020px;margin:2em auto;padding:0 1em;
color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
h3{margin-bottom:.3em}.muted{color:#777}.sub{color:#555;margin-top:0}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}td,th{border:1px solid #ddd;padding:.2em .6em;
text-align:right}th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
figure{margin:1.2em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}figcaption{font-size:.85em;color:#555}
ul.findings li{margin:.3em 0}li.flag{color:#a31515}li.flag::marker{content:"\\26A0  "}
details{margin:.6em 0}summary{cursor:pointer;color:#345}nav a{margin-right:1em}
.csv{font-size:.85em}
"""


def default_out(paths) -> Path:
    names = [Path(p).resolve().name for p in paths]
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "-", names[0])[:60] or "report"
    if len(names) > 1:
        slug += f"-and-{len(names) - 1}-more"
    # under runs/, never reports/: that folder holds the committed example reports, which a
    # `simkit report runs/demo/<game>` must not overwrite unless asked to with -o
    return Path("runs") / "reports" / slug


# columns whose numbers take their kind from the row's metric (long tables: metric, value, ci_lo, ...)
_BY_METRIC = {"value", "a", "b", "ci_lo", "ci_hi", "mean", "lo", "hi", "estimate", "score"}
_DIFF = {"difference", "diff", "effect"}


def _fmt(x, column: str = "", metric: str | None = None, options=(), diff_ci: bool = False,
         ci_kind=None) -> str:
    """One table cell in the one format of its kind (simkit/report/fmt.py)."""
    import numpy as np
    if isinstance(x, (bool, np.bool_)) or column in options:
        return fmt.option_value(x)
    if isinstance(x, (dict, list)):
        return fmt.option_value(x)
    if fmt.missing(x):
        return fmt.MISSING
    if isinstance(x, str):
        return x
    col = str(column)
    if col.startswith("p_") or col in ("p", "p_value", "p_holm"):
        return fmt.p_value(x)
    is_diff = col in _DIFF or (diff_ci and col in ("ci_lo", "ci_hi"))
    if metric is not None and (col in _BY_METRIC or col in _DIFF):
        return fmt.metric_diff(metric, x) if is_diff else fmt.metric_value(metric, x)
    if ci_kind is not None and col in ("ci_lo", "ci_hi"):
        return ci_kind(x)
    base = re.sub(r"_ci_(lo|hi)$", "", col)
    kind = fmt.kind_of(base)
    if kind is fmt.number:
        if isinstance(x, (int, np.integer)):
            return fmt.count(x)
        if col in ("mean", "lo", "hi", "per_game"):
            return fmt.per_game(x)
        if col in _DIFF:
            return fmt.signed(x, 4)
    return kind(x)


def table_html(frame: pd.DataFrame, max_rows: int = 40, unit: str = "plies", options=(), note: str = "") -> str:
    """A table in the report's number formats; a missing number shows "—" and the table says why."""
    cols = list(frame.columns)
    # an interval belongs to the estimate beside it: a difference's (B - A), a score's
    diff_ci = any(c in _DIFF for c in cols)
    ci_kind = fmt.score if "score" in cols else None
    head = "".join(f"<th>{escape(fmt.with_unit(str(c), unit))}</th>" for c in cols)
    body, holes = [], False
    for _, row in frame.head(max_rows).iterrows():
        # long tables: the row's metric (or unit-value method) sets the kind of its numbers
        metric = str(row["metric"]) if "metric" in cols else str(row["method"]) if "method" in cols else None
        cells = []
        for c in cols:
            v = row[c]
            text = _fmt(v, c, metric, options, diff_ci, ci_kind)
            holes |= text == fmt.MISSING
            if c == "metric" and isinstance(v, str):
                text = fmt.with_unit(v, unit)
            cells.append(f"<td>{escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    more = f"<p class='muted'>{len(frame) - max_rows:,} more rows in the CSV.</p>" if len(frame) > max_rows else ""
    foot = f"<p class='muted note'>{escape(note or fmt.MISSING_NOTE)}</p>" if holes else ""
    return f"<table><tr>{head}</tr>{''.join(body)}</table>{foot}{more}"


def _findings_html(items: list[Finding], numbers: dict[str, int]) -> str:
    if not items:
        return ""
    lis = []
    for f in items:
        ref = ""
        if f.figure in numbers:
            ref = f" <a href='#fig-{numbers[f.figure]}'>(Figure {numbers[f.figure]})</a>"
        lis.append(f"<li{' class=flag' if f.flag else ''}>{escape(f.text)}{ref}</li>")
    return "<ul class='findings'>" + "".join(lis) + "</ul>"


def _section_html(sec: sections.Section, first_fig: int) -> tuple[str, dict[str, int], int]:
    numbers = {}
    figs = []
    n = first_fig
    for fig in sec.figures:
        numbers[fig.key] = n
        width = f" width='{fig.width_px}'" if fig.width_px else ""
        figs.append(f"<figure id='fig-{n}'><img src='{escape(fig.file, quote=True)}'{width} "
                    f"alt='{escape(fig.caption, quote=True)}'>"
                    f"<figcaption><b>Figure {n}.</b> {escape(fig.caption)}</figcaption></figure>")
        n += 1
    parts = [f"<h2 id='{escape(sec.anchor)}'>{escape(sec.title)}</h2>"]
    if sec.subtitle:
        parts.append(f"<p class='sub'>{escape(sec.subtitle)}</p>")
    if sec.description:
        parts.append(f"<p>{escape(sec.description)}</p>")
    if sec.facts:
        parts.append("<table>" + "".join(f"<tr><th>{escape(k)}</th><td>{escape(v)}</td></tr>" for k, v in sec.facts)
                     + "</table>")
    if sec.findings:
        parts.append("<h3>Findings</h3>" + _findings_html(sec.findings, numbers))
    parts.extend(figs)
    for t in sec.tables:
        parts.append(f"<details><summary>{escape(t.caption)}</summary>"
                     f"{table_html(t.frame, unit=sec.length_unit, options=t.options, note=t.note)}"
                     f"<p class='csv'><a href='{escape(t.file, quote=True)}'>{escape(t.file)}</a></p></details>")
    if sec.rules:
        rules = pd.DataFrame({"option": list(sec.rules), "value": [fmt.option_value(v) for v in sec.rules.values()]})
        parts.append(f"<details><summary>Scenario rules (values as --set takes them)</summary>"
                     f"{table_html(rules, 200)}</details>")
    return "\n".join(parts), numbers, n


def render(title: str, secs: list[sections.Section], overview: sections.Section | None) -> str:
    body, n, all_findings = [], 1, []
    if overview is not None:
        html_, numbers, n = _section_html(overview, n)
        body.append(html_)
        all_findings.append((overview, numbers))
    for sec in secs:
        html_, numbers, n = _section_html(sec, n)
        body.append(html_)
        all_findings.append((sec, numbers))
    summary = []
    for sec, numbers in all_findings:
        flagged = [f for f in sec.findings if f.flag] or sec.findings[:2]
        if flagged and sec is not overview and len(secs) > 1:
            summary.append(f"<h3><a href='#{escape(sec.anchor)}'>{escape(sec.title)}</a></h3>"
                           + _findings_html(flagged, numbers))
    nav = " ".join(f"<a href='#{escape(s.anchor)}'>{escape(s.title)}</a>" for s in secs)
    import simkit
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<meta name='viewport' content='width=device-width, initial-scale=1'><title>{escape(title)}</title>"
            f"<style>{CSS}</style></head><body>\n<h1>{escape(title)}</h1>"
            f"<p class='muted'>simkit {escape(simkit.__version__)} design report, generated "
            f"{escape(time.strftime('%Y-%m-%d %H:%M'))}. Intervals are 95%.</p><nav>{nav}</nav>"
            + ("<h2 id='key-findings'>Key findings</h2>" + "\n".join(summary) if summary else "")
            + "\n" + "\n".join(body) + "\n</body></html>\n")


def _overview(items, w: sections.Writer) -> sections.Section | None:
    runs = [(i, x) for i, x in enumerate(items) if x.kind == "run" and x.summary.get("games")]
    if len(runs) < 2:
        return None
    sec = sections.Section("overview", "Overview of the runs")
    rows = []
    for _, r in runs:
        s = r.summary
        lo, hi = s.get("first_player_advantage_ci") or [math.nan, math.nan]
        rows.append({"run": r.label, "games": s.get("games"), "first_player_advantage": s.get("first_player_advantage"),
                     "fpa_ci_lo": lo, "fpa_ci_hi": hi, "draw_rate": s.get("draw_rate"),
                     "decisiveness": s.get("decisiveness"), "mean_length": s.get("mean_plies")})
    frame = pd.DataFrame(rows)
    w.figure(sec, "fpa_all", plots.fpa, [(r["run"], r["first_player_advantage"], r["fpa_ci_lo"], r["fpa_ci_hi"])
                                          for r in rows], "First-player advantage of every run (95% CI).",
             size=(8, 1.2 + 0.5 * len(rows)))
    w.table(sec, "overview", frame, "Every run at a glance")
    sec.facts = []
    return sec


def build_report(paths, out: str | Path | None = None, title: str | None = None) -> Path:
    """Write OUT/index.html (default reports/<name>/) for run, compare, sweep and values directories."""
    if not paths:
        raise UsageError("give at least one run, compare, sweep or values directory")
    items = [rdata.load(p) for p in paths]
    out = Path(out) if out is not None else default_out(paths)
    out.mkdir(parents=True, exist_ok=True)
    secs = []
    for i, item in enumerate(items, 1):
        prefix = "" if len(items) == 1 else f"s{i}_"
        built = sections.BUILDERS[item.kind](item, sections.Writer(out, prefix), f"s{i}")
        secs.extend(built if isinstance(built, list) else [built])     # a builder may add sections
    overview = _overview(items, sections.Writer(out, ""))
    if title is None:
        title = secs[0].title if len(items) == 1 else f"simkit report: {len(items)} results"
    page = render(title, secs, overview)
    tmp = out / ".index.html.tmp"
    tmp.write_text(page, encoding="utf-8")
    os.replace(tmp, out / "index.html")
    return out / "index.html"
