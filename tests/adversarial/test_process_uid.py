"""The process tier as root: each learner child runs as an unprivileged uid of its own.

This is the tier a container that refuses namespaces gives (Gradescope's, by default): there the
grader is root and the hidden tests and solutions lie on the same disk, readable by root only.
A child that kept root's uid could read them and kill the grader; one that gave up root cannot,
and correct code must still pass.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid

import pytest

from grader.results import Status
from tests.conftest import PROBE_HOME, ROOT, SUBMISSIONS, GradingService

pytestmark = pytest.mark.skipif(
    os.getuid() != 0, reason="an unprivileged uid per learner child needs a grader run as root"
)

PROBE = """\
import os

try:
    with open("__SECRET__") as handle:
        handle.read()
    reading = "read it"
except OSError as exc:
    reading = type(exc).__name__
try:
    os.kill(os.getppid(), 0)  # signal 0: only asks whether a signal would be allowed
    signalling = "allowed"
except OSError as exc:
    signalling = type(exc).__name__
print(f"reading: {reading}; signalling the fork server: {signalling}; uid: {os.getuid()}")


def double(x):
    return x * 2


def triple(x):
    return x * 3
"""


@pytest.fixture(scope="module")
def process_service():
    service = GradingService(PROBE_HOME, env={"GRADER_ISOLATION": "process"})
    yield service
    service.close()


@pytest.fixture
def root_only_file():
    """A file only root may read, in a folder anyone may pass (so only the file's own mode
    stands between a learner child and its content), outside every folder the grader knows."""
    folder = ROOT / "build" / f"root-only-{uuid.uuid4().hex[:12]}"
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    folder.parent.chmod(0o755)
    secret = folder / "answers.txt"
    secret.write_text("the expected values")
    secret.chmod(0o700)
    yield secret
    shutil.rmtree(folder, ignore_errors=True)


def test_the_tier_names_the_unprivileged_uid(process_service):
    assert process_service.isolation.startswith("process (")
    assert process_service.isolation.startswith("process (separate process as an unprivileged uid,")
    assert len(process_service.learner_uids) > 0 and 0 not in process_service.learner_uids


def test_a_learner_child_cannot_read_root_files_or_signal_the_grader(
    process_service, root_only_file, tmp_path
):
    submission = tmp_path / "exercise-90.py"
    submission.write_text(PROBE.replace("__SECRET__", str(root_only_file)))
    result = process_service.grade("exercise-90", submission, devices=("cpu",))
    output = "".join(t.output for t in result.tests)
    found = re.search(r"reading: (\w+); signalling the fork server: (\w+); uid: (\d+)", output)
    assert found, output
    assert found.group(1) == "PermissionError"
    assert found.group(2) == "PermissionError"
    uid = int(found.group(3))
    assert uid != 0 and uid in process_service.learner_uids
    assert "the expected values" not in output
    # (os.kill in a learner's file is a forbidden call: the probe's right answers lose points)
    assert result.score < result.max_score


def test_correct_code_still_passes(process_service):
    result = process_service.grade("exercise-90", SUBMISSIONS / "correct.py", devices=("cpu",))
    assert result.status is Status.PASSED and result.score == result.max_score
    assert result.environment.isolation == process_service.isolation
