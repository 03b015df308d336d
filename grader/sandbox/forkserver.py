"""The fork server: a clean, warm process that forks learner children on request.

It is forked from the grading process after torch, NumPy and the learner-side modules are
imported, and before anything else happens there: it has never touched CUDA (a child forked after
that cannot use CUDA), never run tensor work (OpenMP's threads do not survive a fork), and never
loaded a hidden test or a reference solution (a learner child could read them from its memory).
A learner child therefore costs a fork, not an interpreter start and a torch import.

Trusted workers talk to it over a socket each (:class:`ForkServerClient`): ``spawn`` returns the
child's pid, its answer socket and its output pipe; ``wait`` returns how it ended. The server
kills every child of a worker whose socket closes, and every child when the grading process goes
away, so no learner process outlives its grading.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import select
import shutil
import signal
import socket
import struct
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from grader.sandbox.hugepages import HugePageFolder
from grader.sandbox.policy import ChildLimits, SandboxPolicy
from grader.sandbox.procs import become_subreaper, die_with_parent, reap, responsive
from grader.sandbox.tiers import Tier, namespaces, process, uids

_LEN = struct.Struct("!I")
# The longest a child's exit status waits for the processes it left behind to be gone.
SETTLE_S = 10.0
# How long the trusted side waits for learner children it killed to be gone: the server reports
# each once it and what it started are reaped, or after SETTLE_S regardless. It stays within
# the slack a worker has beyond its gradings' time limits (engine/local.py).
ENDED_WAIT_S = SETTLE_S + 1.0
# How often the process tier measures its children's scratch folders against their quota.
MEASURE_S = 0.1


def _send_json(sock: socket.socket, data: dict[str, Any], fds: Sequence[int] = ()) -> None:
    payload = json.dumps(data).encode()
    message = _LEN.pack(len(payload)) + payload
    if fds:
        socket.send_fds(sock, [message], list(fds))
    else:
        sock.sendall(message)


def _recv_json(sock: socket.socket, max_fds: int = 0) -> tuple[dict[str, Any], list[int]]:
    """One small JSON message, with any file descriptors passed along with it."""
    fds: list[int] = []
    data = b""
    while len(data) < _LEN.size:
        # Read the length alone: never into the next message, whose descriptors are its own.
        chunk, got_fds, _, _ = socket.recv_fds(sock, _LEN.size - len(data), max_fds or 1)
        fds.extend(got_fds)
        if not chunk:
            raise EOFError
        data += chunk
    (length,) = _LEN.unpack(data[: _LEN.size])
    while len(data) < _LEN.size + length:
        chunk = sock.recv(_LEN.size + length - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return json.loads(data[_LEN.size : _LEN.size + length]), fds


def _children_of(pid: int) -> list[int]:
    """The live children of one of this server's children (empty where /proc cannot say)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            return [int(p) for p in handle.read().split()]
    except (OSError, ValueError):
        return []


def _own_children() -> set[int]:
    """This server's live children, its own and the orphans re-parented to it.

    Read from each of its threads' ``children`` list in /proc, which costs the same however
    many processes the machine runs. Where the kernel has no such list, every process's parent
    is read instead: a scan of all of /proc, on every reaped child, which costs milliseconds on
    a busy machine."""
    me = os.getpid()
    try:
        found: set[int] = set()
        for task in os.listdir(f"/proc/{me}/task"):
            with open(f"/proc/{me}/task/{task}/children") as handle:
                found.update(int(p) for p in handle.read().split())
        return found
    except (OSError, ValueError):
        pass
    found = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            # bytes: the name in parentheses is whatever the process called itself (any bytes
            # but NUL, parentheses and newlines included); the fields after the last ")" are
            # the kernel's
            with open(f"/proc/{name}/stat", "rb") as handle:
                ppid = handle.read().rsplit(b")", 1)[1].split()[1]
        except (OSError, IndexError):
            continue
        if ppid == str(me).encode():
            found.add(int(name))
    return found


@dataclass
class _Child:
    owner: int  # fd of the worker connection that asked for it
    scratch: str
    quota: int = 0  # bytes its scratch folder may hold (measured here in the process tier)


@dataclass
class _Server:
    control: socket.socket
    tier: Tier
    policy: SandboxPolicy = field(default_factory=SandboxPolicy)
    next_uid: int = 0
    uid_base: int = 0
    clients: dict[int, socket.socket] = field(default_factory=dict)
    children: dict[int, _Child] = field(default_factory=dict)
    statuses: dict[int, int] = field(default_factory=dict)
    waiting: dict[int, list[tuple[socket.socket, float]]] = field(default_factory=dict)
    # Processes a child left behind, killed and not yet reaped, and the exit statuses held
    # back until they are gone (with the time by which a status is published regardless).
    dying: set[int] = field(default_factory=set)
    held: dict[int, tuple[int, float]] = field(default_factory=dict)
    # a dying process was reaped: its own children may have been re-parented here since
    recheck: bool = False
    # children killed because their worker's connection closed (nobody will wait for them),
    # and the connections waiting until none of them, nor anything dying, is left
    abandoned: set[int] = field(default_factory=set)
    settling: list[tuple[socket.socket, float]] = field(default_factory=list)
    # children stopped for writing past their scratch folder's quota (the process tier), and
    # when their folders are next measured
    over_quota: set[int] = field(default_factory=set)
    next_measure: float = 0.0
    # this process's memory, folded into huge pages while nothing is asked (cheaper forks)
    huge_pages: HugePageFolder = field(default_factory=HugePageFolder.for_server)

    def run(self) -> None:
        become_subreaper()
        wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # the grading process decides when to stop
        try:
            while True:
                self._reap()
                self._settle()
                self._expire_waits()
                self._answer_settling()
                self._measure_scratch()
                deadlines = [d for waits in self.waiting.values() for _, d in waits]
                deadlines += [d for _, d in self.held.values()]
                deadlines += [d for _, d in self.settling]
                if self.tier.name == "process" and self.children:
                    deadlines.append(self.next_measure)
                timeout = min([1.0] + [max(d - time.monotonic(), 0.0) for d in deadlines])
                folding = self.huge_pages.wanted()
                sockets: list[socket.socket] = [self.control, *self.clients.values()]
                watched: list[Any] = [wake_r, *sockets]
                readable, _, _ = select.select(watched, [], [], 0.0 if folding else timeout)
                if folding and not readable:
                    self.huge_pages.step()  # a few milliseconds, and only while nothing is asked
                for ready in readable:
                    if ready == wake_r:
                        os.read(wake_r, 4096)
                    elif ready is self.control:
                        if not self._accept():
                            return
                    elif isinstance(ready, socket.socket):
                        self._serve(ready)
        finally:
            for pid in list(self.children):
                self._kill(pid)
            self._reap(block=True)

    def _accept(self) -> bool:
        try:
            _, fds = _recv_json(self.control, max_fds=1)
        except (EOFError, OSError, ValueError):
            return False  # the grading process is gone: stop, killing every child
        for fd in fds:
            sock = socket.socket(fileno=fd)
            # A worker that stops half-way through a request must not stall every grading.
            sock.settimeout(5.0)
            self.clients[sock.fileno()] = sock
        return True

    def _serve(self, sock: socket.socket) -> None:
        try:
            request, _ = _recv_json(sock)
            self._handle(sock, request)
        except (EOFError, OSError, ValueError, KeyError, TypeError):
            # A worker that went away, stopped half-way or sent nonsense loses its connection
            # (and its children); the server and every other worker go on.
            self._drop_client(sock)

    def _handle(self, sock: socket.socket, request: dict[str, Any]) -> None:
        op = request.get("op")
        if op == "spawn":
            self._spawn(sock, request)
        elif op == "wait":
            pid = int(request["pid"])
            if pid in self.statuses or (pid not in self.children and pid not in self.held):
                self._answer_wait(sock, pid)
            else:
                timeout = request.get("timeout")
                deadline = (
                    time.monotonic() + float(timeout) if timeout is not None else float("inf")
                )
                self.waiting.setdefault(pid, []).append((sock, deadline))
        elif op == "kill":
            self._kill(int(request["pid"]))
            _send_json(sock, {"ok": True})
        elif op == "quota":
            _send_json(sock, {"ok": True, "over": self._over_quota(int(request["pid"]))})
        elif op == "settled":
            # The worker that asked for the abandoned children may have ended just now: its
            # end of the connection is read here first, or this answer could come before it.
            self._drop_closed()
            self.settling.append((sock, time.monotonic() + float(request["timeout"])))
            self._answer_settling()

    def _drop_closed(self) -> None:
        """Drop every worker connection whose other end has closed (killing its children)."""
        socks = list(self.clients.values())
        readable, _, _ = select.select(socks, [], [], 0) if socks else ([], [], [])
        for sock in readable:
            try:
                closed = sock.recv(1, socket.MSG_PEEK) == b""
            except OSError:
                closed = True
            if closed:
                self._drop_client(sock)

    def _answer_settling(self) -> None:
        """Answer the "settled" requests once no abandoned child and nothing dying is left,
        or once their timeout has passed (``settled`` then says which)."""
        if not self.settling:
            return
        settled = not (self.abandoned & self.children.keys()) and not self.dying
        now = time.monotonic()
        for sock, deadline in list(self.settling):
            if settled or deadline <= now:
                self.settling.remove((sock, deadline))
                with contextlib.suppress(OSError):
                    _send_json(sock, {"ok": True, "settled": settled})

    def _spawn(self, sock: socket.socket, request: dict[str, Any]) -> None:
        scratch = tempfile.mkdtemp(prefix="grader-child-")
        learner_name = Path(request["learner_name"]).name
        display = str(request.get("display") or learner_name)
        learner_path = os.path.join(scratch, learner_name)
        try:
            shutil.copyfile(request["learner_path"], learner_path)
        except OSError as exc:
            shutil.rmtree(scratch, ignore_errors=True)
            _send_json(sock, {"ok": False, "error": f"cannot read the submission: {exc.strerror}"})
            return
        limits = ChildLimits.from_dict(request["limits"])
        kind = request["kind"]
        uid = None
        if self.tier.own_uid:
            uid = self.uid_base + self.next_uid % uids.UID_SPAN
            self.next_uid += 1
            for path in (scratch, learner_path):
                os.chown(path, uid, uid)
        parent_end, child_end = socket.socketpair()
        out_r, out_w = os.pipe()
        server_pid = os.getpid()
        pid = os.fork()
        if pid == 0:  # the learner child (or, with namespaces, its keeper)
            try:
                from grader.sandbox import child

                die_with_parent(server_pid)

                def learner(workdir: str) -> NoReturn:
                    process.enter(
                        sock_fd=child_end.fileno(),
                        out_fd=out_w,
                        scratch=workdir,
                        kind=kind,
                        limits=limits,
                        policy=self.policy,
                        # in the namespaces tier the keeper's child has dropped it already
                        uid=uid if self.tier.name == "process" else None,
                        parent_pid=server_pid,
                    )
                    child.install_streams()
                    child.main(
                        child_end.fileno(),
                        os.path.join(workdir, learner_name),
                        limits.max_answer_mb << 20,
                        display,
                        cuda=kind == "cuda",
                    )

                if self.tier.name == "namespaces":
                    namespaces.keep(
                        self.tier,
                        policy=self.policy,
                        scratch=scratch,
                        uid=uid,
                        learner=learner,
                        cuda=kind == "cuda",
                        quota=limits.file_mb << 20,
                    )
                learner(scratch)
            finally:
                os._exit(71)
        child_end.close()
        os.close(out_w)
        self.huge_pages.forked()
        self.children[pid] = _Child(
            owner=sock.fileno(), scratch=scratch, quota=limits.file_mb << 20
        )
        try:
            # where the worker measures the child's scratch folder after each answer: the host
            # folder (process tier), or the keeper's tmpfs (namespaces tier)
            reply = {
                "ok": True,
                "pid": pid,
                "scratch": scratch,
                "keeper": self.tier.name != "process",
            }
            _send_json(sock, reply, [parent_end.fileno(), out_r])
        finally:
            parent_end.close()
            os.close(out_r)

    def _over_quota(self, pid: int) -> bool:
        """Whether a child's scratch folder holds more than its quota now (asked by its worker
        after each answer, so that the verdict does not depend on when the last poll ran); a
        child found over it is killed and ends as one stopped for its quota."""
        child = self.children.get(pid)
        if child is None:
            return pid in self.over_quota
        if pid not in self.over_quota:
            if self.tier.name == "namespaces":
                used = namespaces.keeper_scratch_usage(pid)
            else:
                used = process.folder_usage(child.scratch, child.quota)
            if used is None or used <= child.quota:
                return False
            self.over_quota.add(pid)
            self._kill(pid)
        return True

    def _measure_scratch(self) -> None:
        """The process tier's scratch quota: a child's files land on the host's disk, so its
        folder is measured from here every ``MEASURE_S`` while it lives, and a child whose
        folder holds more than its quota is killed. Its end is then reported as a process
        killed by SIGXFSZ, as for a file past RLIMIT_FSIZE (in the namespaces tier, the keeper
        does the same for its tmpfs)."""
        now = time.monotonic()
        if self.tier.name != "process" or now < self.next_measure:
            return
        self.next_measure = now + MEASURE_S
        for pid, child in list(self.children.items()):
            if pid in self.over_quota:
                continue
            if process.folder_usage(child.scratch, child.quota) > child.quota:
                self.over_quota.add(pid)
                self._kill(pid)

    def _expire_waits(self) -> None:
        """Answer waits whose timeout passed with status None (the child is still running)."""
        now = time.monotonic()
        for pid, waits in list(self.waiting.items()):
            for sock, deadline in [w for w in waits if w[1] <= now]:
                waits.remove((sock, deadline))
                with contextlib.suppress(OSError):
                    _send_json(sock, {"ok": True, "pid": pid, "status": None})
            if not waits:
                del self.waiting[pid]

    def _answer_wait(self, sock: socket.socket, pid: int) -> None:
        status = self.statuses.pop(pid, None)
        with contextlib.suppress(OSError):
            _send_json(sock, {"ok": True, "pid": pid, "status": status})

    def _kill(self, pid: int) -> None:
        if pid in self.children:
            # The learner child under a keeper (the namespaces tier) first, and its group:
            # killed at once, its PID namespace goes with it, where a fork bomb would otherwise
            # go on forking until this server, starved of CPU by it, finds it as an orphan.
            for inner in _children_of(pid):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(inner, signal.SIGKILL)
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(inner, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def _drop_client(self, sock: socket.socket) -> None:
        fd = sock.fileno()
        for pid, child in list(self.children.items()):
            if child.owner == fd:
                self._kill(pid)
                self.abandoned.add(pid)
        self.clients.pop(fd, None)
        for pid, waits in list(self.waiting.items()):
            self.waiting[pid] = [(s, d) for s, d in waits if s is not sock]
        self.settling = [(s, d) for s, d in self.settling if s is not sock]
        sock.close()

    def _kill_orphans(self) -> None:
        """Kill every process re-parented to this server (it is a subreaper) and remember it
        as dying until it is reaped."""
        for pid in _own_children() - self.children.keys():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
            self.dying.add(pid)

    def _settle(self) -> None:
        """Publish the held exit statuses once nothing a child left behind is still dying.

        A child's end is reported only when what it started is gone too. Hundreds of processes
        of a fork bomb, each with torch's address space, take seconds of both cores to tear
        down (in the namespaces tier the kernel reaps the PID namespace's init last): the next
        child, started at once, would import under that load and lose its time limit for it.
        Whatever is stuck past ``SETTLE_S`` no longer holds the status back.
        """
        if not self.held:
            return
        if not self.dying and self.recheck:
            self.recheck = False
            self._kill_orphans()  # what the dying left behind (their children), if anything
        now = time.monotonic()
        for pid, (status, deadline) in list(self.held.items()):
            if not self.dying or deadline <= now:
                del self.held[pid]
                self._publish(pid, status)

    def _publish(self, pid: int, status: int) -> None:
        if pid in self.abandoned:  # its worker is gone: nobody can ask for it
            self.abandoned.discard(pid)
            return
        self.statuses[pid] = status
        for waiter, _ in self.waiting.pop(pid, []):
            self._answer_wait(waiter, pid)

    def _reap(self, block: bool = False) -> None:
        while self.children or self.dying:
            try:
                pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
            except ChildProcessError:
                return
            except OSError as exc:
                if exc.errno == errno.EINTR:
                    continue
                return
            if pid == 0:
                return
            child = self.children.pop(pid, None)
            if child is None:
                if pid in self.dying:
                    self.dying.discard(pid)
                    self.recheck = True
                continue
            # Whatever the child left running in its group goes with it, and so does anything
            # it started that was re-parented here (this process is a subreaper). In the
            # namespaces tier that includes a learner child whose keeper was killed: the PID
            # namespace's init is re-parented to the nearest subreaper too.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            self._kill_orphans()
            shutil.rmtree(child.scratch, ignore_errors=True)
            if pid in self.over_quota:
                self.over_quota.discard(pid)
                status = int(signal.SIGXFSZ)  # the status of a process killed by SIGXFSZ
            self.held[pid] = (status, time.monotonic() + SETTLE_S)


class ForkServer:
    """Owned by the grading process: starts the server and hands out worker connections.

    ``policy`` says what learner children may see and use; the tier that enforces it is
    detected when the server starts (``requested``, from GRADER_ISOLATION, can force one).
    """

    def __init__(self, policy: SandboxPolicy | None = None, requested: str | None = None) -> None:
        self.pid: int | None = None
        self.policy = policy or SandboxPolicy()
        self.requested = requested
        self.tier = Tier("process")
        self.uid_base = uids.uid_block()  # learner uids: [uid_base, uid_base + UID_SPAN)
        self._control: socket.socket | None = None
        self._answered = False

    def start(self, wait: bool = True) -> None:
        """Fork the server. It first tries out its tier (about 0.1 s); ``wait=False`` lets this
        process go on meanwhile and leaves the server's answer to :meth:`ready`."""
        parent_end, server_end = socket.socketpair()
        parent_pid = os.getpid()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                die_with_parent(parent_pid)
                parent_end.close()
                os.setpgid(0, 0)
                try:
                    tier = namespaces.detect(self.policy, self.requested)
                except OSError as exc:
                    _send_json(server_end, {"ok": False, "error": exc.strerror or str(exc)})
                    raise
                _send_json(
                    server_end,
                    {
                        "ok": True,
                        "tier": tier.name,
                        "user_namespace": tier.user_namespace,
                        "own_uid": tier.own_uid,
                    },
                )
                _Server(server_end, tier, self.policy, uid_base=self.uid_base).run()
            except BaseException:  # noqa: BLE001
                code = 70
            finally:
                os._exit(code)
        server_end.close()
        self.pid = pid
        self._control = parent_end
        self._answered = False
        if wait:
            self.ready()

    def ready(self) -> None:
        """Wait for a started server's answer: its tier, or why it could not start."""
        if self._answered or self._control is None:
            return
        self._answered = True
        hello, _ = _recv_json(self._control)
        if not hello.get("ok"):
            raise SpawnError(hello.get("error", "the fork server did not start"))
        self.tier = Tier(
            hello["tier"], bool(hello.get("user_namespace")), bool(hello.get("own_uid"))
        )

    def alive(self) -> bool:
        """Running and able to answer: a stopped server (SIGSTOP from a learner child of the
        process tier) is as good as dead, and is replaced."""
        if self.pid is None:
            return False
        try:
            pid, _ = os.waitpid(self.pid, os.WNOHANG)
        except ChildProcessError:
            return False
        return pid == 0 and responsive(self.pid)

    def connect(self) -> socket.socket:
        """A new connection for one trusted worker; give the worker this socket."""
        if self._control is None:
            self.start()
        self.ready()
        assert self._control is not None
        mine, theirs = socket.socketpair()
        _send_json(self._control, {"op": "client"}, [theirs.fileno()])
        theirs.close()
        return mine

    @property
    def control_fd(self) -> int | None:
        return self._control.fileno() if self._control is not None else None

    def stop(self) -> None:
        """Close the control socket (the server then kills every child and exits); a server
        that does not exit within a few seconds (stopped, hung) is killed."""
        if self._control is not None:
            self._control.close()
            self._control = None
        if self.pid is not None:
            pid, self.pid = self.pid, None
            if not responsive(pid):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            reap(pid, timeout=10.0)


class SpawnError(Exception):
    """The fork server could not start a child (e.g. the submission file is unreadable)."""


class ServerLost(OSError):
    """The fork server is gone, stopped or not answering."""


class ForkServerClient:
    """A trusted worker's end of its connection to the fork server."""

    # A server that takes this long to answer is hung: the request fails (as a lost sandbox)
    # instead of waiting forever. A stopped one is noticed within a poll.
    TIMEOUT_S = 30.0
    _POLL_S = 0.25

    def __init__(self, sock: socket.socket, server_pid: int | None = None) -> None:
        self.sock = sock
        self.server_pid = server_pid
        # each child's scratch folder and whether it is a keeper's tmpfs (see spawn)
        self.scratches: dict[int, tuple[str, bool]] = {}
        self.sock.settimeout(self._POLL_S)

    def _receive(self, max_fds: int = 0) -> tuple[dict[str, Any], list[int]]:
        """The server's answer, waiting while it runs; ServerLost once it is stopped or gone
        (a learner child of the process tier can SIGSTOP it) or past TIMEOUT_S."""
        deadline = time.monotonic() + self.TIMEOUT_S
        while True:
            ready, _, _ = select.select([self.sock], [], [], self._POLL_S)
            if ready:
                self.sock.settimeout(self.TIMEOUT_S)
                try:
                    return _recv_json(self.sock, max_fds)
                finally:
                    self.sock.settimeout(self._POLL_S)
            if self.server_pid is not None and not responsive(self.server_pid):
                raise ServerLost("the fork server stopped answering")
            if time.monotonic() >= deadline:
                raise ServerLost("the fork server did not answer in time")

    def _send(self, data: dict[str, Any]) -> None:
        if self.server_pid is not None and not responsive(self.server_pid):
            raise ServerLost("the fork server stopped answering")
        self.sock.settimeout(self.TIMEOUT_S)
        try:
            _send_json(self.sock, data)
        finally:
            self.sock.settimeout(self._POLL_S)

    def spawn(
        self,
        learner_path: str,
        learner_name: str,
        kind: str,
        limits: ChildLimits,
        display: str = "",
    ) -> tuple[int, socket.socket, int]:
        self._send(
            {
                "op": "spawn",
                "learner_path": learner_path,
                "learner_name": learner_name,
                "display": display or learner_name,
                "kind": kind,
                "limits": limits.to_dict(),
            },
        )
        reply, fds = self._receive(max_fds=2)
        if not reply.get("ok"):
            for fd in fds:
                os.close(fd)
            raise SpawnError(reply.get("error", "the fork server could not start a child"))
        sock_fd, out_fd = fds
        pid = int(reply["pid"])
        scratch, keeper = reply.get("scratch"), reply.get("keeper")
        if isinstance(scratch, str) and isinstance(keeper, bool):
            self.scratches[pid] = (scratch, keeper)
        return pid, socket.socket(fileno=sock_fd), out_fd

    def over_quota(self, pid: int) -> bool:
        """Whether the child's scratch folder holds more than its quota (the server then kills
        it, and :meth:`wait` reports it as killed by SIGXFSZ)."""
        self._send({"op": "quota", "pid": pid})
        reply, _ = self._receive()
        return reply.get("over") is not False

    def wait(self, pid: int, timeout: float | None = None) -> int | None:
        """How the child ended (a waitpid status), once it has; None if it has not ended
        within ``timeout`` seconds."""
        self._send({"op": "wait", "pid": pid, "timeout": timeout})
        reply, _ = self._receive()
        status = reply.get("status")
        return status if isinstance(status, int) else None

    def kill(self, pid: int) -> None:
        self._send({"op": "kill", "pid": pid})
        self._receive()

    def settled(self, timeout: float) -> bool:
        """Wait (``timeout`` at most) until the children of every worker whose connection has
        closed, and whatever they left behind, are gone; whether they are."""
        self._send({"op": "settled", "timeout": timeout})
        reply, _ = self._receive()
        return reply.get("settled") is True
