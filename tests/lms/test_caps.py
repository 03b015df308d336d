"""Intake's caps (docs/LMS.md, "Caps"): one student's archives cannot make intake hold, read or
decompress more than the per-student caps, a student over a cap keeps what came before it and
is flagged, their classmates are untouched, and a class over a class cap stops with a usage
error instead of dropping anyone in silence."""

from __future__ import annotations

import io
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from grader.errors import UsageError
from grader.lms import collect
from grader.lms.collect import Collector
from grader.lms.handin import Handin
from grader.lms.intake import read_submissions
from tests.lms.builders import code, tar_bytes, write

MIB = 1 << 20


def deflated(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def bomb_zip(copies: int = 8) -> bytes:
    """Under 64 KiB on disk, ``copies`` times 4 MiB of valid exercise-05 code inside: each
    member is within the per-file cap, the archive within the per-archive cap."""
    body = b"def scale(x):\n    return 2 * x\n" + b"#" * (collect.MAX_SOURCE_BYTES - 64)
    return deflated({f"copy{i}/exercise-05.py": body for i in range(copies)})


def gather(infos, tmp_path: Path, folder: Path, name: str = "bob") -> tuple[Handin, Collector]:
    collector = Collector(Handin(name), infos, tmp_path / "staging" / name)
    collector.add_folder(folder, shown=f"{name}/")
    return collector.finish(), collector


def test_many_small_archives_cannot_make_intake_hold_gigabytes(infos, tmp_path):
    """Issue 21's example: many archives of 64 KiB from one student. Intake holds at most
    the per-student byte cap (plus the one file being read), and the student keeps what
    came first: their exercise-01 (first in name order) is graded."""
    folder = tmp_path / "bob"
    write(folder / "a-first.zip", deflated({"exercise-01.py": code("bob 1").encode()}))
    data = bomb_zip()
    assert len(data) < 64 << 10
    for i in range(12):  # 12 x 8 x 4 MiB = 384 MiB, were it all read
        write(folder / f"b{i:02d}.zip", data)
    tracemalloc.start()
    try:
        handin, collector = gather(infos, tmp_path, folder)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < collect.MAX_STUDENT_BYTES + 2 * collect.MAX_SOURCE_BYTES + 16 * MIB, peak
    assert collector.held <= collect.MAX_STUDENT_BYTES + collect.MAX_SOURCE_BYTES + 1
    assert "exercise-01" in handin.files
    assert handin.files["exercise-01"].path.read_text() == code("bob 1")
    assert any(
        "over intake's per-student cap" in p and "needs a look" in p for p in handin.problems
    )


def test_more_archives_than_the_cap_are_not_opened(infos, tmp_path):
    folder = tmp_path / "bob"
    for i in range(collect.MAX_STUDENT_ARCHIVES + 4):
        write(folder / f"a{i:02d}.zip", deflated({f"notes{i}.txt": b"x"}))
    handin, collector = gather(infos, tmp_path, folder)
    assert collector.archives == collect.MAX_STUDENT_ARCHIVES + 1
    problems = "\n".join(handin.problems)
    assert f"more than {collect.MAX_STUDENT_ARCHIVES} archives" in problems
    assert "needs a look" in problems
    # nothing was found: every exercise is unreadable (a look), never plainly "missing"
    assert set(handin.unreadable) == set(infos)


def test_a_tar_gz_that_inflates_past_the_ratio_is_not_read_to_the_end(infos, tmp_path):
    folder = tmp_path / "bob"
    huge = b"\0" * (collect.RATIO_FLOOR + 4 * MIB)  # not an exercise file: only streamed past
    write(folder / "work.tar.gz", tar_bytes({"data.bin": huge, "z/exercise-01.py": code("1")}))
    handin, collector = gather(infos, tmp_path, folder)
    assert f"compressed more than {collect.MAX_RATIO}:1" in "\n".join(handin.problems)
    assert collector.inflated <= collect.RATIO_FLOOR + 1 or collector.inflated < 20 * MIB
    assert "exercise-01" not in handin.files


def test_decompression_is_capped_per_student(infos, tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_STUDENT_INFLATE", 8 * MIB)
    folder = tmp_path / "bob"
    filler = bytes(range(256)) * (4096 * 3)  # 3 MiB that compress poorly
    for i in range(4):
        write(folder / f"w{i}.tar.gz", tar_bytes({f"f{i}.bin": filler}))
    handin, collector = gather(infos, tmp_path, folder)
    assert collector.inflated <= 8 * MIB + 1
    assert "MiB decompressed from archives" in "\n".join(handin.problems)


def test_a_student_over_a_cap_never_touches_a_classmate(infos, tmp_path):
    root = tmp_path / "class"
    write(root / "alice" / "exercise-01.py", code("alice 1"))
    write(root / "carol" / "exercise-05.py", code("carol 5"))
    data = bomb_zip()
    for i in range(12):
        write(root / "bob" / f"b{i:02d}.zip", data)
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=infos)
    by_key = {h.key: h for h in intake.handins}
    assert by_key["alice"].files["exercise-01"].path.read_text() == code("alice 1")
    assert by_key["carol"].files["exercise-05"].path.read_text() == code("carol 5")
    for name in ("alice", "carol"):
        assert not any("cap" in p for p in by_key[name].problems), by_key[name].problems
    assert any("over intake's per-student cap" in p for p in by_key["bob"].problems)


def test_a_class_over_the_class_cap_is_a_usage_error_naming_who(infos, tmp_path, monkeypatch):
    monkeypatch.setattr(collect, "MAX_CLASS_BYTES", 2 * MIB)
    root = tmp_path / "class"
    write(root / "alice" / "exercise-01.py", code("alice 1"))
    big = code("bob 5") + "#" * (3 * MIB)
    write(root / "bob" / "exercise-05.py", big)
    with pytest.raises(UsageError, match="class cap") as caught:
        read_submissions(root, staging=tmp_path / "staging", exercises=infos)
    assert "bob" in caught.value.message
