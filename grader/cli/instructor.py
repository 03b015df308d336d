"""The instructor's command: ``grade batch``, a whole class graded, resumably."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from grader.engine import DEFAULT_SEED
from grader.engine.scheduler import usable_cores
from grader.errors import ExitCode, UsageError
from grader.i18n import choose_lang
from grader.options import Parser, add_lang, path_arg, positive, seed_arg, text_arg
from grader.text import inert_line

if TYPE_CHECKING:
    from grader.lms.batch import BatchSummary


def cmd_batch(argv: list[str]) -> int:
    from grader.cluster import make_engine
    from grader.lms.batch import BatchEngine, BatchOptions, EngineNeeds, run_batch
    from grader.lms.platforms import names

    parser = Parser(
        prog="grade batch",
        description="Grade a whole class of submissions: plain folders and archives, or a "
        "Gradescope, Canvas or Moodle download, unzipped.",
        epilog="Exit code 0 when every exercise of every student (with --student, of that "
        "student) passed, 1 when some did not or "
        "something is missing, 2 for a usage error, 3 when the grader itself failed in some "
        "grading, 130 when interrupted (rerun to resume).",
    )
    parser.add_argument(
        "submissions", type=path_arg, help="the class's work: a folder, or an LMS download unzipped"
    )
    parser.add_argument(
        "--assignment",
        type=path_arg,
        default=None,
        help="assignment file: exercises and weights, roster, due date, late rule (docs/LMS.md)",
    )
    parser.add_argument(
        "--out", type=path_arg, default=Path("graded"), help="output folder (default: graded)"
    )
    parser.add_argument(
        "--layout",
        choices=list(names()),
        default=None,
        help="how the download is laid out (default: detected)",
    )
    parser.add_argument(
        "--student",
        type=text_arg,
        default=None,
        help="regrade only this student (key, id, SID, e-mail or name) and update the class's "
        "gradebook",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=usable_cores(),
        help="gradings at a time (default: cores)",
    )
    parser.add_argument(
        "--gpu-jobs", type=int, default=None, help="CUDA gradings at a time (default: 1 per GPU)"
    )
    parser.add_argument(
        "--exercises",
        action="append",
        default=None,
        help="only these exercises, without an assignment file (comma-separated ids; repeatable)",
    )
    parser.add_argument(
        "--seed",
        type=seed_arg,
        default=DEFAULT_SEED,
        help="seed of the hidden tests' random data (default: the grader's fixed seed)",
    )
    parser.add_argument(
        "--cluster",
        default=None,
        help="grade on a Dask cluster: its scheduler's address (tcp://HOST:8786), or local:N "
        "for N local worker processes (needs torch-grader[cluster])",
    )
    add_lang(parser)
    args = parser.parse_args(argv)
    positive(args.jobs, "--jobs")
    positive(args.gpu_jobs, "--gpu-jobs")
    exercises = tuple(
        e.strip() for group in args.exercises or [] for e in group.split(",") if e.strip()
    )
    if args.exercises is not None and not exercises:
        # `--exercises ""` (an unset shell variable) or `--exercises ,`: no selection at all,
        # where grading the whole course would take a class's hour for what nobody asked
        raise UsageError(
            "--exercises names no exercise",
            hint="Give exercise ids separated by commas, e.g. --exercises exercise-01,exercise-07, "
            "or leave the option out.",
        )

    def engine(needs: EngineNeeds) -> BatchEngine:
        return make_engine(
            args.cluster,
            needs.catalog,
            jobs=args.jobs,
            gpu_jobs=args.gpu_jobs,
            hidden=needs.hidden,
            preload=needs.preload,
            reports=True,
        )

    started = time.monotonic()
    summary = run_batch(
        BatchOptions(
            submissions=args.submissions,
            out=args.out,
            assignment=args.assignment,
            exercises=exercises,
            layout=args.layout,
            student=args.student,
            seed=args.seed,
            lang=choose_lang(args.lang),
        ),
        sys.stderr,
        engine,
    )
    elapsed = time.monotonic() - started
    _report(summary, elapsed)
    if summary.interrupted:
        print(
            "Interrupted: everything graded so far is kept; run the same command again to resume.",
            file=sys.stderr,
        )
        return 130
    if summary.grader_faults:
        print(
            f"The grader itself failed in {summary.grader_faults} grading(s) (their tests say "
            "so); those scores cannot be trusted.",
            file=sys.stderr,
        )
        return ExitCode.INTERNAL
    return ExitCode.OK if summary.all_passed else ExitCode.TESTS_FAILED


def _report(summary: BatchSummary, elapsed: float) -> None:
    """The end of a batch on stdout: counts, what needs a look per student, what was written."""
    print(
        f"{summary.students} students: {summary.graded} graded now, {summary.cached} from the cache "
        f"({elapsed:.1f} s)."
    )
    # one item a line: a name or a file name with a newline in it cannot start a line of its
    # own ("Nothing needs a look"); the stream escapes every other control code
    if summary.attention:
        print(f"\nNeeds a look ({len(summary.attention)} student(s)):")
        for item in summary.attention:
            print(f"  {inert_line(item.student)}")
            for line in item.lines:
                print(f"    - {inert_line(line)}")
    if summary.stray:
        print("\nBelongs to no student:")
        for line in summary.stray:
            print(f"  - {inert_line(line)}")
    print()
    if summary.incomplete:
        print(f"INCOMPLETE: {summary.incomplete}.")
    outputs = summary.outputs
    if outputs is not None:
        print(f"Wrote in {summary.out}: {', '.join(outputs.written)}")
        if outputs.removed:
            print(
                f"Removed {len(outputs.removed)} file(s) and folder(s) of students this run has "
                f"no work of (an earlier run's): {', '.join(outputs.removed[:6])}"
                + (", ..." if len(outputs.removed) > 6 else "")
            )
        for line in outputs.withheld + outputs.warnings:
            print(f"  {line}")
    print(f"Class report: {summary.out / 'index.html'}")
    if summary.process_tier:
        print(
            "Note: learner code ran in the process tier here (no namespaces): it could read files "
            "this user can read and use the network. docs/SECURITY.md says what each tier holds."
        )
    if summary.advice:
        print("\nStill to do on the platforms:")
        for line in summary.advice:
            print(f"  - {inert_line(line)}")
