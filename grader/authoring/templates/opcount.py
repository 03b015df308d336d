"""Template ``opcount``: ``row_norms(x)`` without Python loops.

The pattern: "no Python loops" means the number of tensor operations does not grow with the
input. ``assert_op_growth`` compares traced calls that differ in one named size only (here
``n`` and ``d``, each at two sizes), and ``assert_no_loops`` is the static backstop (a loop,
comprehension, ``map`` or recursion anywhere the function reaches).
"""

DESCRIPTION = (
    "row_norms(x) without Python loops: op counts over named sizes, and the static backstop"
)

FILES = {
    "exercises/{id}/exercise.yaml": """\
format_version: 1
id: {id}
slug: {slug}
kind: implement
title:
  en: "Row norms without loops"
  zh: "不用循环计算每行的范数"
concepts: [reductions, vectorization]
learner_file: {id}.py
instructions:
  en: |
    Implement `row_norms(x)`: for a tensor `x` of shape (n, d), the Euclidean norm of each row,
    `sqrt(x[i, 0]**2 + ... + x[i, d-1]**2)`, as a tensor of shape (n,). Keep the dtype and the
    device of `x`, and do not modify `x`.

    No Python loops: the number of tensor operations must not grow with n or d.
  zh: |
    实现 `row_norms(x)`：对形状为 (n, d) 的张量 `x`，计算每一行的欧几里得范数
    `sqrt(x[i, 0]**2 + ... + x[i, d-1]**2)`，返回形状为 (n,) 的张量。保持 `x` 的 dtype 和设备，
    并且不要修改 `x`。

    不要使用 Python 循环：张量运算的次数不能随 n 或 d 增长。
hints:
  - en: "Square every element at once, then sum along the right dim."
    zh: "一次性把所有元素平方，再沿正确的维度求和。"
  - en: "`(x * x).sum(dim=1).sqrt()` is three operations whatever the size of x."
    zh: "无论 x 多大，`(x * x).sum(dim=1).sqrt()` 都只有三次运算。"
functions:
  - name: row_norms
    signature: "row_norms(x: Tensor) -> Tensor"
    summary:
      en: "(n, d) -> (n,): the Euclidean norm of each row"
      zh: "(n, d) -> (n,)：每一行的欧几里得范数"
devices: [cpu, cuda]
tests:
  - name: test_row_norms_values
    points: 3
    functions: [row_norms]
    description:
      en: "row_norms gives the norm of each row, for several shapes and a transposed x, leaving x unchanged"
      zh: "row_norms 给出每一行的范数，适用于多种形状和转置的 x，并且不修改 x"
  - name: test_row_norms_no_loops
    points: 2
    functions: [row_norms]
    input_check: false            # test_row_norms_values owns "x is left unchanged"
    description:
      en: "row_norms performs as many tensor operations for a large x as for a small one, and its code has no Python loop"
      zh: "row_norms 对大的 x 和小的 x 执行的张量运算次数相同，代码中也没有 Python 循环"
mutants:
  - file: mutants/loop_over_rows.py
    description: "a comprehension over the rows"
    must_fail: [test_row_norms_no_loops]
    diagnosis: python-loop
  - file: mutants/loop_over_columns.py
    description: "a for loop over the columns"
    must_fail: [test_row_norms_no_loops]
    diagnosis: python-loop
  - file: mutants/no_sqrt.py
    description: "the squared norms"
    must_fail: [test_row_norms_values]
  - file: mutants/squares_in_place.py
    description: "x.pow_(2): the caller's tensor is changed"
    must_fail: [test_row_norms_values]
    diagnosis: input-mutated
alternatives:
  - file: alternatives/vector_norm.py
    description: "torch.linalg.vector_norm along dim=1"
  - file: alternatives/einsum.py
    description: "einsum of x with itself"
requirements:
  - id: row-norms
    text: "row_norms(x) is the Euclidean norm of each row, shape (n,)"
    tests: [test_row_norms_values]
    mutants: [mutants/no_sqrt.py]
  - id: leaves-input
    text: "x itself is left unchanged"
    tests: [test_row_norms_values]
    mutants: [mutants/squares_in_place.py]
  - id: no-loops
    text: "no Python loops: the number of operations does not grow with n or d"
    tests: [test_row_norms_no_loops]
    mutants: [mutants/loop_over_rows.py, mutants/loop_over_columns.py]
""",
    "exercises/{id}/{id}.py": '''\
"""{id} - Row norms without loops. Run `grade {id}` to check your work."""

import torch


def row_norms(x: torch.Tensor) -> torch.Tensor:
    """(n, d) -> (n,): the Euclidean norm of each row, without Python loops."""
    # TODO
    raise NotImplementedError
''',
    "exercises/{id}/tests.py": '''\
"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_no_loops, assert_op_growth

SHAPES = [(1, 3), (4, 4), (6, 2)]


def test_row_norms_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        what = Text(f"row_norms(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 row_norms(x)")
        assert_close(learner.row_norms(x), reference.row_norms(x), what)
    x = torch.randn(5, 3, generator=rng).to(device).t()
    what = Text("row_norms(x) for a transposed x", "x 为转置视图时的 row_norms(x)")
    assert_close(learner.row_norms(x), reference.row_norms(x), what)


def test_row_norms_no_loops(learner, learner_source, device, rng):
    # Calls that differ in one named size only are compared: n grows in one, d in the other.
    records = {}
    for n, d in ((4, 3), (64, 3), (4, 48)):
        learner.call("row_norms", torch.randn(n, d, generator=rng).to(device), trace=True)
        records[f"n={n}, d={d}"] = learner.last
    assert_op_growth(records, None, "row_norms(x)")
    assert_no_loops(learner_source, "row_norms")
''',
    "solutions/{id}/{id}.py": '''\
"""{id} - reference solution."""

import torch


def row_norms(x: torch.Tensor) -> torch.Tensor:
    return (x * x).sum(dim=1).sqrt()
''',
    "exercises/{id}/mutants/loop_over_rows.py": "import torch\n\n\ndef row_norms(x):\n    return torch.stack([(row * row).sum().sqrt() for row in x])\n",
    "exercises/{id}/mutants/loop_over_columns.py": "import torch\n\n\ndef row_norms(x):\n    total = torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)\n    for j in range(x.shape[1]):\n        total = total + x[:, j] * x[:, j]\n    return total.sqrt()\n",
    "exercises/{id}/mutants/no_sqrt.py": "def row_norms(x):\n    return (x * x).sum(dim=1)\n",
    "exercises/{id}/mutants/squares_in_place.py": "def row_norms(x):\n    return x.pow_(2).sum(dim=1).sqrt()\n",
    "exercises/{id}/alternatives/vector_norm.py": "import torch\n\n\ndef row_norms(x):\n    return torch.linalg.vector_norm(x, dim=1)\n",
    "exercises/{id}/alternatives/einsum.py": "import torch\n\n\ndef row_norms(x):\n    return torch.einsum('ij,ij->i', x, x).sqrt()\n",
}
