"""Exercise-20's stories, each told only where its evidence holds:

- parameters that never moved (zero_grad between backward() and step()) are named
  ``parameters_never_move``, with the clearing line when train_step shows one;
- "clipping in the wrong place" needs a clipping call seen outside backward()..step(); a call
  in the right place that was handed a used-up generator is named as such;
- "the check misses inf" needs the check to find a NaN in the very place it misses the inf; a
  loop that keeps only the last parameter's answer is named as that.
"""

from __future__ import annotations

import math
import types

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

HIDDEN = hidden_tests("exercise-20")


class _Learner:
    """learner.run(scenario, ...) on this side, for a namespace of the learner's functions."""

    def __init__(self, **functions):
        self.module = types.SimpleNamespace(**functions)

    def run(self, scenario, *args):
        return scenario(self.module, *args)

    def function(self, fn):
        return fn


# -- train_step variants -------------------------------------------------------------------------


def _right(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()


def _zero_between(model, X, y, optimizer, max_norm):
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    optimizer.zero_grad()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()


def _used_generator(model, X, y, optimizer, max_norm):
    params = model.parameters()
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    sum(p.grad.norm() for p in params)
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()
    return loss.item()


def _after_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    optimizer.step()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    return loss.item()


def _args(seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(16, 3, generator=g)
    y = (10 * (X @ torch.randn(3, generator=g)) + 5).unsqueeze(1)
    return ("mlp", X, y, 0.05, 1.0, 3, False, seed, True)


def _steps_evidence(train_step, source=""):
    learner = _Learner(train_step=train_step)
    reference = types.SimpleNamespace(train_step=_right)
    try:
        HIDDEN._compare_steps(learner, reference, _args(), "train_step(...)", source=source)
    except CheckFailed as failed:
        return tuple(failed.evidence), failed.message.en
    return None


ZERO_BETWEEN = """
def train_step(model, X, y, optimizer, max_norm):
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    optimizer.zero_grad()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()
"""


def test_zero_grad_between_backward_and_step_is_named_never_moved():
    evidence, message = _steps_evidence(_zero_between, ZERO_BETWEEN)
    assert evidence == ("values_differ", "parameters_never_move")
    assert "Line 5, `optimizer.zero_grad()`" in message


def test_the_clearing_line_is_found_only_between_backward_and_step():
    assert HIDDEN._zeroed_before_step(ZERO_BETWEEN) == (5, "optimizer.zero_grad()")
    first = ZERO_BETWEEN.replace("    optimizer.zero_grad()\n", "").replace(
        "    loss = nn", "    optimizer.zero_grad()\n    loss = nn"
    )
    assert HIDDEN._zeroed_before_step(first) is None


@pytest.mark.filterwarnings("ignore:`parameters` is an empty generator")
def test_a_used_up_generator_is_named_and_not_the_wrong_place():
    evidence, message = _steps_evidence(_used_generator)
    assert evidence == ("values_differ", "clip_given_used_generator")
    assert "wrong place" not in message and "must run after" not in message


def test_clipping_after_step_keeps_its_story():
    evidence, _ = _steps_evidence(_after_step)
    assert evidence == ("values_differ", "clip_has_no_effect")


@pytest.mark.filterwarnings("ignore:`parameters` is an empty generator")
def test_clip_watch_puts_everything_back():
    backward, clip = torch.Tensor.backward, torch.nn.utils.clip_grad_norm_
    events = HIDDEN.clip_watch(
        types.SimpleNamespace(train_step=_used_generator), HIDDEN.step_run, *_args()
    )
    assert torch.Tensor.backward is backward and torch.nn.utils.clip_grad_norm_ is clip
    assert events[:3] == [["backward"], ["clip", 0, 0, True, 1.0], ["step"]]


EVENT = st.one_of(
    st.just(["backward"]),
    st.just(["step"]),
    st.tuples(st.integers(0, 3), st.booleans(), st.none() | st.floats(0.01, 10.0)).map(
        lambda t: ["clip", t[0], t[0], t[1], t[2]]
    ),
)


@settings(max_examples=200, deadline=None)
@given(events=st.lists(EVENT, max_size=12))
def test_clip_stories_follow_the_order_of_the_events(events):
    between, outside, last = [], [], None
    for event in events:
        if event[0] in ("backward", "step"):
            last = event[0]
        else:
            (between if last == "backward" else outside).append(event)
    story = HIDDEN._clip_story(events)
    tag = None if story is None else story[0]
    if any(e[1] > 0 for e in between):
        assert tag is None
    elif between:
        used = all(e[3] for e in between)
        assert tag == ("clip_given_used_generator" if used else "clip_given_nothing")
    elif outside:
        assert tag == "clip_has_no_effect"  # "Clipping in the wrong place": seen outside
    else:
        assert tag is None  # no clipping call seen: no story about where it is


# -- has_bad_grad ----------------------------------------------------------------------------------


def _checks_only(k):
    """has_bad_grad that looks at the k-th parameter's gradient alone."""

    def has_bad_grad(model):
        grad = list(model.parameters())[k].grad
        return grad is not None and not bool(torch.isfinite(grad).all())

    return has_bad_grad


def _last_only(model):
    bad = False
    for p in model.parameters():
        if p.grad is not None:
            bad = not torch.isfinite(p.grad).all().item()
    return bad


def _isnan_only(model):
    return any(p.grad is not None and bool(torch.isnan(p.grad).any()) for p in model.parameters())


def _reference(model):
    return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in model.parameters())


def _cases_evidence(has_bad_grad, cases, source=""):
    learner = _Learner(has_bad_grad=has_bad_grad)
    reference = types.SimpleNamespace(has_bad_grad=_reference)
    try:
        HIDDEN._check_cases(learner, reference, "cpu", 0, cases, source)
    except CheckFailed as failed:
        return tuple(failed.evidence), failed.message.en
    return None


LAST_ONLY = """
def has_bad_grad(model):
    bad = False
    for p in model.parameters():
        if p.grad is not None:
            bad = not torch.isfinite(p.grad).all().item()
    return bad
"""


def test_a_loop_that_keeps_the_last_answer_is_named_not_told_it_misses_inf():
    for case in ("nan", "inf"):
        evidence, message = _cases_evidence(_last_only, (case,), LAST_ONLY)
        assert evidence == ("values_differ", "last_parameter_decides"), case
        assert "`bad = not torch.isfinite(p.grad).all().item()`, line 6" in message
        assert "isnan" not in message


def test_isnan_only_still_misses_inf():
    evidence, _ = _cases_evidence(_isnan_only, ("inf",))
    assert evidence == ("values_differ", "inf_not_detected")


@settings(max_examples=12, deadline=None)
@given(k=st.integers(0, 5), case=st.sampled_from(["nan", "inf", "-inf"]))
def test_last_parameter_story_only_for_a_check_of_the_last_parameter(k, case):
    found = _cases_evidence(_checks_only(k), (case,))
    where = {"nan": 1, "inf": 2, "-inf": 5}[case]
    if k == where:
        assert found is None  # it looks exactly where the value is
        return
    evidence, _ = found
    assert ("last_parameter_decides" in evidence) == (k == 5)
    # it sees inf wherever it looks: it never misses the kind of value
    assert "inf_not_detected" not in evidence


def _own_limit(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)  # a number of its own
    optimizer.step()
    return loss.item()


def test_a_clipping_limit_of_its_own_is_named():
    """clip_grad_norm_(model.parameters(), 1.0) copied from the tutorial, where max_norm was
    passed in, got only "values differ"."""
    evidence, message = _steps_evidence(_own_limit)
    assert evidence == ("values_differ", "clip_limit_not_argument")
    assert "max_norm=0.1" in message


@given(
    max_norm=st.floats(0.05, 10.0),
    limits=st.lists(st.floats(0.05, 10.0), min_size=1, max_size=4),
    given_params=st.integers(0, 3),
)
def test_the_limit_story_needs_every_clipping_call_off_the_argument(max_norm, limits, given_params):
    events = []
    for limit in limits:
        events += [["backward"], ["clip", given_params, given_params, False, limit], ["step"]]
    story = HIDDEN._limit_story(events, max_norm)
    off = all(not math.isclose(v, max_norm, rel_tol=1e-9) for v in limits)
    assert (story is not None) == (off and given_params > 0)
