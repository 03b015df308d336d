"""The namespaces tier's process tree, tested directly: a learner child must not outlive its
keeper, whatever uid it runs as (a change of uid clears Linux's parent-death signal)."""

from __future__ import annotations

import os
import select
import shutil
import signal
import tempfile

import pytest

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
