"""Exercise 18: a fraction turned upside down (bmi's heights_m ** 2 / weights_kg, min_max's
(max - min) / (x - min), standardize's std / (x - mean)) was told "The two inputs swapped in the
formula" (bmi), "NaN or inf in the output" (min_max) or only "values differ" (standardize).
Every value being one over the expected one is now the evidence (``upside_down``), and it has
a diagnosis of its own, ``formula-upside-down``."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX18 = hidden_tests("exercise-18")

# values a learner's data holds: zero, or of a size float32 can take the reciprocal of
values = st.lists(
    st.floats(-1e3, 1e3, allow_nan=False).filter(lambda v: v == 0 or abs(v) > 1e-3),
    min_size=1,
    max_size=12,
)


@settings(max_examples=100, deadline=None)
@given(values=values, zeros=st.integers(0, 3))
def test_one_over_the_expected_values_is_upside_down(values, zeros):
    want = torch.tensor(values + [0.0] * zeros, dtype=torch.float64)
    assume(bool((want != 0).any()))
    assume(not torch.allclose(want.abs(), torch.ones_like(want), rtol=1e-4))
    with torch.no_grad():
        got = 1 / want
    assert EX18.upside_down(got, want)
    assert EX18.upside_down(got.float(), want)


@settings(max_examples=100, deadline=None)
@given(values=values, at=st.integers(0, 11), off=st.floats(0.01, 10.0))
def test_one_value_off_the_reciprocal_is_not_upside_down(values, at, off):
    want = torch.tensor(values, dtype=torch.float64)
    at = at % want.numel()
    assume(bool(want[at] != 0))
    got = torch.where(want != 0, 1 / want, torch.full_like(want, float("inf")))
    got[at] = got[at] * (1 + off)
    assert not EX18.upside_down(got, want)
    got[at] = float(values[at])  # the expected value itself, not its reciprocal
    assume(abs(abs(values[at]) - 1) > 1e-3)
    assert not EX18.upside_down(got, want)


def test_what_cannot_tell_upside_down_claims_nothing():
    ones = torch.tensor([1.0, -1.0, 1.0], dtype=torch.float64)
    assert not EX18.upside_down(ones, ones)  # ±1 is its own reciprocal
    zeros = torch.zeros(4, dtype=torch.float64)
    assert not EX18.upside_down(torch.full((4,), float("inf")), zeros)  # a constant input
    assert not EX18.upside_down(torch.empty(0), torch.empty(0))
    assert not EX18.upside_down(torch.ones(3), torch.ones(2))


@pytest.mark.parametrize("check", ["min_max", "z"])
def test_the_check_names_the_fraction_and_the_entry_has_its_own_title(check):
    x = torch.tensor([0.5, -1.0, 2.0, 3.5], dtype=torch.float64)
    want = (x - x.min()) / (x.max() - x.min())
    with pytest.raises(CheckFailed) as failed:
        if check == "min_max":
            EX18._check_min_max(1 / want, want, "min_max(x)", x)
        else:
            EX18._name_upside_down(1 / want, want, "z", "std / (x - mean)", "(x - mean) / std")
    assert "one over the expected" in failed.value.message.en
    assert "倒数" in failed.value.message.zh
    catalogue = DiagnosisCatalog.load()
    entry = match(catalogue, failed.value.evidence, None)
    assert entry is not None and entry.id == "formula-upside-down"
    swapped = catalogue.get("formula-inputs-swapped")
    assert entry.title.en != swapped.title.en and "upside down" not in swapped.what.en
