"""Exercise 15: snapshot written torch.from_numpy(t.detach().numpy()) (or torch.as_tensor of
it) shares t's memory, and was told "detach() returns a tensor that shares t's memory; copy it
with .clone()", which explains another route. The learner's own call now says whether it went
through Tensor.numpy() (``numpy_route_run``); only then is the NumPy round trip named."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorInfo
from grader.spec import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX15 = hidden_tests("exercise-15")

SNAPSHOTS = {  # snapshot(t), and whether it goes through Tensor.numpy()
    "from_numpy": (lambda t: torch.from_numpy(t.detach().numpy()), True),
    "as_tensor": (lambda t: torch.as_tensor(t.detach().numpy()), True),
    "numpy_copied": (lambda t: torch.tensor(t.detach().numpy()), True),
    "detach": (lambda t: t.detach(), False),
    "data": (lambda t: t.data, False),
    "reference": (lambda t: t.detach().clone(), False),
}


def _module(snapshot):
    return type("Learner", (), {"snapshot": staticmethod(snapshot)})


class _Answers:
    def __init__(self, answer):
        self.answer = answer

    def run(self, scenario, *args):
        assert scenario is EX15.numpy_route_run
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


def test_the_route_is_measured_on_the_learners_own_call():
    t = torch.randn(3, 4, requires_grad=True)
    numpy = torch.Tensor.numpy
    for name, (snapshot, through) in SNAPSHOTS.items():
        assert EX15.numpy_route_run(_module(snapshot), t) is through, name
    assert torch.Tensor.numpy is numpy  # put back as it was

    def raising(t):
        raise ValueError("no")

    assert EX15.numpy_route_run(_module(raising), t) is None
    assert torch.Tensor.numpy is numpy


FAULT = LearnerRaised(
    Text("snapshot raised ValueError: no", "snapshot 抛出了 ValueError：no"),
    error=ErrorInfo(kind="call", type="ValueError", classes=("ValueError",), message="no"),
)


@settings(max_examples=50, deadline=None)
@given(answer=st.sampled_from([True, False, None, 1, "True", [True], FAULT]))
def test_numpy_is_named_exactly_where_the_learners_call_went_through_it(answer):
    with pytest.raises(CheckFailed) as caught:
        EX15._shares_story(_Answers(answer), torch.zeros(2), "snapshot(t)", "snapshot(t)")
    failed = caught.value
    assert "shares_memory" in failed.evidence
    if answer is True:
        assert "numpy_shares_memory" in failed.evidence
        assert "from_numpy" in failed.message.en and "from_numpy" in failed.message.zh
        assert "detach() (and .data)" not in failed.message.en
    else:
        assert "detach_shares_memory" in failed.evidence
        assert "NumPy" not in failed.message.en
