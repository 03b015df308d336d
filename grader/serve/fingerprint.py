"""When a warm server is out of date: a fingerprint of everything its gradings depend on.

A server imports the grader's code once and reads the exercises as it grades; once either
changes on disk (a new grader version installed, an exercise edited by its author, a
``git pull``), its results could differ from what a fresh process would give. So the server
takes this fingerprint when it starts and again before every grading and every few seconds
while idle, and exits when it has changed; the next command starts a fresh one.

Unlike the batch cache's keys (:mod:`grader.lms.cache`), which hash contents because they decide
whether a stored result may be reused, this one only has to notice a change, before every
grading, in a process that must stay idle-cheap: it digests each file's path, size and
modification time (a few hundred ``stat`` calls), never the bytes. It is taken on the path of
every warm grading, so it walks with ``os.scandir`` (no ``Path`` per file: a third of the time
of ``os.walk``, about 1-3 ms here), and a course that lies inside the package (a wheel's) once.
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


def fingerprint(root: Path, package: Path = PACKAGE) -> str:
    """The grader's code (``package``), torch's version, and every file of the course at
    ``root``."""
    course = [str(root / "exercises"), str(root / "solutions")]
    lines = [f"{__version__}\0{sys.version}\n"]
    _walk(lines, str(package), _CODE_SUFFIXES, skip=frozenset(course))
    torch = importlib.util.find_spec("torch")
    if torch is not None and torch.origin:
        _stat(lines, os.path.join(os.path.dirname(torch.origin), "version.py"))
    for folder in course:
        _walk(lines, folder, None)
    return hashlib.sha256("".join(lines).encode("utf-8", "surrogateescape")).hexdigest()


def _walk(
    lines: list[str],
    folder: str,
    suffixes: tuple[str, ...] | None,
    skip: frozenset[str] = frozenset(),
) -> None:
    """Each file under ``folder`` (those ending in ``suffixes``; all where None), in name order,
    never descending into ``__pycache__``, a link to a folder, or a folder of ``skip`` (walked
    in full on its own)."""
    try:
        with os.scandir(folder) as found:
            entries = sorted(found, key=lambda entry: entry.name)
    except OSError:  # missing or unreadable: that it is, is part of the fingerprint
        lines.append(f"{folder}\0unreadable\n")
        return
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:
            is_dir = False
        if is_dir:
            if entry.name != "__pycache__" and not entry.is_symlink() and entry.path not in skip:
                _walk(lines, entry.path, suffixes, skip)
        elif suffixes is None or entry.name.endswith(suffixes):
            _stat(lines, entry.path, entry)


def _stat(lines: list[str], path: str, entry: os.DirEntry[str] | None = None) -> None:
    try:
        info = entry.stat() if entry is not None else os.stat(path)
    except OSError:
        lines.append(f"{path}\0missing\n")
        return
    lines.append(f"{path}\0{info.st_size}\0{info.st_mtime_ns}\n")
