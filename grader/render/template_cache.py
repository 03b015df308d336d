"""Compiled report templates kept on disk between commands.

Compiling the report's templates costs a command about 70 ms, as much as the rest of a warm
``grade ID`` in a workspace; loading them compiled costs 2 ms. They are kept in the user's
cache folder (``$XDG_CACHE_HOME/torch-grader/templates``, else ``~/.cache/...``).

What is loaded from there is code that runs in the trusted process, so the folder is used only
when it is this user's own and nobody else can write to it (0700): otherwise, and whenever the
folder cannot be made, read or written, templates are compiled as before. Jinja2 keys each
entry by the template's name and checks its source's checksum, so an edited template (a new
version of the grader) is compiled again; writes are atomic (a temporary file, then a
rename), so gradings running side by side never read half an entry; and an entry that cannot
be read whole is compiled again.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import jinja2
from jinja2.bccache import Bucket


def folder() -> Path | None:
    """This user's private template cache folder, made if needed; None when there is none."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    try:
        root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
        path = root / "torch-grader" / "templates"
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = path.lstat()
    except (OSError, RuntimeError, KeyError):  # no home, a read-only disk, a file in the way
        return None
    private = info.st_uid == os.geteuid() and not info.st_mode & 0o077
    return path if stat.S_ISDIR(info.st_mode) and private else None


class QuietCache(jinja2.FileSystemBytecodeCache):
    """A bytecode cache whose failures only cost the time of compiling."""

    def load_bytecode(self, bucket: Bucket) -> None:
        try:
            super().load_bytecode(bucket)
        except Exception:  # noqa: BLE001 - a damaged entry (Jinja2 unpickles its checksum)
            bucket.reset()

    def dump_bytecode(self, bucket: Bucket) -> None:
        try:
            super().dump_bytecode(bucket)
        except OSError:
            pass


def cache() -> QuietCache | None:
    where = folder()
    return QuietCache(str(where)) if where is not None else None
