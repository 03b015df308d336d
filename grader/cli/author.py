"""The exercise author's commands: ``grade validate`` (the CI mode), ``grade new`` and
``grade preview``.

Each works on the course ``--course DIR`` or ``GRADER_COURSE`` names, or on the course folder
it is run in (see :mod:`grader.options`).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from grader import course
from grader.catalog import Catalog, project_root
from grader.console import control
from grader.errors import ExitCode, UsageError
from grader.fileio import check_writable
from grader.options import (
    Parser,
    add_debug,
    add_device,
    add_lang,
    path_arg,
    positive,
    seed_arg,
    selected_devices,
)
from grader.results import Result
from grader.spec import ID_RE

if TYPE_CHECKING:
    from grader.authoring.validate import Check, Report


def cmd_validate(argv: list[str]) -> int:
    from grader.authoring.validate import validate, write_junit

    parser = Parser(
        prog="grade validate",
        description="Prove every exercise: its reference and alternatives score full marks, "
        "its starter and every mutant fail as declared.",
    )
    parser.add_argument("ids", nargs="*", help="only these exercises (default: all)")
    parser.add_argument("--junit", type=path_arg, help="write a JUnit XML report here")
    add_device(
        parser, "grade on this device only (default: all; CUDA cases are skipped without a GPU)"
    )
    parser.add_argument(
        "--seed", type=seed_arg, default=None, help="seed of the hidden tests' inputs"
    )
    parser.add_argument(
        "--jobs", type=int, default=None, help="gradings at a time (default: cores)"
    )
    parser.add_argument(
        "--verbose",
        action="store_true",
        help="also show, for each mutant, what a learner would see: its first failing test, "
        "diagnosis and message, in English and Chinese",
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
            control(sys.stderr, "\r")
            print(f"  graded {count}...", end="", file=sys.stderr, flush=True)

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
        control(sys.stderr, "\r" + " " * 30 + "\r")
    _print_report(report, verbose=args.verbose)
    if args.junit:
        write_junit(report, args.junit)
        print(f"JUnit XML: {args.junit}")
    return ExitCode.OK if report.ok else ExitCode.TESTS_FAILED


def _print_report(report: Report, *, verbose: bool) -> None:
    """One line per exercise, then its findings (indented, a traceback as a block), its
    warnings and, with ``verbose``, what a learner would see of each mutant."""
    groups: dict[str, list[Check]] = {}
    for check in report.checks:
        groups.setdefault(check.exercise, []).append(check)
    exercises = 0
    for name, checks in groups.items():
        bad = [c for c in checks if not c.ok]
        mark = "✗" if bad else "✓"
        if ID_RE.match(name):
            exercises += 1
            mutants = sum(1 for c in checks if c.name.startswith("mutant"))
            alternatives = sum(1 for c in checks if c.name.startswith("alternative"))
            reference = next((c.detail for c in checks if c.name == "reference"), "-")
            starter = next((c.detail for c in checks if c.name == "starter"), "-")
            print(
                f"{mark} {name}: reference {reference}, starter {starter}, "
                f"{mutants} mutants, {alternatives} alternatives"
            )
        else:
            print(f"{mark} {name}: {', '.join(c.name for c in checks)}")
        for check in checks:
            for problem in check.problems:
                print(_indented(f"{check.name}: {problem}"))
        for check in checks:
            for warning in check.warnings:
                print(_indented(f"warning: {warning}"))
        if verbose:
            for check in checks:
                for note in check.notes:
                    print(_indented(note))
    failed = sum(not c.ok for c in report.checks)
    warned = sum(len(c.warnings) for c in report.checks)
    print(
        f"\n{exercises} exercises, {len(report.checks)} checks, {failed} failed, "
        f"{warned} warnings ({report.seconds:.1f} s)"
    )


def _indented(text: str) -> str:
    return "\n".join("    " + line for line in text.splitlines())


def cmd_new(argv: list[str]) -> int:
    from grader.authoring.scaffold import scaffold
    from grader.authoring.templates import TEMPLATES

    parser = Parser(
        prog="grade new", description="Scaffold a new exercise that passes `grade validate`."
    )
    parser.add_argument("id", help="exercise-NN")
    parser.add_argument("--slug", help="the exercise's slug (default: new-<id>)")
    parser.add_argument(
        "--template",
        choices=list(TEMPLATES),
        default="basic",
        help="the test pattern to start from (default: basic; exercises/README.md lists them)",
    )
    args = parser.parse_args(argv)
    chosen = course.current()
    if chosen.packaged:
        raise UsageError(
            "the built-in course is part of the installed grader: new exercises belong in a "
            "course folder of your own",
            hint=f"Run `grade new {args.id} --course DIR` (DIR is created if need be), or run it "
            "inside your course folder.",
        )
    catalog = Catalog(chosen.root)
    written = scaffold(catalog, args.id, args.slug, args.template)
    for path in written:
        print(f"created {path.relative_to(catalog.root)}")
    print(f"\nNext: edit exercises/{args.id}/exercise.yaml, then run `grade validate {args.id}`.")
    print("The format is documented in exercises/README.md.")
    return 0


def cmd_preview(argv: list[str]) -> int:
    from grader.cli.debug import show_faults
    from grader.engine import LocalEngine
    from grader.engine.scoring import exit_code
    from grader.i18n import choose_lang
    from grader.render.terminal import print_summary
    from grader.serve.submission import check_devices, load

    parser = Parser(
        prog="grade preview",
        description="Show what a learner would see for a file: its grading as the terminal "
        "summary, without a workspace (nothing is written).",
    )
    parser.add_argument("id", help="exercise-07, 07, 7 or the slug")
    parser.add_argument(
        "--file", type=path_arg, required=True, help="the file to grade, a .py file or a notebook"
    )
    add_device(parser, "run the tests on this device only (default: all)")
    parser.add_argument(
        "--seed", type=seed_arg, default=None, help="seed of the hidden tests' inputs"
    )
    add_lang(parser)
    add_debug(parser)
    args = parser.parse_args(argv)
    spec = Catalog(project_root()).resolve(args.id)
    submission = load(args.file)
    request = submission.request(
        spec, selected_devices(args.device), args.seed, choose_lang(args.lang)
    )
    engine = LocalEngine(preload=[spec], debug=args.debug)
    check_devices(request.devices, engine.gpus)
    with engine:
        result = submission.finish(engine.grade(request))
    print_summary(result)
    show_faults(engine, f"file {args.file}")
    return exit_code(result)
