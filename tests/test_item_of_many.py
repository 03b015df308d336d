"""``.item()`` on a tensor of several values (exercise 7's ``x - x.mean(dim=0).item()``) raised
"a Tensor with 4 elements cannot be converted to Scalar" with no diagnosis. That message is now
named "A tensor of many values where one number was due"; "only one element tensors can be
converted to Python scalars", which torch.tensor() of a list of tensors raises too, is not."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()


def _raised(call) -> dict[str, str]:
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - PyTorch's own exception, whatever its type
        return {"type": type(exc).__name__, "message": str(exc)}
    raise AssertionError("no exception")


@given(n=st.integers(0, 50).filter(lambda n: n != 1))
def test_item_of_a_tensor_of_many_values_is_named(n):
    entry = match(CATALOGUE, (), _raised(lambda: torch.zeros(n).item()))
    assert entry is not None and entry.id == "item-of-many"


@pytest.mark.parametrize(
    "call",
    [lambda: torch.tensor([torch.zeros(2), torch.zeros(2)]), lambda: float(torch.zeros(3))],
)
def test_the_ambiguous_python_scalar_message_is_not_named_so(call):
    entry = match(CATALOGUE, (), _raised(call))
    assert entry is None or entry.id != "item-of-many"
