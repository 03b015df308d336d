"""An archive member's name as the archive's own readers read it: up to its first NUL."""

from __future__ import annotations

import csv
import io
import re
import tarfile
import zipfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.assignment import load_assignment
from grader.lms.collect import Collector
from grader.lms.gradebook import exercise_maxima, gradebook_csv
from grader.lms.grades import build_rows
from grader.lms.handin import Handin
from tests.lms.builders import code, write
from tests.lms.test_assignment import GOOD, ROSTER

SOURCE = code("alice").encode()


def _tar(name: str, data: bytes, fmt: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tf:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zip(name: str, data: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(name, data)
    return buffer.getvalue()


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    stem=st.sampled_from(["exercise-01.py", "notes.txt", "../up.py", "src/exercise-01.py"]),
    padding=st.text(st.sampled_from("\0x.py/"), max_size=20).map(lambda t: "\0" + t),
    times=st.integers(1, 40),
    fmt=st.sampled_from([tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, "zip"]),
)
def test_a_members_name_ends_at_its_first_nul(infos, tmp_path_factory, stem, padding, times, fmt):
    """A pax record keeps a name's NULs (ustar and GNU headers, and zipfile, cut it at the
    first): a tar member ``exercise-01.py`` padded with NULs was ignored as "not a .py file",
    with a run of ``\\x00`` as long as the padding in the message. It reads as its name."""
    name = stem + padding * times
    data = SOURCE
    archive = _zip(name, data) if fmt == "zip" else _tar(name, data, fmt)
    tmp = tmp_path_factory.mktemp("nul")
    write(tmp / "alice" / ("w.zip" if fmt == "zip" else "w.tar"), archive)
    collector = Collector(Handin("alice"), infos, tmp / "staging" / "alice")
    collector.add_folder(tmp / "alice", shown="alice/")
    handin = collector.finish()
    said = [*handin.problems, *collector.rejected, *collector.ignored]
    assert not any("\0" in line or "\\x00" in line for line in said), said
    assert ("exercise-01" in handin.files) == stem.endswith("exercise-01.py"), said


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    name=st.text(
        st.characters(blacklist_categories=("Cs",), blacklist_characters="\0/")
        | st.sampled_from(["\x1b", "\x07", "\x9b", "\u202e", "\r", "\n", "\t", "=", "@"]),
        min_size=1,
        max_size=16,
    ),
    fmt=st.sampled_from([tarfile.PAX_FORMAT, "zip"]),
)
def test_a_members_name_reaches_the_gradebook_inert(infos, tmp_path_factory, name, fmt):
    """``alice/w.tar:<ESC>[31mRED...`` reached gradebook.csv's problems column with its raw
    ESC and BEL bytes (the terminal showed it escaped). Whatever a member is named, the
    gradebook holds no control code and no cell a spreadsheet would run."""
    archive = _zip(name, b"x") if fmt == "zip" else _tar(name, b"x", fmt)
    tmp = tmp_path_factory.mktemp("ctl")
    write(tmp / "alice" / ("w.zip" if fmt == "zip" else "w.tar"), archive)
    collector = Collector(Handin("alice"), infos, tmp / "staging" / "alice")
    collector.add_folder(tmp / "alice", shown="alice/")
    handin = collector.finish()
    write(tmp / "roster.csv", ROSTER)
    week = load_assignment(write(tmp / "week-3.yaml", GOOD))
    rows = build_rows([handin], {"alice": {}}, week, None)
    text = gradebook_csv(rows, week, exercise_maxima(rows, week, {}))
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text), text
    for line in csv.reader(io.StringIO(text)):
        for value in line:
            assert "\n" not in value and not value.startswith(("=", "+", "-", "@", "\t", "\r"))
