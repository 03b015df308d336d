"""Exercise 5: flatten_transposed as x.t().contiguous() (the .view(-1) dropped with the bug)
got only "The result has the wrong shape". x.T itself is now named: transposed, not
flattened; the answer and x's own order are not told so."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX05 = hidden_tests("exercise-05")
WHAT = Text("flatten_transposed(x)", "flatten_transposed(x)")


def _evidence(got, x) -> list[str]:
    try:
        EX05._explain_flatten(got, x, x.t().reshape(-1), WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(a=st.integers(1, 5), b=st.integers(1, 5), seed=st.integers(0, 999))
def test_x_T_itself_is_named(a, b, seed):
    x = torch.randn(a, b, generator=torch.Generator().manual_seed(seed))
    assert "transposed_not_flattened" in _evidence(x.t().contiguous(), x)
    assert _evidence(x.t().reshape(-1), x) == []
    assert "transposed_not_flattened" not in _evidence(x.reshape(-1), x)
