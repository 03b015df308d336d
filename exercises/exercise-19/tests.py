"""Hidden tests of exercise-19: reproducibility.

Pitfalls from the seed (001 §8.3, with 001 §3.3 and 003 §4.2), each with the tests that catch it:
- Python, NumPy and torch keep separate random states: seeding one leaves the others alone, and a
  hard-coded seed (the tutorial's seed=42) ignores the argument: the three test_set_seed_* tests
  run a scenario next to the learner's code that draws from each library after set_seed(seed) and
  compare the draws with the reference's (on the GPU, the CUDA generator too);
- torch's global random state is shared by the whole program: a split drawn from it changes with
  whatever ran before, and one that calls torch.manual_seed inside changes everything after it:
  test_split_reproducible and test_split_leaves_global_state (scenarios that set and read the
  global state around the call);
- a generator that is never seeded gives the same split for every seed, an unshuffled range no
  split at all: test_split_different_seeds;
- the validation size is round(n * val_fraction) with Python's round, which rounds halves to even
  (round(2.5) == 2), not int() (which truncates): test_split_is_a_partition and a property test.
- a split shuffled by NumPy or Python's random module (np.random.default_rng(seed), random.seed
  then random.shuffle) is reproducible and leaves torch alone, but is not drawn from a
  torch.Generator: test_split_from_torch_generator draws it again with those libraries seeded
  otherwise (their seeding calls moved to another seed, their global states set otherwise).
A correct solution may shuffle differently from the reference, so splits are checked by their
properties (int64, disjoint, covering, sizes, determinism), never against the reference's split.

Each test judges one requirement (see `requirements` in exercise.yaml): the int64 dtype is judged
by test_split_is_a_partition alone, and the reproducibility, global-state and different-seeds
tests read the split as indices whatever its dtype, without judging the partition.
"""

import math
import random

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.sandbox.codec import Opaque
from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import CheckFailed, describe, expect_tensor, fail
from grader.testing.checks import describe_zh, sole_story
from grader.testing.properties import PROPERTY

# ---------------------------------------------------------------------------------------------
# set_seed


SEEDS = (0, 7, 2024)


def draws_after_set_seed(module, seeds, device):
    """For each seed: set_seed(seed), then a few numbers from each library's global generator."""
    draws = []
    for seed in seeds:
        module.set_seed(seed)
        draws.append(
            {
                "random": [random.random() for _ in range(3)] + [random.randint(0, 10**9)],
                "numpy": np.random.rand(3).tolist() + [int(np.random.randint(0, 10**9))],
                "torch": torch.rand(3).tolist() + [int(torch.randint(0, 10**9, ()))],
                "cuda": torch.rand(3, device=device).tolist() if device == "cuda" else None,
            }
        )
    return draws


_LIBRARIES = {
    "random": ("Python's random module", "Python 的 random 模块", "random.seed(seed)"),
    "numpy": ("NumPy's global generator", "NumPy 的全局随机数生成器", "np.random.seed(seed)"),
    "torch": ("torch's CPU generator", "torch 的 CPU 随机数生成器", "torch.manual_seed(seed)"),
    "cuda": (
        "torch's CUDA generator",
        "torch 的 CUDA 随机数生成器",
        "torch.manual_seed(seed) (or torch.cuda.manual_seed_all(seed))",
    ),
}


def _compare_draws(got, want, library):
    en, zh, call = _LIBRARIES[library]
    yours = [d[library] for d in got]
    expected = [d[library] for d in want]
    if yours == expected:
        return
    if all(y == yours[0] for y in yours):
        fail(
            f"After set_seed({SEEDS[0]}), set_seed({SEEDS[1]}) and set_seed({SEEDS[2]}), {en} gave the "
            "same numbers every time: set_seed ignores its argument (a seed written into the code, "
            f"such as 42). Seed with the argument: {call}.",
            f"在 set_seed({SEEDS[0]})、set_seed({SEEDS[1]}) 和 set_seed({SEEDS[2]}) 之后，{zh}"
            "每次给出的数都一样：set_seed 忽略了它的参数（例如在代码里写死了 42）。"
            f"请用参数设置种子：{call}。",
            evidence=["values_differ", "rng_not_seeded"],
        )
    i = next(k for k, (y, e) in enumerate(zip(yours, expected)) if y != e)
    fail(
        f"After set_seed({SEEDS[i]}), {en} should give the numbers it gives after {call} "
        f"({expected[i][0]:.6g}, ...), but it gave {yours[i][0]:.6g}, ...: set_seed does not seed it "
        f"(or seeds it with another value). Call {call} in set_seed.",
        f"在 set_seed({SEEDS[i]}) 之后，{zh}应给出与 {call} 之后相同的数（{expected[i][0]:.6g}, ...），"
        f"但实际给出了 {yours[i][0]:.6g}, ...：set_seed 没有为它设置种子（或用了别的值）。"
        f"请在 set_seed 中调用 {call}。",
        evidence=["values_differ", "rng_not_seeded"],
    )


def test_set_seed_python_random(learner, reference):
    got = learner.run(draws_after_set_seed, SEEDS, "cpu")
    _compare_draws(got, draws_after_set_seed(reference, SEEDS, "cpu"), "random")


def test_set_seed_numpy(learner, reference):
    got = learner.run(draws_after_set_seed, SEEDS, "cpu")
    _compare_draws(got, draws_after_set_seed(reference, SEEDS, "cpu"), "numpy")


def test_set_seed_returns_none(learner):
    value = learner.set_seed(3)
    if value is not None:
        # torch.manual_seed(seed) returns a generator: named only where one came back
        generator = "generator" in describe(value).lower()
        why_en = (
            "torch.manual_seed(seed) returns a generator; do not return it"
            if generator
            else "drop the return statement"
        )
        why_zh = (
            "torch.manual_seed(seed) 会返回一个生成器；不要把它返回"
            if generator
            else "去掉 return 语句"
        )
        fail(
            f"set_seed(3) should return None, but yours returned {describe(value)}: it only seeds "
            f"the generators ({why_en}).",
            f"set_seed(3) 应返回 None，但你的结果是 {describe_zh(value)}：它只负责设置种子"
            f"（{why_zh}）。",
            evidence=["wrong_type"],
        )


def test_set_seed_torch(learner, reference, device):
    got = learner.run(draws_after_set_seed, SEEDS, device)
    want = draws_after_set_seed(reference, SEEDS, device)
    _compare_draws(got, want, "torch")
    if device == "cuda":
        _compare_draws(got, want, "cuda")


# ---------------------------------------------------------------------------------------------
# split_indices


def _subset(part, we, wz):
    """Name a part that is a torch.utils.data Subset (what random_split returns), where a
    tensor of indices was due: the indices are its .indices list."""
    name = part.type_name if isinstance(part, Opaque) else ""
    if not isinstance(name, str) or name.rsplit(".", 1)[-1] != "Subset":
        return
    fail(
        f"{we} should be a torch.Tensor of indices, but yours is a Subset, what "
        "torch.utils.data.random_split returns: a dataset view, not the indices. Its shuffled "
        "indices are the list subset.indices: return torch.tensor(subset.indices, "
        "dtype=torch.long) (with the dtype: an empty split would be float32), or shuffle with "
        "torch.randperm(n, generator=g) and slice it, as the task asks.",
        f"{wz} 应该是由下标组成的 torch.Tensor，但你的结果是一个 Subset，也就是 "
        "torch.utils.data.random_split 返回的东西：它是数据集的视图，而不是下标。打乱后的下标在列表 "
        "subset.indices 里：请返回 torch.tensor(subset.indices, dtype=torch.long)（写明 dtype：否则"
        "空的划分会是 float32），或者像题目要求的那样用 torch.randperm(n, generator=g) 打乱再切片。",
        evidence=["not_a_tensor", "dataset_subset"],
    )


def _split(value, call, strict=True):
    """(train, val) from the learner's answer, as int64 1-D tensors. ``strict``: the dtype must
    be int64 (elsewhere integer indices of any dtype are read as int64)."""
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        fail(
            f"{call} should return a tuple (train_idx, val_idx) of two tensors, but yours returned "
            f"{describe(value)}.",
            f"{call} 应返回由两个张量组成的元组 (train_idx, val_idx)，但你的结果是 {describe_zh(value)}。",
            evidence=["wrong_type"],
        )
    parts = []
    for (en, zh), part in zip((("train_idx", "train_idx"), ("val_idx", "val_idx")), value):
        we, wz = f"the {en} returned by {call}", f"{call} 返回的 {zh}"
        what = Text(we, wz)
        _subset(part, we, wz)
        part = expect_tensor(part, what)
        if not strict and not part.dtype.is_floating_point and part.dtype != torch.bool:
            part = part.long()
        if part.dtype == torch.float32 and part.numel() == 0:
            fail(
                f"{we} should hold int64 indices (what torch.randperm gives), but yours is an empty "
                "float32 tensor: a tensor made from an empty list, torch.tensor([]) (like "
                "torch.zeros(0)), gets PyTorch's default dtype, float32, as no number in it says "
                "otherwise. Say the dtype: "
                "torch.tensor(indices, dtype=torch.long), or slice a tensor of indices "
                "(torch.randperm(n, generator=g)[:k] stays int64 when empty).",
                f"{wz} 应为 int64 的下标（即 torch.randperm 给出的类型），但你的结果是一个空的 float32 "
                "张量：由空列表创建的张量 torch.tensor([])（和 torch.zeros(0) 一样）得到的是 PyTorch 的"
                "默认 dtype float32，因为里面没有数字能说明别的类型。请写明 dtype：torch.tensor(indices, dtype=torch.long)，或者对下标张量"
                "切片（torch.randperm(n, generator=g)[:k] 即使为空也仍是 int64）。",
                evidence=["wrong_dtype", "empty_list_float32"],
            )
        if part.dtype != torch.int64:
            fail(
                f"{we} should hold int64 indices (what torch.randperm gives), but yours has dtype "
                f"{str(part.dtype)[6:]}.",
                f"{wz} 应为 int64 的下标（即 torch.randperm 给出的类型），但你的结果 dtype 为 "
                f"{str(part.dtype)[6:]}。",
                evidence=["wrong_dtype", "float_instead_of_integer"]
                if part.dtype.is_floating_point
                else ["wrong_dtype"],
            )
        if part.dim() != 1:
            fail(
                f"{we} should be a 1-D tensor of indices, but yours has shape {tuple(part.shape)}.",
                f"{wz} 应该是一维的下标张量，但你的结果形状为 {tuple(part.shape)}。",
                evidence=["wrong_shape"],
            )
        parts.append(part.detach().cpu())
    return parts


def _check_partition(value, n, val_fraction, seed, strict=True):
    call = f"split_indices({n}, {val_fraction}, seed={seed})"
    train, val = _split(value, call, strict)
    n_val = round(n * val_fraction)
    if len(val) != n_val:
        # with no validation index due, (perm[:0], perm[0:]) swapped and (perm[:-0], perm[-0:])
        # give the same sizes: the other way round is told only where something was due
        if 0 < n_val and len(train) == n_val and len(val) == n - n_val and abs(n - 2 * n_val) > 1:
            fail(
                f"{call} returned {len(train)} training and {len(val)} validation indices: the other way "
                f"round. Return (train_idx, val_idx), with round({n} * {val_fraction}) = {n_val} validation indices.",
                f"{call} 返回了 {len(train)} 个训练下标和 {len(val)} 个验证下标：顺序反了。"
                f"请返回 (train_idx, val_idx)，其中验证下标有 round({n} * {val_fraction}) = {n_val} 个。",
                evidence=["values_differ", "split_swapped"],
            )
        product = n * val_fraction
        # What the size the learner got says they did, where only one slip gives it (a learner
        # who used round() on the training size was told "int() truncates")
        explanations = [
            (
                int(product),
                "int() truncates: use Python's round().",
                "int() 是直接截断：请使用 Python 的 round()。",
            ),
            (
                n - round(n * (1 - val_fraction)),
                f"Yours rounds the training size, round({n} * (1 - {val_fraction})); round the "
                "validation size and give the training part the rest.",
                f"你的代码对训练集的大小取整 round({n} * (1 - {val_fraction}))；请对验证集的大小取整，"
                "训练集取剩下的部分。",
            ),
            (
                math.ceil(product),
                "math.ceil() rounds up: use Python's round().",
                "math.ceil() 是向上取整：请使用 Python 的 round()。",
            ),
            (
                math.floor(product + 0.5),
                "Yours rounds halves up (int(x + 0.5)); Python's round() rounds them to even "
                "(round(2.5) == 2, round(3.5) == 4).",
                "你的代码把 .5 向上舍入（int(x + 0.5)）；Python 的 round() 把 .5 舍入到偶数"
                "（round(2.5) == 2，round(3.5) == 4）。",
            ),
        ]
        story = sole_story((en, zh) for size, en, zh in explanations if size == len(val))
        how_en, how_zh = story if story is not None else ("", "")
        fail(
            f"{call}: the validation part should hold round({n} * {val_fraction}) = round({product:g}) = "
            f"{n_val} of the indices, but yours holds {len(val)}. {how_en}".rstrip(),
            f"{call} 的验证部分应包含 round({n} * {val_fraction}) = round({product:g}) = {n_val} 个下标，"
            f"但你的结果有 {len(val)} 个。{how_zh}",
            # the way of rounding is named only where one way alone gives the learner's size
            evidence=["values_differ", "wrong_split_size"]
            + (["split_size_rounded_otherwise"] if story is not None else []),
        )
    both = torch.cat([train, val])
    if len(both) != n or not torch.equal(torch.sort(both).values, torch.arange(n)):
        counts = (
            torch.bincount(both[(both >= 0) & (both < n)], minlength=n) if n else torch.zeros(0)
        )
        outside = both[(both < 0) | (both >= n)]
        if len(outside):
            detail_en = f"index {int(outside[0])} is not in range({n})"
            detail_zh = f"下标 {int(outside[0])} 不在 range({n}) 之内"
        elif bool((counts > 1).any()):
            i = int((counts > 1).nonzero()[0])
            detail_en, detail_zh = (
                f"index {i} appears {int(counts[i])} times",
                f"下标 {i} 出现了 {int(counts[i])} 次",
            )
        else:
            i = int((counts == 0).nonzero()[0])
            detail_en, detail_zh = f"index {i} is missing", f"缺少下标 {i}"
        fail(
            f"{call}: together, train_idx and val_idx should hold every index of range({n}) exactly "
            f"once, but {detail_en}.",
            f"{call}：train_idx 和 val_idx 合起来应恰好包含 range({n}) 中的每个下标各一次，但{detail_zh}。",
            evidence=["values_differ", "not_a_partition"],
        )
    return train, val


# (n, val_fraction): ties where Python's round goes to even (2.5, 0.5, 1.5, 3.5), empty parts,
# and fractions whose product is exact, so every correct way of rounding it agrees.
PARTITIONS = [
    (10, 0.2),
    (100, 0.25),
    (5, 0.5),
    (7, 0.5),
    (6, 0.25),
    (1, 0.5),
    (3, 0.5),
    (0, 0.3),
    (20, 0.0),
    (20, 1.0),
    (1000, 0.125),
]


def test_split_is_a_partition(learner):
    for n, val_fraction in PARTITIONS:
        _check_partition(learner.split_indices(n, val_fraction, 11), n, val_fraction, 11)


@PROPERTY
@given(n=st.integers(0, 300), eighths=st.integers(0, 8), seed=st.integers(0, 2**31 - 1))
def test_split_partition_property(learner, n, eighths, seed):
    val_fraction = eighths / 8
    # The partition and its sizes (the int64 dtype is judged by test_split_is_a_partition).
    _check_partition(learner.split_indices(n, val_fraction, seed), n, val_fraction, seed, False)


def split_under_global_seeds(module, n, val_fraction, seed):
    """The same split requested after two different global seeds, then after the first again,
    with the global state read just before and just after each call."""
    runs = []
    for global_seed in (0, 1, 0):
        torch.manual_seed(global_seed)
        before = torch.get_rng_state()
        value = module.split_indices(n, val_fraction, seed)
        runs.append(
            {"value": value, "global_state_kept": bool(torch.equal(before, torch.get_rng_state()))}
        )
    return runs


def test_split_reproducible(learner):
    n, val_fraction, seed = 50, 0.2, 3
    call = f"split_indices({n}, {val_fraction}, seed={seed})"
    runs = learner.run(split_under_global_seeds, n, val_fraction, seed)
    # The splits as indices (whether they form a partition is judged by the partition tests).
    splits = [_split(run["value"], call, strict=False) for run in runs]
    splits.append(_split(learner.split_indices(n, val_fraction, seed), call, strict=False))
    first = splits[0]
    if len(splits) > 2 and not all(torch.equal(a, b) for a, b in zip(first, splits[2])):
        fail(
            f"{call} gave different splits when called again with the same seed, even after the "
            "same torch.manual_seed(0) both times: the split changes from call to call whatever "
            "the random states, so its generator is seeded at random (g.seed() draws a fresh "
            "seed from the system each time), not with seed. Seed it with the argument: "
            "g = torch.Generator().manual_seed(seed).",
            f"用相同的 seed 再次调用 {call}，即使两次之前都执行了同样的 torch.manual_seed(0)，"
            "得到的划分也不同：不管随机状态如何，划分每次调用都会变，所以它的生成器是随机设置种子的"
            "（g.seed() 每次都从系统取一个新的种子），而不是用 seed。请用参数设置种子："
            "g = torch.Generator().manual_seed(seed)。",
            evidence=["values_differ", "rng_seeded_at_random"],
        )
    for other in splits[1:]:
        if not all(torch.equal(a, b) for a, b in zip(first, other)):
            fail(
                f"{call} gave different splits when called again with the same seed (after "
                "torch.manual_seed(0), then torch.manual_seed(1)): it draws from torch's global random "
                "state. Draw from a generator of its own: g = torch.Generator().manual_seed(seed), then "
                "torch.randperm(n, generator=g).",
                f"用相同的 seed 再次调用 {call}（先执行 torch.manual_seed(0)，再执行 torch.manual_seed(1)）"
                "得到了不同的划分：它是从 torch 的全局随机状态中采样的。请使用它自己的生成器："
                "g = torch.Generator().manual_seed(seed)，然后 torch.randperm(n, generator=g)。",
                evidence=["values_differ", "global_rng_used"],
            )


def test_split_leaves_global_state(learner):
    n, val_fraction, seed = 50, 0.2, 3
    call = f"split_indices({n}, {val_fraction}, seed={seed})"
    runs = learner.run(split_under_global_seeds, n, val_fraction, seed)
    if not all(run["global_state_kept"] for run in runs):
        fail(
            f"{call} changed torch's global random state (torch.get_rng_state() differs before and "
            "after the call): it re-seeds it (torch.manual_seed inside) or draws from it (torch.randperm "
            "without generator=), so every random number the program draws afterwards changes. Draw from "
            "a generator of its own: g = torch.Generator().manual_seed(seed).",
            f"{call} 改变了 torch 的全局随机状态（调用前后 torch.get_rng_state() 不同）："
            "它在内部重新设置了种子（torch.manual_seed），或者从全局状态中采样（torch.randperm 没有传 "
            "generator=），于是程序之后生成的每个随机数都变了。请使用它自己的生成器："
            "g = torch.Generator().manual_seed(seed)。",
            evidence=["global_rng_changed", "global_rng_used"],
        )


_SEEDING_CALLS = (
    "random.seed",
    "random.Random",
    "np.random.seed",
    "np.random.default_rng",
    "np.random.RandomState",
    "np.random.Generator",
)


def split_under_other_libraries(module, n, val_fraction, seed):
    """The split drawn four times: as is, twice alike; after Python's and NumPy's global
    generators were seeded otherwise; and with every way to seed Python's or NumPy's
    generators (random.seed, random.Random, np.random.seed, np.random.default_rng,
    np.random.RandomState, NumPy's bit generators such as np.random.PCG64) seeding with another value than the one given. A split drawn from a
    torch.Generator is the same all four times; one that is the same twice alike and then moves
    was drawn from those libraries. Returns the four values and the names of the seeding calls
    the learner's code made."""
    offset = 1_000_003
    called = []

    def moved(value):
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            return (int(value) + offset) % 2**32
        return value

    def seeding(name, original):
        def seed(value=None, *args, **kwargs):
            called.append(name)
            return original(moved(value), *args, **kwargs)

        return seed

    class MovedRandom(random.Random):
        def seed(self, a=None, version=2):
            called.append("random.Random")
            super().seed(moved(a), version)

    class MovedRandomState(np.random.RandomState):
        def __init__(self, seed=None):
            called.append("np.random.RandomState")
            super().__init__(moved(seed))

        def seed(self, seed=None):
            called.append("np.random.RandomState")
            super().seed(moved(seed))

    def bit_generator(name):
        original = getattr(np.random, name)

        class Moved(original):
            def __init__(self, seed=None, *args, **kwargs):
                called.append("np.random.Generator")
                super().__init__(moved(seed), *args, **kwargs)

        return (np.random, name, Moved)

    bits = [
        n for n in ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64") if hasattr(np.random, n)
    ]
    swaps = [
        *(bit_generator(name) for name in bits),
        (random, "seed", seeding("random.seed", random.seed)),
        (random, "Random", MovedRandom),
        (np.random, "seed", seeding("np.random.seed", np.random.seed)),
        (np.random, "default_rng", seeding("np.random.default_rng", np.random.default_rng)),
        (np.random, "RandomState", MovedRandomState),
    ]
    # The learner's own names for them too (from numpy.random import default_rng)
    originals = {id(getattr(owner, name)): new for owner, name, new in swaps}
    for name, value in list(vars(module).items()):
        if id(value) in originals:
            swaps.append((module, name, originals[id(value)]))
    values = []
    for global_seed in (0, 0, 1):  # twice alike: a split that moves then is random anyway
        random.seed(global_seed)
        np.random.seed(global_seed)
        torch.manual_seed(0)  # torch's global state alike each time: its own tests judge it
        values.append(module.split_indices(n, val_fraction, seed))
    kept = [(owner, name, getattr(owner, name)) for owner, name, _ in swaps]
    try:
        for owner, name, new in swaps:
            setattr(owner, name, new)
        torch.manual_seed(0)
        values.append(module.split_indices(n, val_fraction, seed))
    finally:
        for owner, name, old in kept:
            setattr(owner, name, old)
    return {"values": values, "called": sorted(set(called))}


def torch_draws_in_split(module, n, val_fraction, seeds):
    """split_indices(n, val_fraction, seed) for each seed, and how many random draws torch made
    during those calls (any operation tagged ``nondeterministic_seeded``: randperm, rand,
    multinomial, randint, ..., from any generator, the global one included): a split that
    moves with the seed while torch drew nothing was shuffled by other means. None where a
    call raises (judged by the other tests)."""
    from torch.utils._python_dispatch import TorchDispatchMode

    draws = [0]

    class Draws(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            if torch.Tag.nondeterministic_seeded in func.tags:
                draws[0] += 1
            return func(*args, **(kwargs or {}))

    values = []
    try:
        with Draws():
            for seed in seeds:
                values.append(module.split_indices(n, val_fraction, seed))
    except Exception:  # noqa: BLE001 - no evidence: the other tests judge the call
        return None
    return {"values": values, "draws": draws[0]}


def test_split_from_torch_generator(learner):
    n, val_fraction, seed = 50, 0.2, 3
    call = f"split_indices({n}, {val_fraction}, seed={seed})"
    runs = learner.run(split_under_other_libraries, n, val_fraction, seed)
    values = runs.get("values") if isinstance(runs, dict) else None
    if not isinstance(values, list) or len(values) != 4:
        fail(
            f"{call} could not be drawn four times in a row.",
            f"无法连续四次调用 {call}。",
            evidence=["values_differ"],
        )
    # The splits as indices (the partition is judged by the partition tests).
    first, again, *others = [_split(value, call, strict=False) for value in values]
    if not all(torch.equal(a, b) for a, b in zip(first, again)):
        return  # another split under the same states: random, judged by the reproducibility tests
    after_globals, seeded_otherwise = (
        not all(torch.equal(a, b) for a, b in zip(first, other)) for other in others
    )
    if not (after_globals or seeded_otherwise):
        _drawn_by_torch(learner, n, val_fraction, seed, call)  # not from those libraries
        return
    called = runs.get("called")
    said = {name for name in called if isinstance(name, str)} if isinstance(called, list) else set()
    names = [name for name in _SEEDING_CALLS if name in said]
    library = (
        "NumPy"
        if all(name.startswith("np.") for name in names) and names
        else "Python's random module"
        if names and all(name.startswith("random") for name in names)
        else "Python's random module or NumPy"
    )
    library_zh = {
        "NumPy": "NumPy",
        "Python's random module": "Python 的 random 模块",
        "Python's random module or NumPy": "Python 的 random 模块或 NumPy",
    }[library]
    used = f" ({', '.join(names)})" if names else ""
    how_en, how_zh = (
        (
            f"it changed when {library} was seeded with another value than seed",
            f"当 {library_zh} 用 seed 以外的值设置种子时，它就变了",
        )
        if seeded_otherwise
        else (
            f"it changed when the global generator of {library} was seeded otherwise before the call",
            f"调用之前把 {library_zh} 的全局生成器设成别的种子，它就变了",
        )
    )
    fail(
        f"{call} draws its shuffle from {library}{used}, not from a torch.Generator: {how_en}. "
        "The exercise asks for a torch.Generator of its own, seeded with seed: "
        "g = torch.Generator().manual_seed(seed), then torch.randperm(n, generator=g).",
        f"{call} 的打乱来自 {library_zh}{used}，而不是 torch.Generator：{how_zh}。"
        "题目要求使用它自己的、用 seed 设置种子的 torch.Generator："
        "g = torch.Generator().manual_seed(seed)，然后 torch.randperm(n, generator=g)。",
        evidence=["values_differ", "other_library_rng"],
    )


def _drawn_by_torch(learner, n, val_fraction, seed, call):
    """Fail where the split moves with the seed although torch drew no random number during the
    calls (:func:`torch_draws_in_split`): a shuffle written by hand (an own linear congruential
    generator, a hash of the seed) does not come from a torch.Generator."""
    seeds = (seed, seed + 1, seed + 2)
    try:
        runs = learner.run(torch_draws_in_split, n, val_fraction, seeds)
    except LearnerFault:
        return
    if not isinstance(runs, dict) or runs.get("draws") != 0:
        return
    values = runs.get("values")
    if not isinstance(values, list) or len(values) != len(seeds):
        return
    try:
        splits = [_split(value, call, strict=False) for value in values]
    except CheckFailed:
        return
    if all(torch.equal(splits[0][0], other[0]) for other in splits[1:]):
        return  # the same split whatever the seed: no shuffle, judged by test_split_different_seeds
    fail(
        f"{call} shuffles without drawing a single random number from torch (no torch.randperm, "
        "torch.rand, torch.multinomial or other random operation ran while it was called three "
        "times with different seeds), although the split moves with the seed: the shuffle is "
        "computed by hand, not drawn from a torch.Generator. The exercise asks for a "
        "torch.Generator of its own, seeded with seed: g = torch.Generator().manual_seed(seed), "
        "then torch.randperm(n, generator=g).",
        f"{call} 在打乱时没有从 torch 抽取任何随机数（用三个不同的 seed 调用它时，没有运行 "
        "torch.randperm、torch.rand、torch.multinomial 或其他随机运算），而划分却随 seed 变化："
        "打乱是手工计算出来的，而不是从 torch.Generator 抽取的。题目要求使用它自己的、用 seed "
        "设置种子的 torch.Generator：g = torch.Generator().manual_seed(seed)，然后 "
        "torch.randperm(n, generator=g)。",
        evidence=["values_differ", "shuffled_without_torch"],
    )


def test_split_different_seeds(learner):
    n, val_fraction = 50, 0.2
    vals = []
    for seed in range(5):
        # The split as indices (the partition is judged by the partition tests).
        call = f"split_indices({n}, {val_fraction}, seed={seed})"
        _, val = _split(learner.split_indices(n, val_fraction, seed), call, strict=False)
        vals.append(tuple(sorted(val.tolist())))
    k = round(n * val_fraction)
    if all(v in (tuple(range(k)), tuple(range(n - k, n))) for v in vals):
        fail(
            f"split_indices({n}, {val_fraction}, seed) puts the first or the last {k} indices in the "
            "validation part for every seed: the indices are never shuffled. Shuffle them with "
            "torch.randperm(n, generator=g).",
            f"对每个 seed，split_indices({n}, {val_fraction}, seed) 都把最前面或最后面的 {k} 个下标放进验证部分："
            "下标根本没有被打乱。请用 torch.randperm(n, generator=g) 打乱它们。",
            evidence=["values_differ", "not_shuffled"],
        )
    if len(set(vals)) < 4:
        distinct = len(set(vals))
        got_en = (
            "the same validation set for all of them"
            if distinct == 1
            else f"only {distinct} different validation sets"
        )
        got_zh = "完全相同的验证集" if distinct == 1 else f"只有 {distinct} 种不同的验证集"
        fail(
            f"split_indices({n}, {val_fraction}, seed) for seeds 0 to 4 gave {got_en}: the seed does not "
            "reach the shuffle. Seed the generator with it: torch.Generator().manual_seed(seed).",
            f"seed 取 0 到 4 时，split_indices({n}, {val_fraction}, seed) 给出了{got_zh}："
            "seed 没有作用到打乱上。请用它为生成器设置种子：torch.Generator().manual_seed(seed)。",
            evidence=["values_differ", "rng_not_seeded"],
        )
