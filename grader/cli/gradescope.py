"""Gradescope's autograder: ``grade gradescope`` builds the zip to upload, ``grade
gradescope-run`` is what its ``run_autograder`` runs for every submission (docs/LMS.md)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from grader.catalog import Catalog, project_root
from grader.errors import ExitCode, GraderError
from grader.fileio import check_writable, write_atomic
from grader.i18n import choose_lang
from grader.lms.assignment import Assignment, load_assignment
from grader.options import Parser, add_lang, path_arg

UPLOAD = (
    "Upload it in Gradescope: the assignment's Settings, Configure Autograder, Zip file upload; "
    "choose the Ubuntu 22.04 (or later) base image and press Update Autograder. Gradescope then "
    "runs setup.sh once (a few minutes: it installs Python and CPU torch) and grades every "
    "submission as it arrives."
)


def cmd_gradescope(argv: list[str]) -> int:
    from grader.lms.autograder import autograder_files, autograder_zip

    parser = Parser(
        prog="grade gradescope",
        description="Build the autograder zip for an assignment, to upload to Gradescope "
        "(a programming assignment's Configure Autograder). It holds this grader, the "
        "assignment's exercises with their hidden tests and reference solutions, and nothing "
        "of any other exercise.",
        epilog="Each submission is then graded by `grade gradescope-run` inside Gradescope's "
        "container: see docs/LMS.md.",
    )
    parser.add_argument(
        "--assignment", type=path_arg, required=True, help="the assignment file (docs/LMS.md)"
    )
    parser.add_argument(
        "-o",
        "--output",
        type=path_arg,
        default=Path("autograder.zip"),
        help="the zip to write (default: autograder.zip)",
    )
    add_lang(parser)
    args = parser.parse_args(argv)
    check_writable(args.output)
    catalog = Catalog(project_root())
    assignment = load_assignment(args.assignment)
    assignment.check_exercises({spec.id for spec in catalog.all()})
    lang = choose_lang(args.lang)
    files = autograder_files(assignment, course=catalog.root, lang=lang)
    autograder_zip(args.output, files)
    size = args.output.stat().st_size
    print(
        f"Wrote {args.output} ({size // 1024} KiB, {len(files)} files): the autograder of "
        f"{assignment.title or assignment.name} ({', '.join(assignment.ids)}), feedback in {lang}."
    )
    print(UPLOAD)
    return ExitCode.OK


def cmd_gradescope_run(argv: list[str]) -> int:
    parser = Parser(
        prog="grade gradescope-run",
        description="Grade one Gradescope submission and write its results.json: what the "
        "autograder's run_autograder runs, inside Gradescope's container, for every submission. "
        "A results.json is always written: when the grader itself fails, it gives score 0 and "
        "tells the student to contact the instructor.",
        epilog="Exit code 0 when every exercise passed, 1 when some did not (learner faults "
        "such as a syntax error or a missing file are results), 2 for a usage or spec error, "
        "3 when the grader itself failed.",
    )
    parser.add_argument(
        "--submission",
        type=path_arg,
        required=True,
        help="the student's files (/autograder/submission)",
    )
    parser.add_argument(
        "--metadata",
        type=path_arg,
        required=True,
        help="Gradescope's submission_metadata.json (a missing one: the submitter is unknown)",
    )
    parser.add_argument(
        "--assignment", type=path_arg, required=True, help="the assignment file the zip ships"
    )
    parser.add_argument("--results", type=path_arg, required=True, help="the results.json to write")
    add_lang(parser)
    args = parser.parse_args(argv)
    started = time.monotonic()
    assignment: Assignment | None = None
    try:
        from grader.lms.autograder import grade_submission

        assignment = load_assignment(args.assignment)
        catalog = Catalog(project_root())
        assignment.check_exercises({spec.id for spec in catalog.all()})
        outcome = grade_submission(
            args.submission,
            args.metadata,
            assignment,
            catalog=catalog,
            lang=choose_lang(args.lang),
        )
        write_atomic(args.results, outcome.results)
    except BaseException as exc:
        _leave_fault(args.results, exc, time.monotonic() - started, assignment, args.lang)
        raise
    if outcome.fault:
        print(
            f"Error: {outcome.fault}. {args.results} gives score 0 and asks the student to "
            "contact you; the tests in it say what failed.",
            file=sys.stderr,
        )
        return ExitCode.INTERNAL
    print(f"Wrote {args.results}.")
    return ExitCode.OK if outcome.passed else ExitCode.TESTS_FAILED


def _leave_fault(
    results: Path,
    exc: BaseException,
    elapsed: float,
    assignment: Assignment | None,
    lang: str | None = None,
) -> None:
    """A results.json for a run that ended in an exception, so that Gradescope shows the
    student a message (not an error page); the exception itself goes on to ``main``, which
    prints it and sets the exit code."""
    from grader.lms.gradescope import fault_json

    if isinstance(exc, GraderError):
        why = exc.message
    elif isinstance(exc, KeyboardInterrupt):
        why = "the grading was interrupted"
    else:
        why = f"an internal error in the grader, {type(exc).__name__}"
    try:
        told = fault_json(
            why, execution_time=elapsed, assignment=assignment, lang=choose_lang(lang)
        )
        write_atomic(results, told)
    except GraderError as error:
        print(f"Error: no results.json could be written either: {error.message}", file=sys.stderr)
