"""Exercise 13: `derivative` returning y.item() after y.backward() (the function's value, not
t.grad) got only "is 16, expected 8". It is named where every answer is f(x) itself, and only
there: a derivative wrong in another way (negated, doubled, shifted) is not told it is f(x)."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX13 = hidden_tests("exercise-13")
NAMES = ["x**2 + 2*x + 1", "x**2 + 3*x", "sin(x) * exp(x)", "x**3 - 4*x", "log(1 + x**2)"]


class _Reference:
    @staticmethod
    def derivative(f, x):
        t = torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
        f(t).backward()
        return t.grad.item()


class _Value:
    """The learner's mistake: y.item() after y.backward()."""

    @staticmethod
    def derivative(f, x):
        t = torch.tensor(float(x), requires_grad=True)
        y = f(t)
        y.backward()
        return y.item()


def _evidence(cases, got):
    want = EX13.derivative_run(_Reference, cases)
    try:
        EX13._check_derivatives(cases, got, want)
    except CheckFailed as failed:
        return tuple(failed.evidence), failed.message.en
    return None


points = st.floats(-3, 3, allow_nan=False).map(lambda v: round(v, 2))
cases_st = st.lists(st.tuples(st.sampled_from(NAMES), points), min_size=1, max_size=6)


@settings(max_examples=80, deadline=None)
@given(cases=cases_st)
def test_the_functions_value_is_named(cases):
    want = EX13.derivative_run(_Reference, cases)
    at = EX13.derivative_run(_Value, cases)
    assume(
        any(
            not math.isclose(v, w, rel_tol=1e-3, abs_tol=1e-3)
            for v, w in zip(at, want, strict=True)
        )
    )
    result = _evidence(cases, at)
    assert result is not None
    evidence, message = result
    assert "function_value_not_derivative" in evidence
    assert "not y.item()" in message


@settings(max_examples=80, deadline=None)
@given(
    cases=cases_st,
    wrong=st.sampled_from(["negated", "doubled", "plus one", "one case is f(x)"]),
)
def test_other_wrong_derivatives_are_not_called_the_value(cases, wrong):
    want = EX13.derivative_run(_Reference, cases)
    at = EX13.derivative_run(_Value, cases)
    if wrong == "negated":
        got = [-w for w in want]
    elif wrong == "doubled":
        got = [2 * w for w in want]
    elif wrong == "plus one":
        got = [w + 1 for w in want]
    else:  # f(x) in the first case only, the derivative elsewhere, and another case differs
        assume(len(cases) > 1)
        got = [at[0], *(w + 1 for w in want[1:])]
    # answers that are f(x) everywhere all the same are the mistake itself
    assume(
        not all(
            math.isclose(g, a, rel_tol=1e-4, abs_tol=1e-6) for g, a in zip(got, at, strict=True)
        )
    )
    result = _evidence(cases, got)
    if result is not None:
        evidence, message = result
        assert "function_value_not_derivative" not in evidence
        assert "not y.item()" not in message


@settings(max_examples=60, deadline=None)
@given(
    a=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    b=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    c=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    x=st.floats(-4, 4, allow_nan=False).map(lambda v: round(v, 3)),
)
def test_a_quadratics_value_is_named_where_it_is_not_its_slope(a, b, c, x):
    slope = 2 * a * x + b
    value = a * x * x + b * x + c
    at = EX13.quadratic_run(EX13._FunctionValue, a, b, c, x)
    assert math.isclose(at, value, rel_tol=1e-9, abs_tol=1e-9)
    assert EX13._is_function_value(value, at, slope) == (
        not math.isclose(value, slope, rel_tol=1e-4, abs_tol=1e-6)
    )
    assert not EX13._is_function_value(-slope if slope else 1.0, at, slope) or math.isclose(
        -slope if slope else 1.0, value, rel_tol=1e-4, abs_tol=1e-6
    )


def test_the_story_reads_as_a_learner_needs_it():
    cases = [("x**2 + 2*x + 1", 3.0)]
    with pytest.raises(CheckFailed) as caught:
        EX13._check_derivatives(cases, [16.0], [8.0])
    assert "16 is the value of f at x" in caught.value.message.en
    assert "t.grad.item()" in caught.value.message.zh
