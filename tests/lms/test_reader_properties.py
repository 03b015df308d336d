"""Generated assignment files and rosters: each either loads, with every value of its stated
type, or is a usage error (exit 2) naming the file; no other exception, whatever the bytes."""

from __future__ import annotations

import csv
import io
import string
import unicodedata

import pytest
import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.errors import UsageError
from grader.lms.assignment import ROSTER_COLUMNS, Assignment, load_assignment, read_roster

FAST = settings(
    max_examples=50, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=20),
    st.dates(),
    st.datetimes(),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(string.ascii_lowercase + "_-", max_size=12), inner, max_size=3)
    ),
    max_leaves=12,
)
ids = st.sampled_from(["exercise-01", "exercise-05", "exercise-99", "7", "", "Exercise 1"])
settings_keys = {
    "canvas": ["title", "assignment_id", "points"],
    "moodle": ["item", "points", "key", "feedback"],
    "gradescope": ["points", "hidden_tests", "visibility", "stdout_visibility", "requirements"],
    "late": ["per_day_percent", "max_days", "after_max_days"],
}


def section(keys: list[str]):
    return st.dictionaries(st.sampled_from(keys), values, max_size=len(keys)) | values


assignment = st.fixed_dictionaries(
    {},
    optional={
        "format_version": st.one_of(st.just(1), values),
        "name": st.one_of(st.just("week-3"), values),
        "title": values,
        "exercises": st.one_of(
            st.dictionaries(ids, st.one_of(st.floats(), st.integers(), values), max_size=3),
            values,
        ),
        "roster": st.one_of(st.just("roster.csv"), values),
        "due": st.one_of(st.just("2026-12-01T23:59:00+00:00"), values),
        "grace_minutes": values,
        "late": section(settings_keys["late"]),
        "missing": st.one_of(st.sampled_from(["zero", "blank"]), values),
        "canvas": section(settings_keys["canvas"]),
        "moodle": section(settings_keys["moodle"]),
        "gradescope": section(settings_keys["gradescope"]),
        "extra": values,
    },
)


@FAST
@given(document=st.one_of(assignment, values))
def test_generated_assignment_files_load_or_are_usage_errors(tmp_path, document):
    (tmp_path / "roster.csv").write_text("id,name,email\n1,Ann,ann@example.edu\n")
    path = tmp_path / "week.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True), encoding="utf-8")
    try:
        loaded = load_assignment(path)
    except UsageError as exc:
        assert str(path) in exc.message
        return
    assert isinstance(loaded, Assignment)
    assert all(isinstance(i, str) and w > 0 for i, w in loaded.exercises)
    g = loaded.gradescope
    assert isinstance(g.points, float) and all(isinstance(v, str) for v in (g.visibility,))


@FAST
@given(data=st.binary(max_size=400))
def test_generated_assignment_bytes_load_or_are_usage_errors(tmp_path, data):
    path = tmp_path / "week.yaml"
    path.write_bytes(data)
    try:
        load_assignment(path)
    except UsageError as exc:
        assert str(path) in exc.message


cells = st.one_of(st.text(max_size=15), st.sampled_from(["", " ", "=1+1", "a,b", '"q"', "\x00"]))
# the columns of the LMS exports read as rosters as they are (Canvas's gradebook export, split
# names too; Moodle's grading worksheet and grade export)
EXPORT_COLUMNS = ["Student", "LastName", "FirstName", "ID", "SIS User ID", "SIS Login ID",
                  "Section", "Identifier", "Full name", "Email address", "ID number",
                  "First name", "Last name", "Surname"]  # fmt: skip
header = st.lists(
    st.one_of(
        st.sampled_from(ROSTER_COLUMNS), st.sampled_from(EXPORT_COLUMNS), st.text(max_size=8)
    ),
    min_size=0,
    max_size=7,
)


@FAST
@given(head=header, rows=st.lists(st.lists(cells, max_size=8), max_size=6))
def test_generated_rosters_load_or_are_usage_errors(tmp_path, head, rows):
    buffer = io.StringIO()
    csv.writer(buffer).writerows([head, *rows])
    path = tmp_path / "roster.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8", errors="surrogatepass")
    try:
        entries = read_roster(path)
    except UsageError as exc:
        assert str(path) in exc.message
        return
    for entry in entries:
        assert all(isinstance(v, str) for v in (entry.id, entry.name, entry.email, entry.sid))


@FAST
@given(data=st.binary(max_size=400))
def test_generated_roster_bytes_load_or_are_usage_errors(tmp_path, data):
    path = tmp_path / "roster.csv"
    path.write_bytes(data)
    try:
        read_roster(path)
    except UsageError as exc:
        assert str(path) in exc.message


names = st.text(
    st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters='",;\t\ufeff'),
    min_size=1,
    max_size=12,
).filter(lambda s: s.strip() == s and s[:1] not in "=+-@")


@FAST
@given(
    people=st.lists(names, min_size=1, max_size=4, unique=True),
    encoding=st.sampled_from(["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32"]),
    delimiter=st.sampled_from([",", "\t", ";"]),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_a_roster_saved_with_a_byte_order_mark_reads_as_in_utf8(
    tmp_path, people, encoding, delimiter, newline
):
    """Excel's "Unicode Text" saves the class list as UTF-16 with a byte order mark (tabs
    between the columns): it was refused with "cannot read the file ('utf-8' codec can't decode
    byte 0xff in position 0)". Any text whose mark names its encoding reads as its UTF-8 twin;
    UTF-16 without a mark (whose zero bytes are UTF-8 too) is named, not read as nonsense."""
    rows = ["id", "name", "email"], *[[str(i), n, f"s{i}@uni.edu"] for i, n in enumerate(people)]
    text = newline.join(delimiter.join(row) for row in rows) + newline
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    path = tmp_path / "roster.csv"
    path.write_bytes(bom + text.encode(encoding))
    entries = read_roster(path)
    assert [(e.id, e.name) for e in entries] == [(str(i), n) for i, n in enumerate(people)]
    path.write_bytes(text.encode("utf-16-le"))  # no mark
    try:
        read_roster(path)
    except UsageError as exc:
        assert "UTF-16 or UTF-32 text without its byte order mark" in exc.message, exc.message
    else:
        raise AssertionError("UTF-16 without its mark read as UTF-8")


def test_a_workbook_given_as_the_roster_is_named_as_one(tmp_path):
    for magic in (b"PK\x03\x04\x14\x00\x06\x00", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        path = tmp_path / "roster.csv"
        path.write_bytes(magic + bytes(range(256)))
        try:
            read_roster(path)
        except UsageError as exc:
            assert "workbook, not a CSV file" in exc.message
            assert "CSV UTF-8" in (exc.hint or "")
        else:
            raise AssertionError("a workbook read as a roster")


def _letters(codec: str) -> tuple[str, str]:
    """The capital and small letters ``codec`` writes that are not ASCII, of one script."""
    chars = [bytes([b]).decode(codec, "replace") for b in range(0x80, 0x100)]
    letters = [c for c in chars if c.isalpha() and unicodedata.category(c) in ("Lu", "Ll")]
    script = {"cp1251": "CYRILLIC", "cp1253": "GREEK"}.get(codec, "LATIN")
    own = [c for c in letters if unicodedata.name(c).startswith(script)]
    return "".join(c for c in own if c.isupper()), "".join(c for c in own if c.islower())


LEGACY = ["cp1252", "cp1250", "cp1251", "cp1253", "cp1254", "cp1257", "cp437", "cp850",
          "mac_roman"]  # fmt: skip


@st.composite
def legacy_names(draw):
    """A code page, and names as people bear them in it: a capital, then small letters, some
    of them (or the capital) not ASCII; Cyrillic and Greek names in their own script."""
    codec = draw(st.sampled_from(LEGACY))
    upper, lower = _letters(codec)
    if codec in ("cp1251", "cp1253"):
        first, rest = upper, lower
    else:
        first, rest = string.ascii_uppercase + upper, string.ascii_lowercase + lower
    name = st.builds(
        lambda a, b: a + b,
        st.sampled_from(first),
        st.text(alphabet=rest, min_size=1, max_size=8),
    )
    names = draw(st.lists(name, min_size=1, max_size=5))
    assume(not all(n.isascii() for n in names))
    return codec, names


@FAST
@given(legacy=legacy_names(), at=st.integers(min_value=0, max_value=4))
def test_a_roster_in_a_legacy_code_page_is_read_right_or_refused_never_mangled(
    tmp_path, legacy, at
):
    """Excel's "CSV (Comma delimited)" saves in the system's code page: its names are read
    where every code page that makes names of the bytes agrees, and said; else the roster is
    refused, naming the first line that is not UTF-8 and "CSV UTF-8". Never another name."""
    codec, names = legacy
    rows = ["id,name,email"] + [f"{i},S{i},s{i}@uni.edu" for i in range(5)]
    for k, name in enumerate(names):
        rows[(at + k) % 5 + 1] = f"{(at + k) % 5},{name},s{(at + k) % 5}@uni.edu"
    path = tmp_path / "roster.csv"
    data = "\r\n".join(rows).encode(codec)
    try:  # bytes that are UTF-8 by chance ("Вё" in Windows-1251 is the UTF-8 of "¸") are
        # read as UTF-8, as any UTF-8 roster is (found, not fixed)
        data.decode("utf-8")
        assume(False)
    except UnicodeDecodeError:
        pass
    path.write_bytes(data)
    notes: list[str] = []
    try:
        entries = read_roster(path, notes)
    except UsageError as exc:
        text = data.decode("utf-8", "replace").replace("\r\n", "\n")
        line = text[: text.index("\ufffd")].count("\n") + 1  # of the first byte not UTF-8
        assert f"line {line}" in exc.message and "not UTF-8 text" in exc.message, exc.message
        assert "CSV UTF-8" in (exc.hint or "")
    else:
        assert [e.name for e in entries] == [r.split(",")[1] for r in rows[1:]]
        if any(not n.isascii() for n in names) and not data.isascii():
            (note,) = [n for n in notes if "not UTF-8" in n]
            assert "roster.csv is not UTF-8 text: read as" in note and "CSV UTF-8" in note


@pytest.mark.parametrize(
    ("name", "codec", "read"),
    [
        ("Müller", "cp1252", True),  # ü is ü in every code page that makes a name of it
        ("José", "cp1252", True),
        ("Dvořák", "cp1250", False),  # "Dvoøák" in Windows-1252
        ("Zoë", "cp1252", False),  # "Zoė" in Windows-1257
        ("Иванов", "cp1251", False),  # "Èâàíîâ" in Windows-1252
    ],
)
def test_a_legacy_roster_is_read_only_where_its_code_pages_agree(tmp_path, name, codec, read):
    path = tmp_path / "roster.csv"
    path.write_bytes(f"id,name,email\r\n1,{name},a@uni.edu\r\n".encode(codec))
    notes: list[str] = []
    if read:
        assert read_roster(path, notes)[0].name == name
        assert len(notes) == 1 and repr(name) in notes[0]
    else:
        with pytest.raises(UsageError, match=r"line 2.*read differently") as caught:
            read_roster(path, notes)
        assert "\n" not in caught.value.message
