"""The scratch folder's quota, tier by tier: what a learner child may write to its folder.

The namespaces tier puts the folder on a tmpfs of the quota's size inside the child's mount
namespace (nothing reaches the host's disk) and its keeper stops a child that writes past it;
the process tier measures the host folder from the trusted side (:func:`folder_usage`). Whole
gradings in both tiers: ``fill_scratch`` and ``write_scratch`` in test_adversarial.py.
"""

from __future__ import annotations

import os
import select
import shutil
import signal
import tempfile
from pathlib import Path
from typing import NoReturn

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.resources import PACKAGE
from grader.sandbox.policy import SCRATCH_ENTRY_BYTES, SandboxPolicy, runtime_readable
from grader.sandbox.tiers import Tier, namespaces
from grader.sandbox.tiers.process import folder_usage

POLICY = SandboxPolicy(readable=runtime_readable(str(PACKAGE)))
QUOTA = 4 << 20

# A folder tree: each entry a file (its size) or a folder (its entries).
_names = st.text("abcdefgh", min_size=1, max_size=6)
_trees = st.recursive(
    st.integers(0, 300_000),
    lambda children: st.dictionaries(_names, children, max_size=5),
    max_leaves=20,
)


def _build(root: Path, tree: dict) -> tuple[int, int]:
    """Write the tree; return its bytes and its number of entries."""
    size = entries = 0
    for name, item in tree.items():
        path = root / name
        entries += 1
        if isinstance(item, dict):
            path.mkdir()
            more, count = _build(path, item)
            size, entries = size + more, entries + count
        else:
            path.write_bytes(b"x" * item)
            size += item
    return size, entries


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=st.dictionaries(_names, _trees, max_size=6), cap=st.integers(0, 2_000_000))
def test_folder_usage_counts_every_byte_and_entry(tree, cap):
    """Whatever the tree, its measure is at least its bytes plus an entry's share for each
    file and folder, and it passes the cap exactly when the whole folder does."""
    root = Path(tempfile.mkdtemp(prefix="grader-quota-"))
    try:
        size, entries = _build(root, tree)
        whole = folder_usage(str(root), 1 << 62)
        assert whole >= size + entries * SCRATCH_ENTRY_BYTES
        assert (folder_usage(str(root), cap) > cap) == (whole > cap)
    finally:
        shutil.rmtree(root)


def test_folder_usage_fails_closed_on_an_unreadable_folder():
    if os.getuid() == 0:
        pytest.skip("root reads every folder")
    root = Path(tempfile.mkdtemp(prefix="grader-quota-"))
    try:
        (root / "hidden").mkdir()
        (root / "hidden").chmod(0)
        assert folder_usage(str(root), QUOTA) > QUOTA
    finally:
        (root / "hidden").chmod(0o700)
        shutil.rmtree(root)


def test_folder_usage_counts_a_sparse_file_whole():
    root = Path(tempfile.mkdtemp(prefix="grader-quota-"))
    try:
        with open(root / "sparse", "wb") as handle:
            handle.truncate(64 << 20)
        assert folder_usage(str(root), QUOTA) > QUOTA
    finally:
        shutil.rmtree(root)


def _tier() -> Tier:
    tier = namespaces.detect(POLICY)
    if tier.name != "namespaces":
        pytest.skip("this machine allows no namespaces")
    return tier


def _run_keeper(files: list[tuple[str, int]]) -> tuple[int, list[str]]:
    """A keeper whose learner child writes ``files`` (name, size) to its folder, swallowing
    every refusal, and exits 0; returns the keeper's status and what the host folder holds."""
    tier = _tier()
    scratch = tempfile.mkdtemp(prefix="grader-quota-")
    Path(scratch, "exercise-99.py").write_text("x = 1\n")
    try:
        keeper = os.fork()
        if keeper == 0:

            def learner(workdir: str) -> NoReturn:
                for name, size in files:
                    path = os.path.join(workdir, name)
                    try:
                        os.makedirs(os.path.dirname(path), exist_ok=True)
                        with open(path, "wb") as handle:
                            handle.write(b"w" * size)
                    except OSError:
                        pass
                if _over(files):  # wait to be stopped (a guard ends a keeper that never does)
                    select.select([], [], [], 20)
                    os._exit(3)
                os._exit(0)

            namespaces.keep(
                tier, policy=POLICY, scratch=scratch, uid=None, learner=learner, quota=QUOTA
            )
        _, status = os.waitpid(keeper, 0)
        return status, sorted(os.listdir(scratch))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _over(files: list[tuple[str, int]]) -> bool:
    """What the tmpfs will hold, on the tier's measure: each file's pages, and an entry's
    share for each file and folder (the learner's file included)."""
    page = SCRATCH_ENTRY_BYTES
    folders = {os.path.dirname(name)[: i + 1] for name, _ in files for i in range(len(name))}
    folders = {f.rstrip("/") for f in folders if f.endswith("/")}
    held = sum(-(-size // page) * page + page for _, size in files) + 2 * page
    return held + len(folders) * page > QUOTA


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(
        st.tuples(
            st.sampled_from(["a", "b/c", "d/e/f", "g", "h/i"]).map(lambda n: n + ".bin"),
            st.integers(0, 3 << 20),
        ),
        min_size=1,
        max_size=6,
        unique_by=lambda f: f[0],
    )
)
def test_namespaces_keeper_stops_a_child_past_its_quota(files):
    """A child whose folder passes the quota is stopped (SIGXFSZ, the end the trusted side
    reports as "wrote more than N MiB to its folder"); one within it ends as it chose. The
    host's scratch folder never sees a byte of it, either way."""
    status, host = _run_keeper(files)
    if _over(files):
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGXFSZ, status
    else:
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert host == ["exercise-99.py"]
