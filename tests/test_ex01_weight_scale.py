"""Exercise 1: init_weights as torch.randn(...) / 0.01 (divided where it should be multiplied)
was told "torch.rand where torch.randn was needed": the check that the weights are centred on 0
used an absolute bound (|mean| <= 0.002), which a normal draw of a wider spread breaks by its
sample mean alone (std 100: the mean of 512 x 512 draws is about 0.2). Centred is now judged
against the weights' own spread; normal weights of any scale are told their scale, never
torch.rand, and uniform ones are still told torch.rand. Constant weights (torch.zeros) are named
as such, not as a uniform draw."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX01 = hidden_tests("exercise-01")
WHAT = "init_weights(512, 512, generator)"


def _evidence(values: torch.Tensor) -> list[str]:
    try:
        EX01._check_centre_and_spread(values.double(), WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@settings(max_examples=20, deadline=None)
@given(scale=st.floats(1e-4, 1e4), seed=st.integers(0, 2**16))
def test_normal_weights_of_any_scale_are_not_told_uniform(scale, seed):
    g = torch.Generator().manual_seed(seed)
    values = torch.randn(128, 128, generator=g) * scale
    evidence = _evidence(values)
    assert "uniform_instead_of_normal" not in evidence
    assert ("wrong_scale" in evidence) == (not 0.009 < float(values.double().std()) < 0.011)


@settings(max_examples=20, deadline=None)
@given(scale=st.floats(1e-3, 1e3), seed=st.integers(0, 2**16))
def test_uniform_weights_are_still_told_uniform(scale, seed):
    g = torch.Generator().manual_seed(seed)
    values = torch.rand(128, 128, generator=g) * scale
    assert "uniform_instead_of_normal" in _evidence(values)


def test_divided_by_the_scale_is_told_its_scale():
    values = torch.randn(512, 512, generator=torch.Generator().manual_seed(1)) / 0.01
    with pytest.raises(CheckFailed) as caught:
        EX01._check_centre_and_spread(values.double(), WHAT)
    assert "divided by 0.01" in caught.value.message.en
    assert "除以了 0.01" in caught.value.message.zh


@pytest.mark.parametrize("value", [0.0, 0.01, 1.0])
def test_constant_weights_are_named(value):
    evidence = _evidence(torch.full((512, 512), value))
    assert "constant_weights" in evidence
    assert "uniform_instead_of_normal" not in evidence


def test_the_right_weights_pass():
    assert _evidence(torch.randn(512, 512, generator=torch.Generator().manual_seed(1)) * 0.01) == []


def _failure(values: torch.Tensor) -> CheckFailed:
    with pytest.raises(CheckFailed) as caught:
        EX01._check_centre_and_spread(values.double(), WHAT)
    return caught.value


def test_the_scale_given_as_the_mean_is_told_so():
    # normal_(0.01) draws mean 0.01, std 1: the grader's own sample (seed 1)
    w = torch.empty(512, 512).normal_(0.01, generator=torch.Generator().manual_seed(1))
    failure = _failure(w)
    assert "scale_as_mean" in failure.evidence
    assert "went in as the mean" in failure.message.en
    assert "被当成了均值" in failure.message.zh
    assert "left out" not in failure.message.en


@pytest.mark.parametrize("seed", range(12))
def test_an_unscaled_randn_is_never_told_the_mean(seed):
    w = torch.randn(512, 512, generator=torch.Generator().manual_seed(seed))
    failure = _failure(w)
    assert "scale_as_mean" not in failure.evidence
    assert "went in as the mean" not in failure.message.en


# A standard normal times a wrong constant (* math.sqrt(0.01), * 0.1, * 0.01 ** 2, / 0.01, the
# factor left out, a fan_in scale) is named: centred, of the normal's shape, and the wrong std.
@settings(max_examples=20, deadline=None)
@given(
    scale=st.floats(1e-4, 1e4).filter(lambda s: not 0.0085 < s < 0.0115),
    seed=st.integers(0, 2**16),
)
def test_normal_weights_times_a_wrong_constant_are_named(scale, seed):
    g = torch.Generator().manual_seed(seed)
    evidence = _evidence(torch.randn(256, 256, generator=g) * scale)
    assert "normal_wrong_scale" in evidence


@settings(max_examples=20, deadline=None)
@given(scale=st.floats(1e-3, 1e3), seed=st.integers(0, 2**16))
def test_uniform_weights_of_a_wrong_scale_are_not_told_a_constant(scale, seed):
    g = torch.Generator().manual_seed(seed)
    centred_uniform = (torch.rand(256, 256, generator=g) - 0.5) * scale
    assert "normal_wrong_scale" not in _evidence(centred_uniform)


def test_the_mean_given_for_the_scale_is_not_told_a_constant():
    w = torch.empty(512, 512).normal_(0.01, generator=torch.Generator().manual_seed(1))
    assert "normal_wrong_scale" not in _failure(w).evidence


@pytest.mark.parametrize(
    ("factor", "en", "zh"),
    [
        (0.01**0.5, "square root of 0.01", "平方根"),
        (0.01**2, "0.01 squared", "平方"),
        (512**-0.5, "1 / sqrt(fan_in)", "fan_in"),
        (0.03, "scaled by about 0.03", "缩放了约 0.03"),
    ],
)
def test_the_wrong_constant_is_told_in_the_message(factor, en, zh):
    w = torch.randn(512, 512, generator=torch.Generator().manual_seed(1)) * factor
    failure = _failure(w)
    assert "normal_wrong_scale" in failure.evidence
    assert en in failure.message.en
    assert zh in failure.message.zh


def test_a_dropped_scaling_is_told_as_dropped_not_as_a_wrong_constant():
    # `w * 0.01` as a statement: the weights keep the standard normal's scale, and the dropped
    # result is why (grader.engine.slipped); the wrong-scale tag does not stand against it
    from grader.diagnose import DiagnosisCatalog
    from grader.engine.slipped import refine
    from grader.i18n import Text

    source = (
        "import torch\n\n\ndef init_weights(fan_in, fan_out, generator):\n"
        "    w = torch.randn(fan_in, fan_out, generator=generator)\n"
        "    w * 0.01\n    return w\n"
    )
    refined = refine(
        Text("std 1", "std 1"),
        ("values_differ", "wrong_scale", "normal_wrong_scale"),
        None,
        "",
        source,
        ("init_weights",),
        DiagnosisCatalog.load().named_evidence(),
    )
    assert refined is not None and refined.line == 6
