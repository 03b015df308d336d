"""Exercise 16: an RMSE where the MSE was asked for got no diagnosis (or "your loss is computed
another way"), and a hand-written gradient missing the factor 2 or the 1/n got "the first update
itself differs" or, summed, "the loss is the sum of the squared errors" (it is not). The
learner's own steps=1 run now tells them (``step_scale_story``): a first loss that is the
square root of the expected one, or a right first loss with a first step exactly 1/2, n or n/2
times gradient descent's, per parameter."""

from __future__ import annotations

import math

import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX16 = hidden_tests("exercise-16")


def _vec(values):
    return torch.tensor(values, dtype=torch.float64)


@settings(max_examples=300, deadline=None)
@given(
    loss=st.floats(0.01, 1e4),
    ratio=st.floats(0.01, 100.0),
)
def test_the_rmse_is_named_exactly_where_the_first_loss_is_the_square_root(loss, ratio):
    got = loss * ratio
    story = EX16.step_scale_story(got, loss, {}, 32)
    root = math.isclose(got, math.sqrt(loss), rel_tol=1e-5, abs_tol=1e-7)
    same = math.isclose(got, loss, rel_tol=1e-5, abs_tol=1e-7)
    if root and not same:
        assert story is not None and story[0] == "loss_is_rmse"
        assert "square root" in story[1] and "平方根" in story[2]
    else:
        assert story is None or story[0] != "loss_is_rmse"


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(3, 200),
    w=st.lists(st.floats(-5, 5).filter(lambda v: abs(v) > 1e-3), min_size=1, max_size=6),
    b=st.floats(-5, 5).filter(lambda v: abs(v) > 1e-3),
    r_w=st.sampled_from(["1", "half", "n", "half_n", "inv_n", "other"]),
    r_b=st.sampled_from(["1", "half", "n", "half_n", "inv_n", "other"]),
    other=st.floats(0.05, 300.0),
)
def test_a_scaled_step_is_named_only_where_one_known_factor_explains_it(n, w, b, r_w, r_b, other):
    factors = {"1": 1.0, "half": 0.5, "n": float(n), "half_n": n / 2, "inv_n": 1 / n}
    factors["other"] = other
    f_w, f_b = factors[r_w], factors[r_b]
    known = {0.5, float(n), n / 2}
    assume(
        all(
            not math.isclose(f, k, rel_tol=1e-3)
            for f in (f_w, f_b)
            if f == other
            for k in (*known, 1.0, 1 / n)
        )
    )
    want_w, want_b = _vec(w), _vec(b)
    steps = {"w": (want_w * f_w, want_w), "b": (want_b * f_b, want_b)}
    story = EX16.step_scale_story(1.5, 1.5, steps, n)
    scaled = {name: f for name, f in (("w", f_w), ("b", f_b)) if f != 1.0}
    told = (
        scaled
        and all(f in known for f in scaled.values())
        and len({f for f in scaled.values()}) == 1
    )
    if f_w == f_b == 1 / n:  # every step divided by n: the update, whatever the gradient
        assert story is not None and story[0] == "step_divided_by_n", (n, f_w, f_b)
        assert "1/n" in story[1]
    elif told:
        assert story is not None and story[0] == "hand_gradient_scaled", (n, f_w, f_b)
        assert f"first step of {' and '.join(scaled)}" in story[1]
        assert ("learning rate is off" in story[1]) == (len(scaled) == 2)
    else:
        assert story is None, (n, f_w, f_b)
    # a first loss that differs says nothing about the step
    assert EX16.step_scale_story(2.0, 1.5, steps, n) is None


def test_the_story_needs_every_parameter_readable_and_enough_samples():
    want = _vec([1.0, -2.0])
    half = {"w": (want * 0.5, want), "b": (_vec(0.5), _vec(1.0))}
    assert EX16.step_scale_story(1.0, 1.0, half, 32)[0] == "hand_gradient_scaled"
    assert EX16.step_scale_story(1.0, 1.0, half, 2) is None  # n / 2 would be 1
    noisy = {"w": (want * 0.5 + _vec([0.0, 0.01]), want), "b": (_vec(0.5), _vec(1.0))}
    assert EX16.step_scale_story(1.0, 1.0, noisy, 32) is None  # no one factor
    nan = {"w": (_vec([math.nan, 1.0]), want), "b": (_vec(0.5), _vec(1.0))}
    assert EX16.step_scale_story(1.0, 1.0, nan, 32) is None
