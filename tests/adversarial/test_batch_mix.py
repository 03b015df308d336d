"""A class of at least 50 with every hostile submission mixed in: the batch completes, every honest
submission is graded exactly as when graded alone, and nothing is left running afterwards."""

from __future__ import annotations

import shutil
import time
import uuid

import pytest

from grader.engine.scoring import grader_faulted
from grader.results import Result
from tests.adversarial.test_adversarial import CASES, S, _processes
from tests.adversarial.test_adversarial import SUBMISSIONS as HOSTILE_DIR
from tests.conftest import PROBE_HOME, SUBMISSIONS, run_cli, stable, wait_ended

HONEST = ["correct", "wrong", "prints", "mutates_input", "syntax_error", "output_flood"]
# every hostile submission that needs no GPU and no per-test server
HOSTILE = sorted(
    p.stem
    for p in HOSTILE_DIR.glob("*.py")
    if p.stem not in {"gpu_alloc_huge", "network", "device_side_assert"}
)

# hostile in what they try, but the tests they are graded on pass (their cases say so)
FULL_MARKS = {case.name for case in CASES if case.double == S("passed")}


@pytest.mark.slow  # grades a class of fifty with `grade batch`, twice
def test_fifty_submissions_with_hostile_ones_mixed_in(tmp_path, probe_service):
    marker = f"3600.{uuid.uuid4().int % 10**9}"
    root = tmp_path / "class"
    honest: dict[str, str] = {}
    # every hostile submission once, and honest ones (each at least twice) up to 50 students
    names = (HONEST * 10)[: max(50 - len(HOSTILE), 2 * len(HONEST))] + HOSTILE
    size = len(names)
    assert size >= 50 and len(HOSTILE) >= 30
    for i, name in enumerate(names):
        student = root / f"student-{i:02d}"
        student.mkdir(parents=True)
        if name in HONEST:
            shutil.copyfile(SUBMISSIONS / f"{name}.py", student / "exercise-90.py")
            honest[student.name] = name
        else:
            source = (HOSTILE_DIR / f"{name}.py").read_text()
            for key, value in {
                "__PROBE_HOME__": str(PROBE_HOME),
                "__MARKER__": marker,
                "__PORT__": "9",
                "__CANARY_DIR__": str(tmp_path),
                "__CANARY__": str(tmp_path / "x"),
            }.items():
                source = source.replace(key, value)
            (student / "exercise-90.py").write_text(source)
    out = tmp_path / "out"
    started = time.monotonic()
    proc = run_cli(
        "batch", str(root), "--out", str(out), "--jobs", "2", home=PROBE_HOME, timeout=900
    )
    assert proc.returncode == 1, proc.stderr
    assert f"{size} students: {size} graded now" in proc.stdout
    assert time.monotonic() - started < 600

    alone_cache: dict[str, Result] = {}
    for student, name in honest.items():
        result = Result.from_json((out / "students" / student / "exercise-90.json").read_text())
        if name not in alone_cache:
            alone_cache[name] = probe_service.grade("exercise-90", SUBMISSIONS / f"{name}.py")
        assert stable(result) == stable(alone_cache[name]), (student, name)
    for i, name in enumerate(names):
        if name not in HONEST and name not in FULL_MARKS:
            result = Result.from_json(
                (out / "students" / f"student-{i:02d}" / "exercise-90.json").read_text()
            )
            assert result.score < result.max_score, name

    # nothing cached wrongly: a result the grader itself failed in is never reused, every other
    # one is; a second run grades nothing again and changes nothing
    for i in range(size):
        path = out / "students" / f"student-{i:02d}" / "exercise-90.json"
        result = Result.from_json(path.read_text())
        assert path.with_suffix(".key").exists() == (not grader_faulted(result)), (i, names[i])
        assert not grader_faulted(result), (names[i], [t.message for t in result.tests])
    before = {p: p.read_bytes() for p in (out / "students").rglob("exercise-90.json")}
    again = run_cli("batch", str(root), "--out", str(out), "--jobs", "2", home=PROBE_HOME)
    assert f"{size} students: 0 graded now, {size} from the cache" in again.stdout, again.stdout
    assert {p: p.read_bytes() for p in before} == before

    def leftovers() -> list[tuple[int, bytes, int]]:
        return [p for p in _processes() if marker.encode() in p[1] or str(root).encode() in p[1]]

    wait_ended(p[0] for p in leftovers())
    assert leftovers() == []
