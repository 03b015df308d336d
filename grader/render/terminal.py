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
from grader.i18n import TERMINAL, display_width, labels, pad, wrap
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
from grader.text import as_a_terminal_shows, inert, inert_line

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
    practice: bool = False,
) -> str:
    """The summary of ``result``; ``practice``: graded in the learner's own workspace, where
    nobody reviews a file that needs review (the note says what that means there)."""
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
    # a name or a path stays on its line: a newline in a file name could forge one
    lines.append(style(f"{w['submission']}{w['colon']}{inert_line(result.submission)}", "2"))

    devices = ["-"] * any(t.device is None for t in result.tests) + devices_of(result.tests)
    names = list(dict.fromkeys(t.name for t in result.tests))
    label = max([display_width(w["test"])] + [display_width(n) for n in names]) + 2
    words = [_status_word(s, lang) for s in Status] + [w["crashed"]]
    column = max([11] + [display_width(f"x {word}") + 2 for word in words])
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
            cell = f"{mark} {w[test.verdict_word]}"
            row += style(pad(cell, column), code)
        lines.append(row.rstrip())

    failures = failure_groups(result.tests)
    if failures:
        lines += ["", style(w["failures"], "1")]
        explained: set[str] = set()  # a diagnosis is explained once, then named
        for group in failures:
            lines += _failure_block(result, group, style, w, width, explained)
    elif result.graded:
        lines += ["", style(w["all_passed"], "32")]

    if result.review:
        lines += ["", style(f"⚠ {w['review_title']}", "1;33")]
        key = "review_note_unread" if result.review_unread else "review_note"
        note = w[f"{key}_practice" if practice else key]
        lines += [f"    {text}" for text in _wrap(note, width - 4)]
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
        wrapped = _wrap(note, width - 2)
        lines += [
            "",
            *(style(f"{'*' if i == 0 else ' '} {text}", "2") for i, text in enumerate(wrapped)),
        ]
    tail = []
    if report_path:
        tail.append(f"{w['report']}{w['colon']}{inert_line(report_path)}")
    if json_path:
        tail.append(f"{w['json']}{w['colon']}{inert_line(json_path)}")
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
    result: Result,
    group: list[TestResult],
    style: _Style,
    w: dict[str, str],
    width: int,
    explained: set[str],
) -> list[str]:
    first = group[0]
    mark, code = _MARK[first.status]
    devices = group_devices(group)
    where = f" [{devices}]" if devices else ""
    several = len({t.name for t in group}) > 1
    about = "" if several else f"  {first.description}"
    crashed = w["crashed_tag"] if first.verdict_word == "crashed" else ""
    head = f"{mark} {group_names(group)}{where}{crashed}"
    lines = [""]
    if display_width(head + about) <= width:
        lines.append(style(head, f"1;{code}") + style(about, "2"))
    else:  # several names, or a long description: each on lines of their own
        heads = _wrap(head, width)
        lines += [
            style(text if i == 0 else f"  {text}", f"1;{code}") for i, text in enumerate(heads)
        ]
        lines += [style(f"    {text}", "2") for text in _wrap(about.strip(), width - 4) if text]
    if crashed:
        lines += [
            f"    {text}" for text in _wrap(f"{w['crashed_note']}{w['colon'].rstrip()}", width - 4)
        ]
    for text in _wrap(first.message, width - 4):
        lines.append(f"    {text}")
    diagnosis = first.diagnosis
    if diagnosis is not None and diagnosis.id in explained:
        lines.append("    " + style(f"→ {diagnosis.title}{w['same_tag']}", "36"))
    elif diagnosis is not None:
        explained.add(diagnosis.id)
        lines.append("    " + style(f"→ {diagnosis.title}", "1;36"))
        for text in _wrap(f"{w['fix']}{w['colon']}{diagnosis.fix}", width - 6):
            lines.append(f"      {text}")
    if first.frames:
        frame = first.frames[-1]
        lines.append(
            style(f"    {_at(result, w, frame.line, frame.function)}{w['colon']} {frame.code}", "2")
        )
    output = as_a_terminal_shows(first.output)
    if output.strip():
        body, cut = _output_excerpt(output, width - 10)
        cut = cut or first.output_truncated
        lines.append(
            style(f"    {w['output']}{' ' + w['cut'] if cut else ''}{w['colon'].rstrip()}", "2")
        )
        lines += [style(f"      | {line}", "2") for line in body]
    return lines


OUTPUT_LINES = 10  # terminal lines of a failure's captured output; the HTML report has it all


def _output_excerpt(output: str, width: int) -> tuple[list[str], bool]:
    """The start of a test's output, wrapped at word boundaries to ``width`` columns (a long
    PyTorch warning stays readable, never cut mid-word), at most OUTPUT_LINES lines; and
    whether anything was left out (then the last line shown ends with an ellipsis)."""
    wrapped = wrap(inert(output).strip(), width)  # the learner's bytes: no terminal controls
    if len(wrapped) <= OUTPUT_LINES:
        return wrapped, False
    body = wrapped[:OUTPUT_LINES]
    body[-1] = f"{body[-1]} …"
    return body, True


def _wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` terminal columns (Chinese counts two a character)."""
    return wrap(text, width)


def print_summary(
    result: Result,
    *,
    report_path: str | None = None,
    json_path: str | None = None,
    stream: TextIO | None = None,
    practice: bool = False,
) -> None:
    stream = stream or sys.stdout
    stream.write(
        render(
            result,
            colour=use_colour(stream),
            report_path=report_path,
            json_path=json_path,
            practice=practice,
        )
    )
