"""Exercise 17: nn.Linear created inside the training loop (a new model every epoch, so
nothing learns) was told "the first update itself differs", "the prediction was made once,
before the loop" or "the weights never move: the order is off", by how the new models were
seeded and which optimizer stepped. The learner's own run now says it: train_regressor makes
more parameters for 4 epochs than for 1 (``parameters_made``); only then is it named."""

from __future__ import annotations

from pathlib import Path

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorInfo
from grader.spec import Text
from tests.hidden import hidden_tests

EX17 = hidden_tests("exercise-17")
ROOT = Path(__file__).resolve().parents[1]


class _Learner:
    """A learner proxy whose ``run`` returns ``answer`` (or raises it)."""

    def __init__(self, answer):
        self.answer = answer

    def run(self, scenario, *args):
        assert scenario is EX17.parameters_made
        if isinstance(self.answer, BaseException):
            raise self.answer
        return self.answer


@settings(max_examples=200, deadline=None)
@given(one=st.integers(0, 50), four=st.integers(0, 200))
def test_a_model_in_the_loop_is_named_exactly_when_the_parameters_made_grow(one, four):
    story = EX17._model_in_loop(_Learner([one, four]), None, None, 0.1, 0)
    if four > one:
        assert story is not None and story[0] == "model_in_loop"
        assert f"{one} for epochs=1, {four} for epochs=4" in story[1]
        assert "before the loop" in story[1] and "循环之前" in story[2]
    else:
        assert story is None


def test_an_unreadable_or_faulted_count_claims_nothing():
    for answer in (None, [2], [2, 8, 9], [2.0, 8.0], ["2", "8"], [True, 8], {"a": 1}):
        assert EX17._model_in_loop(_Learner(answer), None, None, 0.1, 0) is None, answer
    fault = LearnerRaised(
        Text(
            "train_regressor raised RuntimeError: boom", "train_regressor 抛出了 RuntimeError：boom"
        ),
        error=ErrorInfo(
            kind="call", type="RuntimeError", classes=("RuntimeError",), message="boom"
        ),
    )
    assert EX17._model_in_loop(_Learner(fault), None, None, 0.1, 0) is None


def _module(path: Path):
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return type("Learner", (), {"train_regressor": staticmethod(namespace["train_regressor"])})


def test_the_count_grows_for_a_model_made_in_the_loop_and_not_for_the_reference():
    X, y = torch.randn(8, 2), torch.randn(8)
    new = torch.nn.Parameter.__dict__["__new__"]
    reference = ROOT / "solutions" / "exercise-17" / "exercise-17.py"
    one, four = EX17.parameters_made(_module(reference), X, y, 0.1, 3)
    assert one == four == 2
    for name in ("model_in_loop", "model_in_loop_seeded", "model_in_loop_old_opt"):
        path = ROOT / "tests" / "corpus" / "exercise-17" / f"{name}.py"
        one, four = EX17.parameters_made(_module(path), X, y, 0.1, 3)
        assert four > one, name
    assert torch.nn.Parameter.__dict__["__new__"] is new  # put back as it was
    assert isinstance(torch.nn.Parameter(torch.zeros(2)), torch.nn.Parameter)
