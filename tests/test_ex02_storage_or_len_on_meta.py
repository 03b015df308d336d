"""Exercise 2: an nbytes that is both the size of the storage a view lies in and
`len(t) * t.element_size()` (an expanded tensor, `torch.zeros(3, 1).expand(3, 4)`) is told apart
by the learner's nbytes of another tensor; on the meta device that probe was not made (a view
travels there as the smallest storage its strides need, and a view of leading rows needs no
more than itself), so neither slip was named. The probe is now every other column of a wider
tensor, whose storage is larger than it on every device."""

from __future__ import annotations

from types import SimpleNamespace

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX02 = hidden_tests("exercise-02")
DTYPES = st.sampled_from(EX02.DTYPES)


def _travelled(t):
    """t as the learner's process gets it: on meta, a tensor of the smallest storage."""
    if t.device.type != "meta":
        return t
    return torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")


SLIPS = {
    "storage_bytes": lambda t: t.untyped_storage().nbytes(),
    "len_instead_of_numel": lambda t: len(t) * t.element_size(),
}


def _evidence(slip, t):
    learner = SimpleNamespace(nbytes=lambda t: SLIPS[slip](_travelled(t)))
    reference = SimpleNamespace(nbytes=lambda t: t.numel() * t.element_size())
    try:
        EX02._check_nbytes(learner, reference, _travelled(t), "t")
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(
    rows=st.integers(2, 6),
    cols=st.integers(2, 6),
    dtype=DTYPES,
    device=st.sampled_from(["cpu", "meta"]),
    slip=st.sampled_from(sorted(SLIPS)),
)
def test_storage_and_len_are_told_apart_on_every_device(rows, cols, dtype, device, slip):
    t = torch.zeros(rows, 1, dtype=dtype, device=device).expand(rows, cols)
    # the case both slips give the same number for
    assert SLIPS["storage_bytes"](_travelled(t)) == SLIPS["len_instead_of_numel"](t)
    evidence = _evidence(slip, t)
    assert slip in evidence
    assert not (set(SLIPS) - {slip}) & set(evidence)
