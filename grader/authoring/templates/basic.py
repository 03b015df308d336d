"""The default template: one function, ``scale(x, factor)``, checked on every device.

The smallest complete exercise: hidden tests that compare with the reference and judge the
dtype alone, three mutants (one with a diagnosis), two alternatives, two hints and the
requirements table.
"""

DESCRIPTION = "scale(x, factor): values and dtype, on every device"

FILES = {
    "exercises/{id}/exercise.yaml": """\
format_version: 1
id: {id}
slug: {slug}
kind: implement
title:
  en: "Scaling a tensor"
  zh: "缩放张量"
concepts: [elementwise]
learner_file: {id}.py
instructions:
  en: |
    Implement `scale(x, factor)`: return `x` multiplied by `factor`, with the dtype and the
    device of `x`, without modifying `x`.
  zh: |
    实现 `scale(x, factor)`：返回 `x` 乘以 `factor` 的结果，保持 `x` 的 dtype 和设备，
    并且不要修改 `x`。
hints:
  - en: "Tensors support the usual arithmetic operators."
    zh: "张量支持常见的算术运算符。"
  - en: "`x * factor` creates a new tensor; `x *= factor` would change the caller's tensor."
    zh: "`x * factor` 会创建新张量；`x *= factor` 则会修改调用者的张量。"
functions:
  - name: scale
    signature: "scale(x: Tensor, factor: float) -> Tensor"
devices: [cpu, cuda]
tests:
  - name: test_scale_values
    points: 2
    functions: [scale]
    description:
      en: "scale multiplies every element by factor"
      zh: "scale 把每个元素乘以 factor"
  - name: test_scale_keeps_dtype
    points: 1
    functions: [scale]
    input_check: false            # test_scale_values owns "x is left unchanged"
    description:
      en: "scale keeps the dtype of x"
      zh: "scale 保持 x 的 dtype"
mutants:
  - file: mutants/adds.py
    description: "adds instead of multiplying"
    must_fail: [test_scale_values]
  - file: mutants/in_place.py
    description: "multiplies x in place"
    must_fail: [test_scale_values]
    diagnosis: input-mutated
  - file: mutants/float32_always.py
    description: "always returns float32"
    must_fail: [test_scale_keeps_dtype]
alternatives:
  - file: alternatives/mul.py
    description: "torch.mul"
  - file: alternatives/clone_then_in_place.py
    description: "an in-place multiply on a clone"
requirements:                     # the audit: each stated requirement, its tests, its mutants
  - id: multiplies
    text: "scale(x, factor) returns x multiplied by factor"
    tests: [test_scale_values]
    mutants: [mutants/adds.py]
  - id: leaves-input
    text: "x itself is left unchanged"
    tests: [test_scale_values]
    mutants: [mutants/in_place.py]
  - id: keeps-dtype
    text: "the result has the dtype of x"
    tests: [test_scale_keeps_dtype]
    mutants: [mutants/float32_always.py]
""",
    "exercises/{id}/{id}.py": '''\
"""{id} - Scaling a tensor. Run `grade {id}` to check your work."""

import torch


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    """x multiplied by factor, with x's dtype and device; x itself is left unchanged."""
    # TODO
    raise NotImplementedError
''',
    "exercises/{id}/tests.py": '''\
"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_dtype, expect_tensor

SHAPES = [(3,), (2, 4), (1, 1, 5)]


def test_scale_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        what = Text(f"scale(x, 2.5) for x of shape {shape}", f"x 的形状为 {shape} 时的 scale(x, 2.5)")
        assert_close(learner.scale(x, 2.5), reference.scale(x, 2.5), what)
    transposed = torch.randn(4, 3, generator=rng).to(device).t()
    what = Text("scale(x, -1.0) for a transposed x", "x 为转置视图时的 scale(x, -1.0)")
    assert_close(learner.scale(transposed, -1.0), reference.scale(transposed, -1.0), what)


def test_scale_keeps_dtype(learner, device):
    # Only the dtype is judged here: wrong values cost test_scale_values alone.
    for dtype in (torch.float64, torch.float16):
        x = torch.linspace(-1, 1, 5, dtype=dtype).to(device)
        what = Text(f"scale(x, 3.0) for a {dtype} x", f"x 为 {dtype} 时的 scale(x, 3.0)")
        assert_dtype(expect_tensor(learner.scale(x, 3.0), what), dtype, what)
''',
    "solutions/{id}/{id}.py": '''\
"""{id} - reference solution."""

import torch


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    return x * factor
''',
    "exercises/{id}/mutants/adds.py": """\
def scale(x, factor):
    return x + factor
""",
    "exercises/{id}/mutants/in_place.py": """\
def scale(x, factor):
    x *= factor
    return x
""",
    "exercises/{id}/mutants/float32_always.py": """\
import torch


def scale(x, factor):
    return (x * factor).to(torch.float32)
""",
    "exercises/{id}/alternatives/mul.py": """\
import torch


def scale(x, factor):
    return torch.mul(x, factor)
""",
    "exercises/{id}/alternatives/clone_then_in_place.py": """\
def scale(x, factor):
    y = x.clone()
    y.mul_(factor)
    return y
""",
}
