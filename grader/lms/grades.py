"""The neutral grades model: one row per student, which every platform's export reads.

The batch fills it from result JSON (``ExerciseScore.from_result``) and intake
(``build_rows``); the exporters (``canvas.gradebook_csv``, ``moodle.grades_csv``,
``gradescope.results_json``) are pure functions of it. Keeping the model neutral means the
weighting, the late rule and the treatment of missing work are decided once, here, and every
platform receives the same numbers.

- ``ExerciseScore``: one exercise of one student: status (``passed``, ``failed``, ``error``,
  ``missing``, ``unreadable``, ``not graded``), score and maximum as graded, and the tests.
- ``GradeRow``: the student (from the roster where matched), every exercise of the assignment in
  its order, the weighted percentage before any penalty (``None``: nothing handed in), the days
  late and the percentage points they cost, the final percentage, and the problems.

The weighted percentage is ``sum(weight * score / max) / sum(weight) * 100``: a missing,
unreadable or ungraded exercise counts 0, and so does one whose maximum is 0 (nothing could
run). The late penalty subtracts percentage points (``assignment.late_penalty``), never below
0, and is applied only to times the platform gave (Gradescope's submission time, or the time
the batch passes); file modification times are not evidence of lateness, and a Canvas ``LATE``
mark without a time is reported, not penalised.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from grader.engine.scoring import grader_faulted
from grader.i18n import hundredths, number
from grader.lms.assignment import Assignment, RosterEntry, late_penalty, match_roster
from grader.lms.handin import Handin, Said, clean_name, in_lang, name_forms

NO_FILE = "missing"
UNREADABLE = "unreadable"
NOT_GRADED = "not graded"
UNREADABLE_SAID = "The file could not be read: "  # before why, in an unreadable score's message
UNREADABLE_SAID_ZH = "文件无法读取："
# problems addressed to the instructor only (a student's feedback page leaves them out)
NOT_ON_ROSTER = "not on the roster: check who this is"
NO_WORK = "on the roster; nothing handed in"
STALE_PARTICIPANT = (
    "participant id {mine} in the download, {theirs} on the roster (line {line}): the roster's "
    "participant ids are not this assignment's; the download's is used"
)
STALE_LEFT_OUT = (
    "the roster's participant ids are not this assignment's: this student is left out of "
    "moodle-worksheet.csv"
)
UNCHECKED_LEFT_OUT = (
    "no student of the download has the roster's participant id, so it cannot be checked "
    "against this assignment's: this student is left out of moodle-worksheet.csv"
)
NO_MATCH = "on the roster; no handin is known to be theirs"
LATE_WITHOUT_TIME = "the platform marks this late but gives no time; no late penalty applied"
FOR_INSTRUCTOR = (NOT_ON_ROSTER, NO_WORK, LATE_WITHOUT_TIME)


@dataclass(frozen=True)
class TestScore:
    __test__ = False  # not a pytest test class

    name: str  # e.g. "test_shape[cpu]"
    score: float
    max_score: float
    passed: bool
    output: str = ""  # what the learner is told


@dataclass(frozen=True)
class Lateness:
    """What the download says of one student's lateness beyond the grade's own penalty."""

    learner: str = ""  # one sentence on the student's feedback page and results
    label: str = ""  # the sentence's key in the report's labels (grader.i18n), for its language
    instructor: tuple[str, ...] = ()  # lines in the gradebook's problems and the summary
    values: tuple[tuple[str, str], ...] = ()  # what the sentence's placeholders hold ({max})


NO_LATENESS = Lateness()


@dataclass(frozen=True)
class ExerciseScore:
    exercise: str
    status: str  # passed, failed, error, missing, unreadable, not graded
    score: float = 0.0
    max_score: float = 0.0
    tests: tuple[TestScore, ...] = ()
    message: str = ""  # why there is no grade (missing, unreadable), or a note on the grading
    grader_fault: bool = False  # the grader itself failed: the score cannot be trusted
    review: tuple[str, ...] = ()  # reach-ins an instructor must look at ("line 3: ...")

    @property
    def fraction(self) -> float:
        return self.score / self.max_score if self.max_score > 0 else 0.0

    @property
    def handed_in(self) -> bool:
        return self.status not in (NO_FILE,)

    @property
    def graded(self) -> bool:
        """A result stands behind this score (not missing, unreadable or not graded)."""
        return self.status not in (NO_FILE, UNREADABLE, NOT_GRADED)

    @classmethod
    def missing(cls, exercise: str) -> ExerciseScore:
        return cls(exercise, NO_FILE, message="No file was handed in for this exercise.")

    @classmethod
    def unreadable(cls, exercise: str, why: str) -> ExerciseScore:
        message = f"{UNREADABLE_SAID}{why}"
        if isinstance(why, Said):  # the learner's page says it in their language
            message = Said(message, f"{UNREADABLE_SAID_ZH}{why.zh}")
        return cls(exercise, UNREADABLE, message=message)

    @classmethod
    def from_result(cls, result: Any) -> ExerciseScore:
        """From a ``grader.results.Result`` (skipped tests count for neither score nor max)."""
        tests = []
        for test in result.tests:
            if test.status.value == "skipped":
                continue
            output = test.message
            if test.diagnosis is not None:
                output += f"\n\n{test.diagnosis.title}: {test.diagnosis.fix}"
            tests.append(
                TestScore(
                    name=test.key,
                    score=float(test.points),
                    max_score=float(test.max_points),
                    passed=test.status.value == "passed",
                    output=output.strip(),
                )
            )
        return cls(
            exercise=result.exercise_id,
            status=result.status.value,
            score=float(result.score),
            max_score=float(result.max_score),
            tests=tuple(tests),
            message="\n".join(result.notes),
            grader_fault=grader_faulted(result),
            review=tuple(f"{_line(result, note.line)}: {note.message}" for note in result.review),
        )


def _line(result: Any, line: int) -> str:
    """A line of the graded code as the student finds it: in a notebook, its cell's line."""
    cells = result.cells
    return (cells.describe(line) if cells is not None else None) or f"line {line}"


@dataclass(frozen=True)
class Student:
    """Who a row is about: the roster's facts where matched, else the download's."""

    key: str
    name: str = ""
    email: str = ""
    sid: str = ""
    lms_id: str = ""  # the platform's user id (Canvas "ID")
    section: str = ""
    login: str = ""  # Canvas "SIS Login ID"
    participant: str = ""  # Moodle's participant id (what its grading worksheet is keyed by)

    @property
    def ids(self) -> tuple[str, ...]:
        """Every id the student is known by, as ``extensions`` may name them."""
        return (self.key, self.lms_id, self.sid, self.email, self.login, self.participant)

    @classmethod
    def from_roster(cls, entry: RosterEntry, handin: Handin | None = None) -> Student:
        return cls(
            key=handin.key if handin else entry.id,
            name=entry.name or (handin.name if handin else ""),
            email=entry.email or (handin.email if handin else ""),
            sid=entry.sid or (handin.sid if handin else ""),
            lms_id=entry.id if entry.platform_id else "",
            section=entry.section,
            login=entry.login,
            participant=(handin.participant if handin else "") or entry.participant,
        )

    @classmethod
    def from_handin(cls, handin: Handin) -> Student:
        return cls(
            handin.key,
            handin.name,
            handin.email,
            handin.sid,
            handin.lms_id,
            participant=handin.participant,
        )


@dataclass(frozen=True)
class GradeRow:
    student: Student
    scores: tuple[ExerciseScore, ...]  # the assignment's exercises, in its order
    weighted_percent: float | None  # before any penalty; None: nothing handed in
    days_late: int = 0
    late_percent: float = 0.0  # percentage points lost to lateness
    final_percent: float | None = None
    submitted_at: datetime | None = None
    problems: tuple[str, ...] = ()
    execution_time: float = 0.0  # seconds the grading took (Gradescope shows it)
    roster: str = ""  # "matched", "absent" (no work) or "unmatched" (not on it); "" no roster
    lateness: str = ""  # for the student: what the platform does about lateness, if not here
    lateness_label: str = ""  # that sentence's key in the report's labels (its translations)
    lateness_values: tuple[tuple[str, str], ...] = ()  # that sentence's placeholders
    withheld: str = ""  # why no grade may be uploaded for this row ("" when one may)

    @property
    def review(self) -> list[str]:
        """What an instructor must look at before trusting this row, per exercise."""
        return [f"{s.exercise} {note}" for s in self.scores for note in s.review]

    def score(self, exercise: str) -> ExerciseScore | None:
        return next((s for s in self.scores if s.exercise == exercise), None)

    @property
    def pending(self) -> bool:
        """Some handed-in file has no result yet: the percentages are not this row's grade."""
        return any(s.status == NOT_GRADED for s in self.scores)


def weighted_percent(scores: list[ExerciseScore], assignment: Assignment) -> float | None:
    """The weighted percentage of the assignment's exercises, or None when none was handed in."""
    if not any(s.handed_in for s in scores):
        return None
    weights = assignment.weights
    total = sum(weights.values())
    got = sum(weights.get(s.exercise, 0.0) * s.fraction for s in scores)
    return 100.0 * got / total if total else 0.0


def build_row(
    student: Student,
    scores: dict[str, ExerciseScore],
    assignment: Assignment,
    *,
    submitted_at: datetime | None = None,
    late_flag: bool | None = None,
    problems: tuple[str, ...] | list[str] = (),
    execution_time: float = 0.0,
    roster: str = "",
    lateness: Lateness = NO_LATENESS,
    withheld: str = "",
) -> GradeRow:
    """One student's row: every exercise of the assignment (absent ones missing), the weighted
    percentage, the late penalty for the platform's ``submitted_at``, the final percentage."""
    assignment = assignment.for_student(student.ids)  # their own due date, if extended
    ordered = [scores.get(e) or ExerciseScore.missing(e) for e in assignment.ids]
    weighted = weighted_percent(ordered, assignment)
    days, lost = late_penalty(submitted_at, assignment) if weighted is not None else (0, 0.0)
    notes = [*problems, *lateness.instructor]
    if late_flag and submitted_at is None and assignment.late is not None and not lateness.learner:
        notes.append(LATE_WITHOUT_TIME)
    for score in ordered:
        if score.grader_fault:
            notes.append(
                Said(
                    f"{score.exercise}: the grader itself failed; the score cannot be trusted",
                    f"{score.exercise}：评分器本身出错；这个分数不可信",
                )
            )
        if score.max_score <= 0 and score.graded:
            notes.append(
                Said(
                    f"{score.exercise}: nothing could be graded; counted as 0",
                    f"{score.exercise}：没有任何内容可以评分；记为 0 分",
                )
            )
    final = None if weighted is None else max(0.0, weighted - lost)
    return GradeRow(
        student=student,
        scores=tuple(ordered),
        weighted_percent=weighted,
        days_late=days,
        late_percent=lost,
        final_percent=final,
        submitted_at=submitted_at,
        problems=tuple(notes),
        execution_time=execution_time,
        roster=roster,
        lateness=lateness.learner,
        lateness_label=lateness.label,
        lateness_values=lateness.values,
        withheld=withheld,
    )


def held_line(en: str, zh: str) -> Said:
    """A line saying a student's grade is withheld until the instructor looks: ``en`` the
    instructor's (as the gradebook has always said it), ``zh`` what the learner is told of
    why, in Chinese."""
    return Said(en, f"{zh}：老师查看之前不写入成绩")


def _not_on_roster(handin: Handin, vouched: bool = False) -> str:
    if handin.participant and not _identified(handin):  # Moodle's blind marking
        if vouched:  # the roster's participant ids are this assignment's: not one of them
            return (
                f"not on the roster: participant {handin.participant} is on no roster line "
                "(enrolled after the roster was made?): check who this is"
            )
        if handin.shared_name == 1 and handin.name.strip().casefold() != "participant":
            # a lone name of one word: Moodle writes it for blind marking in another language
            # than English, for a student whose full name is one word (a site that shows
            # first names only), and for a team of a team download (4.1 and later); which
            # one, nothing in the download says, so none is named as the answer
            return (
                f"not on the roster by name: {handin.name!r} is one word, which Moodle writes "
                "for blind marking in another language, for a student the roster lacks whose "
                "name is one word, or for a team (whose number is then its group's id): "
                f"moodle-worksheet.csv gives the grade to Participant {handin.participant}, "
                "Moodle's identifier of the participant it downloaded under this number "
                "(a team's is no participant's): check who this is (a roster with a "
                "participant column names them)"
            )
        return (
            "not on the roster by name: blind marking names no one (a roster with a "
            "participant column names them)"
        )
    return NOT_ON_ROSTER


def _identified(handin: Handin) -> bool:
    """The download says who handed this in (a user id, SID, e-mail or name): unmatched, it
    is someone the roster does not hold, and the instructor is told so. A handin with none of
    these (Moodle's blind marking; a Gradescope folder without metadata) could be anyone's;
    so could one whose only identity is a name the download gives several participants
    (``shared_name``: blind marking in another language, "Teilnehmerin")."""
    named = bool(handin.name.strip()) and not handin.shared_name
    return bool(handin.lms_id or handin.sid or handin.email or named)


def _no_lateness(handin: Handin, assignment: Assignment) -> Lateness:
    return NO_LATENESS


def build_rows(
    handins: list[Handin],
    scores: dict[str, dict[str, ExerciseScore]],
    assignment: Assignment,
    roster: tuple[RosterEntry, ...] | None = None,
    *,
    execution_times: dict[str, float] | None = None,
    lateness: Callable[[Handin, Assignment], Lateness] | None = None,
    unplaced: Sequence[str] = (),
) -> list[GradeRow]:
    """The class's rows: one per roster entry (students without work get a row of missing
    exercises) and one per handin from someone not on the roster (with a problem saying so).
    ``scores`` maps each handin's key to its exercises' scores; exercises a handin has no
    score for are ``unreadable`` (with intake's reason), ``not graded`` (a file without a
    result) or ``missing``. Sorted by name, then key.

    ``lateness`` is the platform's word on each handin's lateness (``Platform.lateness``).
    No row is given a grade it may not have: a roster student whose match is ambiguous, and,
    while some handed-in work is not attributed to anyone on the roster (not on it, or
    ambiguous), every roster student without matched work, are ``withheld``: their upload cell
    stays empty, never 0, since the work may be theirs. So are they while the download holds
    ``unplaced`` entries (intake's messages about entries it set aside that may hold work: a
    folder a platform did not name, entries it refused).
    """
    times = execution_times or {}
    said = lateness or _no_lateness

    def row(
        student: Student,
        handin: Handin | None,
        extra: list[str],
        status: str,
        withheld: str = "",
    ) -> GradeRow:
        found = dict(scores.get(handin.key, {})) if handin else {}
        ids = [*student.ids]
        if handin is not None:
            ids += [handin.key, handin.lms_id, handin.sid, handin.email, handin.participant]
        own = assignment.for_student(ids)  # their own due date, where extended
        if handin is not None:
            for exercise, why in handin.unreadable.items():
                found.setdefault(exercise, ExerciseScore.unreadable(exercise, why))
            doubted = [s for e, s in sorted(handin.files.items()) if s.doubt and e in own.ids]
            if doubted and not withheld:  # a later file may be the student's final version
                withheld = held_line(
                    f"{doubted[0].doubt[:300]}: no grade written until you look",
                    f"{doubted[0].exercise}：你提交的另一个文件可能是最终版本",
                )
                extra = [*extra, withheld]
            if handin.doubt and not withheld:  # the late rule cannot be decided
                withheld = held_line(
                    f"{handin.doubt[:400]}: no grade written until you look",
                    "无法确定提交时间是否符合迟交规则",
                )
                extra = [*extra, withheld]
            unread = sorted(e for e in handin.unread_work if e in assignment.ids)
            if unread and not withheld:  # work the grader's limits kept it from reading
                why = handin.unreadable[unread[0]]
                withheld = Said(
                    f"{', '.join(unread)}: the work may be inside what intake could not read "
                    f"({why[:200]}); no grade written until you look",
                    f"{', '.join(unread)}：作业可能在评分器没能读取的内容中"
                    f"（{in_lang(why, 'zh')[:200]}）；老师查看之前不写入成绩",
                )
                extra = [*extra, withheld]
            for exercise in handin.files:
                found.setdefault(
                    exercise,
                    ExerciseScore(exercise, NOT_GRADED, message="This file has not been graded."),
                )
        return build_row(
            student,
            found,
            own,
            submitted_at=handin.submitted_at if handin else None,
            late_flag=handin.late if handin else None,
            problems=[*extra, *(handin.problems if handin else [])],
            execution_time=times.get(handin.key, 0.0) if handin else 0.0,
            roster=status,
            lateness=said(handin, own) if handin else NO_LATENESS,
            withheld=withheld,
        )

    if roster is None:
        rows = [row(Student.from_handin(h), h, [], "") for h in handins]
    else:
        matched = match_roster(handins, roster)
        why = matched.ambiguous
        # Moodle's participant ids are per assignment: a roster whose ids disagree with the
        # download's (another assignment's) would send a roster-only student's worksheet row
        # to whoever holds that id here
        stale = [
            (h, e)
            for h, e, _ in matched.pairs
            if h.participant and e.participant and h.participant != e.participant
        ]
        # ... and only a Moodle download can vouch for them: a roster's ids that none of the
        # download's confirms (another platform's download, or a Moodle one with other ids)
        # would reach the worksheet unchecked
        vouched = not stale and any(
            h.participant and h.participant == e.participant for h, e, _ in matched.pairs
        )
        moodle_ids = any(h.participant for h in handins)

        def student(entry: RosterEntry, handin: Handin | None = None) -> Student:
            found = Student.from_roster(entry, handin)
            if vouched or not found.participant or (handin and handin.participant):
                return found
            return replace(found, participant="")

        rows = []
        for h, e, _ in matched.pairs:
            extra = (
                [STALE_PARTICIPANT.format(mine=h.participant, theirs=e.participant, line=e.line)]
                if (h, e) in stale
                else []
            )
            # a participant id is the download's number beside a name: where the name is
            # another than the roster's, the number may be another's (a team's group id in
            # Moodle's team download, another assignment's ids)
            other = h.key_kind == "participant" and _named_otherwise(h, e)
            held = (
                f"the download names participant {h.participant} {h.name!r}, the roster "
                f"(line {e.line}) {e.name!r}: the number may be another's (a team's group id, "
                "another assignment's participant ids"
                + (", or blind marking's word in another language" if h.shared_name else "")
                + "); no grade written until you look"
                if other
                else ""
            )
            rows.append(row(student(e, h), h, [*extra, held] if held else extra, "matched", held))
        anonymous = [h for h in matched.unmatched if id(h) not in why and not _identified(h)]

        grouped = [(h, e) for h, e, _ in matched.pairs if _named_otherwise(h, e)]
        # Moodle (4.1 and later) downloads a team assignment one entry per team, named and
        # numbered by its group: where no participant the download names is a roster student
        # by that name, its names off the roster that hand in work may be teams', their
        # numbers groups' ids
        # a name of one word (``shared_name`` 1: "Red") is no one's off the roster; beside
        # other participants it is no blind marking's word either (that word is every
        # participant's), and its number is as much a group's id as a named team's. A lone
        # one may be blind marking's word in another language: its number is the participant's
        several = sum(1 for h in handins if h.key_kind == "participant") > 1
        teams = [
            h
            for h in matched.unmatched
            if id(h) not in why
            and h.key_kind == "participant"
            and (_identified(h) or (several and h.shared_name == 1 and bool(h.name.strip())))
            and (h.files or h.unreadable)
        ]
        if any(h.key_kind == "participant" and _named_as(h, e) for h, e, _ in matched.pairs):
            teams = []
        team_held = (
            f"the download names no roster student as the roster does, and {len(teams)} "
            f"participant(s) by names off the roster ({teams[0].name!r}, participant "
            f"{teams[0].participant}): a Moodle team download (4.1 and later) names each team "
            "by its group, numbered by the group's id; no grade written until you look"
            if teams
            else ""
        )

        def unattributed(entry: RosterEntry) -> str:
            """Why work matched to no one may be this absent student's ("" when none may)."""
            if team_held:
                return f"{team_held}: this student may be in a team that handed in"
            if grouped:
                handin, other = grouped[0]
                whose = (
                    f"participant {handin.participant}: the number may be a group's id, as a "
                    "Moodle team download numbers each team, or another assignment's"
                    if handin.key_kind == "participant"
                    else f"user id {handin.lms_id}: a group assignment's download holds one "
                    "member's files per group under the group's name"
                )
                return (
                    f"the download names {len(grouped)} student(s) by another name than the "
                    f"roster's ({handin.name!r} for {other.name}, {whose}); this student may "
                    "be in a group that handed in: no grade written until you look"
                )
            # a roster whose participant ids the download vouches for tells each participant
            # off it from this student: their own id is another
            theirs = [
                h
                for h in anonymous
                if not (vouched and entry.participant and h.participant)
                or h.participant == entry.participant
            ]
            if theirs:
                return (
                    f"{len(theirs)} handin(s) whose owner the download does not name (blind "
                    "marking, a team's submission, or no metadata) match no one on the roster and may be this "
                    "student's: no grade written until they are matched"
                )
            if unplaced:
                return (
                    f"{len(unplaced)} entr{'y' if len(unplaced) == 1 else 'ies'} of the "
                    f"download that may hold work belong to no one ({unplaced[0][:200]}) and "
                    "may be this student's: no grade written until you look"
                )
            return ""

        for entry in matched.absent:
            if id(entry) in why:
                rows.append(row(student(entry), None, [why[id(entry)]], "ambiguous",
                                withheld=why[id(entry)]))  # fmt: skip
            else:
                maybe = unattributed(entry)
                extra = [NO_MATCH, maybe] if maybe else [NO_WORK]
                if entry.participant and moodle_ids and not vouched:
                    extra.append(STALE_LEFT_OUT if stale else UNCHECKED_LEFT_OUT)
                rows.append(row(student(entry), None, extra, "absent", withheld=maybe))
        for handin in matched.unmatched:
            extra = [why[id(handin)] if id(handin) in why else _not_on_roster(handin, vouched)]
            # its number may be a group's id, given in the worksheet to another student
            held = team_held if any(handin is t for t in teams) else ""
            rows.append(
                row(Student.from_handin(handin), handin, [*extra, held] if held else extra,
                    "unmatched", held)
            )  # fmt: skip
    return sorted(rows, key=lambda r: (r.student.name.casefold(), r.student.key))


def _named_otherwise(handin: Handin, entry: RosterEntry) -> bool:
    """Whether a download that names its students (Canvas's files, Moodle's entries) gave
    this handin, matched by the platform's id, a name (or, in an older Moodle's team
    download, any name it may hold) that fits no form of its roster student's: Canvas names
    a group assignment's files by the group ("teamred_4711_..."), one member's files per
    group, so its other members have no work in the download but handed it in; Moodle's
    team download numbers a team by its group id, whatever the group's name: a name of one
    word (``shared_name`` 1) may be blind marking's word in another language, or a team's,
    so it is checked too. Only a name the download gives several participants is not: blind
    marking's (a team download never names two groups alike: Moodle's group names are unique
    in a course)."""
    if handin.key_kind not in ("lms_id", "participant") or handin.shared_name > 1:
        return False
    names = [clean_name(n) for n in (handin.name, *handin.aliases) if clean_name(n)]
    if not names or not entry.name.strip():
        return False
    forms = name_forms(entry.name)
    return not any(n in forms for n in names)


def _named_as(handin: Handin, entry: RosterEntry) -> bool:
    """Whether the download's name for this handin (or a name it may hold) is one of its
    roster student's names: the download names students, not teams."""
    names = [clean_name(n) for n in (handin.name, *handin.aliases) if clean_name(n)]
    forms = name_forms(entry.name)
    return any(n in forms for n in names)


def points(percent: float | None, maximum: float) -> float | None:
    """A percentage as points of ``maximum``, rounded to hundredths (what LMS imports keep),
    half up as people round (``hundredths``: 90.625 is 90.63, not 90.62)."""
    return None if percent is None else hundredths(percent * maximum / 100.0)


def identified(rows: list[GradeRow]) -> list[GradeRow]:
    """The rows an identity-keyed upload (canvas.csv, moodle.csv) may name: not work from
    someone the roster does not know (or knows only ambiguously), whose grade would go to
    whoever the platform matched by name."""
    return [r for r in rows if r.roster != "unmatched"]


def grade_cell(row: GradeRow, maximum: float, missing: str) -> str:
    """A row's final grade as an LMS import cell: points of ``maximum``; for a student without
    work "0" (``missing: zero``) or "" (``missing: blank``: the platform keeps what it has);
    for a ``withheld`` row always "": a grade that cannot be vouched for is not written."""
    if row.withheld:
        return ""
    value = points(row.final_percent, maximum)
    if value is None:
        return "0" if missing == "zero" else ""
    return number(value)
