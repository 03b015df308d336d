"""Events a test waits on instead of polling: a file or folder changing (inotify), a process
ending (pidfd), a pipe becoming readable, and any process starting or ending (the kernel's
process connector). ``wait_until`` re-checks its condition when one of them fires, never on a
clock; its only clock is a generous bound that turns a hang into a failure.

Linux only, as the grader's sandbox is; ctypes for inotify, as the standard library has none.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import select
import socket
import struct
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import IO, Protocol

# <sys/inotify.h>
IN_MODIFY = 0x002
IN_ATTRIB = 0x004
IN_CLOSE_WRITE = 0x008
IN_MOVED_FROM = 0x040
IN_MOVED_TO = 0x080
IN_CREATE = 0x100
IN_DELETE = 0x200
IN_DELETE_SELF = 0x400
IN_ISDIR = 0x40000000
IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
_CHANGES = (
    IN_MODIFY
    | IN_ATTRIB
    | IN_CLOSE_WRITE
    | IN_MOVED_FROM
    | IN_MOVED_TO
    | IN_CREATE
    | IN_DELETE
    | IN_DELETE_SELF
)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then len bytes of name)


class Source(Protocol):
    """Something with a file descriptor that becomes readable when it has news."""

    def fileno(self) -> int: ...

    def drain(self) -> None: ...

    def close(self) -> None: ...


class FileEvents:
    """Changes to files and folders: a path that is a folder is watched with everything under
    it (folders made later too); a file by its folder; a path not there yet by the folders
    on the way to it, as they are made."""

    def __init__(self, paths: Iterable[Path]) -> None:
        self._libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        self._fd = self._libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        if self._fd < 0:
            raise OSError(ctypes.get_errno(), "inotify_init1")
        self._targets = [Path(p).resolve() for p in paths]
        self._folders: dict[int, Path] = {}
        for target in self._targets:
            start = target
            while not start.is_dir():
                start = start.parent
            self._watch(start)

    def _wanted(self, folder: Path) -> bool:
        """A folder on the way to a target, or the target's own or one under it."""
        return any(folder == t or folder in t.parents or t in folder.parents for t in self._targets)

    def _watch(self, folder: Path) -> None:
        if not self._wanted(folder):
            return
        wd = self._libc.inotify_add_watch(self._fd, os.fsencode(folder), _CHANGES)
        if wd < 0:
            return  # gone again, or not a folder: its parent's watch says so
        self._folders[wd] = folder
        try:
            children = [c for c in folder.iterdir() if c.is_dir() and not c.is_symlink()]
        except OSError:
            return
        for child in children:  # made before the watch began
            self._watch(child)

    def fileno(self) -> int:
        return self._fd

    def drain(self) -> None:
        while True:
            try:
                data = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            at = 0
            while at < len(data):
                wd, mask, _, size = _EVENT.unpack_from(data, at)
                name = data[at + _EVENT.size : at + _EVENT.size + size].rstrip(b"\0")
                at += _EVENT.size + size
                folder = self._folders.get(wd)
                if folder is not None and mask & IN_ISDIR and mask & (IN_CREATE | IN_MOVED_TO):
                    self._watch(folder / os.fsdecode(name))

    def close(self) -> None:
        os.close(self._fd)


class Ended:
    """A process ending (a zombie has ended), on the kernel's word: its pidfd becomes readable."""

    def __init__(self, pid: int) -> None:
        try:
            self._fd = os.pidfd_open(pid)
        except ProcessLookupError:  # ended and reaped already: a pipe that is readable now
            read, write = os.pipe()
            os.close(write)
            self._fd = read

    def fileno(self) -> int:
        return self._fd

    fired = False

    def drain(self) -> None:
        self.fired = True  # stays readable: looked at once more, then no longer waited on

    def close(self) -> None:
        os.close(self._fd)


class Output:
    """What a child writes to a pipe of the test's own (its stdout), gathered as it comes:
    the condition reads ``text``; ``closed`` once the child closed its end."""

    def __init__(self, pipe: int | IO[bytes] | IO[str]) -> None:
        self._fd = pipe if isinstance(pipe, int) else pipe.fileno()
        os.set_blocking(self._fd, False)
        self._data = b""
        self.closed = False

    @property
    def text(self) -> str:
        return self._data.decode("utf-8", errors="replace")

    def fileno(self) -> int:
        return self._fd

    def drain(self) -> None:
        while not self.closed:
            try:
                chunk = os.read(self._fd, 1 << 16)
            except BlockingIOError:
                return
            self._data += chunk
            self.closed = not chunk

    @property
    def fired(self) -> bool:
        return self.closed

    def close(self) -> None:
        pass


# <linux/connector.h>, <linux/cn_proc.h>
_NETLINK_CONNECTOR = 11
_CN_IDX_PROC = 1
_CN_VAL_PROC = 1
_PROC_CN_MCAST_LISTEN = 1
_NLMSG_DONE = 3


class Processes:
    """Any process starting or ending on the machine: the kernel's process connector tells
    its listeners of every fork, exec and exit. It needs CAP_NET_ADMIN (root, as the sandbox
    tests run); ``available`` says whether the kernel let this process listen."""

    def __init__(self) -> None:
        self.available = False
        self._sock = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, _NETLINK_CONNECTOR)
        try:
            self._sock.bind((0, _CN_IDX_PROC))
            op = struct.pack("I", _PROC_CN_MCAST_LISTEN)
            body = struct.pack("IIIIHH", _CN_IDX_PROC, _CN_VAL_PROC, 0, 0, len(op), 0) + op
            self._sock.send(struct.pack("IHHII", 16 + len(body), _NLMSG_DONE, 0, 0, 0) + body)
            self._sock.setblocking(False)
            self.available = True
        except OSError:
            self._sock.close()

    def fileno(self) -> int:
        return self._sock.fileno()

    def drain(self) -> None:
        while True:
            try:
                self._sock.recv(1 << 16)
            except (BlockingIOError, InterruptedError):
                return

    def close(self) -> None:
        self._sock.close()


def processes() -> Processes:
    return Processes()


# Where the kernel offers no event for a process starting (no CAP_NET_ADMIN for the process
# connector), the condition is looked at again this often: the one clock left, and only there.
UNPRIVILEGED_RECHECK_S = 0.1


def wait_until(
    done: Callable[[], bool],
    shown: Callable[[], str],
    *,
    on: Iterable[Source | Path],
    bound: float = 120,
) -> None:
    """Until ``done()`` holds, looked at again whenever one of the sources ``on`` fires: a
    path (a file or folder changes), :class:`Ended`, :class:`Output`, :func:`processes`.
    ``bound``: a generous limit that turns a hang into a failure with ``shown()``, not a
    measurement; a condition that fires no event (a source missing) fails at it too."""
    given = list(on)
    paths = [s for s in given if isinstance(s, Path)]
    sources: list[Source] = [s for s in given if not isinstance(s, Path)]  # type: ignore[misc]
    made: list[Source] = []
    if paths:
        made.append(FileEvents(paths))
    sources += made
    recheck = None
    if any(isinstance(s, Processes) and not s.available for s in sources):
        recheck = UNPRIVILEGED_RECHECK_S
        sources = [s for s in sources if not (isinstance(s, Processes) and not s.available)]
    end = time.monotonic() + bound
    try:
        while not done():
            # a process that ended, or a pipe at its end, fires once: it cannot fire again
            sources = [s for s in sources if not getattr(s, "fired", False)]
            assert sources or recheck, f"nothing left that could make it hold: {shown()}"
            left = end - time.monotonic()
            assert left > 0, shown()
            ready, _, _ = select.select(sources, [], [], min(left, recheck or left))
            for source in ready:
                source.drain()
    finally:
        for source in made:
            source.close()
