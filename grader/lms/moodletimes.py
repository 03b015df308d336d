"""The late rule for a Moodle download, from the grading worksheet's submission times.

Moodle's "Download all submissions" carries no submission times, but its grading worksheet
("Download grading worksheet"), given as the roster, has each participant's "Last modified
(submission)": ``userdate()`` in the downloading user's language and time zone, with no zone
in the text, to the minute (seconds dropped), "-" where there is no submission. English
writes it with ``strftimedatetime``, "%A, %d %B %Y, %I:%M %p" ("Monday, 1 December 2026,
10:00 AM"; Moodle drops the day's and the hour's leading zero); a 24-hour form ("Monday, 1
December 2026, 13:00") is read too.

Read only where ``moodle.timezone`` names the zone it was written in. The time stands for a
minute (the seconds Moodle dropped) and, in a DST change's repeated or skipped hour, for two
offsets: the late rule is applied only where every instant the text may mean gives the same
verdict (days late and points lost). Where it does not, or the text is not a time as Moodle
writes it in English, or the worksheet says "-" for work the download holds, no penalty is
guessed: the student's grade is withheld with the reason. A file's date is never used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from grader.lms.assignment import Assignment, RosterEntry, late_penalty, match_roster
from grader.lms.grades import GradeRow
from grader.lms.handin import Handin
from grader.lms.platform import no_times

COLUMN = '"Last modified (submission)"'
MONTHS = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_TIME = re.compile(
    r"(?P<weekday>[A-Za-z]+), (?P<day>[0-9]{1,2}) (?P<month>[A-Za-z]+) (?P<year>[0-9]{4}), "
    r"(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2})(?: (?P<half>AM|PM|am|pm))?"
)
NO_SUBMISSION = "-"
MINUTE = timedelta(seconds=59)  # the seconds Moodle's text drops: the last whole second


def local_time(text: str) -> datetime | None:
    """The naive local time Moodle wrote in English, or None where ``text`` is not one (another
    language, a cell edited by hand); ValueError where its weekday is not its date's (Moodle
    writes both from one time: the cell was edited by hand)."""
    match = _TIME.fullmatch(" ".join(text.split()))
    if match is None:
        return None
    month = match["month"].lower()
    if month not in MONTHS:
        return None
    hour, half = int(match["hour"]), (match["half"] or "").upper()
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "PM" else 0)
    try:
        when = datetime(
            int(match["year"]),
            MONTHS.index(month) + 1,
            int(match["day"]),
            hour,
            int(match["minute"]),
        )
    except ValueError:
        return None
    if WEEKDAYS[when.weekday()] != match["weekday"].lower():
        raise ValueError(f"{match['weekday']} is not the weekday of that date")
    return when


def instants(local: datetime, zone: ZoneInfo) -> tuple[datetime, datetime, str]:
    """The earliest and the latest instant (UTC) a local time to the minute may stand for in
    ``zone``, and "" or what makes it uncertain: "repeated" (the hour a DST change repeats),
    "skipped" (no such local time: the zone is not the one it was written in)."""
    readings = []
    for fold in (0, 1):
        aware = local.replace(tzinfo=zone, fold=fold)
        readings.append(aware.astimezone(timezone.utc))
    exists = [r for r in readings if r.astimezone(zone).replace(tzinfo=None) == local]
    why = ""
    if not exists:
        why = "skipped"
    elif len({r for r in exists}) > 1:
        why = "repeated"
    found = exists or readings
    return min(found), max(found) + MINUTE, why


@dataclass(frozen=True)
class Outcome:
    applied: bool  # the worksheet's times were read (moodle.timezone, a worksheet with them)
    reason: str = ""  # why they were not
    withheld: int = 0  # students whose time could not be read


def apply(
    handins: list[Handin], roster: tuple[RosterEntry, ...] | None, assignment: Assignment
) -> Outcome:
    """Each roster-matched handin's submission time from the worksheet, where it decides the
    late rule; else its ``doubt``. Nothing where ``moodle.timezone`` is not given."""
    name = assignment.moodle_settings().timezone
    if not name or assignment.due is None:
        return Outcome(False)
    if roster is None or not roster or any(e.submitted is None for e in roster):
        return Outcome(
            False,
            f"moodle.timezone is given, but the roster is not Moodle's grading worksheet with "
            f"its {COLUMN} column (one downloaded in English)",
        )
    zone = ZoneInfo(name)
    withheld = 0
    matched = match_roster(handins, roster)
    for handin, entry, _ in matched.pairs:
        if not handin.files:
            continue
        doubt = _doubt(handin, entry, assignment, zone, name)
        if doubt:
            handin.doubt = doubt
            withheld += 1
    for handin in matched.unmatched:  # no worksheet line: no time, and none guessed
        if handin.files:
            handin.doubt = (
                f"no line of the grading worksheet is this student's, so no {COLUMN} time: "
                "no late penalty guessed; download the worksheet again with the submissions"
            )
            withheld += 1
    return Outcome(True, withheld=withheld)


def _doubt(
    handin: Handin, entry: RosterEntry, assignment: Assignment, zone: ZoneInfo, name: str
) -> str:
    """ "" with ``handin.submitted_at`` set where the worksheet's time decides the late rule,
    else why it does not."""
    text = (entry.submitted or "").strip()
    said = f"the grading worksheet's {COLUMN} {text[:80]!r} (line {entry.line})"
    if text == NO_SUBMISSION:
        return (
            f"{said} says no submission, but the download holds work: the worksheet is older "
            "than the download; download both again"
        )
    try:
        local = local_time(text)
    except ValueError as exc:
        return f"{said}: {exc} (edited by hand?): no late penalty guessed; check it in Moodle"
    if local is None:
        return (
            f"{said} is not a time as Moodle writes it in English (a worksheet downloaded in "
            "another language?): no late penalty guessed; download it with Moodle's language "
            "set to English"
        )
    own = assignment.for_student(
        [entry.id, entry.sid, entry.email, entry.login, entry.participant, handin.key]
        + [handin.lms_id, handin.sid, handin.email, handin.participant]
    )
    first, last, why = instants(local, zone)
    verdict = late_penalty(first, own)
    if verdict != late_penalty(last, own):
        if why == "repeated":
            cause = f"is in the hour {name} repeats at a DST change"
        elif why == "skipped":
            cause = f"is in the hour {name} skips at a DST change: no such time there"
        else:
            cause = "is to the minute (Moodle drops the seconds)"
        return (
            f"{said} {cause}, and the late rule gives that time two verdicts: no late penalty "
            "guessed; check the submission's time in Moodle"
        )
    handin.submitted_at = first
    return ""


def summary(rows: list[GradeRow], outcome: Outcome, assignment: Assignment) -> list[str]:
    """The class-level line on the late rule for a Moodle download read with
    ``moodle.timezone``: applied from the worksheet, or why not."""
    name = assignment.moodle_settings().timezone
    if not name or assignment.due is None:
        return []
    if not outcome.applied:
        return [
            f"{line}; {outcome.reason}"
            for line in no_times("Moodle", rows, assignment, "by hand in Moodle")
        ]
    line = (
        f"Moodle: the late rule was applied from the grading worksheet's {COLUMN} times, read "
        f"in {name} (moodle.timezone)"
    )
    if outcome.withheld:
        line += (
            f"; {outcome.withheld} student(s) have no time there or one that does not decide "
            "it (listed above): their grades are withheld until you look"
        )
    return [line]
