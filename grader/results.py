"""The result model: one graded submission of one exercise, as typed dataclasses and JSON.

This JSON is the product's interface: the terminal summary, the HTML report, the gradebook and
every export are pure functions of it. It is versioned by ``schema_version``; ``from_dict``
rejects versions it does not know instead of guessing.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from grader import wire
from grader.i18n import LANGS
from grader.notebooks import CellMap
from grader.text import source_text

SCHEMA_VERSION = 1
MAX_TESTS = 10_000
MAX_LONG_TEXT = 4 << 20  # characters of a source, an output or a message


class ResultError(wire.WireError):
    """Result JSON (stored, or sent by a worker) does not have the form of a result."""


class Status(str, enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Frame:
    """One line of the learner's own file in a traceback (runner internals stripped)."""

    line: int
    function: str
    code: str

    @classmethod
    def from_dict(cls, data: Any, where: str = "frame") -> Frame:
        f = wire.Fields(data, where, required=("line", "function", "code"))
        return cls(
            f.integer("line", low=0),
            f.string("function", max_len=1000),
            f.string("code", max_len=wire.MAX_TEXT),
        )


@dataclass(frozen=True)
class Diagnosis:
    """The misconception a failure shows, in the report's language."""

    id: str
    title: str
    explanation: str  # what happened and why
    fix: str
    teaches: str = ""  # the seed section that teaches it

    def to_dict(self) -> dict[str, str]:
        return {
            "id": self.id,
            "title": self.title,
            "explanation": self.explanation,
            "fix": self.fix,
            "teaches": self.teaches,
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "diagnosis") -> Diagnosis:
        f = wire.Fields(data, where, required=("id", "title", "explanation", "fix", "teaches"))
        return cls(
            id=f.string("id", max_len=200),
            title=f.string("title", max_len=wire.MAX_TEXT),
            explanation=f.string("explanation", max_len=wire.MAX_TEXT),
            fix=f.string("fix", max_len=wire.MAX_TEXT),
            teaches=f.string("teaches", max_len=wire.MAX_TEXT),
        )


@dataclass(frozen=True)
class TestResult:
    __test__ = False  # not a pytest test class

    name: str
    device: str | None  # None: a device-independent test
    status: Status
    points: float
    max_points: float
    description: str
    message: str = ""  # learner-facing: what was expected, what came back
    diagnosis: Diagnosis | None = None
    evidence: tuple[str, ...] = ()  # machine-readable tags the diagnosis was matched from
    frames: tuple[Frame, ...] = ()  # where in the learner's file it went wrong
    output: str = ""  # what the learner's code printed, capped
    output_truncated: bool = False
    duration_s: float = 0.0
    data: dict[str, Any] = field(default_factory=dict)  # e.g. loss curves for the report

    @property
    def key(self) -> str:
        return f"{self.name}[{self.device}]" if self.device else self.name

    @property
    def verdict_word(self) -> str:
        """The label key a report shows for this verdict: its status, except ``crashed`` for a
        test that failed because the learner's function raised (its frames are in their file)
        before the check could look at anything: `test_leaves_inputs_alone ✗ failed` would
        say the inputs were changed when nothing was checked."""
        return "crashed" if self.status is Status.FAILED and self.frames else self.status.value

    def to_dict(self) -> dict[str, Any]:
        # Written out, in the fields' order: dataclasses.asdict copies every value deeply and
        # was a third of what storing a batch's results cost.
        diagnosis = self.diagnosis
        return {
            "name": self.name,
            "device": self.device,
            "status": self.status.value,
            "points": self.points,
            "max_points": self.max_points,
            "description": self.description,
            "message": self.message,
            "diagnosis": None if diagnosis is None else diagnosis.to_dict(),
            "evidence": list(self.evidence),
            "frames": [
                {"line": f.line, "function": f.function, "code": f.code} for f in self.frames
            ],
            "output": self.output,
            "output_truncated": self.output_truncated,
            "duration_s": self.duration_s,
            "data": _copied(self.data),
        }

    @classmethod
    def from_dict(cls, data: Any, where: str = "test") -> TestResult:
        f = wire.Fields(data, where, required=_TEST_FIELDS)
        diagnosis = f.raw("diagnosis")
        attached = f.plain("data")
        if type(attached) is not dict:
            wire.fail(f.name("data"), f"expected a mapping, got {wire.kind(attached)}")
        return cls(
            name=f.string("name", max_len=500),
            device=f.string("device", null=True, max_len=100),
            status=_status(f, "status"),
            points=f.number("points", low=0),
            max_points=f.number("max_points", low=0),
            description=f.string("description", max_len=wire.MAX_TEXT),
            message=f.string("message", max_len=MAX_LONG_TEXT),
            diagnosis=None
            if diagnosis is None
            else Diagnosis.from_dict(diagnosis, f.name("diagnosis")),
            evidence=f.strings("evidence", max_items=1000, max_len=500),
            frames=tuple(Frame.from_dict(v, w) for w, v in f.sequence("frames", max_items=1000)),
            output=f.string("output", max_len=MAX_LONG_TEXT),
            output_truncated=f.boolean("output_truncated"),
            duration_s=f.number("duration_s", low=0),
            data=attached,
        )


def _copied(value: Any) -> Any:
    """Plain data (a test's attached ``data``) copied, as dataclasses.asdict copies it: the
    dict a result gives out is the caller's to change."""
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_copied(v) for v in value)
    return value


@dataclass(frozen=True)
class Environment:
    python: str
    torch: str
    platform: str
    cuda_available: bool
    cuda_devices: tuple[str, ...] = ()
    isolation: str = ""  # the isolation tier the learner's code ran in

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["cuda_devices"] = list(self.cuda_devices)
        return data

    @classmethod
    def from_dict(cls, data: Any, where: str = "environment") -> Environment:
        f = wire.Fields(
            data,
            where,
            required=(
                "python",
                "torch",
                "platform",
                "cuda_available",
                "cuda_devices",
                "isolation",
            ),
        )
        return cls(
            python=f.string("python", max_len=500),
            torch=f.string("torch", max_len=500),
            platform=f.string("platform", max_len=500),
            cuda_available=f.boolean("cuda_available"),
            cuda_devices=f.strings("cuda_devices", max_items=64, max_len=500),
            isolation=f.string("isolation", max_len=500),
        )


@dataclass(frozen=True)
class ReviewNote:
    """Something in the learner's file that reaches into the grader or PyTorch's internals
    (found by a static review on the trusted side): the checks that rest on measurements made
    in the learner's own process cannot count for this file until an instructor has looked."""

    kind: str  # e.g. "monkeypatch", "frames", "private_torch"
    line: int
    message: str  # in the result's language

    @classmethod
    def from_dict(cls, data: Any, where: str = "review") -> ReviewNote:
        f = wire.Fields(data, where, required=("kind", "line", "message"))
        return cls(
            f.string("kind", max_len=100),
            f.integer("line", low=0),
            f.string("message", max_len=wire.MAX_TEXT),
        )


@dataclass(frozen=True)
class Result:
    exercise_id: str
    exercise_title: str
    submission: str
    status: Status  # passed, failed or error
    score: float
    max_score: float
    tests: tuple[TestResult, ...]
    environment: Environment
    seed: int
    lang: str = "en"
    devices: tuple[str, ...] = ()  # the devices asked for
    notes: tuple[str, ...] = ()  # learner-facing remarks on the whole grading
    hints: tuple[str, ...] = ()  # the exercise's hints, in order, in the report's language
    source: str = ""  # the learner's file, for the report's code view
    review: tuple[ReviewNote, ...] = ()  # reach-ins found in the file: needs an instructor's look
    # A notebook's graded code is its code cells joined: where each line of ``source`` (and so
    # every frame's and review note's line) lies in the notebook. None for a .py file.
    cells: CellMap | None = None
    grader_version: str = ""
    duration_s: float = 0.0
    schema_version: int = SCHEMA_VERSION

    @property
    def graded(self) -> tuple[TestResult, ...]:
        """The tests that ran (skipped ones do not count towards the score)."""
        return tuple(t for t in self.tests if t.status is not Status.SKIPPED)

    @property
    def skipped(self) -> tuple[TestResult, ...]:
        return tuple(t for t in self.tests if t.status is Status.SKIPPED)

    @property
    def review_unread(self) -> bool:
        """Whether the file needs review only because the grader could not read it as Python
        does (a coding cookie that changes its meaning, ...), not for anything it reaches into:
        the learner is told that, not that their code reaches into internals."""
        return bool(self.review) and all(n.kind == "unanalysable" for n in self.review)

    @property
    def percent(self) -> float:
        return 100.0 * self.score / self.max_score if self.max_score else 0.0

    def where(self, line: int) -> tuple[int, int, int | None] | None:
        """A line of the graded source as the learner finds it in their notebook: (cell, line
        in the cell, the cell's saved ``In [n]`` or None); None for a .py file, or for a line
        the joining added."""
        return self.cells.where(line) if self.cells is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": self.schema_version,
            "grader_version": self.grader_version,
            "exercise_id": self.exercise_id,
            "exercise_title": self.exercise_title,
            "submission": self.submission,
            "status": self.status.value,
            "score": self.score,
            "max_score": self.max_score,
            "lang": self.lang,
            "seed": self.seed,
            "devices": list(self.devices),
            "environment": self.environment.to_dict(),
            "notes": list(self.notes),
            "hints": list(self.hints),
            "duration_s": self.duration_s,
            "tests": [t.to_dict() for t in self.tests],
            "source": self.source,
            "review": [asdict(note) for note in self.review],
        } | ({"cells": self.cells.to_dict()} if self.cells is not None else {})

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "") -> Result:
        """Strict: exactly the fields :meth:`to_dict` writes (``cells`` only for a notebook),
        each of its type and within its bounds; anything else is a :class:`ResultError`
        naming ``source`` and the field. A stored result is outside data too."""
        with wire.reading(ResultError, source):
            if type(data) is not dict:
                wire.fail("", f"expected a result (a mapping), got {wire.kind(data)}")
            version = data.get("schema_version")
            if type(version) is not int or version != SCHEMA_VERSION:
                wire.fail(
                    "schema_version",
                    f"result schema_version {str(version)[:20]} is not {SCHEMA_VERSION}",
                    "regrade the submission with this grader",
                )
            f = wire.Fields(data, "", required=_RESULT_FIELDS, optional=("cells",))
            cells = f.raw("cells", None)
            return cls(
                exercise_id=f.string("exercise_id", max_len=200),
                exercise_title=f.string("exercise_title", max_len=1000),
                submission=f.string("submission", max_len=4096),
                status=_status(f, "status"),
                score=f.number("score", low=0),
                max_score=f.number("max_score", low=0),
                tests=tuple(
                    TestResult.from_dict(v, w) for w, v in f.sequence("tests", max_items=MAX_TESTS)
                ),
                environment=Environment.from_dict(f.raw("environment")),
                seed=f.integer("seed"),
                lang=f.string("lang", choices=LANGS),
                devices=f.strings("devices", max_items=10, max_len=20),
                notes=f.strings("notes", max_items=1000, max_len=wire.MAX_TEXT),
                hints=f.strings("hints", max_items=1000, max_len=wire.MAX_TEXT),
                source=f.string("source", max_len=MAX_LONG_TEXT),
                review=tuple(
                    ReviewNote.from_dict(v, w) for w, v in f.sequence("review", max_items=1000)
                ),
                cells=None if cells is None else CellMap.from_dict(cells, "cells"),
                grader_version=f.string("grader_version", max_len=100),
                duration_s=f.number("duration_s", low=0),
            )

    def to_json(self, *, compact: bool = False) -> str:
        """Indented for people; ``compact`` for files only programs read (a batch stores
        thousands, and indenting is a third of the cost of storing one)."""
        if compact:
            return wire.dumps(self.to_dict(), compact=True) + "\n"
        return wire.dumps(self.to_dict(), indent=2) + "\n"

    @classmethod
    def from_json(cls, text: str | bytes, *, source: str = "") -> Result:
        """A result from its JSON text, strictly (see :meth:`from_dict`): ResultError."""
        return cls.from_dict(wire.loads(text, source=source, cls=ResultError), source=source)


_TEST_FIELDS = tuple(f for f in TestResult.__dataclass_fields__ if f != "__test__")
_RESULT_FIELDS = (
    "schema_version",
    "grader_version",
    "exercise_id",
    "exercise_title",
    "submission",
    "status",
    "score",
    "max_score",
    "lang",
    "seed",
    "devices",
    "environment",
    "notes",
    "hints",
    "duration_s",
    "tests",
    "source",
    "review",
)


def _status(f: wire.Fields, key: str) -> Status:
    return Status(f.string(key, choices=tuple(s.value for s in Status)))


def devices_of(tests: tuple[TestResult, ...] | list[TestResult]) -> list[str]:
    """The devices the tests ran on, in the order reports show them (device-independent tests,
    device None, are not a device)."""
    order = ["cpu", "meta", "cuda"]
    present = {t.device for t in tests if t.device}
    return [d for d in order if d in present] + sorted(present - set(order))


def failure_groups(tests: tuple[TestResult, ...] | list[TestResult]) -> list[list[TestResult]]:
    """The tests that did not pass, one group per distinct failure: the same message with the
    same outcome is one thing to fix, shown once, whichever tests and devices it spoiled (a
    syntax error is one failure, not one per test)."""
    groups: dict[tuple[str, str], list[TestResult]] = {}
    for test in tests:
        if test.status not in (Status.PASSED, Status.SKIPPED):
            groups.setdefault((test.status.value, test.message), []).append(test)
    return list(groups.values())


def group_names(group: list[TestResult]) -> str:
    """The tests of a failure group, each once, in order."""
    return ", ".join(dict.fromkeys(t.name for t in group))


def group_devices(group: list[TestResult]) -> str:
    return ", ".join(dict.fromkeys(t.device for t in group if t.device))


def number(value: float) -> str:
    """A score as people write it: 7, 7.5, never 7.0."""
    return f"{value:g}"


MAX_SOURCE_CHARS = 200_000  # of a learner's file, for static checks and the report


def read_source(path: Path) -> str:
    """A learner's file as text for the report (undecodable bytes replaced, newlines made
    ``\n``), cut at MAX_SOURCE_CHARS; "" when it cannot be read (the grading says why)."""
    try:
        return source_text(path.read_bytes())[:MAX_SOURCE_CHARS]
    except OSError:
        return ""
