"""`grade validate` on a scaffolded exercise: what it proves beyond the loader."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.authoring.scaffold import scaffold
from grader.catalog import Catalog
from tests.conftest import run_cli


def make_home(tmp_path: Path) -> Path:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    return tmp_path


@pytest.mark.slow  # runs `grade validate` on a scaffolded exercise
def test_a_mutant_losing_undeclared_tests_is_reported(tmp_path):
    """One bug, one lost requirement: with an audit table, a mutant must lose exactly the tests
    it declares; collateral losses are findings."""
    home = make_home(tmp_path)
    folder = home / "exercises" / "exercise-42"
    (folder / "mutants" / "adds_double.py").write_text(
        "def scale(x, factor):\n    return (x + factor).double()\n"
    )
    spec = folder / "exercise.yaml"
    text = spec.read_text()
    text = text.replace(
        "alternatives:\n",
        "  - file: mutants/adds_double.py\n"
        '    description: "adds, and returns float64"\n'
        "    must_fail: [test_scale_values]\n"
        "alternatives:\n",
        1,
    )
    spec.write_text(text)
    proc = run_cli("validate", home=home)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "mutant mutants/adds_double.py (adds, and returns float64) also loses " in proc.stdout
    assert "test_scale_keeps_dtype, which must_fail does not list" in proc.stdout
    # the other mutants lose exactly what they declare
    assert "mutants/adds.py" not in proc.stdout
    assert "mutants/in_place.py" not in proc.stdout


@pytest.mark.slow  # runs `grade validate` on a scaffolded exercise
def test_an_exercise_without_an_audit_table_is_reported(tmp_path):
    home = make_home(tmp_path)
    spec = home / "exercises" / "exercise-42" / "exercise.yaml"
    text = spec.read_text()
    spec.write_text(text[: text.index("requirements:")])
    proc = run_cli("validate", home=home)
    assert proc.returncode == 1
    assert "has no `requirements` table" in proc.stdout
