"""The data model of intake: what one student handed in, as found in a download.

Every importer (Gradescope, Canvas, Moodle, plain folders) produces ``Handin`` objects, and
everything after intake (grading, roster matching, exports) reads only these, never the
download's layout. A ``Handin`` keeps everything the download said about the student (who they
are, when they handed in, whether their platform called it late) and everything that went wrong
(``problems``) or was taken liberally (``notes``), so that nothing is lost on the way to the
gradebook.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from grader.i18n import Text
from grader.notebooks import CellMap
from grader.text import shown_name


class Said(str):
    """A note of intake that reaches a learner's feedback page, in both languages: the string
    itself is the English, which every output for the instructor shows as it always has;
    ``zh`` is the Chinese, which a page in Chinese shows instead. Notes only for the
    instructor stay plain English strings."""

    zh: str

    def __new__(cls, en: str, zh: str) -> Said:
        said = super().__new__(cls, en)
        said.zh = zh
        return said

    def __getnewargs__(self) -> tuple[str, str]:  # type: ignore[override]
        return str(self), self.zh

    def get(self, lang: str) -> str:
        return self.zh if lang == "zh" else str(self)


def in_lang(text: str, lang: str) -> str:
    """``text`` in ``lang`` where it is a :class:`Said`; any other text as it is."""
    return text.get(lang) if isinstance(text, Said) else text


# A learner's page leaves out the lines written for the instructor only (a plain ``str``:
# roster matching, participant ids, what to check in the LMS), in every language, and says
# how many it did: a learner told "not on the roster: check who this is" is told nothing
INSTRUCTOR_ONLY_LEFT_OUT = Said(
    "{n} more note(s) for your instructor only are not listed here; if your grade looks "
    "wrong, ask your instructor.",
    "另有 {n} 条只写给老师的说明（英文）没有列在这里；对成绩有疑问，请询问老师。",
)


def for_learner(lines: Iterable[str], lang: str) -> tuple[str, ...]:
    """``lines`` (intake's problems and notes) as a learner's page in ``lang`` says them: each
    :class:`Said` in that language; a plain line (the instructor's, English only) left off,
    and one line says how many were, so that no line meant for the instructor reaches a
    learner, none in English alone reaches a page in Chinese, and none goes unsaid."""
    lines = list(lines)
    shown = [line.get(lang) for line in lines if isinstance(line, Said)]
    left_out = sum(not isinstance(line, Said) for line in lines)
    if left_out:
        shown.append(INSTRUCTOR_ONLY_LEFT_OUT.get(lang).format(n=left_out))
    return tuple(dict.fromkeys(shown))


def said_or_held(text: str, zh: str) -> Said:
    """``text`` in both languages: its own Chinese where it is a :class:`Said`, else ``zh``
    (what the learner may know of a reason worded for the instructor)."""
    return text if isinstance(text, Said) else Said(text, zh)


def notebook_note(shown: str, note: Text) -> Said:
    """A note of ``grader.notebooks.extract`` on the notebook ``shown`` (a line it left out),
    in both languages, as the extraction says it."""
    return Said(f"{shown}: {note.en}", f"{shown}：{note.zh}")


def notebook_unreadable(message: str) -> Said:
    """Why a notebook could not be read (``grader.notebooks.NotebookError``), in both
    languages: the reader's own words, said to be them, under a Chinese sentence."""
    return Said(message, f"这个 notebook 无法读取（评分器的原话：{message}）")


def shown_text(text: str) -> str:
    """``grader.text.shown_name`` of a text, a :class:`Said` kept in both languages."""
    if isinstance(text, Said):
        return Said(shown_name(str(text)), shown_name(text.zh))
    return shown_name(text)


@dataclass(frozen=True)
class ExerciseInfo:
    """What intake needs to know of an exercise: its id, the file name the learner edits (a
    handed-in file is staged under this name, whatever it was called) and the starter's bytes
    (to flag a file handed in unchanged)."""

    id: str
    learner_file: str
    starter: bytes = b""

    @classmethod
    def from_spec(cls, spec: Any) -> ExerciseInfo:
        """From a ``grader.spec.ExerciseSpec`` (a starter that cannot be read flags nothing)."""
        try:
            starter = spec.starter_path.read_bytes()
        except OSError:
            starter = b""
        return cls(spec.id, spec.learner_file, starter)


@dataclass
class Submitted:
    """One exercise's file of one student, staged and ready to grade."""

    exercise: str
    path: Path  # a regular file in the staging folder: a copy, or a notebook's extracted code
    shown: str  # as handed in: "ex7.ipynb", "work/ex7.py", "alice.zip:hw/ex7.py"
    notes: list[str] = field(default_factory=list)  # e.g. "ex7.py taken as exercise-07"
    notebook: CellMap | None = None  # where each line came from, for a notebook
    unchanged_starter: bool = False  # the file is the exercise's starter, untouched
    submitted_at: datetime | None = None  # the platform's time, else the file's mtime
    sequence: int = 0  # the platform's upload order where it has one (Canvas file ids)
    # why this may not be the student's final version ("" when nothing says so): a file named
    # like the exercise but not as its file ("exercise-01_v2.py") came after it; no grade is
    # written for the student until someone looks
    doubt: str = ""
    # when the file (or the archive it came in) was written on this computer (its ctime),
    # where it was read from disk: a date equal to it is the unzip's, not the platform's
    written_at: datetime | None = None

    def __post_init__(self) -> None:
        self.shown = shown_name(self.shown)  # a name's undecodable bytes, kept apart


@dataclass
class Handin:
    """Everything one student handed in, and what the download says about them."""

    key: str  # stable student key: the platform's user id, SID, or the folder's name
    key_kind: str = "folder"  # what the key is: lms_id, sid, email, participant or folder
    name: str = ""
    email: str = ""
    sid: str = ""  # student id number (Gradescope's SID; Moodle's "ID number")
    lms_id: str = ""  # the platform's own user id (Canvas user id), as a roster's id holds it
    participant: str = ""  # Moodle's participant id for this assignment (blind marking's key)
    submitted_at: datetime | None = None  # timezone-aware; the platform's, where it gives one
    late: bool | None = None  # the platform's own late flag; None where it gives none
    origin: str = ""  # where in the download: "submission_0123/", "alice.zip", "doejane_..."
    files: dict[str, Submitted] = field(default_factory=dict)  # exercise id -> file
    unreadable: dict[str, str] = field(default_factory=dict)  # exercise id -> why
    problems: list[str] = field(default_factory=list)  # for the instructor: fix or look
    notes: list[str] = field(default_factory=list)  # liberties taken, merges, group members
    # Exercises with no file that may be inside work intake could not read (a damaged archive,
    # one over a cap): their 0 would be the grader's limit, not the work; no grade is written
    unread_work: set[str] = field(default_factory=set)
    # Names the download may mean where ``name`` is on no roster line, in order: a Moodle team
    # download writes "{team}-{full name}", and which "-" ends the team is not known
    aliases: tuple[str, ...] = ()
    # How many participants of the download carry ``name`` (Moodle), where it may name no one:
    # more than one (a translated blind-marking "Participant", or namesakes), or 1 for a name
    # of one word (Moodle writes a first and a last name). Off the roster it names no one.
    shared_name: int = 0
    # Why no grade may be written until the instructor looks, beyond the files' own doubts
    # (a submission time the grading worksheet gives that cannot decide the late rule)
    doubt: str = ""

    def __post_init__(self) -> None:
        # Names from the download (folders, archives, entries) with undecodable bytes keep
        # them apart as \xNN: two students whose names differ only there stay two.
        self.key, self.name, self.origin = (
            shown_name(self.key),
            shown_name(self.name),
            shown_name(self.origin),
        )

    def identities(self) -> list[tuple[str, str]]:
        """The identity facts this handin carries, strongest first, for merging and roster
        matching: (kind, normalised value)."""
        found = []
        participant = self.participant or (self.key if self.key_kind == "participant" else "")
        if participant:  # Moodle: one student per id within a download
            found.append(("participant", participant))
        if self.lms_id:
            found.append(("lms_id", self.lms_id.strip()))
        if self.sid:
            found.append(("sid", self.sid.strip().lower()))
        if self.email:
            found.append(("email", self.email.strip().lower()))
        if clean_name(self.name):
            found.append(("name", clean_name(self.name)))
        return found


def tell_apart(names: list[str]) -> list[str]:
    """``names`` as an instructor can tell them apart: a name that looks like another of them
    (the same after Unicode normalisation, NFKC, with invisible format characters dropped:
    "José" written with "é" or with "e" and a combining accent, a full-width letter, a
    zero-width space) is followed by its characters spelled out ("José (Jos<U+00E9>)"), so
    two entries never read as one name twice; the rest are as they were."""
    looks = [_look(n) for n in names]
    shown = []
    for name, look in zip(names, looks, strict=True):
        alike = any(other == look and o != name for o, other in zip(names, looks, strict=True))
        shown.append(f"{name} ({_spelled(name)})" if alike else name)
    return shown


def _look(name: str) -> str:
    normal = unicodedata.normalize("NFKC", name)
    return "".join(c for c in normal if unicodedata.category(c) != "Cf")


def _spelled(name: str) -> str:
    return "".join(c if c.isascii() and c.isprintable() else f"<U+{ord(c):04X}>" for c in name)


def clean_name(name: str) -> str:
    """A person's name reduced to what survives every platform's mangling: lower case, no
    accents, letters and digits only ("Zoë O'Brien-Smith" -> "zoeobriensmith")."""
    decomposed = unicodedata.normalize("NFKD", shown_name(name))
    letters = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"[\W_]+", "", letters.casefold())


def name_forms(name: str) -> set[str]:
    """The cleaned forms a name takes on platforms: as written ("janedoe"), family name first
    as Canvas's sortable names have it ("doejane"), and with its words sorted."""
    words = [clean_name(w) for w in re.split(r"[\s,;]+", name) if clean_name(w)]
    if not words:
        return set()
    forms = {"".join(words), "".join(sorted(words))}
    if len(words) > 1:
        forms.add(words[-1] + "".join(words[:-1]))  # "Jane Ann Doe" -> "doejaneann"
        forms.add("".join(words[1:]) + words[0])  # "Doe, Jane Ann" written first-last
    return forms


def safe_name(text: str) -> str:
    """``text`` as a file or folder name: characters other than letters, digits and ``.@+-``
    become ``_`` (the rule ``grade batch`` has always used for student folders)."""
    cleaned = (
        re.sub(r"[^\w.@+-]+", "_", shown_name(text), flags=re.UNICODE).strip("._") or "student"
    )
    return cleaned[:100]
