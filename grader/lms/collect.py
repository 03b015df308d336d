"""Reading what one student handed in, safely: folders, zip and tar archives, single files.

A class download is untrusted input: a student controls the names, links, sizes and kinds of
what they hand in. Every importer reads through ``Collector``, which keeps the protections
``grade batch`` has always had and adds the same for tar archives:

- only regular files are read, opened without following links and without blocking (a FIFO
  named ``exercise-07.py`` never hangs intake), and checked again after opening;
- symbolic links, devices, FIFOs and sockets are reported and never followed or read;
- archives: absolute paths, ``..`` and drive letters are rejected; links, devices and encrypted
  entries are refused; no more than ``MAX_ARCHIVE_MEMBERS`` entries, no file over its cap,
  no more than ``MAX_ARCHIVE_BYTES`` read in all, and header sizes are never trusted (every read
  is capped); a tar stream is read through a counter, so a gzip bomb costs at most
  ``MAX_TAR_STREAM_BYTES`` of decompression; nothing is ever extracted by its own path;
- an archive inside a student's folder is opened; an archive inside an archive is not;
- huge folders are walked up to ``MAX_WALK_ENTRIES`` entries and summarised, not listed.

``finish`` then decides each exercise: of several files for one exercise, the latest (the
platform's time, else the file's modification time; then the platform's upload order, then the
exact name, then the one nearest the top) is graded and the others are noted; a notebook's code
is extracted; each file is staged under the exercise's learner file name; unchanged starters are
flagged.
"""

from __future__ import annotations

import gzip
import hashlib
import lzma
import os
import shutil
import stat
import tarfile
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from grader.errors import UsageError
from grader.fileio import open_regular, resolved
from grader.lms import zipnames
from grader.lms.handin import (
    ExerciseInfo,
    Handin,
    Said,
    Submitted,
    in_lang,
    notebook_note,
    notebook_unreadable,
    safe_name,
)
from grader.lms.names import NameMatch, code_name, looks_like, match_name, why_not
from grader.notebooks import MAX_NOTEBOOK_BYTES, CellMap, NotebookError, extract

MAX_SOURCE_BYTES = 4 << 20  # a .py file (or a notebook's extracted code)
MAX_ARCHIVE_BYTES = 64 << 20  # read out of one archive in all
MAX_ARCHIVE_MEMBERS = 2000
MAX_TAR_STREAM_BYTES = 256 << 20  # decompressed bytes read through one tar archive
MAX_WALK_ENTRIES = 10_000  # entries looked at in one student's folder
MAX_DEPTH = 24  # folder levels below a student's folder
# One student, whatever the layout (docs/LMS.md, "Caps"): what fits is kept in reading order
# (names sorted), the rest is not read, and the student needs a look.
MAX_STUDENT_ARCHIVES = 16  # archives opened
MAX_STUDENT_MEMBERS = 4000  # archive entries looked at, over all their archives
MAX_STUDENT_BYTES = 64 << 20  # file bytes read and held (intake's memory for one student)
MAX_STUDENT_INFLATE = 256 << 20  # bytes decompressed, over all their archives
MAX_RATIO = 100  # decompressed : compressed, above RATIO_FLOOR (a .py file compresses ~4:1)
RATIO_FLOOR = 16 << 20  # smaller members and streams may compress as well as they like
# A whole class (one intake): over these, intake stops with a usage error and grades no one.
MAX_CLASS_BYTES = 4 << 30  # file bytes read in all
MAX_CLASS_INFLATE = 16 << 30  # bytes decompressed in all
MAX_CLASS_ENTRIES = 2_000_000  # folder entries and archive members looked at in all
SHOWN = 5  # names listed in a summary
SKIP_DIRS = frozenset(
    {"__pycache__", "__MACOSX", ".git", ".ipynb_checkpoints", "node_modules", "site-packages"}
)
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
# why an entry named as an exercise's file was not graded: the learner reads it beside the
# exercise, so in both languages
LINK_WHY = Said("a symbolic link; not followed", "这是一个符号链接，没有跟随读取")
SPECIAL_WHY = Said(
    "not a regular file (a FIFO, socket or device); not read",
    "不是普通文件（FIFO、套接字或设备），没有读取",
)


def cannot_read(exc: OSError) -> Said:
    why = getattr(exc, "strerror", None) or exc
    return Said(f"cannot be read ({why})", f"无法读取（{why}）")


def also(text: str, en: str, zh: str) -> str:
    """``text`` followed by ``en``, and its Chinese by ``zh`` where it has one."""
    if isinstance(text, Said):
        return Said(text + en, text.zh + zh)
    return text + en


def bilingual(why: str) -> Said:
    """Why an entry was not graded, in both languages: its own Chinese where it has one,
    else the reader's English words under a Chinese sentence that says they are."""
    if isinstance(why, Said):
        return why
    return Said(why, f"没有评分（评分器的原话：{why}）")


def over_cap(why: str) -> Said:
    """Why an entry was not read: intake's per-student cap ``why`` was passed before it."""
    return Said(
        f"not read: over intake's per-student cap ({why})",
        f"没有读取：超出了每位学生提交内容的上限（{in_lang(why, 'zh')}）",
    )


def joined(shown: str, why: str) -> str:
    """ "shown: why", in both languages where ``why`` is."""
    if isinstance(why, Said):
        return Said(f"{shown}: {why}", f"{shown}：{why.zh}")
    return f"{shown}: {why}"


def entries(folder: Path) -> list[os.DirEntry]:
    """A folder's entries, sorted by name (listing order is the file system's, not ours)."""
    with os.scandir(folder) as scan:
        return sorted(scan, key=lambda e: e.name)


def archive_kind(name: str) -> str | None:
    """``zip``, ``tgz`` or ``tar`` for an archive's file name, else None."""
    lower = name.lower()
    if lower.endswith(".zip"):
        return "zip"
    if lower.endswith((".tar.gz", ".tgz")):
        return "tgz"
    if lower.endswith(".tar"):
        return "tar"
    return None


def archive_stem(name: str) -> str:
    """The name without its archive suffix: ``alice.tar.gz`` -> ``alice``."""
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return name[: -len(suffix)]
    return name


def skipped(part: str) -> bool:
    """Hidden entries and tool folders are no one's submission (``.DS_Store``, ``__MACOSX``)."""
    return part.startswith(".") or part in SKIP_DIRS


def unsafe_member(name: str) -> bool:
    """An archive path that would leave the folder it is extracted into."""
    normal = name.replace("\\", "/")
    return (
        normal.startswith("/")
        or ".." in PurePosixPath(normal).parts
        or (len(normal) > 1 and normal[1] == ":" and normal[0].isalpha())
    )


class TooLarge(OSError):
    pass


def larger_than(limit: int) -> Said:
    return Said(f"larger than {limit >> 20} MiB", f"大于 {limit >> 20} MiB")


def read_regular(path: Path, limit: int) -> tuple[bytes, os.stat_result]:
    """A regular file's bytes (at most ``limit``, else ``TooLarge``) and its status (as
    opened: its mtime, and its ctime, when it was written on this computer)."""
    fd, info = open_regular(path, follow=False)
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > limit:
            raise TooLarge(larger_than(limit))
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise TooLarge(larger_than(limit))
    return data, info


def mtime(info: os.stat_result) -> datetime:
    return datetime.fromtimestamp(info.st_mtime, tz=timezone.utc)


def ctime(info: os.stat_result) -> datetime:
    """When the file was written (or its status changed) on this computer: an unzip that
    restores a file's date sets its mtime, never this."""
    return datetime.fromtimestamp(info.st_ctime, tz=timezone.utc)


def summarise(lines: list[str], many: str, *, whole: bool = False) -> list[str]:
    """``lines`` ("name: why") as they are while there are few; else one line with the count
    and a few of the names ("1207 files are no exercise file; ignored, e.g. a.txt, ..."), or
    of the whole lines (``whole``) where the reasons differ: in both languages (``many``'s
    Chinese, and each line's where it has one)."""
    lines = sorted(set(lines)) if not whole else list(dict.fromkeys(lines))
    if len(lines) <= 2 * SHOWN:
        return lines
    n, shown = len(lines), lines[:SHOWN]
    if whole:
        en = f"{n} {many}, e.g. {'; '.join(shown)}; ..."
        zh = f"{n} {in_lang(many, 'zh')}，例如：{'；'.join(in_lang(s, 'zh') for s in shown)}；……"
    else:
        names = ", ".join(line.split(": ", 1)[0] for line in shown)
        en, zh = f"{n} {many}, e.g. {names}, ...", f"{n} {in_lang(many, 'zh')}，例如 {names} 等"
    return [Said(en, zh) if isinstance(many, Said) else en]


@dataclass
class _Candidate:
    exercise: str
    shown: str
    notes: list[str]
    notebook: bool
    submitted_at: datetime | None
    sequence: int
    exact: bool
    depth: int
    platform_time: bool = True  # False: the time is a file's mtime
    order: int = 0  # among entries of the same name in one archive: its place (1, 2, ...)
    container: str = ""  # the archive it came out of, as shown; "" for a file of its own
    written_at: datetime | None = None  # the ctime of the file on disk (or of its archive)
    data: bytes | None = None
    error: str = ""  # why it could not be read; data is None then


class _StreamLimit(Exception):
    pass


class _Limited:
    """A read-only stream that refuses to deliver more than ``limit`` bytes in all."""

    def __init__(self, raw: BinaryIO, limit: int) -> None:
        self.raw = raw
        self.left = limit
        self.delivered = 0

    def read(self, size: int = -1) -> bytes:
        if self.left <= 0:
            raise _StreamLimit
        want = self.left if size is None or size < 0 else min(size, self.left)
        data = self.raw.read(want)
        self.left -= len(data)
        self.delivered += len(data)
        return data


class OverCap(Exception):
    """A student went over one of the per-student caps: ``why`` says which."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass
class ClassBudget:
    """What one intake read for the whole class, by student: over a class cap, intake stops
    with a usage error that names the students who used the most (no one is graded on a
    download the grader could not read in full, and no classmate is dropped in silence)."""

    read: int = 0
    inflated: int = 0
    entries: int = 0
    by_student: Counter = field(default_factory=Counter)

    def charge(self, student: str, *, read: int = 0, inflated: int = 0, entries: int = 0) -> None:
        self.read += read
        self.inflated += inflated
        self.entries += entries
        self.by_student[student] += read + inflated + entries
        over = (
            ("bytes read", self.read, MAX_CLASS_BYTES),
            ("bytes decompressed", self.inflated, MAX_CLASS_INFLATE),
            ("entries looked at", self.entries, MAX_CLASS_ENTRIES),
        )
        for what, used, cap in over:
            if used > cap:
                most = ", ".join(name for name, _ in self.by_student.most_common(3))
                raise UsageError(
                    f"the download is over intake's class cap of {cap:,} {what}; most of it "
                    f"came from: {most}",
                    hint='Look at those students\' files (docs/LMS.md, "Caps"), remove what '
                    "is no one's work, and run again.",
                )


_CLASS: ContextVar[ClassBudget | None] = ContextVar("grader_class_budget", default=None)


@contextmanager
def class_budget() -> Iterator[ClassBudget]:
    """One intake's class-wide budget: every ``Collector`` made inside charges it."""
    budget = ClassBudget()
    token = _CLASS.set(budget)
    try:
        yield budget
    finally:
        _CLASS.reset(token)


@dataclass
class Collector:
    """Gathers one student's files, then ``finish`` turns them into the Handin's files."""

    handin: Handin
    exercises: dict[str, ExerciseInfo]
    staging: Path  # this handin's own staging folder (emptied first)
    use_mtime: bool = True  # False where the platform's upload order is the better clock
    exclude: frozenset[Path] = frozenset()  # folders that are no one's work (the output)
    candidates: list[_Candidate] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)  # "name: why", summarised at the end
    damaged: list[str] = field(default_factory=list)  # archives that could not be read
    rejected: list[str] = field(default_factory=list)  # "name: why" of refused entries
    archives: int = 0  # archives opened
    members: int = 0  # archive entries looked at
    held: int = 0  # file bytes read and held
    inflated: int = 0  # bytes decompressed
    over: str = ""  # the first per-student cap this student went over ("" none)
    texts: list[str] = field(default_factory=list)  # the platform's text entries (not graded)
    # exercise -> a code file whose name names it but is no exercise file ("ex5_final.py")
    named: dict[str, str] = field(default_factory=dict)
    # exercise -> (time, upload order, why) of each such file, where its time or order is known
    # (time, upload order, why, the archive it is in or "") of each look-alike file
    named_when: dict[str, list[tuple[datetime | None, int, str, str]]] = field(default_factory=dict)
    # code files whose names name no exercise at all ("hw5.py", "solution.ipynb")
    unnamed: list[str] = field(default_factory=list)
    # folders named as an exercise's file ("exercise-01.py/", as some unzip tools and IDEs
    # make them), as shown with their "/" -> that exercise: ``finish`` says what was in each
    folders_named: dict[str, str] = field(default_factory=dict)
    budget: ClassBudget | None = field(default_factory=_CLASS.get)

    def _ignore(
        self,
        shown: str,
        name: str,
        when: datetime | None = None,
        sequence: int = 0,
        archive: str = "",
    ) -> None:
        """A file that is no exercise file: reported; where its name names an exercise
        (``exercise_1_final.py``), that exercise, if no file is graded for it, may be in it:
        ``finish`` makes it work intake could not read, never "missing" and 0; and where a
        file is graded for it, one that came after it (``when``, ``sequence``) may be the
        student's final version: ``finish`` puts that graded file in doubt. A member of an
        ``archive`` has the archive's time and order, as every member has (``add_archive``):
        it is never read, and the doubt says so."""
        why = joined(shown, why_not(name, self.exercises))
        self.ignored.append(also(why, "; ignored", "；已忽略"))
        exercise = looks_like(name, self.exercises)
        if exercise is not None:
            self.named.setdefault(exercise, why)
            self.named_when.setdefault(exercise, []).append((when, sequence, why, archive))
        elif code_name(name):
            self.unnamed.append(why)

    def add_text_entry(self, shown: str, problem: str) -> None:
        """A text entry of the platform (Moodle's online text, Canvas's text or URL entry):
        not graded, and said. Students paste code into them; so an exercise this student
        handed in no file for may be in one, and ``finish`` makes it work intake could not
        read (no grade written until the instructor looks), never "missing" and 0."""
        self.texts.append(shown)
        self.handin.problems.append(problem)

    # -- caps --------------------------------------------------------------------------------

    def _cap(self, why: Said) -> None:
        """Note the first cap this student went over; everything after it is not read."""
        if not self.over:
            self.over = why
            self.handin.problems.append(
                Said(
                    f"over intake's per-student cap ({why}): what came before it in name order "
                    "is graded, the rest was not read; needs a look",
                    f"超出了每位学生提交内容的上限（{why.zh}）：按名字顺序在此之前的内容已评分，"
                    "其余的没有读取；需要老师查看",
                )
            )
        raise OverCap(why)

    def _charge(self, *, read: int = 0, inflated: int = 0, entries: int = 0) -> None:
        self.held += read
        self.inflated += inflated
        if self.budget is not None:
            self.budget.charge(
                self.handin.origin or self.handin.key, read=read, inflated=inflated,
                entries=entries,
            )  # fmt: skip
        if self.held > MAX_STUDENT_BYTES:
            self._cap(
                Said(
                    f"more than {MAX_STUDENT_BYTES >> 20} MiB of files",
                    f"文件超过 {MAX_STUDENT_BYTES >> 20} MiB",
                )
            )
        if self.inflated > MAX_STUDENT_INFLATE:
            self._cap(
                Said(
                    f"more than {MAX_STUDENT_INFLATE >> 20} MiB decompressed from archives",
                    f"从压缩包中解压出的内容超过 {MAX_STUDENT_INFLATE >> 20} MiB",
                )
            )

    def _room(self) -> int:
        """Bytes this student may still read."""
        return max(0, MAX_STUDENT_BYTES - self.held)

    # -- sources ---------------------------------------------------------------------------

    def add_folder(self, folder: Path, *, shown: str, submitted_at: datetime | None = None) -> None:
        """Every file under ``folder`` (links, devices and FIFOs reported, not followed), in a
        stated order, which is the order the per-student caps keep what fits in: a folder's
        files by name, then its subfolders by name, each walked the same way."""
        seen = 0
        stack: list[tuple[Path, str, int]] = [(folder, "", 0)]
        while stack:
            current, relative, depth = stack.pop()
            try:
                with os.scandir(current) as scan:
                    entries = sorted(scan, key=lambda e: e.name)
            except OSError as exc:
                said = cannot_read(exc)
                self.handin.problems.append(
                    Said(
                        f"{shown}{relative or '.'}: {said}; skipped",
                        f"{shown}{relative or '.'}：{said.zh}；已跳过",
                    )
                )
                continue
            if self.budget is not None:
                self.budget.charge(self.handin.origin or self.handin.key, entries=len(entries))
            folders: list[tuple[Path, str, int]] = []  # walked after this folder's files
            for entry in entries:
                seen += 1
                if seen > MAX_WALK_ENTRIES:
                    self.handin.problems.append(
                        Said(
                            f"{shown}: more than {MAX_WALK_ENTRIES} entries; only the first "
                            f"{MAX_WALK_ENTRIES} were looked at",
                            f"{shown}：条目超过 {MAX_WALK_ENTRIES} 个；只查看了前 "
                            f"{MAX_WALK_ENTRIES} 个",
                        )
                    )
                    return
                if skipped(entry.name):
                    continue
                name = f"{relative}{entry.name}"
                path = Path(entry.path)
                if entry.is_symlink():
                    self.refuse(name, f"{shown}{name}", LINK_WHY, depth)
                elif entry.is_dir(follow_symlinks=False):
                    if self.exclude and resolved(path) in self.exclude:
                        continue
                    self._folder_named(entry.name, f"{shown}{name}/")
                    if archive_kind(entry.name):
                        self.handin.notes.append(
                            f"{shown}{name}/: a folder named as an archive (opened by an unzip "
                            "tool?); the files in it are read"
                        )
                    if depth + 1 > MAX_DEPTH:
                        self.handin.problems.append(
                            Said(
                                f"{shown}{name}/: more than {MAX_DEPTH} folders deep; ignored",
                                f"{shown}{name}/：文件夹嵌套超过 {MAX_DEPTH} 层；已忽略",
                            )
                        )
                    else:
                        folders.append((path, f"{name}/", depth + 1))
                elif entry.is_file(follow_symlinks=False):
                    self.add_file(path, name=name, shown=f"{shown}{name}", depth=depth,
                                  submitted_at=submitted_at)  # fmt: skip
                else:
                    self.refuse(name, f"{shown}{name}", SPECIAL_WHY, depth)
            stack.extend(reversed(folders))  # popped in name order

    def add_entry(
        self,
        path: Path,
        *,
        name: str,
        shown: str,
        submitted_at: datetime | None = None,
        sequence: int = 0,
        own_folder: bool = False,
    ) -> None:
        """One entry of a download that the platform filed under this student, whatever it
        is: a link or special file is refused (never followed or opened), a folder is walked,
        an archive opened, a file read. ``name`` is the name to match an exercise by (the part
        the student chose); ``shown`` is the entry as the download names it. Every platform's
        reader goes through here, so each kind of entry is treated alike on every platform.
        ``own_folder``: the entry is the student's folder itself (plain folders, Gradescope),
        not one the student named; any other folder named as an exercise's file is said."""
        if path.is_symlink():
            self.refuse(name or shown, shown, LINK_WHY)
        elif path.is_dir():
            if not own_folder and name:  # the platform wrote a file here, not a folder
                self.handin.notes.append(
                    f"{shown}/: a folder where the download holds a file (unzipped by a tool "
                    "that also opens archives inside?); the files in it are read"
                )
                self._folder_named(name, f"{shown}/")
            self.add_folder(path, shown=f"{shown}/", submitted_at=submitted_at)
        else:  # a FIFO or device too: add_file opens nothing but a regular file
            self.add_file(path, name=name, shown=shown, submitted_at=submitted_at,
                          sequence=sequence)  # fmt: skip

    def _folder_named(self, name: str, shown: str) -> None:
        """Note a folder (``shown`` ends with "/") whose ``name`` is an exercise's file name."""
        match = match_name(name, self.exercises, shown) if name else None
        if match is not None:
            self.folders_named.setdefault(shown, match.exercise)

    def _member_folders(self, archive: str, name: str, is_dir: bool) -> None:
        """The folders of an archive member's path (all of its parts, for a folder entry)
        that are named as an exercise's file."""
        parts = PurePosixPath(name).parts
        for i, part in enumerate(parts if is_dir else parts[:-1]):
            self._folder_named(part, f"{archive}:{'/'.join(parts[: i + 1])}/")

    def refuse(
        self, name: str, shown: str, why: str, depth: int = 0, said: str | None = None
    ) -> None:
        """A link or special file (or an archive member not read): never opened. Named like an
        exercise, that exercise is unreadable (the student handed in something, not nothing);
        else it is reported (as ``said``, where given)."""
        match = match_name(name, self.exercises, shown)
        if match is None:
            self.rejected.append(said if said is not None else joined(shown, bilingual(why)))
            return
        candidate = self._candidate(match, shown, None, 0, depth, name)
        candidate.error = why

    def add_file(
        self,
        path: Path,
        *,
        name: str,
        shown: str,
        submitted_at: datetime | None = None,
        sequence: int = 0,
        depth: int = 0,
    ) -> None:
        """One file on disk; ``name`` is the name to match (the student's own name for it).
        An archive is opened (``add_archive``)."""
        kind = archive_kind(name)
        if kind is not None:
            self.add_archive(
                path, shown=shown, submitted_at=submitted_at, sequence=sequence, kind=kind
            )
            return
        match = match_name(name, self.exercises, shown)
        if match is None:
            when = submitted_at
            if when is None and self.use_mtime:
                try:
                    when = mtime(os.stat(path, follow_symlinks=False))
                except OSError:
                    when = None
            self._ignore(shown, name, when, sequence)
            return
        candidate = self._candidate(match, shown, submitted_at, sequence, depth, name)
        if self.over:
            candidate.error = over_cap(self.over)
            return
        limit = MAX_NOTEBOOK_BYTES if match.notebook else MAX_SOURCE_BYTES
        try:
            data, info = read_regular(path, limit)
        except TooLarge as exc:
            candidate.error = bilingual(exc.args[0]) if exc.args else str(exc)
            return
        except OSError as exc:
            candidate.error = cannot_read(exc)
            return
        try:
            self._charge(read=len(data))
        except OverCap as exc:
            candidate.error = over_cap(exc.why)
            return
        candidate.data = data
        candidate.written_at = ctime(info)
        if candidate.submitted_at is None and self.use_mtime:
            candidate.submitted_at = mtime(info)
            candidate.platform_time = False

    def add_archive(
        self,
        path: Path,
        *,
        shown: str,
        submitted_at: datetime | None = None,
        sequence: int = 0,
        kind: str | None = None,
    ) -> None:
        """The exercise files in a .zip, .tar.gz, .tgz or .tar (``kind``, default from the
        name): each member's time is the archive's own (the platform's, else the archive file's
        mtime), never the member's, whose clock and time zone were the student's."""
        kind = kind or archive_kind(path.name) or "zip"
        first = len(self.candidates)
        if not self.over:
            self.archives += 1
            if self.archives > MAX_STUDENT_ARCHIVES:
                try:
                    self._cap(
                        Said(
                            f"more than {MAX_STUDENT_ARCHIVES} archives",
                            f"压缩包超过 {MAX_STUDENT_ARCHIVES} 个",
                        )
                    )
                except OverCap:
                    pass
        if self.over:
            self.rejected.append(
                Said(
                    f"{shown}: not opened (over intake's cap: {self.over})",
                    f"{shown}：没有打开（超出上限：{in_lang(self.over, 'zh')}）",
                )
            )
            return
        try:
            fd, info = open_regular(path, follow=False)
        except OSError as exc:
            self._damaged(shown, cannot_read(exc))
            return
        platform = submitted_at is not None
        when = submitted_at if platform or not self.use_mtime else mtime(info)
        with os.fdopen(fd, "rb") as handle:
            try:
                if kind == "zip":
                    self._read_zip(handle, shown, when, sequence)
                else:
                    self._read_tar(
                        handle, shown, when, sequence, gz=kind == "tgz", size=info.st_size
                    )
            except OverCap:
                self.rejected.append(
                    Said(
                        f"{shown}: not read to the end (over intake's cap)",
                        f"{shown}：没有读到结尾（超出上限）",
                    )
                )
        _number_twins(self.candidates[first:])
        for candidate in self.candidates[first:]:
            candidate.container = shown
            candidate.written_at = ctime(info)
            if not platform and when is not None:
                candidate.platform_time = False  # the archive file's date

    def add_data(
        self,
        data: bytes,
        *,
        name: str,
        shown: str,
        submitted_at: datetime | None,
        sequence: int = 0,
        depth: int = 0,
    ) -> None:
        """A member already read out of an archive (its bytes within the caps)."""
        match = match_name(name, self.exercises, shown)
        if match is None:
            self._ignore(shown, name, submitted_at, sequence)
            return
        candidate = self._candidate(match, shown, submitted_at, sequence, depth, name)
        if self.over:
            candidate.error = over_cap(self.over)
            return
        candidate.data = data

    # -- archives --------------------------------------------------------------------------

    def _damaged(self, shown: str, why: Said) -> None:
        """An archive intake could not read (to the end): said to the student, in both
        languages, and the exercises it may hold get no grade until someone looks."""
        self.handin.problems.append(
            Said(f"{shown}: {why}; not graded", f"{shown}：{why.zh}；没有评分")
        )
        self.damaged.append(Said(f"{shown} {why}", f"{shown} {why.zh}"))

    def _member_ok(self, archive: str, name: str) -> bool:
        if not name:
            self.rejected.append(
                Said(
                    f"{archive}: an entry without a name rejected",
                    f"{archive}：一个没有名字的条目被拒绝",
                )
            )
            return False
        if unsafe_member(name):
            self.rejected.append(
                Said(
                    f"{archive}: unsafe path {name!r} rejected",
                    f"{archive}：不安全的路径 {name!r} 被拒绝",
                )
            )
            return False
        return not any(skipped(p) for p in PurePosixPath(name.replace("\\", "/")).parts)

    def _refuse_member(self, archive: str, name: str, why: str) -> None:
        """An archive member that is not read (a link, a special file, encrypted, too large):
        refused as the same entry on disk is (:meth:`refuse`)."""
        member = PurePosixPath(name)
        zh = in_lang(why, "zh") if isinstance(why, Said) else _MEMBER_WHY_ZH.get(why, why)
        self.refuse(
            member.name,
            f"{archive}:{name}",
            Said(why.removeprefix("is "), zh.removeprefix("是")),  # "a link; rejected", as on disk
            len(member.parts) - 1,
            said=Said(f"{archive}: {name} {why}", f"{archive}：{name} {zh}"),
        )

    def _wanted(
        self, archive: str, name: str, when: datetime | None = None, sequence: int = 0
    ) -> tuple[int, bool] | None:
        """The byte cap for a member worth reading, or None (reported) for one that is not;
        ``when`` and ``sequence`` are the archive's, which a look-alike member has."""
        base = PurePosixPath(name).name
        if archive_kind(base) is not None:
            self.ignored.append(f"{archive}:{name}: an archive inside an archive; not opened")
            return None
        match = match_name(base, self.exercises)
        if match is None:
            self._ignore(f"{archive}:{name}", base, when, sequence, archive=archive)
            return None
        return (MAX_NOTEBOOK_BYTES if match.notebook else MAX_SOURCE_BYTES), match.notebook

    def _count_member(self) -> None:
        self.members += 1
        if self.budget is not None:
            self.budget.charge(self.handin.origin or self.handin.key, entries=1)
        if self.members > MAX_STUDENT_MEMBERS:
            self._cap(
                Said(
                    f"more than {MAX_STUDENT_MEMBERS} archive entries",
                    f"压缩包中的条目超过 {MAX_STUDENT_MEMBERS} 个",
                )
            )

    def _read_zip(self, handle: BinaryIO, shown: str, when: datetime | None, sequence: int) -> None:
        try:
            counted = zipnames.entries(handle, MAX_ARCHIVE_MEMBERS)  # before zipfile parses them
            if counted is not None and counted > MAX_ARCHIVE_MEMBERS:
                self._damaged(shown, too_many_entries())
                return
            with _open_zip(handle) as (zf, names):
                members = zf.infolist()
                if len(members) > MAX_ARCHIVE_MEMBERS:
                    self._damaged(shown, too_many_entries())
                    return
                total = 0
                named = [(names.get(i, info.filename), info) for i, info in enumerate(members)]
                for raw_name, info in sorted(named, key=lambda pair: pair[0]):
                    self._count_member()
                    name = raw_name.replace("\\", "/")
                    # (ZipInfo.is_dir() fails on an empty name: zipfile cuts a name at NUL)
                    if not self._member_ok(shown, name):
                        continue
                    self._member_folders(shown, name, name.endswith("/"))
                    if name.endswith("/"):
                        continue
                    mode = info.external_attr >> 16
                    if stat.S_ISLNK(mode):
                        self._refuse_member(shown, name, "is a symbolic link; rejected")
                        continue
                    if stat.S_IFMT(mode) and not stat.S_ISREG(mode):
                        self._refuse_member(shown, name, "is not a regular file; rejected")
                        continue
                    wanted = self._wanted(shown, name, when, sequence)
                    if wanted is None:
                        continue
                    limit, _ = wanted
                    if info.flag_bits & 0x1:
                        self._refuse_member(shown, name, "is encrypted; not graded")
                        continue
                    if info.file_size > limit or total + info.file_size > MAX_ARCHIVE_BYTES:
                        self._refuse_member(shown, name, _too_large(info.file_size > limit))
                        continue
                    if _inflates(info.file_size, info.compress_size):
                        self._refuse_member(shown, name, NOT_READ_RATIO)
                        continue
                    room = min(limit, self._room(), MAX_STUDENT_INFLATE - self.inflated)
                    try:
                        with zf.open(info) as source:
                            data = source.read(room + 1)  # never trust the header's size
                    except ZIP_ERRORS as exc:  # this entry only: the others are still read
                        self._refuse_member(
                            shown,
                            name,
                            Said(
                                f"cannot be read ({exc}); not graded",
                                f"无法读取（{exc}）；没有评分",
                            ),
                        )
                        continue
                    total += len(data)
                    self._charge(read=len(data), inflated=len(data))
                    if _inflates(len(data), info.compress_size):
                        self._refuse_member(shown, name, NOT_READ_RATIO)
                        continue
                    if len(data) > limit or total > MAX_ARCHIVE_BYTES:
                        self._refuse_member(shown, name, _too_large(len(data) > limit))
                        continue
                    self.add_data(
                        data,
                        name=name,
                        shown=f"{shown}:{name}",
                        submitted_at=when,
                        sequence=sequence,
                        depth=len(PurePosixPath(name).parts) - 1,
                    )
        except ZIP_ERRORS as exc:
            self._damaged(
                shown,
                Said(f"not a readable zip archive ({exc})", f"不是可以读取的 zip 压缩包（{exc}）"),
            )

    def _read_tar(
        self,
        handle: BinaryIO,
        shown: str,
        when: datetime | None,
        sequence: int,
        *,
        gz: bool,
        size: int = 0,
    ) -> None:
        """A tar stream, read once from the front: bounded by ``MAX_TAR_STREAM_BYTES``, by
        what the student may still decompress, and (gzip) by ``MAX_RATIO`` times the
        archive's size on disk."""
        raw: BinaryIO = gzip.GzipFile(fileobj=handle) if gz else handle  # type: ignore[assignment]
        ratio = max(RATIO_FLOOR, MAX_RATIO * size) if gz else MAX_TAR_STREAM_BYTES
        student = MAX_STUDENT_INFLATE - self.inflated
        stream = _Limited(raw, min(MAX_TAR_STREAM_BYTES, ratio, student))
        try:
            self._tar_members(stream, shown, when, sequence)
        except _StreamLimit:
            if student <= min(MAX_TAR_STREAM_BYTES, ratio):
                # over what this student may still decompress: read to it, or given by a
                # member's header (which may lie: only what was read is charged)
                self._charge(inflated=stream.delivered)
                self._cap(
                    Said(
                        f"more than {MAX_STUDENT_INFLATE >> 20} MiB decompressed from archives",
                        f"从压缩包中解压出的内容超过 {MAX_STUDENT_INFLATE >> 20} MiB",
                    )
                )
            why = (
                RATIO_WHY
                if ratio < MAX_TAR_STREAM_BYTES
                else Said(
                    f"more than {MAX_TAR_STREAM_BYTES >> 20} MiB uncompressed",
                    f"解压后超过 {MAX_TAR_STREAM_BYTES >> 20} MiB",
                )
            )
            self._damaged(shown, Said(f"{why}; not read to the end", f"{why.zh}；没有读到结尾"))
            self._charge(inflated=stream.delivered)
            return
        self._charge(inflated=stream.delivered)

    def _tar_members(
        self, stream: _Limited, shown: str, when: datetime | None, sequence: int
    ) -> None:
        total = 0
        count = 0
        try:
            with tarfile.open(fileobj=stream, mode="r|") as tf:  # type: ignore[call-overload]
                for member in tf:
                    self._count_member()
                    count += 1
                    if count > MAX_ARCHIVE_MEMBERS:
                        self._damaged(shown, too_many_entries())
                        return
                    if member.size > stream.left:
                        # more than the stream may still deliver: over its cap. Said now, since
                        # tarfile passes a member by reading its data block by block and goes
                        # on past the end of the stream: a header giving 10**100 bytes (a pax
                        # size, a base-256 one) held intake there for ever
                        raise _StreamLimit
                    # a name ends at its first NUL, as tar reads a header's name and zipfile
                    # an entry's: a pax record keeps the NULs after it, which read as a long
                    # run of \x00 in every message naming the member
                    name = member.name.split("\0", 1)[0]
                    if not self._member_ok(shown, name):
                        continue
                    self._member_folders(shown, name, member.isdir())
                    if member.isdir():
                        continue
                    if member.issym() or member.islnk():
                        self._refuse_member(shown, name, "is a link; rejected")
                        continue
                    if not member.isreg():
                        self._refuse_member(
                            shown, name, "is not a regular file (a device or FIFO); rejected"
                        )
                        continue
                    wanted = self._wanted(shown, name, when, sequence)
                    if wanted is None:
                        continue
                    limit, _ = wanted
                    if member.size > limit or total + member.size > MAX_ARCHIVE_BYTES:
                        self._refuse_member(shown, name, _too_large(member.size > limit))
                        continue
                    source = tf.extractfile(member)
                    if source is None:
                        continue
                    data = source.read(min(limit, self._room()) + 1)  # never trust headers
                    total += len(data)
                    self._charge(read=len(data))
                    if len(data) > limit or total > MAX_ARCHIVE_BYTES:
                        self._refuse_member(shown, name, _too_large(len(data) > limit))
                        continue
                    self.add_data(
                        data,
                        name=name,
                        shown=f"{shown}:{name}",
                        submitted_at=when,
                        sequence=sequence,
                        depth=len(PurePosixPath(name).parts) - 1,
                    )
        except (tarfile.TarError, OSError, EOFError, zlib.error, ValueError) as exc:
            self._damaged(
                shown,
                Said(f"not a readable tar archive ({exc})", f"不是可以读取的 tar 压缩包（{exc}）"),
            )

    # -- deciding ----------------------------------------------------------------------------

    def _candidate(
        self,
        match: NameMatch,
        shown: str,
        submitted_at: datetime | None,
        sequence: int,
        depth: int,
        name: str,
    ) -> _Candidate:
        candidate = _Candidate(
            exercise=match.exercise,
            shown=shown,
            notes=[match.note] if match.note else [],
            notebook=match.notebook,
            submitted_at=submitted_at,
            sequence=sequence,
            exact=not match.note,
            depth=depth if depth else len(PurePosixPath(name).parts) - 1,
        )
        self.candidates.append(candidate)
        return candidate

    def finish(self) -> Handin:
        """Decide each exercise, stage its file, and report what was left aside."""
        handin = self.handin
        handin.problems.extend(
            summarise(
                self.ignored,
                Said("files are no exercise file; ignored", "个文件不是练习文件；已忽略"),
            )
        )
        handin.problems.extend(
            summarise(self.rejected, Said("entries were refused", "个条目被拒绝"), whole=True)
        )
        shutil.rmtree(self.staging, ignore_errors=True)
        by_exercise: dict[str, list[_Candidate]] = {}
        for candidate in self.candidates:
            by_exercise.setdefault(candidate.exercise, []).append(candidate)
        winners: dict[str, _Candidate] = {}
        for exercise in sorted(by_exercise):
            ranked = sorted(by_exercise[exercise], key=_rank, reverse=True)
            failed: list[tuple[_Candidate, str]] = []
            chosen: tuple[_Candidate, bytes, CellMap | None, list[str]] | None = None
            for candidate in ranked:
                prepared = self._prepare(candidate)
                if isinstance(prepared, str):
                    failed.append((candidate, prepared))
                    continue
                chosen = (candidate, *prepared)
                break
            for bad, why in failed:
                instead = f"; graded {chosen[0].shown} instead" if chosen else "; scored 0"
                problem = joined(bad.shown, bilingual(why))
                if isinstance(problem, Said):
                    zh = f"；改为评分 {chosen[0].shown}" if chosen else "；计 0 分"
                    problem = Said(problem + instead, problem.zh + zh)
                else:
                    problem += instead
                handin.problems.append(problem)
            if chosen is None:
                handin.unreadable[exercise] = joined(failed[0][0].shown, bilingual(failed[0][1]))
                continue
            winner, data, cells, notes = chosen
            winners[exercise] = winner
            tried = {id(c) for c, _ in failed} | {id(winner)}
            for other in ranked:
                if id(other) in tried:
                    continue
                if other.data is None:  # refused or unreadable: why, not which came later
                    error = bilingual(other.error)
                    handin.problems.append(
                        Said(
                            f"{other.shown}: {error}; graded {winner.shown} instead",
                            f"{other.shown}：{error.zh}；改为评分 {winner.shown}",
                        )
                    )
                    continue
                line = f"{other.shown} is also {exercise}; graded {winner.shown} "
                if _by_file_dates(winner, other) and winner.container != other.container:
                    handin.problems.append(
                        Said(
                            line + f"({UNSURE_ORDER})",
                            f"{other.shown} 也是 {exercise}；评分的是 {winner.shown}"
                            f"（{UNSURE_ORDER_ZH}）",
                        )
                    )
                else:
                    why = _why_first(winner, other)
                    notes.append(
                        Said(
                            line + f"({why})",
                            f"{other.shown} 也是 {exercise}；评分的是 {winner.shown}（{why.zh}）",
                        )
                    )
            self._stage(exercise, winner, data, cells, notes)
        self._say_folders(winners)
        # Work intake could not read, or that may be inside what it did not grade: those
        # exercises get no grade until the instructor looks, never "missing" and 0
        if self.damaged or self.over:
            over = [
                Said(f"over intake's cap: {self.over}", f"超出上限：{in_lang(self.over, 'zh')}")
            ]
            parts = self.damaged + over * bool(self.over)
            why = Said("; ".join(parts), "；".join(in_lang(p, "zh") for p in parts))
            _may_be_in(handin, self.exercises, why)
        for exercise, why in self.named.items():
            may = also(
                why,
                "; not graded, and this exercise may be in it",
                "；没有评分，这个练习可能在其中",
            )
            _may_be_in(handin, [exercise], may)
            graded = handin.files.get(exercise)
            later = [(w, box) for when, order, w, box in self.named_when.get(exercise, [])
                     if graded is not None and _came_after(when, order, graded)]  # fmt: skip
            if graded is not None and later:
                why, box = later[0]
                graded.doubt = (
                    f"{why}; not read: {box}, the archive it is in, came after the graded "
                    f"{graded.shown}, and it may be the student's final version"
                    if box
                    else f"{why}; it came after the graded {graded.shown} and may be the "
                    "student's final version"
                )
                handin.problems.append(
                    Said(
                        f"{exercise}: {graded.doubt}",
                        f"{exercise}：{in_lang(why, 'zh')}；它在评分的 {graded.shown} 之后提交，"
                        "可能是最终版本，没有读取；老师查看之前不写入成绩",
                    )
                )
        if self.unnamed and not self.candidates and not self.named:
            # code handed in, none of it named after an exercise ("hw5.py" alone): whose work
            # it is is the instructor's to say
            first = self.unnamed[0]
            why = Said(
                f"{first}; not graded, and this exercise may be in it",
                f"{in_lang(first, 'zh')}；没有评分，这个练习可能在其中",
            )
            _may_be_in(handin, self.exercises, why)
        if self.texts:
            why = Said(
                f"{self.texts[0]}: a text entry, not graded; this exercise may be in it",
                f"{self.texts[0]}：这是文本提交，没有评分；这个练习可能在其中",
            )
            _may_be_in(handin, self.exercises, why)
        return handin

    def _say_folders(self, winners: dict[str, _Candidate]) -> None:
        """Say what each folder named as an exercise's file held, and what was graded. A
        file of the exercise's own name, alone of that exercise in it, is what was meant:
        graded, and said. Several are graded by the usual rule, but which one the student
        meant is not known: no grade until the instructor looks. None: the exercise was
        handed in as something intake could not grade, never "missing" and 0."""
        handin = self.handin
        for folder, exercise in sorted(self.folders_named.items()):
            file = self.exercises[exercise].learner_file
            inside = [c for c in self.candidates
                      if c.exercise == exercise and c.shown.startswith(folder)]  # fmt: skip
            what = f"{folder}: a folder named as a file of {exercise}, not a file"
            what_zh = f"{folder}：一个以 {exercise} 的文件名命名的文件夹，不是文件"
            winner = winners.get(exercise)
            graded = handin.files.get(exercise)
            if winner is None or graded is None:
                if exercise in handin.unreadable:
                    handin.problems.append(
                        Said(
                            f"{what}; nothing of {exercise} could be graded",
                            f"{what_zh}；{exercise} 没有可以评分的内容",
                        )
                    )
                else:
                    holds = f"{len(inside)} entries" if inside else "no file"
                    holds_zh = f"{len(inside)} 个条目" if inside else "没有文件"
                    why = Said(
                        f"{what}, with {holds} of {exercise} in it; not graded",
                        f"{what_zh}，其中有 {exercise} 的{holds_zh}；没有评分",
                    )
                    _may_be_in(handin, [exercise], why)
                continue
            if not winner.shown.startswith(folder):
                handin.problems.append(
                    Said(
                        f"{what}; graded {winner.shown} instead"
                        + (f" (the folder holds {len(inside)} of its files)" if inside else ""),
                        f"{what_zh}；改为评分 {winner.shown}"
                        + (f"（该文件夹中有 {len(inside)} 个它的文件）" if inside else ""),
                    )
                )
            elif len(inside) == 1:
                graded.notes.append(
                    Said(
                        f"{folder} is a folder, not the file {file}: the one file of "
                        f"{exercise} in it, {winner.shown}, is graded",
                        f"{folder} 是一个文件夹，不是文件 {file}：评分的是其中唯一的 "
                        f"{exercise} 文件 {winner.shown}",
                    )
                )
                handin.notes.append(graded.notes[-1])
            else:
                if not graded.doubt:
                    graded.doubt = (
                        f"{what}, with {len(inside)} files of {exercise} in it: "
                        f"graded {winner.shown} by the usual rule, which may not be the one meant"
                    )
                    handin.problems.append(
                        Said(
                            f"{exercise}: {graded.doubt}",
                            f"{exercise}：{what_zh}，其中有 {len(inside)} 个 {exercise} 的文件："
                            f"按通常的规则评分了 {winner.shown}，它可能不是你想提交的那个",
                        )
                    )
                else:  # a doubt said already, of another kind
                    handin.problems.append(
                        Said(
                            f"{exercise}: {graded.doubt}",
                            f"{exercise}：{what_zh}，其中有 {len(inside)} 个 {exercise} 的文件；"
                            "评分的文件可能不是最终版本：老师查看之前不写入成绩",
                        )
                    )

    def _prepare(self, candidate: _Candidate) -> str | tuple[bytes, CellMap | None, list[str]]:
        """The bytes to grade (a notebook's extracted code), or why there are none."""
        if candidate.data is None:
            return candidate.error
        notes = list(candidate.notes)
        data: bytes = candidate.data
        cells = None
        if candidate.notebook:
            try:
                extracted = extract(data)
            except NotebookError as exc:
                return notebook_unreadable(exc.message)
            data = extracted.source.encode("utf-8")
            cells = extracted.cells
            notes.append(
                Said(
                    f"{candidate.shown}: a notebook; its code cells are graded",
                    f"{candidate.shown}：这是一个 notebook，评分的是它的代码单元格",
                )
            )
            notes.extend(notebook_note(candidate.shown, note) for note in extracted.notes)
        if len(data) > MAX_SOURCE_BYTES:
            return Said(
                f"larger than {MAX_SOURCE_BYTES >> 20} MiB",
                f"大于 {MAX_SOURCE_BYTES >> 20} MiB",
            )
        return data, cells, notes

    def _stage(
        self,
        exercise: str,
        chosen: _Candidate,
        data: bytes,
        cells: CellMap | None,
        notes: list[str],
    ) -> None:
        handin = self.handin
        info = self.exercises[exercise]
        target = self.staging / exercise / info.learner_file
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        except OSError as exc:
            raise UsageError(
                f"cannot write the staging folder {self.staging}: {exc.strerror or exc}",
                hint="Choose an output folder you can write to.",
            ) from None
        unchanged = bool(info.starter) and same_code(data, info.starter)
        if unchanged:
            handin.problems.append(
                Said(
                    f"{chosen.shown}: the unchanged starter file of {exercise}",
                    f"{chosen.shown}：{exercise} 的初始文件，没有改动",
                )
            )
        handin.files[exercise] = Submitted(
            exercise=exercise,
            path=target,
            shown=chosen.shown,
            notes=notes,
            notebook=cells,
            unchanged_starter=unchanged,
            submitted_at=chosen.submitted_at,
            sequence=chosen.sequence,
            written_at=chosen.written_at,
        )
        handin.notes.extend(notes)


# why an archive member was not read, as _refuse_member words it, in Chinese
_MEMBER_WHY_ZH = {
    "is a symbolic link; rejected": "是符号链接；已拒绝",
    "is not a regular file; rejected": "不是普通文件；已拒绝",
    "is encrypted; not graded": "已加密；没有评分",
}

RATIO_WHY = Said(f"compressed more than {MAX_RATIO}:1", f"压缩比超过 {MAX_RATIO}:1")


NOT_READ_RATIO = Said(f"not read: {RATIO_WHY}", f"没有读取：{RATIO_WHY.zh}")


def too_many_entries() -> Said:
    return Said(f"more than {MAX_ARCHIVE_MEMBERS} entries", f"条目超过 {MAX_ARCHIVE_MEMBERS} 个")


def _may_be_in(handin: Handin, exercises: Iterable[str], why: str) -> None:
    """Each of ``exercises`` that has no graded file and no reason yet is unreadable for
    ``why``, and work intake could not read (``unread_work``: no grade is written)."""
    for exercise in exercises:
        if exercise not in handin.files and exercise not in handin.unreadable:
            handin.unreadable[exercise] = why
            handin.unread_work.add(exercise)


# What zipfile and the decoders it drives raise on damaged bytes: each decoder its own (bzip2 an
# OSError, deflate zlib.error, LZMA LZMAError, which is neither)
ZIP_ERRORS = (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, EOFError,
              zlib.error, lzma.LZMAError, ValueError)  # fmt: skip


@contextmanager
def _open_zip(handle: BinaryIO) -> Iterator[tuple[zipfile.ZipFile, dict[int, str]]]:
    """The zip archive in ``handle``, and the names of entries whose flags claim a UTF-8 name
    they do not have, by index in ``infolist()`` (:mod:`grader.lms.zipnames`): such an entry
    is read under its bytes' name, as a file so named on disk is, and the rest of the archive
    with it."""
    try:
        archive = zipfile.ZipFile(handle)
        names: dict[int, str] = {}
    except UnicodeDecodeError:
        unflagged = zipnames.unflag(handle)
        if unflagged is None:
            raise
        view, names = unflagged
        archive = zipfile.ZipFile(view)
        members = archive.infolist()
        for index in names:
            if index < len(members):
                zipnames.unflag_local(view, handle, members[index].header_offset)
    with archive:
        yield archive, names


def _inflates(size: int, compressed: int) -> bool:
    """A member (or stream) larger than ``RATIO_FLOOR`` that decompresses more than
    ``MAX_RATIO`` times: a bomb, not a source file."""
    return size > RATIO_FLOOR and size > MAX_RATIO * max(compressed, 1)


def _too_large(itself: bool) -> Said:
    """Why a member was not read: its own size, or the archive's total (each file small, the
    archive's files together over the cap: every one was said to be "too large")."""
    if itself:
        return Said("is too large; not graded", "是太大了；没有评分")
    cap = MAX_ARCHIVE_BYTES
    size = f"{cap >> 20} MiB" if cap >= 1 << 20 else f"{cap} bytes"
    return Said(
        f"not read: the archive's files together pass {size}; not graded",
        f"没有读取：压缩包中的文件合计超过 {size}；没有评分",
    )


def _number_twins(candidates: list[_Candidate]) -> None:
    """Entries of the same name in one archive (a zip appended to, a tar updated with
    ``tar -r``) are told apart by their place, and the last one is the one unzip, Python's
    zipfile and tar extract: it ranks first. The first one was graded, under a note that
    could not say which of two same-named entries it meant."""
    twins: dict[str, list[_Candidate]] = {}
    for candidate in candidates:
        twins.setdefault(candidate.shown, []).append(candidate)
    for shown, group in twins.items():
        if len(group) > 1:
            for place, candidate in enumerate(group, start=1):
                candidate.order = place
                candidate.shown = f"{shown} (entry {place} of {len(group)} of that name)"


# Two versions of one exercise, ordered by the dates of files that came different ways (an
# archive's date against a file's, two archives): each is when that file was last written or
# copied, by the student's machine, the platform or the download, so the order is a guess.
UNSURE_ORDER = (
    "its file date is later, but file dates are no submission times and these came different "
    "ways (an archive's date against a file's): check which is the student's final version"
)
UNSURE_ORDER_ZH = (
    "它的文件日期更晚，但文件日期不是提交时间，而且两者来路不同（压缩包的日期与单个文件的日期）："
    "需要老师确认哪一份是最终版本"
)


def _came_after(when: datetime | None, sequence: int, graded: Submitted) -> bool:
    """Whether a file of this time and upload order came after the graded one, as ``_rank``
    orders them: later by more than file dates' 2 s, else later in the platform's upload order
    at the same time (or where neither has one)."""
    if when is not None and graded.submitted_at is not None:
        gap = (when - graded.submitted_at).total_seconds()
        if abs(gap) >= 2:
            return gap > 0
    elif (when is None) != (graded.submitted_at is None):
        return False  # one has a time, the other none: nothing says which came later
    return sequence > graded.sequence


def _by_file_dates(chosen: _Candidate, other: _Candidate) -> bool:
    """Whether ``chosen`` ranks above ``other`` by file dates (not the platform's times)."""
    return not chosen.platform_time and _rank(chosen)[0] != _rank(other)[0]


def _why_first(chosen: _Candidate, other: _Candidate) -> Said:
    """Why ``chosen`` ranks above ``other``, in the words of ``_rank`` (the learner reads it
    beside their result: in both languages)."""
    reasons = (
        Said("handed in later", "提交得更晚")
        if chosen.platform_time
        else Said("its file date is later", "它的文件日期更晚"),
        Said("uploaded later", "上传得更晚"),
        Said("its name is the exercise's own", "它的名字正是该练习的文件名"),
        Said("nearer the top", "它在文件夹中的层级更靠上"),
        Said(
            "the last entry of that name in its archive, as unzip and tar extract it",
            "它是压缩包中同名条目的最后一个（unzip 和 tar 解压时保留的那个）",
        ),
        Said("first by name", "按名字排序在前"),
    )
    for reason, mine, theirs in zip(reasons, _rank(chosen), _rank(other), strict=True):
        if mine != theirs:
            return reason
    return reasons[-1]


def _rank(candidate: _Candidate) -> tuple:
    """Later first (file times within the same 2 s count as equal); then the platform's upload
    order; then the exact name; then the file nearest the top; then, of entries of the same
    name in one archive, the last; then the name, so that the choice never depends on listing
    order."""
    # no time at all (Canvas): -inf, and the upload order decides (-inf % 2 is NaN)
    at = candidate.submitted_at
    when = float("-inf") if at is None else at.timestamp()
    if at is not None and not candidate.platform_time:
        when -= when % 2  # file times: copying a folder spreads them by milliseconds; zip's
        # own clock ticks in 2 s, so times that close say nothing about which came later
    return (
        when,
        candidate.sequence,
        candidate.exact,
        -candidate.depth,
        candidate.order,
        _reverse(candidate.shown),
    )


def _reverse(text: str) -> tuple[int, ...]:
    return tuple(-ord(c) for c in text)


def normal_code(data: bytes) -> list[str]:
    """Code lines as compared for "unchanged": trailing spaces, blank lines, line endings and
    the notebook markers ``# %% cell N`` do not count."""
    text = data.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")
    lines = [line.rstrip() for line in text.split("\n")]
    return [line for line in lines if line and not line.startswith("# %% cell ")]


def same_code(data: bytes, starter: bytes) -> bool:
    return normal_code(data) == normal_code(starter)


def staging_for(staging: Path, origin: str) -> Path:
    """Each handin's own staging folder, named after where it came from (stable across runs).
    Two origins that clean up to the same name (``Dan Smith/`` and ``Dan_Smith/``, or names
    cut at 100 characters) still get two folders: the digest of the exact origin is part of
    the name, so one student's staging can never empty or replace another's."""
    tag = hashlib.sha256(origin.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return staging / f"{safe_name(origin)[:80]}-{tag}"
