"""Exercise 8: softmax_rows subtracting each column's maximum (``x.max(dim=0, ...)``), the
row-maximum trick along the wrong dim, got only "9 of 9 values differ" for ordinary rows and
the generic NaN advice for rows near -1000. It is now named as the column maximum."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, example, given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX08 = hidden_tests("exercise-08")
WHAT = Text("softmax_rows(x)", "softmax_rows(x)")


def _column_max(x: torch.Tensor, keepdim: bool) -> torch.Tensor:
    shifted = x - x.max(dim=0, keepdim=keepdim).values  # without keepdim: (d,), the same here
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)


def _other_stories(got: torch.Tensor, x: torch.Tensor) -> set[str]:
    """The texts of the other mistakes whose answer for x is also ``got``."""
    told = set()
    for mistake, _, en, _ in EX08._SOFTMAX_MISTAKES:
        wrong = mistake(x)
        if (
            "column's maximum" not in en
            and wrong is not None
            and torch.allclose(got, wrong, rtol=1e-4, atol=1e-6, equal_nan=True)
        ):
            told.add(en)
    return told


@given(
    n=st.integers(2, 6),
    d=st.integers(2, 6),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([1.0, 3.0, 1000.0]),
    keepdim=st.booleans(),
)
# rows of +-1000 where the whole tensor's maximum gives the very same 0s and NaNs
@example(n=3, d=2, seed=1, scale=1000.0, keepdim=False)
def test_the_column_maximum_is_named_wherever_the_answer_tells_it(n, d, seed, scale, keepdim):
    """Named where the answer is the column maximum's alone; where another mistake gives the
    same answer for this x, neither is named (a story the evidence cannot single out)."""
    x = scale * torch.randn(n, d, generator=torch.Generator().manual_seed(seed))
    want = torch.softmax(x, dim=1)
    got = _column_max(x, keepdim)
    assume(not torch.allclose(got, want, rtol=1e-4, atol=1e-6, equal_nan=True))
    EX08._check_softmax(want.clone(), x, want, WHAT)  # right: nothing said
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, want, WHAT)
    others = _other_stories(got, x)
    if others:
        assert "reduced_wrong_dim" not in caught.value.evidence, caught.value.message.en
        assert not any(en in caught.value.message.en for en in others)
        assert "column's maximum" not in caught.value.message.en
    else:
        assert "reduced_wrong_dim" in caught.value.evidence, caught.value.message.en
        assert "column's maximum" in caught.value.message.en


def test_rows_near_minus_1000_are_told_the_column_maximum_not_generic_nan_advice():
    x = torch.tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -999.0]])
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(_column_max(x, True), x, torch.softmax(x, dim=1), WHAT)
    assert "column's maximum" in caught.value.message.en
    assert "列的最大值" in caught.value.message.zh


def test_a_story_is_told_only_where_the_answer_fits_it_alone():
    """The rule every table of classic mistakes (exercises 07 and 08) goes by."""
    from grader.testing import sole_story

    one = ("tag_a", "story a", "故事 a")
    again = ("tag_b", "story a", "故事 a")  # two formulas, one story (exercise 08's whole sums)
    other = ("tag_c", "story c", "故事 c")
    assert sole_story([]) is None
    assert sole_story([one]) == one
    assert sole_story(iter([one, again])) == one
    assert sole_story([one, other]) is None
