"""An integer result where a float one was due (exercise 01's ``torch.tensor(3)``,
``torch.arange(n)`` and ``torch.full((), 3)``, exercise 11's ``.long()`` features) was titled
"Integer and float tensors mixed" and told to convert "where the data enters", though nothing
was mixed: the dtype came from the values the tensor was made of. The entry now speaks of a
result as well as an operation's input, and its fix starts where the tensor is made."""

from __future__ import annotations

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed, assert_dtype

CATALOGUE = DiagnosisCatalog.load()


@pytest.mark.parametrize(
    ("got", "want"),
    [(torch.int64, torch.float32), (torch.int32, torch.float64), (torch.float32, torch.int64)],
)
def test_a_result_of_the_other_kind_is_told_without_mixing(got, want):
    with pytest.raises(CheckFailed) as caught:
        assert_dtype(torch.zeros(2, dtype=got), want, "make_scalar(3)")
    entry = match(CATALOGUE, tuple(caught.value.evidence), None)
    assert entry is not None and entry.id == "dtype-mismatch"
    assert "mixed" not in entry.title.en and "混用" not in entry.title.zh
    assert "your result" in entry.what.en and "结果本身" in entry.what.zh
    for maker in ("torch.tensor(3)", "torch.arange(6)", "torch.full(shape, 7)"):
        assert maker in entry.why.en and maker in entry.why.zh
    assert entry.fix.en.startswith("Say the dtype where the tensor is made")
