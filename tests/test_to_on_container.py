"""``.to(device)`` called on a tuple, list or dict (exercise 12's to_device moving a dict's
values with ``value.to(device)`` where a value is a tuple) crashed with "'tuple' object has no
attribute 'to'" and no diagnosis. It is now named ``to-on-container``; exercise 12's fix says to
recurse into the containers. Other attributes and other objects are not it."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()


@given(
    kind=st.sampled_from(["tuple", "list", "dict"]),
    method=st.sampled_from(["to", "cuda", "cpu"]),
)
def test_a_container_moved_like_a_tensor_is_named(kind, method):
    error = {"type": "AttributeError", "message": f"'{kind}' object has no attribute '{method}'"}
    entry = match(CATALOGUE, (), error)
    assert entry is not None and entry.id == "to-on-container"


@given(
    kind=st.sampled_from(["Tensor", "int", "str", "NoneType", "tuple", "list", "dict"]),
    attribute=st.sampled_from(["to", "shape", "device", "dtype", "tolist", "too", "cpu_"]),
)
def test_other_objects_and_attributes_are_not_it(kind, attribute):
    error = {"type": "AttributeError", "message": f"'{kind}' object has no attribute '{attribute}'"}
    entry = match(CATALOGUE, (), error)
    container = kind in ("tuple", "list", "dict") and attribute in ("to", "cpu")
    assert (entry is not None and entry.id == "to-on-container") == container


def test_exercise_12_says_to_recurse():
    spec = Catalog(project_root()).resolve("exercise-12")
    fix = spec.fix("to-on-container")
    assert fix is not None and "to_device again on each item" in fix.en and "递归" in fix.zh
