"""A selection passed through torch.unique (exercise 3's `x[x > 0].unique()`) got "Your answer
holds the expected values, but sorted" with no diagnosis, and where the expected answer repeats
values only "should have shape (13,), but yours has shape (3,)". The sorted answer is now
named (`values-sorted`), and an answer holding each distinct expected value once, where the
expected answer repeats some, is told that every repeat was dropped (`unique-drops-repeats`);
nothing else hears either."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing import relations

VALUES = st.lists(st.integers(-4, 4), min_size=1, max_size=12)


def _tag(got, want):
    found = relations.relate(got, want)
    return None if found is None else found.tag


@given(values=VALUES, dtype=st.sampled_from([torch.float32, torch.float64, torch.int64]))
def test_unique_of_the_answer_is_named_where_it_repeats(values, dtype):
    want = torch.tensor(values, dtype=dtype)
    repeats = torch.unique(want).numel() < want.numel()
    assert (_tag(torch.unique(want), want) == "duplicates_dropped") == repeats
    # in the order of first appearance (set() or a dict), too
    first = want.new_tensor(list(dict.fromkeys(values)))
    assert (_tag(first, want) == "duplicates_dropped") == repeats


@given(values=VALUES, drop=st.integers(0, 11), extra=st.integers(-9, 9))
def test_an_answer_that_misses_or_adds_a_value_is_not_told_repeats_were_dropped(
    values, drop, extra
):
    want = torch.tensor(values, dtype=torch.float32)
    distinct = torch.unique(want)
    missing = torch.cat(
        [distinct[: drop % distinct.numel()], distinct[drop % distinct.numel() + 1 :]]
    )
    assert _tag(missing, want) != "duplicates_dropped"
    if extra not in values:
        assert (
            _tag(torch.cat([distinct, torch.tensor([float(extra)])]), want) != "duplicates_dropped"
        )
    if distinct.numel() > 1:
        doubled = torch.cat([distinct, distinct[:1]])
        assert _tag(doubled, want) != "duplicates_dropped"
    assert _tag(want, want) is None


@given(values=st.lists(st.integers(-50, 50), min_size=1, max_size=12, unique=True))
def test_the_answer_sorted_is_named_where_its_order_differs(values):
    want = torch.tensor(values, dtype=torch.float32)
    got = want.sort().values
    differs = not torch.equal(got, want)
    tag = _tag(got, want)
    if differs and len(values) >= 3:
        # [1, 2, 0] sorted is also [1, 2, 0] shifted by one place: which the learner did is
        # not known, so neither is named
        a, b = got.double(), want.double()
        assert tag == "sorted_not_in_order" or (
            tag is None and relations._shifted(a, b, 1e-4, 1e-5) is not None
        )
    else:
        assert tag != "sorted_not_in_order"


def test_the_catalogue_names_them():
    catalog = DiagnosisCatalog.load()
    assert match(catalog, ("values_differ", "sorted_not_in_order"), None).id == "values-sorted"
    assert match(catalog, ("wrong_shape", "duplicates_dropped"), None).id == "unique-drops-repeats"
