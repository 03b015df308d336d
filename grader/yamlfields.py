"""The strict reader of the YAML files an instructor or an author writes.

Exercise specs (``exercise.yaml``), the diagnoses (``diagnoses.yaml``), the sections map and an
assignment file are all read the same way: :func:`read_yaml` parses the file through
:func:`grader.wire.load_yaml` (safe, size and depth capped, duplicate keys refused; anchors and
aliases allowed, since the instructor wrote the file, explicit tags never), and :class:`YamlFields`
reads each mapping field by field, rejecting unknown keys with a "did you mean" and wrong types
with the file, the field and the fix. Every problem is a :class:`~grader.errors.SpecError`: a
usage error (exit 2, one ``Error:`` line).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader import wire
from grader.errors import SpecError
from grader.fileio import read_regular
from grader.i18n import LANGS, Text

MAX_YAML_BYTES = 4 << 20  # an instructor's file: far beyond any real one, still bounded


def read_yaml(path: Path, *, aliases: bool = True, data: bytes | None = None) -> Any:
    """Parse a YAML file strictly, turning every problem into a SpecError naming the file.
    ``aliases=False`` for a file the instructor did not write; ``data``: its bytes, where the
    caller has read them already."""
    try:
        data = read_regular(path, MAX_YAML_BYTES) if data is None else data
    except FileNotFoundError:
        raise SpecError(path, None, "file not found", "create it, or remove the folder") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise SpecError(
            path,
            None,
            f"cannot read the file ({getattr(exc, 'strerror', None) or exc})",
            "give the path of a YAML file you can read",
        ) from None
    try:
        return wire.load_yaml(data, max_bytes=MAX_YAML_BYTES, aliases=aliases)
    except wire.WireError as exc:
        raise SpecError(path, exc.field or None, exc.problem, exc.fix or None) from None


def closest_key(key: object, allowed: Sequence[str]) -> str | None:
    """The allowed key an unknown ``key`` is most likely a misspelling of, or None."""
    close = difflib.get_close_matches(str(key), list(allowed), n=1)
    return close[0] if close else None


class YamlFields:
    """Reads one mapping of a spec, field by field, and rejects what is left over."""

    def __init__(self, path: Path, data: Any, where: str, allowed: tuple[str, ...]):
        self.path = path
        self.where = where
        if not isinstance(data, dict):
            raise SpecError(
                path,
                where or None,
                f"expected a mapping, got {_kind(data)}",
                "write it as `key: value` lines",
            )
        self.data = data
        unknown = [key for key in data if key not in allowed]
        for key in unknown:
            close = closest_key(key, allowed)
            fix = f"did you mean '{close}'?" if close else f"allowed keys: {', '.join(allowed)}"
            raise SpecError(path, self._name(str(key)), "unknown key", fix)

    def _name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return key in self.data

    def get(
        self, key: str, kind: type | tuple[type, ...], default: Any = ..., fix: str = ""
    ) -> Any:
        if key not in self.data:
            if default is ...:
                raise SpecError(self.path, self._name(key), "missing", fix or f"add `{key}:`")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            names = " or ".join(_type_name(k) for k in kinds)
            raise SpecError(
                self.path,
                self._name(key),
                f"expected {names}, got {_kind(value)}",
                (_unquoted(value) if str in kinds else "") or fix or f"give `{key}` as {names}",
            )
        return value

    def check_version(self, expected: int) -> None:
        """Every YAML file the grader reads starts with ``format_version``: refuse any other."""
        version = self.get("format_version", int, fix=f"add `format_version: {expected}`")
        if version != expected:
            raise SpecError(
                self.path,
                "format_version",
                f"unsupported version {version}",
                f"this grader reads format_version {expected}",
            )

    def text(self, key: str, default: Any = ...) -> Any:  # a Text, or the default
        value = self.get(key, dict, default, fix=f"give `{key}` as `en:` and `zh:` texts")
        if value is None or isinstance(value, Text):
            return value
        return text_value(self.path, self._name(key), value)

    def names(
        self, key: str, pattern: re.Pattern[str] | None = None, default: Any = ...
    ) -> Any:  # a tuple of names, or the default
        values = self.get(key, list, default, fix=f"give `{key}` as a list, e.g. [a, b]")
        if values is None or isinstance(values, tuple):
            return values
        for i, item in enumerate(values):
            if not isinstance(item, str) or not item.strip():
                raise SpecError(
                    self.path,
                    f"{self._name(key)}[{i}]",
                    f"expected a non-empty string, got {_kind(item)}",
                    _unquoted(item) or "write a plain name",
                )
            if pattern and not pattern.match(item):
                raise SpecError(
                    self.path,
                    f"{self._name(key)}[{i}]",
                    f"'{item}' is not a valid name",
                    f"it must match {pattern.pattern}",
                )
        return tuple(values)


def text_value(path: Path, where: str, value: Any) -> Text:
    """Read an `{en: ..., zh: ...}` mapping into a Text; both languages are required."""
    sub = YamlFields(path, value, where, LANGS)
    return Text(**{lang: nonempty(sub, lang) for lang in LANGS})


def nonempty(fields: YamlFields, key: str) -> str:
    value = fields.get(key, str)
    if not value.strip():
        raise SpecError(fields.path, fields._name(key), "is empty", "write the text")
    return value.strip("\n")


def _unquoted(value: Any) -> str:
    """Why a value written as text read as another kind (YAML 1.1 reads ``no`` as false,
    ``0123`` as the octal 83, ``1.10`` as 1.1), as the fix of an error that expected text:
    "got a number (83)" named a value the author never wrote. "" for other kinds."""
    if isinstance(value, bool):
        return (
            "write the text in quotes ('no'): YAML reads unquoted yes, no, on, off, true "
            "and false as booleans"
        )
    if isinstance(value, (int, float)):
        return (
            "write the text in quotes ('0123'): YAML reads unquoted digits as a number (0123 "
            "as the octal 83, 1_000 as 1000, 1:30 as 90, 1.10 as 1.1)"
        )
    if value is None:
        return "write the text in quotes: YAML reads an unquoted ~, null or nothing as null"
    return ""


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) < 40 else value[:37] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _type_name(kind: type) -> str:
    return {
        str: "a string",
        int: "a whole number",
        float: "a number",
        bool: "true or false",
        list: "a list",
        dict: "a mapping",
        type(None): "nothing",
    }.get(kind, kind.__name__)
