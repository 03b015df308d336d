"""The learner's commands: a workspace, the exercises, grading one's own file.

grade init [DIR] | list | show ID | hint ID | reset ID | report
grade ID [--file PATH] [--device cpu|cuda|all] [--json PATH] [--report PATH] [--lang en|zh]
grade watch ID
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

from grader.catalog import Catalog, project_root
from grader.cli.args import Parser, add_debug, add_device, add_lang, selected_devices
from grader.cli.debug import show_faults
from grader.engine import DEFAULT_SEED, GradeRequest, LocalEngine
from grader.engine.api import MAX_SOURCE_BYTES
from grader.engine.scoring import exit_code
from grader.errors import ExitCode, UsageError
from grader.fileio import check_writable, write_atomic
from grader.i18n import CLI, TERMINAL, choose_lang, display_width, labels, pad
from grader.results import Result
from grader.spec import ExerciseSpec
from grader.workspace import Workspace, find_workspace


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
                spec.kind,
                spec.title.get(choose_lang(args.lang)),
                _points(spec, words),
                words[status],
                score,
            )
        )
    widths = [max(display_width(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(pad(cell, widths[i]) for i, cell in enumerate(row)).rstrip())
    print(words["points_note"])
    if workspace is None:
        print(words["not_in_workspace"])
    return 0


def _points(spec: ExerciseSpec, words: dict[str, str]) -> str:
    """What grading gives here (CPU and meta cases), and what CUDA cases add."""
    extra = spec.graded_points(("cuda",))
    shown = str(spec.graded_points(("cpu",)))
    return f"{shown} ({words['cuda_points'].format(n=extra)})" if extra else shown


def cmd_show(argv: list[str]) -> int:
    parser = Parser(prog="grade show", description="Show an exercise's instructions.")
    parser.add_argument("id")
    add_lang(parser)
    args = parser.parse_args(argv)
    lang = choose_lang(args.lang)
    words = labels(CLI, lang)
    spec = _catalog().resolve(args.id)
    print(f"{spec.id}  {spec.title.get(lang)}")
    print(
        f"{words['kind']}: {words[spec.kind]}    "
        f"{words['file']}: {spec.learner_file}    "
        f"{words['points']}: {_points(spec, words)}    "
        f"{words['concepts']}: {', '.join(spec.concepts)}"
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
    lang = choose_lang(args.lang)
    words = labels(CLI, lang)
    spec = _catalog().resolve(args.id)
    total = len(spec.hints)
    if args.all:
        for i, hint in enumerate(spec.hints, 1):
            print(f"{words['hint']} {i}/{total}: {hint.get(lang)}\n")
        return 0
    workspace = find_workspace()
    index = workspace.next_hint(spec) if workspace else 0
    print(f"{words['hint']} {index + 1}/{total}: {spec.hints[index].get(lang)}")
    if workspace is None and total > 1:
        print(words["hint_outside"])
    return 0


def cmd_init(argv: list[str]) -> int:
    from grader.workspace import init_workspace

    parser = Parser(prog="grade init", description="Create a workspace with every starter file.")
    parser.add_argument(
        "dir", nargs="?", default=".", help="folder to create it in (default: here)"
    )
    add_lang(parser)
    args = parser.parse_args(argv)
    words = labels(CLI, choose_lang(args.lang))
    workspace, created, kept = init_workspace(Path(args.dir), _catalog().all())
    print(words["init_ready"].format(root=workspace.root))
    if created:
        print(words["init_created"].format(files=", ".join(created)))
    if kept:
        print(words["init_kept"].format(files=", ".join(kept)))
    print(words["init_next"])
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
        "--out", type=Path, help="where to write it (default: .grade/reports/index.html)"
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
        "--file", type=Path, help="the file to grade (default: the workspace's file)"
    )
    add_device(parser, "run the tests on this device only (default: all)")
    parser.add_argument("--json", type=Path, help="also write the result JSON here")
    parser.add_argument("--report", type=Path, help="write the HTML report here")
    parser.add_argument("--no-report", action="store_true", help="do not write an HTML report")
    parser.add_argument("--seed", type=int, default=None, help="seed of the hidden tests' inputs")
    add_lang(parser)
    add_debug(parser)
    return parser


def read_submission(path: Path) -> bytes:
    """A user-given submission: an existing, readable, regular file (else a UsageError)."""
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    if not path.is_file():
        raise UsageError(f"{path} is not a file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_SOURCE_BYTES + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > MAX_SOURCE_BYTES:
        raise UsageError(f"{path} is larger than {MAX_SOURCE_BYTES >> 20} MiB")
    return data


def _target(args: argparse.Namespace, spec: ExerciseSpec) -> tuple[Path, Workspace | None]:
    """The file to grade, and the workspace whose state it updates (if any)."""
    workspace = find_workspace()
    if args.file is not None:
        path = args.file
        if workspace is not None and path.resolve() != workspace.file_for(spec).resolve():
            workspace = None
        return path, workspace
    if workspace is not None:
        path = workspace.file_for(spec)
        if not path.exists():
            raise UsageError(
                f"{path} does not exist",
                hint=f"Run `grade reset {spec.id}` to get the starter back.",
            )
        return path, workspace
    local = Path(spec.learner_file)
    if local.exists():
        return local, None
    raise UsageError(
        f"no {spec.learner_file} here",
        hint="Run `grade init` to create a workspace, or pass --file PATH.",
    )


def _outputs(
    args: argparse.Namespace, workspace: Workspace | None, spec: ExerciseSpec
) -> tuple[Path | None, Path | None]:
    report = None
    if not args.no_report:
        report = args.report or (workspace.report_path(spec.id) if workspace else None)
    return report, args.json


def _write_outputs(
    result: Result, report: Path | None, json_path: Path | None, workspace: Workspace | None
) -> tuple[list[UsageError], Path | None, Path | None]:
    """Write every output that can be written; what cannot is an error for the user to fix,
    after the summary (the grading itself is not lost). Returns the errors and the report and
    JSON paths that were written."""
    from grader.render.html import render_result

    errors: list[UsageError] = []

    def attempt(path: Path | None, make: Callable[[], str]) -> Path | None:
        if path is None:
            return None
        try:
            check_writable(path)
            write_atomic(path, make())
        except UsageError as exc:
            errors.append(exc)
            return None
        return path

    if workspace is not None:
        try:
            workspace.record(result)
        except UsageError as exc:
            errors.append(exc)
    written_json = attempt(json_path, result.to_json)
    # In a learner's own workspace the hidden tests are on their disk: the report says the
    # verdict is for practice.
    shown = int(workspace.entry(result.exercise_id).get("hints_shown", 0) or 0) if workspace else 0
    written_report = attempt(
        report,
        lambda: render_result(result, advisory=workspace is not None, hints_shown=shown),
    )
    return errors, written_report, written_json


def _request(args: argparse.Namespace, spec: ExerciseSpec, path: Path) -> GradeRequest:
    return GradeRequest(
        exercise=spec.id,
        source=read_submission(path),
        filename=str(path),
        devices=selected_devices(args.device),
        seed=DEFAULT_SEED if args.seed is None else args.seed,
        lang=choose_lang(args.lang),
    )


def cmd_grade(argv: list[str]) -> int:
    from grader.render.terminal import print_summary

    args = grade_parser("grade").parse_args(argv)
    spec = _catalog().resolve(args.id)
    path, workspace = _target(args, spec)
    report, json_path = _outputs(args, workspace, spec)
    request = _request(args, spec, path)
    engine = LocalEngine(preload=[spec], debug=args.debug)
    _check_devices(request.devices, engine)
    with engine:
        result = engine.grade(request)
    errors, report, json_path = _write_outputs(result, report, json_path, workspace)
    print_summary(
        result,
        report_path=str(report) if report else None,
        json_path=str(json_path) if json_path else None,
    )
    show_faults(engine, f"file {path}")
    for error in errors:
        print(error.format(), file=sys.stderr)
    return ExitCode.USAGE if errors else exit_code(result)


def _check_devices(devices: tuple[str, ...], engine: LocalEngine) -> None:
    """``--device cuda`` where there is no GPU grades nothing: say so before grading."""
    if devices == ("cuda",) and not engine.gpus:
        raise UsageError(
            "--device cuda, but CUDA is not available on this machine: nothing was graded",
            hint="Use --device cpu or --device all (CUDA cases are then skipped with the reason).",
        )


def cmd_watch(argv: list[str]) -> int:
    from grader.render.terminal import print_summary

    parser = grade_parser(
        "grade watch", "Grade your file for an exercise again every time you save it (Ctrl-C ends)."
    )
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between checks")
    args = parser.parse_args(argv)
    spec = _catalog().resolve(args.id)
    path, workspace = _target(args, spec)
    report, json_path = _outputs(args, workspace, spec)
    print(labels(CLI, choose_lang(args.lang))["watching"].format(path=path))
    last = None
    engine = LocalEngine(preload=[spec], debug=args.debug)
    _check_devices(selected_devices(args.device), engine)
    # The warm fork server (kept across re-grades) makes every re-grade fast.
    with engine:
        try:
            while True:
                stamp = _stamp(path)
                if stamp is not None and stamp != last:
                    last = stamp
                    print("\033[2J\033[H" if sys.stdout.isatty() else "", end="")
                    print(time.strftime("[%H:%M:%S]"))
                    result = engine.grade(_request(args, spec, path))
                    errors, written, _ = _write_outputs(result, report, json_path, workspace)
                    print_summary(result, report_path=str(written) if written else None)
                    show_faults(engine, f"file {path}")
                    for error in errors:
                        print(error.format(), file=sys.stderr)
                    # the score stays in sight at the bottom, however long the summary
                    print(_score_line(result))
                time.sleep(args.interval)
        except KeyboardInterrupt:
            print()
    return 0


def _score_line(result: Result) -> str:
    words = labels(TERMINAL, result.lang)
    status = words[result.status.value]
    return f"{result.exercise_id}  {words['score']} {result.score:g}/{result.max_score:g}  {status}"


def _stamp(path: Path) -> tuple[int, int, bytes] | None:
    try:
        stat = path.stat()
        return (stat.st_mtime_ns, stat.st_size, path.read_bytes()[-4096:])
    except OSError:
        return None
