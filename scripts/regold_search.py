"""Regenerate the golden digest of one game's mcts case only (python scripts/regold_search.py GAME): the search may
change, the scripted policies' records must not (tests/test_golden_records.py)."""
import json
import sys
sys.path.insert(0, "tests")
import test_golden_records as t
game = sys.argv[1]
data = json.loads(t.DATA.read_text())
for label, pols, n in t.CASES:
    if label == "mcts":
        key = f"{game}/{label}"
        old = data[key]
        data[key] = t._digest(game, pols, n)
        print(key, old, "->", data[key])
t.DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
