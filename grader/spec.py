"""Exercise specs: what ``exercises/<id>/exercise.yaml`` says, as frozen dataclasses.

An exercise is data. This module is the model; :mod:`grader.specfile` loads it from the YAML,
strictly (every field's type checked, unknown and duplicate keys rejected, every file it names
checked to exist), so a typo fails loudly with the file, the field and the fix instead of
silently changing what is graded. ``exercises/README.md`` documents the format.

Neither imports torch: ``grade list``, ``grade show`` and ``grade hint`` stay instant.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from grader import wire
from grader.i18n import Text  # hidden tests import Text from here too

FORMAT_VERSION = 1
SPEC_FILE = "exercise.yaml"
KINDS = ("implement", "fix")
DEVICES = ("cpu", "cuda")
TEST_DEVICES = ("cpu", "cuda", "meta")
ID_RE = re.compile(r"^exercise-([0-9]{2})\Z")
SLUG_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*\Z")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    signature: str
    summary: Text | None = None


@dataclass(frozen=True)
class TestSpec:
    """One hidden test: a ``def test_...`` in the exercise's test file."""

    name: str
    points: int
    description: Text
    devices: tuple[str, ...] | None = None  # None: the exercise's devices
    functions: tuple[str, ...] = ()  # the learner functions it exercises (for the report)
    takes_device: bool = True  # read from the test's signature: is it run once per device?
    input_check: bool = True  # does every learner call here fail when it modifies its inputs?
    # does a passed meta case also need the code never to decide by the device? False only where
    # the function describes the device by design (exercise-02's describe)
    same_on_every_device: bool = True


@dataclass(frozen=True)
class ForbiddenSpec:
    """APIs learners must not use, in some or all of their functions: one name, or a group of
    names that share one ``why``.

    A bare name (``softmax``) forbids the operation in every spelling (functions, methods,
    in-place forms, ``nn`` classes); a dotted one (``torch.optim``, ``nn.Linear``) forbids that
    object and everything under it. ``grader.testing.analysis.rules`` resolves them.
    """

    names: tuple[str, ...]  # e.g. ("softmax",), ("torch.optim",), ("softmax", "log_softmax")
    functions: tuple[str, ...]  # empty: every function
    why: Text

    @property
    def name(self) -> str:
        """The names, as one text (``softmax`` or ``softmax, log_softmax``)."""
        return ", ".join(self.names)

    def describe(self, lang: str) -> str:
        """A learner-facing line for ``grade show``: what is not allowed, where, and why."""
        zh = lang == "zh"
        items = []
        for name in self.names:
            if "." in name:
                items.append(f"{name} 及其中的一切" if zh else f"{name} and everything in it")
            else:
                items.append(
                    f"{name}（任何写法：函数、方法、原地版本或 nn 模块）"
                    if zh
                    else f"{name} in any spelling (function, method, in-place form or nn module)"
                )
        where = ", ".join(self.functions)
        if zh:
            scope = f"{where} 中" if where else "任何函数中"
            return f"{scope}不允许使用：{'；'.join(items)}。{self.why.zh}"
        scope = f" in {where}" if where else ""
        return f"Not allowed{scope}: {'; '.join(items)}. {self.why.en}"


@dataclass(frozen=True)
class MutantSpec:
    """A known-wrong variant of the solution that the hidden tests must catch."""

    file: str
    description: str
    must_fail: tuple[str, ...]
    diagnosis: str | None = None


@dataclass(frozen=True)
class AlternativeSpec:
    """A correct solution in another style that must score full marks."""

    file: str
    description: str


@dataclass(frozen=True)
class RequirementSpec:
    """One requirement the instructions state, and what proves it is checked (the audit table).

    ``tests`` fail a submission that violates only this requirement; ``mutants`` are such
    submissions (each loses only tests listed here); ``no_mutant`` says why none can be written.
    """

    id: str
    text: str
    tests: tuple[str, ...]
    mutants: tuple[str, ...] = ()
    no_mutant: str = ""


@dataclass(frozen=True)
class Limits:
    call_timeout_s: float = 5.0
    total_timeout_s: float = 60.0
    memory_mb: int = 3072
    output_kb: int = 16


@dataclass(frozen=True)
class Points:
    """What a grading of an exercise can score: ``here`` on any machine (CPU cases, and the meta
    cases that stand in for a GPU), and ``cuda``, what the CUDA cases add where a GPU is
    present. The one source every front end that names an exercise's points reads
    (``grade list``, ``grade show``, the dashboard), so they can never disagree."""

    here: int
    cuda: int


@dataclass(frozen=True)
class ExerciseSpec:
    id: str
    slug: str
    kind: str
    title: Text
    concepts: tuple[str, ...]
    teaches: tuple[str, ...]
    learner_file: str
    instructions: Text
    hints: tuple[Text, ...]
    functions: tuple[FunctionSpec, ...]
    devices: tuple[str, ...]
    limits: Limits
    forbidden: tuple[ForbiddenSpec, ...]
    tests: tuple[TestSpec, ...]
    mutants: tuple[MutantSpec, ...]
    alternatives: tuple[AlternativeSpec, ...]
    test_file: str
    # Where it was loaded from (not part of the YAML).
    folder: Path = field(compare=False)
    solutions_root: Path = field(compare=False)
    requirements: tuple[RequirementSpec, ...] = ()
    # a diagnosis's fix in this exercise's own terms (diagnosis id -> text; ``{line}`` in it
    # becomes the learner's line the evidence points at)
    fixes: tuple[tuple[str, Text], ...] = ()

    def fix(self, diagnosis: str) -> Text | None:
        return next((text for key, text in self.fixes if key == diagnosis), None)

    @property
    def number(self) -> int:
        match = ID_RE.match(self.id)
        assert match is not None
        return int(match.group(1))

    @property
    def spec_path(self) -> Path:
        return self.folder / SPEC_FILE

    @property
    def starter_path(self) -> Path:
        return self.folder / self.learner_file

    def starter_text(self) -> str:
        """The starter as Python reads it: UTF-8, a BOM left out (the loader refused any other
        encoding). Read as plain UTF-8, a starter saved with a BOM began a notebook's
        ``%%grade`` cell with U+FEFF on its second line: a syntax error at the learner's
        first run."""
        return wire.utf8(self.starter_path.read_bytes())

    @property
    def test_path(self) -> Path:
        return self.folder / self.test_file

    @property
    def solution_path(self) -> Path:
        return self.solutions_root / self.id / self.learner_file

    @property
    def course_root(self) -> Path:
        """The course folder the exercise belongs to (beside ``exercises/``, ``solutions/``
        and perhaps the course's ``diagnoses.yaml``)."""
        return self.solutions_root.parent

    @property
    def max_points(self) -> int:
        """The points of the tests, each counted once (authors' view; see graded_points)."""
        return sum(test.points for test in self.tests)

    @property
    def points(self) -> Points:
        """What grading gives (see :class:`Points`): the maximum score of a grading here."""
        return Points(here=self.graded_points(("cpu",)), cuda=self.graded_points(("cuda",)))

    def graded_points(self, selected: tuple[str, ...]) -> int:
        """What a grading on ``selected`` devices can score: every test counts once per device
        it runs on (a test on cpu and meta counts twice)."""
        return sum(test.points for test, _ in self.manifest(selected))

    def test(self, name: str) -> TestSpec:
        for test in self.tests:
            if test.name == name:
                return test
        raise KeyError(name)

    def test_devices(self, test: TestSpec) -> tuple[str, ...]:
        return test.devices if test.devices is not None else self.devices

    def manifest(self, selected: tuple[str, ...]) -> list[tuple[TestSpec, str | None]]:
        """Every (test, device) that a grading on ``selected`` devices gives a verdict.

        Device-independent tests (no ``device`` argument) run once, with device None, in a CPU
        child; ``meta`` stands in for a GPU on any machine. Both run whenever ``cpu`` is
        selected, so a CPU pass and a CUDA pass of one submission never grade a test twice.
        """
        entries: list[tuple[TestSpec, str | None]] = []
        for test in self.tests:
            if not test.takes_device:
                if "cpu" in selected:
                    entries.append((test, None))
                continue
            for device in self.test_devices(test):
                wanted = "cpu" if device == "meta" else device
                if wanted in selected:
                    entries.append((test, device))
        return entries
