"""One normalisation from a handed-in file name to an exercise id.

Learners do not hand in ``exercise-07.py``: they hand in ``Exercise07.py``, ``exercise_07.py``,
``ex7.py``, ``exercise-07 (1).py`` (a browser's second download), ``exercise-07 copy.py``
(Finder), ``exercise-07 - Copy.py`` (Windows), ``exercise-07-Copy1.ipynb`` (Jupyter's "Make a
Copy"), and learning platforms rename resubmissions ``exercise-07-1.py`` (Canvas). Every importer
goes through this one function, so a name means the same exercise whichever platform it came
through, and every liberty taken is written down as a note the instructor sees.

The rule, applied to the file's base name (the folders above it do not matter):

1. the extension is ``.py`` or ``.ipynb``, in any case (a doubled ``.py.py`` counts once);
2. case is ignored, and a leading ``Copy of`` (Google Drive) is dropped;
3. the name is a prefix, ``exercise``, ``ex`` or ``e``, then optional separators (space, ``_``,
   ``-``, ``.``), then the exercise's number with any leading zeros;
4. after the number only copy markers may follow: `` (1)``, ``-1``, `` 2``, `` copy``,
   `` copy 2``, ``_copy``, `` - Copy``, `` - Copy (2)``, ``-Copy1``, in any combination;
5. the number must be the number of exactly one known exercise (``exercise-07`` has number 7).

Anything else is not an exercise file: ``exercise-7-notes.txt`` (extension), ``solution.py``
(no prefix), ``exercise-07-solution.py`` (not a copy marker), ``exercise-42.py`` when there is no
exercise 42. ``why_not`` says which, for the instructor's report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from grader.lms.handin import Said

EXTENSIONS = (".py", ".ipynb")
_KNOWN_ID = re.compile(r"^exercise-(\d+)$")
_COPY_MARKER = r"(?:\s*\(\d+\)|\s*-\s*copy(?:\s*\(\d+\)|\s*\d+)?|[\s_]+copy(?:\s*\d+)?|-\d+|\s+\d+)"
_NAME = re.compile(
    rf"^(?P<prefix>exercise|ex|e)[\s._-]*(?P<number>\d{{1,3}})(?P<copy>{_COPY_MARKER}*)$"
)
_LOOSE_NUMBER = re.compile(r"^(?:exercise|ex|e)[\s._-]*(\d{1,3})(?!\d)")


@dataclass(frozen=True)
class NameMatch:
    """What a handed-in name was taken as."""

    exercise: str  # e.g. "exercise-07"
    notebook: bool  # a Jupyter notebook (.ipynb): its code cells are what gets graded
    note: str  # what liberty was taken ("ex7.py taken as exercise-07"); "" for an exact name


def numbers(known: Iterable[str]) -> dict[int, str]:
    """Each known exercise id by its number; ids that are not ``exercise-NN`` have none."""
    found: dict[int, str] = {}
    for ident in known:
        match = _KNOWN_ID.match(ident)
        if match:
            found[int(match.group(1))] = ident
    return found


def _split(shown: str) -> tuple[str, str] | None:
    """The lower-cased stem and extension of the base name, or None for other extensions."""
    base = PurePosixPath(shown.replace("\\", "/")).name.strip()
    lower = base.lower()
    for extension in EXTENSIONS:
        if lower.endswith(extension) and len(lower) > len(extension):
            stem = lower[: -len(extension)]
            if stem.endswith(".py"):  # "exercise-07.py.py", "exercise-07.py.ipynb"
                stem = stem[:-3]
            return stem.strip(), extension
    return None


def match_name(name: str, known: Iterable[str], shown: str | None = None) -> NameMatch | None:
    """The exercise a handed-in file is, or None when it is none of them (``why_not`` says
    why). ``name`` is the file's name as handed in (folders above it do not matter); the note
    calls it ``shown`` (where it was found, e.g. "alice.zip:hw/ex7.py"), default ``name``."""
    shown = name if shown is None else shown
    split = _split(name)
    if split is None:
        return None
    stem, extension = split
    liberties: list[tuple[str, str]] = []  # (English, Chinese)
    if stem.startswith("copy of "):
        stem = stem[len("copy of ") :].strip()
        liberties.append(("'Copy of' ignored", "忽略了 'Copy of'"))
    match = _NAME.match(stem)
    if match is None:
        return None
    exercise = numbers(known).get(int(match.group("number")))
    if exercise is None:
        return None
    if match.group("copy"):
        marker = repr(match.group("copy").strip())
        liberties.append((f"copy marker {marker} ignored", f"忽略了副本标记 {marker}"))
    base = PurePosixPath(name.replace("\\", "/")).name
    exact = base == f"{exercise}{extension}"
    note = ""
    if not exact:  # the learner reads it beside their result: in both languages
        en = "; ".join(e for e, _ in liberties)
        zh = "；".join(z for _, z in liberties)
        note = Said(
            f"{shown} taken as {exercise}" + (f" ({en})" if en else ""),
            f"{shown} 被当作 {exercise} 评分" + (f"（{zh}）" if zh else ""),
        )
    return NameMatch(exercise, extension == ".ipynb", note)


def code_name(shown: str) -> bool:
    """Whether ``shown`` is named as a Python file or a notebook (whatever its stem says)."""
    return _split(shown) is not None


def looks_like(shown: str, known: Iterable[str]) -> str | None:
    """The exercise a code file's name names though it is no exercise file, where it names
    one: ``exercise_1_final.py``, ``ex07-v2.ipynb`` (the name goes on after the number).
    Such a file is not graded (whose exercise it is stays the student's to say), but it is
    no sign that nothing was handed in."""
    split = _split(shown)
    if split is None or match_name(shown, known) is not None:
        return None
    loose = _LOOSE_NUMBER.match(split[0].removeprefix("copy of ").strip())
    return numbers(known).get(int(loose.group(1))) if loose else None


def why_not(shown: str, known: Iterable[str]) -> str:
    """Why ``shown`` is no exercise file, in words for the instructor's report and the
    student's feedback page (in both languages: :class:`~grader.lms.handin.Said`)."""
    split = _split(shown)
    if split is None:
        return Said("not a .py or .ipynb file", "不是 .py 或 .ipynb 文件")
    stem = split[0].removeprefix("copy of ").strip()
    loose = _LOOSE_NUMBER.match(stem)
    if loose:
        number = int(loose.group(1))
        exercise = numbers(known).get(number)
        if exercise is None:
            return Said(
                f"there is no exercise {number} in this assignment",
                f"这次作业里没有第 {number} 个练习",
            )
        return Said(
            f"looks like {exercise}, but the name goes on after the number "
            f"(expected {exercise}{split[1]})",
            f"看起来是 {exercise}，但名字在数字后面还有内容（应为 {exercise}{split[1]}）",
        )
    return Said(
        "matches no exercise (expected a name like exercise-07.py)",
        "不对应任何练习（文件名应类似 exercise-07.py）",
    )
