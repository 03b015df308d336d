"""A value check that fails on a difference below the sixth significant digit (exercise 7's
torch.nn.functional.pairwise_distance, whose eps moves every distance by 1e-6, against a
float64 tolerance of 1e-9) said "yours is 1.3355, expected 1.3355". The two elements it shows
are now written with as many digits as it takes to tell them apart."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed, assert_close

FINITE = st.floats(allow_nan=False, allow_infinity=False, width=64)


@given(
    b=st.floats(-1e6, 1e6, allow_nan=False).filter(lambda v: abs(v) > 1e-6),
    rel=st.one_of(st.floats(1e-14, 1e-5), st.floats(-1e-5, -1e-14), FINITE),
)
def test_two_different_values_are_never_shown_alike(b, rel):
    a = b + b * rel if abs(rel) <= 1e-5 else rel  # near b down to the 15th digit, or anywhere
    assume(a != b and math.isfinite(a))
    want = torch.tensor([b], dtype=torch.float64)
    got = torch.tensor([a], dtype=torch.float64)
    assume(not bool(torch.isclose(got, want, rtol=1e-7, atol=1e-12)))
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)", rtol=1e-7, atol=1e-12)
    message = caught.value.message.en
    shown = message.split("yours is ", 1)[1].split(". ", 1)[0]
    yours, expected = shown.split(", expected ")
    assert yours != expected, message
    assert math.isclose(float(yours), a, rel_tol=1e-5) and math.isclose(
        float(expected), b, rel_tol=1e-5
    )


def test_six_digits_are_kept_where_they_tell_the_values_apart():
    with pytest.raises(CheckFailed) as caught:
        assert_close(torch.tensor([1.5]), torch.tensor([2.25]), "f(x)")
    assert "yours is 1.5, expected 2.25." in caught.value.message.en
    assert "你的结果是 1.5，期望 2.25。" in caught.value.message.zh


def test_a_difference_in_the_seventh_digit_is_shown():
    want = torch.tensor([1.3355042], dtype=torch.float64)
    with pytest.raises(CheckFailed) as caught:
        assert_close(want + 6e-7, want, "f(x)", rtol=1e-7, atol=1e-9)
    assert "yours is 1.335505, expected 1.335504" in caught.value.message.en
