"""The trusted side's learner children: one per device kind, replaced whenever one is lost.

Every limit is enforced from here, outside the learner's process: a wall-clock deadline per call
and for the whole grading (on expiry the child and its process group are killed and a fresh child
serves the next test), a cap on captured output, a cap on answer size, and a watch on the resident
memory of CUDA children (which cannot have an address-space limit).
"""

from __future__ import annotations

import ast
import errno
import os
import re
import secrets
import select
import signal
import socket
import time
from dataclasses import dataclass
from typing import Any

from grader.i18n import Text
from grader.notebooks import line_en, line_zh
from grader.sandbox import faults, protocol
from grader.sandbox.forkserver import ForkServerClient, SpawnError
from grader.sandbox.messages import Answer, ErrorFrame, ErrorInfo, Hello, MessageError
from grader.sandbox.policy import ChildLimits
from grader.sandbox.protocol import SNAPSHOT_SIGNAL
from grader.sandbox.tiers import namespaces
from grader.sandbox.tiers import process as process_tier

_READ = 1 << 16
# The most one drain reads. A child that writes as fast as it is read never leaves its pipe
# empty: without a bound, draining it would last as long as the learner likes.
_DRAIN_BYTES = 16 << 20
# What the snapshot keeps while it looks for the stack dump in a flood of output: a dump of at
# most a hundred frames (faulthandler's own cap) fits well within it.
_DUMP_WINDOW = 256 << 10


class OutputCapture:
    """What learner code printed, capped: the head and the tail are kept, the middle counted."""

    def __init__(self, cap_bytes: int) -> None:
        self.cap = cap_bytes
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0

    def add(self, data: bytes) -> None:
        head_room = self.cap * 3 // 4 - len(self._head)
        if head_room > 0:
            self._head += data[:head_room]
            data = data[head_room:]
        if not data:
            return
        tail_cap = self.cap - self.cap * 3 // 4
        self._tail += data
        if len(self._tail) > tail_cap:
            cut = len(self._tail) - tail_cap
            self._dropped += cut
            del self._tail[:cut]

    def take(self) -> tuple[str, bool]:
        truncated = self._dropped > 0
        if truncated:  # the cut falls between words, so a warning's last words stay whole
            kept_head, kept_tail = _word_cut(bytes(self._head), bytes(self._tail))
            self._dropped += len(self._head) - len(kept_head) + len(self._tail) - len(kept_tail)
            self._head, self._tail = bytearray(kept_head), bytearray(kept_tail)
        if truncated:
            head = self._head.decode("utf-8", "replace")
            tail = self._tail.decode("utf-8", "replace")
            text = f"{head}\n[... {self._dropped:,} bytes of output cut here ...]\n{tail}"
        else:  # one text: a character that spans the head and the tail stays whole
            text = (self._head + self._tail).decode("utf-8", "replace")
        self._head, self._tail, self._dropped = bytearray(), bytearray(), 0
        return text, truncated


_SPACE = re.compile(rb"\s")
WORD_WINDOW = 200  # bytes: how far a cut moves back (or on) to fall between two words


def _word_cut(head: bytes, tail: bytes) -> tuple[bytes, bytes]:
    """``head`` ended and ``tail`` started at the nearest whitespace within WORD_WINDOW bytes
    of the cut (so no word, and no UTF-8 character, is split); else at the nearest character
    boundary."""
    window = head[-WORD_WINDOW:]
    spaces = [m.start() for m in _SPACE.finditer(window)]
    if spaces:
        head = head[: len(head) - len(window) + spaces[-1]]
    else:
        while head and head[-1] & 0xC0 == 0x80:  # continuation bytes of a cut character
            head = head[:-1]
        if head and head[-1] >= 0xC0:  # its lead byte
            head = head[:-1]
    found = _SPACE.search(tail[:WORD_WINDOW])
    if found:
        tail = tail[found.end() :]
    else:
        while tail and tail[0] & 0xC0 == 0x80:
            tail = tail[1:]
    return head, tail


class _Expired(Exception):
    pass


class _Lost(Exception):
    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


class _Malformed(_Lost):
    """The child answered, but not with a well-formed answer to the question asked (forged
    frames, a wrong request id): it is still alive, so there is no exit status to wait for."""


class _MemoryExceeded(Exception):
    pass


class _OverQuota(Exception):
    """The child's scratch folder holds more than its quota."""


@dataclass
class LearnerChild:
    pid: int
    sock: socket.socket
    out_fd: int
    kind: str
    hello: Hello | None = None

    def __post_init__(self) -> None:
        self.sock.setblocking(False)
        os.set_blocking(self.out_fd, False)

    def drain(self, capture: OutputCapture) -> None:
        """Read whatever output is waiting, without blocking, up to ``_DRAIN_BYTES`` (a child
        still writing is read again by the next exchange, or killed)."""
        budget = _DRAIN_BYTES
        while budget > 0:
            try:
                data = os.read(self.out_fd, _READ)
            except BlockingIOError:
                return
            except OSError:
                return
            if not data:
                return
            budget -= len(data)
            capture.add(data)

    def exchange(
        self,
        header: dict[str, Any] | None,
        blobs: list[memoryview],
        deadline: float,
        capture: OutputCapture,
        max_answer: int,
        rss_limit: int | None,
    ) -> tuple[dict[str, Any], list[bytearray]]:
        """Send a request (None: just wait for the next message) and read the answer."""
        outgoing = (
            [memoryview(p).cast("B") for p in protocol.pack(header, blobs)]
            if header is not None
            else []
        )
        reader = protocol.MessageReader(max_answer)
        out_open = True
        next_rss = time.monotonic() + 0.1
        while True:
            now = time.monotonic()
            if now >= deadline:
                raise _Expired
            if rss_limit is not None and now >= next_rss:
                next_rss = now + 0.1
                if _rss(self.pid) > rss_limit:
                    raise _MemoryExceeded
            wait = min(deadline - now, 0.1 if rss_limit is not None else deadline - now)
            rlist = [self.sock] + ([self.out_fd] if out_open else [])
            wlist = [self.sock] if outgoing else []
            try:
                readable, writable, _ = select.select(rlist, wlist, [], max(wait, 0))
            except (OSError, ValueError) as exc:
                raise _Lost(str(exc)) from None
            if self.out_fd in readable:
                try:
                    data = os.read(self.out_fd, _READ)
                except BlockingIOError:
                    data = None
                except OSError:
                    data = b""
                if data == b"":
                    out_open = False
                elif data:
                    capture.add(data)
            if writable and outgoing:
                try:
                    sent = self.sock.send(outgoing[0])
                except BlockingIOError:
                    sent = 0
                except OSError as exc:
                    raise _Lost(str(exc)) from None
                if sent == len(outgoing[0]):
                    outgoing.pop(0)
                else:
                    outgoing[0] = outgoing[0][sent:]
            if self.sock in readable:
                target = reader.buffer()
                try:
                    count = self.sock.recv_into(target, len(target))
                except BlockingIOError:
                    continue
                except OSError as exc:
                    if exc.errno in (errno.ECONNRESET, errno.EPIPE):
                        raise _Lost("connection reset") from None
                    raise _Lost(str(exc)) from None
                if count == 0:
                    raise _Lost("connection closed")
                try:
                    if reader.advance(count):
                        self.drain(capture)
                        assert reader.message is not None
                        return reader.message
                except protocol.ProtocolError as exc:
                    raise _Malformed(f"malformed answer: {exc}") from None

    def pending(self) -> bool:
        """Whether bytes beyond the answer are waiting (only forged frames could be)."""
        try:
            return bool(self.sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except OSError:  # nothing waiting (BlockingIOError), or the socket is gone
            return False

    def close(self) -> None:
        try:
            self.sock.close()
        finally:
            try:
                os.close(self.out_fd)
            except OSError:
                pass


_DUMP_HEAD = re.compile(
    r"(Stack|(Current thread|Thread) 0x[0-9a-f]+[^\n]*?) \(most recent call first\):$"
)
_DUMP_FRAME = re.compile(r'^\s+File "(.*)", line (\d+) in (.*)$')
_FRAME_START = b'  File "'


def _split_dump(text: str) -> tuple[list[tuple[str, int, str]], str]:
    """A faulthandler stack dump's frames (innermost first), and the rest of the output.

    The dump is written from a signal handler, so it can start in the middle of a line the
    learner's code was writing: what precedes its header on that line is the learner's."""
    frames: list[tuple[str, int, str]] = []
    rest: list[str] = []
    in_dump = False
    for line in text.splitlines(keepends=True):
        bare = line.rstrip("\n")
        head = _DUMP_HEAD.search(bare)
        if head:
            in_dump = True
            if head.start():
                rest.append(bare[: head.start()])
            continue
        match = _DUMP_FRAME.match(bare) if in_dump else None
        if match:
            frames.append((match.group(1), int(match.group(2)), match.group(3)))
            continue
        if in_dump and not bare.strip():
            continue
        in_dump = False
        rest.append(line)
    return frames, "".join(rest)


def _dump_complete(data: bytes | bytearray) -> bool:
    """Whether a whole dump has arrived: its header, then frame lines, then something else (a
    child that keeps writing never pauses for the end to be told by silence)."""
    at = data.rfind(b"most recent call first):\n")
    if at < 0:
        return False
    lines = bytes(data[data.index(b"\n", at) + 1 :]).split(b"\n")
    for line in lines[:-1]:
        if not line.startswith(_FRAME_START):
            return True
    tail = lines[-1]
    return bool(tail) and not _FRAME_START.startswith(tail[: len(_FRAME_START)])


def _loop_head(path: str, line: int) -> int:
    """The line to name for code stopped at ``line``: the header of the innermost loop around
    it (where it was stuck, whichever line of the body it happened to be on when it was
    stopped, so the same submission always gets the same message), else the line itself."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return line
    best = None
    loops = (
        ast.For,
        ast.AsyncFor,
        ast.While,
        ast.ListComp,
        ast.SetComp,
        ast.DictComp,
        ast.GeneratorExp,
    )
    for node in ast.walk(tree):
        if isinstance(node, loops):
            end = getattr(node, "end_lineno", None) or node.lineno
            if node.lineno <= line <= end and (best is None or node.lineno >= best.lineno):
                best = node
    return best.lineno if best is not None else line


def _line_of(path: str, number: int) -> str:
    """Line ``number`` of the learner's file (the staged copy on this side)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            for n, text in enumerate(handle, 1):
                if n == number:
                    return text.strip()[:300]
    except OSError:
        pass
    return ""


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SANDBOX_COPY = re.compile(r"/tmp/(?:work|grader-child-[\w-]+)/")


def clean_output(text: str, learner_file: str, display: str) -> str:
    """What the learner's code printed, as the learner should read it: the sandbox's copy of
    their file named as they named it, and the grader's own frames (a traceback or a warning
    that passes through the grader's code) left out."""
    if not text:
        return text
    text = _SANDBOX_COPY.sub("", text.replace(f"/tmp/work/{learner_file}", display))
    lines = text.splitlines(keepends=True)
    kept: list[str] = []
    skip_code = False
    for line in lines:
        if skip_code:
            skip_code = False
            if line.startswith("    ") and "File " not in line:
                continue  # the source line under a grader frame of a traceback
        if _PACKAGE in line:
            stripped = line.lstrip()
            if stripped.startswith('File "'):
                skip_code = True
                continue
            line = line.replace(_PACKAGE, "<grader>")
        kept.append(line)
    return "".join(kept)


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


class ChildPool:
    """The learner children of one grading, and the deadlines they run under."""

    def __init__(
        self,
        client: ForkServerClient,
        learner_path: str,
        learner_name: str,
        *,
        display: str = "",
        call_timeout_s: float,
        total_deadline: float,
        memory_mb: int,
        output_bytes: int,
        limits: ChildLimits | None = None,
    ) -> None:
        self.client = client
        self.learner_path = learner_path
        self.learner_name = learner_name
        self.display = display or learner_name
        self.call_timeout_s = call_timeout_s
        self.total_deadline = total_deadline
        self.memory_mb = memory_mb
        self.limits = limits or ChildLimits(memory_mb=memory_mb)
        self.capture = OutputCapture(output_bytes)
        self.children: dict[str, LearnerChild] = {}
        self.import_failures: dict[str, faults.LearnerFault] = {}
        # children started ahead of their first test, with the deadline of their import
        self.starting: dict[str, tuple[LearnerChild, tuple[float, bool]]] = {}
        # children killed by close() whose end nobody has waited for yet
        self.killed: list[int] = []

    # -- children ---------------------------------------------------------------------------

    def _rss_limit(self, kind: str) -> int | None:
        return (self.memory_mb << 20) + (6 << 30) if kind == "cuda" else None

    def _deadline(self) -> tuple[float, bool]:
        """The deadline for the next exchange, and whether it is the whole grading's."""
        call = time.monotonic() + self.call_timeout_s
        if self.total_deadline <= call:
            return self.total_deadline, True
        return call, False

    def prestart(self, kind: str) -> None:
        """Start a child of this kind now, for the first test that needs one: its fork and the
        import of the learner's file then run while pytest starts up. Its import's time limit
        counts from now, as it would from its first test. A child that cannot be started now
        is tried again by that test, which meets the fault."""
        if kind in self.children or kind in self.import_failures or kind in self.starting:
            return
        try:
            self.starting[kind] = (self._spawn(kind), self._deadline())
        except (SpawnError, OSError, EOFError, ValueError):
            return

    def _spawn(self, kind: str) -> LearnerChild:
        pid, sock, out_fd = self.client.spawn(
            self.learner_path, self.learner_name, kind, self.limits, self.display
        )
        return LearnerChild(pid, sock, out_fd, kind)

    def child(self, kind: str) -> LearnerChild:
        """A live child of this kind whose import succeeded (raises the import's fault)."""
        if kind in self.import_failures:
            raise self.import_failures[kind]
        live = self.children.get(kind)
        if live is not None:
            return live
        started = self.starting.pop(kind, None)
        if started is not None:
            child, (deadline, total) = started
            return self._meet(kind, child, deadline, total)
        try:
            child = self._spawn(kind)
        except SpawnError as exc:
            unreadable = faults.LearnerUnavailable(
                Text(str(exc), str(exc)), evidence=("unreadable_file",)
            )
            raise self._import_failed(kind, unreadable) from None
        except (OSError, EOFError, ValueError):
            # The fork server is gone (in the process tier, learner code can kill it).
            lost = faults.LearnerCrashed(
                Text(
                    "The sandbox that runs your code stopped working during this grading, so "
                    "this test could not run.",
                    "运行你代码的沙箱在本次评分中停止工作，因此本测试无法运行。",
                ),
                evidence=("process_died", "sandbox_lost"),
            )
            raise self._import_failed(kind, lost) from None
        deadline, total = self._deadline()
        return self._meet(kind, child, deadline, total)

    def _meet(self, kind: str, child: LearnerChild, deadline: float, total: bool) -> LearnerChild:
        """Wait for a new child's hello: its import's outcome."""
        try:
            header, _ = child.exchange(
                None, [], deadline, self.capture, 1 << 20, self._rss_limit(kind)
            )
            hello = Hello.from_wire(header)
            self._check_quota(child)
        except _Expired:
            where = self._snapshot(child)
            self._discard(child)
            timeout = self._timeout_fault(total, during_import=True, where=where)
            raise self._import_failed(kind, timeout) from None
        except MessageError as exc:
            self._discard(child)
            malformed = self._lost_fault(_Malformed(f"malformed answer: {exc}"), None, "", True)
            raise self._import_failed(kind, malformed) from None
        except (_Lost, _MemoryExceeded, _OverQuota) as exc:
            status = self._discard(child, ended=type(exc) is _Lost)
            ended = self._lost_fault(exc, status, "", during_import=True)
            raise self._import_failed(kind, ended) from None
        if hello.error is not None:
            self._discard(child)
            fault = faults.raised(hello.error, "", during_import=True, source=self._source())
            raise self._import_failed(kind, fault)
        child.hello = hello
        self.children[kind] = child
        return child

    def _check_quota(self, child: LearnerChild) -> None:
        """Before an answer counts: the child's scratch folder must hold no more than its
        quota (``ChildLimits.file_mb``). Measured here, from outside the child, without a
        round trip: the host folder (process tier) or the keeper's tmpfs (namespaces tier).
        Fail closed: where this side cannot measure, the fork server is asked, and a server
        that cannot say loses the answer too."""
        quota = self.limits.file_mb << 20
        where = self.client.scratches.get(child.pid)
        used: int | None = None
        if where is not None:
            scratch, keeper = where
            if keeper:
                used = namespaces.keeper_scratch_usage(child.pid)
            else:
                used = process_tier.folder_usage(scratch, quota)
        if used is None:
            try:
                over = self.client.over_quota(child.pid)
            except (OSError, EOFError, ValueError):
                raise _Lost("the sandbox stopped answering") from None
            if over:
                raise _OverQuota
        elif used > quota:
            raise _OverQuota

    def _source(self) -> bytes | None:
        """The learner's file, read here (never from the child): None where it cannot be."""
        try:
            with open(self.learner_path, "rb") as f:
                return f.read(1 << 20)
        except OSError:
            return None

    def _import_failed(self, kind: str, fault: faults.LearnerFault) -> faults.LearnerFault:
        """Remember why no child of this kind can serve: every later test gets the same fault."""
        self.import_failures[kind] = fault
        return fault

    def _discard(self, child: LearnerChild, ended: bool = False) -> int | None:
        """Kill a child (and everything it started) and learn how it ended.

        ``ended``: the child closed its side, so it is ending by itself; its own exit status
        (an exit code, a segfault) is worth a moment's wait before the kill would replace it.
        """
        self.children = {k: c for k, c in self.children.items() if c is not child}
        try:
            status = self.client.wait(child.pid, timeout=2.0) if ended else None
            if status is None:
                self.client.kill(child.pid)
                status = self.client.wait(child.pid)
        except (OSError, EOFError, ValueError):
            status = None
        child.drain(self.capture)
        child.close()
        return status

    def _timeout_fault(
        self,
        total: bool,
        during_import: bool,
        function: str = "",
        where: tuple[int, str] | None = None,
    ) -> faults.LearnerTimeout:
        error = None
        if where is not None:
            frame = ErrorFrame(where[0], where[1], _line_of(self.learner_path, where[0]))
            error = ErrorInfo("call", "TimeoutError", ("TimeoutError",), "", (frame,))
        at_en = (
            f" It was at {line_en(where[0])} (in {where[1]}) when it was stopped." if where else ""
        )
        at_zh = f"它被停止时正在执行{line_zh(where[0])}（{where[1]} 中）。" if where else ""
        if total:
            return faults.LearnerTimeout(
                Text(
                    "The grading ran out of its total time limit before this test could finish."
                    + at_en,
                    "评分在本测试完成前就用完了总时间限制。" + at_zh,
                ),
                evidence=("total_timeout",),
                error=error,
            )
        seconds = f"{self.call_timeout_s:g}"
        if during_import:
            return faults.LearnerTimeout(
                Text(
                    f"Importing your file took longer than {seconds} s; is there an endless loop or "
                    "slow work at the top level of the file?" + at_en,
                    f"导入你的文件超过了 {seconds} 秒；文件顶层是否有死循环或耗时的代码？" + at_zh,
                ),
                evidence=("timeout", "import_timeout"),
                error=error,
            )
        return faults.LearnerTimeout(
            Text(
                f"{function} did not return within {seconds} s (an endless loop, or far too slow)."
                + at_en,
                f"{function} 在 {seconds} 秒内没有返回（死循环，或者太慢）。" + at_zh,
            ),
            evidence=("timeout",),
            error=error,
        )

    def _snapshot(self, child: LearnerChild) -> tuple[int, str] | None:
        """Where the learner's code was when its deadline passed: the child is asked to write
        its stack (faulthandler, from C: a call holding the GIL does not stop it) into its
        output; the stack is read from there and taken out of what the learner sees. None when
        no frame of the learner's file shows (or the child does not answer in time)."""
        child.drain(self.capture)
        try:
            os.kill(child.pid, SNAPSHOT_SIGNAL)
        except OSError:
            return None
        data = bytearray()
        deadline = time.monotonic() + 2.0  # a loaded machine may take a while to schedule it
        while time.monotonic() < deadline:
            ready, _, _ = select.select([child.out_fd], [], [], 0.05)
            if not ready:
                if b"most recent call first" in data:
                    break
                continue
            try:
                chunk = os.read(child.out_fd, _READ)
            except BlockingIOError:
                continue
            except OSError:
                break
            if not chunk:
                break
            data += chunk
            if _dump_complete(data):
                break
            if len(data) > _DUMP_WINDOW:
                # A flood of output and no whole dump yet: what cannot hold its start is output.
                keep = len(data) - _DUMP_WINDOW // 2
                self.capture.add(bytes(data[:keep]))
                del data[:keep]
        stack, rest = _split_dump(data.decode("utf-8", "replace"))
        if rest:
            self.capture.add(rest.encode())
        for path, line, function in stack:
            if path == self.display:
                return _loop_head(self.learner_path, line), function
        return None

    def _lost_fault(
        self, exc: Exception, status: int | None, function: str, during_import: bool
    ) -> faults.LearnerFault:
        if isinstance(exc, _OverQuota):
            return faults.ended(
                int(signal.SIGXFSZ), function, during_import, self.memory_mb, self.limits.file_mb
            )
        if isinstance(exc, _MemoryExceeded):
            return faults.LearnerCrashed(
                Text(
                    f"Your code used more than the {self.memory_mb} MB of memory allowed.",
                    f"你的代码使用的内存超过了允许的 {self.memory_mb} MB。",
                ),
                evidence=("memory_limit",),
            )
        if isinstance(exc, _Malformed):
            return faults.AnswerUnreadable(
                Text(
                    f"The answer from your code could not be read ({exc.reason}).",
                    f"无法读取你的代码返回的答案（{exc.reason}）。",
                ),
                evidence=("unreadable_answer",),
            )
        return faults.ended(status, function, during_import, self.memory_mb, self.limits.file_mb)

    # -- requests ---------------------------------------------------------------------------

    def request(
        self,
        kind: str,
        header: dict[str, Any],
        blobs: list[memoryview],
        function: str,
        max_answer: int,
    ) -> tuple[Answer, list[bytearray]]:
        child = self.child(kind)
        deadline, total = self._deadline()
        # A fresh random id per request, echoed by the answer: learner code that writes forged
        # frames into its own answer channel cannot shift answers onto later questions.
        header = {**header, "id": secrets.token_hex(8)}
        try:
            raw, answer_blobs = child.exchange(
                header, blobs, deadline, self.capture, max_answer, self._rss_limit(kind)
            )
            try:
                answer = Answer.from_wire(raw)
            except MessageError as exc:
                raise _Malformed(f"malformed answer: {exc}") from None
            if answer.id != header["id"] or child.pending():
                raise _Malformed("malformed answer: it does not answer the question asked")
            self._check_quota(child)
            return answer, answer_blobs
        except _Expired:
            where = self._snapshot(child)
            self._discard(child)
            raise self._timeout_fault(
                total, during_import=False, function=function, where=where
            ) from None
        except (_Lost, _MemoryExceeded, _OverQuota) as exc:
            status = self._discard(child, ended=type(exc) is _Lost)
            raise self._lost_fault(exc, status, function, during_import=False) from None

    def functions(self, kind: str) -> list[str]:
        hello = self.child(kind).hello
        return list(hello.functions) if hello is not None else []

    def take_output(self) -> tuple[str, bool]:
        for child in list(self.children.values()):
            child.drain(self.capture)
        text, truncated = self.capture.take()
        return clean_output(text, self.learner_name, self.display), truncated

    def close(self) -> None:
        """Kill every child. Their exit status is of no interest any more, but their end is:
        see :meth:`wait_ended`, which the worker calls before it exits."""
        started = [child for child, _ in self.starting.values()]
        self.starting = {}
        for child in [*self.children.values(), *started]:
            try:
                self.client.kill(child.pid)
                self.killed.append(child.pid)
            except (OSError, EOFError, ValueError):
                pass
            child.drain(self.capture)
            child.close()
        self.children = {}

    def wait_ended(self, deadline: float) -> None:
        """Wait (until ``deadline`` at most) for the children :meth:`close` killed to be gone.

        A SIGKILL is not an end: a child holding a large heap takes a moment of CPU to be torn
        down, and the fork server reports it ended only once it and whatever it started are
        reaped. Once the grading has returned, no learner process may still run; and the next
        grading's children should not import while these are torn down.
        """
        killed, self.killed = self.killed, []
        for pid in killed:
            try:
                self.client.wait(pid, timeout=max(deadline - time.monotonic(), 0.0))
            except (OSError, EOFError, ValueError):
                return
