"""Hidden tests of exercise-01: creating tensors.

Pitfalls from the seeds: torch.Tensor(3) versus torch.tensor(3) (000 §2.1), integer versus float
defaults (001 §4.3), rand versus randn for weights (000 §2.2, 003 §1.2), creating tensors on the
device asked for (001 §3.6). The meta device stands in for a GPU on machines without one.
"""

import torch

from grader.testing import (
    assert_close,
    assert_device,
    assert_dtype,
    assert_shape,
    expect_tensor,
    fail,
)

GRIDS = [(2, 3), (1, 1), (4, 1), (1, 5), (3, 3), (0, 4)]


def test_make_grid_values(learner, reference, device):
    for rows, cols in GRIDS:
        got = learner.make_grid(rows, cols, device=device)
        assert_close(
            got,
            reference.make_grid(rows, cols, device=device),
            f"make_grid({rows}, {cols})",
            rtol=0,
            atol=0,
        )


def test_make_grid_default_device(learner, reference):
    got = learner.make_grid(2, 3)
    assert_close(
        got, reference.make_grid(2, 3), "make_grid(2, 3) with the default device", rtol=0, atol=0
    )


def test_make_grid_on_requested_device(learner):
    # "meta" tensors have a device but no data: a grid made on the CPU and left there fails here
    # exactly as it would on a GPU.
    got = expect_tensor(learner.make_grid(3, 4, device="meta"), 'make_grid(3, 4, device="meta")')
    assert_device(got, "meta", 'make_grid(3, 4, device="meta")')
    assert_shape(got, (3, 4), 'make_grid(3, 4, device="meta")')
    assert_dtype(got, torch.float32, 'make_grid(3, 4, device="meta")')


def test_make_scalar(learner, reference):
    for value in (3, 2.5, -7, 0, 1e6):
        got = expect_tensor(learner.make_scalar(value), f"make_scalar({value!r})")
        if got.dim() != 0:
            fail(
                f"make_scalar({value!r}) should be a 0-dimensional tensor (shape ()), but yours has "
                f"shape {tuple(got.shape)}. torch.Tensor(n) makes n uninitialised values; "
                "torch.tensor(value) makes a tensor holding value.",
                f"make_scalar({value!r}) 应该是 0 维张量（形状为 ()），但你的结果形状为 "
                f"{tuple(got.shape)}。torch.Tensor(n) 会创建 n 个未初始化的值；"
                "torch.tensor(value) 才会创建包含 value 的张量。",
                evidence=["wrong_shape", "tensor_constructor_trap"],
            )
        assert_close(got, reference.make_scalar(value), f"make_scalar({value!r})", rtol=0, atol=0)


def test_init_weights_shape_and_dtype(learner):
    for fan_in, fan_out in ((3, 5), (1, 1), (16, 4)):
        what = f"init_weights({fan_in}, {fan_out}, generator)"
        got = expect_tensor(
            learner.init_weights(fan_in, fan_out, torch.Generator().manual_seed(0)), what
        )
        assert_shape(got, (fan_in, fan_out), what)
        assert_dtype(got, torch.float32, what)


def test_init_weights_distribution(learner):
    got = expect_tensor(
        learner.init_weights(256, 128, torch.Generator().manual_seed(1)),
        "init_weights(256, 128, generator)",
    )
    values = got.detach().cpu().double()
    mean, std, negative = (
        float(values.mean()),
        float(values.std()),
        float((values < 0).double().mean()),
    )
    if negative < 0.3 or abs(mean) > 0.002:
        fail(
            f"init_weights should draw from a normal distribution centred on 0, but your weights "
            f"have mean {mean:.4f} and {negative:.0%} of them are negative. torch.rand is uniform "
            "on [0, 1); torch.randn is the standard normal.",
            f"init_weights 应该从以 0 为中心的正态分布中采样，但你的权重均值为 {mean:.4f}，"
            f"其中只有 {negative:.0%} 为负数。torch.rand 是 [0, 1) 上的均匀分布；torch.randn 才是标准正态分布。",
            evidence=["uniform_instead_of_normal"],
        )
    if not 0.009 < std < 0.011:
        fail(
            f"init_weights should have a standard deviation of 0.01, but yours is {std:.4f}.",
            f"init_weights 的标准差应为 0.01，但你的结果是 {std:.4f}。",
            evidence=["wrong_scale"],
        )


def generator_run(module, seed):
    # Runs in the learner's process: the same generator state must give the same weights whatever
    # the global random state, the draw must come from (advance) the generator, and the global
    # random state must be left alone. Any draw order is fine (randn(out, in).T is correct too).
    torch.manual_seed(1234)
    first = module.init_weights(4, 3, torch.Generator().manual_seed(seed))
    torch.manual_seed(5678)
    global_before = torch.get_rng_state()
    generator = torch.Generator().manual_seed(seed)
    second = module.init_weights(4, 3, generator)
    global_untouched = bool(torch.equal(torch.get_rng_state(), global_before))
    advanced = not torch.equal(
        generator.get_state(), torch.Generator().manual_seed(seed).get_state()
    )
    other = module.init_weights(4, 3, torch.Generator().manual_seed(seed + 1))
    as_data = [
        t.detach().cpu().double() if isinstance(t, torch.Tensor) else None
        for t in (first, second, other)
    ]
    return {
        "tensors": all(t is not None and t.shape == (4, 3) for t in as_data),
        "same_state_same_weights": as_data[0] is not None
        and as_data[1] is not None
        and bool(torch.equal(as_data[0], as_data[1])),
        "other_seed_differs": as_data[0] is not None
        and as_data[2] is not None
        and not bool(torch.equal(as_data[0], as_data[2])),
        "advanced": advanced,
        "global_untouched": global_untouched,
    }


def test_init_weights_uses_generator(learner):
    for seed in (0, 7):
        got = learner.run(generator_run, seed)
        if not got["tensors"]:
            # shape and type are judged (with their own messages) by the other init_weights tests
            got_w = expect_tensor(
                learner.init_weights(4, 3, torch.Generator().manual_seed(seed)),
                "init_weights(4, 3, generator)",
            )
            assert_shape(got_w, (4, 3), "init_weights(4, 3, generator)")
        uses = (
            got["same_state_same_weights"]
            and got["other_seed_differs"]
            and got["advanced"]
            and got["global_untouched"]
        )
        if not uses:
            fail(
                "init_weights(4, 3, generator) should draw its numbers from `generator` (pass "
                "generator=generator), so the same generator state always gives the same weights "
                "whatever the global random state; yours "
                + (
                    "gave other weights for the same generator state"
                    if not got["same_state_same_weights"]
                    else "did not draw from the generator"
                    if not got["advanced"] or not got["other_seed_differs"]
                    else "changed the global random state"
                )
                + ".",
                "init_weights(4, 3, generator) 应该用 `generator` 采样（传入 generator=generator），"
                "这样无论全局随机状态如何，相同的生成器状态总会得到相同的权重；你的结果"
                + (
                    "在相同的生成器状态下给出了不同的权重"
                    if not got["same_state_same_weights"]
                    else "没有从生成器中采样"
                    if not got["advanced"] or not got["other_seed_differs"]
                    else "改变了全局随机状态"
                )
                + "。",
                evidence=["ignores_generator"],
            )
