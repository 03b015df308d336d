"""The namespaces tier: Linux namespaces around each learner child, entered without exec.

The fork server forks a *keeper*; the keeper ``unshare``s new PID, network, mount, IPC and UTS
namespaces (and a user namespace when the host is not root) and forks the learner child, PID 1
of the new PID namespace. Before any learner code runs, the child mounts a fresh ``/proc``, puts
empty read-only tmpfs over every hidden folder (the hidden tests, the solutions, the grader's
outputs, other students' submissions), gives itself private ``/tmp``, ``/var/tmp`` and
``/dev/shm``, binds its scratch folder at ``/tmp/work``, and (when the host is root) drops to an
unprivileged uid of its own with a process limit. Nothing is exec'd: the child keeps the fork
server's warm torch.

When the learner child ends, the kernel kills every process left in its PID namespace (a
``setsid()`` grandchild too). When the keeper is killed (a deadline), the child dies with it, and
so does the namespace. The keeper mirrors the child's exit status, so the fork server sees the
learner's own exit code or signal.
"""

from __future__ import annotations

import ctypes
import os
import resource
import select
import shutil
import signal
import sys
import tempfile
from collections.abc import Callable
from typing import NoReturn

from grader.sandbox.policy import SandboxPolicy
from grader.sandbox.procs import close_all_but, die_with_parent, libc
from grader.sandbox.tiers import Tier

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
UID_BASE = 61000  # learner children run as UID_BASE + n (n < UID_SPAN), never as a real user
UID_SPAN = 4000
NPROC = 512  # processes and threads per learner uid: generous for torch, fatal to a fork bomb


class NamespaceError(OSError):
    pass


def _call(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise NamespaceError(err, f"{what}: {os.strerror(err)}")


def _mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None
) -> None:
    _call(
        libc().mount(
            source.encode() if source else None,
            target.encode(),
            fstype.encode() if fstype else None,
            flags,
            data.encode() if data else None,
        ),
        f"mount {target}",
    )


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _unshare(user_namespace: bool) -> None:
    flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS
    uid, gid = os.getuid(), os.getgid()
    if user_namespace:
        flags |= CLONE_NEWUSER
    _call(libc().unshare(flags), "unshare")
    if user_namespace:
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"0 {uid} 1")
        _write("/proc/self/gid_map", f"0 {gid} 1")


def runtime_paths() -> list[str]:
    """The folders the Python runtime itself lives in (prefixes, stdlib, site-packages)."""
    candidates = {
        sys.prefix,
        sys.base_prefix,
        sys.exec_prefix,
        sys.base_exec_prefix,
        os.path.dirname(os.__file__),
        *(p for p in sys.path if p),
    }
    found = sorted({os.path.realpath(p) for p in candidates if os.path.isdir(p)})
    # keep only the outermost of nested paths: binding a folder brings everything below it
    return [
        p for p in found if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in found)
    ]


def _blocker(path: str) -> str | None:
    """The highest folder on the way to ``path`` that other users cannot enter, if any."""
    current = "/"
    for part in [*path.strip("/").split("/"), None]:
        try:
            mode = os.stat(current).st_mode
        except OSError:
            return None
        if not mode & 0o001:
            return current
        if part is None:
            return None
        current = os.path.join(current, part)
    return None


def _reach_runtime() -> None:
    """Let an unprivileged uid reach the runtime where a private folder (such as /root, when
    Python was installed there) stands in the way: an empty tmpfs replaces the private folder,
    and only the runtime's folders are bound back into it."""
    groups: dict[str, list[str]] = {}
    for path in runtime_paths():
        blocker = _blocker(path)
        if blocker is not None and blocker != "/":
            groups.setdefault(blocker, []).append(path)
    for blocker, paths in groups.items():
        fds = {path: os.open(path, os.O_PATH | os.O_DIRECTORY) for path in paths}
        _mount("tmpfs", blocker, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
        for path, fd in fds.items():
            os.makedirs(path, mode=0o755, exist_ok=True)
            _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
            os.close(fd)


def _mounts(policy: SandboxPolicy, scratch: str | None, unprivileged: bool) -> None:
    """Inside the new mount namespace: what the learner child sees of the file system."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    scratch_fd = os.open(scratch, os.O_PATH | os.O_DIRECTORY) if scratch else None
    if unprivileged:
        _reach_runtime()
    for path in policy.hidden:
        if os.path.isdir(path):
            _mount(
                "tmpfs",
                path,
                "tmpfs",
                MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
                "size=4k,mode=0755",
            )
    for path, size in policy.private_tmp:
        if os.path.isdir(path):
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=1777")
    if scratch_fd is not None:
        os.mkdir(policy.workdir, 0o700)
        _mount(f"/proc/self/fd/{scratch_fd}", policy.workdir, None, MS_BIND)
        os.close(scratch_fd)


def _drop_privileges(uid: int) -> None:
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))


def _mirror(status: int) -> NoReturn:
    """End this process the way the learner child ended."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # these cannot (and need not) be reset
            signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 70)


def keep(
    tier: Tier,
    *,
    policy: SandboxPolicy,
    scratch: str,
    uid: int | None,
    learner: Callable[[str], NoReturn],
) -> NoReturn:
    """The keeper's body (in a process just forked by the fork server). Never returns.

    The keeper unshares the namespaces and forks the learner child, which is PID 1 inside them:
    when it ends, the kernel kills whatever it left in its PID namespace. (As PID 1 it ignores
    signals it sends itself; faults such as a segfault still end it.) The keeper waits, and
    ends the way the child ended, so the fork server sees the child's own exit status.
    ``learner(workdir)`` turns the child into the learner child.
    """
    code = 70
    try:
        # The fork server's signal plumbing is not the keeper's: its wakeup pipe is closed below.
        signal.set_wakeup_fd(-1)
        for sig in (signal.SIGCHLD, signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_DFL)
        os.setpgid(0, 0)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        _unshare(tier.user_namespace)
        # Open while the keeper lives: the child can tell whether the keeper died before its
        # parent-death signal was (re)armed.
        keeper_alive, keeper_alive_w = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                os.close(keeper_alive_w)
                die_with_parent()
                _mounts(policy, scratch, unprivileged=uid is not None)
                if uid is not None:
                    _drop_privileges(uid)
                    die_with_parent()  # a change of uid clears the parent-death signal
                if select.select([keeper_alive], [], [], 0)[0]:  # EOF: the keeper is gone
                    os._exit(71)
                os.close(keeper_alive)
                learner(policy.workdir)
            finally:
                os._exit(71)
        close_all_but({keeper_alive_w})
        _, status = os.waitpid(child, 0)
        _mirror(status)
    except BaseException:  # noqa: BLE001 - the keeper must never return into the fork server
        os._exit(code)


def detect(policy: SandboxPolicy, requested: str | None = None) -> Tier:
    """The strongest tier this machine allows, proven by a trial run of the whole set-up.

    ``requested`` (from GRADER_ISOLATION) forces "process", or demands "namespaces" (an error
    when they are not available).
    """
    if requested == "process" or not sys.platform.startswith("linux"):
        return Tier("process")
    for user_namespace in (False, True) if os.getuid() == 0 else (True,):
        if _trial(Tier("namespaces", user_namespace), policy):
            return Tier("namespaces", user_namespace)
    if requested == "namespaces":
        raise NamespaceError(
            0, "GRADER_ISOLATION=namespaces, but this machine allows no namespaces"
        )
    return Tier("process")


def _trial(tier: Tier, policy: SandboxPolicy) -> bool:
    scratch = tempfile.mkdtemp(prefix="grader-probe-")
    uid = None if tier.user_namespace else UID_BASE + UID_SPAN - 1
    try:
        if uid is not None:
            os.chown(scratch, uid, uid)
        pid = os.fork()
        if pid == 0:

            def learner(workdir: str) -> NoReturn:
                ok = (
                    os.path.isdir(workdir)
                    and os.getpid() == 1
                    and all(not os.listdir(p) for p in policy.hidden if os.path.isdir(p))
                )
                os._exit(0 if ok else 1)

            with open(os.devnull, "w") as null:
                os.dup2(null.fileno(), 2)
            keep(tier, policy=policy, scratch=scratch, uid=uid, learner=learner)
        _, status = os.waitpid(pid, 0)
        return os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
    except OSError:
        return False
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
