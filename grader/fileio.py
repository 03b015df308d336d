"""Writing what the grader produces: atomically, and with a clear error when it cannot.

A report or a gradebook is written to a temporary file beside its target and renamed over it,
so a reader (or a kill) never sees half a file. A path that cannot be written is the user's to
fix: one UsageError naming it, never a traceback.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from grader.errors import UsageError
from grader.text import shown


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that a reader (or a kill) never sees half of it. Text that cannot be
    UTF-8 (a lone surrogate from a name the file system gave, or from learner code) is written
    with replacement characters (:func:`grader.text.shown`): an output never fails to encode."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = shown(text).encode("utf-8")
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; reports are meant to be shared
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(
            f"cannot write {path}: {exc.strerror or exc}",
            hint="Choose a file in a folder you can write to.",
        ) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def check_writable(path: Path) -> None:
    """Fail early (before any grading) when ``path`` cannot become an output file."""
    if path.is_dir():
        raise UsageError(f"{path} is a folder", hint="Give a file name for this output.")
    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(
            f"cannot write {path}: {folder} is not a folder you can write to",
            hint="Choose a file in a folder you can write to.",
        )


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
