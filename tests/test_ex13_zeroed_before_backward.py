"""Exercise 13: derivative zeroing the fresh leaf's gradient before backward()
(``t.grad.zero_()`` right after ``t = torch.tensor(float(x), requires_grad=True)``) raised
"'NoneType' object has no attribute 'zero_'" and was told "A gradient that is None" with a fix
about reading .grad of the leaf rather than f's result, which it did. The raising line is now
named as zeroing before any backward() (`grad-cleared-before-use`, with exercise 13's fix:
there is nothing to zero on a fresh leaf); a zeroing after backward() is not this story."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, match
from tests.hidden import hidden_tests

EX13 = hidden_tests("exercise-13")

CLEARS = [
    "t.grad.zero_()",
    "t.grad.data.zero_()",
    "t.grad.fill_(0)",
    "t.grad[...] = 0",
    "t.grad *= 0",
]
BACKWARDS = ["f(t).backward()", "y = f(t)\n    y.backward()", "(g,) = torch.autograd.grad(f(t), t)"]


def _source(clear, backward, before):
    body = [clear, backward] if before else [backward, clear]
    lines = "\n    ".join(body)
    return (
        "import torch\n\n\n"
        "def derivative(f, x):\n"
        "    t = torch.tensor(float(x), requires_grad=True)\n"
        f"    {lines}\n"
        "    return t.grad.item()\n"
    )


def _line_of(source, code):
    return next(i for i, text in enumerate(source.splitlines(), 1) if text.strip() == code)


@given(clear=st.sampled_from(CLEARS), backward=st.sampled_from(BACKWARDS), before=st.booleans())
def test_a_zeroing_before_any_backward_is_named_and_only_it(clear, backward, before):
    source = _source(clear, backward, before)
    line = _line_of(source, clear)
    found = EX13._zeroed_before_backward(source, line)
    assert (found is not None) == before, (source, found)
    if before:
        assert found == (line, clear)


@given(clear=st.sampled_from(CLEARS), backward=st.sampled_from(BACKWARDS))
def test_another_line_raising_is_not_it(clear, backward):
    source = _source(clear, backward, True)
    assert EX13._zeroed_before_backward(source, _line_of(source, "return t.grad.item()")) is None
    assert EX13._zeroed_before_backward("def derivative(:\n", 1) is None


def test_the_diagnosis_and_exercise_13s_fix():
    entry = match(DiagnosisCatalog.load(), ("grad_zeroed_before_backward",), None)
    assert entry is not None and entry.id == "grad-cleared-before-use"
    fix = Catalog(project_root()).resolve("exercise-13").fix("grad-cleared-before-use")
    assert fix is not None and "nothing to zero" in fix.en and "没有东西可以清零" in fix.zh
