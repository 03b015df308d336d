"""Values across the trust boundary: faithful round trips, and no trust in received data."""

from __future__ import annotations

import json
import math
import pickle
import socket

import numpy as np
import pytest
import torch

from grader.sandbox import codec, protocol
from grader.sandbox.codec import CodecError, ModuleValue, Opaque, array_info, tensor_info


def roundtrip(value, *, inputs=None, keep_info=True):
    header, blobs = codec.encode(value, inputs=inputs)
    # through JSON and bytes, as on the wire
    header = json.loads(json.dumps(header))
    blobs = [bytes(b) for b in blobs]
    return codec.decode(header, blobs, keep_info=keep_info)


def test_plain_values():
    value = {"a": [1, 2.5, None, True, "s"], (1, 2): ("t", float("nan")), "inf": -math.inf}
    back = roundtrip(value)
    assert back["a"] == [1, 2.5, None, True, "s"]
    assert back[(1, 2)][0] == "t" and math.isnan(back[(1, 2)][1])
    assert back["inf"] == -math.inf
    assert isinstance(back[(1, 2)], tuple)


def test_tensor_metadata_survives():
    x = torch.randn(3, 4, dtype=torch.float64)
    back = roundtrip(x)
    assert type(back) is torch.Tensor
    assert back.dtype == torch.float64 and back.shape == (3, 4)
    assert torch.equal(back, x)


@pytest.mark.parametrize("dtype", list(codec.DTYPES.values()))
def test_every_dtype(dtype):
    x = (torch.arange(6) % 2).to(dtype).reshape(2, 3)
    assert torch.equal(roundtrip(x), x)


def test_views_keep_their_strides_and_offset():
    base = torch.arange(24.0).reshape(4, 6)
    for view in (base.t(), base[:, ::2], base[1:, 2:], base.expand(2, 4, 6)[1]):
        back = roundtrip(view)
        assert back.stride() == view.stride()
        assert back.storage_offset() == view.storage_offset()
        assert back.is_contiguous() == view.is_contiguous()
        assert torch.equal(back, view)


def test_shared_storage_is_sent_once_and_stays_shared():
    base = torch.arange(6.0)
    header, blobs = codec.encode([base, base.view(2, 3), base[::2]])
    assert len(blobs) == 1
    a, b, c = codec.decode(header, blobs)
    a[0] = 100.0
    assert b[0, 0] == 100.0 and c[0] == 100.0


def test_requires_grad_and_grad():
    x = torch.randn(3, requires_grad=True)
    x.grad = torch.ones(3)
    back = roundtrip(x)
    assert back.requires_grad and back.is_leaf
    assert torch.equal(back.grad, torch.ones(3))


def test_non_leaf_metadata():
    x = torch.randn(3, requires_grad=True)
    y = x * 2
    back = roundtrip(y)
    info = tensor_info(back)
    assert info.requires_grad and not info.is_leaf and info.grad_fn == "MulBackward0"


def test_meta_tensors_carry_no_data():
    x = torch.empty(2, 3, device="meta").t()
    header, blobs = codec.encode(x)
    assert blobs == []
    back = codec.decode(header, blobs, keep_info=True)
    assert back.device.type == "meta" and back.shape == (3, 2) and back.stride() == (1, 3)


def test_memory_shared_with_inputs_is_reported():
    x = torch.randn(4, 4)
    header, blobs = codec.encode([x[:2], x.clone()], inputs={"args[0]": x})
    view, copy = codec.decode(header, blobs, keep_info=True)
    assert tensor_info(view).shares == ("args[0]",)
    assert tensor_info(copy).shares == ()


def test_numpy_arrays_and_sharing():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    header, blobs = codec.encode([a[:, ::-1], torch.from_numpy(a), a.copy()], inputs={"args[0]": a})
    flipped, tensor, copy = codec.decode(header, blobs, keep_info=True)
    assert np.array_equal(flipped, a[:, ::-1]) and flipped.dtype == np.int32
    assert array_info(flipped).shares == ("args[0]",)
    assert tensor_info(tensor).shares == ("args[0]",)
    assert array_info(copy).shares == ()


def test_object_arrays_do_not_cross():
    back = roundtrip(np.array([object()], dtype=object))
    assert isinstance(back, Opaque)


def test_tensor_subclasses_do_not_cross():
    class Sneaky(torch.Tensor):
        pass

    back = roundtrip(torch.zeros(2).as_subclass(Sneaky))
    assert isinstance(back, Opaque)
    assert "Sneaky" in back.type_name


def test_module_state_crosses_as_data():
    model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    model.eval()
    back = roundtrip(model)
    assert isinstance(back, ModuleValue)
    assert back.class_name.endswith("Sequential") and back.training is False
    assert set(back.parameters) == {"0.weight", "0.bias", "1.weight", "1.bias"}
    assert "1.running_mean" in back.buffers
    assert torch.equal(back.parameters["0.weight"], model[0].weight.detach())


def test_generators_keep_their_state():
    g = torch.Generator().manual_seed(5)
    back = roundtrip(g)
    assert torch.equal(torch.randn(3, generator=back), torch.randn(3, generator=g))


def test_dtypes_devices_and_sizes():
    back = roundtrip([torch.float16, torch.device("cpu"), torch.Size([2, 3]), np.float32(1.5)])
    assert back[0] is torch.float16 and back[1] == torch.device("cpu")
    assert isinstance(back[2], torch.Size) and back[2] == (2, 3)
    assert back[3] == np.float32(1.5) and isinstance(back[3], np.float32)


def test_pickled_bytes_stay_bytes():
    payload = pickle.dumps(Opaque("x", "y"))
    back = roundtrip(payload)
    assert back == payload and isinstance(back, bytes)


def test_objects_become_opaque_descriptions():
    class Thing:
        def __repr__(self):
            return "<thing>"

    back = roundtrip(Thing())
    assert isinstance(back, Opaque) and back.repr == "<thing>"


def test_a_raising_repr_does_not_break_encoding():
    class Bad:
        def __repr__(self):
            raise RuntimeError("no")

    assert "repr failed" in roundtrip(Bad()).repr


def test_scenarios_decode_only_with_a_loader():
    header, blobs = codec.encode(codec.Scenario("f", "def f(m):\n    return 1\n"))
    with pytest.raises(CodecError):
        codec.decode(header, blobs)
    loaded = codec.decode(header, blobs, scenario_loader=lambda s: s.name)
    assert loaded == "f"


# -- hostile data ---------------------------------------------------------------------------


def tensor_message(**overrides):
    header, blobs = codec.encode(torch.arange(4.0))
    header = json.loads(json.dumps(header))
    header["value"]["$t"].update(overrides)
    return header, [bytes(b) for b in blobs]


@pytest.mark.parametrize(
    "overrides",
    [
        {"shape": [100]},  # reaches past the bytes sent
        {"stride": [-1]},  # negative stride
        {"offset": 3, "shape": [2]},  # offset + extent past the end
        {"dtype": "object"},  # not a whitelisted dtype
        {"shape": [2, 2], "stride": [1]},  # rank mismatch
        {"storage": 7},  # no such storage
        {"device": "meta", "storage": 0, "shape": [2]},
    ],
)
def test_malformed_tensors_are_rejected(overrides):
    header, blobs = tensor_message(**overrides)
    if overrides.get("device") == "meta":
        # a meta tensor must not claim data; a data tensor must not be on meta
        header["value"]["$t"]["storage"] = None
        header["value"]["$t"]["device"] = "cpu"
    with pytest.raises(CodecError):
        codec.decode(header, blobs)


@pytest.mark.parametrize(
    "node",
    [
        {"$unknown": 1},
        {"$t": 1, "$x": 2},
        {"$dict": [[1]]},
        {"$dtype": "float99"},
        {"$nd": {"dtype": "O", "shape": [1], "blob": 0}},
        {"$f": "1e999"},
        {"$bytes": 5},
    ],
)
def test_malformed_nodes_are_rejected(node):
    with pytest.raises(CodecError):
        codec.decode({"value": node, "storages": []}, [b""])


def test_deep_nesting_is_rejected():
    value = []
    for _ in range(codec.MAX_DEPTH + 5):
        value = [value]
    with pytest.raises(CodecError):
        codec.encode(value)


def test_answer_size_is_capped():
    with pytest.raises(CodecError):
        codec.encode(torch.zeros(1024, 1024), max_bytes=1 << 20)


# -- framing ----------------------------------------------------------------------------------


def test_framing_roundtrip_over_a_socket():
    a, b = socket.socketpair()
    with a, b:
        header, blobs = codec.encode({"x": torch.arange(10)})
        protocol.send(a, {"type": "answer", "result": header}, blobs)
        got_header, got_blobs = protocol.receive(b)
        assert got_header["type"] == "answer"
        value = codec.decode(got_header["result"], got_blobs)
        assert torch.equal(value["x"], torch.arange(10))


def test_reader_accepts_bytes_as_they_come():
    parts = protocol.pack({"k": 1}, [memoryview(b"abc"), memoryview(b"")])
    data = b"".join(bytes(p) for p in parts)
    reader = protocol.MessageReader(max_blob_bytes=100)
    done = False
    for byte in data:
        buffer = reader.buffer()
        buffer[0] = byte
        done = reader.advance(1)
    assert done
    header, blobs = reader.message
    assert header["k"] == 1 and [bytes(b) for b in blobs] == [b"abc", b""]


def test_reader_refuses_oversized_answers_before_reading_them():
    parts = protocol.pack({"k": 1}, [memoryview(b"x" * 50)])
    data = bytes(parts[0])
    reader = protocol.MessageReader(max_blob_bytes=10)
    with pytest.raises(protocol.ProtocolError):
        for byte in data:
            reader.buffer()[0] = byte
            reader.advance(1)


def test_reader_refuses_garbage():
    reader = protocol.MessageReader(max_blob_bytes=10)
    data = (5).to_bytes(4, "big") + b"nope!"
    with pytest.raises(protocol.ProtocolError):
        for byte in data:
            reader.buffer()[0] = byte
            reader.advance(1)
