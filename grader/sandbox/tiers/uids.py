"""The unprivileged uids learner children run as when the grader runs as root.

Root ignores ``RLIMIT_NPROC``, can read every file of the host and signal every process; a
learner child that kept root's uid would have all of that. So a grader running as root gives
each learner child a uid of its own, in either tier: the namespaces tier inside its namespaces,
the process tier (a container that refuses namespaces, such as Gradescope's) on the host. The
uids of a run are a block of UID_SPAN picked at random in [UID_FLOOR, UID_FLOOR + UID_BLOCKS *
UID_SPAN): never a real user's, and never shared with a concurrent grading run (whose children
could otherwise signal or trace them).
"""

from __future__ import annotations

import os
import resource
import secrets

UID_FLOOR = 200_000
UID_SPAN = 4096
UID_BLOCKS = 4096
NPROC = 512  # processes and threads per learner uid: generous for torch, fatal to a fork bomb


def uid_block() -> int:
    """The first uid of a block of UID_SPAN unused by any concurrent run (chosen at random)."""
    return UID_FLOOR + secrets.randbelow(UID_BLOCKS) * UID_SPAN


def drop_privileges(uid: int) -> None:
    """Become ``uid`` for good (real, effective and saved ids, no supplementary groups), with
    a process limit that this uid, unlike root, cannot ignore. A change of uid clears Linux's
    parent-death signal: the caller arms it again."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))


def uid_trial() -> bool:
    """Whether this process may give a child an unprivileged uid (root may, unless a container
    took CAP_SETUID away), proven in a short-lived child that does it."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            drop_privileges(uid_block() + UID_SPAN - 1)
            code = 0 if os.getuid() != 0 and os.getgroups() == [] else 1
        except BaseException:  # noqa: BLE001 - any failure means no: never return into the caller
            code = 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
