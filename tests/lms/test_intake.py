"""Intake as a whole: layout detection and forcing, clear errors, exclusion, one student."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.errors import UsageError
from grader.lms.handin import Handin, Submitted
from grader.lms.intake import _merge, read_submissions
from tests.lms.builders import code, write, zip_bytes
from tests.lms.classes import canvas_download, moodle_download


def test_each_layout_is_detected_and_can_be_forced(infos, tmp_path):
    canvas = canvas_download(tmp_path / "canvas")
    moodle = moodle_download(tmp_path / "moodle")
    staging = tmp_path / "staging"
    assert read_submissions(canvas, staging=staging, exercises=infos).layout == "canvas"
    assert read_submissions(moodle, staging=staging, exercises=infos).layout == "moodle"
    forced = read_submissions(canvas, staging=staging, exercises=infos, layout="folders")
    assert forced.layout == "folders"  # Canvas's two zips are "students", the rest is stray
    assert [h.key for h in forced.handins] == [
        "nguyenkim_4715_88600_evil",
        "smithbob_4712_88302_work",
    ]
    assert len(forced.stray) == 8


def test_an_unknown_layout_lists_the_choices(infos, tmp_path):
    with pytest.raises(UsageError) as caught:
        read_submissions(tmp_path, staging=tmp_path / "s", exercises=infos, layout="blackboard")
    assert caught.value.message == "unknown layout 'blackboard'"
    assert "gradescope, moodle, canvas, folders" in caught.value.hint


def test_forcing_gradescope_on_a_folder_without_metadata_is_refused(infos, tmp_path):
    write(tmp_path / "class" / "alice" / "exercise-01.py", code("a"))
    with pytest.raises(UsageError, match="not a Gradescope export"):
        read_submissions(
            tmp_path / "class", staging=tmp_path / "s", exercises=infos, layout="gradescope"
        )


@pytest.mark.parametrize("name", ["submissions.zip", "class.tar.gz"])
def test_an_archive_given_as_the_class_says_to_extract_it(infos, tmp_path, name):
    write(tmp_path / name, zip_bytes({"a/exercise-01.py": "x"}))
    with pytest.raises(UsageError) as caught:
        read_submissions(tmp_path / name, staging=tmp_path / "s", exercises=infos)
    assert "is an archive, not a folder" in caught.value.message
    assert "Extract it first" in caught.value.hint


def test_a_missing_folder_is_a_one_line_error(infos, tmp_path):
    with pytest.raises(UsageError, match="is not a folder"):
        read_submissions(tmp_path / "nowhere", staging=tmp_path / "s", exercises=infos)


def test_the_output_and_staging_folders_inside_the_class_are_no_one(infos, tmp_path):
    root = tmp_path / "class"
    write(root / "alice" / "exercise-01.py", code("a"))
    write(root / "out" / "students" / "alice" / "exercise-01.py", code("an output"))
    first = read_submissions(
        root, staging=root / "out" / ".staging", exercises=infos, exclude=(root / "out",)
    )
    again = read_submissions(
        root, staging=root / "out" / ".staging", exercises=infos, exclude=(root / "out",)
    )
    assert [h.key for h in first.handins] == [h.key for h in again.handins] == ["alice"]


def test_names_that_clean_up_alike_are_one_student_and_keys_stay_unique(infos, tmp_path):
    root = tmp_path / "class"
    write(root / "Alice Smith" / "exercise-01.py", code("a1"))
    write(root / "alice_smith.zip", zip_bytes({"exercise-05.py": code("a5")}))
    write(root / "bob" / "exercise-01.py", code("b1"))
    intake = read_submissions(root, staging=tmp_path / "s", exercises=infos)
    assert [h.key for h in intake.handins] == ["alice_smith", "bob"]
    assert set(intake.handins[0].files) == {"exercise-01", "exercise-05"}


def test_merging_never_joins_students_whose_ids_disagree():
    t = datetime(2026, 12, 1, tzinfo=timezone.utc)
    same_name = [
        Handin("4711", key_kind="lms_id", lms_id="4711", name="smithjohn", submitted_at=t),
        Handin("4799", key_kind="lms_id", lms_id="4799", name="smithjohn", submitted_at=t),
    ]
    assert len(_merge(same_name)) == 2
    one = [
        Handin("a", name="Jane Doe", email="JANE@x.edu"),
        Handin("b", name="J. Doe", email="jane@x.edu", sid="77"),
        Handin("c", name="jane doe"),
    ]
    merged = _merge(one)
    assert len(merged) == 1
    assert (merged[0].email, merged[0].sid) == ("jane@x.edu", "77")
    moodle = [
        Handin("1234567", key_kind="participant", name="Jane Doe"),
        Handin("1234599", key_kind="participant", name="Jane Doe"),
    ]
    assert len(_merge(moodle)) == 2  # two Jane Does in one Moodle course


# -- names the file system could not decode ---------------------------------------------------

_STEM = st.builds(
    "{}{}".format, st.sampled_from("abcMN"), st.text(st.sampled_from("abcdMN -_."), max_size=5)
)
_HIGH = st.integers(0x80, 0xFF)  # alone, never a UTF-8 character


@given(
    stem=_STEM,
    tail=_STEM,
    bytes_=st.lists(_HIGH, min_size=2, max_size=4, unique=True),
    archive=st.booleans(),
)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_students_whose_names_differ_only_in_undecodable_bytes_stay_apart(
    infos, tmp_path_factory, stem, tail, bytes_, archive
):
    """Folders (or archives) named in Latin-1, as an old machine or an LMS writes them
    (``M\\xfcller``, ``M\\xf6ller``): shown with U+FFFD for the bytes, they were one student,
    and one of them lost their work. Each stays a student of their own, with their own file,
    a key of their own, and a name that shows the bytes apart."""
    root = tmp_path_factory.mktemp("class")
    raw = [os.fsencode(stem) + bytes([b]) + os.fsencode(tail) for b in bytes_]
    for n, name in enumerate(raw):
        if archive:
            (root / os.fsdecode(name + b".zip")).write_bytes(
                zip_bytes({"exercise-01.py": code(f"student {n}")})
            )
        else:
            write(root / os.fsdecode(name) / "exercise-01.py", code(f"student {n}"))
    found = read_submissions(root, staging=tmp_path_factory.mktemp("s"), exercises=infos)
    assert len(found.handins) == len(raw)
    assert len({h.key for h in found.handins}) == len(raw)
    assert len({h.name for h in found.handins}) == len(raw)
    assert sorted(h.files["exercise-01"].path.read_text() for h in found.handins) == sorted(
        code(f"student {n}") for n in range(len(raw))
    )
    shown = [stem + f"\\x{b:02x}" + tail for b in bytes_]  # each byte, shown as \xNN
    assert sorted(h.name for h in found.handins) == sorted(shown)
    for handin in found.handins:
        assert not handin.problems
        (handin.name + handin.key + handin.origin).encode("utf-8")


def test_two_latin1_folder_names_are_two_students(infos, tmp_path):
    for name, who in ((b"M\xfcller", "mueller"), (b"M\xf6ller", "moeller")):
        write(tmp_path / "class" / os.fsdecode(name) / "exercise-01.py", code(who))
    found = read_submissions(tmp_path / "class", staging=tmp_path / "s", exercises=infos)
    assert [(h.key, h.name) for h in found.handins] == [
        ("M_xf6ller", "M\\xf6ller"),
        ("M_xfcller", "M\\xfcller"),
    ]
    assert [h.files["exercise-01"].path.read_text() for h in found.handins] == [
        code("moeller"),
        code("mueller"),
    ]


def _archive(kind: str, entries: list[tuple[str, bytes]]) -> bytes:
    import io
    import tarfile
    import warnings
    import zipfile

    out = io.BytesIO()
    if kind == "zip":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # zipfile warns of the duplicate name
            with zipfile.ZipFile(out, "w") as zf:
                for name, data in entries:
                    zf.writestr(zipfile.ZipInfo(name, (2024, 1, 1, 0, 0, 0)), data)
    else:
        with tarfile.open(fileobj=out, mode="w") as tf:
            for name, data in entries:
                info = tarfile.TarInfo(name)
                info.size, info.mtime = len(data), 1_700_000_000
                tf.addfile(info, io.BytesIO(data))
    return out.getvalue()


@given(
    kind=st.sampled_from(["zip", "tar"]),
    copies=st.integers(2, 4),
    others=st.lists(
        st.sampled_from(["notes.txt", "exercise-05.py", "b/exercise-01.py"]), max_size=3
    ),
    at=st.lists(st.integers(0, 10), min_size=3, max_size=3),
)
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_of_same_named_entries_in_an_archive_the_last_is_graded(
    infos, tmp_path_factory, kind, copies, others, at
):
    """An archive appended to (zip) or updated with ``tar -r`` holds a file twice: unzip,
    Python's zipfile and tar give the last copy, and the grader graded the first (under a note
    that named both alike). The last is graded, and the note tells the copies apart."""
    entries = [("exercise-01.py", code(f"version {n}").encode()) for n in range(copies)]
    for n, name in enumerate(others):
        entries.insert(min(at[n], len(entries)), (name, code(f"other {n}").encode()))
    root = tmp_path_factory.mktemp("class")
    (root / f"alice.{kind}").write_bytes(_archive(kind, entries))
    [alice] = read_submissions(root, staging=tmp_path_factory.mktemp("s"), exercises=infos).handins
    graded = alice.files["exercise-01"]
    assert graded.path.read_text() == code(f"version {copies - 1}")
    assert graded.shown == (
        f"alice.{kind}:exercise-01.py (entry {copies} of {copies} of that name)"
    )
    for place in range(1, copies):  # each earlier copy is named apart, as not graded
        entry = f"alice.{kind}:exercise-01.py (entry {place} of {copies} of that name)"
        assert any(n.startswith(f"{entry} is also exercise-01; graded") for n in alice.notes)


def test_a_zip_entry_whose_name_is_cut_to_nothing_is_refused_not_a_crash(infos, tmp_path):
    """zipfile cuts an entry's name at a NUL byte; an entry named "\\x00" has no name, and
    ZipInfo.is_dir() then raised IndexError out of intake (found by the generated downloads)."""
    (tmp_path / "class").mkdir()
    data = _archive("zip", [("\x00", b"x = 1\n"), ("exercise-01.py", code("alice").encode())])
    (tmp_path / "class" / "alice.zip").write_bytes(data)
    [alice] = read_submissions(tmp_path / "class", staging=tmp_path / "s", exercises=infos).handins
    assert alice.files["exercise-01"].path.read_text() == code("alice")
    assert any("an entry without a name rejected" in p for p in alice.problems)


def test_a_hidden_student_folder_is_said_to_be_ignored_and_tool_folders_are_not(infos, tmp_path):
    """``.bob/`` (a student's folder with a leading dot) was dropped without a word: no row,
    no line. It is named among what belongs to no student; .git, .DS_Store, AppleDouble files
    and the like stay unsaid."""
    root = tmp_path / "class"
    write(root / "alice" / "exercise-01.py", code("alice"))
    write(root / ".bob" / "exercise-01.py", code("bob"))
    (root / ".carol.zip").write_bytes(zip_bytes({"exercise-01.py": code("carol")}))
    write(root / ".exercise-01.py", code("stray"))
    write(root / ".git" / "HEAD", "ref: refs/heads/main\n")
    write(root / ".ipynb_checkpoints" / "exercise-01-checkpoint.py", code("x"))
    write(root / ".DS_Store", "\x00")
    (root / "._alice.zip").write_bytes(b"\x00\x05\x16\x07")
    found = read_submissions(root, staging=tmp_path / "s", exercises=infos)
    assert [h.key for h in found.handins] == ["alice"]
    said = " ".join(found.stray)
    for name in (".bob", ".carol.zip", ".exercise-01.py"):
        assert f"{name}: hidden (its name starts with '.'); ignored" in said
    for name in (".git", ".ipynb_checkpoints", ".DS_Store", "._alice.zip"):
        assert name not in said


@given(counts=st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_the_intake_summary_spells_every_count(counts):
    """ "2 unchangeds starter": the plural rule took the first word of every phrase."""
    from grader.lms.intake import Intake, Submitted

    students, notebooks, unreadable, unchanged, problems, stray = counts
    handins = []
    for n in range(max(students, notebooks, unchanged, problems, unreadable)):
        handin = Handin(key=f"s{n}")
        if n < notebooks or n < unchanged:
            handin.files["exercise-01"] = Submitted(
                "exercise-01",
                Path("x.py"),
                "x.py",
                notebook=None,
                unchanged_starter=n < unchanged,
            )
        if n < unreadable:
            handin.unreadable["exercise-05"] = "broken"
        if n < problems:
            handin.problems.append("a problem")
        handins.append(handin)
    line = Intake(layout="folders", root=Path("."), handins=handins, stray=["x"] * stray).summary()
    for word in ("unchangeds", "studentss", "entrys", "notebookss", "files with"):
        assert word not in line
    if unchanged:
        want = "1 unchanged starter" if unchanged == 1 else f"{unchanged} unchanged starters"
        assert want in line
    if stray > 1:
        assert f"{stray} stray entries" in line


@given(
    on_time=st.sets(st.sampled_from(["exercise-01", "exercise-05"]), min_size=1),
    later=st.sets(st.sampled_from(["exercise-01", "exercise-05", "notes"]), min_size=1),
)
def test_a_students_time_is_that_of_the_submissions_whose_files_are_graded(on_time, later):
    """A later Gradescope submission that held only notes.txt made the student's time its own,
    and two days' penalty fell on work handed in on time. The time is the newest of the
    submissions a graded file comes from."""
    early = datetime(2026, 12, 1, 10, tzinfo=timezone.utc)
    late = datetime(2026, 12, 3, 10, tzinfo=timezone.utc)
    first = Handin("s1", sid="1001", submitted_at=early, origin="submission_0001/")
    second = Handin("s2", sid="1001", submitted_at=late, origin="submission_0002/")
    for handin, exercises in ((first, on_time), (second, later)):
        for exercise in exercises - {"notes"}:
            handin.files[exercise] = Submitted(
                exercise, Path(f"{handin.key}/{exercise}.py"), f"{handin.origin}{exercise}.py",
                submitted_at=handin.submitted_at,
            )  # fmt: skip
    [merged] = _merge([first, second])
    from_later = any(
        f.startswith("submission_0002") for f in (s.shown for s in merged.files.values())
    )
    assert merged.submitted_at == (late if from_later else early)
