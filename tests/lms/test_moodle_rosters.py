"""Moodle's own files as a roster, and who is off it: the grading worksheet ("Download grading
worksheet") keys each student by "Participant 901" in the downloader's language, and a download
may hold a participant no roster line names. Grading is by content, as in test_platforms."""

from __future__ import annotations

import tempfile
import unicodedata
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import build_rows
from grader.lms.intake import read_submissions
from grader.lms.platforms import by_name
from tests.lms.builders import code, exercises, write
from tests.lms.classes import CLASS, PARTICIPANT, roster_text, same_class
from tests.lms.test_platforms import ASSIGNMENT, by_email, grade, upload_cells

# Moodle's ``hiddenuser`` in its language packs: English writes "Participant 901", the
# translations no space ("Teilnehmer/in901")
WORDS = ["Participant", "Teilnehmer/in", "Participante", "Deelnemer", "Katılımcı", "参与者"]
# the columns Moodle writes after the identity ones (a site's own set varies)
TAIL = [
    "Status",
    "Grade",
    "Maximum Grade",
    "Grade can be changed",
    "Last modified (submission)",
    "Last modified (grade)",
    "Feedback comments",
]


def worksheet(
    word: str = "Participant",
    *,
    identity: tuple[str, ...] = ("Full name", "Email address"),
    header: str = "Identifier",
    extra: tuple[tuple[str, str, str, str], ...] = (),
    space: str = " ",
) -> str:
    """The class's grading worksheet as Moodle writes it (a UTF-8 BOM, every cell quoted)."""
    people = [(PARTICIPANT[i], n, e, s) for i, n, e, s, *_ in CLASS] + list(extra)
    cells = {"Full name": 1, "Email address": 2, "ID number": 3}
    lines = [[header, *identity, *TAIL]]
    for participant, *facts in [(p, n, e, s) for p, n, e, s in people]:
        shown = [facts[cells[c] - 1] for c in identity]
        tail = ["Submitted for grading", "", "100.00", "Yes", "-", "-", ""]
        lines.append([f"{word}{space}{participant}", *shown, *tail])
    quoted = ['"' + '","'.join(c.replace('"', '""') for c in line) + '"' for line in lines]
    return "\ufeff" + "\n".join(quoted) + "\n"


@settings(max_examples=60, deadline=None)
@given(
    word=st.one_of(st.sampled_from(WORDS), st.text(st.characters(categories=["L"]), min_size=1,
                                                    max_size=12)),
    identity=st.lists(st.sampled_from(["Full name", "Email address", "ID number"]), unique=True)
    .map(tuple),
    english=st.booleans(),
    space=st.sampled_from([" ", ""]),
)  # fmt: skip
def test_moodles_grading_worksheet_is_read_as_a_roster_by_participant(
    word, identity, english, space
):
    """Moodle's worksheet names its columns "Identifier", "Full name", "Email address" (or, in
    the downloader's language, "Kennung", ...) and keys each student "Participant 901" in that
    language: the roster refused it ("unknown column 'identifier'")."""
    assume(space or len(word) >= 3)
    header = "Identifier" if english else "Kennung"
    text = worksheet(word, identity=identity if english else (), header=header, space=space)
    with tempfile.TemporaryDirectory() as tmp:
        entries = read_roster(write(Path(tmp) / "worksheet.csv", text))
    assert [(e.participant, e.id) for e in entries] == [
        (PARTICIPANT[i], PARTICIPANT[i]) for i, *_ in CLASS
    ]
    for entry, (_, name, email, sid, *_) in zip(entries, CLASS, strict=True):
        shown = "Full name" in identity and english
        assert entry.name == (name if shown else "")
        assert entry.email == (email if "Email address" in identity and english else "")
        assert entry.sid == (sid if "ID number" in identity and english else "")
        assert not entry.platform_id  # a participant id is no platform user id (Canvas's ID)


@settings(max_examples=60, deadline=None)
@given(word=st.one_of(st.sampled_from(WORDS), st.text(st.characters(categories=["L"]),
                                                       min_size=1, max_size=12)),
       space=st.sampled_from([" ", "  ", "\u00a0", ""]))  # fmt: skip
def test_a_rosters_participant_column_takes_the_worksheets_identifier(word, space):
    """A roster built from the worksheet holds "Participant 901" (or "Teilnehmer/in 901") in
    its participant column: it was refused as "not a Moodle participant id"."""
    assume(space or len(word) >= 3)
    text = "id,name,email,participant\n" + "".join(
        f"{i},{n},{e},{word}{space}{PARTICIPANT[i]}\n" for i, n, e, *_ in CLASS
    )
    with tempfile.TemporaryDirectory() as tmp:
        entries = read_roster(write(Path(tmp) / "roster.csv", text))
    assert [(e.id, e.participant, e.platform_id) for e in entries] == [
        (i, PARTICIPANT[i], True) for i, *_ in CLASS
    ]


@pytest.mark.parametrize(
    "cell", ["901abc", "-5", "Participant", "Participant 9O1", "1.5", "9 01", "p7", "ab7", "P 9 1"]
)
def test_a_participant_cell_that_holds_no_id_is_still_refused(tmp_path, cell):
    text = f"id,name,email,participant\n4711,Jane Doe,jane@example.edu,{cell}\n"
    with pytest.raises(SpecError, match="is not a Moodle participant id"):
        read_roster(write(tmp_path / "roster.csv", text))


@pytest.mark.parametrize(
    "text",
    [
        # the word varies
        "Kennung,a,b,c,d\nParticipant 901,x,x,x,x\nTeilnehmer 902,x,x,x,x\n",
        # a roster column beside it
        "group,name,email\nTeam 1,Jane Doe,j@x.edu\nTeam 2,Bob Roe,b@x.edu\n",
        "group,a,b,c,name\nTeam 1,x,x,x,Jane Doe\nTeam 2,x,x,x,Bob Roe\n",
        # too few columns for a worksheet
        "group,vorname,nachname\nTeam 1,Jane,Doe\nTeam 2,Bob,Roe\n",
        # a number twice
        "gruppe,a,b,c,d\nTeam 1,x,x,x,x\nTeam 1,y,y,y,y\n",
    ],
)
def test_a_roster_that_only_looks_like_a_translated_worksheet_is_refused(tmp_path, text):
    """A group column ("Team 1") is no participant id: a roster's unknown first column is
    refused as before, never read as a worksheet keyed by the group's number."""
    with pytest.raises(SpecError, match="unknown column"):
        read_roster(write(tmp_path / "roster.csv", text))


def graded(
    tmp: Path, roster: str, *, blind: str = "", extra: dict[str, str] | None = None
) -> tuple:
    """The class's Moodle download (blind marking in the language whose word for a
    participant is ``blind``) plus ``extra`` folders (folder name: code), graded against
    ``roster``."""
    write(tmp / "roster.csv", roster)
    assignment = load_assignment(write(tmp / "week-3.yaml", ASSIGNMENT))
    download = same_class("moodle", tmp / "moodle", blind=bool(blind))
    for folder in list(download.iterdir()) if blind else []:
        folder.rename(folder.with_name(folder.name.replace("Participant_", f"{blind}_", 1)))
    extra = extra or {}
    for folder, text in extra.items():
        write(download / folder / "exercise-01.py", text)
    intake = read_submissions(download, staging=tmp / "staging", exercises=exercises())
    assert intake.layout == "moodle"
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(tmp / "roster.csv"),
        lateness=by_name("moodle").lateness,
    )
    return rows, assignment


ABSENT = (("920", "Lee Absent", "absent@example.edu", "1020"),)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=st.one_of(st.sampled_from(WORDS[:1] + ["Teilnehmerin", "Participante"]),
                      st.text(st.characters(categories=["L"]), min_size=1, max_size=12)))  # fmt: skip
def test_the_worksheet_as_roster_gives_the_absent_their_zero_beside_an_off_roster_participant(
    word,
):
    """Blind marking (in any language) graded against Moodle's worksheet: the worksheet names
    every roster student's participant id, so a participant it does not name (905, enrolled
    after it was downloaded) is nobody on it. Lee (920, no work) got no 0, "until matched"."""
    assume(word.strip() and word.lower() not in {n.split()[0].lower() for _, n, *_ in CLASS})
    folder = f"{word}_905_assignsubmission_file_"
    with tempfile.TemporaryDirectory() as tmp:
        rows, assignment = graded(
            Path(tmp), worksheet(word, extra=ABSENT), blind=word, extra={folder: code("enrolee")}
        )
    lee = by_email(rows)["absent@example.edu"]
    assert lee.roster == "absent" and not lee.withheld
    _, keyed, sheet = upload_cells(rows, assignment)
    assert keyed["absent@example.edu"] == "0" and sheet["Participant 920"] == "0"
    assert sheet["Participant 905"] == "50"  # graded, by participant
    off = next(r for r in rows if r.student.participant == "905")
    assert off.roster == "unmatched"
    assert any("participant 905 is on no roster line" in p for p in off.problems), off.problems


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.one_of(
        st.sampled_from(["Madonna", "Participant", "participant", "Teilnehmerin", "Deelnemer"]),
        st.text(st.characters(categories=["L"]), min_size=1, max_size=12),
    )
)
@example(name="\U0002f800")  # a compatibility ideograph: NFC makes it another code point
def test_a_one_word_name_off_the_roster_leaves_the_absent_their_zero(name):
    """Moodle names every participant of a download by their full name or none (blind marking):
    beside named students, "Madonna_905_assignsubmission_file_" is a student called Madonna,
    and "Participant_905_..." (or its translation) a participant named so, off the roster
    either way. Each was taken for a blind participant who might be anyone: every roster
    student without work got an empty cell, not their 0, and Madonna was reported as blind
    marking."""
    assume(name.lower() not in {w.lower() for _, n, *_ in CLASS for w in n.split()})
    roster = roster_text("4720,Lee Absent,absent@example.edu,1020\n")
    with tempfile.TemporaryDirectory() as tmp:
        rows, assignment = graded(
            Path(tmp), roster, extra={f"{name}_905_assignsubmission_file_": code("x")}
        )
    lee = by_email(rows)["absent@example.edu"]
    assert lee.roster == "absent" and not lee.withheld
    canvas_cells, keyed, _ = upload_cells(rows, assignment)
    assert keyed["absent@example.edu"] == "0" and canvas_cells["Lee Absent"] == "0"
    off = next(r for r in rows if r.student.participant == "905")
    # the name as Moodle's reader keeps every name: its letters composed (NFC), one name
    # however an unzip wrote them (U+2F800 is U+4E3D composed)
    assert off.roster == "unmatched" and off.student.name == unicodedata.normalize("NFC", name)
    assert off.problems[0] == "not on the roster: check who this is"
    assert name not in {line for line in keyed}  # never uploaded by identity


def test_a_lone_one_word_folder_still_withholds_the_zeros(tmp_path):
    """Without a named participant beside it, one word may be blind marking's word in a
    language the grader does not know: the work may be anyone's, and no 0 is written."""
    roster = roster_text("4720,Lee Absent,absent@example.edu,1020\n")
    write(tmp_path / "roster.csv", roster)
    assignment = load_assignment(write(tmp_path / "week-3.yaml", ASSIGNMENT))
    download = tmp_path / "moodle"
    write(download / "Osallistuja_905_assignsubmission_file_" / "exercise-01.py", code("x"))
    intake = read_submissions(download, staging=tmp_path / "staging", exercises=exercises())
    rows = build_rows(intake.handins, grade(intake.handins), assignment,
                      read_roster(tmp_path / "roster.csv"))  # fmt: skip
    assert all(r.withheld for r in rows if r.roster == "absent")


def test_the_worksheets_participant_ids_never_match_another_platforms_user_ids(tmp_path):
    """The worksheet's participant id stands in as the roster's id; a Canvas download whose
    user ids are the same numbers (user 901 is not participant 901) took Jane's grade to
    whoever is participant 901, by id."""
    text = worksheet(extra=ABSENT)
    download = tmp_path / "canvas"
    write(download / "roebob_901_88001_exercise-01.py", code("bob roe, Canvas user 901"))
    write(download / "doejane_4711_88002_exercise-01.py", code("jane"))
    write(tmp_path / "roster.csv", text)
    assignment = load_assignment(write(tmp_path / "week-3.yaml", ASSIGNMENT))
    intake = read_submissions(download, staging=tmp_path / "staging", exercises=exercises())
    assert intake.layout == "canvas"
    rows = build_rows(intake.handins, grade(intake.handins), assignment,
                      read_roster(tmp_path / "roster.csv"))  # fmt: skip
    jane = by_email(rows)["jane@example.edu"]  # participant 901 on the worksheet
    assert jane.roster == "matched" and jane.student.key == "4711"  # her own handin
    assert jane.final_percent == 50.0  # her own exercise-01, found by name
    bob = next(r for r in rows if r.student.key == "901" and r.roster == "unmatched")
    assert bob.student.name in ("roebob", "")
