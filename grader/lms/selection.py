"""Which exercises a batch grades: fixed before a single file is read.

The gradebook's columns and its maximum must never depend on what students happened to hand
in (a stray file would add a column for everyone; a one-student run would leave exercises
out). So the set is chosen up front, and the batch says how:

1. ``--assignment FILE``: the assignment's exercises and weights;
2. ``--exercises IDS``: those, each weighted by its points;
3. neither: every exercise of the course, each weighted by its points.

Weighting by points makes the percentage the plain sum of scores over the sum of maxima, which
is what a gradebook without an assignment has always shown.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.catalog import Catalog
from grader.errors import UsageError
from grader.lms.assignment import Assignment, load_assignment


@dataclass(frozen=True)
class Selection:
    assignment: Assignment
    how: str  # one line for the terminal and gradebook.json


def _points(catalog: Catalog, ident: str) -> float:
    return float(sum(t.points for t, _ in catalog.resolve(ident).manifest(("cpu",))))


def _listing(ids: tuple[str, ...]) -> str:
    return ", ".join(ids) if len(ids) <= 6 else f"{ids[0]} … {ids[-1]}"


def choose(
    catalog: Catalog,
    *,
    assignment: Path | None,
    exercises: list[str] | None,
    name: str,
) -> Selection:
    """The batch's assignment: the file's, or one made from ``exercises`` (or the whole
    course) weighted by points, named ``name``."""
    if assignment is not None and exercises:
        raise UsageError(
            "--exercises cannot be combined with --assignment",
            hint="The assignment file fixes the exercises: edit its `exercises` instead.",
        )
    if assignment is not None:
        loaded = load_assignment(assignment)
        loaded.check_exercises({spec.id for spec in catalog.all()})
        weights = ", ".join(f"{e} ×{w:g}" for e, w in loaded.exercises)
        return Selection(
            loaded, f"Exercises: {weights}, from the assignment {loaded.name} ({assignment.name})"
        )
    if exercises:
        ids = tuple(dict.fromkeys(catalog.resolve(e).id for e in exercises))
        how = f"Exercises: {_listing(ids)}, as --exercises gave them, weighted by their points"
    else:
        ids = tuple(spec.id for spec in catalog.all())
        if not ids:
            raise UsageError(f"the course in {catalog.root} has no exercises")
        how = (
            f"Exercises: all {len(ids)} of the course ({_listing(ids)}), weighted by their "
            "points (give --assignment or --exercises to choose)"
        )
    made = Assignment(
        name=name,
        exercises=tuple((e, _points(catalog, e)) for e in ids),
        path=Path(name),
    )
    return Selection(made, how)
