# make run / make test bootstrap .venv themselves (Python >= 3.11 on PATH).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint dev bench clean java-check

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# [spark] and [connect] too, so the audit tests (PySpark, Spark Connect) run in `make test`
$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install -q -e '.[dev,spark,connect]'
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

test: $(STAMP) $(PYMQI_STAMP) java-check
	$(BIN)/ruff check mqconsole tests bench tools plugins
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python -m pytest -n auto -q

bench: $(STAMP)
	for f in bench/bench_*.py; do $(BIN)/python $$f; done

clean:
	rm -rf $(VENV) .demo
