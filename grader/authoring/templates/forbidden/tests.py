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
