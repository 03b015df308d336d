"""Hidden tests of {id}."""

import torch

from grader.testing import Text, assert_close, assert_device, assert_dtype, expect_tensor, on_meta

SHAPES = [(1, 5), (3, 3), (4, 2)]


def test_add_positions_values(learner, reference, device, rng):
    for shape in SHAPES:
        x = torch.randn(*shape, generator=rng).to(device)
        what = Text(
            f"add_positions(x) for x of shape {shape}", f"x 的形状为 {shape} 时的 add_positions(x)"
        )
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
