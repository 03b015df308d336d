"""A student's feedback page in a real browser: headless Chromium shows the grade and every
exercise with no console error, no request beyond the file itself, none of the learner's markup
run, and a printable page; screenshots (and a PDF) land in test-artifacts/.

Skipped where Chromium is not installed, except when GRADER_REQUIRE_BROWSER=1 (CI sets it).
"""

from __future__ import annotations

import pytest

from grader.lms.feedback import feedback_html
from grader.lms.grades import number
from tests.test_feedback import ORDER, case
from tests.test_report_browser import check_page  # skips this module where Chromium is missing

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(("lang", "label"), [("en", "Final grade"), ("zh", "最终成绩")])
def test_feedback_page_renders_cleanly(tmp_path, lang, label):
    row, results, task = case(lang)
    path = tmp_path / f"feedback-{lang}.html"
    path.write_text(feedback_html(row, results, task, lang), encoding="utf-8")
    page = check_page(
        path,
        f"feedback-{lang}",
        pdf=lang == "en",
        evaluate=("typeof window.pwned", "document.scripts.length"),
    )
    assert label in page.text
    assert f"{number(row.final_percent)}%" in page.text
    for exercise in ORDER:
        assert exercise in page.text
    assert page.values["typeof window.pwned"] == "undefined"
    assert page.values["document.scripts.length"] == 0
    assert "<script>window.pwned = 1</script>" in page.text  # their output, shown as text
    if lang == "en":
        assert page.pdf.startswith(b"%PDF")
