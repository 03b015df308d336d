"""Which course the grader works on: a folder of exercises, their references, its diagnoses.

A course is a folder::

    my-course/
      exercises/exercise-21/ ...   one folder per exercise (exercises/README.md)
      solutions/exercise-21/ ...   the reference solutions, mirroring exercises/
      diagnoses.yaml               optional: misconceptions of its own, in the format of
                                   grader/diagnoses.yaml; they extend the built-in catalogue,
                                   and an entry with a built-in id replaces that entry

The grader ships one course, the built-in twenty; it is the default. Another is chosen, in this
order, with ``--course DIR`` (every command takes it), the ``GRADER_COURSE`` variable
(``GRADER_HOME``, its older name, still works), or by running a command inside the course
folder (one holding ``exercises/`` and ``solutions/``), which is said on stderr.

The choice is made once, before a command runs, and kept in the environment
(``GRADER_COURSE``): whatever the command starts (trusted workers, the fork server, cluster
slots on this machine) grades the same course, with the same diagnoses.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from grader.errors import UsageError
from grader.resources import PACKAGE, builtin_course
from grader.text import shown_line

ENV = "GRADER_COURSE"
LEGACY_ENV = "GRADER_HOME"  # the name tests and older setups use
DIAGNOSES = "diagnoses.yaml"
_EXERCISE_RE = re.compile(r"^exercise-[0-9]{2}\Z")


@dataclass(frozen=True)
class Course:
    """A course folder, and how it was chosen (``built-in``, ``--course``, ``GRADER_COURSE``,
    ``GRADER_HOME`` or ``this folder``), for messages that say which course they mean."""

    root: Path
    chosen_by: str = "built-in"

    @property
    def exercises_dir(self) -> Path:
        return self.root / "exercises"

    @property
    def solutions_dir(self) -> Path:
        return self.root / "solutions"

    @property
    def builtin(self) -> bool:
        return self.root == builtin_course().resolve()

    @property
    def packaged(self) -> bool:
        """Whether the course lies inside the installed package (the wheel's built-in course),
        where nothing may be written."""
        return PACKAGE in self.root.parents


def builtin() -> Course:
    return Course(builtin_course().resolve())


def current() -> Course:
    """The course this process works on: ``GRADER_COURSE``, else ``GRADER_HOME``, else the
    built-in one."""
    for name in (ENV, LEGACY_ENV):
        value = os.environ.get(name)
        if value:
            path = _folder(value)
            if path is None:
                raise UsageError(
                    f"{name}={shown_line(value)}: no such folder",
                    hint="Point it at a course folder (one holding exercises/ and solutions/), "
                    f"or unset {name} for the built-in course.",
                )
            return Course(path, name)
    return builtin()


def select(folder: Path | str, chosen_by: str = "--course") -> Course:
    """Make ``folder`` the course of this process and of everything it starts."""
    path = _folder(folder)
    if path is None:
        raise UsageError(
            f"{chosen_by} {shown_line(str(folder))}: no such folder",
            hint="A course is a folder holding exercises/ and solutions/ (exercises/README.md).",
        )
    os.environ[ENV] = str(path)
    return Course(path, chosen_by)


def _folder(value: Path | str) -> Path | None:
    """The folder a path given by the user names, resolved; None where it names none. Any
    failure to look counts as none: a name too long for the file system, a symbolic link
    loop, a file on the way, a folder one may not enter (``is_dir`` raises for some)."""
    try:
        path = Path(value).expanduser().resolve()
        return path if path.is_dir() else None
    except (OSError, RuntimeError, ValueError):
        return None


def looks_like_course(folder: Path) -> bool:
    """A folder holding ``exercises/`` and ``solutions/``, where ``exercises/`` holds exercise
    folders (``exercise-NN``) or nothing yet (a course just started)."""
    exercises = folder / "exercises"
    if not (exercises.is_dir() and (folder / "solutions").is_dir()):
        return False
    try:
        entries = [p for p in exercises.iterdir() if not p.name.startswith((".", "_"))]
    except OSError:
        return False
    return not entries or any(p.is_dir() and _EXERCISE_RE.match(p.name) for p in entries)


def from_here(cwd: Path | None = None) -> Course | None:
    """When no course was given (no option, no variable) and the current folder is a course
    other than the built-in one, select it and return it; else None."""
    if os.environ.get(ENV) or os.environ.get(LEGACY_ENV):
        return None
    here = (cwd or Path.cwd()).resolve()
    if not looks_like_course(here) or here == builtin_course().resolve():
        return None
    return select(here, "this folder")
