"""The instructor's command: ``grade batch``, a whole class graded, resumably."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from grader.cli.args import Parser, add_lang, positive
from grader.engine import DEFAULT_SEED
from grader.engine.scheduler import usable_cores
from grader.errors import ExitCode
from grader.i18n import choose_lang


def cmd_batch(argv: list[str]) -> int:
    from grader.lms.batch import run_batch

    parser = Parser(
        prog="grade batch",
        description="Grade a whole class of submissions.",
        epilog="Exit code 0 when every submitted test passed, 1 when some did not or "
        "something is missing, 2 for a usage error, 3 when the grader itself failed in some "
        "grading, 130 when interrupted (rerun to resume).",
    )
    parser.add_argument("submissions", type=Path, help="a folder of student folders or .zip files")
    parser.add_argument(
        "--out", type=Path, default=Path("graded"), help="output folder (default: graded)"
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
        help="only these exercises (comma-separated ids; repeatable)",
    )
    parser.add_argument(
        "--seed",
        type=int,
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
    exercises = [
        e.strip() for group in args.exercises or [] for e in group.split(",") if e.strip()
    ] or None
    started = time.monotonic()
    summary = run_batch(
        args.submissions,
        args.out,
        jobs=args.jobs,
        gpu_jobs=args.gpu_jobs,
        exercises=exercises,
        seed=args.seed,
        lang=choose_lang(args.lang),
        stream=sys.stderr,
        cluster=args.cluster,
    )
    elapsed = time.monotonic() - started
    print(
        f"{summary.students} students: {summary.graded} graded now, {summary.cached} from the cache "
        f"({elapsed:.1f} s)."
    )
    print(
        f"Class report: {summary.out / 'index.html'}   Gradebook: {summary.out / 'gradebook.csv'}"
    )
    if summary.with_problems:
        print(
            f"{summary.with_problems} student(s) handed in something missing, unreadable or "
            "misnamed: see the class report."
        )
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
