"""A wheel install runs every game: scenarios and data ship as package data, and nothing reads
files relative to the checkout (issue 11). Builds the wheel (`pip wheel --no-deps`), installs it
into a fresh venv that reuses this environment's installed dependencies (no download of numba),
and runs `simkit run <game> --games 2` for every registered game from a directory outside the
checkout. Kernels come from the shared numba cache (simkit/engine/cache.py keys it on the
sources, not the install path), so after the rest of the suite this costs no compilation."""
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

pytestmark = pytest.mark.wheel

ROOT = Path(__file__).resolve().parents[1]
JUNK = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.egg-info", "build")


def _sh(args, **kw):
    out = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=600, **kw)
    assert out.returncode == 0, f"{args}\n{out.stdout}\n{out.stderr}"
    return out.stdout


def _build_wheel(tmp: Path) -> Path:
    # build from a copy: setuptools writes build/ and *.egg-info next to the sources
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    for name in ("simkit", "scenarios"):
        shutil.copytree(ROOT / name, src / name, symlinks=True, ignore=JUNK)
    _sh([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp / "dist", src])
    [wheel] = (tmp / "dist").glob("simkit-*.whl")
    return wheel


def _fresh_venv(tmp: Path, wheel: Path) -> Path:
    venv = tmp / "venv"
    _sh([sys.executable, "-m", "venv", "--without-pip", venv])
    py = venv / "bin" / "python"
    site = Path(_sh([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).strip())
    # this environment's dependencies, after the venv's own site-packages (the wheel wins); a
    # plain path line, so the editable install's import hook here is not activated there
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "zz_reuse_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    _sh([sys.executable, "-m", "pip", "--python", py, "install", "-q", "--no-deps", "--no-index", wheel])
    return venv


def test_wheel_install_runs_every_game(tmp_path):
    wheel = _build_wheel(tmp_path)
    with __import__("zipfile").ZipFile(wheel) as z:
        names = z.namelist()
    assert "simkit/scenarios/martian_chess/default.toml" in names
    assert not any(n.endswith((".nbi", ".nbc")) for n in names)
    venv = _fresh_venv(tmp_path, wheel)
    away = tmp_path / "elsewhere"      # no checkout here: nothing importable or readable by accident
    away.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}:{env.get('PATH', '')}"
    where = _sh([venv / "bin" / "python", "-c", "import simkit; print(simkit.__file__)"], cwd=away, env=env)
    assert Path(where.strip()).is_relative_to(venv), where
    simkit = venv / "bin" / "simkit"
    games = [g["name"] for g in json.loads(_sh([simkit, "games", "--json"], cwd=away, env=env))]
    from simkit.games import GAMES
    assert set(games) >= {g for g, mod in GAMES.items() if mod.startswith("simkit.games.")}
    # two at a time: a cold cache compiles on both cores
    procs = {}
    for i in range(0, len(games), 2):
        for g in games[i:i + 2]:
            procs[g] = subprocess.Popen([simkit, "run", g, "--games", "2", "--threads", "1", "--json",
                                         "--out", away / g], cwd=away, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        for g in games[i:i + 2]:
            out, err = procs[g].communicate(timeout=900)
            assert procs[g].returncode == 0, f"{g}:\n{err}"
            summary = json.loads(out)
            assert summary["games"] == 2 and summary["game"] == g
            assert (away / g / "games.parquet").exists()
