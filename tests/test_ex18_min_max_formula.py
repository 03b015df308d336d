"""Exercise 18: `(x - x.min()) / x.max()` in min_max got "9 of 10 values differ", then, for a
constant x = [0, 0, 0], "when max == min, (x - min) / (max - min) is 0 / 0: guard the division",
a formula it does not use. A learner's values that are (x - min) / max, x / max or (x - min) /
max - min (the parentheses missing) are now named, only where that formula, and no other one
the input cannot tell from it, gives them; an unguarded (x - min) / (max - min) is never told
it divides by max."""

from __future__ import annotations

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX18 = hidden_tests("exercise-18")
WHAT = Text("min_max(x)", "min_max(x)")


def _guarded(x):
    span = x.max() - x.min()
    return (x - x.min()) / torch.where(span > 0, span, torch.ones_like(span))


LEARNERS = {
    "right": _guarded,
    "unguarded": lambda x: (x - x.min()) / (x.max() - x.min()),
    "(x - min) / max": lambda x: (x - x.min()) / x.max(),
    "x / max": lambda x: x / x.max(),
    "(x - min) / max - min": lambda x: (x - x.min()) / x.max() - x.min(),
    "standardised": lambda x: (x - x.mean()) / x.std(correction=0),
}

values = st.lists(
    st.floats(-100, 100, allow_nan=False, width=32).map(lambda v: round(v, 3)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=300, deadline=None)
@given(values=values, learner=st.sampled_from(sorted(LEARNERS)))
@example(values=[1.562, 1.562, 1.562], learner="standardised")  # all ones, as x / max gives
def test_a_formula_is_named_only_where_the_learners_values_are_its_own(values, learner):
    x = torch.tensor(values)
    got = LEARNERS[learner](x)
    story = EX18._other_scaling(got, x, _guarded(x))
    if story is None:
        return
    code = story[0]
    assert learner not in ("right", "unguarded", "standardised")
    if code == "a division by max":
        assert learner in ("(x - min) / max", "x / max", "(x - min) / max - min")
    else:
        assert code == learner


@pytest.mark.parametrize("learner", ["(x - min) / max", "x / max", "(x - min) / max - min"])
def test_ten_random_values_name_each_formula(learner):
    x = torch.randn(10, generator=torch.Generator().manual_seed(1))
    got = LEARNERS[learner](x)
    with pytest.raises(CheckFailed) as caught:
        EX18._check_min_max(got, _guarded(x), WHAT, x)
    assert "min_max_formula" in caught.value.evidence
    assert f"are {learner} (expected" in caught.value.message.en
    assert "(x - min) / (max - min)" in caught.value.message.zh


def test_an_unguarded_formula_on_zeros_keeps_the_nan_story():
    x = torch.zeros(3)
    with pytest.raises(CheckFailed) as caught:
        EX18._check_min_max(LEARNERS["unguarded"](x), _guarded(x), WHAT, x)
    assert "min_max_formula" not in caught.value.evidence
    assert "nan_in_output" in caught.value.evidence
