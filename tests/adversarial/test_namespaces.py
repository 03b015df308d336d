"""The namespaces tier's process tree, tested directly: a learner child must not outlive its
keeper, whatever uid it runs as (a change of uid clears Linux's parent-death signal)."""

from __future__ import annotations

import errno
import os
import select
import shutil
import signal
import tempfile

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.resources import PACKAGE
from grader.sandbox.policy import SandboxPolicy, runtime_readable
from grader.sandbox.tiers import Tier, namespaces

POLICY = SandboxPolicy(readable=runtime_readable(str(PACKAGE)))


def _tier() -> Tier:
    tier = namespaces.detect(POLICY)
    if tier.name != "namespaces":
        pytest.skip("this machine allows no namespaces")
    return tier


@pytest.mark.parametrize("drop_uid", [False, True], ids=["same-uid", "unprivileged-uid"])
def test_learner_child_dies_with_its_keeper(drop_uid):
    tier = _tier()
    if drop_uid and (tier.user_namespace or os.getuid() != 0):
        pytest.skip("an unprivileged uid per child needs root")
    uid = namespaces.uid_block() + namespaces.UID_SPAN - 2 if drop_uid else None
    scratch = tempfile.mkdtemp(prefix="grader-test-")
    if uid is not None:
        os.chown(scratch, uid, uid)
    ready_r, ready_w = os.pipe()  # the learner child holds ready_w open as long as it lives
    keeper = os.fork()
    if keeper == 0:
        os.close(ready_r)

        def learner(workdir: str):
            os.write(ready_w, b"x")
            while True:
                signal.pause()

        namespaces.keep(tier, policy=POLICY, scratch=scratch, uid=uid, learner=learner)
    os.close(ready_w)
    try:
        assert select.select([ready_r], [], [], 20)[0], "the learner child never started"
        assert os.read(ready_r, 1) == b"x"
        os.kill(keeper, signal.SIGKILL)
        os.waitpid(keeper, 0)
        # EOF once every holder of ready_w is gone: the keeper (closed it) and the learner child
        assert select.select([ready_r], [], [], 10)[0], "the learner child outlived its keeper"
        assert os.read(ready_r, 1) == b""
    finally:
        os.close(ready_r)
        if uid is not None:  # a learner child that survived must not outlive the test either
            _kill_uid(uid)
        shutil.rmtree(scratch, ignore_errors=True)


def _kill_uid(uid: int) -> None:
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    os.kill(int(name), signal.SIGKILL)
            except OSError:
                continue


def test_every_mount_below_a_readable_path_is_read_only_for_the_child():
    """A readable path is bound with the mounts below it (a tmpfs inside a virtualenv, a
    runtime on a second disk), whatever their names: the learner child may write into none of
    them, even where the file modes would let it (here it keeps root's uid, without capabilities, and the folders
    are root's own, mode 0755). Made in a mount namespace of the test's own, so nothing is
    mounted on the machine."""
    tier = _tier()
    if tier.user_namespace or os.getuid() != 0:
        pytest.skip("mounting a tmpfs for the test needs root")
    base = tempfile.mkdtemp(prefix="grader-readable-")
    os.chmod(base, 0o755)
    # a space and a tab: the mount table writes both as octal escapes
    below = os.path.join(base, "mounted", "below it\tand more")
    os.makedirs(below, mode=0o755)
    scratch = tempfile.mkdtemp(prefix="grader-test-")
    report_r, report_w = os.pipe()
    helper = os.fork()
    if helper == 0:  # the test's own mount namespace: the tmpfs exists for this tree only
        code = 1
        try:
            os.close(report_r)
            libc = namespaces.libc()
            if libc.unshare(namespaces.CLONE_NEWNS) != 0:
                os._exit(3)
            namespaces._mount(None, "/", None, namespaces.MS_REC | namespaces.MS_PRIVATE)
            namespaces._mount("tmpfs", below, "tmpfs", 0, "size=1m,mode=0755")
            with open(os.path.join(below, "present.txt"), "w") as handle:
                handle.write("mounted below")
            policy = SandboxPolicy(readable=(*POLICY.readable, base))

            def learner(workdir: str):
                seen = []
                for folder in (base, os.path.dirname(below), below):
                    try:
                        with open(os.path.join(folder, "written.txt"), "w") as handle:
                            handle.write("x")
                        seen.append(f"wrote {folder}")
                    except OSError as exc:
                        seen.append(f"{exc.errno} {folder}")
                try:
                    with open(os.path.join(below, "present.txt")) as handle:
                        seen.append(handle.read())
                except OSError as exc:
                    seen.append(f"unreadable {exc.errno}")
                os.write(report_w, "\n".join(seen).encode())
                os._exit(0)

            keeper = os.fork()
            if keeper == 0:
                namespaces.keep(tier, policy=policy, scratch=scratch, uid=None, learner=learner)
            _, status = os.waitpid(keeper, 0)
            code = 0 if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 else 2
        finally:
            os._exit(code)
    os.close(report_w)
    try:
        with os.fdopen(report_r, "rb") as handle:
            report = handle.read().decode()
        _, status = os.waitpid(helper, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, (status, report)
        erofs = str(errno.EROFS)
        assert report.splitlines() == [
            f"{erofs} {base}",
            f"{erofs} {os.path.dirname(below)}",
            f"{erofs} {below}",
            "mounted below",
        ], report
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(base, ignore_errors=True)


def _as_the_kernel_writes(path: bytes) -> bytes:
    """A path as /proc/self/mountinfo shows it (fs/proc_namespace.c: mangle())."""
    return b"".join(b"\\%03o" % c if c in b" \t\n\\" else bytes([c]) for c in path)


@given(st.binary(min_size=1, max_size=40).filter(lambda b: b"\0" not in b))
def test_a_mount_point_is_read_back_as_the_path_it_names(raw):
    # Any name a folder can have: spaces, tabs, newlines, backslashes, bytes that are not
    # UTF-8. Only a space was read back before: a mount below a readable path with a tab in
    # its name stayed writable for the learner child.
    path = b"/" + raw
    assert os.fsencode(namespaces.mount_point(_as_the_kernel_writes(path))) == path
