"""A student's archive is hostile bytes: whatever its members' compression and its central
directory hold, intake reads what it can, refuses the rest with a problem, and never raises."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms import collect
from grader.lms.collect import Collector
from grader.lms.handin import Handin
from tests.conftest import FIXTURES, run_cli
from tests.lms.builders import code, raw_zip, write

COURSE = FIXTURES / "lms-course"

METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def gather(infos, tmp: Path, folder: Path) -> Handin:
    collector = Collector(Handin("alice"), infos, tmp / "staging" / "alice")
    collector.add_folder(folder, shown="alice/")
    return collector.finish()


def _zip(members: dict[str, str], method: int) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=method) as zf:
        for name, text in members.items():
            zf.writestr(name, text)
    return buffer.getvalue()


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    method=st.sampled_from(METHODS),
    at=st.integers(min_value=0, max_value=40),
    byte=st.integers(min_value=0, max_value=255),
)
def test_a_damaged_member_in_any_compression_is_refused_alone(
    infos, tmp_path_factory, method, at, byte
):
    """A member whose compressed bytes are damaged: LZMA's decoder raised its own error
    (``LZMAError``, no OSError or ValueError), which left intake, and ``grade batch``, with a
    traceback. Whatever the method, that member is unreadable and the others are read."""
    tmp = tmp_path_factory.mktemp("damaged")
    data = bytearray(_zip({"exercise-01.py": code("alice 1"), "ex5.py": code("alice 5")}, method))
    with zipfile.ZipFile(io.BytesIO(bytes(data))) as zf:
        info = zf.getinfo("exercise-01.py")
    start = info.header_offset + 30 + len(info.filename.encode())  # the member's data
    data[start + at % info.compress_size] ^= byte or 0xFF
    write(tmp / "alice" / "work.zip", bytes(data))
    handin = gather(infos, tmp, tmp / "alice")
    assert "exercise-05" in handin.files
    assert ("exercise-01" in handin.files) != ("exercise-01" in handin.unreadable)


def _directory_spy(monkeypatch) -> list[object]:
    opened: list[object] = []
    real = zipfile.ZipFile

    def spy(*args, **kwargs):
        opened.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(collect.zipfile, "ZipFile", spy)
    return opened


@pytest.mark.parametrize("count_says", [None, 1])
def test_a_zip_of_too_many_entries_is_refused_before_its_directory_is_parsed(
    infos, tmp_path, monkeypatch, count_says
):
    """A zip bomb by count: ``zipfile`` builds an object for every entry of the central
    directory before intake could count them (300,000 empty entries, 24 MiB, held 200 MiB;
    a few hundred MiB of them, the grader's memory). The directory's entries are counted
    first, by walking it (the end record's count, ``count_says``, may lie)."""
    monkeypatch.setattr(collect, "MAX_ARCHIVE_MEMBERS", 3)
    opened = _directory_spy(monkeypatch)
    entries = [(f"f{i}.txt".encode(), b"x", 0) for i in range(5)]
    data = bytearray(raw_zip([(b"exercise-01.py", code("alice 1").encode(), 0), *entries]))
    if count_says is not None:  # the end record claims one entry; the directory holds six
        end = data.rfind(b"PK\x05\x06")
        data[end + 8 : end + 12] = count_says.to_bytes(2, "little") * 2
    write(tmp_path / "alice" / "many.zip", bytes(data))
    handin = gather(infos, tmp_path, tmp_path / "alice")
    assert "alice/many.zip: more than 3 entries; not graded" in handin.problems
    assert opened == []
    assert handin.files == {}
    assert "exercise-01" in handin.unreadable


def test_a_zip_within_the_entry_cap_is_still_read(infos, tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_ARCHIVE_MEMBERS", 3)
    data = raw_zip(
        [(b"exercise-01.py", code("alice 1").encode(), 0), (b"a.txt", b"x", 0)],
        prefix=b"#!/bin/sh\nexit 0\n",  # a self-extracting stub before the archive
        zip64_end=True,
    )
    write(tmp_path / "alice" / "few.zip", data)
    handin = gather(infos, tmp_path, tmp_path / "alice")
    assert set(handin.files) == {"exercise-01"}, handin.problems


def _tar_claiming(size: int, fmt: int) -> bytes:
    """A tar whose second member's header gives it ``size`` bytes (a pax record, or GNU's
    base-256 number), and holds none of them."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as tf:
        first = code("alice 1").encode()
        info = tarfile.TarInfo("exercise-01.py")
        info.size = len(first)
        tf.addfile(info, io.BytesIO(first))
        claim = tarfile.TarInfo("data.bin")
        claim.size = size
        tf.addfile(claim)  # the header alone
    return buffer.getvalue()


@pytest.mark.timeout(60)
@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    digits=st.integers(min_value=10, max_value=120),
    fmt=st.sampled_from([tarfile.PAX_FORMAT, tarfile.GNU_FORMAT]),
    gz=st.booleans(),
)
def test_a_tar_member_claiming_more_than_the_cap_ends_the_read_at_once(
    infos, tmp_path_factory, digits, fmt, gz
):
    """tarfile passes a member by reading its data block by block, and goes on at the end of
    the stream: a 10 KiB tar whose header gave a member 10**100 bytes held ``grade batch``
    for ever. The archive is over its cap, said at that header."""
    if fmt == tarfile.GNU_FORMAT:
        digits = min(digits, 26)  # base-256 in 11 bytes: below 256**11
    tmp = tmp_path_factory.mktemp("claims")
    data = _tar_claiming(10**digits - 1, fmt)
    write(tmp / "alice" / ("work.tgz" if gz else "work.tar"), gzip.compress(data) if gz else data)
    handin = gather(infos, tmp, tmp / "alice")
    assert any("not read to the end" in p for p in handin.problems), handin.problems
    assert ("exercise-01" in handin.files) != ("exercise-01" in handin.unreadable)


def test_a_tar_member_within_the_cap_that_the_stream_lacks_ends_as_before(infos, tmp_path):
    """A truncated archive whose header gives a size the cap allows: tarfile stops at the end
    of the stream, and the members before it are read."""
    write(tmp_path / "alice" / "work.tar", _tar_claiming(1 << 20, tarfile.PAX_FORMAT))
    handin = gather(infos, tmp_path, tmp_path / "alice")
    assert set(handin.files) == {"exercise-01"}, handin.problems


@pytest.mark.slow
def test_grade_batch_on_hostile_archives_ends_with_a_documented_exit(tmp_path):
    """``grade batch`` as an instructor runs it, on a class where one student's zip holds a
    damaged LZMA member (it raised LZMAError out of intake) and another's tar gives a member
    10**100 bytes (it hung intake): both are named, the classmate is graded, and the exit code
    is one the README documents, with no traceback."""
    root = tmp_path / "class"
    write(root / "alice" / "exercise-01.py", code("alice 1"))
    data = bytearray(_zip({"exercise-01.py": code("bob 1")}, zipfile.ZIP_LZMA))
    data[30 + len("exercise-01.py") + 2] ^= 0x01  # the LZMA properties of its one member
    write(root / "bob.zip", bytes(data))
    write(root / "carol.tar", _tar_claiming(10**100 - 1, tarfile.PAX_FORMAT))
    out = tmp_path / "out"
    done = run_cli("batch", str(root), "--out", str(out), "--jobs", "2", home=COURSE, timeout=300)
    assert done.returncode in (0, 1), done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "bob.zip:exercise-01.py: cannot be read" in done.stdout, done.stdout
    assert "carol.tar: not read to the end" in done.stdout, done.stdout
    assert (out / "gradebook.csv").is_file()
