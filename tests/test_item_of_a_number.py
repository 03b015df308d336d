"""``.item()`` on what is already a Python number (exercise 2's ``t.numel().item()``) raised
"'int' object has no attribute 'item'" with no diagnosis. Python's message for .item() on an
int, float, bool or torch.Size is now named ".item() on something that is not a tensor", on a
tuple or list ".item() on a tuple or a list" (take the tensor out first); None's (a missing .grad) and other missing attributes keep their own stories."""

from __future__ import annotations

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()  # once, not per case


def _raised(value, attribute: str) -> dict[str, str]:
    try:
        getattr(value, attribute)()
    except AttributeError as exc:
        return {"type": "AttributeError", "message": str(exc)}
    raise AssertionError("no exception")


@pytest.mark.parametrize("value", [3, 2.5, True, torch.Size([2, 3])], ids=repr)
def test_item_of_a_python_value_is_named(value):
    entry = match(CATALOGUE, (), _raised(value, "item"))
    assert entry is not None and entry.id == "item-of-a-number"


@pytest.mark.parametrize(
    "value", [(1, 2), (torch.tensor(1.0),), (torch.tensor(1.0), torch.zeros(3)), [1]], ids=repr
)
def test_item_of_a_tuple_or_list_is_named_as_such(value):
    """A tuple (torch.autograd.grad's, a helper's return loss, pred, a trailing comma) or a
    list: not "a Python number" whose .item() is to be dropped, but the tensor to take out."""
    entry = match(CATALOGUE, (), _raised(value, "item"))
    assert entry is not None and entry.id == "item-of-a-container"
    assert "numel" not in entry.fix.en and "Drop the .item()" not in entry.fix.en


@pytest.mark.parametrize(
    ("value", "attribute"),
    [(None, "item"), (3, "numel"), (torch.zeros(2), "itemz"), ("text", "item"), ({}, "item")],
    ids=repr,
)
def test_other_missing_attributes_are_not_called_item_of_a_number(value, attribute):
    entry = match(CATALOGUE, (), _raised(value, attribute))
    assert entry is None or entry.id != "item-of-a-number"
