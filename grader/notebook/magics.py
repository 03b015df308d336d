"""The magics: ``%%grade ID`` grades a cell, ``%grade ID`` a file, ``%grade hint ID`` helps.

``%%grade 7`` at the top of a cell runs the cell in the kernel as any cell runs (the learner's
functions stay defined), then grades the cell's code as exercise-07's file, in the sandbox, and
shows the result under it. The line numbers in the feedback are the cell's own (the ``%%grade``
line is line 1). ``%grade 7`` grades the workspace's ``exercise-07.py`` or ``exercise-07.ipynb``
exactly as ``grade 7`` does; ``%grade hint 7`` shows the next hint.

Where the grading runs: in the learner's warm server, started here if none is running; if no
server can be had, in a fresh process (``python -m grader.serve --once``), with one line saying
why. Never in the kernel.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class
from IPython.display import display

from grader.catalog import Catalog, project_root
from grader.engine.api import GradeRequest
from grader.errors import GraderError, InternalError, UsageError
from grader.i18n import CLI, choose_lang, labels
from grader.notebook.display import GradeOutput
from grader.notebooks import extract
from grader.options import Parser, add_device, add_lang, selected_devices
from grader.results import Result
from grader.serve import client, launch, protocol
from grader.serve.runtime import RuntimeFolderError, disabled, place
from grader.spec import ExerciseSpec
from grader.submission import Submission, learner_notes, load, locate, write_outputs
from grader.workspace import Workspace, find_workspace

ONCE_TIMEOUT_S = 600.0


def _parser(cell: bool) -> Parser:
    parser = Parser(prog="%%grade" if cell else "%grade", add_help=False, course=False)
    parser.add_argument("id", help="exercise-07, 07, 7 or the slug")
    add_device(parser, help="the devices to grade on")
    parser.add_argument("--seed", type=int, default=None)
    add_lang(parser)
    if not cell:
        parser.add_argument("--file", type=Path, default=None)
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
    lines = [""] * len(text.splitlines())
    for number, code in enumerate(extracted.source.splitlines(), start=1):
        where = extracted.cells.locate(number)
        if where is not None:
            lines[where[1] - 1] = code
    name = os.environ.get("JPY_SESSION_NAME", "")
    shown = f"In [{count}]" if count is not None else "cell"
    filename = f"{Path(name).name}, {shown}" if name else shown
    source = "\n".join(lines).encode("utf-8") + b"\n"
    return Submission(source, filename, None, learner_notes(extracted.notes))


def show_hint(words: list[str]) -> None:
    """``%grade hint ID``: the next hint (each time one more, in a workspace), or all."""
    args = _hint_parser().parse_args(words)
    lang = choose_lang(args.lang)
    spec = _catalog().resolve(args.id)
    word = labels(CLI, lang)["hint"]
    total = len(spec.hints)
    if args.all:
        for i, hint in enumerate(spec.hints, 1):
            print(f"{word} {i}/{total}: {hint.get(lang)}")
        return
    workspace = find_workspace()
    index = workspace.next_hint(spec) if workspace else 0
    print(f"{word} {index + 1}/{total}: {spec.hints[index].get(lang)}")


# -- where the grading runs ---------------------------------------------------------------------


def grade_request(spec: ExerciseSpec, request: GradeRequest) -> Result:
    """Grade through the warm server (started if none is running); else in a fresh process."""
    if disabled():
        return grade_in_fresh_process(request)
    limit = spec.limits.total_timeout_s * 2 * len(request.devices) + 60
    try:
        where = place(project_root())
        try:
            return client.grade(where, request, limit)
        except client.Unavailable as exc:
            if not exc.quiet:
                raise
        launch.spawn(where)
        return client.grade(where, request, limit)
    except (client.Unavailable, launch.StartError, RuntimeFolderError) as exc:
        reason = exc.reason if isinstance(exc, client.Unavailable) else str(exc)
        print(
            f"Note: the grading server is not usable ({reason}); grading in a separate process "
            "instead.",
            file=sys.stderr,
        )
        return grade_in_fresh_process(request)


def grade_in_fresh_process(request: GradeRequest) -> Result:
    """``python -m grader.serve --once``: the request on its stdin, the reply on its stdout."""
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "grader.serve", "--once"],
            input=protocol.encode(protocol.GradeCall(request)),
            capture_output=True,
            timeout=ONCE_TIMEOUT_S,
            env=dict(os.environ),
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InternalError(f"the grading process failed: {exc}") from None
    reply: Any
    try:
        reply = protocol.read_stream(
            io.BytesIO(proc.stdout), (protocol.ResultReply, protocol.ErrorReply)
        )
    except protocol.ProtocolError as exc:
        tail = proc.stderr.decode("utf-8", errors="replace").strip().splitlines()[-3:]
        raise InternalError(
            f"the grading process gave no result ({exc}): {' / '.join(tail)}"
        ) from None
    if isinstance(reply, protocol.ErrorReply):
        if reply.error == protocol.USAGE:
            raise UsageError(reply.message, hint=reply.hint or None)
        raise InternalError(reply.message)
    result: Result = reply.result
    return result
