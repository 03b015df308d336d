"""torch.from_numpy of something that is not an array (exercise 10's
torch.from_numpy(np.float32(a)) on a 0-d array: a NumPy scalar) raised "expected np.ndarray
(got numpy.float32)" with no diagnosis. PyTorch's own message, for every such value, is now
named `from-numpy-not-array`, with the fix for what was given (a NumPy scalar, a list or
number, a tensor)."""

from __future__ import annotations

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match

CATALOG = DiagnosisCatalog.load()

_DTYPES = [np.float16, np.float32, np.float64, np.int8, np.int32, np.int64, np.uint8, np.bool_]


def _refusal(value) -> dict[str, str]:
    try:
        torch.from_numpy(value)
    except TypeError as exc:
        return {"type": "TypeError", "message": str(exc)}
    raise AssertionError(f"from_numpy accepted {type(value)}")


@given(dtype=st.sampled_from(_DTYPES), value=st.integers(0, 1))
def test_a_numpy_scalar_is_named(dtype, value):
    entry = match(CATALOG, (), _refusal(dtype(np.array(value))))
    assert entry is not None and entry.id == "from-numpy-not-array"
    assert "NumPy scalar" in entry.fix.en and "np.array(a, dtype=np.float32)" in entry.fix.en


@given(value=st.sampled_from([[1.0, 2.0], (1, 2), 3, 2.5, True]))
def test_a_list_or_number_is_told_torch_tensor(value):
    entry = match(CATALOG, (), _refusal(value))
    assert entry is not None and entry.id == "from-numpy-not-array"
    assert "torch.tensor(value" in entry.fix.en


def test_a_tensor_is_told_it_is_one_already():
    entry = match(CATALOG, (), _refusal(torch.zeros(2)))
    assert entry is not None and entry.id == "from-numpy-not-array"
    assert "already a tensor" in entry.fix.en


def test_other_type_errors_are_not_named():
    for message in ("expected np.ndarray", "can't convert np.ndarray of type numpy.object_."):
        entry = match(CATALOG, (), {"type": "TypeError", "message": message})
        assert entry is None or entry.id != "from-numpy-not-array"
