"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_dtype, expect_tensor

SHAPES = [(3,), (2, 4), (1, 1, 5)]


def test_scale_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        what = Text(
            f"scale(x, 2.5) for x of shape {shape}", f"x 的形状为 {shape} 时的 scale(x, 2.5)"
        )
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
