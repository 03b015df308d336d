"""Op counts over several labelled sizes, with a declared growth (constant or logarithmic)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pytest

from grader.testing import CheckFailed, assert_op_growth, assert_ops_constant
from grader.testing.analysis.growth import excesses, parse_label


@dataclass
class Record:
    ops: int | None
    functions: dict = field(default_factory=dict)


def hillis_steele(n: int, per_step: int = 3, base: int = 4) -> int:
    """Ops of a correct scan: a fixed cost and per_step for each doubling of the step."""
    return base + per_step * math.ceil(math.log2(n))


def python_loop(n: int, per_item: int = 2, base: int = 4) -> int:
    return base + per_item * n


def records(counts: dict[str, int]) -> dict[str, Record]:
    return {label: Record(count) for label, count in counts.items()}


def test_labels_are_read_as_sizes():
    assert parse_label("n=4, d=3") == {"n": 4, "d": 3}
    assert parse_label("n=64") == {"n": 64}
    with pytest.raises(ValueError):
        parse_label("four rows")


def test_constant_growth_over_two_parameters():
    same = {"n=4, d=3": 7, "n=64, d=3": 7, "n=4, d=48": 7}
    assert_op_growth(records(same), None, "pairwise_distance(x)")
    grows_in_d = {"n=4, d=3": 7, "n=64, d=3": 7, "n=4, d=48": 52}
    with pytest.raises(CheckFailed) as info:
        assert_op_growth(records(grows_in_d), None, "pairwise_distance(x)")
    failure = info.value
    assert "n=4, d=3: 7; n=4, d=48: 52" in failure.message.en
    assert "n=4, d=3: 7; n=4, d=48: 52" in failure.message.zh
    assert failure.evidence == ("op_count_grows",)
    assert failure.data["labels"] == ["n=4, d=3", "n=4, d=48"]


def test_sizes_may_be_given_apart_from_the_labels():
    calls = {"small": Record(5), "big": Record(9)}
    sizes = {"small": {"n": 4}, "big": {"n": 64}}
    with pytest.raises(CheckFailed) as info:
        assert_op_growth(calls, sizes, "f(x)")
    assert "small: 5, big: 9" in info.value.message.en


def test_logarithmic_growth_accepts_a_scan_and_fails_a_python_loop():
    sizes = (4, 64, 1024)
    scan = {f"n={n}": hillis_steele(n) for n in sizes}
    assert_op_growth(records(scan), None, "scan(x)", growth="logarithmic")
    # Constant growth is stricter.
    with pytest.raises(CheckFailed):
        assert_op_growth(records(scan), None, "scan(x)")
    loop = {f"n={n}": python_loop(n) for n in sizes}
    with pytest.raises(CheckFailed) as info:
        assert_op_growth(records(loop), None, "scan(x)", growth="logarithmic")
    message = info.value.message
    assert "n=4: 12, n=64: 132, n=1024: 2052" in message.en
    assert "log2(n)" in message.en and "log2(n)" in message.zh
    assert info.value.evidence == ("op_count_grows",)


@pytest.mark.parametrize("per_step", [1, 3, 10])
@pytest.mark.parametrize(
    "sizes",
    [(4, 64, 1024), (2, 8, 32, 128), (8, 128, 2048), (5, 100, 1000), (4, 65, 1025)],
)
def test_the_logarithmic_rule_separates_a_scan_from_loops(sizes, per_step):
    scan = {f"n={n}": hillis_steele(n, per_step) for n in sizes}
    assert excesses(scan, {k: parse_label(k) for k in scan}, "logarithmic") == []
    for grows in (python_loop, lambda n: 4 + int(3 * math.sqrt(n) * per_step)):
        counts = {f"n={n}": grows(n) for n in sizes}
        assert excesses(counts, {k: parse_label(k) for k in counts}, "logarithmic"), counts


def test_growth_per_parameter():
    counts = {
        "n=4, d=3": hillis_steele(4),
        "n=64, d=3": hillis_steele(64),
        "n=1024, d=3": hillis_steele(1024),
        "n=4, d=48": hillis_steele(4),
    }
    assert_op_growth(records(counts), None, "scan(x)", growth={"n": "logarithmic"})
    counts["n=4, d=48"] += 40  # grows with d, which stays constant
    with pytest.raises(CheckFailed) as info:
        assert_op_growth(records(counts), None, "scan(x)", growth={"n": "logarithmic"})
    assert "d=48" in info.value.message.en


@pytest.mark.parametrize(
    ("counts", "sizes", "growth"),
    [
        ({"n=4": 1, "n=64": 2}, None, "logarithmic"),  # two sizes cannot show the growth
        ({"n=4": 1, "n=8": 2, "n=16": 3}, None, "logarithmic"),  # too close together
        ({"n=4": 1, "n=64": 2}, None, "quadratic"),
        ({"n=4": 1, "n=64": 2}, None, {"m": "logarithmic"}),
        ({"n=4": 1, "n=64, d=2": 2}, None, "constant"),  # not the same parameters
        ({"a": 1, "b": 2}, {"a": {"n": 4}}, "constant"),  # a call without sizes
    ],
)
def test_author_errors(counts, sizes, growth):
    with pytest.raises(ValueError):
        assert_op_growth(records(counts), sizes, "f(x)", growth=growth)


def test_untraced_calls_are_an_author_error():
    with pytest.raises(ValueError):
        assert_op_growth({"n=4": Record(None), "n=64": Record(3)}, None, "f(x)")
    with pytest.raises(ValueError):
        assert_ops_constant([Record(None), Record(3)], [4, 64], "f(x)")


def test_the_old_check_keeps_its_message_and_data():
    assert_ops_constant([Record(9), Record(9)], [4, 16], "pick(scores, labels)")
    with pytest.raises(CheckFailed) as info:
        assert_ops_constant([Record(9), Record(21)], [4, 16], "pick(scores, labels)")
    failure = info.value
    assert failure.message.en == (
        "pick(scores, labels) performs more tensor operations for larger inputs (n=4: 9, "
        "n=16: 21), so it loops in Python over the elements. Use broadcasting or a vectorised "
        "operation instead."
    )
    assert failure.evidence == ("op_count_grows",)
    assert failure.data["sizes"] == [{"n": 4}, {"n": 16}] and failure.data["ops"] == [9, 21]
    # The same size twice is fine (the counts must still be equal).
    with pytest.raises(CheckFailed):
        assert_ops_constant([Record(9), Record(10)], [4, 4], "f(x)")
