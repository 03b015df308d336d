"""A learner file saved in another encoding than UTF-8 (Windows Notepad's "Unicode" is UTF-16;
a Chinese Windows editor's default is GBK) does not import. It was told "syntax error at line 1
... Fix the line shown (unclosed brackets, missing colons)", and the review said "a null
byte": no line of the code was wrong. The story "not saved as UTF-8, save it as UTF-8" is told
where the file's own bytes, read on the trusted side, show another encoding; a UTF-8 file with
a real syntax error or a stray zero byte keeps its own story."""

from __future__ import annotations

import codecs

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.sandbox.faults import raised
from grader.sandbox.messages import ErrorFrame, ErrorInfo
from grader.testing.analysis.intake import Unanalysable, split
from grader.text import another_encoding, declaration_line
from tests.conftest import ROOT

CATALOGUE = DiagnosisCatalog.for_course(ROOT)
SOLUTION = (ROOT / "solutions" / "exercise-01" / "exercise-01.py").read_text(encoding="utf-8")
ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "gbk", "cp1252", "shift_jis", "big5"]


def import_error(data: bytes) -> ErrorInfo | None:
    """What Python says importing these bytes as a source file (None: it reads them)."""
    try:
        compile(data, "exercise-01.py", "exec")
    except SyntaxError as exc:
        return ErrorInfo("import", "SyntaxError", ("SyntaxError", "Exception"), str(exc.msg))
    except ValueError as exc:  # older Pythons: null bytes are a ValueError of compile()
        return ErrorInfo("import", "SyntaxError", ("SyntaxError", "Exception"), str(exc))
    return None


def diagnosis_of(error: ErrorInfo, data: bytes) -> tuple[tuple[str, ...], str | None]:
    fault = raised(error, "", during_import=True, source=data)
    entry = match(CATALOGUE, tuple(fault.evidence), None)
    return tuple(fault.evidence), entry.id if entry else None


comments = st.text(st.sampled_from("中文注释测试张量梯度éàüñ¥£ßøåæ日本語"), min_size=1, max_size=12)


@settings(max_examples=80, deadline=None)
@given(encoding=st.sampled_from(ENCODINGS), comment=comments)
def test_a_file_saved_in_another_encoding_is_told_to_save_as_utf8(encoding, comment):
    try:
        data = f"# {comment}\n{SOLUTION}".encode(encoding)
    except UnicodeEncodeError:
        assume(False)
    error = import_error(data)
    assume(error is not None)  # bytes that happen to be UTF-8 too are read as they are
    evidence, diagnosis = diagnosis_of(error, data)
    assert "source_not_utf8" in evidence
    assert diagnosis == "file-not-utf8"


@settings(max_examples=60, deadline=None)
@given(
    broken=st.sampled_from(["def f(:\n", "x = (1,\n", "return 1\n", "if x\n    pass\n", "\x00"]),
    at=st.integers(0, 40),
)
def test_a_utf8_file_with_a_real_syntax_error_keeps_its_own_story(broken, at):
    lines = SOLUTION.splitlines(keepends=True)
    at = min(at, len(lines))
    data = "".join([*lines[:at], broken, *lines[at:]]).encode("utf-8")
    error = import_error(data)
    assume(error is not None)
    evidence, diagnosis = diagnosis_of(error, data)
    assert "source_not_utf8" not in evidence
    assert diagnosis == "syntax-error"


@settings(max_examples=100, deadline=None)
@given(at=st.integers(0, 40), newline=st.sampled_from(["\n", "\r\n", "\r"]), col=st.integers(0, 3))
def test_a_null_byte_names_its_line(at, newline, col):
    """Python's error for a null byte has no line: the learner read "a syntax error at line ?"
    and "Fix the line shown". The line is the one Python would count (CR and CRLF ends too)."""
    lines = SOLUTION.splitlines()
    at = min(at, len(lines) - 1)
    lines[at] = lines[at][:col] + "\x00" + lines[at][col:]
    data = newline.join(lines).encode("utf-8")
    error = import_error(data)
    assert error is not None
    fault = raised(error, "", during_import=True, source=data)
    assert f"syntax error at line {at + 1}:" in fault.message.en
    assert "line ?" not in fault.message.en


@given(text=st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))))
def test_utf8_text_is_never_another_encoding(text):
    assert not another_encoding(text.encode("utf-8"))


@pytest.mark.parametrize("bom", [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE])
def test_a_byte_order_mark_is_another_encoding(bom):
    assert another_encoding(bom + b"x = 1\n")


def test_without_the_trusted_sides_bytes_nothing_is_claimed():
    error = import_error(SOLUTION.encode("utf-16"))
    assert error is not None
    fault = raised(error, "", during_import=True)
    assert "source_not_utf8" not in fault.evidence


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be", "utf-32-le"])
def test_the_review_names_utf16_not_a_null_byte(encoding):
    text = SOLUTION.encode(encoding).decode("utf-8", errors="replace")
    with pytest.raises(Unanalysable) as caught:
        split(text)
    assert "UTF-16 or UTF-32" in caught.value.problem.en
    assert "UTF-16 或 UTF-32" in caught.value.problem.zh


def test_a_stray_null_byte_is_still_named_as_one():
    with pytest.raises(Unanalysable) as caught:
        split(SOLUTION + "\x00\n")
    assert "null byte" in caught.value.problem.en


@given(text=st.text(min_size=1, max_size=200), cut=st.integers(1, 3))
def test_utf8_cut_inside_a_character_is_not_another_encoding(text, cut):
    """The trusted side reads at most the first MiB of a file: a UTF-8 character cut at that
    end is the read's, not the file's."""
    data = (text.replace("\x00", "") + "中").encode("utf-8")
    assert not another_encoding(data[:-cut])


# -- a file that declares its encoding is read in it ----------------------------------------------

EX08 = (ROOT / "solutions" / "exercise-08" / "exercise-08.py").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("codec", "comment"),
    [("gbk", "我的作业：归约运算"), ("cp1252", "Lösung für Übung 8"), ("euc-jp", "宿題の解答")],
)
def test_a_correct_file_in_its_declared_encoding_gets_full_marks(
    curriculum_service, tmp_path, codec, comment
):
    """Python runs a file saved in GBK (a Chinese Windows editor's default) with its coding
    declaration; the grader's static checks read it the same way. They told the learner to
    save as UTF-8 and withheld 13 of 20 points."""
    path = tmp_path / "exercise-08.py"
    path.write_bytes(f"# -*- coding: {codec} -*-\n# {comment}\n{EX08}".encode(codec))
    result = curriculum_service.grade("exercise-08", path, devices=("cpu",))
    assert result.score == result.max_score, [t.message for t in result.tests if t.message]
    assert comment in result.source  # the report shows the comment as written
    assert not result.review


def test_code_a_declared_encoding_hides_from_utf8_is_what_the_checks_read(
    curriculum_service, tmp_path
):
    """In UTF-7, "+AAo-" is a line break: a comment to a UTF-8 reader, a statement to Python.
    The static check reads what Python runs and names the forbidden call on its line."""
    body = EX08.replace(
        "def softmax_rows(x: torch.Tensor) -> torch.Tensor:\n",
        "def softmax_rows(x: torch.Tensor) -> torch.Tensor:\n"
        "    # a note +AAo-    return torch.softmax(x, dim=1)\n",
        1,
    )
    assert body != EX08
    path = tmp_path / "exercise-08.py"
    path.write_bytes(("# coding: utf-7\n" + body).encode("ascii"))
    result = curriculum_service.grade("exercise-08", path, devices=("cpu",))
    forbidden = next(t for t in result.tests if t.name == "test_softmax_rows_forbidden")
    assert forbidden.status.value == "failed"
    assert "torch.softmax" in forbidden.message


def child_error(data: bytes) -> ErrorInfo | None:
    """What the learner's child reports for these bytes: the SyntaxError with the line Python
    gave it (0 where it names none) as its one frame."""
    try:
        compile(data, "exercise-01.py", "exec")
    except SyntaxError as exc:
        line = exc.lineno if type(exc.lineno) is int and exc.lineno >= 0 else 0
        frame = ErrorFrame(line, "<module>", str(exc.text or "").strip())
        return ErrorInfo(
            "import", "SyntaxError", ("SyntaxError", "Exception"), str(exc.msg), frames=(frame,)
        )
    return None


@settings(max_examples=80, deadline=None)
@given(
    codec=st.sampled_from(["nonsense", "utf-8x", "rot13", "hex", "base64", "latin-1", "utf-16"]),
    above=st.sampled_from(["", "#!/usr/bin/env python\n", "\n", "# a comment\n", "   \r\n"]),
    form=st.sampled_from(["# -*- coding: {} -*-", "# coding={}", "# vim: set fileencoding={} :"]),
    bom=st.booleans(),
    # a bare CR too (classic Mac OS): Python looks for the declaration in lines ended by LF,
    # and numbers lines at CR as well; the grader named line 1 for a declaration on line 2
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_an_encoding_declaration_python_refuses_names_its_line(codec, above, form, bom, newline):
    """Python refuses a file whose coding declaration names no codec it knows, one against
    the file's UTF-8 BOM, one that is no text encoding (rot13, hex) or cannot read the file,
    and names no line for it (0): the learner read "a syntax error at line ?", "Fix the line
    shown" and "at line 0". The line is the declaration's, read from the file's bytes."""
    declaration = form.format(codec)
    text = f"{above}{declaration}\n{SOLUTION}".replace("\n", newline)
    data = (b"\xef\xbb\xbf" if bom else b"") + text.encode("ascii", errors="ignore")
    error = child_error(data)
    assume(error is not None and error.frames[0].line == 0)
    fault = raised(error, "", during_import=True, source=data)
    line = 2 if above else 1
    assert f"syntax error at line {line}:" in fault.message.en, fault.message.en
    assert f"第 {line} 行" in fault.message.zh
    assert "line ?" not in fault.message.en
    assert [frame.line for frame in fault.frames] == [line]
    # the declaration's own text, where the frame showed an empty line of code
    assert [frame.code for frame in fault.frames] == [declaration]


@settings(max_examples=40, deadline=None)
@given(at=st.integers(0, 40), newline=st.sampled_from(["\n", "\r\n", "\r"]))
def test_a_null_bytes_frame_shows_its_line(at, newline):
    """Python quotes no code for a null byte: the frame the grader placed on its line showed
    an empty line. It shows that line, the null byte written out."""
    lines = SOLUTION.splitlines()
    at = min(at, len(lines) - 1)
    lines[at] = "\x00" + lines[at]
    data = newline.join(lines).encode("utf-8")
    error = child_error(data)
    assert error is not None
    fault = raised(error, "", during_import=True, source=data)
    assert [frame.line for frame in fault.frames] == [at + 1]
    assert fault.frames[0].code == "\\x00" + lines[at][1:].rstrip()


line_parts = st.sampled_from(
    ["", " ", "\t", "\f", "#", "x = 1", "coding", ":", "=", "utf-8", "-*-"]
)


@given(
    first=st.lists(line_parts, max_size=6).map("".join),
    second=st.lists(line_parts, max_size=6).map("".join),
    bom=st.booleans(),
)
def test_a_declaration_is_found_only_where_python_looks_for_one(first, second, bom):
    """On the first line, or on the second after a blank or comment line: the line Python's
    own tokenizer takes the declaration from (its patterns, ``tokenize.cookie_re`` and
    ``blank_re``)."""
    import tokenize

    data = (b"\xef\xbb\xbf" if bom else b"") + f"{first}\n{second}\n".encode()
    if tokenize.cookie_re.match(first):
        expected: int | None = 1
    elif tokenize.blank_re.match(first.encode()) and tokenize.cookie_re.match(second):
        expected = 2
    else:
        expected = None
    assert declaration_line(data) == expected
