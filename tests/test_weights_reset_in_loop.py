"""A training loop that resets or overwrites its weights every epoch (``model.reset_parameters()``,
``nn.init.*``, ``load_state_dict`` of the start, ``.data = ...`` inside the loop) was told "the
loss itself is computed another way" (exercise 17: its model starts from the seeded weights) or
only "values differ". The learner's own run now shows it: ``weights_overwritten`` marks the
weights right after a backward pass and sees the mark gone by the next one (whether the loop
steps with an optimizer or by hand, calls the module or writes its formula out), and only then
is it named (``weights-reset-in-loop``); a clamp_ after the step keeps the mark where it clamps
nothing and is not named.

What the learner's process reports is outside data: ``overwritten_story`` never fails on it and
names nothing it cannot read."""

from __future__ import annotations

from pathlib import Path

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.training import overwritten_story, weights_overwritten
from tests.hidden import hidden_tests

EX17 = hidden_tests("exercise-17")
ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "exercise-17"
RESETS = [
    "reset_parameters_in_loop",
    "nn_init_in_loop",
    "reset_after_step",
    "initial_state_reloaded",
    "weight_data_assigned",
    # no optimizer (stepped by hand), or the layer's formula written out (no forward hook)
    "hand_step_reset",
    "hand_step_weight_data",
    "functional_forward_init",
    "constant_in_loop",  # nn.init.constant_(weight, 0.1): all alike, as at one clamp bound
]
# right, or wrong in another way: no weights overwritten between a step and a forward pass
OTHERS = [
    ROOT / "solutions" / "exercise-17" / "exercise-17.py",
    *sorted((ROOT / "exercises" / "exercise-17" / "alternatives").glob("*.py")),
    *(
        CORPUS / f"{name}.py"
        for name in (
            "model_in_loop",
            "model_in_loop_seeded",
            "model_in_loop_old_opt",
            "momentum",
            "no_zero_grad",
            "pred_outside_loop",
            "seed_after_model",
            "double_update",  # moved on along the step, not reset
            "clamp_weights",  # clamp_ after the step: kept where it clamps nothing
        )
    ),
    ROOT / "exercises" / "exercise-17" / "mutants" / "loss_after_step.py",
    ROOT / "exercises" / "exercise-17" / "mutants" / "zero_grad_before_step.py",
]

hostile = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(counts=hostile)
def test_anything_the_learners_process_reports_is_read_without_failing(counts):
    story = overwritten_story(counts)
    if story is not None:
        assert type(counts) is list and len(counts) == 2
        assert all(type(c) is int for c in counts) and 0 < counts[0] <= counts[1]


@settings(max_examples=200, deadline=None)
@given(overwritten=st.integers(0, 100), checked=st.integers(0, 100))
def test_named_exactly_when_some_forward_pass_found_the_step_undone(overwritten, checked):
    story = overwritten_story([overwritten, checked])
    if 0 < overwritten <= checked:
        assert story is not None and story[0] == "weights_reset_in_loop"
        assert f"in {overwritten} of the {checked} steps" in story[1]
        assert "before the loop" in story[1] and "循环之前" in story[2]
    else:
        assert story is None


def test_the_evidence_has_its_diagnosis():
    entry = match(DiagnosisCatalog.load(), ("values_differ", "weights_reset_in_loop"), None)
    assert entry is not None and entry.id == "weights-reset-in-loop"


def _module(path: Path):
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return type("Learner", (), {"train_regressor": staticmethod(namespace["train_regressor"])})


def _hooks():
    from torch.nn.modules import module
    from torch.optim import optimizer

    return (
        len(module._global_forward_pre_hooks),
        len(optimizer._global_optimizer_post_hooks),
    )


def test_a_reset_is_seen_every_epoch_and_nothing_else_is():
    X, y = torch.randn(8, 2), torch.randn(8)
    before = _hooks()
    for name in RESETS:
        overwritten, checked = weights_overwritten(
            _module(CORPUS / f"{name}.py"), EX17.train_safely, X, y, 4, 0.1, 3
        )
        assert overwritten == checked == 3, name
    for path in OTHERS:
        overwritten, _ = weights_overwritten(_module(path), EX17.train_safely, X, y, 4, 0.1, 3)
        assert overwritten == 0, path.name
    assert _hooks() == before  # every hook removed


def test_a_run_that_raises_reports_what_it_saw():
    def train_regressor(X, y, epochs, lr, seed):
        raise RuntimeError("boom")

    module = type("Learner", (), {"train_regressor": staticmethod(train_regressor)})
    before = _hooks()
    X, y = torch.randn(8, 2), torch.randn(8)
    assert weights_overwritten(module, EX17.train_safely, X, y, 4, 0.1, 3) == [0, 0]
    assert _hooks() == before


@settings(max_examples=20, deadline=None)
@given(
    n=st.integers(2, 20),
    d=st.integers(2, 4),  # with a bias, 3 parameters at least: a reset along the step is rare
    epochs=st.integers(2, 6),
    lr=st.floats(0.01, 0.5),
    seed=st.integers(0, 2**31 - 1),
)
def test_on_any_data_a_reset_is_seen_after_every_step_and_the_reference_never(
    n, d, epochs, lr, seed
):
    X, y = torch.randn(n, d), torch.randn(n)
    reset = _module(CORPUS / "reset_parameters_in_loop.py")
    assert weights_overwritten(reset, EX17.train_safely, X, y, epochs, lr, seed) == [
        epochs - 1,
        epochs - 1,
    ]
    reference = _module(ROOT / "solutions" / "exercise-17" / "exercise-17.py")
    assert weights_overwritten(reference, EX17.train_safely, X, y, epochs, lr, seed) == [
        0,
        epochs - 1,
    ]
    twice = _module(CORPUS / "double_update.py")
    assert weights_overwritten(twice, EX17.train_safely, X, y, epochs, lr, seed)[0] == 0


def _loop(stepper: str, forward: str, change: str, bound: float):
    """A train_regressor of the given shape: stepped by an optimizer or by hand, the module
    called or its formula written out, and after each step nothing, a reset or a clamp_."""

    def train_regressor(X, y, epochs, lr, seed):
        torch.manual_seed(seed)
        model = torch.nn.Linear(X.shape[1], 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        losses = []
        for _ in range(epochs):
            model.zero_grad()
            pred = model(X) if forward == "module" else X @ model.weight.T + model.bias
            loss = ((pred - y.unsqueeze(1)) ** 2).mean()
            losses.append(loss.item())
            loss.backward()
            if stepper == "optimizer":
                optimizer.step()
            else:
                with torch.no_grad():
                    for p in model.parameters():
                        p -= lr * p.grad
            with torch.no_grad():
                if change == "reset_parameters":
                    model.reset_parameters()
                elif change == "zeros":
                    torch.nn.init.zeros_(model.weight)
                elif change == "constant":  # a constant other than 0: as all at one clamp bound
                    torch.nn.init.constant_(model.weight, bound)
                elif change == "fill_negative":
                    model.weight.fill_(-bound)
                elif change == "clamp":
                    model.weight.clamp_(-bound, bound)
        return model, losses

    return type("Learner", (), {"train_regressor": staticmethod(train_regressor)})


@settings(max_examples=25, deadline=None)
@given(
    stepper=st.sampled_from(["optimizer", "hand"]),
    forward=st.sampled_from(["module", "formula"]),
    change=st.sampled_from(
        ["none", "reset_parameters", "zeros", "constant", "fill_negative", "clamp"]
    ),
    bound=st.floats(0.01, 2.0),
    d=st.integers(1, 4),
    epochs=st.integers(2, 5),
    seed=st.integers(0, 2**31 - 1),
)
def test_the_weights_tell_a_reset_whatever_the_loop_looks_like(
    stepper, forward, change, bound, d, epochs, seed
):
    X, y = torch.randn(6, d), torch.randn(6)
    counts = weights_overwritten(
        _loop(stepper, forward, change, bound), EX17.train_safely, X, y, epochs, 0.1, seed
    )
    resets = change in ("reset_parameters", "zeros", "constant", "fill_negative")
    assert counts == [epochs - 1 if resets else 0, epochs - 1]
