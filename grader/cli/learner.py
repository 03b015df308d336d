"""The learner's commands: a workspace, the exercises, grading one's own file.

grade init [DIR] [--notebooks] | list | show ID | hint ID | reset ID | report
grade ID [--file PATH] [--device cpu|cuda|all] [--json PATH] [--report PATH] [--lang en|zh]
         [--no-server]
grade watch ID

Grading goes through the warm server when one answers (:mod:`grader.cli.server`); what is
graded and what is written afterwards is :mod:`grader.serve.submission`, shared with the notebook.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

from grader.catalog import Catalog, project_root
from grader.concepts import concept_name
from grader.console import control
from grader.engine.scoring import exit_code
from grader.errors import ExitCode, UsageError
from grader.fileio import check_replaceable, read_regular, write_atomic
from grader.i18n import CLI, TERMINAL, choose_lang, display_width, labels, pad, wrap
from grader.notebooks import MAX_NOTEBOOK_BYTES
from grader.options import (
    Parser,
    add_debug,
    add_device,
    add_lang,
    path_arg,
    seed_arg,
    selected_devices,
)
from grader.results import Result
from grader.serve.route import InProcess, Route, Start
from grader.serve.submission import Submission, load, locate, write_outputs
from grader.spec import ExerciseSpec
from grader.workspace import Workspace, find_workspace, hint_lines


def _catalog() -> Catalog:
    return Catalog(project_root())


def cmd_list(argv: list[str]) -> int:
    parser = Parser(prog="grade list", description="List every exercise with its status.")
    add_lang(parser)
    args = parser.parse_args(argv)
    words = labels(CLI, choose_lang(args.lang))
    specs = _catalog().all()
    workspace = find_workspace()
    header = tuple(words[f"col_{c}"] for c in ("id", "kind", "title", "points", "status", "score"))
    rows = []
    for spec in specs:
        status = workspace.status(spec) if workspace else "not started"
        entry = workspace.entry(spec.id) if workspace else {}
        score = ""
        if entry.get("max_score"):
            score = f"{entry['score']:g}/{entry['max_score']:g}"
        rows.append(
            (
                spec.id,
                words[spec.kind],
                spec.title.get(choose_lang(args.lang)),
                _points(spec, words),
                words[status],
                score,
            )
        )
    widths = [max(display_width(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(pad(cell, widths[i]) for i, cell in enumerate(row)).rstrip())
    # the notes under the table, wrapped by display width (a Chinese character takes two columns)
    for note in (words["points_note"], *([words["not_in_workspace"]] * (workspace is None))):
        print("\n".join(wrap(note, min(shutil.get_terminal_size((100, 24)).columns, 100))))
    return 0


def _points(spec: ExerciseSpec, words: dict[str, str]) -> str:
    """What grading gives here (CPU and meta cases), and what CUDA cases add."""
    points = spec.points
    shown = str(points.here)
    return f"{shown}{words['cuda_points'].format(n=points.cuda)}" if points.cuda else shown


def cmd_show(argv: list[str]) -> int:
    parser = Parser(prog="grade show", description="Show an exercise's instructions.")
    parser.add_argument("id")
    add_lang(parser)
    args = parser.parse_args(argv)
    lang = choose_lang(args.lang)
    words = labels(CLI, lang)
    colon = words["colon"]
    spec = _catalog().resolve(args.id)
    print(f"{spec.id}  {spec.title.get(lang)}")
    print(
        f"{words['kind']}{colon}{words[spec.kind]}    "
        f"{words['file']}{colon}{spec.learner_file}    "
        f"{words['points']}{colon}{_points(spec, words)}    "
        f"{words['concepts']}{colon}"
        f"{words['list_sep'].join(concept_name(c, lang) for c in spec.concepts)}"
    )
    print()
    print(spec.instructions.get(lang).rstrip())
    print()
    print(words["functions"])
    for function in spec.functions:
        print(f"  {function.signature}")
    if spec.forbidden:
        print()
        print(words["forbidden"])
        for rule in spec.forbidden:
            print(f"  {rule.describe(lang)}")
    print()
    print(f"{words['hints']}: grade hint {spec.id}")
    return 0


def cmd_hint(argv: list[str]) -> int:
    parser = Parser(prog="grade hint", description="Show the next hint of an exercise.")
    parser.add_argument("id")
    parser.add_argument("--all", action="store_true", help="show every hint")
    add_lang(parser)
    args = parser.parse_args(argv)
    spec = _catalog().resolve(args.id)
    for line in hint_lines(spec, choose_lang(args.lang), every=args.all):
        print(line)
    return 0


def cmd_init(argv: list[str]) -> int:
    from grader.workspace import init_workspace

    parser = Parser(prog="grade init", description="Create a workspace with every starter file.")
    parser.add_argument(
        "dir", nargs="?", default=".", help="folder to create it in (default: here)"
    )
    parser.add_argument(
        "--notebooks",
        action="store_true",
        help="one Jupyter notebook per exercise (instructions, starter, hints) instead of .py files",
    )
    add_lang(parser)
    args = parser.parse_args(argv)
    lang = choose_lang(args.lang)
    words = labels(CLI, lang)
    specs = _catalog().all()
    try:  # a folder that cannot be made (a file on the way, no permission, a name too long)
        if args.notebooks:
            from grader.notebook.workspace import init_notebooks

            workspace, created, kept = init_notebooks(Path(args.dir), specs, lang)
        else:
            workspace, created, kept = init_workspace(Path(args.dir), specs)
    except OSError as exc:
        raise UsageError(
            f"cannot create a workspace in {args.dir}: {exc.strerror or exc}"
            + (f" ({exc.filename})" if exc.filename and str(exc.filename) != args.dir else ""),
            hint="Choose a folder you can write to (grade init DIR).",
        ) from None
    print(words["init_ready"].format(root=workspace.root))
    if created:
        print(words["init_created"].format(files=", ".join(created)))
    if kept:
        print(words["init_kept"].format(files=", ".join(kept)))
    if specs:  # the course's first exercise: a course of its own may have no exercise-01
        first = specs[0]
        notebook = Path(first.learner_file).with_suffix(".ipynb").name
        number = first.id.removeprefix("exercise-").lstrip("0") or "0"
        step = words["init_next_notebooks"] if args.notebooks else words["init_next"]
        print(step.format(number=number, notebook=notebook))
    return 0


def cmd_reset(argv: list[str]) -> int:
    parser = Parser(prog="grade reset", description="Restore an exercise's starter file.")
    parser.add_argument("id")
    add_lang(parser)
    args = parser.parse_args(argv)
    words = labels(CLI, choose_lang(args.lang))
    spec = _catalog().resolve(args.id)
    workspace = _workspace()
    backup = workspace.reset(spec)
    print(words["reset_done"].format(file=spec.learner_file))
    if backup is not None:
        print(words["reset_backup"].format(backup=backup.relative_to(workspace.root)))
    return 0


def _workspace() -> Workspace:
    workspace = find_workspace()
    if workspace is None:
        raise UsageError(
            "not in a workspace", hint="Run `grade init` first, or cd into your workspace."
        )
    return workspace


def cmd_report(argv: list[str]) -> int:
    from grader.render.dashboard import render_dashboard, workspace_entries

    parser = Parser(
        prog="grade report", description="Write the progress dashboard of your workspace."
    )
    parser.add_argument(
        "--out", type=path_arg, help="where to write it (default: .grade/reports/index.html)"
    )
    add_lang(parser)
    args = parser.parse_args(argv)
    lang = choose_lang(args.lang)
    workspace = _workspace()
    out = args.out or workspace.state_dir / "reports" / "index.html"
    entries = workspace_entries(workspace, _catalog().all(), lang, out.resolve().parent)
    write_atomic(out, render_dashboard(entries, lang))
    passed = sum(e["status"] == "passed" for e in entries)
    words = labels(CLI, lang)
    print(words["report_done"].format(passed=passed, total=len(entries), out=out))
    return 0


# ---------------------------------------------------------------------------------------------
# Grading


def grade_parser(prog: str, description: str = "Grade your file for an exercise.") -> Parser:
    parser = Parser(prog=prog, description=description)
    parser.add_argument("id", help="exercise-07, 07, 7 or the slug")
    parser.add_argument(
        "--file",
        type=path_arg,
        help="the file to grade, a .py file or a notebook (default: the workspace's file)",
    )
    add_device(parser, "run the tests on this device only (default: all)")
    parser.add_argument(
        "--json",
        type=path_arg,
        help="also write the result JSON here ('-': to standard output, the summary to stderr)",
    )
    parser.add_argument("--report", type=path_arg, help="write the HTML report here")
    parser.add_argument("--no-report", action="store_true", help="do not write an HTML report")
    parser.add_argument(
        "--seed", type=seed_arg, default=None, help="seed of the hidden tests' inputs"
    )
    parser.add_argument(
        "--no-server",
        action="store_true",
        help="grade in this process, not through the warm server (also: GRADE_NO_SERVER=1)",
    )
    add_lang(parser)
    add_debug(parser)
    return parser


def _outputs(
    args: argparse.Namespace, workspace: Workspace | None, spec: ExerciseSpec
) -> tuple[Path | None, Path | None]:
    report = None
    if not args.no_report:
        report = args.report or (workspace.report_path(spec.id) if workspace else None)
    # before any grading: a path whose file an output must never replace (the learner's code,
    # a link, a device); one that merely cannot be written is said after the summary
    for given in (args.report, args.json):
        if given is not None and given != STDOUT:
            check_replaceable(given)
    return report, args.json


# ``--json -``: the result JSON on standard output (as tools that read it from a pipe expect;
# a file named "-" was written instead), and the summary on stderr so that stdout is JSON alone
STDOUT = Path("-")


def _grade_one(
    args: argparse.Namespace, spec: ExerciseSpec, submission: Submission, grader: Route
) -> Result:
    request = submission.request(
        spec, selected_devices(args.device), args.seed, choose_lang(args.lang)
    )
    return submission.finish(grader.grade(request))


def _route(args: argparse.Namespace, spec: ExerciseSpec, start: Start) -> tuple[Route, InProcess]:
    """Where the command grades: the warm server, else this process. ``--debug`` grades here:
    it shows the hidden tests' own exceptions from this process's engine records, which a
    server's grading would not leave here."""
    here = InProcess(spec, debug=args.debug)
    use_server = not args.no_server and not args.debug
    return Route(spec, here, use_server=use_server, start=start), here


def _show_faults(here: InProcess, label: str) -> None:
    """With --debug: the hidden tests' own exceptions of the last grading, on stderr."""
    if here.debug and here.engine is not None:
        from grader.cli.debug import show_faults

        show_faults(here.engine, label)


def cmd_grade(argv: list[str]) -> int:
    from grader.render.terminal import print_summary

    args = grade_parser("grade").parse_args(argv)
    spec = _catalog().resolve(args.id)
    path, workspace = locate(spec, args.file)
    report, json_path = _outputs(args, workspace, spec)
    submission = load(path)
    grader, here = _route(args, spec, "hand-off")
    completed = False
    try:
        result = _grade_one(args, spec, submission, grader)
        piped = json_path == STDOUT
        errors, report, json_path = write_outputs(
            result, report, None if piped else json_path, workspace
        )
        print_summary(
            result,
            report_path=str(report) if report else None,
            json_path=str(json_path) if json_path else None,
            stream=sys.stderr if piped else None,
            practice=workspace is not None,
        )
        if piped:
            sys.stdout.write(result.to_json().rstrip("\n") + "\n")
            sys.stdout.flush()
        _show_faults(here, f"file {path}")
        for error in errors:
            print(error.format(), file=sys.stderr)
        completed = True
    finally:
        grader.close(completed=completed)
    return ExitCode.USAGE if errors else exit_code(result)


def cmd_watch(argv: list[str]) -> int:
    from grader.render.terminal import print_summary

    parser = grade_parser(
        "grade watch", "Grade your file for an exercise again every time you save it (Ctrl-C ends)."
    )
    parser.add_argument("--interval", type=interval_arg, default=0.5, help="seconds between checks")
    args = parser.parse_args(argv)
    spec = _catalog().resolve(args.id)
    path, workspace = locate(spec, args.file)
    report, json_path = _outputs(args, workspace, spec)
    if json_path == STDOUT:
        raise UsageError(
            "grade watch --json -: a JSON document per save would be interleaved with the "
            "summaries; give a file, which each grading replaces"
        )
    print(labels(CLI, choose_lang(args.lang))["watching"].format(path=path))
    last = None
    # A warm grading process (the server, or this one's own) makes every re-grade fast.
    grader, here = _route(args, spec, "spawn")
    try:
        while True:
            stamp = _stamp(path)
            if stamp is not None and stamp != last:
                last = stamp
                if sys.stdout.isatty():
                    control(sys.stdout, "\033[2J\033[H")
                print(time.strftime("[%H:%M:%S]"))
                result = _grade_one(args, spec, load(path), grader)
                errors, written, _ = write_outputs(result, report, json_path, workspace)
                print_summary(
                    result,
                    report_path=str(written) if written else None,
                    practice=workspace is not None,
                )
                _show_faults(here, f"file {path}")
                for error in errors:
                    print(error.format(), file=sys.stderr)
                # the score stays in sight at the bottom, however long the summary
                print(_score_line(result))
            time.sleep(args.interval)
    except KeyboardInterrupt:
        print()
    finally:
        grader.close(completed=False)
    return 0


MAX_INTERVAL_S = 3600.0


def interval_arg(text: str) -> float:
    """``grade watch --interval``: a finite number of seconds, above 0 and at most an hour.
    ``nan``, ``inf`` or ``-1`` were taken, and the first wait after the first grading ended
    the command with "internal error in the grader" (``time.sleep`` refuses them)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= MAX_INTERVAL_S:  # NaN fails this too
        raise argparse.ArgumentTypeError(
            f"must be a number of seconds above 0 and at most {MAX_INTERVAL_S:g}"
        )
    return value


def _score_line(result: Result) -> str:
    words = labels(TERMINAL, result.lang)
    status = words[result.status.value]
    return f"{result.exercise_id}  {words['score']} {result.score:g}/{result.max_score:g}  {status}"


def _stamp(path: Path) -> tuple[int, int, bytes] | None:
    """What tells a saved file from the last one graded; None where there is no file to
    grade. Read as a regular file only: the watched path made a FIFO (or a link to
    /dev/zero) waited for ever (or read without end) at every check."""
    try:
        stat = path.stat()
        return (stat.st_mtime_ns, stat.st_size, read_regular(path, MAX_NOTEBOOK_BYTES)[-4096:])
    except (OSError, ValueError):
        return None
