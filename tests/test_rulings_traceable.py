"""Every ruling id of the rule book and the game docs is cited at the code that implements it.

A ruling is a decision someone will want to find in the code (and change); an id that
appears only in prose is a ruling nobody can trace. Ids: SK-/MC-/ST-/WF- followed by a
number (with an optional letter, SK-5b) or a capital letter (a doc's own rulings, WF-A).
"""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT.parent / "shared" / "RULES.md"
RULING = re.compile(r"(?<![\w-])((?:SK|MC|ST|WF)-(?:\d+[a-z]?|[A-Z]\d*))(?![\w-])")


def _sources():
    paths = sorted((ROOT / "docs" / "games").glob("*.md"))
    if RULES.exists():          # the shared rule book sits beside the checkout
        paths.insert(0, RULES)
    return paths


def ruling_ids(text):
    return set(RULING.findall(text))


def test_the_pattern_tells_rulings_apart():
    assert ruling_ids("SK-5 and SK-5b, WF-A; ST-S. not XSK-5, SK-5x2, MC-12") == {"SK-5", "SK-5b", "WF-A",
                                                                                    "ST-S", "MC-12"}
    assert "SK-5" not in ruling_ids("SK-5b only")


def test_every_ruling_id_appears_in_the_code():
    cited = {}
    for p in _sources():
        for rid in ruling_ids(p.read_text(encoding="utf-8")):
            cited.setdefault(rid, []).append(p.name)
    # the docs alone hold rulings of every game (the rule book adds the numbered ones)
    assert {r.split("-")[0] for r in cited} == {"SK", "MC", "ST", "WF"}
    code = set()
    for p in (ROOT / "simkit").rglob("*.py"):
        code |= ruling_ids(p.read_text(encoding="utf-8"))
    missing = {rid: names for rid, names in sorted(cited.items()) if rid not in code}
    assert not missing, f"rulings cited in docs but at no code under simkit/: {missing}"


def test_rule_book_rulings_are_covered_when_present():
    """The numbered rulings of RULES.md include the newest Storm rulings (ST-6, ST-7)."""
    if not RULES.exists():
        import pytest
        pytest.skip("shared/RULES.md is not beside this checkout")
    ids = ruling_ids(RULES.read_text(encoding="utf-8"))
    assert {"SK-5", "SK-9", "MC-5", "ST-1", "ST-6", "ST-7", "WF-1", "WF-5"} <= ids
