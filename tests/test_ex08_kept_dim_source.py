"""Exercise 08: column_means as x.mean(dim=0).unsqueeze(0) has the shape keepdim=True gives,
and was told "keepdim=True keeps it; leave it out", though the code passes no keepdim. Where
the function's source has no keepdim (nor topk), the extra size-1 dim is told as added back.
And row_max's indices as torch.tensor of an empty list (float32 for x with no rows) are named
as that."""

from __future__ import annotations

import pytest
import torch

from grader.testing.analysis.slips import keeps_dims
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX08 = hidden_tests("exercise-08")

SOURCES = {
    "def column_means(x):\n    return x.mean(dim=0).unsqueeze(0)\n": (),
    "def column_means(x):\n    return x.mean(dim=0)[None]\n": (),
    "def column_means(x):\n    return x.mean(dim=0, keepdim=False)\n": (),
    "def column_means(x):\n    return x.mean(dim=0, keepdim=True)\n": (2,),
    "def column_means(x):\n    return helper(x)\n\n\ndef helper(x):\n    k = True\n"
    "    return x.mean(0, keepdim=k)\n": (7,),
    "def column_means(x):\n    return x.topk(1, dim=0).values\n": (2,),
    "def column_means(x):\n    return x.mean(**{'dim': 0, 'keepdim': True})\n": (2,),
}


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_the_lines_that_may_keep_a_dim_are_found(source):
    assert keeps_dims(source, ["column_means"]) == SOURCES[source]
    assert keeps_dims("def column_means(x) return", ["column_means"]) is None


def _evidence(got, x, keeps):
    try:
        EX08._check_reduced_shape(got, x, 0, "column_means(x)", x.mean(0), (), keeps)
    except CheckFailed as caught:
        return caught.evidence, caught.message.en
    return (), ""


def test_a_kept_shape_without_keepdim_is_an_added_dim():
    x = torch.randn(4, 3, dtype=torch.float64)
    evidence, en = _evidence(x.mean(0).unsqueeze(0), x, ())
    assert "size_one_dims" in evidence and "keepdim_kept" not in evidence
    assert "passes no keepdim=True" in en
    evidence, en = _evidence(x.mean(0, keepdim=True), x, (3,))
    assert "keepdim_kept" in evidence
    evidence, _ = _evidence(x.mean(0, keepdim=True), x, None)  # the source says nothing
    assert "keepdim_kept" in evidence


def test_empty_float32_indices_are_named_as_an_empty_list():
    x = torch.zeros(0, 4)
    reference = type("R", (), {"row_max": staticmethod(lambda x: x.max(dim=1))})
    with pytest.raises(CheckFailed) as caught:
        EX08._check_row_max(torch.zeros(0), torch.tensor([]), x, reference, "row_max(x)")
    assert "empty_list_float32" in caught.value.evidence
