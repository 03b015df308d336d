"""Exercise 2: four slips got only "should be X, but yours is Y": describe's numel as
sum(t.shape) (a sum of the sizes, not their product), its device as str(t.get_device()) ("-1" on
the CPU), and nbytes as a size in bits (times 8) or as sys.getsizeof(t) (the Python object, 80
bytes whatever the tensor). Each is now named where the value is that slip, and only there."""

from __future__ import annotations

import math
import sys
from types import SimpleNamespace

import pytest
import torch
from hypothesis import example, given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX02 = hidden_tests("exercise-02")
SHAPES = st.lists(st.integers(0, 5), min_size=0, max_size=4)


def _key_evidence(value, key, t) -> list[str]:
    want = {"numel": t.numel(), "device": str(t.device)}[key]
    try:
        EX02._check_key({key: value}, key, t, {key: want}, "t")
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


def _nbytes_evidence(nbytes, t) -> list[str]:
    learner = SimpleNamespace(nbytes=nbytes)
    reference = SimpleNamespace(nbytes=lambda t: t.numel() * t.element_size())
    try:
        EX02._check_nbytes(learner, reference, t, "t")
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(shape=SHAPES)
def test_a_sum_of_the_sizes_is_named_where_it_is_not_the_product(shape):
    t = torch.zeros(shape)
    evidence = _key_evidence(sum(shape), "numel", t)
    # a sum equal to the first size is told len(t), which it may well be
    summed = len(shape) > 1 and sum(shape) not in (math.prod(shape), shape[0])
    assert ("numel_summed" in evidence) == summed
    assert _key_evidence(math.prod(shape), "numel", t) == []


def test_get_device_is_named_and_str_device_is_right():
    t = torch.zeros(2, 3)
    assert "device_index_only" in _key_evidence(str(t.get_device()), "device", t)
    assert _key_evidence("cpu", "device", t) == []
    assert "device_index_only" not in _key_evidence("cuda", "device", t)


SLIPS = {
    "assumed_element_size": lambda t: 4 * t.numel(),
    "bits_not_bytes": lambda t: 8 * t.numel() * t.element_size(),
    "python_object_size": sys.getsizeof,
    "bytes_as_bits": lambda t: t.numel() * t.element_size() // 8,
}
DTYPES = st.sampled_from([torch.float32, torch.int8, torch.float64, torch.float16, torch.bool])


@given(shape=SHAPES, dtype=DTYPES, slip=st.sampled_from(sorted(SLIPS)))
@example(shape=[4, 5], dtype=torch.int8, slip="python_object_size")
@example(shape=[2, 5], dtype=torch.bool, slip="bits_not_bytes")
def test_each_slip_is_named_and_only_it(shape, dtype, slip):
    # 80, sys.getsizeof of every tensor, is also 4 bytes for each of 20 int8 or bool elements
    # and the bits of 10 bytes: the learner's nbytes of another tensor tells them apart
    t = torch.zeros(shape, dtype=dtype)
    want = t.numel() * t.element_size()
    assert _nbytes_evidence(lambda t: t.numel() * t.element_size(), t) == []
    got = SLIPS[slip](t)
    evidence = _nbytes_evidence(SLIPS[slip], t)
    if got == want:
        assert evidence == []
        return
    if slip == "bytes_as_bits" and want % 8:
        # a rounded eighth (// 8 of 20 bytes is 2) is no evidence of one: no story, not another
        assert not set(SLIPS) & set(evidence)
        return
    assert slip in evidence
    assert not (set(SLIPS) - {slip}) & set(evidence)


@given(shape=SHAPES, dtype=DTYPES)
def test_an_eighth_is_named_by_true_and_floor_division(shape, dtype):
    t = torch.zeros(shape, dtype=dtype)
    want = t.numel() * t.element_size()
    for eighth in (
        lambda t: t.numel() * t.dtype.itemsize // 8,
        lambda t: t.numel() * t.element_size() / 8,
    ):
        evidence = _nbytes_evidence(eighth, t)
        assert ("bytes_as_bits" in evidence) == (want > 0 and want % 8 == 0)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_getsizeof_story_names_it(lang):
    # 602112 bytes: no getsizeof is 8 times that
    learner = SimpleNamespace(nbytes=sys.getsizeof)
    reference = SimpleNamespace(nbytes=lambda t: t.numel() * t.element_size())
    with pytest.raises(CheckFailed) as caught:
        EX02._check_nbytes(learner, reference, torch.zeros(1, 3, 224, 224), "t")
    assert "sys.getsizeof(t)" in getattr(caught.value.message, lang)


@pytest.mark.parametrize(
    ("shape", "dtype"), [((2, 5), torch.int8), ((4, 5), torch.int8), ((4, 5), torch.float16)]
)
def test_a_number_two_slips_give_is_told_by_another_tensor(shape, dtype):
    t = torch.zeros(shape, dtype=dtype)  # 80 bytes is sys.getsizeof(t) here, and 4 or 8 times
    if sys.getsizeof(t) != 80:
        pytest.skip("this Python's tensor object has another size")
    assert "python_object_size" in _nbytes_evidence(lambda t: 80, t)
    four = _nbytes_evidence(lambda t: 4 * t.numel(), t)
    assert "assumed_element_size" in four
    assert "python_object_size" not in four
    # the same 80 once, then a number no slip gives: no story at all
    calls = iter([80, 7])
    assert _nbytes_evidence(lambda t: next(calls), t) == ["values_differ"]


@given(shape=st.lists(st.integers(1, 5), min_size=1, max_size=4), transpose=st.booleans())
def test_the_shape_given_for_the_strides_is_named_and_only_it(shape, transpose):
    t = torch.zeros(shape)
    if transpose and t.dim() > 1:
        t = t.transpose(0, -1)
    want = {"shape": tuple(t.shape), "stride": t.stride()}

    def evidence(key, value):
        try:
            EX02._check_key({key: value}, key, t, want, "t")
        except CheckFailed as caught:
            return list(caught.evidence)
        return []

    assert evidence("stride", t.stride()) == []
    assert evidence("shape", tuple(t.shape)) == []
    swapped = tuple(t.shape) != t.stride()
    assert ("shape_stride_swapped" in evidence("stride", tuple(t.shape))) == swapped
    assert ("shape_stride_swapped" in evidence("shape", t.stride())) == swapped
    assert "shape_stride_swapped" not in evidence("stride", tuple(s + 7 for s in t.stride()))
