"""Design reports: figures (plots.py, boards.py), findings, HTML assembly (html.py)."""
from __future__ import annotations


def build_report(paths, out=None, title=None):
    """Write OUT/index.html for run/compare/sweep/values directories; returns its path."""
    from simkit.report.html import build_report as _build
    return _build(paths, out, title)
