"""Exercise 4: pick with an index of shape (1, N) (``scores.gather(1, labels.unsqueeze(0))``,
the unsqueeze on the wrong side) reads every label in row 0 and got only "4 of 5 values
differ". A result that is scores[0, labels[i]] for every i, and not the answer, is now named,
for N > 1 (with one row, row 0 is the answer)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX04 = hidden_tests("exercise-04")
WHAT = "pick(scores, labels)"


def _case(n: int, c: int, seed: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(n, c, generator=g)
    labels = torch.randint(0, c, (n,), generator=g)
    return scores, labels, scores.gather(1, labels.unsqueeze(1)).squeeze(1)


@given(
    n=st.integers(2, 8),
    c=st.integers(1, 6),
    seed=st.integers(0, 2**16),
    squeezed=st.booleans(),
)
def test_an_index_of_one_row_is_named(n, c, seed, squeezed):
    scores, labels, want = _case(n, c, seed)
    got = scores.gather(1, labels.unsqueeze(0))  # (1, N): every label read in row 0
    if squeezed:
        got = got.squeeze(0)
    assume(not torch.equal(got.reshape(-1), want))
    with pytest.raises(CheckFailed) as caught:
        EX04._explain_pick(got, scores, labels, want, WHAT, WHAT)
    assert "gather_index_one_row" in caught.value.evidence
    assert "scores[0, labels[i]]" in caught.value.message.en
    assert "第 0 行" in caught.value.message.zh


@given(n=st.integers(1, 8), c=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_the_answer_and_other_wrong_values_are_not_told_row_0(n, c, seed):
    scores, labels, want = _case(n, c, seed)
    EX04._explain_pick(want.clone(), scores, labels, want, WHAT, WHAT)  # right: nothing said
    for wrong in (want + 1, scores.max(dim=1).values, want.flip(0)):
        try:
            EX04._explain_pick(wrong, scores, labels, want, WHAT, WHAT)
        except CheckFailed as caught:
            first_row = scores[0, labels]
            if not torch.equal(wrong, first_row):
                assert "gather_index_one_row" not in caught.evidence
