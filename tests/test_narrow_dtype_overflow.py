"""A value too large for a narrower float dtype (exercise 1's make_scalar(1e6) as
torch.tensor(value, dtype=torch.half)) comes back inf: it was told "NaN or inf in the output",
whose fix is to guard divisions, clamp before sqrt and shift exp(), none of which it has. Where
every inf is a finite expected value beyond the learner's dtype's largest number, the value check
now says the dtype overflowed, with the wrong-dtype evidence instead of inf_in_output."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed, assert_close

NARROW = [
    (torch.float16, torch.float32),
    (torch.bfloat16, torch.float64),
    (torch.float32, torch.float64),
]


@given(
    pair=st.sampled_from(NARROW),
    factor=st.floats(2.0, 1e3),
    n=st.integers(1, 5),
    sign=st.sampled_from([1.0, -1.0]),
)
def test_an_overflow_of_the_narrow_dtype_is_named_not_the_nan_story(pair, factor, n, sign):
    narrow, wide = pair
    want = torch.full((n,), sign * factor * torch.finfo(narrow).max, dtype=wide)
    got = want.to(narrow)  # every value becomes +-inf
    assert bool(torch.isinf(got).all())
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)", check_dtype=False)
    assert "wrong_dtype" in caught.value.evidence
    assert "inf_in_output" not in caught.value.evidence
    assert str(narrow).removeprefix("torch.") in caught.value.message.en
    assert "变成了 inf" in caught.value.message.zh


@given(pair=st.sampled_from(NARROW), n=st.integers(1, 5))
def test_an_inf_the_expected_value_fits_in_is_still_an_inf(pair, n):
    narrow, wide = pair
    want = torch.ones(n, dtype=wide)
    got = (torch.ones(n) / 0).to(narrow)  # a division by zero, not an overflow of the dtype
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)", check_dtype=False)
    assert "inf_in_output" in caught.value.evidence
    assert "wrong_dtype" not in caught.value.evidence


def test_the_same_dtype_keeps_the_inf_story():
    want = torch.tensor([1.0, 2.0])
    got = torch.tensor([1.0, float("inf")])
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)")
    assert "inf_in_output" in caught.value.evidence
