"""The batch cache: a result is reused only when nothing that decides it has changed.

A (student, exercise) result is stored beside its key: a digest of the submission's bytes, the
exercise's files (spec, hidden tests, reference, the course's diagnoses.yaml), the grader's own
code (the built-in diagnoses with it) and torch's version, and
the grading options (seed, language, the passes run). The result is written first and its key
last, so a kill in between means a regrade, never a stale hit.
"""

from __future__ import annotations

from pathlib import Path

from grader import wire
from grader.digests import code_digest, digest
from grader.fileio import read_regular, write_atomic
from grader.results import Result, ResultError
from grader.version import __version__

MAX_KEY_BYTES = 4096  # a digest: anything longer is no key this cache wrote


def engine_fingerprint() -> str:
    """The grader's own code and the torch it runs with: a change to either regrades."""
    import torch

    return digest(__version__, torch.__version__, code_digest())


def load(result_path: Path, key: str | None, problems: list[str] | None = None) -> Result | None:
    """The result stored at ``result_path`` if it is readable and was stored under ``key``
    (``key=None``: whatever is stored, key or not); else None. A stored file is outside data:
    one that is not a result (``[]``, a field of the wrong type, bytes that are not JSON) is
    read strictly, never crashes, and is named in ``problems`` so that the caller can say it
    is graded again."""
    # read as regular files only, never waiting: a FIFO among the stored files (a damaged or
    # tampered output folder) would hang the whole batch on a read that no writer ends
    try:
        if key is not None:
            stored = read_regular(result_path.with_suffix(".key"), MAX_KEY_BYTES)
            if stored != key.encode("utf-8"):
                return None
        data = read_regular(result_path, wire.MAX_JSON_BYTES)
    except OSError:
        return None
    try:
        return Result.from_json(data, source=str(result_path))
    except ResultError as exc:
        if problems is not None:
            problems.append(f"{exc}: not a stored result, graded again")
        return None


def store(result_path: Path, key: str | None, result: Result) -> None:
    """Result first, then its cache key: a kill in between means a regrade, never a stale hit.
    Without a key (a result that must not be reused) any old key is removed."""
    key_file = result_path.with_suffix(".key")
    if key is None:
        key_file.unlink(missing_ok=True)
    write_atomic(result_path, result.to_json(compact=True))
    if key is not None:
        write_atomic(key_file, key)
