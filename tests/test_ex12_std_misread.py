"""Exercise 12: `x + std ** 2 * torch.randn_like(x)` (std taken for the variance) was told "the
noise should have standard deviation 0.5, but it has 0.2499 ... multiply it by std", which it
does. Noise whose standard deviation is std ** 2, or sqrt(std), for both std values tried is now
named; at std = 0.5 the square is also std / 2, so the second std decides."""

from __future__ import annotations

import math
import types

import pytest
import torch
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX12 = hidden_tests("exercise-12")

RULES = {
    "square": lambda s: s * s,
    "sqrt": math.sqrt,
    "half": lambda s: s / 2,
    "double": lambda s: 2 * s,
    "plus one": lambda s: s + 1,
    "constant 0.25": lambda s: 0.25,
}


@settings(max_examples=200, deadline=None)
@given(
    std=st.floats(0.05, 8.0).map(lambda v: round(v, 3)),
    rule=st.sampled_from(sorted(RULES)),
    jitter=st.floats(-0.005, 0.005),
    jitter_other=st.floats(-0.005, 0.005),
)
# doubled noise near std = 2, where 2 * std is within 2% of std ** 2 (and equal at 2)
@example(std=2.031, rule="double", jitter=0.0, jitter_other=0.0)
@example(std=1.98, rule="double", jitter=0.0, jitter_other=0.0)
# halved noise near std = 4, where std / 2 is sqrt(std)
@example(std=4.05, rule="half", jitter=0.0, jitter_other=0.0)
def test_a_misread_std_is_named_only_where_both_stds_follow_the_rule(
    std, rule, jitter, jitter_other
):
    f = RULES[rule]
    sd = f(std) * (1 + jitter)
    story = EX12._misread_std(sd, std, lambda other: f(other) * (1 + jitter_other))
    misread = rule in ("square", "sqrt") and not math.isclose(f(std), std, rel_tol=0.05)
    assert (story is not None) == misread
    if story is not None:
        assert ("std ** 2" in story[0]) == (rule == "square")
        assert ("sqrt(std)" in story[0]) == (rule == "sqrt")


def test_without_a_second_std_nothing_is_named():
    assert EX12._misread_std(0.25, 0.5, None) is None
    assert EX12._misread_std(0.25, 0.5, lambda other: None) is None


@pytest.mark.parametrize(
    ("scale", "named"),
    [(lambda s: s**2, True), (lambda s: s**0.5, True), (lambda s: s / 2, False)],
)
def test_the_hidden_test_names_it_from_the_learners_own_noise(scale, named):
    learner = types.SimpleNamespace(add_noise=lambda x, std: x + scale(std) * torch.randn_like(x))
    with pytest.raises(CheckFailed) as caught:
        EX12.test_add_noise_statistics(learner, "cpu", torch.Generator().manual_seed(0))
    evidence = caught.value.evidence
    assert ("std_squared_or_rooted" in evidence) == named
    assert ("multiply it by std" in caught.value.message.en) == (not named)
