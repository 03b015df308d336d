"""A function returning a tensor method without calling it (exercise 1's
``torch.tensor(value).float``, exercise 6's ``img.unsqueeze``, exercise 10's
``t.detach().cpu().numpy``) was told "The result is not a plain tensor", whose fix is to drop
.item(), .tolist() or .numpy() and not to subclass, or, where an array was due, nothing at all.
A bound method where a tensor, an array or a value of some type was due is now named "A method
used without calling it", with the method's name where its repr gives one."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.sandbox.codec import Opaque
from grader.testing.checks import CheckFailed, assert_type, expect_array, expect_tensor

CHECKS = [
    lambda v: expect_tensor(v, "f(x)"),
    lambda v: expect_array(v, "f(x)"),
    lambda v: assert_type(v, dict, "f(x)"),
]
CATALOGUE = DiagnosisCatalog.load()  # once: reading it is most of each example's time
NAMES = st.from_regex(r"[a-z_][a-z0-9_]{0,15}", fullmatch=True)


@given(name=NAMES, which=st.integers(0, 2))
def test_a_bound_tensor_method_is_named_with_its_name(name, which):
    value = Opaque(
        "builtin_function_or_method", f"<built-in method {name} of Tensor object at 0x7f>"
    )
    with pytest.raises(CheckFailed) as caught:
        CHECKS[which](value)
    assert "method_not_called" in caught.value.evidence
    assert f"the method {name} itself" in caught.value.message.en
    assert f"方法 {name} 本身" in caught.value.message.zh
    entry = match(CATALOGUE, tuple(caught.value.evidence), None)
    assert entry is not None and entry.id == "method-not-called"


def test_a_real_method_as_the_codec_writes_it_is_named():
    t = torch.zeros(2)
    value = Opaque(type(t.float).__name__, repr(t.float))
    with pytest.raises(CheckFailed) as caught:
        expect_tensor(value, "make_scalar(3)")
    assert "the method float itself" in caught.value.message.en


@given(
    kind=st.sampled_from(["function", "type", "module", "generator", "torch.Size", "list"]),
    text=st.text(max_size=30),
    which=st.integers(0, 2),
)
def test_other_opaque_values_are_not_called_methods(kind, text, which):
    with pytest.raises(CheckFailed) as caught:
        CHECKS[which](Opaque(kind, text))
    assert "method_not_called" not in caught.value.evidence
