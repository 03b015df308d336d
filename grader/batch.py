"""``grade batch``: grade a whole class, in parallel, resumably, losing nothing.

    grade batch SUBMISSIONS [--out DIR] [--jobs N] [--gpu-jobs N] [--exercises IDS]

SUBMISSIONS holds one folder or one ``.zip`` per student (as learning platforms export them) with
``exercise-NN.py`` files at any depth. Every submission is graded in its own learner child, forked
from one warm process; ``--jobs`` gradings run at a time, and the gradings that use a GPU are
limited separately (``--gpu-jobs``). What each student handed in that matches no exercise, what
is missing and what cannot be read is reported per student, never fatal.

Each (student, exercise) result is cached in DIR under a key made of the submission's bytes, the
exercise's files, the grader's code and the grading options: a rerun grades only what changed,
and a run stopped by Ctrl-C (or killed) resumes where it was. Every file is written atomically.

Outputs in DIR: ``students/<student>/<exercise>.json`` and ``.html`` (result and report),
``students/<student>/results.json`` (Gradescope), ``gradebook.csv``, ``gradebook.json`` and
``index.html`` (the class report).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
import shutil
import stat
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from grader import __version__
from grader.catalog import Catalog, install_root, project_root
from grader.errors import ExitCode, UsageError
from grader.gradebook import (
    Cell,
    Row,
    class_stats,
    exercise_maxima,
    gradebook_csv,
    gradebook_json,
    gradescope_results,
)
from grader.results import Result, Status, write_atomic
from grader.spec import ExerciseSpec

EXERCISE_FILE = re.compile(r"^exercise-\d{2}\.py$")
_SKIP_DIRS = {"__pycache__", "__MACOSX", ".git", ".ipynb_checkpoints"}
MAX_ARCHIVE_BYTES = 64 << 20
MAX_ARCHIVE_MEMBERS = 2000
MAX_SOURCE_BYTES = 4 << 20


# ---------------------------------------------------------------------------------------------
# Finding what each student handed in


@dataclass
class Student:
    id: str
    files: dict[str, Path] = field(default_factory=dict)  # exercise id -> file
    shown: dict[str, str] = field(default_factory=dict)  # exercise id -> name as handed in
    problems: list[str] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)
    archive_error: bool = False  # their archive could not be read: nothing of it is graded


def _safe_id(name: str) -> str:
    cleaned = re.sub(r"[^\w.@+-]+", "_", name, flags=re.UNICODE).strip("._") or "student"
    return cleaned[:100]


def discover(
    root: Path, staging: Path, known: set[str], out: Path | None = None
) -> tuple[list[Student], list[str]]:
    """Every student under ``root``, and problems that belong to no student. ``out`` (the
    grader's output folder, which may lie inside ``root``) is not a student."""
    if not root.is_dir():
        raise UsageError(
            f"{root} is not a folder",
            hint="Pass the folder that holds one folder or .zip per student.",
        )
    students: dict[str, Student] = {}
    stray: list[str] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith(".") or entry.name in _SKIP_DIRS:
            continue
        if out is not None and entry.resolve() == out.resolve():
            continue
        is_archive = entry.is_file() and entry.suffix.lower() == ".zip"
        if not entry.is_dir() and not is_archive:
            stray.append(f"{entry.name}: not a student folder or .zip archive; ignored")
            continue
        student = Student(_safe_id(entry.stem if is_archive else entry.name))
        if student.id in students:  # "a b" and "a_b" both clean up to a_b
            base, n = student.id, 2
            while f"{base}-{n}" in students:
                n += 1
            student.problems.append(
                f"another submission is also named {base}; graded as {base}-{n}"
            )
            student.id = f"{base}-{n}"
        students[student.id] = student
        if is_archive:
            _extract_archive(student, entry, staging / student.id, known)
        else:
            _collect_folder(student, entry, known)
    return list(students.values()), stray


def _shallow_first(relative: Path) -> tuple[int, str]:
    """Where a student handed in two copies of a file, the one nearest the top is graded
    (``exercise-01.py`` before ``backup/exercise-01.py``)."""
    return len(relative.parts), relative.as_posix()


def _collect_folder(student: Student, folder: Path, known: set[str]) -> None:
    for path in sorted(folder.rglob("*"), key=lambda p: _shallow_first(p.relative_to(folder))):
        relative = path.relative_to(folder)
        if any(part.startswith(".") or part in _SKIP_DIRS for part in relative.parts):
            continue
        if path.is_symlink():
            student.problems.append(f"{relative}: a symbolic link; ignored")
            continue
        if path.is_dir():
            continue
        _add_file(student, path, relative.as_posix(), known)


def _add_file(student: Student, path: Path, shown: str, known: set[str]) -> None:
    name = path.name
    if not EXERCISE_FILE.match(name):
        student.problems.append(f"{shown}: matches no exercise (expected exercise-NN.py); ignored")
        return
    exercise = name[:-3]
    if exercise not in known:
        student.problems.append(f"{shown}: there is no {exercise}; ignored")
        return
    if exercise in student.files:
        student.problems.append(
            f"{shown}: a second {name}; graded {student.shown[exercise]} instead"
        )
        return
    try:
        if not stat.S_ISREG(path.stat().st_mode):
            raise OSError("not a regular file")  # a FIFO would block the open below
        if path.stat().st_size > MAX_SOURCE_BYTES:
            raise OSError("larger than 4 MiB")
        with open(path, "rb"):  # readable at all (permissions)
            pass
    except OSError as exc:
        student.problems.append(
            f"{shown}: cannot be read ({getattr(exc, 'strerror', None) or exc}); scored 0"
        )
        student.unreadable.add(exercise)
        return
    student.files[exercise] = path
    student.shown[exercise] = shown


def _extract_archive(student: Student, archive: Path, dest: Path, known: set[str]) -> None:
    """Extract only exercise files, refusing unsafe paths, links and archive bombs."""
    shutil.rmtree(dest, ignore_errors=True)
    try:
        with zipfile.ZipFile(archive) as zf:
            members = sorted(
                zf.infolist(), key=lambda i: _shallow_first(Path(i.filename.replace("\\", "/")))
            )
            if len(members) > MAX_ARCHIVE_MEMBERS:
                student.problems.append(
                    f"{archive.name}: more than {MAX_ARCHIVE_MEMBERS} entries; not graded"
                )
                student.archive_error = True
                return
            total = 0
            for info in members:
                name = info.filename
                parts = Path(name.replace("\\", "/")).parts
                if name.startswith(("/", "\\")) or ".." in parts or re.match(r"^[A-Za-z]:", name):
                    student.problems.append(f"{archive.name}: unsafe path {name!r} rejected")
                    continue
                if info.is_dir() or any(p in _SKIP_DIRS or p.startswith(".") for p in parts):
                    continue
                if stat.S_ISLNK(info.external_attr >> 16):
                    student.problems.append(f"{archive.name}: {name} is a symbolic link; rejected")
                    continue
                if not EXERCISE_FILE.match(parts[-1]):
                    student.problems.append(
                        f"{name}: matches no exercise (expected exercise-NN.py); ignored"
                    )
                    continue
                if info.flag_bits & 0x1:
                    student.problems.append(f"{name}: encrypted; not graded")
                    continue
                total += info.file_size
                if total > MAX_ARCHIVE_BYTES or info.file_size > MAX_SOURCE_BYTES:
                    student.problems.append(f"{archive.name}: {name} is too large; not graded")
                    continue
                with zf.open(info) as source:
                    data = source.read(MAX_SOURCE_BYTES + 1)  # never trust the header's size
                if len(data) > MAX_SOURCE_BYTES:
                    student.problems.append(f"{archive.name}: {name} is too large; not graded")
                    continue
                target = dest / str(len(student.files) + len(student.problems)) / parts[-1]
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
                _add_file(student, target, name, known)
    except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as exc:
        student.problems.append(f"{archive.name}: not a readable zip archive ({exc}); not graded")
        student.archive_error = True


# ---------------------------------------------------------------------------------------------
# The cache


def _digest(*parts: bytes | str) -> str:
    h = hashlib.sha256()
    for part in parts:
        data = part.encode() if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def engine_fingerprint() -> str:
    """The grader's own code and the torch it runs with: a change to either regrades."""
    import torch

    root = install_root() / "grader"
    parts: list[bytes | str] = [__version__, torch.__version__]
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".yaml") and "__pycache__" not in path.parts:
            parts += [path.relative_to(root).as_posix(), path.read_bytes()]
    return _digest(*parts)


def exercise_fingerprint(spec: ExerciseSpec) -> str:
    """Everything that decides a grade of this exercise: spec, hidden tests, reference."""
    parts: list[bytes | str] = []
    for path in sorted(
        p for p in spec.folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts
    ):
        parts += [path.relative_to(spec.folder).as_posix(), path.read_bytes()]
    parts += ["solution", spec.solution_path.read_bytes()]
    return _digest(*parts)


# ---------------------------------------------------------------------------------------------
# Progress


class Progress:
    """A progress bar on a terminal; a plain line every few seconds otherwise."""

    def __init__(self, total: int, stream: TextIO, already: int = 0) -> None:
        self.total = total
        self.done = already
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()
        self.started = time.monotonic()
        self.graded_now = 0
        self.errors = 0
        self._last = time.monotonic()  # a plain line every 5 s, and a last one at the end

    def advance(self, result: Result) -> None:
        self.done += 1
        self.graded_now += 1
        self.errors += result.status is Status.ERROR
        self.show()

    def eta(self) -> str:
        if not self.graded_now:
            return "?"
        remaining = (time.monotonic() - self.started) / self.graded_now * (self.total - self.done)
        return f"{int(remaining // 60)}:{int(remaining % 60):02d}"

    def show(self, final: bool = False) -> None:
        now = time.monotonic()
        if self.tty:
            width = 30
            filled = int(width * self.done / max(self.total, 1))
            self.stream.write(
                f"\r[{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} "
                f"graded · {self.errors} errors · ETA {self.eta()}   "
            )
            if final:
                self.stream.write("\n")
            self.stream.flush()
        elif final or now - self._last >= 5.0:
            self._last = now
            pct = 100 * self.done // max(self.total, 1)
            self.stream.write(
                f"graded {self.done}/{self.total} ({pct}%), {self.errors} errors, ETA {self.eta()}\n"
            )
            self.stream.flush()


# ---------------------------------------------------------------------------------------------
# Running


@dataclass
class Task:
    student: Student
    spec: ExerciseSpec
    path: Path
    key: str
    result_path: Path
    passes: dict[str, Result] = field(default_factory=dict)


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
) -> BatchSummary:
    from grader.grading import Grader, count_gpus

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

    gpus = count_gpus()
    passes = (("cpu",), ("cuda",)) if gpus else (("cpu", "cuda"),)
    engine = engine_fingerprint()
    fingerprints = {e: exercise_fingerprint(specs[e]) for e in columns}
    tasks, cached = [], []
    for student in students:
        for exercise, path in student.files.items():
            if exercise not in fingerprints:
                continue
            key = _digest(
                engine, fingerprints[exercise], path.read_bytes(), str(seed), lang, f"gpus={gpus}"
            )
            result_path = out / "students" / student.id / f"{exercise}.json"
            task = Task(student, specs[exercise], path, key, result_path)
            (cached if _cached(task) else tasks).append(task)
    progress = Progress(len(tasks) + len(cached), stream, already=len(cached))
    interrupted = False
    if tasks:
        # Learner children see neither the class's submissions nor what was graded so far.
        hidden = (submissions.resolve(), out.resolve())
        with Grader.for_specs([specs[e] for e in columns], hidden=hidden) as grader:
            try:
                _grade(
                    grader,
                    tasks,
                    passes,
                    jobs=jobs,
                    gpu_jobs=gpu_jobs or max(gpus, 1),
                    seed=seed,
                    lang=lang,
                    progress=progress,
                )
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
        cached=len(cached),
        interrupted=interrupted,
        out=out,
        all_passed=all_passed,
        with_problems=sum(1 for s in students if s.problems),
        grader_faults=sum(1 for r in results if r.grader_fault),
    )


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(
            f"cannot create the output folder {out}: {exc.strerror or exc}",
            hint="Choose a folder you can write to with --out.",
        ) from None


def _cached(task: Task) -> bool:
    key_file = task.result_path.with_suffix(".key")
    try:
        if key_file.read_text() != task.key:
            return False
        Result.from_json(task.result_path.read_text(encoding="utf-8"))
        return True
    except (OSError, ValueError, KeyError, TypeError):
        return False


def _grade(
    grader: Any,
    tasks: list[Task],
    passes: tuple[tuple[str, ...], ...],
    *,
    jobs: int,
    gpu_jobs: int,
    seed: int,
    lang: str,
    progress: Progress,
) -> None:
    """Grade every task (one job per device pass), storing each result as soon as it is whole."""
    from grader.grading import Job, grade_many, merge_passes

    work = [
        Job(
            task.spec,
            task.path,
            tag=(task, "+".join(selected)),
            selected=selected,
            seed=seed,
            lang=lang,
        )
        for task in tasks
        for selected in passes
    ]

    def on_result(job: Job, result: Result) -> None:
        task, name = job.tag
        task.passes[name] = result
        if len(task.passes) == len(passes):
            merged = merge_passes(task.spec, [task.passes["+".join(p)] for p in passes])
            _store(task, merged)
            progress.advance(merged)

    grade_many(grader, work, parallel=jobs, gpu_parallel=gpu_jobs, on_result=on_result)


def _store(task: Task, result: Result) -> None:
    """Result first, then its cache key: a kill in between means a regrade, never a stale hit.
    The stored result names the submission relative to the class folder."""
    result = dataclasses.replace(result, submission=f"{task.student.id}/{task.path.name}")
    write_atomic(task.result_path, result.to_json())
    write_atomic(task.result_path.with_suffix(".key"), task.key)


def _write_outputs(
    out: Path,
    students: list[Student],
    columns: list[str],
    specs: dict[str, ExerciseSpec],
    stray: list[str],
    lang: str,
) -> list[Row]:
    from grader.report import render_class, render_result

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


def main(argv: list[str]) -> int:
    from grader import grading
    from grader.cli import _lang_arg, _Parser, default_lang

    parser = _Parser(
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
        default=grading.usable_cores(),
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
        default=grading.DEFAULT_SEED,
        help="seed of the hidden tests' random data (default: the grader's fixed seed)",
    )
    _lang_arg(parser)
    args = parser.parse_args(argv)
    if args.jobs < 1 or (args.gpu_jobs is not None and args.gpu_jobs < 1):
        raise UsageError("--jobs and --gpu-jobs must be at least 1")
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
        lang=args.lang or default_lang(),
        stream=sys.stderr,
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
