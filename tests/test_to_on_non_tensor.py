"""``.to(device)`` called on a string, a number or None (exercise 12's ``to_device`` moving every
leaf of a batch, names and counts included) raised "'str' object has no attribute 'to'" with no
diagnosis. It is now named ".to() called on a value that is not a tensor"; containers keep
their own entry (``to-on-container``)."""

from __future__ import annotations

import pytest

from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()


def _raised(value, attribute: str) -> dict[str, str]:
    try:
        getattr(value, attribute)("cpu")
    except AttributeError as exc:
        return {"type": "AttributeError", "message": str(exc)}
    raise AssertionError("no exception")


@pytest.mark.parametrize("attribute", ["to", "cuda"])
@pytest.mark.parametrize("value", ["name", 3, 2.5, True, b"x", None], ids=repr)
def test_to_on_a_plain_value_is_named(value, attribute):
    entry = match(CATALOGUE, (), _raised(value, attribute))
    assert entry is not None and entry.id == "to-on-non-tensor"


@pytest.mark.parametrize("value", [(1,), [1], {"a": 1}], ids=repr)
def test_containers_keep_their_own_story(value):
    entry = match(CATALOGUE, (), _raised(value, "to"))
    assert entry is not None and entry.id == "to-on-container"
