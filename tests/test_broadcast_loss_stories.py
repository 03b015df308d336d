"""Exercises 14 and 17: a loss whose two sides broadcast to (n, n) is recognised by replaying
one such loss, but every pair of sides that broadcasts that way gives the very same curve. The
story named one of them as the learner's ("a target of shape (n,) (y.squeeze() or y.view(-1))"),
and the fix said "y.unsqueeze(1)": exercise 14's `loss_fn(model(X), y.unsqueeze(1))` (y already
(n, 1)) and exercise 17's `loss_fn(model(X).squeeze(1), y.unsqueeze(1))` (both sides reshaped)
were told to write what they had written. The stories now name every such pair and the fixes
say which side to leave alone."""

from __future__ import annotations

import types
import warnings

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX14 = hidden_tests("exercise-14")
EX17 = hidden_tests("exercise-17")

# each pair of sides (prediction, target) as learners write it; y arrives as (n, 1) in
# exercise 14 and as (n,) in exercise 17
EX14_PAIRS = {
    "y.unsqueeze(1)": lambda p, y: (p, y.unsqueeze(1)),
    "y.squeeze()": lambda p, y: (p, y.squeeze()),
    "y.view(-1)": lambda p, y: (p, y.view(-1)),
    "model(X).squeeze(1)": lambda p, y: (p.squeeze(1), y),
    "y.T": lambda p, y: (p, y.T),
}
EX17_PAIRS = {
    "both reshaped": lambda p, y: (p.squeeze(1), y.unsqueeze(1)),
    "y as it is": lambda p, y: (p, y),
    "y.unsqueeze(0)": lambda p, y: (p, y.unsqueeze(0)),
}


def _loop(pair, model, X, y, lr, epochs):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        pred, target = pair(model(X), y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nn.MSELoss's broadcast warning
            loss = nn.functional.mse_loss(pred, target)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses


def _ex14_module(pair):
    def train(model, X, y, lr=0.1, epochs=50):
        return _loop(pair, model, X, y, lr, epochs)

    module = types.ModuleType("ex14_" + str(id(pair)))
    module.train = train  # type: ignore[attr-defined]
    return module


def _ex17_module(pair):
    def train_regressor(X, y, epochs, lr, seed):
        torch.manual_seed(seed)
        model = nn.Linear(X.shape[1], 1).to(X.device)
        return model, _loop(pair, model, X, y, lr, epochs)

    module = types.ModuleType("ex17_" + str(id(pair)))
    module.train_regressor = train_regressor  # type: ignore[attr-defined]
    return module


class _Learner:
    """The learner's module called on this side (learner.run(scenario, ...) and its
    functions)."""

    def __init__(self, module):
        self.module = module

    def run(self, scenario, *args, **kwargs):
        return scenario(self.module, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.module, name)


def _failure(test, *args):
    with pytest.raises(CheckFailed) as caught:
        test(*args)
    return caught.value


def _fix(exercise, evidence):
    """The fix a learner reads for this evidence in this exercise (its own, where it has one)."""
    catalogue = DiagnosisCatalog.load()
    entry = match(catalogue, tuple(evidence), None)
    assert entry is not None
    own = Catalog(project_root()).resolve(exercise).fix(entry.id)  # from its exercise.yaml
    return entry.id, (own or entry.fix).en


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**16), written=st.sampled_from(sorted(EX14_PAIRS)))
def test_ex14_names_every_pair_that_broadcasts_and_says_leave_both_sides(seed, written):
    learner = _Learner(_ex14_module(EX14_PAIRS[written]))
    reference = _ex14_module(lambda p, y: (p, y))
    failed = _failure(
        EX14.test_losses_match_reference, learner, reference, "cpu", seed, lambda *a: None
    )
    assert "broadcast_shape" in failed.evidence
    message = failed.message.en
    assert "a target of shape (n,) (y.squeeze() or y.view(-1))" not in message
    assert "y.unsqueeze(1) gives (n, 1, 1)" in message
    assert "loss_fn(model(X), y)" in message
    diagnosis, fix = _fix("exercise-14", failed.evidence)
    assert diagnosis == "broadcast-shape"
    assert "y.unsqueeze(1) /" not in fix and "loss_fn(model(X), y)" in fix


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 2**16), written=st.sampled_from(sorted(EX17_PAIRS)))
def test_ex17_names_both_sides_reshaped(seed, written):
    learner = _Learner(_ex17_module(EX17_PAIRS[written]))
    reference = _ex17_module(lambda p, y: (p, y.unsqueeze(1)))
    rng = torch.Generator().manual_seed(seed)
    failed = _failure(
        EX17.test_losses_match_reference, learner, reference, "cpu", rng, seed, lambda *a: None
    )
    assert "broadcast_shape" in failed.evidence
    message = failed.message.en
    assert "with a target that is not (n, 1)" not in message
    assert "model(X).squeeze(1) against y.unsqueeze(1)" in message
    assert "not both" in message
    diagnosis, fix = _fix("exercise-17", failed.evidence)
    assert diagnosis == "broadcast-shape"
    assert "y.unsqueeze(1) /" not in fix and "not both" in fix
