"""Template ``forbidden``: ``relu(x)`` written without the library's relu or clamp.

The pattern: a ``forbidden:`` group (a list of names with one ``why``), checked by
``assert_not_forbidden`` on the learner's source (every spelling, in-place forms included,
helpers too) and on a traced call; its own test, so that a forbidden call costs only that test.
"""

DESCRIPTION = (
    "relu(x) without relu or clamp: a forbidden group, checked in the source and the trace"
)

FILES = {
    "exercises/{id}/exercise.yaml": """\
format_version: 1
id: {id}
slug: {slug}
kind: implement
title:
  en: "ReLU by hand"
  zh: "亲手实现 ReLU"
concepts: [elementwise, masks]
learner_file: {id}.py
instructions:
  en: |
    Implement `relu(x)`: a tensor like `x` where every negative element is replaced by 0 and the
    others are kept. Keep the dtype and the device of `x`, and do not modify `x`.

    Write it yourself: `torch.relu`, `F.relu`, `nn.ReLU`, `clamp` (and its alias `clip`) and
    `clamp_min` are not allowed, in any form (`x.clamp_(min=0)` neither).
  zh: |
    实现 `relu(x)`：返回一个与 `x` 形状相同的张量，其中每个负数元素都换成 0，其余元素保持不变。
    保持 `x` 的 dtype 和设备，并且不要修改 `x`。

    请自己实现：不允许使用 `torch.relu`、`F.relu`、`nn.ReLU`、`clamp`（以及它的别名 `clip`）
    和 `clamp_min`，任何写法都不行（`x.clamp_(min=0)` 也不行）。
hints:
  - en: "A comparison such as `x > 0` gives a boolean mask of the same shape as `x`."
    zh: "像 `x > 0` 这样的比较会得到一个与 `x` 形状相同的布尔掩码。"
  - en: "`torch.where(x > 0, x, torch.zeros_like(x))` keeps x where the mask is True and 0 elsewhere."
    zh: "`torch.where(x > 0, x, torch.zeros_like(x))` 在掩码为 True 的位置保留 x，其余位置为 0。"
functions:
  - name: relu
    signature: "relu(x: Tensor) -> Tensor"
    summary:
      en: "x with its negative elements replaced by 0"
      zh: "把 x 中的负数元素换成 0"
devices: [cpu, cuda]
forbidden:
  - name: [relu, clamp, clamp_min]
    functions: [relu]
    why:
      en: "This exercise is about building the result from a mask yourself."
      zh: "本练习要求你自己用掩码构造结果。"
tests:
  - name: test_relu_values
    points: 3
    functions: [relu]
    description:
      en: "relu replaces the negative elements by 0 and keeps the others, for several shapes and a transposed x, leaving x unchanged"
      zh: "relu 把负数元素换成 0、保留其余元素，适用于多种形状和转置的 x，并且不修改 x"
  - name: test_relu_forbidden
    points: 2
    functions: [relu]
    input_check: false            # test_relu_values owns "x is left unchanged"
    description:
      en: "relu uses none of relu, clamp and clamp_min, in any form"
      zh: "relu 没有以任何形式使用 relu、clamp 和 clamp_min"
  - name: test_relu_keeps_dtype
    points: 1
    functions: [relu]
    input_check: false
    description:
      en: "relu keeps the dtype of x"
      zh: "relu 保持 x 的 dtype"
mutants:
  - file: mutants/torch_relu.py
    description: "torch.relu(x)"
    must_fail: [test_relu_forbidden]
    diagnosis: forbidden-api
  - file: mutants/clamp_in_place.py
    description: "x.clone().clamp_(min=0): an in-place form of a forbidden name"
    must_fail: [test_relu_forbidden]
    diagnosis: forbidden-api
  - file: mutants/absolute_value.py
    description: "x.abs(): negative elements flipped instead of zeroed"
    must_fail: [test_relu_values]
  - file: mutants/zeroes_x.py
    description: "x[x < 0] = 0: the caller's tensor is changed"
    must_fail: [test_relu_values]
    diagnosis: input-mutated
  - file: mutants/float32_always.py
    description: "returns float32 whatever the dtype of x"
    must_fail: [test_relu_keeps_dtype]
alternatives:
  - file: alternatives/where.py
    description: "torch.where with a mask"
  - file: alternatives/mask_product.py
    description: "x times its own positivity mask"
  - file: alternatives/half_sum.py
    description: "(x + |x|) / 2"
requirements:
  - id: zeroes-negatives
    text: "relu(x) replaces the negative elements by 0 and keeps the others"
    tests: [test_relu_values]
    mutants: [mutants/absolute_value.py]
  - id: leaves-input
    text: "x itself is left unchanged"
    tests: [test_relu_values]
    mutants: [mutants/zeroes_x.py]
  - id: by-hand
    text: "relu, clamp and clamp_min are not used"
    tests: [test_relu_forbidden]
    mutants: [mutants/torch_relu.py, mutants/clamp_in_place.py]
  - id: keeps-dtype
    text: "the result has the dtype of x"
    tests: [test_relu_keeps_dtype]
    mutants: [mutants/float32_always.py]
""",
    "exercises/{id}/{id}.py": '''\
"""{id} - ReLU by hand. Run `grade {id}` to check your work."""

import torch


def relu(x: torch.Tensor) -> torch.Tensor:
    """x with its negative elements replaced by 0 (x itself is left unchanged)."""
    # TODO: without relu, clamp or clamp_min
    raise NotImplementedError
''',
    "exercises/{id}/tests.py": '''\
"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_dtype, assert_not_forbidden, expect_tensor

SHAPES = [(5,), (3, 4), (2, 1, 6)]


def test_relu_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        what = Text(f"relu(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 relu(x)")
        assert_close(learner.relu(x), reference.relu(x), what)
    x = torch.randn(4, 3, generator=rng).to(device).t()
    what = Text("relu(x) for a transposed x", "x 为转置视图时的 relu(x)")
    assert_close(learner.relu(x), reference.relu(x), what)


def test_relu_forbidden(learner, exercise, learner_source, device, rng):
    # The source (every spelling, helpers included) and the call's trace.
    learner.call("relu", torch.randn(4, 4, generator=rng).to(device), trace=True)
    assert_not_forbidden(exercise, "relu", learner_source, learner.last)


def test_relu_keeps_dtype(learner, device):
    # Only the dtype: wrong values cost test_relu_values alone.
    for dtype in (torch.float64, torch.float16):
        x = torch.linspace(-1, 1, 6, dtype=dtype).to(device)
        what = Text(f"relu(x) for a {dtype} x", f"x 为 {dtype} 时的 relu(x)")
        assert_dtype(expect_tensor(learner.relu(x), what), dtype, what)
''',
    "solutions/{id}/{id}.py": '''\
"""{id} - reference solution."""

import torch


def relu(x: torch.Tensor) -> torch.Tensor:
    return torch.where(x > 0, x, torch.zeros_like(x))
''',
    "exercises/{id}/mutants/torch_relu.py": "import torch\n\n\ndef relu(x):\n    return torch.relu(x)\n",
    "exercises/{id}/mutants/clamp_in_place.py": "def relu(x):\n    return x.clone().clamp_(min=0)\n",
    "exercises/{id}/mutants/absolute_value.py": "def relu(x):\n    return x.abs()\n",
    "exercises/{id}/mutants/zeroes_x.py": "def relu(x):\n    x[x < 0] = 0\n    return x\n",
    "exercises/{id}/mutants/float32_always.py": "import torch\n\n\ndef relu(x):\n    return torch.where(x > 0, x, torch.zeros_like(x)).float()\n",
    "exercises/{id}/alternatives/where.py": "import torch\n\n\ndef relu(x):\n    return torch.where(x < 0, torch.zeros_like(x), x)\n",
    "exercises/{id}/alternatives/mask_product.py": "def relu(x):\n    return x * (x > 0)\n",
    "exercises/{id}/alternatives/half_sum.py": "def relu(x):\n    return (x + x.abs()) / 2\n",
}
