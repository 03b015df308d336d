"""The catalogue of exercises: where they live, loading them all, and resolving an ``ID``.

``ID`` accepts ``exercise-07``, ``07``, ``7`` and the exercise's slug; a wrong one is answered
with the closest matches.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from pathlib import Path

from grader import course
from grader.errors import SpecError, UsageError
from grader.spec import ID_RE, SPEC_FILE, ExerciseSpec
from grader.specfile import load_exercise
from grader.text import shown_line

NUMBER_RE = re.compile(r"^(?:exercise-?|ex-?)?([0-9]{1,2})\Z", re.IGNORECASE)


def project_root() -> Path:
    """The folder of the course this process works on (``exercises/``, ``solutions/`` and
    perhaps ``diagnoses.yaml``): the one ``--course`` or ``GRADER_COURSE`` names, else the
    built-in one (see :mod:`grader.course`)."""
    return course.current().root


@dataclass(frozen=True)
class Catalog:
    """The exercises of the course at ``root``. Each is loaded (its YAML read, its tests
    parsed) once per catalogue: a run resolves the same exercise several times (choosing the
    assignment, its points, the engine's specs), and a batch's start waited on each load."""

    root: Path
    _loaded: dict[Path, ExerciseSpec] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    @property
    def exercises_dir(self) -> Path:
        return self.root / "exercises"

    @property
    def solutions_dir(self) -> Path:
        return self.root / "solutions"

    def folders(self) -> list[Path]:
        """Every ``exercises/exercise-NN`` folder, in order."""
        if not self.exercises_dir.is_dir():
            raise UsageError(
                f"no exercises folder at {self.exercises_dir}",
                hint="A course is a folder holding exercises/ and solutions/: choose one with "
                "--course DIR or GRADER_COURSE (exercises/README.md).",
            )
        return sorted(p for p in self.exercises_dir.iterdir() if p.is_dir() and ID_RE.match(p.name))

    def load(self, folder: Path) -> ExerciseSpec:
        if folder not in self._loaded:
            self._loaded[folder] = load_exercise(folder, self.solutions_dir)
        return self._loaded[folder]

    def all(self) -> list[ExerciseSpec]:
        """Load every exercise, checking that slugs are unique across them."""
        specs = [self.load(folder) for folder in self.folders()]
        seen: dict[str, ExerciseSpec] = {}
        for spec in specs:
            other = seen.get(spec.slug)
            if other is not None:
                raise SpecError(
                    spec.spec_path,
                    "slug",
                    f"'{spec.slug}' is also the slug of {other.id}",
                    "give each exercise its own slug",
                )
            seen[spec.slug] = spec
        return specs

    def resolve(self, ident: str) -> ExerciseSpec:
        """The exercise an ``ID`` names, or a UsageError that suggests the closest ones."""
        ident = ident.strip()
        match = NUMBER_RE.match(ident)
        if match:
            folder = self.exercises_dir / f"exercise-{int(match.group(1)):02d}"
            if (folder / SPEC_FILE).is_file():
                return self.load(folder)
        for spec in self.all():
            if ident in (spec.id, spec.slug):
                return spec
        # the id as typed, on one line and cut: "1\n2" split the error in two, and an id
        # of 5,000 characters was echoed whole
        raise UsageError(f"no exercise '{shown_line(ident, 80)}'", hint=self._suggest(ident[:200]))

    def _suggest(self, ident: str) -> str:
        specs = self.all()
        names = [s.id for s in specs] + [s.slug for s in specs]
        close = difflib.get_close_matches(ident.lower(), names, n=3, cutoff=0.4)
        if close:
            return "Did you mean: " + ", ".join(close) + "?  (grade list shows them all)"
        return "Run `grade list` to see the exercises."
