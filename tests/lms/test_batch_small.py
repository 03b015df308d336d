"""The small things an instructor meets in a batch: a file that could not run is named, with
why; ``--student`` answers for that student; a missing exercise keeps its title on the feedback
page; a submission with nothing in it is told what was expected."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from grader.lms import gradescope
from grader.lms.assignment import Assignment
from grader.lms.feedback import feedback_html
from grader.lms.grades import ExerciseScore, Student, TestScore, build_row
from grader.lms.handin import Handin, Submitted
from grader.lms.progress import Progress
from grader.lms.summary import attention
from grader.results import Status
from tests.conftest import FIXTURES, bare_result, run_cli
from tests.lms.builders import code, write

COURSE = FIXTURES / "lms-course"
WEEK = Assignment("week", (("exercise-01", 1.0), ("exercise-05", 1.0)), Path("week.yaml"))
SYNTAX = "SyntaxError: invalid syntax (ex1.py, line 3)"


def broken_row() -> tuple:
    handin = Handin("alice", name="Alice")
    handin.files["exercise-01"] = Submitted("exercise-01", Path("x.py"), "alice/ex1.py")
    broken = ExerciseScore(
        "exercise-01", "error", 0.0, 4.0, (TestScore("test_a[cpu]", 0.0, 4.0, False, SYNTAX),)
    )
    row = build_row(Student("alice", "Alice"), {"exercise-01": broken}, WEEK)
    return row, handin


def test_a_file_that_could_not_run_is_named_with_why():
    row, handin = broken_row()
    lines = attention([row], [handin])[0].lines
    assert f"exercise-01: alice/ex1.py could not run: {SYNTAX}" in lines


def test_a_file_flagged_for_review_is_in_the_list_of_what_needs_a_look():
    """A file that reaches into internals or that the grader could not read as Python does
    lost its checks resting on its own measurements: "Needs a look" says so, beside the
    gradebook's needs_review column."""
    handin = Handin("alice", name="Alice")
    handin.files["exercise-01"] = Submitted("exercise-01", Path("x.py"), "alice/ex1.py")
    note = "line 1: Line 1 of your file declares the encoding 'utf-7'"
    flagged = ExerciseScore(
        "exercise-01",
        "failed",
        1.0,
        4.0,
        (TestScore("test_a[cpu]", 1.0, 4.0, False, "cannot count"),),
        review=(note,),
    )
    row = build_row(Student("alice", "Alice"), {"exercise-01": flagged}, WEEK)
    lines = attention([row], [handin])[0].lines
    assert f"needs review: exercise-01 {note}" in lines


def test_the_progress_line_says_how_many_files_could_not_run():
    stream = io.StringIO()
    progress = Progress(2, stream)
    result = bare_result(
        exercise_id="exercise-01",
        submission="alice/ex1.py",
        status=Status.ERROR,
        score=0,
        max_score=4,
    )
    progress.advance(result)
    progress.show(final=True)
    assert "1 file could not run" in stream.getvalue()
    assert "1 errors" not in stream.getvalue()


def test_a_missing_exercise_keeps_its_title_on_the_feedback_page():
    row, _ = broken_row()
    titles = {"exercise-01": "Add two numbers", "exercise-05": "Scale a tensor"}
    page = feedback_html(row, {}, WEEK, "en", titles)
    assert "Scale a tensor" in page and "Add two numbers" in page


def test_an_empty_submission_is_told_what_was_expected():
    row = build_row(Student("s1", "Sam"), {}, WEEK)
    output = json.loads(gradescope.results_json(row, WEEK))["output"]
    assert output.startswith("No file of this assignment was found in the submission")
    assert "exercise-01.py" in output and "exercise-05.py" in output


@pytest.mark.slow
def test_student_exits_0_for_a_student_who_passed_everything(tmp_path):
    """``--student alice`` regrades Alice, who passed every exercise, in a class where Bob
    did not: the command's exit code is Alice's."""
    root = tmp_path / "class"
    for exercise in ("exercise-01", "exercise-05", "exercise-07"):
        write(root / "alice" / f"{exercise}.py", code("alice"))
        write(root / "bob" / f"{exercise}.py", code("bob wrong"))
    out = tmp_path / "out"
    first = run_cli("batch", str(root), "--out", str(out), "--jobs", "2", home=COURSE, timeout=300)
    assert first.returncode == 1, first.stderr
    again = run_cli("batch", str(root), "--out", str(out), "--student", "alice", "--jobs", "2",
                    home=COURSE, timeout=300)  # fmt: skip
    assert again.returncode == 0, again.stdout + again.stderr
    bob = run_cli("batch", str(root), "--out", str(out), "--student", "bob", "--jobs", "2",
                  home=COURSE, timeout=300)  # fmt: skip
    assert bob.returncode == 1, bob.stdout + bob.stderr
