"""Every number in docs/ and README.md that a simkit command produces, regenerated from one place.

    python -m simkit.report.doc_numbers                  # rewrite every block but the MCTS ones (make docs)
    python -m simkit.report.doc_numbers --check          # re-run them; exit 1 where the text differs (make docs-check)
    python -m simkit.report.doc_numbers --check --cheap  # only the cheap ones (what tests/test_doc_numbers.py runs)
    python -m simkit.report.doc_numbers --list           # every block: file, cost, command
    python -m simkit.report.doc_numbers NAME ...         # just these (MCTS blocks too, when named)

A generated block in a markdown file sits between two comments:

    <!-- numbers: NAME · commit 1a2b3c4 -->
    ...text the block's generator wrote...
    <!-- /numbers: NAME -->

The generators are in `simkit.report.doc_blocks` (``BLOCKS``: name -> file, cost, the
commands it runs, the function that writes the text). Rewriting a block stamps it with
the commit of the checkout that made it (``+`` when simkit/ or scenarios/ had
uncommitted changes); the check compares the text only, not the stamp. Costs:

- ``cheap``: seconds; the test suite re-runs them, so a change that moves one fails `make test`;
- ``slow``: minutes (tune and sensitivity searches); `make docs-check` re-runs them;
- ``mcts``: numbers of search players (strength and speed tables), expensive and due to be
  rewritten with the next search engine; never run unless named.

What is not a block: speed and timing figures (a measurement of a machine at a moment; each
gives its command and context beside it), numbers recorded about older code (before/after
tables of a change, tuning probes made while a default was chosen), rule and option values.
"""
from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"<!-- numbers: (?P<name>[\w.-]+)(?P<meta>[^>]*?)-->\n(?P<body>.*?)<!-- /numbers: (?P=name) -->",
                    re.S)


def stamp(root: Path = ROOT) -> str:
    """The checkout's short commit, with ``+`` when simkit/ or scenarios/ differ from it."""
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "simkit", "scenarios"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head + ("+" if dirty else "")


def blocks_in(text: str) -> dict:
    """name -> body of every generated block in a markdown text."""
    return {m.group("name"): m.group("body") for m in _BLOCK.finditer(text)}


def replace_block(text: str, name: str, body: str, commit: str) -> str:
    """``text`` with block ``name``'s body (and stamp) replaced; KeyError if it has no such block."""
    if not body.endswith("\n"):
        body += "\n"
    for m in _BLOCK.finditer(text):
        if m.group("name") == name:
            head = f"<!-- numbers: {name} · commit {commit} -->\n"
            return text[:m.start()] + head + body + f"<!-- /numbers: {name} -->" + text[m.end():]
    raise KeyError(name)


def selected(names, cost: str):
    from simkit.report.doc_blocks import BLOCKS
    if names:
        unknown = [n for n in names if n not in BLOCKS]
        if unknown:
            raise SystemExit(f"unknown block(s) {', '.join(unknown)}; blocks: {', '.join(BLOCKS)}")
        return {n: BLOCKS[n] for n in names}
    want = {"cheap": ("cheap",), "slow": ("cheap", "slow"), "all": ("cheap", "slow", "mcts")}[cost]
    return {n: b for n, b in BLOCKS.items() if b.cost in want}


def run(names=(), *, check: bool = False, cost: str = "slow", root: Path = ROOT, log=print) -> list[str]:
    """Regenerate (or, with ``check``, compare) the selected blocks. Returns the names whose text differs
    from the file's (with ``check``) or that were rewritten."""
    import time
    commit = stamp(root)
    differ = []
    for name, block in selected(names, cost).items():
        path = root / block.doc
        text = path.read_text(encoding="utf-8")
        have = blocks_in(text)
        if name not in have:
            raise SystemExit(f"{block.doc} has no block '{name}' (<!-- numbers: {name} --> ... "
                             f"<!-- /numbers: {name} -->)")
        t0 = time.perf_counter()
        body = block.make()
        if not body.endswith("\n"):
            body += "\n"
        took = time.perf_counter() - t0
        if body == have[name]:
            log(f"{name}: unchanged ({took:.0f} s)")
            continue
        differ.append(name)
        if check:
            diff = difflib.unified_diff(have[name].splitlines(), body.splitlines(), f"{block.doc} (committed)",
                                        f"{block.doc} (regenerated)", lineterm="", n=1)
            log(f"{name}: DIFFERS ({took:.0f} s)\n" + "\n".join(diff))
        else:   # the file as it is now: a long block must not undo edits made while it ran
            text = path.read_text(encoding="utf-8")
            path.write_text(replace_block(text, name, body, commit), encoding="utf-8")
            log(f"{name}: rewritten in {block.doc} ({took:.0f} s)")
    return differ


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m simkit.report.doc_numbers", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", metavar="NAME", help="blocks to run (default: by --cheap/--all)")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 when a block's text differs")
    ap.add_argument("--cheap", action="store_true", help="only the cheap blocks (seconds)")
    ap.add_argument("--all", action="store_true", help="every block, the MCTS ones too (hours)")
    ap.add_argument("--list", action="store_true", help="list the blocks and exit")
    args = ap.parse_args(argv)
    if args.list:
        from simkit.report.doc_blocks import BLOCKS
        for name, b in BLOCKS.items():
            print(f"{name:28} {b.cost:5} {b.doc:34} {' ; '.join(b.commands)}")
        return 0
    cost = "cheap" if args.cheap else "all" if args.all else "slow"
    differ = run(args.names, check=args.check, cost=cost)
    if args.check and differ:
        print(f"{len(differ)} block(s) differ from what the code produces now: {', '.join(differ)}; "
              f"regenerate with `python -m simkit.report.doc_numbers {' '.join(differ)}`")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
