"""A student's feedback page: every exercise in order, the grade and its late breakdown, the
diagnoses, hostile learner text escaped, review notes kept from the student, both languages, and
the same bytes for the same input. The rows and results are built here from the real result
fixtures (tests/fixtures/results)."""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta, timezone
from pathlib import Path

from markupsafe import escape

from grader.i18n import REPORT
from grader.lms.assignment import Assignment, LatePolicy
from grader.lms.feedback import feedback_html
from grader.lms.grades import ExerciseScore, GradeRow, Student, build_row, number
from grader.lms.handin import Said
from grader.render.feedback import MAX_TEXT_CHARS
from grader.results import Result, ReviewNote
from tests.conftest import FIXTURES
from tests.test_report import outline

RESULTS = FIXTURES / "results"
DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)
ORDER = ("exercise-14", "exercise-05", "exercise-90", "exercise-01", "exercise-07", "exercise-03")
HOSTILE_FILE = "<script>window.pwned = 1</script>{{ 7*7 }}.py"
HOSTILE_NOTE = "ex90</textarea><script>window.pwned = 2</script>.py taken as exercise-90"
HOSTILE_PROBLEM = "{{ evil }}<script>window.pwned = 3</script>.md: not an exercise file; ignored"
SECRET = "REVIEW-SECRET: patches torch.optim.SGD.step"


def result(case: str) -> Result:
    return Result.from_json((RESULTS / f"{case}.json").read_text(encoding="utf-8"))


def assignment(late: LatePolicy | None = None) -> Assignment:
    weights = (2.0, 1.0, 1.0, 1.0, 1.0, 1.0)
    return Assignment(
        name="week-3",
        title="Week 3: autograd",
        exercises=tuple(zip(ORDER, weights, strict=True)),
        path=Path("week-3.yaml"),
        due=DUE,
        late=late or LatePolicy(per_day_percent=10, max_days=3, after_max_days="zero"),
    )


def case(
    lang: str = "en", days_late: int = 2, late: LatePolicy | None = None
) -> tuple[GradeRow, dict[str, Result], Assignment]:
    """A student with a failing (and flagged) exercise, a passing one, one with hostile output
    and file names, and one each missing, unreadable and handed in but not graded."""
    failing = dataclasses.replace(result("failing"), review=(ReviewNote("monkeypatch", 7, SECRET),))
    passing = result("failing-zh" if lang == "zh" else "passing")
    markup = result("markup")
    markup = dataclasses.replace(
        markup, submission=HOSTILE_FILE, notes=(HOSTILE_NOTE, *markup.notes)
    )
    results = {r.exercise_id: r for r in (failing, passing, markup)}
    scores = {e: ExerciseScore.from_result(r) for e, r in results.items()}
    scores["exercise-07"] = ExerciseScore.unreadable("exercise-07", "</textarea> not UTF-8")
    scores["exercise-03"] = ExerciseScore("exercise-03", "not graded")
    task = assignment(late)
    submitted = DUE + timedelta(days=days_late) - timedelta(hours=1) if days_late else None
    row = build_row(
        Student("jdoe", "Jane <b>Doe</b>", "jane@example.edu", "s1234567", "4711"),
        scores,
        task,
        submitted_at=submitted,
        # as intake says a learner's own line: in both languages (a plain line is the
        # instructor's, and no learner's page shows it)
        problems=[
            Said(HOSTILE_PROBLEM, HOSTILE_PROBLEM.replace("not an exercise file", "不是练习文件"))
        ],
    )
    return row, results, task


def page(lang: str = "en", **kwargs) -> str:
    row, results, task = case(lang, **kwargs)
    return feedback_html(row, results, task, lang)


def test_every_exercise_appears_in_the_assignments_order():
    html = page()
    for marker in ('data-exercise="{}"', 'data-exercise-section="{}"'):
        positions = [html.index(marker.format(e)) for e in ORDER]
        assert positions == sorted(positions)
    assert "Week 3: autograd" in html and "Jane &lt;b&gt;Doe&lt;/b&gt;" in html
    assert "s1234567" in html and "jane@example.edu" in html
    assert "zero_grad placement" in html  # the exercise's title, from its result
    assert "No file was handed in for this exercise." in html
    assert "&lt;/textarea&gt; not UTF-8" in html  # the unreadable file's reason
    assert "The file was handed in but not graded." in html


def test_the_final_grade_and_its_late_breakdown():
    row, results, task = case()
    html = feedback_html(row, results, task, "en")
    assert row.days_late == 2 and row.late_percent == 20
    assert f'data-final="{number(row.final_percent)}%"' in html
    assert f"{number(row.weighted_percent)}% before the late penalty" in html
    assert "Handed in 2 days late: 20 percentage points off" in html
    on_time = page(days_late=0)
    assert "data-breakdown" not in on_time and "days late" not in on_time


def test_the_late_rule_zeroing_the_grade_is_said():
    html = page(days_late=5)
    assert 'data-final="0%"' in html
    assert "Handed in 5 days late" in html
    assert "More than 3 days late: the late rule gives no credit" in html
    floor = page(days_late=3, late=LatePolicy(per_day_percent=50))
    assert 'data-final="0%"' in floor and "The late penalty takes the grade to 0%" in floor
    free = page(days_late=1, late=LatePolicy(per_day_percent=0))
    assert "Handed in 1 day late; no late penalty applies" in free


def test_nothing_handed_in():
    task = assignment()
    row = build_row(Student("ghost", "Absent Student"), {}, task)
    html = feedback_html(row, {}, task, "en")
    assert 'data-final="0%"' in html and "Nothing was handed in for this assignment." in html
    assert html.count('data-status="missing"') == len(ORDER)


def test_failures_show_their_diagnosis_and_passes_are_compact():
    row, results, task = case()
    html = feedback_html(row, results, task, "en")
    fixes = {t.diagnosis.fix for r in results.values() for t in r.tests if t.diagnosis}
    assert fixes and all(str(escape(fix)) in html for fix in fixes)
    assert 'data-diagnosis="grad-accumulates"' in html
    assert "Gradient accumulation and zero_grad()" in html  # the tutorial section it teaches
    assert "epoch 0: loss 3.9383" in html  # the learner's output
    assert 'data-passed="5"' in html and "test_to_sequence_values[cpu]" in html


def test_skipped_cuda_cases_are_one_line():
    html = page()
    assert "5 CUDA cases were not run: no GPU on the grading machine." in html
    assert "4 CUDA cases were not run" in html
    assert "[cuda]" not in html and "test(s) skipped" not in html


def test_learner_text_is_escaped():
    html = page()
    parsed = outline(html)
    assert parsed.scripts == 0 and parsed.external == []
    assert "<script" not in html and "</textarea>" not in html and "<b>" not in html
    assert str(escape(HOSTILE_FILE)) in html
    assert str(escape(HOSTILE_NOTE)) in html
    assert str(escape(HOSTILE_PROBLEM)) in html
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html  # their printed output
    assert "{{ 7*7 }}" in html and "{{ evil }}" in html  # shown as written, never evaluated


def test_the_page_stands_alone():
    html = page()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert '<link rel="stylesheet"' not in html and "<script" not in html
    hrefs = [part.split('"', 1)[0] for part in html.split('href="')[1:]]
    assert hrefs and all(h.startswith("#") or h.startswith("data:") for h in hrefs)


def test_review_notes_stay_with_the_instructor():
    html = page()
    assert "Your instructor is reviewing this grade; it may still change." in html
    assert html.count("data-under-review") == 1
    assert SECRET not in html and "monkeypatch" not in html and str(escape(SECRET)) not in html
    assert REPORT["en"]["review_note"] not in html


def test_long_output_is_capped():
    row, results, task = case()
    markup = results["exercise-90"]
    long = tuple(
        dataclasses.replace(t, output="x" * (3 * MAX_TEXT_CHARS)) if t.output else t
        for t in markup.tests
    )
    results["exercise-90"] = dataclasses.replace(markup, tests=long)
    html = feedback_html(row, results, task, "en")
    assert "x" * MAX_TEXT_CHARS in html and "x" * (MAX_TEXT_CHARS + 1) not in html
    assert "data-output-cut" in html and "Output (cut: too long)" in html


def test_chinese_labels():
    html = page("zh")
    assert 'lang="zh-CN"' in html
    for word in ("作业反馈", "最终成绩", "权重", "关于你的提交", "缺失", "无法读取", "未评分"):
        assert word in html, word
    assert "迟交 2 天：扣 20 个百分点" in html
    assert "有 5 个 CUDA 用例没有运行：评分机器上没有 GPU。" in html
    assert "老师正在审阅这项成绩" in html
    assert "Final grade" not in html and "Weight" not in html


def test_both_languages_have_every_label():
    assert set(REPORT["en"]) == set(REPORT["zh"])


def test_same_input_same_bytes():
    row, results, task = case()
    first = feedback_html(row, results, task, "en")
    assert feedback_html(row, results, task, "en") == first
    reordered = dict(reversed(list(results.items())))
    assert feedback_html(row, reordered, task, "en") == first
    assert "2026" not in first  # no dates or times on the page
