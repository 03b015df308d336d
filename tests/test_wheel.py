"""The built wheel works on its own: built from this checkout, installed into a fresh virtualenv,
and used from a folder that is not a checkout, as a learner and an instructor would.

This is slow (a virtualenv and the dependencies), and it is the proof that the wheel carries the
course and the templates: nothing here may fall back on the checkout.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.conftest import ROOT
from tests.differential import check_class, correct_solutions, make_class

pytestmark = pytest.mark.slow


def run(
    *cmd: str | Path,
    cwd: Path,
    ok: tuple[int, ...] = (0,),
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GRADER_HOME")},
        **(env or {}),
    }
    env.update(NO_COLOR="1", GRADE_LANG="en")
    proc = subprocess.run(
        [str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True, timeout=900
    )
    assert proc.returncode in ok, f"{cmd} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtualenv with the wheel built from this checkout (and this machine's torch)."""
    tmp = tmp_path_factory.mktemp("wheel")
    dist = tmp / "dist"
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", dist, ROOT, cwd=tmp)
    [wheel] = dist.glob("torch_grader-*.whl")
    venv = tmp / "venv"
    run(sys.executable, "-m", "venv", venv, cwd=tmp)
    pip = venv / "bin" / "pip"
    run(pip, "install", "-q", f"torch=={torch.__version__.split('+')[0]}", cwd=tmp)
    run(pip, "install", "-q", wheel, cwd=tmp)
    return venv / "bin"


def test_the_installed_package_is_not_the_checkout(installed, tmp_path):
    proc = run(installed / "python", "-c", "import grader; print(grader.__file__)", cwd=tmp_path)
    location = Path(proc.stdout.strip()).resolve()
    assert ROOT not in location.parents, location
    assert "site-packages" in location.parts


def test_learner_workspace_from_the_wheel(installed, tmp_path):
    grade = installed / "grade"
    run(grade, "init", "ws", cwd=tmp_path)
    ws = tmp_path / "ws"
    proc = run(grade, "1", cwd=ws, ok=(1,))  # the untouched starter fails
    assert "exercise-01" in proc.stdout and "score 0/" in proc.stdout
    assert (ws / ".grade" / "reports" / "exercise-01.html").is_file()
    shutil.copyfile(ROOT / "solutions" / "exercise-01" / "exercise-01.py", ws / "exercise-01.py")
    proc = run(grade, "1", cwd=ws)
    assert "All tests passed." in proc.stdout
    html = (ws / ".grade" / "reports" / "exercise-01.html").read_text(encoding="utf-8")
    assert "exercise-01" in html and "<style" in html  # the packaged templates rendered
    run(grade, "report", cwd=ws)
    assert (ws / ".grade" / "reports" / "index.html").is_file()


def test_validate_from_the_wheel(installed, tmp_path):
    proc = run(installed / "grade", "validate", "5", cwd=tmp_path)
    assert "✓ exercise-05" in proc.stdout


def files(folder: Path, suffixes: tuple[str, ...] | None = None) -> dict[str, bytes]:
    """Relative path -> bytes of every file under ``folder`` (compiled files left out)."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.suffix != ".pyc"
        and (suffixes is None or path.name.endswith(suffixes))
    }


def test_the_wheel_differs_from_the_checkout_in_nothing(installed, tmp_path):
    """Every file of the installed package is the checkout's, byte for byte, and none is
    missing: the grader's code and data, and the course and the report templates it carries
    under grader/_data/. So a grading from the wheel runs the very code that this checkout's
    suite proves (tests/test_differential.py grades every correct solution with debug prints,
    in both tiers); what the wheel adds is only where it lies, which the next test covers."""
    proc = run(installed / "python", "-c", "import grader; print(grader.__file__)", cwd=tmp_path)
    package = Path(proc.stdout.strip()).parent
    shipped = files(package)
    data = {k: v for k, v in shipped.items() if k.startswith("_data/")}
    code = {k: v for k, v in shipped.items() if not k.startswith("_data/")}
    assert code == files(ROOT / "grader", (".py", ".yaml", "py.typed"))
    bundled = {
        f"_data/{folder}/{name}": content
        for folder in ("exercises", "solutions", "reports")
        for name, content in files(ROOT / folder).items()
    }
    assert data.keys() == bundled.keys()
    assert [name for name in data if data[name] != bundled[name]] == []


# one correct solution per exercise: every exercise's own code paths (and the torch modules
# they import lazily) from the wheel's location, without grading the whole class again
REFERENCES = [s for s in correct_solutions() if s[0].endswith("-reference")]


@pytest.mark.parametrize("tier", ["namespaces", "process"])
def test_correct_code_prints_from_a_virtualenv_under_tmp(installed, tmp_path, tier):
    """The grader installed in a virtualenv under /tmp (as here): correct code that prints
    tensors (which imports torch modules lazily) scores full marks in both tiers, with its own
    output only (tests/differential.py), for every exercise's reference."""
    students = make_class(tmp_path / "class", REFERENCES)
    env = {"GRADER_ISOLATION": tier}
    proc = run(
        installed / "grade",
        "batch",
        "class",
        "--out",
        "out",
        "--jobs",
        "2",
        cwd=tmp_path,
        ok=(0, 1, 2),
        env=env,
    )
    if tier == "namespaces" and "allows no namespaces" in proc.stderr:
        pytest.skip("this machine allows no namespaces")
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    assert str(installed).startswith("/tmp/"), installed
    assert len(students) == len(list((ROOT / "exercises").glob("exercise-*")))
    check_class(tmp_path / "out", students)


@pytest.mark.parametrize("tier", ["namespaces", "process"])
def test_a_private_virtualenv_loads_torch_modules_in_children_on_demand(installed, tmp_path, tier):
    """The virtualenv lies inside pytest's temporary folder, which only its owner may enter,
    as in a private (0700) home. The runtime's own folders are open, so the warm-up stands in
    for torch._dynamo there too (children read the runtime through its own permissions, never
    through the folders above it), and correct code whose torch.func call makes its child load
    the real module on demand scores full marks in both tiers."""
    closed = [p for p in installed.parents if not p.stat().st_mode & 0o001]
    assert closed, f"{installed} should lie inside a folder closed to others"
    probe = "from grader.engine import warmup; print(warmup.children_can_import())"
    assert run(installed / "python", "-c", probe, cwd=tmp_path).stdout.split() == ["True"]
    reference = (ROOT / "solutions" / "exercise-01" / "exercise-01.py").read_text()
    submission = tmp_path / "exercise-01.py"
    submission.write_text(
        reference + "\nfrom torch.func import grad\n\n"
        "SLOPE = grad(lambda x: (x * x).sum())(torch.ones(3))  # loads the real torch._dynamo\n"
    )
    target = tmp_path / "result.json"
    proc = run(
        installed / "grade",
        "exercise-01",
        "--file",
        submission,
        "--device",
        "cpu",
        "--no-server",
        "--no-report",
        "--json",
        target,
        cwd=tmp_path,
        ok=(0, 1, 2),
        env={"GRADER_ISOLATION": tier},
    )
    if tier == "namespaces" and "allows no namespaces" in proc.stderr:
        pytest.skip("this machine allows no namespaces")
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    result = json.loads(target.read_text())
    assert result["score"] == result["max_score"], [t["message"] for t in result["tests"]]


def test_batch_from_the_wheel(installed, tmp_path):
    student = tmp_path / "class" / "ada"
    student.mkdir(parents=True)
    shutil.copyfile(
        ROOT / "solutions" / "exercise-05" / "exercise-05.py", student / "exercise-05.py"
    )
    run(installed / "grade", "batch", "class", "--out", "graded", "--exercises", "5", cwd=tmp_path)
    gradebook = (tmp_path / "graded" / "gradebook.csv").read_text(encoding="utf-8")
    assert gradebook.splitlines()[2].startswith("ada,")
    assert (tmp_path / "graded" / "index.html").is_file()


def test_a_course_of_its_own_from_the_wheel(installed, tmp_path):
    """The puzzle course (two exercises, its own diagnoses) outside any checkout: it
    validates inside its folder, grades with --course and GRADER_COURSE with the course's own
    diagnoses, and the wheel's built-in course stays read-only."""
    course = tmp_path / "puzzles"
    shutil.copytree(ROOT / "tests" / "fixtures" / "course-puzzles", course)
    grade = installed / "grade"
    proc = run(grade, "validate", cwd=course)
    assert "✓ exercise-21" in proc.stdout and "✓ exercise-22" in proc.stdout
    assert "2 exercises," in proc.stdout and "0 failed" in proc.stdout
    scan = course / "exercises" / "exercise-21" / "alternatives" / "hillis_steele.py"
    proc = run(grade, "21", "--file", scan, "--no-report", "--course", course, cwd=tmp_path)
    assert "All tests passed." in proc.stdout
    exclusive = course / "exercises" / "exercise-21" / "mutants" / "exclusive.py"
    proc = run(
        grade,
        "prefix-sum",
        "--file",
        exclusive,
        "--no-report",
        cwd=tmp_path,
        ok=(1,),
        env={"GRADER_COURSE": str(course)},
    )
    assert "An exclusive prefix sum instead of an inclusive one" in proc.stdout
    proc = run(grade, "new", "exercise-23", cwd=tmp_path, ok=(2,))
    assert "built-in course is part of the installed grader" in proc.stderr
    # the templates of `grade new` are in the wheel: a scaffold from it validates
    proc = run(
        grade, "new", "exercise-23", "--template", "mistakes", "--course", course, cwd=tmp_path
    )
    assert "created exercises/exercise-23/tests.py" in proc.stdout
    assert not any(course.rglob("__init__.py"))
    proc = run(grade, "validate", "exercise-23", "--course", course, cwd=tmp_path)
    assert "✓ exercise-23" in proc.stdout and "0 failed" in proc.stdout
