"""The batch cache: a result is reused only when nothing that decides it has changed.

A (student, exercise) result is stored beside its key: a digest of the submission's bytes, the
exercise's files (spec, hidden tests, reference, the course's diagnoses.yaml), the grader's own
code (the built-in diagnoses with it) and torch's version, and
the grading options (seed, language, the passes run). The result is written first and its key
last, so a kill in between means a regrade, never a stale hit.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from grader import __version__
from grader.course import DIAGNOSES
from grader.fileio import write_atomic
from grader.resources import PACKAGE
from grader.results import Result, ResultError
from grader.spec import ExerciseSpec


def digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def engine_fingerprint() -> str:
    """The grader's own code and the torch it runs with: a change to either regrades."""
    import torch

    root = PACKAGE
    parts: list[bytes | str] = [__version__, torch.__version__]
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
            parts += [path.relative_to(root).as_posix(), path.read_bytes()]
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


def load(result_path: Path, key: str | None, problems: list[str] | None = None) -> Result | None:
    """The result stored at ``result_path`` if it is readable and was stored under ``key``
    (``key=None``: whatever is stored, key or not); else None. A stored file is outside data:
    one that is not a result (``[]``, a field of the wrong type, bytes that are not JSON) is
    read strictly, never crashes, and is named in ``problems`` so that the caller can say it
    is graded again."""
    try:
        if key is not None and result_path.with_suffix(".key").read_text() != key:
            return None
        data = result_path.read_bytes()
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return Result.from_json(data, source=str(result_path))
    except ResultError as exc:
        if problems is not None:
            problems.append(f"{exc}: not a stored result, graded again")
        return None


def cached(result_path: Path, key: str) -> bool:
    """Whether ``result_path`` holds a readable result stored under ``key``."""
    return load(result_path, key) is not None


def store(result_path: Path, key: str | None, result: Result) -> None:
    """Result first, then its cache key: a kill in between means a regrade, never a stale hit.
    Without a key (a result that must not be reused) any old key is removed."""
    key_file = result_path.with_suffix(".key")
    if key is None:
        key_file.unlink(missing_ok=True)
    write_atomic(result_path, result.to_json(compact=True))
    if key is not None:
        write_atomic(key_file, key)
