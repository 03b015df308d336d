"""How text from outside the grader is decoded, once, at the boundary.

Names and texts reach the grader from places it does not control: a student's folder name in an
LMS download (any bytes the student's OS allowed), a learner child's message (any string its
code built, lone surrogates included), a notebook, a stored file. Each is decoded once, where
it enters, under one policy, so that no later step (JSON, HTML, CSV, the terminal, the wire)
can fail to encode it or be steered by it:

- **Paths keep their bytes.** A file name is decoded with :func:`os.fsdecode`
  (``surrogateescape``): an undecodable byte becomes a lone surrogate ``U+DC80..U+DCFF``, and
  the name still opens the file. Such a name is for the file system only (:func:`path_text`).
- **Text shown to anyone gets replacement characters.** :func:`shown` turns undecodable bytes
  and every lone surrogate into U+FFFD, so its result always encodes as strict UTF-8.
- **Text shown in a terminal is inert.** :func:`inert` also escapes, visibly, the C0 and C1
  control codes (other than newline and tab), DEL, the bidirectional overrides, and writes a
  path's undecodable byte as ``\\xNN``: an escape sequence in a file name cannot clear the
  screen, move the cursor or forge a line, in either language. :func:`inert_line` escapes
  newline and tab too, for one-line fields such as a name.

After :func:`shown`, ``s.encode("utf-8")`` cannot raise; after :func:`inert`, no character
of the text is a terminal control. Every file written for people (the gradebook, the upload
files, the reports) holds its outside text inert too: :func:`inert_line` per CSV cell
(:mod:`grader.lms.spreadsheet`), :func:`inert_data` over a report's view and an upload file's
JSON.
"""

from __future__ import annotations

import codecs
import io
import os
import re
import tokenize

REPLACEMENT = "\ufffd"
_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 controls but tab and newline, DEL, C1 controls, lone surrogates, the bidirectional
# embeddings, overrides and isolates (which reorder what a terminal shows: "Trojan source")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_CONTROL_LINE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def path_text(raw: str | bytes) -> str:
    """A file name as the file system gave it: bytes decoded with ``surrogateescape``, so that
    the text still names the same file. Never show it as is: use :func:`shown` or
    :func:`inert`."""
    return os.fsdecode(raw)


def another_encoding(data: bytes) -> bool:
    """Whether a source file's bytes are text saved in another encoding than UTF-8: a UTF-16
    or UTF-32 byte order mark, a byte sequence no UTF-8 text holds (GBK, Windows-1252), or
    UTF-16 or UTF-32 text without a mark (:func:`wide_text`). ``data`` may be the start of a
    file: a sequence cut at its end is not counted against it."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff", b"\x00\x00\xfe\xff")):
        return True
    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return True
    return wide_text(data)


def wide_text(text: str | bytes) -> bool:
    """Whether text (or its bytes) is UTF-16 or UTF-32 read byte by byte: a zero beside
    every ASCII character, so at least a third of its first 4 KiB are zeros. A stray zero
    byte in UTF-8 text is not."""
    sample = text[:4096]
    zeros = sample.count("\x00") if isinstance(sample, str) else sample.count(0)
    return len(sample) >= 4 and 3 * zeros >= len(sample)


def shown(value: str | bytes) -> str:
    """Text fit to show anyone and to store anywhere: undecodable bytes and lone surrogates
    become U+FFFD. The result always encodes as strict UTF-8."""
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(REPLACEMENT, value)
    return value


_PYTHON_NEWLINE = re.compile(r"\r\n|\r|\n")
_PYTHON_NEWLINE_BYTES = re.compile(_PYTHON_NEWLINE.pattern.encode())


def line_at(data: bytes, offset: int) -> int:
    """The line of the source bytes ``data`` holding byte ``offset``, numbered as Python
    numbers lines (:func:`source_lines`): for a place Python itself names no line for."""
    return len(_PYTHON_NEWLINE_BYTES.findall(data, 0, offset)) + 1


MAX_LINE_SHOWN = 200  # characters of a source line shown where Python quoted none


def line_text(data: bytes, line: int) -> str:
    """Line ``line`` of the source bytes ``data`` (numbered as :func:`line_at` numbers them),
    fit to show as a traceback's code: for a line the grader placed itself, where Python
    quoted none (a refused coding declaration, a null byte). Stripped, on one line with its
    control codes (a null byte too) written out, cut at ``MAX_LINE_SHOWN`` characters; empty
    past the last line."""
    if line < 1:
        return ""
    pieces = _PYTHON_NEWLINE_BYTES.split(data, maxsplit=line)
    if len(pieces) < line:
        return ""
    raw = pieces[line - 1]
    if line == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    # cut before decoding: a line may be megabytes long
    text = raw[: 4 * MAX_LINE_SHOWN].decode("utf-8", errors="replace").strip()
    shown_text = inert_line(text)
    if len(shown_text) > MAX_LINE_SHOWN or len(raw) > 4 * MAX_LINE_SHOWN:
        return shown_text[:MAX_LINE_SHOWN] + "..."
    return shown_text


# Python's errors for a declaration it refuses: an unknown codec, one against a UTF-8 BOM, one
# that is no text encoding (rot13, hex), one that cannot decode the file (utf-16 on ASCII text)
_REFUSED_DECLARATION = re.compile(
    r"^(?:unknown encoding: |encoding problem: |'[^']{1,60}' is not a text encoding"
    r"|'[^']{1,60}' codec can't decode )"
)


def declaration_line(data: bytes) -> int | None:
    """The line of source bytes ``data`` holding its coding declaration (1 or 2, as Python
    looks for one: on the second line only after a blank or comment line), None where it
    has none. For an error Python names no line for: an encoding it refuses to read by.

    Lines end as Python's compiler ends them (``\r\n``, ``\r`` or ``\n``, as
    :func:`line_at` counts them): a file saved with bare ``\r`` line ends (classic Mac OS)
    had its declaration on line 2 named line 1."""
    first, *rest = _PYTHON_NEWLINE_BYTES.split(data, 2)[:2]
    if first.startswith(b"\xef\xbb\xbf"):
        first = first[3:]
    if _declares(first):
        return 1
    if rest and tokenize.blank_re.match(first) and _declares(rest[0]):
        return 2
    return None


def _declares(line: bytes) -> bool:
    """Whether a line is a PEP 263 coding declaration, by the tokenizer's own pattern."""
    return bool(tokenize.cookie_re.match(line.decode("latin-1")))


def refused_declaration(message: str) -> bool:
    """Whether Python's error ``message`` is its refusal of a file's coding declaration."""
    return bool(_REFUSED_DECLARATION.match(message))


def source_lines(text: str, keepends: bool = False) -> list[str]:
    """Python source split into lines as Python numbers them: at ``\\r\\n``, ``\\r`` and
    ``\\n`` only. ``str.splitlines`` also splits at form feeds, vertical tabs, ``\\x1c``-``\\x1e``,
    ``\\x85``, U+2028 and U+2029, which Python's tokenizer takes as ordinary characters: a
    form feed in a notebook's comment cut its cell in two (a correct notebook scored 0), and a
    traceback quoted the wrong line of a file. Like ``splitlines``, no empty last line."""
    lines: list[str] = []
    start = 0
    for newline in _PYTHON_NEWLINE.finditer(text):
        lines.append(text[start : newline.end() if keepends else newline.start()])
        start = newline.end()
    if start < len(text):
        lines.append(text[start:])
    return lines


def shown_name(value: str) -> str:
    """A name from the file system (a folder, a file, an archive's entry), fit to show and
    store, its undecodable bytes kept apart: each byte the name could not decode (Python's
    surrogate escapes) becomes ``\\xNN``, any other lone surrogate U+FFFD. Under :func:`shown`
    the folders ``M\\xfcller`` and ``M\\xf6ller`` (Latin-1 names) were both ``M\ufffdller``:
    one student, the other's work lost."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub(_byte_or_replacement, value)
    return value


def _byte_or_replacement(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else REPLACEMENT


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if 0xDC80 <= code <= 0xDCFF:  # a byte a path could not decode (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def inert(value: str | bytes) -> str:
    """Text that is safe to write to a terminal: every control code but newline and tab is
    written out visibly (``ESC`` as ``\\x1b``), bytes that are not UTF-8 are replaced, and a
    path's undecodable byte shows as ``\\xNN``. Encodes as strict UTF-8."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return _CONTROL.sub(_escape, value)


# What a terminal does with a program's output rather than print it: a carriage return, a
# backspace, a CSI sequence (ESC [ or U+009B, parameters, one final character: colours, cursor
# moves, erasing), an OSC sequence (ESC ], up to BEL or ESC \: a window title, a hyperlink), a
# two-character escape (ESC and one more).
_TERMINAL_ACT = re.compile(
    r"(?P<cr>\r)|(?P<bs>\x08)"
    r"|(?:\x1b\[|\x9b)(?P<csi>[0-?]*)[ -/]*(?P<final>[@-~]?)"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[ -~]?"
)
_TERMINAL_ACTS = re.compile("[\r\x08\x1b\x9b]")


def as_a_terminal_shows(output: str) -> str:
    """A program's output as a terminal would leave it on the screen, not byte by byte: a
    progress bar (tqdm, or ``print(..., end="\\r")``) that redraws its line a hundred times is
    its last drawing, not a hundred drawings joined by ``\\r``; colours and other escape
    sequences are gone rather than written out as ``\\x1b[32m``.

    Within a line, ``\\r`` goes back to its start and what follows overwrites it; a backspace
    goes back a column; ``ESC [ K`` erases to the line's end (``ESC [ 1 K`` to its start,
    ``ESC [ 2 K`` all of it); every other sequence is dropped, since a moved cursor cannot be
    shown in a report. Every other control character stays, for :func:`inert` to write out
    visibly. Text with none of these is returned as it is; the stored result keeps the output
    as it was written."""
    if not _TERMINAL_ACTS.search(output):
        return output
    return "\n".join(_line_as_shown(line) for line in output.replace("\r\n", "\n").split("\n"))


def _line_as_shown(line: str) -> str:
    if not _TERMINAL_ACTS.search(line):
        return line
    screen: list[str] = []
    column = 0
    position = 0
    for act in _TERMINAL_ACT.finditer(line):
        column = _overwrite(screen, column, line[position : act.start()])
        position = act.end()
        if act["cr"]:
            column = 0
        elif act["bs"]:
            column = max(0, column - 1)
        elif act["final"] == "K":
            erase = act["csi"] or "0"
            if erase == "0":
                del screen[column:]
            elif erase == "1":
                screen[: column + 1] = " " * min(column + 1, len(screen))
            elif erase == "2":
                screen.clear()
    _overwrite(screen, column, line[position:])
    return "".join(screen).rstrip(" ")


def _overwrite(screen: list[str], column: int, text: str) -> int:
    """Write ``text`` over ``screen`` from ``column`` (spaces fill a gap); the column after it."""
    if text:
        if column > len(screen):
            screen.extend(" " * (column - len(screen)))
        screen[column : column + len(text)] = text
    return column + len(text)


def inert_line(value: str | bytes) -> str:
    """:func:`inert`, and newline and tab escaped too: for a field that must stay on one line
    (a name, a path), so that it cannot start a line of its own."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    return _CONTROL_LINE.sub(_escape, value)


def shown_line(value: str, limit: int = 200) -> str:
    """A name or path from the user in a one-line message: :func:`shown_name` and
    :func:`inert_line`, cut after ``limit`` characters (an id of 5,000 characters was echoed
    whole, one with a newline split the message in two)."""
    text = inert_line(shown_name(value))
    return text if len(text) <= limit else text[:limit] + "..."


def inert_data(value: object) -> object:
    """A JSON-like value (dicts, lists, tuples, strings, numbers) with every string in it,
    keys too, made :func:`inert`: for a file written for people (a report's view, an upload
    file's JSON) whose strings quote outside data (file names, archive members, learner
    output). Anything else is returned as it is."""
    if isinstance(value, str):
        return inert(value)
    if isinstance(value, dict):
        return {inert_data(k): inert_data(v) for k, v in value.items()}
    if type(value) is list:
        return [inert_data(v) for v in value]
    if type(value) is tuple:  # not a named tuple: it is made from its fields, not a sequence
        return tuple(inert_data(v) for v in value)
    return value


class PythonSource(str):
    """A learner's file as Python reads it (made only by :func:`source_text`): what the
    static analysis may take as the program that runs, whatever its coding declaration
    says. Any other text that declares an encoding other than UTF-8 was read some other way,
    and the analysis refuses it."""

    __slots__ = ()


def source_text(data: bytes) -> PythonSource:
    """Bytes of a learner's file as the text Python reads: in the encoding its coding
    declaration names where Python accepts it (``# -*- coding: gbk -*-`` above a Chinese
    comment is correct Python), else UTF-8; undecodable bytes replaced, universal newlines.

    The trusted side's static checks read this text while the learner child runs the file: a
    file read two ways could hide code from the checks (``# coding: utf-7`` makes ``+AAo-`` a
    line break, so what is a comment to a UTF-8 reader is a statement to Python)."""
    text = _decoded(data, python_encoding(data))
    return PythonSource(shown(text.replace("\r\n", "\n").replace("\r", "\n")))


def python_encoding(data: bytes) -> str:
    """The codec Python compiles source ``data`` with (as an import does): its coding
    declaration's, where Python accepts it; "utf-8" otherwise, a BOM included (Python then
    refuses to run a file whose declaration it does not accept)."""
    try:
        declared, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown codec, or one that contradicts the BOM
        return "utf-8"
    if declared in ("utf-8", "utf-8-sig"):
        return "utf-8"  # the BOM stays in the text, as reports have always shown it
    try:
        if not codecs.lookup(declared)._is_text_encoding:  # rot13, hex: no source codec
            return "utf-8"
        compile(data, "<source>", "exec", flags=_ONLY_AST, dont_inherit=True)
    except LookupError:
        return "utf-8"
    except SyntaxError as exc:
        if "encoding" in str(exc.msg):  # "encoding problem: ...": Python does not run it
            return "utf-8"
    except (ValueError, UnicodeError, RecursionError, MemoryError):
        pass  # broken in some other way: the declaration still stands
    return declared


_ONLY_AST = 0x400  # ast.PyCF_ONLY_AST, without importing ast for it


def _decoded(data: bytes, encoding: str) -> str:
    # some codecs (idna) replace nothing: strictly then, else as UTF-8
    for errors in ("replace", "strict"):
        try:
            return data.decode(encoding, errors=errors)
        except (UnicodeError, LookupError, ValueError):
            continue
    return data.decode("utf-8", errors="replace")
