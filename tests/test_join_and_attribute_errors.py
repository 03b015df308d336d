"""Two TypeErrors beginners meet in exercises 2 and 9 had no diagnosis: torch.cat(a, b, dim=1)
("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor") and t.shape()
("'torch.Size' object is not callable"). PyTorch's and Python's own messages for them are now
named "torch.cat and torch.stack take one list of tensors" and "An attribute called like a
method"; their neighbours (a callable int, a wrong dim) are not."""

from __future__ import annotations

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()  # once, not per case

T = torch.zeros(2, 3)


def _raised(call) -> dict[str, str]:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - PyTorch's own exception, whatever its type
        return {"type": type(exc).__name__, "message": str(exc)}
    raise AssertionError("no exception")


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.cat(T, T, dim=1),
        lambda: torch.cat(T, dim=1),
        lambda: torch.stack(T, T),
        lambda: torch.concat(T, T),
        lambda: torch.hstack(T, T),
        lambda: torch.vstack(T, T),
    ],
)
def test_tensors_passed_one_by_one_are_named(call):
    entry = match(CATALOGUE, (), _raised(call))
    assert entry is not None and entry.id == "join-takes-a-list"


@pytest.mark.parametrize("call", [lambda: T.shape(), lambda: T.dtype(), lambda: T.device()])
def test_an_attribute_called_is_named(call):
    entry = match(CATALOGUE, (), _raised(call))
    assert entry is not None and entry.id == "attribute-called"


@pytest.mark.parametrize(
    "call",
    [
        lambda: T.ndim(),  # an int: could be any name shadowed by a number
        lambda: torch.cat([T, T], dim=2),
        lambda: torch.stack([T, torch.zeros(3)]),
        lambda: torch.cat([T, T], dim="x"),
    ],
)
def test_neighbouring_errors_are_not_named_so(call):
    entry = match(CATALOGUE, (), _raised(call))
    assert entry is None or entry.id not in ("join-takes-a-list", "attribute-called")
