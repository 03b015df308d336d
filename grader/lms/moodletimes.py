"""The late rule for a Moodle download, from the grading worksheet's submission times.

Moodle's "Download all submissions" carries no submission times, but its grading worksheet
("Download grading worksheet"), given as the roster, has each participant's "Last modified
(submission)": ``userdate()`` in the downloading user's language and time zone, with no zone
in the text, to the minute (seconds dropped), "-" where there is no submission. It is
written with the language pack's ``strftimedaydatetime`` and its locale's month and day
names: English "%A, %d %B %Y, %I:%M %p" ("Monday, 1 December 2026, 10:00 AM"; Moodle drops
the day's and the hour's leading zero; a 24-hour form is read too), German "Dienstag, 1.
Dezember 2026, 13:00", French "mardi 1 décembre 2026, 13:00", Spanish "martes, 1 de diciembre
de 2026, 13:00", Simplified Chinese "2026年12月1日 星期二 13:00" (:data:`LANGUAGES`). A
worksheet in another language is not read, and the run says so once, never a guess.

Read only where ``moodle.timezone`` names the zone it was written in. The time stands for a
minute (the seconds Moodle dropped) and, in a DST change's repeated or skipped hour, for two
offsets: the late rule is applied only where every instant the text may mean gives the same
verdict (days late and points lost). Where it does not, or the text is not a time as Moodle
writes it, or the worksheet says "-" for work the download holds, no penalty is
guessed: the student's grade is withheld with the reason. A file's date is never used.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from grader.lms.assignment import (
    Assignment,
    RosterEntry,
    late_penalty,
    match_roster,
)
from grader.lms.grades import GradeRow
from grader.lms.handin import Handin
from grader.lms.platform import no_times

COLUMN = '"Last modified (submission)"'
NO_SUBMISSION = "-"
MINUTE = timedelta(seconds=59)  # the seconds Moodle's text drops: the last whole second

_LETTERS = r"[^\W\d_]+"
_CLOCK = r"(?P<hour>[0-9]{1,2}):(?P<minute>[0-9]{2})"


@dataclass(frozen=True)
class Language:
    """How a language pack writes the worksheet's time: its ``strftimedaydatetime`` (Moodle's
    ``userdate`` default), with the day's leading zero dropped or not, and the month and day
    names of its locale (lower case; a month given as a number has none)."""

    name: str
    pattern: re.Pattern[str]
    months: tuple[tuple[str, ...], ...]  # each month's names (a locale's variants)
    weekdays: tuple[tuple[str, ...], ...]  # Monday first


def _names(text: str) -> tuple[tuple[str, ...], ...]:
    return tuple(tuple(word.split("/")) for word in text.split())


LANGUAGES = (
    Language(  # "%A, %d %B %Y, %I:%M %p", or the 24-hour "%H:%M"
        "English",
        re.compile(
            rf"(?P<weekday>{_LETTERS}), (?P<day>[0-9]{{1,2}}) (?P<month>{_LETTERS}) "
            rf"(?P<year>[0-9]{{4}}), {_CLOCK}(?: (?P<half>AM|PM))?",
            re.IGNORECASE,
        ),
        _names(
            "january february march april may june july august september october november december"
        ),
        _names("monday tuesday wednesday thursday friday saturday sunday"),
    ),
    Language(  # de: "%A, %d. %B %Y, %H:%M"
        "Deutsch",
        re.compile(
            rf"(?P<weekday>{_LETTERS}), (?P<day>[0-9]{{1,2}})\. (?P<month>{_LETTERS}) "
            rf"(?P<year>[0-9]{{4}}), {_CLOCK}",
            re.IGNORECASE,
        ),
        _names(
            "januar/jänner februar märz april mai juni juli august september oktober "
            "november dezember"
        ),
        _names("montag dienstag mittwoch donnerstag freitag samstag sonntag"),
    ),
    Language(  # fr: "%A %d %B %Y, %H:%M"
        "français",
        re.compile(
            rf"(?P<weekday>{_LETTERS}) (?P<day>[0-9]{{1,2}}) (?P<month>{_LETTERS}) "
            rf"(?P<year>[0-9]{{4}}), {_CLOCK}",
            re.IGNORECASE,
        ),
        _names(
            "janvier février mars avril mai juin juillet août septembre octobre novembre décembre"
        ),
        _names("lundi mardi mercredi jeudi vendredi samedi dimanche"),
    ),
    Language(  # es: "%A, %d de %B de %Y, %H:%M"
        "español",
        re.compile(
            rf"(?P<weekday>{_LETTERS}), (?P<day>[0-9]{{1,2}}) de (?P<month>{_LETTERS}) de "
            rf"(?P<year>[0-9]{{4}}), {_CLOCK}",
            re.IGNORECASE,
        ),
        _names(
            "enero febrero marzo abril mayo junio julio agosto septiembre/setiembre octubre "
            "noviembre diciembre"
        ),
        _names("lunes martes miércoles jueves viernes sábado domingo"),
    ),
    Language(  # zh_cn: "%Y年%m月%d日 %A %H:%M"
        "简体中文",
        re.compile(
            r"(?P<year>[0-9]{4})年(?P<month>[0-9]{1,2})月(?P<day>[0-9]{1,2})日 "
            rf"(?P<weekday>星期.) {_CLOCK}",
            re.IGNORECASE,
        ),
        (),
        _names("星期一 星期二 星期三 星期四 星期五 星期六 星期日/星期天"),
    ),
)
READ_IN = ", ".join(language.name for language in LANGUAGES)
# the language packs whose worksheet names the column as SUBMITTED_COLUMNS says and writes
# the time as one of LANGUAGES does
READ = frozenset({"en", "de", "fr", "es", "zh_cn"})


def _index(names: tuple[tuple[str, ...], ...], word: str) -> int | None:
    word = word.casefold()
    return next((i for i, variants in enumerate(names) if word in variants), None)


def local_time(text: str) -> datetime | None:
    """The naive local time Moodle wrote in one of the :data:`LANGUAGES` (all of its date in
    that one language), or None where ``text`` is not one (another language, a cell edited by
    hand); ValueError where its weekday is not its date's (Moodle writes both from one time:
    the cell was edited by hand)."""
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    for language in LANGUAGES:
        match = language.pattern.fullmatch(text)  # any case: the names are case folded
        if match is not None:
            return _read(language, match)
    return None


def _read(language: Language, match: re.Match[str]) -> datetime | None:
    if language.months:
        month = _index(language.months, match["month"])
        if month is None:
            return None
        month += 1
    else:
        month = int(match["month"])
    weekday = _index(language.weekdays, match["weekday"])
    if weekday is None:
        return None
    hour, half = int(match["hour"]), (match.groupdict().get("half") or "").upper()
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "PM" else 0)
    try:
        when = datetime(int(match["year"]), month, int(match["day"]), hour, int(match["minute"]))
    except ValueError:
        return None
    if when.weekday() != weekday:
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
        if roster and all(not e.platform_id and e.participant for e in roster):
            return Outcome(  # a worksheet, its headers in a language not read here
                False,
                f"moodle.timezone is given, but the grading worksheet has no {COLUMN} column "
                f"under a name read here (its headers in another language?): download it with "
                f"Moodle's language set to one of {READ_IN}",
            )
        return Outcome(
            False,
            f"moodle.timezone is given, but the roster is not Moodle's grading worksheet with "
            f"its {COLUMN} column",
        )
    zone = ZoneInfo(name)
    withheld = 0
    matched = match_roster(handins, roster)
    language = roster[0].submitted_language
    if language not in READ:
        return Outcome(  # once for the class, not a line per student
            False,
            f"moodle.timezone is given, but the grading worksheet is in a language whose times "
            f"are not read here ({COLUMN} is named in {language!r}): no late penalty guessed; "
            f"download it with Moodle's language set to one of {READ_IN}",
        )
    for handin, entry, _ in matched.pairs:
        if not handin.files:
            continue
        doubt = _doubt(handin, entry, assignment, zone, name)
        if doubt:
            handin.doubt = doubt
            withheld += 1
    for handin in matched.unmatched:  # no worksheet line: no time, and none guessed
        if handin.files:
            handin.doubt = _no_line(handin)
            withheld += 1
    return Outcome(True, withheld=withheld)


def _no_line(handin: Handin) -> str:
    """Why a handin that no worksheet line is has no time: a team's download (Moodle 4.1 and
    later, one folder per team) names no student, and the worksheet has a line per student,
    never per team; anyone else's line is missing from the worksheet."""
    if handin.key_kind == "team":
        return (
            f"a team's submission names none of its members, and the grading worksheet has a "
            f"line per student, so no {COLUMN} time is the team's: no late penalty guessed; "
            "read the members' time in the worksheet and apply the late rule by hand"
        )
    return (
        f"no line of the grading worksheet is this student's, so no {COLUMN} time: "
        "no late penalty guessed; download the worksheet again with the submissions"
    )


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
            f"{said} is not a time as Moodle writes it ({READ_IN}): edited by hand? no late "
            "penalty guessed; check it in Moodle"
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
