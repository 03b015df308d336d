"""A reduction over zero elements (``images.max()`` of an empty batch, ``x - x.max()`` for x
of shape (0, n), ``if heights_m.max() > 3``) crashed with PyTorch's "max(): Expected
reduction dim to be specified for input.numel() == 0" and no diagnosis. The real messages of
every such reduction now name ``empty-reduction`` (nothing has no largest value; mean() of
nothing is NaN), with the fix of each exercise whose hidden cases are empty; other errors
about empty tensors (a reshape, a stack of an empty list) are not it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, match

CATALOGUE = DiagnosisCatalog.load()

REDUCTIONS = {
    "max": lambda x: x.max(),
    "min": lambda x: x.min(),
    "amax": lambda x: x.amax(),
    "amin": lambda x: x.amin(),
    "argmax": lambda x: x.argmax(),
    "argmin": lambda x: x.argmin(),
    "aminmax": lambda x: torch.aminmax(x),
    "item_of_max": lambda x: x.max().item(),
    "numpy_max": lambda x: x.numpy().max(),
}
ALONG_EMPTY_DIM = {
    "max_dim": lambda x, d: x.max(dim=d),
    "amax_dim": lambda x, d: x.amax(dim=d),
    "argmin_dim": lambda x, d: x.argmin(dim=d),
    "min_dim_keepdim": lambda x, d: x.min(dim=d, keepdim=True),
    "aminmax_dim": lambda x, d: torch.aminmax(x, dim=d),
}
SHAPES = st.lists(st.integers(0, 3), min_size=1, max_size=4).filter(lambda s: 0 in s)


def _error(call):
    try:
        call()
    except Exception as exc:  # noqa: BLE001 - the learner's exception, as the engine sees it
        return {"type": type(exc).__name__, "message": str(exc)}
    return None


def _named(error):
    entry = match(CATALOGUE, (), error)
    return entry is not None and entry.id == "empty-reduction"


@settings(deadline=None)  # torch's first call of a kind takes its time
@given(shape=SHAPES, how=st.sampled_from(sorted(REDUCTIONS)))
def test_a_whole_empty_tensor_reduced_is_named(shape, how):
    error = _error(lambda: REDUCTIONS[how](torch.zeros(shape)))
    assert error is not None and _named(error), error


@settings(deadline=None)  # torch's first call of a kind takes its time
@given(shape=SHAPES, how=st.sampled_from(sorted(ALONG_EMPTY_DIM)), negative=st.booleans())
def test_a_reduction_along_a_dim_of_size_0_is_named(shape, how, negative):
    d = shape.index(0) - (len(shape) if negative else 0)
    error = _error(lambda: ALONG_EMPTY_DIM[how](torch.zeros(shape), d))
    assert error is not None and _named(error), error


@settings(deadline=None)  # torch's first call of a kind takes its time
@given(shape=st.lists(st.integers(1, 3), min_size=1, max_size=4))
def test_other_errors_are_not_it(shape):
    x = torch.zeros([0, *shape])
    for call in (
        lambda: x.reshape(0, -1),
        lambda: torch.stack([]),
        lambda: x.max(dim=len(shape) + 1),  # a dim out of range
        lambda: torch.zeros(shape).view(-1, 7, 5),
        lambda: np.array([]).reshape(-1, 0),
    ):
        error = _error(call)
        assert error is not None and not _named(error), error


def test_mean_of_nothing_is_nan_not_an_error():
    # what the entry says of mean(): no exception to match, NaN in the answer instead
    assert torch.isnan(torch.zeros(0, 4, 4).mean())
    entry = CATALOGUE.get("empty-reduction")
    assert "NaN" in entry.what.en and "NaN" in entry.what.zh


@pytest.mark.parametrize(
    ("exercise", "en", "zh"),
    [
        ("exercise-11", "Divide by 255", "255"),
        ("exercise-08", "x.max(dim=1, keepdim=True).values", "x.max(dim=1, keepdim=True)"),
        ("exercise-18", "heights_m.max()", "heights_m.max()"),
        ("exercise-04", "labels.numel() == 0", "labels.numel() == 0"),
    ],
)
def test_the_exercises_with_empty_cases_give_their_fix(exercise, en, zh):
    fix = Catalog(project_root()).resolve(exercise).fix("empty-reduction")
    assert fix is not None and en in fix.en and zh in fix.zh
