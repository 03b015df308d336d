"""Framing of the messages between the trusted side and a learner child.

A message is a 4-byte length, a JSON header, then the binary blobs the header lists by size. The
child's side reads and writes blocking; the trusted side reads with :class:`MessageReader`, which
accepts bytes as they come (so it can wait on a deadline and drain the child's output at once) and
enforces size limits before allocating anything.
"""

from __future__ import annotations

import json
import signal
import socket
import struct
from collections.abc import Sequence
from typing import Any

from grader import wire
from grader.wire import WireError

_LENGTH = struct.Struct("!I")
# The signal that asks a learner child for a snapshot of its stack (see grader.sandbox.pool).
SNAPSHOT_SIGNAL = signal.SIGUSR2
MAX_HEADER = 64 << 20
# A codec tree nests at most codec.MAX_DEPTH values deep, each at most three JSON levels.
MAX_HEADER_DEPTH = 128


class ProtocolError(WireError):
    """The other side sent something that is not a well-formed message."""


def pack(header: dict[str, Any], blobs: Sequence[memoryview] = ()) -> list[bytes | memoryview]:
    header = dict(header)
    header["blobs"] = [memoryview(b).nbytes for b in blobs]
    data = json.dumps(header, separators=(",", ":"), allow_nan=True).encode()
    return [_LENGTH.pack(len(data)) + data, *blobs]


def send(sock: socket.socket, header: dict[str, Any], blobs: Sequence[memoryview] = ()) -> None:
    for part in pack(header, blobs):
        sock.sendall(part)


def _recv_exact(sock: socket.socket, size: int) -> bytearray:
    buffer = bytearray(size)
    view = memoryview(buffer)
    got = 0
    while got < size:
        n = sock.recv_into(view[got:], size - got)
        if n == 0:
            raise EOFError("the other side closed the connection")
        got += n
    return buffer


def receive(sock: socket.socket) -> tuple[dict[str, Any], list[bytearray]]:
    """Blocking receive, for the learner's side (which trusts what the grader sends)."""
    (length,) = _LENGTH.unpack(_recv_exact(sock, _LENGTH.size))
    header = json.loads(_recv_exact(sock, length))
    blobs = [_recv_exact(sock, int(n)) for n in header.get("blobs", [])]
    return header, blobs


class MessageReader:
    """Incremental, size-checked reader for the trusted side.

    ``recv_into`` :meth:`buffer` (where the next bytes go), then call :meth:`advance` with how
    many arrived; when it returns True, :attr:`message` holds (header, blobs).
    """

    def __init__(self, max_blob_bytes: int) -> None:
        self.max_blob_bytes = max_blob_bytes
        self.message: tuple[dict[str, Any], list[bytearray]] | None = None
        self._buffer = bytearray(_LENGTH.size)
        self._got = 0
        self._stage = "length"
        self._header: dict[str, Any] = {}
        self._sizes: list[int] = []
        self._blobs: list[bytearray] = []

    def buffer(self) -> memoryview:
        """Where the next bytes go (recv_into this)."""
        return memoryview(self._buffer)[self._got :]

    def advance(self, count: int) -> bool:
        self._got += count
        while self._got == len(self._buffer):
            if self._finish_part():
                return True
        return False

    def _finish_part(self) -> bool:
        if self._stage == "length":
            (length,) = _LENGTH.unpack(self._buffer)
            if length > MAX_HEADER:
                raise ProtocolError(f"header of {length} bytes is too large")
            self._start("header", length)
            return False
        if self._stage == "header":
            # the one place a child's bytes become data: strict JSON, every string encodable
            header = wire.loads(
                bytes(self._buffer),
                source="malformed header",
                max_bytes=MAX_HEADER,
                max_depth=MAX_HEADER_DEPTH,
                cls=ProtocolError,
            )
            if not isinstance(header, dict):
                raise ProtocolError("header is not an object")
            sizes = header.get("blobs", [])
            if not isinstance(sizes, list) or not all(type(n) is int and n >= 0 for n in sizes):
                raise ProtocolError("malformed blob sizes")
            if sum(sizes) > self.max_blob_bytes:
                raise ProtocolError(
                    f"the answer holds {sum(sizes) >> 20} MiB of data, more than the "
                    f"{self.max_blob_bytes >> 20} MiB allowed"
                )
            self._header = header
            self._sizes = list(sizes)
        else:
            self._blobs.append(self._buffer)
        if len(self._blobs) == len(self._sizes):
            self.message = (self._header, self._blobs)
            self._start("done", 0)
            self._got = 0
            self._buffer = bytearray(0)
            return True
        self._start("blob", self._sizes[len(self._blobs)])
        return False

    def _start(self, stage: str, size: int) -> None:
        self._stage = stage
        self._buffer = bytearray(size)
        self._got = 0
        if stage == "done":
            # a zero-length buffer would loop in advance(); mark completion instead
            self._buffer = bytearray(1)
