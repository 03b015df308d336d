"""A Python loop into torch.stack that runs zero times (exercise 8's row_max over an x with no
rows, exercise 3's filter_boxes where no score passes) raised "stack expects a non-empty
TensorList" with no diagnosis. PyTorch's own message for an empty list, from every joining
function, is now named "torch.stack of an empty list"; its other complaints are not."""

from __future__ import annotations

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match

JOINS = [torch.stack, torch.cat, torch.vstack, torch.hstack, torch.dstack, torch.column_stack]


def _raised(call) -> dict[str, str]:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - PyTorch's own exception, whatever its type
        return {"type": type(exc).__name__, "message": str(exc)}
    raise AssertionError("no exception")


@pytest.mark.parametrize("join", JOINS, ids=lambda f: f.__name__)
def test_every_join_of_an_empty_list_is_named(join):
    entry = match(DiagnosisCatalog.load(), (), _raised(lambda: join([])))
    assert entry is not None and entry.id == "stack-empty-list"


@pytest.mark.parametrize(
    "call",
    [
        lambda: torch.stack([torch.zeros(2), torch.zeros(3)]),
        lambda: torch.cat([torch.zeros(2, 2), torch.zeros(3, 3)], dim=1),
        lambda: torch.stack([torch.zeros(2)], dim=3),
    ],
)
def test_other_join_errors_are_not_called_empty(call):
    entry = match(DiagnosisCatalog.load(), (), _raised(call))
    assert entry is None or entry.id != "stack-empty-list"
