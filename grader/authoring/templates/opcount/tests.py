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
