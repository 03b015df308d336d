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
from grader.lms.discover import discover
from grader.results import Result, Status
from tests.conftest import PROBE_HOME, ROOT, SUBMISSIONS, run_cli, stable

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


def test_discovery_of_folders_and_archives(tmp_path):
    root = tmp_path / "class"
    (root / "ann" / "week1").mkdir(parents=True)
    (root / "ann" / "week1" / "exercise-05.py").write_text("x = 1\n")
    (root / "ann" / "exercise-99.py").write_text("")
    (root / "ann" / "notes.md").write_text("")
    (root / "ann" / "__pycache__").mkdir()
    (root / "ann" / "__pycache__" / "exercise-05.cpython-311.pyc").write_bytes(b"")
    (root / "README.txt").write_text("")
    with zipfile.ZipFile(root / "ben.zip", "w") as archive:
        archive.writestr("ben/exercise-05.py", "y = 2\n")
        archive.writestr("ben/other/exercise-05.py", "z = 3\n")
        archive.writestr("../../etc/exercise-01.py", "")
        archive.writestr("/tmp/exercise-01.py", "")
        archive.writestr("__MACOSX/ben/._exercise-05.py", "")
        link = zipfile.ZipInfo("ben/exercise-14.py")
        link.external_attr = 0o120777 << 16
        archive.writestr(link, "/etc/passwd")
    (root / "broken.zip").write_bytes(b"not a zip")
    (root / "big").mkdir()
    (root / "big" / "exercise-05.py").write_bytes(b"#" * (5 << 20))
    students, stray = discover(
        root, tmp_path / "staging", {"exercise-01", "exercise-05", "exercise-14"}
    )
    by_id = {s.id: s for s in students}
    assert set(by_id) == {"ann", "ben", "broken", "big"}
    ann = by_id["ann"]
    assert set(ann.files) == {"exercise-05"}
    assert any("exercise-99" in p for p in ann.problems) and any(
        "notes.md" in p for p in ann.problems
    )
    ben = by_id["ben"]
    assert ben.files["exercise-05"].read_text() == "y = 2\n"
    problems = " | ".join(ben.problems)
    assert "unsafe path '../../etc/exercise-01.py' rejected" in problems
    assert "unsafe path '/tmp/exercise-01.py' rejected" in problems
    assert "symbolic link" in problems and "a second exercise-05.py" in problems
    assert "exercise-14" not in ben.files and "exercise-01" not in ben.files
    assert not (tmp_path / "etc").exists()
    assert any("not a readable zip archive" in p for p in by_id["broken"].problems)
    assert by_id["big"].unreadable == {"exercise-05"}
    assert stray == ["README.txt: not a student folder or .zip archive; ignored"]


@pytest.fixture(scope="module")
def hostile_batch(tmp_path_factory):
    """A class mixing honest and hostile submissions, half of them zipped, graded once."""
    base = tmp_path_factory.mktemp("hostile")
    names = HONEST + HOSTILE
    submissions = make_class(
        base / "class", names, zipped={"wrong", "segfault", "output_flood", "correct"}
    )
    out = base / "out"
    started = time.monotonic()
    proc = batch(submissions, out)
    return names, submissions, out, proc, time.monotonic() - started


def test_hostile_mix_completes_and_honest_ones_are_graded_as_alone(hostile_batch, probe_service):
    names, _, out, proc, _ = hostile_batch
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


def test_nothing_left_running_after_a_batch(hostile_batch):
    assert _grading_processes() == []


def test_gradebook_contents(hostile_batch):
    names, _, out, _, _ = hostile_batch
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text())))
    assert rows[0] == [
        "student",
        "exercise-90",
        "total",
        "max",
        "percent",
        "problems",
        "needs_review",
    ]
    assert rows[1][0] == "(max)"
    body = {row[0]: row for row in rows[2:]}
    assert len(body) == len(names)
    correct = body["s00-correct"]
    assert correct[1] == correct[2] == correct[3]
    # honest files need no review; files that reach into the grader do, with the reason
    for i, name in enumerate(names):
        review = body[f"s{i:02d}-{name}"][-1]
        if name in HONEST:
            assert review == "", (name, review)
    flagged = {name for i, name in enumerate(names) if body[f"s{i:02d}-{name}"][-1]}
    assert "replaces_comparisons" in flagged, flagged  # it monkeypatches torch.allclose
    data = json.loads((out / "gradebook.json").read_text())
    assert data["gradebook_version"] == 1
    assert [e["id"] for e in data["exercises"]] == ["exercise-90"]
    entry = {s["student"]: s for s in data["students"]}["s01-wrong"]
    assert entry["exercises"]["exercise-90"]["status"] == "failed"
    assert entry["exercises"]["exercise-90"]["report"] == "students/s01-wrong/exercise-90.html"
    gradescope = json.loads((out / "students" / "s01-wrong" / "results.json").read_text())
    assert gradescope["score"] == entry["total"]
    assert {t["status"] for t in gradescope["tests"]} == {"passed", "failed"}
    assert all(
        {"name", "score", "max_score", "status", "output"} <= set(t) for t in gradescope["tests"]
    )
    assert (out / "students" / "s01-wrong" / "exercise-90.html").is_file()


def test_class_report(hostile_batch):
    _, _, out, _, _ = hostile_batch
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


def test_rerun_uses_the_cache_and_is_identical(hostile_batch):
    names, submissions, out, _, first_seconds = hostile_batch
    before = {p: p.read_bytes() for p in (out / "gradebook.csv", out / "gradebook.json")}
    started = time.monotonic()
    proc = batch(submissions, out)
    assert "0 graded now" in proc.stdout and f"{len(names)} from the cache" in proc.stdout
    assert time.monotonic() - started < first_seconds
    assert {p: p.read_bytes() for p in before} == before


def test_grading_a_class_twice_gives_identical_gradebooks(hostile_batch, tmp_path):
    _, submissions, out, _, _ = hostile_batch
    fresh = tmp_path / "again"
    batch(submissions, fresh)
    for name in ("gradebook.csv", "gradebook.json"):
        assert (fresh / name).read_bytes() == (out / name).read_bytes()


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


def _interrupt(sig: int, tmp_path: Path) -> tuple[Path, Path, subprocess.CompletedProcess | int]:
    submissions = make_class(
        tmp_path / "class", ["correct"] * 3 + ["infinite_loop_function"] * 3 + ["wrong"] * 3
    )
    out = tmp_path / "out"
    env = dict(os.environ, GRADER_HOME=str(PROBE_HOME), NO_COLOR="1")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "grader",
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
    proc.send_signal(sig)
    code = proc.wait(timeout=60)
    return submissions, out, code


def test_ctrl_c_keeps_what_was_graded_and_resumes(tmp_path):
    submissions, out, code = _interrupt(signal.SIGINT, tmp_path)
    assert code == 130
    kept = len(list(out.glob("students/*/exercise-90.key")))
    assert kept >= 2
    assert (out / "gradebook.csv").is_file()  # written for what is done
    proc = batch(submissions, out)
    assert f"{kept} from the cache" in proc.stdout
    assert f"{9 - kept} graded now" in proc.stdout


def _grading_processes() -> list[str]:
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if b"grader\x00batch" in cmdline and state != "Z":
                found.append(pid)
    return found


def test_resume_after_a_kill(tmp_path):
    submissions, out, code = _interrupt(signal.SIGKILL, tmp_path)
    assert code == -signal.SIGKILL
    # the worker, the fork server and the learner children die with the grading process
    deadline = time.monotonic() + 5
    while _grading_processes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _grading_processes() == []
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


def test_exercises_filter_and_missing(tmp_path):
    submissions = make_class(tmp_path / "class", ["correct"])
    (submissions / "late").mkdir()
    out = tmp_path / "out"
    proc = batch(submissions, out, "--exercises", "90")
    assert proc.returncode == 1  # a student handed nothing in
    row = next(
        r for r in csv.reader(io.StringIO((out / "gradebook.csv").read_text())) if r[0] == "late"
    )
    assert row[1] == "" and "exercise-90.py: missing" in row[-2]  # problems, then needs_review
    proc = batch(submissions, out, "--exercises", "nope")
    assert proc.returncode == 2 and "no exercise 'nope'" in proc.stderr


def test_usage_errors(tmp_path):
    assert batch(tmp_path / "absent", tmp_path / "out").returncode == 2
    (tmp_path / "empty").mkdir()
    proc = batch(tmp_path / "empty", tmp_path / "out")
    assert proc.returncode == 2 and "no student folders" in proc.stderr
    assert run_cli("batch", str(tmp_path), "--jobs", "0").returncode == 2


def test_cpu_and_cuda_passes_merge_into_one_result(probe_service):
    from grader.catalog import Catalog

    spec = Catalog(PROBE_HOME).resolve("90")
    cpu = probe_service.grade("exercise-90", SUBMISSIONS / "wrong.py", devices=("cpu",))
    cuda = probe_service.grade("exercise-90", SUBMISSIONS / "wrong.py", devices=("cuda",))
    merged = merge_passes(spec, [cpu, cuda])
    assert [(t.name, t.device) for t in merged.tests] == [
        (t.name, d) for t, d in spec.manifest(("cpu", "cuda"))
    ]
    assert merged.devices == ("cpu", "cuda")
    assert merged.score == cpu.score  # triple passes once, on the CPU pass
    assert merge_passes(spec, [cpu]) is cpu
