"""Exercise 11: features of another dtype than float32 or float64 (``.half()``, ``.long()``,
``.int()``, ``.to(torch.bfloat16)``) fed to nn.Linear got only PyTorch's "mat1 and mat2 must
have the same dtype, but got Half and Float" and no diagnosis. The features that reached
nn.Linear come back with the refusal, and their dtype is named with the fix: integers as
integers (``dtype-mismatch``: .float(), .long() is for the labels), other floats as a wrong
dtype; float64 keeps its NumPy story."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX11 = hidden_tests("exercise-11")
ROOT = Path(__file__).resolve().parents[1]
OTHERS = [
    torch.float16,
    torch.bfloat16,
    torch.complex64,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.bool,
]
TORCH_NAMES = {
    torch.float16: "Half",
    torch.bfloat16: "BFloat16",
    torch.complex64: "ComplexFloat",
    torch.uint8: "Byte",
    torch.int8: "Char",
    torch.int16: "Short",
    torch.int32: "Int",
    torch.int64: "Long",
    torch.bool: "Bool",
    torch.float64: "Double",
}
ERROR = "RuntimeError: mat1 and mat2 must have the same dtype, but got {} and Float"


def _reference():
    path = ROOT / "solutions" / "exercise-11" / "exercise-11.py"
    namespace: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), namespace)
    return type("Reference", (), {"prepare_batch": staticmethod(namespace["prepare_batch"])})


class _Learner:
    """A proxy whose classifier run reports nn.Linear refusing features of ``dtype``."""

    def __init__(self, dtype, with_features=True):
        self.dtype, self.with_features = dtype, with_features

    def run(self, scenario, features, labels, classes, device, seed):
        assert scenario is EX11.classifier_step
        answer = {"stage": "linear", "error": ERROR.format(TORCH_NAMES[self.dtype])}
        if self.with_features:
            answer["features"] = torch.from_numpy(features).to(self.dtype)
        return answer


def _failure(learner):
    with pytest.raises(CheckFailed) as failed:
        EX11.test_prepare_batch_feeds_a_classifier(
            learner, _reference(), "cpu", torch.Generator().manual_seed(0), 0, ""
        )
    return failed.value


@settings(max_examples=40, deadline=None)
@given(dtype=st.sampled_from(OTHERS))
def test_the_features_dtype_is_named_with_its_fix(dtype):
    failed = _failure(_Learner(dtype))
    name = str(dtype).removeprefix("torch.")
    assert f"your features are {name}" in failed.message.en and name in failed.message.zh
    assert ".float()" in failed.message.en
    entry = match(DiagnosisCatalog.load(), failed.evidence, None)
    integer = not (dtype.is_floating_point or dtype.is_complex)
    assert entry is not None
    assert entry.id == ("dtype-mismatch" if integer else "wrong-dtype-result")


def test_float64_keeps_its_numpy_story():
    failed = _failure(_Learner(torch.float64))
    assert "NumPy's default" in failed.message.en
    assert match(DiagnosisCatalog.load(), failed.evidence, None).id == "numpy-float64"


def test_without_the_features_only_the_message_is_shown():
    failed = _failure(_Learner(torch.float16, with_features=False))
    assert "your features are" not in failed.message.en
    assert match(DiagnosisCatalog.load(), failed.evidence, None) is None
