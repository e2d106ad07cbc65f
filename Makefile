# The commands a newcomer needs. Every target creates .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
SIMKIT := $(VENV)/bin/simkit
STAMP  := $(VENV)/.installed-stamp
DEMO_GAMES ?= 20000

.PHONY: install demo test bench reports docs docs-check check-reports lint clean clean-cache

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev,agents]'
	touch $(STAMP)

install: $(STAMP)

# A real default balance run of every game (greedy vs greedy), its results, and a report.
demo: install
	$(SIMKIT) precompile
	@for g in $$($(SIMKIT) games --json | $(PY) -c "import json,sys; print(' '.join(r['name'] for r in json.load(sys.stdin)))"); do \
		rm -rf runs/demo/$$g; \
		$(SIMKIT) run $$g --games $(DEMO_GAMES) --out runs/demo/$$g || exit 1; \
	done
	$(SIMKIT) report runs/demo/* -o reports/demo --title "simkit demo: every game's default scenario"

test: install
	$(VENV)/bin/pytest -q

bench: install
	mkdir -p bench
	$(SIMKIT) bench --dask --commands --cold-compile --output bench/results.json

reports: install
	$(PY) -m simkit.report.examples
	$(PY) -m simkit.report.analysis_examples

# every number docs/ quotes from a command, regenerated (docs-check: compared, exit 1 when one differs);
# the MCTS blocks only when named: python -m simkit.report.doc_numbers --list
docs: install
	$(PY) -m simkit.report.doc_numbers

docs-check: install
	$(PY) -m simkit.report.doc_numbers --check

# every committed report in headless Chromium: renders, no missing image (needs: apt-get install chromium)
check-reports: install
	$(PY) -m simkit.report.browser_check

lint: install
	$(VENV)/bin/ruff check simkit tests

# Disk hygiene only: a kernel cached from other sources is never loaded (simkit/engine/cache.py
# stamps each cached kernel with a hash of the sources it can depend on).
clean-cache:
	-$(PY) -c "import simkit.engine.cache as c; print(len(c.clear()), 'cache entries removed')"

clean: clean-cache
	rm -rf $(VENV) runs bench .pytest_cache
