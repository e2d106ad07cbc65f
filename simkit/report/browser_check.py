"""Check reports in a real headless browser: every page renders and no image is missing.

    python -m simkit.report.browser_check [REPORT_DIR ...]     (default: every reports/*/)

For each ``index.html``: every ``<img src>`` must name a readable PNG/SVG beside it;
headless Chromium loads the page (``--dump-dom``: the DOM after load must still hold
every image and the findings) and takes a full-width screenshot, which must not be
blank. Exit 1 with a line per problem. Chromium comes from the system (Debian:
``apt-get install chromium``); without it the check says so and exits 2.
"""
from __future__ import annotations

import html.parser
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


class _Images(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.srcs: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.srcs.extend(v for k, v in attrs if k == "src" and v)


def browser() -> str | None:
    return next((shutil.which(b) for b in BROWSERS if shutil.which(b)), None)


def _run(exe: str, args: list[str], timeout: float = 60.0) -> subprocess.CompletedProcess:
    base = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            "--allow-file-access-from-files", "--virtual-time-budget=3000"]
    return subprocess.run(base + args, capture_output=True, text=True, timeout=timeout)


def check(report_dir: Path, exe: str, shots: Path) -> list[str]:
    page = report_dir / "index.html"
    if not page.is_file():
        return [f"{report_dir}: no index.html"]
    problems = []
    parser = _Images()
    parser.feed(page.read_text(encoding="utf-8"))
    for src in parser.srcs:
        f = report_dir / src
        if not f.is_file() or f.stat().st_size < 100:
            problems.append(f"{page}: image {src} is missing or empty")
    dom = _run(exe, ["--dump-dom", page.resolve().as_uri()])
    if dom.returncode != 0 or "<body" not in dom.stdout:
        problems.append(f"{page}: Chromium did not render the page ({dom.stderr.strip()[:200]})")
    elif dom.stdout.count("<img") != len(parser.srcs):
        problems.append(f"{page}: the rendered page holds {dom.stdout.count('<img')} images, the file "
                        f"{len(parser.srcs)}")
    shot = shots / f"{report_dir.name}.png"
    r = _run(exe, [f"--screenshot={shot}", "--window-size=1280,2400", page.resolve().as_uri()])
    if r.returncode != 0 or not shot.is_file():
        problems.append(f"{page}: no screenshot ({r.stderr.strip()[:200]})")
    else:
        import matplotlib.image as mpimg
        img = mpimg.imread(shot)
        if float(img[..., :3].std()) < 0.01:
            problems.append(f"{page}: the screenshot is blank")
    return problems


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from simkit.report.examples import committed_reports
    dirs = [Path(a) for a in args] or [p.parent for p in committed_reports(Path("."))]
    exe = browser()
    if exe is None:
        print("no Chromium found (apt-get install chromium): reports not checked in a browser")
        return 2
    shots = Path(tempfile.mkdtemp(prefix="simkit-shots-"))
    problems = []
    for d in dirs:
        problems += check(d, exe, shots)
    for p in problems:
        print(p)
    print(f"{len(dirs)} reports checked in {Path(exe).name}: {len(problems)} problems; screenshots in {shots}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
