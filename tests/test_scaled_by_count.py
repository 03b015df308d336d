"""The answer scaled by a count of the input (relations._scaled): the count of every element
of an input is named only for an answer that could have used it, never for an answer with one
value per slice, where it can only be a coincidence (256 pixels in a (4, 8, 8) batch, when the
learner divided by 256 for another reason)."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import relations


@settings(max_examples=40, deadline=None)
@given(
    shape=st.tuples(st.integers(2, 6), st.integers(2, 8), st.integers(2, 8)),
    seed=st.integers(0, 2**16),
    which=st.sampled_from(["n", "1/n", "(n-1)/n", "n/(n-1)"]),
)
def test_a_per_slice_answer_is_never_scaled_by_the_count_of_every_element(shape, seed, which):
    """The answer has one value per image, so the input's element count alone cannot have
    scaled it: the ratio equals that count only by coincidence (a (4, 8, 8) batch has 256)."""
    x = torch.rand(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    n = x.numel()
    factor = {"n": n, "1/n": 1 / n, "(n-1)/n": (n - 1) / n, "n/(n-1)": n / (n - 1)}[which]
    expected = x.mean(dim=(1, 2))
    relations.remember((x,))
    try:
        found = relations.relate(expected * factor, expected)
    finally:
        relations.forget()
    assert found is None or "number of elements" not in found.en, found


@settings(max_examples=30, deadline=None)
@given(
    shape=st.tuples(st.integers(2, 6), st.integers(2, 8)),
    seed=st.integers(0, 2**16),
)
def test_an_answer_standardized_over_every_element_still_names_the_count(shape, seed):
    """One value per element, standardized with statistics of the whole input: the count of
    every element is the n of the standard deviation, and is named."""
    x = torch.rand(shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    expected = (x - x.mean()) / x.std()
    biased = (x - x.mean()) / x.std(correction=0)
    relations.remember((x,))
    try:
        found = relations.relate(biased, expected)
    finally:
        relations.forget()
    assert found is not None and found.tag == "scaled_by_size"
    assert "number of elements" in found.en
