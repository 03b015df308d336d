"""Exercise 16's fit_linear with one parameter that never moves (``b = 0.0``, a Python float,
or a tensor made without requires_grad, or an update that leaves it out) was told "the first
update itself differs (the learning rate ...)". From the learner's own steps=1 run, a right
first loss, one parameter still exactly 0 where gradient descent moves it and the other's step
right now name it (``parameter-never-updated``); ``.grad`` read on a Python number is named
``number-has-no-grad``."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from tests.hidden import hidden_tests

EX16 = hidden_tests("exercise-16")
CATALOGUE = DiagnosisCatalog.load()

nonzero = st.floats(0.01, 5.0) | st.floats(-5.0, -0.01)


@settings(max_examples=100, deadline=None)
@given(
    w=st.lists(nonzero, min_size=1, max_size=4),
    b=nonzero,
    loss=st.floats(0.01, 100.0),
    frozen=st.sampled_from(["w", "b", "none", "both"]),
    scale=st.sampled_from([1.0, 0.5, 2.0]),
)
def test_named_exactly_when_one_parameter_stays_zero_and_the_other_steps_right(
    w, b, loss, frozen, scale
):
    want = {"w": torch.tensor(w, dtype=torch.float64), "b": torch.tensor(b, dtype=torch.float64)}
    got = {
        name: torch.zeros_like(value) if frozen in (name, "both") else value * scale
        for name, value in want.items()
    }
    story = EX16.frozen_story(loss, loss, {name: (got[name], want[name]) for name in want})
    if frozen in ("w", "b") and scale == 1.0:
        assert story is not None and story[0] == "parameter_never_updated"
        assert f"{frozen} is still 0" in story[1]
    else:
        assert story is None
    # a first loss that is not the expected one: the start differs, not this story
    assert EX16.frozen_story(loss * 1.5, loss, {n: (got[n], want[n]) for n in want}) is None


def test_the_evidence_has_its_diagnosis():
    entry = match(CATALOGUE, ("values_differ", "parameter_never_updated"), None)
    assert entry is not None and entry.id == "parameter-never-updated"


@pytest.mark.parametrize("attribute", ["grad", "backward", "requires_grad_"])
@pytest.mark.parametrize("value", [0.0, 0], ids=repr)
def test_grad_of_a_python_number_is_named(value, attribute):
    try:
        getattr(value, attribute)
    except AttributeError as exc:
        error = {"type": "AttributeError", "message": str(exc)}
    entry = match(CATALOGUE, (), error)
    assert entry is not None and entry.id == "number-has-no-grad"
