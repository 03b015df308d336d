"""Process-tree plumbing shared by the fork server, the workers and the tiers (Linux prctl and
friends): nothing that a grading leaves running may outlive it."""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


@functools.cache
def libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


def die_with_parent(parent_pid: int | None = None) -> None:
    """Have the kernel kill this process when its parent dies, so that no worker, fork server
    or learner child outlives a grading process that was killed. ``parent_pid``: exit now if
    the parent already died before this took effect (not knowable inside a new PID namespace,
    where the parent is outside). A change of uid clears the setting: call it again after."""
    try:
        libc().prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent_pid is not None and os.getppid() != parent_pid:
        os._exit(70)


def become_subreaper() -> None:
    """Orphans of learner children are re-parented to this process (so it can kill them)."""
    try:
        libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def close_all_but(keep: set[int]) -> None:
    """Close every file descriptor above 2 but ``keep``."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = list(range(3, 1024))
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass


def state(pid: int) -> str | None:
    """The process's state letter from /proc (``R``, ``S``, ``T`` stopped, ``t`` traced, ``Z``
    zombie...), or None when there is no such process."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


def responsive(pid: int) -> bool:
    """Alive and able to run: not stopped, not traced, not a zombie. A stopped helper (a learner
    child of the process tier can SIGSTOP one) still counts as alive for waitpid(WNOHANG)."""
    return state(pid) not in (None, "T", "t", "Z", "X")


def reap(pid: int, timeout: float) -> int | None:
    """Wait for a child to end for at most ``timeout`` seconds, then kill it: every wait on
    another process has a bound, so a stopped or hung one can never block the caller. Returns
    its wait status (None if it was no child of ours)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return status
        if time.monotonic() >= deadline:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            try:
                return os.waitpid(pid, 0)[1]
            except ChildProcessError:
                return None
        time.sleep(0.01)
