"""Each platform's download read as that platform names things (see ``classes.py``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.lms.intake import read_submissions
from tests.lms.builders import code
from tests.lms.classes import canvas_download, class_folders, gradescope_export, moodle_download

PST = timezone(timedelta(hours=-8))


def by_key(intake):
    return {h.key: h for h in intake.handins}


@pytest.mark.timeout(30)
def test_gradescope_export(infos, tmp_path):
    export = gradescope_export(tmp_path / "download")
    intake = read_submissions(export, staging=tmp_path / "staging", exercises=infos)
    assert intake.layout == "gradescope"
    students = by_key(intake)
    assert sorted(students) == [
        "1001",
        "1002",
        "1003",
        "1004",
        "1005",
        "1006",
        "1008",
        "submission_1007",
    ]

    jane = students["1001"]
    assert (jane.name, jane.email, jane.sid) == ("Jane Doe", "jane.doe@example.edu", "1001")
    assert jane.submitted_at == datetime(2026, 12, 1, 15, 1, 2, 123456, tzinfo=PST)
    assert jane.late is None  # Gradescope's export has no late flag: the time decides
    assert jane.files["exercise-07"].notebook is not None
    assert jane.files["exercise-07"].path.read_text().endswith(code("jane 7"))
    assert jane.files["exercise-07"].submitted_at == jane.submitted_at

    bob = students["1002"]
    assert set(bob.files) == {"exercise-01", "exercise-05", "exercise-07"}
    assert bob.files["exercise-07"].path.read_text() == code("bob 7 exact")  # same upload time
    assert "submission_1002/ex1.py taken as exercise-01" in bob.files["exercise-01"].notes

    ann, pat = students["1003"], students["1004"]  # one group submission, two students
    assert ann.files["exercise-05"].path == pat.files["exercise-05"].path
    assert ann.files["exercise-05"].shown == "submission_1003/work.zip:hw/exercise-05.py"
    assert "submission_1003: a group submission, with Pat O'Brien" in ann.notes
    assert "submission_1003: a group submission, with Ann Lee" in pat.notes

    kim = students["1005"]
    assert kim.files["exercise-01"].unchanged_starter
    assert kim.submitted_at == datetime(2026, 12, 3, 8, 0, tzinfo=PST)

    eve = students["1006"]
    assert eve.files == {}
    assert any("unsafe path" in p for p in eve.problems)
    # a FIFO on disk and a link in her zip, both named exercise-07: unreadable, for either
    assert "exercise-07" in eve.unreadable
    assert any("not a regular file" in p for p in eve.problems)
    assert any("evil.zip:exercise-07.py: a symbolic link; rejected" in p for p in eve.problems)

    unknown = students["submission_1007"]
    assert unknown.name == "" and "not in submission_metadata.yml" in unknown.problems[-1]
    assert (
        "listed in submission_metadata.yml but its folder is not in the export"
        in (students["1008"].problems[0])
    )


def test_pointing_at_one_gradescope_submission_is_refused(infos, tmp_path):
    from grader.errors import UsageError

    export = gradescope_export(tmp_path / "download")
    with pytest.raises(UsageError) as caught:
        read_submissions(export / "submission_1001", staging=tmp_path / "s", exercises=infos)
    assert "is one submission of a Gradescope export" in caught.value.message
    assert str(export) in caught.value.hint
    (export / "submission_metadata.yml").unlink()
    with pytest.raises(UsageError) as caught:
        read_submissions(export, staging=tmp_path / "s", exercises=infos)
    assert "no submission_metadata.yml" in caught.value.message
    assert "--layout folders" in caught.value.hint
    forced = read_submissions(export, staging=tmp_path / "s", exercises=infos, layout="folders")
    assert forced.layout == "folders" and "submission_1001" in by_key(forced)


def test_the_folder_around_a_gradescope_export_is_read_as_the_export(infos, tmp_path):
    from grader.errors import UsageError
    from tests.lms.builders import write

    gradescope_export(tmp_path / "download")
    write(tmp_path / "download" / "assignment_4242_export.zip", b"the download itself")
    intake = read_submissions(tmp_path / "download", staging=tmp_path / "s", exercises=infos)
    assert intake.layout == "gradescope"
    assert intake.root.name == "assignment_4242_export"
    assert intake.notes == [
        f"read the Gradescope export assignment_4242_export/ inside {tmp_path / 'download'}"
    ]
    (tmp_path / "download" / "assignment_4243_export").mkdir()
    write(tmp_path / "download" / "assignment_4243_export" / "submission_metadata.yml", "{}\n")
    with pytest.raises(UsageError, match="holds 2 Gradescope exports"):
        read_submissions(tmp_path / "download", staging=tmp_path / "s", exercises=infos)


@pytest.mark.timeout(30)
def test_canvas_download(infos, tmp_path):
    root = canvas_download(tmp_path / "download")
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=infos)
    assert intake.layout == "canvas"
    students = by_key(intake)
    assert sorted(students) == ["4711", "4712", "4713", "4714", "4715"]

    jane = students["4711"]
    assert (jane.lms_id, jane.name, jane.late) == ("4711", "doejane", True)
    assert jane.files["exercise-07"].path.read_text() == code("jane 7 resubmitted")
    assert jane.files["exercise-07"].sequence == 88240
    assert any("graded doejane_LATE_4711_88240_exercise-07-1.py (uploaded later)" in n
               for n in jane.files["exercise-07"].notes)  # fmt: skip
    assert jane.files["exercise-01"].notebook is not None

    bob = students["4712"]
    assert bob.late is False
    assert set(bob.files) == {"exercise-01", "exercise-05", "exercise-07"}
    assert bob.files["exercise-07"].shown == "smithbob_4712_88302_work.zip:work/hw/ex7.py"

    ann = students["4713"]
    assert ann.late is True and set(ann.files) == {"exercise-05"}
    assert "leeann_4713_text.html: a text or URL entry, not a file" in ann.problems[-1]

    pat = students["4714"]
    assert pat.files == {} and "exercise-07" in pat.unreadable
    assert "not a regular file" in pat.unreadable["exercise-07"]

    kim = students["4715"]
    assert kim.files == {} and any("unsafe path" in p for p in kim.problems)
    assert intake.stray == ["notes-from-the-ta.txt: not named as Canvas names submissions; ignored"]


@pytest.mark.timeout(30)
def test_moodle_download(infos, tmp_path):
    root = moodle_download(tmp_path / "download")
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=infos)
    assert intake.layout == "moodle"
    students = by_key(intake)
    assert sorted(students) == ["1234567", "1234568", "1234569", "1234570", "1234571", "1234572"]

    jane = students["1234567"]
    assert (jane.name, jane.key_kind, jane.lms_id) == ("Jane Doe", "participant", "")
    assert set(jane.files) == {"exercise-01", "exercise-07"}
    assert jane.files["exercise-01"].shown == "Jane Doe_1234567_assignsubmission_file_/hw/ex1.ipynb"

    bob = students["1234568"]
    assert set(bob.files) == {"exercise-05"}
    assert "a Moodle onlinetext entry, not an uploaded file; not graded" in bob.problems[0]

    ann = students["1234569"]
    assert ann.files["exercise-05"].path.read_text() == code("ann new")

    # "Participant" beside participants named in full: blind marking names all or none, so
    # it is this participant's name (a download of blind marking alone: test_platforms)
    named = students["1234570"]
    assert named.name == "Participant" and not named.shared_name
    assert "this download names its other participants" in named.notes[0]

    assert "not a regular file" in students["1234571"].unreadable["exercise-07"]
    kim = students["1234572"]
    assert set(kim.files) == {"exercise-05"} and any("unsafe path" in p for p in kim.problems)


@pytest.mark.timeout(30)
def test_class_folders_mixing_folders_zips_and_tarballs(infos, tmp_path):
    root = class_folders(tmp_path / "class")
    intake = read_submissions(
        root, staging=root / "graded" / ".staging", exercises=infos, exclude=(root / "graded",)
    )
    assert intake.layout == "folders"
    students = by_key(intake)
    assert sorted(students) == ["Carol_Diaz", "alice", "bob", "dan", "erin"]

    alice = students["alice"]  # a folder and a later zip: one student
    assert alice.files["exercise-01"].path.read_text() == code("alice 1 new")
    assert alice.files["exercise-07"].path.read_text() == code("alice 7")
    assert set(alice.files) == {"exercise-01", "exercise-05", "exercise-07"}
    assert alice.origin == "alice/ + alice.zip"
    assert "handed in 2 times (alice/, alice.zip): one student" in alice.notes
    # chosen by file dates (a folder's file against a zip): kept, and flagged to check
    assert any(p.startswith("exercise-01: graded alice.zip:alice/exercise-01.py over ")
               and "check which is the student's final version" in p
               for p in alice.problems)  # fmt: skip

    assert students["bob"].files["exercise-05"].shown == "bob.tar.gz:Exercise05.py"
    assert students["Carol_Diaz"].name == "Carol Diaz"
    assert students["Carol_Diaz"].files["exercise-07"].notebook is not None
    dan = students["dan"]
    assert set(dan.files) == {"exercise-05"} and any(
        ": a link; rejected" in p for p in dan.problems
    )
    erin = students["erin"]
    assert set(erin.files) == {"exercise-01"} and "exercise-07" in erin.unreadable
    assert intake.stray == [
        "README.txt: not a student folder or archive; ignored",
        "exercise-07.py: an exercise file at the top, in no student's folder or archive; ignored",
        "graded/: the output of an earlier grade batch; ignored",
        "pipe: not a regular file or folder (a FIFO or device); ignored",
    ]
    assert "graded" not in students
    assert intake.summary() == (
        # alice's exercise-01, chosen by file dates between a folder and a zip, is one
        "5 students (folders), 7 files, 1 notebook, 3 unreadable, 3 students with problems, "
        "4 stray entries"
    )


def test_a_class_of_31_from_canvas_to_its_gradebook(infos, tmp_path):
    """The instructor's scenario: 31 students handing in the ways students do, end to end
    through intake, roster matching, the grades model and the Canvas import."""
    from grader.lms.assignment import load_assignment, read_roster
    from grader.lms.canvas import gradebook_csv
    from grader.lms.grades import ExerciseScore, build_rows
    from tests.lms.builders import STARTER, notebook, write, zip_bytes

    spellings = ["exercise-01.py", "Exercise01.py", "ex1.py", "exercise_01 (1).py", "e1.py"]
    root = tmp_path / "submissions"
    roster = ["id,name,email"]
    for n in range(31):
        user, name = str(5000 + n), f"Student{n:02d} Family{n:02d}"
        roster.append(f"{user},{name},s{n}@example.edu")
        prefix = f"family{n:02d}student{n:02d}" + ("_LATE" if n % 7 == 0 else "")
        if n == 30:
            continue  # handed in nothing
        write(root / f"{prefix}_{user}_{9000 + 3 * n}_{spellings[n % 5]}", code(f"s{n} 1"))
        if n % 3 == 0:
            write(
                root / f"{prefix}_{user}_{9001 + 3 * n}_exercise-05.ipynb",
                notebook(code(f"s{n} 5")),
            )
        elif n % 3 == 1:
            write(
                root / f"{prefix}_{user}_{9001 + 3 * n}_hw.zip",
                zip_bytes({"hw/ex5.py": code(f"s{n} 5")}),
            )
        if n == 29:
            write(root / f"{prefix}_{user}_{9002 + 3 * n}_exercise-07.py", STARTER["exercise-07"])
    write(tmp_path / "roster.csv", "\n".join(roster) + "\n")
    assignment = load_assignment(
        write(
            tmp_path / "week.yaml",
            "format_version: 1\nname: week-1\nexercises: {exercise-01: 1, exercise-05: 1}\n"
            "roster: roster.csv\ncanvas: {title: Week 1, assignment_id: 77}\n",
        )
    )
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=infos)
    assert intake.layout == "canvas" and len(intake.handins) == 30
    assert intake.summary() == (
        "30 students (canvas), 51 files, 10 notebooks, 1 unchanged starter, 1 student with problems"
    )
    scores = {h.key: {e: ExerciseScore(e, "passed", 1, 1) for e in h.files} for h in intake.handins}
    rows = build_rows(intake.handins, scores, assignment, read_roster(assignment.roster))
    text = gradebook_csv(rows, assignment)
    lines = text.splitlines()
    assert len(lines) == 2 + 31 and lines[1] == "Points Possible,,,,,100"
    assert "Student00 Family00,5000,,,,100" in lines  # both exercises
    assert "Student02 Family02,5002,,,,50" in lines  # no exercise-05
    assert "Student30 Family30,5030,,,,0" in lines  # nothing handed in: missing: zero


_ORIGINAL = st.sampled_from(["exercise-01.py", "1_exercise-01.py", "ex1_2.py", "x.ipynb"])


@given(
    students=st.lists(
        st.tuples(
            st.text(st.sampled_from("abcxyz0123456789"), min_size=1, max_size=8),
            st.integers(1, 99999),
            st.integers(1, 999999),
            _ORIGINAL,
            st.booleans(),
        ),
        min_size=1,
        max_size=5,
        unique_by=lambda s: s[1],
    )
)
def test_a_canvas_name_of_digits_is_a_name_in_a_download_that_names_students(students):
    """ "2024_4711_88231_exercise-01.py": read alone, the student named 2024 was user 2024, and
    the real user 4711 was on the roster with nothing handed in, uploaded as 0. In a download
    whose files carry names (one has a letter in it), every file's first part is its name."""
    from grader.lms.canvas import carries_names, parse_name

    files = [
        f"{name}_{'late_' if late else ''}{user}_{file}_{original}"
        for name, user, file, original, late in students
    ]
    if not carries_names(files):
        return  # an all-digit class: nothing says which part is the name (anonymous downloads)
    for text, (name, user, file, original, late) in zip(files, students, strict=True):
        assert parse_name(text, named=True) == (name, late, str(user), file, original)


def test_a_student_named_in_digits_gets_their_grade(infos, tmp_path):
    from tests.lms.builders import write

    root = tmp_path / "download"
    write(root / "2024_4711_88231_exercise-01.py", code("number"))
    write(root / "doejane_4712_88300_exercise-01.py", code("jane"))
    found = read_submissions(root, staging=tmp_path / "s", exercises=infos)
    assert found.layout == "canvas"
    assert [(h.key, h.name) for h in found.handins] == [("4711", "2024"), ("4712", "doejane")]
    assert found.handins[0].files["exercise-01"].path.read_text() == code("number")
