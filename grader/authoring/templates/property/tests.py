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
        what = Text(
            f"normalize_rows(x) for x of shape {shape}",
            f"x 的形状为 {shape} 时的 normalize_rows(x)",
        )
        assert_close(learner.normalize_rows(x), reference.normalize_rows(x), what)
    x = (torch.rand(5, 3, generator=rng) + 0.1).to(device).t()
    what = Text("normalize_rows(x) for a transposed x", "x 为转置视图时的 normalize_rows(x)")
    assert_close(learner.normalize_rows(x), reference.normalize_rows(x), what)


# No `device` parameter: a property runs once, on the CPU. Hypothesis draws the sizes and a
# seed for the values; a failure is shrunk to the smallest input before the learner sees it.
@settings(parent=PROPERTY, max_examples=20)
@given(
    n=st.integers(1, 4),
    d=st.integers(1, 5),
    scale=st.integers(2, 8),
    data_seed=st.integers(0, 2**16),
)
def test_normalize_rows_property(learner, n, d, scale, data_seed):
    values = torch.randint(1, 9, (n, d), generator=torch.Generator().manual_seed(data_seed))
    x = values / 4.0
    what = Text(
        f"normalize_rows(x) for x of shape ({n}, {d})",
        f"x 的形状为 ({n}, {d}) 时的 normalize_rows(x)",
    )
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
