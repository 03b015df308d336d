"""Naming the misconception behind a failure, from the diagnosis catalogue.

The catalogue (``grader/diagnoses.yaml``) is data an exercise author can extend: each diagnosis
has an id, a title, what happened, why, how to fix it and the seed section that teaches it, in
English and Chinese, and says when it applies: evidence tags that hidden-test checks attach to a
failure (``shares_memory``, ``op_count_grows``, ...), or patterns of the exception the learner's
code raised (PyTorch's own messages, such as "view size is not compatible"). Evidence is listed
from general to specific, and the most specific tag with an entry decides.

A course may hold a ``diagnoses.yaml`` of its own, in the same format (:func:`for_course`): its
entries come first, so they decide wherever they and a built-in entry name the same tag or
match the same exception, and an entry with a built-in id replaces that entry.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from grader.course import DIAGNOSES as COURSE_FILE
from grader.errors import SpecError
from grader.fileio import read_regular
from grader.i18n import Text
from grader.results import Diagnosis
from grader.yamlfields import MAX_YAML_BYTES, YamlFields, read_yaml, text_value

CATALOGUE_PATH = Path(__file__).with_name("diagnoses.yaml")
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Pattern:
    """An exception the entry names; ``fix``: the fix for this exception in particular, where
    the message itself is the evidence for it (in place of the entry's general fix)."""

    type: re.Pattern[str] | None
    message: re.Pattern[str] | None
    fix: Text | None = None

    def matches(self, error: dict[str, Any]) -> bool:
        type_name = str(error.get("type") or "")
        message = str(error.get("message") or "")
        if self.type is not None and not self.type.search(type_name):
            return False
        return not (self.message is not None and not self.message.search(message))


@dataclass(frozen=True)
class Entry:
    id: str
    title: Text
    what: Text
    why: Text
    fix: Text
    teaches: str
    evidence: tuple[str, ...]
    exceptions: tuple[Pattern, ...]

    def localized(
        self,
        lang: str,
        exercise: str = "",
        file: str = "",
        fix: Text | None = None,
        line: int | None = None,
    ) -> Diagnosis:
        """The diagnosis in ``lang``; ``{exercise}`` in its texts becomes the exercise's short
        id and ``{file}`` its learner file, so that a fix names a command the learner can type
        (``grade hint 7``, ``python exercise-07.py``). ``fix``: the exercise's own fix for this
        diagnosis, in place of the catalogue's; ``{line}`` in it becomes ``line``, the learner's
        line that the evidence points at ("line 12"; without one, " ({line})" is left out)."""
        short = exercise.removeprefix("exercise-").lstrip("0") or exercise or "ID"
        named = file or (f"{exercise}.py" if exercise else "your_file.py")

        def text(value: Text) -> str:
            return value.get(lang).replace("{exercise}", short).replace("{file}", named)

        fixed = text(self.fix) if fix is None else _at_line(text(fix), lang, line)
        return Diagnosis(
            id=self.id,
            title=text(self.title),
            explanation=f"{text(self.what)} {text(self.why)}",
            fix=fixed,
            teaches=self.teaches,
        )


# (resolved path, digest of its bytes) -> the catalogue parsed from them
_PARSED: dict[tuple[str, bytes], DiagnosisCatalog] = {}


@dataclass(frozen=True)
class DiagnosisCatalog:
    """The diagnoses in the order they are tried; ``sources`` are the files they came from
    (the built-in catalogue, then a course's), for messages that name where an id is missing."""

    entries: tuple[Entry, ...]
    sources: tuple[Path, ...] = (CATALOGUE_PATH,)

    @classmethod
    def for_course(cls, root: Path | None) -> DiagnosisCatalog:
        """The catalogue a course's gradings use: the built-in one, extended and overridden by
        ``root/diagnoses.yaml`` when the course has one."""
        builtin = cls.load()
        path = root / COURSE_FILE if root is not None else None
        if path is None or not path.is_file() or path.resolve() == CATALOGUE_PATH.resolve():
            return builtin
        return builtin.extended(cls.load(path))

    def extended(self, course: DiagnosisCatalog) -> DiagnosisCatalog:
        """``course``'s entries first (an id of this catalogue is replaced), then the rest."""
        replaced = course.ids()
        return DiagnosisCatalog(
            course.entries + tuple(e for e in self.entries if e.id not in replaced),
            self.sources + course.sources,
        )

    def unknown(self, entry_id: str) -> str | None:
        """None when ``entry_id`` is defined; else the rest of a sentence about it that names
        the files read and the closest id: "which neither C/diagnoses.yaml nor the built-in
        catalogue (grader/diagnoses.yaml) defines; did you mean 'python-loop'?"."""
        if entry_id in self.ids():
            return None
        files = [_file_name(p) for p in reversed(self.sources)]
        if len(files) == 1:
            clause = f"which {files[0]} does not define"
        else:
            clause = "which neither " + " nor ".join(files) + " defines"
        close = difflib.get_close_matches(entry_id, sorted(self.ids()), n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else "add it there or fix the id"
        return f"{clause}; {hint}"

    @classmethod
    def load(cls, path: Path = CATALOGUE_PATH) -> DiagnosisCatalog:
        """The catalogue in ``path``, parsed once per process for each content the file has
        had (a catalogue is immutable): a course's gradings, `grade validate` and a warm
        server ask for it again and again, and parsing it strictly costs a fifth of a second.
        A file edited since is parsed again; one that cannot be read says so as before."""
        try:  # as read_yaml reads it: a regular file only, never waiting on a FIFO
            data = read_regular(path, MAX_YAML_BYTES)
            key = (str(path.resolve()), hashlib.blake2b(data).digest())
        except (OSError, RuntimeError, ValueError):  # read_yaml says what is wrong with it
            return cls._parse(path, read_yaml(path))
        if key not in _PARSED:  # the bytes read once: parsed as they were hashed
            _PARSED[key] = cls._parse(path, read_yaml(path, data=data))
        return _PARSED[key]

    @classmethod
    def _parse(cls, path: Path, raw: Any) -> DiagnosisCatalog:
        top = YamlFields(path, raw, "", ("format_version", "diagnoses"))
        top.check_version(FORMAT_VERSION)
        entries = []
        seen: set[str] = set()
        for i, raw in enumerate(top.get("diagnoses", list)):
            where = f"diagnoses[{i}]"
            fields = YamlFields(
                path,
                raw,
                where,
                ("id", "title", "what", "why", "fix", "teaches", "evidence", "exceptions"),
            )
            entry_id = fields.get("id", str)
            if entry_id in seen:
                raise SpecError(
                    path, f"{where}.id", f"'{entry_id}' appears twice", "keep one entry per id"
                )
            seen.add(entry_id)
            texts = {
                key: text_value(path, f"{where}.{key}", fields.get(key, dict))
                for key in ("title", "what", "why", "fix")
            }
            patterns = []
            for j, item in enumerate(fields.get("exceptions", list, [])):
                at = f"{where}.exceptions[{j}]"
                sub = YamlFields(path, item, at, ("type", "message", "fix"))
                own = sub.get("fix", dict, None)
                patterns.append(
                    Pattern(
                        _regex(path, f"{at}.type", sub.get("type", str, None)),
                        _regex(path, f"{at}.message", sub.get("message", str, None)),
                        None if own is None else text_value(path, f"{at}.fix", own),
                    )
                )
            evidence = fields.names("evidence", default=())
            if not evidence and not patterns:
                raise SpecError(
                    path,
                    where,
                    "matches nothing",
                    "give `evidence:` tags or `exceptions:` patterns",
                )
            entries.append(
                Entry(
                    id=entry_id,
                    **texts,
                    teaches=fields.get("teaches", str, ""),
                    evidence=evidence,
                    exceptions=tuple(patterns),
                )
            )
        return cls(tuple(entries), (path,))

    def ids(self) -> set[str]:
        return {e.id for e in self.entries}

    def named_evidence(self) -> frozenset[str]:
        """Every evidence tag some entry names (feedback refined from evidence uses only
        these)."""
        return frozenset(t for e in self.entries for t in e.evidence)

    def get(self, entry_id: str) -> Entry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        raise KeyError(entry_id)


def _at_line(text: str, lang: str, line: int | None) -> str:
    if line is None:
        return text.replace(" ({line})", "").replace("（{line}）", "").replace("{line}", "")
    return text.replace("{line}", f"第 {line} 行" if lang == "zh" else f"line {line}")


def _file_name(path: Path) -> str:
    if path == CATALOGUE_PATH:
        return "the built-in catalogue (grader/diagnoses.yaml)"
    return str(path)


def _regex(path: Path, where: str, pattern: str | None) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SpecError(
            path, where, f"invalid regular expression: {exc}", "fix the pattern"
        ) from None
    except (OverflowError, RecursionError):  # `a{4294967296}`, a thousand nested groups
        raise SpecError(
            path,
            where,
            "invalid regular expression: a repetition or nesting too large for Python's re",
            "fix the pattern",
        ) from None


def match(
    catalogue: DiagnosisCatalog, evidence: tuple[str, ...], error: dict[str, Any] | None
) -> Entry | None:
    """The most specific diagnosis: evidence tags go from general to specific, so the last tag
    that some entry lists decides; without one, the first entry whose exception pattern
    matches the learner's exception (with that pattern's own fix, where it has one)."""
    for tag in reversed(evidence):
        for entry in catalogue.entries:
            if tag in entry.evidence:
                return entry
    if error:
        for entry in catalogue.entries:
            for pattern in entry.exceptions:
                if pattern.matches(error):
                    return entry if pattern.fix is None else replace(entry, fix=pattern.fix)
    return None


def diagnose(
    catalogue: DiagnosisCatalog,
    evidence: tuple[str, ...],
    error: dict[str, Any] | None,
    lang: str,
    fallback: str | None = None,
    exercise: str = "",
    file: str = "",
    fixes: Callable[[str], Text | None] | None = None,
    line: int | None = None,
) -> Diagnosis | None:
    """The diagnosis for a failure, in ``lang``; ``fallback`` is a test's declared diagnosis;
    ``fixes`` gives the exercise's own fix for a diagnosis id (``ExerciseSpec.fix``) and
    ``line`` the learner's line the evidence points at."""
    entry = match(catalogue, evidence, error)
    if entry is None and fallback:
        entry = catalogue.get(fallback)
    if entry is None:
        return None
    own = fixes(entry.id) if fixes is not None else None
    return entry.localized(lang, exercise, file, own, line)
