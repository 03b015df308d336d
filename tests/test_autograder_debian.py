"""The whole Gradescope autograder in a fresh Debian root, as Gradescope's image builder and
harness use it: ``setup.sh`` runs there as root (it installs Python with apt, makes the
virtualenv, installs the pinned CPU torch and the requirements), then ``run_autograder`` grades
a correct, a buggy, a broken and a notebook submission, and each results.json is checked
against Gradescope's documented format (``tests/gradescope_schema.py``).

Slow (minutes: a Debian root, apt, pip). It needs root, mmdebstrap or debootstrap, and the
network or a local package mirror (this machine's pip configuration is passed through, see
``tests/debian_root.py``). Where that cannot be it is skipped with the reason, except when
``GRADER_REQUIRE_DEBIAN_ROOT=1`` (CI sets it): there it must run.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import zipfile

import pytest

from tests import debian_root
from tests.conftest import PROBE_HOME, SUBMISSIONS, run_cli
from tests.gradescope_schema import problems

pytestmark = [pytest.mark.slow, pytest.mark.timeout(3600)]  # the root's set-up: minutes

ASSIGNMENT = """\
format_version: 1
name: probe-week
title: Probe week
exercises: {exercise-90: 1}
roster: class.csv
gradescope: {points: 10}
"""
METADATA = {
    "id": 987654,
    "created_at": "2026-11-30T14:32:10.123456-08:00",
    "assignment": {"due_date": "2026-12-01T23:59:00.000000+00:00", "late_due_date": None},
    "users": [{"email": "ann@example.edu", "id": 1, "name": "Ann Lee", "sid": "2001"}],
    "previous_submissions": [],
}


def _notebook(source: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": []}
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [{**cell, "id": "c1", "source": source}],
        }
    )


@pytest.fixture(scope="module")
def debian(tmp_path_factory):
    """A Debian root with the autograder unpacked in /autograder/source and setup.sh run."""
    why = debian_root.why_not()
    if why:
        if os.environ.get("GRADER_REQUIRE_DEBIAN_ROOT"):
            raise RuntimeError(f"GRADER_REQUIRE_DEBIAN_ROOT is set, but {why}")
        pytest.skip(why)
    work = tmp_path_factory.mktemp("debian")
    course = work / "course"
    course.mkdir()
    (course / "class.csv").write_text("id,name,email,sid\n1,Ann Lee,ann@example.edu,2001\n")
    (course / "week.yaml").write_text(ASSIGNMENT)
    zipped = course / "autograder.zip"
    built = run_cli(
        "gradescope", "--assignment", str(course / "week.yaml"), "-o", str(zipped), home=PROBE_HOME
    )
    assert built.returncode == 0, built.stderr
    folder = work / "fs"
    folder.mkdir()
    root = debian_root.make(folder)
    try:
        source = root / "autograder" / "source"
        with zipfile.ZipFile(zipped) as zf:
            for info in zf.infolist():
                target = source / info.filename
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(zf.read(info))
                target.chmod(stat.S_IMODE(info.external_attr >> 16))
        env, binds = debian_root.pip_environment(root)
        if "PIP_FIND_LINKS" in env or "PIP_EXTRA_INDEX_URL" in env or "PIP_INDEX_URL" in env:
            # a local mirror: torch from it (its CPU build), never PyTorch's index on the network
            env["GRADER_TORCH_INDEX_URL"] = env.get("PIP_INDEX_URL", "https://pypi.org/simple")
        env["GRADER_VENV"] = "/opt/grader-venv"  # the install root, from the environment
        setup = debian_root.run(
            root,
            ["/bin/bash", "/autograder/source/setup.sh"],
            env=env,
            binds=binds,
            cwd="/autograder/source",
            timeout=1800,
        )
        assert setup.returncode == 0, setup.stdout[-4000:] + setup.stderr[-4000:]
        yield root, binds
    finally:
        debian_root.remove(folder)


def grade(debian, files: dict[str, str]) -> dict:
    """run_autograder on one submission, as Gradescope's harness runs it."""
    root, binds = debian
    autograder = root / "autograder"
    for folder in ("submission", "results"):
        shutil.rmtree(autograder / folder, ignore_errors=True)
        (autograder / folder).mkdir()
    for name, text in files.items():
        (autograder / "submission" / name).write_text(text)
    (autograder / "submission_metadata.json").write_text(json.dumps(METADATA))
    done = debian_root.run(
        root,
        ["/autograder/source/run_autograder"],
        env={"LANG": "C.UTF-8"},
        binds=binds,
        cwd="/autograder",
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data = json.loads((autograder / "results" / "results.json").read_text())
    assert problems(data) == [], data
    return data


def test_setup_installed_the_pinned_cpu_torch_in_the_chosen_root(debian):
    root, binds = debian
    assert (root / "autograder" / "source" / ".grader-python").read_text().strip() == (
        "/opt/grader-venv/bin/python"
    )
    pinned = next(
        line
        for line in (root / "autograder" / "source" / "requirements.txt").read_text().splitlines()
        if line.startswith("torch==")
    )
    done = debian_root.run(
        root,
        ["/opt/grader-venv/bin/python", "-c", "import torch; print(torch.__version__)"],
        env={},
        binds=binds,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    version = done.stdout.strip()
    assert version.partition("+")[0] == pinned.removeprefix("torch==")
    assert not (root / "opt" / "torch-grader").exists()  # GRADER_VENV was honoured


def test_a_correct_submission_gets_full_marks(debian):
    data = grade(debian, {"exercise-90.py": (SUBMISSIONS / "correct.py").read_text()})
    assert data["score"] == 10.0, data
    assert data["tests"] and all(t["status"] == "passed" for t in data["tests"])


def test_a_buggy_submission_loses_points(debian):
    data = grade(debian, {"exercise-90.py": (SUBMISSIONS / "wrong.py").read_text()})
    assert 0 <= data["score"] < 10.0
    assert any(t["status"] == "failed" for t in data["tests"])
    assert "contact your instructor" not in data["output"]


def test_a_broken_submission_is_a_result(debian):
    data = grade(debian, {"exercise-90.py": (SUBMISSIONS / "syntax_error.py").read_text()})
    assert data["score"] == 0
    assert data["tests"] and all(t["status"] == "failed" for t in data["tests"])
    assert "contact your instructor" not in data["output"]


def test_a_notebook_is_graded_from_its_code_cells(debian):
    source = (SUBMISSIONS / "correct.py").read_text()
    data = grade(debian, {"exercise-90.ipynb": _notebook(source)})
    assert data["score"] == 10.0, data
    assert "a notebook" in data["output"] or all(t["status"] == "passed" for t in data["tests"])


def test_the_roster_never_reached_the_image(debian):
    root, _ = debian
    source = root / "autograder" / "source"
    assert not list(source.rglob("*.csv"))
    for path in source.rglob("*"):
        if path.is_file():
            assert b"ann@example.edu" not in path.read_bytes(), path
