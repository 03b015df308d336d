"""Writing what the grader produces: atomically, and with a clear error when it cannot.

A report or a gradebook is written to a temporary file beside its target and renamed over it,
so a reader (or a kill) never sees half a file. A path that cannot be written is the user's to
fix: one UsageError naming it, never a traceback.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from grader.errors import UsageError
from grader.text import shown


def write_atomic(path: Path, text: str) -> None:
    """Write a file so that a reader (or a kill) never sees half of it. Text that cannot be
    UTF-8 (a lone surrogate from a name the file system gave, or from learner code) is written
    with replacement characters (:func:`grader.text.shown`): an output never fails to encode."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError:
        data = shown(text).encode("utf-8")
    _replaceable(path)
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
        os.fchmod(fd, 0o666 & ~_umask())  # mkstemp makes 0600; reports are meant to be shared
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise UsageError(
            f"cannot write {path}: {exc.strerror or exc}",
            hint="Choose a file in a folder you can write to.",
        ) from None
    finally:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)


def mode_of(path: Path) -> int | None:
    """What a user-given path names (``stat``'s mode, links followed); None where it names
    nothing the file system can look at: nothing there, a name longer than it allows, a link
    loop, a file on the way, a folder that may not be entered. ``Path.is_dir`` and its kin
    raise for some of these (ENAMETOOLONG): a traceback for a typing mistake."""
    try:
        return path.stat().st_mode
    except (OSError, ValueError):
        return None


def resolved(path: Path) -> Path:
    """``path`` resolved, as ``Path.resolve`` does; where it cannot be (a symbolic link loop,
    a NUL byte, a name longer than the file system allows), its absolute form. Every path
    from outside (an entry of a class's download, a file the user named) is compared
    resolved, and ``resolve`` raises on these: one entry that loops ended a whole
    ``grade batch`` with a traceback."""
    try:
        return path.resolve()
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a loop, before Python 3.13
        return Path(os.path.abspath(path))


def open_regular(path: Path, *, follow: bool = True) -> tuple[int, os.stat_result]:
    """A file descriptor (read only) of the regular file at ``path``, and its status as
    opened. Never waits: a FIFO or a device there is opened without blocking and refused as
    an OSError (``read_bytes`` waited for a writer for ever), its kind checked on the opened
    file, so nothing can swap it in between. ``follow=False``: a final link is refused too (a
    class's download, where a link may point anywhere on the grading machine)."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not follow:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a folder, a pipe or a device)")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file at ``path`` (a final link followed, :func:`open_regular`),
    at most ``limit`` and one more (so that a reader can say it is larger)."""
    fd, _ = open_regular(path)
    try:
        chunks = []
        left = limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def is_folder(path: Path) -> bool:
    mode = mode_of(path)
    return mode is not None and stat.S_ISDIR(mode)


def is_regular_file(path: Path) -> bool:
    mode = mode_of(path)
    return mode is not None and stat.S_ISREG(mode)


def exists(path: Path) -> bool:
    """Whether something is there to look at (a dangling link or a path that cannot be
    looked at is nothing)."""
    return mode_of(path) is not None


# What an output never replaces: the learner's own code (``--report exercise-07.py`` wrote HTML
# over it, with no backup)
SOURCE_SUFFIXES = (".py", ".ipynb")


def _replaceable(path: Path) -> None:
    """An output is a new file renamed over ``path``: over a symbolic link, a pipe or a device
    (``/dev/full``) it replaced the link or the node itself, and said nothing. Only a regular
    file, or nothing, may be there."""
    try:
        info = path.lstat()
    except OSError:
        return  # nothing there (or no way there): writing says what is wrong, if anything
    if stat.S_ISLNK(info.st_mode):
        raise UsageError(
            f"{path} is a symbolic link: an output would replace the link, not write to its target",
            hint="Give the path of the file itself.",
        )
    if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
        raise UsageError(
            f"{path} is not a regular file (a pipe, a device or a socket)",
            hint="Give the path of a file for this output.",
        )


def check_replaceable(path: Path) -> None:
    """Refuse an output path whose file must never be replaced: a link or a special file, a
    Python file or a notebook (the learner's code)."""
    _replaceable(path)
    if path.suffix.lower() in SOURCE_SUFFIXES:
        raise UsageError(
            f"{path} is a Python file or a notebook: an output written there would replace it",
            hint="Give the output a name of its own (report.html, result.json).",
        )


def check_writable(path: Path) -> None:
    """Fail early when ``path`` cannot become an output file: a folder, what
    :func:`check_replaceable` refuses, a place that cannot be written."""
    try:
        path.lstat()
    except (FileNotFoundError, NotADirectoryError):
        pass  # a new file, or a file on the way: its folder is looked at below
    except (OSError, ValueError) as exc:  # a name too long, a link loop
        why = getattr(exc, "strerror", None) or "the path cannot be looked at"
        raise UsageError(
            f"cannot write {path}: {why}", hint="Choose a file in a folder you can write to."
        ) from None
    if is_folder(path):
        raise UsageError(f"{path} is a folder", hint="Give a file name for this output.")
    check_replaceable(path)
    folder = path.parent
    while not exists(folder) and folder != folder.parent:
        folder = folder.parent
    if not is_folder(folder) or not os.access(folder, os.W_OK | os.X_OK):
        raise UsageError(
            f"cannot write {path}: {folder} is not a folder you can write to",
            hint="Choose a file in a folder you can write to.",
        )


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current
