"""Every error message the grader formats for its user is inert: whatever it quotes (a magic's
line, a path, a name) reaches a terminal or a notebook's stderr with no control code and no
lone surrogate (which can make a kernel fail to send the output)."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from grader.errors import GraderError, SpecError, UsageError

# what inert text may not hold: C0 and C1 controls but newline and tab, DEL, lone surrogates,
# bidirectional overrides and isolates
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")


def _inert(text: str) -> bool:
    text.encode("utf-8")  # strict: raises on a lone surrogate
    return not _CONTROL.search(text)


@given(st.text(), st.none() | st.text())
def test_an_error_formats_inert_whatever_it_quotes(message, hint):
    for error in (GraderError(message, hint=hint), UsageError(message, hint=hint)):
        text = error.format()
        assert _inert(text)
        assert text.startswith("Error: ")


@given(st.text(max_size=20), st.text(max_size=20), st.text(max_size=20))
def test_a_spec_error_formats_inert(path, problem, fix):
    assert _inert(SpecError(path, problem, problem, fix).format())


def test_an_escape_sequence_is_shown_not_run():
    text = UsageError("unknown exercise '\x1b[31mred\udcff'").format()
    assert "\\x1b[31mred\\xff" in text


def test_the_grade_magic_prints_an_inert_error(capsys):
    from grader.notebook.magics import GraderMagics

    for line in ("\x1b[2J\udcff\ud800", "hint \x1b[2J\udcff\ud800", "7 --nope\x1b[2J\ud800"):
        GraderMagics(shell=None).grade(line)
        err = capsys.readouterr().err
        assert err.startswith("Error: ")
        assert _inert(err), err
