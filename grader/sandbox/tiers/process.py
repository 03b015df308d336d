"""What a learner child may touch: limits applied in the child right after it is forked.

Applied before any learner code runs, in this order: a new session and process group (so the
trusted side can kill everything the child starts), only the answer socket and the output pipe
left open, a scrubbed environment, resource limits, (when the grader is root) an unprivileged
uid of the child's own, a scratch working directory holding only the learner's file, and torch
on one thread.

The scratch folder has a quota (``ChildLimits.file_mb``, all files together): here a child's
files land on the host's disk, so the fork server measures the folder from outside
(:func:`folder_usage`) while the child lives and stops a child past it; ``RLIMIT_FSIZE`` bounds
each single file in between. (The namespaces tier puts the folder on a tmpfs of that size.)

These apply in every tier. On their own they are the "process" tier: a separate process with
rlimits and a scrubbed environment, which keeps learner code away from the grader's memory and
verdicts but not from the file system or the network. As root (a container that refuses
namespaces, such as Gradescope's) the child also gives up root: it can then read only what any
user may, cannot signal or trace the grader, and is held to a process limit. Where the OS
allows, the namespaces tier (:mod:`grader.sandbox.tiers.namespaces`) adds private namespaces
and an unprivileged uid around them; ``docs/SECURITY.md`` says what each tier guarantees.
"""

from __future__ import annotations

import os
import resource
import signal
import stat
import sys

import torch

from grader.sandbox.policy import SCRATCH_ENTRY_BYTES, ChildLimits, SandboxPolicy
from grader.sandbox.procs import close_all_but, die_with_parent
from grader.sandbox.tiers.uids import drop_privileges


def _vm_size() -> int:
    """Bytes of address space this process maps now (Linux)."""
    try:
        with open("/proc/self/statm") as handle:
            return int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def folder_usage(path: str, cap: int) -> int:
    """What a scratch folder holds towards its quota, measured from the trusted side: every
    entry below it (never following a link) counts its size or its allocated blocks, whichever
    is larger (a sparse file counts whole), plus ``SCRATCH_ENTRY_BYTES`` (the namespaces tier's
    tmpfs is measured the same way: its pages, plus that much per file and folder).

    The walk stops as soon as the total passes ``cap``, so a folder of a million files costs no
    more than a folder just over the quota. Fail closed: a folder that cannot be read (learner
    code can take the permissions away from its own folders) counts as past the cap. A folder
    or file that vanishes during the walk (the child deletes as it goes) counts nothing."""
    total = 0
    folders = [path]
    while folders:
        try:
            with os.scandir(folders.pop()) as entries:
                for entry in entries:
                    try:
                        info = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:
                        continue
                    size = info.st_size if stat.S_ISREG(info.st_mode) else 0
                    total += max(size, info.st_blocks * 512) + SCRATCH_ENTRY_BYTES
                    if stat.S_ISDIR(info.st_mode):
                        folders.append(entry.path)
                    if total > cap:
                        return total
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError:
            return cap + 1
    return total


def _set_limit(which: int, value: int) -> None:
    _, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    try:
        resource.setrlimit(which, (value, hard if hard != resource.RLIM_INFINITY else value))
    except (ValueError, OSError):
        resource.setrlimit(which, (value, hard))


def enter(
    *,
    sock_fd: int,
    out_fd: int,
    scratch: str,
    kind: str,
    limits: ChildLimits,
    policy: SandboxPolicy,
    uid: int | None = None,
    parent_pid: int | None = None,
) -> None:
    """Turn this freshly forked process into a learner child. Runs before any learner code.

    ``uid``: the unprivileged uid to become (the process tier as root; the scratch folder and
    the learner's file are already its own); ``parent_pid``: the fork server, whose death must
    still end this child once the uid has changed."""
    os.setsid()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGHUP):
        signal.signal(sig, signal.SIG_DFL)
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:
        pass

    # Standard streams: nothing in, everything out to the capped output pipe.
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    close_all_but({sock_fd})

    home = scratch
    env = {key: os.environ[key] for key in policy.env if key in os.environ}
    env.update(
        PATH="/usr/bin:/bin",
        HOME=home,
        TMPDIR=scratch,
        PYTHONDONTWRITEBYTECODE="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONIOENCODING="utf-8",
    )
    if kind == "cpu":
        env["CUDA_VISIBLE_DEVICES"] = ""
    os.environ.clear()
    os.environ.update(env)

    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_CPU, limits.cpu_seconds)
    _set_limit(resource.RLIMIT_FSIZE, limits.file_mb << 20)
    _set_limit(resource.RLIMIT_NOFILE, limits.open_files)
    if kind == "cpu":
        # CUDA maps hundreds of GiB of address space, so only CPU children get this limit;
        # CUDA children are watched from the trusted side instead (GPU.md).
        _set_limit(resource.RLIMIT_AS, _vm_size() + (limits.memory_mb << 20))
    if uid is not None:
        drop_privileges(uid)
        die_with_parent(parent_pid)  # a change of uid cleared the parent-death signal

    os.chdir(scratch)
    sys.path[:] = [scratch] + [p for p in sys.path if "site-packages" in p or "python3" in p]
    sys.dont_write_bytecode = True
    torch.set_num_threads(1)
