"""What the grading process imports before it forks (grader.engine.warmup, LocalEngine)."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import PROBE_HOME, run_fresh

_GRADE = textwrap.dedent(
    """
    import sys, tempfile
    from pathlib import Path
    from grader.catalog import Catalog
    from grader.engine import GradeRequest, LocalEngine
    import grader.engine.local as local

    local.worker_side_can_wait = lambda: WAITS
    learner = Path(tempfile.mkdtemp()) / "exercise-90.py"
    learner.write_text(
        "import sys\\n"
        "LOADED = [m for m in ('pytest', 'hypothesis', 'grader.engine.worker') if m in sys.modules]\\n"
        "def double(x):\\n"
        "    return x * 2\\n"
        "def triple(x):\\n"
        "    return x * 3 if not LOADED else x * 0\\n"
    )
    with LocalEngine(Catalog(Path(HOME))) as engine:
        result = engine.grade(
            GradeRequest(exercise="exercise-90", source=learner.read_bytes(),
                         filename=str(learner), devices=("cpu",))
        )
    print({t.name: t.status.value for t in result.tests}["test_triple"])
    """
)


@pytest.mark.parametrize("waits", [True, False])
def test_the_worker_side_is_imported_after_the_fork_server_only_where_it_may_wait(waits):
    """Where it may wait, the fork server is forked before pytest and the grader's worker
    modules are imported: learner children have none of them, as under plain python (triple
    fails for a submission that sees them). Where it may not, they have them all."""
    code = _GRADE.replace("WAITS", repr(waits)).replace("HOME", repr(str(PROBE_HOME)))
    assert run_fresh(code).split()[-1] == ("passed" if waits else "failed")


def test_the_worker_side_waits_only_where_children_could_import_it(tmp_path, monkeypatch):
    """As root, learner children run as a uid of their own: they can import pytest for a
    learner's ``import pytest`` only where the standard library and pytest are open to others
    themselves. A private home above them does not count (see children_can_import)."""
    import _pytest

    from grader.engine import warmup
    from grader.sandbox import policy

    monkeypatch.setattr(warmup, "children_can_import", lambda: True)
    monkeypatch.setattr(warmup.os, "geteuid", lambda: 1000)
    assert warmup.worker_side_can_wait() is True  # children run as this user

    monkeypatch.setattr(warmup.os, "geteuid", lambda: 0)
    home = tmp_path / "home"
    prefix = home / "python"
    stdlib = prefix / "lib"
    stdlib.mkdir(parents=True)
    prefix.chmod(0o755)
    stdlib.chmod(0o755)
    home.chmod(0o700)
    pytest_folder = Path(_pytest.__file__).resolve().parent
    runtime = [str(prefix), str(pytest_folder.parent)]
    monkeypatch.setattr(policy, "runtime_paths", lambda: runtime)
    monkeypatch.setattr(os, "__file__", str(stdlib / "os.py"))
    pytest_open = warmup._open_to_others(pytest_folder)
    assert warmup.worker_side_can_wait() is pytest_open  # the private home does not count
    stdlib.chmod(0o700)
    assert warmup.worker_side_can_wait() is False
    stdlib.chmod(0o755)
    monkeypatch.setattr(warmup, "children_can_import", lambda: False)
    assert warmup.worker_side_can_wait() is False


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    modes=st.lists(st.sampled_from([0o700, 0o711, 0o750, 0o755, 0o744]), min_size=4, max_size=4),
    runtime_at=st.integers(0, 3),
)
def test_only_the_runtimes_own_folders_decide_what_children_can_read(tmp_path, modes, runtime_at):
    """Any permissions on a chain home/venv/lib/torch, the runtime folder at any depth of it:
    children can import torch's modules exactly when every folder from torch's up to the
    runtime folder lets others pass and torch's lets them list it. What lies above the
    runtime folder (a private home) never counts, what lies inside it always does."""
    from grader.engine import warmup
    from grader.sandbox import policy

    chain = [tmp_path / "home"]
    for name in ("venv", "lib", "torch"):
        chain.append(chain[-1] / name)
    chain[-1].mkdir(parents=True, exist_ok=True)
    for folder, mode in zip(chain, modes, strict=True):
        folder.chmod(mode)
    runtime = chain[runtime_at]
    try:
        with mock.patch.object(policy, "runtime_paths", lambda: [str(runtime)]):
            got = warmup._open_to_others(chain[-1])
    finally:
        for folder in chain:  # the next example makes the same chain
            folder.chmod(0o755)
    inside = modes[runtime_at:]
    want = all(m & 0o001 for m in inside) and bool(modes[-1] & 0o004)
    assert got is want
