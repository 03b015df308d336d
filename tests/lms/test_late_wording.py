"""What a student is told about lateness follows the assignment's late rule, whatever its shape.

Under "0% a day, then no credit after 3 days" (``per_day_percent: 0, max_days: 3``), a
submission Canvas marks late (its download gives no time) was told "The late penalty is not
part of this grade: Canvas's Late Policy applies it in Canvas": there is no deduction for
Canvas to apply, and work more than 3 days late gets no credit, which the student was not told.
"""

from __future__ import annotations

import html
import json
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n import number
from grader.lms import canvas, gradescope
from grader.lms.assignment import Assignment, LatePolicy
from grader.lms.feedback import feedback_html
from grader.lms.grades import ExerciseScore, Student, build_row
from grader.lms.handin import Handin

DUE = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
policies = st.builds(
    LatePolicy,
    per_day_percent=st.sampled_from([0.0, 0.5, 10.0, 33.3, 100.0]),
    max_days=st.one_of(st.none(), st.integers(min_value=0, max_value=10)),
    after_max_days=st.sampled_from(["zero", "cap"]),
)
FULL = {"exercise-01": ExerciseScore("exercise-01", "passed", 4.0, 4.0)}


def assignment_with(policy: LatePolicy | None) -> Assignment:
    return Assignment("w", (("exercise-01", 1.0),), Path("w.yaml"), due=DUE, late=policy)


def told(assignment: Assignment, lang: str, *, days: int | None) -> str:
    """The feedback page's text of a full-marks student: handed in ``days`` days late with a
    time, or (``None``) marked late by Canvas without one."""
    handin = Handin("4711", name="Jane Doe", late=days is None)
    when = None if days is None else DUE + timedelta(days=days, seconds=-30)
    row = build_row(
        Student("4711", "Jane Doe"),
        FULL,
        assignment,
        submitted_at=when,
        late_flag=days is None,
        lateness=canvas.lateness(handin, assignment),
    )
    page = re.sub(r"(?s)<(style|script)\b.*?</\1>", " ", feedback_html(row, {}, assignment, lang))
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def zero_after(policy: LatePolicy | None) -> bool:
    """The rule gives no credit past a day limit."""
    return policy is not None and policy.max_days is not None and policy.after_max_days == "zero"


@settings(max_examples=150, deadline=None)
@given(policy=st.one_of(st.none(), policies))
def test_canvas_late_work_is_told_what_the_rule_does(policy):
    assignment = assignment_with(policy)
    en = told(assignment, "en", days=None)
    zh = told(assignment, "zh", days=None)
    free = policy is None or policy.costs_nothing
    deducts = policy is not None and not free and policy.per_day_percent > 0
    # Canvas's Late Policy is named as applying a deduction only where there is one
    assert ("Canvas's Late Policy applies it" in en) == deducts, en
    assert ("迟交政策（Late Policy）在 Canvas 中扣除" in zh) == deducts, zh
    # a day limit past which there is no credit is always said
    limit = zero_after(policy) and not free
    assert ("gets no credit" in en or "gives no credit for work" in en) == limit, en
    assert ("不得分" in zh) == limit, zh
    if limit:
        assert policy is not None and f"more than {policy.max_days} days late" in en
        assert f"超过 {policy.max_days} 天不得分" in zh
    if free:
        assert "no late penalty applies" in en and "不扣分" in zh
    if limit and policy is not None and policy.per_day_percent == 0:
        assert f"nothing for work up to {policy.max_days} days late" in en, en
        assert f"迟交 {policy.max_days} 天以内不扣分" in zh, zh
    assert "{" not in en and "{" not in zh  # every placeholder filled


@settings(max_examples=150, deadline=None)
@given(policy=policies, days=st.integers(min_value=1, max_value=14))
def test_late_work_with_a_time_is_told_what_the_rule_did(policy, days):
    assignment = assignment_with(policy)
    en = told(assignment, "en", days=days)
    zh = told(assignment, "zh", days=days)
    over = zero_after(policy) and policy.max_days is not None and days > policy.max_days
    lost = over or (policy.per_day_percent > 0 and not (
        policy.max_days == 0 and policy.after_max_days == "cap"))  # fmt: skip
    if not lost:
        assert "no late penalty applies" in en and "不扣分" in zh, en
    else:
        assert "no late penalty applies" not in en and "percentage points off" in en, en
    if over:
        assert "the late rule gives no credit" in en and "按迟交规则不得分" in zh
    elif zero_after(policy) and not lost:
        # free for now, and told where the free days end
        assert f"up to {policy.max_days} days late" in en and "不得分" in zh, en
    assert "{" not in en and "{" not in zh


@settings(max_examples=150, deadline=None)
@given(policy=policies, days=st.integers(min_value=1, max_value=14))
def test_the_gradescope_result_says_what_the_rule_did(policy, days):
    """The autograder's output said "Handed in 2 day(s) late: -0 percentage points" under
    "free for 3 days, then no credit", and nothing of the day limit past it."""
    assignment = assignment_with(policy)
    row = build_row(
        Student("4711", "Jane Doe"), FULL, assignment, submitted_at=DUE + timedelta(days=days)
    )
    output = json.loads(gradescope.results_json(row, assignment))["output"]
    if not row.late_percent:
        assert "no late penalty applies" in output and "-0 percentage points" not in output
    else:
        assert f"-{number(row.late_percent)} percentage points" in output
    if zero_after(policy):
        assert policy.max_days is not None
        limit = f"more than {policy.max_days} days late"
        assert (limit in output.lower()) == (not row.late_percent or days > policy.max_days)


@settings(max_examples=100, deadline=None)
@given(
    policy=policies,
    days=st.integers(min_value=1, max_value=14),
    lang=st.sampled_from(["en", "zh"]),
)
def test_work_the_rule_took_nothing_from_is_told_in_one_sentence_everywhere(policy, days, lang):
    """The feedback page said "Handed in 2 days late; no late penalty applies" where the
    Gradescope result said "Handed in 2 day(s) late; no late penalty applies.": two functions
    wrote the line. One sentence, on the page and in results.json, in the student's language."""
    assignment = assignment_with(policy)
    when = DUE + timedelta(days=days, seconds=-30)
    row = build_row(Student("4711", "Jane Doe"), FULL, assignment, submitted_at=when)
    if row.late_percent or not row.days_late:
        return
    output = json.loads(gradescope.results_json(row, assignment, lang=lang))["output"]
    lines = [line.rstrip(".。") for line in output.splitlines()]
    page = told(assignment, lang, days=days)
    free = [line for line in lines if ("不扣分" if lang == "zh" else "no late penalty") in line]
    assert len(free) == 1, output
    assert free[0] in page, (free[0], page)
