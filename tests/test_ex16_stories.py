"""Exercise-16's stories about gradients used at the wrong moment: each is told only where the
learner's own run (and its own lines) show it.

- w and b that never moved (a flat curve, and the result of no steps at all) are named
  ``parameters_never_move``, not a curve that "drifts apart";
- a .grad that is None because it was cleared between backward() and the update, or zeroed
  before the loop's first backward(), is named from those lines;
- a loss of one value per sample, which .item() refuses, is named as not averaged.
"""

from __future__ import annotations

import inspect
import textwrap
import types

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorFrame, ErrorInfo
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

HIDDEN = hidden_tests("exercise-16")


# -- learners: the reference's loop with one change ------------------------------------------------


def _fit(X, y, lr, steps, order="right", scale=1.0):
    """``order``: "right" (update, then zero), "zero_first" (zero, then update: subtracts
    zeros), "no_update" (never updates), "stale_loss" (records the loss of the start every
    step, but trains). ``scale`` multiplies the update."""
    d = X.shape[1]
    w = torch.zeros(d, dtype=X.dtype, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, requires_grad=True)
    losses = []
    first = None
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        first = loss.item() if first is None else first
        losses.append(first if order == "stale_loss" else loss.item())
        loss.backward()
        if order == "zero_first":
            w.grad.zero_()
            b.grad.zero_()
        if order != "no_update":
            with torch.no_grad():
                w -= scale * lr * w.grad
                b -= scale * lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w.detach(), b.detach(), losses


class _Learner:
    """learner.run(scenario, ...) on this side, for a module that has fit_linear."""

    def __init__(self, fit):
        self.module = types.SimpleNamespace(fit_linear=fit)

    def run(self, scenario, *args):
        return scenario(self.module, *args)


def _never_moved_evidence(fit, X, y, lr, steps, source=""):
    try:
        HIDDEN._never_moved(_Learner(fit), X, y, lr, steps, "fit_linear(...)", source)
    except CheckFailed as failed:
        return tuple(failed.evidence), failed.message.en
    return None


def _data(seed, n=16, d=2):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n, d, generator=g)
    return X, X @ torch.randn(d, generator=g) + 0.5


ZERO_FIRST_SOURCE = textwrap.dedent(
    """
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        loss.backward()
        w.grad.zero_()
        b.grad.zero_()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    """
)


def test_zeroing_before_the_update_is_named_with_its_lines():
    X, y = _data(0)
    fit = lambda X, y, lr, steps: _fit(X, y, lr, steps, "zero_first")  # noqa: E731
    found = _never_moved_evidence(fit, X, y, 0.1, 10, ZERO_FIRST_SOURCE)
    assert found is not None
    evidence, message = found
    assert evidence[-1] == "parameters_never_move"
    assert "`w.grad.zero_()`" in message and "`w -= lr * w.grad`" in message
    assert "drifts apart" not in message


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 12),
    lr=st.sampled_from([0.0, 0.01, 0.1, 0.3]),
    order=st.sampled_from(["right", "zero_first", "no_update", "stale_loss"]),
)
def test_never_moved_is_told_exactly_when_w_and_b_stay_put_and_the_curve_is_flat(
    seed, steps, lr, order
):
    X, y = _data(seed)
    fit = lambda X, y, lr, steps: _fit(X, y, lr, steps, order)  # noqa: E731
    w, b, losses = fit(X, y, lr, steps)
    w0, b0, _ = fit(X, y, lr, 0)
    still = torch.equal(w, w0) and torch.equal(b, b0)
    flat = steps >= 2 and all(v == losses[0] for v in losses)
    found = _never_moved_evidence(fit, X, y, lr, steps)
    assert (found is not None) == (still and flat), (order, steps, lr, found)
    if found is not None:
        assert found[0] == ("values_differ", "parameters_never_move")


def test_a_curve_that_stays_flat_while_w_moves_is_not_called_never_moved():
    X, y = _data(3)
    fit = lambda X, y, lr, steps: _fit(X, y, lr, steps, "stale_loss")  # noqa: E731
    assert _never_moved_evidence(fit, X, y, 0.1, 10) is None


# -- .grad None: which line cleared it --------------------------------------------------------------


def _raised(source, message, line, n=None):
    """The learner's error as _explain_raise leaves it: (evidence, English message)."""
    error = ErrorInfo(
        kind="call",
        type="TypeError",
        classes=("TypeError", "Exception"),
        message=message,
        frames=(ErrorFrame(line=line, function="fit_linear", code=""),),
    )
    fault = LearnerRaised(
        Text(f"fit_linear raised {message}", f"fit_linear 抛出了 {message}"), error=error
    )
    with pytest.raises(LearnerRaised) as caught, HIDDEN._explain_raise(source, n):
        raise fault
    return caught.value.evidence, caught.value.message.en


CLEARED = """import torch


def fit_linear(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        w.grad = None
        b.grad = None
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    return w.detach(), b.detach(), losses
"""
ZERO_AT_TOP = CLEARED.replace(
    "    for _ in range(steps):\n",
    "    for _ in range(steps):\n        w.grad.zero_()\n        b.grad.zero_()\n",
).replace("        w.grad = None\n        b.grad = None\n", "")
REBINDS = CLEARED.replace("        w.grad = None\n        b.grad = None\n", "").replace(
    "        with torch.no_grad():\n            w -= lr * w.grad\n            b -= lr * b.grad\n",
    "        w = w - lr * w.grad\n        b = b - lr * b.grad\n",
)
NONE_OPERAND = "unsupported operand type(s) for *: 'float' and 'NoneType'"
NONE_ZERO = "'NoneType' object has no attribute 'zero_'"


def _line(source, code):
    return next(i for i, text in enumerate(source.splitlines(), 1) if text.strip() == code)


def test_a_gradient_cleared_between_backward_and_the_update_is_named():
    evidence, message = _raised(CLEARED, NONE_OPERAND, _line(CLEARED, "w -= lr * w.grad"))
    assert evidence[-1] == "grad_cleared_before_use"
    assert "`w.grad = None`" in message and "skip" not in message


def test_zeroing_before_the_first_backward_is_named():
    evidence, message = _raised(ZERO_AT_TOP, NONE_ZERO, _line(ZERO_AT_TOP, "w.grad.zero_()"))
    assert evidence[-1] == "grad_zeroed_before_backward"
    assert "first backward()" in message


def test_a_rebound_parameter_gets_neither_story():
    # w = w - lr * w.grad: nothing was cleared; the catalogue's grad-is-none says why
    evidence, _ = _raised(REBINDS, NONE_OPERAND, _line(REBINDS, "w = w - lr * w.grad"))
    assert not set(evidence) & {"grad_cleared_before_use", "grad_zeroed_before_backward"}


def test_a_clear_on_another_line_than_the_error_is_not_blamed():
    # the error arose elsewhere (the update line of a zero-at-top loop): no story from lines
    evidence, _ = _raised(ZERO_AT_TOP, NONE_OPERAND, _line(ZERO_AT_TOP, "w -= lr * w.grad"))
    assert not set(evidence) & {"grad_cleared_before_use", "grad_zeroed_before_backward"}


@given(n=st.integers(2, 200), elements=st.integers(2, 200))
def test_a_loss_of_one_value_per_sample_is_named_only_for_that_count(n, elements):
    message = f"a Tensor with {elements} elements cannot be converted to Scalar"
    evidence, text = _raised(CLEARED, message, 10, n=n)
    assert ("loss_not_reduced" in evidence) == (elements == n)
    assert ("one value per sample" in text) == (elements == n)


def test_the_hidden_tests_use_the_stories():
    # the training tests raise through _explain_raise and explain flat curves with _never_moved
    source = inspect.getsource(HIDDEN.test_losses_match_reference)
    assert "_explain_raise(learner_source, n)" in source and "_never_moved" in source
