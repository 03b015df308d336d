"""The documentation keeps up with the commands: every option any command accepts is listed in
docs/REFERENCE.md, and the README's two setup commands are the Makefile targets CI runs."""

from __future__ import annotations

import re

import pytest

from grader.cli import COMMANDS
from tests.conftest import ROOT, cli_here

REFERENCE = (ROOT / "docs" / "REFERENCE.md").read_text(encoding="utf-8")


# `gradescope-run` is what the autograder zip runs inside Gradescope, not a command people type:
# documented in REFERENCE.md, left out of COMMANDS and the README
@pytest.mark.parametrize("command", ["ID", *COMMANDS, "gradescope-run"])
def test_every_option_is_documented(command):
    args = ["7", "--help"] if command == "ID" else [command, "--help"]
    proc = cli_here(*args)
    assert proc.returncode == 0, proc.stderr
    options = set(re.findall(r"(?<![\w-])(--[a-z][a-z-]+)", proc.stdout)) - {"--help"}
    if command not in ("init", "reset"):
        assert options, f"no options found in `grade {command} --help`"
    missing = sorted(o for o in options if f"`{o}" not in REFERENCE and f"{o} " not in REFERENCE)
    assert not missing, f"grade {command}: {missing} not in docs/REFERENCE.md"
    if command != "ID":
        assert f"grade {command}" in REFERENCE


def test_readme_commands_are_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("## Two commands", 1)[1].split("```")[1]
    commands = [line.split("#")[0].strip() for line in block.strip().splitlines()]
    assert commands == ["make demo", "make test"]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^demo:", makefile, re.M) and re.search(r"^test:", makefile, re.M)
    assert "make test-all" in readme  # the full suite is documented next to them


def recipe(makefile: str, target: str) -> str:
    """The commands of ``target`` in ``makefile``."""
    found = re.search(rf"^{target}:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert found, target
    return found.group(1)


def test_ci_runs_every_test_and_make_test_the_fast_tier():
    """CI runs both tiers (no marker deselects anything there), `make test` leaves out only the
    slow and browser tests, and both print their slowest tests and fail on no test collected."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    ci = [
        line.split("#")[0].strip()
        for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    ]
    assert "make test-all" in ci and "make test" not in ci
    full, fast = recipe(makefile, "test-all"), recipe(makefile, "test")
    assert "$(PYTEST)" in full and " -m " not in full and "-k " not in full
    assert '-m "$(FAST)"' in fast
    assert re.search(r"^FAST\s*:= not slow and not browser$", makefile, re.M)
    assert re.search(r"^PYTEST\s*:= .*-m pytest \$\(DURATIONS\)$", makefile, re.M)
    assert re.search(r"^DURATIONS\s*:= --durations=\d+$", makefile, re.M)
    for commands in (full, fast):  # exit code 5 (no test collected) is an error with a line
        assert "$$status -ne 5 ||" in commands and "exit $$status" in commands
    addopts = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^addopts = "[^"]*"$', addopts, re.M)
    assert " -m " not in re.search(r'^addopts = "([^"]*)"$', addopts, re.M).group(1) + " "


def test_security_names_the_tests_that_prove_it():
    """docs/SECURITY.md states each guarantee with the test that proves it: every test it names
    exists, and every hostile case of the adversarial suites is named there."""
    from tests.adversarial.test_adversarial import CASES
    from tests.adversarial.test_measurements import ATTACKS

    doc = (ROOT / "docs" / "SECURITY.md").read_text(encoding="utf-8")
    named = re.findall(r"(tests/[\w/]+\.py)(?:::(\w+))?", doc)
    assert named
    for path, test in named:
        assert (ROOT / path).is_file(), path
        if test:
            assert re.search(rf"^def {test}\(", (ROOT / path).read_text(), re.M), (path, test)
    cases = [c.label or c.name for c in CASES] + [a.name for a in ATTACKS]
    assert [n for n in cases if f"`{n}`" not in doc] == []
