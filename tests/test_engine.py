"""The engine on learner code that is right, wrong, broken and hostile (exercise-90, the probe).

Every case must end with a verdict for every (test, device) in the manifest, without hanging,
without an undeserved point, with a learner-facing message that says what happened.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import threading
import uuid
from pathlib import Path

import pytest

from grader.results import Result, Status
from tests.conftest import (
    PROBE_HOME,
    ROOT,
    SUBMISSIONS,
    GradingService,
    descendants,
    live_parents,
)
from tests.events import processes, wait_until

CUDA_NOTE = "CUDA is not available"


def by_name(result: Result) -> dict[str, list]:
    tests: dict[str, list] = {}
    for test in result.tests:
        tests.setdefault(test.name, []).append(test)
    return tests


def graded(result: Result, name: str):
    return [t for t in by_name(result)[name] if t.status is not Status.SKIPPED]


def assert_manifest_complete(result: Result) -> None:
    keys = [(t.name, t.device) for t in result.tests]
    assert len(keys) == len(set(keys)), "a test got two verdicts"
    names = {t.name for t in result.tests}
    assert names == {"test_double_values", "test_double_integers", "test_triple"}
    # device tests run on cpu and cuda; the device-independent one once
    assert sorted(t.device for t in by_name(result)["test_double_values"]) == ["cpu", "cuda"]
    assert [t.device for t in by_name(result)["test_triple"]] == [None]


@pytest.fixture(scope="module")
def grade(probe_service):
    def run(name: str, **kwargs) -> Result:
        result = probe_service.grade("exercise-90", SUBMISSIONS / f"{name}.py", **kwargs)
        assert_manifest_complete(result)
        assert 0 <= result.score <= result.max_score
        return result

    return run


def test_correct_submission_scores_full_marks(grade):
    result = grade("correct")
    assert result.status is Status.PASSED
    assert result.score == result.max_score > 0
    for test in result.tests:
        if test.device == "cuda" and not result.environment.cuda_available:
            assert test.status is Status.SKIPPED
            assert CUDA_NOTE in test.message
            assert test.points == 0
        else:
            assert test.status is Status.PASSED


def test_cuda_cases_are_skipped_not_failed_and_not_counted(grade):
    result = grade("correct")
    if result.environment.cuda_available:
        pytest.skip("this machine has CUDA")
    skipped = [t for t in result.tests if t.status is Status.SKIPPED]
    assert {t.device for t in skipped} == {"cuda"}
    assert result.max_score == sum(
        t.max_points for t in result.tests if t.status is not Status.SKIPPED
    )
    assert any("skipped" in note for note in result.notes)


def test_wrong_answer_fails_with_yours_vs_expected(grade):
    result = grade("wrong")
    assert result.status is Status.FAILED
    for test in graded(result, "test_double_values"):
        assert test.status is Status.FAILED
        assert test.points == 0
        assert "yours is" in test.message and "expected" in test.message
    assert graded(result, "test_triple")[0].status is Status.PASSED
    assert result.score == 1


def test_syntax_error_is_a_result_not_a_crash(grade):
    result = grade("syntax_error")
    assert result.status is Status.ERROR
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.ERROR
        assert "syntax error at line 1" in test.message
        assert test.diagnosis is not None and test.diagnosis.id == "syntax-error"
        assert test.frames and test.frames[0].line == 1


def test_import_error_is_reported_with_the_missing_module(grade):
    result = grade("import_error")
    assert result.status is Status.ERROR
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.ERROR
        assert "ModuleNotFoundError" in test.message
        assert "torch_extras_that_do_not_exist" in test.message


def test_infinite_loop_times_out_and_other_verdicts_are_kept(grade):
    result = grade("infinite_loop_function")
    for test in graded(result, "test_double_values") + graded(result, "test_double_integers"):
        assert test.status is Status.TIMEOUT
        assert "did not return within 1.5 s" in test.message
        assert test.diagnosis is not None and test.diagnosis.id == "too-slow"
    assert graded(result, "test_triple")[0].status is Status.PASSED
    assert result.score == 1
    assert result.duration_s < 30


def test_infinite_loop_at_import_times_out_once(grade):
    result = grade("infinite_loop_import")
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.TIMEOUT
        assert "Importing your file took longer" in test.message
    assert result.duration_s < 15  # the import is not retried for every test


def test_sys_exit_in_a_function_costs_only_that_function(grade):
    result = grade("sys_exit_function")
    for test in graded(result, "test_double_values"):
        assert test.status is Status.ERROR
        assert "sys.exit()" in test.message
    assert graded(result, "test_triple")[0].status is Status.PASSED
    assert result.score == 1


def test_sys_exit_at_import(grade):
    result = grade("sys_exit_import")
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.ERROR
        assert "sys.exit()" in test.message and "imported" in test.message


def test_os_exit_in_a_function_costs_only_the_test_in_flight(grade):
    result = grade("os_exit_function")
    for test in graded(result, "test_double_values") + graded(result, "test_double_integers"):
        assert test.status is Status.ERROR
        assert "ended the process" in test.message and "exit code 0" in test.message
    # a fresh child served the test after the one that killed its process
    assert graded(result, "test_triple")[0].status is Status.PASSED
    assert result.score == 1


def test_os_exit_at_import(grade):
    result = grade("os_exit_import")
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.ERROR
        assert "while your file was being imported" in test.message


def test_segfault_costs_only_the_test_in_flight(grade):
    result = grade("segfault")
    for test in graded(result, "test_double_values"):
        assert test.status is Status.ERROR
        assert "segmentation fault" in test.message
    assert graded(result, "test_triple")[0].status is Status.PASSED


def test_output_flood_is_capped_with_a_marker(grade):
    result = grade("output_flood")
    for test in graded(result, "test_double_values"):
        assert test.status is Status.PASSED  # the answer was right; printing is not forbidden
        assert test.output_truncated
        assert "bytes of output cut here" in test.output
        assert len(test.output) < 64 * 1024
        assert "done flooding" in test.output  # the tail is kept
    assert result.duration_s < 30


def test_replacing_torch_comparisons_in_learner_code_changes_nothing(grade):
    result = grade("replaces_comparisons")
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.FAILED


def test_tensor_subclass_claiming_equality_earns_nothing(grade):
    result = grade("tensor_subclass")
    assert result.score == 0
    for test in result.graded:
        assert test.status in (Status.FAILED, Status.ERROR)
        assert "torch.Tensor" in test.message


def test_pickle_payload_is_never_unpickled(grade, tmp_path):
    marker = Path("/tmp/grader-pickle-exploit-ran")
    marker.unlink(missing_ok=True)
    result = grade("pickle_payload")
    assert not marker.exists()
    for test in graded(result, "test_double_values"):
        assert test.status is Status.FAILED
        assert "bytes" in test.message


def test_memory_hog_fails_without_harming_the_grader(grade):
    result = grade("memory_hog")
    for test in graded(result, "test_double_values"):
        assert test.status in (Status.FAILED, Status.ERROR)
        assert test.points == 0
    assert graded(result, "test_triple")[0].status is Status.PASSED


def test_input_mutation_is_caught(grade):
    result = grade("mutates_input")
    for test in graded(result, "test_double_values"):
        assert test.status is Status.FAILED
        assert "changed its input" in test.message
        assert test.diagnosis is not None and test.diagnosis.id == "input-mutated"


def test_output_is_captured_per_test(grade):
    result = grade("prints")
    assert result.status is Status.PASSED
    first = result.tests[0]
    assert "hello from import" in first.output
    assert "doubling (5,)" in first.output
    triple = graded(result, "test_triple")[0]
    assert "doubling" not in triple.output


def test_same_submission_and_seed_give_the_same_result(grade):
    def stable(result: Result) -> dict:
        data = result.to_dict()
        data.pop("duration_s")
        for test in data["tests"]:
            test.pop("duration_s")
        return data

    assert stable(grade("wrong")) == stable(grade("wrong"))


def test_chinese_messages(grade):
    result = grade("wrong", lang="zh")
    failed = graded(result, "test_double_values")[0]
    assert "你的结果" in failed.message
    assert result.lang == "zh"


def _left_behind(service: GradingService) -> tuple[list[int], list[int]]:
    """What still runs under the service's process (its fork server should be all), and what
    runs as one of its learner uids anywhere (zombies do not count)."""
    leftovers = []
    for pid in live_parents():
        with contextlib.suppress(OSError):
            if os.stat(f"/proc/{pid}").st_uid in service.learner_uids:
                leftovers.append(pid)
    return descendants(service.proc.pid), leftovers


def test_no_learner_process_is_left_behind(grade, probe_service):
    grade("infinite_loop_function")
    grade("os_exit_function")
    # under the service only its fork server remains (no worker, no learner child); and no
    # process runs as one of its learner uids
    below, leftovers = _left_behind(probe_service)
    assert len(below) <= 1, below
    assert leftovers == []


@pytest.fixture(scope="module")
def patient_probe_service(tmp_path_factory):
    """The probe course with a call limit of 30 s, for learner files whose import takes a while
    by design (a 600 MiB heap, so that its child takes a moment to be torn down): under the
    probe's 1.5 s the import itself ran out of time on a busy machine."""
    home = tmp_path_factory.mktemp("patient-probe")
    shutil.copytree(PROBE_HOME, home, dirs_exist_ok=True)
    spec = home / "exercises" / "exercise-90" / "exercise.yaml"
    text = spec.read_text()
    assert "  call_timeout_s: 1.5\n" in text
    spec.write_text(text.replace("  call_timeout_s: 1.5\n", "  call_timeout_s: 30\n"))
    service = GradingService(home)
    yield service
    service.close()


def test_a_grading_returns_only_once_its_killed_children_are_gone(patient_probe_service):
    # a child holding a large heap takes a moment to be torn down after its SIGKILL
    for _ in range(3):
        result = patient_probe_service.grade("exercise-90", SUBMISSIONS / "large_heap.py")
        assert_manifest_complete(result)
        assert result.score == 4, [(t.name, t.status, t.evidence, t.message) for t in result.tests]
        below, leftovers = _left_behind(patient_probe_service)
        assert len(below) <= 1, below
        assert leftovers == []


def test_a_killed_worker_leaves_no_learner_process_behind(patient_probe_service, tmp_path):
    """A trusted worker that dies mid-grading (killed, crashed) cannot wait for its learner
    children: the engine waits, until the fork server has killed and reaped them."""
    marker = f"gr{uuid.uuid4().hex[:12]}"  # a process name (at most 15 characters)
    submission = tmp_path / "exercise-90.py"
    submission.write_text(
        "import ctypes\n"
        "HEAP = bytearray(b'\\x01') * (600 << 20)  # a while to tear down\n"
        f"ctypes.CDLL(None).prctl(15, {marker.encode()!r}, 0, 0, 0)  # PR_SET_NAME\n"
        "def double(x):\n"
        "    while True:\n"
        "        pass\n"
        "def triple(x):\n"
        "    return x * 3\n"
    )
    results: list[Result] = []
    grading = threading.Thread(
        target=lambda: results.append(
            patient_probe_service.grade("exercise-90", submission, devices=("cpu",))
        )
    )
    grading.start()
    service = patient_probe_service.proc.pid
    found: list[int] = []

    def fork_server() -> bool:
        """The service's child above a live learner child of this submission."""
        parents = live_parents()
        for pid in _named(marker):
            while parents.get(pid, service) != service:
                pid = parents[pid]
            if parents.get(pid) == service:
                found[:] = [pid]
                return True
        return False

    try:
        wait_until(fork_server, lambda: "no learner child held its heap", on=[processes()])
        # the service's other children are its trusted workers, one grading this submission
        workers = [p for p, parent in live_parents().items() if parent == service and p != found[0]]
        assert workers
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
    finally:
        grading.join(timeout=120)
    assert results and results[0].score < results[0].max_score
    assert _named(marker) == []
    below, leftovers = _left_behind(patient_probe_service)
    assert len(below) <= 1, below
    assert leftovers == []


def _named(name: str) -> list[int]:
    """The live processes called ``name``."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                comm = Path(f"/proc/{pid}/comm").read_text().strip()
                state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
            except OSError:
                continue
            if comm == name and state != "Z":
                found.append(int(pid))
    return found


# A worker never formats a failure's traceback for pytest's report (nobody reads it: verdicts
# come from the exception itself), which was a third of its time on a class of broken files.
# Here formatting one fails the grading, in an engine of a fresh process.
NO_TRACEBACKS = """
import sys
from pathlib import Path
from _pytest._code.code import ExceptionInfo
from grader.engine import GradeRequest, LocalEngine

def refuse(*args, **kwargs):
    raise RuntimeError("a worker formatted a failure's traceback")

ExceptionInfo.getrepr = refuse
with LocalEngine() as engine:
    for name in sys.argv[1:]:
        path = Path(name)
        request = GradeRequest("exercise-90", path.read_bytes(), path.name, devices=("cpu",))
        print("RESULT", engine.grade(request).to_json(compact=True), flush=True)
"""


def test_failing_gradings_format_no_traceback_for_pytest():
    from tests.conftest import PROBE_HOME, run_fresh

    names = ("wrong.py", "syntax_error.py", "import_error.py")
    env = dict(os.environ, GRADER_HOME=str(PROBE_HOME))
    out = run_fresh(NO_TRACEBACKS, args=tuple(str(SUBMISSIONS / n) for n in names), env=env)
    results = [
        Result.from_json(line.split(" ", 1)[1])
        for line in out.splitlines()
        if line.startswith("RESULT ")
    ]
    assert len(results) == len(names)
    for result in results:
        statuses = {t.status for t in result.tests}
        assert statuses & {Status.FAILED, Status.ERROR}, result.tests
        assert not any("grader" in t.message.lower() for t in result.tests), [
            t.message for t in result.tests
        ]
    assert all(t.status is Status.FAILED for t in results[0].tests if t.status is not Status.PASSED)


# Each folder whose entries the worker's pytest lists and matches to collect the hidden tests
# (``pytest_ignore_collect`` is called for every entry), from a working folder of "/" as a
# server's.
COLLECTED_FROM = """
import sys, pytest
from grader.catalog import Catalog, project_root
from grader.engine.worker import pytest_args

class Recorder:
    def pytest_ignore_collect(self, collection_path, config):
        print("LOOKED", collection_path)
    def pytest_collection_finish(self, session):
        print("ITEMS", len(session.items))

spec = Catalog(project_root()).resolve(sys.argv[1])
pytest.main([*pytest_args(spec), "--collect-only"], plugins=[Recorder()])
print("FOLDER", spec.folder)
"""


@pytest.mark.parametrize("exercise", ["exercise-01", "exercise-20"])
def test_the_worker_collects_the_hidden_tests_without_listing_the_folders_above(exercise):
    """pytest reaches a file argument through every folder above it, up to its confcutdir:
    the worker's stops at the exercise's own folder (a wheel's site-packages or the server's
    "/" above it listed hundreds of entries per worker)."""
    from tests.conftest import run_fresh

    out = run_fresh(COLLECTED_FROM, args=(exercise,), cwd=Path("/")).splitlines()
    folder = Path(next(line for line in out if line.startswith("FOLDER ")).split(" ", 1)[1])
    looked = [Path(line.split(" ", 1)[1]) for line in out if line.startswith("LOOKED ")]
    items = [int(line.split()[1]) for line in out if line.startswith("ITEMS ")]
    assert items and items[0] > 0, out
    outside = [p for p in looked if p.parent != folder and folder not in p.parents]
    assert not outside, f"listed outside {folder}: {outside[:10]}"


# The evidence tags the diagnoses name are read once, by the grading process before it forks
# its workers, never by each worker: here a worker that reads a diagnosis file fails.
NO_CATALOGUE_IN_WORKERS = """
import sys
from pathlib import Path
from grader.diagnose import DiagnosisCatalog
from grader.engine import GradeRequest, LocalEngine

def refuse(*args, **kwargs):
    raise RuntimeError("a worker read the diagnosis catalogue")

with LocalEngine() as engine:
    DiagnosisCatalog.load = refuse  # after the engine has read it
    path = Path(sys.argv[1])
    request = GradeRequest("exercise-90", path.read_bytes(), path.name, devices=("cpu",))
    print("RESULT", engine.grade(request).to_json(compact=True), flush=True)
"""


def test_workers_take_the_diagnosed_evidence_from_the_grading_process():
    from tests.conftest import PROBE_HOME, run_fresh

    env = dict(os.environ, GRADER_HOME=str(PROBE_HOME))
    out = run_fresh(NO_CATALOGUE_IN_WORKERS, args=(str(SUBMISSIONS / "wrong.py"),), env=env)
    [line] = [line for line in out.splitlines() if line.startswith("RESULT ")]
    result = Result.from_json(line.split(" ", 1)[1])
    failed = [t for t in result.tests if t.status is not Status.PASSED]
    assert failed and all(t.status is Status.FAILED for t in failed), result.tests


SEEDS = """
import traceback
import torch
import torch.cuda.random
from grader.sandbox.seeding import unseeded_accelerators

expected = torch.Generator().manual_seed(3)
want = torch.rand(4, generator=expected)
kept = torch.cuda.random._lazy_call
unseeded_accelerators(cuda_possible=CUDA_POSSIBLE)
print("KEPT", torch.cuda.random._lazy_call is kept)

def refuse(*args, **kwargs):
    raise RuntimeError("a seed was queued with a formatted stack")

traceback.format_stack = refuse
try:
    torch.manual_seed(3)
    print("SAME", bool(torch.equal(torch.rand(4), want)))
except RuntimeError as exc:
    print("QUEUED", exc)
"""


@pytest.mark.parametrize("possible", [False, True], ids=["cuda-impossible", "cuda-possible"])
def test_a_worker_queues_no_seed_for_an_accelerator_that_cannot_start(possible):
    """torch.manual_seed in a worker seeds the CPU as ever; where CUDA cannot start there, no
    seed is queued for it (each with a formatted stack of the call, a cost on every test)."""
    import torch

    from tests.conftest import run_fresh

    out = run_fresh(SEEDS.replace("CUDA_POSSIBLE", repr(possible))).split()
    if possible:
        assert out[:2] == ["KEPT", "True"]
        if torch.version.cuda is None:  # torch's own queue, untouched, formats the stack
            assert out[2] == "QUEUED"
    else:
        others = torch.xpu._is_compiled() or torch.mtia._is_compiled()
        assert out[:2] == ["KEPT", "False"]
        assert out[2:] == (["QUEUED", *out[3:]] if others else ["SAME", "True"])


def test_a_learner_cpu_child_queues_no_seed_for_a_gpu_it_cannot_see(probe_service, tmp_path):
    """The scenarios and the learner's own code call torch.manual_seed in the learner's child:
    a CPU child (it sees no GPU) queues no CUDA seed, with its formatted stack, for each. The
    learner's file here makes formatting a stack fail, so a queued seed fails the test."""
    path = tmp_path / "exercise-90.py"
    path.write_text(
        "import traceback\n"
        "import torch\n"
        "\n"
        "def _refuse(*args, **kwargs):\n"
        "    raise RuntimeError('a seed was queued with a formatted stack')\n"
        "\n"
        "traceback.format_stack = _refuse\n"
        "\n"
        "def double(x):\n"
        "    return x * 2\n"
        "\n"
        "def triple(x):\n"
        "    torch.manual_seed(0)  # seeds the CPU generator, as under plain python\n"
        "    return x * 3\n"
    )
    result = probe_service.grade("exercise-90", path, devices=("cpu",))
    # The file is flagged for review (it replaces a library function), so checks resting on
    # its process's measurements do not count; test_triple rests on nothing of it.
    [triple] = [t for t in result.tests if t.name == "test_triple"]
    assert triple.status is Status.PASSED, triple


def test_a_file_python_cannot_decode_is_a_syntax_error(probe_service, tmp_path):
    """``python exercise-90.py`` refuses a Latin-1 byte in a comment of a file without a coding
    cookie; the grader gave it full marks."""
    path = tmp_path / "exercise-90.py"
    correct = (SUBMISSIONS / "correct.py").read_bytes()
    path.write_bytes(b"import torch\n# caf\xe9\n" + correct)
    result = probe_service.grade("exercise-90", path, devices=("cpu",))
    assert result.score == 0
    for test in result.graded:
        assert test.status is Status.ERROR
        # it is told as what it is: not UTF-8 text, at its line (not "fix the line shown")
        assert "not saved as UTF-8" in test.message and "Non-UTF-8" in test.message
        assert "line 2" in test.message
        assert test.diagnosis is not None and test.diagnosis.id == "file-not-utf8"


def test_a_module_getattr_that_raises_is_the_learners_error_not_a_crash(probe_service, tmp_path):
    """``def __getattr__(name): raise NotImplementedError`` at the top of a file: looking up a
    function the file does not define ran it outside any guard, the child died, and the
    learner was told their code called os._exit()."""
    path = tmp_path / "exercise-90.py"
    path.write_text("def __getattr__(name):\n    raise NotImplementedError(f'{name}: TODO')\n")
    result = probe_service.grade("exercise-90", path, devices=("cpu",))
    assert result.score == 0
    for test in result.graded:
        assert "NotImplementedError" in test.message, test.message
        assert "os._exit" not in test.message and "ended the process" not in test.message


def test_a_function_a_hidden_scenario_reaches_is_missing_by_its_own_name(
    curriculum_service, tmp_path
):
    """A hidden test whose scenario runs in the learner's process (init_weights with a
    generator) reached a missing function itself: the learner read "generator_run raised
    AttributeError: module 'submission' has no attribute ...", where the other tests of the
    same function say it is missing."""
    reference = (ROOT / "solutions" / "exercise-01" / "exercise-01.py").read_text()
    kept = reference.split("def init_weights")[0]
    path = tmp_path / "exercise-01.py"
    path.write_text(kept)
    result = curriculum_service.grade("exercise-01", path, devices=("cpu",))
    tests = [t for t in result.graded if "init_weights" in t.name]
    assert len(tests) >= 3
    for test in tests:
        assert "does not define `init_weights`" in test.message, test.message
        assert "submission" not in test.message and "generator_run" not in test.message
        assert test.diagnosis is not None and test.diagnosis.id == "missing-function"


def test_a_low_recursion_limit_binds_the_learners_code_not_the_childs(probe_service, tmp_path):
    """``sys.setrecursionlimit(24)`` at the top of a file: the child's own work (encoding the
    answer) hit it, the child exited 70, and the learner read that their code called
    os._exit(), with the grader's JSON traceback. The child's work runs under its own limit;
    the learner's code keeps theirs."""
    path = tmp_path / "exercise-90.py"
    correct = (SUBMISSIONS / "correct.py").read_text()
    path.write_text(
        correct + "\nimport sys\nsys.setrecursionlimit(24)\n\n"
        "def deep(n):\n    return n if n == 0 else deep(n - 1)\n"
    )
    result = probe_service.grade("exercise-90", path, devices=("cpu",))
    assert result.score == result.max_score, [(t.name, t.message) for t in result.graded]
    said = " ".join(t.message + t.output for t in result.tests)
    assert "exit code 70" not in said and "json" not in said


def test_a_traceback_quotes_the_line_python_numbers(probe_service, tmp_path):
    """A form feed or a U+2028 in a comment above the raising line: the frame's line number
    was right and its quoted code was another line (the child's line cache split the file
    where Python does not)."""
    path = tmp_path / "exercise-90.py"
    path.write_text(
        "import torch  # section\x0cpage two\n"
        "# pasted\u2028from a web page\n"
        "x = 1\n"
        "def double(x):\n"
        "    y = 2\n"
        "    raise ValueError('deliberate')\n"
        "\n"
        "def triple(x):\n"
        "    return x * 3\n",
        encoding="utf-8",
    )
    result = probe_service.grade("exercise-90", path, devices=("cpu",))
    frames = [f for t in result.tests if t.name.startswith("test_double") for f in t.frames]
    assert frames and all(
        f.code == "raise ValueError('deliberate')" for f in frames if f.line == 6
    ), frames
    assert any(f.line == 6 for f in frames)


# The first worker is stopped (SIGSTOP) as it starts, as if its first submission spent its time
# limits; it is let go once the seven others are graded, which only another worker can do.
HANDED_ON = """
import json, os, signal, sys
from pathlib import Path
import grader.engine.scheduler as scheduler
from grader.catalog import Catalog
from grader.engine import GradeRequest
from grader.engine.local import LocalEngine

scheduler.STRAGGLER_S = 0.0  # a stopped worker is a straggler at once
groups, reported, order, stalled = [], {}, [], []

class Watched(LocalEngine):
    def start(self, spec, jobs):
        run = super().start(spec, jobs)
        groups.append([job.tag[0] for job in jobs])
        if not stalled:
            os.kill(run.pid, signal.SIGSTOP)
            stalled.append(run)
        return run

    def finish(self, running):
        reported[running.pid] = sorted(running.records)  # whose tests the worker ran
        return super().finish(running)

def on_result(index, result, _):
    order.append([index, result.score, result.max_score])
    if len(order) == 7:
        os.kill(stalled[0].pid, signal.SIGCONT)

signal.alarm(150)  # a grader that hands nothing on waits for the stopped worker: fail instead
source = Path(sys.argv[2]).read_bytes()
requests = [GradeRequest("exercise-90", source, "exercise-90.py", devices=("cpu",))] * 8
with Watched(Catalog(Path(sys.argv[1])), jobs=2) as engine:
    engine.grade_many(requests, on_result)
first = stalled[0]
print(json.dumps({"groups": groups, "ran": reported[first.pid], "order": order,
                  "handed_on": sorted(first.handed_on, key=int)}))
"""


def test_a_stuck_worker_hands_the_rest_of_its_group_to_an_idle_one():
    """Submissions queued behind one that spends its time limits are graded by a worker that
    went idle, not after it; told so at its next boundary, the stuck worker grades the one it
    is on and stops (it ran no test of the others)."""
    import json

    from tests.conftest import PROBE_HOME, run_fresh

    out = run_fresh(HANDED_ON, args=(str(PROBE_HOME), str(SUBMISSIONS / "correct.py")))
    seen = json.loads(out.splitlines()[-1])
    assert seen["groups"] == [[0, 1, 2, 3], [4, 5, 6, 7], [1, 2, 3]], seen
    assert seen["handed_on"] == ["1", "2", "3"]
    assert seen["ran"] == ["0"]
    assert [index for index, _, _ in seen["order"]][-1] == 0
    assert sorted(index for index, _, _ in seen["order"]) == list(range(8))
    assert all(score == top > 0 for _, score, top in seen["order"])  # full marks, every one
