# Two commands set everything up on a fresh machine (see README.md):
#   make demo   create .venv, install, grade a bundled example submission, write its report
#   make test   create .venv, install, run the test suite (which also runs `grade validate`)
#
# TORCH is what pip installs for torch first. The default pins the CPU build that lies on the
# development machines' disk; elsewhere use `make demo TORCH=torch` for your platform's build.

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch==2.13.0
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup demo test lint clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

setup: $(STAMP)

demo: setup
	@mkdir -p out/demo
	@# exit code 1 means "graded, some tests failed": that is the point of the demo
	$(BIN)/grade exercise-14 --file examples/exercise-14.py --device all \
		--report out/demo/exercise-14.html --json out/demo/exercise-14.json; test $$? -le 1
	@echo "Report: out/demo/exercise-14.html   Result JSON: out/demo/exercise-14.json"

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check grader tests exercises solutions bench
	$(BIN)/ruff format --check grader tests exercises solutions bench
	$(BIN)/mypy

clean:
	rm -rf out test-artifacts .pytest_cache build dist *.egg-info
