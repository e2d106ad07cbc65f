"""Numbers in docs/ come from simkit.report.doc_numbers: every marked block is one the script knows,
the cheap ones regenerate to the committed text, and a changed number is caught."""
import re
from pathlib import Path

import pytest

from simkit.report import doc_numbers
from simkit.report.doc_blocks import BLOCKS

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])


def test_every_marked_block_is_registered_and_every_block_is_marked_once():
    marked = {}
    for p in DOCS:
        text = p.read_text(encoding="utf-8")
        opens = re.findall(r"<!-- numbers: ([\w.-]+)", text)
        assert len(opens) == len(doc_numbers.blocks_in(text)), f"{p}: a block without its closing marker"
        for name in opens:
            assert name not in marked, f"block {name} in {p} and {marked[name]}"
            marked[name] = str(p.relative_to(ROOT))
    assert marked == {n: b.doc for n, b in BLOCKS.items()}
    assert {b.cost for b in BLOCKS.values()} <= {"cheap", "slow", "mcts"}


def test_the_cheap_blocks_are_what_the_code_prints_now():
    differ = doc_numbers.run(check=True, cost="cheap", log=lambda m: None)
    assert differ == [], (f"docs numbers differ from what the commands print now: {differ}; regenerate with "
                          f"`python -m simkit.report.doc_numbers {' '.join(differ)}`")


def test_a_changed_number_is_caught_and_rewritten(tmp_path):
    name = "coverage"
    src = ROOT / BLOCKS[name].doc
    root = tmp_path / "checkout"
    (root / src.relative_to(ROOT)).parent.mkdir(parents=True)
    text = src.read_text(encoding="utf-8")
    body = doc_numbers.blocks_in(text)[name]
    digit = re.search(r"0\.9\d\d", body).group(0)
    broken = text.replace(body, body.replace(digit, "0.123", 1))
    (root / src.relative_to(ROOT)).write_text(broken, encoding="utf-8")
    assert doc_numbers.run([name], check=True, root=root, log=lambda m: None) == [name]
    doc_numbers.run([name], root=root, log=lambda m: None)          # rewrite
    fixed = (root / src.relative_to(ROOT)).read_text(encoding="utf-8")
    assert doc_numbers.blocks_in(fixed)[name] == body
    assert doc_numbers.run([name], check=True, root=root, log=lambda m: None) == []


def test_the_stamp_names_the_commit_and_is_not_compared():
    text = "a\n<!-- numbers: x · commit abc1234 -->\nbody 1\n<!-- /numbers: x -->\nz\n"
    new = doc_numbers.replace_block(text, "x", "body 2", "def5678+")
    assert new == "a\n<!-- numbers: x · commit def5678+ -->\nbody 2\n<!-- /numbers: x -->\nz\n"
    assert doc_numbers.blocks_in(new) == {"x": "body 2\n"}
    with pytest.raises(KeyError):
        doc_numbers.replace_block(text, "y", "b", "c")
