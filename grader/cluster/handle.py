"""The worker's side of one slot: start the warm grading process, read its hello, send it
chunks, read its answers strictly, and stop it.

Nothing here imports Dask: the plugin (:mod:`grader.cluster.plugin`) holds one
:class:`SlotProcess` per worker thread. Every line the slot writes goes through
:func:`grader.cluster.protocol.parse_message`; a line that breaks the protocol becomes an error
for its job (or, when it cannot be told whose it is, for every job still waiting), never an
exception out of a Dask task. Only a slot that died mid-chunk raises (:class:`SlotLost`), so
that Dask retries the chunk elsewhere.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from typing import Any

from grader.cluster.protocol import (
    MAX_LINE,
    Done,
    ErrorLine,
    Fault,
    ProtocolError,
    ResultLine,
    SlotHello,
    grade_line,
    parse_message,
)

# What the grading process keeps of the worker's environment. Everything else goes: the
# nanny's MALLOC_TRIM_THRESHOLD_ and OMP/MKL/OPENBLAS_NUM_THREADS=1 (they made grading twice as
# slow), Dask's own DASK_* settings (which may name credentials), the shell's odds and ends.
ENV_KEEP = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "PYTHONPATH",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "LD_LIBRARY_PATH",
        "CUDA_HOME",
        "CUDA_PATH",
        "GRADER_COURSE",
        "GRADER_HOME",
        "GRADER_ISOLATION",
        "GRADE_LANG",
    }
)
HELLO_TIMEOUT_S = 600.0  # a cold node importing torch from a network file system is slow
CLOSE_TIMEOUT_S = 10.0


class SlotError(Exception):
    """The slot cannot serve."""


class SlotLost(SlotError):
    """The grading process ended (or stopped answering) in the middle of a chunk: the chunk
    should be graded again, elsewhere if need be."""


class SlotRefused(SlotError):
    """The grading process could not start (it said why): retrying will not help."""


def slot_env(environ: Mapping[str, str], *, gpu: bool) -> dict[str, str]:
    """The grading process's environment: the allowlisted part of ``environ``; on a GPU
    worker its ``CUDA_VISIBLE_DEVICES`` (else a CUDA child would see every GPU of the node), on
    any other worker no GPU at all."""
    env = {k: v for k, v in environ.items() if k in ENV_KEEP or k.startswith("LC_")}
    if gpu:
        if "CUDA_VISIBLE_DEVICES" in environ:
            env["CUDA_VISIBLE_DEVICES"] = environ["CUDA_VISIBLE_DEVICES"]
    else:
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


def slot_command(
    exercises: Sequence[str], hide: Sequence[str] = (), private: Sequence[str] = ()
) -> list[str]:
    command = [sys.executable, "-m", "grader.cluster.slot"]
    for flag, values in (("--exercise", exercises), ("--hide", hide), ("--private", private)):
        for value in values:
            command += [flag, value]
    return command


def outcome(
    key: str,
    result: dict[str, Any] | None = None,
    report: str | None = None,
    error: str | None = None,
) -> dict[str, Any]:
    """What a task hands back for one job: a result (and its report), or why there is none."""
    return {"key": key, "result": result, "report": report, "error": error}


def _filename(job: dict[str, Any]) -> Any:
    request = job.get("request")
    return request.get("filename") if isinstance(request, dict) else None


class _Lines:
    """Lines from a pipe, with a deadline and a bound on their length."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.buffer = bytearray()
        self.eof = False

    def readline(self, deadline: float) -> bytes | None:
        """The next line (without its newline); None at end of file. TimeoutError past the
        deadline; ProtocolError for a line longer than MAX_LINE."""
        while True:
            end = self.buffer.find(b"\n")
            if end >= 0:
                line = bytes(self.buffer[:end])
                del self.buffer[: end + 1]
                return line
            if len(self.buffer) > MAX_LINE:
                raise ProtocolError(f"a line longer than {MAX_LINE >> 20} MiB")
            if self.eof:
                return None
            wait = deadline - time.monotonic()
            if wait <= 0:
                raise TimeoutError
            ready, _, _ = select.select([self.fd], [], [], min(wait, 5.0))
            if ready:
                chunk = os.read(self.fd, 1 << 20)
                if chunk:
                    self.buffer += chunk
                else:
                    self.eof = True
                    if self.buffer:  # a last line without its newline is still judged
                        self.buffer += b"\n"


class SlotProcess:
    """One warm grading process, (re)started on demand. One chunk at a time (a lock)."""

    def __init__(
        self,
        command: list[str],
        env: dict[str, str],
        *,
        name: str = "slot",
        hello_timeout_s: float = HELLO_TIMEOUT_S,
    ) -> None:
        self.command = command
        self.env = env
        self.name = name
        self.hello_timeout_s = hello_timeout_s
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._lines: _Lines | None = None
        self._hello: SlotHello | None = None
        self._folder: str | None = None
        self.starts = 0

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    # -- lifetime -----------------------------------------------------------------------------

    def start(self) -> None:
        """Start the process (it warms up on its own; :meth:`hello` waits for it)."""
        with self._lock:
            self._start()

    def _start(self) -> None:
        if self._proc is not None:
            return
        # Its own empty working folder: `python -m` puts the working folder on sys.path, and
        # everything on sys.path is readable by learner children.
        self._folder = tempfile.mkdtemp(prefix="grader-slot-")
        self._proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.env,
            cwd=self._folder,
            close_fds=True,
            start_new_session=True,  # a terminal's Ctrl-C is for the driver, not for this
        )
        assert self._proc.stdout is not None
        self._lines = _Lines(self._proc.stdout.fileno())
        self._hello = None
        self.starts += 1

    def close(self, timeout: float = CLOSE_TIMEOUT_S) -> None:
        """Close its stdin (it exits), wait a little, then kill it."""
        with self._lock:
            self._stop(timeout)

    def begin_close(self) -> None:
        """Close its stdin without waiting (the first half of :meth:`close`, for many slots
        at once)."""
        proc = self._proc
        if proc is not None and proc.stdin is not None:
            with contextlib.suppress(OSError):
                proc.stdin.close()

    def _stop(self, timeout: float) -> None:
        proc, self._proc, self._hello, self._lines = self._proc, None, None, None
        if proc is not None:
            if proc.stdin is not None:
                with contextlib.suppress(OSError):
                    proc.stdin.close()
            try:
                proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(proc.pid, signal.SIGKILL)
                proc.wait()
            if proc.stdout is not None:
                proc.stdout.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def _kill(self) -> None:
        proc = self._proc
        if proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
        self._stop(timeout=CLOSE_TIMEOUT_S)

    def _ended(self) -> str:
        proc = self._proc
        code = proc.wait() if proc is not None else None
        self._stop(timeout=0)
        if code is None:
            return "it was not running"
        if code < 0:
            return f"it was killed by signal {-code}"
        return f"it exited with code {code}"

    # -- the protocol -------------------------------------------------------------------------

    def hello(self) -> SlotHello:
        """The slot's hello (waiting for its warm-up; starting it if it is not running).
        SlotRefused when it says it cannot start, SlotLost when it ends first."""
        hello = self._hello
        if hello is not None:
            return hello
        with self._lock:
            return self._wait_hello()

    def _wait_hello(self) -> SlotHello:
        if self._hello is not None:
            return self._hello
        self._start()
        assert self._lines is not None
        deadline = time.monotonic() + self.hello_timeout_s
        try:
            line = self._lines.readline(deadline)
        except TimeoutError:
            self._kill()
            raise SlotLost(
                f"the grading process sent no hello within {self.hello_timeout_s:g} s"
            ) from None
        except ProtocolError as exc:
            self._kill()
            raise SlotRefused(f"the grading process broke the protocol: {exc}") from None
        if line is None:
            raise SlotRefused(f"the grading process ended before it was ready ({self._ended()})")
        try:
            message = parse_message(line)
        except ProtocolError as exc:
            self._kill()
            raise SlotRefused(f"the grading process broke the protocol: {exc}") from None
        if isinstance(message, Fault):
            self._stop(timeout=CLOSE_TIMEOUT_S)
            raise SlotRefused(message.message)
        if not isinstance(message, SlotHello):
            self._kill()
            raise SlotRefused("the grading process did not start with a hello")
        self._hello = message
        return message

    def grade(
        self, jobs: list[dict[str, Any]], reports: bool, timeout_s: float
    ) -> list[dict[str, Any]]:
        """Grade a chunk (jobs in wire form, see :func:`grader.cluster.protocol.job_wire`);
        one outcome per job, in order. SlotLost if the process ends before the chunk is done;
        every other fault is an error outcome for the jobs it touched."""
        with self._lock:
            self._wait_hello()
            return self._grade(jobs, reports, timeout_s)

    def _grade(
        self, jobs: list[dict[str, Any]], reports: bool, timeout_s: float
    ) -> list[dict[str, Any]]:
        proc, lines = self._proc, self._lines
        assert proc is not None and proc.stdin is not None and lines is not None
        filenames = {job["key"]: _filename(job) for job in jobs}
        pending = dict.fromkeys(filenames)
        outcomes: dict[str, dict[str, Any]] = {}

        def fail_pending(why: str) -> None:
            for key in list(pending):
                outcomes[key] = outcome(key, error=why)
                del pending[key]

        try:
            proc.stdin.write(grade_line(jobs, reports))
            proc.stdin.flush()
        except OSError:
            raise SlotLost(
                f"the grading process could not be sent work ({self._ended()})"
            ) from None
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                line = lines.readline(deadline)
            except TimeoutError:
                self._kill()
                fail_pending(f"the grading process did not finish within {timeout_s:g} s")
                break
            except ProtocolError as exc:
                self._kill()
                fail_pending(f"the grading process sent a malformed line ({exc})")
                break
            if line is None:
                raise SlotLost(f"the grading process ended mid-chunk ({self._ended()})")
            try:
                message = parse_message(line)
            except ProtocolError as exc:
                if exc.key is not None and exc.key in pending:
                    del pending[exc.key]
                    outcomes[exc.key] = outcome(
                        exc.key, error=f"the grading process sent a malformed result ({exc})"
                    )
                    continue
                self._kill()
                fail_pending(f"the grading process sent a malformed line ({exc})")
                break
            if isinstance(message, (ResultLine, ErrorLine)):
                if message.key not in pending:
                    self._kill()
                    fail_pending(
                        f"the grading process answered for a job it was not given or answered "
                        f"twice ({message.key!r})"
                    )
                    break
                del pending[message.key]
                if isinstance(message, ErrorLine):
                    outcomes[message.key] = outcome(message.key, error=message.message)
                elif message.result.get("submission") != filenames[message.key]:
                    outcomes[message.key] = outcome(
                        message.key, error="the grading process answered with another's result"
                    )
                elif reports and message.report is None:
                    outcomes[message.key] = outcome(
                        message.key, error="the grading process sent no report"
                    )
                else:
                    outcomes[message.key] = outcome(message.key, message.result, message.report)
            elif isinstance(message, Done):
                if pending:
                    self._kill()
                    fail_pending("the grading process ended the chunk without answering for it")
                break
            elif isinstance(message, Fault):
                fail_pending(f"the grading process refused the chunk: {message.message}")
                break
            else:
                self._kill()
                fail_pending("the grading process sent a second hello")
                break
        return [outcomes[job["key"]] for job in jobs]
