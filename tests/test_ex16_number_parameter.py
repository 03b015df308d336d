"""Exercise 16: `b = 0.0` (a Python number where a tensor that requires grad was due) was told
"The result is not a plain tensor", whose fix says to drop a `.item()` at the end, which the
learner never wrote. Where the learner's own fit returns b as a number still 0 after steps that
move it, the test now says that b never moved, made as a number or left out of the update (the
values cannot tell which; `parameter-python-number`); a b turned into a number at the end
(`b.item()`), which moved, keeps the catalogue's advice."""

from __future__ import annotations

import types

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX16 = hidden_tests("exercise-16")

LOOP = """
def fit_linear(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    {make_b}
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            {update_b}
        w.grad.zero_()
        {zero_b}
    return w.detach(), {returned_b}, losses
"""
TENSOR_B = "b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)"
VARIANTS = {  # (make_b, update_b, zero_b, returned_b), made as a number
    "float": ("b = 0.0", "pass", "pass", "b", True),
    "int": ("b = 0", "pass", "pass", "b", True),
    "float_of_zero": ("b = float(0)", "pass", "pass", "b", True),
    "item_at_the_end": (TENSOR_B, "b -= lr * b.grad", "b.grad.zero_()", "b.item()", False),
    # a tensor the update leaves out, returned as a number: as still as b = 0.0, and the story
    # names both causes
    "never_updated_item": (TENSOR_B, "pass", "pass", "b.item()", True),
    "float_at_the_end": (
        TENSOR_B,
        "b -= lr * b.grad",
        "b.grad.zero_()",
        "float(b.detach())",
        False,
    ),
    "right": (TENSOR_B, "b -= lr * b.grad", "b.grad.zero_()", "b.detach()", False),
}


class _Local:
    """A learner proxy running its calls and scenarios in this process."""

    def __init__(self, module):
        self.module = module
        self.fit_linear = module.fit_linear

    def run(self, scenario, *args):
        return scenario(self.module, *args)


def _learner(variant):
    make_b, update_b, zero_b, returned_b, _ = VARIANTS[variant]
    module = types.ModuleType("learner")
    module.torch = torch
    code = LOOP.format(make_b=make_b, update_b=update_b, zero_b=zero_b, returned_b=returned_b)
    exec(compile(code, "exercise-16.py", "exec"), module.__dict__)
    return _Local(module)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("steps", [0, 7])
def test_a_number_b_is_named_only_where_the_fit_shows_it_was_made_a_number(variant, steps):
    learner = _learner(variant)
    made_a_number = VARIANTS[variant][-1]
    assert EX16._made_as_number(learner) == (["b"] if made_a_number else [])

    @EX16._numbers_named
    def test(learner):
        X = torch.randn(10, 3, generator=torch.Generator().manual_seed(1))
        y = X.sum(dim=1) + 1.0
        EX16._parameters(learner.fit_linear(X, y, 0.1, steps), 3, "fit_linear(X, y, ...)")

    if variant == "right":
        test(learner=learner)
        return
    with pytest.raises(CheckFailed) as caught:
        test(learner=learner)
    told = "parameter_python_number" in caught.value.evidence
    assert told == made_a_number
    if told:  # each cause the values allow is named, and the fix covers both
        en, zh = caught.value.message.en, caught.value.message.zh
        assert "torch.zeros((), dtype=X.dtype" in en and "requires_grad=True" in zh
        assert "made as a Python number" in en and "update step leaves out" in en
        assert "return b.detach()" in en and "漏掉" in zh


def test_the_catalogue_names_it():
    entry = match(DiagnosisCatalog.load(), ("not_a_tensor", "parameter_python_number"), None)
    assert entry is not None and entry.id == "parameter-python-number"
