"""Template ``mistakes``: ``standardize(x)``, whose test replays the classic mistakes.

The pattern: when the learner's answer differs from the reference, the test computes the
answers of the classic mistakes on the same input (here: the statistics of the whole tensor, of
the rows, the population std) and, when one matches, names that mistake with its own evidence
tag, so the diagnosis names the misconception instead of "the values differ".
"""

DESCRIPTION = "standardize(x): replay the classic mistakes on the same input and name the one made"

FILES = {
    "exercises/{id}/exercise.yaml": """\
format_version: 1
id: {id}
slug: {slug}
kind: implement
title:
  en: "Standardizing columns"
  zh: "按列标准化"
concepts: [reductions, dim, broadcasting]
learner_file: {id}.py
instructions:
  en: |
    Implement `standardize(x)`: for a tensor `x` of shape (n, d) (n >= 2, no constant column),
    subtract from each column its mean and divide it by its standard deviation, as `torch.std`
    computes it by default (the sample standard deviation, dividing by n - 1). The result has the
    shape, the dtype and the device of `x`; do not modify `x`.
  zh: |
    实现 `standardize(x)`：对形状为 (n, d) 的张量 `x`（n >= 2，没有常数列），让每一列减去该列的均值，
    再除以该列的标准差，标准差按 `torch.std` 的默认方式计算（样本标准差，除以 n - 1）。结果与 `x`
    的形状、dtype 和设备相同；不要修改 `x`。
hints:
  - en: "A column's statistics reduce over the rows: `dim=0`."
    zh: "一列的统计量是沿着行方向归约得到的：`dim=0`。"
  - en: "`(x - x.mean(dim=0)) / x.std(dim=0)`: the (d,) statistics broadcast over the rows."
    zh: "`(x - x.mean(dim=0)) / x.std(dim=0)`：形状为 (d,) 的统计量会沿行广播。"
functions:
  - name: standardize
    signature: "standardize(x: Tensor) -> Tensor"
    summary:
      en: "(n, d) -> (n, d): each column minus its mean, divided by its standard deviation"
      zh: "(n, d) -> (n, d)：每一列减去均值后除以标准差"
devices: [cpu, cuda]
tests:
  - name: test_standardize_values
    points: 4
    functions: [standardize]
    description:
      en: "standardize centres each column and divides it by its sample standard deviation, for several shapes and a transposed x, leaving x unchanged"
      zh: "standardize 把每一列居中并除以该列的样本标准差，适用于多种形状和转置的 x，并且不修改 x"
  - name: test_standardize_keeps_dtype
    points: 1
    functions: [standardize]
    input_check: false            # the values test owns "x is left unchanged"
    description:
      en: "standardize keeps the dtype of x (float64)"
      zh: "standardize 保持 x 的 dtype（float64）"
mutants:
  - file: mutants/whole_tensor.py
    description: "the mean and std of the whole tensor"
    must_fail: [test_standardize_values]
    diagnosis: reduction-wrong-dim
  - file: mutants/rows.py
    description: "the statistics of each row (dim=1)"
    must_fail: [test_standardize_values]
    diagnosis: reduction-wrong-dim
  - file: mutants/population_std.py
    description: "std(unbiased=False): divides by n"
    must_fail: [test_standardize_values]
    diagnosis: population-std
  - file: mutants/in_place.py
    description: "x -= ...; x /= ...: the caller's tensor is changed"
    must_fail: [test_standardize_values]
    diagnosis: input-mutated
  - file: mutants/float32_always.py
    description: "x.float() first"
    must_fail: [test_standardize_keeps_dtype]
alternatives:
  - file: alternatives/std_mean.py
    description: "torch.std_mean along dim=0"
  - file: alternatives/by_hand.py
    description: "sums and n - 1 written out"
requirements:
  - id: standardizes-columns
    text: "each column minus its mean, divided by its sample standard deviation"
    tests: [test_standardize_values]
    mutants: [mutants/whole_tensor.py, mutants/rows.py, mutants/population_std.py]
  - id: leaves-input
    text: "x itself is left unchanged"
    tests: [test_standardize_values]
    mutants: [mutants/in_place.py]
  - id: keeps-dtype
    text: "the result has the dtype of x"
    tests: [test_standardize_keeps_dtype]
    mutants: [mutants/float32_always.py]
""",
    "exercises/{id}/{id}.py": '''\
"""{id} - Standardizing columns. Run `grade {id}` to check your work."""

import torch


def standardize(x: torch.Tensor) -> torch.Tensor:
    """(n, d) -> (n, d): each column minus its mean, divided by its (sample) std."""
    # TODO
    raise NotImplementedError
''',
    "exercises/{id}/tests.py": '''\
"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_dtype, expect_tensor, fail, names

SHAPES = [(4, 3), (5, 2), (3, 3)]

# The classic mistakes, replayed on the learner's input: (answer, English, Chinese, evidence).
MISTAKES = [
    (
        lambda x: (x - x.mean()) / x.std(),
        "it used the mean and the std of the whole tensor; each column has its own (dim=0).",
        "它用的是整个张量的均值和标准差；每一列都有自己的统计量（dim=0）。",
        "reduced_all_dims",
    ),
    (
        lambda x: (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True),
        "it standardized each row (dim=1); the columns are the features here (dim=0).",
        "它对每一行做了标准化（dim=1）；这里的特征是列（dim=0）。",
        "reduced_wrong_dim",
    ),
    (
        lambda x: (x - x.mean(dim=0)) / x.std(dim=0, correction=0),
        "it divided by the population std (over n); torch.std's default divides by n - 1.",
        "它除以的是总体标准差（除以 n）；torch.std 默认除以 n - 1。",
        "biased_std",
    ),
]


def _name_the_mistake(got, x, what):
    """When the answer is one of the classic mistakes' answers on this x, say which."""
    if not isinstance(got, torch.Tensor) or got.shape != x.shape:
        return  # the comparison below says what is wrong
    mine = got.detach().cpu().double()
    for answer, en, zh, tag in MISTAKES:
        if torch.allclose(mine, answer(x.detach().cpu().double()), rtol=1e-4, atol=1e-5):
            we, wz = names(what)
            fail(f"{we} is not right: {en}", f"{wz} 不对：{zh}", evidence=["values_differ", tag])


def test_standardize_values(learner, reference, device, rng):
    cases = [(shape, torch.randn(*shape, generator=rng)) for shape in SHAPES]
    cases.append(("transposed", torch.randn(3, 5, generator=rng).t()))
    for shape, x in cases:
        x = x.to(device)
        what = Text(f"standardize(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 standardize(x)")
        if shape == "transposed":
            what = Text("standardize(x) for a transposed x", "x 为转置视图时的 standardize(x)")
        got = expect_tensor(learner.standardize(x), what)
        want = reference.standardize(x)
        if not (got.shape == want.shape and torch.allclose(got.detach().cpu(), want.cpu(), rtol=1e-4, atol=1e-5)):
            _name_the_mistake(got, x, what)
        assert_close(got, want, what, rtol=1e-4, atol=1e-5)


def test_standardize_keeps_dtype(learner, rng):
    # Only the dtype: the values are the values test's.
    x = torch.randn(4, 3, generator=rng, dtype=torch.float64)
    what = Text("standardize(x) for a float64 x", "x 为 float64 时的 standardize(x)")
    assert_dtype(expect_tensor(learner.standardize(x), what), torch.float64, what)
''',
    "solutions/{id}/{id}.py": '''\
"""{id} - reference solution."""

import torch


def standardize(x: torch.Tensor) -> torch.Tensor:
    return (x - x.mean(dim=0)) / x.std(dim=0)
''',
    "exercises/{id}/mutants/whole_tensor.py": "def standardize(x):\n    return (x - x.mean()) / x.std()\n",
    "exercises/{id}/mutants/rows.py": "def standardize(x):\n    return (x - x.mean(dim=1, keepdim=True)) / x.std(dim=1, keepdim=True)\n",
    "exercises/{id}/mutants/population_std.py": "def standardize(x):\n    return (x - x.mean(dim=0)) / x.std(dim=0, unbiased=False)\n",
    "exercises/{id}/mutants/in_place.py": "def standardize(x):\n    mean, std = x.mean(dim=0), x.std(dim=0)\n    x -= mean\n    x /= std\n    return x\n",
    "exercises/{id}/mutants/float32_always.py": "def standardize(x):\n    x = x.float()\n    return (x - x.mean(dim=0)) / x.std(dim=0)\n",
    "exercises/{id}/alternatives/std_mean.py": "import torch\n\n\ndef standardize(x):\n    std, mean = torch.std_mean(x, dim=0)\n    return (x - mean) / std\n",
    "exercises/{id}/alternatives/by_hand.py": "def standardize(x):\n    n = x.shape[0]\n    centred = x - x.sum(dim=0) / n\n    return centred / ((centred * centred).sum(dim=0) / (n - 1)).sqrt()\n",
}
