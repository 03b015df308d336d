# Two commands set everything up on a fresh machine (see README.md):
#   make demo   create .venv, install, grade a bundled example submission, write its report
#   make test   create .venv, install, run the fast tier of the test suite (at most ~5 minutes
#               on a 2-core machine): everything but the tests marked `slow` or `browser`
# and for CI and before a release:
#   make test-all   every test, both tiers (what .ci/run runs; about 15 minutes on 2 cores)
#
# TORCH is what pip installs for torch first. The default pins the CPU build that lies on the
# development machines' disk; elsewhere use `make demo TORCH=torch` for your platform's build.

PYTHON ?= python3
VENV   ?= .venv
TORCH  ?= torch==2.13.0
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# The fast tier leaves out what pyproject.toml marks `slow` (many gradings, wheel builds,
# clusters, benchmarks) and `browser` (headless Chromium). Both tiers print their slowest tests,
# so that a test that grows past the budget is seen. pytest's exit code 5 (no test collected)
# fails the target with a line that says so, as every other non-zero code does.
FAST      := not slow and not browser
DURATIONS := --durations=15
PYTEST    := $(BIN)/python -m pytest $(DURATIONS)

.PHONY: setup demo test test-all lint clean

$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet "$(TORCH)"
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

# An editable install runs the checkout's own files, which have no bytecode until Python writes
# it; where it never does (PYTHONDONTWRITEBYTECODE set, a read-only checkout) every `grade`
# compiled the grader's two hundred modules again, a tenth of a second of each cold start and
# of each test that starts one. pip compiles a wheel's modules when it installs them; setup
# does the same for the grader and the course, on every run (only what changed is compiled).
setup: $(STAMP)
	$(BIN)/python -m compileall -q grader exercises

demo: setup
	@mkdir -p out/demo
	@# exit code 1 means "graded, some tests failed": that is the point of the demo
	$(BIN)/grade exercise-14 --file examples/exercise-14.py --device all \
		--report out/demo/exercise-14.html --json out/demo/exercise-14.json; test $$? -le 1

test: setup
	$(PYTEST) -m "$(FAST)" || { status=$$?; \
		test $$status -ne 5 || echo "Error: the fast tier collected no tests" >&2; exit $$status; }

test-all: setup
	$(PYTEST) || { status=$$?; \
		test $$status -ne 5 || echo "Error: the test suite collected no tests" >&2; exit $$status; }

lint: setup
	$(BIN)/ruff check grader tests exercises solutions bench
	$(BIN)/ruff format --check grader tests exercises solutions bench
	$(BIN)/mypy

clean:
	rm -rf out test-artifacts .pytest_cache build dist *.egg-info
