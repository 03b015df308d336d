"""What intake did to a student's files (a file taken for an exercise, a notebook's cells, the
one of two versions graded, a folder named as the file, an entry that could not be read)
reaches the student's feedback page: in Chinese on a page in Chinese, where it was English
only. What only the instructor reads stays English."""

from __future__ import annotations

import dataclasses
import html
import re
from pathlib import Path

from grader.lms.assignment import Assignment
from grader.lms.batch import _with_intake_notes
from grader.lms.feedback import feedback_html
from grader.lms.gradebook import gradebook_csv
from grader.lms.grades import ExerciseScore, build_rows
from grader.lms.handin import Said
from grader.lms.intake import read_submissions
from grader.results import Result
from tests.lms.builders import code, fifo, notebook, write
from tests.lms.test_exports import result

POINTS = [("t", 1.0, 1.0, "passed")]
WEEK = Assignment(
    "w", (("exercise-01", 1.0), ("exercise-05", 1.0), ("exercise-07", 1.0)), Path("w.yaml")
)


def page_text(page: str) -> str:
    page = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_intake_notes_reach_a_chinese_page_in_chinese(infos, tmp_path):
    root = tmp_path / "dl"
    write(root / "erin" / "ex1.ipynb", notebook(code("erin 1")), mtime=2_000_000_000)
    write(root / "erin" / "old" / "exercise-01.py", code("erin 1 old"), mtime=1_900_000_000)
    write(root / "erin" / "exercise-05.py" / "exercise-05.py", code("erin 5"))
    fifo(root / "erin" / "exercise-07.py")
    write(root / "erin" / "notes.txt", "my notes")
    write(root / "erin" / "ex5_final.py", code("erin 5 final"))
    (erin,) = read_submissions(root, staging=tmp_path / "st", exercises=infos).handins

    def graded(lang):  # as a batch in ``lang`` grades: its results and pages in that language
        results = {
            e: _with_intake_notes(dataclasses.replace(result(e, POINTS), lang=lang), s)
            for e, s in erin.files.items()
        }
        # as the cache gives them back on the next run: the same page
        stored = {e: Result.from_json(r.to_json()) for e, r in results.items()}
        scores = {erin.key: {e: ExerciseScore.from_result(r) for e, r in results.items()}}
        (row,) = build_rows([erin], scores, WEEK)
        page = page_text(feedback_html(row, results, WEEK, lang))
        assert page == page_text(feedback_html(row, stored, WEEK, lang))
        return row, page

    notes = [n for s in erin.files.values() for n in s.notes] + list(erin.unreadable.values())
    assert len(notes) == 5 and all(isinstance(n, Said) for n in notes), notes
    row, en = graded("en")
    zh = graded("zh")[1]
    for note in notes:
        assert " ".join(note.zh.split()) in zh and " ".join(note.split()) not in zh, note
        assert " ".join(note.split()) in en, note
    assert "被当作 exercise-01 评分" in zh and "是一个文件夹" in zh and "文件无法读取" in zh
    # files that are no exercise file, on the page's list of what was found
    for en_said, zh_said in [
        (
            "erin/notes.txt: not a .py or .ipynb file; ignored",
            "erin/notes.txt：不是 .py 或 .ipynb 文件；已忽略",
        ),
        ("erin/ex5_final.py: looks like exercise-05", "erin/ex5_final.py：看起来是 exercise-05"),
    ]:
        assert en_said in en and en_said not in zh and zh_said in zh, (en_said, zh)
    # the instructor's gradebook is as it was: English
    book = gradebook_csv([row], WEEK, {e: 1.0 for e, _ in WEEK.exercises})
    assert not re.search(r"[\u4e00-\u9fff]", book), book


def test_a_result_carries_intake_notes_in_its_own_language(tmp_path):
    """The result JSON and the exercise's own report say intake's notes in the result's
    language, as they say the engine's: an unchanged starter, a file taken for the exercise."""
    from grader.lms.handin import Submitted
    from grader.render.html import render_result

    taken = Said("erin/ex1.py taken as exercise-01", "erin/ex1.py 被当作 exercise-01 评分")
    submitted = Submitted(
        "exercise-01", tmp_path / "exercise-01.py", "erin/ex1.py", [taken], unchanged_starter=True
    )
    for lang, said, other in (
        ("zh", "未经修改的初始文件", "starter file"),
        ("en", "starter file", "初始文件"),
    ):
        graded = _with_intake_notes(
            dataclasses.replace(result("exercise-01", POINTS), lang=lang), submitted
        )
        stored = Result.from_json(graded.to_json())
        assert stored.notes == graded.notes and taken.get(lang) in stored.notes
        assert any(said in n for n in stored.notes) and not any(other in n for n in stored.notes)
        report = page_text(render_result(stored))
        assert taken.get(lang) in report and said in report
