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

import json
from dataclasses import dataclass
from typing import Any

from grader.engine.api import GradeRequest, RequestError
from grader.results import Result

PROTOCOL = 1
MAX_LINE = 256 << 20  # one result and its report: far beyond any real one, still bounded
MAX_KEY = 64


class ProtocolError(ValueError):
    """A line that breaks the protocol. ``key`` is the job it belongs to, when known."""

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key


@dataclass(frozen=True)
class SlotJob:
    """One grading pass of one submission, as the slot receives it."""

    key: str
    request: GradeRequest
    prior: Result | None = None


@dataclass(frozen=True)
class SlotHello:
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


Message = SlotHello | ResultLine | ErrorLine | Done | Fault


def encode(obj: dict[str, Any]) -> bytes:
    """One protocol line (ASCII JSON: a stray byte can never split a line)."""
    return json.dumps(obj, ensure_ascii=True, separators=(",", ":")).encode("ascii") + b"\n"


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise ProtocolError(f"the field {key!r} appears twice")
        data[key] = value
    return data


def _object(line: bytes) -> dict[str, Any]:
    if len(line) > MAX_LINE:
        raise ProtocolError(f"a line longer than {MAX_LINE >> 20} MiB")
    try:
        data = json.loads(line.decode("utf-8"), object_pairs_hook=_no_duplicates)
    except ProtocolError:
        raise
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ProtocolError(f"not a JSON line ({type(exc).__name__})") from None
    if type(data) is not dict or type(data.get("type")) is not str:
        raise ProtocolError("not a protocol message (a JSON object with a 'type')")
    return data


def _fields(data: dict[str, Any], *names: str, key: str | None = None) -> None:
    expected = {"type", *names}
    if set(data) != expected:
        raise ProtocolError(
            f"a {data['type']!r} line has exactly the fields {', '.join(sorted(expected))}",
            key,
        )


def _key(value: Any) -> str:
    if type(value) is not str or not 0 < len(value) <= MAX_KEY or not value.isprintable():
        raise ProtocolError("a job key must be a short printable string")
    return value


def _int(value: Any, what: str, key: str | None = None) -> int:
    if type(value) is not int or value < 0:
        raise ProtocolError(f"{what} must be a whole number", key)
    return value


def _str(value: Any, what: str, key: str | None = None) -> str:
    if type(value) is not str:
        raise ProtocolError(f"{what} must be a string", key)
    return value


def load_result(data: Any, key: str | None = None) -> Result:
    """A result dict as a Result, or a ProtocolError naming the job."""
    if type(data) is not dict:
        raise ProtocolError("a result must be a JSON object", key)
    try:
        return Result.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ProtocolError(
            f"a result that does not load ({type(exc).__name__}: {exc})", key
        ) from None


# -- into the slot --------------------------------------------------------------------------


def grade_line(jobs: list[dict[str, Any]], reports: bool) -> bytes:
    """A chunk for the slot; each job is ``{"key", "request", "prior"}`` in wire form."""
    return encode({"type": "grade", "reports": reports, "jobs": jobs})


def job_wire(
    key: str, request: GradeRequest, prior: dict[str, Any] | None = None
) -> dict[str, Any]:
    return {"key": key, "request": request.to_wire(), "prior": prior}


def parse_grade(line: bytes) -> tuple[list[SlotJob], list[ErrorLine], bool]:
    """A chunk, as the slot reads it: the jobs to grade, the jobs it must refuse (a request
    that is not well formed, each with why), and whether to render reports. A chunk whose
    structure is broken is a ProtocolError as a whole."""
    data = _object(line)
    if data["type"] != "grade":
        raise ProtocolError(f"expected a 'grade' line, not {data['type']!r}")
    _fields(data, "reports", "jobs")
    if type(data["reports"]) is not bool:
        raise ProtocolError("reports must be true or false")
    if type(data["jobs"]) is not list:
        raise ProtocolError("jobs must be a list")
    jobs: list[SlotJob] = []
    refused: list[ErrorLine] = []
    seen: set[str] = set()
    for item in data["jobs"]:
        if type(item) is not dict or set(item) != {"key", "request", "prior"}:
            raise ProtocolError("a job has exactly the fields key, request, prior")
        key = _key(item["key"])
        if key in seen:
            raise ProtocolError(f"the job key {key!r} appears twice")
        seen.add(key)
        try:
            request = GradeRequest.from_wire(item["request"])
            prior = None if item["prior"] is None else load_result(item["prior"], key)
        except (RequestError, ProtocolError) as exc:
            refused.append(ErrorLine(key, f"a malformed grading request: {exc}"))
            continue
        jobs.append(SlotJob(key, request, prior))
    return jobs, refused, data["reports"]


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
        _fields(data, "protocol", "pid", "gpus", "fingerprint", "isolation", "hidden")
        if data["protocol"] != PROTOCOL:
            raise ProtocolError(f"protocol {data['protocol']!r}, not {PROTOCOL}")
        if type(data["fingerprint"]) is not dict:
            raise ProtocolError("the fingerprint must be a JSON object")
        hidden = data["hidden"]
        if type(hidden) is not list or not all(type(p) is str for p in hidden):
            raise ProtocolError("hidden must be a list of paths")
        return SlotHello(
            pid=_int(data["pid"], "pid"),
            gpus=_int(data["gpus"], "gpus"),
            fingerprint=data["fingerprint"],
            isolation=_str(data["isolation"], "isolation"),
            hidden=tuple(hidden),
        )
    if kind == "result":
        key = data.get("key")
        key = key if type(key) is str and len(key) <= MAX_KEY else None
        _fields(data, "key", "result", "report", key=key)
        key = _key(data["key"])
        report = data["report"]
        if report is not None and type(report) is not str:
            raise ProtocolError("a report must be a string or null", key)
        load_result(data["result"], key)
        return ResultLine(key, data["result"], report)
    if kind == "error":
        _fields(data, "key", "message")
        return ErrorLine(_key(data["key"]), _str(data["message"], "message"))
    if kind == "done":
        _fields(data, "count")
        return Done(_int(data["count"], "count"))
    if kind == "fault":
        _fields(data, "message")
        return Fault(_str(data["message"], "message"))
    raise ProtocolError(f"an unknown message type {kind!r}")
