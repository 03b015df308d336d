"""The Gradescope autograder end to end: ``grade gradescope`` builds the zip, and its
``run_autograder``, run against a fake ``/autograder`` (``GRADESCOPE_ROOT``) with this
interpreter (``GRADER_PYTHON``), grades a submission as Gradescope's harness would have it and
always leaves a valid ``results.json``.

The assignment grades the engine's probe exercise (``tests/fixtures/home``), a few seconds a
grading. Inside the zip the grader runs from the shipped package alone: ``run_autograder``
unsets ``GRADER_HOME``, so the probe exercise is found only if the zip carries it.

Gradescope's formats: the autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/) for the zip, the fixed
folders and ``results.json``; "Submission Metadata" for ``submission_metadata.json``.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.lms.assignment import VISIBILITIES, load_assignment
from grader.lms.autograder import (
    CPU_TORCH_INDEX,
    autograder_files,
    autograder_zip,
    runtime_requirements,
)
from grader.resources import PACKAGE
from tests.conftest import FIXTURES, PROBE_HOME, ROOT, SUBMISSIONS, run_cli

ASSIGNMENT = """\
format_version: 1
name: probe-week
title: Probe week
exercises: {exercise-90: 1}
roster: rosters/class.csv
due: 2026-12-01T23:59:00+00:00
gradescope: {points: 10, hidden_tests: after_published, visibility: visible}
"""
ROSTER = "id,name,email,sid\n1,Jane Rosterly,jane.rosterly@example.edu,S7730019\n"
METADATA = {
    "id": 123456,
    "created_at": "2026-11-30T14:32:10.123456-08:00",
    "assignment": {
        "due_date": "2026-12-01T23:59:00.000000+00:00",
        "late_due_date": None,
        "title": "Probe week",
        "total_points": "10.0",
    },
    "submission_method": "upload",
    "users": [{"email": "jane@example.edu", "id": 4711, "name": "Jane Doe", "sid": "1001"}],
    "previous_submissions": [],
}
RESULT_KEYS = {"score", "execution_time", "output", "visibility", "stdout_visibility", "tests"}
TEST_KEYS = {"name", "score", "max_score", "status", "output", "visibility"}


@pytest.fixture(scope="module")
def autograder(tmp_path_factory) -> Path:
    """The zip, built by the command an instructor runs, from the probe course."""
    folder = tmp_path_factory.mktemp("course")
    (folder / "rosters").mkdir()
    (folder / "rosters" / "class.csv").write_text(ROSTER)
    (folder / "week.yaml").write_text(ASSIGNMENT)
    target = folder / "out" / "autograder.zip"
    done = run_cli(
        "gradescope", "--assignment", str(folder / "week.yaml"), "-o", str(target), home=PROBE_HOME
    )
    assert done.returncode == 0, done.stderr
    assert f"Wrote {target}" in done.stdout and "Configure Autograder" in done.stdout
    return target


def unpack(zip_path: Path, root: Path) -> Path:
    """The zip in ``root/source`` as Gradescope unpacks it (modes kept, as ``unzip`` keeps
    them; zipfile alone would drop them)."""
    source = root / "source"
    with zipfile.ZipFile(zip_path) as zf:
        for info in zf.infolist():
            target = source / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            target.chmod(stat.S_IMODE(info.external_attr >> 16))
    return source


def run_autograder(root: Path, **env: str) -> dict:
    """``run_autograder`` as Gradescope runs it (from /autograder), against the fake root."""
    environment = {k: v for k, v in os.environ.items() if k != "GRADER_HOME"}
    environment.update(GRADESCOPE_ROOT=str(root), GRADER_PYTHON=sys.executable, NO_COLOR="1")
    environment.update(env)
    done = subprocess.run(
        [str(root / "source" / "run_autograder")],
        cwd=root,
        env=environment,
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr  # it always exits 0, with a results.json
    results = root / "results" / "results.json"
    assert results.is_file(), done.stderr
    data = json.loads(results.read_text())
    assert_valid(data)
    return data


def assert_valid(data: dict) -> None:
    """A results.json as the autograder specification defines it."""
    assert set(data) <= RESULT_KEYS, set(data) - RESULT_KEYS
    assert isinstance(data["score"], (int, float)) and data["score"] >= 0
    assert isinstance(data["execution_time"], (int, float)) and data["execution_time"] >= 0
    assert isinstance(data["output"], str)
    assert data.get("visibility", "visible") in VISIBILITIES
    assert data.get("stdout_visibility", "hidden") in VISIBILITIES
    assert isinstance(data["tests"], list)
    for test in data["tests"]:
        assert set(test) == TEST_KEYS, test
        assert isinstance(test["name"], str) and test["name"]
        assert isinstance(test["score"], (int, float)) and isinstance(test["max_score"], float)
        assert 0 <= test["score"] <= test["max_score"]
        assert test["status"] in ("passed", "failed")
        assert isinstance(test["output"], str)
        assert test["visibility"] in VISIBILITIES


def fake_root(tmp_path: Path, autograder: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "autograder"
    unpack(autograder, root)
    for name, text in files.items():
        path = root / "submission" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "submission").mkdir(exist_ok=True)
    (root / "submission_metadata.json").write_text(json.dumps(METADATA))
    return root


def outputs(data: dict) -> str:
    return "\n".join(t["output"] for t in data["tests"]) + "\n" + data["output"]


# -- grading ---------------------------------------------------------------------------------


def test_a_correct_submission_gets_full_marks(autograder, tmp_path):
    root = fake_root(
        tmp_path, autograder, {"exercise-90.py": (SUBMISSIONS / "correct.py").read_text()}
    )
    # the tier Gradescope's container gives: no namespaces (as root: an unprivileged uid)
    data = run_autograder(root, GRADER_ISOLATION="process")
    assert data["score"] == 10.0
    assert isinstance(data["execution_time"], int)
    assert data["visibility"] == "visible" and data["stdout_visibility"] == "hidden"
    names = [t["name"] for t in data["tests"]]
    assert names == [
        "exercise-90: test_double_values[cpu]",
        "exercise-90: test_double_integers[cpu]",
        "exercise-90: test_triple",
    ]  # CUDA cases are skipped without a GPU, and skipped tests are not listed
    assert all(t["status"] == "passed" for t in data["tests"])
    assert all(t["visibility"] == "after_published" for t in data["tests"])
    # Gradescope hides the total score while tests are unpublished: the output must not tell it
    assert "Score:" not in data["output"] and "publishes the grades" in data["output"]
    assert sum(t["max_score"] for t in data["tests"]) == pytest.approx(10.0)
    assert "Graded in the grader's 'process' isolation tier." in data["output"]
    # learner code ran as another uid, while the hidden tests were root's alone
    assert stat.S_IMODE((root / "source").stat().st_mode) & 0o077 == 0
    tests_py = root / "source" / "grader" / "_data" / "exercises" / "exercise-90" / "tests.py"
    assert stat.S_IMODE(tests_py.stat().st_mode) & 0o077 == 0


def test_a_syntax_error_is_a_result_with_score_0(autograder, tmp_path):
    root = fake_root(
        tmp_path, autograder, {"work/exercise-90.py": (SUBMISSIONS / "syntax_error.py").read_text()}
    )
    data = run_autograder(root)
    assert data["score"] == 0
    assert data["tests"] and all(t["status"] == "failed" for t in data["tests"])
    assert all("syntax error at line 1" in t["output"] for t in data["tests"]), outputs(data)
    assert "contact your instructor" not in data["output"]  # the learner's fault, not the grader's


def test_a_missing_file_is_a_visible_failed_test(autograder, tmp_path):
    root = fake_root(tmp_path, autograder, {"notes.txt": "I ran out of time\n"})
    data = run_autograder(root)
    assert data["score"] == 0
    assert data["tests"] == [
        {
            "name": "exercise-90: missing",
            "score": 0.0,
            "max_score": 10.0,
            "status": "failed",
            "output": "No file was handed in for this exercise.",
            "visibility": "visible",
        }
    ]


def test_an_assignment_the_grader_cannot_grade_still_leaves_results(autograder, tmp_path):
    root = fake_root(tmp_path, autograder, {"exercise-90.py": "x = 1\n"})
    (root / "source" / "assignment.yaml").write_text(
        ASSIGNMENT.replace("exercise-90", "exercise-99").replace("roster: rosters/class.csv\n", "")
    )
    data = run_autograder(root)
    assert data["score"] == 0 and data["tests"] == []
    assert "contact your instructor" in data["output"]
    assert "exercise-99" in data["output"]  # what went wrong, for the instructor
    assert data["visibility"] == "visible"  # the student must learn it was not graded


def test_a_grader_that_cannot_start_still_leaves_results(autograder, tmp_path):
    root = fake_root(tmp_path, autograder, {"exercise-90.py": "x = 1\n"})
    data = run_autograder(root, GRADER_PYTHON="/bin/false")
    assert data["score"] == 0 and data["tests"] == []
    assert "exit code 1" in data["output"] and "contact your instructor" in data["output"]


def test_gradescope_run_exits_non_zero_on_a_grader_fault(tmp_path):
    """The command itself (what run_autograder calls): a usage error still writes results."""
    results = tmp_path / "results" / "results.json"
    done = run_cli(
        "gradescope-run",
        "--submission", str(tmp_path / "absent"),
        "--metadata", str(tmp_path / "absent.json"),
        "--assignment", str(tmp_path / "absent.yaml"),
        "--results", str(results),
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    data = json.loads(results.read_text())
    assert_valid(data)
    assert data["score"] == 0 and "contact your instructor" in data["output"]


# -- the zip ---------------------------------------------------------------------------------


def test_the_zip_is_the_grader_and_the_assignments_exercises_only(autograder):
    with zipfile.ZipFile(autograder) as zf:
        names = set(zf.namelist())
        modes = {i.filename: stat.S_IMODE(i.external_attr >> 16) for i in zf.infolist()}
        shipped = zf.read("assignment.yaml").decode()
        everything = b"".join(zf.read(n) for n in zf.namelist())
    assert modes["run_autograder"] == modes["setup.sh"] == 0o755
    assert {"setup.sh", "run_autograder", "requirements.txt", "assignment.yaml"} <= names
    # grading needs no roster: none of its names, e-mails or student numbers goes to Gradescope
    assert not any("roster" in n for n in names)
    assert shipped == ASSIGNMENT.replace("roster: rosters/class.csv\n", "")
    for fact in ("Jane Rosterly", "jane.rosterly@example.edu", "S7730019"):
        assert fact.encode() not in everything, fact
    data = {n for n in names if n.startswith("grader/_data/")}
    assert {n for n in data if not n.startswith("grader/_data/reports/")} == {
        "grader/_data/exercises/exercise-90/exercise.yaml",
        "grader/_data/exercises/exercise-90/exercise-90.py",
        "grader/_data/exercises/exercise-90/tests.py",
        "grader/_data/solutions/exercise-90/exercise-90.py",
    }
    assert "grader/_data/reports/templates/result.html.j2" in names
    package = {
        f"grader/{p.relative_to(PACKAGE).as_posix()}"
        for p in PACKAGE.rglob("*.py")
        if "__pycache__" not in p.parts and p.relative_to(PACKAGE).parts[0] != "_data"
    }
    assert package <= names
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)


def test_a_zip_of_the_real_course_holds_no_other_exercise(tmp_path):
    (tmp_path / "week.yaml").write_text(
        "format_version: 1\nname: w1\nexercises: {exercise-01: 1, exercise-05: 2}\n"
    )
    files = autograder_files(load_assignment(tmp_path / "week.yaml"), course=ROOT)
    ids = {
        n.split("/")[3]
        for n in files
        if n.startswith(("grader/_data/exercises/", "grader/_data/solutions/"))
    }
    assert ids == {"exercise-01", "exercise-05"}
    assert any(n.startswith("grader/_data/exercises/exercise-05/mutants/") for n in files)
    first, second = tmp_path / "a.zip", tmp_path / "b.zip"
    autograder_zip(first, files)
    autograder_zip(second, autograder_files(load_assignment(tmp_path / "week.yaml"), course=ROOT))
    assert first.read_bytes() == second.read_bytes()  # byte-stable


def test_setup_installs_cpu_torch_before_the_requirements(autograder):
    with zipfile.ZipFile(autograder) as zf:
        setup = zf.read("setup.sh").decode()
        requirements = zf.read("requirements.txt").decode().splitlines()
    assert setup.startswith("#!/usr/bin/env bash\n")
    assert f"{CPU_TORCH_INDEX}}}" in setup  # the default torch index
    lines = setup.splitlines()
    torch = next(i for i, line in enumerate(lines) if '--index-url "$TORCH_INDEX"' in line)
    rest = next(i for i, line in enumerate(lines) if "-r " in line and "requirements.txt" in line)
    assert torch < rest
    version = importlib.metadata.version("torch").partition("+")[0]
    assert f'"torch=={version}"' in lines[torch]
    assert f"torch=={version}" in requirements
    assert any(r.startswith("pytest") for r in requirements)
    assert not any("extra" in r or r.startswith(("dask", "ruff", "mypy")) for r in requirements)


def test_requirements_are_pinned_to_what_this_machine_grades_with(tmp_path):
    """Gradescope must grade with the instructor's versions: every requirement is pinned to
    the version installed here, unless the assignment's gradescope.requirements says
    otherwise."""
    (tmp_path / "w.yaml").write_text("format_version: 1\nname: w\nexercises: {exercise-01: 1}\n")
    files = autograder_files(load_assignment(tmp_path / "w.yaml"), course=ROOT)
    lines = [
        line
        for line in files["requirements.txt"][0].decode().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(lines) == len(runtime_requirements())
    for line in lines:
        name, _, version = line.partition("==")
        assert version == importlib.metadata.version(name).partition("+")[0], line
    (tmp_path / "w.yaml").write_text(
        "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n"
        "gradescope: {requirements: {torch: '>=2.2,<3', NumPy: '1.26.4'}}\n"
    )
    files = autograder_files(load_assignment(tmp_path / "w.yaml"), course=ROOT)
    requirements = files["requirements.txt"][0].decode().splitlines()
    assert "torch>=2.2,<3" in requirements and "numpy==1.26.4" in requirements
    assert '"torch>=2.2,<3"' in files["setup.sh"][0].decode()


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        ("{torch: 2.4}", "must be a quoted string"),
        ("{torch: 'latest'}", "is not a version"),
        ("{torch: '2.4; rm -rf /'}", "is not a version"),
        ("[torch]", "expected"),
    ],
)
def test_a_bad_requirement_override_is_a_spec_error(tmp_path, field, problem):
    (tmp_path / "w.yaml").write_text(
        "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n"
        f"gradescope: {{requirements: {field}}}\n"
    )
    done = run_cli(
        "gradescope", "--assignment", str(tmp_path / "w.yaml"), "-o", str(tmp_path / "z")
    )
    assert done.returncode == 2 and "gradescope.requirements" in done.stderr, done.stderr
    assert problem in done.stderr and "Traceback" not in done.stderr


def test_a_requirement_override_names_a_requirement(tmp_path):
    (tmp_path / "w.yaml").write_text(
        "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n"
        "gradescope: {requirements: {scipy: '1.0'}}\n"
    )
    done = run_cli(
        "gradescope", "--assignment", str(tmp_path / "w.yaml"), "-o", str(tmp_path / "z")
    )
    assert done.returncode == 2 and "scipy is not one of the grader's requirements" in done.stderr


def test_requirements_come_from_pyproject_without_installed_metadata(monkeypatch):
    installed = runtime_requirements()

    def absent(name: str):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "requires", absent)
    assert runtime_requirements() == installed  # pyproject.toml beside the package


def test_a_course_of_its_own_ships_its_diagnoses(tmp_path, monkeypatch):
    """Without its diagnoses.yaml, the course's feedback on Gradescope would name the built-in
    diagnoses only; run_autograder clears both course variables."""
    course = tmp_path / "puzzles"
    shutil.copytree(FIXTURES / "course-puzzles", course)
    monkeypatch.setenv("GRADER_COURSE", str(course))
    (tmp_path / "week.yaml").write_text("format_version: 1\nname: p\nexercises: {exercise-21: 1}\n")
    files = autograder_files(load_assignment(tmp_path / "week.yaml"), course=course)
    assert files["grader/_data/diagnoses.yaml"][0] == (course / "diagnoses.yaml").read_bytes()
    assert "unset GRADER_COURSE GRADER_HOME" in files["run_autograder"][0].decode()
    monkeypatch.delenv("GRADER_COURSE")
    (tmp_path / "builtin.yaml").write_text(
        "format_version: 1\nname: b\nexercises: {exercise-01: 1}\n"
    )
    builtin = autograder_files(load_assignment(tmp_path / "builtin.yaml"), course=ROOT)
    assert "grader/_data/diagnoses.yaml" not in builtin
