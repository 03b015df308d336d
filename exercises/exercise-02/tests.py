"""Hidden tests of exercise-02: tensor attributes.

Pitfalls from the seeds:
- shape is a torch.Size, a tuple of ints; ndim counts the dimensions, numel() every element, while
  len(t) is only the size of the first dimension (000 §3.1, 001 §4.1-4.2);
- dtype is torch.float32, torch.int64, ... (000 §3.1-3.2, 001 §4.3), not the legacy tensor type
  name that t.type() gives ("torch.FloatTensor", the alias 000 §2.1 mentions); the attributes are
  objects (torch.dtype, torch.device) and describe asks for their text;
- device is "cpu", "cuda:0" (000 §3.3, 001 §4.4); "meta" tensors stand in for a GPU here;
- transpose, permute and slicing change the strides without moving any data, so such views are
  not contiguous (001 §4.6, 000 §2.3); is_contiguous() and stride() are methods, to be called;
- memory is numel x element size (000 §3.2: a (1, 3, 224, 224) float32 tensor takes 602112 bytes,
  float64 twice that), and a slice is a view of a bigger storage (000 §4.3, 001 §5.1), so the
  storage's size is not the tensor's.

Every case is described on the device under test; views are made on the device (moving a sliced
view with .to() would make it contiguous).
"""

import math
import sys
from contextlib import contextmanager

import torch

from grader.testing import LearnerRaised, Opaque, Text, assert_type, fail
from grader.testing.checks import describe as describe_value
from grader.testing.checks import describe_zh as describe_value_zh

KEYS = ("shape", "ndim", "numel", "dtype", "device", "contiguous", "stride")


# ---------------------------------------------------------------------------------------------
# Inputs: (the code that makes an equivalent tensor, the tensor); the code names the case in
# messages in both languages.


def _on(device):
    return "" if device == "cpu" else f", device={device!r}"


def _randn(rng, *shape, dtype=torch.float32):
    return torch.randn(*shape, generator=rng).to(dtype)


def _contiguous_cases(rng, device):
    d = _on(device)
    yield f"torch.randn(2, 3, 4{d})", _randn(rng, 2, 3, 4).to(device)
    yield f"torch.tensor(3.5{d})", torch.tensor(3.5).to(device)
    yield f"torch.randint(-9, 9, (5,){d})", torch.randint(-9, 9, (5,), generator=rng).to(device)
    yield f"torch.zeros(0, 3{d})", torch.zeros(0, 3).to(device)
    yield (
        f"torch.randn(3, 1, dtype=torch.float64{d})",
        _randn(rng, 3, 1, dtype=torch.float64).to(device),
    )


def _view_cases(rng, device):
    d = _on(device)
    yield f"torch.randn(3, 4{d}).t()", _randn(rng, 3, 4).to(device).t()
    yield (
        f"torch.randn(2, 3, 4{d}).permute(2, 0, 1)",
        _randn(rng, 2, 3, 4).to(device).permute(2, 0, 1),
    )
    yield f"torch.randn(3, 6{d})[:, ::2]", _randn(rng, 3, 6).to(device)[:, ::2]
    yield f"torch.randn(4, 5{d})[1:]", _randn(rng, 4, 5).to(device)[1:]
    yield f"torch.randn(4, 5{d})[:, 1:3]", _randn(rng, 4, 5).to(device)[:, 1:3]
    yield f"torch.randn(3, 1{d}).expand(3, 4)", _randn(rng, 3, 1).to(device).expand(3, 4)


DTYPES = (
    torch.float32,
    torch.float64,
    torch.float16,
    torch.int64,
    torch.int32,
    torch.int8,
    torch.uint8,
    torch.bool,
)


def _of_dtype(rng, shape, dtype, device):
    code = f"torch.zeros({', '.join(map(str, shape))}, dtype={dtype}{_on(device)})"
    return code, (torch.rand(*shape, generator=rng) * 4).to(dtype).to(device)


# ---------------------------------------------------------------------------------------------
# Checking describe's answer

KINDS = {
    "shape": "tuple of int",
    "ndim": "int",
    "numel": "int",
    "dtype": "str",
    "device": "str",
    "contiguous": "bool",
    "stride": "tuple of int",
}
KIND_TEXT = {
    "tuple of int": ("a tuple of ints", "由整数组成的元组（tuple）"),
    "int": ("a Python int", "Python 整数（int）"),
    "str": ("a string (str)", "字符串（str）"),
    "bool": ("a bool (True or False)", "布尔值（True 或 False）"),
}


def _call_describe(learner, t, code):
    got = learner.describe(t)
    assert_type(got, dict, f"describe(t) (t = {code})")
    return got


def _type_problem(value, kind):
    """(en, zh, evidence) when ``value`` is not of the kind asked for, else None."""
    if kind == "tuple of int":
        ok = isinstance(value, tuple) and all(type(d) is int for d in value)
    else:
        ok = type(value) is {"int": int, "str": str, "bool": bool}[kind]
    if ok:
        return None
    evidence = ["wrong_type"]
    en = zh = ""
    if isinstance(value, Opaque) and "method" in value.type_name:
        en = " That is the method itself: call it, with parentheses (t.numel(), t.is_contiguous(), t.stride())."
        zh = "这是方法本身：需要加上括号调用它（t.numel()、t.is_contiguous()、t.stride()）。"
        evidence.append("method_not_called")
    elif isinstance(value, (torch.dtype, torch.device)):
        attribute = "dtype" if isinstance(value, torch.dtype) else "device"
        en = f" That is the {attribute} object; describe asks for its text: str(t.{attribute})."
        zh = f"这是 {attribute} 对象本身；describe 要的是它的字符串形式：str(t.{attribute})。"
        evidence.append("object_instead_of_string")
    elif isinstance(value, list) and kind == "tuple of int":
        en = " Convert it with tuple(...)."
        zh = "请用 tuple(...) 转换。"
    elif isinstance(value, torch.Tensor) and kind == "bool" and value.dim() > 0:
        # t.contiguous() (a tensor: a contiguous copy) where t.is_contiguous() was due
        en = (
            " That is a tensor: t.contiguous() returns a contiguous copy of t, not an answer. "
            "The bool is t.is_contiguous()."
        )
        zh = "这是一个张量：t.contiguous() 返回 t 的连续副本，而不是答案。布尔值是 t.is_contiguous()。"
    elif isinstance(value, torch.Tensor) and kind == "bool":
        en = " Return a Python bool, not a tensor: t.is_contiguous() is one already."
        zh = "请返回 Python 布尔值，而不是张量：t.is_contiguous() 本身就是布尔值。"
    elif isinstance(value, torch.Tensor):
        en = (
            " Return a Python int, not a tensor: t.numel(), t.dim() and t.element_size() "
            "are Python ints already."
        )
        zh = "请返回 Python 整数，而不是张量：t.numel()、t.dim() 和 t.element_size() 本身就是 Python 整数。"
    elif kind == "int" and type(value) is float and math.isfinite(value) and value.is_integer():
        en = (
            " That is a float, of a whole number: / gives a float even where it divides "
            "exactly (32 / 8 is 4.0), and so does any product with a float (n * 4.0, "
            "float(...)). t.numel(), t.dim() and t.element_size() are ints: keep to them, and "
            "use // where a division is exact."
        )
        zh = (
            "这是一个浮点数（数值是整数）：/ 的结果总是浮点数，即使能整除也一样（32 / 8 是 4.0），"
            "与浮点数相乘（n * 4.0、float(...)）也是如此。t.numel()、t.dim() 和 t.element_size() "
            "都是整数：只用它们计算，能整除时用 //。"
        )
        evidence.append("whole_float_not_int")
    elif kind == "int" and type(value).__module__ == "numpy":
        en = " That is a NumPy number: use t.numel() / t.dim(), or convert it with int(...)."
        zh = "这是 NumPy 数字：请使用 t.numel() / t.dim()，或用 int(...) 转换。"
    return en, zh, evidence


def _expect_kind(value, kind, what_en, what_zh):
    problem = _type_problem(value, kind)
    if problem is None:
        return
    en, zh, evidence = problem
    kind_en, kind_zh = KIND_TEXT[kind]
    fail(
        f"{what_en} should be {kind_en}, but yours is {describe_value(value)}.{en}",
        f"{what_zh}应该是{kind_zh}，但你的结果是 {describe_value_zh(value)}。{zh}",
        evidence=evidence,
    )


def _fresh_layout(t, key):
    """The contiguity or strides a new tensor of t's shape would have (row-major order)."""
    if key == "contiguous":
        return True
    strides, step = [], 1
    for size in reversed(t.shape):
        strides.append(step)
        step *= max(size, 1)
    return tuple(reversed(strides))


def _comparable(value, key):
    """The value as the values tests compare it: any sequence of ints for a shape or strides
    (a list, a torch.Size, NumPy ints), since the type is judged by test_describe_keys_and_types."""
    if key in ("shape", "stride") and isinstance(value, (tuple, list)):
        return tuple(value)
    return value


def _check_key(got, key, t, want, code):
    """describe(t)[key] has the right value (its type is judged by test_describe_keys_and_types);
    explains the classic wrong answers."""
    what_en = f"describe(t)[{key!r}] for t = {code}"
    what_zh = f"t = {code} 时，describe(t)[{key!r}] "
    if key not in got:
        fail(
            f"describe(t) for t = {code} has no key {key!r}; it must have exactly the keys "
            f"{', '.join(KEYS)}. Fix the keys first (see the test of describe's keys and types).",
            f"t = {code} 时，describe(t) 中没有键 {key!r}；它必须恰好包含这些键：{', '.join(KEYS)}。"
            "请先修正这些键（见检查 describe 的键和类型的那项测试）。",
            evidence=["missing_key"],
        )
    value = _comparable(got[key], key)
    expected = _comparable(want[key], key)
    try:
        same = bool(value == expected)
    except (RuntimeError, TypeError, ValueError):  # e.g. a tensor of another shape
        same = False
    if same:
        return
    en = zh = ""
    evidence = ["values_differ"]
    problem = _type_problem(got[key], KINDS[key])
    if problem is not None and problem[0]:
        # Not even of the kind asked for (a method, a dtype object): say why.
        en, zh, evidence = problem[0], problem[1], ["values_differ", *problem[2]]
    elif key == "numel" and t.dim() > 0 and value == t.shape[0]:
        en = (
            " len(t) is the size of the first dimension only; numel() counts every element "
            "(the product of the shape)."
        )
        zh = "len(t) 只是第一个维度的大小；numel() 统计的是全部元素的个数（形状各维的乘积）。"
        evidence.append("len_instead_of_numel")
    elif key == "numel" and t.dim() > 1 and value == sum(t.shape) != t.numel():
        en = (
            " That is the sum of the sizes; the number of elements is their product: "
            "t.numel() (or math.prod(t.shape))."
        )
        zh = "这是各维大小之和；元素个数是它们的乘积：t.numel()（或 math.prod(t.shape)）。"
        evidence.append("numel_summed")
    elif key == "device" and t.device.type != "meta" and value == str(t.get_device()):
        en = (
            " t.get_device() is the index of a GPU (-1 for the CPU), not the device: "
            "write str(t.device)."
        )
        zh = "t.get_device() 是 GPU 的编号（CPU 上为 -1），而不是设备本身：请写 str(t.device)。"
        evidence.append("device_index_only")
    elif key == "dtype" and value == t.type():
        en = (
            f" t.type() gives the legacy tensor type name ({value}); the dtype is t.dtype, "
            "written as text with str(t.dtype)."
        )
        zh = (
            f"t.type() 返回的是旧式的张量类型名（{value}）；dtype 是 t.dtype，"
            "用 str(t.dtype) 转换为字符串。"
        )
        evidence.append("legacy_type_string")
    elif key == "dtype" and value == expected.removeprefix("torch."):
        en = ' Keep the "torch." prefix, as str(t.dtype) writes it.'
        zh = '请保留 "torch." 前缀，与 str(t.dtype) 的写法一致。'
    elif key == "device" and value == expected.split(":")[0]:
        en = " Keep the device index, as str(t.device) writes it; t.device.type drops it."
        zh = "请保留设备编号，与 str(t.device) 的写法一致；t.device.type 会丢掉编号。"
    elif key in ("contiguous", "stride") and value == _fresh_layout(t, key):
        en = (
            " That is what a new tensor of this shape would have, but transpose, permute, "
            "slicing and expand change the strides without moving the data: read them from the "
            "tensor itself (t.stride(), t.is_contiguous())."
        )
        zh = (
            "这是同样形状的新建张量才会有的值；transpose、permute、切片和 expand 不移动数据，"
            "只改变步长：请直接从张量本身读取（t.stride()、t.is_contiguous()）。"
        )
        evidence.append("layout_from_shape")
    elif key in ("shape", "stride") and value == _comparable(
        tuple(t.stride()) if key == "shape" else tuple(t.shape), key
    ):
        other = "stride" if key == "shape" else "shape"
        call = "t.stride()" if key == "shape" else "t.shape"
        right = "tuple(t.shape)" if key == "shape" else "t.stride()"
        en = f" That is t's {other} ({call}); the {key} is {right}."
        zh = f"这是 t 的 {other}（{call}）；{key} 应该是 {right}。"
        evidence.append("shape_stride_swapped")
    fail(
        f"{what_en} should be {expected!r}, but yours is {describe_value(got[key])}.{en}",
        f"{what_zh}应为 {expected!r}，但你的结果是 {describe_value_zh(got[key])}。{zh}",
        evidence=evidence,
    )


def _describe_keys(learner, reference, cases, keys):
    for code, t in cases:
        got = _call_describe(learner, t, code)
        want = reference.describe(t)
        for key in keys:
            _check_key(got, key, t, want, code)


# ---------------------------------------------------------------------------------------------
# describe


def _without_0d(cases):
    # 0-dimensional tensors are judged by test_describe_shape_ndim_numel (and nbytes by
    # test_nbytes_float32): a describe that breaks on them (len(t)) loses that test only.
    return [(code, t) for code, t in cases if t.dim() > 0]


def test_describe_keys_and_types(learner, device, rng):
    cases = _without_0d(
        list(_contiguous_cases(rng, device))
        + list(_view_cases(rng, device))
        + [_of_dtype(rng, (2, 3), dtype, device) for dtype in DTYPES]
    )
    for code, t in cases:
        got = _call_describe(learner, t, code)
        missing = [k for k in KEYS if k not in got]
        extra = [repr(k) for k in got if k not in KEYS]
        if missing or extra:
            lacks_en = f"lacks {', '.join(map(repr, missing))}" if missing else ""
            extra_en = f"also has {', '.join(extra)}" if extra else ""
            lacks_zh = f"缺少 {', '.join(map(repr, missing))}" if missing else ""
            extra_zh = f"多出了 {', '.join(extra)}" if extra else ""
            fail(
                f"describe(t) should have exactly the keys {', '.join(KEYS)}; yours "
                + " and ".join(p for p in (lacks_en, extra_en) if p)
                + f" (t = {code}).",
                f"describe(t) 应该恰好包含这些键：{', '.join(KEYS)}；你的结果"
                + "，并且".join(p for p in (lacks_zh, extra_zh) if p)
                + f"（t = {code}）。",
                evidence=["missing_key"],
            )
        for key in KEYS:
            _expect_kind(
                got[key],
                KINDS[key],
                f"describe(t)[{key!r}] for t = {code}",
                f"t = {code} 时，describe(t)[{key!r}] ",
            )


def test_describe_shape_ndim_numel(learner, reference, device, rng):
    cases = list(_contiguous_cases(rng, device)) + list(_view_cases(rng, device))
    _describe_keys(learner, reference, cases, ("shape", "ndim", "numel"))


def test_describe_dtype(learner, reference, device, rng):
    cases = [_of_dtype(rng, (2, 3), dtype, device) for dtype in DTYPES]
    _describe_keys(learner, reference, cases, ("dtype",))


def indexed_device_run(module):
    # Runs in the learner's process: a CPU tensor whose class says it lies on cuda:1, so that a
    # describe dropping the device index (t.device.type) shows without a GPU. Only the text
    # describe gave for "device" comes back; the test judges it.
    class OnCuda1(torch.Tensor):
        # every way a tensor tells its device, alike: code may ask any of them
        @property
        def device(self):
            return torch.device("cuda", 1)

        @property
        def is_cuda(self):
            return True

        @property
        def is_cpu(self):
            return False

        def get_device(self):
            return 1

    got = module.describe(torch.zeros(2, 3).as_subclass(OnCuda1))
    value = got.get("device") if isinstance(got, dict) else None
    return value if isinstance(value, str) else None


def test_describe_device(learner, reference, device, rng):
    # Runs on meta (and CUDA): a CPU tensor next to one on the device under test, so code that
    # knows only "cpu" (or only "cpu" and "cuda") shows on any machine.
    cases = [
        ("torch.randn(2, 3)", _randn(rng, 2, 3)),
        _of_dtype(rng, (2, 3), torch.float32, device),
        _of_dtype(rng, (4,), torch.int64, device),
    ]
    _describe_keys(learner, reference, cases, ("device",))
    # "cuda:1" against "cuda" (t.device.type drops the index), on a CPU tensor that reports
    # cuda:1. Only that answer is judged: code that asks t.is_cuda or t.get_device() sees a
    # CPU tensor here and is judged on a GPU alone.
    try:
        named = learner.run(indexed_device_run)
    except LearnerRaised:
        return
    if named == "cuda":
        fail(
            "describe(t)['device'] for a tensor on cuda:1 should be 'cuda:1', but yours is "
            "'cuda'. Keep the device index, as str(t.device) writes it; t.device.type drops it.",
            "张量位于 cuda:1 时，describe(t)['device'] 应为 'cuda:1'，但你的结果是 'cuda'。"
            "请保留设备编号，与 str(t.device) 的写法一致；t.device.type 会丢掉编号。",
            evidence=["values_differ"],
        )


def test_describe_memory_layout(learner, reference, device, rng):
    cases = _without_0d(list(_contiguous_cases(rng, device)) + list(_view_cases(rng, device)))
    _describe_keys(learner, reference, cases, ("contiguous", "stride"))


# ---------------------------------------------------------------------------------------------
# nbytes


def _storage_bytes_seen(t):
    """The size of the storage that the learner's copy of ``t`` is a view of."""
    if t.device.type == "meta":  # meta tensors travel as empty_strided: the smallest storage
        blank = torch.empty_strided(t.shape, t.stride(), dtype=t.dtype, device="meta")
        return blank.untyped_storage().nbytes()
    return t.untyped_storage().nbytes()


def _storage_bytes_apart(t):
    """The size of the storage t is a view of, where it differs from t's own bytes."""
    seen = _storage_bytes_seen(t)
    return seen if seen != t.numel() * t.element_size() else None


def _same_number(got, want):
    try:
        return not isinstance(got, bool) and bool(got == want)
    except (RuntimeError, TypeError, ValueError):
        return False


# The slips a wrong nbytes may be, each as the number it gives for a tensor (None where it
# gives nothing apart from the right size): 4 bytes for every element, the size in bits,
# sys.getsizeof (the Python object, the same for every tensor), len(t) elements (the first
# dimension only), and the storage a view lies in.
_SLIPS = {
    "assumed_element_size": lambda t: 4 * t.numel() if t.element_size() != 4 else None,
    "bits_not_bytes": lambda t: 8 * t.numel() * t.element_size() if t.numel() else None,
    "python_object_size": sys.getsizeof,
    # an eighth: bytes divided by 8 as if element_size() (or dtype.itemsize) counted bits; only
    # where that is a whole number of bytes, so / 8 and // 8 give the same number
    "bytes_as_bits": lambda t: (
        t.numel() * t.element_size() // 8 if t.numel() * t.element_size() % 8 == 0 else None
    ),
    # len(t) * t.element_size(): len() is the first dimension's size, the element count only
    # of a tensor of one dimension (or of one whose other sizes are all 1)
    "len_instead_of_numel": lambda t: (
        t.shape[0] * t.element_size() if t.dim() > 1 and t.shape[0] != t.numel() else None
    ),
    "storage_bytes": _storage_bytes_apart,
    # the element count alone (t.numel(), no element size), and a fixed size other than 4 per
    # element: 8 (a Python float, float64 and int64) or 2, for a dtype whose elements differ
    "elements_not_bytes": lambda t: t.numel() if t.element_size() != 1 else None,
    "fixed_element_size_2": lambda t: 2 * t.numel() if t.element_size() != 2 else None,
    "fixed_element_size_8": lambda t: 8 * t.numel() if t.element_size() != 8 else None,
}


def _slip_story(learner, t, got):
    """(en, zh, tag) of the one slip ``got`` is, or None. A number that fits two of them (80:
    sys.getsizeof of every tensor, and 4 bytes for each of 20 int8 elements, or the bits of
    10 bytes; 4: a (1, 2, 2, 2) float32's len product, and an eighth of its 32 bytes) is told
    apart by the learner's nbytes of another tensor of t's dtype and device, of a shape where
    the slips give different numbers; it is told neither where that number fits no one of
    them alone."""
    fits = [tag for tag, slip in _SLIPS.items() if _same_number(got, slip(t))]
    probe = None
    if len(fits) > 1:
        probe = _probe_for(t, fits)
        if probe is None:
            return None
        try:
            seen = learner.nbytes(probe)
        except LearnerRaised:
            return None
        fits = [tag for tag in fits if _same_number(seen, _SLIPS[tag](probe))]
    if len(fits) != 1:
        return None
    tag = fits[0]
    also_en = also_zh = ""
    if probe is not None and probe.dtype == t.dtype:
        shape = "(" + ", ".join(map(str, probe.shape)) + ")"
        also_en = f" (yours gives {seen} for a tensor of shape {shape} of that dtype)"
        also_zh = f"（对同一 dtype、形状为 {shape} 的张量，你的结果是 {seen}）"
    elif probe is not None:
        shape = "(" + ", ".join(map(str, probe.shape)) + ")"
        other = str(probe.dtype).removeprefix("torch.")
        also_en = f" (yours gives {seen} for a {other} tensor of shape {shape})"
        also_zh = f"（对形状为 {shape} 的 {other} 张量，你的结果是 {seen}）"
    dtype = str(t.dtype).removeprefix("torch.")
    if tag == "assumed_element_size":
        return (
            f" That counts 4 bytes per element{also_en}, but a {dtype} element takes "
            f"{t.element_size()}: ask the tensor (t.element_size()).",
            f"这是按每个元素 4 字节计算的{also_zh}，但 {dtype} 的每个元素占 {t.element_size()} "
            "字节：请向张量查询（t.element_size()）。",
            tag,
        )
    if tag == "elements_not_bytes":
        return (
            f" That is the number of elements{also_en}, not of bytes: a {dtype} element takes "
            f"{t.element_size()} bytes. Multiply by the size of one element: "
            "t.numel() * t.element_size().",
            f"这是元素的个数{also_zh}，而不是字节数：{dtype} 的每个元素占 {t.element_size()} 字节。"
            "请乘以单个元素的大小：t.numel() * t.element_size()。",
            tag,
        )
    if tag.startswith("fixed_element_size_"):
        size = tag.removeprefix("fixed_element_size_")
        return (
            f" That counts {size} bytes per element{also_en}, but a {dtype} element takes "
            f"{t.element_size()}: the size depends on the dtype, ask the tensor "
            "(t.element_size()).",
            f"这是按每个元素 {size} 字节计算的{also_zh}，但 {dtype} 的每个元素占 {t.element_size()} "
            "字节：元素大小取决于 dtype，请向张量查询（t.element_size()）。",
            tag,
        )
    if tag == "bits_not_bytes":
        return (
            f" That is the size in bits, 8 per byte{also_en}: t.element_size() already counts "
            "bytes, so nothing multiplies by 8.",
            f"这是以比特计的大小（每字节 8 比特）{also_zh}：t.element_size() 本身就以字节计，"
            "不需要再乘以 8。",
            tag,
        )
    if tag == "bytes_as_bits":
        return (
            f" That is an eighth of it{also_en}: t.element_size() and t.dtype.itemsize already "
            "count bytes, so nothing divides by 8 (only a size in bits, such as "
            "torch.finfo(t.dtype).bits, is divided by 8).",
            f"这只是正确结果的八分之一{also_zh}：t.element_size() 和 t.dtype.itemsize 本身就以"
            "字节计，不需要再除以 8（只有以比特计的大小，例如 torch.finfo(t.dtype).bits，才要除以 8）。",
            tag,
        )
    if tag == "len_instead_of_numel":
        count = t.shape[0]
        return (
            f" That is {count} element{'s' if count != 1 else ''} of "
            f"{t.element_size()} bytes{also_en}: len(t) (or "
            f"t.shape[0]) is the size of the first dimension only, but t has {t.numel()} "
            "elements. Count them all with t.numel().",
            f"这是 {count} 个各占 {t.element_size()} 字节的元素{also_zh}：len(t)（或 t.shape[0]）只是"
            f"第一个维度的大小，而 t 共有 {t.numel()} 个元素。请用 t.numel() 统计全部元素。",
            tag,
        )
    if tag == "storage_bytes":
        return (
            f" That is the size of the whole storage t is a view of{also_en}, but t itself has "
            f"{t.numel()} elements: a slice or an expanded tensor shares a storage holding more "
            "(or fewer) elements than it shows. Count t's own elements.",
            f"这是 t 所在的整块存储（storage）的大小{also_zh}，但 t 本身只有 {t.numel()} 个元素："
            "切片或 expand 得到的张量与别的张量共享存储，存储中的元素可能比它呈现的更多（或更少）。"
            "请统计 t 自己的元素。",
            tag,
        )
    return (
        f" That is sys.getsizeof(t), the size of the Python object that wraps the tensor, "
        f"the same for every tensor{also_en}; the data lies elsewhere: "
        "t.numel() * t.element_size().",
        f"这是 sys.getsizeof(t)，即包装张量的 Python 对象本身的大小，对每个张量都一样{also_zh}；"
        "数据存放在别处：t.numel() * t.element_size()。",
        tag,
    )


def _probe_for(t, tags):
    """A 2-D view on t's device (every third column of a wider tensor, so that its storage is
    larger than it, on meta too, where a view travels as the smallest storage its strides
    need) whose shape makes the numbers of the slips ``tags``, and its true size in bytes, all
    different: of t's dtype where one does, else of another dtype (8 bytes per element and the
    bits of a one-byte dtype, or the element count and an eighth of an eight-byte one, are the
    same number for every shape of that dtype); None where no such tensor tells them."""
    # three columns: with two, 4 bytes per element and len(t) elements of 8 bytes give the
    # same number for every row count; every third of nine: with every other of six, a
    # float16 storage is 4 bytes per element of the view for every row count
    for dtype in dict.fromkeys((t.dtype, torch.float32, torch.float64)):
        for m in range(t.numel() + 2, t.numel() + 258):
            probe = torch.zeros(m, 9, dtype=dtype, device=t.device)[:, ::3]
            numbers = [_SLIPS[tag](probe) for tag in tags]
            numbers.append(probe.numel() * probe.element_size())
            if None not in numbers and len(set(numbers)) == len(numbers):
                return probe
    return None  # no tensor tells these slips apart: neither is told


def _check_nbytes(learner, reference, t, code):
    got = learner.nbytes(t)
    want = reference.nbytes(t)
    what_en, what_zh = f"nbytes(t) for t = {code}", f"t = {code} 时，nbytes(t) "
    # Only the number is judged here; that it is a Python int is test_nbytes_is_int's.
    if _same_number(got, want):
        return
    en = zh = ""
    evidence = ["values_differ"]
    story = _slip_story(learner, t, got)
    if story is not None:
        en, zh, tag = story
        evidence.append(tag)
    fail(
        f"{what_en} should be {want}, but yours is {got}.{en}",
        f"{what_zh}应为 {want}，但你的结果是 {got}。{zh}",
        evidence=evidence,
    )


def test_nbytes_float32(learner, reference, device, rng):
    d = _on(device)
    cases = [
        (f"torch.zeros(1, 3, 224, 224{d})", torch.zeros(1, 3, 224, 224).to(device)),
        (f"torch.randn(2, 3, 4{d})", _randn(rng, 2, 3, 4).to(device)),
        (f"torch.tensor(1.5{d})", torch.tensor(1.5).to(device)),
        (f"torch.zeros(0, 3{d})", torch.zeros(0, 3).to(device)),
    ]
    for code, t in cases:
        _check_nbytes(learner, reference, t, code)


def test_nbytes_every_dtype(learner, reference, device, rng):
    for dtype in DTYPES:
        code, t = _of_dtype(rng, (3, 5), dtype, device)
        _check_nbytes(learner, reference, t, code)


def _view_bytes_cases(rng, device):
    d = _on(device)
    return list(_view_cases(rng, device)) + [
        (
            f"torch.randn(4, 5, dtype=torch.float64{d})[0]",
            _randn(rng, 4, 5, dtype=torch.float64).to(device)[0],
        ),
        (
            f"torch.zeros(6, 6, dtype=torch.int8{d})[::2, ::3]",
            _of_dtype(rng, (6, 6), torch.int8, device)[1][::2, ::3],
        ),
    ]


def test_nbytes_views(learner, device, rng):
    # A view takes as many bytes as a fresh copy of itself: the learner's nbytes of the view is
    # compared with the same learner's nbytes of the copy, so only counting the storage (instead
    # of the view's own elements) fails here; the element size is test_nbytes_every_dtype's.
    for code, t in _view_bytes_cases(rng, device):
        got = learner.nbytes(t)
        fresh = learner.nbytes(t.contiguous().clone())
        if _same_number(got, fresh):
            continue
        en = zh = ""
        evidence = ["values_differ"]
        if _same_number(got, _storage_bytes_seen(t)):
            en = (
                f" That is the size of the whole storage t is a view of, but t itself has "
                f"{t.numel()} elements: a slice or an expanded tensor shares a storage holding "
                "more (or fewer) elements than it shows. Count t's own elements."
            )
            zh = (
                f"这是 t 所在的整块存储（storage）的大小，但 t 本身只有 {t.numel()} 个元素："
                "切片或 expand 得到的张量与别的张量共享存储，存储中的元素可能比它呈现的更多（或更少）。"
                "请统计 t 自己的元素。"
            )
            evidence.append("storage_bytes")
        fail(
            f"nbytes(t) for t = {code} is {describe_value(got)}, but your nbytes of a fresh copy "
            f"of t (t.contiguous().clone(), the same {t.numel()} elements) is "
            f"{describe_value(fresh)}: a view's elements take as many bytes as the same "
            f"elements laid out afresh.{en}",
            f"t = {code} 时，nbytes(t) 为 {describe_value_zh(got)}，但你对 t 的新副本"
            f"（t.contiguous().clone()，同样的 {t.numel()} 个元素）计算的 nbytes 为 "
            f"{describe_value_zh(fresh)}：视图的元素与重新排布的同样元素占用的字节数相同。{zh}",
            evidence=evidence,
        )


# PyTorch's refusals to hand over the data of a tensor that is not in CPU memory: .numpy() of a
# GPU or meta tensor, and .cpu() (or any copy) of a meta tensor.
_DATA_REFUSED = ("device type tensor to numpy", "Cannot copy out of meta tensor")


@contextmanager
def _reads_no_data(code):
    """nbytes raising because it reached for the data (t.numpy(), t.detach().cpu().numpy()):
    named as that, in place of the catalogue's advice to move the data to the CPU first, which
    fails again on meta and copies a whole GPU tensor just to measure it."""
    try:
        yield
    except LearnerRaised as exc:
        if any(text in exc.text for text in _DATA_REFUSED):
            en, zh = exc.message.en.rstrip(), exc.message.zh.rstrip()
            exc.message = Text(
                f"{en}{'' if en.endswith(('.', '!')) else '.'} nbytes(t) for t = {code} reached for "
                "the data, which a tensor on a GPU or on the meta device does not hand over. The "
                "bytes depend on the shape and the dtype only: t.numel() * t.element_size() "
                "reads no data.",
                f"{zh}{'' if zh.endswith('。') else '。'}t = {code} 时，nbytes(t) 去读取了数据，"
                "而位于 GPU 或 meta 设备上的张量不会交出数据。字节数只取决于形状和 dtype："
                "t.numel() * t.element_size() 不读取任何数据。",
            )
            exc.evidence = (*exc.evidence, "nbytes_reads_data")
        raise


def test_nbytes_on_device(learner, device, rng):
    # Runs on meta (and CUDA): tensors with a shape, a dtype and strides but no data (on a GPU:
    # data out of NumPy's reach). The learner's nbytes of each is compared with the same
    # learner's nbytes of the same tensor on the CPU, so only code that needs the data
    # (t.numpy()) fails here; the numbers themselves are the other nbytes tests'.
    d = _on(device)
    cases = [
        (f"torch.zeros(1, 3, 224, 224{d})", torch.zeros(1, 3, 224, 224)),
        (
            _of_dtype(rng, (3, 5), torch.float64, device)[0],
            _of_dtype(rng, (3, 5), torch.float64, "cpu")[1],
        ),
        (
            _of_dtype(rng, (3, 5), torch.bool, device)[0],
            _of_dtype(rng, (3, 5), torch.bool, "cpu")[1],
        ),
    ]
    for code, t in cases:
        with _reads_no_data(code):
            got = learner.nbytes(t.to(device))
        on_cpu = learner.nbytes(t)
        if not _same_number(got, on_cpu):
            fail(
                f"nbytes(t) for t = {code} is {describe_value(got)}, but your nbytes of the same "
                f"tensor on the CPU is {describe_value(on_cpu)}: the bytes depend on the shape "
                "and the dtype only, wherever the tensor lives.",
                f"t = {code} 时，nbytes(t) 为 {describe_value_zh(got)}，但你对位于 CPU 上的同一个张量"
                f"计算的 nbytes 为 {describe_value_zh(on_cpu)}：字节数只取决于形状和 dtype，"
                "与张量位于哪个设备无关。",
                evidence=["values_differ"],
            )


def test_nbytes_is_int(learner, rng):
    # The type alone (on the CPU): the numbers are judged by the other nbytes tests.
    cases = [
        ("torch.zeros(1, 3, 224, 224)", torch.zeros(1, 3, 224, 224)),
        ("torch.randn(3, 4).t()", _randn(rng, 3, 4).t()),
    ] + [_of_dtype(rng, (3, 5), dtype, "cpu") for dtype in (torch.float64, torch.bool)]
    for code, t in cases:
        _expect_kind(
            learner.nbytes(t), "int", f"nbytes(t) for t = {code}", f"t = {code} 时，nbytes(t) "
        )
