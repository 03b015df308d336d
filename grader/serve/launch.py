"""Starting a warm server: from a process that is already warm, or as a fresh one.

- :func:`hand_off`: ``grade ID`` found no server, so it graded in its own process, which has
  imported torch, pytest and the grader by then (the second or so a server start costs). After
  its summary is printed it forks, and the fork becomes the server; the command exits as it
  would have. Forking then, not before the grading, keeps the second core free for the grading
  on a two-core machine, and the fork shares every import already made.
- :func:`spawn`: a front end that must not grade in its own process (the notebook's kernel holds
  the learner's variables and may hold CUDA state) or that wants a server first (``grade watch``,
  ``grade server start``) starts ``python -m grader.serve --detach`` and waits until it answers.

Either way the server detaches: a session of its own, no terminal, its standard streams on its
log in the runtime folder, the working folder ``/`` (it reads nothing by path that a client
names), and every other inherited file descriptor closed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from grader.serve.runtime import Place, idle_timeout

SPAWN_TIMEOUT_S = 180.0  # a fresh server imports torch: seconds on a busy machine


class StartError(Exception):
    """A server could not be started (the text says why)."""


def hand_off(place: Place, root: Path) -> None:
    """Fork a server off this warm process and return at once (in this process)."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()  # or the fork would write this process's buffered output again
    try:
        pid = os.fork()
    except OSError:
        return
    if pid:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
        return
    code = 1
    try:
        os.setsid()
        # the server is a grandchild: no zombie is left to this process
        code = 0 if os.fork() else _become_server(place, root, ready_fd=None)
    except BaseException:  # noqa: BLE001 - nothing may unwind into the command's code
        code = 1
    finally:
        os._exit(code)


def detach(place: Place, root: Path) -> int:
    """``python -m grader.serve --detach``: start the server in the background and return (in
    this process) once it answers, 0, or could not start, 1 with the reason on stderr."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.close(read_fd)
            os.setsid()
            code = 0 if os.fork() else _become_server(place, root, ready_fd=write_fd)
        except BaseException:  # noqa: BLE001
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    os.waitpid(pid, 0)
    # One line, not up to the end: the server's own children hold the pipe's other end too.
    with os.fdopen(read_fd, "rb") as handle:
        answer = handle.readline().decode("utf-8", errors="replace").strip()
    if answer == "ready":
        return 0
    print(f"Error: the grading server did not start: {answer or 'it exited'}", file=sys.stderr)
    print(f"(its log: {place.log})", file=sys.stderr)
    return 1


def _become_server(place: Place, root: Path, ready_fd: int | None) -> int:
    """The detached server's body (in the grandchild)."""
    from grader.sandbox.procs import close_all_but
    from grader.serve.server import Server

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # no terminal: Ctrl-C is for the client
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    keep = {ready_fd} if ready_fd is not None else set()
    close_all_but(keep)
    null = os.open(os.devnull, os.O_RDONLY)
    log = os.open(place.log, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC, 0o600)
    os.dup2(null, 0)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(null)
    os.close(log)
    os.chdir("/")
    prepare_signals()

    def ready(error: str | None) -> None:
        if ready_fd is not None:
            with contextlib.suppress(OSError):
                line = "ready" if error is None else " ".join(error.split())
                os.write(ready_fd, line.encode("utf-8") + b"\n")
                os.close(ready_fd)

    return Server(place, root, idle_timeout(), ready=ready).run()


def prepare_signals() -> None:
    """A server ends cleanly on SIGTERM (its socket removed, its gradings stopped), and never
    on a stray SIGIO (which it uses only while a grading is in progress)."""

    def terminate(signum: int, frame: object) -> None:
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGIO, signal.SIG_IGN)


def spawn(place: Place) -> None:
    """Start a fresh server in the background and wait until it answers (a StartError with
    the reason when it does not)."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "grader.serve", "--detach"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            timeout=SPAWN_TIMEOUT_S,
            env=dict(os.environ),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise StartError(str(exc)) from None
    if proc.returncode != 0:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        reason = lines[0].removeprefix("Error: ") if lines else f"exit status {proc.returncode}"
        raise StartError(reason)
