"""When a warm server is out of date: a fingerprint of everything its gradings depend on.

A server imports the grader's code once and reads the exercises as it grades; once either
changes on disk (a new grader version installed, an exercise edited by its author, a
``git pull``), its results could differ from what a fresh process would give. So the server
takes this fingerprint when it starts and again before every grading and every few seconds
while idle, and exits when it has changed; the next command starts a fresh one.

Unlike the batch cache's keys (:mod:`grader.lms.cache`), which hash contents because they decide
whether a stored result may be reused, this one only has to notice a change, every few seconds,
in a process that must stay idle-cheap: it digests each file's path, size and modification time
(a few hundred ``stat`` calls, about a millisecond), never the bytes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from pathlib import Path

from grader.resources import PACKAGE
from grader.version import __version__

_CODE_SUFFIXES = (".py", ".yaml")


def fingerprint(root: Path) -> str:
    """The grader's code, torch's version, and every file of the course at ``root``."""
    digest = hashlib.sha256(f"{__version__}\0{sys.version}".encode())
    _walk(digest, PACKAGE, _CODE_SUFFIXES)
    torch = importlib.util.find_spec("torch")
    if torch is not None and torch.origin:
        _stat(digest, Path(torch.origin).with_name("version.py"))
    for folder in (root / "exercises", root / "solutions"):
        _walk(digest, folder, None)
    return digest.hexdigest()


def _walk(digest: hashlib._Hash, folder: Path, suffixes: tuple[str, ...] | None) -> None:
    for top, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if suffixes is None or name.endswith(suffixes):
                _stat(digest, Path(top, name))


def _stat(digest: hashlib._Hash, path: Path) -> None:
    try:
        info = path.stat()
    except OSError:
        digest.update(f"{path}\0missing\n".encode())
        return
    digest.update(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
