"""The HTML reports: structure pinned by golden outlines, escaping, charts, the dashboard.

Golden outlines live in tests/golden/. After an intended change to the templates, regenerate them
with `UPDATE_GOLDEN=1 python -m pytest tests/test_report.py` and review the diff. The result JSON
fixtures they render come from real gradings (tests/fixtures/results/regenerate.sh).
"""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

import pytest

from grader.render.charts import loss_chart
from grader.render.dashboard import render_dashboard
from grader.render.html import render_result_data
from grader.results import Result
from tests.conftest import FIXTURES

RESULTS = FIXTURES / "results"
GOLDEN = Path(__file__).resolve().parent / "golden"
CASES = ["passing", "failing", "failing-zh", "error", "markup"]


class Outline(HTMLParser):
    """The report's structure: headings and every element carrying a data-* attribute."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.tags: list[str] = []
        self.scripts = 0
        self.external: list[str] = []
        self._heading: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "script":
            self.scripts += 1
        for key in ("src", "href"):
            value = attrs.get(key) or ""
            if value.startswith(("http:", "https:", "//")):
                self.external.append(value)
        if tag in ("h1", "h2"):
            self._heading, self._text = tag, []
        data = {k: v for k, v in attrs.items() if k.startswith("data-")}
        if data:
            self.lines.append(
                f"{tag} " + " ".join(f"{k}={v}" if v else k for k, v in sorted(data.items()))
            )

    def handle_data(self, data):
        if self._heading:
            self._text.append(data)

    def handle_endtag(self, tag):
        if tag == self._heading:
            self.lines.append(f"{tag}: {' '.join(''.join(self._text).split())}")
            self._heading = None


def render(case: str) -> str:
    data = json.loads((RESULTS / f"{case}.json").read_text(encoding="utf-8"))
    return render_result_data(data)


def outline(html: str) -> Outline:
    parser = Outline()
    parser.feed(html)
    return parser


@pytest.mark.parametrize("case", CASES)
def test_report_structure_matches_golden(case):
    got = "\n".join(outline(render(case)).lines) + "\n"
    golden = GOLDEN / f"result-{case}.outline"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8"), (
        f"regenerate with UPDATE_GOLDEN=1 if intended ({golden})"
    )


@pytest.mark.parametrize("case", CASES)
def test_report_is_self_contained(case):
    html = render(case)
    parsed = outline(html)
    assert parsed.scripts == 0
    assert parsed.external == []
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert '<link rel="stylesheet"' not in html


def test_learner_markup_is_escaped():
    html = render("markup")
    assert "<script>window.pwned" not in html
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt;" in html  # their output
    assert (
        "&lt;script&gt;window.pwned = 3&lt;/script&gt; &amp; &#34;quotes&#34;" in html
    )  # their exception
    assert '<img src="https://example.com' not in html
    assert "<b>bold?</b>" not in html


def test_failing_report_content():
    html = render("failing")
    result = Result.from_json((RESULTS / "failing.json").read_text(encoding="utf-8"))
    assert f"{result.score:g} / {result.max_score:g}" in html
    assert 'data-diagnosis="grad-accumulates"' in html
    assert '<polyline data-series="yours"' in html and '<polyline data-series="expected"' in html
    assert "CUDA is not available" in html  # the skipped cases say why


def test_chinese_report():
    html = render("failing-zh")
    assert 'lang="zh-CN"' in html
    assert "哪里出了问题" in html and "如何修改" in html
    assert "对非连续张量调用 view()" in html
    assert "本机无法使用 CUDA" in html
    # the line of the learner's file where it failed is highlighted and linked both ways
    assert '<tr id="line-15" class="hit">' in html
    assert '<a href="#line-15">第 15 行</a>' in html


def test_passing_report_says_so():
    html = render("passing")
    assert "data-all-passed" in html
    assert "data-failure" not in html


def test_loss_chart_geometry():
    chart = loss_chart({"yours": [4.0, 2.0, 1.0], "expected": [4.0, 1.0, 0.01]})
    assert chart["log"] is True  # 4.0 / 0.01 spans decades
    xs = [float(p.split(",")[0]) for p in chart["yours"].split()]
    assert xs[0] == chart["left"] and xs[-1] == chart["right"]
    flat = loss_chart({"yours": [1.0, 1.0], "expected": [1.0, 1.0]})
    assert flat is not None and flat["log"] is False
    assert loss_chart({"yours": ["x"], "expected": []}) is None
    assert loss_chart({"yours": [float("nan")]}) is None
    nan_tail = loss_chart({"yours": [1.0, float("inf"), float("nan")], "expected": [1.0, 0.5, 0.2]})
    assert len(nan_tail["yours"].split()) == 1


def dashboard_entries() -> list[dict]:
    return [
        {
            "id": "exercise-01",
            "title": "Creating tensors",
            "kind": "implement",
            "concepts": ["dtype", "device"],
            "status": "passed",
            "score": "14",
            "max_score": "14",
            "cuda_points": 0,
            "percent": 100,
            "report": "exercise-01.html",
            "graded_at": "2026-11-29T10:00:00",
        },
        {
            "id": "exercise-05",
            "title": "The view/contiguous bug",
            "kind": "fix",
            "concepts": ["views", "<b>x</b>"],
            "status": "failing",
            "score": "4",
            "max_score": "11",
            "cuda_points": 0,
            "percent": 36,
            "report": "exercise-05.html",
            "graded_at": "2026-11-29T10:05:00",
        },
        {
            "id": "exercise-14",
            "title": "zero_grad placement",
            "kind": "fix",
            "concepts": ["autograd"],
            "status": "not_started",
            "score": "",
            "max_score": "12",
            "cuda_points": 4,
            "percent": 0,
            "report": "",
            "graded_at": "",
        },
    ]


def test_dashboard_structure_matches_golden():
    got = "\n".join(outline(render_dashboard(dashboard_entries(), "en")).lines) + "\n"
    golden = GOLDEN / "dashboard.outline"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(got, encoding="utf-8")
    assert got == golden.read_text(encoding="utf-8")


def test_dashboard_content():
    html = render_dashboard(dashboard_entries(), "zh")
    assert "1/3" in html and "学习进度" in html
    # concepts and kinds in the page's language (grader.concepts), never as slugs
    assert "data-mastered>设备<" in html and "data-mastered>数据类型（dtype）<" in html
    assert '<td class="nowrap">修复错误</td>' in html and ">fix</td>" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html
    assert '<a href="exercise-05.html">' in html


def test_tutorial_sections_are_named_by_their_titles():
    from grader.sections import describe

    data = json.loads((RESULTS / "failing.json").read_text(encoding="utf-8"))
    teaches = [t["diagnosis"]["teaches"] for t in data["tests"] if t.get("diagnosis")]
    assert any(teaches)
    html = render("failing")
    for text in teaches:
        for section in describe(text, "en"):
            assert section.title and section.title.replace("&", "&amp;") in html, section


def test_only_the_revealed_hints_are_shown():
    from grader.results import Result

    result = Result.from_dict(json.loads((RESULTS / "failing.json").read_text(encoding="utf-8")))
    assert len(result.hints) >= 3
    first = outline(render_result_data(result.to_dict())).lines
    assert [line for line in first if line.startswith("details data-hint")] == [
        "details data-hint=1"
    ]
    from grader.render.html import render_result

    html = render_result(result, hints_shown=2)
    assert html.count("<details open data-hint=") == 2  # the two already asked for
    assert result.hints[2] in html and 'data-hint="3"' in html  # the next one, folded
    assert all(hint not in html for hint in result.hints[3:])  # the rest stay for grade hint


def test_the_source_listing_numbers_lines_as_python_does():
    """A form feed or a U+2028 inside a line cut it in two in the report's listing: every line
    after it showed the number of the one before, and a failure's link went one line off."""
    from grader.render.html import result_view
    from tests.conftest import bare_result

    source = "import torch  # a\x0cb\n# c\u2028d\nx = 1\n"
    code = result_view(bare_result(source=source))["code"]
    assert [(line["number"], line["text"]) for line in code] == [
        (1, "import torch  # a\x0cb"),
        (2, "# c\u2028d"),
        (3, "x = 1"),
    ]
