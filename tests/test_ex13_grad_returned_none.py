"""Exercise 13: derivative returning a .grad that is None (``return y.grad`` of y = f(t), or of
a leaf converted after requires_grad) got only "should be a number, but yours is None"; the
same reads raising on None (``y.grad.item()``) were named. A None returned is now named the same
way where the learner's source shows the .grad read of a tensor that is not a leaf, and only
there."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX13 = hidden_tests("exercise-13")
ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "exercise-13"
NO_BACKWARD = """import torch


def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    f(t)
    return t.grad
"""


class _Learner:
    """A proxy whose derivative returns None in every case."""

    def run(self, scenario, cases, *rest):
        if scenario is EX13.derivative_points:  # where f is evaluated: not observed here
            return None
        return [None for _ in cases]


def _reference():
    path = ROOT / "solutions" / "exercise-13" / "exercise-13.py"
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return type("Reference", (), {"derivative": staticmethod(namespace["derivative"])})


def _failed(source, test):
    with pytest.raises(CheckFailed) as failed:
        if test == "values":
            EX13.test_derivative_values(_Learner(), _reference(), source)
        else:
            EX13.test_derivative_returns_float(_Learner(), source)
    return failed.value


@pytest.mark.parametrize("test", ["values", "float"])
@pytest.mark.parametrize(
    ("name", "evidence"),
    [
        ("returns_grad_of_output", "grad_of_non_leaf"),
        ("returns_grad_of_converted", "converted_leaf_not_leaf"),
    ],
)
def test_a_none_grad_returned_names_the_tensor_that_is_not_a_leaf(name, evidence, test):
    failed = _failed((CORPUS / f"{name}.py").read_text(encoding="utf-8"), test)
    assert failed.evidence[-1] == evidence
    assert "yours is None" in failed.message.en and "Line " in failed.message.en
    entry = match(DiagnosisCatalog.load(), failed.evidence, None)
    assert entry is not None and entry.id.endswith(("non-leaf", "not-leaf"))


@pytest.mark.parametrize("test", ["values", "float"])
def test_a_leafs_none_grad_claims_no_non_leaf(test):
    failed = _failed(NO_BACKWARD, test)
    assert failed.evidence == ("wrong_type",)
    assert "not a leaf" not in failed.message.en
    failed = _failed("", test)  # no source to read: the check's own words
    assert failed.evidence == ("wrong_type",)
