"""Hidden tests of exercise-04: gather and scatter.

Pitfalls from the seeds:
- the one-hot demo of 000 §9.4, torch.zeros(32, 10).scatter_(1, labels.unsqueeze(1), 1), makes
  its zeros on the CPU whatever the labels' device (000 §3.3): meta labels catch it on any
  machine, because scatter_ into a CPU tensor with a meta index silently returns a CPU tensor;
- scatter_ and gather want an index with as many dimensions as the tensor: labels (N,) must
  become (N, 1) (labels.unsqueeze(1)), and gather's result has the index's shape, (N, 1), until
  it is squeezed (000 §4.2);
- F.one_hot returns int64, while the one-hot targets of 000 §9.4 are float32 (000 §3.2), and
  without num_classes it counts classes up to the largest label present;
- gather along the wrong dimension, and scores[:, labels], which pairs every row with every label
  (an (N, N) matrix whose diagonal is the answer) (000 §4.2);
- "two nested loops ... gather does it in one line": no Python loops, checked by counting tensor
  operations at two sizes and by reading the source (000 §4.2, §9.1);
- pick is the heart of a loss (000 §4.2): its result keeps the autograd graph of scores.

On meta, learner calls go through a scenario: code that reads values (the seed's own advice,
`assert labels.max() < num_classes`, 000 §9.3) cannot run there and gets a skip, not a failure;
the reference answers for meta inputs come from CPU stand-ins (see grader.testing.reference_on).
"""

import pytest
import torch

from grader.testing import (
    assert_equal,
    assert_no_loops,
    assert_ops_constant,
    assert_requires_grad,
    call_on_meta,
    expect_tensor,
    fail,
    reference_on,
)


def _on(device):
    return "" if device == "cpu" else f", device={device!r}"


def _call(learner, device, name, *args):
    """learner.<name>(*args); on meta, skips the test case when the code needs the values."""
    if device != "meta":
        return getattr(learner, name)(*args)
    # Code that reads the values (.item(), a tensor in an if or an assert, as in `assert
    # labels.max() < num_classes`) cannot run on meta tensors: it comes back as data and skips
    # the case, because such code is not wrong. Unlike on_meta (exercises 07-09), a copy out of
    # meta is not turned into a device message here (catch_copies=False): it fails as the
    # learner's own exception. This exercise's device slip, scatter_ into zeros made on the
    # CPU, copies nothing: it returns a CPU tensor, which the comparison's device check names.
    answer = learner.run(call_on_meta, name, list(args), catch_copies=False, catch_reads=True)
    if "reads_values" in answer:
        pytest.skip(
            f"{name} reads the values of its inputs (.item() or a tensor in a condition), which "
            "meta tensors do not have, so this device check needs a GPU. "
            f"（{name} 读取了输入的数值（.item() 或在条件中使用张量），而 meta 张量没有数值，"
            "所以这项设备检查需要 GPU。）"
        )
    return answer["value"]


# ---------------------------------------------------------------------------------------------
# pick


# Runs first: the first traced call of a learner process imports torch._dynamo (about 1.5 s),
# which also makes the meta kernels of the later tests free.
def test_pick_no_python_loops(learner, reference, device, rng, learner_source):
    records, sizes = [], (4, 64)
    for n in sizes:
        scores, labels = _scores_and_labels(rng, n, 5, device)
        got = expect_tensor(
            learner.call("pick", scores, labels, trace=True), "pick(scores, labels)"
        )
        records.append(learner.last)
        want = reference.pick(scores, labels)
        what = f"pick(scores, labels) (scores.shape = ({n}, 5))"
        _explain_pick(got, scores, labels, want, what, what + " ")
        assert_equal(got, want, what)
    assert_ops_constant(records, sizes, "pick(scores, labels)")
    assert_no_loops(learner_source, "pick")


def _explain_pick(got, scores, labels, want, what_en, what_zh):
    """Name the classic wrong answers before the generic comparison."""
    n = labels.shape[0]
    if tuple(got.shape) == (n, n) and n > 1:
        fail(
            f"{what_en} should have shape ({n},), one value per row, but yours has shape ({n}, {n}): "
            "scores[:, labels] takes column labels[j] of every row i, for every pair (i, j). Pair "
            "each row with its own label: gather along dim 1, or scores[torch.arange(N), labels].",
            f"{what_zh.rstrip()}：结果的形状应为 ({n},)，每行一个值，但你的结果形状为 ({n}, {n})："
            "scores[:, labels] 会对每一对 (i, j) 取第 i 行的第 labels[j] 列。应该让每行只配它自己的标签："
            "沿 dim 1 使用 gather，或者 scores[torch.arange(N), labels]。",
            evidence=["wrong_shape", "broadcast_shape", "index_all_pairs"],
        )
    if tuple(got.shape) == (n, 1):
        fail(
            f"{what_en} should have shape ({n},), but yours has shape ({n}, 1): gather returns a "
            "tensor shaped like its index, so an (N, 1) index gives (N, 1). Remove that dimension "
            "with .squeeze(1).",
            f"{what_zh.rstrip()}：结果的形状应为 ({n},)，但你的结果形状为 ({n}, 1)：gather 返回的张量与索引形状相同，"
            "(N, 1) 的索引就得到 (N, 1) 的结果。请用 .squeeze(1) 去掉这个维度。",
            evidence=["wrong_shape", "size_one_dims", "gather_keeps_dim"],
        )
    if (
        got.device.type != "meta"
        and got.shape == want.shape
        and 0 < n <= scores.shape[1]
        and int(labels.max()) < n
    ):
        along_rows = scores.detach().cpu()[labels.cpu(), torch.arange(n)]  # scores[labels[i], i]
        yours = got.detach().cpu()
        if not torch.equal(want.detach().cpu(), yours) and torch.equal(along_rows, yours):
            fail(
                f"{what_en}: element i of yours is scores[labels[i], i] (gathered along dim 0, "
                "down the columns); it should be scores[i, labels[i]]: gather along dim 1, the "
                "dimension the labels index.",
                f"{what_zh.rstrip()}：你的结果第 i 个元素是 scores[labels[i], i]（沿 dim 0，即顺着列取值）；"
                "它应该是 scores[i, labels[i]]：请沿 dim 1（标签所索引的维度）使用 gather。",
                evidence=["values_differ", "gather_wrong_dim"],
            )


def _check_pick(learner, reference, scores, labels, code):
    what = f"pick(scores, labels) ({code})"
    device = scores.device.type
    got = expect_tensor(_call(learner, device, "pick", scores, labels), what)
    want = reference_on(device, reference.pick, scores, labels)
    _explain_pick(got, scores, labels, want, what, what + " ")
    assert_equal(got, want, what)


def _scores_and_labels(rng, n, c, device):
    scores = torch.randn(n, c, generator=rng).to(device)
    labels = torch.randint(0, c, (n,), generator=rng).to(device)
    return scores, labels


def test_pick_values(learner, reference, device, rng):
    for n, c in ((5, 5), (6, 4), (8, 3), (1, 3), (7, 1), (0, 4)):
        scores, labels = _scores_and_labels(rng, n, c, device)
        _check_pick(learner, reference, scores, labels, f"scores.shape = ({n}, {c})")
    scores, labels = _scores_and_labels(rng, 5, 3, device)
    _check_pick(
        learner,
        reference,
        scores.double(),
        labels,
        "scores.shape = (5, 3), scores.dtype = torch.float64",
    )


def test_pick_any_layout(learner, reference, device, rng):
    n, c = 6, 4
    transposed = torch.randn(c, n, generator=rng).to(device).t()
    sliced = torch.randint(0, c, (2 * n,), generator=rng).to(device)[::2]
    _check_pick(
        learner,
        reference,
        transposed,
        sliced,
        "scores = s.t(), s.shape = (4, 6), labels = l[::2], l.shape = (12,)",
    )
    wide = torch.randn(n, 2 * c, generator=rng).to(device)[:, 1::2]
    labels = torch.randint(0, c, (n,), generator=rng).to(device)
    _check_pick(learner, reference, wide, labels, "scores = s[:, 1::2], s.shape = (6, 8)")


def test_pick_keeps_graph(learner, reference, device, rng):
    scores, labels = _scores_and_labels(rng, 5, 4, device)
    scores.requires_grad_(True)
    what = "pick(scores, labels) (scores.requires_grad = True)"
    got = expect_tensor(learner.pick(scores, labels), what)
    assert_requires_grad(got, True, what)
    assert_equal(got, reference.pick(scores, labels), what)


# ---------------------------------------------------------------------------------------------
# one_hot


def _labels_cases(rng, device):
    """(code, labels, num_classes)."""
    d = _on(device)
    missing_top = torch.randint(0, 3, (6,), generator=rng)  # classes 3..6 never appear
    return [
        (f"torch.randint(0, 5, (8,){d})", torch.randint(0, 5, (8,), generator=rng).to(device), 5),
        (f"torch.randint(0, 3, (6,){d})", missing_top.to(device), 7),
        (f"torch.zeros(4, dtype=torch.int64{d})", torch.zeros(4, dtype=torch.int64).to(device), 1),
        (f"torch.tensor([2]{d})", torch.tensor([2]).to(device), 3),
        (f"torch.zeros(0, dtype=torch.int64{d})", torch.zeros(0, dtype=torch.int64).to(device), 3),
        (
            f"torch.randint(0, 4, (10,){d})[::2]",
            torch.randint(0, 4, (10,), generator=rng).to(device)[::2],
            4,
        ),
    ]


def test_one_hot_values(learner, reference, device, rng):
    for code, labels, classes in _labels_cases(rng, device):
        what = f"one_hot(labels, {classes}) (labels = {code})"
        got = expect_tensor(learner.one_hot(labels, classes), what)
        want = reference.one_hot(labels, classes)
        n = labels.shape[0]
        if (
            got.dim() == 2
            and got.shape[0] == n
            and got.shape[1] != classes
            and n > 0
            and got.shape[1] == int(labels.max()) + 1
        ):
            fail(
                f"{what} should have shape ({n}, {classes}), one column per class, but yours has "
                f"shape {tuple(got.shape)}: one column per class up to the largest label present "
                f"({int(labels.max())}). F.one_hot(labels) guesses the number of classes from the "
                "data; pass num_classes.",
                f"{what} 的形状应为 ({n}, {classes})，每个类别一列，但你的结果形状为 {tuple(got.shape)}："
                f"只到出现过的最大标签（{int(labels.max())}）为止。F.one_hot(labels) 会根据数据猜测类别数；"
                "请传入 num_classes。",
                evidence=["wrong_shape", "num_classes_inferred"],
            )
        assert_equal(got, want, what, check_dtype=False)


def test_one_hot_float32(learner, device, rng):
    labels = torch.randint(0, 4, (6,), generator=rng).to(device)
    what = f"one_hot(labels, 4) (labels = torch.randint(0, 4, (6,){_on(device)}))"
    got = expect_tensor(learner.one_hot(labels, 4), what)
    if got.dtype != torch.float32:
        extra_en = extra_zh = ""
        evidence = ["wrong_dtype"]
        if not got.dtype.is_floating_point:
            extra_en = (
                " F.one_hot (and a copy of the labels' dtype) gives integers; targets for a "
                "loss are floats: ask for float32, or convert with .float()."
            )
            extra_zh = (
                "F.one_hot（以及沿用标签 dtype 的做法）得到的是整数；损失函数的目标值是浮点数："
                "请指定 float32，或用 .float() 转换。"
            )
            evidence.append("integer_instead_of_float")
        fail(
            f"{what} should have dtype float32, but yours has dtype "
            f"{str(got.dtype).removeprefix('torch.')}.{extra_en}",
            f"{what} 的 dtype 应为 float32，但你的结果是 {str(got.dtype).removeprefix('torch.')}。"
            f"{extra_zh}",
            evidence=evidence,
        )


def test_one_hot_on_labels_device(learner, reference, device, rng):
    for code, labels, classes in _labels_cases(rng, device)[:2]:
        what = f"one_hot(labels, {classes}) (labels = {code})"
        got = _call(learner, device, "one_hot", labels, classes)
        assert_equal(got, reference_on(device, reference.one_hot, labels, classes), what)
