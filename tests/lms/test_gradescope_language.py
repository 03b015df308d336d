"""The Gradescope autograder's lines above the tests (the score, when it is shown, lateness,
nothing found, the grader's own failure) were English whatever ``--lang`` the autograder was
built with; a course graded in Chinese gave its students Chinese tests under English lines.
They now follow the feedback's language, for every shape of the result."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms import gradescope
from grader.lms.assignment import Assignment, GradescopeSettings, LatePolicy
from grader.lms.grades import ExerciseScore, Student, build_row

DUE = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
FULL = {"exercise-01": ExerciseScore("exercise-01", "passed", 4.0, 4.0)}
# what an English line of the summary is made of, and what none of the Chinese ones may hold
ENGLISH = re.compile(r"\b(Score|Handed|late|penalty|points|file|autograder|shown|Graded)\b")
policies = st.one_of(
    st.none(),
    st.builds(
        LatePolicy,
        per_day_percent=st.sampled_from([0.0, 10.0, 100.0]),
        max_days=st.one_of(st.none(), st.integers(min_value=0, max_value=5)),
        after_max_days=st.sampled_from(["zero", "cap"]),
    ),
)


def _output(lang: str, *, policy, visibility, days, handed_in, fault, isolation) -> str:
    assignment = Assignment(
        "w",
        (("exercise-01", 1.0),),
        Path("w.yaml"),
        due=DUE,
        late=policy,
        gradescope=dataclasses.replace(GradescopeSettings(), visibility=visibility),
    )
    row = build_row(
        Student("4711", "Jane Doe"),
        FULL if handed_in else {},
        assignment,
        submitted_at=DUE + timedelta(days=days, seconds=-30) if days else DUE,
    )
    text = gradescope.results_json(row, assignment, isolation=isolation, fault=fault, lang=lang)
    return json.loads(text)["output"]


@settings(max_examples=60, deadline=None)
@given(
    policy=policies,
    visibility=st.sampled_from(["visible", "after_due_date", "after_published"]),
    days=st.integers(min_value=0, max_value=8),
    handed_in=st.booleans(),
    fault=st.sampled_from(["", "the grader itself failed in exercise-01"]),
    isolation=st.sampled_from(["", "namespaces"]),
)
def test_the_lines_above_the_tests_speak_the_feedbacks_language(
    policy, visibility, days, handed_in, fault, isolation
):
    shape = dict(
        policy=policy,
        visibility=visibility,
        days=days,
        handed_in=handed_in,
        fault=fault,
        isolation=isolation,
    )
    en, zh = _output("en", **shape), _output("zh", **shape)
    en_lines, zh_lines = en.splitlines(), zh.splitlines()
    assert len(en_lines) == len(zh_lines) and en_lines, (en, zh)
    for line in en_lines:
        assert ENGLISH.search(line), line
    for line in zh_lines:
        # the grader's own words for a fault, and the tier's name, stay as they are
        said = line.replace(fault, "").replace(isolation, "") if line else line
        assert re.search(r"[\u4e00-\u9fff]", line) and not ENGLISH.search(said), line
    assert "{" not in en and "{" not in zh  # every placeholder filled


def test_the_english_lines_are_as_they_were():
    out = _output(
        "en",
        policy=LatePolicy(per_day_percent=10.0),
        visibility="visible",
        days=2,
        handed_in=True,
        fault="",
        isolation="process",
    )
    assert out.splitlines() == [
        "Score: 100% of the exercises' weighted points.",
        "Handed in 2 day(s) late: -20 percentage points, 80% in all.",
        "Graded in the grader's 'process' isolation tier.",
    ]


def test_a_run_that_produced_no_grade_tells_the_student_in_their_language():
    zh = json.loads(gradescope.fault_json("the assignment did not load", lang="zh"))["output"]
    assert "请联系老师" in zh and "the assignment did not load" in zh
    en = json.loads(gradescope.fault_json("the assignment did not load"))["output"]
    assert "please contact your instructor" in en


def _metadata_user(due: object, name: str) -> dict:
    return {"name": name, "email": f"{name.lower()}@example.edu", "assignment": {"due_date": due}}


NAMES = r"exercise-[0-9]+(\.py)?|\.ipynb"  # file names, the same in every language
DATES = st.one_of(
    st.none(),
    st.sampled_from(["2026-12-03T23:59:00-08:00", "2026-12-05T10:00:00+00:00", "Friday", 7, []]),
)


@settings(max_examples=40, deadline=None)
@given(
    class_due=st.sampled_from([None, "2026-12-01T23:59:00+00:00", "tomorrow", 3]),
    created=st.sampled_from([None, "2026-12-04T08:00:00+00:00", "soon"]),
    dues=st.lists(DATES, min_size=1, max_size=3),
    total=st.sampled_from([None, 100, 20, "12.5"]),
    exercises=st.sampled_from(["full", "missing", "unreadable"]),
    problems=st.lists(st.sampled_from(["notes.txt: no exercise file; ignored"]), max_size=1),
)
def test_every_line_the_student_reads_follows_the_language(
    tmp_path_factory, class_due, created, dues, total, exercises, problems
):
    """The lines Gradescope's metadata gave (an own due date, an unreadable one, group members
    with different dates, Gradescope's own points, an unreadable submission time) and the
    per-exercise lines of missing or unreadable work were English in a Chinese result. Each is
    now in the student's language; the reader's own lines on the files, English as it writes
    them, come under a line in the student's language that says so."""
    tmp = tmp_path_factory.mktemp("meta")
    document = {
        "id": 1,
        "created_at": created,
        "assignment": {"due_date": class_due, "total_points": total},
        "users": [_metadata_user(d, f"User{i}") for i, d in enumerate(dues)],
    }
    path = tmp / "submission_metadata.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    meta = gradescope.read_run_metadata(path)
    assignment = Assignment("w", (("exercise-01", 1.0),), Path("w.yaml"), late=LatePolicy(10.0))
    handin = gradescope.Handin("1001", name="User0", problems=list(problems))
    scores = {
        "full": FULL,
        "missing": {"exercise-01": ExerciseScore.missing("exercise-01")},
        "unreadable": {"exercise-01": ExerciseScore.unreadable("exercise-01", "a.py: not UTF-8")},
    }[exercises]
    english = json.loads(gradescope.finish_run(handin, meta, scores, assignment, lang="en"))
    chinese = json.loads(gradescope.finish_run(handin, meta, scores, assignment, lang="zh"))
    assert english["score"] == chinese["score"]
    said = chinese["output"].splitlines()
    for i, line in enumerate(said):
        if line.startswith("  "):  # the reader's own lines, under the line that says so
            assert said[i - 1].startswith("  ") or "英文原文" in said[i - 1], chinese["output"]
            continue
        bare = re.sub(r"（[^（）]*）|\([^()]*\)|gradescope\.points|Gradescope|" + NAMES, "", line)
        assert not re.search(r"[A-Za-z]{3,}", bare), line
    for test in chinese["tests"]:
        if test["visibility"] == "visible" and test["score"] == 0:
            name = test["name"].split(": ", 1)[1]
            assert not re.search(r"[A-Za-z]{3,}", name), test["name"]
            bare = re.sub(r"（[^（）]*）|" + NAMES, "", test["output"])
            assert not re.search(r"[A-Za-z]{3,}", bare), test["output"]


def test_the_grader_s_own_failure_is_told_in_the_language():
    """The run said "自动评分器无法为这次提交评分（the grader itself failed in exercise-01）":
    why the grader failed is the student's to read too."""
    assert gradescope.failed_in(["exercise-01"]) == "the grader itself failed in exercise-01"
    said = gradescope.contact_line(gradescope.failed_in(["exercise-01", "exercise-02"], "zh"), "zh")
    assert not re.search(r"[A-Za-z]{3,}", re.sub(NAMES, "", said)), said
