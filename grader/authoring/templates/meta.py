"""Template ``meta``: ``add_positions(x)``, whose device is checked on any machine.

The pattern: a test listed for ``devices: [cuda, meta]`` runs on the meta device wherever there
is no GPU. Meta tensors have a device but no data, so a tensor made on the CPU next to them
fails as it would next to CUDA inputs; ``on_meta`` runs the call and names a copy of meta data
to another device, and the test judges the device alone.
"""

DESCRIPTION = (
    "add_positions(x): the meta device stands in for a GPU, so device slips fail on any machine"
)

FILES = {
    "exercises/{id}/exercise.yaml": """\
format_version: 1
id: {id}
slug: {slug}
kind: implement
title:
  en: "Adding positions on the right device"
  zh: "在正确的设备上加上位置编号"
concepts: [devices, broadcasting]
learner_file: {id}.py
instructions:
  en: |
    Implement `add_positions(x)`: for a tensor `x` of shape (n, d), return `x` plus the column
    index of every element: `result[i, j] = x[i, j] + j`. The result has the dtype and the
    device of `x` (CPU or GPU: never assume one); do not modify `x`.
  zh: |
    实现 `add_positions(x)`：对形状为 (n, d) 的张量 `x`，返回 `x` 加上每个元素所在的列号：
    `result[i, j] = x[i, j] + j`。结果与 `x` 的 dtype 和设备相同（可能是 CPU，也可能是 GPU：
    不要假定是哪一个）；不要修改 `x`。
hints:
  - en: "`torch.arange(d)` gives 0, 1, ..., d - 1; broadcasting adds it to every row."
    zh: "`torch.arange(d)` 给出 0, 1, ..., d - 1；广播会把它加到每一行上。"
  - en: "New tensors are created on the CPU unless you say otherwise: `torch.arange(d, device=x.device, dtype=x.dtype)`."
    zh: "除非另外指定，新张量都创建在 CPU 上：请写 `torch.arange(d, device=x.device, dtype=x.dtype)`。"
functions:
  - name: add_positions
    signature: "add_positions(x: Tensor) -> Tensor"
    summary:
      en: "(n, d) -> (n, d): x plus the column index of every element"
      zh: "(n, d) -> (n, d)：x 加上每个元素的列号"
devices: [cpu, cuda]
tests:
  - name: test_add_positions_values
    points: 3
    functions: [add_positions]
    description:
      en: "add_positions adds the column index to every element, for several shapes and a transposed x, leaving x unchanged"
      zh: "add_positions 给每个元素加上它的列号，适用于多种形状和转置的 x，并且不修改 x"
  - name: test_add_positions_device
    points: 2
    functions: [add_positions]
    devices: [cuda, meta]         # meta stands in for a GPU on any machine
    input_check: false            # the values test owns "x is left unchanged"
    description:
      en: "add_positions returns its result on the device of x (checked with meta tensors, which stand in for a GPU)"
      zh: "add_positions 的结果位于 x 所在的设备上（用代替 GPU 的 meta 张量检查）"
  - name: test_add_positions_keeps_dtype
    points: 1
    functions: [add_positions]
    input_check: false
    description:
      en: "add_positions keeps the dtype of x (float64)"
      zh: "add_positions 保持 x 的 dtype（float64）"
mutants:
  - file: mutants/positions_on_cpu.py
    description: "torch.arange(d) without device=: made on the CPU"
    must_fail: [test_add_positions_device]
    diagnosis: device-mismatch
  - file: mutants/row_positions.py
    description: "adds the row index instead"
    must_fail: [test_add_positions_values]
  - file: mutants/adds_in_place.py
    description: "x += ...: the caller's tensor is changed"
    must_fail: [test_add_positions_values]
    diagnosis: input-mutated
  - file: mutants/float32_always.py
    description: "x.float() first: float32 whatever the dtype of x"
    must_fail: [test_add_positions_keeps_dtype]
alternatives:
  - file: alternatives/arange_then_to.py
    description: "arange on the device, then .to(x.dtype)"
  - file: alternatives/cumsum_of_ones.py
    description: "ones_like(x).cumsum(dim=1) - 1"
requirements:
  - id: adds-columns
    text: "add_positions(x)[i, j] is x[i, j] + j"
    tests: [test_add_positions_values]
    mutants: [mutants/row_positions.py]
  - id: leaves-input
    text: "x itself is left unchanged"
    tests: [test_add_positions_values]
    mutants: [mutants/adds_in_place.py]
  - id: on-input-device
    text: "the result is on the device of x"
    tests: [test_add_positions_device]
    mutants: [mutants/positions_on_cpu.py]
  - id: keeps-dtype
    text: "the result has the dtype of x"
    tests: [test_add_positions_keeps_dtype]
    mutants: [mutants/float32_always.py]
""",
    "exercises/{id}/{id}.py": '''\
"""{id} - Adding positions on the right device. Run `grade {id}` to check your work."""

import torch


def add_positions(x: torch.Tensor) -> torch.Tensor:
    """(n, d) -> (n, d): x[i, j] + j, on the device and with the dtype of x."""
    # TODO
    raise NotImplementedError
''',
    "exercises/{id}/tests.py": '''\
"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_device, assert_dtype, expect_tensor, on_meta

SHAPES = [(1, 5), (3, 3), (4, 2)]


def test_add_positions_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        what = Text(f"add_positions(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 add_positions(x)")
        assert_close(learner.add_positions(x), reference.add_positions(x), what)
    x = torch.randn(4, 3, generator=rng).to(device).t()
    what = Text("add_positions(x) for a transposed x", "x 为转置视图时的 add_positions(x)")
    assert_close(learner.add_positions(x), reference.add_positions(x), what)


def test_add_positions_device(learner, device, rng):
    # Only the device. On meta (no data), on_meta names code that copies the data elsewhere.
    x = torch.randn(3, 4, generator=rng).to(device)
    what = Text(f"add_positions(x) for x on {device}", f"x 位于 {device} 时的 add_positions(x)")
    if device == "meta":
        got = on_meta(learner, "add_positions", (x,), what)
    else:
        got = learner.add_positions(x)
    assert_device(expect_tensor(got, what), device, what)


def test_add_positions_keeps_dtype(learner, rng):
    # Only the dtype: the values are the values test's.
    x = torch.randn(2, 3, generator=rng, dtype=torch.float64)
    what = Text("add_positions(x) for a float64 x", "x 为 float64 时的 add_positions(x)")
    assert_dtype(expect_tensor(learner.add_positions(x), what), torch.float64, what)
''',
    "solutions/{id}/{id}.py": '''\
"""{id} - reference solution."""

import torch


def add_positions(x: torch.Tensor) -> torch.Tensor:
    return x + torch.arange(x.shape[1], device=x.device, dtype=x.dtype)
''',
    "exercises/{id}/mutants/positions_on_cpu.py": "import torch\n\n\ndef add_positions(x):\n    return x + torch.arange(x.shape[1], dtype=x.dtype)\n",
    "exercises/{id}/mutants/row_positions.py": "import torch\n\n\ndef add_positions(x):\n    return x + torch.arange(x.shape[0], device=x.device, dtype=x.dtype)[:, None]\n",
    "exercises/{id}/mutants/adds_in_place.py": "import torch\n\n\ndef add_positions(x):\n    x += torch.arange(x.shape[1], device=x.device, dtype=x.dtype)\n    return x\n",
    "exercises/{id}/mutants/float32_always.py": "import torch\n\n\ndef add_positions(x):\n    return x.float() + torch.arange(x.shape[1], device=x.device)\n",
    "exercises/{id}/alternatives/arange_then_to.py": "import torch\n\n\ndef add_positions(x):\n    return x + torch.arange(x.shape[1], device=x.device).to(x.dtype)\n",
    "exercises/{id}/alternatives/cumsum_of_ones.py": "import torch\n\n\ndef add_positions(x):\n    return x + (torch.ones_like(x).cumsum(dim=1) - 1)\n",
}
