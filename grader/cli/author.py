"""The exercise author's commands: ``grade validate`` (the CI mode) and ``grade new``."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.catalog import Catalog, project_root
from grader.errors import ExitCode, UsageError
from grader.fileio import check_writable
from grader.options import Parser, add_device, positive, selected_devices
from grader.results import Result


def cmd_validate(argv: list[str]) -> int:
    from grader.authoring.validate import Check, validate, write_junit

    parser = Parser(
        prog="grade validate",
        description="Prove every exercise: its reference and alternatives score full marks, "
        "its starter and every mutant fail as declared.",
    )
    parser.add_argument("ids", nargs="*", help="only these exercises (default: all)")
    parser.add_argument("--junit", type=Path, help="write a JUnit XML report here")
    add_device(
        parser, "grade on this device only (default: all; CUDA cases are skipped without a GPU)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the hidden tests' inputs")
    parser.add_argument(
        "--jobs", type=int, default=None, help="gradings at a time (default: cores)"
    )
    args = parser.parse_args(argv)
    positive(args.jobs, "--jobs")
    if args.junit:
        check_writable(args.junit)
    count = 0

    def progress(index: int, result: Result, report: str | None) -> None:
        nonlocal count
        count += 1
        if sys.stderr.isatty():
            print(f"\r  graded {count}...", end="", file=sys.stderr, flush=True)

    devices = selected_devices(args.device)
    if devices == ("cuda",):
        from grader.engine.local import count_gpus

        if not count_gpus():
            raise UsageError(
                "--device cuda, but CUDA is not available on this machine: nothing to validate",
                hint="Use --device cpu or --device all (CUDA cases are then skipped).",
            )
    report = validate(
        Catalog(project_root()),
        ids=args.ids,
        selected=devices,
        seed=args.seed,
        parallel=args.jobs,
        progress=progress,
    )
    if sys.stderr.isatty():
        print("\r" + " " * 30 + "\r", end="", file=sys.stderr)
    exercises: dict[str, list[Check]] = {}
    for check in report.checks:
        exercises.setdefault(check.exercise, []).append(check)
    for exercise, checks in exercises.items():
        bad = [c for c in checks if not c.ok]
        mutants = sum(1 for c in checks if c.name.startswith("mutant"))
        alternatives = sum(1 for c in checks if c.name.startswith("alternative"))
        reference = next((c.detail for c in checks if c.name == "reference"), "-")
        starter = next((c.detail for c in checks if c.name == "starter"), "-")
        mark = "✗" if bad else "✓"
        print(
            f"{mark} {exercise}: reference {reference}, starter {starter}, "
            f"{mutants} mutants, {alternatives} alternatives"
        )
        for check in bad:
            for problem in check.problems:
                print(f"    {check.name}: {problem}")
    failed = sum(not c.ok for c in report.checks)
    print(
        f"\n{len(exercises)} exercises, {len(report.checks)} checks, {failed} failed "
        f"({report.seconds:.1f} s)"
    )
    if args.junit:
        write_junit(report, args.junit)
        print(f"JUnit XML: {args.junit}")
    return ExitCode.OK if report.ok else ExitCode.TESTS_FAILED


def cmd_new(argv: list[str]) -> int:
    from grader.authoring.scaffold import scaffold

    parser = Parser(
        prog="grade new", description="Scaffold a new exercise that passes `grade validate`."
    )
    parser.add_argument("id", help="exercise-NN")
    parser.add_argument("--slug", help="the exercise's slug (default: new-<id>)")
    args = parser.parse_args(argv)
    catalog = Catalog(project_root())
    written = scaffold(catalog, args.id, args.slug)
    for path in written:
        print(f"created {path.relative_to(catalog.root)}")
    print(f"\nNext: edit exercises/{args.id}/exercise.yaml, then run `grade validate {args.id}`.")
    print("The format is documented in exercises/README.md.")
    return 0
