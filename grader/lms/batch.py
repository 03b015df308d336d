"""``grade batch``: grade a whole class, in parallel, resumably, losing nothing.

The orchestration over the engine: find what each student handed in (:mod:`.discover`), grade
what the cache does not already hold (:mod:`.cache`), storing every result as soon as it is
whole, and write the class's outputs (:mod:`.gradebook`, :mod:`grader.render`).

Outputs in DIR: ``students/<student>/<exercise>.json`` and ``.html`` (result and report),
``students/<student>/results.json`` (Gradescope), ``gradebook.csv``, ``gradebook.json`` and
``index.html`` (the class report). Every file is written atomically.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from grader.catalog import Catalog, project_root
from grader.cluster import make_engine
from grader.engine import GradeRequest
from grader.engine.scoring import cacheable, grader_faulted
from grader.errors import UsageError
from grader.fileio import write_atomic
from grader.lms.cache import cached, digest, engine_fingerprint, exercise_fingerprint, store
from grader.lms.discover import Student, discover
from grader.lms.gradebook import (
    Cell,
    Row,
    class_stats,
    exercise_maxima,
    gradebook_csv,
    gradebook_json,
    gradescope_results,
)
from grader.lms.progress import Progress
from grader.results import Result
from grader.spec import ExerciseSpec


@dataclass(frozen=True)
class Task:
    """One (student, exercise) to grade, and where its result goes."""

    student: Student
    spec: ExerciseSpec
    path: Path
    key: str
    result_path: Path


@dataclass
class BatchSummary:
    students: int
    graded: int
    cached: int
    interrupted: bool
    out: Path
    all_passed: bool
    with_problems: int  # students with something unreadable, missing or ignored
    grader_faults: int  # results the grader itself could not produce properly


def run_batch(
    submissions: Path,
    out: Path,
    *,
    jobs: int,
    gpu_jobs: int | None,
    exercises: list[str] | None,
    seed: int,
    lang: str,
    stream: TextIO,
    cluster: str | None = None,
) -> BatchSummary:
    catalog = Catalog(project_root())
    specs = {spec.id: spec for spec in catalog.all()}
    wanted = [catalog.resolve(e).id for e in exercises] if exercises else None
    if not submissions.is_dir():
        raise UsageError(
            f"{submissions} is not a folder",
            hint="Pass the folder that holds one folder or .zip per student.",
        )
    _make_folder(out)
    students, stray = discover(submissions, out / ".staging", set(wanted or specs), out)
    if not students:
        raise UsageError(f"no student folders or .zip archives in {submissions}")
    columns = wanted or sorted(
        {e for s in students for e in s.files} | {e for s in students for e in s.unreadable}
    )
    for student in students:
        for exercise in columns:
            if student.archive_error:
                student.unreadable.add(exercise)
            elif exercise not in student.files and exercise not in student.unreadable:
                student.problems.append(f"{exercise}.py: missing")

    # Learner children see neither the class's submissions nor what was graded so far.
    engine = make_engine(
        cluster,
        catalog,
        jobs=jobs,
        gpu_jobs=gpu_jobs,
        hidden=(submissions.resolve(), out.resolve()),
        preload=[specs[e] for e in columns],
    )
    grader_key = engine_fingerprint()
    # what decides whether CUDA cases run or are skipped: the passes this machine runs
    passes = "cpu,cuda" if engine.gpus else "cpu"
    fingerprints = {e: exercise_fingerprint(specs[e]) for e in columns}
    tasks: list[Task] = []
    hits: list[Task] = []
    sources: dict[Path, bytes] = {}
    for student in students:
        for exercise, path in student.files.items():
            if exercise not in fingerprints:
                continue
            sources[path] = path.read_bytes()
            key = digest(grader_key, fingerprints[exercise], sources[path], str(seed), lang, passes)
            result_path = out / "students" / student.id / f"{exercise}.json"
            task = Task(student, specs[exercise], path, key, result_path)
            (hits if cached(result_path, key) else tasks).append(task)
    progress = Progress(len(tasks) + len(hits), stream, already=len(hits))
    interrupted = False
    if tasks:
        requests = [
            GradeRequest(
                exercise=task.spec.id,
                source=sources[task.path],
                filename=f"{task.student.id}/{task.path.name}",
                seed=seed,
                lang=lang,
            )
            for task in tasks
        ]

        def on_result(index: int, result: Result, report: str | None) -> None:
            task = tasks[index]
            key = task.key if cacheable(result) else None
            store(task.result_path, key, result, f"{task.student.id}/{task.path.name}")
            if report is not None:  # rendered where it was graded
                write_atomic(task.result_path.with_suffix(".html"), report)
            progress.advance(result)

        with engine:
            try:
                engine.grade_many(requests, on_result=on_result, reports=True)
            except KeyboardInterrupt:
                interrupted = True
    progress.show(final=True)
    rows = _write_outputs(out, students, columns, specs, stray, lang)
    results = [c.result for r in rows for c in r.cells.values() if c.result is not None]
    all_passed = all(c.status == "passed" for r in rows for c in r.cells.values()) and all(
        e in r.cells for r in rows for e in columns
    )
    return BatchSummary(
        students=len(students),
        graded=len(tasks),
        cached=len(hits),
        interrupted=interrupted,
        out=out,
        all_passed=all_passed,
        with_problems=sum(1 for s in students if s.problems),
        grader_faults=sum(1 for r in results if grader_faulted(r)),
    )


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the output folder {out}: {exc.strerror or exc}",
            hint="Choose a folder you can write to with --out.",
        ) from None


def _write_outputs(
    out: Path,
    students: list[Student],
    columns: list[str],
    specs: dict[str, ExerciseSpec],
    stray: list[str],
    lang: str,
) -> list[Row]:
    from grader.render.classreport import render_class
    from grader.render.html import render_result

    rows = []
    fallback = {e: float(sum(t.points for t, d in specs[e].manifest(("cpu",)))) for e in columns}
    for student in sorted(students, key=lambda s: s.id):
        row = Row(student.id, problems=list(student.problems))
        folder = out / "students" / student.id
        for exercise in columns:
            result_path = folder / f"{exercise}.json"
            if exercise in student.unreadable:
                row.cells[exercise] = Cell("unreadable")
                continue
            if exercise not in student.files:
                row.cells[exercise] = Cell("missing")
                continue
            try:
                result = Result.from_json(result_path.read_text(encoding="utf-8"))
            except (OSError, ValueError, KeyError, TypeError):
                row.cells[exercise] = Cell("not graded")
                continue
            report_path = folder / f"{exercise}.html"
            if not report_path.is_file():  # a result from an older run, without its report
                write_atomic(report_path, render_result(result))
            row.cells[exercise] = Cell(
                result.status.value,
                result.score,
                result.max_score,
                result,
                f"students/{student.id}/{exercise}.json",
                f"students/{student.id}/{exercise}.html",
            )
        rows.append(row)
    maxima = exercise_maxima(rows, columns, fallback)
    titles = {e: specs[e].title.get(lang) for e in columns}
    for row in rows:
        write_atomic(
            out / "students" / row.student / "results.json",
            gradescope_results(row, columns, maxima),
        )
    write_atomic(out / "gradebook.csv", gradebook_csv(rows, columns, maxima))
    write_atomic(out / "gradebook.json", gradebook_json(rows, columns, maxima, titles))
    stats = class_stats(rows, columns, maxima, titles)
    write_atomic(
        out / "index.html", render_class(rows, columns, maxima, titles, stats, stray, lang)
    )
    return rows
