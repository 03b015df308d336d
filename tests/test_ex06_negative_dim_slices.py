"""Exercise 6: drop_dim as x.view(x.shape[:dim] + x.shape[dim + 1:]) breaks for dim = -1
(x.shape[0:] is the whole shape) with "shape '[4, 4, 1]' is invalid for input of size 4" and
got no diagnosis: only an IndexError (len(x.shape) - dim) was named. Any error for a negative
dim whose position counted from the front works is now named a negative dim turned into the
wrong position; an error both ways is not."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorInfo
from tests.hidden import hidden_tests

EX06 = hidden_tests("exercise-06")


class _Learner:
    """Runs a drop_dim here and raises what the learner's proxy raises for its errors."""

    def __init__(self, drop_dim):
        self._drop_dim = drop_dim

    def drop_dim(self, x, dim):
        try:
            return self._drop_dim(x, dim)
        except Exception as exc:  # noqa: BLE001 - the learner's error, whatever its type
            kind = type(exc)
            error = ErrorInfo(
                kind="call",
                type=kind.__name__,
                classes=tuple(c.__name__ for c in kind.__mro__),
                message=str(exc),
            )
            message = Text(f"drop_dim raised {kind.__name__}: {exc}", "…")
            raise LearnerRaised(message, error=error) from None


def _sliced(x, dim):
    return x.view(x.shape[:dim] + x.shape[dim + 1 :])


def _broken(x, dim):
    raise RuntimeError("always")


SHAPES = st.lists(st.integers(2, 4), min_size=1, max_size=3)  # (1,) alone reshapes fine


@given(before=SHAPES)
def test_a_shape_error_for_the_last_dim_named_when_the_front_count_works(before):
    x = torch.zeros(*before, 1)
    with pytest.raises(LearnerRaised) as caught:
        EX06._drop_negative(_Learner(_sliced), x, -1)
    assert "negative_dim_position" in caught.value.evidence
    assert "x.shape[0:], the whole shape" in caught.value.message.en
    assert "整个形状" in caught.value.message.zh


@given(before=SHAPES)
def test_an_error_both_ways_is_not_named(before):
    x = torch.zeros(*before, 1)
    with pytest.raises(LearnerRaised) as caught:
        EX06._drop_negative(_Learner(_broken), x, -1)
    assert "negative_dim_position" not in caught.value.evidence
