"""Exercise 11: features that differ from the expected float32 ones are wrong under the prompt
("float32 features ... with the same values"): standardised in any order or dtype, or rounded
to float16 on the way in. The features test named standardising but not float16 rounding
("values differ" only), and the classifier test named neither: its loss differed with a bare
"should be 1.18, but yours is 1.156". Both now name what the features show; features that are
the float64 array converted to float32 by any route pass, and other mistakes are not named."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX11 = hidden_tests("exercise-11")

RIGHT = {
    "from_numpy_float": lambda f: torch.from_numpy(f).float(),
    "astype_float32": lambda f: torch.from_numpy(f.astype(np.float32)),
    "tensor_dtype": lambda f: torch.tensor(f, dtype=torch.float32),
    "to_float32": lambda f: torch.as_tensor(f).to(torch.float32),
}
STANDARDISED = {
    # the same standardisation in other orders and dtypes: every one of them is normalising
    "float32": lambda f: (lambda x: (x - x.mean(0)) / x.std(0))(torch.from_numpy(f).float()),
    "float64_then_cast": lambda f: torch.from_numpy((f - f.mean(0)) / f.std(0, ddof=1)).float(),
    "numpy_population": lambda f: torch.from_numpy((f - f.mean(0)) / f.std(0)).float(),
    "sum_over_n": lambda f: (lambda x: (x - x.sum(0) / x.shape[0]) / x.std(0))(
        torch.from_numpy(f).float()
    ),
}
ROUNDED = {
    "astype_float16": lambda f: torch.from_numpy(f.astype(np.float16)).float(),
    "half_then_float": lambda f: torch.from_numpy(f).half().float(),
    "bfloat16": lambda f: torch.from_numpy(f).to(torch.bfloat16).float(),
}
OTHER = {
    "negated": lambda f: -torch.from_numpy(f).float(),
    "off_by_a_bit": lambda f: torch.from_numpy(f).float() * 1.001 + 0.01,
}

ARRAYS = st.tuples(st.integers(2, 9), st.integers(1, 5), st.integers(0, 2**16), st.floats(0.1, 1e3))


def _features(n, d, seed, scale):
    return np.random.default_rng(seed).standard_normal((n, d)) * scale


def _evidence(check, *args):
    try:
        check(*args)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


def _diagnosis(evidence):
    entry = match(DiagnosisCatalog.load(), tuple(evidence), None)
    return None if entry is None else entry.id


@settings(deadline=None)
@given(array=ARRAYS, how=st.sampled_from(sorted({**RIGHT, **STANDARDISED, **ROUNDED, **OTHER})))
def test_the_features_test_names_what_the_features_show(array, how):
    f = _features(*array)
    want = torch.from_numpy(f).float()
    got = {**RIGHT, **STANDARDISED, **ROUNDED, **OTHER}[how](f)
    evidence = _evidence(EX11._check_features, got, want, "the features")
    if how in RIGHT:
        assert evidence == []
    elif how in ROUNDED:
        differs = not torch.equal(got, want)
        assert ("low_precision_float" in evidence) == differs, evidence
        if differs:
            assert _diagnosis(evidence) == "low-precision-float"
    elif how in STANDARDISED:
        assert _diagnosis(evidence) == "data-normalised", evidence
    else:
        assert evidence and _diagnosis(evidence) is None


class _Learner:
    """A proxy whose prepare_batch returns ``features(f)``; the classifier runs here."""

    def __init__(self, features):
        self.features = features

    def prepare_batch(self, f, labels):
        return self.features(f), torch.from_numpy(labels).long()

    def run(self, scenario, *args):
        return scenario(self, *args)


class _Reference:
    @staticmethod
    def prepare_batch(f, labels):
        return torch.from_numpy(f).float(), torch.from_numpy(labels).long()


@settings(deadline=None, max_examples=30)
@given(
    seed=st.integers(0, 2**16),
    how=st.sampled_from(sorted({**RIGHT, **STANDARDISED, **ROUNDED, **OTHER})),
)
def test_the_classifier_test_names_the_features_behind_its_loss(seed, how):
    learner = _Learner({**RIGHT, **STANDARDISED, **ROUNDED, **OTHER}[how])
    evidence = _evidence(
        EX11.test_prepare_batch_feeds_a_classifier,
        learner,
        _Reference(),
        "cpu",
        torch.Generator().manual_seed(seed),
        seed,
        "",
    )
    if how in RIGHT:
        assert evidence == []
    elif how in STANDARDISED:
        assert _diagnosis(evidence) == "data-normalised", evidence
    elif how in ROUNDED:
        # float16 rounding may leave the loss within its tolerance; where it fails, it is named
        assert evidence == [] or _diagnosis(evidence) == "low-precision-float", evidence
    else:
        assert _diagnosis(evidence) is None


def test_a_forged_answer_is_no_evidence():
    class Forged(_Learner):
        def run(self, scenario, *args):
            answer = scenario(self, *args)
            return {**answer, "features": "not a tensor", "loss": "1.0"}

    with pytest.raises(CheckFailed) as failed:
        EX11.test_prepare_batch_feeds_a_classifier(
            Forged(STANDARDISED["float32"]),
            _Reference(),
            "cpu",
            torch.Generator().manual_seed(0),
            0,
            "",
        )
    assert _diagnosis(failed.value.evidence) is None


@given(array=ARRAYS, dtype=st.sampled_from([torch.float16, torch.bfloat16]))
def test_a_float16_result_is_told_its_dtype_not_its_rounding(array, dtype):
    f = _features(*array)
    evidence = _evidence(
        EX11._check_features, torch.from_numpy(f).to(dtype), torch.from_numpy(f).float(), "x"
    )
    assert "low_precision_float" not in evidence and "wrong_dtype" in evidence, evidence
