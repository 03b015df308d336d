"""The reports in a real browser: headless Chromium renders them with no console error and no
network request beyond the file itself, and a screenshot of each lands in test-artifacts/.

Skipped where Chromium is not installed, except when GRADER_REQUIRE_BROWSER=1 (CI sets it).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from grader.render.dashboard import render_dashboard
from grader.render.html import render_result_data
from tests.browser import find_chromium, render
from tests.conftest import FIXTURES, ROOT
from tests.test_report import dashboard_entries

pytestmark = pytest.mark.browser
ARTIFACTS = ROOT / "test-artifacts"

if find_chromium() is None:
    if os.environ.get("GRADER_REQUIRE_BROWSER"):
        raise RuntimeError("GRADER_REQUIRE_BROWSER is set but Chromium is not installed")
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)


def write_report(case: str, tmp_path: Path) -> Path:
    data = json.loads((FIXTURES / "results" / f"{case}.json").read_text(encoding="utf-8"))
    path = tmp_path / f"{case}.html"
    path.write_text(render_result_data(data), encoding="utf-8")
    return path


def check_page(path: Path, name: str, **kwargs):
    page = render(path, **kwargs)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"{name}.png").write_bytes(page.screenshot)
    if page.pdf:
        (ARTIFACTS / f"{name}.pdf").write_bytes(page.pdf)
    assert page.console_errors == [], page.console_errors
    assert page.external_requests == [], page.external_requests
    assert page.requests == [path.resolve().as_uri()]
    assert page.screenshot.startswith(b"\x89PNG") and len(page.screenshot) > 10_000
    return page


@pytest.mark.parametrize(
    ("case", "visible"),
    [
        ("passing", "Every test passed"),
        ("failing", "Gradients accumulate between steps"),
        ("error", "syntax error at line 1"),
        ("failing-zh", "对非连续张量调用 view()"),
    ],
)
def test_result_reports_render_cleanly(tmp_path, case, visible):
    page = check_page(write_report(case, tmp_path), f"report-{case}", pdf=case == "failing")
    assert visible in page.text
    if case == "failing":
        assert page.pdf.startswith(b"%PDF")


def test_dashboard_renders_cleanly(tmp_path):
    path = tmp_path / "dashboard.html"
    path.write_text(render_dashboard(dashboard_entries(), "en"), encoding="utf-8")
    page = check_page(path, "dashboard")
    assert "1/3 exercises passed" in page.text


def test_learner_markup_never_runs(tmp_path):
    page = check_page(
        write_report("markup", tmp_path),
        "report-markup",
        evaluate=("typeof window.pwned", "document.querySelectorAll('img').length"),
    )
    assert page.values["typeof window.pwned"] == "undefined"
    assert page.values["document.querySelectorAll('img').length"] == 0
    assert "<script>window.pwned = 3</script>" in page.text  # shown as text, not run


def class_report(lang: str) -> str:
    """The class report of a batch of one student (tests.test_feedback's case): every part of
    the page (gradebook, histogram, pass rates, misconceptions, problems) has something in it."""
    from grader.lms.gradebook import class_stats, exercise_maxima
    from grader.render.classreport import render_class
    from tests.test_feedback import case

    row, results, task = case(lang)
    keyed = {(row.student.key, e): r for e, r in results.items()}
    maxima = exercise_maxima([row], task, {e: 10.0 for e, _ in task.exercises})
    titles = {e: f"Title of {e}" for e, _ in task.exercises}
    stats = class_stats([row], keyed, task, maxima, titles)
    return render_class([row], task, maxima, titles, stats, ["stray.txt"], lang)


def accessibility_page(name: str, tmp_path: Path) -> Path:
    from grader.render.feedback import render_feedback
    from tests.test_feedback import case

    path = tmp_path / f"{name}.html"
    if name.startswith("report-"):
        return write_report(name.removeprefix("report-"), tmp_path)
    if name.startswith("inline-"):
        from grader.render.html import render_inline
        from grader.results import Result

        lang = name.removeprefix("inline-")
        case_name = "failing-zh" if lang == "zh" else "failing"
        data = json.loads((FIXTURES / "results" / f"{case_name}.json").read_text("utf-8"))
        fragment = render_inline(Result.from_dict(data), report_path="report.html")
        text = (
            f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            f"<title>notebook</title></head><body><main><h1>notebook</h1>{fragment}</main></body></html>"
        )
    elif name.startswith("dashboard-"):
        text = render_dashboard(dashboard_entries(), name.removeprefix("dashboard-"))
    elif name.startswith("class-"):
        text = class_report(name.removeprefix("class-"))
    else:
        lang = name.removeprefix("feedback-")
        row, results, task = case(lang)
        text = render_feedback(row, results, task, lang)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "name",
    [
        "report-failing",
        "report-failing-zh",
        "report-error",
        "dashboard-en",
        "dashboard-zh",
        "class-en",
        "feedback-en",
        "feedback-zh",
        "inline-en",
    ],
)
def test_pages_have_no_accessibility_violations(tmp_path, name):
    """axe-core (vendored, tests/vendor/axe-core) finds nothing on a report in English and in
    Chinese, the dashboard, the class report and a student's feedback page: every rule, WCAG
    AA colour contrast among them, with every folded section opened."""
    page = render(accessibility_page(name, tmp_path), axe=True)
    found = [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:5]}"
        for v in page.violations
    ]
    assert found == [], "\n".join(found)
