# The commands a newcomer needs. Every target creates .venv on first use.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
SIMKIT := $(VENV)/bin/simkit
STAMP  := $(VENV)/.installed-stamp
DEMO_GAMES ?= 20000

.PHONY: install demo test bench reports lint clean clean-cache

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
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
	$(SIMKIT) bench --dask --output bench/results.json

reports: install
	$(PY) -m simkit.report.examples

lint: install
	$(VENV)/bin/ruff check simkit tests

# numba's cache keys a kernel on its own file only: after editing a jitted function that
# another module's kernel calls, clear the cache (or `simkit precompile` may load stale code).
clean-cache:
	find simkit tests -name '*.nbi' -delete -o -name '*.nbc' -delete

clean: clean-cache
	rm -rf $(VENV) runs bench .pytest_cache
