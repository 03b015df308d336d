"""The late rule for a Moodle download from the grading worksheet's "Last modified
(submission)" times, read in ``moodle.timezone``: every instant a time to the minute may
stand for (and, at a DST change, either offset) gets the verdict the true time gets, or the
grade is withheld; never a penalty the time does not support."""

from __future__ import annotations

import io
import tempfile
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms import moodle, moodletimes
from grader.lms.assignment import Assignment, late_penalty, load_assignment, read_roster
from grader.lms.batch import BatchOptions, run_batch
from grader.lms.grades import ExerciseScore, build_rows
from grader.lms.handin import Handin, Submitted
from grader.lms.intake import read_submissions
from tests.conftest import PROBE_HOME
from tests.lms.builders import code, exercises, write
from tests.lms.test_run_batch import PASS_MARK, FakeEngine

ZONES = [
    "Europe/Berlin",
    "America/New_York",
    "Australia/Lord_Howe",  # a DST change of 30 minutes
    "America/Sao_Paulo",
    "Asia/Kolkata",
    "UTC",
]
MONTHS = "January February March April May June July August September October November December"
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

ASSIGNMENT = """\
format_version: 1
name: week-1
exercises: {exercise-01: 1}
roster: worksheet.csv
due: 2026-12-01T11:15:00+00:00
late: {per_day_percent: 10, max_days: 3}
moodle: {item: Week 1, points: 100%s}
"""
HEADER = (
    "Identifier,Full name,Email address,Status,Grade,Maximum Grade,Grade can be changed,"
    "Last modified (submission),Last modified (grade),Feedback comments\n"
)


def assignment(tmp: Path, zone: str = "Europe/Berlin") -> Assignment:
    extra = f", timezone: {zone}" if zone else ""
    if not (tmp / "worksheet.csv").exists():
        roster(tmp, "-")
    return load_assignment(write(tmp / "assignment.yaml", ASSIGNMENT % extra))


def moodle_text(local: datetime, hours24: bool = False, padded: bool = False) -> str:
    """A local time as Moodle's English ``strftimedatetime`` writes it (its leading zeros
    dropped, unless ``padded``), or the 24-hour form."""
    day = f"{local.day:02d}" if padded else str(local.day)
    if hours24:
        clock = f"{local.hour:02d}:{local.minute:02d}"
    else:
        hour = local.hour % 12 or 12
        clock = f"{hour:02d}" if padded else str(hour)
        clock += f":{local.minute:02d} {'AM' if local.hour < 12 else 'PM'}"
    month = MONTHS.split()[local.month - 1]
    return f"{WEEKDAYS[local.weekday()]}, {day} {month} {local.year}, {clock}"


def written(instant: datetime, zone: str, hours24: bool = False) -> str:
    """What Moodle writes for a submission at ``instant``, in ``zone``: to the minute."""
    local = instant.astimezone(ZoneInfo(zone)).replace(tzinfo=None, second=0, microsecond=0)
    return moodle_text(local, hours24)


def handin(tmp: Path) -> Handin:
    path = write(tmp / "exercise-01.py", "x = 1\n")
    return Handin(
        key="101",
        key_kind="participant",
        name="Alice Smith",
        participant="101",
        files={"exercise-01": Submitted("exercise-01", path, "exercise-01.py")},
    )


def roster(tmp: Path, cell: str):
    quoted = cell.replace('"', '""')
    text = (
        HEADER + "Participant 101,Alice Smith,alice@example.edu,Submitted for grading,,"
        f'100.00,Yes,"{quoted}",-,\n'
    )
    return read_roster(write(tmp / "worksheet.csv", text))


@settings(max_examples=300, deadline=None)
@given(
    local=st.datetimes(datetime(1971, 1, 1), datetime(2100, 12, 31)).map(
        lambda d: d.replace(second=0, microsecond=0)
    ),
    hours24=st.booleans(),
    padded=st.booleans(),
)
def test_every_time_moodle_writes_in_english_is_read_back(local, hours24, padded):
    assert moodletimes.local_time(moodle_text(local, hours24, padded)) == local


@pytest.mark.parametrize(
    "text",
    [
        "Martedì, 1 dicembre 2026, 13:00",  # Italian: not read
        "terça-feira, 1 dezembro 2026, 13:00",  # Portuguese: not read
        "2026年12月1日(火) 13:00",  # Japanese: not read
        "Tuesday, 1 Dezember 2026, 1:00 PM",  # a month in another language
        "Dienstag, 1. December 2026, 13:00",  # German with an English month
        "martes, 1 de décembre de 2026, 13:00",  # Spanish with a French month
        "mardi, 1 décembre 2026, 13:00",  # French with German punctuation
        "Dienstag, 1. Dezember 2026, 1:00 PM",  # German has no AM/PM
        "2026年13月1日 星期二 13:00",
        "Tuesday, 1 December 2026, 13:00 PM",
        "Tuesday, 1 December 2026, 0:30 AM",
        "Tuesday, 31 November 2026, 1:00 PM",
        "Tuesday, 1 December 2026, 24:00",
        "2026-12-01 13:00",
        "",
    ],
)
def test_a_time_not_as_moodle_writes_it_is_no_time(text):
    assert moodletimes.local_time(text) is None


def test_a_weekday_that_is_not_the_dates_is_refused():
    with pytest.raises(ValueError, match="Monday is not the weekday"):
        moodletimes.local_time("Monday, 1 December 2026, 1:00 PM")


@settings(max_examples=400, deadline=None)
@given(
    zone=st.sampled_from(ZONES),
    instant=st.datetimes(
        datetime(2000, 1, 1), datetime(2040, 1, 1), timezones=st.just(timezone.utc)
    ),
)
def test_the_instants_a_written_time_stands_for_hold_the_true_one(zone, instant):
    """Around every DST change: the true instant is never outside what the text may mean."""
    local = moodletimes.local_time(written(instant, zone))
    assert local is not None
    first, last, why = moodletimes.instants(local, ZoneInfo(zone))
    assert first <= instant.replace(microsecond=0) <= last
    assert why != "skipped"  # Moodle never writes a time the zone skips


def dst_edges(zone: str) -> list[datetime]:
    """The instants (UTC) ``zone`` changes its offset at, 2025 to 2028."""
    tz = ZoneInfo(zone)
    edges = []
    t = datetime(2025, 1, 1, tzinfo=timezone.utc)
    while t.year < 2028:
        nxt = t + timedelta(minutes=30)
        if t.astimezone(tz).utcoffset() != nxt.astimezone(tz).utcoffset():
            edges.append(nxt)
        t = nxt
    return edges


EDGES = [(z, e) for z in ZONES for e in dst_edges(z)]


@settings(max_examples=400, deadline=None)
@given(
    data=st.data(),
    near_edge=st.booleans(),
    hours24=st.booleans(),
    grace=st.sampled_from([0, 10]),
)
def test_the_late_rule_from_a_worksheet_time_is_the_true_times_or_withheld(
    data, near_edge, hours24, grace
):
    """A submission at a generated instant, around the due date and DST edges, written as
    Moodle writes it: the grade's late verdict is the true time's, or the grade is withheld
    because the text cannot decide it (to the minute, or a repeated hour)."""
    if near_edge and EDGES:
        zone, edge = data.draw(st.sampled_from(EDGES))
        due = edge + timedelta(seconds=data.draw(st.integers(-5400, 5400)))
    else:
        zone = data.draw(st.sampled_from(ZONES))
        due = datetime(2026, 12, 1, 11, 15, tzinfo=timezone.utc)
    due = due.replace(second=data.draw(st.sampled_from([0, 0, 30])))
    instant = due + timedelta(seconds=data.draw(st.integers(-3 * 86400, 5 * 86400)))
    if data.draw(st.booleans()):
        instant = due + timedelta(seconds=data.draw(st.integers(-120, 120)))
    work = dict(WORK)
    base = replace(BASE, due=due, grace_minutes=grace)
    own = replace(base, moodle=replace(base.moodle_settings(), timezone=zone))
    entries = (replace(ENTRY, submitted=written(instant, zone, hours24)),)
    student = Handin(key="101", key_kind="participant", participant="101", files=work)
    outcome = moodletimes.apply([student], entries, own)
    assert outcome.applied
    if student.doubt:
        assert outcome.withheld == 1
        assert student.submitted_at is None
        # withheld only where the text's instants part in their verdict
        local = moodletimes.local_time(entries[0].submitted or "")
        assert local is not None
        first, last, _ = moodletimes.instants(local, ZoneInfo(zone))
        assert late_penalty(first, own) != late_penalty(last, own)
    else:
        assert student.submitted_at is not None
        assert late_penalty(student.submitted_at, own) == late_penalty(instant, own)


_TMP = Path(tempfile.mkdtemp())
BASE = assignment(_TMP)
WORK = handin(_TMP).files
ENTRY = roster(_TMP, "Tuesday, 1 December 2026, 1:00 PM")[0]


def test_the_worksheets_submission_column_is_read_with_the_roster(tmp_path):
    assert ENTRY.submitted == "Tuesday, 1 December 2026, 1:00 PM"
    plain = read_roster(write(tmp_path / "r.csv", "id,name,email\n1,A B,a@x.edu\n"))
    assert plain[0].submitted is None


def test_a_late_worksheet_time_costs_the_rules_points(tmp_path):
    """13:00 in Berlin is 12:00 UTC, 45 minutes after the due date: one day late."""
    student = handin(tmp_path)
    own = assignment(tmp_path)
    outcome = moodletimes.apply([student], roster(tmp_path, ENTRY.submitted or ""), own)
    assert outcome == moodletimes.Outcome(True)
    assert student.submitted_at == datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    scores = {"101": {"exercise-01": ExerciseScore("exercise-01", "passed", 1.0, 1.0)}}
    rows = build_rows([student], scores, own, roster(tmp_path, ENTRY.submitted or ""))
    assert (rows[0].days_late, rows[0].late_percent, rows[0].final_percent) == (1, 10.0, 90.0)
    assert not rows[0].withheld
    assert moodle.lateness(student, own) == moodle.Lateness()  # no file-date lines


@pytest.mark.parametrize(
    ("cell", "why"),
    [
        ("Dienstag, 1. Dezember 2026, 13:00 Uhr", "not a time as Moodle writes it"),
        ("Montag, 1. Dezember 2026, 13:00", "Montag is not the weekday"),
        ("Monday, 1 December 2026, 1:00 PM", "Monday is not the weekday"),
        ("-", "says no submission, but the download holds work"),
        ("", "not a time as Moodle writes it"),
        # 12:15 UTC is the due date: the minute holds on-time and late seconds
        ("Tuesday, 1 December 2026, 12:15 PM", "is to the minute"),
    ],
)
def test_a_worksheet_time_that_cannot_decide_the_rule_withholds_the_grade(tmp_path, cell, why):
    student = handin(tmp_path)
    own = assignment(tmp_path)
    entries = roster(tmp_path, cell)
    outcome = moodletimes.apply([student], entries, own)
    assert outcome == moodletimes.Outcome(True, withheld=1)
    assert why in student.doubt and student.submitted_at is None
    scores = {"101": {"exercise-01": ExerciseScore("exercise-01", "passed", 1.0, 1.0)}}
    rows = build_rows([student], scores, own, entries)
    assert rows[0].withheld.startswith("the grading worksheet's")
    assert "no grade written until you look" in rows[0].withheld


def test_a_repeated_hour_that_parts_the_verdict_withholds_the_grade(tmp_path):
    """Berlin repeats 02:00-03:00 on 2026-10-25; due at 01:00 UTC (02:00 the second time):
    "2:40 AM" is on time read with the first offset, late with the second."""
    student = handin(tmp_path)
    own = replace(assignment(tmp_path), due=datetime(2026, 10, 25, 1, 0, tzinfo=timezone.utc))
    entries = roster(tmp_path, "Sunday, 25 October 2026, 2:40 AM")
    moodletimes.apply([student], entries, own)
    assert "repeats at a DST change" in student.doubt


def test_without_a_time_zone_the_worksheet_times_are_not_read_and_the_run_says_how(tmp_path):
    student = handin(tmp_path)
    own = assignment(tmp_path, zone="")
    assert moodletimes.apply([student], roster(tmp_path, "-"), own) == moodletimes.Outcome(False)
    assert not student.doubt and student.submitted_at is None
    rows = build_rows([student], {}, own, roster(tmp_path, "-"))
    (line,) = moodle.advice(rows, own, True)[-1:]
    assert "the late rule was not applied" in line
    assert "moodle.timezone" in line


def test_a_time_zone_with_a_roster_that_is_no_worksheet_says_so(tmp_path):
    student = handin(tmp_path)
    own = assignment(tmp_path)
    plain = read_roster(write(tmp_path / "r.csv", "id,name,email\n101,Alice Smith,a@x.edu\n"))
    outcome = moodletimes.apply([student], plain, own)
    assert not outcome.applied and "not Moodle's grading worksheet" in outcome.reason
    (line,) = moodletimes.summary(build_rows([student], {}, own, plain), outcome, own)
    assert "the late rule was not applied" in line and "not Moodle's grading worksheet" in line


@pytest.mark.parametrize("zone", ["Europe/Berlln", "'../etc/passwd'", "' UTC'", "3", "''"])
def test_an_unknown_time_zone_is_refused(tmp_path, zone):
    with pytest.raises(SpecError, match=r"moodle\.timezone"):
        assignment(tmp_path, zone)


def test_a_known_time_zone_is_kept(tmp_path):
    assert assignment(tmp_path, "America/New_York").moodle_settings().timezone == (
        "America/New_York"
    )


@pytest.fixture
def course(monkeypatch):
    monkeypatch.delenv("GRADER_COURSE", raising=False)
    monkeypatch.setenv("GRADER_HOME", str(PROBE_HOME))


@pytest.mark.slow  # a whole batch run (about 3 s)
@pytest.mark.parametrize(
    ("cell", "final", "withheld"),
    [
        ("Tuesday, 1 December 2026, 1:00 PM", 90.0, False),  # 12:00 UTC: a day late
        ("Tuesday, 1 December 2026, 12:00", 100.0, False),  # 11:00 UTC: on time
        ("Dienstag, 1. Dezember 2026, 13:00", 90.0, False),  # German: 12:00 UTC
        ("Dienstag, 1. Dezember 2026, 13:00 Uhr", None, True),
    ],
)
def test_a_moodle_batch_takes_the_late_rule_from_the_worksheet(
    course, tmp_path, cell, final, withheld
):
    """The whole run: the Moodle download, the worksheet as the roster, moodle.timezone."""
    entries = roster(tmp_path, cell)
    assert entries[0].submitted == cell
    spec = write(
        tmp_path / "w.yaml",
        (ASSIGNMENT % ", timezone: Europe/Berlin").replace("exercise-01", "exercise-90"),
    )
    folder = tmp_path / "dl" / "Alice Smith_101_assignsubmission_file_"
    folder.mkdir(parents=True)
    (folder / "exercise-90.py").write_bytes(b"def f():\n    return 1\n" + PASS_MARK + b"\n")
    out = tmp_path / "out"
    summary = run_batch(
        BatchOptions(submissions=tmp_path / "dl", out=out, assignment=spec),
        io.StringIO(),
        FakeEngine,
    )
    (row,) = summary.rows
    assert bool(row.withheld) == withheld, row.problems
    if not withheld:
        assert row.final_percent == final
        # the file (dated today) is named, never used: the worksheet's time rules
        assert not any("no late penalty applied" in p for p in row.problems)
        (dated,) = [p for p in row.problems if "after the grading worksheet's" in p]
        assert "which the late rule used: if the worksheet is older than the download" in dated
    said = [line for line in summary.advice if "late rule" in line]
    assert said == [
        "Moodle: the late rule was applied from the grading worksheet's \"Last modified "
        '(submission)" times, read in Europe/Berlin (moodle.timezone)'
        + (
            "; 1 student(s) have no time there or one that does not decide it (listed above): "
            "their grades are withheld until you look"
            if withheld
            else ""
        )
    ]


def test_work_from_no_one_on_the_worksheet_gets_no_time_and_no_grade(tmp_path):
    """A participant enrolled after the worksheet was downloaded: no time to apply the rule
    from, so no grade is written rather than one without the penalty."""
    alice = handin(tmp_path)
    student = replace(alice, key="202", participant="202", name="Bob Roe")
    own = assignment(tmp_path)
    entries = roster(tmp_path, "Tuesday, 1 December 2026, 1:00 PM")
    outcome = moodletimes.apply([alice, student], entries, own)
    assert outcome == moodletimes.Outcome(True, withheld=1)
    assert "no line of the grading worksheet is this student's" in student.doubt
    assert not alice.doubt and alice.submitted_at is not None
    rows = build_rows([alice, student], {}, own, entries)
    (off,) = [r for r in rows if r.student.participant == "202"]
    assert off.withheld and any("no line of the grading worksheet" in p for p in off.problems)


def test_a_teams_download_is_told_that_it_names_no_member_not_that_the_student_is_missing(
    tmp_path,
):
    """Moodle 4.1 and later download a team assignment once per team, named by the group: no
    worksheet line (one per student) is the team's. Its grade is withheld, and the reason says
    so, not that a student is missing from the worksheet (which would send the instructor to
    download it again, for nothing)."""
    for entry in ("Team Red_4711_assignsubmission_file_", "Default group_assignsubmission_file_"):
        write(tmp_path / "dl" / entry / "exercise-01.py", code(entry))
    intake = read_submissions(tmp_path / "dl", staging=tmp_path / "st", exercises=exercises())
    assert intake.layout == "moodle" and [h.key_kind for h in intake.handins] == ["team"] * 2
    entries = roster(tmp_path, "Tuesday, 1 December 2026, 1:00 PM")
    outcome = moodletimes.apply(intake.handins, entries, assignment(tmp_path))
    assert outcome == moodletimes.Outcome(True, withheld=2)
    for team in intake.handins:
        assert "a team's submission names none of its members" in team.doubt
        assert (
            "this student's" not in team.doubt and "download the worksheet again" not in team.doubt
        )
        assert team.submitted_at is None


def test_a_file_dated_after_the_worksheets_minute_is_named_never_used(tmp_path):
    """The worksheet may be older than the download (a resubmission it does not show): a file
    dated after its time's minute is named for the instructor; the time stays the worksheet's."""
    student = handin(tmp_path)
    own = assignment(tmp_path)
    moodletimes.apply([student], roster(tmp_path, ENTRY.submitted or ""), own)
    at = datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    assert student.submitted_at == at
    for seconds, named in [(61, False), (62, True), (-3600, False)]:
        student.files["exercise-01"].submitted_at = at + timedelta(seconds=seconds)
        lines = moodle.lateness(student, own).instructor
        assert bool(lines) == named, (seconds, lines)
    assert lines == () and student.submitted_at == at


# The language packs read (their langconfig's strftimedaydatetime, the locale's names): a
# worksheet downloaded with Moodle in that language, its header and its times
TRANSLATED = {
    "de": (
        "Kennung,Vollständiger Name,E-Mail-Adresse,Status,Bewertung,Bestwertung,Bewertung kann "
        "geändert werden,Zuletzt geändert (Abgabe),Zuletzt geändert (Bewertung),Feedback als "
        "Kommentar\n",
        "Teilnehmer/in{id}",
        "{weekday}, {day}. {month} {year}, {clock}",
        "Januar Februar März April Mai Juni Juli August September Oktober November Dezember",
        "Montag Dienstag Mittwoch Donnerstag Freitag Samstag Sonntag",
    ),
    "fr": (
        "Identifiant,Nom complet,Adresse de courriel,Statut,Note,Note maximale,La note peut "
        "être modifiée,Dernière modification (travail remis),Dernière modification (note),"
        "Feedback par commentaires\n",
        "Participant {id}",
        "{weekday} {day} {month} {year}, {clock}",
        "janvier février mars avril mai juin juillet août septembre octobre novembre décembre",
        "lundi mardi mercredi jeudi vendredi samedi dimanche",
    ),
    "es": (
        "Identificador,Nombre completo,Dirección de correo,Estado,Calificación,Calificación "
        "máxima,La calificación puede ser cambiada,Última modificación (entrega),Última "
        "modificación (calificación),Comentarios de retroalimentación\n",
        "Participante{id}",
        "{weekday}, {day} de {month} de {year}, {clock}",
        "enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre",
        "lunes martes miércoles jueves viernes sábado domingo",
    ),
    "zh_cn": (
        "标识符,姓名,Email地址,状态,成绩,最高分,成绩可以被修改,最后修改（学生）,最后修改（教师）,"
        "反馈评语\n",
        "参与者{id}",
        "{year}年{month}月{day}日 {weekday} {clock}",
        " ".join(str(m) for m in range(1, 13)),
        "星期一 星期二 星期三 星期四 星期五 星期六 星期日",
    ),
}


def translated_text(language: str, local: datetime, padded: bool) -> str:
    _, _, form, months, weekdays = TRANSLATED[language]
    month = months.split()[local.month - 1]
    if language == "zh_cn" and padded:
        month = f"{local.month:02d}"
    return form.format(
        weekday=weekdays.split()[local.weekday()],
        day=f"{local.day:02d}" if padded else str(local.day),
        month=month,
        year=local.year,
        clock=f"{local.hour:02d}:{local.minute:02d}",
    )


def translated_roster(tmp: Path, language: str, cells: list[str]):
    header, participant, *_ = TRANSLATED[language]
    lines = [
        f'{participant.format(id=101 + i)},Student {i},s{i}@example.edu,x,,100.00,x,"{cell}",-,'
        for i, cell in enumerate(cells)
    ]
    return read_roster(write(tmp / "worksheet.csv", header + "\n".join(lines) + "\n"))


@settings(max_examples=300, deadline=None)
@given(
    language=st.sampled_from(sorted(TRANSLATED)),
    local=st.datetimes(datetime(1971, 1, 1), datetime(2100, 12, 31)).map(
        lambda d: d.replace(second=0, microsecond=0)
    ),
    padded=st.booleans(),
    case=st.sampled_from([str, str.lower, str.upper]),
)
def test_every_time_moodle_writes_in_a_language_read_is_read_back(language, local, padded, case):
    assert moodletimes.local_time(case(translated_text(language, local, padded))) == local


@settings(max_examples=100, deadline=None)
@given(
    language=st.sampled_from(sorted(TRANSLATED)),
    local=st.datetimes(datetime(2000, 1, 1), datetime(2040, 12, 31)),
    shift=st.integers(1, 6),
)
def test_a_translated_weekday_that_is_not_the_dates_is_refused(language, local, shift):
    wrong = translated_text(language, local, False).replace(
        TRANSLATED[language][4].split()[local.weekday()],
        TRANSLATED[language][4].split()[(local.weekday() + shift) % 7],
        1,
    )
    with pytest.raises(ValueError, match="is not the weekday"):
        moodletimes.local_time(wrong)


@pytest.mark.parametrize("language", sorted(TRANSLATED))
def test_a_worksheet_downloaded_in_a_language_read_gives_the_late_rule(tmp_path, language):
    """A late and an on-time submission, the worksheet as Moodle writes it in that language:
    each gets the true time's verdict (13:00 in Berlin is 45 minutes late; 12:00 is on time)."""
    late = translated_text(language, datetime(2026, 12, 1, 13, 0), False)
    early = translated_text(language, datetime(2026, 12, 1, 12, 0), True)
    entries = translated_roster(tmp_path, language, [late, early])
    assert [e.submitted for e in entries] == [late, early]
    assert {e.submitted_language for e in entries} == {language}
    own = assignment(tmp_path)
    alice, bob = handin(tmp_path), replace(handin(tmp_path), key="102", participant="102")
    assert moodletimes.apply([alice, bob], entries, own) == moodletimes.Outcome(True)
    assert alice.submitted_at == datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc)
    assert bob.submitted_at == datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc)
    assert late_penalty(alice.submitted_at, own)[0] == 1
    assert late_penalty(bob.submitted_at, own)[0] == 0


@pytest.mark.parametrize(
    ("header", "participant", "cell"),
    [
        (  # Italian: the column is known, its times are not read
            "Identificativo,Nome completo,Indirizzo email,Stato,Valutazione,Punteggio massimo,"
            "La valutazione può essere modificata,Ultima modifica (consegna),Ultima modifica "
            "(valutazione),Commenti\n",
            "Partecipante {id}",
            "martedì, 1 dicembre 2026, 13:00",
        ),
        (  # a language whose column is not known either
            "Tunniste,Koko nimi,Sähköpostiosoite,Tila,Arvosana,Maksimiarvosana,Arvosanaa voi "
            "muuttaa,Viimeksi muokattu (palautus),Viimeksi muokattu (arvosana),Palaute\n",
            "Osallistuja {id}",
            "tiistai, 1. joulukuuta 2026, 13.00",
        ),
    ],
)
def test_a_worksheet_in_a_language_not_read_says_so_once(tmp_path, header, participant, cell):
    """No guess, and one line for the class: not a line per student."""
    lines = [
        f'{participant.format(id=101 + i)},S {i},s{i}@example.edu,x,,100.00,x,"{cell}",-,'
        for i in range(3)
    ]
    entries = read_roster(write(tmp_path / "worksheet.csv", header + "\n".join(lines) + "\n"))
    own = assignment(tmp_path)
    students = [replace(handin(tmp_path), key=str(101 + i), participant=str(101 + i)) for i in
                range(3)]  # fmt: skip
    outcome = moodletimes.apply(students, entries, own)
    assert not outcome.applied and "language" in outcome.reason
    assert "download it with Moodle's language set to one of English, Deutsch" in outcome.reason
    assert all(not s.doubt and s.submitted_at is None for s in students)
    (line,) = moodletimes.summary(build_rows(students, {}, own, entries), outcome, own)
    assert "the late rule was not applied" in line and "language" in line


@pytest.mark.parametrize("language", sorted(TRANSLATED))
def test_a_team_download_takes_each_members_time_from_a_translated_worksheet(tmp_path, language):
    """Moodle's team download that names each member ("{team}-{name}_{participant}"), with
    the worksheet in another language: each member's line gives their time, as in English."""
    late = translated_text(language, datetime(2026, 12, 1, 13, 0), False)
    early = translated_text(language, datetime(2026, 12, 1, 12, 0), False)
    entries = translated_roster(tmp_path, language, [late, early])
    for i in range(2):
        folder = tmp_path / "dl" / f"Gruppe 3-Student {i}_{101 + i}_assignsubmission_file_"
        write(folder / "exercise-01.py", code(f"member {i}"))
    intake = read_submissions(tmp_path / "dl", staging=tmp_path / "st", exercises=exercises())
    assert intake.layout == "moodle" and len(intake.handins) == 2
    outcome = moodletimes.apply(intake.handins, entries, assignment(tmp_path))
    assert outcome == moodletimes.Outcome(True)
    times = {h.participant: h.submitted_at for h in intake.handins}
    assert times == {
        "101": datetime(2026, 12, 1, 12, 0, tzinfo=timezone.utc),
        "102": datetime(2026, 12, 1, 11, 0, tzinfo=timezone.utc),
    }
