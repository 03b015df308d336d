"""The tutorial sections that feedback cites, by number and by title.

Diagnoses (``grader/diagnoses.yaml``) and exercises (``teaches:`` in ``exercise.yaml``) cite the
seed tutorials by section number: ``"000 §2.3, 001 §5.2, §7.2"``. A number alone means nothing to
a learner, so ``grader/sections.yaml`` gives every numbered heading of every tutorial its title,
in the tutorial's own Chinese words and in English, and :func:`describe` turns a ``teaches``
string into sections a report can print: ``000 §7.3 梯度累积与zero_grad的必要性``.

The grammar of a ``teaches`` string (whitespace is allowed around every token)::

    teaches   := ""  |  item ( separator item )*
    separator := ","  |  "，"  |  ";"
    item      := [ tutorial ] "§" span
    tutorial  := three digits                      e.g. 000, 001, 003
    span      := number [ dash number ]
    dash      := "-"  |  "–"  |  "~"
    number    := digits ( "." digits )*            e.g. 7 (a chapter), 7.3 (a subsection)

An item without a tutorial continues the tutorial named last before it: in
``"000 §3.2, §8.3, 001 §4.3"``, ``§8.3`` is ``000 §8.3``; an item without one at the start is
an error. A span ``a-b`` names every section from ``a`` to ``b``: both ends have the same depth,
differ only in their last number, and ``a`` comes first (``§6.1-6.3`` is 6.1, 6.2 and 6.3;
``§3-4`` is chapters 3 and 4). Numbers are normalised (``§07.3`` is ``§7.3``).

:func:`parse` is strict (a malformed string raises :class:`TeachesSyntaxError`; the tests hold
every string in the repository to it). :func:`describe` never raises on what a string says: a
reference to a section or tutorial that ``sections.yaml`` lacks, or a piece that does not parse,
comes back with an empty title, so a report still prints; :func:`unknown` lists those.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader.errors import SpecError
from grader.i18n import LANGS, Text
from grader.yamlfields import YamlFields, read_yaml, text_value

SECTIONS_PATH = Path(__file__).with_name("sections.yaml")
FORMAT_VERSION = 1

TUTORIAL_RE = re.compile(r"^[0-9]{3}\Z")
NUMBER_RE = re.compile(r"^(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*\Z")

_SEPARATORS = re.compile(r"[,，;]")
_ITEM_RE = re.compile(
    r"""^\s*
    (?:(?P<tutorial>\d{3})\s*)?
    §\s*
    (?P<start>\d+(?:\s*\.\s*\d+)*)
    (?:\s*[-–~]\s*(?P<end>\d+(?:\s*\.\s*\d+)*))?
    \s*$""",
    re.VERBOSE,
)


class TeachesSyntaxError(ValueError):
    """A ``teaches`` string that does not follow the grammar of this module."""


@dataclass(frozen=True, order=True)
class Ref:
    """One section of one tutorial: ``Ref("000", "7.3")`` is ``000 §7.3``."""

    tutorial: str
    section: str

    def __str__(self) -> str:
        return f"{self.tutorial} §{self.section}"


@dataclass(frozen=True)
class Section:
    """A reference as a report prints it: ``ref`` ("000 §7.3"), the section's ``title`` and its
    ``tutorial``'s title in one language; both titles are empty where the reference is unknown."""

    ref: str
    title: str
    tutorial: str

    @property
    def known(self) -> bool:
        return bool(self.title)


@dataclass(frozen=True)
class SectionCatalog:
    """The tutorials' titles and their sections' titles, as ``sections.yaml`` gives them."""

    tutorials: dict[str, Text]
    sections: dict[str, dict[str, Text]]  # tutorial -> number -> title, in the tutorial's order

    def tutorial(self, tutorial: str) -> Text | None:
        return self.tutorials.get(tutorial)

    def title(self, ref: Ref) -> Text | None:
        return self.sections.get(ref.tutorial, {}).get(ref.section)

    def refs(self) -> list[Ref]:
        """Every section of every tutorial, in order."""
        return [Ref(t, number) for t, numbers in self.sections.items() for number in numbers]


# ---------------------------------------------------------------------------------------------
# Loading sections.yaml


@functools.lru_cache(maxsize=8)
def load(path: Path = SECTIONS_PATH) -> SectionCatalog:
    """Read ``path`` strictly (every problem is a SpecError naming the file and the field);
    the result is cached per path."""
    top = YamlFields(path, read_yaml(path), "", ("format_version", "tutorials", "sections"))
    top.check_version(FORMAT_VERSION)

    tutorials: dict[str, Text] = {}
    for key, value in top.get("tutorials", dict).items():
        tutorial = _key(path, "tutorials", key, TUTORIAL_RE, 'a three-digit id, e.g. "000"')
        tutorials[tutorial] = _title(path, f'tutorials."{tutorial}"', value)
    if not tutorials:
        raise SpecError(path, "tutorials", "is empty", "name every tutorial")

    raw_sections = top.get("sections", dict)
    sections: dict[str, dict[str, Text]] = {}
    for key, numbers in raw_sections.items():
        tutorial = _key(path, "sections", key, TUTORIAL_RE, 'a three-digit id, e.g. "000"')
        where = f'sections."{tutorial}"'
        if tutorial not in tutorials:
            raise SpecError(
                path, where, "is not a tutorial", "add it under `tutorials:` first, or remove it"
            )
        if not isinstance(numbers, dict) or not numbers:
            raise SpecError(
                path,
                where,
                "expected a non-empty mapping of section numbers",
                'write one `"7.3": {zh: ..., en: ...}` line per section',
            )
        titles: dict[str, Text] = {}
        previous: tuple[int, ...] = ()
        for raw_number, value in numbers.items():
            number = _key(path, where, raw_number, NUMBER_RE, 'a section number, e.g. "7.3"')
            here = f'{where}."{number}"'
            parts = _parts(number)
            if parts <= previous:
                raise SpecError(
                    path, here, "is out of order", "list the sections in the tutorial's order"
                )
            previous = parts
            parent = ".".join(number.split(".")[:-1])
            if parent and parent not in titles:
                raise SpecError(
                    path, here, f"its chapter '{parent}' is missing", f'add "{parent}" before it'
                )
            titles[number] = _title(path, here, value)
        sections[tutorial] = titles
    for tutorial in tutorials:
        if tutorial not in sections:
            raise SpecError(
                path, f'sections."{tutorial}"', "missing", "list the tutorial's sections"
            )
    return SectionCatalog(tutorials, sections)


def _key(path: Path, where: str, key: Any, pattern: re.Pattern[str], what: str) -> str:
    """A mapping key that must be a string of ``pattern``: YAML reads an unquoted 000 as the
    number 0 and 7.10 as 7.1, so keys must be quoted."""
    if not isinstance(key, str):
        raise SpecError(
            path,
            f"{where}.{key}",
            f"expected {what} as a quoted string, got {type(key).__name__} {key!r}",
            f'quote it: "{key}"',
        )
    if not pattern.match(key):
        raise SpecError(path, f'{where}."{key}"', f"'{key}' is not {what}", f"use {what}")
    return key


def _title(path: Path, where: str, value: Any) -> Text:
    """An ``{en: ..., zh: ...}`` title: both present, one line each, no surrounding spaces."""
    text = text_value(path, where, value)
    for lang in LANGS:
        line = text.get(lang)
        if "\n" in line or line != line.strip():
            raise SpecError(
                path,
                f"{where}.{lang}",
                "a title is one line without surrounding spaces",
                "trim it to the heading's own words",
            )
    return text


def _parts(number: str) -> tuple[int, ...]:
    return tuple(int(part) for part in number.split("."))


# ---------------------------------------------------------------------------------------------
# Parsing teaches strings


def _normal(number: str) -> str:
    return ".".join(str(int(part)) for part in re.sub(r"\s+", "", number).split("."))


def _scan(teaches: str) -> list[tuple[str, list[Ref] | str]]:
    """Each piece of ``teaches`` with its references, or with why it does not parse."""
    pieces: list[tuple[str, list[Ref] | str]] = []
    if not teaches.strip():
        return pieces
    current: str | None = None
    for raw in _SEPARATORS.split(teaches):
        piece = raw.strip()
        if not piece:
            pieces.append((piece, "an empty item (two separators in a row, or one at an end)"))
            continue
        match = _ITEM_RE.match(piece)
        if match is None:
            pieces.append((piece, 'expected "[tutorial] §number[-number]", e.g. "000 §7.3"'))
            continue
        if match["tutorial"]:
            current = match["tutorial"]
        if current is None:
            pieces.append((piece, 'no tutorial named before it: write "000 §..." first'))
            continue
        start = _normal(match["start"])
        end = _normal(match["end"]) if match["end"] else start
        first, last = _parts(start), _parts(end)
        if len(first) != len(last) or first[:-1] != last[:-1] or first[-1] > last[-1]:
            pieces.append(
                (
                    piece,
                    "a range runs within one chapter (or over chapters), forwards: "
                    "§6.1-6.3 or §3-4",
                )
            )
            continue
        prefix = ".".join(start.split(".")[:-1])
        numbers = [f"{prefix}.{n}" if prefix else str(n) for n in range(first[-1], last[-1] + 1)]
        pieces.append((piece, [Ref(current, number) for number in numbers]))
    return pieces


def parse(teaches: str) -> list[Ref]:
    """The references of ``teaches``, in order, ranges expanded (see the module's grammar).

    >>> [str(ref) for ref in parse("000 §2.3, 001 §5.2, §7.2, 003 §3.1-3.2")]
    ['000 §2.3', '001 §5.2', '001 §7.2', '003 §3.1', '003 §3.2']

    Raises :class:`TeachesSyntaxError` for a string that does not follow the grammar.
    """
    refs: list[Ref] = []
    for piece, found in _scan(teaches):
        if isinstance(found, str):
            raise TeachesSyntaxError(f"{teaches!r}: cannot read {piece!r}: {found}")
        refs.extend(found)
    return refs


def describe(teaches: str, lang: str, catalog: SectionCatalog | None = None) -> list[Section]:
    """The sections ``teaches`` cites, once each, in order, with their titles in ``lang``.

    A reference that ``sections.yaml`` does not know, or a piece that does not parse, comes
    back with an empty title (and, for an unknown tutorial or a piece that does not parse, an
    empty tutorial title) instead of raising: a report must print whatever an author wrote.
    """
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}: use one of {', '.join(LANGS)}")
    catalog = catalog or load()
    sections: list[Section] = []
    seen: set[str] = set()
    for piece, found in _scan(teaches):
        if isinstance(found, str):
            if piece and piece not in seen:
                seen.add(piece)
                sections.append(Section(ref=piece, title="", tutorial=""))
            continue
        for ref in found:
            if str(ref) in seen:
                continue
            seen.add(str(ref))
            title = catalog.title(ref)
            tutorial = catalog.tutorial(ref.tutorial)
            sections.append(
                Section(
                    ref=str(ref),
                    title=title.get(lang) if title else "",
                    tutorial=tutorial.get(lang) if tutorial else "",
                )
            )
    return sections


def unknown(teaches: str, catalog: SectionCatalog | None = None) -> list[str]:
    """The references of ``teaches`` that name no section of ``sections.yaml``, and the pieces
    that do not parse, as written ("003 §2.4"); empty when every reference resolves."""
    return [s.ref for s in describe(teaches, "en", catalog) if not s.known]
