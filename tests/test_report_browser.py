"""Reports render in a real headless browser with every image present (skipped without Chromium)."""
import shutil
from pathlib import Path

import pytest

from simkit.report.browser_check import browser, check

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.skipif(browser() is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_committed_example_renders_and_a_missing_image_is_caught(tmp_path):
    exe = browser()
    src = ROOT / "reports" / "martian_chess"
    assert check(src, exe, tmp_path) == []
    broken = tmp_path / "broken"
    shutil.copytree(src, broken)
    next(broken.glob("*.png")).unlink()
    problems = check(broken, exe, tmp_path)
    assert any("missing" in p for p in problems)
