"""The warm grading server's life, through the `grade` command as a learner runs it: started by
the first grading, reused, gone when idle or out of date, replaced when stale, refused to other
users, interrupted by Ctrl-C, and never a different result from grading without it.

Every test has a runtime folder of its own (XDG_RUNTIME_DIR) and stops its server at the end;
most grade the engine probe (exercise-90: short limits, nothing to warm up).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from grader.serve import protocol
from grader.serve.runtime import server_key
from tests.conftest import (
    PROBE_HOME,
    ROOT,
    SUBMISSIONS,
    cli_here,
    descendants,
    run_cli,
    stable,
    wait_ended,
    watching,
)
from tests.events import processes, wait_until

CORRECT = SUBMISSIONS / "correct.py"


class Learner:
    """The environment of one learner with the server on."""

    def __init__(
        self,
        tmp_path: Path,
        home: Path | None = PROBE_HOME,
        idle: float = 120,
        runtime: Path | None = None,
    ) -> None:
        self.runtime = runtime or tmp_path / "rt"
        self.runtime.mkdir(mode=0o700, exist_ok=True)
        self.home = home
        self.env = {
            "GRADE_NO_SERVER": "",
            "XDG_RUNTIME_DIR": str(self.runtime),
            "GRADE_SERVER_IDLE": str(idle),
        }
        self.folder = self.runtime / "torch-grader"
        self.key = server_key(home or ROOT)

    @property
    def socket(self) -> Path:
        return self.folder / f"{self.key}.sock"

    @property
    def log_path(self) -> Path:
        return self.folder / f"{self.key}.log"

    @property
    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8")
        except OSError:
            return ""

    def grade(self, *args: str, timeout: float = 180) -> subprocess.CompletedProcess:
        return run_cli(*args, home=self.home, env_extra=self.env, timeout=timeout)

    def status(self) -> dict[str, str]:
        # asks the server over its socket and grades nothing: in this process
        proc = cli_here("server", "status", home=self.home, env_extra=self.env)
        if proc.returncode != 0:
            return {}
        pid = proc.stdout.split("(pid ", 1)[1].split(",", 1)[0]
        served = proc.stdout.split("gradings served: ", 1)[1].split(".", 1)[0]
        return {"pid": pid, "served": served}

    def stop(self) -> None:
        cli_here("server", "stop", home=self.home, env_extra=self.env)


@pytest.fixture
def learner(tmp_path):
    who = Learner(tmp_path)
    yield who
    who.stop()


def alive(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").exists() and " Z " not in Path(f"/proc/{pid}/stat").read_text()


def test_the_first_grading_starts_a_server_and_the_next_ones_use_it(learner, tmp_path):
    first = learner.grade("90", "--file", str(CORRECT), "--json", str(tmp_path / "a.json"))
    assert first.returncode == 0, first.stderr
    assert first.stderr == ""  # no server yet is nothing to mention
    running = learner.status()
    assert running and running["served"] == "0"  # the first was graded in its own process
    assert oct(learner.socket.stat().st_mode & 0o777) == "0o600"
    second = learner.grade("90", "--file", str(CORRECT), "--json", str(tmp_path / "b.json"))
    assert second.returncode == 0 and second.stderr == ""
    assert learner.status() == {"pid": running["pid"], "served": "1"}
    a, b = (json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json"))
    assert stable_dict(a) == stable_dict(b)
    assert first.stdout.replace("a.json", "b.json") == second.stdout
    assert "exercise-90: grading" in learner.log


def stable_dict(data: dict) -> dict:
    from grader.results import Result

    return stable(Result.from_dict(data))


def test_no_server_options_keep_the_grading_here(learner):
    assert learner.grade("90", "--file", str(CORRECT), "--no-server").returncode == 0
    assert not learner.socket.exists()
    env = dict(learner.env, GRADE_NO_SERVER="1")
    proc = run_cli("90", "--file", str(CORRECT), home=PROBE_HOME, env_extra=env)
    assert proc.returncode == 0 and not learner.socket.exists()
    assert learner.grade("server", "status").returncode == 1


def test_server_stop_ends_the_server_and_says_so(learner):
    assert learner.grade("server", "start").returncode == 0
    pid = learner.status()["pid"]
    stop = learner.grade("server", "stop")
    assert stop.returncode == 0 and stop.stdout == "The grading server stopped.\n"
    wait_ended([int(pid)])
    assert not alive(pid) and not learner.socket.exists()
    again = learner.grade("server", "stop")
    assert again.returncode == 0 and again.stdout == "No grading server is running.\n"
    status = learner.grade("server", "status")
    assert status.returncode == 1 and status.stdout.startswith("No grading server is running")


def test_a_server_started_without_a_setting_waits_15_minutes(tmp_path):
    who = Learner(tmp_path)
    who.env.pop("GRADE_SERVER_IDLE")
    try:
        assert who.grade("server", "start").returncode == 0
        status = who.grade("server", "status")
        assert "it exits after 15 min idle" in status.stdout, status.stdout
    finally:
        who.stop()


@pytest.mark.slow  # grades a batch and runs `grade validate`
def test_batch_and_validate_grade_in_their_own_process(learner, tmp_path):
    # neither uses the learner's server, nor leaves one behind
    class_folder = tmp_path / "class"
    (class_folder / "alice").mkdir(parents=True)
    shutil.copyfile(CORRECT, class_folder / "alice" / "exercise-90.py")
    batch = learner.grade("batch", str(class_folder), "--out", str(tmp_path / "out"))
    assert batch.returncode == 0, batch.stderr
    validate = learner.grade("validate", "90")  # the probe has no mutant: validate says so
    assert validate.returncode == 1 and "1 exercises, " in validate.stdout, validate.stdout
    assert not learner.socket.exists()
    assert learner.grade("server", "start").returncode == 0
    assert (
        learner.grade("batch", str(class_folder), "--out", str(tmp_path / "again")).returncode == 0
    )
    assert learner.grade("validate", "90").returncode == 1
    assert learner.status()["served"] == "0"
    assert "grading" not in learner.log.replace("grading server", "")


@pytest.mark.slow  # waits for the server's idle time limit
def test_an_idle_server_exits(tmp_path):
    who = Learner(tmp_path, idle=1.5)
    try:
        assert who.grade("server", "start").returncode == 0
        pid = who.status()["pid"]
        wait_ended([int(pid)])  # it exits by itself once idle for 1.5 s
        assert not alive(pid) and not who.socket.exists(), who.log
        assert "idle for 1.5 s: exiting" in who.log
        assert who.grade("server", "status").returncode == 1
    finally:
        who.stop()


@pytest.mark.slow  # starts two servers (the fast tier keeps one start and one reuse)
def test_a_changed_exercise_retires_the_server_and_the_next_call_starts_a_new_one(tmp_path):
    home = tmp_path / "home"
    shutil.copytree(PROBE_HOME, home)
    who = Learner(tmp_path, home=home)
    try:
        assert who.grade("server", "start").returncode == 0
        old = who.status()["pid"]
        tests = home / "exercises" / "exercise-90" / "tests.py"
        tests.write_text(tests.read_text() + "\n# edited by the author\n")
        proc = who.grade("90", "--file", str(CORRECT))
        assert proc.returncode == 0 and proc.stderr == ""  # a restart is not a failure
        assert "score 4/4" in proc.stdout
        end = time.monotonic() + 30
        new = {}
        while time.monotonic() < end:
            new = who.status()
            if new and new["pid"] != old:
                break
            time.sleep(0.2)
        assert new and new["pid"] != old
        assert "changed" in who.log
    finally:
        who.stop()


def test_a_stale_socket_is_one_line_and_a_grading_here(learner):
    learner.folder.mkdir(mode=0o700)
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(str(learner.socket))
    dead.close()  # the socket file stays, with nobody behind it
    proc = learner.grade("90", "--file", str(CORRECT))
    assert proc.returncode == 0 and "score 4/4" in proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "stale socket" in lines[0] and "in this process" in lines[0]
    assert learner.status()  # the grading's process took the stale socket's place


def test_a_runtime_folder_others_can_open_is_not_used(learner):
    learner.folder.mkdir(mode=0o700)
    learner.folder.chmod(0o755)
    proc = learner.grade("90", "--file", str(CORRECT))
    assert proc.returncode == 0 and "score 4/4" in proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1 and "open to other users" in lines[0]
    assert not learner.socket.exists()
    status = learner.grade("server", "status")
    assert status.returncode == 2 and status.stderr.startswith("Error:")
    assert "Traceback" not in status.stderr


class FakeServer:
    """A socket at the server's place that answers as ``answer(conn)`` does."""

    def __init__(self, path: Path, answer) -> None:
        path.parent.mkdir(mode=0o700, exist_ok=True)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(4)
        self.answer = answer
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                try:
                    self.answer(conn)
                except OSError:
                    pass

    def close(self) -> None:
        self.sock.close()


def _read_request(conn: socket.socket) -> None:
    protocol.receive(conn, protocol.REQUESTS, deadline=time.monotonic() + 10)


def _wrong_protocol(conn):
    _read_request(conn)
    payload = json.dumps({"protocol": 99, "kind": "accepted", "body": {}}).encode()
    conn.sendall(len(payload).to_bytes(4, "big") + payload)


def _garbage(conn):
    _read_request(conn)
    conn.sendall(b"\0\0\0\x05hello")


def _dies_mid_grading(conn):
    _read_request(conn)
    protocol.send(conn, protocol.Accepted())


def _bad_result(conn):
    _read_request(conn)
    protocol.send(conn, protocol.Accepted())
    payload = json.dumps(
        {"protocol": 1, "kind": "result", "body": {"result": {"schema_version": 1}}}
    ).encode()
    conn.sendall(len(payload).to_bytes(4, "big") + payload)


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        # each grades here after the bad answer: the fast tier keeps one of them
        pytest.param(_wrong_protocol, "speaks protocol 99", marks=pytest.mark.slow),
        (_garbage, "not valid JSON"),
        pytest.param(
            _dies_mid_grading, "stopped in the middle of the grading", marks=pytest.mark.slow
        ),
        pytest.param(_bad_result, "malformed result", marks=pytest.mark.slow),
    ],
)
def test_a_server_that_answers_badly_is_one_line_and_a_grading_here(learner, answer, says):
    fake = FakeServer(learner.socket, answer)
    try:
        proc = learner.grade("90", "--file", str(CORRECT), "--no-report")
    finally:
        fake.close()
    assert proc.returncode == 0 and "score 4/4" in proc.stdout
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert says in lines[0] and "Traceback" not in proc.stderr


def test_the_server_answers_a_malformed_message_and_keeps_serving(learner):
    assert learner.grade("server", "start").returncode == 0
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(str(learner.socket))
        sock.sendall(b"\0\0\0\x04oops")
        reply = protocol.receive(sock, protocol.REPLIES, deadline=time.monotonic() + 30)
    assert isinstance(reply, protocol.ErrorReply) and reply.error == protocol.BAD_MESSAGE
    assert "not valid JSON" in reply.message
    assert learner.status()
    assert learner.grade("90", "--file", str(CORRECT)).returncode == 0
    assert learner.status()["served"] == "1"


REFUSE = """
import os, socket, sys, time
from grader.serve import protocol
os.setgroups([])
os.setgid(65534)
os.setuid(65534)  # from here on, another user
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.connect(sys.argv[1])
try:
    protocol.send(sock, protocol.StatusCall())
except BrokenPipeError:
    pass  # the server may refuse before reading anything: its answer is still there to read
try:
    reply = protocol.receive(sock, protocol.REPLIES, deadline=time.monotonic() + 30)
except protocol.ProtocolError as exc:
    print("no answer:", exc)
else:
    print(type(reply).__name__, getattr(reply, "error", ""), getattr(reply, "message", ""))
"""


@pytest.fixture
def shared_learner(tmp_path):
    """A learner whose runtime folder another user could reach (pytest's own temp folders are
    private to their owner): the other-user test opens it up on purpose."""
    runtime = Path(tempfile.mkdtemp(prefix="grader-rt-"))
    who = Learner(tmp_path, runtime=runtime)
    yield who
    runtime.chmod(0o700)
    who.folder.chmod(0o700)
    who.stop()
    shutil.rmtree(runtime, ignore_errors=True)


@pytest.mark.skipif(os.getuid() != 0, reason="needs root to run a client as another user")
def test_another_user_is_refused(shared_learner):
    learner = shared_learner
    assert learner.grade("server", "start").returncode == 0
    # open the way for the other user: only the peer check stands between them and the server
    learner.runtime.chmod(0o711)
    learner.folder.chmod(0o711)
    learner.socket.chmod(0o666)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", REFUSE, str(learner.socket)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
        )
    finally:
        learner.runtime.chmod(0o700)
        learner.folder.chmod(0o700)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[:2] == ["ErrorReply", "refused"], proc.stdout
    assert "another user" in proc.stdout
    assert "refused a connection from another user" in learner.log
    assert learner.status()["served"] == "0"


def test_the_server_refuses_a_peer_of_another_uid(monkeypatch, tmp_path):
    """The same check where no second uid is at hand: the server's answer to a peer whose uid
    is not its own."""
    from grader.serve import server as server_module
    from grader.serve.runtime import Place

    monkeypatch.setattr(server_module, "same_user", lambda sock: False)
    server = server_module.Server(Place(tmp_path, "s-test"), PROBE_HOME, 60)
    mine, theirs = socket.socketpair()
    with mine, theirs:
        protocol.send(theirs, protocol.StatusCall())
        assert server._handle(mine) is True
        reply = protocol.receive(theirs, protocol.REPLIES, deadline=time.monotonic() + 5)
    assert isinstance(reply, protocol.ErrorReply) and reply.error == protocol.REFUSED


SLOW = """\
import time


def double(x):
    time.sleep(60)


def triple(x):
    return x * 3
"""


def test_ctrl_c_stops_the_client_and_that_grading_and_the_server_keeps_serving(learner, tmp_path):
    assert learner.grade("server", "start").returncode == 0
    pid = learner.status()["pid"]
    slow = tmp_path / "slow.py"
    slow.write_text(SLOW)
    env = dict(os.environ, NO_COLOR="1", GRADER_HOME=str(PROBE_HOME), **learner.env)
    client = subprocess.Popen(
        [sys.executable, "-m", "grader", "90", "--file", str(slow), "--no-report"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_until(
        lambda: "exercise-90: grading" in learner.log, lambda: learner.log, on=[learner.log_path]
    )
    # the fork server, the worker and a learner child (asleep in double) are running
    wait_until(
        lambda: len(descendants(int(pid))) >= 3,
        lambda: str(descendants(int(pid))),
        on=[processes()],
    )
    client.send_signal(signal.SIGINT)
    out, err = client.communicate(timeout=30)
    assert client.returncode == 130, (out, err)
    assert err.strip() == "Interrupted."
    wait_until(lambda: "grading stopped" in learner.log, lambda: learner.log, on=[learner.log_path])
    assert "the client went away; grading stopped" in learner.log
    assert learner.status() == {"pid": pid, "served": "0"}
    # nothing of the stopped grading is left: the server's only child is its fork server
    wait_until(
        lambda: len(descendants(int(pid))) == 1,
        lambda: str(descendants(int(pid))),
        on=[processes()],
    )
    proc = learner.grade("90", "--file", str(CORRECT))
    assert proc.returncode == 0 and "score 4/4" in proc.stdout
    assert learner.status() == {"pid": pid, "served": "1"}


CASES = [
    ("1", ROOT / "solutions" / "exercise-01" / "exercise-01.py"),
    ("5", ROOT / "exercises" / "exercise-05" / "exercise-05.py"),
    ("14", ROOT / "exercises" / "exercise-14" / "mutants" / "no_zero_grad.py"),
    ("7", ROOT / "exercises" / "exercise-07" / "alternatives" / "cdist_exact.py"),
]


@pytest.mark.slow
def test_results_are_identical_with_and_without_the_server(tmp_path):
    who = Learner(tmp_path, home=None)
    try:
        assert who.grade("server", "start").returncode == 0
        for exercise, path in CASES:
            assert path.is_file(), path
            runs = {}
            for mode in ("server", "here"):
                out = tmp_path / f"{exercise}-{mode}.json"
                extra = ["--no-server"] if mode == "here" else []
                proc = who.grade(exercise, "--file", str(path), "--json", str(out), *extra)
                assert proc.stderr == "", proc.stderr
                runs[mode] = (
                    proc.returncode,
                    proc.stdout.replace(str(out), "OUT"),
                    stable_dict(json.loads(out.read_text())),
                )
            assert runs["server"] == runs["here"], exercise
        assert who.status()["served"] == str(len(CASES))
    finally:
        who.stop()


@pytest.mark.slow  # waits on a changed file and grades twice
def test_watch_starts_a_server_and_regrades_through_it(learner, tmp_path):
    submission = tmp_path / "exercise-90.py"
    shutil.copyfile(SUBMISSIONS / "infinite_loop_function.py", submission)
    env = dict(
        os.environ,
        NO_COLOR="1",
        GRADE_LANG="en",
        GRADER_HOME=str(PROBE_HOME),
        PYTHONUNBUFFERED="1",
        **learner.env,
    )
    with watching(
        *("90", "--file", str(submission), "--device", "cpu", "--no-report", "--interval", "0.2"),
        env=env,
        cwd=tmp_path,
    ) as (proc, out, err):
        wait_until(
            lambda: "exercise-90: timeout" in learner.log or "exercise-90: failed" in learner.log,
            lambda: learner.log,
            on=[learner.log_path],
        )
        shutil.copyfile(CORRECT, submission)
        # the server logs a grading before its answer reaches the command: wait for both
        wait_until(
            lambda: "exercise-90: passed" in learner.log and "score 4/4" in out.read_text(),
            lambda: learner.log + out.read_text(),
            on=[learner.log_path, out],
        )
    assert proc.returncode == 0, err.read_text()
    assert err.read_text() == ""
    assert learner.status()["served"] == "2"
