"""What a training loop's own run shows, named only where the run shows it (exercises 14 and
17, grader/testing/training.py): a first loss n times the expected one (a summed loss), a
training that blows up before its parameters turn NaN, a loss that never changes while the
parameters do (a prediction made before the loop), one right update and then none (a used-up
generator), a graph reused across epochs; and two runs that diverge alike compare as equal.
"""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorInfo
from grader.spec import Text
from grader.testing.checks import CheckFailed
from grader.testing.training import (
    _mean_of_recorded,
    _moving_average,
    compare_losses,
    diverged,
    graph_reuse_named,
    moving_average_fit,
    recorded_loss_story,
    scaled_loss_story,
    stale_loss_story,
    stops_after_first_story,
)

SAMPLES = {32: ("the number of samples", "样本数")}


def curve(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=torch.float64)


def failure(got, want, **kwargs) -> CheckFailed:
    with pytest.raises(CheckFailed) as info:
        compare_losses(got, want, "train(...)", **kwargs)
    return info.value


# -- a summed loss: the first loss n times the expected one -------------------------------------


def test_a_first_loss_n_times_the_expected_one_is_a_summed_loss():
    story = scaled_loss_story(221.6733, 6.927290625, SAMPLES)
    assert story is not None and story[0] == "scaled_by_size"
    assert "32 times" in story[1] and "32 倍" in story[2]
    assert scaled_loss_story(6.92729 * 31, 6.92729, SAMPLES) is None  # not a count
    assert scaled_loss_story(5.0, 0.0, SAMPLES) is None
    assert scaled_loss_story(math.nan, 1.0, SAMPLES) is None


@settings(max_examples=300, deadline=None)
@given(
    want=st.floats(1e-6, 1e6),
    n=st.integers(2, 4096),
    factor=st.floats(0.01, 5000.0),
)
def test_the_summed_loss_is_named_exactly_when_the_ratio_is_the_count(want, n, factor):
    counts = {n: ("the number of samples", "样本数")}
    exact = scaled_loss_story(n * want, want, counts)
    assert exact is not None and exact[0] == "scaled_by_size" and f"{n} times" in exact[1]
    got = factor * want
    story = scaled_loss_story(got, want, counts)
    assert (story is not None) == math.isclose(got, n * want, rel_tol=1e-5, abs_tol=0.0)


# -- a training that blows up ---------------------------------------------------------------------


def test_losses_that_grow_into_inf_and_nan_diverge():
    assert diverged(curve(221.7, 1.1e4, 6.3e5, 3.8e7, math.inf, math.nan))
    assert diverged(curve(1.0, 2.0, 4.0, 8.0))  # growing, still finite
    assert not diverged(curve(6.9, 3.9, 2.3, math.nan))  # falling, then NaN: not a blow-up
    assert not diverged(curve(math.nan, math.nan))
    assert not diverged(curve(6.9, 3.9, 2.3, 1.4))


@settings(max_examples=200, deadline=None)
@given(
    start=st.floats(1e-3, 1e3),
    growth=st.floats(1.01, 100.0),
    steps=st.integers(2, 30),
    tail=st.sampled_from([(), (math.inf,), (math.inf, math.nan), (math.nan,)]),
)
def test_a_geometric_blow_up_diverges_and_its_mirror_does_not(start, growth, steps, tail):
    rising = [start * growth**i for i in range(steps)]
    assume(all(math.isfinite(v) for v in rising))
    assert diverged(curve(*rising, *tail))
    assert not diverged(curve(*reversed(rising), *tail))


# -- a stale prediction ---------------------------------------------------------------------------


def test_a_flat_curve_is_a_stale_loss_only_where_the_parameters_moved():
    flat = curve(6.927, 6.927, 6.927, 6.927)
    story = stale_loss_story(flat, moved=True)
    assert story is not None and "inside the loop" in story[1]
    assert stale_loss_story(flat, moved=False) is None  # that is "never updated"
    assert stale_loss_story(curve(6.927, 6.9, 6.927), moved=True) is None


def test_a_replay_whose_other_evidence_fails_is_not_named():
    # the learner's curve is the never-updated replay's, but its parameters moved: the exercise
    # returns None for that replay, and it is not named
    flat = curve(6.9, 6.9, 6.9, 6.9)
    want = curve(6.9, 3.9, 2.3, 1.4)
    named = failure(
        flat, want, mistakes=[(lambda: flat.clone(), "never updated", "从未更新", ["x"])]
    )
    assert "never updated" in named.message.en
    other = failure(flat, want, mistakes=[(lambda: None, "never updated", "从未更新", ["x"])])
    assert "never updated" not in other.message.en


# -- one right update, then none ------------------------------------------------------------------


def test_one_right_update_then_a_flat_curve_names_the_used_up_generator():
    want = curve(6.927, 3.953, 2.298, 1.364, 0.8)
    got = curve(6.927, 3.953, 3.953, 3.953, 3.953)
    story = stops_after_first_story(got, want)
    assert story is not None and "list(model.parameters())" in story[1]
    found = failure(got, want)
    assert "updates_stop_after_first" in found.evidence
    assert "momentum or Adam" not in found.message.en
    # the first update is not the expected one, or the curve still moves: not this story
    assert stops_after_first_story(curve(6.927, 3.0, 3.0, 3.0, 3.0), want) is None
    assert stops_after_first_story(curve(6.927, 3.953, 3.953, 3.9, 3.9), want) is None
    assert stops_after_first_story(curve(6.927, 6.927, 6.927, 6.927, 6.927), want) is None


@settings(max_examples=200, deadline=None)
@given(
    values=st.lists(st.floats(0.01, 100.0), min_size=3, max_size=20, unique=True),
    stop=st.integers(2, 19),
)
def test_the_generator_story_holds_exactly_when_the_curve_stops_after_one_update(values, stop):
    assume(not math.isclose(values[2], values[1], rel_tol=1e-3))  # the expected curve moves
    want = curve(*values)
    stop = min(stop, len(values))
    got = curve(*values[:2], *[values[1]] * (len(values) - 2))
    assert stops_after_first_story(got, want) is not None
    moving = curve(*values[:stop], *[values[stop - 1]] * (len(values) - stop))
    assert (stops_after_first_story(moving, want) is not None) == (stop == 2)


# -- NaN compared with NaN ----------------------------------------------------------------------


def test_two_runs_that_diverge_alike_are_the_same_run():
    run = curve(221.7, 1.1e4, math.inf, math.nan, math.nan)
    compare_losses(run, run.clone(), "train(...)")  # no failure
    replayed = failure(
        run,
        curve(6.9, 3.9, 2.3, 1.4, 0.8),
        mistakes=[(lambda: run.clone(), "the same", "相同", ["y"])],
    )
    assert "the same" in replayed.message.en and "y" in replayed.evidence


# -- a graph reused across epochs ---------------------------------------------------------------


def test_backward_through_the_graph_a_second_time_names_the_prediction_outside_the_loop():
    text = "Trying to backward through the graph a second time (or directly access ...)"
    error = LearnerRaised(
        Text(f"train raised RuntimeError: {text}", f"train 抛出了 RuntimeError：{text}"),
        error=ErrorInfo(kind="call", type="RuntimeError", classes=("RuntimeError",), message=text),
    )
    with pytest.raises(LearnerRaised) as info, graph_reuse_named():
        raise error
    assert "inside the loop" in info.value.message.en
    assert "在循环里" in info.value.message.zh
    assert "graph_reused_across_epochs" in info.value.evidence


def test_another_learner_error_is_left_as_it_is():
    text = "mat1 and mat2 shapes cannot be multiplied (32x3 and 2x1)"
    message = Text(f"train raised RuntimeError: {text}", f"train 抛出了 RuntimeError：{text}")
    error = LearnerRaised(
        message,
        error=ErrorInfo(kind="call", type="RuntimeError", classes=("RuntimeError",), message=text),
    )
    with pytest.raises(LearnerRaised) as info, graph_reuse_named():
        raise error
    assert info.value.message == message and info.value.evidence == ()


# -- where the curve first differs decides what may have caused it ---------------------------


@settings(max_examples=80, deadline=None)
@given(
    start=st.floats(0.5, 50.0),
    decay=st.floats(0.3, 0.9),
    matching=st.integers(1, 5),
    off=st.floats(0.05, 0.5),
    length=st.integers(7, 12),
)
def test_leftover_gradients_and_momentum_are_blamed_only_after_a_right_first_update(
    start, decay, matching, off, length
):
    """Leftover gradients and an optimizer's state (momentum, Adam) cannot change the first
    update: the model arrives with no gradients, and momentum's first step is plain SGD's. A
    curve whose loss after the first update already differs was sent to them ("your first 1
    loss matches ..., then the curve drifts apart"); it is told the first update differs."""
    want = curve(*(start * decay**k for k in range(length)))
    got = want.clone()
    got[matching:] = got[matching:] * (1 + off)  # flat and stale curves are other stories
    got[matching:] += torch.linspace(0, off, length - matching, dtype=torch.float64)
    message = failure(got, want).message.en
    leftover = "momentum or Adam" in message or "left over" in message
    if matching == 1:
        assert not leftover and "the first update itself differs" in message
    else:
        assert leftover and f"first {matching} losses match" in message


@settings(max_examples=60, deadline=None)
@given(
    start=st.floats(0.5, 20.0),
    growth=st.floats(1.5, 1000.0),
    finite_steps=st.integers(3, 8),
    bad=st.sampled_from([math.nan, math.inf]),
)
def test_a_curve_that_grows_into_nan_is_a_diverging_training_not_a_division(
    start, growth, finite_steps, bad
):
    """Losses that grow step after step until they overflow: the steps are too large. The
    catalogue's NaN advice ("guard the division, clamp before sqrt") pointed elsewhere."""
    want = curve(*(start * 0.8**k for k in range(finite_steps + 3)))
    grown = [start * growth**k for k in range(finite_steps)]
    got = curve(*grown, bad, bad, bad)
    assume(all(math.isfinite(v) for v in grown))
    failed = failure(got, want)
    assert "training_diverged" in failed.evidence


def test_a_nan_without_growth_is_not_called_a_diverging_training():
    want = curve(4.0, 3.0, 2.0, 1.5, 1.2)
    got = curve(4.0, 3.5, 3.2, math.nan, math.nan)  # falling, then NaN: not overshooting
    assert "training_diverged" not in failure(got, want).evidence


# -- a right training whose recorded losses are averaged, summed or scaled ----------------------


RECORDED = {  # how a learner records the losses, and the words the story names it by
    "mean": (lambda w, k: torch.cumsum(w, 0) / k, "mean of all the losses so far"),
    "sum": (lambda w, k: torch.cumsum(w, 0), "sum of all the losses so far"),
    "per_step": (lambda w, k: w / k, "divided by the epoch's number"),
    "count_off_by_one": (lambda w, k: torch.cumsum(w, 0) / (k + 1), "divided by one more than"),
    "sum_over_count": (
        lambda w, k: torch.cumsum(w, 0) / w.numel(),
        "divided by the number of epochs",
    ),
    "mean_of_recorded": (lambda w, k: _mean_of_recorded(w), "mean of the numbers recorded"),
    "moving_average": (lambda w, k: _moving_average(w, 0.9, False), "moving average"),
    "halved": (lambda w, k: _moving_average(w, 0.5, False), "halves the weight"),
    "smoothed_from_first": (lambda w, k: _moving_average(w, 0.8, True), "moving average"),
    "scaled": (lambda w, k: w * 32, None),
    "over_epochs": (lambda w, k: w / w.numel(), None),
}


def test_losses_recorded_wrong_by_a_right_training_are_named_as_recorded():
    want = curve(6.927, 3.953, 2.298, 1.364, 0.9)
    count = torch.arange(1, 6, dtype=want.dtype)
    for how, (record, words) in RECORDED.items():
        story = recorded_loss_story(record(want, count), want, trained_right=True)
        assert story is not None and story[0] == "loss_recorded_wrong", how
        assert "training itself is right" in story[1] and "训练本身是对的" in story[2]
        assert (words in story[1]) if words else ("so far" not in story[1]), how
        # the parameters differ from the reference's: the training is wrong, not the record
        assert recorded_loss_story(record(want, count), want, trained_right=False) is None
    assert recorded_loss_story(want.clone(), want, trained_right=True) is None
    assert recorded_loss_story(want[:-1], want, trained_right=True) is None  # a count, not this
    assert recorded_loss_story(curve(6.927, math.nan, 1, 1, 1), want, trained_right=True) is None


# the words that name each way in a story; the moving averages are one way (any beta, read
# from the curve)
_WORDS = {
    "mean": "mean of all the losses so far",
    "sum": "sum of all the losses so far",
    "per_step": "divided by the epoch's number",
    "count_off_by_one": "divided by one more than",
    "sum_over_count": "divided by the number of epochs",
    "mean_of_recorded": "mean of the numbers recorded",
}


def _ways_matching(got, want):
    count = torch.arange(1, want.numel() + 1, dtype=want.dtype)
    matching = [
        words
        for how, words in _WORDS.items()
        if torch.allclose(got, RECORDED[how][0](want, count), rtol=1e-4, atol=1e-6)
    ]
    if moving_average_fit(got, want) is not None:
        matching.append("moving average")
    return matching


@settings(max_examples=300, deadline=None)
@given(
    values=st.lists(st.floats(1e-3, 1e3), min_size=2, max_size=60),
    how=st.sampled_from(sorted(RECORDED)),
    beta=st.floats(0.01, 0.99),
    first=st.booleans(),
)
def test_a_way_of_recording_is_named_only_where_the_curve_is_that_way_alone(
    values, how, beta, first
):
    """Any curve: the story names a way (running mean, running sum, division by the epoch
    number, a count off by one, the mean of the recorded means, a moving average of any beta)
    exactly when the recorded curve is that way and no other; the training's own evidence
    (the parameters) is what makes it a story at all."""
    want = curve(*values)
    count = torch.arange(1, want.numel() + 1, dtype=want.dtype)
    got = (
        _moving_average(want, beta, first)
        if how == "moving_average"
        else RECORDED[how][0](want, count)
    )
    assume(not torch.allclose(got, want, rtol=1e-4, atol=1e-6))
    story = recorded_loss_story(got, want, trained_right=True)
    assert story is not None and story[0] == "loss_recorded_wrong"
    named = [words for words in (*_WORDS.values(), "moving average") if words in story[1]]
    matching = _ways_matching(got, want)
    assert named == (matching if len(matching) == 1 else [])
    if how == "moving_average" and want.numel() >= 3 and len(matching) == 1:
        assert f"{beta:.4g} * avg" in story[1]
    assert recorded_loss_story(got, want, trained_right=False) is None
