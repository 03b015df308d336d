"""Reading one student's work safely: every protection of intake, and which file is graded."""

from __future__ import annotations

import io
import os
import tarfile
import time
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.lms import collect
from grader.lms.collect import Collector
from grader.lms.handin import Handin
from tests.lms.builders import (
    STARTER,
    code,
    fifo,
    flag_encrypted,
    hostile_tar,
    hostile_zip,
    notebook,
    tar_bytes,
    write,
    zip_bytes,
)


def gather(infos, tmp_path: Path, folder: Path) -> Handin:
    collector = Collector(Handin("alice"), infos, tmp_path / "staging" / "alice")
    collector.add_folder(folder, shown="alice/")
    return collector.finish()


@pytest.mark.timeout(20)
def test_a_fifo_never_hangs_intake_and_links_are_not_followed(infos, tmp_path):
    folder = tmp_path / "alice"
    fifo(folder / "exercise-05.py")
    secret = write(tmp_path / "secret.py", "TOKEN = 'hidden tests'\n")
    (folder / "exercise-01.py").symlink_to(secret)
    (folder / "linked").symlink_to(tmp_path)  # a link to a folder is not walked
    write(folder / "exercise-07.py", code("alice 7"))
    handin = gather(infos, tmp_path, folder)
    assert set(handin.files) == {"exercise-07"}
    assert handin.unreadable == {
        "exercise-05": "alice/exercise-05.py: not a regular file (a FIFO, socket or device); not read",
        "exercise-01": "alice/exercise-01.py: a symbolic link; not followed",
    }
    assert "alice/linked: a symbolic link; not followed" in handin.problems
    staged = handin.files["exercise-07"].path
    assert staged.read_text() == code("alice 7") and staged.is_relative_to(tmp_path / "staging")


def test_a_hostile_zip_is_refused_entry_by_entry(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "work.zip", hostile_zip())
    handin = gather(infos, tmp_path, folder)
    problems = "\n".join(handin.problems)
    assert "unsafe path '../../exercise-01.py' rejected" in problems
    assert "unsafe path '/etc/exercise-05.py' rejected" in problems
    assert "unsafe path 'C:/Windows/exercise-05.py' rejected" in problems
    # entries named like an exercise make it unreadable (handed in, not missing), as on disk
    assert "work.zip:exercise-07.py: a symbolic link; rejected; scored 0" in problems
    assert "work.zip:dev/exercise-05.py: not a regular file; rejected" in problems
    assert "work.zip:locked/exercise-05.py: encrypted; not graded" in problems
    assert "work.zip:bomb/exercise-01.py: too large; not graded" in problems
    assert set(handin.unreadable) == {"exercise-01", "exercise-05", "exercise-07"}
    assert handin.files == {}
    assert not (tmp_path / "exercise-01.py").exists()
    staged = list((tmp_path / "staging").rglob("*.py"))
    assert staged == []


def test_a_hostile_tar_is_refused_entry_by_entry(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "work.tar.gz", hostile_tar())
    handin = gather(infos, tmp_path, folder)
    problems = "\n".join(handin.problems)
    assert "unsafe path '../exercise-01.py' rejected" in problems
    assert "unsafe path '/tmp/exercise-05.py' rejected" in problems
    assert "work.tar.gz:exercise-07.py: a link; rejected; scored 0" in problems
    assert "work.tar.gz:hard/exercise-07.py: a link; rejected; scored 0" in problems
    assert (
        "work.tar.gz:fifo/exercise-05.py: not a regular file (a device or FIFO); rejected; "
        "graded alice/work.tar.gz:ok/exercise-05.py instead" in problems
    )
    assert "dev/exercise-01.py: not a regular file (a device or FIFO); rejected" in problems
    assert "big/exercise-05.py: too large; not graded; graded alice/work.tar.gz:ok/" in problems
    assert set(handin.unreadable) == {"exercise-01", "exercise-07"}
    assert set(handin.files) == {"exercise-05"}
    assert handin.files["exercise-05"].shown == "alice/work.tar.gz:ok/exercise-05.py"


def test_a_gzip_bomb_costs_only_the_stream_cap(infos, tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_TAR_STREAM_BYTES", 1 << 20)
    folder = tmp_path / "alice"
    write(folder / "bomb.tgz", tar_bytes({"zeros.bin": b"\0" * (3 << 20), "ex1.py": "a = 1\n"}))
    handin = gather(infos, tmp_path, folder)
    assert "alice/bomb.tgz: more than 1 MiB uncompressed; not read to the end; not graded" in (
        handin.problems
    )
    assert handin.files == {}
    assert set(handin.unreadable) == set(infos)  # nothing of it can be trusted as missing


def test_archive_caps_on_members_and_total_size(infos, tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_ARCHIVE_MEMBERS", 3)
    folder = tmp_path / "alice"
    write(folder / "many.zip", zip_bytes({f"f{i}.txt": "x" for i in range(4)}))
    handin = gather(infos, tmp_path, folder)
    assert "alice/many.zip: more than 3 entries; not graded" in handin.problems
    monkeypatch.setattr(collect, "MAX_ARCHIVE_MEMBERS", 2000)
    monkeypatch.setattr(collect, "MAX_ARCHIVE_BYTES", 100)
    write(folder / "many.zip", zip_bytes({"a/ex1.py": "#" * 60, "b/ex5.py": "#" * 60}))
    handin = gather(infos, tmp_path, folder)
    assert set(handin.files) == {"exercise-01"}
    # each file is small: it is the archive's total that is over, and the message says so
    assert (
        "alice/many.zip:b/ex5.py: not read: the archive's files together pass 100 bytes; "
        "not graded; scored 0" in handin.problems
    )
    assert not any("too large" in p for p in handin.problems)


def test_an_unreadable_archive_makes_every_exercise_unreadable_not_missing(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "work.zip", b"PK\x03\x04 this is not really a zip")
    write(folder / "exercise-07.py", code("alice 7"))
    handin = gather(infos, tmp_path, folder)
    assert set(handin.files) == {"exercise-07"}
    assert set(handin.unreadable) == {"exercise-01", "exercise-05"}
    assert "not a readable zip archive" in handin.unreadable["exercise-01"]


def test_an_archive_inside_an_archive_is_not_opened(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "outer.zip", zip_bytes({"inner.zip": zip_bytes({"ex1.py": "a = 1\n"})}))
    handin = gather(infos, tmp_path, folder)
    assert handin.files == {}
    assert "alice/outer.zip:inner.zip: an archive inside an archive; not opened" in (
        handin.problems
    )


def test_huge_and_deep_folders_are_summarised(infos, tmp_path, monkeypatch):
    folder = tmp_path / "alice"
    for i in range(40):
        write(folder / "data" / f"sample-{i:02d}.csv", "1,2\n")
    write(folder / "exercise-07.py", code("alice"))
    handin = gather(infos, tmp_path, folder)
    assert set(handin.files) == {"exercise-07"}
    assert handin.problems == [
        "40 files are no exercise file; ignored, e.g. alice/data/sample-00.csv, "
        "alice/data/sample-01.csv, alice/data/sample-02.csv, alice/data/sample-03.csv, "
        "alice/data/sample-04.csv, ..."
    ]
    monkeypatch.setattr(collect, "MAX_WALK_ENTRIES", 10)
    handin = gather(infos, tmp_path, folder)
    assert "alice/: more than 10 entries; only the first 10 were looked at" in handin.problems
    monkeypatch.setattr(collect, "MAX_WALK_ENTRIES", 10_000)
    monkeypatch.setattr(collect, "MAX_DEPTH", 2)
    write(folder / "a" / "b" / "c" / "ex1.py", "a = 1\n")
    handin = gather(infos, tmp_path, folder)
    assert "alice/a/b/c/: more than 2 folders deep; ignored" in handin.problems


def test_the_latest_file_of_an_exercise_is_graded(infos, tmp_path):
    now = time.time()
    folder = tmp_path / "alice"
    write(folder / "exercise-07.py", code("old"), mtime=now - 3600)
    write(folder / "backup" / "ex7.py", code("new"), mtime=now)
    handin = gather(infos, tmp_path, folder)
    chosen = handin.files["exercise-07"]
    assert chosen.shown == "alice/backup/ex7.py"
    assert chosen.path.read_text() == code("new")
    assert chosen.path.name == "exercise-07.py"  # staged under the learner file's name
    assert "alice/backup/ex7.py taken as exercise-07" in chosen.notes
    assert (
        "alice/exercise-07.py is also exercise-07; graded alice/backup/ex7.py (its file date "
        "is later)" in chosen.notes
    )


def test_file_times_a_copy_apart_do_not_decide_the_exact_name_does(infos, tmp_path):
    now = int(time.time()) // 2 * 2
    folder = tmp_path / "alice"
    write(folder / "exercise-07.py", code("exact"), mtime=now)
    write(folder / "ex7.py", code("short"), mtime=now + 0.4)  # copied a moment later
    handin = gather(infos, tmp_path, folder)
    assert handin.files["exercise-07"].shown == "alice/exercise-07.py"
    assert "(its name is the exercise's own)" in handin.files["exercise-07"].notes[-1]


def test_the_platforms_order_decides_where_it_has_no_times(infos, tmp_path):
    collector = Collector(Handin("4711"), infos, tmp_path / "s", use_mtime=False)
    older = write(tmp_path / "a", code("first upload"))
    newer = write(tmp_path / "b", code("resubmission"))
    collector.add_file(newer, name="exercise-07-1.py", shown="b", sequence=88240)
    collector.add_file(older, name="exercise-07.py", shown="a", sequence=88231)
    handin = collector.finish()
    assert handin.files["exercise-07"].path.read_text() == code("resubmission")
    assert handin.files["exercise-07"].submitted_at is None
    assert "a is also exercise-07; graded b (uploaded later)" in handin.files["exercise-07"].notes


def test_a_file_against_an_archive_by_file_dates_is_a_guess_to_check(infos, tmp_path):
    """An archive's date is when that file was written or copied, not when its members were:
    an older zip copied today beat newer work as "handed in later". The choice is kept (the
    later date), and the instructor is asked to check it."""
    now = time.time()
    folder = tmp_path / "jane"
    write(folder / "exercise-07.py", code("newer work"), mtime=now - 3600)
    write(folder / "old.zip", zip_bytes({"exercise-07.py": code("older work")}), mtime=now)
    handin = gather(infos, tmp_path, folder)
    assert handin.files["exercise-07"].shown == "alice/old.zip:exercise-07.py"
    (problem,) = [p for p in handin.problems if "is also exercise-07" in p]
    assert collect.UNSURE_ORDER in problem
    assert not any("handed in later" in n for n in handin.files["exercise-07"].notes)


def test_archives_without_times_are_ordered_by_the_platforms_upload_order(infos, tmp_path):
    """Canvas gives no times: two zips of one student are ordered by file id, whatever order
    they are read in (a time of -inf made every rank NaN, and the order was the listing's)."""
    for first in ("older", "newer"):
        collector = Collector(Handin("4711"), infos, tmp_path / first / "s", use_mtime=False)
        older = write(tmp_path / first / "a.zip", zip_bytes({"exercise-07.py": code("older")}))
        newer = write(tmp_path / first / "b.zip", zip_bytes({"exercise-07.py": code("newer")}))
        archives = [(older, 88231), (newer, 88240)]
        for path, sequence in archives if first == "older" else archives[::-1]:
            collector.add_archive(path, shown=path.name, sequence=sequence)
        handin = collector.finish()
        assert handin.files["exercise-07"].path.read_text() == code("newer"), first


def test_an_unreadable_newest_file_falls_back_to_the_next_with_a_problem(infos, tmp_path):
    now = time.time()
    folder = tmp_path / "alice"
    write(folder / "exercise-07.py", code("works"), mtime=now - 60)
    write(folder / "exercise-07.ipynb", b"{ not json", mtime=now)
    write(folder / "exercise-05.py", b"#" * ((4 << 20) + 1))
    handin = gather(infos, tmp_path, folder)
    assert handin.files["exercise-07"].shown == "alice/exercise-07.py"
    assert any(
        p.startswith("alice/exercise-07.ipynb: not a notebook: ")
        and "not valid JSON" in p
        and p.endswith("; graded alice/exercise-07.py instead")
        for p in handin.problems
    )
    assert handin.unreadable == {"exercise-05": "alice/exercise-05.py: larger than 4 MiB"}
    assert "alice/exercise-05.py: larger than 4 MiB; scored 0" in handin.problems


def test_a_notebook_is_staged_as_its_code_with_its_cell_map(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "Exercise07.ipynb", notebook("%matplotlib inline\nimport torch", "x = 1"))
    handin = gather(infos, tmp_path, folder)
    submitted = handin.files["exercise-07"]
    assert submitted.path.name == "exercise-07.py"
    assert submitted.path.read_text() == "# %% cell 2\nimport torch\n\n# %% cell 3\nx = 1\n"
    assert submitted.notebook is not None and submitted.notebook.locate(5) == (3, 1)
    assert "alice/Exercise07.ipynb: a notebook; its code cells are graded" in submitted.notes
    assert any("%matplotlib inline left out" in n for n in submitted.notes)


def test_unchanged_starters_are_flagged_whatever_the_line_endings(infos, tmp_path):
    folder = tmp_path / "alice"
    starter = STARTER["exercise-01"].replace("\n", "   \r\n") + "\r\n\r\n"
    write(folder / "exercise-01.py", starter.encode())
    write(folder / "exercise-05.ipynb", notebook(STARTER["exercise-05"]))
    write(folder / "exercise-07.py", code("real work"))
    handin = gather(infos, tmp_path, folder)
    assert handin.files["exercise-01"].unchanged_starter
    assert handin.files["exercise-05"].unchanged_starter  # a notebook of the starter too
    assert not handin.files["exercise-07"].unchanged_starter
    assert "alice/exercise-01.py: the unchanged starter file of exercise-01" in handin.problems


def test_a_rerun_replaces_the_staging_folder(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "exercise-01.py", code("one"))
    write(folder / "exercise-05.py", code("five"))
    gather(infos, tmp_path, folder)
    os.unlink(folder / "exercise-05.py")
    handin = gather(infos, tmp_path, folder)
    assert set(handin.files) == {"exercise-01"}
    assert not (tmp_path / "staging" / "alice" / "exercise-05").exists()


def test_a_flood_of_refused_entries_is_one_line(infos, tmp_path):
    folder = tmp_path / "alice"
    write(folder / "evil.zip", zip_bytes({f"../x{i:03d}/exercise-01.py": "x" for i in range(50)}))
    handin = gather(infos, tmp_path, folder)
    (line,) = handin.problems
    assert line.startswith(
        "50 entries were refused, e.g. alice/evil.zip: unsafe path '../x000/exercise-01.py' "
        "rejected; "
    )


# -- a refused archive member named like an exercise ------------------------------------------


def _refused_zip(member: str, how: str) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        if how == "link":
            info = zipfile.ZipInfo(member)
            info.external_attr = 0o120777 << 16
            zf.writestr(info, "/etc/passwd")
        elif how == "device":
            info = zipfile.ZipInfo(member)
            info.external_attr = 0o020644 << 16
            zf.writestr(info, "")
        elif how == "too large":
            zf.writestr(member, b"#" * (collect.MAX_SOURCE_BYTES + 1))
        else:
            zf.writestr(member, "x = 1\n")
    data = buffer.getvalue()
    return flag_encrypted(data, member) if how == "encrypted" else data


def _refused_tar(member: str, how: str) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        info = tarfile.TarInfo(member)
        if how == "link":
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tf.addfile(info)
        elif how == "device":
            info.type = tarfile.CHRTYPE
            tf.addfile(info)
        else:  # too large
            data = b"#" * (collect.MAX_SOURCE_BYTES + 1)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    archive=st.sampled_from(["zip", "tar.gz"]),
    how=st.sampled_from(["link", "device", "encrypted", "too large"]),
    folder=st.sampled_from(["", "hw/", "a/b/"]),
    exercise=st.sampled_from(["exercise-01.py", "ex5.py", "Exercise07.py"]),
)
def test_a_refused_member_named_like_an_exercise_makes_it_unreadable_not_missing(
    infos, tmp_path_factory, archive, how, folder, exercise
):
    """As a link or FIFO on disk does: the student handed something in. It was "missing",
    and its feedback told the student they had handed nothing in."""
    assume(not (archive == "tar.gz" and how == "encrypted"))
    tmp = tmp_path_factory.mktemp("refused")
    member = folder + exercise
    data = _refused_zip(member, how) if archive == "zip" else _refused_tar(member, how)
    write(tmp / "alice" / f"work.{archive}", data)
    handin = gather(infos, tmp, tmp / "alice")
    wanted = {"exercise-01.py": "exercise-01", "ex5.py": "exercise-05"}.get(exercise, "exercise-07")
    assert handin.files == {}
    assert wanted in handin.unreadable, (handin.unreadable, handin.problems)
    assert f"work.{archive}:{member}" in handin.unreadable[wanted]
    assert wanted not in handin.unread_work  # the grader's limits are not the reason: a 0
