"""Exercise 16: w and b bound anew inside the loop (``torch.zeros(...)`` at the top of the
loop, ``w0.clone().requires_grad_()``, ``w = w.detach().requires_grad_()`` while the update went
to another name) were told "the first update itself differs (the learning rate ...)" or "update w
and b themselves, in place", which they did. The learner's own runs now show it: every loss
equals the first and the parameters after many steps are those of one step (``_restarts``), or
they never moved and a line of the loop binds a parameter anew (``_never_moved``); only then is
``params-recreated-in-loop`` named. A fresh leaf bound to the updated values moves, and passes."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX16 = hidden_tests("exercise-16")
ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "corpus" / "exercise-16"
EXERCISE = ROOT / "exercises" / "exercise-16"

REBIND = [
    "{p} = torch.zeros(d, dtype=X.dtype, requires_grad=True)",
    "{p} = {p}0.clone().requires_grad_()",
    "{p} = {p}.detach().requires_grad_()",
    "{p}: torch.Tensor = torch.tensor({p}.tolist(), requires_grad=True)",
]


def _source(name, rebind, before):
    line = "        " + REBIND[rebind].format(p=name)
    body = [
        f"        loss = ((X @ {name} - y) ** 2).mean()",
        "        loss.backward()",
        "        with torch.no_grad():",
        f"            {name} -= lr * {name}.grad",
    ]
    body.insert(0 if before else len(body), line)
    head = ["import torch", "", "def fit_linear(X, y, lr, steps):", "    for _ in range(steps):"]
    return "\n".join(head + body) + "\n", 5 if before else 9


names = st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True).filter(
    lambda s: (
        s not in {"loss", "torch", "lr", "y", "d", "steps", "X"}
        and not s.startswith(("loss", "lr"))
        and s not in {"if", "in", "is", "or", "as", "def", "for", "and", "not", "del", "try"}
    )
)


@settings(max_examples=150, deadline=None)
@given(name=names, rebind=st.integers(0, len(REBIND) - 1), before=st.booleans())
def test_a_parameter_bound_anew_in_the_loop_is_found_on_its_line(name, rebind, before):
    source, line = _source(name, rebind, before)
    found = EX16._rebound_in_loop(source)
    assert found is not None and found[0] == line, (source, found)
    early = EX16._rebound_in_loop(source, before_backward=True)
    assert (early is not None) == before


def test_no_rebinding_in_the_reference_or_an_in_place_loop():
    for path in (
        ROOT / "solutions" / "exercise-16" / "exercise-16.py",
        EXERCISE / "alternatives" / "mse_loss_set_to_none.py",
        CORPUS / "zero_before_update.py",
    ):
        assert EX16._rebound_in_loop(path.read_text(encoding="utf-8")) is None, path.name
    assert EX16._rebound_in_loop("def broken(:\n") is None


class _Local:
    """A learner proxy running scenarios on a module in this process."""

    def __init__(self, path):
        namespace: dict = {}
        exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
        self.module = type("M", (), {"fit_linear": staticmethod(namespace["fit_linear"])})

    def run(self, scenario, *args):
        return scenario(self.module, *args)


def _told(path, check):
    X = torch.randn(16, 3, dtype=torch.float64)
    y = X @ torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64) + 0.3
    source = path.read_text(encoding="utf-8")
    try:
        check(_Local(path), X, y, 0.1, 6, "fit_linear(X, y)", source)
    except CheckFailed as failed:
        return failed
    return None


@pytest.mark.parametrize("name", ["params_in_loop", "params_cloned_from_start"])
def test_every_step_starting_over_is_named(name):
    failed = _told(CORPUS / f"{name}.py", EX16._restarts)
    assert failed is not None and "parameters_recreated_in_loop" in failed.evidence
    assert "exactly what one step gives" in failed.message.en
    assert "once, before the loop" in failed.message.en and "循环之前" in failed.message.zh


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "solutions" / "exercise-16" / "exercise-16.py",
        *sorted((EXERCISE / "alternatives").glob("*.py")),
        CORPUS / "detach_old_values.py",  # never moved: _never_moved names it
        EXERCISE / "mutants" / "zeros_after_update.py",
        CORPUS / "zero_before_update.py",
        CORPUS / "plus_gradient.py",
    ],
    ids=lambda p: p.name,
)
def test_a_loop_that_moves_or_never_moves_is_not_told_it_starts_over(path):
    assert _told(path, EX16._restarts) is None


@pytest.mark.parametrize("name", ["detach_old_values", "zeros_after_update"])
def test_never_moved_with_a_parameter_bound_anew_names_that_line(name):
    path = CORPUS / f"{name}.py"
    if not path.exists():
        path = EXERCISE / "mutants" / f"{name}.py"
    failed = _told(path, EX16._never_moved)
    assert failed is not None and failed.evidence[-1] == "parameters_recreated_in_loop"
    assert "binds a parameter to a new tensor" in failed.message.en


def test_never_moved_without_a_rebinding_keeps_its_story():
    failed = _told(CORPUS / "zero_before_update.py", EX16._never_moved)
    assert failed is not None and "parameters_recreated_in_loop" not in failed.evidence


MADE = {
    "torch.tensor({p}.tolist(), requires_grad=True)": True,
    "torch.tensor({p}.item(), requires_grad=True)": True,
    "torch.tensor([v for v in {p}.tolist()], requires_grad=True)": True,
    "torch.as_tensor(list({p}.detach()), device=X.device)": True,
    "torch.tensor({p}.tolist(), dtype=X.dtype, requires_grad=True)": False,
    "torch.tensor({p}.detach(), requires_grad=True)": False,  # a tensor keeps its dtype
    "({p} - lr * {p}.grad).detach().requires_grad_()": False,
}


@settings(max_examples=60, deadline=None)
@given(name=names, made=st.sampled_from(sorted(MADE)))
def test_a_parameter_remade_from_python_numbers_without_dtype_is_named(name, made):
    source = (
        "import torch\n\n\ndef fit_linear(X, y, lr, steps):\n    for _ in range(steps):\n"
        f"        loss = ((X @ {name} - y) ** 2).mean()\n        loss.backward()\n"
        f"        {name} = {made.format(p=name)}\n"
        f"        print({name}.grad)\n"
    )
    story = EX16._remade_without_dtype_story(source)
    if MADE[made]:
        assert story is not None and story[2] == "float_dtypes_mixed"
        assert f"Line 8, `{name} = " in story[0] and "dtype=X.dtype" in story[0]
    else:
        assert story is None
