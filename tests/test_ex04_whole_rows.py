"""Exercise 4: pick written scores[labels] (one index tensor: it indexes the rows) was told
"scores[:, labels] takes column labels[j] of every row i", another mistake: with N == C both
give an (N, N) matrix. The values now tell them apart: whole rows of scores are named as such
(new diagnosis index-rows-by-labels), all pairs still as all pairs, and an (N, N) matrix that is
neither is not told either story."""

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
    labels = torch.randint(0, min(n, c), (n,), generator=g)
    return scores, labels, scores.gather(1, labels.unsqueeze(1)).squeeze(1)


def _evidence(got, scores, labels, want) -> list[str]:
    try:
        EX04._explain_pick(got, scores, labels, want, WHAT, WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(n=st.integers(2, 7), c=st.integers(1, 7), seed=st.integers(0, 2**16))
def test_whole_rows_are_named_as_rows(n, c, seed):
    scores, labels, want = _case(n, c, seed)
    got = scores[labels]
    assume(not torch.equal(got, scores[:, labels]) if n == c else True)
    evidence = _evidence(got, scores, labels, want)
    assert "index_rows_by_labels" in evidence
    assert "index_all_pairs" not in evidence


@given(n=st.integers(2, 7), seed=st.integers(0, 2**16))
def test_all_pairs_are_still_all_pairs(n, seed):
    scores, labels, want = _case(n, n, seed)
    got = scores[:, labels]
    assume(not torch.equal(got, scores[labels]))
    evidence = _evidence(got, scores, labels, want)
    assert "index_all_pairs" in evidence
    assert "index_rows_by_labels" not in evidence


@given(n=st.integers(2, 7), seed=st.integers(0, 2**16))
def test_another_square_matrix_is_told_neither(n, seed):
    scores, labels, want = _case(n, n, seed)
    got = scores @ scores.T
    evidence = _evidence(got, scores, labels, want)
    assert "index_all_pairs" not in evidence
    assert "index_rows_by_labels" not in evidence


def test_the_message_names_the_rows_in_both_languages():
    scores, labels, want = _case(5, 5, 3)
    with pytest.raises(CheckFailed) as caught:
        EX04._explain_pick(scores[labels], scores, labels, want, WHAT, WHAT)
    assert "scores[labels] indexes the first dimension" in caught.value.message.en
    assert "scores[labels] 用标签去索引第一个维度" in caught.value.message.zh
