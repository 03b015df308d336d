"""The ``grade`` command: a thin layer over the library.

    grade list | show ID | hint ID | init [DIR] | reset ID | report
    grade ID [--file PATH] [--device cpu|cuda|all] [--json PATH] [--report PATH] [--lang en|zh]
    grade watch ID
    grade batch SUBMISSIONS [--out DIR] [--jobs N] [--exercises IDS]
    grade validate [--junit PATH]
    grade new ID

Exit codes (DESIGN.md): 0 every graded test passed, 1 some did not, 2 usage or spec error,
3 internal error. Every user mistake is one ``Error: ...`` line, never a traceback.
"""

from __future__ import annotations

import argparse
import locale
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any, NoReturn

from grader import __version__
from grader.catalog import Catalog, project_root
from grader.errors import ExitCode, GraderError, UsageError

COMMANDS = ("list", "show", "hint", "init", "reset", "watch", "batch", "validate", "new", "report")

OVERVIEW = f"""\
grade {__version__}: grade PyTorch exercises in a sandbox, on CPU and CUDA.

Learners:
  grade init [DIR]          create a workspace with every exercise's starter file
  grade list                every exercise with your status and score
  grade show ID             the instructions of an exercise
  grade hint ID             the next hint (--all for every hint)
  grade ID                  grade your file (options: grade ID --help)
  grade watch ID            re-grade whenever you save the file
  grade reset ID            restore the starter (your file is backed up)
  grade report              a progress dashboard of your workspace

Instructors and CI:
  grade batch SUBMISSIONS   grade a whole class (folders or .zip files per student)
  grade validate            prove every exercise: references pass, starters and mutants fail
  grade new ID              scaffold a new exercise

ID is exercise-07, 07, 7 or the exercise's slug. Exit codes: 0 all passed, 1 some failed,
2 usage or spec error, 3 internal error.
"""


class _Parser(argparse.ArgumentParser):
    """argparse, but its errors are UsageErrors (one line, exit code 2)."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, hint=f"See `{self.prog} --help`.")


def default_lang() -> str:
    for var in ("GRADE_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    try:
        current = locale.getlocale()[0] or ""
    except ValueError:
        current = ""
    return "zh" if current.lower().startswith("zh") else "en"


def _lang_arg(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--lang",
        choices=("en", "zh"),
        default=None,
        help="language of instructions, messages and reports (default: from the locale)",
    )


def _catalog() -> Catalog:
    return Catalog(project_root())


# ---------------------------------------------------------------------------------------------
# Learner commands


def cmd_list(argv: list[str]) -> int:
    from grader.workspace import find_workspace

    parser = _Parser(prog="grade list", description="List every exercise with its status.")
    _lang_arg(parser)
    args = parser.parse_args(argv)
    lang = args.lang or default_lang()
    specs = _catalog().all()
    workspace = find_workspace()
    status_words = {
        "en": {"not started": "not started", "failing": "failing", "passed": "passed"},
        "zh": {"not started": "未开始", "failing": "未通过", "passed": "已通过"},
    }[lang]
    header = (
        ("id", "kind", "title", "points", "status", "score")
        if lang == "en"
        else ("编号", "类型", "标题", "总分", "状态", "得分")
    )
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
                spec.title.get(lang),
                str(spec.max_points),
                status_words[status],
                score,
            )
        )
    widths = [max(_width(r[i]) for r in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(_pad(cell, widths[i]) for i, cell in enumerate(row)).rstrip())
    if workspace is None:
        print(
            "\n(not in a workspace: run `grade init` to create one)"
            if lang == "en"
            else "\n（当前不在工作区中：运行 `grade init` 创建一个）"
        )
    return 0


def _width(text: str) -> int:
    """Display width: CJK characters take two columns."""
    return sum(2 if ord(ch) > 0x2E80 else 1 for ch in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def cmd_show(argv: list[str]) -> int:
    parser = _Parser(prog="grade show", description="Show an exercise's instructions.")
    parser.add_argument("id")
    _lang_arg(parser)
    args = parser.parse_args(argv)
    lang = args.lang or default_lang()
    spec = _catalog().resolve(args.id)
    kind = {"implement": ("implement", "实现"), "fix": ("fix a bug", "修复 bug")}[spec.kind]
    print(f"{spec.id}  {spec.title.get(lang)}")
    print(
        f"{'kind' if lang == 'en' else '类型'}: {kind[lang == 'zh']}    "
        f"{'file' if lang == 'en' else '文件'}: {spec.learner_file}    "
        f"{'points' if lang == 'en' else '总分'}: {spec.max_points}    "
        f"{'concepts' if lang == 'en' else '概念'}: {', '.join(spec.concepts)}"
    )
    print()
    print(spec.instructions.get(lang).rstrip())
    print()
    print("Functions:" if lang == "en" else "需要编写的函数：")
    for function in spec.functions:
        print(f"  {function.signature}")
    print()
    print(f"{'Hints' if lang == 'en' else '提示'}: grade hint {spec.id}")
    return 0


def cmd_hint(argv: list[str]) -> int:
    from grader.workspace import find_workspace

    parser = _Parser(prog="grade hint", description="Show the next hint of an exercise.")
    parser.add_argument("id")
    parser.add_argument("--all", action="store_true", help="show every hint")
    _lang_arg(parser)
    args = parser.parse_args(argv)
    lang = args.lang or default_lang()
    spec = _catalog().resolve(args.id)
    total = len(spec.hints)
    label = "Hint" if lang == "en" else "提示"
    if args.all:
        for i, hint in enumerate(spec.hints, 1):
            print(f"{label} {i}/{total}: {hint.get(lang)}\n")
        return 0
    workspace = find_workspace()
    index = workspace.next_hint(spec) if workspace else 0
    print(f"{label} {index + 1}/{total}: {spec.hints[index].get(lang)}")
    if workspace is None and total > 1:
        print(
            "\n(run inside a workspace to get the next hint each time, or use --all)"
            if lang == "en"
            else "\n（在工作区中运行可以每次得到下一条提示，或使用 --all）"
        )
    return 0


def cmd_init(argv: list[str]) -> int:
    from grader.workspace import init_workspace

    parser = _Parser(prog="grade init", description="Create a workspace with every starter file.")
    parser.add_argument(
        "dir", nargs="?", default=".", help="folder to create it in (default: here)"
    )
    args = parser.parse_args(argv)
    root = Path(args.dir)
    workspace, created, kept = init_workspace(root, _catalog().all())
    print(f"Workspace ready in {workspace.root}")
    if created:
        print(f"  created: {', '.join(created)}")
    if kept:
        print(f"  kept as they were: {', '.join(kept)}")
    print("Next: `grade list`, then `grade show 1`.")
    return 0


def cmd_reset(argv: list[str]) -> int:
    from grader.workspace import find_workspace

    parser = _Parser(prog="grade reset", description="Restore an exercise's starter file.")
    parser.add_argument("id")
    args = parser.parse_args(argv)
    spec = _catalog().resolve(args.id)
    workspace = find_workspace()
    if workspace is None:
        raise UsageError(
            "not in a workspace", hint="Run `grade init` first, or cd into your workspace."
        )
    backup = workspace.reset(spec)
    print(f"Restored {spec.learner_file} from the starter.")
    if backup is not None:
        print(f"Your previous file is saved as {backup.relative_to(workspace.root)}")
    return 0


# ---------------------------------------------------------------------------------------------
# Grading


def _grade_parser(prog: str, description: str = "Grade your file for an exercise.") -> _Parser:
    parser = _Parser(prog=prog, description=description)
    parser.add_argument("id", help="exercise-07, 07, 7 or the slug")
    parser.add_argument(
        "--file", type=Path, help="the file to grade (default: the workspace's file)"
    )
    parser.add_argument(
        "--device",
        choices=("cpu", "cuda", "all"),
        default="all",
        help="run the tests on this device only (default: all)",
    )
    parser.add_argument("--json", type=Path, help="also write the result JSON here")
    parser.add_argument("--report", type=Path, help="write the HTML report here")
    parser.add_argument("--no-report", action="store_true", help="do not write an HTML report")
    parser.add_argument("--seed", type=int, default=None, help="seed of the hidden tests' inputs")
    _lang_arg(parser)
    return parser


def _selected(device: str) -> tuple[str, ...]:
    return ("cpu", "cuda") if device == "all" else (device,)


def _target(args: argparse.Namespace, spec: Any) -> tuple[Path, Any]:
    """The file to grade, and the workspace whose state it updates (if any)."""
    from grader.grading import check_submission
    from grader.workspace import find_workspace

    workspace = find_workspace()
    if args.file is not None:
        path = check_submission(args.file)
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
        return check_submission(path), workspace
    local = Path(spec.learner_file)
    if local.exists():
        return check_submission(local), None
    raise UsageError(
        f"no {spec.learner_file} here",
        hint="Run `grade init` to create a workspace, or pass --file PATH.",
    )


def _outputs(
    args: argparse.Namespace, spec: Any, workspace: Any
) -> tuple[Path | None, Path | None]:
    from grader.results import check_writable

    report = None
    if not args.no_report:
        report = args.report or (workspace.report_path(spec.id) if workspace else None)
    for path in (report, args.json):
        if path is not None:
            check_writable(path)  # before grading, not after
    return report, args.json


def _write_outputs(
    result: Any, report: Path | None, json_path: Path | None, workspace: Any
) -> None:
    from grader.results import write_atomic

    if workspace is not None:
        workspace.record(result)
    if json_path is not None:
        write_atomic(json_path, result.to_json())
    if report is not None:
        from grader.report import render_result

        # In a learner's own workspace the hidden tests are on their disk: the report says the
        # verdict is for practice.
        write_atomic(report, render_result(result, advisory=workspace is not None))


def exit_code_for(result: Any) -> int:
    from grader.results import Status

    if result.grader_fault:
        return ExitCode.INTERNAL
    if not result.graded:
        raise UsageError(
            "nothing was graded: every test was skipped",
            hint="; ".join(result.notes) or "Try --device all.",
        )
    return ExitCode.OK if result.status is Status.PASSED else ExitCode.TESTS_FAILED


def cmd_grade(argv: list[str]) -> int:
    from grader.grading import DEFAULT_SEED, Grader
    from grader.summary import print_summary

    args = _grade_parser("grade").parse_args(argv)
    lang = args.lang or default_lang()
    spec = _catalog().resolve(args.id)
    path, workspace = _target(args, spec)
    report, json_path = _outputs(args, spec, workspace)
    with Grader.for_specs([spec]) as grader:
        result = grader.grade(
            spec,
            path,
            selected=_selected(args.device),
            seed=DEFAULT_SEED if args.seed is None else args.seed,
            lang=lang,
        )
    _write_outputs(result, report, json_path, workspace)
    print_summary(
        result,
        report_path=str(report) if report else None,
        json_path=str(json_path) if json_path else None,
    )
    return exit_code_for(result)


def cmd_watch(argv: list[str]) -> int:
    from grader.grading import DEFAULT_SEED, Grader
    from grader.summary import print_summary

    parser = _grade_parser(
        "grade watch", "Grade your file for an exercise again every time you save it (Ctrl-C ends)."
    )
    parser.add_argument("--interval", type=float, default=0.5, help="seconds between checks")
    args = parser.parse_args(argv)
    lang = args.lang or default_lang()
    spec = _catalog().resolve(args.id)
    path, workspace = _target(args, spec)
    report, json_path = _outputs(args, spec, workspace)
    seed = DEFAULT_SEED if args.seed is None else args.seed
    print(
        f"Watching {path} (Ctrl-C to stop)"
        if lang == "en"
        else f"正在监视 {path}（按 Ctrl-C 停止）"
    )
    last = None
    # The warm fork server (kept across re-grades) makes every re-grade fast.
    with Grader.for_specs([spec]) as grader:
        try:
            while True:
                stamp = _stamp(path)
                if stamp is not None and stamp != last:
                    last = stamp
                    print("\033[2J\033[H" if sys.stdout.isatty() else "", end="")
                    print(time.strftime("[%H:%M:%S]"))
                    result = grader.grade(
                        spec, path, selected=_selected(args.device), seed=seed, lang=lang
                    )
                    _write_outputs(result, report, json_path, workspace)
                    print_summary(result, report_path=str(report) if report else None)
                time.sleep(args.interval)
        except KeyboardInterrupt:
            print()
    return 0


def _stamp(path: Path) -> tuple[int, int, bytes] | None:
    try:
        stat = path.stat()
        return (stat.st_mtime_ns, stat.st_size, path.read_bytes()[-4096:])
    except OSError:
        return None


# ---------------------------------------------------------------------------------------------
# Dispatch


def _lazy(module: str, function: str):
    def run(argv: list[str]) -> int:
        import importlib

        return getattr(importlib.import_module(module), function)(argv)

    return run


HANDLERS = {
    "list": cmd_list,
    "show": cmd_show,
    "hint": cmd_hint,
    "init": cmd_init,
    "reset": cmd_reset,
    "watch": cmd_watch,
    "batch": _lazy("grader.batch", "main"),
    "validate": _lazy("grader.validate", "main"),
    "new": _lazy("grader.scaffold", "main"),
    "report": _lazy("grader.report", "dashboard_main"),
}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if not argv or argv[0] in ("-h", "--help", "help"):
            print(OVERVIEW, end="")
            return ExitCode.OK if argv else ExitCode.USAGE
        if argv[0] == "--version":
            print(f"grade {__version__}")
            return ExitCode.OK
        if argv[0] in HANDLERS:
            return int(HANDLERS[argv[0]](argv[1:]))
        if argv[0].startswith("-"):
            raise UsageError(f"unknown option {argv[0]}", hint="Run `grade --help`.")
        return int(cmd_grade(argv))
    except SystemExit as exc:  # argparse --help
        return int(exc.code or 0) if isinstance(exc.code, int) else ExitCode.USAGE
    except GraderError as exc:
        print(exc.format(), file=sys.stderr)
        return int(exc.exit_code)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return ExitCode.OK
    except Exception:  # noqa: BLE001 - the one place a grader bug is turned into exit code 3
        print(
            "Error: internal error in the grader (this is a bug; please report it):",
            file=sys.stderr,
        )
        traceback.print_exc()
        return ExitCode.INTERNAL
