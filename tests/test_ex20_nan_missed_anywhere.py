"""Exercise 20: a has_bad_grad that sees inf and not NaN (`torch.isinf` only, `g.abs() > 1e38`,
`g == float('inf')`) was told so for the case of one NaN in a bias, but for the same NaN next to
a frozen weight (`frozen_nan`) it got only "should be True, but yours returned False". Every
case holding one NaN is now told so, where the learner's check finds an inf and a -inf in the
very place it misses the NaN; a check that misses NaN for another reason is not."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests
from tests.test_ex20_all_bad import _Local, _module

EX20 = hidden_tests("exercise-20")

CHECKS = {  # one gradient's test, and whether it sees inf (both signs) but not NaN
    "isinf_any": (lambda g: bool(torch.isinf(g).any()), True),
    "abs_huge": (lambda g: bool((g.abs() > 1e38).any()), True),
    "equals_inf": (lambda g: bool((g == float("inf")).any() or (g == float("-inf")).any()), True),
    "plus_inf_only": (lambda g: bool((g == float("inf")).any()), False),
    "never": (lambda g: False, False),
    "right": (lambda g: not torch.isfinite(g).all(), False),
}


REFERENCE = _module(CHECKS["right"][0])


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(sorted(CHECKS)),
    case=st.sampled_from(sorted(EX20.NAN_PLACES)),
    seed=st.integers(0, 2**16),
)
def test_a_check_blind_to_nan_is_told_so_in_every_case_of_one_nan(name, case, seed):
    test, blind_to_nan = CHECKS[name]
    try:
        EX20._check_cases(_Local(_module(test)), REFERENCE, "cpu", seed, (case,))
    except CheckFailed as failed:
        assert ("nan_not_detected" in failed.evidence) == blind_to_nan, (name, failed.evidence)
        return
    assert name == "right"


def test_each_nan_place_is_where_its_case_puts_the_nan():
    seen = {}

    def has_bad_grad(model):
        for i, p in enumerate(model.parameters()):
            if p.grad is not None and bool(torch.isnan(p.grad).any()):
                seen["at"] = (i, int(torch.isnan(p.grad).reshape(-1).nonzero()[0]))
        return True

    module = type("Learner", (), {"has_bad_grad": staticmethod(has_bad_grad)})
    for case, place in EX20.NAN_PLACES.items():
        EX20.bad_grad_run(module, case, "cpu", 0)
        assert seen.pop("at") == place, case
