"""Every line intake writes for a student reaches their pages in their language. On a batch in
Chinese, a notebook's extraction notes, the ">10 ignored files" summary, a damaged archive,
intake's per-student caps, a text entry, a team's submission and the "no grade written until
you look" lines reached the feedback page, the result JSON and Gradescope's results.json in
English only. Each of them is now said in Chinese there; a line only the instructor's English
has (a plain ``str``, not a ``Said``) is never shown on a page in Chinese: one line in Chinese
counts it, so nothing English-only reaches the page, and nothing goes unsaid."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.lms import collect, gradescope
from grader.lms.assignment import Assignment
from grader.lms.batch import _with_intake_notes
from grader.lms.feedback import feedback_html
from grader.lms.grades import ExerciseScore, build_rows
from grader.lms.handin import INSTRUCTOR_ONLY_LEFT_OUT, Said, for_learner, notebook_note
from grader.lms.intake import read_submissions
from grader.results import Result
from tests.lms.builders import STARTER, code, exercises, fifo, notebook, write
from tests.lms.test_exports import result

WEEK = Assignment(
    "w", (("exercise-01", 1.0), ("exercise-05", 1.0), ("exercise-07", 1.0)), Path("w.yaml")
)
CJK = re.compile(r"[\u4e00-\u9fff]")

# each kind of hand-in: what it puts in the student's folder, and a word of its Chinese line
KINDS = {
    "notebook": "单元格",  # a notebook whose magics, shell lines and display() are left out
    "ignored": "不是练习文件",  # more than ten files that are no exercise file
    "damaged": "zip 压缩包",  # an archive that is not one: its exercises are withheld
    "cap": "上限",  # more bytes than intake's per-student cap
    "deep": "嵌套",  # folders deeper than intake looks
    "later": "最终版本",  # a look-alike file after the graded one: withheld
    "unreadable": "改为评分",  # a FIFO named as the file, another file graded instead
    "starter": "初始文件",  # the starter, unchanged
}


def build(root: Path, kinds: set[str]) -> None:
    folder = root / "dl" / "erin"
    if "notebook" in kinds:
        cells = ("%matplotlib inline", "!pip install torch", "display(1)", code("erin 1"))
        write(folder / "exercise-01.ipynb", notebook(*cells), mtime=1_900_000_000)
    else:
        write(folder / "exercise-01.py", code("erin 1"), mtime=1_900_000_000)
    if "later" in kinds:
        write(folder / "exercise-01_v2.py", code("erin 1 v2"), mtime=2_000_000_000)
    if "ignored" in kinds:
        for i in range(12):
            write(folder / f"notes{i:02}.txt", "notes")
    if "damaged" in kinds:
        write(folder / "work.zip", b"PK\x03\x04 not a zip at all")
    if "cap" in kinds:
        write(folder / "zz" / "exercise-07.py", code("erin 7") + "#" * 5000)
    if "deep" in kinds:
        write(folder / Path(*["d"] * 26) / "a.txt", "deep")
    if "unreadable" in kinds:
        fifo(folder / "exercise-05.py")
        write(folder / "sub" / "exercise-05.py", code("erin 5"))
    if "starter" in kinds:
        write(folder / "exercise-07.py", STARTER["exercise-07"])


def learner_lines(page: str) -> list[str]:
    """The lines of a feedback page that intake and the gradebook wrote for the student."""
    found = re.findall(r"<li data-problem>(.*?)</li>", page, re.S)
    found += re.findall(r'<p class="note" data-(?:note|reason)>(.*?)</p>', page, re.S)
    return [" ".join(html.unescape(line).split()) for line in found]


def pages(kinds: set[str], lang: str) -> tuple[list[str], str, str]:
    """The student's learner lines on their feedback page, that page, and their Gradescope
    results.json output, in ``lang``, for a hand-in of ``kinds``."""
    root = Path(tempfile.mkdtemp())
    try:
        build(root, kinds)
        cap = 3000 if "cap" in kinds else collect.MAX_STUDENT_BYTES
        with mock.patch.object(collect, "MAX_STUDENT_BYTES", cap):
            intake = read_submissions(root / "dl", staging=root / "st", exercises=exercises())
    finally:
        shutil.rmtree(root, ignore_errors=True)
    (erin,) = intake.handins
    results = {
        e: _with_intake_notes(
            dataclasses.replace(result(e, [("t", 1.0, 1.0, "passed")]), lang=lang), s
        )
        for e, s in erin.files.items()
    }
    stored = {e: Result.from_json(r.to_json()) for e, r in results.items()}
    scores = {erin.key: {e: ExerciseScore.from_result(r) for e, r in stored.items()}}
    (row,) = build_rows([erin], scores, WEEK)
    page = feedback_html(row, stored, WEEK, lang)
    output = json.loads(gradescope.results_json(row, WEEK, lang=lang))
    said = [output["output"], *(t["output"] for t in output["tests"] if t["score"] == 0)]
    return learner_lines(page), page, "\n".join(said)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kinds=st.sets(st.sampled_from(sorted(KINDS)), min_size=1, max_size=4))
def test_no_line_in_english_alone_reaches_a_chinese_page(kinds):
    lines, page, output = pages(kinds, "zh")
    assert lines, page
    for line in lines:
        assert CJK.search(line), (kinds, line)
    for line in output.splitlines():
        assert not line.strip() or CJK.search(line), (kinds, line)
    for kind in kinds:  # each kind is said, in Chinese, not only counted
        assert KINDS[kind] in " ".join(lines), (kind, lines)
    # the English page says each as the instructor's outputs always have
    english, _, _ = pages(kinds, "en")
    assert not any(CJK.search(line) for line in english), english


def test_the_instructor_s_lines_are_counted_not_shown_on_a_learner_s_page_in_any_language():
    """A line written for the instructor ("not on the roster: check who this is", a roster's
    participant ids) told the learner, on an English page, to check who they were."""
    lines = [Said("a.py: ignored", "a.py：已忽略"), "not on the roster: check who this is"]
    assert for_learner(lines, "en") == ("a.py: ignored", INSTRUCTOR_ONLY_LEFT_OUT.format(n=1))
    assert for_learner(lines, "zh") == ("a.py：已忽略", INSTRUCTOR_ONLY_LEFT_OUT.zh.format(n=1))
    assert for_learner([Said("a", "甲")], "en") == ("a",)


def test_a_notebook_note_is_said_in_both_languages_as_the_extraction_says_it():
    note = Text(
        "cell 3, line 2: !ls left out (a shell command, not Python)",
        "第 3 个单元格第 2 行：略去了 !ls",
    )
    said = notebook_note("a.ipynb", note)
    assert said == "a.ipynb: cell 3, line 2: !ls left out (a shell command, not Python)"
    assert said.zh == "a.ipynb：第 3 个单元格第 2 行：略去了 !ls"


def test_moodle_text_entries_and_teams_are_said_in_chinese(tmp_path):
    write(tmp_path / "p" / "Jane Doe_901_assignsubmission_onlinetext_" / "onlinetext.html", "x")
    write(tmp_path / "t" / "Team A_12_assignsubmission_file_" / "exercise-01.py", code("t"))
    write(tmp_path / "t" / "Default group_assignsubmission_file_" / "exercise-01.py", code("d"))
    for download, word in (("p", "文本提交"), ("t", "小组提交")):
        intake = read_submissions(
            tmp_path / download, staging=tmp_path / "st", exercises=exercises()
        )
        for row in build_rows(intake.handins, {}, WEEK):
            lines = learner_lines(feedback_html(row, {}, WEEK, "zh"))
            assert any(word in line for line in lines), lines
            assert all(CJK.search(line) for line in lines), lines


def test_gradescope_and_canvas_lines_are_said_in_chinese(tmp_path):
    """A Gradescope export whose metadata lists a submission the export lacks (unzip cut
    short?), and a Canvas text entry: both reach the student's page, in Chinese."""
    from tests.lms.classes import CLASS, same_class

    export = same_class("gradescope", tmp_path / "g")
    shutil.rmtree(export / f"submission_{CLASS[0][0]}")
    write(tmp_path / "c" / "doejane_4711_text.html", "<p>def add(a, b): ...</p>")
    write(tmp_path / "c" / "roeann_4712_88001_exercise-01.py", code("ann"))
    for download, word in (("g", "导出的文件中没有它的文件夹"), ("c", "文本或网址提交")):
        intake = read_submissions(
            tmp_path / download, staging=tmp_path / "st", exercises=exercises()
        )
        said = []
        for row in build_rows(intake.handins, {}, WEEK):
            lines = learner_lines(feedback_html(row, {}, WEEK, "zh"))
            assert all(CJK.search(line) for line in lines), lines
            output = json.loads(gradescope.results_json(row, WEEK, lang="zh"))["output"]
            assert all(CJK.search(line) for line in output.splitlines() if line.strip()), output
            said += lines
        assert any(word in line for line in said), said
