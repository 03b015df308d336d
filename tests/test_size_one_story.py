"""A size-1 dimension too many or missing (grader.testing.relations.size_one_story): the story
names the dim, and a cause only where the inputs' shapes (and the answer's values) fit it. It
said "keepdim=True, unsqueeze or [:, None] where none was due" (or "keepdim=True or unsqueeze
was due") for every such answer: a list of one value, a product with a column, a slice taken
with an integer index, a squeeze() of the input."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import relations
from grader.testing.checks import CheckFailed, assert_close, assert_shape

shapes = st.lists(st.integers(2, 5), min_size=0, max_size=3)


@pytest.fixture(autouse=True)
def _fresh_inputs():
    relations.forget()
    yield
    relations.forget()


def _message(got: torch.Tensor, want: torch.Tensor) -> tuple[str, str, tuple[str, ...]]:
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)")
    return caught.value.message.en, caught.value.message.zh, caught.value.evidence


@settings(max_examples=25, deadline=None)
@given(shape=shapes, where=st.integers(0, 3), sizes=st.lists(st.integers(2, 5), min_size=5))
def test_an_extra_dim_no_input_explains_is_named_without_keepdim(shape, where, sizes):
    at = min(where, len(shape))
    want = torch.arange(float(max(1, torch.Size(shape).numel()))).reshape(shape)
    got = want.unsqueeze(at)
    # an input of another rank: no reduction of it has the answer's shape
    relations.remember((torch.zeros(sizes[: len(shape) + 2]),))
    en, zh, evidence = _message(got, want)
    assert "size_one_dims" in evidence
    assert f"dim {at}" in en and f"第 {at} 维" in zh
    assert "keepdim" not in en and "keepdim" not in zh


@settings(max_examples=60, deadline=None)
@given(shape=st.lists(st.integers(2, 5), min_size=1, max_size=3), where=st.integers(0, 3))
def test_a_keepdim_reduction_is_said_only_where_an_input_has_that_shape(shape, where):
    at = min(where, len(shape) - 1)
    x = torch.rand(shape, dtype=torch.float64)
    relations.remember((x,))
    got = x.prod(dim=at, keepdim=True)  # a reduction the relations do not replay
    en, _, _ = _message(got, got.squeeze(at))
    assert f"a reduction over dim {at} of the input" in en and "with keepdim=True" in en
    missing, _, _ = _message(got.squeeze(at), got)
    assert f"dim {at} missing" in missing and "unless keepdim=True" in missing


def test_a_row_of_the_input_names_every_step_that_drops_a_dim():
    # boxes[1] and boxes[1:2].squeeze() give the same answer: neither is told alone
    boxes = torch.tensor([[0.0, 0.0, 1.0, 1.0], [5.0, 6.0, 9.0, 9.5], [1.0, 2.0, 3.0, 4.0]])
    relations.remember((boxes,))
    en, zh, _ = _message(boxes[1], boxes[1:2])
    assert "dim 0 missing" in en and "integer index" in en and "squeeze() with no dim" in en
    assert "整数索引" in zh


def test_a_squeeze_of_every_size_one_dim_of_the_input_is_named():
    x = torch.rand(1, 3, 1, 4)
    relations.remember((x, 0))
    en, zh, _ = _message(x.squeeze(), x.squeeze(0))
    assert "squeeze() with no dim gives it" in en and "不带 dim 的" in zh
    assert "keepdim" not in en


def test_the_input_returned_as_it_is_keeps_its_size_one_dim():
    x = torch.rand(3, 1, 4)
    relations.remember((x, 1))
    en, _, _ = _message(x.clone(), x.squeeze(1))
    assert "shape of the input itself" in en and "squeeze(1)" in en
    assert "keepdim" not in en


def test_a_wrong_shape_alone_names_the_dim_too():
    relations.remember((torch.zeros(4, 3),))
    with pytest.raises(CheckFailed) as caught:
        assert_shape(torch.zeros(4, 1, 3), (4, 3), "f(x)")
    assert "dim 1" in caught.value.message.en and "keepdim" not in caught.value.message.en


def test_the_values_are_said_once_with_the_dim():
    relations.remember((5.0,))
    en, _, evidence = _message(torch.tensor([[5.0, 6.0]]), torch.tensor([5.0, 6.0]))
    assert en.count("extra size-1 dimension, dim 0") == 1 and "Your values are right" in en
    assert evidence.count("size_one_dims") == 1
    scalar, _, _ = _message(torch.tensor([5.0]), torch.tensor(5.0))  # (): no shape story alone
    assert scalar.count("extra size-1 dimension, dim 0") == 1


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.integers(2, 4), min_size=1, max_size=2), ones=st.integers(1, 2))
def test_size_one_dims_moved_are_not_called_a_transpose(sizes, ones):
    # exercise 06's drop_dim as x[0]: (3, 1, 4) for (1, 3, 4); the values in the same order
    want = torch.arange(float(torch.Size(sizes).numel())).reshape([1] * ones + sizes)
    got = want.reshape(sizes[:1] + [1] * ones + sizes[1:])
    if got.shape == want.shape:
        return
    found = relations.relate(got, want)
    assert found is not None and found.tag == "size_one_dims"
    assert "other places" in found.en or "dim" in found.en


def test_a_kept_reduced_dim_names_the_unsqueeze_too():
    # x.mean(0).unsqueeze(0) is x.mean(0, keepdim=True) to the last bit: keepdim is one way
    x = torch.rand(4, 3, dtype=torch.float64)
    relations.remember((x,))
    found = relations.relate(x.mean(0).unsqueeze(0), x.mean(0))
    assert found is not None and found.tag == "keepdim_kept"
    assert "or an unsqueeze after the reduction" in found.en and "unsqueeze" in found.zh
