"""The whole curriculum through `grade validate`, as CI runs it: every exercise's spec and files,
its reference and alternatives at full marks, its starter and every mutant failing with the
declared diagnosis. The JUnit report names each check.

Nothing here counts the exercises: the checks follow whatever the catalogue holds, so adding an
exercise that validates never breaks the suite (proved on a course with one exercise more)."""

from __future__ import annotations

import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.authoring import language
from grader.catalog import Catalog, project_root
from tests.conftest import FIXTURES, run_cli

BUILTIN = Catalog(project_root())


def assert_validated(proc: subprocess.CompletedProcess, junit: Path, catalog: Catalog) -> None:
    """`grade validate --junit` passed on every exercise ``catalog`` holds, whatever their
    number, each with its checks in the report."""
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]
    specs = catalog.all()
    assert specs and [s.id for s in specs] == [f.name for f in catalog.folders()]
    suites = {s.get("name"): s for s in ET.parse(junit).getroot().iter("testsuite")}
    assert {s.id for s in specs} <= set(suites)
    assert set(suites) - {s.id for s in specs} <= {"course"}  # the course's own diagnoses.yaml
    for spec in specs:
        suite = suites[spec.id]
        assert suite.get("failures") == "0", spec.id
        names = [case.get("name") for case in suite.iter("testcase")]
        assert {"spec", "files", "curriculum", "language", "reference", "starter"} <= set(names)
        assert sum(n.startswith("mutant ") for n in names) == len(spec.mutants) >= 3
        assert sum(n.startswith("alternative ") for n in names) == len(spec.alternatives) >= 2
        assert f"✓ {spec.id}: reference" in proc.stdout
    assert f"\n{len(specs)} exercises, " in proc.stdout


@pytest.mark.slow
def test_grade_validate_passes_on_every_exercise(tmp_path):
    junit = tmp_path / "validate.xml"
    proc = run_cli("validate", "--junit", str(junit), timeout=900)
    assert_validated(proc, junit, BUILTIN)


@pytest.mark.slow
def test_an_extra_exercise_breaks_none_of_these_assumptions(validated_puzzles):
    """A course with one exercise more than its fixture (a scaffold added to the puzzle
    course, tests/conftest.py): the same checks hold, counted from its catalogue."""
    catalog = Catalog(validated_puzzles.root)
    assert len(catalog.all()) == len(Catalog(FIXTURES / "course-puzzles").all()) + 1
    assert_validated(validated_puzzles.proc, validated_puzzles.junit, catalog)


@pytest.mark.parametrize("spec", BUILTIN.all(), ids=lambda s: s.id)
def test_every_exercise_speaks_both_languages(spec):
    """No learner-facing text of a built-in exercise reaches the zh view in English."""
    root = spec.course_root
    found = language.spec_warnings(spec, language.relative(spec.spec_path, root))
    found += language.tests_warnings(
        spec.test_path.read_text(encoding="utf-8"), language.relative(spec.test_path, root)
    )
    assert found == []
