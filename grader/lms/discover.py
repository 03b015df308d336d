"""Finding what each student handed in: one folder or one ``.zip`` per student.

Exercise files are found at any depth; what matches no exercise, what is missing and what cannot
be read is reported per student, never fatal. Archives are read defensively: unsafe paths, links,
encrypted members, bombs and oversized files are refused; only regular files are read (a FIFO
would block).
"""

from __future__ import annotations

import re
import shutil
import stat
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.errors import UsageError

EXERCISE_FILE = re.compile(r"^exercise-\d{2}\.py$")
_SKIP_DIRS = {"__pycache__", "__MACOSX", ".git", ".ipynb_checkpoints"}
MAX_ARCHIVE_BYTES = 64 << 20
MAX_ARCHIVE_MEMBERS = 2000
MAX_SOURCE_BYTES = 4 << 20


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
