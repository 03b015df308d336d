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

import json
import socket
import struct
import time
from dataclasses import dataclass, fields
from typing import Any, BinaryIO, ClassVar

from grader.engine.api import GradeRequest, RequestError
from grader.results import Result

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


class ProtocolError(Exception):
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
        _fields(body, {"request": dict})
        try:
            return cls(GradeRequest.from_wire(body["request"]))
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
        _fields(body, {"result": dict})
        return cls(parse_result(body["result"]))


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
    # the uids its learner children run as, [start, stop) (empty: they keep the server's)
    learner_uids_start: int
    learner_uids_stop: int


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


def _fields(body: dict[str, Any], expected: dict[str, type | tuple[type, ...]]) -> None:
    """Exactly these fields, each of its type (a bool is not a number here)."""
    if set(body) != set(expected):
        missing = sorted(set(expected) - set(body))
        extra = sorted(set(body) - set(expected))
        parts = [f"missing {', '.join(missing)}"] * bool(missing) + [
            f"unexpected {', '.join(extra)}"
        ] * bool(extra)
        raise ProtocolError(f"wrong fields ({'; '.join(parts)})")
    for name, kind in expected.items():
        value = body[name]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            raise ProtocolError(f"{name} must be {_names(kinds)}, not a boolean")
        if not isinstance(value, kinds):
            raise ProtocolError(f"{name} must be {_names(kinds)}, not {type(value).__name__}")


def _names(kinds: tuple[type, ...]) -> str:
    words = {str: "a string", int: "a whole number", float: "a number", dict: "an object"}
    return " or ".join(words.get(k, k.__name__) for k in kinds)


def _from_body(cls: Any, body: dict[str, Any]) -> Message:
    if hasattr(cls, "from_body"):
        parsed: Message = cls.from_body(body)
        return parsed
    _fields(body, {f.name: _FIELD_TYPES[str(f.type)] for f in fields(cls)})
    message: Message = cls(**body)
    return message


# the field types of the messages without a from_body of their own
_FIELD_TYPES: dict[str, type | tuple[type, ...]] = {"int": int, "float": (int, float), "str": str}


_RESULT_FIELDS = frozenset(
    {f.name for f in fields(Result)} | {"status", "environment", "tests"}
) - {"percent"}


def parse_result(data: Any) -> Result:
    """A Result from its JSON form, or a ProtocolError that says what was wrong with it."""
    if not isinstance(data, dict):
        raise ProtocolError("a result must be an object")
    unknown = sorted(set(data) - _RESULT_FIELDS)
    if unknown:
        raise ProtocolError(f"a result with unknown fields: {', '.join(unknown)}")
    try:
        return Result.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        what = f"missing {exc}" if isinstance(exc, KeyError) else str(exc)
        raise ProtocolError(f"a malformed result ({what})") from None


# -- the envelope and the frame -----------------------------------------------------------


def encode(message: Message) -> bytes:
    payload = json.dumps(
        {"protocol": PROTOCOL, "kind": message.kind, "body": _body(message)},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode("utf-8")
    if len(payload) > MAX_MESSAGE:
        raise ProtocolError(f"a message of {len(payload)} bytes is over {MAX_MESSAGE} bytes")
    return _LENGTH.pack(len(payload)) + payload


def decode(payload: bytes, expected: tuple[type, ...]) -> Message:
    """One message from its JSON bytes; ``expected``: the kinds this side may receive."""
    try:
        data = json.loads(payload.decode("utf-8"))
    except UnicodeDecodeError:
        raise ProtocolError("a message that is not UTF-8 text") from None
    except ValueError as exc:
        raise ProtocolError(f"a message that is not JSON ({exc})") from None
    if not isinstance(data, dict) or set(data) != {"protocol", "kind", "body"}:
        raise ProtocolError("a message must be an object with protocol, kind and body")
    if data["protocol"] != PROTOCOL or isinstance(data["protocol"], bool):
        raise ProtocolError(
            f"the other side speaks protocol {data['protocol']!r}, this one {PROTOCOL}"
        )
    kind, body = data["kind"], data["body"]
    if not isinstance(body, dict):
        raise ProtocolError("a message's body must be an object")
    for cls in _KINDS.get(kind, []) if isinstance(kind, str) else []:
        if cls in expected:
            try:
                message: Message = _from_body(cls, body)
            except ProtocolError as exc:
                raise ProtocolError(f"a malformed {kind} message: {exc}") from None
            return message
    raise ProtocolError(f"an unexpected message kind {kind!r}")


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
