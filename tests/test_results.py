"""The result JSON: round trip, versioning, atomic writes."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.fileio import write_atomic
from grader.results import (
    SCHEMA_VERSION,
    Diagnosis,
    Environment,
    Frame,
    Result,
    Status,
    TestResult,
)


def sample() -> Result:
    return Result(
        exercise_id="exercise-07",
        exercise_title="Broadcasting",
        submission="ex.py",
        status=Status.FAILED,
        score=3.0,
        max_score=5.0,
        tests=(
            TestResult("test_a", "cpu", Status.PASSED, 3.0, 3.0, "a"),
            TestResult(
                "test_b",
                "cpu",
                Status.FAILED,
                0.0,
                2.0,
                "b",
                message="yours is 1, expected 2",
                diagnosis=Diagnosis("python-loop", "A Python loop", "what why", "fix", "000 §9.1"),
                evidence=("values_differ",),
                frames=(Frame(3, "f", "return x"),),
                output="hi\n",
                output_truncated=True,
                duration_s=0.5,
                data={"loss_curve": {"yours": [1.0, 0.5], "expected": [1.0, 0.25]}},
            ),
            TestResult(
                "test_c", "cuda", Status.SKIPPED, 0.0, 2.0, "c", message="CUDA is not available"
            ),
            TestResult("test_d", None, Status.TIMEOUT, 0.0, 1.0, "d"),
        ),
        environment=Environment("3.11.7", "2.13.0", "Linux x86_64", False, (), "process"),
        seed=7,
        lang="zh",
        devices=("cpu", "cuda"),
        notes=("note",),
        source="def f(): pass\n",
        grader_version="0.1.0",
        duration_s=1.25,
    )


def test_round_trip_is_exact():
    result = sample()
    assert Result.from_json(result.to_json()) == result


_TEXT = st.text(max_size=6)
_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _TEXT,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.lists(inner, max_size=3).map(tuple)
        | st.dictionaries(_TEXT, inner, max_size=3)
    ),
    max_leaves=10,
)
_TESTS = st.builds(
    TestResult,
    name=_TEXT,
    device=st.none() | _TEXT,
    status=st.sampled_from(list(Status)),
    points=st.floats(0, 10),
    max_points=st.floats(0, 10),
    description=_TEXT,
    message=_TEXT,
    diagnosis=st.none() | st.builds(Diagnosis, _TEXT, _TEXT, _TEXT, _TEXT, _TEXT),
    evidence=st.lists(_TEXT, max_size=3).map(tuple),
    frames=st.lists(st.builds(Frame, st.integers(0, 99), _TEXT, _TEXT), max_size=3).map(tuple),
    output=_TEXT,
    output_truncated=st.booleans(),
    duration_s=st.floats(0, 10),
    data=st.dictionaries(_TEXT, _PLAIN, max_size=3),
)


@given(_TESTS)
def test_a_test_gives_what_dataclasses_asdict_gave(test: TestResult):
    """Its dict, written out field by field, is the one asdict made (values, key order, the
    attached data copied so that changing the dict leaves the result as it was)."""
    expected = dataclasses.asdict(test)
    expected["status"] = test.status.value
    expected["evidence"] = list(test.evidence)
    expected["frames"] = [dataclasses.asdict(f) for f in test.frames]
    data = test.to_dict()
    assert data == expected
    assert json.dumps(data) == json.dumps(expected)  # the same keys in the same order
    before = json.dumps(test.data)
    for value in data["data"].values():
        if isinstance(value, (dict, list)):
            value.clear()
    assert json.dumps(test.data) == before


def test_json_is_versioned_and_ordered():
    data = json.loads(sample().to_json())
    assert data["schema_version"] == SCHEMA_VERSION
    assert [t["name"] for t in data["tests"]] == ["test_a", "test_b", "test_c", "test_d"]
    assert data["tests"][3]["device"] is None
    assert data["tests"][1]["diagnosis"]["id"] == "python-loop"


def test_unknown_schema_version_is_refused():
    data = sample().to_dict()
    data["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(ValueError, match="schema_version"):
        Result.from_dict(data)


def test_graded_and_skipped():
    result = sample()
    assert [t.name for t in result.skipped] == ["test_c"]
    assert "test_c" not in [t.name for t in result.graded]
    assert result.percent == pytest.approx(60.0)


def test_key():
    assert sample().tests[0].key == "test_a[cpu]"
    assert sample().tests[3].key == "test_d"


def test_write_atomic_replaces_whole_files(tmp_path):
    path = tmp_path / "deep" / "r.json"
    write_atomic(path, "one")
    write_atomic(path, "two")
    assert path.read_text() == "two"
    assert [p.name for p in path.parent.iterdir()] == ["r.json"]
