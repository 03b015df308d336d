"""Plain class folders: one folder, ``.zip``, ``.tar.gz``/``.tgz`` or ``.tar`` per student.

The layout ``grade batch`` has always read, and what an instructor ends up with after
collecting work by hand, by e-mail or from a shared drive::

    submissions/
        alice/exercise-07.py             a folder (files at any depth)
        bob.zip                          an archive (the student is the archive's name)
        carol.tar.gz
        Dan Smith/ex7.ipynb

A student's name is the folder's or archive's name (its archive suffix dropped); their key is
that name made safe for a file name (``grader.lms.handin.safe_name``). A folder and an archive
of the same name (``alice/`` and ``alice.zip``) are one student: ``intake`` merges them.
Anything else at the top (loose files, links, FIFOs) belongs to no student and is reported as
stray. This is the fallback layout: it matches any folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING

from grader.fileio import resolved
from grader.lms.collect import (
    SKIP_DIRS,
    Collector,
    archive_kind,
    archive_stem,
    skipped,
    staging_for,
)
from grader.lms.handin import ExerciseInfo, Handin, Said, clean_name, safe_name
from grader.lms.names import match_name
from grader.lms.platform import Lateness, Platform, dated_files, no_times

if TYPE_CHECKING:
    from grader.lms.assignment import Assignment
    from grader.lms.grades import GradeRow

LAYOUT = "folders"


def detect(root: Path) -> bool:
    """Always: any folder can be read as a class of folders and archives."""
    return root.is_dir()


def read(
    root: Path,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    exclude: frozenset[Path] = frozenset(),
    stray: list[str] | None = None,
) -> list[Handin]:
    """One Handin per student folder or archive under ``root``; ``stray`` receives what
    belongs to no one."""
    stray = stray if stray is not None else []
    handins = []
    with os.scandir(root) as scan:
        entries = sorted(scan, key=lambda e: e.name)
    for entry in entries:
        path = Path(entry.path)
        if exclude and resolved(path) in exclude:
            continue
        if skipped(entry.name):
            if _hides_work(entry, exercises):
                stray.append(
                    f"{entry.name}: hidden (its name starts with '.'); ignored: rename it if "
                    "it is a student's"
                )
            continue
        if entry.is_symlink():
            stray.append(f"{entry.name}: a symbolic link; ignored")
        elif entry.is_dir(follow_symlinks=False):
            handin = read_one(path, staging=staging, exercises=exercises, exclude=exclude)
            if archive_kind(entry.name):  # its name is the student's as the folder gives it
                handin.notes.append(
                    f"{entry.name}/: a folder named as an archive (an archive unzipped into a "
                    f"folder of its name?); read as the student {entry.name!r}: rename the "
                    "folder to the student's name if that is not who it is"
                )
            handins.append(handin)
        elif entry.is_file(follow_symlinks=False) and archive_kind(entry.name):
            name = archive_stem(entry.name)
            handin = Handin(key=safe_name(name), name=name, origin=entry.name)
            collector = Collector(handin, exercises, staging_for(staging, entry.name))
            collector.add_entry(path, name=entry.name, shown=entry.name)
            handins.append(collector.finish())
        elif entry.is_file(follow_symlinks=False) and match_name(entry.name, exercises):
            stray.append(
                f"{entry.name}: an exercise file at the top, in no student's folder or archive; "
                "ignored"
            )
        elif entry.is_file(follow_symlinks=False):
            stray.append(f"{entry.name}: not a student folder or archive; ignored")
        else:
            stray.append(f"{entry.name}: not a regular file or folder (a FIFO or device); ignored")
    _copies(handins)
    return handins


# what a file manager or a browser adds to a copy's name: "Copy of alice", "alice (1)",
# "alice - Copy", "alice - Copy (2)"
_COPY = re.compile(
    r"^(?:copy of\s+)?(?P<base>.*?)(?:\s*\(\d{1,3}\)|\s+-\s+copy)*\Z", re.IGNORECASE | re.DOTALL
)


def _copies(handins: list[Handin]) -> None:
    """A folder or archive named as a copy of another student's ("alice (1).zip" beside
    "alice/") is read apart (it may be a namesake's), but it may be that student's final
    version: the other's grade is put in doubt (no grade written until the instructor
    looks) and both say why. Read as another student, the copy was graded for no one on the
    roster, and the first version's grade went out."""
    by_name: dict[str, list[Handin]] = {}
    for handin in handins:
        if clean_name(handin.name):
            by_name.setdefault(clean_name(handin.name), []).append(handin)
    for handin in handins:
        match = _COPY.match(handin.name.strip())
        base = match.group("base").strip() if match else ""
        if not clean_name(base) or clean_name(base) == clean_name(handin.name):
            continue
        for original in by_name.get(clean_name(base), []):
            why = Said(
                f"{handin.origin} is named as a copy of {original.origin}: it may be "
                f"{original.name}'s final version (graded apart, as {handin.name!r})",
                f"{handin.origin} 的名字是 {original.origin} 的副本：它可能是 "
                f"{original.name} 的最终版本（作为 {handin.name!r} 单独评分）",
            )
            handin.problems.append(why)
            original.problems.append(why)
            for submitted in original.files.values():
                submitted.doubt = submitted.doubt or why


def read_one(
    folder: Path,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    exclude: frozenset[Path] = frozenset(),
    name: str | None = None,
) -> Handin:
    """One student's folder as a Handin (also what ``grade gradescope-run`` reads: the single
    submission Gradescope puts in ``/autograder/submission``)."""
    name = folder.name if name is None else name
    handin = Handin(key=safe_name(name), name=name, origin=f"{folder.name}/")
    collector = Collector(handin, exercises, staging_for(staging, folder.name), exclude=exclude)
    collector.add_entry(folder, name=folder.name, shown=folder.name, own_folder=True)
    return collector.finish()


def lateness(handin: Handin, assignment: Assignment) -> Lateness:
    """Folders carry no submission times: files dated after the deadline are named."""
    return dated_files(handin, assignment)


def advice(rows: list[GradeRow], assignment: Assignment, read: bool) -> list[str]:
    """The late rule, which a class of folders cannot carry."""
    return no_times("Plain folders", rows, assignment, "by hand") if read else []


PLATFORM = Platform(
    name=LAYOUT,
    detect=detect,
    read=read,
    times="none: each file's date only (never used as a submission time)",
    lateness=lateness,
    advice=advice,
)


# Hidden entries that tools leave at the top of a folder: never a student's, never said.
_TOOL_ENTRIES = frozenset(
    {".svn", ".hg", ".vscode", ".idea", ".DS_Store", ".Trashes", ".Spotlight-V100", ".fseventsd"}
    | {".TemporaryItems", ".cache", ".venv", ".grade"}
)


def _hides_work(entry: os.DirEntry[str], exercises: dict[str, ExerciseInfo]) -> bool:
    """Whether a skipped top-level entry may be a student's (``.bob/``, ``.alice.zip``, a
    hidden exercise file): those are said to be ignored, where they were dropped without a
    word; tool entries (``.git``, ``.DS_Store``, ``._x`` AppleDouble files) stay unsaid."""
    name = entry.name
    if name in SKIP_DIRS or name in _TOOL_ENTRIES or name.startswith("._"):
        return False
    if entry.is_dir(follow_symlinks=False):
        return True
    return bool(archive_kind(name) or match_name(name.lstrip("."), exercises))
