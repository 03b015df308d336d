"""The adversarial suite: hostile and broken submissions, each with the outcome it must get.

Every case is graded against the engine-probe exercise (exercise-90: `double` is graded by two
tests on each device, `triple` by one device-independent test; a call may take 1.5 s). For every
case: every test gets exactly one verdict, no undeserved point, a clear learner-facing message,
no process left behind, the grader still grading, and the host's files untouched where the tier
claims it (docs/SECURITY.md). Each case runs in every tier that claims its guarantee: the
namespaces tier (where the machine allows it) and the process tier.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.render import template_cache
from grader.render.html import render_result
from grader.results import Result, Status
from tests.conftest import PROBE_HOME, ROOT, GradingService, wait_ended

HERE = Path(__file__).resolve().parent
SUBMISSIONS = HERE / "submissions"
SECRET = f"grader-secret-{uuid.uuid4().hex}"
BOTH = ("namespaces", "process")
NS = ("namespaces",)
HIDDEN_TEXT = "def test_double_values"
# A copy of the probe's solutions outside every folder the grader knows about, as an
# instructor's second checkout or a course repository would be (world-readable, not under /tmp).
OTHER_COPY = ROOT / "build" / f"other-copy-{uuid.uuid4().hex[:12]}"
# Where the grader keeps compiled report templates (grader.render.template_cache): the grading
# service runs with this process's environment, so it is the same folder.
TEMPLATE_CACHE = template_cache.folder() or Path("/nonexistent-template-cache")


@dataclass
class Context:
    tier: str
    tmp: Path
    marker: str
    port: int
    server: socket.socket
    canary: Path
    canary_dir: Path


@dataclass(frozen=True)
class Case:
    name: str
    double: frozenset[str]  # the statuses the tests of `double` may get
    message: str = ""  # a regular expression the learner-facing message of `double` matches
    triple: frozenset[str] = frozenset({"passed"})
    tiers: tuple[str, ...] = BOTH
    cuda: bool = False  # the double tests run on CUDA (skipped without a GPU)
    after: Callable[[Context, Result], None] | None = field(default=None, compare=False)
    label: str = ""  # the test id, where one submission is graded twice


def S(*statuses: str) -> frozenset[str]:
    return frozenset(statuses)


# -- checks after a case ---------------------------------------------------------------------


def no_marker_process(ctx: Context, result: Result) -> None:
    # what was killed may take a moment to end: wait for those seen, then look again
    wait_ended(p[0] for p in _processes() if ctx.marker.encode() in p[1])
    alive = [p for p in _processes() if ctx.marker.encode() in p[1]]
    assert alive == [], f"processes left behind: {alive}"


def canary_dir_untouched(ctx: Context, result: Result) -> None:
    assert sorted(p.name for p in ctx.canary_dir.iterdir()) == [], list(ctx.canary_dir.iterdir())


def canary_file_kept(ctx: Context, result: Result) -> None:
    assert ctx.canary.read_text() == "keep me"


def hidden_files_unread(ctx: Context, result: Result) -> None:
    output = "".join(t.output for t in result.tests)
    assert "read 0 hidden files" in output
    assert HIDDEN_TEXT not in output


def nothing_found_in_memory(ctx: Context, result: Result) -> None:
    assert "hidden objects found: 0" in "".join(t.output for t in result.tests)


def no_connection(ctx: Context, result: Result) -> None:
    ctx.server.setblocking(False)
    with pytest.raises(BlockingIOError):
        ctx.server.accept()
    assert "connected to" not in "".join(t.output for t in result.tests)


def no_fill_files(ctx: Context, result: Result) -> None:
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        assert not list(Path(folder).glob(f"fill-{ctx.marker}-*")), folder


def no_startup_files(ctx: Context, result: Result) -> None:
    import site

    planted = [
        Path(p) / name
        for p in site.getsitepackages()
        for name in ("zz_grader_evil.pth", "sitecustomize.py", "usercustomize.py")
    ]
    planted.append(PROBE_HOME / "exercises" / "exercise-90" / "conftest.py")
    planted += list(TEMPLATE_CACHE.iterdir()) if TEMPLATE_CACHE.is_dir() else []
    found = [p for p in planted if p.exists() and "startup-ran" in p.read_text(errors="replace")]
    for path in found:  # never leave a poisoned interpreter behind, even when the check fails
        path.unlink()
    assert found == []
    assert not (ctx.canary_dir / "startup-ran").exists()


def secret_not_leaked(ctx: Context, result: Result) -> None:
    output = "".join(t.output for t in result.tests)
    assert "HOME" in output  # the environment was printed
    assert SECRET not in output


def markup_escaped(ctx: Context, result: Result) -> None:
    html = render_result(result)
    assert "<script>window.pwned" not in html and "<img src=x" not in html
    assert "&lt;script&gt;window.pwned = 2&lt;/script&gt;" in html


def no_ptrace(ctx: Context, result: Result) -> None:
    assert "attached to []" in "".join(t.output for t in result.tests)


def other_copy_unread(ctx: Context, result: Result) -> None:
    assert "read 0 files of another copy" in "".join(t.output for t in result.tests)


def nothing_left_in_host_places(ctx: Context, result: Result) -> None:
    for folder in ("/run/lock", "/var/lock", "/var/crash", "/var/mail"):
        leftover = Path(folder) / f"grader-{ctx.marker}"
        exists = leftover.exists()
        leftover.unlink(missing_ok=True)
        assert not exists, leftover
    assert "wrote 0 files outside the scratch folder" in "".join(t.output for t in result.tests)


def output_capped(ctx: Context, result: Result) -> None:
    for test in result.tests:
        assert len(test.output) < 64 * 1024


CASES = [
    Case("loop_function", S("timeout"), r"did not return within 1\.5 s"),
    Case("loop_import", S("timeout"), r"Importing your file took longer", triple=S("timeout")),
    Case("regex_holds_gil", S("timeout"), r"did not return within"),
    Case("sys_exit", S("error"), r"sys\.exit\(\)"),
    Case("os_exit", S("error"), r"ended the process .*exit code 0"),
    # In the namespaces tier the child is PID 1 of its namespace, which ignores the signals it
    # sends itself: the kill does nothing and `double` returns None.
    Case("kill_self", S("error", "failed"), r"killed|should be a torch\.Tensor"),
    # In the process tier under the grader's own uid the fork server dies, and the child with
    # it: the rest of this grading cannot run (an error, never a point), and the next grading
    # gets a new fork server. As root the child has a uid of its own and the kill is refused.
    Case(
        "kill_parent",
        S("failed", "error"),
        r"differ from the expected|ended|sandbox",
        triple=S("passed", "error"),
    ),
    Case("kill_group", S("error", "failed"), r"killed|ended|should be a torch\.Tensor"),
    Case("segfault", S("error"), r"segmentation fault"),
    Case(
        "fork_bomb",
        S("timeout", "error"),
        r"did not return within|ended|killed",
        tiers=NS,
        after=no_marker_process,
    ),
    Case("setsid_grandchild", S("failed"), r"differ", after=no_marker_process),
    Case("subprocess_left", S("failed"), r"differ", after=no_marker_process),
    Case("threads_keep_running", S("passed"), after=output_capped),
    Case("alloc_50gb", S("failed", "error"), r"allocate memory|memory"),
    Case(
        "gpu_alloc_huge",
        S("failed", "error"),
        r"out of memory|memory",
        cuda=True,
        label="gpu_alloc_huge-cuda",
    ),
    Case("stdout_gigabytes", S("timeout", "failed"), r"did not return|differ", after=output_capped),
    # Output that never stops, from a thread and a forked process: every read of it is bounded,
    # so the grading ends. The fork flags the file for review (double's inputs are checked in
    # the child's own process); triple, checked from the trusted side alone, still counts.
    Case("stdout_flood", S("failed"), r"cannot count them", after=output_capped),
    Case("fake_protocol_lines", S("failed"), r"differ"),
    Case("fake_result_files", S("failed"), r"differ"),
    Case(
        "fake_result_files",
        S("failed"),
        r"differ",
        tiers=NS,
        after=canary_dir_untouched,
        label="fake_result_files-host_untouched",
    ),
    Case("read_hidden_files", S("failed"), r"differ", tiers=NS, after=hidden_files_unread),
    Case("gc_and_inspect", S("failed"), r"differ", after=nothing_found_in_memory),
    Case("replace_comparisons", S("failed"), r"differ", triple=S("failed")),
    Case("replace_builtins", S("failed", "error"), r".", triple=S("failed", "error")),
    Case("patch_pytest", S("failed"), r"differ", triple=S("failed")),
    Case("tensor_subclass", S("failed", "error"), r"torch\.Tensor", triple=S("failed", "error")),
    Case("pickle_payload", S("failed"), r"bytes", triple=S("failed"), after=canary_dir_untouched),
    Case("disable_timeouts", S("timeout"), r"did not return within"),
    Case("network", S("failed"), r"differ", tiers=NS, after=no_connection),
    Case("delete_files", S("failed"), r"differ", tiers=NS, after=canary_file_kept),
    # the scratch folder holds 64 MiB (a tmpfs in the namespaces tier); the private /tmp and
    # others are tmpfs of their own there
    Case("fill_disk", S("error"), r"more than 64 MiB to its folder", tiers=NS, after=no_fill_files),
    # -- the scratch folder's quota, in every tier: many files each under the largest file
    # allowed, every refusal swallowed and the right answer returned, lose the test; an honest
    # use of the folder keeps its points
    Case("fill_scratch", S("error"), r"wrote more than 64 MiB to its folder"),
    Case("write_scratch", S("passed")),
    Case("drop_startup_files", S("failed"), r"differ", tiers=NS, after=no_startup_files),
    Case(
        "recursion_blowup",
        S("failed", "error", "timeout"),
        r"RecursionError|segmentation fault|ended|killed|did not return",
    ),
    Case("device_side_assert", S("failed"), r"IndexError|index"),
    Case(
        "device_side_assert",
        S("failed", "error"),
        r"CUDA|device-side|index",
        cuda=True,
        label="device_side_assert-cuda",
    ),
    Case("script_markup", S("failed"), r"<script>window\.pwned = 2</script>", after=markup_escaped),
    Case("read_env_secrets", S("failed"), r"differ", after=secret_not_leaked),
    Case(
        "forge_answer",
        S("failed", "error"),
        r"does not answer the question|malformed answer|differ",
    ),
    Case("close_fds", S("error"), r"ended|killed|closed|unexpectedly"),
    Case("read_stdin", S("failed"), r"EOFError"),
    Case("sleep_forever", S("timeout"), r"did not return within"),
    Case("huge_answer", S("failed", "error"), r"memory|MiB|cannot read|allocate"),
    Case("deep_answer", S("error"), r"cannot read"),
    Case("hanging_repr", S("timeout"), r"did not return within"),
    # patching its own process spoils only its own answers, `triple`'s included
    Case("patch_grader_codec", S("failed", "error"), r".", triple=S("failed", "error")),
    Case("ptrace_the_grader", S("failed"), r"differ", tiers=NS, after=no_ptrace),
    # -- every byte from a child is hostile data: a malformed answer is that test's error
    Case("forge_frame_line", S("error"), r"could not be read"),
    Case("nan_in_message", S("error"), r"could not be read"),
    Case("deep_header", S("error"), r"could not be read"),
    # -- trusted work on learner data is bounded
    Case("stride0_huge", S("error"), r"more than the grader can check"),
    # -- a stopped fork server is noticed and replaced (process tier); in the namespaces tier
    # the signal cannot reach it
    Case("stop_fork_server", S("failed", "error"), r"differ|sandbox|stopped"),
    # -- a measurement the child suppresses can only lose points
    Case(
        "drop_after",
        S("error"),
        r"could not check that double left its inputs",
        triple=S("passed", "error"),
    ),
    # -- the child sees only what it needs (an allowlist, not a list of places to hide)
    Case("read_other_copies", S("failed"), r"differ", tiers=NS, after=other_copy_unread),
    Case("write_run_lock", S("failed"), r"differ", tiers=NS, after=nothing_left_in_host_places),
]


def _processes() -> list[tuple[int, bytes, int]]:
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
                status = Path(f"/proc/{name}/status").read_text()
            except OSError:
                continue
            uid = int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))
            state = re.search(r"^State:\s+(\w)", status, re.M).group(1)
            if state != "Z":
                found.append((int(name), cmdline, uid))
    return found


@pytest.fixture(scope="module", autouse=True)
def other_copy():
    """The copy read_other_copies looks for, world-readable (for an unprivileged uid too)."""
    import shutil

    shutil.copytree(PROBE_HOME, OTHER_COPY)
    (OTHER_COPY / "README.md").write_text("a course repository")
    for path in [OTHER_COPY, *OTHER_COPY.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    OTHER_COPY.parent.chmod(0o755)
    yield OTHER_COPY
    shutil.rmtree(OTHER_COPY, ignore_errors=True)


@pytest.fixture(scope="module", params=BOTH)
def tier_service(request):
    tier = request.param
    try:
        service = GradingService(
            PROBE_HOME, env={"GRADER_ISOLATION": tier, "GRADER_SECRET_CANARY": SECRET}
        )
    except RuntimeError:
        pytest.skip(f"the {tier} tier is not available on this machine")
    assert service.isolation.startswith(tier), service.isolation
    yield tier, service
    service.close()


# A case whose tests may end in a timeout waits for the time limit it runs into: that is the
# `slow` tier's (pyproject.toml), and `make test-all` runs it. The fast tier keeps the rest, and
# the engine's own tests keep a timeout of each kind (tests/test_engine.py).
@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=pytest.mark.slow) if "timeout" in c.double else c for c in CASES],
    ids=[c.label or c.name for c in CASES],
)
def test_hostile_submission(case: Case, tier_service, tmp_path):
    tier, service = tier_service
    if tier not in case.tiers:
        pytest.skip(f"the {tier} tier does not claim this guarantee (docs/SECURITY.md)")
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    canary_dir = tmp_path / "canary"
    canary_dir.mkdir()
    canary_dir.chmod(0o777)
    canary = tmp_path / "canary.txt"
    canary.write_text("keep me")
    canary.chmod(0o666)
    ctx = Context(
        tier,
        tmp_path,
        f"3600.{uuid.uuid4().int % 10**9}",
        server.getsockname()[1],
        server,
        canary,
        canary_dir,
    )
    source = (SUBMISSIONS / f"{case.name}.py").read_text()
    for key, value in {
        "__PROBE_HOME__": str(PROBE_HOME),
        "__PORT__": str(ctx.port),
        "__MARKER__": ctx.marker,
        "__CANARY_DIR__": str(canary_dir),
        "__CANARY__": str(canary),
        "__OTHER_COPY__": str(OTHER_COPY),
        "__TEMPLATE_CACHE__": str(TEMPLATE_CACHE),
    }.items():
        source = source.replace(key, value)
    submission = tmp_path / "exercise-90.py"
    submission.write_text(source)

    devices = ("cuda",) if case.cuda else ("cpu",)
    started = time.monotonic()
    try:
        result = service.grade("exercise-90", submission, devices=devices)
    except UsageError as exc:  # the server grades no CUDA-only request without a GPU
        if case.cuda and "CUDA is not available" in str(exc):
            pytest.skip("CUDA is not available on this machine")
        raise
    elapsed = time.monotonic() - started

    keys = [(t.name, t.device) for t in result.tests]
    assert len(keys) == len(set(keys)), "a test got two verdicts"
    double = [t for t in result.tests if t.name.startswith("test_double")]
    if case.cuda and all(t.status is Status.SKIPPED for t in double):
        pytest.skip("CUDA is not available on this machine")
    for test in double:
        assert test.status.value in case.double, (test.key, test.status, test.message)
        assert re.search(case.message, test.message, re.S), (test.key, test.message)
        if test.status is not Status.PASSED:
            assert test.message.strip(), "a learner-facing message is required"
            assert test.points == 0
    triple = [t for t in result.tests if t.name == "test_triple"]
    assert triple[0].status.value in case.triple, (triple[0].status, triple[0].message)
    if case.double != S("passed"):
        assert result.score < result.max_score, "no undeserved full marks"
    assert elapsed < 60
    assert result.environment.isolation.startswith(tier)

    if case.after is not None:
        case.after(ctx, result)
    server.close()

    # nothing the submission started survives its grading
    def mine(p: tuple[int, bytes, int]) -> bool:
        return p[2] in service.learner_uids or ctx.marker.encode() in p[1]

    wait_ended(p[0] for p in _processes() if mine(p))
    learners = [p for p in _processes() if mine(p)]
    assert learners == [], learners


def test_the_grader_survives_the_whole_suite(tier_service):
    """After every hostile case above, the same service still grades correctly."""
    _, service = tier_service
    result = service.grade(
        "exercise-90", PROBE_HOME.parent / "submissions" / "correct.py", devices=("cpu",)
    )
    assert result.status is Status.PASSED and result.score == result.max_score


@pytest.mark.slow  # its tests wait for their time limits, under 256 busy processes
def test_a_child_is_reported_ended_only_when_what_it_started_is_gone(tier_service, tmp_path):
    """Hundreds of busy processes take a while to tear down; the next child must not import
    under that load. So a discarded child's end is reported (and the next test's child
    started) only once everything it started is gone: when the grading returns, nothing of
    it is left, not even a zombie, with no grace period."""
    _, service = tier_service
    marker = f"gr{uuid.uuid4().hex[:12]}"  # a process name (at most 15 characters)
    submission = tmp_path / "exercise-90.py"
    submission.write_text(
        "import ctypes, os\n"
        "def double(x):\n"
        "    for _ in range(8):  # 256 processes, each busy\n"
        "        os.fork()\n"
        f"    ctypes.CDLL(None).prctl(15, {marker.encode()!r}, 0, 0, 0)  # PR_SET_NAME\n"
        "    while True:\n"
        "        pass\n"
        "def triple(x):\n"
        "    return x * 3\n"
    )
    result = service.grade("exercise-90", submission, devices=("cpu",))
    statuses = {t.name: t.status for t in result.tests}
    assert statuses.pop("test_triple") is Status.PASSED, result.tests
    assert set(statuses.values()) == {Status.TIMEOUT}, result.tests
    left = []
    for name in os.listdir("/proc"):
        with contextlib.suppress(OSError):
            if Path(f"/proc/{name}/comm").read_text().strip() == marker:
                left.append(name)
    assert left == []
