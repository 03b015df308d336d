"""``.grade-batch-output`` marks the output folder of ``grade batch``. A folder of an earlier
run that lies inside a class of folders is no student; but the marker is only a file name,
and any student can upload one. It once made ``grade batch`` drop that student's whole folder
as "the output of an earlier grade batch": absent from the gradebook (plain folders), or 0 as
"nothing handed in" (Moodle, Gradescope). Now a folder is an earlier output only where it
holds the marker and nothing intake would grade or report; in a platform's download, whose
entries the platform names, the marker decides nothing."""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.intake import OUTPUT_MARKER, read_submissions
from tests.conftest import PROBE_HOME, run_cli
from tests.lms.builders import code, exercises, notebook, write, zip_bytes

# What a student's folder may hold besides the marker: work in several forms, or nothing.
CONTENTS = {
    "file": {"exercise-01.py": code("file")},
    "nested": {"src/exercise-05.py": code("nested")},
    "zip": {"work.zip": zip_bytes({"exercise-07.py": code("zip")})},
    "notebook": {"exercise-07.ipynb": notebook(code("nb"))},
    "damaged zip": {"work.zip": b"PK\x03\x04 not a zip"},
    "notes only": {"notes.txt": "nothing to grade"},
    "empty": {},
    "link": {},  # a symbolic link named as an exercise file (intake rejects it, and says so)
}
WORK = {"file", "nested", "zip", "notebook", "damaged zip", "link"}


def _student(folder: Path, contents: str, marked: bool) -> None:
    folder.mkdir(parents=True)
    for name, data in CONTENTS[contents].items():
        write(folder / name, data)
    if contents == "link":
        (folder / "exercise-01.py").symlink_to(folder.parent)
    if marked:
        write(folder / OUTPUT_MARKER, "")


def _earlier_output(folder: Path) -> None:
    """What grade batch leaves in its output folder (the files that matter to intake)."""
    write(folder / OUTPUT_MARKER, "This folder is the output of `grade batch`.\n")
    write(folder / "gradebook.csv", "student,exercise-01\nalice,15\n")
    write(folder / "students" / "alice" / "exercise-01.json", "{}")
    write(folder / "feedback" / "alice.html", "<p>feedback</p>")
    write(folder / ".staging" / "folders" / "alice" / "exercise-01" / "exercise-01.py", "x = 1")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    students=st.lists(
        st.tuples(st.sampled_from(sorted(CONTENTS)), st.booleans()), min_size=1, max_size=5
    ),
    with_output=st.booleans(),
)
def test_a_student_with_work_is_never_taken_for_an_earlier_output(
    tmp_path_factory, students, with_output
):
    root = tmp_path_factory.mktemp("class")
    out = tmp_path_factory.mktemp("out")
    for i, (contents, marked) in enumerate(students):
        _student(root / f"s{i}", contents, marked)
    if with_output:
        _earlier_output(root / "graded")
    intake = read_submissions(root / ".", staging=out / ".staging", exercises=exercises())
    keys = {h.key for h in intake.handins}
    for i, (contents, marked) in enumerate(students):
        if contents in WORK or not marked:
            assert f"s{i}" in keys, (contents, marked, intake.stray)
        else:  # the marker and nothing else to read: an earlier output, said so
            assert f"s{i}" not in keys
            assert f"s{i}/: the output of an earlier grade batch; ignored" in intake.stray
        if contents in WORK and marked:
            assert any(n.startswith(f"s{i}/: holds {OUTPUT_MARKER}") for n in intake.notes)
    assert "graded" not in keys
    if with_output:
        assert "graded/: the output of an earlier grade batch; ignored" in intake.stray


def test_the_marker_decides_nothing_in_a_moodle_download(tmp_path):
    root = tmp_path / "moodle"
    write(root / "Jane Doe_101_assignsubmission_file_" / "exercise-01.py", code("jane"))
    write(root / "Bob Ray_102_assignsubmission_file_" / "exercise-01.py", code("bob"))
    write(root / "Bob Ray_102_assignsubmission_file_" / OUTPUT_MARKER, "")
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    assert intake.layout == "moodle"
    bob = [h for h in intake.handins if h.name == "Bob Ray"]
    assert len(bob) == 1 and set(bob[0].files) == {"exercise-01"}


def test_the_marker_decides_nothing_in_a_gradescope_export(tmp_path):
    root = tmp_path / "export"
    write(
        root / "submission_metadata.yml",
        "submission_1:\n  :submitters:\n  - :name: Ann\n    :sid: '1'\n"
        "submission_2:\n  :submitters:\n  - :name: Bo\n    :sid: '2'\n",
    )
    write(root / "submission_1" / "exercise-01.py", code("ann"))
    write(root / "submission_2" / "exercise-01.py", code("bo"))
    write(root / "submission_2" / OUTPUT_MARKER, "")
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    assert intake.layout == "gradescope"
    bo = [h for h in intake.handins if h.name == "Bo"]
    assert len(bo) == 1 and set(bo[0].files) == {"exercise-01"}


def test_grade_batch_grades_a_student_who_uploaded_the_marker(tmp_path):
    root = tmp_path / "class"
    solution = (PROBE_HOME / "solutions" / "exercise-90" / "exercise-90.py").read_text()
    write(root / "alice" / "exercise-90.py", solution)
    write(root / "bob" / "exercise-90.py", solution)
    write(root / "bob" / OUTPUT_MARKER, "")
    done = run_cli(
        "batch", str(root), "--out", str(tmp_path / "out"), "--exercises", "90", home=PROBE_HOME
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "earlier grade batch" not in done.stdout
    rows = list(csv.DictReader(io.StringIO((tmp_path / "out" / "gradebook.csv").read_text())))
    graded = {r["student"]: r for r in rows if r["student"] != "(max)"}
    assert set(graded) == {"alice", "bob"}
    assert graded["bob"]["final"] == graded["alice"]["final"] != "0"


def test_a_folder_larger_or_deeper_than_intake_walks_may_hold_work(tmp_path, monkeypatch):
    """The look for work stops where intake's own walk of a student's folder would, and
    counts what it could not see as work (fail closed): a marked folder of 50 text files is
    a student's, not an earlier output, once the walk may look at fewer."""
    from grader.lms import intake

    folder = tmp_path / "class" / "bob"
    for i in range(50):
        write(folder / f"notes-{i}.txt", "x")
    write(folder / OUTPUT_MARKER, "")
    entry = next(e for e in os.scandir(tmp_path / "class") if e.name == "bob")
    assert not intake.may_hold_work(entry)
    monkeypatch.setattr(intake, "MAX_WALK_ENTRIES", 20)
    assert intake.may_hold_work(entry)
    monkeypatch.setattr(intake, "MAX_WALK_ENTRIES", 10_000)
    deep = tmp_path / "class" / "deep"
    write(deep.joinpath(*["d"] * 30, "notes.txt"), "x")
    entry = next(e for e in os.scandir(tmp_path / "class") if e.name == "deep")
    assert intake.may_hold_work(entry)
