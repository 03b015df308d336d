"""Every learner-facing word the grader itself prints, in each language, and the choice of one.

Exercise texts (instructions, hints, test descriptions, check messages) come in both languages
from the exercises and the hidden tests; the words around them (table headings, status words,
the report's labels, the CLI's own lines) live here, in one table per front end, so a missing
translation is one place to look. :func:`choose_lang` is the one place the language is picked.
"""

from __future__ import annotations

import locale
import math
import os
import unicodedata
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any

LANGS = ("en", "zh")


@dataclass(frozen=True)
class Text:
    """A learner-facing text in every supported language."""

    en: str
    zh: str

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else self.en

    def to_dict(self) -> dict[str, str]:
        return {"en": self.en, "zh": self.zh}


def pick(lang: str, en: str, zh: str) -> str:
    """``en`` or ``zh`` for ``lang`` (English for any other language)."""
    return zh if lang == "zh" else en


def choose_lang(explicit: str | None = None) -> str:
    """The language to speak: ``explicit`` (``--lang``) if given, else ``GRADE_LANG``, else the
    locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``, then Python's locale): Chinese for any zh_*
    locale, English otherwise."""
    if explicit in LANGS:
        return explicit
    for var in ("GRADE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        current = locale.getlocale()[0] or ""
    except ValueError:
        current = ""
    return "zh" if current.lower().startswith("zh") else "en"


def display_width(text: str) -> int:
    """Columns a text takes in a terminal: East Asian wide and fullwidth characters take two."""
    return sum(2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)


# Punctuation that may not start a line in Chinese (it stays with the character before it).
_NO_LINE_START = frozenset("，。、；：！？）」』】》〉”’,.;:!?)]}%")


def _has_wide(text: str) -> bool:
    return display_width(text) != len(text)


def _tokens(paragraph: str) -> list[str]:
    """A paragraph as wrap units: runs of spaces, runs of narrow characters (a word), and
    single wide characters; a punctuation mark that may not start a line joins the unit
    before it (so a unit is at most four columns wide unless it is a word of narrow ones)."""
    tokens: list[str] = []
    for ch in paragraph:
        wide = display_width(ch) == 2
        if (
            tokens
            and ch in _NO_LINE_START
            and not tokens[-1].isspace()
            and tokens[-1][-1] not in _NO_LINE_START  # one mark joins; a run of them breaks
        ):
            tokens[-1] += ch
        elif ch.isspace():
            if tokens and tokens[-1].isspace():
                tokens[-1] += ch
            else:
                tokens.append(ch)
        elif wide or not tokens or tokens[-1].isspace() or _has_wide(tokens[-1]):
            tokens.append(ch)
        else:
            tokens[-1] += ch
    return tokens


def wrap(text: str, width: int) -> list[str]:
    """``text`` as lines of at most ``width`` terminal columns (East Asian wide characters
    count two): English breaks between words, Chinese between any two characters, and a
    word longer than the width (a path, a URL) keeps a line of its own rather than being cut.
    Each line of ``text`` starts a new paragraph; an empty one stays an empty line."""
    width = max(width, 8)
    out: list[str] = []
    for paragraph in text.splitlines() or [""]:
        tokens = _tokens(paragraph)
        line = tokens.pop(0) if tokens and tokens[0].isspace() else ""  # keep an indent
        pending = ""
        for token in tokens:
            if token.isspace():
                pending = token
                continue
            candidate = line + pending + token
            if line.strip() and display_width(candidate) > width:
                out.append(line)
                line = token
            else:
                line = candidate
            pending = ""
        out.append(line.rstrip())
    return out


def pad(text: str, width: int) -> str:
    """``text`` padded with spaces to ``width`` terminal columns."""
    return text + " " * max(0, width - display_width(text))


def hundredths(value: float) -> float:
    """``value`` rounded to hundredths as people and the platforms round it: half up, on the
    number as written. Python's ``round`` rounds half to even, on the binary value: a grade of
    90.625% (four exercises at 7/8, 7/8, 7/8, 8/8) was uploaded as 90.62, and 2.675 (2.67499...
    in binary) went down too. The value is first taken to nine decimals, so that arithmetic's
    last bits (18.124999999999996 for 18.125) do not decide."""
    if not math.isfinite(value):
        return value
    written = Decimal(repr(round(value, 9)))
    # every digit a float can have (1e308 and two decimals), not the default 28
    exact = Context(prec=400)
    return float(written.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP, context=exact))


def number(value: float) -> str:
    """A number as people write it, at most two decimals (rounded half up, as
    :func:`hundredths`): 7, 7.5, 7.25; never 7.0 or 1e+02."""
    text = f"{hundredths(value):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def labels(table: dict[str, dict[str, Any]], lang: str) -> dict[str, Any]:
    """One front end's words in ``lang`` (English where the language is unknown)."""
    return table[lang if lang in table else "en"]


def sentence(
    words: dict[str, str], label: str, values: tuple[tuple[str, str], ...], fallback: str
) -> str:
    """The sentence ``label`` of ``words`` with its placeholders filled from ``values``, or
    ``fallback`` (as it was written, in English) where ``words`` has no such sentence."""
    said = words.get(label)
    return said.format(**dict(values)) if said else fallback


# ---------------------------------------------------------------------------------------------
# The command line's own lines (grader.cli)

CLI: dict[str, dict[str, str]] = {
    "en": {
        "col_id": "id",
        "col_kind": "kind",
        "col_title": "title",
        "col_points": "points",
        "col_status": "status",
        "col_score": "score",
        "not started": "not started",
        "failing": "failing",
        "passed": "passed",
        "not_in_workspace": "\n(not in a workspace: run `grade init` to create one)",
        "implement": "implement",
        "fix": "fix a bug",
        "kind": "kind",
        "file": "file",
        "points": "points",
        "concepts": "concepts",
        "functions": "Functions:",
        "forbidden": "Restrictions:",
        "hints": "Hints",
        "hint": "Hint",
        "hint_outside": "\n(run inside a workspace to get the next hint each time, or use --all)",
        "watching": "Watching {path} (Ctrl-C to stop)",
        "cuda_points": " (+{n} on CUDA)",
        "list_sep": ", ",
        "colon": ": ",
        "report_done": "{passed}/{total} exercises passed. Dashboard: {out}",
        "init_ready": "Workspace ready in {root}",
        "init_created": "  created: {files}",
        "init_kept": "  kept as they were: {files}",
        "init_next": "Next: `grade list`, then `grade show {number}`.",
        "init_next_notebooks": "Next: open {notebook} in Jupyter (`jupyter lab`).",
        "reset_done": "Restored {file} from the starter.",
        "reset_backup": "Your previous file is saved as {backup}",
        "points_note": "\nPoints: what grading gives; each test counts once per device it runs on "
        "(cpu, and meta, the stand-in for a GPU). Where a GPU is present its CUDA cases add the "
        "points shown as +N on CUDA.",
    },
    "zh": {
        "col_id": "编号",
        "col_kind": "类型",
        "col_title": "标题",
        "col_points": "总分",
        "col_status": "状态",
        "col_score": "得分",
        "not started": "未开始",
        "failing": "未通过",
        "passed": "已通过",
        "not_in_workspace": "\n（当前不在工作区中：运行 `grade init` 创建一个）",
        "implement": "实现",
        "fix": "修复错误",
        "kind": "类型",
        "file": "文件",
        "points": "总分",
        "concepts": "概念",
        "functions": "需要编写的函数：",
        "forbidden": "限制：",
        "hints": "提示",
        "hint": "提示",
        "hint_outside": "\n（在工作区中运行可以每次得到下一条提示，或使用 --all）",
        "watching": "正在监视 {path}（按 Ctrl-C 停止）",
        "cuda_points": "（CUDA 上另加 {n}）",
        "list_sep": "、",
        "colon": "：",
        "report_done": "已通过 {passed}/{total} 个练习。进度报告：{out}",
        "init_ready": "工作区已在 {root} 准备好",
        "init_created": "  已创建：{files}",
        "init_kept": "  保持原样：{files}",
        "init_next": "下一步：`grade list`，然后 `grade show {number}`。",
        "init_next_notebooks": "下一步：在 Jupyter 中打开 {notebook}（`jupyter lab`）。",
        "reset_done": "已从初始文件恢复 {file}。",
        "reset_backup": "你之前的文件已保存为 {backup}",
        "points_note": "\n总分是在这台机器上评分能得到的满分：每个测试在几个设备上运行，就计几次分"
        "（cpu 设备，以及没有 GPU 时代替它的 meta 设备）。机器有 GPU 时，CUDA 用例另外加分，"
        "即表中的“CUDA 上另加 N”。",
    },
}


# ---------------------------------------------------------------------------------------------
# The terminal summary (grader.render.terminal)

TERMINAL: dict[str, dict[str, str]] = {
    "en": {
        "passed": "passed",
        "failed": "failed",
        "error": "error",
        "timeout": "timeout",
        "skipped": "skipped",
        "crashed": "crashed",
        "crashed_tag": " (crashed)",
        "crashed_note": "your function raised before the test could check anything",
        "same_tag": " (same mistake as above)",
        "colon": ": ",
        "score": "score",
        "test": "test",
        "failures": "What to fix",
        "at": "at line {line} in {function}",
        "at_cell": "at cell {cell}{count}, line {line} in {function}",
        "count": " (In [{count}])",
        "output": "output",
        "fix": "Fix",
        "report": "Report",
        "json": "JSON",
        "all_passed": "All tests passed.",
        "points": "pts",
        "cut": "(cut)",
        "isolation": "isolation",
        "submission": "submission",
        "review_title": "Needs review",
        "review_note": "Your file reaches into the grader's or PyTorch's internals. Checks that "
        "rest on what your own process measures cannot count until your instructor has reviewed "
        "it; remove such code if you do not need it.",
        "review_note_practice": "Your file reaches into the grader's or PyTorch's internals. "
        "Here, in your own practice workspace, nobody reviews it: the checks that rest on what "
        "your own process measures stay failed while that code is there. Remove it and grade "
        "again; a file handed in with it is flagged for your instructor to review.",
        "review_note_unread": "The grader could not read your file as Python reads it (see "
        "below), so it cannot tell whether your code changes what your own process measures: "
        "checks that rest on such measurements cannot count until your instructor has reviewed "
        "it. Fix what is said below and grade again.",
        "review_note_unread_practice": "The grader could not read your file as Python reads it "
        "(see below), so it cannot tell whether your code changes what your own process "
        "measures: checks that rest on such measurements stay failed. Fix what is said below "
        "and grade again.",
        "review_line": "line {line}: {message}",
        "review_cell_line": "cell {cell}{count}, line {line}: {message}",
    },
    "zh": {
        "passed": "通过",
        "failed": "未通过",
        "error": "错误",
        "timeout": "超时",
        "skipped": "跳过",
        "crashed": "崩溃",
        "crashed_tag": "（崩溃）",
        "crashed_note": "你的函数抛出了异常，测试还没来得及检查任何东西",
        "same_tag": "（与上面是同一个错误）",
        "colon": "：",
        "score": "得分",
        "test": "测试",
        "failures": "需要修改的地方",
        "at": "位于第 {line} 行，函数 {function}",
        "at_cell": "位于第 {cell} 个单元格{count}第 {line} 行，函数 {function}",
        "count": "（In [{count}]）",
        "output": "输出",
        "fix": "修改方法",
        "report": "报告",
        "json": "JSON",
        "all_passed": "所有测试都通过了。",
        "points": "分",
        "cut": "（已截断）",
        "isolation": "隔离级别",
        "submission": "提交文件",
        "review_title": "需要审阅",
        "review_note": "你的文件触及了评分器或 PyTorch 的内部。依赖你自己进程测量结果的检查，在老师审阅之前"
        "都不能计分；如果不需要这样的代码，请删掉它。",
        "review_note_practice": "你的文件触及了评分器或 PyTorch 的内部。这里是你自己的练习工作区，"
        "没有人会审阅它：只要那段代码还在，依赖你自己进程测量结果的检查就一直算作未通过。删掉它再评分；"
        "如果带着它提交，老师那边的评分会把它标出来等待审阅。",
        "review_note_unread": "评分器无法像 Python 那样读取你的文件（见下文），因此无法判断你的代码是否"
        "改变了你自己进程的测量结果：依赖这些测量的检查，在老师审阅之前都不能计分。请按下文修正后重新评分。",
        "review_note_unread_practice": "评分器无法像 Python 那样读取你的文件（见下文），因此无法判断你的"
        "代码是否改变了你自己进程的测量结果：依赖这些测量的检查会一直算作未通过。请按下文修正后重新评分。",
        "review_line": "第 {line} 行：{message}",
        "review_cell_line": "第 {cell} 个单元格{count}第 {line} 行：{message}",
    },
}


# ---------------------------------------------------------------------------------------------
# The HTML reports: one submission, the workspace dashboard, the class report (grader.render)

REPORT: dict[str, dict[str, str]] = {
    "en": {
        "score": "Score",
        "status": "Status",
        "passed": "passed",
        "failed": "failed",
        "error": "error",
        "timeout": "timeout",
        "skipped": "skipped",
        "test": "Test",
        "tests": "Tests by device",
        "failures": "What went wrong",
        "diagnosis": "Why",
        "fix": "How to fix it",
        "teaches": "Read more in the tutorial",
        "colon": ": ",
        "list_sep": "; ",
        "crashed": "crashed",
        "crashed_note": "Your function raised an exception before this test could check anything.",
        "same_diagnosis": "The same mistake as above:",
        "hint": "Hint",
        "hints": "Hints",
        "next_hint": "Stuck? A hint",
        "code": "Your code",
        "line": "line ",
        "line_after": "",
        "cell": "cell ",
        "cell_after": "",
        "cell_sep": ", ",
        "report_saved": "Full report",
        "output": "Output",
        "output_cut": "Output (cut: too long)",
        "environment": "Environment",
        "python": "Python",
        "torch": "PyTorch",
        "devices": "Devices",
        "cuda": "CUDA devices",
        "none": "none",
        "isolation": "Isolation",
        "seed": "Seed",
        "grader": "Grader",
        "duration": "Grading time",
        "submission": "Submission",
        "training": "Training curves",
        "yours": "yours",
        "expected": "expected",
        "loss": "loss",
        "epoch": "epoch",
        "log_scale": "log scale",
        "axis_score": "score (% of the maximum)",
        "axis_students": "students",
        "more_hints": "More hints, one at a time:",
        "any": "any device",
        "all_passed": "Every test passed. Well done!",
        "in": "in",
        "points": "points",
        "notes": "Notes",
        "no_code": "(the source is not available)",
        "where": "Where",
        "dashboard": "Progress",
        "exercise": "Exercise",
        "exercises": "Exercises",
        "concepts": "Concepts",
        "concepts_mastered": "Concepts mastered",
        "not_started": "not started",
        "failing": "failing",
        "report": "report",
        "progress_of": "exercises passed",
        "last_graded": "Last graded",
        "cuda_points": "(+{n} on CUDA)",
        "class": "Class report",
        "students": "students",
        "distribution": "Score distribution",
        "per_exercise": "Exercises",
        "pass_rate": "pass rate",
        "mean": "mean",
        "submitted": "submitted",
        "graded_n": "graded",
        "top_diagnoses": "Most frequent misconceptions",
        "per_test": "Pass rate per test",
        "student": "Student",
        "students_heading": "Students",
        "total": "Total",
        "problems": "Problems",
        "missing": "missing",
        "unreadable": "unreadable",
        "not graded": "not graded",
        "batch_problems": "Belongs to no student",
        "final": "Grade",
        "no_work": "no work",
        "days_late": "day(s) late",
        "incomplete": "Incomplete:",
        "kind": "Kind",
        "kind_implement": "implement",
        "kind_fix": "fix a bug",
        "review_title": "Needs review",
        "review_note": "This file reaches into the grader's or PyTorch's internals. Checks that "
        "rest on what the learner's own process measured do not count until an instructor has "
        "reviewed it.",
        "review_note_unread": "The grader could not read this file as Python reads it (see "
        "below), so it cannot tell whether the code changes what the learner's own process "
        "measured: checks that rest on such measurements do not count until an instructor has "
        "reviewed it.",
        "review_note_unread_practice": "The grader could not read your file as Python reads it "
        "(see below), so it cannot tell whether your code changes what your own process "
        "measures: checks that rest on such measurements stay failed. Fix what is said below "
        "and grade again.",
        "review_note_practice": "Your file reaches into the grader's or PyTorch's internals. "
        "Here, in your own practice workspace, nobody reviews it: the checks that rest on what "
        "your own process measures stay failed while that code is there. Remove it and grade "
        "again; a file handed in with it is flagged for your instructor to review.",
        "advisory": "Graded in your own workspace: "
        "this verdict is for practice; your instructor's grading is the one that counts.",
        # a student's feedback page (grader.render.feedback)
        "feedback": "Feedback on your work",
        "final_grade": "Final grade",
        "weight": "Weight",
        "in_review": "under review",
        "under_review": "Your instructor is reviewing this grade; it may still change.",
        "about_submission": "About your submission",
        "passed_tests": "Passed",
        "nothing_handed_in": "Nothing was handed in for this assignment.",
        "before_penalty": "{percent}% before the late penalty",
        "late_by": "Handed in {n} days late: {points} percentage points off",
        "late_by_one": "Handed in 1 day late: {points} percentage points off",
        "late_free": "Handed in {n} days late; no late penalty applies",
        "late_free_one": "Handed in 1 day late; no late penalty applies",
        "late_canvas": "Canvas marks this submission late. The late penalty is not part of "
        "this grade: Canvas's Late Policy applies it in Canvas.",
        "late_canvas_free": "Canvas marks this submission late; no late penalty applies",
        "late_canvas_zero_after": "Canvas marks this submission late. The late rule takes "
        "nothing for work up to {max} days late and gives no credit for work more than {max} "
        "days late: your instructor applies that in Canvas.",
        "late_canvas_then_zero": "Canvas marks this submission late. The late penalty "
        "({per_day} percentage points a day) is not part of this grade: Canvas's Late Policy "
        "applies it in Canvas. Work more than {max} days late gets no credit.",
        "late_canvas_capped": "Canvas marks this submission late. The late penalty "
        "({per_day} percentage points a day, for at most {max} days) is not part of this "
        "grade: Canvas's Late Policy applies it in Canvas.",
        "late_free_until": "Handed in {n} days late; no late penalty applies up to {max} days "
        "late (more than {max} days late gets no credit)",
        "late_free_until_one": "Handed in 1 day late; no late penalty applies up to {max} days "
        "late (more than {max} days late gets no credit)",
        "late_zero": "More than {max} days late: the late rule gives no credit",
        "late_floor": "The late penalty takes the grade to 0%",
        "exercise_missing": "No file was handed in for this exercise.",
        "exercise_unreadable": "The file could not be read.",
        "exercise_not_graded": "The file was handed in but not graded.",
        "no_gpu": "no GPU on the grading machine",
        "not_run_cuda": "{n} CUDA cases were not run: {reason}. They do not count towards the score.",
        "not_run_cuda_one": "1 CUDA case was not run: {reason}. It does not count towards the score.",
        "not_run": "{n} cases were not run: {reason}. They do not count towards the score.",
        "not_run_one": "1 case was not run: {reason}. It does not count towards the score.",
        "student_id": "ID",
        "sid": "Student number",
        "email": "E-mail",
    },
    "zh": {
        "score": "得分",
        "status": "状态",
        "passed": "通过",
        "failed": "未通过",
        "error": "错误",
        "timeout": "超时",
        "skipped": "跳过",
        "test": "测试",
        "tests": "各设备上的测试结果",
        "failures": "哪里出了问题",
        "diagnosis": "原因",
        "fix": "如何修改",
        "teaches": "延伸阅读",
        "colon": "：",
        "list_sep": "；",
        "crashed": "崩溃",
        "crashed_note": "你的函数抛出了异常，这个测试还没来得及检查任何东西。",
        "same_diagnosis": "与上面是同一个错误：",
        "hint": "提示",
        "hints": "提示",
        "next_hint": "卡住了？看看提示",
        "code": "你的代码",
        "line": "第 ",
        "line_after": " 行",
        "cell": "第 ",
        "cell_after": " 个单元格",
        "cell_sep": "，",
        "report_saved": "完整报告",
        "output": "输出",
        "output_cut": "输出（过长，已截断）",
        "environment": "运行环境",
        "python": "Python",
        "torch": "PyTorch",
        "devices": "设备",
        "cuda": "CUDA 设备",
        "none": "无",
        "isolation": "隔离级别",
        "seed": "随机种子",
        "grader": "评分器",
        "duration": "评分用时",
        "submission": "提交文件",
        "training": "训练曲线",
        "yours": "你的",
        "expected": "期望",
        "loss": "损失",
        "epoch": "轮次",
        "log_scale": "对数坐标",
        "axis_score": "得分（占满分的百分比）",
        "axis_students": "学生人数",
        "more_hints": "更多提示（每次一条）：",
        "any": "任意设备",
        "all_passed": "所有测试都通过了，做得好！",
        "in": "函数",
        "points": "分",
        "notes": "说明",
        "no_code": "（无法获取源代码）",
        "where": "位置",
        "dashboard": "学习进度",
        "exercise": "练习",
        "exercises": "全部练习",
        "concepts": "概念",
        "concepts_mastered": "已掌握的概念",
        "not_started": "未开始",
        "failing": "未通过",
        "report": "报告",
        "progress_of": "个练习已通过",
        "last_graded": "最近评分",
        "cuda_points": "（CUDA 上另加 {n} 分）",
        "class": "班级报告",
        "students": "名学生",
        "distribution": "分数分布",
        "per_exercise": "各练习",
        "pass_rate": "通过率",
        "mean": "平均分",
        "submitted": "已提交",
        "graded_n": "已评分",
        "top_diagnoses": "最常见的误解",
        "per_test": "各测试的通过率",
        "student": "学生",
        "students_heading": "学生",
        "total": "总分",
        "problems": "问题",
        "missing": "缺失",
        "unreadable": "无法读取",
        "not graded": "未评分",
        "batch_problems": "不属于任何学生的文件",
        "final": "成绩",
        "no_work": "未提交",
        "days_late": "天迟交",
        "incomplete": "未完成：",
        "kind": "类型",
        "kind_implement": "实现",
        "kind_fix": "修复错误",
        "review_title": "需要审阅",
        "review_note": "这个文件触及了评分器或 PyTorch 的内部。依赖学习者自己进程测量结果的检查，"
        "在老师审阅之前都不计分。",
        "review_note_unread": "评分器无法像 Python 那样读取这个文件（见下文），因此无法判断代码是否改变了"
        "学习者自己进程的测量结果：依赖这些测量的检查，在老师审阅之前都不计分。",
        "review_note_unread_practice": "评分器无法像 Python 那样读取你的文件（见下文），因此无法判断你的"
        "代码是否改变了你自己进程的测量结果：依赖这些测量的检查会一直算作未通过。请按下文修正后重新评分。",
        "review_note_practice": "你的文件触及了评分器或 PyTorch 的内部。这里是你自己的练习工作区，"
        "没有人会审阅它：只要那段代码还在，依赖你自己进程测量结果的检查就一直算作未通过。删掉它再评分；"
        "如果带着它提交，老师那边的评分会把它标出来等待审阅。",
        "advisory": "这是在你自己的工作区中评分的结果，仅供练习；以老师的评分为准。",
        # a student's feedback page (grader.render.feedback)
        "feedback": "作业反馈",
        "final_grade": "最终成绩",
        "weight": "权重",
        "in_review": "审阅中",
        "under_review": "老师正在审阅这项成绩，它还可能变动。",
        "about_submission": "关于你的提交",
        "passed_tests": "通过的测试",
        "nothing_handed_in": "这次作业没有提交任何文件。",
        "before_penalty": "迟交扣分前为 {percent}%",
        "late_by": "迟交 {n} 天：扣 {points} 个百分点",
        "late_by_one": "迟交 1 天：扣 {points} 个百分点",
        "late_free": "迟交 {n} 天；不扣分",
        "late_free_one": "迟交 1 天；不扣分",
        "late_canvas": "Canvas 将这次提交标为迟交。本成绩未含迟交扣分：由 Canvas 的迟交政策"
        "（Late Policy）在 Canvas 中扣除。",
        "late_canvas_free": "Canvas 将这次提交标为迟交；不扣分",
        "late_canvas_zero_after": "Canvas 将这次提交标为迟交。按迟交规则，迟交 {max} 天以内不扣分，"
        "迟交超过 {max} 天不得分：由老师在 Canvas 中处理。",
        "late_canvas_then_zero": "Canvas 将这次提交标为迟交。本成绩未含迟交扣分（每天 {per_day} "
        "个百分点）：由 Canvas 的迟交政策（Late Policy）在 Canvas 中扣除。迟交超过 {max} 天不得分。",
        "late_canvas_capped": "Canvas 将这次提交标为迟交。本成绩未含迟交扣分（每天 {per_day} "
        "个百分点，最多扣 {max} 天）：由 Canvas 的迟交政策（Late Policy）在 Canvas 中扣除。",
        "late_free_until": "迟交 {n} 天；迟交 {max} 天以内不扣分（迟交超过 {max} 天不得分）",
        "late_free_until_one": "迟交 1 天；迟交 {max} 天以内不扣分（迟交超过 {max} 天不得分）",
        "late_zero": "迟交超过 {max} 天：按迟交规则不得分",
        "late_floor": "迟交扣分使成绩降为 0%",
        "exercise_missing": "这道练习没有提交文件。",
        "exercise_unreadable": "无法读取这个文件。",
        "exercise_not_graded": "文件已提交，但没有评分。",
        "no_gpu": "评分机器上没有 GPU",
        "not_run_cuda": "有 {n} 个 CUDA 用例没有运行：{reason}。它们不计入得分。",
        "not_run_cuda_one": "有 1 个 CUDA 用例没有运行：{reason}。它不计入得分。",
        "not_run": "有 {n} 个用例没有运行：{reason}。它们不计入得分。",
        "not_run_one": "有 1 个用例没有运行：{reason}。它不计入得分。",
        "student_id": "编号",
        "sid": "学号",
        "email": "邮箱",
    },
}
