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

from dataclasses import dataclass, field
from typing import Any

from grader import wire
from grader.i18n import Text
from grader.results import Frame, Status
from grader.wire import WireError

MAX_TEXT = 64_000  # characters of a message or of captured output in one record


class RecordError(WireError):
    """A line from a worker is not a well-formed record."""


def _text(f: wire.Fields, key: str) -> Text:
    sub = f.fields(key, required=("en", "zh"))
    return Text(sub.string("en", max_len=MAX_TEXT), sub.string("zh", max_len=MAX_TEXT))


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
        with wire.reading(RecordError):
            f = wire.Fields(data, "env", required=_ENV_FIELDS)
            return cls(
                python=f.string("python", max_len=100),
                torch=f.string("torch", max_len=100),
                platform=f.string("platform", max_len=200),
                cuda_available=f.boolean("cuda_available"),
                cuda_devices=f.strings("cuda_devices", max_items=64, max_len=1000),
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
        with wire.reading(RecordError):
            f = wire.Fields(data, "test", required=_TEST_FIELDS)
            error = f.fields("error", required=("type", "message"), null=True)
            attached = f.plain("data")
            if type(attached) is not dict:
                wire.fail(f.name("data"), f"expected a mapping, got {wire.kind(attached)}")
            return cls(
                submission=f.string("submission", max_len=200),
                name=f.string("name", max_len=200),
                device=f.string("device", null=True, max_len=200),
                status=Status(f.string("status", choices=_STATUSES)),
                message=_text(f, "message"),
                evidence=f.strings("evidence", max_items=100, max_len=1000),
                frames=tuple(
                    Frame(
                        fr.integer("line", low=0),
                        fr.string("function", max_len=500),
                        fr.string("code", max_len=500),
                    )
                    for fr in (
                        wire.Fields(v, w, required=("line", "function", "code"))
                        for w, v in f.sequence("frames", max_items=100)
                    )
                ),
                error=None
                if error is None
                else {
                    "type": error.string("type", max_len=500),
                    "message": error.string("message", max_len=MAX_TEXT),
                },
                output=f.string("output", max_len=MAX_TEXT),
                output_truncated=f.boolean("output_truncated"),
                duration_s=f.number("duration_s", low=0),
                data=attached,
                fault=f.string("fault", max_len=MAX_TEXT),
            )


_ENV_FIELDS = ("type", "python", "torch", "platform", "cuda_available", "cuda_devices")
_TEST_FIELDS = (
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
)
_STATUSES = tuple(s.value for s in Status)


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
        with wire.reading(RecordError):
            f = wire.Fields(data, "review", required=("type", "submission", "findings"))
            findings = []
            for where, item in f.sequence("findings", max_items=1000):
                (_, kind), (_, line), (_, en), (_, zh) = wire.sequence(
                    item, where, min_items=4, max_items=4
                )
                findings.append(
                    (
                        wire.string(kind, f"{where}[0]", max_len=100),
                        wire.integer(line, f"{where}[1]", low=0),
                        wire.string(en, f"{where}[2]", max_len=MAX_TEXT),
                        wire.string(zh, f"{where}[3]", max_len=MAX_TEXT),
                    )
                )
            return cls(f.string("submission", max_len=200), tuple(findings))


@dataclass(frozen=True)
class SubmissionDone:
    submission: str

    type = "submission_done"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "submission": self.submission}

    @classmethod
    def from_wire(cls, data: Any) -> SubmissionDone:
        with wire.reading(RecordError):
            f = wire.Fields(data, "submission_done", required=("type", "submission"))
            return cls(f.string("submission", max_len=200))


@dataclass(frozen=True)
class GraderErrorRecord:
    message: str

    type = "grader_error"

    def to_wire(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message}

    @classmethod
    def from_wire(cls, data: Any) -> GraderErrorRecord:
        with wire.reading(RecordError):
            f = wire.Fields(data, "grader_error", required=("type", "message"))
            return cls(f.string("message", max_len=MAX_TEXT))


Record = EnvRecord | TestRecord | ReviewRecord | SubmissionDone | GraderErrorRecord
_TYPES: dict[str, Any] = {
    kind.type: kind
    for kind in (EnvRecord, TestRecord, ReviewRecord, SubmissionDone, GraderErrorRecord)
}


def from_wire(data: Any) -> Record:
    """The record a decoded JSON line holds (RecordError when it holds none)."""
    kind = data.get("type") if type(data) is dict else None
    if type(kind) is not str or kind not in _TYPES:
        raise RecordError("not a record of a known type")
    record: Record = _TYPES[kind].from_wire(data)
    return record


def parse_line(line: bytes) -> Record:
    return from_wire(wire.loads(line, source="a worker's record", cls=RecordError))


def to_line(record: Record) -> str:
    """One record as a JSON line, always encodable as UTF-8 (a lone surrogate in learner text
    is replaced). Raises ValueError for data that is not JSON (a NaN)."""
    return wire.dumps(record.to_wire()) + "\n"
