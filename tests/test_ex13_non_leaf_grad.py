"""Exercise-13's derivative raising on a .grad that is None: the learner's line that read .grad
of a tensor that is not a leaf is named (a result of f, or a leaf converted after
requires_grad), and nothing there speaks of updating parameters; the catalogue's parameter-update
fix is given only for a number times a None gradient (the update step lr * w.grad)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog, diagnose
from grader.i18n import Text
from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorInfo
from tests.hidden import hidden_tests

HIDDEN = hidden_tests("exercise-13")
NONE_ITEM = "'NoneType' object has no attribute 'item'"


def _raised(source: str, message: str = NONE_ITEM) -> LearnerRaised:
    """The fault the learner's derivative raised, after the test's _none_grad_named."""
    error = ErrorInfo(
        kind="call", type="AttributeError", classes=("AttributeError",), message=message
    )
    fault = LearnerRaised(Text(f"derivative raised AttributeError: {message}", "…"), error=error)
    with pytest.raises(LearnerRaised) as info, HIDDEN._none_grad_named(source):
        raise fault
    return info.value


GRAD_OF_OUTPUT = """import torch

def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    y = f(t)
    y.backward()
    return y.grad.item()
"""

CONVERTED = """import torch

def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True).double()
    f(t).backward()
    return t.grad.item()
"""

RIGHT = """import torch

def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    y = f(t)
    y.backward()
    return t.grad.item()
"""


def test_grad_of_f_s_result_names_the_line_and_the_leaf():
    fault = _raised(GRAD_OF_OUTPUT)
    assert fault.evidence[-1] == "grad_of_non_leaf"
    assert "`return y.grad.item()`" in fault.message.en and "read t.grad" in fault.message.en
    assert "t.grad" in fault.message.zh and "y.grad" in fault.message.zh
    assert "parameter" not in fault.message.en


def test_a_leaf_converted_after_requires_grad_names_the_conversion():
    fault = _raised(CONVERTED)
    assert fault.evidence[-1] == "converted_leaf_not_leaf"
    assert ".double()" in fault.message.en and "requires_grad_()" in fault.message.en
    assert "parameter" not in fault.message.en


@pytest.mark.parametrize(
    "message",
    [NONE_ITEM, "unsupported operand type(s) for *: 'float' and 'NoneType'"],
)
def test_a_none_that_is_not_a_non_leaf_grad_is_left_as_it_was(message):
    """.grad of the leaf itself, or another None: no story is added."""
    fault = _raised(RIGHT, message)
    assert fault.evidence == ()
    assert fault.message.en == f"derivative raised AttributeError: {message}"


@settings(max_examples=60, deadline=None)
@given(
    leaf=st.sampled_from(["t", "x_t", "leaf", "var"]),
    result=st.sampled_from(["y", "out", "value", "fx"]),
    f=st.sampled_from(["f", "fn", "func"]),
    form=st.sampled_from(["name", "call", "arith", "leaf"]),
)
def test_grad_read_on_a_computed_tensor_is_named_exactly_then(leaf, result, f, form):
    """Generated learners: .grad read of f's result (by name or directly) or of arithmetic on
    the leaf is named, with the leaf's name; .grad of the leaf itself never is."""
    computed = {
        "name": f"{result} = {f}({leaf})",
        "call": f"{result} = None",
        "arith": f"{result} = {leaf} * 2",
        "leaf": f"{result} = {f}({leaf})",
    }[form]
    read = {
        "name": f"{result}.grad",
        "call": f"{f}({leaf}).grad",
        "arith": f"{result}.grad",
        "leaf": f"{leaf}.grad",
    }[form]
    source = (
        f"import torch\n\ndef derivative({f}, x):\n"
        f"    {leaf} = torch.tensor(float(x), requires_grad=True)\n"
        f"    {computed}\n"
        f"    {f}({leaf}).backward()\n"
        f"    return {read}.item()\n"
    )
    fault = _raised(source)
    if form == "leaf":
        assert fault.evidence == ()
    else:
        assert fault.evidence == ("grad_of_non_leaf",), source
        assert f"read {leaf}.grad" in fault.message.en


@settings(max_examples=40, deadline=None)
@given(
    method=st.sampled_from(["double()", "float()", "half()", "to(torch.float64)", "cuda()"]),
    name=st.sampled_from(["t", "xt", "leaf"]),
)
def test_any_conversion_after_requires_grad_is_named(method, name):
    source = (
        "import torch\n\ndef derivative(f, x):\n"
        f"    {name} = torch.tensor(float(x), requires_grad=True).{method}\n"
        f"    f({name}).backward()\n"
        f"    return {name}.grad.item()\n"
    )
    fault = _raised(source)
    assert fault.evidence == ("converted_leaf_not_leaf",)
    assert f"never fills {name}.grad" in fault.message.en


def test_the_parameter_update_fix_is_only_for_a_number_times_a_none_gradient():
    catalogue = DiagnosisCatalog.load()

    def fix(message: str, evidence: tuple[str, ...] = ()) -> tuple[str, str]:
        found = diagnose(catalogue, evidence, {"type": "TypeError", "message": message}, "en")
        assert found is not None
        return found.id, found.fix

    update = "Update parameters in place"
    ident, text = fix("unsupported operand type(s) for *: 'float' and 'NoneType'")
    assert ident == "grad-is-none" and update in text
    for message in (
        NONE_ITEM,
        "isfinite(): argument 'input' (position 1) must be Tensor, not NoneType",
        "unsupported operand type(s) for +: 'Tensor' and 'NoneType'",
    ):
        ident, text = fix(message)
        assert ident == "grad-is-none" and update not in text, message
    ident, text = fix(NONE_ITEM, ("grad_of_non_leaf",))
    assert ident == "grad-of-non-leaf" and update not in text
    # the zh fix of the pattern is there too
    zh = diagnose(
        catalogue,
        (),
        {
            "type": "TypeError",
            "message": "unsupported operand type(s) for *: 'float' and 'NoneType'",
        },
        "zh",
    )
    assert zh is not None and "原地更新参数" in zh.fix


def test_exercise_13_never_shows_the_parameter_update_fix():
    """Exercise 13 has no parameters: its own fix for grad-is-none replaces the catalogue's."""
    spec = Catalog(project_root()).resolve("exercise-13")
    found = diagnose(
        DiagnosisCatalog.load(),
        (),
        {
            "type": "TypeError",
            "message": "unsupported operand type(s) for *: 'float' and 'NoneType'",
        },
        "en",
        exercise=spec.id,
        fixes=spec.fix,
    )
    assert found is not None and found.id == "grad-is-none"
    assert "Update parameters" not in found.fix and "t.grad" in found.fix
