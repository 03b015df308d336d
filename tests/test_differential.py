"""The differential print test (tests/differential.py) with this checkout's grader, in both
isolation tiers: every reference and alternative, with debug prints, at full marks with only
its own output."""

from __future__ import annotations

import pytest

from tests.conftest import run_cli
from tests.differential import check_class, make_class

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("tier", ["namespaces", "process"])
def test_correct_code_with_debug_prints_scores_full_marks(tier, tmp_path):
    students = make_class(tmp_path / "class")
    out = tmp_path / "out"
    proc = run_cli(
        "batch",
        str(tmp_path / "class"),
        "--out",
        str(out),
        "--jobs",
        "2",
        env_extra={"GRADER_ISOLATION": tier},
        timeout=900,
    )
    if tier == "namespaces" and "allows no namespaces" in proc.stderr:
        pytest.skip("this machine allows no namespaces")
    # 1: every student "misses" the other exercises; what counts is check_class
    assert proc.returncode in (0, 1), proc.stdout[-3000:] + proc.stderr[-3000:]
    check_class(out, students)
