"""The boundary decode policy (grader.text): shown text always encodes, inert text never
controls a terminal, and a path keeps its bytes."""

from __future__ import annotations

import os
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from grader.text import inert, inert_line, path_text, shown

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
