"""Moodle: its "Download all submissions" zip in, a grade import CSV out.

**The download** (assignment, "View all submissions", "Download all submissions"; unzipped) is
named by ``mod/assign`` (``download_submissions`` in ``mod/assign/locallib.php``): each
student's prefix is ``{full name}_{participant id}_``, the name with ``_`` turned into spaces
and passed through ``clean_filename``, followed by the plugin's subtype and type::

    Jane Doe_1234567_assignsubmission_file_/exercise-07.py     "download as folders" (default
    Jane Doe_1234567_assignsubmission_file_/hw/ex7.ipynb        since Moodle 3.1): a folder
    Jane Doe_1234567_assignsubmission_onlinetext_/onlinetext.html
    Jane Doe_1234567_assignsubmission_file_exercise-07.py      the flat variant (the option off,
                                                               or older Moodle)

The id is Moodle's *participant id* for this assignment (``get_uniqueid_for_user``), not the
user's id nor their "ID number": it identifies the student within the download only, so roster
matching for Moodle goes by name (or by a roster whose ``id`` column holds participant ids).
With blind marking the name is "Participant"; with team submissions it is ``{team}-{name}``.
Moodle puts no submission time in the names; the files' modification times are used (Moodle's
zip carries each file's time; unzipping keeps it), which is assumed, not documented by Moodle.
Online text entries are reported, not graded.

**The grade import** (Grades, "Import", "CSV file") maps one column to a user field ("Map
from" a column, "Map to" ``useremail`` or ``useridnumber``, also ``userid``, ``username``) and
each other column to a grade item or to a grade item's feedback (MoodleDocs, "Grade import").
Moodle's own grade export names its columns "Email address" and "ID number"; the import
matches e-mail addresses case-sensitively.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from grader.lms import spreadsheet
from grader.lms.assignment import Assignment
from grader.lms.collect import Collector, archive_kind, entries, skipped, staging_for
from grader.lms.grades import GradeRow, grade_cell, number
from grader.lms.handin import ExerciseInfo, Handin

LAYOUT = "moodle"
ENTRY = re.compile(
    r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)$"
)
BLIND = "participant"


def parse_name(name: str) -> tuple[str, str, str, str] | None:
    """(student name, participant id, plugin, rest) of a download's top-level entry."""
    match = ENTRY.match(name)
    if match is None:
        return None
    return match.group("name"), match.group("id"), match.group("plugin"), match.group("rest")


def detect(root: Path) -> bool:
    """At least one entry at the top is named as Moodle names them, and most of them are."""
    try:
        names = [e.name for e in entries(root) if not skipped(e.name)]
    except OSError:
        return False
    hits = sum(1 for n in names if parse_name(n))
    return hits > 0 and 2 * hits >= len(names)


def read(
    root: Path,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    exclude: frozenset[Path] = frozenset(),
    stray: list[str] | None = None,
) -> list[Handin]:
    """One Handin per participant id in the download at ``root``."""
    stray = stray if stray is not None else []
    groups: dict[str, list[tuple[str, str, str, Path, bool]]] = {}
    names: dict[str, str] = {}
    for entry in entries(root):
        path = Path(entry.path)
        if skipped(entry.name) or (exclude and path.resolve() in exclude):
            continue
        parsed = parse_name(entry.name)
        if parsed is None:
            stray.append(f"{entry.name}: not named as Moodle names submissions; ignored")
            continue
        name, participant, plugin, rest = parsed
        names.setdefault(participant, name)
        is_dir = entry.is_dir(follow_symlinks=False) and not entry.is_symlink()
        groups.setdefault(participant, []).append((entry.name, plugin, rest, path, is_dir))
    handins = []
    for participant in sorted(groups, key=lambda p: (len(p), p)):
        name = names[participant]
        blind = name.strip().lower() == BLIND
        handin = Handin(
            key=participant,
            key_kind="participant",
            name="" if blind else name,
            origin=f"{name}_{participant}",
        )
        if blind:
            handin.notes.append("blind marking: the download names no student")
        collector = Collector(handin, exercises, staging_for(staging, f"{name}_{participant}"))
        for entry_name, plugin, rest, path, is_dir in groups[participant]:
            if plugin != "file":
                handin.problems.append(
                    f"{entry_name}: a Moodle {plugin} entry, not an uploaded file; not graded"
                )
            elif path.is_symlink():
                collector.refuse(rest or entry_name, entry_name, "a symbolic link; not followed")
            elif is_dir:
                collector.add_folder(path, shown=f"{entry_name}/")
            elif archive_kind(rest):
                collector.add_archive(path, shown=entry_name)
            else:
                collector.add_file(path, name=rest, shown=entry_name)
        handins.append(collector.finish())
    return handins


# ---------------------------------------------------------------------------------------------
# The grade import

KEY_COLUMNS = {"email": "Email address", "idnumber": "ID number"}


def grades_csv(rows: list[GradeRow], assignment: Assignment) -> str:
    """The CSV to upload in Moodle's Grades, "Import", "CSV file": the identifying column
    first (``moodle.key``: "Email address", mapped to ``useremail``, or "ID number", mapped to
    ``useridnumber``), then the other one, "Full name", the grade item (the final percentage as
    points of ``moodle.points``) and, with ``moodle.feedback``, a "Feedback" column to map to
    the item's feedback (MoodleDocs warns that importing feedback alone clears grades: both are
    always written together). Students without work get 0 or an empty cell (``missing``)."""
    settings = assignment.moodle_settings()
    first = KEY_COLUMNS[settings.key]
    second = KEY_COLUMNS["idnumber" if settings.key == "email" else "email"]
    header = [first, second, "Full name", settings.item]
    if settings.feedback:
        header.append("Feedback")
    out = io.StringIO()
    writer = spreadsheet.writer(out)
    writer.writerow(header)
    for row in sorted(rows, key=lambda r: (r.student.name.casefold(), r.student.key)):
        student = row.student
        email, idnumber = student.email, student.sid
        cell = grade_cell(row, settings.points, assignment.missing)
        keys = [email, idnumber] if settings.key == "email" else [idnumber, email]
        line = [*keys, student.name, cell]
        if settings.feedback:
            line.append(feedback(row))
        writer.writerow(line)
    return out.getvalue()


def feedback(row: GradeRow) -> str:
    """One line per row for the learner: each exercise's score, the lateness, the total."""
    parts = []
    for score in row.scores:
        if score.status in ("missing", "unreadable"):
            parts.append(f"{score.exercise}: {score.status}")
        else:
            parts.append(f"{score.exercise}: {number(score.score)}/{number(score.max_score)}")
    if row.days_late:
        parts.append(f"{row.days_late} day(s) late: -{number(row.late_percent)}%")
    if row.final_percent is not None:
        parts.append(f"total {number(row.final_percent)}%")
    return "; ".join(parts)
