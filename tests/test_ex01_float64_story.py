"""Exercise 1: make_scalar as torch.tensor(value, dtype=float) (Python's float, which torch reads
as float64) or torch.from_numpy(np.array(value, dtype=float)) got "should have dtype float32, but
yours has dtype float64" and the general "convert explicitly". A float64 result is now told where
float64 comes from (dtype=float, torch.double, NumPy's default float); other dtypes are not."""

from __future__ import annotations

import pytest
import torch

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX01 = hidden_tests("exercise-01")


@pytest.mark.parametrize("value", [3, 2.5, 0])
def test_float64_is_told_where_it_comes_from(value):
    with pytest.raises(CheckFailed) as caught:
        EX01._float64_story(torch.tensor(value, dtype=float), "make_scalar(3)")
    assert "dtype=float" in caught.value.message.en
    assert "dtype=float" in caught.value.message.zh
    assert "wrong_dtype" in caught.value.evidence


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int64, torch.bfloat16])
def test_other_dtypes_are_left_to_the_dtype_check(dtype):
    EX01._float64_story(torch.zeros((), dtype=dtype), "make_scalar(3)")
