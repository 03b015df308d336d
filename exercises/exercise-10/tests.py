"""Hidden tests of exercise-10: NumPy interop and shared memory.

Seed pitfalls covered:
- 000 §6.2, 001 §7 (table): .numpy() refuses a tensor that requires grad ("Can't call numpy() on
  Tensor that requires grad") and a CUDA tensor (NumPy lives in CPU memory): detach().cpu()
  first. The requires-grad case runs everywhere, on a leaf (whose requires_grad and .grad must
  stay as they were) and on a computed tensor with a grad_fn; the CUDA case runs on GPU machines,
  and a meta tensor, which .numpy() refuses as it refuses a CUDA one, stands in for it anywhere.
- 000 §6.3: the dtype survives the trip (float32 stays float32); going through Python numbers
  (tolist()) turns it into float64.
- 000 §6.1-6.2, 001 §3.1, §5.5: torch.from_numpy shares memory with the array, and so does
  .float() when the array is already float32 (it returns the same tensor), and
  torch.as_tensor. The result must be independent for every dtype, read-only arrays included.
- torch.from_numpy, torch.as_tensor and torch.tensor all refuse arrays with negative strides
  (a[::-1], an image flipped with img[:, ::-1]). Arrays cross to the learner's process as
  contiguous copies, so reversed, transposed and sliced arrays are built there, by a scenario
  that also reports whether the result shares the array's memory.
"""

import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from grader.spec import Text
from grader.testing import (
    LearnerRaised,
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_independent,
    expect_array,
    expect_tensor,
    fail,
    names,
    shares,
)
from grader.testing.properties import PROPERTY


def _fmt(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# ---------------------------------------------------------------------------------------------
# to_numpy


def _check_array(got, want, what, *, dtype=True):
    """A NumPy array with want's shape, dtype (unless ``dtype=False``: another test's) and
    values."""
    got = expect_array(got, what)
    if got.shape != want.shape:
        we, wz = names(what)
        fail(
            f"{we} should have shape {_fmt(want.shape)}, but yours has shape {_fmt(got.shape)}.",
            f"{wz} 的形状应为 {_fmt(want.shape)}，但你的结果形状为 {_fmt(got.shape)}。",
            evidence=["wrong_shape"],
        )
    if dtype and got.dtype != want.dtype and got.dtype == np.float32:
        # float32 from a tensor of another dtype: something converted it on purpose (.float(),
        # .to(torch.float32), astype(np.float32)); to_numpy must keep t's dtype.
        we, wz = names(what)
        fail(
            f"{we} should have dtype {want.dtype} (NumPy's match for the tensor's dtype), but "
            "yours has dtype float32: your code converts to float32 (.float(), .to(torch.float32), "
            "astype(np.float32) or dtype=np.float32). to_numpy keeps t's dtype: remove the "
            "conversion, t.detach().cpu().numpy().",
            f"{wz} 的 dtype 应为 {want.dtype}（与张量 dtype 对应的 NumPy 类型），但你的结果是 "
            "float32：你的代码把它转换成了 float32（.float()、.to(torch.float32)、astype(np.float32) 或 "
            "dtype=np.float32）。"
            "to_numpy 要保持 t 的 dtype：去掉这个转换，t.detach().cpu().numpy()。",
            evidence=["wrong_dtype", "dtype_not_kept"],
        )
    if dtype and got.dtype != want.dtype:
        we, wz = names(what)
        fail(
            f"{we} should have dtype {want.dtype} (NumPy's match for the tensor's dtype), but "
            f"yours has dtype {got.dtype}. Going through Python numbers (tolist(), float()) or "
            "np.array(..., dtype=...) changes it; t.detach().cpu().numpy() keeps it.",
            f"{wz} 的 dtype 应为 {want.dtype}（与张量 dtype 对应的 NumPy 类型），但你的结果是 "
            f"{got.dtype}。经过 Python 数字（tolist()、float()）或 np.array(..., dtype=...) 会改变它；"
            "t.detach().cpu().numpy() 能保持它。",
            evidence=["wrong_dtype"],
        )
    assert_equal(
        torch.from_numpy(np.array(got)), torch.from_numpy(np.array(want)), what, check_dtype=False
    )


TO_NUMPY_CASES = [
    ((3, 4), torch.float32),
    ((5,), torch.float64),
    ((2, 3, 4), torch.float32),
    ((), torch.float32),
    ((0, 3), torch.float32),
    ((4, 2), torch.int64),
    ((6,), torch.int32),
    ((3, 3), torch.uint8),
    ((2, 5), torch.bool),
    ((4,), torch.float16),
]


def _tensor(rng, shape, dtype):
    if dtype == torch.bool:
        return torch.rand(shape, generator=rng) > 0.5
    if dtype == torch.uint8:
        return torch.randint(0, 256, shape, generator=rng, dtype=torch.uint8)
    if not dtype.is_floating_point:
        return torch.randint(-1000, 1000, shape, generator=rng, dtype=dtype)
    return torch.randn(shape, generator=rng, dtype=dtype)


def test_to_numpy_values(learner, reference, device, rng):
    cases = [(_tensor(rng, shape, dtype).to(device), ("", "")) for shape, dtype in TO_NUMPY_CASES]
    cases.append(
        (torch.randn(5, 3, generator=rng).to(device).t(), (", a transposed view", "（转置视图）"))
    )
    cases.append(
        (torch.randn(4, 6, generator=rng).to(device)[:, 1::2], (", a sliced view", "（切片视图）"))
    )
    for t, note in cases:
        dtype = str(t.dtype).removeprefix("torch.")
        what = Text(
            f"to_numpy(t) for t of dtype {dtype} and shape {_fmt(t.shape)}{note[0]}",
            f"t 的 dtype 为 {dtype}、形状为 {_fmt(t.shape)}{note[1]}时的 to_numpy(t)",
        )
        _check_array(learner.to_numpy(t), reference.to_numpy(t), what)


def grad_output_case(module, device):
    """A tensor computed from parameters that require grad (it has a grad_fn), as model outputs
    are, handed to module.to_numpy."""
    weights = torch.linspace(-1.0, 1.0, 12).reshape(3, 4).to(device).requires_grad_(True)
    output = torch.tanh(weights * 2.0 + 0.5)
    return {"array": module.to_numpy(output), "requires_grad": output.requires_grad}


def test_to_numpy_requires_grad(learner, reference, device, rng):
    leaf = torch.randn(4, 3, generator=rng).to(device).requires_grad_(True)
    leaf.grad = torch.ones_like(leaf)
    what = Text(
        "to_numpy(t) for a float32 t that requires grad (a parameter with a .grad)",
        "t 为需要梯度的 float32 张量（带有 .grad 的参数）时的 to_numpy(t)",
    )
    # The call also checks that t still requires grad and keeps its .grad afterwards. Values and
    # shape only: the array's dtype is test_to_numpy_values's.
    _check_array(learner.to_numpy(leaf), reference.to_numpy(leaf), what, dtype=False)
    got = learner.run(grad_output_case, device)
    want = grad_output_case(reference, device)
    what = Text(
        "to_numpy(t) for a t computed from weights that require grad (it has a grad_fn)",
        "t 由需要梯度的权重计算得到（带有 grad_fn）时的 to_numpy(t)",
    )
    _check_array(got["array"], want["array"], what, dtype=False)


def to_numpy_on_meta(module):
    """Runs in the learner's process: module.to_numpy on a tensor that is not in CPU memory. A
    meta tensor stands in for a CUDA one on any machine: .numpy() refuses it exactly as it
    refuses a CUDA tensor, while .cpu() (the fix) tries to copy its data out, which meta
    tensors cannot do: that attempt is the sign the code moves the tensor first."""
    t = torch.empty(3, 4, device="meta")
    try:
        value = module.to_numpy(t)
    except NotImplementedError as exc:  # "Cannot copy out of meta tensor; no data!"
        if "meta" not in str(exc):
            raise
        return {"moved": True}
    except TypeError as exc:  # "can't convert meta device type tensor to numpy. Use Tensor.cpu()"
        if "numpy" not in str(exc) or "meta" not in str(exc):
            raise
        return {"moved": False}
    return {"moved": True, "value": value}


def test_to_numpy_other_device(learner, reference, device, rng):
    if device != "meta":  # a GPU machine: the real thing, values only (the dtype is another test's)
        t = torch.randn(3, 4, generator=rng).to(device)
        what = Text(f"to_numpy(t) for a t on {device}", f"t 位于 {device} 时的 to_numpy(t)")
        _check_array(learner.to_numpy(t), reference.to_numpy(t), what, dtype=False)
        return
    got = learner.run(to_numpy_on_meta)
    if not got["moved"]:
        fail(
            "to_numpy(t) for a t that is not in CPU memory (a meta tensor, which stands in for a "
            "GPU tensor here) made an array of it directly (.numpy(), or np.asarray / np.array "
            "of the tensor, which call it), and PyTorch refused: a NumPy array "
            "lives in CPU memory, so a tensor on a GPU must be copied to the CPU first. Use "
            "t.detach().cpu().numpy(); .cpu() costs nothing for a tensor already on the CPU, so "
            "no `if t.is_cuda` is needed.",
            "to_numpy(t) 对一个不在 CPU 内存中的 t（meta 张量，在这里代替 GPU 张量）直接转换成了数组"
            "（.numpy()，或者对张量调用 np.asarray / np.array，它们内部也会调用 .numpy()），PyTorch 拒绝执行：NumPy 数组存放在 CPU 内存中，所以 GPU 上的张量必须先复制到 "
            "CPU。请使用 t.detach().cpu().numpy()；对已经在 CPU 上的张量，.cpu() 不需要任何代价，"
            "所以也不需要写 `if t.is_cuda`。",
            evidence=["numpy_of_device_tensor"],
        )
    if "value" in got:
        value = expect_array(
            got["value"],
            Text(
                "to_numpy(t) for a meta t of shape (3, 4)",
                "t 为形状 (3, 4) 的 meta 张量时的 to_numpy(t)",
            ),
        )
        if value.shape != (3, 4):
            fail(
                "to_numpy(t) for a float32 t of shape (3, 4) on another device should give a "
                f"float32 array of shape (3, 4), but yours has dtype {value.dtype} and shape "
                f"{_fmt(value.shape)}.",
                "to_numpy(t) 对另一设备上形状为 (3, 4) 的 float32 张量 t，应返回形状为 (3, 4) 的 "
                f"float32 数组，但你的结果 dtype 为 {value.dtype}，形状为 {_fmt(value.shape)}。",
                evidence=["wrong_shape"],
            )


# ---------------------------------------------------------------------------------------------
# from_numpy_safe


FROM_NUMPY_CASES = [
    ((3, 4), np.float64),
    ((3, 4), np.float32),
    ((5,), np.float16),
    ((2, 3, 2), np.int64),
    ((4,), np.int32),
    ((2, 3), np.uint8),
    ((3, 3), np.bool_),
    ((), np.float64),
    ((0, 3), np.float32),
]


def _array(np_rng, shape, dtype):
    if dtype == np.bool_:
        return np.asarray(np_rng.random(shape) > 0.5)
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        values = np_rng.integers(max(info.min, -1000), min(info.max, 1000), size=shape)
        return np.asarray(values).astype(dtype)
    return np.asarray(np_rng.standard_normal(shape) * 10).astype(dtype)


def _check_tensor(got, want, what, *, dtype=True):
    """want's shape and values, on the CPU; its dtype too unless ``dtype=False`` (another test's)."""
    got = expect_tensor(got, what)
    if want.dim() == 0 and tuple(got.shape) == (1,):
        we, wz = names(what)
        fail(
            f"{we} should be 0-dimensional (shape ()) like a, but yours has shape (1,). "
            "np.ascontiguousarray and np.atleast_1d turn a 0-d array into shape (1,); "
            "np.array(a, dtype=np.float32) or a.astype(np.float32) keep its shape.",
            f"{wz} 应当像 a 一样是 0 维的（形状为 ()），但你的结果形状为 (1,)。"
            "np.ascontiguousarray 和 np.atleast_1d 会把 0 维数组变成形状 (1,)；"
            "np.array(a, dtype=np.float32) 或 a.astype(np.float32) 会保持它的形状。",
            evidence=["wrong_shape"],
        )
    assert_device(got, "cpu", what)
    assert_close(got, want, what, rtol=0, atol=0, check_dtype=dtype)
    return got


# Why a float32 array is shared: the conversions that copy only when they must hand it back as
# it is. torch.tensor(a) is no way out here, since it refuses the reversed arrays.
SKIPPED_COPY = (
    " np.ascontiguousarray(a, dtype=np.float32), np.asarray, np.require, "
    "a.astype(np.float32, copy=False), torch.as_tensor, torch.asarray, .float(), "
    ".to(torch.float32) and .type(torch.FloatTensor) copy only when they must: an "
    "array that is already float32 (and, for ascontiguousarray, already contiguous) comes back as "
    "itself, and torch.from_numpy of it shares its memory. Copy every time: "
    "np.array(a, dtype=np.float32) or a.astype(np.float32), then torch.from_numpy.",
    "np.ascontiguousarray(a, dtype=np.float32)、np.asarray、np.require、"
    "a.astype(np.float32, copy=False)、torch.as_tensor、torch.asarray、.float()、.to(torch.float32) "
    "和 .type(torch.FloatTensor) 只在必要时才复制：已经是 float32"
    "（对 ascontiguousarray 而言还要已经连续）的数组会原样返回，torch.from_numpy 再与它共享内存。"
    "请每次都复制：np.array(a, dtype=np.float32) 或 a.astype(np.float32)，再调用 torch.from_numpy。",
)


def _assert_copied(got, a, what):
    """``got`` shares no memory with the array ``a``; for a float32 array the message says which
    conversions skip the copy."""
    if a.dtype == np.float32 and shares(got):
        we, wz = names(what)
        fail(
            f"{we} shares memory with the array: writing into the tensor would change a too."
            + SKIPPED_COPY[0],
            f"{wz} 与数组共享内存：修改这个张量也会改变 a。" + SKIPPED_COPY[1],
            evidence=["shares_memory"],
        )
    assert_independent(got, what)


def test_from_numpy_safe_values(learner, reference, seed):
    np_rng = np.random.default_rng(seed)
    for shape, dtype in FROM_NUMPY_CASES:
        a = _array(np_rng, shape, dtype)
        name = np.dtype(dtype).name
        what = Text(
            f"from_numpy_safe(a) for a {name} array of shape {_fmt(shape)}",
            f"a 为形状 {_fmt(shape)} 的 {name} 数组时的 from_numpy_safe(a)",
        )
        got = expect_tensor(learner.from_numpy_safe(a), what)
        assert_dtype(got, torch.float32, what)
        _check_tensor(got, reference.from_numpy_safe(a), what)


def test_from_numpy_safe_never_shares(learner, seed):
    np_rng = np.random.default_rng(seed)
    cases = [
        (
            _array(np_rng, (4, 3), np.float32),
            ("a float32 array of shape (4, 3)", "形状为 (4, 3) 的 float32 数组"),
        ),
        (
            _array(np_rng, (6,), np.float32),
            ("a float32 array of shape (6,)", "形状为 (6,) 的 float32 数组"),
        ),
        (
            _array(np_rng, (2, 5), np.float64),
            ("a float64 array of shape (2, 5)", "形状为 (2, 5) 的 float64 数组"),
        ),
        (
            _array(np_rng, (3, 2), np.int32),
            ("an int32 array of shape (3, 2)", "形状为 (3, 2) 的 int32 数组"),
        ),
    ]
    read_only = _array(np_rng, (3, 3), np.float32)
    read_only.flags.writeable = False
    cases.append(
        (
            read_only,
            ("a read-only float32 array of shape (3, 3)", "形状为 (3, 3) 的只读 float32 数组"),
        )
    )
    for a, label in cases:
        what = Text(f"from_numpy_safe(a) for {label[0]}", f"a 为{label[1]}时的 from_numpy_safe(a)")
        _assert_copied(expect_tensor(learner.from_numpy_safe(a), what), a, what)


def layout_case(module, layout):
    """Builds an array of the given memory layout here, in the learner's process (arrays are
    sent as contiguous copies), calls module.from_numpy_safe on it, and says whether the result
    shares the array's memory and whether the array was left as it was."""
    base = np.arange(35, dtype=np.float32).reshape(5, 7) * 0.5 - 4.0
    arrays = {
        "an array with reversed rows (a[::-1], negative strides)": base[::-1],
        "an array with reversed columns (a[:, ::-1], negative strides)": base[:, ::-1],
        "a transposed view (a.T)": base.T,
        "every other column of an array (a[:, ::2])": base[:, ::2],
        "a block of rows of an array (a[1:3])": base[1:3],
        "a float64 view with negative strides": base.astype(np.float64)[::-1, ::2],
        "a reversed int64 array": np.arange(10, dtype=np.int64)[::-1],
    }
    a = arrays[layout]
    before = a.copy()
    result = module.from_numpy_safe(a)
    shares = False
    if isinstance(result, torch.Tensor) and result.device.type == "cpu":
        storage = result.untyped_storage()
        owner = a
        while isinstance(owner.base, np.ndarray):
            owner = owner.base
        start = owner.__array_interface__["data"][0]
        shares = (
            storage.data_ptr() < start + owner.nbytes
            and start < storage.data_ptr() + storage.nbytes()
        )
    unchanged = bool(np.array_equal(a, before)) and a.dtype == before.dtype
    return {"value": result, "shares": shares, "unchanged": unchanged}


LAYOUTS = [
    "an array with reversed rows (a[::-1], negative strides)",
    "an array with reversed columns (a[:, ::-1], negative strides)",
    "a transposed view (a.T)",
    "every other column of an array (a[:, ::2])",
    "a block of rows of an array (a[1:3])",
    "a float64 view with negative strides",
    "a reversed int64 array",
]


LAYOUTS_ZH = {
    "an array with reversed rows (a[::-1], negative strides)": "行被反转的数组（a[::-1]，步长为负）",
    "an array with reversed columns (a[:, ::-1], negative strides)": "列被反转的数组（a[:, ::-1]，步长为负）",
    "a transposed view (a.T)": "转置视图（a.T）",
    "every other column of an array (a[:, ::2])": "每隔一列取出的数组（a[:, ::2]）",
    "a block of rows of an array (a[1:3])": "数组中的若干行（a[1:3]）",
    "a float64 view with negative strides": "步长为负的 float64 视图",
    "a reversed int64 array": "反转的 int64 数组",
}


def test_from_numpy_safe_any_layout(learner, reference):
    # Views: values, independence and a left as it was; the dtype is the values test's.
    for layout in LAYOUTS:
        what = Text(
            f"from_numpy_safe(a) for {layout}", f"a 为{LAYOUTS_ZH[layout]}时的 from_numpy_safe(a)"
        )
        got = learner.run(layout_case, layout)
        want = layout_case(reference, layout)
        tensor = expect_tensor(got["value"], what)
        _check_tensor(tensor, want["value"], what, dtype=False)
        if not got["unchanged"]:
            we, wz = names(what)
            fail(
                f"{we} changed the array a; it must be left as it was.",
                f"{wz} 修改了数组 a；它必须保持原样。",
                evidence=["input_mutated"],
            )
        if got["shares"]:
            we, wz = names(what)
            if "float64" in layout or "int64" in layout:
                en = (
                    " Make a copy (np.array(a, dtype=np.float32), a.astype(np.float32) or "
                    ".clone())."
                )
                zh = "请复制一份（np.array(a, dtype=np.float32)、a.astype(np.float32) 或 .clone()）。"
            else:
                en, zh = SKIPPED_COPY
            fail(
                f"{we} shares memory with a: writing into the tensor would change the array.{en}",
                f"{wz} 与 a 共享内存：修改这个张量也会改变数组。{zh}",
                evidence=["shares_memory"],
            )


_AS_SIZE = (
    " torch.FloatTensor(a) (like torch.Tensor(a)) reads a 0-d integer array as a number, and "
    "takes a number as a shape: torch.FloatTensor(np.array(3)) is 3 uninitialised floats, and a "
    'negative one raises "negative dimension". Convert the data instead: '
    "torch.from_numpy(a.astype(np.float32)) (or torch.tensor(a.copy(), dtype=torch.float32)).",
    "torch.FloatTensor(a)（和 torch.Tensor(a) 一样）会把 0 维整数数组当作一个数，再把这个数当作形状："
    'torch.FloatTensor(np.array(3)) 是 3 个未初始化的浮点数，负数则会报错 "negative dimension"。'
    "请转换数据本身：torch.from_numpy(a.astype(np.float32))（或 "
    "torch.tensor(a.copy(), dtype=torch.float32)）。",
)


def _number_as_size(a):
    """The shape a legacy constructor gives a 0-d integer array (it reads it as a size), or
    None for any other array."""
    if a.ndim != 0 or a.dtype.kind not in "iu":
        return None
    return int(a)


def _from_number(learner, a):
    """learner.from_numpy_safe(a); a "negative dimension" refusal of a 0-d integer array, whose
    value is the dimension named, is torch.FloatTensor reading the value as a shape."""
    try:
        return learner.from_numpy_safe(a)
    except LearnerRaised as exc:
        size = _number_as_size(a)
        if size is not None and size < 0 and f"negative dimension {size}:" in exc.text:
            en, zh = exc.message.en.rstrip(), exc.message.zh.rstrip()
            exc.message = Text(
                f"{en}{'' if en.endswith('.') else '.'} a was the 0-d int array "
                f"np.array({size}).{_AS_SIZE[0]}",
                f"{zh}{'' if zh.endswith('。') else '。'}a 是 0 维整数数组 np.array({size})。"
                f"{_AS_SIZE[1]}",
            )
            exc.evidence = (*exc.evidence, "tensor_constructor_trap")
        raise


def _as_size(got, a, what):
    """A 0-d integer array n turned into a tensor of shape (n,): its value read as a shape."""
    size = _number_as_size(a)
    if size is None or size < 0 or tuple(got.shape) != (size,):
        return
    if size == 1 and got.dtype.is_floating_point and float(got.reshape(())) == float(a):
        return  # the value kept, in shape (1,): np.atleast_1d, judged by _check_tensor
    we, wz = names(what)
    fail(
        f"{we} has shape ({size},): the value {size} of the 0-d array became the shape."
        + _AS_SIZE[0],
        f"{wz} 的形状为 ({size},)：0 维数组的值 {size} 变成了形状。" + _AS_SIZE[1],
        evidence=["wrong_shape", "tensor_constructor_trap"],
    )


@st.composite
def _any_array(draw):
    """An array of a random numeric or bool dtype and shape (0-d and empty included)."""
    dtype = np.dtype(
        draw(st.sampled_from([np.float64, np.float32, np.int64, np.int16, np.uint8, np.bool_]))
    )
    shape = draw(array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    if dtype == np.bool_:
        elements = st.booleans()
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        elements = st.integers(max(int(info.min), -1000), min(int(info.max), 1000))
    else:
        elements = st.floats(-1000, 1000, width=dtype.itemsize * 8)
    return draw(arrays(dtype, shape, elements=elements))


@settings(parent=PROPERTY, max_examples=15)
@given(a=_any_array())
def test_from_numpy_safe_property(learner, a):
    # Each array is tried as drawn and as float32, the dtype where sharing is easiest to miss.
    for array in (a, a.astype(np.float32)):
        what = Text(
            f"from_numpy_safe(a) for a {array.dtype} array of shape {_fmt(array.shape)}",
            f"a 为形状 {_fmt(array.shape)} 的 {array.dtype} 数组时的 from_numpy_safe(a)",
        )
        got = expect_tensor(_from_number(learner, array), what)
        _as_size(got, array, what)
        assert_dtype(got, torch.float32, what)
        _check_tensor(got, torch.from_numpy(array.astype(np.float32)), what)
        _assert_copied(got, array, what)
