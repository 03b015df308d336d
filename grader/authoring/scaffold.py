"""``grade new ID``: scaffold an exercise that loads and passes ``grade validate`` as it is.

The scaffold is a tiny but complete exercise (one function, hidden tests on every device, three
mutants, two alternatives, two hints) so that an author starts from something that works and
changes it step by step, re-running ``grade validate ID`` as they go.
"""

from __future__ import annotations

from pathlib import Path

from grader.catalog import Catalog
from grader.errors import UsageError
from grader.spec import ID_RE

SPEC = """\
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
"""

STARTER = '''\
"""{id} - Scaling a tensor. Run `grade {id}` to check your work."""

import torch


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    """x multiplied by factor, with x's dtype and device; x itself is left unchanged."""
    # TODO
    raise NotImplementedError
'''

SOLUTION = '''\
"""{id} - reference solution."""

import torch


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    return x * factor
'''

TESTS = '''\
"""Hidden tests of {id}."""

import torch

from grader.testing import assert_close, assert_dtype, expect_tensor

SHAPES = [(3,), (2, 4), (1, 1, 5)]


def test_scale_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        assert_close(learner.scale(x, 2.5), reference.scale(x, 2.5), f"scale(x, 2.5) for x of shape {{shape}}")
    transposed = torch.randn(4, 3, generator=rng).to(device).t()
    assert_close(learner.scale(transposed, -1.0), reference.scale(transposed, -1.0),
                 "scale(x, -1.0) for a transposed x")


def test_scale_keeps_dtype(learner, device):
    # Only the dtype is judged here: wrong values cost test_scale_values alone.
    for dtype in (torch.float64, torch.float16):
        x = torch.linspace(-1, 1, 5, dtype=dtype).to(device)
        what = f"scale(x, 3.0) for a {{dtype}} x"
        assert_dtype(expect_tensor(learner.scale(x, 3.0), what), dtype, what)
'''

FILES = {
    "mutants/adds.py": "def scale(x, factor):\n    return x + factor\n",
    "mutants/in_place.py": "def scale(x, factor):\n    x *= factor\n    return x\n",
    "mutants/float32_always.py": "import torch\n\n\ndef scale(x, factor):\n    return (x * factor).to(torch.float32)\n",
    "alternatives/mul.py": "import torch\n\n\ndef scale(x, factor):\n    return torch.mul(x, factor)\n",
    "alternatives/clone_then_in_place.py": "def scale(x, factor):\n    y = x.clone()\n    y.mul_(factor)\n    return y\n",
}


def scaffold(catalog: Catalog, exercise_id: str, slug: str | None = None) -> list[Path]:
    """Write the scaffold; refuses to overwrite anything. Returns the files written."""
    if not ID_RE.match(exercise_id):
        raise UsageError(
            f"'{exercise_id}' is not an exercise id",
            hint="Use the form exercise-NN, e.g. exercise-21.",
        )
    folder = catalog.exercises_dir / exercise_id
    solution_dir = catalog.solutions_dir / exercise_id
    for path in (folder, solution_dir):
        if path.exists():
            raise UsageError(
                f"{path} already exists", hint="Choose another id, or edit the existing exercise."
            )
    slug = slug or f"new-{exercise_id}"
    values = {"id": exercise_id, "slug": slug}
    files = {
        folder / "exercise.yaml": SPEC.format(**values),
        folder / f"{exercise_id}.py": STARTER.format(**values),
        folder / "tests.py": TESTS.format(**values),
        solution_dir / f"{exercise_id}.py": SOLUTION.format(**values),
    }
    files.update({folder / name: text for name, text in FILES.items()})
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return sorted(files)
