"""The warm server: one learner's grading process, kept open between commands.

It holds a :class:`~grader.engine.LocalEngine` (torch, pytest and the grader imported, the fork
server ready) and answers one message per connection on its Unix socket (:mod:`.protocol`).
Nothing about a grading changes: the request carries the learner's source, the engine grades it
exactly as ``grade ID`` does in its own process (same sandbox, same children), and the result
goes back as JSON for the client to print and write.

Lifetime:

- one server per user and installation (:mod:`.runtime`): it holds an exclusive lock for as long
  as it lives, so a second one started at the same moment gives way, and a socket left by one
  that crashed is replaced;
- it exits after ``idle_timeout_s`` without a connection, and as soon as its fingerprint
  (:mod:`.fingerprint`) changes: checked every few seconds while idle and before each grading,
  which is then answered ``stale`` so the client grades elsewhere and the next command starts a
  fresh server;
- a client that goes away (Ctrl-C) stops its grading: the kernel signals the server (SIGIO)
  when the client's end closes, and the grading is stopped the way Ctrl-C stops it in
  ``grade ID`` (workers and learner children killed); the server keeps serving.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import socket
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import Any

from grader.engine.api import GradeRequest
from grader.errors import GraderError, UsageError
from grader.results import Result
from grader.serve import protocol
from grader.serve.fingerprint import fingerprint
from grader.serve.runtime import Place, same_user
from grader.text import inert, inert_line
from grader.version import __version__

CHECK_S = 2.0  # how often an idle server looks at its fingerprint
LOCK_WAIT_S = 10.0  # for a server that is on its way out (stale) to let go of the lock
READ_S = 30.0  # for a client to send its message once connected
MAX_LOG_BYTES = 1 << 20


class Cancelled(BaseException):
    """The client of the grading in progress went away (a BaseException, like Ctrl-C's
    KeyboardInterrupt, so that the engine stops the grading as it stops it for Ctrl-C)."""


class Server:
    """``run()`` serves until idle, stale, stopped or terminated; ``ready(error)`` is called
    once it answers (error None) or could not start (the reason)."""

    def __init__(
        self,
        place: Place,
        root: Path,
        idle_timeout_s: float,
        ready: Callable[[str | None], None] | None = None,
    ) -> None:
        self.place = place
        self.root = root
        self.idle_timeout_s = idle_timeout_s
        self._ready = ready
        self.started = time.time()
        self.served = 0
        self.engine: Any = None
        self.fingerprint = fingerprint(root)
        self._idle_since = time.monotonic()
        self._socket_inode: int | None = None

    # -- lifetime -----------------------------------------------------------------------------

    def run(self) -> int:
        from grader.catalog import Catalog
        from grader.engine import LocalEngine

        try:
            lock = self._lock()
        except OSError as exc:
            return self._fail(f"cannot lock {self.place.lock}: {exc.strerror or exc}")
        if lock is None:
            return self._fail("another server is running for this grader")
        with contextlib.suppress(OSError):  # one server's log at a time, kept short
            if self.place.log.stat().st_size > MAX_LOG_BYTES:
                os.truncate(self.place.log, 0)
        try:
            listener = self._bind()
        except OSError as exc:
            os.close(lock)
            return self._fail(f"cannot listen on {self.place.socket}: {exc.strerror or exc}")
        try:
            with LocalEngine(Catalog(self.root)) as engine:
                self.engine = engine
                log(
                    f"ready: pid {os.getpid()}, {engine.isolation}, idle timeout "
                    f"{self.idle_timeout_s:g} s, socket {self.place.socket}"
                )
                self._notify(None)
                try:
                    self._serve(listener)
                finally:  # no new client may reach a server that is leaving
                    listener.close()
                    self._unlink_socket()
        except GraderError as exc:
            self._notify(exc.message)
            log(f"could not start: {exc.message}")
            return 1
        finally:
            listener.close()
            self._unlink_socket()
            os.close(lock)
        return 0

    def _fail(self, why: str) -> int:
        log(why)
        self._notify(why)
        return 1

    def _notify(self, error: str | None) -> None:
        if self._ready is not None:
            ready, self._ready = self._ready, None
            ready(error)

    def _lock(self) -> int | None:
        """An exclusive lock on the place, held until exit (the kernel drops it if we die)."""
        fd = os.open(self.place.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        deadline = time.monotonic() + LOCK_WAIT_S
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return None
                time.sleep(0.05)

    def _bind(self) -> socket.socket:
        """Listen on the place's socket, 0600 from the start; a socket left there is stale (we
        hold the lock), so it is replaced."""
        path = str(self.place.socket)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        try:
            listener.bind(path)
        except OSError:
            listener.close()
            raise
        finally:
            os.umask(old)
        listener.listen(16)
        self._socket_inode = os.stat(path).st_ino
        return listener

    def _unlink_socket(self) -> None:
        with contextlib.suppress(OSError):
            if os.stat(self.place.socket).st_ino == self._socket_inode:
                os.unlink(self.place.socket)

    def _serve(self, listener: socket.socket) -> None:
        self._idle_since = time.monotonic()
        while True:
            left = self.idle_timeout_s - (time.monotonic() - self._idle_since)
            if left <= 0:
                log(f"idle for {self.idle_timeout_s:g} s: exiting")
                return
            ready, _, _ = select.select([listener], [], [], min(left, CHECK_S))
            if not ready:
                if self.stale():
                    log("the grader's code or the exercises changed: exiting")
                    return
                continue
            try:
                conn, _ = listener.accept()
            except OSError:
                continue
            try:
                keep_serving = self._handle(conn)
            finally:
                conn.close()
                self._idle_since = time.monotonic()
            if not keep_serving:
                return

    def stale(self) -> bool:
        return fingerprint(self.root) != self.fingerprint

    # -- one connection -----------------------------------------------------------------------

    def _handle(self, conn: socket.socket) -> bool:
        """Answer one message; False when the server is to exit."""
        if not same_user(conn):
            log("refused a connection from another user")
            self._reply(
                conn,
                protocol.ErrorReply(
                    protocol.REFUSED, "this grading server belongs to another user"
                ),
            )
            return True
        try:
            message = protocol.receive(conn, protocol.REQUESTS, deadline=time.monotonic() + READ_S)
        except protocol.ProtocolError as exc:
            log(f"a malformed message: {exc}")
            self._reply(conn, protocol.ErrorReply(protocol.BAD_MESSAGE, str(exc)))
            return True
        if isinstance(message, protocol.StatusCall):
            self._reply(conn, self.status())
            return True
        if isinstance(message, protocol.StopCall):
            log("asked to stop")
            self._reply(conn, protocol.Stopping())
            return False
        assert isinstance(message, protocol.GradeCall)
        if self.stale():
            log("the grader's code or the exercises changed: answered stale, exiting")
            self._reply(
                conn,
                protocol.ErrorReply(
                    protocol.STALE, "the grader's code or the exercises changed since it started"
                ),
            )
            return False
        self._reply(conn, protocol.Accepted())
        self._reply(conn, self._grade(conn, message.request))
        return True

    def _grade(self, conn: socket.socket, request: GradeRequest) -> protocol.Message:
        from grader.serve.submission import check_devices

        started = time.monotonic()
        log(f"{request.exercise}: grading {request.filename} ({', '.join(request.devices)})")
        try:
            with _cancel_on_close(conn):
                check_devices(request.devices, self.engine.gpus)
                result: Result = self.engine.grade(request)
        except Cancelled:
            log(f"{request.exercise}: the client went away; grading stopped")
            return protocol.ErrorReply(protocol.INTERNAL, "cancelled")
        except UsageError as exc:
            return protocol.ErrorReply(protocol.USAGE, exc.message, exc.hint or "")
        except GraderError as exc:
            log(f"{request.exercise}: {exc.message}")
            return protocol.ErrorReply(protocol.INTERNAL, exc.message)
        except Exception as exc:  # noqa: BLE001 - a grader bug must not end the server
            log(f"{request.exercise}: internal error", traceback.format_exc())
            return protocol.ErrorReply(protocol.INTERNAL, f"{type(exc).__name__}: {exc}")
        self.served += 1
        log(f"{request.exercise}: {result.status.value} in {time.monotonic() - started:.2f} s")
        return protocol.ResultReply(result)

    def status(self) -> protocol.StatusReply:
        uids = self.engine.learner_uids if self.engine is not None else None
        return protocol.StatusReply(
            pid=os.getpid(),
            version=__version__,
            root=str(self.root),
            started=self.started,
            idle_timeout_s=self.idle_timeout_s,
            idle_s=round(time.monotonic() - self._idle_since, 3),
            served=self.served,
            isolation=self.engine.isolation if self.engine is not None else "",
            learner_uids_start=uids.start if uids is not None else 0,
            learner_uids_stop=uids.stop if uids is not None else 0,
        )

    @staticmethod
    def _reply(conn: socket.socket, message: protocol.Message) -> None:
        with contextlib.suppress(OSError):  # a client that left does not need the answer
            protocol.send(conn, message)


@contextlib.contextmanager
def _cancel_on_close(conn: socket.socket) -> Iterator[None]:
    """Raise :class:`Cancelled` in this (the main) thread when the client's end of ``conn``
    closes or sends anything: the kernel sends SIGIO on either (``O_ASYNC``). It fires at most
    once, so the engine's own clean-up is never interrupted."""
    fired = False

    def on_io(signum: int, frame: FrameType | None) -> None:
        nonlocal fired
        if fired or not _client_gone(conn):
            return
        fired = True
        raise Cancelled

    previous = signal.signal(signal.SIGIO, on_io)
    flags = fcntl.fcntl(conn.fileno(), fcntl.F_GETFL)
    try:
        fcntl.fcntl(conn.fileno(), fcntl.F_SETOWN, os.getpid())
        fcntl.fcntl(conn.fileno(), fcntl.F_SETFL, flags | os.O_ASYNC)
        if _client_gone(conn):  # before the signal was armed
            fired = True
            raise Cancelled
        yield
    finally:
        fired = True
        with contextlib.suppress(OSError):
            fcntl.fcntl(conn.fileno(), fcntl.F_SETFL, flags)
        signal.signal(signal.SIGIO, previous)


def _client_gone(conn: socket.socket) -> bool:
    """The client closed its end, or sent something it should not have mid-grading."""
    poller = select.poll()
    poller.register(conn.fileno(), select.POLLIN | select.POLLHUP | select.POLLRDHUP)
    try:
        return bool(poller.poll(0))
    except OSError:
        return True


def log(line: str, detail: str = "") -> None:
    """One record of the server's log: a single line, whatever it quotes. A request's file
    name and exercise come from a client (a name may hold a newline or an escape sequence):
    written as they were, they forged records of their own, or drove the terminal reading the
    log. ``detail`` (the grader's own traceback) follows on lines of its own, made inert."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    record = f"{stamp} [{os.getpid()}] {inert_line(line)}"
    if detail:
        record += "\n" + inert(detail).rstrip("\n")
    print(record, file=sys.stderr, flush=True)
