"""Naming the misconception behind a failure, from the diagnosis catalogue.

The catalogue (``grader/diagnoses.yaml``) is data an exercise author can extend: each diagnosis
has an id, a title, what happened, why, how to fix it and the seed section that teaches it, in
English and Chinese, and says when it applies: evidence tags that hidden-test checks attach to a
failure (``shares_memory``, ``op_count_grows``, ...), or patterns of the exception the learner's
code raised (PyTorch's own messages, such as "view size is not compatible"). Evidence is listed
from general to specific, and the most specific tag with an entry decides.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.errors import SpecError
from grader.i18n import Text
from grader.results import Diagnosis
from grader.spec import _Fields, read_yaml, text_value

CATALOGUE_PATH = Path(__file__).with_name("diagnoses.yaml")
FORMAT_VERSION = 1


@dataclass(frozen=True)
class Pattern:
    type: re.Pattern[str] | None
    message: re.Pattern[str] | None

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

    def localized(self, lang: str, exercise: str = "") -> Diagnosis:
        """The diagnosis in ``lang``; ``{exercise}`` in its texts becomes the exercise's short
        id, so that a fix names a command the learner can type (``grade hint 7``)."""
        short = exercise.removeprefix("exercise-").lstrip("0") or exercise or "ID"

        def text(value: Text) -> str:
            return value.get(lang).replace("{exercise}", short)

        return Diagnosis(
            id=self.id,
            title=text(self.title),
            explanation=f"{text(self.what)} {text(self.why)}",
            fix=text(self.fix),
            teaches=self.teaches,
        )


@dataclass(frozen=True)
class DiagnosisCatalog:
    entries: tuple[Entry, ...]

    @classmethod
    def load(cls, path: Path = CATALOGUE_PATH) -> DiagnosisCatalog:
        top = _Fields(path, read_yaml(path), "", ("format_version", "diagnoses"))
        if top.get("format_version", int) != FORMAT_VERSION:
            raise SpecError(path, "format_version", "unsupported version", f"use {FORMAT_VERSION}")
        entries = []
        seen: set[str] = set()
        for i, raw in enumerate(top.get("diagnoses", list)):
            where = f"diagnoses[{i}]"
            fields = _Fields(
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
                sub = _Fields(path, item, f"{where}.exceptions[{j}]", ("type", "message"))
                patterns.append(
                    Pattern(
                        _regex(path, f"{where}.exceptions[{j}].type", sub.get("type", str, None)),
                        _regex(
                            path, f"{where}.exceptions[{j}].message", sub.get("message", str, None)
                        ),
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
        return cls(tuple(entries))

    def ids(self) -> set[str]:
        return {e.id for e in self.entries}

    def get(self, entry_id: str) -> Entry:
        for entry in self.entries:
            if entry.id == entry_id:
                return entry
        raise KeyError(entry_id)


def _regex(path: Path, where: str, pattern: str | None) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise SpecError(
            path, where, f"invalid regular expression: {exc}", "fix the pattern"
        ) from None


def match(
    catalogue: DiagnosisCatalog, evidence: tuple[str, ...], error: dict[str, Any] | None
) -> Entry | None:
    """The most specific diagnosis: evidence tags go from general to specific, so the last tag
    that some entry lists decides; without one, the first entry whose exception pattern
    matches the learner's exception."""
    for tag in reversed(evidence):
        for entry in catalogue.entries:
            if tag in entry.evidence:
                return entry
    if error:
        for entry in catalogue.entries:
            if any(p.matches(error) for p in entry.exceptions):
                return entry
    return None


def diagnose(
    catalogue: DiagnosisCatalog,
    evidence: tuple[str, ...],
    error: dict[str, Any] | None,
    lang: str,
    fallback: str | None = None,
    exercise: str = "",
) -> Diagnosis | None:
    """The diagnosis for a failure, in ``lang``; ``fallback`` is a test's declared diagnosis."""
    entry = match(catalogue, evidence, error)
    if entry is None and fallback:
        entry = catalogue.get(fallback)
    return entry.localized(lang, exercise) if entry is not None else None
