"""Exercise 2: describe(t)["contiguous"] = t.contiguous() (a tensor: a contiguous copy) was told
"should be a bool ... Return a Python int, not a tensor: t.numel(), t.dim() ...". A tensor
where the bool was due is now told what t.contiguous() returns and that t.is_contiguous() is
the bool; a 0-d tensor there is told to return the Python bool itself."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX02 = hidden_tests("exercise-02")


@given(shape=st.lists(st.integers(0, 4), max_size=4))
def test_a_tensor_where_the_bool_was_due_names_is_contiguous(shape):
    en, zh, evidence = EX02._type_problem(torch.zeros(shape), "bool")
    assert "Python int" not in en and "is_contiguous()" in en and "is_contiguous()" in zh
    assert ("contiguous copy" in en) == (len(shape) > 0)
    assert evidence == ["wrong_type"]


def test_a_tensor_where_an_int_was_due_is_still_told_to_return_an_int():
    en, _, _ = EX02._type_problem(torch.tensor(24), "int")
    assert "Return a Python int" in en
