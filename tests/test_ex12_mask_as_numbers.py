"""Exercise 12: length_mask returning the right mask as numbers (`(positions < lengths[:,
None]).int()`, `.long()`, `.float()`) got only "should have dtype bool, but yours has dtype
int32" and the generic dtype advice (".float(), .long(), dtype=..."). Where the 0s and 1s are
the right mask, it is now named (`mask-as-numbers`); a wrong mask of numbers is not."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX12 = hidden_tests("exercise-12")
NUMBERS = [torch.int32, torch.int64, torch.uint8, torch.float32, torch.float64, torch.float16]


def _evidence(got, want, lengths, max_len):
    try:
        EX12._compare_mask(got, want, lengths, max_len, "length_mask(lengths, max_len)")
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(
    lengths=st.lists(st.integers(0, 6), min_size=1, max_size=6),
    max_len=st.integers(1, 6),
    dtype=st.sampled_from(NUMBERS),
    off_by_one=st.booleans(),
)
def test_the_right_mask_as_numbers_is_named_and_a_wrong_one_is_not(
    lengths, max_len, dtype, off_by_one
):
    lengths = torch.tensor([min(n, max_len) for n in lengths])
    positions = torch.arange(max_len)
    want = positions < lengths[:, None]
    got = (positions <= lengths[:, None]) if off_by_one else want
    evidence = _evidence(got.to(dtype), want, lengths, max_len)
    assert ("mask_as_numbers" in evidence) == torch.equal(got, want)
    assert _evidence(want, want, lengths, max_len) == []


def test_the_catalogue_names_it():
    entry = match(DiagnosisCatalog.load(), ("wrong_dtype", "mask_as_numbers"), None)
    assert entry is not None and entry.id == "mask-as-numbers"
