"""Exercise 7: center_columns written as a standardisation, (x - mean) / x.std(0), got the
nan-output fix "guard the division": it kept the division the exercise never asked for. The
result is now named where it is the centred x divided by the column std (NaN where a column is
constant, or a single row), and only there."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")
WHAT = Text("center_columns(x)", "center_columns(x)")


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6),
    d=st.integers(1, 4),
    seed=st.integers(0, 2**16),
    constant=st.booleans(),
    unbiased=st.booleans(),
)
def test_a_standardised_answer_is_named_and_a_centred_one_is_not(n, d, seed, constant, unbiased):
    x = torch.randn(n, d, generator=torch.Generator().manual_seed(seed)) * 3 + 1
    if constant:
        x[:, 0] = 2.5
    want = x - x.mean(dim=0, keepdim=True)
    rtol, atol = EX07._center_tol(x)
    EX07._name_center_mistake(want.clone(), x, want, rtol, atol, WHAT)  # right: nothing said
    scaled = want / x.std(dim=0, keepdim=True, unbiased=unbiased)
    if torch.allclose(scaled, want, rtol=rtol, atol=atol, equal_nan=True):
        return  # every std is 1 (or the values are 0): the same answer
    with pytest.raises(CheckFailed) as caught:
        EX07._name_center_mistake(scaled, x, want, rtol, atol, WHAT)
    assert "standardised_not_centred" in caught.value.evidence
    assert ("NaN" in caught.value.message.en) == bool(torch.isnan(scaled).any())


def test_the_standardised_story_has_its_diagnosis():
    # the evidence had no entry in the catalogue: the message named it, the diagnosis did not
    from grader.diagnose import DiagnosisCatalog, match

    entry = match(DiagnosisCatalog.load(), ("values_differ", "standardised_not_centred"), None)
    assert entry is not None and entry.id == "standardised-not-centred"
    assert "x.mean(dim=0, keepdim=True)" in entry.fix.en
