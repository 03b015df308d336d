"""The line protocol between a Dask task and its warm grading process (the slot).

One JSON object per line, UTF-8, in both directions. Learner bytes travel only as data: the
source as base64 inside a :meth:`GradeRequest.to_wire` request going in, the result JSON (and
its rendered HTML report) coming out. Nothing on either side is ever unpickled or evaluated.

Into the slot (one chunk at a time; the next is sent only after ``done``)::

    {"type": "grade", "reports": bool,
     "jobs": [{"key": str, "request": <GradeRequest wire>, "prior": <Result dict> | null}]}

``request.devices`` is the pass to run. ``prior`` is the result of the other pass of the same
submission (the CPU pass, for a CUDA pass on a GPU worker): the slot merges the two.

Out of the slot::

    {"type": "hello", "protocol": 1, "pid": int, "gpus": int, "fingerprint": {...},
     "isolation": str, "hidden": [str]}                        once, when it is warm
    {"type": "result", "key": str, "result": <Result dict>, "report": str | null}
    {"type": "error", "key": str, "message": str}              a job it could not grade
    {"type": "done", "count": int}                             the chunk is complete
    {"type": "fault", "message": str}                          it cannot serve (start-up, or a
                                                               malformed chunk)

Every line is parsed strictly (exact fields, exact types); a line that breaks the rules is a
:class:`ProtocolError`, which names the job it belongs to when it can be told.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from grader import wire
from grader.engine.api import GradeRequest, RequestError
from grader.results import Result, ResultError
from grader.text import shown
from grader.wire import WireError

PROTOCOL = 1
MAX_LINE = 256 << 20  # one result and its report: far beyond any real one, still bounded
MAX_KEY = 64


class ProtocolError(WireError):
    """A line that breaks the protocol. ``key`` is the job it belongs to, when known."""

    key: str | None = None

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class Job:
    """One grading pass of one submission, as the slot receives it."""

    key: str
    request: GradeRequest
    prior: Result | None = None


@dataclass(frozen=True)
class Hello:
    pid: int
    gpus: int
    fingerprint: dict[str, Any]
    isolation: str
    hidden: tuple[str, ...]


@dataclass(frozen=True)
class ResultLine:
    key: str
    result: dict[str, Any]  # checked to load as a Result
    report: str | None


@dataclass(frozen=True)
class ErrorLine:
    key: str
    message: str


@dataclass(frozen=True)
class Done:
    count: int


@dataclass(frozen=True)
class Fault:
    message: str


Message = Hello | ResultLine | ErrorLine | Done | Fault


def encode(obj: dict[str, Any]) -> bytes:
    """One protocol line (ASCII JSON: a stray byte can never split a line)."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def _object(line: bytes) -> dict[str, Any]:
    data = wire.loads(line, max_bytes=MAX_LINE, cls=ProtocolError)
    if type(data) is not dict or type(data.get("type")) is not str:
        raise ProtocolError("not a protocol message (a JSON object with a 'type')")
    return data


def _fields(data: dict[str, Any], *names: str, key: str | None = None) -> wire.Fields:
    try:
        return wire.Fields(data, shown(data["type"])[:20], required=("type", *names))
    except WireError as exc:
        raise ProtocolError(str(exc), key) from None


def _key(value: Any) -> str:
    if type(value) is not str or not 0 < len(value) <= MAX_KEY or not value.isprintable():
        raise ProtocolError("a job key must be a short printable string")
    return value


@contextlib.contextmanager
def _reading(key: str | None = None) -> Iterator[None]:
    """Within: a WireError leaves as a ProtocolError naming the job ``key``."""
    try:
        yield
    except ProtocolError:
        raise
    except WireError as exc:
        raise ProtocolError(str(exc), key) from None


def load_result(data: Any, key: str | None = None) -> Result:
    """A result dict as a Result, or a ProtocolError naming the job."""
    try:
        return Result.from_dict(data)
    except ResultError as exc:
        raise ProtocolError(f"a result that does not load ({exc})", key) from None


# -- into the slot --------------------------------------------------------------------------


def grade_line(jobs: list[dict[str, Any]], reports: bool) -> bytes:
    """A chunk for the slot; each job is ``{"key", "request", "prior"}`` in wire form."""
    return encode({"type": "grade", "reports": reports, "jobs": jobs})


def job_wire(
    key: str, request: GradeRequest, prior: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"key": key, "request": request.to_wire(), "prior": prior}


def parse_grade(line: bytes) -> tuple[list[Job], list[ErrorLine], bool]:
    """A chunk, as the slot reads it: the jobs to grade, the jobs it must refuse (a request
    that is not well formed, each with why), and whether to render reports. A chunk whose
    structure is broken is a ProtocolError as a whole."""
    data = _object(line)
    if data["type"] != "grade":
        raise ProtocolError(f"expected a 'grade' line, not {shown(data['type'])[:40]!r}")
    f = _fields(data, "reports", "jobs")
    with _reading():
        reports = f.boolean("reports")
        items = f.sequence("jobs")
    jobs: list[Job] = []
    refused: list[ErrorLine] = []
    seen: set[str] = set()
    for where, item in items:
        with _reading():
            job = wire.Fields(item, where, required=("key", "request", "prior"))
        key = _key(job.raw("key"))
        if key in seen:
            raise ProtocolError(f"the job key {key!r} appears twice")
        seen.add(key)
        try:
            request = GradeRequest.from_wire(job.raw("request"))
            prior = None if job.raw("prior") is None else load_result(job.raw("prior"), key)
        except (RequestError, ProtocolError) as exc:
            refused.append(ErrorLine(key, f"a malformed grading request: {exc}"))
            continue
        jobs.append(Job(key, request, prior))
    return jobs, refused, reports


# -- out of the slot ------------------------------------------------------------------------


def hello_line(
    *, pid: int, gpus: int, fingerprint: dict[str, Any], isolation: str, hidden: list[str]
) -> bytes:
    return encode(
        {
            "type": "hello",
            "protocol": PROTOCOL,
            "pid": pid,
            "gpus": gpus,
            "fingerprint": fingerprint,
            "isolation": isolation,
            "hidden": hidden,
        }
    )


def result_line(key: str, result: Result, report: str | None) -> bytes:
    return encode({"type": "result", "key": key, "result": result.to_dict(), "report": report})


def error_line(key: str, message: str) -> bytes:
    return encode({"type": "error", "key": key, "message": message})


def done_line(count: int) -> bytes:
    return encode({"type": "done", "count": count})


def fault_line(message: str) -> bytes:
    return encode({"type": "fault", "message": message})


def parse_message(line: bytes) -> Message:
    """A line from the slot, checked field by field. A ``result`` must load as a Result."""
    data = _object(line)
    kind = data["type"]
    if kind == "hello":
        f = _fields(data, "protocol", "pid", "gpus", "fingerprint", "isolation", "hidden")
        if data["protocol"] != PROTOCOL or type(data["protocol"]) is not int:
            raise ProtocolError(f"protocol {str(data['protocol'])[:20]}, not {PROTOCOL}")
        with _reading():
            return Hello(
                pid=f.integer("pid", low=0),
                gpus=f.integer("gpus", low=0),
                fingerprint=_mapping(f.plain("fingerprint"), f.name("fingerprint")),
                isolation=f.string("isolation", max_len=500),
                hidden=f.strings("hidden", max_len=4096),
            )
    if kind == "result":
        key = data.get("key")
        key = key if type(key) is str and len(key) <= MAX_KEY else None
        f = _fields(data, "key", "result", "report", key=key)
        key = _key(data["key"])
        with _reading(key):
            report = f.string("report", null=True, max_len=MAX_LINE)
        load_result(data["result"], key)
        return ResultLine(key, data["result"], report)
    if kind == "error":
        f = _fields(data, "key", "message")
        with _reading():
            return ErrorLine(_key(data["key"]), f.string("message"))
    if kind == "done":
        f = _fields(data, "count")
        with _reading():
            return Done(f.integer("count", low=0))
    if kind == "fault":
        f = _fields(data, "message")
        with _reading():
            return Fault(f.string("message"))
    raise ProtocolError(f"an unknown message type {shown(kind)[:40]!r}")


def _mapping(value: Any, where: str) -> dict[str, Any]:
    if type(value) is not dict:
        wire.fail(where, f"expected a mapping, got {wire.kind(value)}")
    return value
