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
    cases: list[tuple[object, torch.Tensor]] = [
        (shape, torch.randn(*shape, generator=rng)) for shape in SHAPES
    ]
    cases.append(("transposed", torch.randn(3, 5, generator=rng).t()))
    for shape, x in cases:
        x = x.to(device)
        what = Text(
            f"standardize(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 standardize(x)"
        )
        if shape == "transposed":
            what = Text("standardize(x) for a transposed x", "x 为转置视图时的 standardize(x)")
        got = expect_tensor(learner.standardize(x), what)
        want = reference.standardize(x)
        if not (
            got.shape == want.shape
            and torch.allclose(got.detach().cpu(), want.cpu(), rtol=1e-4, atol=1e-5)
        ):
            _name_the_mistake(got, x, what)
        assert_close(got, want, what, rtol=1e-4, atol=1e-5)


def test_standardize_keeps_dtype(learner, rng):
    # Only the dtype: the values are the values test's.
    x = torch.randn(4, 3, generator=rng, dtype=torch.float64)
    what = Text("standardize(x) for a float64 x", "x 为 float64 时的 standardize(x)")
    assert_dtype(expect_tensor(learner.standardize(x), what), torch.float64, what)
