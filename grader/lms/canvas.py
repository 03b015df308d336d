"""Canvas: its "Download Submissions" zip in, a gradebook import CSV out.

**The download** (assignment page, "Download Submissions"; unzipped) is flat: one file per
file a student uploaded, named by Canvas's ``ContentZipper`` (canvas-lms,
``app/models/content_zipper.rb``)::

    {name}[_LATE]_{user id}_{file id}_{file's display name}
    doejane_4711_88231_exercise-07.py
    doejane_LATE_4711_88240_exercise-07-1.py      a late resubmission
    smithbob_4712_88302_work.zip                  an archive: its exercise files are read
    doejane_4711_text.html                        a text entry (not a file)

``{name}`` is the student's sortable name ("Doe, Jane") with everything but letters, digits and
``_`` removed, lower-cased; Canvas removes ``_digits_`` runs from names so that the ids can be
found. ``LATE`` marks a submission Canvas itself counts as late. The display name is the file's
name as uploaded, with Canvas's own ``-1``, ``-2`` suffix when the student's Canvas folder
already held that name (a resubmission), which the name normalisation reads as a copy marker.
With anonymous grading the name part is absent (or ``anon``).

Canvas puts no submission time in the download, so the file id (Canvas assigns ids in upload
order) decides between two files for one exercise, never the files' modification times, which
are the zip's. Files are grouped by user id: the student's key and ``lms_id``.

**The gradebook import** (Grades, "Import"): a CSV whose header is ``Student``, ``ID``, ``SIS
User ID``, ``SIS Login ID``, ``Section``, then one column per assignment named ``Title (id)``,
optionally followed by a ``Points Possible`` row, as Canvas's own export writes it and its
``GradebookImporter`` (canvas-lms, ``app/models/gradebook_importer.rb``) reads it: the first
column must contain "Student", the second "ID", the last student column "Section"; students are
found by Canvas user ``ID``, then SIS User ID, then SIS Login ID, then by name; an assignment
column is matched by the id in its parentheses, else by exact title, else Canvas creates a new
assignment; an empty cell (or ``-``) leaves the grade alone; a row whose first cell contains
"Points Possible" sets the points of new assignments.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

from grader.fileio import resolved
from grader.i18n import REPORT
from grader.lms import spreadsheet
from grader.lms.assignment import Assignment, late_after_text
from grader.lms.collect import Collector, entries, skipped, staging_for
from grader.lms.grades import GradeRow, grade_cell, identified, number
from grader.lms.handin import ExerciseInfo, Handin, Said
from grader.lms.platform import Lateness, Platform, Upload

LAYOUT = "canvas"
FILE_NAME = re.compile(
    r"^(?:(?P<name>.*?)_)??(?:(?P<late>late)_)?(?P<user>[0-9]+)_(?P<file>[0-9]+)_(?P<original>.+)\Z",
    re.IGNORECASE | re.DOTALL,
)
# The same, with the student's name required: in a download whose files carry names, a name
# that is all digits ("2024_4711_88231_ex1.py") is a name, not the user id
NAMED_FILE = re.compile(
    r"^(?P<name>.*?)_(?:(?P<late>late)_)?(?P<user>[0-9]+)_(?P<file>[0-9]+)_(?P<original>.+)\Z",
    re.IGNORECASE | re.DOTALL,
)
ENTRY_NAME = re.compile(
    r"^(?:(?P<name>.*?)_)??(?:(?P<late>late)_)?(?P<user>[0-9]+)_(?P<kind>text|link)\.html\Z",
    re.IGNORECASE | re.DOTALL,
)


def parse_name(name: str, named: bool = False) -> tuple[str, bool, str, int, str] | None:
    """(student name, late, user id, file id, original name) of a Canvas download's file.
    ``named``: the download's files carry the students' names (see :func:`carries_names`), so a
    leading run of digits is one too."""
    match = (NAMED_FILE.match(name) if named else None) or FILE_NAME.match(name)
    if match is None:
        return None
    student = match.group("name") or ""
    late = match.group("late") is not None
    if student.lower() == "late" and not late:  # anonymous and late: "LATE_4711_88231_x.py"
        student, late = "", True
    if student.lower() == "anon":
        student = ""
    return student, late, match.group("user"), int(match.group("file")), match.group("original")


def carries_names(names: list[str]) -> bool:
    """Whether the download names its students in its files (any file's name part has a
    letter; an anonymous download names none): then every file's first part is a name. Read
    alone, "2024_4711_88231_ex1.py" took the student named 2024 for user 2024, and the real
    user 4711 was uploaded as 0."""
    for name in names:
        parsed = parse_name(name)
        if parsed is not None and any(c.isalpha() for c in parsed[0]):
            return True
    return False


def detect(root: Path) -> bool:
    """At least one file at the top is named as Canvas names files, and most of them are."""
    try:
        names = [e.name for e in entries(root) if e.is_file() and not skipped(e.name)]
    except OSError:
        return False
    hits = sum(1 for n in names if parse_name(n) or ENTRY_NAME.match(n))
    return hits > 0 and 2 * hits >= len(names)


def read(
    root: Path,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    exclude: frozenset[Path] = frozenset(),
    stray: list[str] | None = None,
) -> list[Handin]:
    """One Handin per Canvas user id in the download at ``root``."""
    stray = stray if stray is not None else []
    by_user: dict[str, list[tuple[str, bool, int, str, Path]]] = {}
    text_entries: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    found = [e for e in entries(root) if not skipped(e.name)]
    named = carries_names([e.name for e in found])
    for entry in found:
        path = Path(entry.path)
        if exclude and resolved(path) in exclude:
            continue
        # a file first: its own name may end "_text.html"
        parsed = parse_name(entry.name, named)
        text = ENTRY_NAME.match(entry.name) if parsed is None else None
        if text is not None:
            user = text.group("user")
            text_entries.setdefault(user, []).append(entry.name)
            names.setdefault(user, text.group("name") or "")
        elif parsed is None:
            stray.append(f"{entry.name}: not named as Canvas names submissions; ignored")
        else:  # links and FIFOs too: the collector refuses them for their student
            student, late, user, file_id, original = parsed
            by_user.setdefault(user, []).append((entry.name, late, file_id, original, path))
            if student:
                names[user] = student
    handins = []
    for user in sorted(set(by_user) | set(text_entries), key=lambda u: (len(u), u)):
        files = sorted(by_user.get(user, []), key=lambda f: f[2])
        handin = Handin(
            key=user,
            key_kind="lms_id",
            lms_id=user,
            name=names.get(user, ""),
            late=any(late for _, late, _, _, _ in files) if files else None,
            origin=f"{names.get(user, '')}_{user}".lstrip("_"),
        )
        collector = Collector(handin, exercises, staging_for(staging, user), use_mtime=False)
        for shown, _, file_id, original, path in files:
            collector.add_entry(path, name=original, shown=shown, sequence=file_id)
        for name in text_entries.get(user, []):
            collector.add_text_entry(
                name,
                Said(
                    f"{name}: a text or URL entry, not a file; not graded (ask for a .py file)",
                    f"{name}：这是文本或网址提交，不是文件；没有评分（请提交 .py 文件）",
                ),
            )
        handins.append(collector.finish())
    return handins


# ---------------------------------------------------------------------------------------------
# The gradebook import

HEADER = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")


def gradebook_csv(rows: list[GradeRow], assignment: Assignment) -> str:
    """The CSV to upload in Canvas's Grades, "Import": one column for the assignment (its
    final percentage as points of ``canvas.points``) and the ``Points Possible`` row. Students
    without work get 0 (``missing: zero``) or an empty cell, which leaves Canvas's grade as it
    is (``missing: blank``). Rows are sorted by name, then id: the same grades give the same
    bytes."""
    settings = assignment.canvas_settings()
    out = io.StringIO()
    writer = spreadsheet.writer(out, verbatim=(1, 2, 3))  # the ids Canvas matches exactly
    writer.writerow([*HEADER, settings.column])
    writer.writerow(["Points Possible", "", "", "", "", number(settings.points)])
    for row in sorted(
        rows, key=lambda r: (r.student.name.casefold(), r.student.lms_id, r.student.key)
    ):
        student = row.student
        cell = grade_cell(row, settings.points, assignment.missing)
        writer.writerow(
            [student.name, student.lms_id, student.sid, student.login, student.section, cell]
        )
    return out.getvalue()


# ---------------------------------------------------------------------------------------------
# Lateness: Canvas marks late work, gives no time; its own Late Policy applies the rule

LATE_POLICY = "Canvas's Late Policy"
LATE_LEARNER = REPORT["en"]["late_canvas"]  # the feedback page says it in its own language
LATE_INSTRUCTOR = (
    "Canvas marks this submission late but its download gives no submission time: no late "
    f"penalty applied here; {LATE_POLICY} applies it"
)
LATE_ZERO_AFTER_INSTRUCTOR = (
    "Canvas marks this submission late but its download gives no submission time: this "
    "assignment's rule takes nothing until its day limit and gives no credit after, which no "
    f"setting of {LATE_POLICY} does: no late penalty applied here"
)
LATE_FREE_LEARNER = REPORT["en"]["late_canvas_free"]
LATE_FREE_INSTRUCTOR = "Canvas marks this submission late; this assignment has no late rule"


def lateness(handin: Handin, assignment: Assignment) -> Lateness:
    """A submission Canvas marks late (``_LATE_``), where the download gives no time: the
    grade here is before lateness, and Canvas's Late Policy (which deducts from the grade
    entered for a late submission) is what applies the rule; both the student and the
    instructor are told so. Under an assignment with no late rule (or one that can never cost
    anything: 0% a day with no day limit, or ``cap``) it costs nothing, and the student is told
    that instead; 0% a day with ``max_days`` and ``zero`` takes everything past the limit,
    which Canvas cannot know without a time."""
    if not (handin.late and handin.submitted_at is None):
        return Lateness()
    policy = assignment.late
    if assignment.due is None or policy is None or policy.costs_nothing:
        return Lateness(
            learner=LATE_FREE_LEARNER, label="late_canvas_free", instructor=(LATE_FREE_INSTRUCTOR,)
        )
    values = {"per_day": number(policy.per_day_percent)}
    if policy.max_days is None:
        return Lateness(learner=LATE_LEARNER, label="late_canvas", instructor=(LATE_INSTRUCTOR,))
    values["max"] = str(policy.max_days)
    if policy.after_max_days == "cap":
        label = "late_canvas_capped"
    elif policy.per_day_percent == 0:  # free until the cut-off, then no credit: nothing to deduct
        label = "late_canvas_zero_after"
    else:
        label = "late_canvas_then_zero"
    instructor = (
        LATE_ZERO_AFTER_INSTRUCTOR if label == "late_canvas_zero_after" else LATE_INSTRUCTOR
    )
    return Lateness(
        learner=REPORT["en"][label].format(**values),
        label=label,
        instructor=(instructor,),
        values=tuple(values.items()),
    )


def advice(rows: list[GradeRow], assignment: Assignment, read: bool) -> list[str]:
    """What to do in Canvas after the run."""
    lines = []
    late = [
        r for r in rows if LATE_INSTRUCTOR in r.problems or LATE_ZERO_AFTER_INSTRUCTOR in r.problems
    ]
    policy = assignment.late
    if (
        read
        and late
        and policy is not None
        and policy.per_day_percent == 0
        and policy.max_days is not None
    ):
        # free for max_days, then no credit: no deduction to turn on, a limit to apply
        lines.append(
            f"Canvas: {len(late)} submission(s) Canvas marks late: this assignment's rule takes "
            f"nothing until {late_after_text(assignment, policy.max_days)} and gives no credit "
            "after; Canvas has no day limit: give 0 by hand to a submission more than "
            f"{policy.max_days} days late, handed in after then (canvas.csv holds their grade "
            "before lateness)"
        )
    elif read and late:
        lines.append(
            f'Canvas: turn on {LATE_POLICY} (Gradebook, Settings, "Late Policies", '
            '"Automatically apply deduction to late submissions"; it applies to the whole '
            f"course){_rule(assignment)}: {len(late)} submission(s) Canvas marks late got no "
            "late penalty here (canvas.csv holds their grade before lateness)"
        )
    penalised = [r for r in identified(rows) if r.late_percent]
    if penalised and not read:
        lines.append(
            f"Canvas: canvas.csv already holds the late penalty of {len(penalised)} student(s): "
            f"if this Canvas assignment takes submissions, keep {LATE_POLICY} off for it, or "
            "lateness counts twice"
        )
    return lines


def _rule(assignment: Assignment) -> str:
    """This assignment's rule in Canvas's own settings, and where Canvas cannot follow it:
    Canvas deducts per day (or part of one) from its due date, with no grace period and no
    day limit; its "Lowest possible grade" is a floor on the grade, which spares grades at or
    below it."""
    policy = assignment.late
    if policy is None:
        return ""
    per_day = number(policy.per_day_percent)
    rule = (
        f' with this assignment\'s rule, {per_day}% per day: "Late submission deduction" '
        f'{per_day}%, "Deduction interval" Day'
    )
    if policy.max_days is not None:
        if policy.after_max_days == "zero":
            rule += (
                f". Canvas has no day limit: give 0 by hand to a submission more than "
                f"{policy.max_days} days late, handed in after "
                f"{late_after_text(assignment, policy.max_days)} (this rule gives no credit then)"
            )
        else:
            floor = max(0.0, 100.0 - policy.max_days * policy.per_day_percent)
            rule += (
                f'. Canvas has no day limit, and its "Lowest possible grade" ({number(floor)}%) '
                "is a floor on the grade, not on the loss: it matches this rule (no further "
                f"loss after {policy.max_days} days) only for full marks; check submissions "
                f"more than {policy.max_days} days late, handed in after "
                f"{late_after_text(assignment, policy.max_days)}, by hand"
            )
    if assignment.grace_minutes:
        rule += (
            f". Canvas has no grace period: set the Canvas due date "
            f"{number(assignment.grace_minutes)} minutes later, or work handed in within this "
            "assignment's grace loses a day"
        )
    return rule


def uploads(rows: list[GradeRow], assignment: Assignment) -> list[Upload]:
    """``canvas.csv``, for every student the roster identifies."""
    known = identified(rows)
    warnings = []
    unidentified = [r for r in known if not (r.student.lms_id or r.student.sid)]
    if unidentified:
        warnings.append(
            f"canvas.csv: {len(unidentified)} student(s) have no Canvas ID or SIS User ID, so "
            "Canvas can match them only by name (a roster with their ids fixes this)"
        )
    return [Upload("canvas.csv", gradebook_csv(known, assignment), tuple(warnings))]


PLATFORM = Platform(
    name=LAYOUT,
    detect=detect,
    read=read,
    times="none: a LATE mark per file, and file ids in upload order",
    uploads=uploads,
    lateness=lateness,
    advice=advice,
    upload_names=("canvas.csv",),
)
