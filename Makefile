# make run / make test bootstrap .venv themselves (Python >= 3.11 on PATH).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test quick test-loaded lint dev bench clean java-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# [spark] and [connect] too, so the audit tests (PySpark, Spark Connect) run in `make test`.
# pip compiles the 5,400 modules it installs one after the other (about 28 CPU-s, half of the
# install); compileall does the same on every core. Not compiling at all costs more: each
# xdist worker then compiles what it imports at collection, side by side (docs/benchmarks.md)
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q --no-compile -e '.[dev,spark,connect]'
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib || echo "make: some installed modules did not compile (pip would not have compiled them either)" >&2
	touch $(STAMP)

DEMO ?= $(CURDIR)/.demo/demo.sqlite

run: $(STAMP)
	@test -f $(DEMO) || (mkdir -p $(dir $(DEMO)) && $(BIN)/mqconsole --embedded $(DEMO) init --name QM1 --demo)
	$(BIN)/mqconsole --embedded $(DEMO) tui

dev: $(STAMP)
	@test -f $(DEMO) || (mkdir -p $(dir $(DEMO)) && $(BIN)/mqconsole --embedded $(DEMO) init --name QM1 --demo)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/textual run --dev "mqconsole.tui.app:run_dev" $(DEMO)

lint: $(STAMP)
	$(BIN)/ruff check mqconsole tests bench tools plugins
	$(BIN)/lint-imports
	$(BIN)/mypy

# pymqi's sdist (pure-Python part) so the contract suite also runs on pymqi's real code
PYMQI_STAMP := $(VENV)/.pymqi
$(PYMQI_STAMP): $(STAMP)
	$(BIN)/python tests/backends/mqi/standin.py --fetch-pymqi >/dev/null
	touch $(PYMQI_STAMP)

# Spark 4 (the audit tests) runs on Java 17 or 21: say how to get it rather than fail in a test
java-check:
	@command -v java >/dev/null 2>&1 || { echo "make test needs Java 17 or 21 for the Spark audit tests: install it (Debian/Ubuntu: apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17) or put its bin folder on PATH" >&2; exit 3; }

# pytest runs with Python's bytecode cache on (env -u PYTHONDONTWRITEBYTECODE, as an
# installed mqconsole runs): where the variable is set, every xdist worker, every pytest,
# mqconsole and Spark Python worker a test starts compiled mqconsole and the tests from
# source again (collection 9.2 -> 3.5 CPU-s a worker; __pycache__ is git-ignored)
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest

# mypy (about 25 s of CPU from a fresh clone, under a second with its cache) runs beside
# pytest, in the moments its workers wait: its lines appear among pytest's dots (pytest's
# summary stays last) and its exit status counts as much as pytest's
test: $(STAMP) $(PYMQI_STAMP) java-check
	$(BIN)/ruff check mqconsole tests bench tools plugins
	$(BIN)/lint-imports
	@$(BIN)/mypy & mypy=$$!; \
	$(PYTEST) -n auto -q; tests=$$?; \
	wait $$mypy; typed=$$?; \
	test $$typed = 0 || echo "make test: mypy found problems (above)" >&2; \
	test $$tests = 0 && test $$typed = 0

# The core in about a minute: the queue-manager model, config, scenarios, plugins, the
# operations, the embedded backend and the contract suite on it; without the tiers that
# start Spark, processes or terminals, the MQI stand-in and the long tests
# (tests/support/tiers.py), and with Hypothesis's dev profile (a tenth of the examples).
QUICK_PATHS := tests/mq tests/config tests/model tests/plugins tests/ops \
	tests/backends/embedded tests/contract plugins
QUICK_MARKS := not (spark or cluster or subprocess or pty or mqi or slow)
quick: $(STAMP)
	HYPOTHESIS_PROFILE=dev $(PYTEST) -n auto -q -m "$(QUICK_MARKS)" $(QUICK_PATHS)

# The whole suite beside a CPU hog of twice as many busy processes as cores: no test may
# depend on the machine's speed (issue 26). The hogs are this recipe's own children,
# stopped by their PIDs when it ends, however it ends. With 2 hogs a core the suite gets a
# third of the machine, so its whole-run limit is three times make test's (pyproject.toml).
test-loaded: $(STAMP) $(PYMQI_STAMP) java-check
	@hogs=""; trap 'kill $$hogs 2>/dev/null' EXIT INT TERM; \
	n=$$($(BIN)/python -c 'import os; print(2 * (os.cpu_count() or 1))'); \
	for i in $$(seq $$n); do $(BIN)/python -c 'while True: pass' & hogs="$$hogs $$!"; done; \
	echo "test-loaded: $$n CPU hogs ($$hogs)"; \
	$(PYTEST) -n auto -q --session-timeout=16200

# [bench]: DuckDB, the audit report's yardstick (bench_audit_report.py); not in make test
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	for f in bench/bench_*.py; do $(BIN)/python $$f; done

clean:
	rm -rf $(VENV) .demo
