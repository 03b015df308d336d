"""Exercise 5: `y = x.t().clone()` and `y.view(-1)` on lines of their own got the general
"view() on a non-contiguous tensor" advice, where `.clone().view(-1)` on one line was told that
clone() keeps the strides (`clone-keeps-strides`): the line that raised decided. Now the
learner's own run decides: the tensor view() refused was made by clone(), however the code was
laid out; a refused view of anything else keeps the general advice."""

from __future__ import annotations

import types

import torch
from hypothesis import given
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX05 = hidden_tests("exercise-05")

SOURCES = st.sampled_from(["x.t()", "x.transpose(0, 1)", "x.permute(1, 0)", "x.mT"])
CLONES = st.sampled_from(
    ["{}.clone()", "torch.clone({})", "{}.clone(memory_format=torch.preserve_format)"]
)
VIEWS = st.sampled_from(["view(-1)", "view(x.numel())", "view(-1, )"])


def _module(body: str) -> types.ModuleType:
    module = types.ModuleType("learner")
    exec(compile("import torch\n" + body, "exercise-05.py", "exec"), module.__dict__)
    return module


def _layouts(draw_source, clone, view):
    copy = clone.format(draw_source)
    return {
        "one line": f"def flatten_transposed(x):\n    return {copy}.{view}\n",
        "two lines": f"def flatten_transposed(x):\n    y = {copy}\n    y = y.{view}\n    return y\n",
        "helper": (
            f"def fresh(x):\n    return {copy}\n\n"
            f"def flatten_transposed(x):\n    out = fresh(x)\n    return out.{view}\n"
        ),
        "renamed": (
            f"def flatten_transposed(x):\n    copy = {copy}\n    flat = copy\n"
            f"    return flat.{view}\n"
        ),
    }


@given(
    source=SOURCES,
    clone=CLONES,
    view=VIEWS,
    layout=st.sampled_from(["one line", "two lines", "helper", "renamed"]),
    shape=st.tuples(st.integers(2, 5), st.integers(2, 5)),
)
def test_a_refused_view_of_a_clone_is_seen_however_it_is_written(
    source, clone, view, layout, shape
):
    module = _module(_layouts(source, clone, view)[layout])
    x = torch.randn(*shape)
    assert EX05.viewed_a_clone(module, "flatten_transposed", [x]) == {"viewed_clone": True}
    assert torch.Tensor.view is not None and torch.Tensor.clone.__name__ == "clone"
    assert torch.equal(x.t().clone().reshape(-1), x.t().reshape(-1))  # torch is left as it was


@given(
    body=st.sampled_from(
        [
            "def flatten_transposed(x):\n    return x.t().view(-1)\n",
            "def flatten_transposed(x):\n    y = x.t().clone()\n    z = y * 1\n    return z.view(-1)\n",
            "def flatten_transposed(x):\n    y = x.clone().t()\n    return y.view(-1)\n",
            "def flatten_transposed(x):\n    return x.t().clone().contiguous().view(-1)\n",
            "def flatten_transposed(x):\n    return x.t().clone().reshape(-1)\n",
            "def flatten_transposed(x):\n    raise ValueError('no')\n",
        ]
    ),
    shape=st.tuples(st.integers(2, 5), st.integers(2, 5)),
)
def test_no_other_refusal_or_answer_is_seen_as_a_clone(body, shape):
    module = _module(body)
    x = torch.randn(*shape)
    assert EX05.viewed_a_clone(module, "flatten_transposed", [x]) == {"viewed_clone": False}


def test_torch_is_restored_after_the_run():
    before = (torch.Tensor.clone, torch.clone, torch.Tensor.view)
    module = _module("def flatten_transposed(x):\n    return x.t().clone().view(-1)\n")
    EX05.viewed_a_clone(module, "flatten_transposed", [torch.randn(3, 4)])
    assert (torch.Tensor.clone, torch.clone, torch.Tensor.view) == before
