"""The declared interface of a learning platform, and the registry of those the grader knows.

Each platform module (``gradescope``, ``moodle``, ``canvas``, ``folders``) declares one
``PLATFORM`` object that says, in one place, everything the rest of ``grade batch`` needs of it,
as nbgrader's exchange and converter plugins do:

- ``detect(root)``: whether a download is laid out as this platform lays it out;
- ``locate(root, notes, forced)`` (optional): the folder to read when it is not ``root``
  itself (a Gradescope export one level down), or a usage error for a folder that must not be
  read as this platform's (one submission of an export); ``None``: not this platform's;
- ``read(root, staging=..., exercises=..., exclude=..., stray=...)``: one ``Handin`` per student,
  attributed only by what the platform itself wrote (its folder, its prefix, its metadata);
- ``uploads(rows, assignment)``: the files an instructor uploads back to the platform, each with
  the warnings to read before uploading it;
- ``lateness(handin, assignment)``: what the download says about a student's lateness that the
  grade itself cannot carry (a platform's late mark without a time; file dates after the due
  date), for the student and for the instructor;
- ``advice(rows, assignment, read)``: what the instructor must still do on the platform after
  the run (``read``: whether the class came from this platform's download), said once, at the
  end of the run's summary; only what is true of this class.

``grader.lms.platforms.PLATFORMS`` is the registry, most specific layout first (the order intake
detects in). Adding a platform is one module that declares its ``PLATFORM``, and its line there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from grader.lms.assignment import days_late
from grader.lms.collect import archive_kind, archive_stem, entries, skipped
from grader.lms.grades import GradeRow, Lateness

if TYPE_CHECKING:
    from grader.lms.assignment import Assignment
    from grader.lms.handin import ExerciseInfo, Handin

__all__ = ["Lateness"]  # defined with the grades it adds to; the platforms import it from here


class Reader(Protocol):
    def __call__(
        self,
        root: Path,
        *,
        staging: Path,
        exercises: dict[str, ExerciseInfo],
        exclude: frozenset[Path] = ...,
        stray: list[str] | None = ...,
    ) -> list[Handin]: ...


@dataclass(frozen=True)
class Upload:
    """One file for the instructor to upload to a platform, and what to know before."""

    name: str  # in the output folder: "canvas.csv"
    text: str
    warnings: tuple[str, ...] = ()


def _no_uploads(rows: list[GradeRow], assignment: Assignment) -> list[Upload]:
    return []


def _no_lateness(handin: Handin, assignment: Assignment) -> Lateness:
    return Lateness()


def _no_advice(rows: list[GradeRow], assignment: Assignment, read: bool) -> list[str]:
    return []


@dataclass(frozen=True)
class Platform:
    name: str  # the layout's name, as ``--layout`` takes it
    detect: Callable[[Path], bool]
    read: Reader
    times: str  # where the submission times come from, in words (docs/LMS.md's table)
    uploads: Callable[[list[GradeRow], Assignment], list[Upload]] = _no_uploads
    lateness: Callable[[Handin, Assignment], Lateness] = _no_lateness
    advice: Callable[[list[GradeRow], Assignment, bool], list[str]] = _no_advice
    upload_names: tuple[str, ...] = field(default=())  # every file ``uploads`` may write
    locate: Callable[[Path, list[str], bool], Path | None] | None = None

    def find(self, root: Path, notes: list[str], forced: bool) -> Path | None:
        """The folder to read as this platform's download (``forced``: ``--layout`` named
        this platform), or None when ``root`` is not one. A download unzipped into a folder of
        its own (Windows' "Extract All", macOS' Archive Utility: ``unzipped/Week 1-98765/``)
        is found one level down when that folder is all ``root`` holds: read as plain
        folders, the whole class was one student and everyone else got 0."""
        if self.locate is not None:
            return self.locate(root, notes, forced)
        if self.detect(root):
            return root
        inner = _only_folder(root)
        if inner is not None and self.detect(inner):
            notes.append(f"read the {self.name} download {inner.name}/ inside {root}")
            return inner
        return root if forced else None


def _only_folder(root: Path) -> Path | None:
    """The one folder ``root`` holds, when it holds nothing else (hidden entries and tool
    folders such as ``__MACOSX`` aside) but the archive it was unzipped from: "Extract All"
    leaves ``Week 1-98765.zip`` beside ``Week 1-98765/``, and read as plain folders the two
    were the class's only two students."""
    try:
        found = [e for e in entries(root) if not skipped(e.name)]
    except OSError:
        return None
    folders = [e for e in found if e.is_dir(follow_symlinks=False)]
    if len(folders) != 1:
        return None
    inner = folders[0].name
    for entry in found:
        if entry is not folders[0] and not (
            entry.is_file(follow_symlinks=False)
            and archive_kind(entry.name)
            and archive_stem(entry.name) == inner
        ):
            return None
    return Path(folders[0].path)


# ---------------------------------------------------------------------------------------------
# Downloads without submission times (Moodle, plain folders): said, never guessed

NO_TIMES = "the late rule was not applied: this download has no submission times"
DATED = "day(s) after the due date (a file date"
NONE_DATED = "no file is dated after the due date"
# What makes a whole download's file dates evidently not the platform's (an archive unzipped
# by a tool that does not keep them: every file dated when it was written): every file of two
# students or more within one zip time step (2 s) of the others; of five or more, within the
# two minutes an unzip may take, unless each file's date was restored from an archive
# (``_restored``: a whole second, apart from when the file was written here): a class may hand
# in within two minutes, but no two students within one zip time step of each other
SAME_TIME = timedelta(seconds=2)
UNZIP_TIME = timedelta(minutes=2)


def unkept_dates(handins: list[Handin], assignment: Assignment) -> str:
    """Why the file dates of a download without submission times are evidently not the
    platform's, or "": a student's own dates are never judged alone, only the class's."""
    dated = [
        (index, s.submitted_at)
        for index, handin in enumerate(handins)
        for s in handin.files.values()
        if s.submitted_at is not None
    ]
    students = len({index for index, _ in dated})
    if students < 2:
        return ""
    first, last = min(t for _, t in dated), max(t for _, t in dated)
    when = f"{first.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"
    if last - first <= SAME_TIME:
        return f"every file of the {students} students is dated {when}"
    if students >= 5 and last - first <= UNZIP_TIME and not _restored(handins):
        return (
            f"every file of the {students} students is dated within "
            f"{int((last - first).total_seconds())} s of {when}, as an unzip writes them"
        )
    # every file dated when it was written here: an unzip or a copy that did not keep the
    # dates (one that keeps them sets each date apart from the time it wrote the file). That
    # every file is after the due date is no evidence: a class late all together is late
    pairs = [
        (s.submitted_at, s.written_at)
        for handin in handins
        for s in handin.files.values()
        if s.submitted_at is not None
    ]
    if all(written is not None and abs(date - written) <= SAME_TIME for date, written in pairs):
        until = f"{last.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC"
        return (
            f"every file of the {students} students is dated when it was written on this "
            f"computer, {when} to {until}"
        )
    return ""


def _restored(handins: list[Handin]) -> bool:
    """Whether every dated file's date was set by the tool that wrote it here from the
    download's own: apart from when it was written on this computer (its change time), and a
    whole second, as an archive stores a date (a zip's to 2 s, a tar's to 1 s), where a clock
    read by an unzip that keeps no date, or a copy of what it wrote, has its fraction. This is
    the strongest evidence there is, and it outweighs how close the class's dates are: a
    class may hand in within the two minutes before the due date."""
    files = [s for h in handins for s in h.files.values() if s.submitted_at is not None]
    return bool(files) and all(
        s.written_at is not None
        and s.submitted_at is not None
        and abs(s.submitted_at - s.written_at) > SAME_TIME
        and s.submitted_at.microsecond == 0
        for s in files
    )


def forget_dates(handins: list[Handin], assignment: Assignment, label: str) -> str:
    """For a download whose file dates are its only dates (Moodle, plain folders): where they
    are evidently not the platform's (:func:`unkept_dates`), every file's date is dropped, so
    that none is named for a student or used, and the one line for the class says why; else
    "" and nothing changes."""
    why = unkept_dates(handins, assignment)
    if not why:
        return ""
    for handin in handins:
        for submitted in handin.files.values():
            submitted.submitted_at = None
    return (
        f"{label}: the files' dates are not the platform's ({why}: the download was unzipped "
        "without its file dates?): no file date is named for a student or used; unzip it "
        "with a tool that keeps them to see them"
    )


def dated_files(handin: Handin, assignment: Assignment) -> Lateness:
    """Each of a student's files dated after the deadline, for the instructor: a file's date
    is no submission time (copying or unzipping can change it), so no penalty rests on it, but
    the instructor learns which files to look at."""
    if assignment.due is None:
        return Lateness()
    lines = []
    for exercise, submitted in sorted(handin.files.items()):
        when = submitted.submitted_at
        days = days_late(when, assignment)  # as the late rule counts
        if when is not None and days:
            archive, _, member = submitted.shown.partition(":")
            dated = (  # an archive's members carry the archive file's date
                f"{archive} (the archive {member} came in)"
                if member and archive_kind(archive)
                else submitted.shown
            )
            lines.append(
                f"{exercise}: {dated} is dated "
                f"{when.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC, {days} {DATED}, not a "
                "submission time: no late penalty applied)"
            )
    return Lateness(instructor=tuple(lines))


def no_times(label: str, rows: list[GradeRow], assignment: Assignment, where: str) -> list[str]:
    """The class-level line for a download without submission times, when the assignment
    has a due date: the rule was not applied, and how many students have late-dated files."""
    if assignment.due is None:
        return []
    dated = sum(1 for r in rows if any(DATED in p for p in r.problems))
    if not dated:
        return [f"{label}: {NO_TIMES}; {NONE_DATED}"]
    return [
        f"{label}: {NO_TIMES}; {dated} student(s) have files dated after the due date (listed "
        f"above): apply the late rule {where} where it is due"
    ]
