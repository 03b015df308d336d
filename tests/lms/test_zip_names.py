"""A zip entry whose flags claim a UTF-8 name it does not have (Windows zippers writing the
machine's code page) cost the student the whole archive: Python's zipfile fails on the central
directory, so every exercise in it was unreadable. Such an entry is now read under its bytes'
name, as the file system names a file so named, and the rest of the archive with it; one entry
that cannot be read (a wrong CRC) costs that entry only."""

from __future__ import annotations

import os
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.collect import Collector
from grader.lms.handin import Handin
from grader.text import shown_name
from tests.lms.builders import code, raw_zip, write

UTF8 = 0x800
GBK_FOLDER = "作业".encode("gbk")  # b"\xd7\xf7\xd2\xb5": not UTF-8


def gather(infos, tmp: Path, folder: Path) -> Handin:
    collector = Collector(Handin("alice"), infos, tmp / "staging" / "alice")
    collector.add_folder(folder, shown="alice/")
    return collector.finish()


def test_a_gbk_name_flagged_utf8_loses_nothing(infos, tmp_path):
    archive = raw_zip(
        [
            (b"hw/exercise-01.py", code("one").encode(), 0),
            (GBK_FOLDER + b"/exercise-07.py", code("seven").encode(), UTF8),
            ("répertoire/ex5.py".encode(), code("five").encode(), UTF8),
        ]
    )
    write(tmp_path / "alice" / "work.zip", archive)
    handin = gather(infos, tmp_path, tmp_path / "alice")
    assert handin.unreadable == {}, handin.problems
    assert {e: s.path.read_text() for e, s in handin.files.items()} == {
        "exercise-01": code("one"),
        "exercise-05": code("five"),
        "exercise-07": code("seven"),
    }
    # named by its bytes, as the file system names such a file: a byte that is not UTF-8 as
    # \xNN (d2 b5 happen to be a UTF-8 letter), never a letter of the wrong code page
    assert handin.files["exercise-07"].shown == "alice/work.zip:\\xd7\\xf7\u04b5/exercise-07.py"
    assert handin.files["exercise-05"].shown == "alice/work.zip:répertoire/ex5.py"


def test_one_entry_with_a_wrong_crc_costs_that_entry_only(infos, tmp_path):
    archive = raw_zip(
        [
            (b"exercise-01.py", code("one").encode(), 0),
            (b"exercise-07.py", code("seven").encode(), 0),
        ],
        corrupt=b"exercise-07.py",
    )
    write(tmp_path / "alice" / "work.zip", archive)
    handin = gather(infos, tmp_path, tmp_path / "alice")
    assert set(handin.files) == {"exercise-01"}
    assert "alice/work.zip:exercise-07.py: cannot be read" in handin.unreadable["exercise-07"]
    assert "CRC" in handin.unreadable["exercise-07"]


_folder_bytes = st.binary(min_size=1, max_size=12).filter(
    # a separator, NUL, a hidden folder or a drive letter ("C:") is a name of its own rule
    lambda b: not any(c in b for c in b"/\\:\0") and not b.startswith(b".")
)
_exercises = ["exercise-01.py", "ex5.py", "Exercise07.py"]
_wanted = {"exercise-01.py": "exercise-01", "ex5.py": "exercise-05", "Exercise07.py": "exercise-07"}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    layout=st.lists(
        st.tuples(st.lists(_folder_bytes, max_size=2), st.booleans()),
        min_size=3,
        max_size=3,
    ),
    prefix=st.sampled_from([b"", b"#!/bin/sh\nexit 0\n"]),
    comment=st.sampled_from([b"", b"made by a zipper"]),
    zip64_end=st.booleans(),
)
def test_any_entry_names_read_as_the_same_tree_on_disk(
    infos, tmp_path_factory, layout, prefix, comment, zip64_end
):
    """Whatever bytes the folders' names hold and whatever the flags claim, every exercise in
    the archive is read, with the content and the name (from the first folder down) that the
    same tree on disk gives, where the flag claims UTF-8."""
    tmp = tmp_path_factory.mktemp("names")
    entries = []
    for (folders, flagged), base in zip(layout, _exercises, strict=True):
        name = b"/".join([*folders, base.encode()])
        entries.append((name, code(base).encode(), UTF8 if flagged else 0))
        on_disk = tmp / "disk" / "alice" / os.fsdecode(name)
        write(on_disk, code(base))
    archive = raw_zip(entries, prefix=prefix, comment=comment, zip64_end=zip64_end)
    write(tmp / "zip" / "alice" / "work.zip", archive)
    from_zip = gather(infos, tmp / "zip", tmp / "zip" / "alice")
    from_disk = gather(infos, tmp / "disk", tmp / "disk" / "alice")
    assert from_zip.unreadable == {}, from_zip.problems
    read = {e: s.path.read_text() for e, s in from_zip.files.items()}
    assert read == {_wanted[base]: code(base) for base in _exercises}
    assert read == {e: s.path.read_text() for e, s in from_disk.files.items()}
    for (name, _, flags), base in zip(entries, _exercises, strict=True):
        if flags & UTF8:
            shown = from_zip.files[_wanted[base]].shown
            as_named = shown_name(name.decode("utf-8", "surrogateescape"))
            assert shown == "alice/work.zip:" + as_named
            assert from_disk.files[_wanted[base]].shown == "alice/" + as_named
