"""What a learner reads for the training-loop mistakes of exercises 14 and 17 that the audit
found misnamed: each story is shown only where the run shows its evidence.

Graded through the engine, as tests/test_corpus.py does (the corpus files, plus one file written
here: a hand-written update with steps far too large, which diverges to NaN).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import run_fresh
from tests.test_corpus import _GRADE, CORPUS

FILES = [
    "exercise-14/mse_sum.py",
    "exercise-14/y_squeezed.py",
    "exercise-14/pred_outside_retain.py",
    "exercise-14/step_before_backward.py",
    "exercise-14/manual_params_generator.py",
    "exercise-17/mse_sum.py",
    "exercise-17/pred_outside_retain.py",
    "exercise-17/pred_outside_loop.py",
]
BIG_STEPS = """import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    params = list(model.parameters())
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        model.zero_grad()
        loss = loss_fn(model(X), y)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= 100 * lr * p.grad
    return losses
"""


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    root = tmp_path_factory.mktemp("training")
    for file in FILES:
        (root / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(CORPUS / file, root / file)
    (root / "exercise-14" / "big_steps.py").write_text(BIG_STEPS, encoding="utf-8")
    files = [*FILES, "exercise-14/big_steps.py"]
    return json.loads(run_fresh(_GRADE, timeout=900, args=(str(root), json.dumps(files))))


def failures_of(graded, file: str) -> dict[str, dict]:
    """The tests of ``file`` that did not pass, by name (a device suffix dropped)."""
    return {t["test"].split("[")[0]: t for t in graded[file]}


def diagnoses(failed: dict[str, dict]) -> set[str]:
    return {t["diagnosis"]["id"] for t in failed.values() if t["diagnosis"] is not None}


def text(failed: dict[str, dict]) -> str:
    return " ".join(
        [t["message"] for t in failed.values()]
        + [t["diagnosis"]["text"] for t in failed.values() if t["diagnosis"] is not None]
    )


pytestmark = pytest.mark.slow


def test_a_summed_loss_is_named_and_its_blow_up_costs_nothing_else(graded):
    ex14 = failures_of(graded, "exercise-14/mse_sum.py")
    # the defaults are right: two runs that diverge alike are the same run
    assert "test_default_arguments" not in ex14
    assert ex14["test_first_loss_is_before_any_step"]["diagnosis"]["id"] == "answer-scaled"
    assert diagnoses(ex14) == {"answer-scaled"}
    assert "exactly 16 times" in ex14["test_first_loss_is_before_any_step"]["message"]
    ex17 = failures_of(graded, "exercise-17/mse_sum.py")
    assert diagnoses(ex17) == {"answer-scaled"}
    assert "torch.manual_seed" not in text(ex17)


def test_a_blow_up_is_not_told_to_guard_a_division(graded):
    failed = failures_of(graded, "exercise-14/big_steps.py")
    assert "nan-output" not in diagnoses(failed)
    assert "rather than hiding the NaN" not in text(failed)
    assert "the training diverges" in failed["test_parameters_match_reference"]["message"]


def test_a_squeezed_target_is_the_broadcast_not_a_loss_after_the_step(graded):
    failed = failures_of(graded, "exercise-14/y_squeezed.py")
    assert failed["test_first_loss_is_before_any_step"]["diagnosis"]["id"] == "broadcast-shape"
    assert diagnoses(failed) == {"broadcast-shape"}


@pytest.mark.parametrize(
    "file", ["exercise-14/pred_outside_retain.py", "exercise-17/pred_outside_retain.py"]
)
def test_a_prediction_made_before_the_loop_is_not_never_updated(graded, file):
    failed = failures_of(graded, file)
    assert diagnoses(failed) == {"prediction-outside-loop"}
    assert "never" not in failed["test_losses_match_reference"]["message"]
    assert "inside the loop" in failed["test_losses_match_reference"]["message"]


def test_a_second_backward_through_the_graph_names_the_prediction_outside_the_loop(graded):
    failed = failures_of(graded, "exercise-17/pred_outside_loop.py")
    assert (
        "Compute the prediction and the loss inside the loop"
        in (failed["test_losses_match_reference"]["message"])
    )


def test_step_before_backward_is_told_what_the_run_shows(graded):
    failed = failures_of(graded, "exercise-14/step_before_backward.py")
    assert diagnoses(failed) == {"params-never-move"}
    message = failed["test_losses_match_reference"]["message"]
    assert "step() before backward()" in message
    assert "so step() sees only zeros" not in message


def test_a_used_up_generator_is_named_not_momentum(graded):
    failed = failures_of(graded, "exercise-14/manual_params_generator.py")
    message = failed["test_losses_match_reference"]["message"]
    assert "list(model.parameters())" in message
    assert "momentum or Adam" not in text(failed)
    assert diagnoses(failed) <= {"used-up-generator"}
    assert "used-up-generator" in diagnoses(failed)
