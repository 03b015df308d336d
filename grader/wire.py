"""One strict reader for every piece of data from outside the grader, and every stored one.

A learner child's message, a trusted worker's record, a socket message, a cluster line, a
grading request, a notebook, a stored result, platform metadata, an instructor's YAML: all of
it is read here, so that all of it is bounded the same way. A reader says what it expects;
anything else is a :class:`WireError` naming the source (a file, a stream) and the dotted path
of the field (``test.frames[3].line``), never a ``KeyError`` or a ``TypeError`` far away.

- :class:`Fields` reads one mapping: exactly its required keys and none beyond the optional
  ones, each read with a typed method (a bool is not an int, an int is not a float unless
  allowed), strings bounded in length, lists in count, numbers in range and finite.
- The value readers (:func:`string`, :func:`integer`, :func:`number`, :func:`boolean`,
  :func:`sequence`, :func:`strings`, :func:`counts`, :func:`plain`) check one value, for list
  items and for callers that hold a bare value.
- :func:`loads` parses JSON with a byte cap and a depth cap, refusing duplicate keys, NaN and
  Infinity; every string in it (keys too) is made encodable (lone surrogates replaced).
- :func:`load_yaml` parses YAML safely with a size cap and a depth cap, and refuses aliases,
  anchors and explicit tags unless the caller allows them (for a file an instructor wrote).

Who reads what decides how an error surfaces: a submission's data is a learner fault for that
submission, an instructor's file is a usage error (exit 2, one ``Error:`` line). Each reader
raises its own subclass of :class:`WireError`, through :func:`reading`.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

from grader.text import shown

MAX_DEPTH = 32  # of JSON or YAML nesting, unless a reader asks for less or more
MAX_JSON_BYTES = 64 << 20
MAX_YAML_BYTES = 1 << 20
MAX_YAML_VALUES = 1_000_000  # of a YAML file with aliases, each alias counted where it is used
MAX_YAML_MERGED = 100_000  # keys copied by merges (<<) in one YAML file, each merge counted
MAX_TEXT = 64_000
# Digits of a whole number read from outside: Python's own default limit on turning one into
# text or back (whose error tells the reader to raise it). Shorter ones reach the field readers,
# which name the field (integer(), number()); longer ones are refused where they are parsed.
MAX_INT_DIGITS = 4300


def int_digits() -> int:
    """The most digits a whole number read from outside may have: MAX_INT_DIGITS, or less where
    this Python converts fewer (PYTHONINTMAXSTRDIGITS)."""
    limit = sys.get_int_max_str_digits()
    return min(MAX_INT_DIGITS, limit) if limit else MAX_INT_DIGITS


MAX_ITEMS = 10_000
_MISSING: Any = object()


class WireError(ValueError):
    """Data from outside does not have the form its reader requires.

    ``source``: the file or stream it came from ("" when the reader does not know);
    ``field``: the dotted path of the field ("" for the whole); ``problem``: what is wrong;
    ``fix``: what to do about it, where the reader knows."""

    def __init__(self, problem: str, *, field: str = "", source: str = "", fix: str = ""):
        self.problem = shown(problem)
        self.field = shown(field)
        self.source = shown(source)
        self.fix = shown(fix)
        super().__init__(str(self))

    def __str__(self) -> str:
        parts = [self.source] if self.source else []
        if self.field:
            parts.append(f"field '{self.field}'")
        return ": ".join([*parts, self.problem])

    def again(self, cls: type[WireError], source: str = "") -> WireError:
        """The same error as a ``cls``, with ``source`` if it had none."""
        error = cls.__new__(cls)
        error.__dict__.update(self.__dict__)  # what a subclass adds (a job's key)
        WireError.__init__(
            error, self.problem, field=self.field, source=self.source or source, fix=self.fix
        )
        return error


@contextlib.contextmanager
def reading(cls: type[WireError] = WireError, source: str = "") -> Iterator[None]:
    """Within: every WireError leaves as a ``cls`` naming ``source`` (a reader's own error
    type, so its callers catch exactly what they expect)."""
    try:
        yield
    except WireError as exc:
        if type(exc) is cls and (exc.source or not source):
            raise
        raise exc.again(cls, source) from None


def fail(where: str, problem: str, fix: str = "") -> NoReturn:
    raise WireError(problem, field=where, fix=fix)


def kind(value: Any) -> str:
    """How a value is named in an error: its JSON or YAML kind, never its (hostile) repr."""
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a whole number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a mapping",
    }.get(type(value), f"a {type(value).__name__}")


# -- values ---------------------------------------------------------------------------------


def string(
    value: Any,
    where: str,
    *,
    max_len: int = MAX_TEXT,
    min_len: int = 0,
    choices: tuple[str, ...] | None = None,
    pattern: re.Pattern[str] | None = None,
    cut: bool = False,
) -> str:
    """A string of ``min_len`` to ``max_len`` characters, made encodable (lone surrogates
    replaced); with ``cut``, a longer one is cut and marked rather than refused."""
    if type(value) is not str:
        fail(where, f"expected a string, got {kind(value)}")
    if len(value) > max_len:
        if not cut:
            fail(where, f"longer than {max_len} characters")
        value = value[:max_len] + " ... [cut]"
    if len(value) < min_len:
        fail(where, "is empty" if min_len == 1 else f"shorter than {min_len} characters")
    value = shown(value)
    if choices is not None and value not in choices:
        fail(where, f"{value[:40]!r} is not one of {', '.join(choices)}")
    if pattern is not None and not pattern.fullmatch(value):
        fail(where, f"{value[:40]!r} is not of the form {pattern.pattern}")
    return value


def number_text(value: int | float) -> str:
    """A number as an error shows it: whole where it is short, else how long it is (a
    whole number of thousands of digits cannot even be turned into text)."""
    if type(value) is int and not -(10**40) < value < 10**40:
        digits = math.floor((abs(value).bit_length() - 1) * math.log10(2)) + 1
        return f"{'minus ' if value < 0 else ''}a number of about {digits} digits"
    return str(value)


def integer(value: Any, where: str, *, low: int | None = None, high: int | None = None) -> int:
    """A whole number (not a boolean, not a float) in ``[low, high]``."""
    if type(value) is not int:
        fail(where, f"expected a whole number, got {kind(value)}")
    if (low is not None and value < low) or (high is not None and value > high):
        fail(where, f"{number_text(value)} is out of range [{low}, {high}]")
    return value


def number(
    value: Any,
    where: str,
    *,
    low: float | None = None,
    high: float | None = None,
    ints: bool = True,
) -> float:
    """A finite number in ``[low, high]``, as a float; a whole number counts when ``ints``."""
    if type(value) is not float and not (ints and type(value) is int):
        fail(where, f"expected a number, got {kind(value)}")
    try:
        as_float = float(value)
    except OverflowError:  # a whole number beyond every float
        fail(where, f"{number_text(value)} is out of range [{low}, {high}]")
    if not math.isfinite(as_float):
        fail(where, "not a finite number")
    if (low is not None and value < low) or (high is not None and value > high):
        fail(where, f"{number_text(value)} is out of range [{low}, {high}]")
    return as_float


def boolean(value: Any, where: str) -> bool:
    if type(value) is not bool:
        fail(where, f"expected true or false, got {kind(value)}")
    return value


def sequence(
    value: Any, where: str, *, max_items: int = MAX_ITEMS, min_items: int = 0
) -> list[tuple[str, Any]]:
    """A list of at most ``max_items``, as (``where[i]``, item) pairs for reading each item."""
    if type(value) is not list:
        fail(where, f"expected a list, got {kind(value)}")
    if len(value) > max_items:
        fail(where, f"more than {max_items} items")
    if len(value) < min_items:
        fail(where, "is empty" if min_items == 1 else f"fewer than {min_items} items")
    return [(f"{where}[{i}]", item) for i, item in enumerate(value)]


def strings(
    value: Any, where: str, *, max_items: int = MAX_ITEMS, max_len: int = 1000
) -> tuple[str, ...]:
    return tuple(
        string(v, w, max_len=max_len) for w, v in sequence(value, where, max_items=max_items)
    )


def ints(value: Any, where: str, n: int, *, low: int | None = None) -> tuple[int, ...]:
    """A list of exactly ``n`` whole numbers (a tuple on the wire)."""
    items = sequence(value, where, max_items=n, min_items=n)
    return tuple(integer(v, w, low=low) for w, v in items)


def counts(
    value: Any, where: str, *, max_items: int = MAX_ITEMS, max_len: int = 500
) -> dict[str, int]:
    """A mapping of names to non-negative whole numbers."""
    if type(value) is not dict:
        fail(where, f"expected a mapping, got {kind(value)}")
    if len(value) > max_items:
        fail(where, f"more than {max_items} entries")
    return {
        string(k, f"{where}.<key>", max_len=max_len): integer(v, f"{where}.{k}", low=0)
        for k, v in value.items()
    }


def plain(
    value: Any,
    where: str,
    *,
    max_depth: int = 12,
    max_items: int = 100_000,
    max_len: int = MAX_TEXT,
) -> Any:
    """Plain JSON data: null, booleans, finite numbers, strings, lists and string-keyed
    mappings, nested at most ``max_depth`` deep with at most ``max_items`` values in all.
    Returns a fresh copy (strings made encodable)."""
    budget = [max_items]

    def walk(item: Any, at: str, depth: int) -> Any:
        budget[0] -= 1
        if budget[0] < 0:
            fail(where, f"more than {max_items} values")
        if depth > max_depth:
            fail(at, f"nested more than {max_depth} deep")
        if item is None or type(item) in (bool, int):
            return item
        if type(item) is float:
            return number(item, at)
        if type(item) is str:
            return string(item, at, max_len=max_len)
        if type(item) is list:
            return [walk(v, f"{at}[{i}]", depth + 1) for i, v in enumerate(item)]
        if type(item) is dict:
            out = {}
            for k, v in item.items():
                if type(k) is not str:
                    fail(at, f"a key that is {kind(k)}, not a string")
                out[string(k, at, max_len=max_len)] = walk(v, f"{at}.{k}", depth + 1)
            return out
        fail(at, f"{kind(item)} is not plain data")

    return walk(value, where, 0)


# -- mappings -------------------------------------------------------------------------------


class Fields:
    """One mapping from outside, read field by field.

    It must be a mapping with string keys, hold every ``required`` key and nothing beyond the
    ``optional`` ones. ``where`` is its dotted path (fields are named ``where.key``). Each
    typed reader takes ``default``: returned when an optional key is absent; ``null=True``
    lets the value be null (None)."""

    def __init__(
        self,
        data: Any,
        where: str = "",
        *,
        required: tuple[str, ...] = (),
        optional: tuple[str, ...] = (),
    ) -> None:
        self.where = where
        if type(data) is not dict:
            fail(where, f"expected a mapping, got {kind(data)}")
        for key in data:
            if type(key) is not str:
                fail(where, f"a key that is {kind(key)}, not a name")
        missing = [k for k in required if k not in data]
        if missing:
            fail(self.name(missing[0]), "missing", f"add `{missing[0]}`")
        allowed = (*required, *optional)
        for key in data:
            if key not in allowed:
                fail(self.name(shown(key)[:60]), "unknown field", f"allowed: {', '.join(allowed)}")
        self.data: dict[str, Any] = data

    def name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return key in self.data

    def _get(self, key: str, default: Any, null: bool, read: Callable[[Any, str], Any]) -> Any:
        if key not in self.data:
            if default is _MISSING:
                fail(self.name(key), "missing", f"add `{key}`")
            return default
        value = self.data[key]
        if value is None and null:
            return None
        return read(value, self.name(key))

    def raw(self, key: str, default: Any = _MISSING) -> Any:
        """The value as it is (for a reader of its own, such as a codec tree)."""
        return self._get(key, default, True, lambda v, w: v)

    def string(
        self, key: str, default: Any = _MISSING, *, null: bool = False, **limits: Any
    ) -> Any:
        return self._get(key, default, null, lambda v, w: string(v, w, **limits))

    def integer(
        self, key: str, default: Any = _MISSING, *, null: bool = False, **limits: Any
    ) -> Any:
        return self._get(key, default, null, lambda v, w: integer(v, w, **limits))

    def number(
        self, key: str, default: Any = _MISSING, *, null: bool = False, **limits: Any
    ) -> Any:
        return self._get(key, default, null, lambda v, w: number(v, w, **limits))

    def boolean(self, key: str, default: Any = _MISSING, *, null: bool = False) -> Any:
        return self._get(key, default, null, boolean)

    def sequence(self, key: str, default: Any = _MISSING, **limits: Any) -> Any:
        """(path, item) pairs; an absent optional list is ``default`` (give ``[]``)."""
        return self._get(key, default, False, lambda v, w: sequence(v, w, **limits))

    def strings(self, key: str, default: Any = _MISSING, **limits: Any) -> Any:
        return self._get(key, default, False, lambda v, w: strings(v, w, **limits))

    def plain(self, key: str, default: Any = _MISSING, **limits: Any) -> Any:
        return self._get(key, default, True, lambda v, w: plain(v, w, **limits))

    def fields(
        self,
        key: str,
        *,
        required: tuple[str, ...] = (),
        optional: tuple[str, ...] = (),
        default: Any = _MISSING,
        null: bool = False,
    ) -> Any:
        """A nested mapping, as its own Fields (or ``default``, or None when ``null``)."""
        return self._get(
            key, default, null, lambda v, w: Fields(v, w, required=required, optional=optional)
        )


# -- JSON -----------------------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            fail("", f"the key {shown(key)[:40]!r} appears twice")
        data[key] = value
    return data


def _no_constant(name: str) -> NoReturn:
    fail("", f"{name} is not a JSON number")


def _whole(text: str) -> int:
    digits = len(text) - text.startswith("-")
    if digits > int_digits():
        fail("", f"a {digits}-digit number (at most {int_digits()} digits)")
    try:
        return int(text)
    except ValueError:  # Python's own limit, where PYTHONINTMAXSTRDIGITS set it lower
        fail("", f"a {digits}-digit number (more than this Python reads)")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999
        fail("", f"the number {text[:40]} is out of range")
    return value


BOM = b"\xef\xbb\xbf"


def utf8(data: bytes) -> str:
    """UTF-8 bytes as text, a leading BOM dropped. Not the ``utf-8-sig`` codec: that one is
    imported on first use, and a process whose imports are closed (a learner child, a server
    that dropped its view of the runtime) cannot load it. ``UnicodeDecodeError`` offsets count
    from the start of ``data``."""
    if data.startswith(BOM):
        try:
            return data[len(BOM) :].decode("utf-8")
        except UnicodeDecodeError as exc:
            raise UnicodeDecodeError(
                exc.encoding, data, exc.start + len(BOM), exc.end + len(BOM), exc.reason
            ) from None
    return data.decode("utf-8")


def loads(
    data: bytes | str,
    *,
    source: str = "",
    max_bytes: int = MAX_JSON_BYTES,
    max_depth: int = MAX_DEPTH,
    cls: type[WireError] = WireError,
    constants: bool = False,
) -> Any:
    """Parse JSON strictly: at most ``max_bytes``, nested at most ``max_depth`` deep, no
    duplicate keys, no NaN or Infinity (unless ``constants``: Python's own JSON writer emits
    them, and a notebook's outputs may hold them), UTF-8 only (a BOM is allowed). Strings that
    hold lone surrogates (``"\\ud800"``) have them replaced, so the data re-encodes. Errors
    are ``cls``, naming ``source``."""
    with reading(cls, source):
        size = len(data)
        if size > max_bytes:
            fail("", f"larger than {max_bytes} bytes", "")
        if isinstance(data, bytes):
            try:
                text = utf8(data)
            except UnicodeDecodeError as exc:
                fail("", f"not UTF-8 text (a bad byte at offset {exc.start})")
        else:
            text = data
        try:
            value = json.loads(
                text,
                object_pairs_hook=_no_duplicates,
                parse_constant=float if constants else _no_constant,
                parse_float=float if constants else _finite,
                parse_int=_whole,
            )
        except RecursionError:
            fail("", f"nested more than {max_depth} deep")
        except ValueError as exc:
            if isinstance(exc, WireError):
                raise
            fail("", f"not valid JSON ({shown(str(exc))[:200]})")
        if _plain(data, text, max_depth):
            return value
        return _encodable(value, max_depth)


# A JSON escape of a UTF-16 surrogate (\ud800-\udfff): the only way a lone surrogate gets
# into what strict UTF-8 (or ASCII) text parses to. Matching more (an escaped backslash before
# "ud8") only takes the slower, complete path.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _plain(data: bytes | str, text: str, max_depth: int) -> bool:
    """Whether the parsed ``text`` is known, from the text alone, to need nothing of
    :func:`_encodable`: no string can hold a lone surrogate (UTF-8 bytes, strictly decoded, or
    ASCII text, with no surrogate escape) and it cannot nest ``max_depth`` deep (it has no more
    brackets than that). Most messages between the grader's processes are such; walking them
    cost a tenth of the trusted side's time."""
    return (
        max_depth > 0
        and (isinstance(data, bytes) or text.isascii())
        and text.count("[") + text.count("{") <= max_depth
        and _SURROGATE_ESCAPE.search(text) is None
    )


def _encodable(value: Any, max_depth: int = 10**6, max_values: int | None = None) -> Any:
    """``value`` with every string (and key) encodable as UTF-8 (the JSON escape ``\\ud800``
    is a lone surrogate in Python, which no later writer could encode), checked to nest at
    most ``max_depth`` deep (the parser recurses: it is refused past about a thousand) and,
    with ``max_values``, to hold at most that many values once every alias is counted where
    it is used (a few hundred bytes of YAML aliases expand to billions: every reader of the
    value walks them all)."""
    stack = [(value, 0)]
    seen = 0
    while stack:
        item, depth = stack.pop()
        if depth >= max_depth:
            fail("", f"nested more than {max_depth} deep")
        if max_values is not None and type(item) in (list, dict):
            seen += len(item)
            if seen > max_values:
                fail(
                    "",
                    f"more than {max_values} values once its aliases (*) are expanded",
                    "write the values out, or use fewer aliases",
                )
        if type(item) is list:
            for i, v in enumerate(item):
                if type(v) is str:
                    item[i] = shown(v)
                elif type(v) in (list, dict):
                    stack.append((v, depth + 1))
                elif type(v) is int:
                    _bounded(v)
        elif type(item) is dict:
            for k in list(item):
                v = item[k]
                if type(v) is str:
                    v = item[k] = shown(v)
                elif type(v) in (list, dict):
                    stack.append((v, depth + 1))
                elif type(v) is int:
                    _bounded(v)
                if type(k) is int:
                    _bounded(k)
                fixed = shown(k) if type(k) is str else k
                if fixed != k:
                    del item[k]
                    if fixed in item:
                        fail("", f"the key {fixed[:40]!r} appears twice")
                    item[fixed] = v
    if type(value) is int:
        _bounded(value)
    return shown(value) if type(value) is str else value


def _bounded(value: int) -> None:
    """A whole number of YAML's other notations (0x..., 0o..., 1:30:00) has no bound on its
    digits but the text's length."""
    if value.bit_length() > _int_bits():
        fail("", f"a whole number of more than {int_digits()} digits")


def _int_bits() -> int:
    return math.floor((int_digits() - 1) * math.log2(10))  # a bound at or below its digits


def dumps(value: Any, *, indent: int | None = None, compact: bool = False) -> str:
    """JSON text of plain data that always encodes as UTF-8: lone surrogates replaced, NaN
    refused (ValueError)."""
    separators = (",", ":") if compact else None
    text = json.dumps(
        value, ensure_ascii=False, allow_nan=False, indent=indent, separators=separators
    )
    # a lone surrogate can only stand inside a JSON string: replacing it keeps the JSON valid
    return shown(text)


# -- YAML -----------------------------------------------------------------------------------


def load_yaml(
    data: bytes | str,
    *,
    source: str = "",
    max_bytes: int = MAX_YAML_BYTES,
    max_depth: int = MAX_DEPTH,
    aliases: bool = False,
    tags: bool = False,
    cls: type[WireError] = WireError,
) -> Any:
    """Parse YAML with the safe loader, strictly: at most ``max_bytes``, nested at most
    ``max_depth`` deep, no duplicate keys. Aliases and anchors (which let a few hundred bytes
    expand to gigabytes) are refused unless ``aliases``, explicit tags (``!!python/...``,
    ``!!binary``, any ``!custom``) unless ``tags``: allow them only for a file an instructor
    wrote. Errors are ``cls``, naming ``source``."""
    import yaml

    with reading(cls, source):
        if len(data) > max_bytes:
            fail("", f"larger than {max_bytes} bytes")
        if isinstance(data, bytes):
            try:
                data = utf8(data)
            except UnicodeDecodeError as exc:
                fail("", f"not UTF-8 text (a bad byte at offset {exc.start})", "save it as UTF-8")
        data = shown(data)  # the parser encodes its text: no lone surrogate may reach it
        loader = _strict_loader()
        try:
            depth = 0
            for event in yaml.parse(data, Loader=loader):
                if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                    depth += 1
                    if depth > max_depth:
                        fail("", f"{_at(event)}nested more than {max_depth} deep")
                elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                    depth -= 1
                if not aliases and (
                    isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None)
                ):
                    fail("", f"{_at(event)}an alias or anchor (& or *)", "write the value out")
                if not tags and _explicit_tag(event):
                    fail(
                        "", f"{_at(event)}an explicit tag {shown(getattr(event, 'tag', ''))[:60]!r}"
                    )
            loaded = yaml.load(data, Loader=loader)  # a SafeLoader subclass
            # the events' depth is the text's: each alias of an alias nests a level more
            return _encodable(loaded, max_depth, max_values=MAX_YAML_VALUES if aliases else None)
        except yaml.reader.ReaderError as exc:
            # a character YAML refuses (a NUL, a control code, U+FFFE): its error names the
            # parser's "<unicode string>" and an offset, on two lines
            line, column = _line_column(data, exc.position, _counts_bytes(loader))
            fail(
                "",
                f"invalid YAML at line {line}, column {column}: the character "
                f"U+{exc.character if type(exc.character) is int else 0:04X}, which YAML "
                "does not allow",
                "remove it, or write it as an escape in a double-quoted string (\\x07)",
            )
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
            problem = " ".join(str(getattr(exc, "problem", None) or exc).split())
            if "single document" in str(getattr(exc, "context", None) or ""):
                # the parser's "but found another document" alone says little
                fail(
                    "",
                    f"invalid YAML{where}: a second document (after a --- line), where the "
                    "file holds one",
                    "remove the --- line, or the document after it",
                )
            if mark and "tab" not in problem and _char_at(data, mark.line, mark.column) == "\t":
                # "found character that cannot start any token": the character is a tab
                problem = "a tab, where YAML takes only spaces to indent or to start a value"
                fail("", f"invalid YAML{where}: {problem}", "write spaces instead of the tab")
            fail("", f"invalid YAML{where}: {problem}", "correct the YAML syntax there")
        except RecursionError:
            fail("", f"nested more than {max_depth} deep")
        except WireError:
            raise
        except Exception as exc:  # noqa: BLE001 - a constructor's own error on a value
            # The safe loader's constructors raise plain errors on values their patterns let
            # through: a timestamp of February 30th (ValueError), an explicit !!timestamp that
            # is no date (AttributeError). Each is the file's fault, said with its line.
            fail("", _bad_value(data, loader, exc), "correct the value there")


def _line_column(text: str, offset: int, in_bytes: bool) -> tuple[int, int]:
    """The line and column (both from 1) of ``offset`` in ``text`` (counted in its UTF-8
    bytes where ``in_bytes``), as YAML 1.1 counts lines (a CRLF, a CR, an LF, U+0085, U+2028
    or U+2029 ends one)."""
    offset = max(0, offset)
    before = text.encode("utf-8")[:offset].decode("utf-8", "ignore") if in_bytes else text[:offset]
    lines = _YAML_BREAK.split(before)
    return len(lines), len(lines[-1]) + 1


def _char_at(text: str, line: int, column: int) -> str:
    """The character at ``line`` and ``column`` (both from 0, as YAML's marks count them) of
    ``text``; "" where there is none."""
    lines = _YAML_BREAK.split(text)
    if not 0 <= line < len(lines) or not 0 <= column < len(lines[line]):
        return ""
    return lines[line][column]


def _counts_bytes(loader: Any) -> bool:
    """Whether ``loader`` is libyaml's (its errors count offsets in UTF-8 bytes, the pure
    Python reader's in characters)."""
    import yaml

    c_loader = getattr(yaml, "CSafeLoader", None)
    return c_loader is not None and issubclass(loader, c_loader)


_YAML_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _bad_value(data: str, loader: Any, exc: Exception) -> str:
    """What a constructor refused: the first scalar that does not construct on its own, with
    its line (the error itself says too little)."""
    import yaml

    reason = shown(str(exc))[:200] or type(exc).__name__
    try:
        root = yaml.compose(data, Loader=loader)
    except Exception:  # noqa: BLE001 - it composed once already; say what is known
        root = None
    stack = [root] if root is not None else []
    while stack:
        node = stack.pop(0)
        if isinstance(node, yaml.ScalarNode):
            try:
                loader("").construct_object(node, deep=True)
            except Exception:  # noqa: BLE001 - this is the one
                value = shown(str(node.value))[:60]
                return f"{_at(node)}{value!r} is not a valid value ({reason})"
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            stack.extend(item for pair in node.value for item in pair)
    return f"a value that is not valid ({reason})"


def _at(event: Any) -> str:
    mark = getattr(event, "start_mark", None)
    return f"at line {mark.line + 1}: " if mark is not None else ""


def _explicit_tag(event: Any) -> bool:
    import yaml

    tag = getattr(event, "tag", None)
    if tag is None or tag == "!":
        return False
    if isinstance(event, yaml.ScalarEvent):
        return not any(event.implicit)
    return not getattr(event, "implicit", True)


_LOADER: Any = None
_MERGE_TAG = "tag:yaml.org,2002:merge"


def refuse_duplicate_keys(loader: Any, node: Any, deep: bool = False) -> None:
    """Raise a YAML ``ConstructorError`` where a mapping ``node`` names a key twice. YAML's
    own loaders keep the last value without a word, so a record written twice (a doubled
    ``submission_3:``, a doubled ``:sid:``) replaced the first: every strict YAML reader calls
    this before it builds a mapping."""
    import yaml

    seen: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        if key_node.tag == _MERGE_TAG:
            # `<<: *defaults` (YAML's merge key) has no constructor of its own: the loader
            # merges it, and the keys written beside it win. Building it as a key said "could
            # not determine a constructor for the tag 'tag:yaml.org,2002:merge'" to an author
            # who had used anchors as documented. The mappings merged are checked themselves.
            merged = value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
            for mapping in merged:
                if isinstance(mapping, yaml.MappingNode) and _count_merged(
                    loader, mapping, key_node
                ):
                    refuse_duplicate_keys(loader, mapping, deep)
            continue
        key = loader.construct_object(key_node, deep=deep)
        try:
            first = seen.get(key)
        except TypeError:  # an unhashable key: the constructor says so
            return
        if first is not None:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first at line {first.start_mark.line + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node


def _count_merged(loader: Any, mapping: Any, at: Any) -> bool:
    """Count the keys a merge copies, against ``MAX_YAML_MERGED`` for the whole document: each
    ``{<<: *big}`` copies all of ``big``'s keys before any value is counted, so 40 KiB of them
    took 18 s to load and 4 MiB hours. True the first time ``mapping`` is merged (its keys
    are checked then, once)."""
    import yaml

    count = getattr(loader, "_merged_keys", 0) + len(mapping.value)
    loader._merged_keys = count
    checked = loader.__dict__.setdefault("_merged_nodes", set())
    first = id(mapping) not in checked
    checked.add(id(mapping))
    if count > MAX_YAML_MERGED:
        raise yaml.constructor.ConstructorError(
            None,
            None,
            f"more than {MAX_YAML_MERGED} keys merged (<<); write the values out, or merge less",
            at.start_mark,
        )
    return first


def _strict_loader() -> Any:
    """A safe loader (the C one where built) that refuses duplicate keys rather than keeping
    the last one silently."""
    global _LOADER
    if _LOADER is not None:
        return _LOADER
    import yaml

    base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

    class StrictLoader(base):  # type: ignore[misc,valid-type]
        pass

    def construct_mapping(loader: Any, node: Any, deep: bool = False) -> Any:
        refuse_duplicate_keys(loader, node, deep)
        return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)

    def construct_int(loader: Any, node: Any) -> Any:
        text = loader.construct_scalar(node)
        if len(text) > int_digits():  # Python's int() refuses past its limit, in its words
            fail("", f"{_at(node)}a whole number of more than {int_digits()} digits")
        return yaml.SafeLoader.construct_yaml_int(loader, node)

    StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    StrictLoader.add_constructor("tag:yaml.org,2002:int", construct_int)
    _LOADER = StrictLoader
    return StrictLoader
