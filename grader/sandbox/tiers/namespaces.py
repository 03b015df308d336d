"""The namespaces tier: Linux namespaces around each learner child, entered without exec.

The fork server forks a *keeper*; the keeper ``unshare``s new PID, network, mount, IPC and UTS
namespaces (and a user namespace when the host is not root) and forks the learner child, PID 1
of the new PID namespace. Before any learner code runs, the child builds its whole file system
from the policy's allowlist on a fresh tmpfs (the system's libraries, the Python runtime and the
grader's package read-only, private size-limited ``/tmp``, ``/var/tmp`` and ``/dev/shm``, a few
device nodes, its own ``/proc``, its scratch folder at ``/tmp/work``), pivots into it and drops
the host's tree, so whatever is not listed (hidden tests, solutions, other students' work, the
grader's outputs, any other copy of them) does not exist for it; then (when the host is root)
it drops to an unprivileged uid of its own with a process limit. Nothing is exec'd: the child
keeps the fork server's warm torch.

The scratch folder is a tmpfs of the child's quota (``ChildLimits.file_mb``), mounted by the
keeper over the host's scratch folder in the new mount namespace, with a copy of the learner's
file: nothing the child writes reaches the host's disk. The keeper watches how full it is and
stops a child that writes past the quota, ending as a file over ``RLIMIT_FSIZE`` does
(SIGXFSZ), so the trusted side tells the learner what happened.

When the learner child ends, the kernel kills every process left in its PID namespace (a
``setsid()`` grandchild too). When the keeper is killed (a deadline), the child dies with it, and
so does the namespace. The keeper mirrors the child's exit status, so the fork server sees the
learner's own exit code or signal.
"""

from __future__ import annotations

import ctypes
import os
import platform
import re
import resource
import select
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Callable
from typing import NoReturn

from grader.sandbox.policy import (
    SCRATCH_ENTRY_BYTES,
    ChildLimits,
    SandboxPolicy,
    device_nodes,
    runtime_paths,
)
from grader.sandbox.procs import close_all_but, die_with_parent, libc
from grader.sandbox.tiers import Tier
from grader.sandbox.tiers.uids import UID_SPAN, drop_privileges, uid_block, uid_trial

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
MS_REMOUNT = 32
MS_MOVE = 8192
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS = 38
PR_CAPBSET_DROP = 24
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine(), 155)


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


def _open_path(path: str) -> int | None:
    """An O_PATH descriptor of a host path, taken before the host tree is replaced."""
    try:
        return os.open(path, os.O_PATH | os.O_NOFOLLOW)
    except OSError:
        return None


def _place(root: str, path: str, directory: bool) -> str:
    """Where ``path`` goes inside the new root: its parents made (0755, so that an
    unprivileged uid can pass), and an empty folder or file to bind onto."""
    target = root + path
    os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
    if directory:
        os.makedirs(target, mode=0o755, exist_ok=True)
    elif not os.path.lexists(target):
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY, 0o644))
    return target


_ESCAPED = re.compile(rb"\\([0-7]{3})")


def mount_point(field: bytes) -> str:
    """A mount point as /proc/self/mountinfo writes it, read back as the path os functions
    take: the kernel writes a space, tab, newline or backslash in it as an octal escape
    (``\\040``), and its bytes need not be UTF-8."""
    return os.fsdecode(_ESCAPED.sub(lambda m: bytes([int(m[1], 8) & 0xFF]), field))


def _mount_points() -> list[str]:
    """Where something is mounted in this mount namespace."""
    try:
        with open("/proc/self/mountinfo", "rb") as handle:
            return [mount_point(line.split()[4]) for line in handle.read().splitlines()]
    except (OSError, IndexError):
        return []


def _readonly(target: str, below: list[str]) -> None:
    """Remount a bind, and the mounts ``below`` it, read-only, keeping the flags the kernel
    locks (nosuid, nodev, noexec: a user namespace may add restrictions, never lift them)."""
    for point in (target, *below):
        try:
            flags = os.statvfs(point).f_flag
        except OSError:
            continue
        keep = 0
        for st, ms in (
            (os.ST_NOSUID, MS_NOSUID),
            (os.ST_NODEV, MS_NODEV),
            (os.ST_NOEXEC, MS_NOEXEC),
        ):
            if flags & st:
                keep |= ms
        _mount(None, point, None, MS_BIND | MS_REMOUNT | MS_RDONLY | keep)


def _copied_below(source: str, target: str, points: list[str]) -> list[str]:
    """Where a recursive bind of ``source`` onto ``target`` puts the mounts below ``source``
    (``points``: the mount table read before the bind). ``source`` as the kernel names it: a
    path whose parents are symbolic links is not a prefix of any mount point."""
    inside = source.rstrip("/") + "/"
    return [target + p[len(inside) - 1 :] for p in points if p.startswith(inside)]


def _build_root(policy: SandboxPolicy, scratch: str | None, cuda: bool) -> None:
    """Inside the new mount namespace: build the learner child's whole file system from the
    policy's allowlist on a fresh tmpfs, and make it the root. The host's tree is unmounted
    from the namespace afterwards: what is not listed does not exist for the child."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    # The mount table is read once, before anything is mounted here: a recursive bind copies
    # the mounts below its source to the same places below its target, and these are made
    # read-only with it (reading the table again after every bind cost more than all the
    # mounts together).
    points = _mount_points()
    readable = [*policy.readable, *(policy.cuda_readable if cuda else policy.cpu_readable)]
    sources: dict[str, int] = {}
    links: dict[str, str] = {}
    for path in readable:
        if os.path.islink(path):
            links[path] = os.readlink(path)
        elif os.path.exists(path):
            fd = _open_path(path)
            if fd is not None:
                sources[path] = fd
    nodes = {p: fd for p in device_nodes(cuda) if (fd := _open_path(p)) is not None}
    scratch_fd = os.open(scratch, os.O_PATH | os.O_DIRECTORY) if scratch else None

    root = "/tmp"  # any folder will do: the mount is private to this namespace
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=0755")
    # private, size-limited writable places first: readable paths below them go on top
    for path, size in policy.private_tmp:
        target = _place(root, path, directory=True)
        _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=1777")
    for path in sorted(sources, key=len):
        target = _place(root, path, directory=os.path.isdir(f"/proc/self/fd/{sources[path]}"))
        source = f"/proc/self/fd/{sources[path]}"
        _mount(source, target, None, MS_BIND | MS_REC)
        _readonly(target, _copied_below(os.readlink(source), target, points))
        os.close(sources[path])
    for path, text in links.items():
        _place(root, os.path.dirname(path), directory=True)
        if not os.path.lexists(root + path):
            os.symlink(text, root + path)
    # hidden folders inside what is readable (the course inside an installed wheel)
    for path in policy.hidden:
        if os.path.isdir(root + path):
            _mount(
                "tmpfs",
                root + path,
                "tmpfs",
                MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
                "size=4k,mode=0755",
            )
    dev = _place(root, "/dev", directory=True)
    for path, fd in nodes.items():
        target = _place(root, path, directory=os.path.isdir(f"/proc/self/fd/{fd}"))
        _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
        os.close(fd)
    for name, text in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        if not os.path.lexists(f"{dev}/{name}"):
            os.symlink(text, f"{dev}/{name}")
    proc = _place(root, "/proc", directory=True)
    _mount("proc", proc, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    if scratch_fd is not None:
        work = _place(root, policy.workdir, directory=True)
        os.chmod(work, 0o700)
        _mount(f"/proc/self/fd/{scratch_fd}", work, None, MS_BIND)
        os.close(scratch_fd)
    old = _place(root, "/.host", directory=True)
    if libc().syscall(_SYS_PIVOT_ROOT, root.encode(), old.encode()) == 0:
        os.chdir("/")
        _call(libc().umount2(b"/.host", MNT_DETACH), "umount the host's tree")
        os.rmdir("/.host")
    else:
        # pivot_root is refused where the root is the initial ramfs (some containers): move
        # the new root over / instead (as switch_root does); the host's tree stays beneath it,
        # out of reach once the child has no capabilities left.
        os.rmdir(old)
        os.chdir(root)
        _mount(root, "/", None, MS_MOVE)
        os.chroot(".")
        os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


# How often the keeper looks at how full the scratch tmpfs is.
QUOTA_POLL_S = 0.1


def _scratch_tmpfs(scratch: str, quota: int, uid: int | None) -> int:
    """Put a tmpfs of ``quota`` bytes (and as many files as the quota counts) over the host's
    scratch folder, in this mount namespace only, holding a copy of what the folder held (the
    learner's file). Returns a descriptor of it, for :func:`_tmpfs_usage`.

    The tmpfs is a little larger than the quota, so that writing past the quota shows as usage
    above it; its inodes end where their count alone would pass the quota."""
    files: dict[str, bytes] = {}
    with os.scandir(scratch) as entries:
        for entry in entries:
            if entry.is_file(follow_symlinks=False):
                with open(entry.path, "rb") as handle:
                    files[entry.name] = handle.read()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing mounted here reaches the host
    size = quota + 16 * SCRATCH_ENTRY_BYTES
    inodes = quota // SCRATCH_ENTRY_BYTES + 16
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},nr_inodes={inodes}")
    for name, data in files.items():
        path = os.path.join(scratch, name)
        with open(path, "wb") as handle:
            handle.write(data)
        if uid is not None:
            os.chown(path, uid, uid)
    if uid is not None:
        os.chown(scratch, uid, uid)
    os.chmod(scratch, 0o700)
    return os.open(scratch, os.O_RDONLY | os.O_DIRECTORY)


def _tmpfs_usage(fd: int) -> int:
    """What the scratch tmpfs holds towards its quota: its used blocks, and
    ``SCRATCH_ENTRY_BYTES`` for each file and folder (the same measure as the process tier's
    :func:`grader.sandbox.tiers.process.folder_usage`, up to the tmpfs's own root)."""
    info = os.fstatvfs(fd)
    used = (info.f_blocks - info.f_bfree) * info.f_frsize
    return used + (info.f_files - info.f_ffree - 1) * SCRATCH_ENTRY_BYTES


def keeper_scratch_usage(keeper: int) -> int | None:
    """What the scratch tmpfs of a keeper's learner child holds towards its quota, measured by
    the fork server through the keeper's descriptor of it (the keeper holds no other folder);
    None when the keeper is gone or holds none (no learner child to measure)."""
    try:
        names = os.listdir(f"/proc/{keeper}/fd")
    except OSError:
        return None
    for name in names:
        path = f"/proc/{keeper}/fd/{name}"
        try:
            if stat.S_ISDIR(os.stat(path).st_mode):
                fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    return _tmpfs_usage(fd)
                finally:
                    os.close(fd)
        except OSError:
            continue
    return None


def _watch(child: int, scratch_fd: int | None, quota: int) -> int:
    """Wait for the learner child to end; stop it once its scratch folder holds more than
    ``quota``. Returns its wait status, or that of a process killed by SIGXFSZ when it was
    stopped for its quota (the end of a process that writes a file past RLIMIT_FSIZE)."""
    try:
        pidfd: int | None = os.pidfd_open(child)
    except (AttributeError, OSError):
        pidfd = None
    while True:
        pid, status = os.waitpid(child, os.WNOHANG)
        if pid:
            return status
        if scratch_fd is not None and _tmpfs_usage(scratch_fd) > quota:
            os.kill(child, signal.SIGKILL)
            os.waitpid(child, 0)
            return int(signal.SIGXFSZ)
        if pidfd is not None:
            select.select([pidfd], [], [], QUOTA_POLL_S)
        else:
            time.sleep(QUOTA_POLL_S)


def _drop_capabilities() -> None:
    """In a user namespace the child is root of its namespace: give up every capability (and
    the right to regain one), so that learner code cannot unmount or remount what hides the
    host."""
    libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    for cap in range(64):
        libc().prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = (ctypes.c_uint32 * 2)(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _call(libc().capset(header, data), "capset")


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
    cuda: bool = False,
    quota: int = ChildLimits().file_mb << 20,
) -> NoReturn:
    """The keeper's body (in a process just forked by the fork server). Never returns.

    The keeper unshares the namespaces and forks the learner child, which is PID 1 inside them:
    when it ends, the kernel kills whatever it left in its PID namespace. (As PID 1 it ignores
    signals it sends itself; faults such as a segfault still end it.) The keeper waits, and
    ends the way the child ended, so the fork server sees the child's own exit status.
    ``learner(workdir)`` turns the child into the learner child. ``quota``: the most its
    scratch folder may hold, in bytes.
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
        scratch_fd = _scratch_tmpfs(scratch, quota, uid)
        # Open while the keeper lives: the child can tell whether the keeper died before its
        # parent-death signal was (re)armed.
        keeper_alive, keeper_alive_w = os.pipe()
        child = os.fork()
        if child == 0:
            try:
                os.close(keeper_alive_w)
                os.close(scratch_fd)
                die_with_parent()
                _build_root(policy, scratch, cuda)
                if uid is not None:
                    drop_privileges(uid)
                    die_with_parent()  # a change of uid clears the parent-death signal
                else:
                    _drop_capabilities()
                if select.select([keeper_alive], [], [], 0)[0]:  # EOF: the keeper is gone
                    os._exit(71)
                os.close(keeper_alive)
                learner(policy.workdir)
            finally:
                os._exit(71)
        close_all_but({keeper_alive_w, scratch_fd})
        # The trusted side asks for a snapshot of the learner's stack (SIGUSR2) through the
        # keeper, the only process of the pair it knows.
        signal.signal(signal.SIGUSR2, lambda *_: os.kill(child, signal.SIGUSR2))
        _mirror(_watch(child, scratch_fd, quota))
    except BaseException:  # noqa: BLE001 - the keeper must never return into the fork server
        os._exit(code)


def detect(policy: SandboxPolicy, requested: str | None = None) -> Tier:
    """The strongest tier this machine allows, proven by a trial run of the whole set-up.

    ``requested`` (from GRADER_ISOLATION) forces "process", or demands "namespaces" (an error
    when they are not available).
    """
    if not sys.platform.startswith("linux"):
        return Tier("process")
    if requested != "process":
        for user_namespace in (False, True) if os.getuid() == 0 else (True,):
            tier = Tier("namespaces", user_namespace, own_uid=not user_namespace)
            if _trial(tier, policy):
                return tier
        if requested == "namespaces":
            raise NamespaceError(
                0, "GRADER_ISOLATION=namespaces, but this machine allows no namespaces"
            )
    # As root, learner children of the process tier run as an unprivileged uid of their own
    # (a container that refuses namespaces, such as Gradescope's), where the machine lets root
    # change uids and that uid can still read the Python runtime.
    return Tier("process", own_uid=os.getuid() == 0 and uid_trial(runtime_paths()))


def _trial(tier: Tier, policy: SandboxPolicy) -> bool:
    scratch = tempfile.mkdtemp(prefix="grader-probe-")
    uid = None if tier.user_namespace else uid_block() + UID_SPAN - 1
    try:
        if uid is not None:
            os.chown(scratch, uid, uid)
        pid = os.fork()
        if pid == 0:

            def learner(workdir: str) -> NoReturn:
                ok = (
                    os.path.isdir(workdir)
                    and os.getpid() == 1
                    and os.path.isfile(os.__file__)  # the runtime is there
                    and os.path.isdir("/proc/self/fd")
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
