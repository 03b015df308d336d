"""What a trusted worker reports to the grading process: typed records, one JSON line each.

Modelled on pytest's reports (``_pytest/reports.py``): each record is a frozen dataclass with a
``type`` tag, ``to_wire()`` and a strict ``from_wire()`` that rejects unknown, missing and
ill-typed fields, so nothing downstream re-parses a dict with ``.get()``. A worker is trusted
code, but what it reports carries learner data (messages, output, frames); a record that does
not parse is never guessed at: :class:`RecordError`, and the grading process treats it as the
worker's failure for that submission.

    env               once, first: Python, torch, platform, CUDA as the worker sees them
    review            once per submission: what its file's static review found
    test              one per (submission, test, device), as soon as the test ends
    submission_done   when every test of a submission has a record
    grader_error      the worker itself failed (e.g. the hidden tests did not collect)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from grader.i18n import Text
from grader.results import Frame, Status

MAX_TEXT = 64_000  # characters of a message or of captured output in one record


class RecordError(ValueError):
    """A line from a worker is not a well-formed record."""


def _fields(data: Any, kind: str, required: tuple[str, ...]) -> dict[str, Any]:
    if type(data) is not dict:
        raise RecordError(f"{kind}: not an object")
    missing = [k for k in required if k not in data]
    unknown = [k for k in data if k not in required]
    if missing or unknown:
        raise RecordError(f"{kind}: fields {sorted(missing)} missing, {sorted(unknown)} unknown")
    return data


def _str(value: Any, what: str, limit: int = MAX_TEXT) -> str:
    if type(value) is not str or len(value) > limit:
        raise RecordError(f"{what}: not a string of at most {limit} characters")
    return value


def _optional_str(value: Any, what: str) -> str | None:
    return None if value is None else _str(value, what, 200)


def _bool(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise RecordError(f"{what}: not a boolean")
    return value


def _number(value: Any, what: str) -> float:
    if type(value) not in (int, float) or not math.isfinite(value) or value < 0:
        raise RecordError(f"{what}: not a finite, non-negative number")
    return float(value)


def _strings(value: Any, what: str, limit: int = 1000) -> tuple[str, ...]:
    if type(value) is not list or len(value) > limit:
        raise RecordError(f"{what}: not a list of strings")
    return tuple(_str(v, what, 1000) for v in value)


def _text(value: Any, what: str) -> Text:
    d = _fields(value, what, ("en", "zh"))
    return Text(_str(d["en"], what), _str(d["zh"], what))


def check_json(value: Any, what: str, depth: int = 0) -> Any:
    """Plain JSON data (for attachments): finite numbers, strings, lists, string-keyed dicts,
    nested at most 12 deep."""
    if depth > 12:
        raise RecordError(f"{what}: nested too deeply")
    if value is None or type(value) in (bool, str, int):
        return value
    if type(value) is float:
        if not math.isfinite(value):
            raise RecordError(f"{what}: not a finite number")
        return value
    if type(value) is list:
        return [check_json(v, what, depth + 1) for v in value]
    if type(value) is dict and all(type(k) is str for k in value):
        return {k: check_json(v, what, depth + 1) for k, v in value.items()}
    raise RecordError(f"{what}: not JSON data")


@dataclass(frozen=True)
class EnvRecord:
    python: str
    torch: str
    platform: str
    cuda_available: bool
    cuda_devices: tuple[str, ...] = ()

    type = "env"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "python": self.python,
            "torch": self.torch,
            "platform": self.platform,
            "cuda_available": self.cuda_available,
            "cuda_devices": list(self.cuda_devices),
        }

    @classmethod
    def from_wire(cls, data: Any) -> EnvRecord:
        d = _fields(
            data, "env", ("type", "python", "torch", "platform", "cuda_available", "cuda_devices")
        )
        return cls(
            python=_str(d["python"], "python", 100),
            torch=_str(d["torch"], "torch", 100),
            platform=_str(d["platform"], "platform", 200),
            cuda_available=_bool(d["cuda_available"], "cuda_available"),
            cuda_devices=_strings(d["cuda_devices"], "cuda_devices", 64),
        )


@dataclass(frozen=True)
class TestRecord:
    """The verdict of one test instance: ``status`` is a :class:`Status` value; ``evidence``
    tags go from general to specific; ``error`` is the learner's exception (type and message)
    when one decided the outcome; ``data`` is what the test attached for the report (and, under
    ``check``, what a failed check recorded); ``fault`` is the traceback of an exception the
    hidden tests' own code raised (a grader fault), for the exercise's author: the Result
    never carries it, so no learner sees the tests' code."""

    __test__ = False  # not a pytest test class

    submission: str
    name: str
    device: str | None
    status: Status
    message: Text
    evidence: tuple[str, ...] = ()
    frames: tuple[Frame, ...] = ()
    error: dict[str, str] | None = None
    output: str = ""
    output_truncated: bool = False
    duration_s: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)
    fault: str = ""

    type = "test"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "submission": self.submission,
            "name": self.name,
            "device": self.device,
            "status": self.status.value,
            "message": self.message.to_dict(),
            "evidence": list(self.evidence),
            "frames": [
                {"line": f.line, "function": f.function, "code": f.code} for f in self.frames
            ],
            "error": self.error,
            "output": self.output,
            "output_truncated": self.output_truncated,
            "duration_s": self.duration_s,
            "data": self.data,
            "fault": self.fault,
        }

    @classmethod
    def from_wire(cls, data: Any) -> TestRecord:
        d = _fields(
            data,
            "test",
            (
                "type",
                "submission",
                "name",
                "device",
                "status",
                "message",
                "evidence",
                "frames",
                "error",
                "output",
                "output_truncated",
                "duration_s",
                "data",
                "fault",
            ),
        )
        try:
            status = Status(d["status"])
        except ValueError:
            raise RecordError("test: unknown status") from None
        frames = d["frames"]
        if type(frames) is not list or len(frames) > 100:
            raise RecordError("test frames: not a list")
        parsed = []
        for frame in frames:
            f = _fields(frame, "frame", ("line", "function", "code"))
            if type(f["line"]) is not int or f["line"] < 0:
                raise RecordError("frame line: not a line number")
            parsed.append(
                Frame(f["line"], _str(f["function"], "frame", 500), _str(f["code"], "frame", 500))
            )
        error = d["error"]
        if error is not None:
            e = _fields(error, "error", ("type", "message"))
            error = {
                "type": _str(e["type"], "error type", 500),
                "message": _str(e["message"], "error"),
            }
        attached = check_json(d["data"], "data")
        if type(attached) is not dict:
            raise RecordError("test data: not an object")
        return cls(
            submission=_str(d["submission"], "submission", 200),
            name=_str(d["name"], "name", 200),
            device=_optional_str(d["device"], "device"),
            status=status,
            message=_text(d["message"], "message"),
            evidence=_strings(d["evidence"], "evidence", 100),
            frames=tuple(parsed),
            error=error,
            output=_str(d["output"], "output"),
            output_truncated=_bool(d["output_truncated"], "output_truncated"),
            duration_s=_number(d["duration_s"], "duration_s"),
            data=attached,
            fault=_str(d["fault"], "fault"),
        )


@dataclass(frozen=True)
class ReviewRecord:
    """What the static review of a submission's file found reaching into the grader's or
    torch's internals: (kind, line, English, Chinese) each. Sent once per submission."""

    submission: str
    findings: tuple[tuple[str, int, str, str], ...]

    type = "review"

    def to_wire(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "submission": self.submission,
            "findings": [list(f) for f in self.findings],
        }

    @classmethod
    def from_wire(cls, data: Any) -> ReviewRecord:
        d = _fields(data, "review", ("type", "submission", "findings"))
        raw = d["findings"]
        if type(raw) is not list or len(raw) > 1000:
            raise RecordError("review findings: not a list")
        findings = []
        for item in raw:
            if type(item) is not list or len(item) != 4 or type(item[1]) is not int:
                raise RecordError("review finding: not (kind, line, en, zh)")
            findings.append(
                (_str(item[0], "kind", 100), item[1], _str(item[2], "en"), _str(item[3], "zh"))
            )
        return cls(_str(d["submission"], "submission", 200), tuple(findings))


@dataclass(frozen=True)
class SubmissionDone:
    submission: str

    type = "submission_done"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "submission": self.submission}

    @classmethod
    def from_wire(cls, data: Any) -> SubmissionDone:
        d = _fields(data, "submission_done", ("type", "submission"))
        return cls(_str(d["submission"], "submission", 200))


@dataclass(frozen=True)
class GraderErrorRecord:
    message: str

    type = "grader_error"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message}

    @classmethod
    def from_wire(cls, data: Any) -> GraderErrorRecord:
        d = _fields(data, "grader_error", ("type", "message"))
        return cls(_str(d["message"], "message"))


Record = EnvRecord | TestRecord | ReviewRecord | SubmissionDone | GraderErrorRecord
_TYPES: dict[str, Any] = {
    kind.type: kind
    for kind in (EnvRecord, TestRecord, ReviewRecord, SubmissionDone, GraderErrorRecord)
}


def from_wire(data: Any) -> Record:
    """The record a decoded JSON line holds (RecordError when it holds none)."""
    if type(data) is not dict or data.get("type") not in _TYPES:
        raise RecordError("not a record of a known type")
    record: Record = _TYPES[data["type"]].from_wire(data)
    return record


def parse_line(line: bytes) -> Record:
    try:
        data = json.loads(line)
    except (ValueError, RecursionError) as exc:
        raise RecordError(f"not JSON ({type(exc).__name__})") from None
    return from_wire(data)


def to_line(record: Record) -> str:
    """One record as a JSON line. Raises ValueError for data that is not JSON (a NaN)."""
    return json.dumps(record.to_wire(), ensure_ascii=False, allow_nan=False) + "\n"
