"""The boundary decode policy (grader.text): shown text always encodes, inert text never
controls a terminal, and a path keeps its bytes."""

from __future__ import annotations

import os
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from grader.text import (
    MAX_LINE_SHOWN,
    PythonSource,
    inert,
    inert_line,
    line_text,
    path_text,
    shown,
    shown_name,
    source_lines,
    source_text,
)

# every code point, lone surrogates included, with the control codes made likely
_CONTROLS = st.sampled_from(
    [chr(c) for c in range(0x20)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
)
TEXTS = st.lists(
    st.one_of(st.characters(codec=None), st.characters(categories=["Cs"]), _CONTROLS),
    max_size=40,
).map("".join)
ANY = st.one_of(TEXTS, st.binary(max_size=60))


def _is_control(char: str) -> bool:
    return (
        unicodedata.category(char) in ("Cc", "Cs")
        or 0x202A <= ord(char) <= 0x202E
        or (0x2066 <= ord(char) <= 0x2069)
    )


@given(ANY)
def test_shown_always_encodes_as_strict_utf8(value: str | bytes) -> None:
    shown(value).encode("utf-8")


@given(TEXTS)
def test_shown_keeps_text_that_encodes(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        assert "\ufffd" in shown(value)
    else:
        assert shown(value) == value


@given(ANY)
def test_inert_text_holds_no_control_but_newline_and_tab(value: str | bytes) -> None:
    out = inert(value)
    out.encode("utf-8")
    assert not [c for c in out if _is_control(c) and c not in "\n\t"]


@given(ANY)
def test_inert_line_holds_no_control_at_all(value: str | bytes) -> None:
    out = inert_line(value)
    out.encode("utf-8")
    assert not [c for c in out if _is_control(c)]


def test_inert_writes_controls_out_visibly() -> None:
    assert inert("a\x1b[2Jb") == "a\\x1b[2Jb"
    assert inert("\x9b31m") == "\\x9b31m"
    assert inert("x\x7fy\rz") == "x\\x7fy\\rz"
    assert inert("line\n\tnext") == "line\n\tnext"
    assert inert_line("line\n\tnext") == "line\\n\\tnext"
    assert inert("\u202eevil") == "\\u202eevil"
    assert inert("学生\x1b]0;x\x07") == "学生\\x1b]0;x\\x07"


def test_a_latin1_path_keeps_its_bytes_and_shows_its_byte() -> None:
    raw = "José".encode("latin-1")
    name = path_text(raw)
    assert os.fsencode(name) == raw
    assert shown(name) == "Jos\ufffd"
    assert inert(name) == "Jos\\xe9"


def test_a_lone_surrogate_is_replaced() -> None:
    assert shown("a\ud800b") == "a\ufffdb"
    assert shown(b"a\xffb") == "a\ufffdb"


# What str.splitlines splits at and Python does not, and what both split at.
NOT_NEWLINES = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
NEWLINES = ("\n", "\r\n", "\r")


@given(
    comments=st.lists(st.text(st.sampled_from(NOT_NEWLINES + "ab #"), max_size=6), max_size=8),
    breaks=st.lists(st.sampled_from(NEWLINES), min_size=8, max_size=8),
    last=st.booleans(),
)
def test_source_lines_number_lines_as_python_does(comments, breaks, last) -> None:
    """Each statement's line, as Python's compiler numbers it, is the line source_lines gives
    for that number, whatever sits in the comments (form feeds, U+2028, ...) and whichever
    newline ends each line."""
    import ast

    lines = [f"v{n} = {n}  # {comment}" for n, comment in enumerate(comments)]
    text = "".join(line + breaks[n] for n, line in enumerate(lines))
    if not last and text:
        text = text[: -len(breaks[len(lines) - 1])]  # no newline at the end
    got = source_lines(text)
    assert len(got) == len(lines)
    for node in ast.parse(text).body:
        assert isinstance(node, ast.Assign)
        assert got[node.lineno - 1].startswith(f"{ast.unparse(node.targets[0])} = ")
    assert "".join(source_lines(text, keepends=True)) == text


def test_a_name_keeps_its_undecodable_bytes_apart() -> None:
    assert shown_name(os.fsdecode(b"M\xfcller")) == "M\\xfcller"
    assert shown_name(os.fsdecode(b"M\xf6ller")) == "M\\xf6ller"
    assert shown_name("a\ud800b") == "a\ufffdb"  # not a byte: replaced, as shown() does
    assert shown_name("Zoë") == "Zoë"


# -- a learner's file as Python reads it ---------------------------------------------------------

_CODECS = [
    "utf-8", "utf-7", "latin-1", "cp1252", "gbk", "euc-jp", "unicode_escape",
    "raw_unicode_escape", "idna", "utf-16", "rot13", "hex", "klingon",
]  # fmt: skip
# statements and the bytes that some codec turns into a line break or a quote
_PIECES = st.sampled_from(
    [b"x = 1", b"# note +AAo-y = 2", b"#\\x0ay = 3", b"s = '\xe9'", b"z = '\xd6\xd0'", b"+ACI-",
     b"pass", b"\\u0022", b"def f():\n    return 4", b"\xef\xbb\xbf", b"\r\n", b"\t"]
)  # fmt: skip


@given(
    st.sampled_from(_CODECS),
    st.lists(_PIECES, max_size=6),
    st.sampled_from([b"", b"\xef\xbb\xbf", b"#!/usr/bin/env python\n"]),
)
def test_source_text_is_the_program_python_compiles(codec, pieces, head):
    """Whatever the declaration, the bytes and the BOM: where Python compiles the file, the
    text the trusted side analyses is the same program (the same syntax tree); it never
    raises, and always encodes as UTF-8."""
    import ast

    data = head + f"# -*- coding: {codec} -*-\n".encode() + b"\n".join(pieces) + b"\n"
    text = source_text(data)
    assert isinstance(text, PythonSource)
    text.encode("utf-8")
    try:
        compiled = compile(data, "<f>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeError):
        return  # Python does not run it: the grading says so
    assert ast.dump(ast.parse(text.removeprefix("\ufeff"))) == ast.dump(compiled)


def test_a_declared_encoding_is_read_as_declared():
    gbk = "# -*- coding: gbk -*-\n# 作业\nx = '张量'\n".encode("gbk")
    assert "作业" in source_text(gbk) and "张量" in source_text(gbk)
    hidden = b"# coding: utf-7\nx = 1  # +AAo-import os\n"
    assert "\nimport os" in source_text(hidden)  # what Python runs, not a comment
    assert "\ufffd" in source_text(b"x = '\xff'\n")  # no declaration: UTF-8, replaced


@given(
    data=st.binary(max_size=300)
    | st.text(max_size=300).map(lambda t: t.encode("utf-8", errors="surrogatepass")),
    line=st.integers(-2, 12),
)
def test_a_line_of_any_bytes_is_shown_on_one_inert_capped_line(data, line):
    """The code of a frame the grader placed itself: whatever the bytes, one line of text
    that encodes as UTF-8, with no control code left in it, and no longer than the cap."""
    got = line_text(data, line)
    got.encode("utf-8")
    assert not any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in got)
    assert len(got) <= MAX_LINE_SHOWN + 3
    text = data.decode("utf-8", errors="replace")
    plain = not any((ord(c) < 0x20 and c not in "\r\n") or 0x7F <= ord(c) < 0xA0 for c in text)
    lines = source_lines(text.removeprefix("\ufeff"))
    if plain and 1 <= line <= len(lines) and len(lines[line - 1]) <= MAX_LINE_SHOWN // 4:
        assert got == lines[line - 1].strip()


def test_a_long_line_is_cut_where_it_is_read():
    assert line_text(b"x = 1\n" + b"y" * 10_000_000, 2) == "y" * MAX_LINE_SHOWN + "..."
    assert line_text(b"x = 1\n", 2) == "" and line_text(b"", 1) == ""
