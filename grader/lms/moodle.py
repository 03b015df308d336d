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
Online text entries are reported, not graded; an exercise without a file beside one gets no grade
until the instructor looks (the code may be in the text).

**The grade import** (Grades, "Import", "CSV file") maps one column to a user field ("Map
from" a column, "Map to" ``useremail`` or ``useridnumber``, also ``userid``, ``username``) and
each other column to a grade item or to a grade item's feedback (MoodleDocs, "Grade import").
Moodle's own grade export names its columns "Email address" and "ID number"; the import
matches e-mail addresses case-sensitively.
"""

from __future__ import annotations

import io
import re
import unicodedata
from datetime import timedelta, timezone
from pathlib import Path

from grader.fileio import resolved
from grader.lms import spreadsheet
from grader.lms.assignment import Assignment
from grader.lms.collect import Collector, entries, skipped, staging_for
from grader.lms.grades import GradeRow, grade_cell, identified, number
from grader.lms.handin import ExerciseInfo, Handin, Said, safe_name, tell_apart
from grader.lms.platform import Lateness, Platform, Upload, dated_files, no_times

LAYOUT = "moodle"
# Moodle writes ``{name}_{participant id}_`` and the plugin's ``assignsubmission_{type}_``
# before anything the student chose; its names never hold "_" (``str_replace('_', ' ', ...)``
# before ``clean_filename``), so the first "_" ends the name. The prefix is read from the left
# and nothing after it can move a file to another participant, whatever the student called it.
ENTRY = re.compile(
    r"^(?P<name>[^_]+)_(?P<id>[0-9]+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)\Z",
    re.DOTALL,
)
# Moodle 4.1 and later (``mod/assign/classes/downloader.php``) download a team assignment one
# entry per team: "{group name}_{group id}_assignsubmission_...", and for the students in no
# group "{Default group}_assignsubmission_..." (the string in the downloader's language), with
# no id at all: an entry so named marks such a download, where the number is a group's id
TEAM_ENTRY = re.compile(
    r"^(?P<name>[^_]+)_assignsubmission_(?P<plugin>[a-z0-9]+)_(?P<rest>.*)\Z", re.DOTALL
)
BLIND = "participant"
HIDDEN_USER = "Participant "  # Moodle's ``hiddenuser`` string: the worksheet's identifiers


def parse_name(name: str) -> tuple[str, str, str, str] | None:
    """(student name, participant id, plugin, rest) of a download's top-level entry: the
    prefix Moodle wrote, read from the left; ``rest`` is what the student chose."""
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
    """One Handin per participant id in the download at ``root``. Under blind marking
    ("Participant_1234570_...") the participant id is all there is: the student is graded by
    it, and ``moodle-worksheet.csv`` gives the grade back by it."""
    stray = stray if stray is not None else []
    groups: dict[str, list[tuple[str, str, str, Path]]] = {}
    names: dict[str, set[str]] = {}
    found = list(entries(root))
    if any(not parse_name(e.name) and TEAM_ENTRY.match(e.name) for e in found):
        return _read_teams(found, staging, exercises, exclude, stray)
    for entry in found:
        path = Path(entry.path)
        if skipped(entry.name) or (exclude and resolved(path) in exclude):
            continue
        parsed = parse_name(entry.name)
        if parsed is None:
            stray.append(f"{entry.name}: not named as Moodle names submissions; ignored")
            continue
        name, participant, plugin, rest = parsed
        # one name however its letters are composed: an unzip on one system writes "José"
        # with "é", on another with "e" and a combining accent
        names.setdefault(participant, set()).add(unicodedata.normalize("NFC", name))
        groups.setdefault(participant, []).append((entry.name, plugin, rest, path))
    team = _team_download(names)
    shared = _shared_names(names, team)
    # blind marking is the assignment's, all or nothing: it writes the word for every
    # participant, so beside any other name ("Red", "Team A") the word is a name
    everyone = all(_blind_word(n, team) for found in names.values() for n in found)
    handins = []
    for participant in sorted(groups, key=lambda p: (len(p), p)):
        if len(names[participant]) > 1:  # Moodle writes one name per id: not its download
            shown = ", ".join(tell_apart(sorted(names[participant])))
            stray.extend(
                f"{entry}: participant {participant} appears under several names ({shown}); refused"
                for entry, _, _, _ in groups[participant]
            )
            continue
        name = next(iter(names[participant]))
        aliases = _after_team(name) if team else ()
        word = _blind_word(name, team)
        # blind marking names no participant, never some of them: beside other names the word
        # is this participant's name (a team's, in a team download), off the roster unless a
        # roster line bears it
        blind = word and everyone
        handin = Handin(
            key=participant,
            key_kind="participant",
            name="" if blind else name,
            participant=participant,
            origin=f"{name}_{participant}",
            aliases=() if blind else aliases,
            shared_name=0 if blind else shared.get(name, 0),
        )
        if team:
            handin.notes.append(
                f"a team download: {name!r} is read as a team and a name ({', '.join(aliases)})"
                " where it is on no roster line"
            )
        if blind:
            handin.notes.append(
                f"blind marking: the download names no student; graded as {HIDDEN_USER}"
                f"{participant}"
            )
        elif word:
            handin.notes.append(
                f"{name!r} is what Moodle writes under blind marking, but this download names "
                "its other participants (blind marking names none): read as this "
                "participant's name"
                + (
                    " (a name of one word, which may be a team's: Moodle 4.1 and later number "
                    "a team by its group id, not a participant's); off the roster, it "
                    "identifies no one"
                    if handin.shared_name
                    else ""
                )
                + f"; graded as {HIDDEN_USER}{participant}"
            )
        elif handin.shared_name == 1:
            handin.notes.append(
                f"{name!r} is one word, where Moodle writes a full name as a first and a last "
                'name: it may be blind marking\'s "Participant" in another language than '
                "English, or a team's name (Moodle 4.1 and later number a team by its group "
                "id, not a participant's); off the roster, it identifies no one; graded as "
                f"{HIDDEN_USER}{participant}"
            )
        elif handin.shared_name:
            handin.notes.append(
                f"{name!r} names {handin.shared_name} participants of this download (blind "
                "marking in another language than English, or namesakes): off the roster, it "
                f"identifies no one; graded as {HIDDEN_USER}{participant}"
            )
        handins.append(
            _collect(
                handin,
                groups[participant],
                exercises,
                staging_for(staging, f"{name}_{participant}"),
            )
        )
    return handins


def _read_teams(
    found: list,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    exclude: frozenset[Path],
    stray: list[str],
) -> list[Handin]:
    """A team assignment's download from Moodle 4.1 or later: one Handin per team, named by
    no student. Its number is the group's id, not a participant id: read as one, the team's
    grade went into the grading worksheet as "Participant {group id}" (some other student's,
    where that participant exists), and as a name off the roster, the team's members were
    uploaded as 0. A team is graded and shown; it identifies no one, so roster students
    without work get no grade until the instructor gives each member the team's."""
    teams: dict[str, list[tuple[str, str, str, Path]]] = {}
    for entry in found:
        path = Path(entry.path)
        if skipped(entry.name) or (exclude and resolved(path) in exclude):
            continue
        parsed = parse_name(entry.name)
        if parsed is not None:
            team, group, plugin, rest = parsed
            label = f"{team} (group {group})"
        else:
            match = TEAM_ENTRY.match(entry.name)
            if match is None:
                stray.append(f"{entry.name}: not named as Moodle names submissions; ignored")
                continue
            team, plugin, rest = match.group("name"), match.group("plugin"), match.group("rest")
            label = f"{team} (no group)"
        teams.setdefault(label, []).append((entry.name, plugin, rest, path))
    handins = []
    for label in sorted(teams):
        handin = Handin(key=safe_name(f"team {label}"), key_kind="team", origin=label)
        handin.problems.append(
            Said(
                f"{label}: a team's submission (Moodle 4.1 and later download a team "
                "assignment once per team, named by the group): graded for the team; it names "
                "no student: give the grade to each member in Moodle",
                f"{label}：这是小组提交（Moodle 4.1 及以后的版本按小组下载小组作业）：成绩是"
                "小组的；其中没有写出学生的名字：老师会在 Moodle 中把成绩给每位组员",
            )
        )
        handins.append(_collect(handin, teams[label], exercises, staging_for(staging, label)))
    return handins


def _collect(
    handin: Handin,
    entries: list[tuple[str, str, str, Path]],
    exercises: dict[str, ExerciseInfo],
    staging: Path,
) -> Handin:
    """One participant's or team's entries of the download, (name, plugin, rest, path) each,
    read into ``handin``: uploaded files as files, other plugins' entries (online text,
    comments) as text that is not graded."""
    collector = Collector(handin, exercises, staging)
    for entry_name, plugin, rest, path in entries:
        if plugin != "file":
            collector.add_text_entry(
                entry_name,
                Said(
                    f"{entry_name}: a Moodle {plugin} entry, not an uploaded file; not graded",
                    f"{entry_name}：这是 Moodle 的 {plugin} 提交，不是上传的文件；没有评分",
                ),
            )
        else:
            collector.add_entry(path, name=rest, shown=entry_name)
    return collector.finish()


def _shared_names(names: dict[str, set[str]], team: bool = False) -> dict[str, int]:
    """The names that may name no one, and how many participants the download gives each:
    those it gives to more than one, and a lone one of one word. Under blind marking Moodle
    writes its ``participant`` string in the language of the one who downloads
    ("Teilnehmerin_1234570_..." in German, "Participante" in Spanish) for every student: read
    as a name, each was a student off the roster and every roster student was uploaded as 0.
    A download of one participant (the only one who handed in) gives the word once, so
    counting cannot tell it; but Moodle writes a student's full name as a first and a last
    name (both required), so a name of one word (after the team, in a team download) is not
    known to be anyone's. Such a name is kept (a roster line it fits matches, and namesakes
    are ambiguous, as ever) but identifies no one off the roster (``Handin.shared_name``): the
    work is graded by participant, and roster students without matched work get no 0, as
    under blind marking: unless another participant of the download bears a full name of
    their own, which blind marking never writes."""
    counts = _counts(names)
    named = _names_someone(names, team)
    return {name: n for name, n in counts.items() if n > 1 or (_one_word(name, team) and not named)}


def _blind_word(name: str, team: bool) -> bool:
    """Whether a download's name is blind marking's "Participant" (a team download's after
    its team)."""
    aliases = _after_team(name) if team else ()
    return name.strip().lower() == BLIND or any(a.lower() == BLIND for a in aliases)


def _counts(names: dict[str, set[str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for found in names.values():
        for name in found:
            counts[name] = counts.get(name, 0) + 1
    return counts


def _names_someone(names: dict[str, set[str]], team: bool) -> bool:
    """Whether the download names some participant by a full name of their own (two words or
    more, given to no other participant). Blind marking is the assignment's, all or nothing:
    such a download names every participant, and a one-word name there ("Participant" or its
    translation included) is that student's (a name of one word, a site that shows first
    names only, a student who left the course), off the roster or on it, not an unnamed
    participant whose work may be any roster student's."""
    return any(
        n == 1 and not _one_word(name, team) and name.strip().lower() != BLIND
        for name, n in _counts(names).items()
    )


def _one_word(name: str, team: bool) -> bool:
    """Whether a download's name is one word (a team download's after its last "-"): not a
    first and a last name as Moodle writes them."""
    word = name.rsplit("-", 1)[-1] if team else name
    return bool(word.strip()) and not any(c.isspace() for c in word.strip())


def _team_download(names: dict[str, set[str]]) -> bool:
    """A download of a team assignment: Moodle writes "{team}-{full name}" for every student
    ("Default group-{full name}" for one in no group), so every name holds a "-". In a class
    without teams some names do, not all."""
    written = [n for found in names.values() for n in found]
    return bool(written) and all("-" in n.strip("-") for n in written)


def _after_team(name: str) -> tuple[str, ...]:
    """The names a team download's "{team}-{full name}" may hold, shortest team first: team
    names and full names may both hold "-" ("Team A-2-Jean-Pierre Roy")."""
    parts = name.split("-")
    return tuple(
        rest for i in range(1, len(parts)) if (rest := "-".join(parts[i:]).strip()) and rest
    )


def lateness(handin: Handin, assignment: Assignment) -> Lateness:
    """Moodle's download carries no submission times, only each file's date: files dated
    after the deadline are named for the instructor (no penalty is applied on a file date).
    Where the grading worksheet gave the submission time (``moodle.timezone``), the late rule
    rests on it; a file dated after that time's minute is named for the instructor (the
    worksheet may be older than the download: a resubmission it does not show), never used."""
    if handin.submitted_at is None:
        return dated_files(handin, assignment)
    # the worksheet's minute, and file dates' 2 s
    after = handin.submitted_at + timedelta(seconds=61)
    lines = [
        f"{exercise}: {submitted.shown} is dated "
        f"{submitted.submitted_at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC, after the "
        f"grading worksheet's submission time ({handin.submitted_at:%Y-%m-%d %H:%M} UTC), "
        "which the late rule used: if the worksheet is older than the download, download both "
        "again (a file date is no submission time)"
        for exercise, submitted in sorted(handin.files.items())
        if submitted.submitted_at is not None and submitted.submitted_at > after
    ]
    return Lateness(instructor=tuple(lines))


def advice(rows: list[GradeRow], assignment: Assignment, read: bool) -> list[str]:
    """What to do in Moodle after the run."""
    lines = []
    scale = assignment.moodle_settings().scale
    if scale:
        items = ", ".join(f"{item} from {number(lowest)}%" for item, lowest in scale)
        lines.append(
            f"Moodle: the grades are items of the assignment's scale (moodle.scale: {items}), "
            "not points: the assignment must be graded on that scale in Moodle (Grade, "
            '"Type": Scale), its items spelled as here. Moodle finds each grade by its text: '
            'in Grades, "Import", "CSV file" keep "Verbose scales" on (else it reads the '
            "item's position)"
        )
    if read and any(r.student.participant for r in rows) and scale:
        lines.append(
            f'Moodle: upload {WORKSHEET} in the assignment\'s "View all submissions", '
            '"Upload grading worksheet" (the "Offline grading worksheet" feedback type must '
            "be on); it names every student as Moodle's download does, by participant. A "
            "grade that is no item of the assignment's scale is skipped by Moodle: check the "
            'upload\'s count of updated grades. Its importer finds the columns "Identifier" '
            'and "Grade" and reads "Participant N" by their names in the language of whoever '
            "uploads: upload it with Moodle's language set to English (user menu, "
            '"Language"), or Moodle refuses the file'
        )
    elif read and any(r.student.participant for r in rows):
        most = number(assignment.moodle_settings().points)
        # the worksheet's importer skips a grade above the assignment's maximum and takes
        # the rest as they are: its "Maximum Grade" column is not read
        lines.append(
            f'Moodle: upload {WORKSHEET} in the assignment\'s "View all submissions", '
            '"Upload grading worksheet" (the "Offline grading worksheet" feedback type must '
            "be on); it names every student as Moodle's download does, by participant. Its "
            f'grades are out of {most} (moodle.points): the assignment\'s "Maximum grade" in '
            f"Moodle must be {most}, or Moodle skips every grade above its maximum and reads "
            'the others as out of it. Its importer finds the columns "Identifier" and '
            '"Grade" and reads "Participant N" by their names in the language of whoever '
            "uploads: upload it with Moodle's language set to English (user menu, "
            '"Language"), or Moodle refuses the file'
        )
    if read and not assignment.moodle_settings().timezone:  # else the run says (moodletimes)
        lines += [
            f"{line}; moodle.timezone (the Moodle time zone of whoever downloads the grading "
            "worksheet, given as the roster) lets the grader apply it from the worksheet's "
            '"Last modified (submission)" times'
            for line in no_times("Moodle", rows, assignment, "by hand in Moodle")
        ]
    return lines


# ---------------------------------------------------------------------------------------------
# The grade import

KEY_COLUMNS = {"email": "Email address", "idnumber": "ID number"}


def cell(row: GradeRow, assignment: Assignment) -> str:
    """A row's grade as Moodle's importers read it: points of ``moodle.points``, or, for an
    assignment graded on a scale (``moodle.scale``), the item the final percentage earns,
    spelled as the scale has it. Moodle finds a scale grade by the item's text: a number
    there is no item (the worksheet skips it, the gradebook import refuses the file, or with
    "Verbose scales" off takes it as the item's position, so 85 would read as the top item).
    Empty as :func:`grade_cell` leaves it: withheld, or no work under ``missing: blank``;
    no work under ``missing: zero`` earns what 0% earns, the lowest item."""
    settings = assignment.moodle_settings()
    points = grade_cell(row, settings.points, assignment.missing)
    if not settings.scale or not points:
        return points
    return settings.scale_item(row.final_percent or 0.0)


def grades_csv(rows: list[GradeRow], assignment: Assignment) -> str:
    """The CSV to upload in Moodle's Grades, "Import", "CSV file": the identifying column
    first (``moodle.key``: "Email address", mapped to ``useremail``, or "ID number", mapped to
    ``useridnumber``), then the other one, "Full name", the grade item (the final percentage as
    points of ``moodle.points``) and, with ``moodle.feedback``, a "Feedback" column to map to
    the item's feedback (MoodleDocs warns that importing feedback alone clears grades: both are
    always written together). Students without work get 0 (``missing: zero``).

    Only rows Moodle's importer (``grade/import/csv/classes/load_data.php``) reads as meant are
    written. A row whose key cell is empty keeps the student of the row above (the importer
    sets the student only from a non-empty key): it gave that student this row's grade, or
    stopped the whole import when it was the first. A row whose grade cell is empty sets "no
    grade" (``'' -> null``) and clears the feedback: it erased what Moodle held. So a student
    with no key, or with no grade to write (``missing: blank``, a withheld row), has no row,
    and Moodle keeps what it has (:func:`left_out` says how many)."""
    settings = assignment.moodle_settings()
    first = KEY_COLUMNS[settings.key]
    second = KEY_COLUMNS["idnumber" if settings.key == "email" else "email"]
    header = [first, second, "Full name", settings.item]
    if settings.feedback:
        header.append("Feedback")
    out = io.StringIO()
    writer = spreadsheet.writer(out, verbatim=(0, 1))  # the keys Moodle matches exactly
    writer.writerow(header)
    for row in sorted(rows, key=lambda r: (r.student.name.casefold(), r.student.key)):
        student = row.student
        email, idnumber = student.email, student.sid
        grade = cell(row, assignment)
        keys = [email, idnumber] if settings.key == "email" else [idnumber, email]
        if not keys[0].strip() or not grade:
            continue  # no row: see above
        line = [*keys, student.name, grade]
        if settings.feedback:  # never feedback without its grade: Moodle would clear it
            line.append(feedback(row))
        writer.writerow(line)
    return out.getvalue()


def left_out(rows: list[GradeRow], assignment: Assignment) -> tuple[list[GradeRow], list[GradeRow]]:
    """The students ``moodle.csv`` has no row for: (without the key, without a grade)."""
    settings = assignment.moodle_settings()
    unkeyed, ungraded = [], []
    for row in rows:
        key = row.student.email if settings.key == "email" else row.student.sid
        if not key.strip():
            unkeyed.append(row)
        elif not cell(row, assignment):
            ungraded.append(row)
    return unkeyed, ungraded


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


# ---------------------------------------------------------------------------------------------
# The offline grading worksheet: grades by participant, blind marking included

WORKSHEET = "moodle-worksheet.csv"
WORKSHEET_HEADER = (
    "Identifier",
    "Full name",
    "Email address",
    "Grade",
    "Maximum Grade",
    "Last modified (grade)",
    "Feedback comments",
)


def worksheet_csv(rows: list[GradeRow], assignment: Assignment) -> str:
    """The assignment's offline grading worksheet, as Moodle's ``assignfeedback_offline``
    imports it ("Upload grading worksheet"): its importer finds the columns "Identifier",
    "Grade" and "Last modified (grade)" by name, reads the participant id after Moodle's
    ``hiddenuser`` string ("Participant 1234570"), and skips a row whose grade is empty (so an
    empty cell never becomes 0); a feedback plugin's column ("Feedback comments") is read where
    that plugin is on. One row per participant of the download, blind or not, and per roster
    student whose participant id the roster gives; the grade is the final percentage as points
    of ``moodle.points``, and a student without work gets what ``missing`` says, as in
    ``moodle.csv`` (0 or an empty cell). The feedback goes with its grade and only with it:
    the importer (``process_import_grades``) skips an empty grade but imports the feedback
    all the same, so a withheld row's "exercise-05: unreadable; total 33.33%" reached the
    student with no grade. "Last modified (grade)" is left empty:
    Moodle then keeps a grade changed in Moodle unless the upload's "Allow updating records
    that have been modified more recently in Moodle" is ticked."""
    settings = assignment.moodle_settings()
    out = io.StringIO()
    writer = spreadsheet.writer(out, verbatim=(0,))  # "Participant N", matched exactly
    writer.writerow(WORKSHEET_HEADER)
    for row in sorted(
        (r for r in rows if r.student.participant),
        key=lambda r: (len(r.student.participant), r.student.participant),
    ):
        student = row.student
        grade = cell(row, assignment)
        writer.writerow(
            [
                f"{HIDDEN_USER}{student.participant}",
                student.name,
                student.email,
                grade,
                "" if settings.scale else number(settings.points),  # not read by the importer
                "",
                feedback(row) if settings.feedback and grade else "",  # never without its grade
            ]
        )
    return out.getvalue()


def uploads(rows: list[GradeRow], assignment: Assignment) -> list[Upload]:
    """``moodle.csv`` (the gradebook import, by e-mail or ID number) for every class, and the
    grading worksheet for a class read from a Moodle download (by participant)."""
    found = []
    key = assignment.moodle_settings().key
    known = identified(rows)
    unkeyed, ungraded = left_out(known, assignment)
    warnings = []
    if unkeyed:
        what = "e-mail address" if key == "email" else "ID number"
        warnings.append(
            f"moodle.csv: {len(unkeyed)} student(s) have no {what} and no row (Moodle's import "
            "would give such a row to the student above it); a roster with it fixes this"
            + (f"; {WORKSHEET} has them by participant" if _any_participant(rows) else "")
        )
    if ungraded:
        warnings.append(
            f"moodle.csv: {len(ungraded)} student(s) without a grade to write (no work under "
            "missing: blank, or a grade withheld until you look) have no row, so Moodle keeps "
            "what it has (an empty cell would erase it)"
        )
    found.append(Upload("moodle.csv", grades_csv(known, assignment), tuple(warnings)))
    if _any_participant(rows):
        found.append(Upload(WORKSHEET, worksheet_csv(rows, assignment)))
    return found


def _any_participant(rows: list[GradeRow]) -> bool:
    return any(r.student.participant for r in rows)


PLATFORM = Platform(
    name=LAYOUT,
    detect=detect,
    read=read,
    times=(
        "none: each file's date only (never used as a submission time); with "
        'moodle.timezone, the grading worksheet\'s "Last modified (submission)"'
    ),
    uploads=uploads,
    lateness=lateness,
    advice=advice,
    upload_names=("moodle.csv", WORKSHEET),
)
