"""Values across the trust boundary: plain data out, plain data in, nothing executable.

Both sides use this codec. A value becomes a JSON tree plus a list of binary blobs:

* a tensor travels as its storage's raw bytes (one blob per storage, shared storages sent once)
  plus dtype, shape, stride, offset, device, ``requires_grad``, ``is_leaf``, the name of its
  ``grad_fn`` and its ``.grad``. Views, strides and storage sharing survive the trip, so a
  transposed input reaches the learner transposed, and a view the learner returns is seen as one;
* a NumPy array travels as its bytes with a numeric dtype;
* containers, numbers, strings, dtypes, devices, generators and ``nn.Module`` state come as data;
* anything else comes back as an :class:`Opaque` description (type name and a capped ``repr``).

Decoding never unpickles and never calls anything named by the data: tensors are rebuilt from
raw bytes with ``torch.frombuffer`` for whitelisted dtypes, after checking that shape, stride and
offset stay inside the bytes sent. That is stricter than ``torch.load(weights_only=True)``, and a
decoded tensor is always exactly ``torch.Tensor``. Source code is decoded (as a scenario to run)
only on the learner's side, and only when the trusted side sent it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

MAX_DEPTH = 32
MAX_NODES = 200_000
MAX_STR = 1 << 20
# Elements of one decoded tensor, and of all the tensors of one answer: the trusted side
# compares what it decodes, so a view of 2^38 elements over one 8-byte storage (stride 0) would
# cost it minutes. Honest answers in the curriculum are far smaller.
MAX_ELEMENTS = 1 << 26
MAX_TOTAL_ELEMENTS = 1 << 27
MAX_DIMS = 64

DTYPES: dict[str, torch.dtype] = {
    str(dt).removeprefix("torch."): dt
    for dt in (
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
        torch.complex64,
        torch.complex128,
    )
}
_NUMPY_KINDS = "biufc"


class CodecError(Exception):
    """A value cannot be encoded, or received data is not a well-formed value."""


@dataclass(frozen=True)
class TensorInfo:
    """What the learner's side reported about a tensor beyond its values."""

    device: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    is_parameter: bool
    shares: tuple[str, ...]  # paths of the call's inputs whose memory it overlaps


@dataclass(frozen=True)
class ArrayInfo:
    shares: tuple[str, ...]
    writeable: bool


@dataclass(frozen=True)
class ModuleValue:
    """An ``nn.Module`` that came back: its class, mode and state, as data."""

    class_name: str
    training: bool
    parameters: dict[str, torch.Tensor]
    buffers: dict[str, torch.Tensor]

    def __repr__(self) -> str:
        return f"<{self.class_name} module with {len(self.parameters)} parameters>"


@dataclass(frozen=True)
class Opaque:
    """A value of a type that does not cross the boundary: only its name and repr do."""

    type_name: str
    repr: str

    def __repr__(self) -> str:
        return f"<{self.type_name}: {self.repr}>"


@dataclass(frozen=True)
class Scenario:
    """A module-level helper of a hidden test file, to be run next to the learner's code."""

    name: str
    source: str
    filename: str = "<scenario>"


# Metadata is kept beside decoded values, not inside them: a tensor is exactly torch.Tensor.
_TENSOR_INFO: dict[int, tuple[Any, TensorInfo]] = {}
_ARRAY_INFO: dict[int, tuple[Any, ArrayInfo]] = {}


def tensor_info(value: torch.Tensor) -> TensorInfo | None:
    """What the learner's side reported for a decoded tensor (None if it was not decoded)."""
    entry = _TENSOR_INFO.get(id(value))
    return entry[1] if entry and entry[0] is value else None


def array_info(value: np.ndarray) -> ArrayInfo | None:
    entry = _ARRAY_INFO.get(id(value))
    return entry[1] if entry and entry[0] is value else None


def forget_decoded() -> None:
    """Drop the metadata of earlier decodes (between tests, so memory does not grow)."""
    _TENSOR_INFO.clear()
    _ARRAY_INFO.clear()


# ---------------------------------------------------------------------------------------------
# Encoding


@dataclass
class Encoder:
    """Turns one value into (tree, blobs).

    ``inputs`` maps a path such as ``args[0]`` to an input value of the call: every tensor or
    array in the output is checked for memory it shares with them.
    """

    max_bytes: int = 512 << 20
    inputs: dict[str, Any] = field(default_factory=dict)
    blobs: list[memoryview] = field(default_factory=list)
    storages: list[dict[str, Any]] = field(default_factory=list)
    _storage_index: dict[tuple[str, int, int], int] = field(default_factory=dict)
    _nodes: int = 0
    _bytes: int = 0
    _ranges: list[tuple[str, str, int, int]] | None = None

    def encode(self, value: Any, depth: int = 0) -> Any:
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise CodecError(f"the value has more than {MAX_NODES} parts")
        if depth > MAX_DEPTH:
            raise CodecError(f"the value is nested more than {MAX_DEPTH} levels deep")
        if value is None or type(value) in (bool, int, str):
            if type(value) is str and len(value) > MAX_STR:
                return value[:MAX_STR] + f"... [{len(value) - MAX_STR} more characters cut]"
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {"$f": repr(value)}
        if type(value) is torch.Tensor or type(value) is torch.nn.Parameter:
            return {"$t": self._tensor(value, depth)}
        if isinstance(value, torch.Tensor):
            return self._opaque(value, note="a subclass of torch.Tensor")
        if type(value) is np.ndarray:
            return self._array(value)
        if isinstance(value, np.generic) and value.dtype.kind in _NUMPY_KINDS:
            return {
                "$np": {"dtype": value.dtype.str, "value": self.encode(value.item(), depth + 1)}
            }
        if type(value) is list:
            return [self.encode(v, depth + 1) for v in value]
        if type(value) is torch.Size:
            return {"$size": [int(v) for v in value]}
        if isinstance(value, tuple):  # namedtuples too, e.g. what x.max(dim=1) returns
            return {"$tuple": [self.encode(v, depth + 1) for v in value]}
        if isinstance(value, dict):  # OrderedDict, defaultdict and other dicts come as dicts
            return {
                "$dict": [
                    [self.encode(k, depth + 1), self.encode(v, depth + 1)] for k, v in value.items()
                ]
            }
        if type(value) is bytes:
            return {"$bytes": self._blob(memoryview(value))}
        if isinstance(value, torch.dtype):
            return {"$dtype": str(value).removeprefix("torch.")}
        if isinstance(value, torch.device):
            return {"$device": str(value)}
        if isinstance(value, torch.Generator):
            return {
                "$gen": {
                    "device": str(value.device),
                    "state": self.encode(value.get_state(), depth + 1),
                }
            }
        if isinstance(value, torch.nn.Module):
            return {"$module": self._module(value, depth)}
        if isinstance(value, Scenario):
            return {
                "$scenario": {
                    "name": value.name,
                    "source": value.source,
                    "filename": value.filename,
                }
            }
        return self._opaque(value)

    def _blob(self, data: memoryview) -> int:
        self._bytes += data.nbytes
        if self._bytes > self.max_bytes:
            raise CodecError(f"the value holds more than {self.max_bytes >> 20} MiB of data")
        self.blobs.append(data)
        return len(self.blobs) - 1

    def _storage(self, tensor: torch.Tensor) -> int | None:
        if tensor.device.type == "meta":
            return None
        storage = tensor.untyped_storage()
        key = (str(tensor.device), storage.data_ptr(), storage.nbytes())
        index = self._storage_index.get(key)
        if index is None:
            raw = torch.empty(0, dtype=torch.uint8, device=tensor.device).set_(storage).cpu()
            blob = self._blob(memoryview(_bytes_of(raw)) if raw.numel() else memoryview(b""))
            self.storages.append({"blob": blob, "device": str(tensor.device)})
            index = len(self.storages) - 1
            self._storage_index[key] = index
        return index

    def _tensor(self, tensor: torch.Tensor, depth: int) -> dict[str, Any]:
        dtype = str(tensor.dtype).removeprefix("torch.")
        if dtype not in DTYPES or tensor.layout is not torch.strided:
            return {"unsupported": f"{tensor.dtype}, {tensor.layout}"}
        grad = tensor.grad if tensor.is_leaf else None
        return {
            "dtype": dtype,
            "shape": list(tensor.shape),
            "stride": list(tensor.stride()),
            "offset": tensor.storage_offset(),
            "device": str(tensor.device),
            "storage": self._storage(tensor),
            "requires_grad": tensor.requires_grad,
            "is_leaf": tensor.is_leaf,
            "grad_fn": type(tensor.grad_fn).__name__ if tensor.grad_fn is not None else None,
            "parameter": type(tensor) is torch.nn.Parameter,
            "grad": self.encode(grad, depth + 1) if grad is not None else None,
            "shares": self._shares(_tensor_range(tensor)),
        }

    def _array(self, array: np.ndarray) -> Any:
        if array.dtype.kind not in _NUMPY_KINDS or array.dtype.hasobject:
            return self._opaque(array, note=f"a NumPy array of dtype {array.dtype}")
        data = np.ascontiguousarray(array)
        return {
            "$nd": {
                "dtype": array.dtype.str,
                "shape": list(array.shape),
                "blob": self._blob(memoryview(_bytes_of(data)) if data.size else memoryview(b"")),
                "writeable": bool(array.flags.writeable),
                "shares": self._shares(_array_range(array)),
            }
        }

    def _module(self, module: torch.nn.Module, depth: int) -> dict[str, Any]:
        return {
            "class": _type_name(module),
            "training": bool(module.training),
            "parameters": {n: self.encode(p, depth + 1) for n, p in module.named_parameters()},
            "buffers": {n: self.encode(b, depth + 1) for n, b in module.named_buffers()},
        }

    def _opaque(self, value: Any, note: str = "") -> dict[str, Any]:
        try:
            text = repr(value)
        except BaseException as exc:  # noqa: BLE001 - a learner's __repr__ may raise anything
            text = f"<repr failed: {type(exc).__name__}>"
        if len(text) > 300:
            text = text[:300] + "..."
        return {"$obj": {"type": _type_name(value), "repr": text, "note": note}}

    def _shares(self, span: tuple[str, int, int] | None) -> list[str]:
        if span is None or not self.inputs:
            return []
        if self._ranges is None:
            self._ranges = []
            for path, value in self.inputs.items():
                for sub_path, sub in _walk(path, value):
                    rng = _value_range(sub)
                    if rng is not None:
                        self._ranges.append((sub_path, *rng))
        kind, lo, hi = span
        return sorted({p for p, k, a, b in self._ranges if k == kind and a < hi and lo < b})

    def message(self, tree: Any) -> tuple[dict[str, Any], list[memoryview]]:
        return {"value": tree, "storages": self.storages}, self.blobs


def encode(
    value: Any, *, inputs: dict[str, Any] | None = None, max_bytes: int = 512 << 20
) -> tuple[dict[str, Any], list[memoryview]]:
    """Encode ``value``; returns the JSON-able header part and the blobs."""
    encoder = Encoder(max_bytes=max_bytes, inputs=inputs or {})
    tree = encoder.encode(value)
    return encoder.message(tree)


def _bytes_of(values: Any) -> memoryview:
    """The raw bytes of a contiguous CPU tensor or NumPy array, without a copy."""
    array = values.numpy() if isinstance(values, torch.Tensor) else np.ascontiguousarray(values)
    flat: Any = array.reshape(-1).view(np.uint8)
    return memoryview(flat)


def _type_name(value: Any) -> str:
    cls = type(value)
    module = getattr(cls, "__module__", "") or ""
    name = getattr(cls, "__qualname__", cls.__name__)
    return f"{module}.{name}" if module and module != "builtins" else name


def _tensor_range(tensor: torch.Tensor) -> tuple[str, int, int] | None:
    if tensor.device.type == "meta":
        return None
    storage = tensor.untyped_storage()
    if storage.nbytes() == 0:
        return None
    start = storage.data_ptr()
    return (str(tensor.device), start, start + storage.nbytes())


def _array_range(array: np.ndarray) -> tuple[str, int, int] | None:
    if array.size == 0:
        return None
    base = array
    while isinstance(base.base, np.ndarray):
        base = base.base
    lo = base.__array_interface__["data"][0]
    return ("cpu", lo, lo + base.nbytes)


def _value_range(value: Any) -> tuple[str, int, int] | None:
    if isinstance(value, torch.Tensor):
        return _tensor_range(value)
    if isinstance(value, np.ndarray):
        return _array_range(value)
    return None


def _walk(path: str, value: Any, depth: int = 0) -> Iterator[tuple[str, Any]]:
    """Every (path, tensor-or-array) inside a value, for memory-sharing checks."""
    if depth > 8:
        return
    if isinstance(value, (torch.Tensor, np.ndarray)):
        yield path, value
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _walk(f"{path}[{i}]", item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(f"{path}[{key!r}]", item, depth + 1)
    elif isinstance(value, torch.nn.Module):
        for name, param in value.named_parameters():
            yield f"{path}.{name}", param


# ---------------------------------------------------------------------------------------------
# Decoding


@dataclass
class Decoder:
    """Rebuilds a value from (header, blobs), checking every field it reads.

    ``scenario_loader`` turns a Scenario into a callable; only the learner's side passes one.
    ``keep_info`` records TensorInfo/ArrayInfo for the trusted side's checks.
    """

    storages_meta: list[Any]
    blobs: list[bytes | bytearray | memoryview]
    keep_info: bool = False
    scenario_loader: Callable[[Scenario], Any] | None = None
    _storages: dict[int, tuple[torch.UntypedStorage, str]] = field(default_factory=dict)
    _nodes: int = 0
    _elements: int = 0

    def decode(self, node: Any, depth: int = 0) -> Any:
        self._nodes += 1
        if self._nodes > MAX_NODES or depth > MAX_DEPTH:
            raise CodecError("the value is too large or too deeply nested")
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is list:
            return [self.decode(v, depth + 1) for v in node]
        if type(node) is not dict or len(node) != 1:
            raise CodecError("malformed value")
        ((tag, body),) = node.items()
        if tag == "$t":
            return self._tensor(body, depth)
        if tag == "$nd":
            return self._array(body)
        if tag == "$tuple":
            return tuple(self.decode(v, depth + 1) for v in _list(body))
        if tag == "$dict":
            return {
                _hashable(self.decode(k, depth + 1)): self.decode(v, depth + 1)
                for k, v in _pairs(body)
            }
        if tag == "$size":
            return torch.Size([_int(v) for v in _list(body)])
        if tag == "$f":
            if body not in ("nan", "inf", "-inf"):
                raise CodecError("malformed float")
            return float(body)
        if tag == "$np":
            dtype = _np_dtype(_field(body, "dtype", str))
            return dtype.type(self.decode(body.get("value"), depth + 1))
        if tag == "$bytes":
            return bytes(self._blob(_int(body)))
        if tag == "$dtype":
            if body not in DTYPES:
                raise CodecError(f"unknown dtype {body!r}")
            return DTYPES[body]
        if tag == "$device":
            return torch.device(_field({"d": body}, "d", str))
        if tag == "$gen":
            return self._generator(body, depth)
        if tag == "$module":
            return self._module(body, depth)
        if tag == "$obj":
            return Opaque(str(_field(body, "type", str)), str(_field(body, "repr", str)))
        if tag == "$scenario":
            if self.scenario_loader is None:
                raise CodecError("a scenario cannot be decoded here")
            return self.scenario_loader(
                Scenario(
                    _field(body, "name", str),
                    _field(body, "source", str),
                    _field(body, "filename", str),
                )
            )
        raise CodecError(f"unknown tag {tag!r}")

    def _blob(self, index: int) -> bytes | bytearray | memoryview:
        if not 0 <= index < len(self.blobs):
            raise CodecError("a blob index is out of range")
        return self.blobs[index]

    def _storage(self, index: int, device: torch.device) -> torch.UntypedStorage:
        cached = self._storages.get(index)
        if cached is None:
            if not 0 <= index < len(self.storages_meta):
                raise CodecError("a storage index is out of range")
            meta = self.storages_meta[index]
            raw = self._blob(_int(_field(meta, "blob", int)))
            buffer = bytearray(raw)
            if buffer:
                storage = torch.frombuffer(buffer, dtype=torch.uint8).untyped_storage()
            else:
                storage = torch.empty(0, dtype=torch.uint8).untyped_storage()
            if device.type != "cpu":
                storage = (
                    torch.empty(0, dtype=torch.uint8)
                    .set_(storage)
                    .to(device=device)
                    .untyped_storage()
                )
            cached = (storage, str(device))
            self._storages[index] = cached
        return cached[0]

    def _tensor(self, body: dict[str, Any], depth: int) -> torch.Tensor | Opaque:
        if not isinstance(body, dict):
            raise CodecError("malformed tensor")
        if "unsupported" in body:
            return Opaque(
                "torch.Tensor", f"a tensor of an unsupported kind ({body['unsupported']})"
            )
        dtype_name = _field(body, "dtype", str)
        if dtype_name not in DTYPES:
            raise CodecError(f"unsupported dtype {dtype_name!r}")
        dtype = DTYPES[dtype_name]
        shape = [_int(v) for v in _list(body.get("shape"))]
        stride = [_int(v) for v in _list(body.get("stride"))]
        offset = _int(body.get("offset"))
        if len(shape) != len(stride) or min(shape + [0]) < 0 or min(stride + [0]) < 0 or offset < 0:
            raise CodecError("inconsistent tensor shape, stride or offset")
        if len(shape) > MAX_DIMS:
            raise CodecError(f"a tensor of {len(shape)} dimensions is more than the grader reads")
        numel = math.prod(shape)
        self._elements += numel
        if numel > MAX_ELEMENTS or self._elements > MAX_TOTAL_ELEMENTS:
            raise CodecError(
                f"a tensor of {numel:,} elements is more than the grader can check "
                f"(at most {MAX_ELEMENTS:,})"
            )
        reported = _field(body, "device", str)
        device = _local_device(reported)
        storage_index = body.get("storage")
        if storage_index is None:
            if device.type != "meta":
                raise CodecError("a tensor without data must be on the meta device")
            tensor = torch.empty_strided(shape, stride, dtype=dtype, device="meta")
        else:
            storage = self._storage(_int(storage_index), device)
            itemsize = torch.empty(0, dtype=dtype).element_size()
            if any(s == 0 for s in shape):
                needed = 0
            else:
                needed = (
                    offset + sum((s - 1) * st for s, st in zip(shape, stride, strict=True)) + 1
                ) * itemsize
            if needed > storage.nbytes() or (storage.nbytes() % itemsize and needed):
                raise CodecError("a tensor reaches outside its data")
            tensor = torch.empty(0, dtype=dtype, device=storage.device)
            if storage.nbytes() % itemsize == 0:
                tensor.set_(storage, offset, shape, stride)
            else:  # trailing bytes that no element uses: view a copy of the used part
                usable = storage.nbytes() - storage.nbytes() % itemsize
                raw = torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)[
                    :usable
                ]
                tensor = raw.view(dtype).as_strided(shape, stride, offset)
        requires_grad = bool(body.get("requires_grad"))
        if requires_grad and (dtype.is_floating_point or dtype.is_complex):
            tensor.requires_grad_(True)
            grad = body.get("grad")
            if grad is not None:
                grad_value = self.decode(grad, depth + 1)
                if (
                    isinstance(grad_value, torch.Tensor)
                    and grad_value.shape == tensor.shape
                    and grad_value.dtype == tensor.dtype
                    and grad_value.device == tensor.device
                ):
                    tensor.grad = grad_value
        if self.keep_info:
            info = TensorInfo(
                device=reported,
                requires_grad=requires_grad,
                is_leaf=bool(body.get("is_leaf", True)),
                grad_fn=body.get("grad_fn") if isinstance(body.get("grad_fn"), str) else None,
                is_parameter=bool(body.get("parameter")),
                shares=tuple(str(s) for s in _list(body.get("shares", []))),
            )
            _TENSOR_INFO[id(tensor)] = (tensor, info)
        return tensor

    def _array(self, body: dict[str, Any]) -> np.ndarray:
        dtype = _np_dtype(_field(body, "dtype", str))
        shape = tuple(_int(v) for v in _list(body.get("shape")))
        if min(shape + (0,)) < 0:
            raise CodecError("negative array shape")
        raw = self._blob(_int(body.get("blob")))
        count = math.prod(shape)
        if len(raw) != count * dtype.itemsize:
            raise CodecError("array data does not match its shape")
        array = np.frombuffer(bytearray(raw), dtype=dtype, count=count).reshape(shape)
        if not body.get("writeable", True):
            array.flags.writeable = False
        if self.keep_info:
            info = ArrayInfo(
                shares=tuple(str(s) for s in _list(body.get("shares", []))),
                writeable=bool(body.get("writeable", True)),
            )
            _ARRAY_INFO[id(array)] = (array, info)
        return array

    def _generator(self, body: dict[str, Any], depth: int) -> torch.Generator:
        device = _local_device(_field(body, "device", str))
        state = self.decode(body.get("state"), depth + 1)
        if not isinstance(state, torch.Tensor) or state.dtype is not torch.uint8:
            raise CodecError("malformed generator state")
        generator = torch.Generator(device=device)
        generator.set_state(state.cpu())
        return generator

    def _module(self, body: dict[str, Any], depth: int) -> ModuleValue:
        def tensors(key: str) -> dict[str, torch.Tensor]:
            raw = body.get(key) or {}
            if not isinstance(raw, dict):
                raise CodecError("malformed module")
            return {str(k): self.decode(v, depth + 1) for k, v in raw.items()}

        return ModuleValue(
            class_name=_field(body, "class", str),
            training=bool(body.get("training")),
            parameters=tensors("parameters"),
            buffers=tensors("buffers"),
        )


def decode(
    header: dict[str, Any],
    blobs: list[Any],
    *,
    keep_info: bool = False,
    scenario_loader: Callable[[Scenario], Any] | None = None,
) -> Any:
    try:
        decoder = Decoder(_list(header.get("storages", [])), blobs, keep_info, scenario_loader)
        return decoder.decode(header.get("value"))
    except CodecError:
        raise
    except (
        ValueError,
        TypeError,
        KeyError,
        IndexError,
        AttributeError,
        OverflowError,
        RuntimeError,
        RecursionError,
        NotImplementedError,
        MemoryError,
    ) as exc:
        # A tree from a learner child is outside data: whatever it holds, reading it fails
        # only as a CodecError (the learner's answer is unreadable), never as the grader's.
        raise CodecError(f"the value cannot be read ({type(exc).__name__})") from None


def _local_device(name: str) -> torch.device:
    """The device to rebuild a tensor on here; CUDA falls back to CPU when absent here."""
    try:
        device = torch.device(name)
    except (RuntimeError, TypeError):
        raise CodecError(f"unknown device {name!r}") from None
    if device.type not in ("cpu", "cuda", "meta"):
        raise CodecError(f"unsupported device {name!r}")
    if device.type == "cuda" and not _cuda_usable(device):
        return torch.device("cpu")
    return device


def _cuda_usable(device: torch.device) -> bool:
    if not torch.cuda.is_available():
        return False
    return device.index is None or device.index < torch.cuda.device_count()


def _np_dtype(text: str) -> np.dtype:
    try:
        dtype = np.dtype(text)
    except TypeError:
        raise CodecError(f"unknown array dtype {text!r}") from None
    if dtype.kind not in _NUMPY_KINDS or dtype.hasobject or dtype.fields is not None:
        raise CodecError(f"unsupported array dtype {text!r}")
    return dtype


def _field(body: Any, key: str, kind: type) -> Any:
    if not isinstance(body, dict) or not isinstance(body.get(key), kind):
        raise CodecError(f"malformed field {key!r}")
    return body[key]


def _int(value: Any) -> int:
    if type(value) is not int:
        raise CodecError("expected an integer")
    return value


def _list(value: Any) -> list[Any]:
    if type(value) is not list:
        raise CodecError("expected a list")
    return value


def _pairs(value: Any) -> list[Any]:
    pairs = _list(value)
    for pair in pairs:
        if type(pair) is not list or len(pair) != 2:
            raise CodecError("malformed mapping")
    return pairs


def _hashable(key: Any) -> Any:
    try:
        hash(key)
    except TypeError:
        raise CodecError("a mapping key is not hashable") from None
    return key
