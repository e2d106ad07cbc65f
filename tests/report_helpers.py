"""Fixture builders for the report tests: a real small run, and compare/sweep/values
directories in the formats `simkit compare`, `simkit sweep` and `simkit values` write."""
from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def make_run(out: Path, game: str = "martian_chess", games: int = 400, sets=None) -> Path:
    from simkit.engine.runner import RunConfig, simulate
    from simkit.scenario import load_scenario
    simulate(load_scenario(game, sets or []), RunConfig(games=games, policies=("random", "random")),
             out_dir=out, progress=False, keep=False)
    return out


def make_compare(out: Path, run_a: Path, run_b: Path) -> Path:
    out.mkdir(parents=True)
    shutil.copytree(run_a, out / "a")
    shutil.copytree(run_b, out / "b")
    sa = json.loads((run_a / "summary.json").read_text())
    sb = json.loads((run_b / "summary.json").read_text())
    diffs = {}
    for m in ("first_player_advantage", "side0_win_rate", "draw_rate", "mean_plies"):
        d = sb[m] - sa[m]
        diffs[m] = {"diff": d, "ci": [d - 0.01, d + 0.01], "p_value": 0.5 if abs(d) < 0.01 else 0.001,
                    "se": 0.005, "paired": True}
    (out / "manifest.json").write_text(json.dumps({"kind": "compare", "status": "complete", "labels": ["A", "B"]}))
    (out / "compare.json").write_text(json.dumps({"kind": "compare", "a": sa, "b": sb, "labels": ["A", "B"],
                                                  "differences": diffs, "verdict": "B differs from A (test)"}))
    return out


def make_sweep(out: Path, keys: list[str], grids: list[list]) -> Path:
    out.mkdir(parents=True)
    rng = np.random.default_rng(0)
    rows = []
    for values in np.array(np.meshgrid(*grids)).T.reshape(-1, len(keys)):
        row = dict(zip(keys, (int(v) for v in values)))
        row["games"] = 1000
        for m, base in (("first_player_advantage", 0.02), ("draw_rate", 0.3), ("side0_win_rate", 0.35)):
            v = base + float(rng.normal(0, 0.02))
            row[m], row[f"{m}_ci_lo"], row[f"{m}_ci_hi"] = v, v - 0.015, v + 0.015
        rows.append(row)
    df = pd.DataFrame(rows)
    df.to_csv(out / "sweep.csv", index=False)
    df.to_parquet(out / "sweep.parquet")
    (out / "manifest.json").write_text(json.dumps({"kind": "sweep", "status": "complete", "keys": keys,
                                                   "values": dict(zip(keys, grids)), "game": "martian_chess"}))
    return out


def make_values(out: Path) -> Path:
    out.mkdir(parents=True)
    rows = [("ablation", "pawn", 0.01, 0.0, 0.02), ("ablation", "drone", 0.03, 0.02, 0.04),
            ("ablation", "queen", 0.06, 0.05, 0.07), ("regression", "pawn", 1.0, 1.0, 1.0),
            ("regression", "drone", 1.8, 1.5, 2.1), ("regression", "queen", 3.2, 2.7, 3.7)]
    df = pd.DataFrame(rows, columns=["method", "unit", "value", "ci_lo", "ci_hi"])
    df.to_csv(out / "values.csv", index=False)
    (out / "values.json").write_text(json.dumps({"kind": "values", "game": "martian_chess", "scenario": "default"}))
    (out / "manifest.json").write_text(json.dumps({"kind": "values", "status": "complete"}))
    return out


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[str] = []
        self.tags: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for k, v in attrs:
            if k in ("src", "href") and v:
                self.refs.append(v)


def html_refs(path: Path) -> tuple[list[str], list[str]]:
    p = _Refs()
    p.feed(path.read_text(encoding="utf-8"))
    return p.refs, p.tags


def check_report(index: Path) -> list[str]:
    """Assert the report is self-contained; return the PNG names it shows."""
    assert index.name == "index.html" and index.exists()
    refs, tags = html_refs(index)
    assert "script" not in tags and "link" not in tags   # inline CSS, no scripts
    local = [r for r in refs if not r.startswith("#")]
    for r in local:
        assert not re.match(r"^[a-z]+:", r), f"network or absolute reference {r!r}"
        assert (index.parent / r).is_file(), f"index.html references missing {r!r}"
    for r in refs:
        if r.startswith("#"):
            assert f"id='{r[1:]}'" in index.read_text(encoding="utf-8"), r
    pngs = [r for r in local if r.endswith(".png")]
    for r in pngs:
        check_png(index.parent / r)
    return pngs


def check_png(path: Path):
    from PIL import Image
    assert path.read_bytes()[:8] == PNG_MAGIC, path
    with Image.open(path) as im:
        w, h = im.size
    assert 150 <= w <= 2000 and 80 <= h <= 2000, (path, w, h)
