"""An index tensor of floats refused by gather, scatter or x[idx] (exercise 04's labels turned
float to match the scores) got only PyTorch's "Expected dtype int32/int64 for index": the
catalogue's pattern spoke of "int64" alone, PyTorch's older wording. And exercise 04's pick as
each row's largest score (scores.max(dim=1)), whatever the labels, got "5 of 5 values differ".
Both are now named, the second only where the answer is the row maxima and the labels' scores
are not."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX04 = hidden_tests("exercise-04")


def _refusal(call) -> dict[str, str]:
    try:
        call()
    except (RuntimeError, IndexError) as exc:
        return {"type": type(exc).__name__, "message": str(exc)}
    raise AssertionError("PyTorch took a float index")


@pytest.mark.parametrize("device", ["cpu", "meta"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_a_float_index_is_named_for_gather_scatter_and_indexing(device, dtype):
    x = torch.zeros(3, 4, device=device)
    index = torch.zeros(3, 1, dtype=dtype, device=device)
    catalogue = DiagnosisCatalog.load()
    calls = [lambda: x.gather(1, index), lambda: x.clone().scatter_(1, index, 1.0)]
    if device == "cpu":
        calls.append(lambda: x[index.view(-1)])
    for call in calls:
        entry = match(catalogue, (), _refusal(call))
        assert entry is not None and entry.id in ("index-not-integer", "dtype-mismatch")
        assert entry.id == "index-not-integer" or "int64 for index" in _refusal(call)["message"]


def _story(got, scores, labels):
    want = scores.gather(1, labels.unsqueeze(1)).squeeze(1)
    try:
        EX04._explain_pick(got, scores, labels, want, "pick", "pick ")
    except CheckFailed as caught:
        return caught.message.en
    return ""


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 6), c=st.integers(1, 5))
def test_the_row_maxima_are_named_only_where_they_are_the_answer(seed, n, c):
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(n, c, generator=g)
    labels = torch.randint(0, c, (n,), generator=g)
    told = "largest score of row i" in _story(scores.amax(dim=1), scores, labels)
    assert told == bool((labels != scores.argmax(dim=1)).any())
    assert "largest score" not in _story(scores[torch.arange(n), labels], scores, labels)
