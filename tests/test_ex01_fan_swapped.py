"""Exercise 1: init_weights drawn as (fan_out, fan_in), nn.Linear's layout, where (fan_in,
fan_out) was asked for, got only "should have shape (3, 5), but yours has shape (5, 3)" and the
generic "Print .shape after each step". It is now told that fan_in and fan_out are the other way
round (`fan-in-out-swapped`); other wrong shapes are not."""

from __future__ import annotations

import types

import pytest
import torch

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX01 = hidden_tests("exercise-01")

INITS = {  # init_weights, and whether it is the transposed layout
    "out_in": (lambda i, o, g: torch.randn(o, i, generator=g) * 0.01, True),
    "out_in_linear": (lambda i, o, g: torch.nn.Linear(i, o).weight.detach() * 0 + 0.01, True),
    "flat": (lambda i, o, g: torch.randn(i * o, generator=g) * 0.01, False),
    "square_in": (lambda i, o, g: torch.randn(i, i, generator=g) * 0.01, False),
    "extra_dim": (lambda i, o, g: torch.randn(1, i, o, generator=g) * 0.01, False),
}


@pytest.mark.parametrize("name", sorted(INITS))
def test_only_the_transposed_layout_is_told_the_fans_are_swapped(name):
    init, swapped = INITS[name]
    with pytest.raises(CheckFailed) as caught:
        EX01.test_init_weights_shape_and_dtype(types.SimpleNamespace(init_weights=init))
    assert ("fan_in_out_swapped" in caught.value.evidence) == swapped
    if swapped:
        entry = match(DiagnosisCatalog.load(), caught.value.evidence, None)
        assert entry is not None and entry.id == "fan-in-out-swapped"
        assert "(fan_in, fan_out)" in caught.value.message.en
        assert "(fan_in, fan_out)" in caught.value.message.zh


def test_the_right_layout_passes():
    init = types.SimpleNamespace(init_weights=lambda i, o, g: torch.randn(i, o, generator=g) * 0.01)
    EX01.test_init_weights_shape_and_dtype(init)
