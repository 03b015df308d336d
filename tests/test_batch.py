"""`grade batch` as an instructor uses it: both input layouts, a hostile mix, resuming after a
kill or Ctrl-C, cache invalidation, gradebook contents and determinism, the class report."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from grader.engine.scoring import merge_passes
from grader.results import Result, Status
from tests.conftest import (
    DROPPING_DRIVER,
    FIXTURES,
    PROBE_HOME,
    ROOT,
    SUBMISSIONS,
    cli_here,
    run_cli,
    run_fresh,
    stable,
    wait_ended,
)

HOSTILE = [
    "infinite_loop_function",
    "os_exit_function",
    "os_exit_import",
    "segfault",
    "memory_hog",
    "tensor_subclass",
    "sys_exit_import",
    "replaces_comparisons",
    "pickle_payload",
]
# graded exactly as when graded alone (the flood of output is right code that prints a lot)
HONEST = ["correct", "wrong", "prints", "mutates_input", "syntax_error", "output_flood"]


def make_class(root: Path, names: list[str], *, zipped: set[str] = frozenset()) -> Path:
    """One student per submission name; the ones in `zipped` hand in a .zip instead."""
    root.mkdir(parents=True, exist_ok=True)
    for i, name in enumerate(names):
        student = f"s{i:02d}-{name}"
        source = SUBMISSIONS / f"{name}.py"
        if name in zipped:
            with zipfile.ZipFile(root / f"{student}.zip", "w") as archive:
                archive.write(source, f"{student}/exercise-90.py")
        else:
            (root / student).mkdir()
            shutil.copyfile(source, root / student / "exercise-90.py")
    return root


def batch(submissions: Path, out: Path, *extra: str, home: Path = PROBE_HOME, timeout: float = 600):
    return run_cli(
        "batch",
        str(submissions),
        "--out",
        str(out),
        "--jobs",
        "2",
        *extra,
        home=home,
        timeout=timeout,
    )


def load(out: Path, student: str) -> Result:
    return Result.from_json((out / "students" / student / "exercise-90.json").read_text())


@pytest.fixture(scope="module")
def hostile_batch(tmp_path_factory):
    """A class mixing honest and hostile submissions, half of them zipped, graded once."""
    base = tmp_path_factory.mktemp("hostile")
    names = HONEST + HOSTILE
    submissions = make_class(
        base / "class", names, zipped={"wrong", "segfault", "output_flood", "correct"}
    )
    out = base / "out"
    return names, submissions, out, batch(submissions, out)


@pytest.mark.slow  # grades a class with `grade batch`
def test_hostile_mix_completes_and_honest_ones_are_graded_as_alone(hostile_batch, probe_service):
    names, _, out, proc = hostile_batch
    assert proc.returncode == 1, proc.stderr
    for i, name in enumerate(names):
        student = f"s{i:02d}-{name}"
        result = load(out, student)
        if name in HONEST:
            alone = probe_service.grade("exercise-90", SUBMISSIONS / f"{name}.py")
            assert stable(result) == stable(alone), name
        else:
            assert result.score < result.max_score, name  # no undeserved full marks
    assert (
        load(out, f"s{names.index('infinite_loop_function'):02d}-infinite_loop_function")
        .tests[0]
        .status
        is Status.TIMEOUT
    )


@pytest.mark.slow  # grades a class with `grade batch`
def test_nothing_left_running_after_a_batch(hostile_batch):
    _, submissions, _, _ = hostile_batch
    assert _grading_processes(submissions) == []


@pytest.mark.slow  # grades a class with `grade batch`
def test_gradebook_contents(hostile_batch):
    names, _, out, _ = hostile_batch
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text())))
    header = rows[0]
    assert header == [
        "student",
        "name",
        "email",
        "sid",
        "exercise-90",
        "percent",
        "days_late",
        "late_penalty",
        "final",
        "problems",
        "needs_review",
    ]
    assert rows[1][0] == "(max)" and rows[1][4] == "4"
    body = {row[0]: row for row in rows[2:]}
    assert len(body) == len(names)
    correct = body["s00-correct"]
    assert correct[4] == "4" and correct[5] == correct[8] == "100"
    # honest files need no review; files that reach into the grader do, with the reason
    for i, name in enumerate(names):
        review = body[f"s{i:02d}-{name}"][-1]
        if name in HONEST:
            assert review == "", (name, review)
    flagged = {name for i, name in enumerate(names) if body[f"s{i:02d}-{name}"][-1]}
    assert "replaces_comparisons" in flagged, flagged  # it monkeypatches torch.allclose
    data = json.loads((out / "gradebook.json").read_text())
    assert data["gradebook_version"] == 2 and data["complete"] is True
    assert [e["id"] for e in data["exercises"]] == ["exercise-90"]
    entry = {s["student"]: s for s in data["students"]}["s01-wrong"]
    assert entry["exercises"]["exercise-90"]["status"] == "failed"
    assert entry["exercises"]["exercise-90"]["report"] == "students/s01-wrong/exercise-90.html"
    gradescope = json.loads((out / "students" / "s01-wrong" / "results.json").read_text())
    assert gradescope["score"] == pytest.approx(entry["final"])  # of 100 points
    assert {t["status"] for t in gradescope["tests"]} == {"passed", "failed"}
    assert all(
        {"name", "score", "max_score", "status", "output"} <= set(t) for t in gradescope["tests"]
    )
    assert (out / "students" / "s01-wrong" / "exercise-90.html").is_file()
    assert (out / "feedback" / "s01-wrong.html").is_file()


@pytest.mark.slow  # grades a class with `grade batch`
def test_class_report(hostile_batch):
    _, _, out, _ = hostile_batch
    html = (out / "index.html").read_text()
    assert 'data-report="class"' in html and "data-histogram" in html
    assert 'href="students/s00-correct/exercise-90.html"' in html
    assert 'data-diagnosis="process-ended" data-count="3"' in html  # misconceptions are counted
    try:
        from tests.browser import find_chromium, render
    except ImportError:  # pragma: no cover
        return
    if find_chromium() is None:
        if os.environ.get("GRADER_REQUIRE_BROWSER"):
            raise AssertionError("Chromium is required here")
        pytest.skip("Chromium is not installed")
    page = render(out / "index.html")
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "class-report.png").write_bytes(page.screenshot)
    assert page.console_errors == [] and page.external_requests == []
    assert "Score distribution" in page.text


@pytest.mark.slow  # grades a class with `grade batch`
def test_rerun_uses_the_cache_and_is_identical(hostile_batch):
    names, submissions, out, _ = hostile_batch
    before = {p: p.read_bytes() for p in (out / "gradebook.csv", out / "gradebook.json")}
    proc = batch(submissions, out)
    # nothing graded again (the count, not the wall clock, says the cache was used)
    assert "0 graded now" in proc.stdout and f"{len(names)} from the cache" in proc.stdout
    assert {p: p.read_bytes() for p in before} == before


@pytest.mark.slow  # grades a class with `grade batch`
def test_grading_a_class_twice_gives_identical_gradebooks(hostile_batch, tmp_path):
    _, submissions, out, _ = hostile_batch
    fresh = tmp_path / "again"
    batch(submissions, fresh)
    for name in ("gradebook.csv", "gradebook.json"):
        assert (fresh / name).read_bytes() == (out / name).read_bytes()


@pytest.mark.slow  # grades a class with `grade batch`
def test_changed_tests_invalidate_the_cache(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(PROBE_HOME, home)
    submissions = make_class(tmp_path / "class", ["correct", "wrong"])
    out = tmp_path / "out"
    assert "2 graded now" in batch(submissions, out, home=home).stdout
    assert "0 graded now" in batch(submissions, out, home=home).stdout
    tests = home / "exercises" / "exercise-90" / "tests.py"
    tests.write_text(tests.read_text() + "\n# a changed hidden test file\n")
    assert "2 graded now" in batch(submissions, out, home=home).stdout
    # a changed submission is regraded alone
    shutil.copyfile(SUBMISSIONS / "correct.py", submissions / "s01-wrong" / "exercise-90.py")
    proc = batch(submissions, out, home=home)
    assert "1 graded now, 1 from the cache" in proc.stdout
    assert proc.returncode == 0


def _interrupt(
    sig: int | None, tmp_path: Path
) -> tuple[Path, Path, subprocess.CompletedProcess | int]:
    submissions = make_class(
        tmp_path / "class", ["correct"] * 3 + ["infinite_loop_function"] * 3 + ["wrong"] * 3
    )
    out = tmp_path / "out"
    env = dict(os.environ, GRADER_HOME=str(PROBE_HOME), NO_COLOR="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            *(["-c", DROPPING_DRIVER] if sig is None else ["-m", "grader"]),
            "batch",
            str(submissions),
            "--out",
            str(out),
            "--jobs",
            "1",
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        done = list(out.glob("students/*/exercise-90.key")) if out.exists() else []
        if len(done) >= 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGUSR1 if sig is None else sig)
    code = proc.wait(timeout=60)
    if sig is None:
        stderr = proc.stderr.read()
        assert "Exception ignored" not in stderr and "Traceback" not in stderr, stderr
    return submissions, out, code


@pytest.mark.slow  # grades a class with `grade batch`
@pytest.mark.parametrize("sig", [signal.SIGINT, None], ids=["ctrl-c", "ctrl-c-python-drops"])
def test_ctrl_c_keeps_what_was_graded_and_resumes(tmp_path, sig):
    """Also a Ctrl-C that lands in a finaliser (``__del__``, a gc callback such as Dask's),
    where Python drops its KeyboardInterrupt: the batch still stops (grader.interrupts).
    ``sig`` None: the batch runs under DROPPING_DRIVER, and SIGUSR1 makes that Ctrl-C."""
    submissions, out, code = _interrupt(sig, tmp_path)
    assert code == 130
    kept = len(list(out.glob("students/*/exercise-90.key")))
    assert kept >= 2
    # written for what is done, and saying in itself that it is not the class's gradebook
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text())))
    assert rows[1][0] == "(INCOMPLETE)" and "grading was interrupted" in rows[1][-2]
    ungraded = [r for r in rows[3:] if r[4] == "not graded"]
    assert ungraded and all(r[5] == r[8] == "not graded" for r in ungraded)
    assert not (out / "canvas.csv").exists() and not (out / "moodle.csv").exists()
    assert json.loads((out / "gradebook.json").read_text())["complete"] is False
    proc = batch(submissions, out)
    assert f"{kept} from the cache" in proc.stdout
    assert f"{9 - kept} graded now" in proc.stdout
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text())))
    assert rows[1][0] == "(max)" and (out / "canvas.csv").is_file()


def _grading_processes(submissions: Path) -> list[str]:
    """The live processes of the batch that grades ``submissions``: its grading process and
    every fork of it (fork server, workers, learner children keep its command line). Another
    test's batch, still ending, is that test's to check."""
    found = []
    mine = str(submissions).encode()
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if b"grader\x00batch" in cmdline and mine in cmdline and state != "Z":
                found.append(pid)
    return found


@pytest.mark.slow  # grades a class with `grade batch`
def test_resume_after_a_kill(tmp_path):
    submissions, out, code = _interrupt(signal.SIGKILL, tmp_path)
    assert code == -signal.SIGKILL
    # the worker, the fork server and the learner children die with the grading process
    wait_ended(int(pid) for pid in _grading_processes(submissions))
    assert _grading_processes(submissions) == []
    kept = len(list(out.glob("students/*/exercise-90.key")))
    # no half-written file survives a kill
    assert not list(out.rglob(".*.json.*")) or all(
        p.name.startswith(".") for p in out.rglob(".*.json.*")
    )
    proc = batch(submissions, out)
    assert proc.returncode == 1
    assert f"{kept} from the cache" in proc.stdout
    reference = tmp_path / "reference"
    batch(submissions, reference)
    assert (reference / "gradebook.csv").read_bytes() == (out / "gradebook.csv").read_bytes()


@pytest.mark.slow  # grades a class with `grade batch`
def test_exercises_filter_and_missing(tmp_path):
    submissions = make_class(tmp_path / "class", ["correct"])
    (submissions / "late").mkdir()
    out = tmp_path / "out"
    proc = batch(submissions, out, "--exercises", "90")
    assert proc.returncode == 1  # a student handed nothing in
    assert "Exercises: exercise-90, as --exercises gave them" in proc.stderr
    row = next(
        r for r in csv.reader(io.StringIO((out / "gradebook.csv").read_text())) if r[0] == "late"
    )
    assert row[4] == "missing" and row[8] == ""  # nothing handed in: no grade at all
    assert "late\n    - missing: exercise-90" in proc.stdout
    proc = batch(submissions, out, "--exercises", "nope")
    assert proc.returncode == 2 and "no exercise 'nope'" in proc.stderr


@pytest.mark.slow  # grades a class with `grade batch`
def test_without_an_assignment_every_exercise_of_the_course_is_a_column(tmp_path):
    """One student's run (as an autograder does) has the same columns as the class's, and a
    stray file adds none."""
    from tests.lms.builders import code

    submissions = tmp_path / "class"
    (submissions / "ann").mkdir(parents=True)
    (submissions / "ann" / "exercise-01.py").write_text(code("ann 1"))
    (submissions / "exercise-05.py").write_text(code("whose?"))  # stray
    proc = batch(submissions, tmp_path / "out", home=FIXTURES / "lms-course")
    assert "Exercises: all 3 of the course (exercise-01, exercise-05, exercise-07)" in proc.stderr
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "gradebook.csv").read_text())))
    assert rows[0][4:7] == ["exercise-01", "exercise-05", "exercise-07"]
    assert rows[2][4:7] == ["3", "missing", "missing"] and rows[2][-3] == "37.5"  # 3 of 8
    assert "exercise-05.py: an exercise file at the top" in proc.stdout


@pytest.mark.parametrize("where", ["student", "itself", "nested", "new", "link"])
def test_out_inside_the_submissions_is_refused(tmp_path, where):
    """--out naming a student's folder (which would drop that student as an earlier output),
    the submissions folder itself, or anything inside it, is a usage error before any work:
    exit 2, one `Error:` line, nothing written, every student's folder as it was."""
    submissions = make_class(tmp_path / "class", ["correct", "wrong"])
    before = sorted(p.relative_to(submissions) for p in submissions.rglob("*"))
    if where == "link":
        (tmp_path / "link").symlink_to(submissions / "s00-correct")
    out = {
        "student": submissions / "s00-correct",
        "itself": submissions,
        "nested": submissions / "s01-wrong" / "graded",
        "new": submissions / "graded",
        "link": tmp_path / "link",
    }[where]
    # refused before any work: in-process
    proc = cli_here("batch", str(submissions), "--out", str(out), "--jobs", "2", home=PROBE_HOME)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.count("Error:") == 1, proc.stderr
    assert "inside the submissions" in proc.stderr or "is the submissions folder" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert sorted(p.relative_to(submissions) for p in submissions.rglob("*")) == before


@pytest.mark.slow  # grades a class with `grade batch`, twice
def test_an_earlier_output_inside_the_submissions_is_no_student(tmp_path):
    """A download that holds the output of an earlier run (as older versions allowed) is
    still read without taking that output for a student."""
    submissions = make_class(tmp_path / "class", ["correct", "wrong"])
    first = batch(submissions, tmp_path / "graded")
    assert "2 students" in first.stdout
    shutil.move(tmp_path / "graded", submissions / "graded")
    second = batch(submissions, tmp_path / "elsewhere")
    assert "2 students" in second.stdout, second.stdout
    assert "graded/: the output of an earlier grade batch; ignored" in second.stdout


def test_usage_errors(tmp_path):
    assert batch(tmp_path / "absent", tmp_path / "out").returncode == 2
    (tmp_path / "empty").mkdir()
    proc = batch(tmp_path / "empty", tmp_path / "out")
    assert proc.returncode == 2 and "no student work in" in proc.stderr
    assert cli_here("batch", str(tmp_path), "--jobs", "0").returncode == 2
    (tmp_path / "a.yaml").write_text("format_version: 1\nname: w\nexercises: {exercise-90: 1}\n")
    proc = batch(tmp_path / "empty", tmp_path / "out", "--assignment", str(tmp_path / "a.yaml"),
                 "--exercises", "90")  # fmt: skip
    assert proc.returncode == 2 and "cannot be combined" in proc.stderr
    (tmp_path / "b.yaml").write_text("format_version: 1\nname: w\nexercises: {exercise-91: 1}\n")
    proc = batch(tmp_path / "empty", tmp_path / "out", "--assignment", str(tmp_path / "b.yaml"))
    assert proc.returncode == 2 and "exercises.exercise-91" in proc.stderr
    assert "did you mean 'exercise-90'" in proc.stderr


# A batch's engine grades the CPU and the CUDA pass apart (a CUDA-only pass, which a learner's
# front end refuses on a machine without a GPU): graded here by an engine in a fresh process.
PASSES = """
import json, sys
from pathlib import Path
from grader.engine import GradeRequest, LocalEngine
path = Path(sys.argv[1])
with LocalEngine() as engine:
    for devices in (("cpu",), ("cuda",)):
        request = GradeRequest("exercise-90", path.read_bytes(), str(path), devices=devices)
        print("RESULT", engine.grade(request).to_json(compact=True), flush=True)
"""


def test_cpu_and_cuda_passes_merge_into_one_result():
    from grader.catalog import Catalog

    spec = Catalog(PROBE_HOME).resolve("90")
    env = dict(os.environ, GRADER_HOME=str(PROBE_HOME))
    out = run_fresh(PASSES, args=(str(SUBMISSIONS / "wrong.py"),), env=env)
    cpu, cuda = (
        Result.from_json(line.split(" ", 1)[1])
        for line in out.splitlines()
        if line.startswith("RESULT ")
    )
    merged = merge_passes(spec, [cpu, cuda])
    assert [(t.name, t.device) for t in merged.tests] == [
        (t.name, d) for t, d in spec.manifest(("cpu", "cuda"))
    ]
    assert merged.devices == ("cpu", "cuda")
    assert merged.score == cpu.score  # triple passes once, on the CPU pass
    assert merge_passes(spec, [cpu]) is cpu


@pytest.mark.slow  # grades a class with `grade batch`
def test_the_process_tier_says_what_it_cannot_hide(tmp_path):
    """Batch grading is authoritative: where learner code could read files and use the
    network (no namespaces), the run's output says so; in the namespaces tier it does not."""
    submissions = make_class(tmp_path / "class", ["correct"])
    note = "learner code ran in the process tier here"
    proc = run_cli("batch", str(submissions), "--out", str(tmp_path / "p"), home=PROBE_HOME,
                   env_extra={"GRADER_ISOLATION": "process"})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert note in proc.stdout and "docs/SECURITY.md" in proc.stdout
    default = batch(submissions, tmp_path / "d")
    result = Result.from_json(
        next((tmp_path / "d" / "students").rglob("exercise-90.json")).read_text()
    )
    assert (note in default.stdout) == result.environment.isolation.startswith("process")
