"""What the warm server and its clients say to each other, and how it is framed.

Every message is a 4-byte big-endian length, then that many bytes of UTF-8 JSON: an envelope
``{"protocol": 1, "kind": ..., "body": {...}}``. Each kind is a frozen dataclass with a strict
``from_wire`` (exactly its fields, each of its type); a grading request's body is
:meth:`GradeRequest.to_wire`, a result's is :meth:`Result.to_dict`, read back with their own
parsers. Anything else (a short frame, a length past :data:`MAX_MESSAGE`, bytes that are not
JSON, a field too many) is a :class:`ProtocolError` whose message says what was wrong: the
other side of a socket is never trusted to be well-formed.

    client                                   server
    GradeCall(request)        ──────────►
                              ◄──────────    Accepted()            (grading has begun)
                              ◄──────────    ResultReply(result) | ErrorReply(kind, ...)
    StatusCall() | StopCall() ──────────►
                              ◄──────────    StatusReply(...) | Stopping()
"""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass, fields
from typing import Any, BinaryIO, ClassVar

from grader import wire
from grader.engine.api import GradeRequest, RequestError
from grader.results import Result, ResultError
from grader.wire import WireError

PROTOCOL = 1
MAX_MESSAGE = 64 << 20  # a request's source is at most 4 MiB, a result's about as much
_LENGTH = struct.Struct("!I")

# ErrorReply kinds: how a client is to take each
USAGE = "usage"  # the request cannot be graded as asked (as in-process grading would say)
STALE = "stale"  # the server's code or exercises changed: it is exiting; start a new one
REFUSED = "refused"  # the peer is another user
BAD_MESSAGE = "protocol"  # the server could not read what it was sent
INTERNAL = "internal"  # the server failed
ERROR_KINDS = (USAGE, STALE, REFUSED, BAD_MESSAGE, INTERNAL)


class ProtocolError(WireError):
    """What came over the socket is not a well-formed message (the text says how)."""


class Closed(ProtocolError):
    """The other side closed the connection before a whole message came."""


# -- messages ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class GradeCall:
    kind: ClassVar[str] = "grade"
    request: GradeRequest

    def body(self) -> dict[str, Any]:
        return {"request": self.request.to_wire()}

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> GradeCall:
        request = wire.Fields(body, "body", required=("request",)).raw("request")
        try:
            return cls(GradeRequest.from_wire(request))
        except RequestError as exc:
            raise ProtocolError(f"a malformed grading request: {exc}") from None


@dataclass(frozen=True)
class StatusCall:
    kind: ClassVar[str] = "status"


@dataclass(frozen=True)
class StopCall:
    kind: ClassVar[str] = "stop"


@dataclass(frozen=True)
class Accepted:
    """The server has the request and is grading it (the client may now wait as long as the
    grading takes)."""

    kind: ClassVar[str] = "accepted"


@dataclass(frozen=True)
class ResultReply:
    kind: ClassVar[str] = "result"
    result: Result

    def body(self) -> dict[str, Any]:
        return {"result": self.result.to_dict()}

    @classmethod
    def from_body(cls, body: dict[str, Any]) -> ResultReply:
        return cls(parse_result(wire.Fields(body, "body", required=("result",)).raw("result")))


@dataclass(frozen=True)
class ErrorReply:
    kind: ClassVar[str] = "error"
    error: str  # one of ERROR_KINDS
    message: str
    hint: str = ""

    def __post_init__(self) -> None:
        if self.error not in ERROR_KINDS:
            raise ProtocolError(f"unknown error kind {self.error!r}")


@dataclass(frozen=True)
class StatusReply:
    kind: ClassVar[str] = "status"
    pid: int
    version: str
    root: str  # the course it grades (the folder holding exercises/ and solutions/)
    started: float  # time.time() when it started
    idle_timeout_s: float
    idle_s: float
    served: int  # gradings answered
    isolation: str


@dataclass(frozen=True)
class Stopping:
    kind: ClassVar[str] = "stopping"


Message = (
    GradeCall | StatusCall | StopCall | Accepted | ResultReply | ErrorReply | StatusReply | Stopping
)
_KINDS: dict[str, list[type]] = {}
for _type in (GradeCall, StatusCall, StopCall, Accepted, ResultReply, ErrorReply, StatusReply):
    _KINDS.setdefault(_type.kind, []).append(_type)  # "status" names a call and a reply
_KINDS.setdefault(Stopping.kind, []).append(Stopping)
REQUESTS = (GradeCall, StatusCall, StopCall)
REPLIES = (Accepted, ResultReply, ErrorReply, StatusReply, Stopping)


def _body(message: Any) -> dict[str, Any]:
    if hasattr(message, "body"):
        body: dict[str, Any] = message.body()
        return body
    return {f.name: getattr(message, f.name) for f in fields(message)}


def _from_body(cls: Any, body: dict[str, Any]) -> Message:
    if hasattr(cls, "from_body"):
        parsed: Message = cls.from_body(body)
        return parsed
    names = tuple(f.name for f in fields(cls))
    f = wire.Fields(body, "body", required=names)
    read = {"int": f.integer, "float": f.number, "str": f.string}
    message: Message = cls(**{f.name: read[str(f.type)](f.name) for f in fields(cls)})
    return message


def parse_result(data: Any) -> Result:
    """A Result from its JSON form, or a ProtocolError that says what was wrong with it."""
    try:
        return Result.from_dict(data)
    except ResultError as exc:
        raise ProtocolError(f"a malformed result ({exc})") from None


# -- the envelope and the frame -----------------------------------------------------------


def encode(message: Message) -> bytes:
    payload = wire.dumps(
        {"protocol": PROTOCOL, "kind": message.kind, "body": _body(message)}, compact=True
    ).encode("utf-8")
    if len(payload) > MAX_MESSAGE:
        raise ProtocolError(f"a message of {len(payload)} bytes is over {MAX_MESSAGE} bytes")
    return _LENGTH.pack(len(payload)) + payload


def decode(payload: bytes, expected: tuple[type, ...]) -> Message:
    """One message from its JSON bytes; ``expected``: the kinds this side may receive."""
    data = wire.loads(payload, max_bytes=MAX_MESSAGE, cls=ProtocolError)
    if type(data) is not dict or set(data) != {"protocol", "kind", "body"}:
        raise ProtocolError("a message must be an object with protocol, kind and body")
    if type(data["protocol"]) is not int or data["protocol"] != PROTOCOL:
        raise ProtocolError(
            f"the other side speaks protocol {str(data['protocol'])[:20]}, this one {PROTOCOL}"
        )
    kind, body = data["kind"], data["body"]
    if type(body) is not dict:
        raise ProtocolError("a message's body must be an object")
    for cls in _KINDS.get(kind, []) if type(kind) is str else []:
        if cls in expected:
            try:
                message: Message = _from_body(cls, body)
            except WireError as exc:
                raise ProtocolError(f"a malformed {kind} message: {exc}") from None
            return message
    raise ProtocolError(f"an unexpected message kind {str(kind)[:40]!r}")


def send(sock: socket.socket, message: Message) -> None:
    sock.sendall(encode(message))


def receive(sock: socket.socket, expected: tuple[type, ...], deadline: float | None) -> Message:
    """The next message, waiting until ``deadline`` (a ``time.monotonic()`` value; None: no
    limit). A timeout is a ProtocolError too: a peer that says nothing is not answering."""
    header = _read(sock, _LENGTH.size, deadline, first=True)
    (length,) = _LENGTH.unpack(header)
    if length > MAX_MESSAGE:
        raise ProtocolError(f"a message of {length} bytes is announced, over {MAX_MESSAGE}")
    return decode(bytes(_read(sock, length, deadline)), expected)


def _read(sock: socket.socket, size: int, deadline: float | None, first: bool = False) -> bytes:
    buffer = bytearray()
    while len(buffer) < size:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError("no answer in time")
            sock.settimeout(left)
        else:
            sock.settimeout(None)
        try:
            chunk = sock.recv(min(size - len(buffer), 1 << 20))
        except TimeoutError:
            raise ProtocolError("no answer in time") from None
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            if first and not buffer:
                raise Closed("the connection was closed")
            raise Closed("the connection was closed in the middle of a message")
        buffer += chunk
    return bytes(buffer)


def read_stream(stream: BinaryIO, expected: tuple[type, ...]) -> Message:
    """One message from a byte stream (a pipe: ``python -m grader.serve --once``)."""
    header = stream.read(_LENGTH.size)
    if len(header) < _LENGTH.size:
        raise Closed("the stream ended before a message")
    (length,) = _LENGTH.unpack(header)
    if length > MAX_MESSAGE:
        raise ProtocolError(f"a message of {length} bytes is announced, over {MAX_MESSAGE}")
    payload = stream.read(length)
    if len(payload) < length:
        raise Closed("the stream ended in the middle of a message")
    return decode(payload, expected)


def write_stream(stream: BinaryIO, message: Message) -> None:
    stream.write(encode(message))
    stream.flush()
