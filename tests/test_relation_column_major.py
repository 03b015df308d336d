"""A 2-D answer filled column by column (exercise 1's `torch.arange(n).reshape(cols, rows).T`)
got only "4 of 6 values differ". Where the answer is the expected values in the expected shape
laid out in column-major order, the relation says so (`filled-column-major`); the expected
answer itself, a square one's transpose and other reorderings are not told it."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing import relations


def _tag(got, want):
    found = relations.relate(got, want)
    return None if found is None else found.tag


@given(rows=st.integers(2, 6), cols=st.integers(2, 6), start=st.integers(-5, 5))
def test_a_column_major_fill_is_named(rows, cols, start):
    want = torch.arange(start, start + rows * cols, dtype=torch.float32).reshape(rows, cols)
    got = torch.arange(start, start + rows * cols, dtype=torch.float32).reshape(cols, rows).t()
    if rows == cols:
        assert _tag(got, want) == "answer_transposed"
    else:
        assert _tag(got, want) == "filled_column_major"
    assert _tag(want, want) is None


@given(
    rows=st.integers(2, 5),
    cols=st.integers(2, 5),
    seed=st.integers(0, 2**16),
)
def test_another_reordering_is_not_told_it(rows, cols, seed):
    want = torch.arange(rows * cols, dtype=torch.float32).reshape(rows, cols)
    order = torch.randperm(rows * cols, generator=torch.Generator().manual_seed(seed))
    got = want.reshape(-1)[order].reshape(rows, cols)
    filled = want.reshape(-1).reshape(cols, rows).t()
    assert (_tag(got, want) == "filled_column_major") == (rows != cols and torch.equal(got, filled))


def test_the_catalogue_names_it():
    entry = match(DiagnosisCatalog.load(), ("values_differ", "filled_column_major"), None)
    assert entry is not None and entry.id == "filled-column-major"
