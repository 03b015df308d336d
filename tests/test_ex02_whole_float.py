"""Exercise 2: an nbytes (or a describe count) that is the right whole number as a Python float
(`t.numel() * t.element_size() / 1`, `bits / 8`, `float(...)`) got only "should be a Python
int, but yours is float 602112.0". Where the value is a whole float, it is now told why `/`
and float arithmetic give one (`whole-number-float`); other wrong kinds are not."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX02 = hidden_tests("exercise-02")


def _evidence(value):
    try:
        EX02._expect_kind(value, "int", "nbytes(t)", "nbytes(t)")
    except CheckFailed as caught:
        return list(caught.evidence), caught.message
    return [], None


@given(n=st.integers(0, 10**9))
def test_a_whole_float_is_told_why_it_is_a_float(n):
    evidence, message = _evidence(float(n))
    assert "whole_float_not_int" in evidence
    assert "32 / 8 is 4.0" in message.en and "32 / 8 是 4.0" in message.zh


@given(
    value=st.one_of(
        st.integers(0, 10**9),
        st.floats(allow_nan=True, allow_infinity=True).filter(
            lambda f: not (f == f and abs(f) != float("inf") and f.is_integer())
        ),
        st.integers(0, 10**6).map(np.int64),
        st.integers(0, 10**6).map(np.float64),
        st.booleans(),
        st.text(max_size=3),
    )
)
def test_no_other_value_is_told_it(value):
    evidence, _ = _evidence(value)
    assert "whole_float_not_int" not in evidence


def test_the_catalogue_names_it():
    entry = match(DiagnosisCatalog.load(), ("wrong_type", "whole_float_not_int"), None)
    assert entry is not None and entry.id == "whole-number-float"
