# The two commands of the README. Each bootstraps .venv on a fresh machine
# (only Python 3.11+ and make needed) and reuses it afterwards.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# Reinstall when any packaging file changes.
STAMP  := $(VENV)/.installed
DEPS   := setup.cfg pyproject.toml examples/nim/setup.cfg examples/tic_tac_toe/setup.cfg

.PHONY: run test check lint format install openapi bench fuzz clean help

help:  ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/'

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "gameroom needs Python 3.11 or newer (set PYTHON=...)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python $(DEPS)
	$(BIN)/pip install --quiet -e '.[test]' -e ./examples/nim -e ./examples/tic_tac_toe
	@touch $(STAMP)

install: $(STAMP)  ## create .venv and install gameroom with its test extras

run: $(STAMP)  ## start the server on http://127.0.0.1:8000 (embedded Redis + one AI worker)
	$(BIN)/gameroom serve

# The suite mostly waits (on workers, servers, Redis), so it runs on more pytest-xdist
# processes than cores; --dist loadgroup keeps each xdist_group (the browser tests, the
# cluster tests: tests/conftest.py) on one process. TEST_JOBS=0 runs without xdist.
TEST_JOBS ?= 4
XDIST := $(if $(filter 0,$(TEST_JOBS)),-p no:xdist,-n $(TEST_JOBS) --dist loadgroup)

test: $(STAMP)  ## run the whole test suite (browser, cluster and slow tests included) on TEST_JOBS=4 processes
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

# The inner loop also plays fewer random matches per game (the conformance kit's playouts, the
# games' bulk playouts); `make test` plays the shipped numbers.
check: $(STAMP)  ## the fast inner loop: no slow, browser or cluster tests, fewer playouts (~3 min on 2 cores)
	GAMEROOM_PLAYOUTS=1 GAMEROOM_PLAYOUTS_BULK=4 \
		$(BIN)/python -m pytest $(XDIST) -q -m "not slow and not browser and not cluster" $(PYTEST_ARGS)

lint: $(STAMP)  ## ruff (lint and format check) over the tree; mypy on plugin_api, core, eventstore, application and the examples
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@mkdir -p $(VENV)/mypy-path && ln -sfn $(CURDIR)/service $(VENV)/mypy-path/gameroom
	MYPYPATH=$(VENV)/mypy-path $(BIN)/mypy

format: $(STAMP)  ## let ruff fix what it can and format the tree
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# The fuzz target: schemathesis (every check, every phase, stateful along the OpenAPI
# links) against a real `gameroom serve`; `make test` runs a bounded version of it.
FUZZ_EXAMPLES ?= 100
FUZZ_MIN_CASES ?= 2000
fuzz: $(STAMP)  ## fuzz the API with schemathesis against a real server (>= 2,000 cases)
	GAMEROOM_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) GAMEROOM_FUZZ_MIN_CASES=$(FUZZ_MIN_CASES) \
		$(BIN)/python -m pytest -q -s -p no:cacheprovider tests/fuzz/test_fuzz.py

openapi: $(STAMP)  ## regenerate openapi.yaml from the schemas
	$(BIN)/gameroom openapi > openapi.yaml

bench: $(STAMP)  ## run the benchmarks in bench/
	$(BIN)/python bench/run_all.py

clean:  ## remove the virtualenv and caches (keeps ./var, the match data)
	rm -rf $(VENV) .pytest_cache build *.egg-info
