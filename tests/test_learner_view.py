"""What a learner reads, beyond the verdicts: Chinese laid out by display width and free of
English slugs, plain words for tolerances and crashes, warnings cut at a word and said to be,
one diagnosis box per mistake, tutorial citations a student can look up, the review note that
fits where the grading ran, and report fonts that cover Chinese."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.concepts import CONCEPTS, concept_name
from grader.i18n import display_width, wrap
from grader.render import terminal
from grader.render.html import render_inline, render_result
from grader.results import Frame, Result, ReviewNote, Status
from tests.conftest import FIXTURES

RESULTS = FIXTURES / "results"
CJK_FONTS = (
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "PingFang SC",
    "Microsoft YaHei",
    "WenQuanYi Micro Hei",
)


def result(case: str) -> Result:
    return Result.from_dict(json.loads((RESULTS / f"{case}.json").read_text(encoding="utf-8")))


# -- wrapping by display width -----------------------------------------------------------------

words = st.one_of(
    st.text(alphabet="abcdefghij.,()", min_size=1, max_size=12),
    st.text(alphabet="张量梯度视图连续内存，。、：", min_size=1, max_size=30),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(words, max_size=40), st.sampled_from(["", " "]), st.integers(10, 100))
def test_wrapped_lines_fit_their_display_width(parts, joiner, width):
    """Every line fits ``width`` terminal columns (a Chinese character counts two), unless it
    is one word longer than the width; nothing but spaces is lost or reordered."""
    text = joiner.join(parts)
    lines = wrap(text, width)
    for line in lines:
        assert display_width(line) <= width or " " not in line.strip(), (line, width)
        if display_width(line) > width:  # an overlong word: never wide characters
            assert all(display_width(ch) == 1 for ch in line.strip("，。、："))
    assert "".join("".join(lines).split()) == "".join(text.split())


def test_chinese_summary_stays_within_the_terminal():
    """The zh summary of a failing grading wraps its messages and fixes by display width: no
    line of prose runs past 100 columns (before, whole paragraphs ran to ~130)."""
    failing = result("failing-zh")
    flagged = dataclasses.replace(failing, review=(ReviewNote("monkeypatch", 7, "改动了内部"),))
    out = terminal.render(flagged, width=100)
    assert "需要审阅" in out
    for line in out.splitlines():
        if line.lstrip().startswith("|") or "  " + "return" in line:
            continue  # output and code are quoted as they are
        assert display_width(line) <= 100, (display_width(line), line)


def test_chinese_list_and_show_have_no_english_kinds_or_slugs(capsys, monkeypatch):
    from grader import cli
    from grader.catalog import Catalog, project_root

    monkeypatch.setenv("NO_COLOR", "1")
    assert cli.main(["list", "--lang", "zh"]) == 0
    listing = capsys.readouterr().out
    assert not re.search(r"\b(implement|fix)\b", listing)
    assert "实现" in listing and "修复错误" in listing
    for line in listing.splitlines():  # the notes under the table too
        assert display_width(line) <= 100, line
    for spec in Catalog(project_root()).all():
        assert cli.main(["show", spec.id, "--lang", "zh"]) == 0
        head = capsys.readouterr().out.splitlines()[1]
        shown = head.split("概念：", 1)[1]
        for slug in spec.concepts:
            if "-" in slug or slug != concept_name(slug, "zh"):
                assert slug not in shown.split("、"), (spec.id, slug)
            assert concept_name(slug, "zh") in shown


def test_every_concept_of_the_course_has_words_in_both_languages():
    from grader.catalog import Catalog, project_root

    used = {c for spec in Catalog(project_root()).all() for c in spec.concepts}
    assert used - set(CONCEPTS) == set()
    for slug in used:
        name = CONCEPTS[slug]
        assert name.en and name.zh
        assert slug not in (name.en, name.zh) or "-" not in slug  # words, never a slug
    assert concept_name("my-own-idea", "zh") == "my own idea"  # a course's own, still words


def test_dashboard_names_kinds_and_concepts_in_chinese():
    from grader.render.dashboard import render_dashboard
    from tests.test_report import dashboard_entries

    html = render_dashboard(dashboard_entries(), "zh")
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", html)
    assert "实现" in cells and "修复错误" in cells
    assert "implement" not in cells and "fix" not in cells
    assert ">自动求导<" in html and ">autograd<" not in html


@pytest.mark.parametrize("page", ["result", "inline", "dashboard", "class", "feedback"])
def test_every_report_names_the_common_cjk_fonts(page):
    from grader.render.dashboard import render_dashboard
    from tests.test_report import dashboard_entries
    from tests.test_report_browser import accessibility_page, class_report

    del accessibility_page
    if page == "result":
        html = render_result(result("failing-zh"))
    elif page == "inline":
        html = render_inline(result("failing-zh"))
    elif page == "dashboard":
        html = render_dashboard(dashboard_entries(), "zh")
    elif page == "class":
        html = class_report("zh")
    else:
        from grader.lms.feedback import feedback_html
        from tests.test_feedback import case

        row, results, task = case("zh")
        html = feedback_html(row, results, task, "zh")
    stacks = re.findall(r"font(?:-family)?:\s*(?:[\d.]+px/[\d.]+\s+)?([^;]+);", html)
    assert stacks
    for stack in stacks:
        for font in CJK_FONTS:
            assert f'"{font}"' in stack, (font, stack)
        assert stack.rstrip().endswith(("sans-serif", "monospace"))


# -- plain words -------------------------------------------------------------------------------

TOLERANCES = st.sampled_from([0.0, 1e-9, 1e-7, 1e-6, 1e-5, 1.3e-6, 1e-4, 1e-3, 1e-2, 0.05])


@settings(max_examples=60, deadline=None)
@given(TOLERANCES, TOLERANCES)
def test_a_value_mismatch_says_its_tolerance_in_plain_words(rtol, atol):
    """No formula ("allowed: 0 + 0 x |expected|"): the message says the values must match
    exactly, or how far from the expected value each may be, in both languages."""
    import torch

    from grader.testing.checks import CheckFailed, assert_close

    got, want = torch.tensor([1.0, 2.0, 3.0]), torch.tensor([1.0, 2.5, 3.0])
    with pytest.raises(CheckFailed) as caught:
        assert_close(got, want, "f(x)", rtol=rtol, atol=atol)
    en, zh = caught.value.message.en, caught.value.message.zh
    for text in (en, zh):
        assert "|" not in text and "allowed" not in text and "允许：" not in text
    if rtol == 0 and atol == 0:
        assert "must match exactly" in en and "完全相等" in zh
    else:
        assert "of the expected value" in en and "期望值" in zh
    if atol:
        assert f"within {atol:g}" in en and f"{atol:g}" in zh
    if rtol:
        assert f"{100 * rtol:.3g}%" in en and f"{100 * rtol:.3g}%" in zh


WARNING = (
    "/tmp/scratch/exercise-07.py:12: UserWarning: The use of `x.T` on tensors of dimension other "
    "than 2 to reverse their shape is deprecated and it will throw an error in a future release. "
    "Consider `x.mT` to transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, "
    "-1))` to reverse the dimensions of a tensor. (Triggered internally at "
    "/pytorch/aten/src/ATen/native/TensorShape.cpp:4413.)\n  return (a.T - b).abs()"
)


@pytest.mark.parametrize("lines", [1, 5])
def test_output_in_the_summary_is_cut_at_a_word_and_says_so(lines):
    """A PyTorch warning under a failure stays readable in the terminal: whole words on every
    line, and when there is more than fits, an ellipsis and "(cut)"."""
    failing = result("failing")
    first = next(t for t in failing.tests if t.status is Status.FAILED)
    output = "\n".join([WARNING] * lines)
    tests = (dataclasses.replace(first, output=output, output_truncated=False),)
    out = terminal.render(dataclasses.replace(failing, tests=tests), width=100)
    shown = [line.split("| ", 1)[1] for line in out.splitlines() if line.startswith("      | ")]
    assert shown and all(display_width(line) <= 90 for line in shown)
    known = set(output.split()) | {"…"}
    assert {word for line in shown for word in line.split()} <= known  # no word cut
    assert "x.mT" in " ".join(shown) and "deprecated" in " ".join(shown)
    if lines == 1:
        assert "output:" in out and "(cut)" not in out
    else:
        assert "output (cut):" in out and shown[-1].endswith("…")


def test_a_test_whose_function_crashed_says_crashed():
    """`test_leaves_inputs_alone ✗ failed` read as "your function changed its inputs" when it
    merely raised: such a verdict is shown as crashed, in the terminal and the reports."""
    failing = result("failing")
    base = next(t for t in failing.tests if t.status is Status.FAILED)
    crashed = dataclasses.replace(
        base,
        name="test_leaves_inputs_alone",
        message="scale raised ZeroDivisionError: division by zero",
        frames=(Frame(4, "scale", "return x / 0"),),
        diagnosis=None,
    )
    checked = dataclasses.replace(base, name="test_values", frames=())
    only = dataclasses.replace(failing, tests=(crashed, checked), review=())
    out = terminal.render(only, width=100)
    row = next(line for line in out.splitlines() if line.startswith("test_leaves_inputs_alone"))
    assert "✗ crashed" in row and "failed" not in row
    assert "test_leaves_inputs_alone" in out and "your function raised before" in out
    assert "✗ failed" in next(line for line in out.splitlines() if line.startswith("test_values"))
    for html in (render_result(only), render_inline(only)):
        assert re.search(
            r'data-status="failed"[^>]*>\s*(<a [^>]*>)?<span class="(tg-)?badge'
            r' s-failed">crashed<',
            html,
        )
        assert "data-crashed" in html
    zh = terminal.render(dataclasses.replace(only, lang="zh"), width=100)
    assert "✗ 崩溃" in zh


def test_one_mistake_in_several_tests_is_explained_once():
    """The terminal, the HTML report and the notebook fragment each explain a diagnosis once,
    and name it where it comes back."""
    failing = result("failing-zh")  # three failing tests, one diagnosis, two failure groups
    ids = [t.diagnosis.id for t in failing.tests if t.diagnosis is not None]
    assert len(ids) >= 2 and len(set(ids)) == 1
    title = next(t.diagnosis.title for t in failing.tests if t.diagnosis is not None)
    out = terminal.render(failing, width=100)
    assert out.count("修改方法") == 1 and out.count(title) == 2
    for html in (render_result(failing), render_inline(failing)):
        assert html.count(f'data-diagnosis="{ids[0]}"') == 1
        assert html.count(f'data-diagnosis-seen="{ids[0]}"') == 1


def test_citations_name_the_tutorial_and_the_section_heading():
    """ "Tutorial section: 000 §2.2" meant nothing to a student: a citation names the tutorial
    by its title and the section by its number and heading, in the report's language."""
    from grader.sections import describe, load

    for case, lang in (("failing", "en"), ("failing-zh", "zh")):
        data = result(case)
        teaches = [t.diagnosis.teaches for t in data.tests if t.diagnosis and t.diagnosis.teaches]
        assert teaches
        html = render_result(data)
        cited = re.findall(r'<cite data-ref="([^"]+)">([^<]+)</cite>', html)
        assert cited
        for ref, text in cited:
            tutorial, number = ref.split(" §")
            title = load().tutorials[tutorial].get(lang)
            section = next(s for s in describe(ref, lang))
            assert title.replace("&", "&amp;") in text and section.title in text, text
            assert number in text and not text.startswith(tutorial)


def test_needs_review_says_what_it_means_where_the_grading_ran():
    """In the learner's own practice workspace nobody reviews the file: the note says what
    happens there (the checks stay failed until the code goes), not that an instructor will
    review it; the instructor's reports keep the review wording."""
    failing = result("failing")
    flagged = dataclasses.replace(failing, review=(ReviewNote("monkeypatch", 7, "patches SGD"),))
    practice = " ".join(terminal.render(flagged, width=100, practice=True).split())
    graded = " ".join(terminal.render(flagged, width=100).split())
    assert "practice workspace" in practice and "until your instructor" not in practice
    assert "until your instructor has reviewed" in graded
    assert "practice workspace" in render_result(flagged, advisory=True)
    assert "until an instructor has reviewed" in render_result(flagged)
    assert "practice workspace" in render_inline(flagged, practice=True)
    zh = "".join(
        terminal.render(dataclasses.replace(flagged, lang="zh"), width=100, practice=True).split()
    )
    assert "练习工作区" in zh and "在老师审阅之前" not in zh


def test_a_file_the_grader_could_not_read_is_not_said_to_reach_into_internals():
    """A coding cookie that changes what Python runs (or any file the analysis cannot read)
    flags the file for review, but nothing in it reached into the grader: every place says
    that the grader could not read it as Python does, never that it reaches into internals."""
    failing = result("failing")
    note = ReviewNote("unanalysable", 1, "Line 1 of your file declares the encoding 'utf-7'")
    unread = dataclasses.replace(failing, review=(note,))
    assert unread.review_unread
    for practice in (True, False):
        out = " ".join(terminal.render(unread, width=100, practice=practice).split())
        assert "could not read your file as Python reads it" in out
        assert "reaches into" not in out
    for advisory in (True, False):
        html = " ".join(render_result(unread, advisory=advisory).split())
        assert "could not read" in html and "reaches into" not in html
    zh = "".join(terminal.render(dataclasses.replace(unread, lang="zh"), width=100).split())
    assert "无法像Python那样读取" in zh and "触及" not in zh
    # one finding that does reach in: the internals wording, as before
    both = dataclasses.replace(failing, review=(note, ReviewNote("monkeypatch", 7, "patches")))
    assert not both.review_unread
    assert "reaches into" in " ".join(terminal.render(both, width=100).split())


def test_the_warm_server_is_described_as_one_per_user_and_course(capsys):
    """It is not "for you alone" on a shared machine in any sense a reader can check: there is
    one per uid and course, and the README and `grade server --help` say so."""
    from grader import cli
    from tests.conftest import ROOT

    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "for you alone" not in readme
    assert "one per user account and course" in readme
    assert cli.main(["server", "--help"]) == 0
    assert "one per user account and course" in " ".join(capsys.readouterr().out.split())


def test_output_in_the_summary_carries_no_terminal_controls():
    failing = result("failing")
    first = next(t for t in failing.tests if t.status is Status.FAILED)
    noisy = dataclasses.replace(first, output="\x1b[2J\x1b[Hcleared? " * 30)
    out = terminal.render(dataclasses.replace(failing, tests=(noisy,)), width=100)
    assert "\x1b" not in out and "cleared?" in out


# -- colour contrast, without a browser ----------------------------------------------------------


def _luminance(colour: str) -> float:
    hex_ = colour.lstrip("#")
    if len(hex_) == 3:
        hex_ = "".join(c * 2 for c in hex_)
    channels = [int(hex_[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("template", ["style.css.j2", "inline.html.j2"])
def test_every_coloured_text_on_its_background_meets_wcag_aa(template):
    """Every rule of the reports' CSS that sets a text colour and a background (badges,
    chips, notes, the diagnosis box) has a contrast of at least 4.5:1, and every text colour
    is readable on the page's own backgrounds: the class of the grey badges at 4.23:1."""
    from grader.resources import templates_dir

    css = (templates_dir() / template).read_text(encoding="utf-8")
    palette = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{3,6})", css))
    assert {"skip", "skip-bg", "muted", "ink"} <= set(palette)

    def value(text: str) -> str | None:
        text = text.strip()
        ref = re.fullmatch(r"var\(--([\w-]+)\)", text)
        if ref:
            return palette.get(ref.group(1))
        return text if re.fullmatch(r"#[0-9a-fA-F]{3,6}", text) else None

    pairs = 0
    for body in re.findall(r"\{([^{}]*)\}", css):
        fg = re.search(r"(?:^|[;\s])color:\s*([^;]+)", body)
        bg = re.search(r"background(?:-color)?:\s*([^;]+)", body)
        if fg and bg and value(fg.group(1)) and value(bg.group(1)):
            pairs += 1
            ratio = contrast(value(fg.group(1)), value(bg.group(1)))
            assert ratio >= 4.5, (body.strip(), round(ratio, 2))
    assert pairs >= 5  # the five verdict badges at least
    backgrounds = [palette[k] for k in ("wash", "skip-bg") if k in palette] + ["#ffffff"]
    for name in ("ink", "muted", "skip", "accent", "pass", "fail", "error"):
        for background in backgrounds:
            assert contrast(palette[name], background) >= 4.5, (name, background)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["deprecated", "x.mT", "张量的形状", "UserWarning:", "é"]), max_size=400
    ),
    st.integers(64, 600),
    st.integers(1, 97),
)
def test_captured_output_is_cut_between_words_and_says_so(words, cap, chunk):
    """What learner code prints is capped (head and tail kept): the cut falls between two
    words, never inside one or inside a character, and the text says how much was cut."""
    from grader.sandbox.pool import OutputCapture

    data = " ".join(words).encode("utf-8")
    capture = OutputCapture(cap)
    for start in range(0, len(data), chunk):
        capture.add(data[start : start + chunk])
    text, truncated = capture.take()
    assert "\ufffd" not in text
    marker = re.search(r"\n\[\.\.\. ([\d,]+) bytes of output cut here \.\.\.\]\n", text)
    assert bool(marker) == truncated == (len(data) > cap)
    kept = text.replace(marker.group(), " ") if marker else text
    assert set(kept.split()) <= set(words)
    if marker:
        assert int(marker.group(1).replace(",", "")) > 0


def test_the_feedback_page_cuts_long_output_between_words_and_says_so():
    from grader.lms.feedback import feedback_html
    from grader.render.feedback import MAX_TEXT_CHARS
    from tests.test_feedback import case

    row, results, task = case("en")
    failing = results["exercise-14"]
    index = next(i for i, t in enumerate(failing.tests) if t.status is Status.FAILED)
    long = " ".join([WARNING] * (MAX_TEXT_CHARS // len(WARNING) + 2))
    tests = list(failing.tests)
    tests[index] = dataclasses.replace(tests[index], output=long, output_truncated=False)
    results = {**results, "exercise-14": dataclasses.replace(failing, tests=tuple(tests))}
    html = feedback_html(row, results, task, "en")
    shown = re.search(r'<pre class="output"[^>]*data-output-cut>([^<]*)</pre>', html)
    assert shown, "the cut output is marked as cut"
    text = shown.group(1).replace("&#39;", "'").replace("&amp;", "&").replace("&gt;", ">")
    assert text.endswith(" …")
    assert set(text.removesuffix(" …").split()) <= set(long.split())


def test_a_check_that_cannot_count_says_why_in_the_files_own_terms():
    """The failed check's own message: "could not read your file as Python reads it" for a file
    the analysis could not read, "reaches into internals" only for a reach-in."""
    from grader.engine.plugin import Verdict, _believed
    from grader.i18n import Text
    from grader.testing.analysis.review import Finding

    passed = Verdict(Status.PASSED, Text("", ""))
    unread = Finding("unanalysable", 1, "Line 1 declares the encoding 'utf-7'", "第 1 行")
    reach = Finding("monkeypatch", 4, "replaces torch.allclose", "替换")
    said = _believed(passed, (unread,), ("a scenario",))
    assert said.status is Status.FAILED and said.evidence == ("needs_review",)
    assert "could not read your file as Python reads it" in said.message.en
    assert "reaches into" not in said.message.en and "触及" not in said.message.zh
    said = _believed(passed, (unread, reach), ("a scenario",))
    assert "reaches into the grader's or PyTorch's internals" in said.message.en
    assert "line 4: replaces torch.allclose" in said.message.en
    assert _believed(passed, (), ("a scenario",)) is passed
