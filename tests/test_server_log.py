"""The server's log quoted a client's file name as it was: a name holding a newline forged a
record of its own ("2026-12-07 06:00:00 [1] exercise-01: passed in 0.1 s"), and one holding an
escape sequence drove the terminal of whoever read the log. Every record is now one inert
line; the grader's own traceback follows on lines of its own, inert too."""

from __future__ import annotations

import contextlib
import io
import re

from hypothesis import given
from hypothesis import strategies as st

from grader.serve import server

RECORD = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[\d+\] ")


def _logged(*args: str) -> str:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        server.log(*args)
    return err.getvalue()


@given(line=st.text(), detail=st.text())
def test_a_record_is_one_inert_line_whatever_it_quotes(line, detail):
    written = _logged(f"exercise-01: grading {line} (cpu)")
    assert written.endswith("\n") and written.count("\n") == 1
    assert RECORD.match(written)
    assert "\x1b" not in written and "\r" not in written[:-1]
    lines = _logged("exercise-01: internal error", detail).splitlines()
    assert RECORD.match(lines[0]) and lines[0].endswith("internal error")
    assert all("\x1b" not in line for line in lines)


def test_a_file_name_with_a_newline_forges_no_record(curriculum_service, tmp_path):
    forged = "x.py\n2026-12-07 06:00:00 [1] exercise-01: passed in 0.1 s\x1b[2J"
    path = tmp_path / "exercise-01.py"
    path.write_text("def make_scalar(v):\n    return v\n")
    from grader.engine.api import GradeRequest
    from grader.serve import client

    before = len(curriculum_service.log)
    request = GradeRequest(
        exercise="exercise-01",
        source=path.read_bytes(),
        filename=forged,
        devices=("cpu",),
        seed=1,
        lang="en",
    )
    client.grade(curriculum_service.place, request, 600.0)
    written = "".join(curriculum_service.log[before:])
    assert "\x1b" not in written
    assert not any(line.startswith("2026-12-07 06:00:00 [1]") for line in written.splitlines()), (
        written
    )
    assert "x.py\\n2026-12-07 06:00:00 [1]" in written
