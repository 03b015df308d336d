"""What decides a grading, as content digests: the grader's own code, an exercise's files.

Two places must agree on these: the batch cache (:mod:`grader.lms.cache`), whose keys decide
whether a stored result may be reused, and a cluster (:mod:`grader.cluster.fingerprint`), which
refuses a worker whose grader or exercises differ from the driver's. Both hash contents, never
modification times, so they are computed here once. (The warm server only has to notice a
change, cheaply: :mod:`grader.serve.fingerprint` digests sizes and times instead.)
"""

from __future__ import annotations

import hashlib

from grader.course import DIAGNOSES
from grader.resources import PACKAGE
from grader.spec import ExerciseSpec

CODE_SUFFIXES = (".py", ".yaml")


def digest(*parts: bytes | str) -> str:
    """A SHA-256 of ``parts``, each prefixed by its length (so no two lists of parts collide)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def code_digest() -> str:
    """The grader's own code: every .py and .yaml file of the package (the built-in
    diagnoses and the exercise templates with it)."""
    parts: list[bytes | str] = []
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix in CODE_SUFFIXES and "__pycache__" not in path.parts:
            parts += [path.relative_to(PACKAGE).as_posix(), path.read_bytes()]
    return digest(*parts)


def exercise_fingerprint(spec: ExerciseSpec) -> str:
    """Everything that decides a grade of this exercise: spec, hidden tests, reference, and the
    course's own diagnoses.yaml (a changed diagnosis changes the result's feedback)."""
    parts: list[bytes | str] = []
    for path in sorted(
        p for p in spec.folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        parts += [path.relative_to(spec.folder).as_posix(), path.read_bytes()]
    parts += ["solution", spec.solution_path.read_bytes()]
    diagnoses = spec.course_root / DIAGNOSES
    if diagnoses.is_file():
        parts += ["diagnoses", diagnoses.read_bytes()]
    return digest(*parts)
