"""The ``grade`` command: the thin top layer over the engine. Nothing below imports it.

    learner.py     grade list | show ID | hint ID | init [DIR] | reset ID | report | ID | watch ID
    server.py      grade server status|start|stop, and how the learner's commands reach it
    instructor.py  grade batch SUBMISSIONS [--out DIR] [--jobs N] [--exercises IDS]
    gradescope.py  grade gradescope --assignment FILE [-o ZIP] | grade gradescope-run ...
    author.py      grade validate [--junit PATH] | grade new ID | grade preview ID --file F
    debug.py       --debug: the hidden tests' own exceptions, for the exercise's author

The options every command shares (--course DIR, --lang, --device, --debug) are in
:mod:`grader.options` (the notebook uses them too).

Exit codes (DESIGN.md): 0 every graded test passed, 1 some did not, 2 usage or spec error,
3 internal error, 130 interrupted. Every user mistake is one ``Error: ...`` line, never a
traceback; this module is the one place an exception becomes an exit code.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
import traceback
from collections.abc import Callable
from typing import NoReturn

from grader import __version__
from grader.console import inert_terminal
from grader.errors import ExitCode, GraderError, UsageError

COMMANDS = (
    "list",
    "show",
    "hint",
    "init",
    "reset",
    "watch",
    "server",
    "batch",
    "gradescope",
    "validate",
    "new",
    "preview",
    "report",
)

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
  grade server status       the warm grading server (also: start, stop)

Instructors and CI:
  grade batch SUBMISSIONS   grade a whole class (folders or .zip files per student)
  grade gradescope          the autograder zip for Gradescope (--assignment FILE -o ZIP)
  grade validate            prove every exercise: references pass, starters and mutants fail
  grade new ID              scaffold a new exercise (--template for a test pattern)
  grade preview ID --file F what a learner would see for a file (no workspace)

ID is exercise-07, 07, 7 or the exercise's slug. Every command takes --course DIR (default:
GRADER_COURSE, else the course folder it runs in, else the built-in course). Exit codes: 0 all
passed, 1 some failed, 2 usage or spec error, 3 internal error.
"""


def _lazy(module: str, function: str) -> Callable[[list[str]], int]:
    """A command that imports its module only when it runs (``grade list`` stays instant)."""

    def run(argv: list[str]) -> int:
        handler: Callable[[list[str]], int] = getattr(importlib.import_module(module), function)
        return int(handler(argv))

    return run


HANDLERS: dict[str, Callable[[list[str]], int]] = {
    "list": _lazy("grader.cli.learner", "cmd_list"),
    "show": _lazy("grader.cli.learner", "cmd_show"),
    "hint": _lazy("grader.cli.learner", "cmd_hint"),
    "init": _lazy("grader.cli.learner", "cmd_init"),
    "reset": _lazy("grader.cli.learner", "cmd_reset"),
    "watch": _lazy("grader.cli.learner", "cmd_watch"),
    "report": _lazy("grader.cli.learner", "cmd_report"),
    "server": _lazy("grader.cli.server", "cmd_server"),
    "batch": _lazy("grader.cli.instructor", "cmd_batch"),
    "gradescope": _lazy("grader.cli.gradescope", "cmd_gradescope"),
    "gradescope-run": _lazy("grader.cli.gradescope", "cmd_gradescope_run"),
    "validate": _lazy("grader.cli.author", "cmd_validate"),
    "new": _lazy("grader.cli.author", "cmd_new"),
    "preview": _lazy("grader.cli.author", "cmd_preview"),
}
_GRADE = _lazy("grader.cli.learner", "cmd_grade")


def main(argv: list[str] | None = None) -> int:
    """Every command, with the terminal made inert (:mod:`grader.console`): whatever from
    outside it prints, no control code reaches the user's terminal."""
    with inert_terminal():
        return _main(argv)


def _main(argv: list[str] | None) -> int:
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
        return _GRADE(argv)
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


def run() -> NoReturn:
    """The ``grade`` process: :func:`main`, then its exit code, without the interpreter's own
    teardown.

    Once torch is imported, Python's finalisation (freeing every module's objects one by one)
    takes about a quarter of a second, after the result is shown and every file is written:
    in every cold ``grade ID`` the learner would wait for it. The exit handlers still run
    (libraries' and the grader's), and the output is flushed first; only that teardown is
    skipped, and the kernel frees the memory at once.
    """
    code = main()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # `grade ... | head`: what was read is all that was wanted
            pass
        except (OSError, ValueError):
            code = code or ExitCode.INTERNAL
    os._exit(code)
