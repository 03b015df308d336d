"""Template ``property``: ``normalize_rows(x)``, checked by examples and by a property.

The pattern: beside examples compared with the reference, a hypothesis property states the
lesson ("every row sums to 1, and scaling a row changes nothing") over many small inputs.
``PROPERTY`` makes it deterministic, keeps nothing on disk and lets hypothesis shrink a
failure to the smallest input, which is what the learner sees.
"""

DESCRIPTION = "normalize_rows(x): examples and a hypothesis property (deterministic, shrinking)"

FILES = {
    "exercises/{id}/exercise.yaml": """\
format_version: 1
id: {id}
slug: {slug}
kind: implement
title:
  en: "Rows that sum to one"
  zh: "每行之和为 1"
concepts: [reductions, keepdim, broadcasting]
learner_file: {id}.py
instructions:
  en: |
    Implement `normalize_rows(x)`: for a tensor `x` of shape (n, d) with positive values, divide
    every row by its own sum, so that each row of the result sums to 1. The result has the shape,
    the dtype and the device of `x`; do not modify `x`.
  zh: |
    实现 `normalize_rows(x)`：对形状为 (n, d)、元素都为正数的张量 `x`，把每一行除以该行自己的和，
    使结果的每一行之和都为 1。结果与 `x` 的形状、dtype 和设备相同；不要修改 `x`。
hints:
  - en: "`x.sum(dim=1)` gives one sum per row, of shape (n,)."
    zh: "`x.sum(dim=1)` 为每一行给出一个和，形状为 (n,)。"
  - en: "To divide each row by its sum, the sums need shape (n, 1): `x.sum(dim=1, keepdim=True)`."
    zh: "要让每一行除以自己的和，这些和的形状必须是 (n, 1)：`x.sum(dim=1, keepdim=True)`。"
functions:
  - name: normalize_rows
    signature: "normalize_rows(x: Tensor) -> Tensor"
    summary:
      en: "(n, d) -> (n, d): each row divided by its sum"
      zh: "(n, d) -> (n, d)：每一行除以该行的和"
devices: [cpu, cuda]
tests:
  - name: test_normalize_rows_values
    points: 3
    functions: [normalize_rows]
    description:
      en: "normalize_rows divides each row by its sum, for several shapes and a transposed x, leaving x unchanged"
      zh: "normalize_rows 把每一行除以该行的和，适用于多种形状和转置的 x，并且不修改 x"
  - name: test_normalize_rows_property
    points: 2
    functions: [normalize_rows]
    input_check: false            # the values test owns "x is left unchanged"
    description:
      en: "for random positive x, every row of the result sums to 1, and scaling x changes nothing"
      zh: "对随机的正数 x，结果的每一行之和都为 1，并且把 x 乘以一个数不改变结果"
mutants:
  - file: mutants/divides_by_total.py
    description: "x / x.sum(): the sum of the whole tensor"
    must_fail: [test_normalize_rows_values, test_normalize_rows_property]
  - file: mutants/sum_without_keepdim.py
    description: "x / x.sum(dim=1): the sums line up with the columns"
    must_fail: [test_normalize_rows_values, test_normalize_rows_property]
  - file: mutants/divides_by_max.py
    description: "each row divided by its maximum"
    must_fail: [test_normalize_rows_values, test_normalize_rows_property]
  - file: mutants/divides_in_place.py
    description: "x /= ...: the caller's tensor is changed"
    must_fail: [test_normalize_rows_values]
    diagnosis: input-mutated
alternatives:
  - file: alternatives/last_dim.py
    description: "the sums along dim=-1, times their reciprocal"
  - file: alternatives/f_normalize.py
    description: "F.normalize with p=1 (x is positive)"
requirements:
  - id: rows-sum-to-one
    text: "normalize_rows(x) divides each row by its own sum"
    tests: [test_normalize_rows_values, test_normalize_rows_property]
    mutants: [mutants/divides_by_total.py, mutants/sum_without_keepdim.py, mutants/divides_by_max.py]
  - id: leaves-input
    text: "x itself is left unchanged"
    tests: [test_normalize_rows_values]
    mutants: [mutants/divides_in_place.py]
""",
    "exercises/{id}/{id}.py": '''\
"""{id} - Rows that sum to one. Run `grade {id}` to check your work."""

import torch


def normalize_rows(x: torch.Tensor) -> torch.Tensor:
    """(n, d) -> (n, d): each row of x divided by its own sum."""
    # TODO
    raise NotImplementedError
''',
    "exercises/{id}/tests.py": '''\
"""Hidden tests of {id}."""

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import Text, assert_close, assert_shape, check, expect_tensor
from grader.testing.properties import PROPERTY

SHAPES = [(1, 4), (3, 3), (4, 2)]


def test_normalize_rows_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = (torch.rand(*shape, generator=rng) + 0.1).to(device)
        what = Text(f"normalize_rows(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 normalize_rows(x)")
        assert_close(learner.normalize_rows(x), reference.normalize_rows(x), what)
    x = (torch.rand(5, 3, generator=rng) + 0.1).to(device).t()
    what = Text("normalize_rows(x) for a transposed x", "x 为转置视图时的 normalize_rows(x)")
    assert_close(learner.normalize_rows(x), reference.normalize_rows(x), what)


# No `device` parameter: a property runs once, on the CPU. Hypothesis draws the sizes and a
# seed for the values; a failure is shrunk to the smallest input before the learner sees it.
@settings(parent=PROPERTY, max_examples=20)
@given(n=st.integers(1, 4), d=st.integers(1, 5), scale=st.integers(2, 8), data_seed=st.integers(0, 2**16))
def test_normalize_rows_property(learner, n, d, scale, data_seed):
    values = torch.randint(1, 9, (n, d), generator=torch.Generator().manual_seed(data_seed))
    x = values / 4.0
    what = Text(f"normalize_rows(x) for x of shape ({n}, {d})", f"x 的形状为 ({n}, {d}) 时的 normalize_rows(x)")
    got = expect_tensor(learner.normalize_rows(x), what)
    assert_shape(got, (n, d), what)
    sums = got.sum(dim=1)
    check(
        torch.allclose(sums, torch.ones_like(sums), atol=1e-5),
        f"The rows of normalize_rows(x) should each sum to 1, but for x = {x.tolist()} they sum to {sums.tolist()}.",
        f"normalize_rows(x) 的每一行之和都应为 1，但对 x = {x.tolist()}，各行之和为 {sums.tolist()}。",
        evidence=["values_differ"],
    )
    scaled = expect_tensor(learner.normalize_rows(x * scale), what)
    check(
        scaled.shape == got.shape and torch.allclose(scaled, got, atol=1e-6),
        f"normalize_rows(x * {scale}) should equal normalize_rows(x) (scaling a row does not change its shares), but for x = {x.tolist()} it does not.",
        f"normalize_rows(x * {scale}) 应当等于 normalize_rows(x)（把一行乘以一个数不会改变各元素所占的比例），但对 x = {x.tolist()} 并非如此。",
        evidence=["values_differ"],
    )
''',
    "solutions/{id}/{id}.py": '''\
"""{id} - reference solution."""

import torch


def normalize_rows(x: torch.Tensor) -> torch.Tensor:
    return x / x.sum(dim=1, keepdim=True)
''',
    "exercises/{id}/mutants/divides_by_total.py": "def normalize_rows(x):\n    return x / x.sum()\n",
    "exercises/{id}/mutants/sum_without_keepdim.py": "def normalize_rows(x):\n    return x / x.sum(dim=1)\n",
    "exercises/{id}/mutants/divides_by_max.py": "def normalize_rows(x):\n    return x / x.max(dim=1, keepdim=True).values\n",
    "exercises/{id}/mutants/divides_in_place.py": "def normalize_rows(x):\n    x /= x.sum(dim=1, keepdim=True)\n    return x\n",
    "exercises/{id}/alternatives/last_dim.py": "def normalize_rows(x):\n    return x * x.sum(dim=-1, keepdim=True).reciprocal()\n",
    "exercises/{id}/alternatives/f_normalize.py": "import torch.nn.functional as F\n\n\ndef normalize_rows(x):\n    return F.normalize(x, p=1, dim=1)\n",
}
