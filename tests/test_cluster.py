"""`grade batch --cluster`: a class graded on Dask gives the same gradebook as one machine.

Everything Dask runs in processes of its own (``grade batch --cluster local:2``, or ``dask
scheduler`` / ``dask worker`` started here), never in the test process: it stays
single-threaded for the tests that fork after these.

The fast tests check the parts alone: the import is lazy, the protocol is strict, a grading
process that breaks it costs only its own jobs, the fingerprint says what differs, the
environment is cleaned. The slow ones grade a small class (the probe exercise and two real
ones) on a cluster: the gradebook equals ``--jobs 2``'s, a worker SIGKILLed mid-run changes
nothing, an interrupted driver resumes, a worker that differs is refused, CUDA passes go only
to the GPU worker, a learner reaches nothing of the cluster, and nothing is left running.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.cluster.fingerprint import differences, refusal
from grader.cluster.handle import SlotLost, SlotProcess, outcome, slot_command, slot_env
from grader.cluster.protocol import (
    ProtocolError,
    encode,
    grade_line,
    job_wire,
    parse_grade,
    parse_message,
)
from grader.cluster.slot import to_hide
from grader.engine.api import GradeRequest
from tests.conftest import (
    DROPPING_DRIVER,
    PROBE_HOME,
    ROOT,
    SUBMISSIONS,
    cli_here,
    ctrl_c_in_a_finaliser,
    run_cli,
    wait_ended,
)
from tests.events import Ended, processes, wait_until

pytestmark = pytest.mark.skipif(
    shutil.which("dask", path=str(Path(sys.executable).parent)) is None
    and shutil.which("dask") is None,
    reason="Dask is not installed (pip install -e '.[dev]')",
)
DASK = shutil.which("dask", path=str(Path(sys.executable).parent)) or shutil.which("dask") or "dask"
REAL = ("exercise-01", "exercise-05")
# (student, exercise-90 submission, whether the student hands in the real exercises' references
# (True), their starters (False), or nothing (None))
STUDENTS = [
    ("s00", "correct", True),
    ("s01", "wrong", False),
    ("s02", "prints", True),
    ("s03", "syntax_error", False),
    ("s04", "mutates_input", True),
    ("s05", "correct", False),
    ("s06", "wrong", None),
    ("s07", "infinite_loop_function", None),
]


# -- a course, a class, a cluster -----------------------------------------------------------


def make_home(root: Path) -> Path:
    """A course of the probe exercise and two real ones (copies: the grader hides them)."""
    for part in ("exercises", "solutions"):
        (root / part).mkdir(parents=True)
        shutil.copytree(PROBE_HOME / part / "exercise-90", root / part / "exercise-90")
        for exercise in REAL:
            shutil.copytree(ROOT / part / exercise, root / part / exercise)
    return root


def make_class(root: Path, students=STUDENTS) -> Path:
    for student, probe, real in students:
        folder = root / f"{student}-{probe}"
        folder.mkdir(parents=True)
        shutil.copyfile(SUBMISSIONS / f"{probe}.py", folder / "exercise-90.py")
        for exercise in REAL if real is not None else ():
            source = ROOT / ("solutions" if real else "exercises") / exercise / f"{exercise}.py"
            shutil.copyfile(source, folder / f"{exercise}.py")
    return root


def batch(submissions: Path, out: Path, home: Path, *extra: str, timeout: float = 300):
    return run_cli("batch", str(submissions), "--out", str(out), *extra, home=home, timeout=timeout)


def gradebook(out: Path) -> tuple[str, dict]:
    return (out / "gradebook.csv").read_text(), json.loads((out / "gradebook.json").read_text())


def stable_results(out: Path) -> dict[str, dict]:
    """Every stored result without its timings, by path."""
    found = {}
    for path in sorted(out.glob("students/*/exercise-*.json")):
        data = json.loads(path.read_text())
        data.pop("duration_s")
        for test in data["tests"]:
            test.pop("duration_s")
        found[str(path.relative_to(out))] = data
    return found


def keys(out: Path) -> dict[str, str]:
    return {str(p.relative_to(out)): p.read_text() for p in sorted(out.glob("students/*/*.key"))}


def _processes() -> dict[int, bytes]:
    found = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found[int(pid)] = cmdline
    return found


def cluster_processes(before: set[int] = frozenset()) -> list[str]:
    """Dask schedulers, workers and nannies, grading processes (and their fork servers, trusted
    workers and learner children, which are forks of them) that were not there ``before``."""
    marks = (b"grader.cluster.slot", b"multiprocessing.spawn", b"distributed", b"dask\x00")
    return sorted(
        f"{pid}: " + cmd.replace(b"\0", b" ")[:120].decode(errors="replace")
        for pid, cmd in _processes().items()
        if pid not in before and pid != os.getpid() and any(m in cmd for m in marks)
    )


def wait_for_no_cluster_processes(before: set[int]) -> list[str]:
    """The cluster processes still there once those seen now have ended (waited for as events:
    a closed cluster's processes may take a moment to exit, and none may start after)."""
    wait_ended(int(line.split(":", 1)[0]) for line in cluster_processes(before))
    return cluster_processes(before)


class DaskCluster:
    """``dask scheduler`` and ``dask worker`` processes on the loopback, as on lab machines."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.procs: list[subprocess.Popen] = []
        self.workers: dict[str, subprocess.Popen] = {}
        self.file = base / "scheduler.json"
        self.address = ""

    def start_scheduler(self) -> None:
        self.procs.append(
            self._popen(
                [
                    DASK,
                    "scheduler",
                    "--host",
                    "127.0.0.1",
                    "--port",
                    "0",
                    "--no-dashboard",
                    "--scheduler-file",
                    str(self.file),
                ],
                {},
                "scheduler",
            )
        )
        scheduler = self.procs[-1]

        def written() -> bool:
            # the scheduler writes its file after it listens: whole once closed
            try:
                self.address = json.loads(self.file.read_text())["address"]
                return True
            except (OSError, ValueError, KeyError):
                assert scheduler.poll() is None, f"the scheduler ended: {self.log('scheduler')}"
                return False

        wait_until(
            written,
            lambda: f"the Dask scheduler did not start: {self.log('scheduler')}",
            on=[self.file, Ended(scheduler.pid)],
        )

    def start_worker(self, name: str, env: dict[str, str], *extra: str) -> None:
        local = self.base / f"{name}-local"
        local.mkdir()
        proc = self._popen(
            [
                DASK,
                "worker",
                "--scheduler-file",
                str(self.file),
                "--host",
                "127.0.0.1",
                "--nthreads",
                "1",
                "--name",
                name,
                "--no-dashboard",
                "--local-directory",
                str(local),
                *extra,
            ],
            env,
            name,
        )
        self.procs.append(proc)
        self.workers[name] = proc

    def _popen(self, command: list[str], env: dict[str, str], name: str) -> subprocess.Popen:
        log = open(self.base / f"{name}.log", "wb")  # noqa: SIM115 - closed with the process
        return subprocess.Popen(
            command, env=dict(os.environ, **env), stdout=log, stderr=subprocess.STDOUT
        )

    def worker_process(self, name: str) -> int:
        """The pid of the worker process that ``dask worker`` (its nanny) started."""
        nanny = self.workers[name].pid
        # the worker process logs "Registered to:" once it runs: a child of the nanny then
        wait_until(
            lambda: "Registered to:" in self.log(name),
            lambda: f"no worker process under the nanny of {name}: {self.log(name)}",
            on=[self.base / f"{name}.log", Ended(nanny)],
        )
        found = [pid for pid in _processes() if _parent(pid) == nanny]
        assert found, f"no worker process under the nanny of {name}"
        return found[0]

    def wait_for_workers(self, count: int) -> None:
        """Until ``count`` workers have registered (the scheduler's log says so, and is
        looked at each time it grows)."""
        wait_until(
            lambda: self.log("scheduler").count("Register worker") >= count,
            lambda: f"the workers did not register: {self.log('scheduler')}",
            on=[self.base / "scheduler.log", *(Ended(p.pid) for p in self.procs)],
        )

    def stop(self) -> None:
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def log(self, name: str) -> str:
        return (self.base / f"{name}.log").read_text(errors="replace")


@contextmanager
def dask_cluster(base: Path, workers: dict[str, tuple[dict[str, str], tuple[str, ...]]]):
    before = set(_processes())
    cluster = DaskCluster(base)
    try:
        cluster.start_scheduler()
        for name, (env, extra) in workers.items():
            cluster.start_worker(name, env, *extra)
        cluster.wait_for_workers(len(workers))
        yield cluster
    finally:
        cluster.stop()
    assert wait_for_no_cluster_processes(before) == []


# -- the parts alone (fast) -----------------------------------------------------------------


def test_the_cluster_code_is_imported_lazily():
    code = (
        "import sys; import grader.lms.batch, grader.cli, grader.cli.instructor, grader.cluster;"
        "from grader.cluster import make_engine;"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed'));"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.slow  # grades a batch in fresh interpreters, or reaches for a Dask scheduler
def test_without_dask_cluster_mode_is_a_one_line_error(tmp_path):
    submissions = make_class(tmp_path / "class", STUDENTS[:1])
    # Dask made unimportable, as where the extra is not installed
    code = (
        "import sys; sys.modules['dask'] = None; sys.modules['distributed'] = None;"
        "import importlib.util as u; real = u.find_spec;"
        "u.find_spec = lambda n, *a: None if n in ('dask', 'distributed') else real(n, *a);"
        "from grader.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    env = dict(os.environ, GRADER_HOME=str(PROBE_HOME), NO_COLOR="1")
    args = ["batch", str(submissions), "--out", str(tmp_path / "out"), "--cluster", "local:2"]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "Error: --cluster needs Dask: install torch-grader[cluster] "
        '(pip install "torch-grader[cluster]")'
    ]
    # and without --cluster the same interpreter grades as ever
    proc = subprocess.run(
        [sys.executable, "-c", code, *args[:-2], "--jobs", "1"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr


@pytest.mark.slow  # grades a batch in fresh interpreters, or reaches for a Dask scheduler
def test_a_bad_cluster_address_is_a_usage_error(tmp_path):
    submissions = make_class(tmp_path / "class", STUDENTS[:1])
    for address in ("local:0", "nowhere", "local:two"):  # refused before any work: in-process
        out = str(tmp_path / "out")
        proc = cli_here(
            "batch", str(submissions), "--out", out, "--cluster", address, home=PROBE_HOME
        )
        assert proc.returncode == 2, proc.stderr
        assert "not a Dask scheduler address or local:N" in proc.stderr
    proc = run_cli(
        "batch",
        str(submissions),
        "--out",
        str(tmp_path / "out"),
        "--cluster",
        "tcp://127.0.0.1:9",
        home=PROBE_HOME,
        env_extra={"DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"},
    )
    assert proc.returncode == 2, proc.stderr
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in proc.stderr


def test_protocol_lines_are_parsed_strictly():
    request = GradeRequest("exercise-90", b"x = 1\n", "ann/exercise-90.py", devices=("cpu",))
    jobs, refused, reports = parse_grade(
        encode(
            {
                "type": "grade",
                "reports": True,
                "jobs": [
                    job_wire("0", request),
                    {"key": "1", "request": {**request.to_wire(), "source": "@@"}, "prior": None},
                ],
            }
        )
    )
    assert [j.key for j in jobs] == ["0"] and jobs[0].request == request and reports
    assert [(r.key, "base64" in r.message) for r in refused] == [("1", True)]
    for broken in (
        b"not json\n",
        b'{"type": "grade", "reports": true}',
        b'{"type": "grade", "reports": 1, "jobs": []}',
        b'{"type": "grade", "reports": true, "jobs": [], "jobs": []}',
        encode({"type": "grade", "reports": True, "jobs": [job_wire("0", request)] * 2}),
        encode({"type": "result", "key": "0"}),
    ):
        with pytest.raises(ProtocolError):
            parse_grade(broken)
    # out of the slot: a result must load as a Result; the error names its job when it can
    with pytest.raises(ProtocolError) as caught:
        parse_message(encode({"type": "result", "key": "7", "result": {"x": 1}, "report": None}))
    assert caught.value.key == "7"
    with pytest.raises(ProtocolError) as caught:
        parse_message(b"\xff\xfe garbage")
    assert caught.value.key is None
    with pytest.raises(ProtocolError):
        parse_message(encode({"type": "done", "count": -1}))
    with pytest.raises(ProtocolError):
        parse_message(encode({"type": "hello", "protocol": 2}))
    assert parse_message(encode({"type": "done", "count": 3})).count == 3  # type: ignore[union-attr]


# A stand-in grading process that says hello and then answers every chunk as told by
# FAKE_MODE: it breaks the protocol in one way each time.
FAKE_SLOT = r"""
import base64, json, os, sys
mode = os.environ["FAKE_MODE"]
out = sys.stdout
def send(obj):
    out.write(obj if isinstance(obj, str) else json.dumps(obj) + "\n"); out.flush()
send({"type": "hello", "protocol": 1, "pid": os.getpid(), "gpus": 0, "fingerprint": {},
      "isolation": "namespaces", "hidden": []})
result = json.loads(os.environ["FAKE_RESULT"])
for line in sys.stdin:
    chunk = json.loads(line)
    keys = [j["key"] for j in chunk["jobs"]]
    names = {j["key"]: j["request"]["filename"] for j in chunk["jobs"]}
    def good(k):
        return {"type": "result", "key": k, "result": dict(result, submission=names.get(k, "?")),
                "report": "<html>"}
    if mode == "bad-result":
        send(good(keys[0])); send({"type": "result", "key": keys[1], "result": {"score": 1},
                                   "report": None}); send(good(keys[2]))
        send({"type": "done", "count": 3})
    elif mode == "garbage":
        send(good(keys[0])); send("this is not a protocol line\n")
    elif mode == "unknown-key":
        send(good("999"))
    elif mode == "dies":
        send(good(keys[0])); os._exit(9)
    elif mode == "other-result":
        for k in keys:
            send(dict(good(k), result=dict(result, submission="someone/else.py")))
        send({"type": "done", "count": len(keys)})
"""


@pytest.fixture(scope="module")
def a_result() -> dict:
    from tests.conftest import bare_result

    return bare_result(submission="x").to_dict()


@pytest.mark.parametrize(
    "mode, expected",
    [
        ("bad-result", ["ok", "malformed result", "ok"]),
        ("garbage", ["ok", "malformed line", "malformed line"]),
        ("unknown-key", ["not given"] * 3),
        ("other-result", ["another's result"] * 3),
    ],
)
def test_a_grading_process_that_breaks_the_protocol_costs_only_its_jobs(mode, expected, a_result):
    env = dict(os.environ, FAKE_MODE=mode, FAKE_RESULT=json.dumps(a_result))
    slot = SlotProcess([sys.executable, "-c", FAKE_SLOT], env, hello_timeout_s=30)
    try:
        jobs = [
            job_wire(str(n), GradeRequest("exercise-90", b"", f"s{n}/exercise-90.py"))
            for n in range(3)
        ]
        answers = slot.grade(jobs, True, timeout_s=30)
        assert [a["key"] for a in answers] == ["0", "1", "2"]
        for answer, what in zip(answers, expected, strict=True):
            if what == "ok":
                assert answer["error"] is None and answer["report"] == "<html>"
            else:
                assert answer["result"] is None and what in answer["error"], answer
    finally:
        slot.close()


def test_a_grading_process_that_dies_mid_chunk_is_lost_and_restarted(a_result):
    env = dict(os.environ, FAKE_MODE="dies", FAKE_RESULT=json.dumps(a_result))
    slot = SlotProcess([sys.executable, "-c", FAKE_SLOT], env, hello_timeout_s=30)
    try:
        jobs = [job_wire("0", GradeRequest("exercise-90", b"", "s/exercise-90.py"))] * 1
        with pytest.raises(SlotLost, match="exited with code 9"):
            slot.grade(jobs + [job_wire("1", GradeRequest("exercise-90", b"", "t/e.py"))], True, 30)
        assert slot.pid is None
        with pytest.raises(SlotLost):  # started again for the next chunk (which it loses too)
            slot.grade(jobs + [job_wire("1", GradeRequest("exercise-90", b"", "t/e.py"))], True, 30)
        assert slot.starts == 2
    finally:
        slot.close()


def _tree(pid: int) -> set[int]:
    """``pid`` and every live descendant of it."""
    parents = {p: _parent(p) for p in _processes()}
    found, frontier = {pid}, {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found & set(parents)


@pytest.mark.slow
def test_a_grading_process_leaves_when_its_stdin_closes_even_mid_chunk():
    """No parent-death signal: when the worker is gone (its end of the pipe closes), the slot,
    its fork server and its learner children end, also in the middle of a chunk."""
    env = slot_env(dict(os.environ, GRADER_HOME=str(PROBE_HOME)), gpu=False)
    slot = SlotProcess(slot_command(["exercise-90"]), env)
    try:
        hello = slot.hello()
        assert hello.isolation.startswith("namespaces") and hello.gpus == 0
        source = (SUBMISSIONS / "infinite_loop_function.py").read_bytes()
        jobs = [
            job_wire(str(n), GradeRequest("exercise-90", source, f"s{n}/exercise-90.py"))
            for n in range(6)  # each one runs into its deadlines: several seconds a chunk
        ]
        proc = slot._proc
        assert proc is not None and proc.stdin is not None
        proc.stdin.write(grade_line(jobs, True))
        proc.stdin.flush()
        # the slot, its fork server, the trusted worker and a learner child: mid-chunk
        wait_until(
            lambda: len(_tree(proc.pid)) >= 4, lambda: f"only {_tree(proc.pid)}", on=[processes()]
        )
        family = _tree(proc.pid)
        proc.stdin.close()
        proc.wait(timeout=60)  # a bound against a hang, not a measurement
        # it left mid-chunk: the chunk was never completed (no "done", not every job answered)
        answered = []
        while (line := slot._lines.readline(time.monotonic() + 60)) is not None:
            answered.append(json.loads(line)["type"])
        assert "done" not in answered and len(answered) < len(jobs), answered
        wait_ended(family)
    finally:
        slot.close()


def test_the_fingerprint_says_which_part_differs():
    ours = {
        "grader": "0.1.0",
        "code": "a",
        "python": "3.11.7",
        "torch": "2.13.0",
        "exercises": {"exercise-01": "x", "exercise-05": "y"},
        "isolation": "namespaces",
    }
    assert refusal("tcp://w:1", ours, dict(ours)) == ""
    theirs = dict(ours, torch="2.12.1", code="b", exercises={"exercise-01": "z"})
    assert differences(ours, theirs) == [
        "torch 2.12.1 there, 2.13.0 here",
        "the grader's code (same version, different files)",
        "exercise-01's files (spec, hidden tests or reference)",
        "exercise-05 is missing there",
    ]
    why = refusal("tcp://w:1", ours, dict(ours, isolation="process"), "process (separate ...)")
    assert why.startswith("worker tcp://w:1 refused: it grades in the isolation tier 'process")
    assert "needs 'namespaces'" in why


def test_the_grading_process_gets_a_cleaned_environment():
    nanny = {
        "PATH": "/usr/bin",
        "HOME": "/home/ta",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "GRADER_HOME": "/course",
        "MALLOC_TRIM_THRESHOLD_": "65536",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "DASK_DISTRIBUTED__COMM__TLS__WORKER__KEY": "/secrets/worker.key",
        "AWS_SECRET_ACCESS_KEY": "secret",
        "CUDA_VISIBLE_DEVICES": "3",
    }
    gpu = slot_env(nanny, gpu=True)
    assert gpu == {
        "PATH": "/usr/bin",
        "HOME": "/home/ta",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "GRADER_HOME": "/course",
        "CUDA_VISIBLE_DEVICES": "3",
    }
    assert slot_env(nanny, gpu=False)["CUDA_VISIBLE_DEVICES"] == ""  # no GPU at all


QUIET_CHECK = """
import json
from distributed import Client
from grader.cluster.engine import ClusterEngine

def timers(server):  # the periods of a Dask server's timers, in seconds
    callbacks = server.periodic_callbacks
    return {
        name: callbacks[name].callback_time / 1000
        for name in ("tick", "monitor", "memory_monitor", "stealing")
        if name in callbacks
    }

def on_scheduler(dask_scheduler):
    return {**timers(dask_scheduler), "stealing": "stealing" in dask_scheduler.extensions}

def on_worker(dask_worker):
    return timers(dask_worker)

if __name__ == "__main__":
    cluster = ClusterEngine("local:1")._local_cluster(1, 0)
    with cluster, Client(cluster) as client:
        nanny = next(iter(cluster.workers.values()))
        seen = {
            "scheduler": client.run_on_scheduler(on_scheduler),
            "worker": next(iter(client.run(on_worker).values())),
            "nanny": timers(nanny),
        }
    print(json.dumps(seen))
"""


@pytest.mark.slow  # starts a local cluster
def test_a_local_cluster_keeps_its_timers_quiet_on_the_cores_it_grades_on():
    """Dask's timers cost CPU on the cores a local:N cluster grades on, work or not (8% of a
    core for an idle local:2 on 2 cores): its scheduler, nannies and workers run with fewer
    of them."""
    proc = subprocess.run(
        [sys.executable, "-c", QUIET_CHECK], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    # (Dask's defaults: a tick every 0.02 s, the monitor every 0.5 s, the memory watch every
    # 0.1 s, stealing on)
    assert seen["scheduler"] == {"tick": 1.0, "monitor": 5.0, "stealing": False}
    assert seen["worker"] == {"tick": 1.0, "monitor": 5.0, "memory_monitor": 1.0}
    assert seen["nanny"] == {"tick": 1.0, "monitor": 5.0, "memory_monitor": 1.0}


def test_the_workers_own_files_are_hidden_where_children_could_read_them(tmp_path):
    runtime = tmp_path / "venv"
    (runtime / "etc" / "dask").mkdir(parents=True)  # sys.prefix/etc/dask: a Dask config folder
    (runtime / "certs").mkdir()
    (runtime / "certs" / "worker.pem").write_text("")
    outside = tmp_path / "home" / ".config" / "dask"
    outside.mkdir(parents=True)
    private = [
        str(runtime / "etc" / "dask"),
        str(runtime / "certs" / "worker.pem"),
        str(outside),  # not readable by children at all: nothing to hide
        str(tmp_path / "absent"),
    ]
    assert to_hide(private, [str(runtime), "/usr"]) == [
        str((runtime / "etc" / "dask").resolve()),
        str((runtime / "certs").resolve()),
    ]


def test_chunks_hold_8_to_32_submissions():
    from grader.cluster.plan import chunk_size

    assert chunk_size(20, 2) == 8
    assert chunk_size(200_000, 3200) == 16
    assert chunk_size(200_000, 100) == 32
    assert outcome("1", error="x") == {"key": "1", "result": None, "report": None, "error": "x"}


class _Chunks:
    """A stand-in for the Dask client and the ended chunks (``Finished``) of one run: every
    chunk submitted is noted, and the run's loop is handed them back one at a time, oldest
    first, as if each then ended; every event is kept in order. Workers with ``joining``
    slots join the cluster once the first chunk has ended. ``on_wait(n)`` runs as the loop
    waits for the n-th time."""

    def __init__(self, slots: int, joining: int = 0, on_wait=None) -> None:
        self.slots = slots
        self.joining = joining
        self.on_wait = on_wait
        self.events: list[tuple[str, str]] = []
        self.waiting: list[object] = []
        self.waits = 0
        self.cancelled: list[object] = []

    def nthreads(self) -> dict[str, int]:
        return {f"w{n}": 1 for n in range(self.slots)}

    def cancel(self, futures) -> None:
        self.cancelled += futures

    def submit(self, fn, *args, key: str, **kwargs):
        events = self.events

        class Future:
            def result(self):
                events.append(("read", key))
                return {"refused": "", "placements": [], "outcomes": []}

            def release(self):
                pass

        future = Future()
        events.append(("submit", key))
        return future

    def finished(self):
        chunks = self

        class Finished:
            def add(self, future):
                chunks.waiting.append(future)

            def next(self, timeout):
                chunks.waits += 1
                if chunks.waits > 1:
                    chunks.slots, chunks.joining = chunks.slots + chunks.joining, 0
                if chunks.on_wait is not None:
                    chunks.on_wait(chunks.waits)
                future = chunks.waiting.pop(0)
                chunks.events.append(("ended", ""))
                return future

        return Finished()


@contextmanager
def _on(fake: _Chunks, gradings: int, gpus: int = 0):
    """A ClusterEngine whose cluster is ``fake``, and ``gradings`` requests for it."""
    import grader.cluster.engine as cluster_engine

    engine = cluster_engine.ClusterEngine("local:2", chunk=1)
    engine.client = fake
    engine._gpus = gpus
    source = (ROOT / "solutions" / "exercise-01" / "exercise-01.py").read_bytes()
    requests = [
        GradeRequest("exercise-01", source, f"s{n}/exercise-01.py", devices=("cpu",))
        for n in range(gradings)
    ]
    original, cluster_engine.Finished = cluster_engine.Finished, fake.finished
    try:
        yield engine, requests
    finally:
        cluster_engine.Finished = original


@pytest.mark.parametrize("gpus, window", [(0, 2), (1, 8)])
def test_no_more_chunks_are_in_flight_than_slots(gpus, window):
    """A chunk handed to Dask beyond the free slots waits on some worker's own queue, behind
    whatever that worker runs (a classmate's endless loop), even once every other slot is
    idle: without GPUs, one chunk per slot is in flight, and a slot that frees gets the next
    chunk before the last one's answer is read. With GPUs, a chunk's CUDA pass leaves its CPU
    slot free, and more are in flight."""
    fake = _Chunks(slots=2)
    with _on(fake, 12, gpus) as (engine, requests):
        results = engine.grade_many(requests)
    assert len(results) == 12  # each chunk answered for none of its gradings: a fault each
    in_flight, most = 0, 0
    for what, _ in fake.events:
        in_flight += {"submit": 1, "ended": -1}.get(what, 0)
        most = max(most, in_flight)
    assert most == window
    if not gpus:
        # after the first `window` submits, each chunk's end is followed by the next submit,
        # and only then by the ended chunk's answer being read
        rest = [what for what, _ in fake.events[window:]]
        refills = ["ended", "submit", "read"] * (12 - window) + ["ended", "read"] * window
        assert rest == refills


def test_slots_that_join_mid_run_get_chunks():
    """A cluster that scales up (dask-jobqueue starts its nodes one by one) gains slots after
    the run began: the chunks in flight follow the slots there at each refill."""
    fake = _Chunks(slots=1, joining=2)
    with _on(fake, 8) as (engine, requests):
        engine.grade_many(requests)
    in_flight, seen = 0, []
    for what, _ in fake.events:
        in_flight += {"submit": 1, "ended": -1}.get(what, 0)
        seen.append(in_flight)
    assert seen[0] == 1 and max(seen) == 3  # one slot at first, three once two more joined


@settings(max_examples=25, deadline=None)
@given(
    gradings=st.integers(1, 10),
    slots=st.integers(1, 3),
    at=st.integers(1, 10),
)
def test_a_ctrl_c_a_finaliser_swallows_stops_the_run(gradings, slots, at):
    """A Ctrl-C that lands in one of Dask's finalisers (its client's gc callback) is dropped
    by Python: the run's loop still stops at once, sends nothing more, and cancels what is in
    flight (a driver once graded on to the end of the class)."""
    at = min(at, gradings)
    fake = _Chunks(slots=slots, on_wait=lambda n: n == at and ctrl_c_in_a_finaliser())
    seen: list[int] = []
    with _on(fake, gradings) as (engine, requests), pytest.raises(KeyboardInterrupt):
        engine.grade_many(requests, on_result=lambda i, r, h: seen.append(i))
    ended = [n for n, (what, _) in enumerate(fake.events) if what == "ended"]
    assert len(ended) == at and fake.events[ended[-1] + 1 :] == []  # nothing after it
    submitted = sum(1 for what, _ in fake.events if what == "submit")
    read = sum(1 for what, _ in fake.events if what == "read")
    assert read == at - 1 and len(seen) == read  # the answers read before the Ctrl-C stand
    assert len(fake.cancelled) == submitted - read  # every other chunk is cancelled


# -- a class on a cluster (slow) ------------------------------------------------------------

GRADINGS = sum(1 + (2 if real is not None else 0) for _, _, real in STUDENTS)  # 20


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """The course, the class, and its gradebook from one machine (`--jobs 2`)."""
    base = tmp_path_factory.mktemp("cluster")
    home = make_home(base / "home")
    submissions = make_class(base / "class")
    reference = base / "reference"
    proc = batch(submissions, reference, home, "--jobs", "2")
    assert proc.returncode == 1, proc.stderr  # some tests fail (wrong, starters, ...)
    assert f"{GRADINGS} graded now" in proc.stdout
    return home, submissions, reference


def same_as_one_machine(out: Path, reference: Path) -> None:
    assert gradebook(out) == gradebook(reference)
    assert stable_results(out) == stable_results(reference)
    # the same cache keys: a cluster run and a one-machine run share the cache
    assert keys(out) == keys(reference)
    reports = sorted(out.glob("students/*/exercise-*.html"))
    assert len(reports) == GRADINGS


def wait_for_keys(out: Path, count: int, proc: subprocess.Popen) -> int:
    """Until the run has stored ``count`` keys: looked at whenever something under ``out``
    changes; the run ending first is a failure."""
    found = 0

    def stored() -> bool:
        nonlocal found
        found = len(list(out.glob("students/*/*.key"))) if out.exists() else 0
        assert found >= count or proc.poll() is None, "the run ended before it got that far"
        return found >= count

    wait_until(stored, lambda: "the run did not get that far", on=[out, Ended(proc.pid)])
    return found


def driver(
    submissions: Path, out: Path, home: Path, cluster: str, dropping: bool = False
) -> subprocess.Popen:
    """``grade batch --cluster``; with ``dropping``, a SIGUSR1 is a Ctrl-C that Python drops
    (``DROPPING_DRIVER``)."""
    env = dict(os.environ, GRADER_HOME=str(home), NO_COLOR="1", GRADE_LANG="en")
    return subprocess.Popen(
        [
            sys.executable,
            *(["-c", DROPPING_DRIVER] if dropping else ["-m", "grader"]),
            "batch",
            str(submissions),
            "--out",
            str(out),
            "--cluster",
            cluster,
        ],
        env=env,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a process group of its own, as a terminal gives a command
    )


@pytest.mark.slow
def test_the_gradebook_on_a_cluster_is_the_one_of_one_machine(course, tmp_path):
    home, submissions, reference = course
    before = set(_processes())
    out = tmp_path / "out"
    proc = batch(submissions, out, home, "--cluster", "local:2")
    assert proc.returncode == 1, proc.stderr
    assert f"{GRADINGS} graded now, 0 from the cache" in proc.stdout
    same_as_one_machine(out, reference)
    # the scheduler, the workers, their nannies, the grading processes, their fork servers and
    # learner children: all gone with the run
    assert wait_for_no_cluster_processes(before) == []
    proc = batch(submissions, out, home, "--jobs", "2")  # one machine reuses what it graded
    assert f"0 graded now, {GRADINGS} from the cache" in proc.stdout


@pytest.mark.slow
def test_a_worker_killed_mid_run_costs_nothing(course, tmp_path):
    home, submissions, reference = course
    env = {"GRADER_HOME": str(home)}
    with dask_cluster(tmp_path, {"w1": (env, ()), "w2": (env, ())}) as cluster:
        out = tmp_path / "out"
        proc = driver(submissions, out, home, cluster.address)
        wait_for_keys(out, 1, proc)  # mid-run: the first chunk is stored, the others run
        victim = cluster.worker_process("w1")
        slots = [p for p, cmd in _processes().items() if b"grader.cluster.slot" in cmd]
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=240)
        assert proc.returncode == 1, stderr  # not 3: no grading was lost to the kill
        assert f"{GRADINGS} graded now" in stdout
        same_as_one_machine(out, reference)
        # the killed worker's grading processes saw their stdin close and left
        assert [p for p in slots if p in _processes() and _parent(p) == 1] == []
    # (dask_cluster checks that nothing at all is left)


def _parent(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return 0


@pytest.mark.slow
@pytest.mark.parametrize("dropped", [False, True], ids=["ctrl-c", "ctrl-c-python-drops"])
def test_an_interrupted_driver_resumes_from_the_cache(course, tmp_path, dropped):
    """Also when the Ctrl-C lands in a gc callback (Dask's client has one), where Python
    drops its KeyboardInterrupt: a driver once graded on to the end (grader.interrupts)."""
    home, submissions, reference = course
    before = set(_processes())
    out = tmp_path / "out"
    proc = driver(submissions, out, home, "local:2", dropping=dropped)
    wait_for_keys(out, 1, proc)
    if dropped:
        proc.send_signal(signal.SIGUSR1)  # the driver alone
    else:
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C: the driver and its local workers get it
    _, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "run the same command again to resume" in stderr
    assert "Traceback" not in stderr  # the workers leave it to the driver
    assert "Exception ignored" not in stderr
    assert wait_for_no_cluster_processes(before) == []
    kept = len(list(out.glob("students/*/*.key")))
    assert 0 < kept < GRADINGS
    proc = batch(submissions, out, home, "--cluster", "local:2")
    assert f"{GRADINGS - kept} graded now, {kept} from the cache" in proc.stdout, proc.stderr
    same_as_one_machine(out, reference)


@pytest.mark.slow
def test_a_worker_that_differs_is_refused(course, tmp_path):
    home, submissions, _ = course
    changed = tmp_path / "changed-home"
    shutil.copytree(home, changed)
    tests = changed / "exercises" / "exercise-90" / "tests.py"
    tests.write_text(tests.read_text() + "\n# another version of the hidden tests\n")
    workers = {
        "good": ({"GRADER_HOME": str(home)}, ()),
        # other hidden tests, and learner code in the process tier
        "bad": ({"GRADER_HOME": str(changed), "GRADER_ISOLATION": "process"}, ()),
    }
    out = tmp_path / "out"
    with dask_cluster(tmp_path, workers) as cluster:
        proc = batch(submissions, out, home, "--cluster", cluster.address)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    # what was found comes first; the refusal is one error and its hint, and nothing after it
    error, hint = lines[-2:]
    assert not any(line.startswith("Error:") for line in lines[:-2]), lines
    assert error.startswith("Error: worker bad (tcp://127.0.0.1:"), error
    reasons = error.split(" refused: ", 1)[1].split("; ")
    assert reasons[0] == "exercise-90's files (spec, hidden tests or reference)"
    assert reasons[1].startswith("it grades in the isolation tier 'process (separate process")
    assert reasons[1].endswith("and cluster mode needs 'namespaces'")
    assert "good" not in error
    assert "docs/CLUSTER.md" in hint
    assert not list(out.glob("students/*/*.json"))  # nothing was graded


SNOOP = """
import os, socket

def _look():
    seen = []
    try:
        socket.create_connection(("127.0.0.1", {port}), timeout=2).close()
        seen.append("scheduler: reached")
    except OSError as exc:
        seen.append("scheduler: " + type(exc).__name__)
    for name, path in {paths!r}.items():
        seen.append(name + ": " + str(os.path.exists(path)))
    seen.append("pids: " + ",".join(sorted(p for p in os.listdir("/proc") if p.isdigit())))
    seen.append("env: " + ",".join(sorted(os.environ)))
    return seen

def double(x):
    print("\\n".join(_look()))
    return x * 2

def triple(x):
    return x * 3
"""

ENGINE_SCRIPT = """
import json, sys
from pathlib import Path
from grader.cluster.engine import ClusterEngine
from grader.engine.api import GradeRequest
files = sys.argv[2:]
requests = [GradeRequest("exercise-90", Path(f).read_bytes(), f"s{n}/exercise-90.py")
            for n, f in enumerate(files)]
with ClusterEngine(sys.argv[1], chunk=2, reports=True) as engine:
    results = engine.grade_many(requests)
print(json.dumps({"gpus": engine.gpus, "workers": engine.workers,
                  "placements": engine.placements, "results": [r.to_dict() for r in results]}))
"""


@pytest.mark.slow
def test_cuda_passes_go_only_to_gpu_workers_and_learners_reach_nothing(tmp_path):
    """A worker with a (fake, on this CPU machine) GPU resource gets every CUDA pass; every
    submission is graded in two passes, merged on the GPU worker. A learner's code sees
    nothing of the cluster: not the scheduler, not the worker's files (its local directory
    is put inside the checkout, which children may read, so it must be hidden), not the
    grading processes."""
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    local = Path(tempfile.mkdtemp(prefix="cluster-local-", dir=ROOT / "test-artifacts"))
    env = {"GRADER_HOME": str(PROBE_HOME)}
    try:
        with dask_cluster(
            tmp_path,
            {
                "cpu": (env, ("--local-directory", str(local / "cpu"))),
                "gpu": (env, ("--resources", "GPU=1", "--local-directory", str(local / "gpu"))),
            },
        ) as cluster:
            port = int(cluster.address.rsplit(":", 1)[1])
            (local / "cpu").mkdir(exist_ok=True)
            secret = local / "cpu" / "secret.txt"
            secret.write_text("the worker's own file")
            paths = {"worker files": str(secret), "scheduler file": str(cluster.file)}
            snoop = tmp_path / "snoop.py"
            snoop.write_text(SNOOP.format(port=port, paths=paths))
            files = [SUBMISSIONS / "correct.py", SUBMISSIONS / "wrong.py"] * 2 + [snoop]
            proc = subprocess.run(
                [sys.executable, "-c", ENGINE_SCRIPT, cluster.address, *map(str, files)],
                capture_output=True,
                text=True,
                timeout=240,
                cwd=ROOT,
                env=dict(os.environ, GRADER_HOME=str(PROBE_HOME)),
            )
            assert proc.returncode == 0, proc.stderr
            run = json.loads(proc.stdout.strip().splitlines()[-1])
    finally:
        shutil.rmtree(local, ignore_errors=True)
    assert run["gpus"] == 1
    names = {address: w["name"] for address, w in run["workers"].items()}
    assert sorted(names.values()) == ["cpu", "gpu"]
    passes = [(label, names[worker]) for label, worker in run["placements"]]
    assert sorted(passes).count(("cuda", "gpu")) == 3  # 5 submissions, chunks of 2
    assert {label for label, _ in passes} == {"cpu", "cuda"}
    assert all(name == "gpu" for label, name in passes if label == "cuda")
    results = run["results"]
    assert [r["devices"] for r in results] == [["cpu", "cuda"]] * 5
    correct, wrong = results[0], results[1]
    assert correct["score"] == correct["max_score"] > wrong["score"]
    cuda = [t for r in results for t in r["tests"] if t["device"] == "cuda"]
    from grader.engine.local import count_gpus

    if count_gpus():  # scripts/gpu-check.sh: the CUDA passes ran, on the GPU worker
        assert [t["status"] for t in correct["tests"] if t["device"] == "cuda"] == ["passed"] * 2
    else:  # no CUDA here: skipped, with the reason
        assert cuda and all(t["status"] == "skipped" for t in cuda)
    seen = results[4]["tests"][0]["output"]
    assert "scheduler: reached" not in seen and "scheduler: " in seen
    assert "worker files: False" in seen and "scheduler file: False" in seen
    assert "pids: 1\n" in seen + "\n"  # its own PID namespace: no grader, no worker
    env_line = next(line for line in seen.splitlines() if line.startswith("env: "))
    # the sandbox's own scrubbed environment (it sets OMP_NUM_THREADS=1 itself), nothing of
    # the worker's or Dask's
    names = env_line.removeprefix("env: ").split(",")
    assert not [n for n in names if n.startswith(("DASK", "GRADER", "MALLOC", "DISTRIBUTED"))]
