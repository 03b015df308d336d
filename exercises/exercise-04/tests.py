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

Each test judges one requirement: values (compared on the CPU), dtype, device (meta stands in for
a GPU; code that reads values, like the seed's own advice `assert labels.max() < num_classes`,
000 §9.3, cannot run there and gets a skip, not a failure), layout (the learner's answer for
views against its own answer for contiguous copies), the operation count, the graph.
"""

import ast

import torch

from grader.spec import Text
from grader.testing import (
    assert_device,
    assert_device_follows,
    assert_equal,
    assert_no_loops,
    assert_ops_constant,
    assert_requires_grad,
    call_on_meta,
    expect_tensor,
    fail,
    names,
    tensor_info,
    view_difference,
)


def _on(device):
    return "" if device == "cpu" else f", device={device!r}"


def _on_device(learner, device, name, args, what, source):
    """learner.<name>(*args); on meta, through a scenario: code that copies the meta data to the
    CPU (a buffer made without device=) fails as a device slip, and code that reads the values
    (.item(), a tensor in an if or an assert, as in `assert labels.max() < num_classes`, the
    seed's own advice, 000 §9.3) cannot run on meta: such code is not wrong, and the error may
    be the learner's own, so it never decides a skip. The device is then judged from the source
    alone (every tensor made on the inputs' device, no test of which device it is), and None
    comes back: the case is done. The seed's
    one-hot demo, scatter_ into zeros made on the CPU, copies nothing: it returns a CPU tensor,
    which the device check names."""
    if device != "meta":
        return getattr(learner, name)(*args)
    answer = learner.run(call_on_meta, name, list(args), catch_copies=True, catch_reads=True)
    if "copied_out_of_meta" in answer:
        we, wz = names(what)
        fail(
            f"{we} should be on meta, the device of its inputs, but your code copies the data of "
            "its meta inputs to the CPU (PyTorch said: "
            f"{answer['copied_out_of_meta']}): a tensor made without device=... lands on the "
            "CPU. Create it on the inputs' device (device=scores.device, torch.zeros_like).",
            f"{wz} 应该位于输入所在的设备 meta 上，但你的代码把 meta 输入的数据复制到了 CPU（PyTorch 报错："
            f"{answer['copied_out_of_meta']}）：没有指定 device=... 创建的张量位于 CPU 上。"
            "请在输入所在的设备上创建它（device=scores.device、torch.zeros_like）。",
            evidence=["wrong_device"],
        )
    if "reads_values" in answer:
        assert_device_follows(source, name, what)
        return None
    return answer["value"]


# ---------------------------------------------------------------------------------------------
# pick


# Runs first: the first traced call of a learner process imports torch._dynamo (about 1.5 s),
# which also makes the meta kernels of the later tests free. Only the operations are counted here:
# what pick returns is the other tests'.
def test_pick_no_python_loops(learner, device, rng, learner_source):
    records, sizes = [], (4, 64)
    for n in sizes:
        # Square scores here and in the layout, device and graph tests: a pick that gathers
        # along the wrong dim (test_pick_values names it) then still runs.
        scores, labels = _scores_and_labels(rng, n, n, device)
        learner.call("pick", scores, labels, trace=True)
        records.append(learner.last)
    assert_ops_constant(records, sizes, "pick(scores, labels)")
    assert_no_loops(learner_source, "pick")


def _explain_pick(got, scores, labels, want, what_en, what_zh):
    """Name the classic wrong answers before the generic comparison."""
    n = labels.shape[0]
    _whole_rows(got, scores, labels, what_en, what_zh)
    _row_maxima(got, scores, want, what_en, what_zh)
    if tuple(got.shape) == (n, n) and n > 1 and _all_pairs_or_unknown(got, scores, labels):
        fail(
            f"{what_en} should have shape ({n},), one value per row, but yours has shape ({n}, {n}): "
            "scores[:, labels] takes column labels[j] of every row i, for every pair (i, j). Pair "
            "each row with its own label: gather along dim 1, or scores[torch.arange(N), labels].",
            f"{what_zh.rstrip()}：结果的形状应为 ({n},)，每行一个值，但你的结果形状为 ({n}, {n})："
            "scores[:, labels] 会对每一对 (i, j) 取第 i 行的第 labels[j] 列。应该让每行只配它自己的标签："
            "沿 dim 1 使用 gather，或者 scores[torch.arange(N), labels]。",
            evidence=["wrong_shape", "broadcast_shape", "index_all_pairs"],
        )
    if (
        got.device.type != "meta"
        and n > 1
        and tuple(got.shape) in ((n,), (1, n))
        and scores.shape[1] > 0
    ):
        yours = got.detach().cpu().reshape(-1)
        first_row = scores.detach().cpu()[0, labels.cpu()]  # scores[0, labels[i]]
        if not torch.equal(yours, want.detach().cpu()) and torch.equal(yours, first_row):
            fail(
                f"{what_en}: element i of yours is scores[0, labels[i]]: every value comes from "
                "row 0 (an index of shape (1, N), such as labels.unsqueeze(0), makes gather read "
                "all N column numbers in the first row; scores[0][labels] does too, and so does "
                "torch.take(scores, labels), which indexes the flattened scores). Each row "
                "needs its own label: scores.gather(1, labels.unsqueeze(1)).squeeze(1), or "
                "scores[torch.arange(N), labels].",
                f"{what_zh.rstrip()}：你的结果第 i 个元素是 scores[0, labels[i]]：所有值都取自第 0 行"
                "（形状为 (1, N) 的索引，例如 labels.unsqueeze(0)，会让 gather 在第一行里读取全部 N 个列号；"
                "scores[0][labels] 也是这样，torch.take(scores, labels) 同样如此，因为它索引的是展平后的 scores）。"
                "每一行都需要它自己的标签："
                "scores.gather(1, labels.unsqueeze(1)).squeeze(1)，或者 scores[torch.arange(N), labels]。",
                evidence=["values_differ", "gather_index_one_row"],
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
        got.dim() == 0
        and tuple(want.shape) == (1,)
        and got.device.type != "meta"
        and torch.equal(got.detach().cpu().reshape(1), want.detach().cpu())
    ):
        fail(
            f"{what_en} should have shape (1,), one value for the one row, but yours is 0-d, "
            "shape (): with a batch of one, a squeeze() with no dim removes the batch dimension "
            "too (it removes every dimension of size 1, so gather's (1, 1) becomes ()). Name the "
            "dimension: .squeeze(1).",
            f"{what_zh.rstrip()}：结果的形状应为 (1,)，唯一的一行对应一个值，但你的结果是 0 维的，形状为 ()："
            "批次里只有一行时，不带 dim 的 squeeze() 会把批次这一维也删掉（它删除所有长度为 1 的维度，"
            "于是 gather 得到的 (1, 1) 变成了 ()）。请指明维度：.squeeze(1)。",
            evidence=["wrong_shape", "size_one_dims", "squeezed_too_much"],
        )
    if (
        got.device.type != "meta"
        and got.shape == want.shape
        and 0 < n <= scores.shape[1]
        and int(labels.max()) < n
    ):
        along_rows = scores.detach().cpu()[labels.cpu(), torch.arange(n)]  # scores[labels[i], i]
        yours = got.detach().cpu()
        first_column = scores.detach().cpu()[labels.cpu(), 0]  # scores[labels[i], 0]
        if (
            not torch.equal(want.detach().cpu(), yours)
            and not torch.equal(along_rows, yours)
            and torch.equal(first_column, yours)
        ):
            fail(
                f"{what_en}: element i of yours is scores[labels[i], 0]: gather along dim 0 with "
                "an (N, 1) index reads down the first column only. It should be "
                "scores[i, labels[i]]: gather along dim 1, the dimension the labels index.",
                f"{what_zh.rstrip()}：你的结果第 i 个元素是 scores[labels[i], 0]：用 (N, 1) 的索引沿 "
                "dim 0 做 gather，只会顺着第一列取值。它应该是 scores[i, labels[i]]：请沿 dim 1"
                "（标签所索引的维度）使用 gather。",
                evidence=["values_differ", "gather_wrong_dim"],
            )
        if not torch.equal(want.detach().cpu(), yours) and torch.equal(along_rows, yours):
            fail(
                f"{what_en}: element i of yours is scores[labels[i], i] (gathered along dim 0, "
                "down the columns); it should be scores[i, labels[i]]: gather along dim 1, the "
                "dimension the labels index.",
                f"{what_zh.rstrip()}：你的结果第 i 个元素是 scores[labels[i], i]（沿 dim 0，即顺着列取值）；"
                "它应该是 scores[i, labels[i]]：请沿 dim 1（标签所索引的维度）使用 gather。",
                evidence=["values_differ", "gather_wrong_dim"],
            )


def _row_maxima(got, scores, want, what_en, what_zh):
    """Name each row's largest score (scores.max(dim=1)) returned whatever the labels: only
    where it is that, and the labels' scores are not (some label is not its row's argmax)."""
    if got.device.type == "meta" or got.shape != want.shape or scores.shape[1] < 2:
        return
    yours, s = got.detach().cpu(), scores.detach().cpu()
    if not len(s) or yours.dtype != s.dtype or torch.equal(yours, want.detach().cpu()):
        return
    if not torch.equal(yours, s.amax(dim=1)):
        return
    fail(
        f"{what_en}: element i of yours is the largest score of row i (scores.max(dim=1)), "
        "whatever labels[i]. pick reads the score of the labelled class, which is not always "
        "the largest: scores[i, labels[i]], gather along dim 1 with the labels.",
        f"{what_zh.rstrip()}：你的结果第 i 个元素是第 i 行最大的分数（scores.max(dim=1)），"
        "与 labels[i] 无关。pick 要取的是标签所指类别的分数，它不一定是最大的："
        "scores[i, labels[i]]，即用标签沿 dim 1 做 gather。",
        evidence=["values_differ"],
    )


def _all_pairs_or_unknown(got, scores, labels):
    """Whether an (N, N) ``got`` is scores[:, labels] (element (i, j) = scores[i, labels[j]]),
    or has no values to tell (meta)."""
    if got.device.type == "meta":
        return True
    yours = got.detach().cpu()
    pairs = scores.detach().cpu()[:, labels.detach().cpu()]
    return yours.dtype == pairs.dtype and torch.equal(yours, pairs)


def _whole_rows(got, scores, labels, what_en, what_zh):
    """Name scores[labels]: one index tensor indexes the first dimension, so row i of the
    result is the whole row labels[i] of scores, (N, C), where one value per row was asked.
    With N == C that shape is also scores[:, labels]'s: the values tell them apart."""
    n, c = scores.shape
    if got.device.type == "meta" or n < 2 or tuple(got.shape) != (n, c):
        return
    cpu_labels = labels.detach().cpu()
    if int(cpu_labels.max()) >= n:  # scores[labels] would have raised
        return
    s = scores.detach().cpu()
    yours = got.detach().cpu()
    if yours.dtype != s.dtype or not torch.equal(yours, s[cpu_labels]):
        return
    if torch.equal(yours, s[:, cpu_labels]):  # the same matrix both ways: say nothing
        return
    fail(
        f"{what_en} should have shape ({n},), one value per row, but yours has shape ({n}, {c}): "
        "row i of yours is the whole row labels[i] of scores. scores[labels] indexes the first "
        "dimension, the rows, with the labels; the labels number the columns. Pair each row "
        "with its own label: scores[torch.arange(N), labels], or "
        "scores.gather(1, labels.unsqueeze(1)).squeeze(1).",
        f"{what_zh.rstrip()}：结果的形状应为 ({n},)，每行一个值，但你的结果形状为 ({n}, {c})："
        "你的结果第 i 行是 scores 的整个第 labels[i] 行。scores[labels] 用标签去索引第一个维度，即行；"
        "而标签编号的是列。应该让每行只配它自己的标签：scores[torch.arange(N), labels]，或者 "
        "scores.gather(1, labels.unsqueeze(1)).squeeze(1)。",
        evidence=["wrong_shape", "index_rows_by_labels"],
    )


def _check_pick(learner, reference, scores, labels, code):
    what = f"pick(scores, labels) ({code})"
    got = expect_tensor(learner.pick(scores, labels), what)
    want = reference.pick(scores, labels)
    _explain_pick(got, scores, labels, want, what, what + " ")
    # Values, shape and dtype, compared on the CPU: the device is test_pick_on_input_device's.
    assert_equal(got.detach().cpu(), want.detach().cpu(), what)


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


def test_pick_any_layout(learner, device, rng):
    # The learner is compared with itself: its answer for transposed or sliced scores and
    # labels, against its answer for contiguous copies. What the answer should be is
    # test_pick_values's.
    n = c = 6
    cases = [
        (
            torch.randn(c, n, generator=rng).to(device).t(),
            torch.randint(0, c, (2 * n,), generator=rng).to(device)[::2],
            "scores = s.t(), s.shape = (6, 6), labels = l[::2], l.shape = (12,)",
        ),
        (
            torch.randn(n, 2 * c, generator=rng).to(device)[:, 1::2],
            torch.randint(0, c, (n,), generator=rng).to(device),
            "scores = s[:, 1::2], s.shape = (6, 12)",
        ),
    ]
    for scores, labels, code in cases:
        what = Text(f"pick(scores, labels) for {code}", f"{code} 时的 pick(scores, labels)")
        got = expect_tensor(learner.pick(scores, labels), what)
        fresh = expect_tensor(learner.pick(scores.contiguous(), labels.contiguous()), what)
        a, b = got.detach().cpu(), fresh.detach().cpu()
        if a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b):
            continue
        diff_en, diff_zh = view_difference(got, fresh)
        fail(
            f"{what.en} differs from your own answer for contiguous copies of the same scores "
            f"and labels (.contiguous()): {diff_en}. The "
            "memory layout must not change the result.",
            f"{what.zh}与你对同样 scores 和 labels 的连续副本（.contiguous()）给出的结果不同："
            f"{diff_zh}。内存布局不能改变结果。",
            evidence=["values_differ", "layout_changes_result"],
        )


def test_pick_on_input_device(learner, device, rng, learner_source):
    # Only the device (meta stands in for a GPU): the values are the other tests'.
    scores, labels = _scores_and_labels(rng, 5, 5, device)
    what = Text(
        f"pick(scores, labels) for scores and labels on {device}",
        f"scores 和 labels 位于 {device} 时的 pick(scores, labels)",
    )
    got = _on_device(learner, device, "pick", (scores, labels), what, learner_source)
    if got is not None:
        assert_device(expect_tensor(got, what), device, what)


def test_pick_keeps_graph(learner, device, rng):
    # Only the graph: the result requires grad and was computed from scores (it has a grad_fn).
    scores, labels = _scores_and_labels(rng, 5, 5, device)
    scores.requires_grad_(True)
    what = "pick(scores, labels) (scores.requires_grad = True)"
    got = expect_tensor(learner.pick(scores, labels), what)
    assert_requires_grad(got, True, what)
    info = tensor_info(got)
    if info is not None and info.grad_fn is None:
        fail(
            f"{what} requires grad but has no grad_fn: it is a new leaf, not a result computed "
            "from scores, so no gradient reaches scores. Compute it from scores with tensor "
            "operations (gather, indexing).",
            f"{what} 需要梯度，却没有 grad_fn：它是一个新的叶子张量，而不是由 scores 计算出的结果，"
            "所以梯度传不回 scores。请用张量运算（gather、索引）从 scores 计算它。",
            evidence=["graph_broken"],
        )


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
                f"({int(labels.max())}). F.one_hot(labels) without num_classes, like "
                "labels.max() + 1, guesses the number of classes from the data; use num_classes.",
                f"{what} 的形状应为 ({n}, {classes})，每个类别一列，但你的结果形状为 {tuple(got.shape)}："
                f"只到出现过的最大标签（{int(labels.max())}）为止。不带 num_classes 的 F.one_hot(labels)"
                "和 labels.max() + 1 一样，都是根据数据猜测类别数；请使用 num_classes。",
                evidence=["wrong_shape", "num_classes_inferred"],
            )
        _scattered_down_rows(got, labels, classes, want, what)
        _scattered_into_row_zero(got, labels, classes, want, what)
        _whole_columns(got, labels, classes, want, what)
        # Values and shape on the CPU: the dtype and the device have their own tests.
        assert_equal(got.detach().cpu(), want.detach().cpu(), what, check_dtype=False)


def _whole_columns(got, labels, classes, want, what):
    """Name out[:, labels] = 1: every row gets a 1 in every column some label names (the
    labels index the columns of all rows at once), where row i needed one 1, at labels[i]."""
    n = labels.shape[0]
    if got.device.type == "meta" or tuple(got.shape) != (n, classes) or n == 0:
        return
    columns = torch.zeros(n, classes)
    columns[:, labels.cpu()] = 1
    yours = got.detach().cpu().double()
    if torch.equal(yours, want.detach().cpu().double()) or not torch.equal(yours, columns.double()):
        return
    fail(
        f"{what}: every row of yours has a 1 in every column that some label names, so "
        "out[:, labels] = 1 set whole columns: the labels indexed the columns of all rows at "
        "once. Row i needs one 1, at column labels[i]: index the rows too, "
        "out[torch.arange(N), labels] = 1 (or out.scatter_(1, labels.unsqueeze(1), 1)).",
        f"{what}：你的结果每一行在所有标签出现过的列上都是 1，也就是说 out[:, labels] = 1 设置的是整列："
        "标签一次性索引了所有行的这些列。第 i 行只需要一个 1，位于第 labels[i] 列：请同时索引行，"
        "out[torch.arange(N), labels] = 1（或者 out.scatter_(1, labels.unsqueeze(1), 1)）。",
        evidence=["values_differ", "index_all_pairs"],
    )


def _scattered_down_rows(got, labels, classes, want, what):
    """Name scatter_ along dim 0: with an (N, 1) index it writes 1 into row labels[i] of the
    first column, zeros(N, C).scatter_(0, labels.unsqueeze(1), 1)."""
    n = labels.shape[0]
    if got.device.type == "meta" or tuple(got.shape) != (n, classes) or n == 0:
        return
    if int(labels.max()) >= n:
        return  # scatter_ along dim 0 would have raised
    down_rows = torch.zeros(n, classes).scatter_(0, labels.cpu().unsqueeze(1), 1)
    yours = got.detach().cpu().double()
    if torch.equal(yours, want.detach().cpu().double()) or not torch.equal(
        yours, down_rows.double()
    ):
        return
    fail(
        f"{what}: yours has its 1s only in the first column, in the rows the labels name "
        "(element [labels[i], 0] is 1): scatter_ along dim 0 with an (N, 1) index walks down "
        "the rows. Row i needs its 1 in column labels[i]: scatter along dim 1, "
        "out.scatter_(1, labels.unsqueeze(1), 1.0).",
        f"{what}：你的结果只在第一列、标签所指的那些行上有 1（元素 [labels[i], 0] 为 1）："
        "用 (N, 1) 的索引沿 dim 0 做 scatter_ 会顺着行方向写入。第 i 行的 1 应该在第 labels[i] 列："
        "请沿 dim 1 做 scatter：out.scatter_(1, labels.unsqueeze(1), 1.0)。",
        evidence=["values_differ", "scatter_wrong_dim"],
    )


def _scattered_into_row_zero(got, labels, classes, want, what):
    """Name an index of shape (1, N) (labels.unsqueeze(0)): scatter_ along dim 1 then writes
    every 1 into row 0, out[0, labels[j]] = 1, and the other rows stay 0."""
    n = labels.shape[0]
    if got.device.type == "meta" or tuple(got.shape) != (n, classes) or n < 2:
        return
    row_zero = torch.zeros(n, classes).scatter_(1, labels.cpu().unsqueeze(0), 1)
    yours = got.detach().cpu().double()
    if torch.equal(yours, want.detach().cpu().double()) or not torch.equal(
        yours, row_zero.double()
    ):
        return
    fail(
        f"{what}: yours has its 1s only in row 0, in the columns the labels name, and every "
        "other row is 0: an index of shape (1, N), such as labels.unsqueeze(0), is one row of N "
        "column numbers, so scatter_ writes them all into the first row. Each row needs its own "
        "label, an index of shape (N, 1): out.scatter_(1, labels.unsqueeze(1), 1.0).",
        f"{what}：你的结果只在第 0 行、标签所指的那些列上有 1，其他各行都是 0：形状为 (1, N) 的索引"
        "（例如 labels.unsqueeze(0)）是一行 N 个列号，所以 scatter_ 把它们都写进了第一行。"
        "每一行都需要它自己的标签，即形状为 (N, 1) 的索引：out.scatter_(1, labels.unsqueeze(1), 1.0)。",
        evidence=["values_differ", "scatter_index_one_row"],
    )


def _dtype(t):
    return str(t.dtype).removeprefix("torch.")


def _copies_labels_dtype(source):
    """The learner's one_hot passes dtype=<its labels argument>.dtype to a call."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "one_hot" and node.args.args:
            labels = node.args.args[0].arg
            return any(
                isinstance(k, ast.keyword)
                and k.arg == "dtype"
                and isinstance(k.value, ast.Attribute)
                and k.value.attr == "dtype"
                and isinstance(k.value.value, ast.Name)
                and k.value.value.id == labels
                for k in ast.walk(node)
            )
    return False


def test_one_hot_float32(learner, device, rng, learner_source):
    labels = torch.randint(0, 4, (6,), generator=rng).to(device)
    what = f"one_hot(labels, 4) (labels = torch.randint(0, 4, (6,){_on(device)}))"
    got = expect_tensor(learner.one_hot(labels, 4), what)
    if got.dtype != torch.float32:
        extra_en = extra_zh = ""
        evidence = ["wrong_dtype"]
        if got.dtype == labels.dtype and _copies_labels_dtype(learner_source or ""):
            extra_en = (
                " Your one_hot makes its tensor with dtype=labels.dtype, which copies the labels' "
                "int64: the labels are indices and stay int64, but the one-hot targets are "
                "float32. Ask for dtype=torch.float32."
            )
            extra_zh = (
                "你的 one_hot 用 dtype=labels.dtype 创建张量，这沿用了标签的 int64：标签是下标，"
                "应保持 int64，而 one-hot 目标值是 float32。请指定 dtype=torch.float32。"
            )
            evidence += ["integer_instead_of_float", "one_hot_not_float"]
        elif got.dtype == labels.dtype:
            # judged by the answer, whatever the spelling: labels.new_zeros(...),
            # torch.zeros_like(labels), dtype=labels.dtype through a name, labels.clone() ...
            extra_en = (
                f" Your one-hot tensor has the labels' own dtype, {_dtype(labels)}: a tensor made "
                "from the labels (labels.new_zeros(...), torch.zeros_like(labels), or with their "
                "dtype) copies it. The labels are indices and stay int64, but the one-hot targets "
                "are float32: ask for dtype=torch.float32."
            )
            extra_zh = (
                f"你的 one-hot 张量沿用了标签自己的 dtype {_dtype(labels)}：由标签创建的张量"
                "（labels.new_zeros(...)、torch.zeros_like(labels)，或使用标签的 dtype）会沿用它。"
                "标签是下标，应保持 int64，而 one-hot 目标值是 float32：请指定 dtype=torch.float32。"
            )
            evidence += ["integer_instead_of_float", "one_hot_not_float"]
        elif not got.dtype.is_floating_point and got.dtype != torch.bool:
            extra_en = (
                " F.one_hot (and a copy of the labels' dtype) gives integers; targets for a "
                "loss are floats: ask for float32, or convert with .float()."
            )
            extra_zh = (
                "F.one_hot（以及沿用标签 dtype 的做法）得到的是整数；损失函数的目标值是浮点数："
                "请指定 float32，或用 .float() 转换。"
            )
            evidence += ["integer_instead_of_float", "one_hot_not_float"]
        fail(
            f"{what} should have dtype float32, but yours has dtype "
            f"{str(got.dtype).removeprefix('torch.')}.{extra_en}",
            f"{what} 的 dtype 应为 float32，但你的结果是 {str(got.dtype).removeprefix('torch.')}。"
            f"{extra_zh}",
            evidence=evidence,
        )


def test_one_hot_on_labels_device(learner, device, rng, learner_source):
    # Only the device (meta stands in for a GPU): values and dtype are the other tests'.
    for code, labels, classes in _labels_cases(rng, device)[:2]:
        what = f"one_hot(labels, {classes}) (labels = {code})"
        got = _on_device(learner, device, "one_hot", (labels, classes), what, learner_source)
        if got is not None:
            assert_device(expect_tensor(got, what), device, what)
