"""The assignment file: which exercises make up a week's grade, who is in the class, when it was
due and how each platform is to be fed. Read as strictly as an exercise spec (every error names
the file and the field, unknown keys get "did you mean"); ``docs/LMS.md`` documents each field.

    format_version: 1
    name: week-3
    exercises: {exercise-01: 1, exercise-05: 2}     # id: weight
    roster: roster.csv                              # relative to this file
    due: 2026-12-01T23:59:00+00:00
    grace_minutes: 10
    late: {per_day_percent: 10, max_days: 3, after_max_days: zero}
    extensions: {'4713': 2026-12-04T23:59:00+00:00}  # a student's id: their own due date
    missing: zero
    canvas: {title: Week 3, assignment_id: 48213, points: 100}
    moodle: {item: Week 3, points: 100, key: email, feedback: true}
    gradescope: {points: 100, hidden_tests: after_published, stdout_visibility: hidden}

Also here: the roster (``read_roster``), the late rule (``late_penalty``) and roster matching
(``match_roster``).
"""

from __future__ import annotations

import csv
import difflib
import io
import itertools
import math
import re
import stat
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple, TypeVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from grader.errors import SpecError
from grader.fileio import is_regular_file
from grader.i18n import number
from grader.lms.handin import Handin, name_forms
from grader.spec import ID_RE
from grader.text import line_at, wide_text
from grader.yamlfields import YamlFields as _Fields
from grader.yamlfields import closest_key, read_yaml

FORMAT_VERSION = 1
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
_TOP = (
    "format_version",
    "name",
    "title",
    "exercises",
    "roster",
    "due",
    "grace_minutes",
    "late",
    "missing",
    "canvas",
    "moodle",
    "gradescope",
    "extensions",
)
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")


@dataclass(frozen=True)
class LatePolicy:
    per_day_percent: float  # percentage points of the maximum lost per day (or part of one)
    max_days: int | None = None  # None: no limit
    after_max_days: str = "zero"  # past max_days: "zero" (no credit) or "cap" (max_days' loss)

    @property
    def zero_after(self) -> int | None:
        """The day limit past which this rule gives no credit (None where it has none)."""
        return self.max_days if self.after_max_days == "zero" else None

    @property
    def costs_nothing(self) -> bool:
        """No lateness ever loses a point under this rule. 0% a day is not enough: past
        ``max_days``, ``zero`` still takes everything ("late work free for 3 days, then no
        credit" is ``per_day_percent: 0, max_days: 3``); ``cap`` loses ``max_days`` days'
        worth, nothing where that is 0 days."""
        if self.max_days is None:
            return self.per_day_percent == 0
        return self.after_max_days == "cap" and self.per_day_percent * self.max_days == 0


@dataclass(frozen=True)
class CanvasSettings:
    title: str  # the assignment's title in Canvas
    assignment_id: int | None = None  # Canvas's id: the column is matched by it
    points: float = 100.0  # the assignment's points possible in Canvas

    @property
    def column(self) -> str:
        """The gradebook column as Canvas names it: ``Title (id)``, or the bare title for a
        new assignment."""
        return f"{self.title} ({self.assignment_id})" if self.assignment_id else self.title


@dataclass(frozen=True)
class MoodleSettings:
    item: str  # the grade item's column name
    points: float = 100.0  # the grade item's maximum grade in Moodle
    key: str = "email"  # which column identifies students: "email" or "idnumber"
    feedback: bool = True  # add a feedback column
    # the assignment graded on a scale: (item, the lowest final percentage that earns it),
    # lowest item first, as Moodle's scale lists them; () where it is graded in points
    scale: tuple[tuple[str, float], ...] = ()
    # the IANA time zone the grading worksheet's times are written in (its downloader's Moodle
    # time zone, "Europe/Berlin"); "" where not given: its times are not read
    timezone: str = ""

    def scale_item(self, percent: float) -> str:
        """The scale item a final percentage earns: the highest whose threshold it reaches
        (the lowest item's threshold is 0, so every percentage earns one)."""
        earned = self.scale[0][0]
        for item, lowest in self.scale:
            if percent >= lowest:
                earned = item
        return earned


@dataclass(frozen=True)
class GradescopeSettings:
    points: float = 100.0  # the assignment's autograder points in Gradescope
    hidden_tests: str = ""  # visibility of each graded test ("": as ``visibility``)
    visibility: str = "visible"  # the result's default visibility, for every test
    stdout_visibility: str = "hidden"  # the autograder's own output
    # (name, specifier) replacing the autograder's pin of that requirement: ("torch", ">=2.2")
    requirements: tuple[tuple[str, str], ...] = ()

    @property
    def tests_visibility(self) -> str:
        """What each graded test's ``visibility`` is: ``hidden_tests``, else ``visibility``
        (Gradescope's top-level visibility is the default a test can override)."""
        return self.hidden_tests or self.visibility

    @property
    def score_at_once(self) -> bool:
        """Whether a student sees the total score as soon as the grading ends. Gradescope
        ("Controlling Test Case Visibility"): while a graded test is not yet shown
        (``after_due_date``, ``after_published``), the total score is hidden too; ``hidden``
        tests do not hide it (Gradescope means them for tests worth no points)."""
        return self.tests_visibility in ("visible", "hidden")


@dataclass(frozen=True)
class Assignment:
    name: str
    exercises: tuple[tuple[str, float], ...]  # (id, weight), in the file's order
    path: Path
    title: str = ""
    roster: Path | None = None
    due: datetime | None = None
    grace_minutes: float = 0.0
    late: LatePolicy | None = None
    missing: str = "zero"  # roster students without work: "zero" or "blank" in exports
    canvas: CanvasSettings | None = None
    moodle: MoodleSettings | None = None
    gradescope: GradescopeSettings = GradescopeSettings()
    # (a student's id as the LMS gives it, casefolded; that student's own due date)
    extensions: tuple[tuple[str, datetime], ...] = ()

    def extension_for(self, ids: Iterable[str]) -> datetime | None:
        """The due date of the student with these ids (any of them: the platform's user id,
        SID, e-mail, login, participant id) where ``extensions`` gives them one, else None.
        Two dates for one student (their id and their e-mail both listed, differently) are
        an error: neither is known to be meant."""
        mine = {i.strip().casefold() for i in ids if i and i.strip()}
        found = {(key, when) for key, when in self.extensions if key in mine}
        if len({when for _, when in found}) > 1:
            keys = sorted(key for key, _ in found)
            raise SpecError(
                self.path,
                f"extensions.{keys[0]}",
                f"gives one student {len(found)} due dates ({', '.join(keys)} are the same "
                "student)",
                "keep one line for the student",
            )
        return next(iter(found))[1] if found else None

    def for_student(self, ids: Iterable[str]) -> Assignment:
        """This assignment as it applies to the student with these ids: with their own due
        date where ``extensions`` gives them one (the grace and the late rule stay)."""
        own = self.extension_for(ids)
        return self if own is None or own == self.due else replace(self, due=own)

    @property
    def weights(self) -> dict[str, float]:
        return dict(self.exercises)

    @property
    def ids(self) -> tuple[str, ...]:
        return tuple(e for e, _ in self.exercises)

    def canvas_settings(self) -> CanvasSettings:
        return self.canvas or CanvasSettings(self.title or self.name)

    def moodle_settings(self) -> MoodleSettings:
        return self.moodle or MoodleSettings(self.title or self.name)

    def check_exercises(self, known: set[str] | dict[str, Any]) -> None:
        """Every exercise of the assignment exists (the catalog's ids in ``known``)."""
        for ident, _ in self.exercises:
            if ident not in known:
                close = difflib.get_close_matches(ident, sorted(known), n=1)
                raise SpecError(
                    self.path,
                    f"exercises.{ident}",
                    "there is no such exercise",
                    f"did you mean '{close[0]}'?" if close else "run `grade list` for the ids",
                )


def load_assignment(path: Path) -> Assignment:
    """Read and check an assignment file; every problem is a SpecError naming the field. The
    fields are checked each on its own, and every problem found is reported at once (one
    line each), not one per run: a file that another version of the grader wrote
    (``format_version``) or that is no mapping stops at that."""
    data = read_yaml(path)
    problems: list[SpecError] = []
    meant: set[str] = set()  # the keys misspelt ones stand for
    if isinstance(data, dict):  # every unknown key, then the rest as if they were not there
        for key in [k for k in data if k not in _TOP]:
            try:
                _Fields(path, {key: None}, "", _TOP)
            except SpecError as exc:
                problems.append(exc)
            meant.add(closest_key(key, _TOP) or "")
        data = {k: v for k, v in data.items() if k in _TOP}
    top = _Fields(path, data, "", _TOP)
    if "format_version" in top.data:
        top.check_version(FORMAT_VERSION)  # another version's file: nothing else is known
    else:
        _attempt(problems, lambda: top.check_version(FORMAT_VERSION), None)
    name = _attempt(problems, lambda: _name(top, path), "")
    exercises: tuple[tuple[str, float], ...] = _attempt(
        problems, lambda: _exercises(top, path, problems), ()
    )
    roster = _attempt(problems, lambda: _roster(top, path), None)
    grace = _attempt(
        problems, lambda: _number(top, path, "grace_minutes", 0.0, most=MAX_GRACE_MINUTES), 0.0
    )
    missing = _attempt(
        problems, lambda: _choice(top, path, "missing", ("zero", "blank"), "zero"), "zero"
    )
    title = _attempt(problems, lambda: top.get("title", str, ""), "")
    due = _attempt(problems, lambda: _due(top, path), None)
    late = _attempt(problems, lambda: _late(top, path), None)
    canvas = _attempt(problems, lambda: _canvas(top, path, title or name), None)
    moodle = _attempt(problems, lambda: _moodle(top, path, title or name), None)
    gradescope = _attempt(problems, lambda: _gradescope(top, path), GradescopeSettings())
    extensions: tuple[tuple[str, datetime], ...] = _attempt(
        problems, lambda: _extensions(top, path), ()
    )
    # a misspelt key ("nmae": did you mean 'name'?) is one slip, not that and a missing key
    problems = [p for p in problems if not (p.problem == "missing" and p.field in meant)]
    if len(problems) == 1:
        raise problems[0]
    if problems:
        raise SpecError(
            path,
            None,
            f"{len(problems)} problems:\n"
            + "\n".join(
                f"  - {f'field {p.field!r}: ' if p.field else ''}{p.problem}"
                + (f" (fix: {p.fix})" if p.fix else "")
                for p in problems
            ),
            "each of them, then run again",
        )
    return Assignment(
        name=name,
        exercises=exercises,
        path=path,
        title=title,
        roster=roster,
        due=due,
        grace_minutes=grace,
        late=late,
        missing=missing,
        canvas=canvas,
        moodle=moodle,
        gradescope=gradescope,
        extensions=extensions,
    )


_T = TypeVar("_T")


def _attempt(problems: list[SpecError], check: Callable[[], _T], default: _T) -> _T:
    """``check()``, or ``default`` with its SpecError kept in ``problems``."""
    try:
        return check()
    except SpecError as exc:
        problems.append(exc)
        return default


def _name(top: _Fields, path: Path) -> str:
    name = top.get("name", str)
    if not _NAME.match(name):
        raise SpecError(path, "name", f"'{name}' is not a plain name", "e.g. week-3")
    return name


def _exercises(
    top: _Fields, path: Path, problems: list[SpecError]
) -> tuple[tuple[str, float], ...]:
    """``exercises``: each exercise's id and weight; each bad one kept in ``problems``."""
    raw = top.get("exercises", dict, fix="e.g. `exercises: {exercise-01: 1, exercise-05: 2}`")
    if not raw:
        raise SpecError(path, "exercises", "is empty", "list at least one exercise: weight")
    exercises = []
    for ident, weight in raw.items():
        if not isinstance(ident, str) or not ID_RE.match(ident):
            problems.append(
                SpecError(
                    path, f"exercises.{ident}", "is not an exercise id", "write ids as exercise-NN"
                )
            )
            continue
        if (
            isinstance(weight, bool)
            or not isinstance(weight, (int, float))
            or not math.isfinite(weight)
            or not 0 < weight <= MAX_WEIGHT
        ):
            problems.append(
                SpecError(
                    path,
                    f"exercises.{ident}",
                    f"the weight must be a number above 0, at most {MAX_WEIGHT:g}",
                    "e.g. 1",
                )
            )
            continue
        exercises.append((ident, float(weight)))
    return tuple(exercises)


def _roster(top: _Fields, path: Path) -> Path | None:
    if not top.has("roster"):
        return None
    roster = path.parent / top.get("roster", str)
    if not is_regular_file(roster):  # a name too long or a link loop is none either
        raise SpecError(path, "roster", f"{roster} does not exist", "give the CSV's path")
    return roster


# The largest value each number of the file may take: beyond them a value is a slip, and
# NaN, infinity or 1e308 once went through to a crash (timedelta of NaN minutes) or to grades
# of "nan" and 0 in the upload files.
MAX_POINTS = 1_000_000.0
MAX_WEIGHT = 1_000_000.0
MAX_GRACE_MINUTES = 525_600.0  # a year
MAX_LATE_DAYS = 3650
MAX_EXTENSIONS = 10_000  # students with a due date of their own: far beyond any class
MAX_STUDENT_ID = 200  # characters of a student's id in ``extensions``


def _number(
    fields: _Fields, path: Path, key: str, default: float, most: float = MAX_POINTS
) -> float:
    value = fields.get(key, (int, float), default)
    if not math.isfinite(value) or not 0 <= value <= most:
        raise SpecError(
            path, fields._name(key), f"must be a number from 0 to {most:g}", "give 0 or more"
        )
    return float(value)


def _choice(fields: _Fields, path: Path, key: str, allowed: tuple[str, ...], default: str) -> str:
    value = fields.get(key, str, default)
    if value not in allowed and not (value == default and not fields.has(key)):
        raise SpecError(
            path,
            fields._name(key),
            f"'{value}' is not a choice",
            f"use one of: {', '.join(allowed)}",
        )
    return value


def _due(top: _Fields, path: Path) -> datetime | None:
    if not top.has("due"):
        return None
    return _moment(top.data["due"], path, "due")


def _moment(value: Any, path: Path, where: str) -> datetime:
    """A date and time with its zone (``due``, an extension's due date)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise SpecError(
                path, where, f"'{value}' is not a date and time", "e.g. 2026-12-01T23:59:00+00:00"
            ) from None
    if isinstance(value, date) and not isinstance(value, datetime):
        raise SpecError(path, where, "is a date without a time", "e.g. 2026-12-01T23:59:00+00:00")
    if not isinstance(value, datetime):
        raise SpecError(path, where, "is not a date and time", "e.g. 2026-12-01T23:59:00+00:00")
    if value.tzinfo is None:
        raise SpecError(
            path, where, "has no time zone", "add one, e.g. 2026-12-01T23:59:00+00:00 or -05:00"
        )
    return value


def _extensions(top: _Fields, path: Path) -> tuple[tuple[str, datetime], ...]:
    """``extensions``: a student's id, as the LMS gives it, to their own due date (a Canvas
    assignment override, a Moodle user override or extension). The id is any the roster or
    the download carries for them (Canvas user ID, SID, e-mail, login, Moodle participant id),
    case ignored; each must name a student (:func:`check_extensions`)."""
    raw = top.get(
        "extensions", dict, {}, fix="e.g. `extensions: {'4713': 2026-12-04T23:59:00+00:00}`"
    )
    if raw and not top.has("due"):
        raise SpecError(
            path, "extensions", "needs the assignment's `due`", "add `due:` (everyone else's)"
        )
    if len(raw) > MAX_EXTENSIONS:
        raise SpecError(
            path, "extensions", f"has {len(raw)} students, more than {MAX_EXTENSIONS}",
            "give the due date to everyone with `due:`",
        )  # fmt: skip
    found: dict[str, tuple[str, datetime]] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise SpecError(
                path,
                f"extensions.{key}",
                "the student's id is not quoted text",
                f"write it in quotes, '{key}': YAML reads 0123 as the number 83",
            )
        ident = key.strip()
        if not ident or len(ident) > MAX_STUDENT_ID or any(not c.isprintable() for c in ident):
            raise SpecError(
                path,
                f"extensions.{key[:MAX_STUDENT_ID]!r}",
                f"is not a student's id (1 to {MAX_STUDENT_ID} printable characters)",
                "give the id as the roster or the LMS has it",
            )
        folded = ident.casefold()
        if folded in found:
            raise SpecError(
                path,
                f"extensions.{ident}",
                f"names the student of '{found[folded][0]}' again",
                "keep one line for the student",
            )
        found[folded] = (ident, _moment(value, path, f"extensions.{ident}"))
    return tuple((folded, when) for folded, (_, when) in found.items())


def check_extensions(
    assignment: Assignment, roster: tuple[RosterEntry, ...] | None, handins: list[Handin]
) -> None:
    """Every student ``extensions`` names is one of the class (a roster line, or a student
    of the download, by any id either carries), and no student has two due dates: an id
    mistyped would leave the student the class's due date, and their late work penalised,
    without a word."""
    known: set[str] = set()
    people: list[tuple[str, ...]] = []
    for entry in roster or ():
        people.append((entry.id, entry.sid, entry.email, entry.login, entry.participant))
    for handin in handins:
        people.append((handin.key, handin.lms_id, handin.sid, handin.email, handin.participant))
    for ids in people:
        known.update(i.strip().casefold() for i in ids if i.strip())
        assignment.extension_for(ids)  # two due dates for one student: an error
    for key, _ in assignment.extensions:
        if key not in known:
            close = difflib.get_close_matches(key, sorted(known), n=1)
            raise SpecError(
                assignment.path,
                f"extensions.{key}",
                "names no student of the roster or the download",
                (f"did you mean '{close[0]}'? " if close else "")
                + "give the student's id as the roster has it (id, sid, email, login or "
                "participant), or remove the line",
            )


def _late(top: _Fields, path: Path) -> LatePolicy | None:
    if not top.has("late"):
        return None
    fields = _Fields(
        path, top.data["late"], "late", ("per_day_percent", "max_days", "after_max_days")
    )
    per_day = fields.get("per_day_percent", (int, float), fix="e.g. `per_day_percent: 10`")
    if not 0 <= per_day <= 100:
        raise SpecError(path, "late.per_day_percent", "must be between 0 and 100", "e.g. 10")
    max_days = fields.get("max_days", int, None)
    if max_days is not None and not 0 <= max_days <= MAX_LATE_DAYS:
        raise SpecError(path, "late.max_days", f"must be from 0 to {MAX_LATE_DAYS} days", "e.g. 3")
    after = _choice(fields, path, "after_max_days", ("zero", "cap"), "zero")
    if after != "zero" and max_days is None:
        raise SpecError(path, "late.after_max_days", "needs max_days", "add `max_days:`")
    return LatePolicy(float(per_day), max_days, after)


_TRAILING_ID = re.compile(r"\s\(\d+\)\s*$")


def _canvas(top: _Fields, path: Path, default_title: str) -> CanvasSettings | None:
    if not top.has("canvas"):
        return None
    fields = _Fields(path, top.data["canvas"], "canvas", ("title", "assignment_id", "points"))
    title = fields.get("title", str, default_title)
    ident = fields.get("assignment_id", int, None)
    # Canvas's importer (Assignment.title_and_id) reads a column's trailing " (digits)" as the
    # assignment's id: with the id given, the column is "Title (id)" and any title is read
    # whole; without it, a title that ends so would be taken for another assignment's id.
    trailing = _TRAILING_ID.search(title) if ident is None else None
    if trailing is not None:
        given = fields.has("title")
        raise SpecError(
            path,
            "canvas.title" if given else "title",
            f"{title!r} ends in what Canvas's import reads as an assignment id "
            f"{trailing.group(0).strip()}"
            + ("" if given else "; it is the Canvas column's title, canvas.title not being set"),
            "give the Canvas assignment's id as `canvas.assignment_id:` (in its URL: "
            ".../assignments/ID), or a title that does not end in a number in parentheses",
        )
    points = _number(fields, path, "points", 100.0)
    return CanvasSettings(title, ident, points)


def _moodle(top: _Fields, path: Path, default_item: str) -> MoodleSettings | None:
    if not top.has("moodle"):
        return None
    fields = _Fields(
        path,
        top.data["moodle"],
        "moodle",
        ("item", "points", "key", "feedback", "scale", "timezone"),
    )
    scale = _scale(fields, path)
    if scale and fields.has("points"):
        raise SpecError(
            path,
            "moodle.points",
            "is given with moodle.scale: an assignment graded on a scale has no points",
            "keep moodle.scale for a scale, moodle.points for points",
        )
    return MoodleSettings(
        item=fields.get("item", str, default_item),
        points=_number(fields, path, "points", 100.0),
        key=_choice(fields, path, "key", ("email", "idnumber"), "email"),
        feedback=fields.get("feedback", bool, True),
        scale=scale,
        timezone=_timezone(fields, path),
    )


def _timezone(fields: _Fields, path: Path) -> str:
    """``moodle.timezone``: an IANA time zone name zoneinfo knows ("Europe/Berlin"), or ""."""
    name = fields.get("timezone", str, "")
    if not fields.has("timezone"):
        return ""
    hint = (
        "give the IANA name of the time zone the grading worksheet was downloaded in (its "
        'downloader\'s Moodle time zone): "Europe/Berlin", "America/New_York", "UTC"'
    )
    try:
        if not name.strip() or name.strip() != name:
            raise ValueError(name)
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise SpecError(
            path, "moodle.timezone", f"{name!r} is no time zone zoneinfo knows", hint
        ) from None
    return name


def _scale(fields: _Fields, path: Path) -> tuple[tuple[str, float], ...]:
    """``moodle.scale``: the Moodle scale's items, lowest first as Moodle lists them, each
    with the lowest final percentage that earns it (``{Fail: 0, Pass: 50}``). Moodle's
    importers find a scale grade by the item's text, trimmed (``make_menu_from_list``; the
    gradebook import's "Verbose scales"), and a scale is its items parted by commas: an item
    with a comma, or two the same, can be no item of it. The lowest earns from 0, so every
    grade has an item; each next one from a higher percentage."""
    if not fields.has("scale"):
        return ()
    where = fields._name("scale")
    raw = fields.get("scale", dict, {})
    hint = "list the scale's items lowest first, each with the lowest percentage it takes: {Fail: 0, Pass: 50}"
    if len(raw) < 2:
        raise SpecError(path, where, "needs two items or more (Moodle's scales have)", hint)
    found: list[tuple[str, float]] = []
    for item, lowest in raw.items():
        if not isinstance(item, str) or not item.strip() or "," in item:
            raise SpecError(
                path, where, f"{item!r} is no item of a Moodle scale (text without a comma)", hint
            )
        if item.strip() != item or any(item == seen for seen, _ in found):
            raise SpecError(
                path,
                f"{where}.{item.strip()}",
                "is written with spaces around it or twice: Moodle matches the item's text",
                "write each item once, as Moodle shows it",
            )
        if isinstance(lowest, bool) or not isinstance(lowest, (int, float)):
            raise SpecError(path, f"{where}.{item}", f"{lowest!r} is not a percentage", hint)
        if not math.isfinite(lowest) or not 0 <= lowest <= 100:
            raise SpecError(path, f"{where}.{item}", "must be a percentage from 0 to 100", hint)
        if not found and lowest != 0:
            raise SpecError(path, f"{where}.{item}", "the lowest item must start at 0", "give it 0")
        if found and lowest <= found[-1][1]:
            raise SpecError(
                path,
                f"{where}.{item}",
                f"must start above {found[-1][0]}'s {found[-1][1]:g}",
                "list the items lowest first, each from a higher percentage",
            )
        found.append((item, float(lowest)))
    return tuple(found)


def _gradescope(top: _Fields, path: Path) -> GradescopeSettings:
    if not top.has("gradescope"):
        return GradescopeSettings()
    fields = _Fields(
        path,
        top.data["gradescope"],
        "gradescope",
        ("points", "hidden_tests", "visibility", "stdout_visibility", "requirements"),
    )
    return GradescopeSettings(
        points=_number(fields, path, "points", 100.0),
        hidden_tests=_choice(fields, path, "hidden_tests", VISIBILITIES, ""),
        visibility=_choice(fields, path, "visibility", VISIBILITIES, "visible"),
        stdout_visibility=_choice(fields, path, "stdout_visibility", VISIBILITIES, "hidden"),
        requirements=_requirements(fields, path),
    )


_PACKAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*\Z")
_SPECIFIER = re.compile(
    r"^\s*(?:(?:==|!=|<=|>=|~=|<|>)\s*[0-9][0-9A-Za-z.*+!]*)"
    r"(?:\s*,\s*(?:==|!=|<=|>=|~=|<|>)\s*[0-9][0-9A-Za-z.*+!]*)*\s*\Z"
)


def _requirements(fields: _Fields, path: Path) -> tuple[tuple[str, str], ...]:
    """``gradescope.requirements``: package name to a version (``"2.4.1"``, meaning ``==``)
    or a specifier (``">=2.2,<3"``), replacing the autograder's pin of that package."""
    raw = fields.get("requirements", dict, {})
    where = fields._name("requirements")
    found = []
    for name, value in raw.items():
        if not isinstance(name, str) or not _PACKAGE.match(name):
            raise SpecError(path, where, f"{name!r} is not a package name", "e.g. torch: '2.4.1'")
        if not isinstance(value, str):
            raise SpecError(
                path, f"{where}.{name}", "must be a quoted string", f"write {name}: '{value}'"
            )
        spec = value.strip()
        if spec[:1].isdigit():
            spec = f"=={spec}"
        if not _SPECIFIER.match(spec):
            raise SpecError(
                path,
                f"{where}.{name}",
                f"{value!r} is not a version or version specifier",
                "e.g. '2.4.1' or '>=2.2,<3'",
            )
        found.append((name.lower().replace("_", "-"), spec.replace(" ", "")))
    return tuple(found)


# ---------------------------------------------------------------------------------------------
# The late rule


def late_after(assignment: Assignment, days: int = 0) -> datetime | None:
    """The moment after which work is more than ``days`` days late under the assignment's
    rule (``days=0``: the deadline, ``due`` plus ``grace_minutes``), as :func:`late_penalty`
    counts: work handed in later loses more than ``days`` days. None without a due date, or
    where the moment is past the last date Python can hold."""
    if assignment.due is None:
        return None
    try:
        return assignment.due + timedelta(minutes=assignment.grace_minutes, days=days)
    except OverflowError:
        return None


def late_after_text(assignment: Assignment, days: int = 0) -> str:
    """:func:`late_after` in words, for every message that states when work is late or gets
    no credit: "2026-12-04 20:15 +00:00 (the due date, 3 days and the 15-minute grace later)".
    One source for them all, so that none forgets the grace."""
    later = [f"{days} day{'s' if days != 1 else ''}"] if days else []
    if assignment.grace_minutes:
        later.append(f"the {number(assignment.grace_minutes)}-minute grace")
    how = f"the due date, {' and '.join(later)} later" if later else "the due date"
    moment = late_after(assignment, days)
    if moment is None:
        return how
    return f"{moment.isoformat(sep=' ', timespec='minutes')} ({how})"


def days_late(when: datetime | None, assignment: Assignment) -> int:
    """The days (or parts of one) ``when`` is past the deadline, ``due`` plus
    ``grace_minutes``: one second late is one day late; 0 on time, without a due date or
    without a time. What the late rule, and every message that counts days, counts."""
    if assignment.due is None or when is None:
        return 0
    if when.tzinfo is None:
        raise ValueError("submitted_at must be timezone-aware")
    # a difference of two times never overflows, where due + grace did (a due date in 9999)
    late = (when - assignment.due) - timedelta(minutes=assignment.grace_minutes)
    if late <= timedelta(0):
        return 0
    return math.ceil(late / timedelta(days=1))


def late_penalty(submitted_at: datetime | None, assignment: Assignment) -> tuple[int, float]:
    """(days late, percentage points lost) under the assignment's rule.

    The deadline is ``due`` plus ``grace_minutes``; past it, every day or part of a day counts
    (one second late is one day late); each day costs ``per_day_percent`` points of the
    percentage, up to 100. Past ``max_days``, ``after_max_days: zero`` loses everything and
    ``cap`` loses only ``max_days`` days' worth. No due date, no time, or no rule: nothing.
    """
    days = days_late(submitted_at, assignment)
    if not days:
        return 0, 0.0
    policy = assignment.late
    if policy is None:
        return days, 0.0
    if policy.max_days is not None and days > policy.max_days:
        if policy.after_max_days == "zero":
            return days, 100.0
        return days, min(100.0, policy.max_days * policy.per_day_percent)
    return days, min(100.0, days * policy.per_day_percent)


# ---------------------------------------------------------------------------------------------
# The roster

MAX_ROSTER_BYTES = 64 << 20  # a class of a million lines is still well under it
ROSTER_COLUMNS = ("id", "name", "email", "sid", "section", "login", "participant")
REQUIRED_COLUMNS = ("id", "name", "email")


# A long number as Excel writes it into a CSV it saves: "2.02312E+11" for 202312345678
_EXCEL_NUMBER = re.compile(r"^[0-9](?:[.,][0-9]+)?E\+[0-9]+\Z", re.IGNORECASE)
# A participant id as Moodle's grading worksheet writes it: its ``hiddenuser`` string in the
# downloader's language, then the number ("Participant 901"; the translations have no space:
# "Teilnehmer/in901", "Participante901"); the number is the id. The word holds a letter and
# no digit, and is three characters or more where no space parts it from the number ("p7"
# is no id).
_PARTICIPANT = re.compile(
    r"(?:(?P<word>[^\d]*[^\W\d_][^\d]*?)\s+|(?P<joined>(?=[^\d]{3})[^\d\s][^\d]*[^\W\d_][^\d]*?))?"
    r"(?P<id>[0-9]+)\Z"
)
# Moodle's grading worksheet ("Download grading worksheet"): "Identifier" first, then the
# identity columns its site shows (none under blind marking), status, grade, dates, feedback.
# The columns a roster needs, by their English names; every other column is not the roster's.
WORKSHEET_COLUMNS = {
    "identifier": "participant",
    "full name": "name",
    "email address": "email",
    "id number": "sid",
    "last modified (submission)": "submitted",  # Moodle's time, in its downloader's zone
}

# The column's name in the language packs (``lastmodifiedsubmission`` of mod/assign), as
# the roster reads header cells (NFKC: the full-width brackets of Chinese and Japanese;
# spaces joined, lower case), and the language pack it is of
SUBMITTED_COLUMNS = {
    "last modified (submission)": "en",
    "zuletzt geändert (abgabe)": "de",
    "dernière modification (travail remis)": "fr",
    "dernière modification (envoi)": "fr",  # older packs
    "dernière modification (présentation)": "fr_ca",
    "última modificación (entrega)": "es",
    "最后修改(学生)": "zh_cn",
    "最後修改(學生)": "zh_tw",
    "最後修改的(作業)": "zh_tw",  # older packs
    "ultima modifica (consegna)": "it",
    "última modificação (submissão)": "pt",
    "última modificação (envio)": "pt_br",
    "最終更新日時 (提出)": "ja",
}


# Moodle's grade export (Grades, "Export", "Plain text file" or a spreadsheet saved as CSV):
# "First name", "Last name" (or "Surname"), "ID number", "Institution", "Department", "Email
# address", then a column per grade item and "Last downloaded from this course"
MOODLE_GRADES_COLUMNS = {
    "first name": "first name",
    "last name": "last name",
    "surname": "last name",
    "email address": "email",
    "id number": "sid",
}


def _moodle_grades(header: list[str]) -> list[str] | None:
    """The roster column each column of Moodle's grade export holds ("" for one a roster
    does not use), or None where the CSV is not one: it names "First name", "Last name" (or
    "Surname") and "Email address", and no roster column of its own ("id", "name")."""
    columns = [" ".join(c.split()).lower() for c in header]
    found = set(columns)
    if not {"first name", "email address"} <= found or not found & {"last name", "surname"}:
        return None
    if found & {"id", "name", "email"}:
        return None
    return [MOODLE_GRADES_COLUMNS.get(c, "") for c in columns]


def participant_id(value: str) -> str | None:
    """The participant id in a roster cell: "901", or as Moodle's worksheet writes it,
    "Participant 901" in any language; None for anything else."""
    match = _PARTICIPANT.fullmatch(value.strip())
    return match.group("id") if match else None


# Canvas's gradebook export (Grades, "Export"): "Student" (the sortable name, "Doe, Jane"),
# "ID" (the user id), "SIS User ID", "SIS Login ID", "Section", then a column per assignment
# and the totals; its second row is "Points Possible", and rows without an ID say how each
# assignment is posted ("Manual Posting").
CANVAS_COLUMNS = {
    "student": "name",
    # the gradebook's "Split student names" setting: "LastName", "FirstName" for "Student"
    "lastname": "last name",
    "firstname": "first name",
    "id": "id",
    "sis user id": "sid",
    "sis login id": "login",
    "section": "section",
}
_CANVAS_NOT_STUDENTS = ("points possible",)


_CANVAS_TEST_LOGIN = re.compile(r"[0-9a-f]{40}\Z")


def canvas_test_student(values: dict[str, str]) -> bool:
    """Whether a row of Canvas's gradebook export is its test student (the "Test Student" of
    Student View, "Student, Test" in English): Canvas gives that user one login, the HMAC-SHA1
    of "Test Student_{id}" in 40 lower-case hex digits (``Course#student_view_student``,
    ``Canvas::Security.hmac_sha1``), and no SIS User ID; the export writes it after every
    student (``GradebookExporter``: the ``StudentViewEnrollment`` last). Matched on that
    login, never on the name, which Canvas translates and a student may bear."""
    return bool(_CANVAS_TEST_LOGIN.match(values.get("login", ""))) and not values.get("sid")


def _canvas_gradebook(header: list[str]) -> list[str] | None:
    """The roster column each column of Canvas's gradebook export holds ("" for one a roster
    does not use), or None where the CSV is not one: it names "Student" (or, with the
    gradebook's "Split student names" on, "LastName" and "FirstName") and "ID" and one of
    Canvas's SIS columns."""
    columns = [" ".join(c.split()).lower() for c in header]
    named = "student" in columns or {"lastname", "firstname"} <= set(columns)
    if not named or "id" not in columns:
        return None
    if "sis user id" not in columns and "sis login id" not in columns:
        return None
    return [CANVAS_COLUMNS.get(c, "") for c in columns]


def _header_key(cell: str) -> str:
    """A header cell as :data:`SUBMITTED_COLUMNS` names it."""
    return unicodedata.normalize("NFKC", " ".join(cell.split()).lower())


def _worksheet(header: list[str], rows: list[list[str]]) -> list[str] | None:
    """The roster column each column of Moodle's grading worksheet holds ("" for one a roster
    does not use), or None where the CSV is not one. It is one where its first column is
    "Identifier", or (a worksheet downloaded in another language: "Kennung", "Identificador")
    where no column is a roster column, there are five or more, and every value in the first
    is one word and a number, the same word each time and each number once, as Moodle writes
    "Participant 901"."""
    columns = [" ".join(c.split()).lower() for c in header]
    if not columns:
        return None
    if columns[0] != "identifier":
        # the translated worksheet's other columns (status, grade, maximum, dates, feedback)
        # are no roster columns, and it names each participant once
        if len(columns) < 5 or set(columns) & set(ROSTER_COLUMNS) or not rows:
            return None
        if len({participant_id(r[0]) if r else None for r in rows}) != len(rows):
            return None
        words = set()
        for row in rows:
            match = _PARTICIPANT.fullmatch(row[0].strip()) if row else None
            word = match and (match.group("word") or match.group("joined"))
            if not word:
                return None
            words.add(word.strip().casefold())
        if len(words) != 1:
            return None
    mapped = [
        "submitted" if _header_key(c) in SUBMITTED_COLUMNS else WORKSHEET_COLUMNS.get(c, "")
        for c in columns
    ]
    mapped[0] = "participant"
    return mapped


@dataclass(frozen=True)
class RosterEntry:
    id: str  # the student's id in the platform (Canvas user ID, Moodle participant id, ...)
    name: str
    email: str
    sid: str = ""  # student number (Canvas "SIS User ID", Gradescope SID, Moodle "ID number")
    section: str = ""
    login: str = ""  # Canvas "SIS Login ID"
    line: int = 0  # where in the CSV
    participant: str = ""  # Moodle's participant id for this assignment, where known
    # whether ``id`` is the platform's user id; a Moodle grading worksheet has none, and its
    # participant id stands in as the roster's key
    platform_id: bool = True
    # the grading worksheet's "Last modified (submission)", as Moodle wrote it ("-": none);
    # None where the roster has no such column
    submitted: str | None = None
    # the language pack that column's name is of ("en", "de", ...: SUBMITTED_COLUMNS)
    submitted_language: str = ""


def _header_width(line: str, delimiter: str) -> int:
    """How many columns ``line`` holds, read with ``delimiter`` (quotes respected)."""
    try:
        return len(next(csv.reader([line], delimiter=delimiter), []))
    except csv.Error:
        return 0


_CSV_SAVE = 'in the spreadsheet, "Save As" "CSV UTF-8 (Comma delimited)"'
# What a spreadsheet saves as text with a byte order mark: Excel's "Unicode Text" is UTF-16
_MARKED = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"),
           (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"), (b"\xef\xbb\xbf", "utf-8-sig"))  # fmt: skip


def _roster_text(path: Path, notes: list[str] | None = None) -> str:
    """The roster file's text: UTF-8, or the UTF-16 or
    UTF-32 its byte order mark names (what Excel's "Unicode Text" saves), or a legacy code
    page where every one a spreadsheet saves in agrees on its names (:func:`_legacy_text`,
    said in ``notes``). A workbook (.xlsx, .xls) or text in another encoding is a SpecError
    that says which, and the line of the first byte that is not UTF-8: "cannot read the file
    ('utf-8' codec can't decode byte 0xff in position 0)" said neither."""
    try:
        info = path.stat()  # a link is followed: the instructor's link to a shared roster
        if not stat.S_ISREG(info.st_mode):  # a FIFO would block the run for ever
            raise SpecError(path, None, "is not a regular file", "give the roster CSV's path")
        with open(path, "rb") as handle:
            data = handle.read(MAX_ROSTER_BYTES + 1)
    except FileNotFoundError:
        raise SpecError(path, None, "file not found", "give the roster CSV's path") from None
    except OSError as exc:
        raise SpecError(
            path, None, f"cannot read the file ({exc.strerror or exc})", "check its permissions"
        ) from None
    if len(data) > MAX_ROSTER_BYTES:
        raise SpecError(
            path,
            None,
            f"is larger than {MAX_ROSTER_BYTES >> 20} MiB: no class list is",
            "give the roster CSV's path",
        )
    if data.startswith((b"PK\x03\x04", b"\xd0\xcf\x11\xe0")):  # a zip (.xlsx), OLE2 (.xls)
        raise SpecError(path, None, "is a spreadsheet workbook, not a CSV file", _CSV_SAVE)
    encoding = next((codec for mark, codec in _MARKED if data.startswith(mark)), "utf-8")
    if encoding == "utf-8" and wide_text(data):  # zeros are UTF-8: it read, as nonsense
        raise SpecError(
            path, None, "is UTF-16 or UTF-32 text without its byte order mark, not UTF-8", _CSV_SAVE
        )
    try:
        text = data.decode(encoding).removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = line_at(data, exc.start)  # lines as the roster is read: \r\n, \r or \n
        what = "UTF-8 text" if encoding == "utf-8" else f"{encoding.upper()} text, as its mark says"
        why = f"is not {what} (the byte 0x{data[exc.start]:02x})"
        if encoding != "utf-8":
            raise SpecError(path, f"line {line}", why, _CSV_SAVE) from None
        text, said = _legacy_text(data)
        if not text:
            raise SpecError(path, f"line {line}", f"{why}: {said}", _CSV_SAVE) from None
        if notes is not None:
            notes.append(f"{path.name} is not UTF-8 text: {said}; to be sure, {_CSV_SAVE}")
    else:
        if encoding == "utf-8" and notes is not None:
            notes.extend(_other_reading(path, data, text))
    return text.replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads it


# Code pages whose text may be UTF-8 too by chance: a Chinese name of two or three characters
# in GBK is valid UTF-8 about one time in fifty ("郑伟" reads as "֣ΰ", a Hebrew accent and a
# Greek letter); so may Big5's, Shift-JIS's and EUC-KR's, rarely a Windows code page's
EAST_ASIAN_CODE_PAGES = {"gbk": "GBK", "big5": "Big5", "shift_jis": "Shift-JIS", "euc_kr": "EUC-KR"}


def _misread(field: str) -> bool:
    """Whether a roster's field reads as a name no one has: two characters or more that are
    not ASCII, a letter among them, and not a name (:func:`_names_like`)."""
    wide = [c for c in field if not c.isascii()]
    return len(wide) >= 2 and any(c.isalpha() for c in wide) and not _names_like(field.strip())


def _other_reading(path: Path, data: bytes, text: str) -> list[str]:
    """A note where a roster read as UTF-8 holds names no one has (letters of several
    scripts in one word, symbols: :func:`_names_like`) and a code page it may be in reads
    every name as a name: the file may not be UTF-8, and its names then match no one. Only
    a note: the UTF-8 reading may be right, and nothing is guessed."""
    # the fields (a byte these code pages may pair with another is never a separator: a
    # reading that parts a field otherwise did not decode); a name no one has holds letters
    # and two characters or more that are not ASCII (a lone symbol is no other text's name)
    fields = re.split(r'[,;\t\r\n"]', text)
    index = next((i for i, f in enumerate(fields) if _misread(f)), None)
    if index is None:
        return []
    readings = []
    for codec, label in {**EAST_ASIAN_CODE_PAGES, **LEGACY_CODE_PAGES}.items():
        try:
            other = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if _names_like(other):
            readings.append((label, other))
    if not readings:
        return []
    ways = []
    for label, other in readings[:3]:
        theirs = re.split(r'[,;\t\r\n"]', other)
        ways.append(f"{theirs[index].strip()!r} as {label}" if index < len(theirs) else label)
    return [
        f"{path.name} reads as UTF-8 with a name no one has ({fields[index].strip()!r}: "
        "letters of several scripts, or symbols, in one name), where another encoding reads "
        f"every name as one ({'; '.join(ways)}): if the names are written so, the file is "
        f"not UTF-8 and they match no one; {_CSV_SAVE}"
    ]


# The code pages a spreadsheet saves "CSV" in where it is not UTF-8: Windows' (Excel's "CSV
# (Comma delimited)" saves in the system's), DOS's ("CSV (MS-DOS)") and the Mac's ("CSV
# (Macintosh)")
LEGACY_CODE_PAGES = {
    "cp1252": "Windows-1252",
    "cp1250": "Windows-1250",
    "cp1251": "Windows-1251",
    "cp1253": "Windows-1253",
    "cp1254": "Windows-1254",
    "cp1255": "Windows-1255",
    "cp1256": "Windows-1256",
    "cp1257": "Windows-1257",
    "cp1258": "Windows-1258",
    "cp437": "DOS 437",
    "cp850": "DOS 850",
    "mac_roman": "Mac Roman",
}
# what a name may hold beside letters: apostrophes, dashes, quotes, a no-break space
_NAME_MARKS = frozenset("\u2019\u2018\u201c\u201d\u2013\u2014\u00ab\u00bb\u00a0\u00b7")


def _script(char: str) -> str:
    return unicodedata.name(char, "?").split(" ")[0]


def _names_like(text: str) -> bool:
    """Whether every character a code page made of the bytes that are not ASCII is one a
    name holds: a letter (no modifier letter, no mark, no symbol) or one of the marks names
    use; each word of one script ("Mьller" mixes Latin and Cyrillic); and no capital letter
    after a small one within a word ("JosÚ")."""
    for char in {c for c in text if ord(c) > 127}:
        if char not in _NAME_MARKS and unicodedata.category(char) not in ("Lu", "Ll", "Lt", "Lo"):
            return False
    for word in re.findall(r"[^\W\d_]+", text):
        if word.isascii():
            continue
        if len({_script(c) for c in word}) > 1:
            return False
        if any(
            b.isupper() and not b.isascii() and a.islower() for a, b in itertools.pairwise(word)
        ):
            return False
    return True


def _legacy_text(data: bytes) -> tuple[str, str]:
    """A roster that is not UTF-8, read by evidence: the text where every code page a
    spreadsheet saves in that makes names of its bytes makes the same names, and what was
    read; else "" and why not (each reading of the first word they part on). Never a guess
    between two readings ("Dvoøák" in Windows-1252, "Dvořák" in Windows-1250)."""
    readings: dict[str, list[str]] = {}
    for codec, name in LEGACY_CODE_PAGES.items():
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if _names_like(text):
            readings.setdefault(text, []).append(name)
    if not readings:
        return "", "no code page a spreadsheet saves in reads it as names"
    # the fields (a byte that is not ASCII is never a separator in these code pages, so
    # every reading parts the text into the same fields)
    fields = [re.split(r'[,;\t\r\n"]', text) for text in readings]
    if len(readings) > 1:
        parted = next(i for i, fs in enumerate(zip(*fields, strict=True)) if len(set(fs)) > 1)
        ways = ", ".join(
            f"{fs[parted].strip()!r} in {names[0]}"
            for fs, names in zip(fields, readings.values(), strict=True)
        )
        return "", f"its names read differently in the code pages it may be in ({ways})"
    ((text, names),) = readings.items()
    named = dict.fromkeys(f.strip() for f in fields[0] if not f.isascii())
    shown = ", ".join(repr(f) for f in list(named)[:3])
    return text, (
        f"read as {names[0]}, which every code page a spreadsheet saves in that fits it "
        f"agrees with ({shown})"
    )


def read_roster(
    path: Path, notes: list[str] | None = None, test_students: set[str] | None = None
) -> tuple[RosterEntry, ...]:
    """The class list: a CSV (UTF-8, or UTF-16 with its byte order mark) with a header row
    naming ``id``, ``name``, ``email`` and optionally ``sid``, ``section``, ``login``,
    ``participant`` (case and spaces ignored, any order), or Moodle's grading worksheet. A
    line repeating a student but for the section adds the section. Every problem is a
    SpecError naming the line. Canvas's test student in its gradebook export is no student
    (:func:`canvas_test_student`): left out, and ``notes`` says so once; its user id goes
    into ``test_students``, so that its work in the download is left out too."""
    text = _roster_text(path, notes)
    # What spreadsheets write: Excel's "sep=;" hint as the first line, a semicolon or a tab
    # where the locale's decimal mark is a comma, empty trailing columns
    # the first line ends where any line ends: Excel for Mac's "CSV (Macintosh)" ends them
    # with a bare carriage return
    ending = re.search(r"\r\n|\r|\n", text)
    first, rest = (text[: ending.start()], text[ending.end() :]) if ending else (text, "")
    start = 1
    hint = re.fullmatch(r"\s*sep=(.)\s*", first)
    if hint:
        delimiter, text, start = hint.group(1), rest, 2
    else:  # the one that parts the header into the most columns, "," where they tie: an
        # LMS export's column ("Week 3, part 1 (48213)") may hold another separator; and
        # first, one that parts the first row too (a title of ";;;;;" in a tab-separated
        # export parted its header into as many columns, its rows into none)
        def parts_rows(d: str) -> bool:
            """``d`` parts the header, and the first row that is not blank too."""
            if _header_width(first, d) <= 1:
                return False
            try:
                rows = csv.reader(io.StringIO(rest, newline=""), delimiter=d)
                row = next((r for r in rows if any(c.strip() for c in r)), None)
            except csv.Error:
                return False
            return row is None or len(row) > 1

        delimiter = max(
            (",", ";", "\t"),
            key=lambda d: (parts_rows(d), _header_width(first, d), d == ",", d == ";"),
        )
    # each row numbered by the line of the file it starts on: a quoted cell may hold newlines
    # (a name with a line break), so rows and lines part ways after one
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    numbered: list[tuple[int, list[str]]] = []
    try:
        line = start
        for row in reader:
            if any(c.strip() for c in row):
                numbered.append((line, row))
            line = start + reader.line_num
    except csv.Error as exc:
        raise SpecError(path, None, f"not a CSV file ({exc})", "save it as CSV") from None
    if not numbered:
        raise SpecError(path, None, "is empty", "write a header row: id,name,email")
    header = numbered[0][1]
    for index, cell in enumerate(header):
        if not cell.strip() and any(len(r) > index and r[index].strip() for _, r in numbered):
            raise SpecError(
                path,
                f"column {index + 1}",
                "has values but no name in the header row",
                f"name it ({', '.join(ROSTER_COLUMNS)}) or delete the column",
            )
    named = [i for i, cell in enumerate(header) if cell.strip()]  # empty columns: ignored
    width = len(header)
    trailing = named == list(range(len(named)))  # only the last columns are empty ones
    kept = []
    for line, row in numbered:
        if len(row) == width:
            kept.append((line, [row[i] for i in named]))
        elif trailing and len(row) == len(named):  # the empty columns left off the line
            kept.append((line, row))
        else:
            raise SpecError(
                path,
                f"line {line}",
                f"has {len(row)} fields, the header has {width}",
                "quote fields that contain the separator",
            )
    numbered = kept
    header = numbered[0][1]
    columns = [c.strip().lower() for c in header]
    # the exports a header names first: a translated worksheet is known by its values alone
    # (one word and a number in its first column), which a grade export's first names may be
    gradebook = _canvas_gradebook(header)
    grades = _moodle_grades(header) if gradebook is None else None
    worksheet = (
        _worksheet(header, [r for _, r in numbered[1:]])
        if gradebook is None and grades is None
        else None
    )
    export = worksheet or gradebook or grades  # an LMS's own file: its columns, the rest left
    if export is not None:  # a worksheet is keyed by participant id, then the roster's id too
        columns = export
    for column in columns if export is None else []:
        if column not in ROSTER_COLUMNS:
            close = difflib.get_close_matches(column, ROSTER_COLUMNS, n=1)
            raise SpecError(
                path,
                f"column '{column}'",
                "unknown column",
                f"did you mean '{close[0]}'?" if close else f"columns: {', '.join(ROSTER_COLUMNS)}",
            )
    for column in REQUIRED_COLUMNS if export is None else []:
        if column not in columns:
            raise SpecError(
                path, f"column '{column}'", "missing from the header row", "header: id,name,email"
            )
    named_columns = [c for c in columns if c]
    if len(set(named_columns)) != len(named_columns):
        raise SpecError(path, "header", "names a column twice", "name each column once")
    language = next(
        (
            SUBMITTED_COLUMNS.get(_header_key(cell), "")
            for cell, column in zip(header, columns, strict=True)
            if column == "submitted"
        ),
        "",
    )
    entries: list[RosterEntry] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in numbered[1:]:
        if len(row) != len(columns):
            raise SpecError(
                path,
                f"line {line}",
                f"has {len(row)} fields, the header has {width}",
                "quote fields that contain the separator",
            )
        values = {c: v.strip() for c, v in zip(columns, row, strict=True) if c}
        if export is not None:
            values.setdefault("name", "")
            values.setdefault("email", "")
        if grades is not None:  # Moodle's grade export: no user id; its ID number or e-mail
            first, last = values.pop("first name", ""), values.pop("last name", "")
            values["name"] = " ".join(part for part in (first, last) if part)
            values["id"] = values.get("sid", "") or values["email"]
        if worksheet is not None:
            values["id"] = participant_id(values["participant"]) or values["participant"]
        if gradebook is not None and "last name" in values:  # split names: "Last, First"
            last, first = values.pop("last name"), values.pop("first name", "")
            values["name"] = ", ".join(part for part in (last, first) if part)
        if gradebook is not None and (
            not values["id"] or values["name"].lower() in _CANVAS_NOT_STUDENTS
        ):
            continue  # "Points Possible", and the rows that say how grades are posted
        if gradebook is not None and canvas_test_student(values):
            if test_students is not None and values["id"]:
                test_students.add(values["id"])
            if notes is not None:
                notes.append(
                    f"{path.name} line {line}: {values['name'] or values['id']!r} is Canvas's "
                    "test student (Student View; its SIS Login ID is the 40 hex digits Canvas "
                    "gives it): left out of the roster, Canvas takes no grade for it"
                )
            continue
        if not values["id"]:
            raise SpecError(path, f"line {line}", "has no id", "every student needs an id")
        if values["email"] and "@" not in values["email"]:
            raise SpecError(
                path, f"line {line}", f"'{values['email']}' is not an e-mail address", "fix it"
            )
        for column in ("id", "sid", "participant"):
            if _EXCEL_NUMBER.match(values.get(column, "")):
                raise SpecError(
                    path,
                    f"line {line}",
                    f"{column} '{values[column]}' is a number as Excel shows a long one: its "
                    "last digits are lost, and it matches no student",
                    f"in the spreadsheet, format the {column} column as Text, type the ids "
                    "again (or export them anew from the LMS) and save the CSV again",
                )
        participant = values.get("participant", "")
        if participant:
            number_only = participant_id(participant)
            if number_only is None:
                raise SpecError(
                    path,
                    f"line {line}",
                    f"participant '{participant}' is not a Moodle participant id",
                    "give the number in the student's folder name in Moodle's download (or "
                    'the grading worksheet\'s Identifier, "Participant 901")',
                )
            values["participant"] = number_only
        twin = _same_student(entries, values)
        if twin is not None:  # one student in two sections: one entry, both sections
            section = values.get("section", "")
            if section and section not in twin.section.split(" and "):  # as Canvas joins them
                joined = f"{twin.section} and {section}" if twin.section else section
                entries[entries.index(twin)] = replace(twin, section=joined)
            continue
        for column in ("id", "email", "sid", "participant"):
            value = values.get(column, "").lower()
            if value and (column, value) in seen:
                raise SpecError(
                    path,
                    f"line {line}",
                    f"{column} '{values[column]}' is already on line {seen[(column, value)]}",
                    "each student once",
                )
            if value:
                seen[(column, value)] = line
        entries.append(
            RosterEntry(
                id=values["id"],
                name=values["name"],
                email=values["email"],
                sid=values.get("sid", ""),
                section=values.get("section", ""),
                login=values.get("login", ""),
                line=line,
                participant=values.get("participant", ""),
                platform_id=worksheet is None and grades is None,
                submitted=values.get("submitted") if "submitted" in columns else None,
                submitted_language=language,
            )
        )
    return tuple(entries)


def _same_student(entries: list[RosterEntry], values: dict[str, str]) -> RosterEntry | None:
    """The earlier entry a roster line repeats but for its section (a roster made of two
    sections' lists, a student enrolled in both), or None. Any other difference is no
    repeat: two students, or a mistake, refused by the caller as ever."""
    for entry in entries:
        if entry.id != values["id"]:
            continue
        same = (
            entry.name == values["name"]
            and entry.email.lower() == values["email"].lower()
            and entry.sid == values.get("sid", "")
            and entry.login == values.get("login", "")
            and entry.participant == values.get("participant", "")
        )
        return entry if same else None
    return None


class RosterMatch(NamedTuple):
    pairs: list[tuple[Handin, RosterEntry, str]]  # (handin, entry, matched by: id/sid/email/name)
    unmatched: list[Handin]  # work from no one on the roster (the ambiguous ones included)
    absent: list[RosterEntry]  # on the roster, no work (the ambiguous ones included)
    ambiguous: dict[int, str]  # id() of a handin or entry -> why it cannot be matched


def match_roster(handins: list[Handin], roster: tuple[RosterEntry, ...]) -> RosterMatch:
    """Pair each handin with its roster entry, by every id the download and the roster carry,
    strongest first: the platform's user id (``lms_id`` = roster ``id``; for plain folders, the
    folder's name = ``id``, case ignored), Moodle's participant id (= roster ``participant``;
    never the roster's ``id``, which is another platform's), then SID, then e-mail (case
    ignored), then the name in any of its platform forms ("Jane Doe", "Doe, Jane", "doejane"),
    else the first of the handin's ``aliases`` that fits someone (a Moodle team download's
    "{team}-{name}").

    A name matches only where it is unambiguous: where a handin's name fits several roster
    entries (two students named alike), or several handins fit one entry by name, none of them
    is paired, and each is marked ``ambiguous`` with the names and lines involved, so that no
    grade goes to the wrong one of two namesakes. Likewise a handin whose ids disagree with the
    entry one of them found (its SID is one student's, its e-mail another's) is paired with no
    one, and the entries it points at get no grade. Each entry is taken once."""
    by_id = {e.id: e for e in roster if e.platform_id}  # a worksheet's stand-in is no user id
    by_participant = {e.participant: e for e in roster if e.participant}
    by_sid = {e.sid.lower(): e for e in roster if e.sid}
    by_email = {e.email.lower(): e for e in roster if e.email}
    by_name: dict[str, list[RosterEntry]] = {}
    for entry in roster:
        for form in name_forms(entry.name):
            by_name.setdefault(form, []).append(entry)
    taken: set[str] = set()
    pairs: list[tuple[Handin, RosterEntry, str]] = []
    pending = list(handins)
    ambiguous: dict[int, str] = {}
    conflicted: dict[int, list[RosterEntry]] = {}
    for how in ("id", "participant", "sid", "email"):
        left = []
        for handin in pending:
            found = _lookup(handin, how, by_id, by_participant, by_sid, by_email)
            clash = _contradiction(handin, found) if found is not None else ""
            if clash and found is not None:
                conflicted.setdefault(id(handin), []).append(found)
                ambiguous[id(handin)] = (
                    f"ambiguous: {clash}: the download's ids point at different students; no "
                    "grade written: match by hand"
                )
            if found is not None and not clash and found.id not in taken:
                taken.add(found.id)
                pairs.append((handin, found, how))
            else:
                left.append(handin)
        pending = left
    for handin in pending:  # an id that contradicts the roster: neither student gets it
        for entry in conflicted.get(id(handin), []):
            if entry.id not in taken:
                ambiguous[id(entry)] = (
                    f"ambiguous: a handin ({handin.origin or handin.key}) carries some of "
                    f"{entry.name}'s ids (line {entry.line}) and contradicts others; no grade "
                    "written: match by hand"
                )
    claims: dict[str, list[Handin]] = {}
    candidates: dict[int, list[RosterEntry]] = {}
    for handin in [h for h in pending if id(h) not in conflicted]:
        fits = {}
        for name in (handin.name, *handin.aliases):  # the first that fits someone
            fits = {e.id: e for f in name_forms(name) for e in by_name.get(f, [])}
            if fits:
                break
        free = [e for e in fits.values() if e.id not in taken]
        candidates[id(handin)] = free
        for entry in free:
            claims.setdefault(entry.id, []).append(handin)
    left = []
    for handin in pending:
        if id(handin) in conflicted:
            left.append(handin)
            continue
        free = candidates[id(handin)]
        if len(free) == 1 and len(claims[free[0].id]) == 1:
            taken.add(free[0].id)
            pairs.append((handin, free[0], "name"))
            continue
        left.append(handin)
        if not free:
            continue
        rivals = {id(h): h for e in free for h in claims[e.id]}
        entries = ", ".join(f"{e.name} (line {e.line})" for e in free)
        shown = handin.name or handin.key
        why = (
            f"ambiguous: {shown} fits {len(free)} roster students ({entries})"
            if len(free) > 1
            else f"ambiguous: {len(rivals)} handins are named like {entries}"
        )
        ambiguous[id(handin)] = f"{why}; no grade written: match by hand"
        for entry in free:
            ambiguous[id(entry)] = (
                f"ambiguous: {len(rivals)} handin(s) fit {entry.name} (line {entry.line}) "
                f"by name only ({', '.join(sorted(h.origin or h.key for h in rivals.values()))}); "
                "no grade written: match by hand"
            )
    absent = [e for e in roster if e.id not in taken]
    return RosterMatch(sorted(pairs, key=lambda p: p[1].line), left, absent, ambiguous)


def _contradiction(handin: Handin, entry: RosterEntry) -> str:
    """Where a handin's other ids disagree with the roster entry one of them found ("its SID
    1002 is Bob Smith's, its e-mail is not"): an id a student could set (a Gradescope SID) must
    not carry another student's grade. "" when nothing disagrees."""
    facts = (
        ("user id", handin.lms_id, entry.id),
        ("participant id", handin.participant, entry.participant),
        ("SID", handin.sid, entry.sid),
        ("e-mail", handin.email, entry.email),
    )
    for what, mine, theirs in facts:
        if mine.strip() and theirs.strip() and mine.strip().lower() != theirs.strip().lower():
            return (
                f"{handin.origin or handin.key} fits {entry.name} (line {entry.line}) but its "
                f"{what} {mine.strip()!r} is not theirs ({theirs.strip()!r})"
            )
    return ""


def _lookup(
    handin: Handin,
    how: str,
    by_id: dict[str, RosterEntry],
    by_participant: dict[str, RosterEntry],
    by_sid: dict[str, RosterEntry],
    by_email: dict[str, RosterEntry],
) -> RosterEntry | None:
    if how == "id":
        if handin.lms_id:
            return by_id.get(handin.lms_id)
        if handin.key_kind == "folder":  # folders named by student id ("s1234567/")
            folded = {k.lower(): e for k, e in by_id.items()}
            return folded.get(handin.key.lower()) or folded.get(handin.name.strip().lower())
        return None
    if how == "participant":
        return by_participant.get(handin.participant) if handin.participant else None
    if how == "sid":
        return by_sid.get(handin.sid.strip().lower()) if handin.sid else None
    return by_email.get(handin.email.strip().lower()) if handin.email else None
