"""The terminal summary: a pure function of a Result (and whether to use colour).

Score first, then a test-by-device matrix, then one block per distinct failure: the learner-
facing message, the diagnosis title and fix in a line or two, and where in the learner's file it
happened (in a notebook: the cell and the line in it). The same failure on several devices is
shown once.
"""

from __future__ import annotations

import sys
from typing import TextIO

from grader.console import use_colour
from grader.i18n import TERMINAL, display_width, labels, pad
from grader.results import (
    Result,
    Status,
    TestResult,
    devices_of,
    failure_groups,
    group_devices,
    group_names,
    number,
)

_MARK = {
    Status.PASSED: ("✓", "32"),
    Status.FAILED: ("✗", "31"),
    Status.ERROR: ("!", "35"),
    Status.TIMEOUT: ("⧗", "33"),
    Status.SKIPPED: ("-", "2"),
}


class _Style:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text


def _status_word(status: Status, lang: str) -> str:
    return str(labels(TERMINAL, lang)[status.value])


def render(
    result: Result,
    *,
    colour: bool = False,
    report_path: str | None = None,
    json_path: str | None = None,
    width: int = 100,
) -> str:
    lang = result.lang if result.lang in TERMINAL else "en"
    w = labels(TERMINAL, lang)
    style = _Style(colour)
    lines: list[str] = []

    mark, code = _MARK[result.status]
    pct = f" ({result.percent:.0f}%)" if result.max_score else ""
    head = (
        f"{result.exercise_id}  {result.exercise_title}   "
        f"{w['score']} {number(result.score)}/{number(result.max_score)}{pct}  "
    )
    lines.append(
        style(head, "1") + style(f"{mark} {_status_word(result.status, lang)}", f"1;{code}")
    )
    lines.append(style(f"{w['submission']}: {result.submission}", "2"))

    devices = ["-"] * any(t.device is None for t in result.tests) + devices_of(result.tests)
    names = list(dict.fromkeys(t.name for t in result.tests))
    label = max([display_width(w["test"])] + [display_width(n) for n in names]) + 2
    column = max([11] + [display_width(f"x {_status_word(s, lang)}") + 2 for s in Status])
    header = pad(w["test"], label) + "".join(pad(d, column) for d in devices)
    lines += ["", style(header, "1")]
    for name in names:
        row = pad(name, label)
        for device in devices:
            test = next(
                (t for t in result.tests if t.name == name and (t.device or "-") == device), None
            )
            if test is None:
                row += " " * column
                continue
            mark, code = _MARK[test.status]
            cell = f"{mark} {_status_word(test.status, lang)}"
            row += style(pad(cell, column), code)
        lines.append(row.rstrip())

    failures = failure_groups(result.tests)
    if failures:
        lines += ["", style(w["failures"], "1")]
        for group in failures:
            lines += _failure_block(result, group, style, w, width)
    elif result.graded:
        lines += ["", style(w["all_passed"], "32")]

    if result.review:
        lines += ["", style(f"⚠ {w['review_title']}", "1;33")]
        lines += [f"    {text}" for text in _wrap(w["review_note"], width - 4)]
        for finding in result.review:
            where = result.where(finding.line)
            if where is None:
                shown = w["review_line"].format(line=finding.line, message=finding.message)
            else:
                cell_no, cell_line, count = where
                shown = w["review_cell_line"].format(
                    cell=cell_no, count=_count(w, count), line=cell_line, message=finding.message
                )
            lines.append(f"    - {shown}")
    for note in result.notes:
        lines += ["", style(f"* {note}", "2")]
    tail = []
    if report_path:
        tail.append(f"{w['report']}: {report_path}")
    if json_path:
        tail.append(f"{w['json']}: {json_path}")
    if tail:
        lines += [""] + tail
    return "\n".join(lines) + "\n"


def _count(w: dict[str, str], count: int | None) -> str:
    return w["count"].format(count=count) if count is not None else ""


def _at(result: Result, w: dict[str, str], line: int, function: str) -> str:
    """Where a frame is, as the learner finds it: a line of their file, or a cell's line."""
    where = result.where(line)
    if where is None:
        return w["at"].format(line=line, function=function)
    cell, cell_line, count = where
    return w["at_cell"].format(cell=cell, count=_count(w, count), line=cell_line, function=function)


def _failure_block(
    result: Result, group: list[TestResult], style: _Style, w: dict[str, str], width: int
) -> list[str]:
    first = group[0]
    mark, code = _MARK[first.status]
    devices = group_devices(group)
    where = f" [{devices}]" if devices else ""
    several = len({t.name for t in group}) > 1
    about = "" if several else f"  {first.description}"
    lines = [
        "",
        style(f"{mark} {group_names(group)}{where}", f"1;{code}") + style(about, "2"),
    ]
    for text in _wrap(first.message, width - 4):
        lines.append(f"    {text}")
    if first.diagnosis is not None:
        lines.append("    " + style(f"→ {first.diagnosis.title}", "1;36"))
        for text in _wrap(f"{w['fix']}: {first.diagnosis.fix}", width - 6):
            lines.append(f"      {text}")
    if first.frames:
        frame = first.frames[-1]
        lines.append(style(f"    {_at(result, w, frame.line, frame.function)}:  {frame.code}", "2"))
    if first.output.strip():
        shown = first.output.strip().splitlines()
        cut = first.output_truncated or len(shown) > 6
        body = shown[:6]
        lines.append(style(f"    {w['output']}{' ' + w['cut'] if cut else ''}:", "2"))
        lines += [style(f"      | {line[: width - 10]}", "2") for line in body]
    return lines


def _wrap(text: str, width: int) -> list[str]:
    import textwrap

    out: list[str] = []
    for paragraph in text.splitlines() or [""]:
        out += textwrap.wrap(
            paragraph, width=width, break_long_words=False, break_on_hyphens=False
        ) or [""]
    return out


def print_summary(
    result: Result,
    *,
    report_path: str | None = None,
    json_path: str | None = None,
    stream: TextIO | None = None,
) -> None:
    stream = stream or sys.stdout
    stream.write(
        render(result, colour=use_colour(stream), report_path=report_path, json_path=json_path)
    )
