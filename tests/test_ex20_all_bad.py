"""Exercise 20: has_bad_grad written `not torch.isfinite(p.grad).any()` (or
`(~torch.isfinite(g)).all()`, `torch.isnan(g).all()`), where `.all()` of isfinite was meant,
missed a single NaN or inf with no diagnosis. Such a check does find a gradient whose every
value is bad: that, measured on the learner's own check, is now the evidence
(``bad_only_when_all_bad``), and only a check that shows it is told so."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX20 = hidden_tests("exercise-20")

CHECKS = {  # has_bad_grad's test of one gradient, and whether it asks that all values be bad
    "not_isfinite_any": (lambda g: not torch.isfinite(g).any(), True),
    "nonfinite_all": (lambda g: bool((~torch.isfinite(g)).all()), True),
    "isnan_all": (lambda g: bool(torch.isnan(g).all()), True),
    "isnan_any": (lambda g: bool(torch.isnan(g).any()), False),
    "right": (lambda g: not torch.isfinite(g).all(), False),
    "never": (lambda g: False, False),
}


def _module(test):
    def has_bad_grad(model):
        return any(p.grad is not None and test(p.grad) for p in model.parameters())

    return type("Learner", (), {"has_bad_grad": staticmethod(has_bad_grad)})


class _Local:
    """A learner proxy running scenarios in this process."""

    def __init__(self, module):
        self.module = module

    def run(self, scenario, *args):
        return scenario(self.module, *args)


REFERENCE = _module(CHECKS["right"][0])


@settings(max_examples=40, deadline=None)
@given(
    name=st.sampled_from(sorted(CHECKS)),
    case=st.sampled_from(["nan", "inf", "-inf", "frozen_nan"]),
    seed=st.integers(0, 2**16),
)
def test_a_check_is_told_it_asks_for_all_bad_values_only_where_it_finds_a_whole_bad_gradient(
    name, case, seed
):
    test, asks_all = CHECKS[name]
    learner = _Local(_module(test))
    try:
        EX20._check_cases(learner, REFERENCE, "cpu", seed, (case,))
    except CheckFailed as failed:
        told = "bad_only_when_all_bad" in failed.evidence
        finds_whole = asks_all and not (name == "isnan_all" and case in ("inf", "-inf"))
        assert told == finds_whole, (name, case, failed.evidence)
        if told:
            assert "not torch.isfinite(p.grad).all()" in failed.message.en
            assert "not torch.isfinite(p.grad).all()" in failed.message.zh
        return
    assert name == "right" or (name == "isnan_any" and case in ("nan", "frozen_nan"))


def test_the_whole_gradient_case_fills_one_parameter():
    for which, value in ((1, "nan"), (5, "-inf")):
        run = EX20.bad_grad_run(
            _module(CHECKS["nonfinite_all"][0]), f"whole:{which}:{value}", "cpu", 0
        )
        assert run["result"] is True
    with pytest.raises(CheckFailed):
        EX20._check_cases(_Local(_module(CHECKS["never"][0])), REFERENCE, "cpu", 0, ("nan",))
