"""Relations between a wrong answer and the expected one (grader.testing.relations), and the
checks that say them: each names its tag and says the relation, and only when it holds."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import relations
from grader.testing.checks import CheckFailed, assert_close, assert_shape, assert_shape_of


@pytest.fixture(autouse=True)
def _fresh_inputs():
    relations.forget()
    yield
    relations.forget()


def _tensor(seed: int, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)


sizes = st.integers(min_value=2, max_value=7)
seeds = st.integers(min_value=0, max_value=10_000)


@settings(max_examples=40, deadline=None)
@given(seeds, sizes, sizes)
def test_a_transposed_answer_is_named(seed, n, m):
    want = _tensor(seed, n, m)
    found = relations.relate(want.t().contiguous(), want)
    assert found is not None and found.tag == "answer_transposed"
    assert "transposed" in found.en and "转置" in found.zh


@settings(max_examples=40, deadline=None)
@given(seeds, sizes)
def test_the_diagonal_of_a_pairwise_answer_is_named(seed, n):
    want = _tensor(seed, n, n)
    found = relations.relate(want.diagonal().clone(), want)
    assert found is not None and found.tag == "answer_diagonal"


@settings(max_examples=40, deadline=None)
@given(seeds, sizes, sizes)
def test_a_reduction_over_another_dim_or_keepdim_is_named(seed, n, d):
    x = _tensor(seed, n, d)
    relations.remember((x,))
    found = relations.relate(x.mean(dim=1), x.mean(dim=0))
    if n == d:  # same shape: the values still tell the dims apart
        assert found is not None and found.tag == "reduced_wrong_dim"
    else:
        assert found is not None and found.tag == "reduced_wrong_dim"
    assert "x.mean(dim=1)" in found.en and "x.mean(dim=0)" in found.en
    kept = relations.relate(x.mean(dim=0, keepdim=True), x.mean(dim=0))
    assert kept is not None and kept.tag in ("keepdim_kept", "size_one_dims")


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(min_value=3, max_value=9), st.integers(min_value=2, max_value=5))
def test_an_answer_scaled_by_a_size_of_the_input_is_named(seed, n, d):
    x = _tensor(seed, n, d)
    relations.remember((x,))
    summed = relations.relate(x.sum(dim=0), x.mean(dim=0))
    assert summed is not None and summed.tag == "scaled_by_size"
    biased = relations.relate(x.std(dim=0, correction=0), x.std(dim=0))
    assert biased is not None and biased.tag == "scaled_by_size"


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(min_value=3, max_value=9))
def test_an_answer_shifted_by_one_is_named(seed, n):
    x = _tensor(seed, n)
    inclusive, exclusive = x.cumsum(0), x.cumsum(0) - x
    found = relations.relate(inclusive, exclusive)
    assert found is not None and found.tag == "shifted_by_one"
    idx = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    plus_one = relations.relate(idx + 1, idx)
    assert plus_one is not None and plus_one.tag == "shifted_by_one"


@settings(max_examples=60, deadline=None)
@given(seeds, sizes, st.integers(min_value=3, max_value=7), st.integers(0, 3), st.floats(-2, 2))
def test_a_constant_answer_is_never_a_shift_and_a_true_shift_still_is(seed, n, m, hot, fill):
    """A mostly-zero expected matrix (IoU of boxes that seldom overlap) matches an all-zero or
    constant answer at any offset: that is no evidence of a shift. A real shift of varied
    values along a dim is still named."""
    g = torch.Generator().manual_seed(seed)
    want = torch.zeros(n, m, dtype=torch.float64)
    for _ in range(hot):  # a few non-zero values, the rest 0
        want[torch.randint(n, (1,), generator=g), torch.randint(m, (1,), generator=g)] = 0.5
    for answer in (torch.zeros(n, m, dtype=torch.float64), torch.full((n, m), fill)):
        found = relations.relate(answer, want)
        assert found is None or found.tag != "shifted_by_one", (answer, want)
    one_off = want.clone()
    one_off[0, 0] = 0.25  # all but one value right: still not a shift
    found = relations.relate(want * 0, one_off)
    assert found is None or found.tag != "shifted_by_one"
    lone = torch.zeros(n, m, dtype=torch.float64)
    lone[0, -1] = 5.0  # one non-zero value one place early: too little to name a shift
    moved = torch.zeros(n, m, dtype=torch.float64)
    moved[0, -2] = 5.0
    found = relations.relate(moved, lone)
    assert found is None or found.tag != "shifted_by_one"
    varied = torch.randn(n, m, generator=g, dtype=torch.float64)
    later = torch.cat([torch.zeros(n, 1, dtype=torch.float64), varied[:, :-1]], dim=1)
    found = relations.relate(later, varied)
    assert found is not None and found.tag == "shifted_by_one"
    lengths = torch.randint(0, m, (n,), generator=g)
    lengths[:2] = torch.tensor([2, 0])  # a row whose boundary moves, an empty one
    positions = torch.arange(m)
    found = relations.relate(positions <= lengths[:, None], positions < lengths[:, None])
    assert found is not None and found.tag == "shifted_by_one"  # <= for <: a mask one too long


def test_an_iou_answer_with_one_value_lost_is_not_a_shift():
    """exercise-07 with .clamp(max=0): 1 of 15 values differs, the rest are the expected 0s."""
    want = torch.zeros(5, 3, dtype=torch.float64)
    want[2, 0] = 0.246038
    assert relations.relate(torch.zeros(5, 3, dtype=torch.float64), want) is None


@settings(max_examples=60, deadline=None)
@given(seeds, sizes, sizes)
def test_unrelated_answers_get_no_relation(seed, n, m):
    """A coincidence must not name a mistake: random answers are related to nothing."""
    x = _tensor(seed, n, m)
    relations.remember((x,))
    assert relations.relate(_tensor(seed + 1, n, m), _tensor(seed + 2, n, m)) is None
    assert relations.relate(_tensor(seed + 3, m, n), _tensor(seed + 4, n, m)) is None


def test_symmetric_and_single_values_say_nothing():
    s = _tensor(0, 4, 4)
    s = s + s.t()
    assert (
        relations.relate(s + 1, s) is None or relations.relate(s + 1, s).tag != "answer_transposed"
    )
    relations.remember((_tensor(1, 3, 3),))
    one = torch.tensor([1.0], dtype=torch.float64)
    assert relations.reduced_shape(one, (1, 1)) is None


def test_assert_close_says_the_relation_and_adds_its_tag():
    x = _tensor(5, 4, 3)
    relations.remember((x,))
    with pytest.raises(CheckFailed) as caught:
        assert_close(x.mean(dim=1), x.mean(dim=0), "column_means(x)")
    assert caught.value.evidence[-1] == "reduced_wrong_dim"
    assert "x.mean(dim=1)" in caught.value.message.en
    assert "x.mean(dim=1)" in caught.value.message.zh
    want = _tensor(6, 3, 5)
    with pytest.raises(CheckFailed) as caught:
        assert_close(want.t().contiguous(), want, "f(x)")
    assert "answer_transposed" in caught.value.evidence
    assert "transposed" in caught.value.message.en


def test_right_values_with_the_wrong_dtype_say_so():
    want = _tensor(7, 3, 2).float()
    with pytest.raises(CheckFailed) as caught:
        assert_close(want.double(), want, "f(x)")
    assert "Your values are right" in caught.value.message.en
    assert "wrong_dtype" in caught.value.evidence


def test_assert_shape_names_the_reduction_that_made_the_shape():
    x = _tensor(8, 50, 3)
    relations.remember((x,))
    with pytest.raises(CheckFailed) as caught:
        assert_shape(x.mean(dim=1, keepdim=True), (3,), "the mean")
    assert caught.value.evidence[-1] == "reduced_wrong_dim"
    assert "x.mean(dim=1, keepdim=True)" in caught.value.message.en


def test_a_nan_says_where_it_first_appears():
    want = torch.zeros(3, 4)
    got = want.clone()
    got[1, 2] = float("nan")
    got[2, 0] = float("nan")
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)")
    assert "NaN is at index [1, 2]" in caught.value.message.en


@pytest.mark.parametrize(
    ("message", "shapes", "tag"),
    [
        (
            "The size of tensor a (5) must match the size of tensor b (3) at non-singleton "
            "dimension 0",
            [(5, 4), (3, 4)],
            "answer_diagonal",
        ),
        (
            "Attempting to broadcast a dimension of length 3 at -2! Mismatching argument at "
            "index 1 had torch.Size([3, 2]); but expected shape should be broadcastable to [5, 2]",
            [(5, 4), (3, 4)],
            "answer_diagonal",
        ),
        # sizes that are not the two inputs' item counts: say nothing
        (
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
            "dimension 1",
            [(5, 4), (5, 3)],
            None,
        ),
        # the item counts, but where two pairwise (m, n) and (n, m) tables meet, one with its
        # axes swapped (area_a[None, :] + area_b[:, None] - inter): every item already met
        # every other, so "item i with item i" would point the wrong way
        (
            "The size of tensor a (4) must match the size of tensor b (3) at non-singleton "
            "dimension 1",
            [(4, 4), (3, 4)],
            None,
        ),
        (
            "Attempting to broadcast a dimension of length 4 at -1! Mismatching argument at "
            "index 1 had torch.Size([3, 4]); but expected shape should be broadcastable to [4, 3]",
            [(4, 4), (3, 4)],
            None,
        ),
    ],
)
def test_a_broadcast_error_between_two_item_counts_is_a_pairing(message, shapes, tag):
    relations.remember(tuple(torch.zeros(s, device="meta") for s in shapes))
    found = relations.paired_rows(message)
    assert (found.tag if found else None) == tag


def test_a_row_of_the_input_is_not_taken_for_a_reduction():
    """filter_boxes keeping one row, shaped (4,) for (1, 4): that row may also be each column's
    max, but a selection explains it as well, so no reduction is named."""
    boxes = torch.tensor(
        [[0.0, 0.0, 1.0, 1.0], [5.0, 6.0, 9.0, 9.5], [1.0, 2.0, 3.0, 4.0]], dtype=torch.float64
    )
    relations.remember((boxes,))
    assert relations.reduced_shape(boxes[1], (1, 4)) is None
    assert relations.relate(boxes[1], boxes[1:2]).tag == "size_one_dims"


def test_a_loss_curve_says_how_long_it_was_right_and_where_nan_first_appears():
    from grader.testing.training import compare_losses

    want = torch.tensor([1.0, 0.8, 0.6, 0.5, 0.4], dtype=torch.float64)
    got = torch.tensor([1.0, 0.8, 0.7, float("nan"), float("nan")], dtype=torch.float64)
    with pytest.raises(CheckFailed) as caught:
        compare_losses(got, want, "train(...)", per="step")
    assert "Your first 2 losses match the expected ones" in caught.value.message.en
    assert "The first NaN appears at the loss before step 3" in caught.value.message.en
    assert "前 2 个损失与期望一致" in caught.value.message.zh


def _curve_failure(got, want):
    from grader.testing.training import compare_losses

    with pytest.raises(CheckFailed) as caught:
        compare_losses(got, want, "train(...)", per="epoch")
    return caught.value


@settings(max_examples=60, deadline=None)
@given(seeds, st.integers(min_value=1, max_value=30), st.sampled_from([-1, 1]))
def test_a_loop_one_epoch_short_or_long_is_named_when_its_losses_are_the_expected_ones(
    seed, epochs, off
):
    """range(1, epochs) returns the first epochs - 1 losses, range(epochs + 1) one past the
    last: the curve itself shows it, so the count is named as an off-by-one loop."""
    want = torch.rand(epochs + 1, generator=torch.Generator().manual_seed(seed)).double()
    expected, got = (want, want[:-1]) if off < 0 else (want[:-1], want)
    failure = _curve_failure(got, expected)
    assert "loop_count_off_by_one" in failure.evidence
    assert ("too few" if off < 0 else "too many") in failure.message.en


@settings(max_examples=60, deadline=None)
@given(
    seeds,
    st.integers(min_value=1, max_value=30),
    st.integers(min_value=-3, max_value=3).filter(bool),
)
def test_a_count_that_is_not_a_loop_off_by_one_is_only_counted(seed, epochs, off):
    """Another count, an empty list, or one loss short but with other values: only the count
    is said (wrong_length), never a loop that ran once too few."""
    generator = torch.Generator().manual_seed(seed)
    want = torch.rand(epochs, generator=generator).double()
    n = max(epochs + off, 0)
    got = torch.rand(n, generator=generator).double() + 2.0  # never the expected values
    failure = _curve_failure(got, want)
    assert "wrong_length" in failure.evidence
    assert "loop_count_off_by_one" not in failure.evidence


def test_no_loss_for_one_epoch_is_not_named_a_loop_too_short():
    """An empty list where one loss was due shows no loss that was right: only counted."""
    failure = _curve_failure(torch.zeros(0).double(), torch.ones(1).double())
    assert failure.evidence == ("wrong_length",)


@settings(max_examples=40, deadline=None)
@given(seeds, st.integers(min_value=2, max_value=8), st.integers(min_value=2, max_value=8))
def test_a_wrong_coefficient_is_not_a_size(seed, n, m):
    """x * 3 where x * 2 was due is 1.5 times the answer, which is also 3/2 for an input of
    shape (2, 3): the answer is a multiple of the input, so no count is named."""
    x = _tensor(seed, n, m)
    relations.remember((x,))
    for wrong, right in ((3, 2), (m, n), (n, 1)):
        found = relations.relate(x * wrong, x * right)
        assert found is None or found.tag != "scaled_by_size"


def test_once_remembers_a_trusted_run_and_leaves_the_generator_as_a_run_would():
    """A reference run shared by a worker's submissions (grader.testing.once): the same value
    as a new run, a fresh copy each time, and torch's CPU generator left where the run left
    it; unhashable arguments and other modules without a key are never remembered."""
    import types

    import torch

    from grader.testing import once, training
    from grader.testing.proxy import LearnerProxy

    calls = []

    def scenario(module, seed, n):
        calls.append(seed)
        torch.manual_seed(seed)
        return {"x": torch.randn(n), "module": module.__name__}

    module = types.ModuleType("reference_probe")
    training._RUNS.clear()
    first = once(scenario, module, 7, 3)
    after_first = torch.rand(2)
    again = once(scenario, module, 7, 3)
    after_again = torch.rand(2)
    assert calls == [7]  # run once
    assert torch.equal(first["x"], again["x"]) and first["x"] is not again["x"]
    assert torch.equal(after_first, after_again)  # the generator as the run left it
    again["x"].add_(1)  # a test that changes its copy changes nobody else's
    assert torch.equal(once(scenario, module, 7, 3)["x"], first["x"])
    assert len(calls) == 1
    once(scenario, module, 8, 3)
    assert calls == [7, 8]  # other arguments, another run
    tensor_args = torch.ones(1)
    once(lambda m, t: t * 2, module, tensor_args)
    once(lambda m, t: t * 2, module, tensor_args)  # unhashable: not remembered (no error)
    with pytest.raises(TypeError):
        once(scenario, object(), 7, 3)  # another object needs key=
    with pytest.raises(TypeError):  # a learner's run is never shared with a classmate
        once(scenario, LearnerProxy.__new__(LearnerProxy), 7, 3, key="learner")
    other = once(lambda m, seed, n: scenario(module, seed, n), object(), 7, 3, key="other")
    assert torch.equal(other["x"], first["x"]) and len(calls) == 3
    training._RUNS.clear()


@settings(max_examples=60, deadline=None)
@given(seeds, sizes, sizes)
def test_every_row_indexed_with_every_index_is_named_and_a_broadcast_is_not(seed, n, m):
    """x[:, idx] for x[arange(n), idx]: (n, n) whose diagonal is the answer, varying both ways.
    The answer copied along a dim ((n, 1) broadcast against (n,)) is no such pairing."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, m, generator=g, dtype=torch.float64)
    idx = torch.randint(m, (n,), generator=g)
    idx[:2] = torch.tensor([0, m - 1])  # two rows with different columns at least
    want = x[torch.arange(n), idx]
    found = relations.relate(x[:, idx], want)
    assert found is not None and found.tag == "index_all_pairs"
    assert "diagonal" in found.en and "对角线" in found.zh
    for copied in (want[:, None].expand(n, n), want[None, :].expand(n, n)):
        found = relations.relate(copied.contiguous(), want)
        assert found is None or found.tag != "index_all_pairs"


def test_a_wrong_shape_check_with_the_expected_answer_names_all_pairs():
    x = torch.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0], [4.0, 6.0, 9.0]])
    idx = x.argmax(dim=1)
    with pytest.raises(CheckFailed) as failed:
        assert_shape_of(x[:, idx], x.amax(dim=1), "row_max(x)")
    assert "index_all_pairs" in failed.value.evidence
    assert "(3, 3)" in failed.value.message.en


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 9), min_size=3, max_size=7, unique=True), st.randoms())
def test_an_answer_that_fits_two_stories_is_named_neither(values, rnd):
    """A sorted answer is named sorted, unless it is also the expected answer shifted by one
    place ([1, 2, 0] sorted is [0, 1, 2], which is also [1, 2, 0] rolled): which of the two
    the learner did is not known, and a wrong story is worse than none."""
    rnd.shuffle(values)
    want = torch.tensor(values, dtype=torch.float64)
    mine = want.sort().values
    if torch.equal(mine, want):
        return
    found = relations.relate(mine, want)
    shift = relations._shifted(mine, want, 1e-4, 1e-5)
    if shift is not None:
        assert found is None, (values, found)
    else:
        assert found is not None and found.tag == "sorted_not_in_order", (values, found)


def test_a_sorted_answer_that_is_also_a_shift_is_named_neither():
    assert relations._shifted(torch.tensor([0.0, 1, 2]), torch.tensor([1.0, 2, 0]), 1e-4, 1e-5)
    assert relations.relate(torch.tensor([0.0, 1, 2]), torch.tensor([1.0, 2, 0])) is None
