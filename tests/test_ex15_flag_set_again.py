"""Exercise 15: a snapshot that detaches and clones, then turns requires_grad back on
(``t.clone().detach().requires_grad_(t.requires_grad)``) was told "A copy needs both detach()
and clone()", which it has. The line that sets the flag again is now named
(``copy-flag-set-again``); a flag switched off, or no flag at all, is not that story."""

from __future__ import annotations

import pytest

from tests.hidden import hidden_tests

EX15 = hidden_tests("exercise-15")


@pytest.mark.parametrize(
    "body",
    [
        "return t.clone().detach().requires_grad_(t.requires_grad)",
        "return t.detach().clone().requires_grad_()",
        "c = t.detach().clone()\n    c.requires_grad = True\n    return c",
        "return torch.tensor(t.tolist(), requires_grad=t.requires_grad)",
    ],
)
def test_a_flag_set_again_is_found(body):
    source = f"import torch\n\n\ndef snapshot(t):\n    {body}\n"
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "requires_grad" in text)
    assert EX15._flag_set_again(source) == line


@pytest.mark.parametrize(
    "body",
    [
        "return t.detach().clone()",
        "return t.clone().requires_grad_(False)",
        "c = t.clone()\n    c.requires_grad = False\n    return c",
        "return torch.tensor(t.tolist(), requires_grad=False)",
        "import copy\n    return copy.deepcopy(t)",
    ],
)
def test_no_flag_set_again_is_none(body):
    source = f"import torch\n\n\ndef snapshot(t):\n    {body}\n\n\ndef predict(model, X):\n    return model(X).requires_grad_()\n"
    assert EX15._flag_set_again(source) is None


def test_a_source_that_does_not_parse_has_none():
    assert EX15._flag_set_again("def snapshot(t):\n    return (") is None
    assert EX15._flag_set_again(None) is None
