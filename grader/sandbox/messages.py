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

import math
from dataclasses import dataclass, field
from typing import Any

MAX_TEXT = 8000  # characters of an exception message
MAX_NAME = 500  # characters of a type name, a function name, a line of code
MAX_FRAMES = 50
MAX_NAMES = 10_000  # functions a module defines, torch functions a call traced

ERROR_KINDS = ("import", "call", "arguments", "answer", "missing", "protocol")


class MessageError(ValueError):
    """A child's message does not have the form its type requires."""


# ---------------------------------------------------------------------------------------------
# Field readers: each takes the raw JSON value and returns it typed, or raises MessageError.


def fields(
    data: Any, kind: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``data`` as a mapping holding every required key, and no key beyond the optional ones."""
    if type(data) is not dict:
        raise MessageError(f"{kind}: not an object")
    missing = [k for k in required if k not in data]
    if missing:
        raise MessageError(f"{kind}: missing {', '.join(missing)}")
    unknown = [k for k in data if k not in required and k not in optional]
    if unknown:
        raise MessageError(f"{kind}: unknown field {str(unknown[0])[:40]!r}")
    return data


def text(value: Any, what: str, limit: int = MAX_TEXT) -> str:
    if type(value) is not str:
        raise MessageError(f"{what}: not a string")
    return value if len(value) <= limit else value[:limit] + " ... [cut]"


def integer(value: Any, what: str, low: int = 0, high: int = 2**62) -> int:
    if type(value) is not int or not low <= value <= high:
        raise MessageError(f"{what}: not a whole number in range")
    return value


def seconds(value: Any, what: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise MessageError(f"{what}: not a finite, non-negative number")
    return float(value)


def flag(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise MessageError(f"{what}: not true or false")
    return value


def names(value: Any, what: str, limit: int = MAX_NAMES) -> tuple[str, ...]:
    if type(value) is not list or len(value) > limit:
        raise MessageError(f"{what}: not a list of names")
    return tuple(text(v, what, MAX_NAME) for v in value)


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class ErrorFrame:
    """One frame of a traceback that lies in the learner's file."""

    line: int
    function: str
    code: str

    def to_wire(self) -> dict[str, Any]:
        return {"line": self.line, "function": self.function, "code": self.code}

    @classmethod
    def from_wire(cls, data: Any) -> ErrorFrame:
        d = fields(data, "frame", ("line", "function", "code"))
        return cls(
            integer(d["line"], "frame line", 0, 10**9),
            text(d["function"], "frame function", MAX_NAME),
            text(d["code"], "frame code", MAX_NAME),
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
        d = fields(
            data, "error", ("kind", "type", "mro", "message", "frames"), ("offset", "exit_code")
        )
        kind = text(d["kind"], "error kind", 20)
        if kind not in ERROR_KINDS:
            raise MessageError("error kind: unknown")
        frames = d["frames"]
        if type(frames) is not list or len(frames) > MAX_FRAMES:
            raise MessageError("error frames: not a list of frames")
        offset = d.get("offset")
        exit_code = d.get("exit_code")
        if exit_code is not None and type(exit_code) is not int:
            exit_code = text(exit_code, "exit code", MAX_NAME)
        return cls(
            kind=kind,
            type=text(d["type"], "error type", MAX_NAME),
            classes=names(d["mro"], "error mro", 100),
            message=text(d["message"], "error message"),
            frames=tuple(ErrorFrame.from_wire(f) for f in frames),
            offset=None if offset is None else integer(offset, "error offset", 0, 10**9),
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
        d = fields(data, "hello", ("type", "ok", "functions", "duration_s", "blobs"), ("error",))
        if d["type"] != "hello" or d["blobs"] != []:
            raise MessageError("hello: not a hello")
        ok = flag(d["ok"], "hello ok")
        error = ErrorInfo.from_wire(d["error"]) if "error" in d else None
        if ok == (error is not None):
            raise MessageError("hello: ok and error disagree")
        return cls(
            ok,
            names(d["functions"], "hello functions"),
            seconds(d["duration_s"], "hello duration"),
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
        d = fields(data, "trace", ("ops", "functions", "aten"))
        return cls(
            integer(d["ops"], "trace ops"),
            _counts(d["functions"], "trace functions"),
            _counts(d["aten"], "trace operators"),
        )


def _counts(raw: Any, what: str) -> dict[str, int]:
    if type(raw) is not dict or len(raw) > MAX_NAMES:
        raise MessageError(f"{what}: not a mapping")
    return {text(k, what, MAX_NAME): integer(v, what) for k, v in raw.items()}


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
        d = fields(
            data,
            "answer",
            ("type", "id", "ok", "duration_s", "storages", "blobs"),
            ("error", "result", "after", "trace"),
        )
        if d["type"] != "answer":
            raise MessageError("answer: not an answer")
        ok = flag(d["ok"], "answer ok")
        error = ErrorInfo.from_wire(d["error"]) if "error" in d else None
        if ok == (error is not None):
            raise MessageError("answer: ok and error disagree")
        value = _ABSENT
        if "result" in d:
            value = fields(d["result"], "result", ("value",))["value"]
        if ok and value is _ABSENT:
            raise MessageError("answer: no result")
        storages = d["storages"]
        if type(storages) is not list:
            raise MessageError("answer storages: not a list")
        return cls(
            id=text(d["id"], "answer id", 64),
            ok=ok,
            duration_s=seconds(d["duration_s"], "answer duration"),
            error=error,
            value=value,
            after=d.get("after", _ABSENT),
            storages=tuple(storages),
            trace=Trace.from_wire(d["trace"]) if "trace" in d else None,
        )
