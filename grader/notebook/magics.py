"""The magics: ``%%grade ID`` grades a cell, ``%grade ID`` a file, ``%grade hint ID`` helps.

``%%grade 7`` at the top of a cell runs the cell in the kernel as any cell runs (the learner's
functions stay defined), then grades the cell's code as exercise-07's file, in the sandbox, and
shows the result under it. The line numbers in the feedback are the cell's own (the ``%%grade``
line is line 1). ``%grade 7`` grades the workspace's ``exercise-07.py`` or ``exercise-07.ipynb``
exactly as ``grade 7`` does; ``%grade hint 7`` shows the next hint.

Where the grading runs (:mod:`grader.serve.route`, as for ``grade ID``): in the learner's warm
server, started here if none is running; if no server can be had, in a fresh process (``python
-m grader.serve --once``), with one line saying why. Never in the kernel.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from grader.catalog import Catalog, project_root
from grader.engine.api import GradeRequest
from grader.errors import GraderError
from grader.i18n import Text, choose_lang
from grader.notebook.display import GradeOutput
from grader.notebooks import NO_CODE, extract
from grader.options import Parser, add_device, add_lang, path_arg, seed_arg, selected_devices
from grader.results import Result
from grader.serve.route import FreshProcess, Route
from grader.serve.submission import Submission, learner_notes, load, locate, write_outputs
from grader.spec import ExerciseSpec
from grader.text import source_lines
from grader.workspace import Workspace, find_workspace, hint_lines


def _parser(cell: bool) -> Parser:
    parser = Parser(prog="%%grade" if cell else "%grade", add_help=False, course=False)
    parser.add_argument("id", help="exercise-07, 07, 7 or the slug")
    add_device(parser, help="the devices to grade on")
    parser.add_argument("--seed", type=seed_arg, default=None)
    add_lang(parser)
    if not cell:
        parser.add_argument("--file", type=path_arg, default=None)
    return parser


def _hint_parser() -> Parser:
    parser = Parser(prog="%grade hint", add_help=False, course=False)
    parser.add_argument("id")
    parser.add_argument("--all", action="store_true")
    add_lang(parser)
    return parser


@magics_class
class GraderMagics(Magics):
    @line_cell_magic
    def grade(self, line: str, cell: str | None = None) -> None:
        """%%grade ID: run this cell, then grade its code. %grade ID: grade your file.
        %grade hint ID: the next hint."""
        try:
            words = line.split()
            if cell is None and words[:1] == ["hint"]:
                show_hint(words[1:])
            elif cell is None:
                grade_file(words)
            else:
                shell = self.shell
                assert shell is not None  # a magic runs in a shell
                count = shell.execution_count
                shell.run_cell(cell, store_history=False)
                grade_cell(words, cell, count)
        except GraderError as exc:
            print(exc.format(), file=sys.stderr)  # one "Error: ..." line, never a traceback


def _catalog() -> Catalog:
    return Catalog(project_root())


def grade_cell(words: list[str], cell: str, count: int | None) -> Result:
    """Grade a ``%%grade`` cell's code and show the result."""
    args = _parser(cell=True).parse_args(words)
    spec = _catalog().resolve(args.id)
    submission = cell_submission(f"%%grade {' '.join(words)}", cell, count)
    workspace = find_workspace()
    return _grade_and_show(spec, submission, args, workspace)


def grade_file(words: list[str]) -> Result:
    """``%grade ID``: the workspace's file (or ``--file``), as ``grade ID`` grades it."""
    args = _parser(cell=False).parse_args(words)
    spec = _catalog().resolve(args.id)
    path, workspace = locate(spec, args.file)
    return _grade_and_show(spec, load(path), args, workspace)


def _grade_and_show(
    spec: ExerciseSpec,
    submission: Submission,
    args: argparse.Namespace,
    workspace: Workspace | None,
) -> Result:
    lang = choose_lang(args.lang)
    request = submission.request(spec, selected_devices(args.device), args.seed, lang)
    result = submission.finish(grade_request(spec, request))
    report = workspace.report_path(spec.id) if workspace is not None else None
    errors, written, _ = write_outputs(result, report, None, workspace)
    for error in errors:
        print(error.format(), file=sys.stderr)
    display(GradeOutput(result, str(written) if written else None, practice=workspace is not None))
    return result


CELL_NO_CODE = Text(
    "this cell has no code to grade (it is empty, or holds only magics)",
    "这个单元格没有可以评分的代码（它是空的，或只有魔法命令）",
)


def cell_submission(magic: str, cell: str, count: int | None) -> Submission:
    """A ``%%grade`` cell's code, with line numbers that are the cell's own: the magic line is
    line 1 (left blank), and magics and shell lines inside the cell are left out the way they
    are in a notebook file (:func:`grader.notebooks.extract`)."""
    text = f"{magic}\n{cell}"
    notebook = {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {"language_info": {"name": "python"}},
        "cells": [
            {
                "cell_type": "code",
                "id": "graded-cell",
                "metadata": {},
                "execution_count": count,
                "outputs": [],
                "source": text,
            }
        ],
    }
    extracted = extract(json.dumps(notebook).encode("utf-8"))
    lines = [""] * len(source_lines(text))
    for number, code in enumerate(source_lines(extracted.source), start=1):
        where = extracted.cells.locate(number)
        if where is not None:
            lines[where[1] - 1] = code
    name = os.environ.get("JPY_SESSION_NAME", "")
    shown = f"In [{count}]" if count is not None else "cell"
    filename = f"{Path(name).name}, {shown}" if name else shown
    source = "\n".join(lines).encode("utf-8") + b"\n"
    # a cell is no notebook: the reader's "the notebook has no code" would send the learner
    # looking at the whole notebook
    notes = tuple(CELL_NO_CODE if note == NO_CODE else note for note in extracted.notes)
    return Submission(source, filename, None, learner_notes(notes))


def show_hint(words: list[str]) -> None:
    """``%grade hint ID``: the next hint (each time one more, in a workspace), or all."""
    args = _hint_parser().parse_args(words)
    spec = _catalog().resolve(args.id)
    for line in hint_lines(spec, choose_lang(args.lang), every=args.all):
        print(line)


# -- where the grading runs ---------------------------------------------------------------------


def grade_request(spec: ExerciseSpec, request: GradeRequest) -> Result:
    """Grade through the warm server (started if none is running); else in a fresh process,
    never in the kernel."""
    route = Route(spec, FreshProcess(), start="spawn")
    try:
        return route.grade(request)
    finally:
        route.close()
