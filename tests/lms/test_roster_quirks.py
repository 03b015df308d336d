"""Rosters as spreadsheets and LMSs save them: Excel's "Unicode Text" (UTF-16 with a byte
order mark, tab-separated) was refused as "not UTF-8", and a roster made of two sections'
lists, where a student enrolled in both is on each, was refused ("id '4711' is already on
line 2") though the lines are the same student."""

from __future__ import annotations

import codecs
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms.assignment import read_roster
from tests.lms.builders import write

text = st.text(
    st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"], blacklist_characters='"'),
    max_size=12,
).map(str.strip)
people = st.lists(
    st.tuples(
        st.integers(1000, 9999).map(str),
        text.filter(bool),
        st.sampled_from(["", "@x.edu"]),
        st.sampled_from(["", "A", "B", "Lab 3"]),
    ),
    min_size=1,
    max_size=6,
    unique_by=lambda p: p[0],
)
ENCODINGS = {
    "utf-8": lambda t: t.encode("utf-8"),
    "utf-8-sig": lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    "utf-16le": lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
    "utf-16be": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
}


def csv_text(rows: list[list[str]], sep: str, newline: str) -> str:
    return "".join(sep.join(f'"{c}"' for c in row) + newline for row in rows)


@settings(max_examples=80, deadline=None)
@given(
    class_=people,
    encoding=st.sampled_from(sorted(ENCODINGS)),
    sep=st.sampled_from([",", ";", "\t"]),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    twice=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["", "A", "C"])), max_size=3),
    hint=st.booleans(),
)
def test_a_roster_is_read_in_any_encoding_excel_writes_and_with_a_student_in_two_sections(
    class_, encoding, sep, newline, twice, hint
):
    """Also Excel for Mac's "CSV (Macintosh)", whose lines end in a bare carriage return: the
    whole file was one first line, so its separator was guessed from all of it (a ";" file
    with a comma in a name read as ","), and Excel's "sep=;" line was taken for the header."""
    rows = [["id", "name", "email", "section"]]
    rows += [[i, n, f"{i}{e}" if e else "", s] for i, n, e, s in class_]
    sections = {i: [s] if s else [] for i, _, _, s in class_}
    for index, section in twice:  # the student again, in another section's list
        i, n, e, _ = class_[index % len(class_)]
        rows.append([i, n, f"{i}{e}" if e else "", section])
        if section and section not in sections[i]:
            sections[i].append(section)
    head = f"sep={sep}{newline}" if hint else ""
    data = ENCODINGS[encoding](head + csv_text(rows, sep, newline))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "roster.csv"
        path.write_bytes(data)
        entries = read_roster(path)
    assert [(e.id, e.name, e.section) for e in entries] == [
        (i, n, " and ".join(sections[i])) for i, n, _, _ in class_
    ]


@pytest.mark.parametrize(
    "second",
    ["4711,Jane Roe,jane@x.edu,B", "4711,Jane Doe,other@x.edu,B", "4712,Bob,jane@x.edu,B"],
)
def test_a_repeated_id_or_email_that_is_not_the_same_student_is_still_refused(tmp_path, second):
    path = tmp_path / "roster.csv"
    path.write_text(f"id,name,email,section\n4711,Jane Doe,jane@x.edu,A\n{second}\n")
    with pytest.raises(SpecError, match="is already on line 2"):
        read_roster(path)


CANVAS_HEAD = (
    "Student,ID,SIS User ID,SIS Login ID,Section,Week 3 (48213),Current Points,Final Points,"
    "Current Score,Unposted Current Score,Final Score,Unposted Final Score"
)


@settings(max_examples=60, deadline=None)
@given(
    class_=people,
    sis=st.booleans(),
    posting=st.booleans(),
    encoding=st.sampled_from(sorted(ENCODINGS)),
)
def test_canvas_gradebook_export_is_read_as_a_roster(class_, sis, posting, encoding):
    """Canvas's gradebook export (Grades, "Export") is the class list an instructor has: it
    was refused ("unknown column 'student'"). Its "Points Possible" row and the row saying
    how an assignment is posted are no students."""
    rows = [CANVAS_HEAD.split(",")]
    rows.append(["    Points Possible", "", "", "", "", "100.00", *["(read only)"] * 6])
    if posting:
        rows.append(["", "", "", "", "", "Manual Posting", *[""] * 6])
    for i, name, _, section in class_:
        sid = f"S{i}" if sis else ""
        rows.append(
            [f"{name}, X", i, sid, f"login{i}", section, "", "0.00", "0.00", "", "", "", ""]
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.csv"
        path.write_bytes(ENCODINGS[encoding](csv_text(rows, ",", "\r\n")))
        entries = read_roster(path)
    assert [(e.id, e.name, e.sid, e.login, e.section, e.email) for e in entries] == [
        (i, f"{name}, X", f"S{i}" if sis else "", f"login{i}", section, "")
        for i, name, _, section in class_
    ]
    assert all(e.platform_id for e in entries)  # Canvas's ID is Canvas's user id


def test_a_canvas_class_graded_against_its_gradebook_export(tmp_path):
    from tests.lms.classes import CLASS
    from tests.lms.test_platforms import rows_of

    lines = [CANVAS_HEAD, "    Points Possible,,,,,100.00" + ",(read only)" * 6]
    for ident, name, _, sid, *_ in CLASS:
        first, last = name.split()
        lines.append(f'"{last}, {first}",{ident},{sid},{first.lower()},Section A' + ",," * 3 + ",")
    lines.append('"Brown, Lee",4720,1020,lee,Section B' + ",," * 3 + ",")
    rows, _ = rows_of("canvas", tmp_path, roster="\n".join(lines) + "\n")
    status = {r.student.lms_id: (r.roster, r.final_percent, bool(r.withheld)) for r in rows}
    assert status == {
        "4711": ("matched", 100.0, False),
        "4712": ("matched", 0.0, False),
        "4713": ("matched", 100.0, False),  # Canvas's Late Policy applies the rule
        "4714": ("matched", 100.0, False),
        "4720": ("absent", None, False),  # a 0 under missing: zero
    }


@settings(max_examples=60, deadline=None)
@given(
    sep=st.sampled_from([",", ";", "\t"]),
    other=st.text(st.sampled_from("ab ,;()\t0123456789"), min_size=1, max_size=20).map(str.strip),
)
def test_the_separator_is_the_one_that_parts_the_header_into_its_columns(sep, other):
    """Canvas's gradebook export saved by Excel where the decimal mark is a comma: ";" between
    the columns, and an assignment's title with a comma in it ("Week 3, part 1 (48213)"): the
    comma in the header made it a "," file, and the roster was refused."""
    title = other.replace(sep, " ").strip() or "W"
    head = sep.join(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title])
    body = sep.join(['"Doe, Jane"', "4711", "1001", "jdoe", "A", "5"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.csv"
        path.write_text(f"{head}\n{body}\n", encoding="utf-8")
        (entry,) = read_roster(path)
    assert (entry.id, entry.name, entry.sid) == ("4711", "Doe, Jane", "1001")


@pytest.mark.parametrize("title", [";;;;;", ";0;;;;", "a;b;c;d;e;f;g"])
def test_a_title_of_another_separator_does_not_choose_it(tmp_path, title):
    """A tab-separated export whose assignment title holds more semicolons than the header
    has tabs: read with ";", its rows had one field each and the roster was refused."""
    head = "\t".join(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title])
    body = "\t".join(['"Doe, Jane"', "4711", "1001", "jdoe", "A", "5"])
    path = write(tmp_path / "grades.csv", f"{head}\n{body}\n")
    (entry,) = read_roster(path)
    assert (entry.id, entry.name, entry.sid) == ("4711", "Doe, Jane", "1001")


def test_a_roster_that_is_no_regular_file_is_an_error_not_a_hang(tmp_path):
    """A FIFO given as the roster blocked the whole run, waiting for a writer."""
    import os

    fifo = tmp_path / "roster.csv"
    os.mkfifo(fifo)
    with pytest.raises(SpecError, match="is not a regular file"):
        read_roster(fifo)
    with pytest.raises(SpecError, match="is not a regular file"):
        read_roster(tmp_path)


def test_a_roster_may_be_a_link_to_the_class_list(tmp_path):
    target = tmp_path / "shared.csv"
    target.write_text("id,name,email\n4711,Jane Doe,jane@x.edu\n")
    (tmp_path / "roster.csv").symlink_to(target)
    (entry,) = read_roster(tmp_path / "roster.csv")
    assert entry.id == "4711"


@settings(max_examples=60, deadline=None)
@given(
    # the test student's own id (7777) is no real student's
    class_=people.filter(lambda c: all(p[0] != "7777" for p in c)),
    sis=st.booleans(),
    test_name=st.sampled_from(["Student, Test", "Estudiante, Prueba", "学生, 测试"]),
    login=st.text("0123456789abcdef", min_size=40, max_size=40),
    real_test=st.booleans(),
)
def test_canvas_test_student_is_left_out_and_said_once(class_, sis, test_name, login, real_test):
    """Canvas's gradebook export ends with its test student ("Student, Test": Student View's
    user), whose login is the 40 hex digits Canvas gives it and who has no SIS User ID: it
    became a roster student, uploaded as 0. It is left out (whatever Canvas calls it in the
    course's language) and said once; a real student named "Test Student" stays."""
    rows = [CANVAS_HEAD.split(",")]
    rows.append(["    Points Possible", "", "", "", "", "100.00", *["(read only)"] * 6])
    for i, name, _, section in class_:
        sid = f"S{i}" if sis else ""
        rows.append([f"{name}, X", i, sid, f"login{i}", section, *[""] * 7])
    if real_test:  # a student named Test, with a login as students have
        rows.append(["Student, Test", "99", "S99" if sis else "", "tstudent", "A", *[""] * 7])
    rows.append([test_name, "7777", "", login, "A", *[""] * 7])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.csv"
        path.write_text(csv_text(rows, ",", "\r\n"), encoding="utf-8")
        notes: list[str] = []
        entries = read_roster(path, notes)
    ids = [e.id for e in entries]
    assert "7777" not in ids
    assert ("99" in ids) == real_test
    assert len(ids) == len(class_) + real_test
    # said once (generated names may get a line of their own: one that reads as another
    # encoding's text, roster.csv's "reads as UTF-8 with a name no one has")
    (note,) = [n for n in notes if "name no one has" not in n]
    assert "test student" in note and "left out" in note and "line" in note


@settings(max_examples=40, deadline=None)
@given(class_=people, sis=st.booleans(), encoding=st.sampled_from(sorted(ENCODINGS)))
def test_canvas_gradebook_export_with_split_names_is_read_as_a_roster(class_, sis, encoding):
    """With the gradebook's "Split student names" on, Canvas's export names "LastName" and
    "FirstName" where it names "Student" (``GradebookExporter``): it was refused ("unknown
    column 'lastname'"). Each student's name is read as "Last, First", as "Student" holds."""
    head = CANVAS_HEAD.replace("Student,", "LastName,FirstName,", 1).split(",")
    rows = [head, ["    Points Possible", "", "", "", "", "", "100.00", *["(read only)"] * 6]]
    for i, name, _, section in class_:
        rows.append([name, "X", i, f"S{i}" if sis else "", f"login{i}", section, *[""] * 7])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.csv"
        path.write_bytes(ENCODINGS[encoding](csv_text(rows, ",", "\r\n")))
        entries = read_roster(path)
    assert [(e.id, e.name, e.sid, e.login, e.section) for e in entries] == [
        (i, f"{name}, X", f"S{i}" if sis else "", f"login{i}", section)
        for i, name, _, section in class_
    ]


@settings(max_examples=40, deadline=None)
@given(
    class_=people,
    idnumber=st.booleans(),
    last=st.sampled_from(["Last name", "Surname"]),
    encoding=st.sampled_from(sorted(ENCODINGS)),
)
def test_moodle_grade_export_is_read_as_a_roster(class_, idnumber, last, encoding):
    """Moodle's grade export (Grades, "Export") is the class list a Moodle instructor has:
    "First name", "Last name", "ID number", "Institution", "Department", "Email address", the
    grade items. It was refused ("unknown column 'first name'"). Each student is read with
    their full name, ID number and e-mail; the id is the ID number, else the e-mail."""
    head = ["First name", last, "ID number", "Institution", "Department", "Email address",
            "Assignment: Week 3 (Real)", "Last downloaded from this course"]  # fmt: skip
    rows = [head]
    for i, name, _, _ in class_:
        rows.append([name, "X", f"S{i}" if idnumber else "", "", "", f"u{i}@x.edu", "-", "1"])
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.csv"
        path.write_bytes(ENCODINGS[encoding](csv_text(rows, ",", "\r\n")))
        entries = read_roster(path)
    assert [(e.id, e.name, e.sid, e.email) for e in entries] == [
        (
            f"S{i}" if idnumber else f"u{i}@x.edu",
            f"{name} X",
            f"S{i}" if idnumber else "",
            f"u{i}@x.edu",
        )
        for i, name, _, _ in class_
    ]
    assert not any(e.platform_id for e in entries)  # Moodle's export gives no user id


@pytest.mark.parametrize("first", ["::A0", "Participant 1", "Teilnehmer 7", "A0"])
def test_a_grade_export_whose_first_names_look_like_participants_is_a_grade_export(first):
    """A translated grading worksheet is known by its values alone (its first column one word
    and a number on every line); a Moodle grade export whose one first name was "::A0" was
    taken for one, and its student became participant 0 with no name. The exports that their
    header names are known first."""
    head = ["First name", "Last name", "ID number", "Institution", "Department", "Email address"]
    rows = [head, [first, "X", "S1", "", "", "u1@x.edu"]]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "grades.csv"
        path.write_text(csv_text(rows, ",", "\r\n"), encoding="utf-8")
        entries = read_roster(path)
    assert [(e.id, e.name, e.sid) for e in entries] == [("S1", f"{first} X", "S1")]
