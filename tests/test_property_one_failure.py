"""A property test (grader.testing.properties.PROPERTY) whose inputs fail in two distinct ways
(exercise 06's drop_dim as x[..., 0]: a named story on one input, a shape error raised on
another line for a second) ended in hypothesis' ExceptionGroup, and the learner read "the
grader could not finish checking your answer". A property now reports one failure, the
smallest, as a plain exception."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed, fail
from grader.testing.properties import PROPERTY


@PROPERTY
@given(n=st.integers(0, 50))
def _two_ways_wrong(n):
    if n % 2:
        fail("odd", "奇数", evidence=["odd"])
    if n > 3:
        raise AssertionError("large")


def test_two_distinct_failures_come_out_as_one():
    # a group of failures (hypothesis' ExceptionGroup) is neither of these
    with pytest.raises((CheckFailed, AssertionError)):
        _two_ways_wrong()
