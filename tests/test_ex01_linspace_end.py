"""Exercise 1: make_grid as torch.linspace(0, n, n).reshape(rows, cols) (001 §3.4's pitfall:
linspace includes its end) got only "5 of 6 values differ ... yours is 1.2, expected 1". A grid
that is linspace(0, n, n) is now named, with arange(n) or linspace(0, n - 1, n); the right grid,
however made, is not, and for n = 1 linspace(0, 1, 1) is [0], the right grid."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX01 = hidden_tests("exercise-01")
SIDES = st.integers(1, 6)


@given(rows=SIDES, cols=SIDES)
def test_linspace_to_n_is_named_where_it_differs(rows, cols):
    n = rows * cols
    spaced = torch.linspace(0, n, n).reshape(rows, cols)
    right = torch.arange(n, dtype=torch.float32).reshape(rows, cols)
    assert EX01._linspace_to_n(spaced, rows, cols) == (n > 1)
    assert not EX01._linspace_to_n(right, rows, cols)
    assert not EX01._linspace_to_n(torch.linspace(0, n - 1, n).reshape(rows, cols), rows, cols)
    assert not EX01._linspace_to_n(right + 1, rows, cols)
