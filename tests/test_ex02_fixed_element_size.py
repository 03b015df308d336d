"""Exercise 2: nbytes as the element count alone (`t.numel()`), or the count times a fixed size
other than 4 (`t.numel() * 8`, a Python float's size, or `* 2`), got only "should be 602112,
but yours is 150528", where `t.numel() * 4` was named. Each is now named where the number is
that slip alone (`elements-not-bytes`, `element-size-fixed`); a number two slips give for
every tensor of t's dtype (8 per element and the bits of a bool) is told apart by the learner's
nbytes of a tensor of another dtype, or neither is named."""

from __future__ import annotations

import sys
from types import SimpleNamespace

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX02 = hidden_tests("exercise-02")
SHAPES = st.lists(st.integers(0, 5), min_size=0, max_size=4)

SLIPS = {
    "elements_not_bytes": lambda t: t.numel(),
    "fixed_element_size_2": lambda t: 2 * t.numel(),
    "fixed_element_size_8": lambda t: 8 * t.numel(),
    "assumed_element_size": lambda t: 4 * t.numel(),
    "bits_not_bytes": lambda t: 8 * t.numel() * t.element_size(),
    "python_object_size": sys.getsizeof,
}


def _evidence(nbytes, t):
    learner = SimpleNamespace(nbytes=nbytes)
    reference = SimpleNamespace(nbytes=lambda t: t.numel() * t.element_size())
    try:
        EX02._check_nbytes(learner, reference, t, "t")
    except CheckFailed as caught:
        return list(caught.evidence), caught.message
    return [], None


@given(shape=SHAPES, dtype=st.sampled_from(EX02.DTYPES), slip=st.sampled_from(sorted(SLIPS)))
def test_each_fixed_size_is_named_and_only_it(shape, dtype, slip):
    t = torch.zeros(shape, dtype=dtype)
    got, want = SLIPS[slip](t), t.numel() * t.element_size()
    evidence, message = _evidence(SLIPS[slip], t)
    if got == want:
        assert evidence == []
        return
    assert slip in evidence, (shape, dtype, evidence)
    assert not (set(SLIPS) - {slip}) & set(evidence)
    if slip.startswith("fixed_element_size_"):
        size = slip.rsplit("_", 1)[1]
        assert f"counts {size} bytes per element" in message.en
        assert f"每个元素 {size} 字节" in message.zh


@given(shape=SHAPES, dtype=st.sampled_from(EX02.DTYPES), answer=st.integers(0, 5000))
def test_a_number_that_is_the_same_for_every_tensor_is_named_no_slip_of_a_size(
    shape, dtype, answer
):
    # a learner answering one number whatever the tensor: the probe's answer fits no size slip
    t = torch.zeros(shape, dtype=dtype)
    evidence, _ = _evidence(lambda _: answer, t)
    told = {"elements_not_bytes", "fixed_element_size_2", "fixed_element_size_8"} & set(evidence)
    if told:
        (tag,) = told
        assert answer == SLIPS[tag](t)
        assert not (set(SLIPS) - {tag}) & set(evidence)


def test_the_catalogue_names_them():
    catalog = DiagnosisCatalog.load()
    assert match(catalog, ("values_differ", "elements_not_bytes"), None).id == "elements-not-bytes"
    for size in (2, 8):
        tags = ("values_differ", f"fixed_element_size_{size}")
        assert match(catalog, tags, None).id == "element-size-fixed"
