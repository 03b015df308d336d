"""Process-tree plumbing shared by the fork server, the workers and the tiers (Linux prctl and
friends): nothing that a grading leaves running may outlive it."""

from __future__ import annotations

import ctypes
import functools
import os
import signal

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
