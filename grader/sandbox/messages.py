"""What a learner child sends the trusted side: typed records with a strict ``from_wire``.

Every byte from a learner child is hostile data: learner code runs in that process and can
rewrite the answer before it is sent. So the trusted side never reads a child's message with
``.get()``: it parses it here, into frozen dataclasses, and anything malformed (a missing or
unknown field, a wrong type, a line number that is not a number, a string where a number is due,
a NaN, a size beyond the limits) raises :class:`MessageError`, which the pool turns into that
test's learner-caused error. The child builds the same records and sends ``to_wire()``.

Values (the return value and the inputs after a call) travel as codec trees and are checked by
:mod:`grader.sandbox.codec` when they are decoded, not here.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass, field
from typing import Any

from grader import wire
from grader.wire import WireError

MAX_TEXT = 8000  # characters of an exception message
MAX_NAME = 500  # characters of a type name, a function name, a line of code
MAX_FRAMES = 50
MAX_SHAPES = 12  # tensors named on a frame's line
MAX_DIMS = 16  # sizes of one shape
MAX_NAMES = 10_000  # functions a module defines, torch functions a call traced

ERROR_KINDS = ("import", "call", "arguments", "answer", "missing", "protocol")


class MessageError(WireError):
    """A child's message does not have the form its type requires."""


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class ErrorFrame:
    """One frame of a traceback that lies in the learner's file."""

    line: int
    function: str
    code: str
    # The tensors this line names, and their shapes when it raised (the innermost frame only):
    # a shape error's message gives sizes, not which operand had them
    shapes: tuple[tuple[str, tuple[int, ...]], ...] = ()

    def to_wire(self) -> dict[str, Any]:
        data: dict[str, Any] = {"line": self.line, "function": self.function, "code": self.code}
        if self.shapes:
            data["shapes"] = [[name, list(shape)] for name, shape in self.shapes]
        return data

    @classmethod
    def from_wire(cls, data: Any) -> ErrorFrame:
        return cls._read(data, "frame")

    @classmethod
    def _read(cls, data: Any, where: str) -> ErrorFrame:
        with wire.reading(MessageError):
            f = wire.Fields(
                data, where, required=("line", "function", "code"), optional=("shapes",)
            )
            return cls(
                f.integer("line", low=0, high=10**9),
                f.string("function", max_len=MAX_NAME, cut=True),
                f.string("code", max_len=MAX_NAME, cut=True),
                tuple(
                    _shape(v, w) for w, v in f.sequence("shapes", max_items=MAX_SHAPES, default=[])
                ),
            )


def _shape(data: Any, where: str) -> tuple[str, tuple[int, ...]]:
    """One ``[name, [size, ...]]`` of a frame's shapes: a Python name and a tensor's sizes."""
    (name_at, name), (sizes_at, sizes) = wire.sequence(data, where, min_items=2, max_items=2)
    name = wire.string(name, name_at, max_len=100)
    if not name.isidentifier() or keyword.iskeyword(name):  # 形状 is a Python name too
        wire.fail(name_at, f"{name[:40]!r} is not a Python name")
    return name, tuple(
        wire.integer(v, w, low=0, high=2**62)
        for w, v in wire.sequence(sizes, sizes_at, max_items=MAX_DIMS)
    )


@dataclass(frozen=True)
class ErrorInfo:
    """An exception the learner's code raised (or a failure to answer), as data."""

    kind: str  # one of ERROR_KINDS: where it happened
    type: str  # e.g. "RuntimeError", "torch.OutOfMemoryError"
    classes: tuple[str, ...]  # its method resolution order, by name ("mro" on the wire)
    message: str
    frames: tuple[ErrorFrame, ...] = ()
    offset: int | None = None  # SyntaxError's column
    exit_code: int | str | None = None  # SystemExit's code

    def to_wire(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "kind": self.kind,
            "type": self.type,
            "mro": list(self.classes),
            "message": self.message,
            "frames": [f.to_wire() for f in self.frames],
        }
        if self.offset is not None:
            data["offset"] = self.offset
        if self.exit_code is not None:
            data["exit_code"] = self.exit_code
        return data

    @classmethod
    def from_wire(cls, data: Any) -> ErrorInfo:
        with wire.reading(MessageError):
            f = wire.Fields(
                data,
                "error",
                required=("kind", "type", "mro", "message", "frames"),
                optional=("offset", "exit_code"),
            )
            exit_code = f.raw("exit_code", None)
            if exit_code is not None and type(exit_code) is not int:
                exit_code = f.string("exit_code", max_len=MAX_NAME, cut=True)
            return cls(
                kind=f.string("kind", choices=ERROR_KINDS),
                type=f.string("type", max_len=MAX_NAME, cut=True),
                classes=tuple(
                    wire.string(v, w, max_len=MAX_NAME, cut=True)
                    for w, v in f.sequence("mro", max_items=100)
                ),
                message=f.string("message", max_len=MAX_TEXT, cut=True),
                frames=tuple(
                    ErrorFrame._read(v, w) for w, v in f.sequence("frames", max_items=MAX_FRAMES)
                ),
                offset=f.integer("offset", None, null=True, low=0, high=10**9),
                exit_code=exit_code,
            )

    @property
    def shown(self) -> str:
        """``Type: message``, as a learner reads it."""
        return f"{self.type}: {self.message}" if self.message else self.type

    def summary(self) -> dict[str, str]:
        """What a diagnosis is matched against, and what the result JSON keeps."""
        return {"type": self.type, "message": self.message}


@dataclass(frozen=True)
class Hello:
    """The child's first message: the learner's file imported (and what it defines), or not."""

    ok: bool
    functions: tuple[str, ...] = ()
    duration_s: float = 0.0
    error: ErrorInfo | None = None

    def to_wire(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "hello",
            "ok": self.ok,
            "functions": list(self.functions),
            "duration_s": self.duration_s,
        }
        if self.error is not None:
            data["error"] = self.error.to_wire()
        return data

    @classmethod
    def from_wire(cls, data: Any) -> Hello:
        with wire.reading(MessageError):
            f = wire.Fields(
                data,
                "hello",
                required=("type", "ok", "functions", "duration_s", "blobs"),
                optional=("error",),
            )
            if f.raw("type") != "hello" or f.raw("blobs") != []:
                wire.fail("hello", "not a hello")
            ok = f.boolean("ok")
            error = ErrorInfo.from_wire(f.raw("error")) if f.has("error") else None
            if ok == (error is not None):
                wire.fail("hello", "ok and error disagree")
            return cls(
                ok,
                _names(f, "functions"),
                f.number("duration_s", low=0),
                error,
            )


@dataclass(frozen=True)
class Trace:
    """What a traced call did, as the child measured it (it can be forged: only ever used to
    take points away, never to give them)."""

    ops: int
    functions: dict[str, int] = field(default_factory=dict)
    aten: dict[str, int] = field(default_factory=dict)  # operator name -> calls

    def to_wire(self) -> dict[str, Any]:
        return {"ops": self.ops, "functions": dict(self.functions), "aten": dict(self.aten)}

    @classmethod
    def from_wire(cls, data: Any) -> Trace:
        with wire.reading(MessageError):
            f = wire.Fields(data, "trace", required=("ops", "functions", "aten"))
            return cls(
                f.integer("ops", low=0, high=2**62),
                wire.counts(f.raw("functions"), f.name("functions"), max_items=MAX_NAMES),
                wire.counts(f.raw("aten"), f.name("aten"), max_items=MAX_NAMES),
            )


def _names(f: wire.Fields, key: str) -> tuple[str, ...]:
    return tuple(
        wire.string(v, w, max_len=MAX_NAME, cut=True)
        for w, v in f.sequence(key, max_items=MAX_NAMES)
    )


_ABSENT: Any = object()


@dataclass(frozen=True)
class Answer:
    """The child's answer to one request (a call or a scenario).

    ``value`` is the codec tree of the return value (present exactly when ``ok``); ``after`` is
    the codec tree of the call's inputs as they were afterwards (calls only); ``storages`` lists
    the tensor storages both trees refer to.
    """

    id: str
    ok: bool
    duration_s: float = 0.0
    error: ErrorInfo | None = None
    value: Any = _ABSENT
    after: Any = _ABSENT
    storages: tuple[Any, ...] = ()
    trace: Trace | None = None

    @property
    def has_value(self) -> bool:
        return self.value is not _ABSENT

    @property
    def has_after(self) -> bool:
        return self.after is not _ABSENT

    def to_wire(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "answer",
            "id": self.id,
            "ok": self.ok,
            "duration_s": self.duration_s,
            "storages": list(self.storages),
        }
        if self.error is not None:
            data["error"] = self.error.to_wire()
        if self.has_value:
            data["result"] = {"value": self.value}
        if self.has_after:
            data["after"] = self.after
        if self.trace is not None:
            data["trace"] = self.trace.to_wire()
        return data

    @classmethod
    def from_wire(cls, data: Any) -> Answer:
        with wire.reading(MessageError):
            f = wire.Fields(
                data,
                "answer",
                required=("type", "id", "ok", "duration_s", "storages", "blobs"),
                optional=("error", "result", "after", "trace"),
            )
            if f.raw("type") != "answer":
                wire.fail("answer", "not an answer")
            ok = f.boolean("ok")
            error = ErrorInfo.from_wire(f.raw("error")) if f.has("error") else None
            if ok == (error is not None):
                wire.fail("answer", "ok and error disagree")
            value = _ABSENT
            if f.has("result"):
                value = f.fields("result", required=("value",)).raw("value")
            if ok and value is _ABSENT:
                wire.fail("answer", "no result")
            return cls(
                id=f.string("id", max_len=64),
                ok=ok,
                duration_s=f.number("duration_s", low=0),
                error=error,
                value=value,
                after=f.raw("after", _ABSENT),
                storages=tuple(v for _, v in f.sequence("storages", max_items=1_000_000)),
                trace=Trace.from_wire(f.raw("trace")) if f.has("trace") else None,
            )
