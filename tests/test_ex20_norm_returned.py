"""Exercise 20: `return clip_grad_norm_(...).item()` (the total gradient norm, not the loss) got
"call 1 returned 5.57171, but the loss of the model it received was 10.4832" with nothing more.
Where every call returned the norm clip_grad_norm_ gives, that is now said; a value that is
neither, or a norm that equals the loss anyway, is not told so."""

from __future__ import annotations

import types

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from torch import nn

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX20 = hidden_tests("exercise-20")
WHAT = "train_step(...) × 3"

positive = st.floats(1e-3, 1e3, allow_nan=False)


def _said(got, before, norms):
    try:
        EX20._norm_returned(got, before, norms, WHAT)
    except CheckFailed as failed:
        assert "returned_grad_norm" in failed.evidence
        return True
    return False


@settings(max_examples=200, deadline=None)
@given(
    before=st.lists(positive, min_size=1, max_size=5),
    norms=st.lists(positive, min_size=5, max_size=5),
    returned=st.sampled_from(["norms", "losses", "norms but one", "doubled norms"]),
)
def test_the_norm_is_named_only_where_every_call_returned_it(before, norms, returned):
    norms = norms[: len(before)]
    assume(any(abs(n - w) > 1e-3 * max(n, w) for n, w in zip(norms, before, strict=True)))
    if returned == "norms":
        got = list(norms)
    elif returned == "losses":
        got = list(before)
    elif returned == "norms but one":
        assume(len(norms) > 1 and abs(norms[-1] - before[-1]) > 1e-3 * before[-1])
        got = [*norms[:-1], before[-1]]
    else:
        got = [2 * n for n in norms]
    assert _said(got, before, norms) == (returned == "norms")


def test_a_norm_equal_to_every_loss_says_nothing():
    assert not _said([1.0, 2.0], [1.0, 2.0], [1.0, 2.0])


class _Returns:
    def __init__(self, what):
        self.what = what

    def train_step(self, model, X, y, optimizer, max_norm):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        optimizer.step()
        return norm.item() if self.what == "norm" else loss.item()


class _Learner:
    def __init__(self, module):
        self.module = module

    def run(self, scenario, *args):
        return scenario(self.module, *args)


@pytest.mark.parametrize(("returns", "named"), [("norm", True), ("loss", None)])
def test_the_hidden_test_reads_the_norm_from_the_run(returns, named):
    learner = _Learner(_Returns(returns))
    rng = torch.Generator().manual_seed(3)
    if named is None:
        EX20.test_returns_loss(learner, "cpu", rng, 5)
        return
    with pytest.raises(CheckFailed) as caught:
        EX20.test_returns_loss(learner, "cpu", rng, 5)
    assert "returned_grad_norm" in caught.value.evidence
    assert "clip_grad_norm_ returns" in caught.value.message.en


def test_step_run_leaves_grad_alone():
    module = types.SimpleNamespace(train_step=lambda model, X, y, opt, m: 0.0)
    run = EX20.step_run(
        module, "linear", torch.randn(6, 2), torch.randn(6, 1), 0.1, 1.0, 2, False, 0
    )
    assert len(run["norms"]) == 2 and all(n > 0 for n in run["norms"])
