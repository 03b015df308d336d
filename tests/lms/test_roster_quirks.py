"""Rosters as spreadsheets and LMSs save them: Excel's "Unicode Text" (UTF-16 with a byte
order mark, tab-separated) was refused as "not UTF-8", and a roster made of two sections'
lists, where a student enrolled in both is on each, was refused ("id '4711' is already on
line 2") though the lines are the same student."""

from __future__ import annotations

import codecs
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms.assignment import read_roster

text = st.text(
    st.characters(blacklist_categories=["Cs", "Cc", "Zl", "Zp"], blacklist_characters='"'),
    max_size=12,
).map(str.strip)
people = st.lists(
    st.tuples(
        st.integers(1000, 9999).map(str),
        text.filter(bool),
        st.sampled_from(["", "@x.edu"]),
        st.sampled_from(["", "A", "B", "Lab 3"]),
    ),
    min_size=1,
    max_size=6,
    unique_by=lambda p: p[0],
)
ENCODINGS = {
    "utf-8": lambda t: t.encode("utf-8"),
    "utf-8-sig": lambda t: codecs.BOM_UTF8 + t.encode("utf-8"),
    "utf-16le": lambda t: codecs.BOM_UTF16_LE + t.encode("utf-16-le"),
    "utf-16be": lambda t: codecs.BOM_UTF16_BE + t.encode("utf-16-be"),
}


def csv_text(rows: list[list[str]], sep: str, newline: str) -> str:
    return "".join(sep.join(f'"{c}"' for c in row) + newline for row in rows)


@settings(max_examples=80, deadline=None)
@given(
    class_=people,
    encoding=st.sampled_from(sorted(ENCODINGS)),
    sep=st.sampled_from([",", ";", "\t"]),
    newline=st.sampled_from(["\n", "\r\n"]),
    twice=st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["", "A", "C"])), max_size=3),
)
def test_a_roster_is_read_in_any_encoding_excel_writes_and_with_a_student_in_two_sections(
    class_, encoding, sep, newline, twice
):
    rows = [["id", "name", "email", "section"]]
    rows += [[i, n, f"{i}{e}" if e else "", s] for i, n, e, s in class_]
    sections = {i: [s] if s else [] for i, _, _, s in class_}
    for index, section in twice:  # the student again, in another section's list
        i, n, e, _ = class_[index % len(class_)]
        rows.append([i, n, f"{i}{e}" if e else "", section])
        if section and section not in sections[i]:
            sections[i].append(section)
    data = ENCODINGS[encoding](csv_text(rows, sep, newline))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "roster.csv"
        path.write_bytes(data)
        entries = read_roster(path)
    assert [(e.id, e.name, e.section) for e in entries] == [
        (i, n, " and ".join(sections[i])) for i, n, _, _ in class_
    ]


@pytest.mark.parametrize(
    "second",
    ["4711,Jane Roe,jane@x.edu,B", "4711,Jane Doe,other@x.edu,B", "4712,Bob,jane@x.edu,B"],
)
def test_a_repeated_id_or_email_that_is_not_the_same_student_is_still_refused(tmp_path, second):
    path = tmp_path / "roster.csv"
    path.write_text(f"id,name,email,section\n4711,Jane Doe,jane@x.edu,A\n{second}\n")
    with pytest.raises(SpecError, match="is already on line 2"):
        read_roster(path)
