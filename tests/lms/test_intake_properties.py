"""Generated downloads, in every layout (plain folders, Canvas, Moodle, a Gradescope export),
with one honest student and one hostile one whose folder, files and archives (.zip, .tar.gz)
have generated names (non-UTF-8 bytes, control codes, ``..``, absolute paths, very long
names), bytes, links (symbolic and hard, in tar, pointing outside), sizes and counts.

The invariant, for every example: intake returns (never raises, never a traceback); nothing
is written outside the staging folder (the download is unchanged, the place the links and
absolute paths point at stays empty); intake's memory stays under its per-student cap; every
staged file lies in the staging folder; every text anyone reads encodes as UTF-8; the honest
classmate keeps exactly their file.

Intake only, no grading: ``test_batch_on_generated_downloads`` (slow) grades a handful."""

from __future__ import annotations

import csv
import io
import json
import os
import stat
import tarfile
import tracemalloc
import warnings
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms import collect
from grader.lms.intake import read_submissions
from tests.conftest import FIXTURES, run_cli
from tests.lms.builders import code, exercises

HONEST = code("alice 1")
EXERCISE_NAMES = [
    "exercise-01.py",
    "exercise-05.py",
    "ex7.py",
    "Exercise05.ipynb",
    "exercise-07 (1).py",
    "notes.txt",
    "inner.zip",
    "inner.tar.gz",
]

# -- names -----------------------------------------------------------------------------------

control = st.characters(min_codepoint=0, max_codepoint=0x1F) | st.characters(
    min_codepoint=0x7F, max_codepoint=0x9F
)
wild = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0") | control,
    min_size=1,
    max_size=12,
)
undecodable = st.binary(min_size=1, max_size=8).map(
    lambda b: os.fsdecode(b.replace(b"/", b"_").replace(b"\0", b"_") or b"_")
)
component = st.one_of(
    st.sampled_from(EXERCISE_NAMES),
    st.sampled_from(["..", ".", ".hidden", "__MACOSX", "a" * 120]),
    wild,
    undecodable,
    st.builds(lambda a, b: a + b, wild, st.sampled_from(EXERCISE_NAMES)),
)
relative = st.lists(component, min_size=1, max_size=3).map("/".join)
member_name = st.one_of(
    relative,
    relative.map(lambda n: "/" + n),
    relative.map(lambda n: "C:/" + n),
    st.just("../../outside/exercise-01.py"),
)


def disk_name(text: str) -> str:
    """A name the file system accepts: one component, no NUL, at most 200 bytes."""
    raw = os.fsencode(text).replace(b"/", b"_").replace(b"\0", b"_")[:200]
    name = os.fsdecode(raw) or "_"
    return "_" + name if name in (".", "..") else name


contents = st.one_of(
    st.just(HONEST.encode()),
    st.binary(max_size=300),
    st.just(b"{not json"),
    st.just(json.dumps({"cells": [{"cell_type": "code", "source": 5}]}).encode()),
)
big = st.integers(0, 2).map(lambda k: b"#" * (collect.MAX_SOURCE_BYTES + k - 1))


@dataclass(frozen=True)
class Member:
    name: str
    data: bytes
    kind: str  # "file", "symlink", "hardlink", "dir"


members = st.lists(
    st.builds(
        Member,
        member_name,
        contents,
        st.sampled_from(["file", "file", "file", "symlink", "hardlink", "dir"]),
    ),
    max_size=6,
)


@dataclass(frozen=True)
class Upload:
    """One thing the hostile student handed in: a file, a link, an archive."""

    name: str
    kind: str  # "file", "symlink", "zip", "tgz"
    data: bytes = b""
    members: tuple[Member, ...] = ()


uploads = st.lists(
    st.one_of(
        st.builds(Upload, component, st.just("file"), contents | big),
        st.builds(Upload, component, st.just("symlink")),
        st.builds(Upload, component, st.just("zip"), st.just(b""), members.map(tuple)),
        st.builds(Upload, component, st.just("tgz"), st.just(b""), members.map(tuple)),
    ),
    max_size=5,
)

# -- building a download ---------------------------------------------------------------------


def zip_of(items: tuple[Member, ...]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        warnings.simplefilter("ignore")  # duplicate names are part of what is generated
        for item in items:
            name = item.name.encode("utf-8", "replace").decode("utf-8")  # zip names are text
            info = zipfile.ZipInfo(name + ("/" if item.kind == "dir" else ""))
            if item.kind == "symlink":
                info.create_system = 3
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
                zf.writestr(info, "../../outside/exercise-01.py")
            else:
                zf.writestr(info, b"" if item.kind == "dir" else item.data)
    return buffer.getvalue()


def tgz_of(items: tuple[Member, ...]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(
        fileobj=buffer, mode="w:gz", encoding="utf-8", errors="surrogateescape"
    ) as tf:
        for item in items:
            info = tarfile.TarInfo(item.name)
            if item.kind == "symlink":
                info.type, info.linkname = tarfile.SYMTYPE, "../../outside/exercise-01.py"
                tf.addfile(info)
            elif item.kind == "hardlink":
                info.type, info.linkname = tarfile.LNKTYPE, "/etc/passwd"
                tf.addfile(info)
            elif item.kind == "dir":
                info.type = tarfile.DIRTYPE
                tf.addfile(info)
            else:
                info.size = len(item.data)
                tf.addfile(info, io.BytesIO(item.data))
    return buffer.getvalue()


def put(folder: Path, upload: Upload, outside: Path, *, prefix: str = "") -> None:
    target = folder / disk_name(prefix + upload.name)
    if upload.kind in ("zip", "tgz") and not target.name.endswith((".zip", ".tar.gz")):
        target = target.with_name(
            target.name[:190] + (".zip" if upload.kind == "zip" else ".tar.gz")
        )
    if os.path.lexists(target):
        return
    folder.mkdir(parents=True, exist_ok=True)
    if upload.kind == "symlink":
        target.symlink_to(outside / "exercise-01.py")
    elif upload.kind == "zip":
        target.write_bytes(zip_of(upload.members))
    elif upload.kind == "tgz":
        target.write_bytes(tgz_of(upload.members))
    else:
        target.write_bytes(upload.data)


def build(layout: str, root: Path, folder_name: str, items: list[Upload], outside: Path) -> None:
    """A download in ``layout`` with honest Alice (exercise-01) and the hostile student."""
    root.mkdir(parents=True)
    hostile = disk_name(folder_name)
    if layout == "folders":
        (root / "alice").mkdir()
        (root / "alice" / "exercise-01.py").write_text(HONEST)
        for item in items:
            put(root / ("x" + hostile), item, outside)
    elif layout == "canvas":
        (root / "leealice_4711_88001_exercise-01.py").write_text(HONEST)
        for i, item in enumerate(items):
            put(root, item, outside, prefix=f"evil_4799_{89000 + i}_")
    elif layout == "moodle":
        alice = root / "Alice Lee_1000001_assignsubmission_file_"
        alice.mkdir()
        (alice / "exercise-01.py").write_text(HONEST)
        for item in items:
            put(root / "Eve Evil_1000099_assignsubmission_file_", item, outside)
    else:  # gradescope
        (root / "submission_metadata.yml").write_text(
            "submission_1:\n  :submitters:\n  - :name: Alice Lee\n    :sid: '1'\n"
            "submission_2:\n  :submitters:\n  - :name: Eve Evil\n    :sid: '2'\n"
        )
        (root / "submission_1").mkdir()
        (root / "submission_1" / "exercise-01.py").write_text(HONEST)
        (root / "submission_2").mkdir()
        for item in items:
            put(root / "submission_2", item, outside)


def snapshot(folder: Path, skip: Path) -> dict[str, tuple[int, bytes | None]]:
    found = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        if Path(dirpath) == skip or skip in Path(dirpath).parents:
            dirnames[:] = []
            continue
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            if path == skip:
                continue
            info = path.lstat()
            data = path.read_bytes() if stat.S_ISREG(info.st_mode) else None
            found[os.fsencode(path).hex()] = (stat.S_IFMT(info.st_mode), data)
    return found


def alice_of(intake, layout: str):
    for handin in intake.handins:
        if (
            handin.name == "Alice Lee"
            or handin.key in ("alice", "1", "4711")
            or ("Alice" in handin.origin or handin.origin.startswith("alice"))
        ):
            return handin
    raise AssertionError([h.key for h in intake.handins])


# -- the property ----------------------------------------------------------------------------


@pytest.mark.parametrize("layout", ["folders", "canvas", "moodle", "gradescope"])
@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(folder_name=st.one_of(wild, undecodable, st.just("a" * 300)), items=uploads)
def test_intake_of_a_generated_download_keeps_its_invariants(
    tmp_path_factory, layout, folder_name, items
):
    base = tmp_path_factory.mktemp("gen")
    root, staging, outside = base / "download", base / "staging", base / "outside"
    outside.mkdir()
    build(layout, root, folder_name, items, outside)
    before = snapshot(base, staging)
    tracemalloc.start()
    try:
        intake = read_submissions(root, staging=staging, exercises=exercises(), layout=layout)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert snapshot(base, staging) == before  # nothing written outside the staging folder
    assert list(outside.iterdir()) == []
    assert peak < collect.MAX_STUDENT_BYTES + collect.MAX_NOTEBOOK_BYTES + (32 << 20)
    for handin in intake.handins:
        for submitted in handin.files.values():
            assert staging in submitted.path.parents
        # every text anyone reads encodes: names with undecodable bytes are shown, not kept
        texts = [handin.name, handin.origin, *handin.problems, *handin.notes]
        texts += [*handin.unreadable.values(), *(s.shown for s in handin.files.values())]
        for text in texts:
            text.encode("utf-8")
    for text in [*intake.stray, *intake.notes]:
        text.encode("utf-8")
    alice = alice_of(intake, layout)
    assert set(alice.files) == {"exercise-01"}
    assert alice.files["exercise-01"].path.read_text() == HONEST
    assert not alice.unreadable


# -- a handful graded end to end ---------------------------------------------------------------


@pytest.mark.slow
@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    layout=st.sampled_from(["folders", "canvas", "moodle", "gradescope"]),
    folder_name=st.one_of(wild, undecodable),
    items=uploads,
)
def test_batch_on_generated_downloads(tmp_path_factory, layout, folder_name, items):
    """``grade batch`` on a generated download: exit 0 or 1 (a hostile student's files are
    results, never a usage error that would hold up the class), no traceback, and the honest
    classmate gets full marks."""
    base = tmp_path_factory.mktemp("batch")
    root, out, outside = base / "download", base / "out", base / "outside"
    outside.mkdir()
    build(layout, root, folder_name, items, outside)
    done = run_cli(
        "batch", str(root), "--out", str(out), "--layout", layout, "--exercises", "01",
        "--jobs", "2", home=FIXTURES / "lms-course", timeout=600,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert list(outside.iterdir()) == []
    rows = list(csv.reader(io.StringIO((out / "gradebook.csv").read_text(encoding="utf-8"))))
    header, maximum = rows[0], rows[1]
    column = header.index("exercise-01")
    alice = [r for r in rows[2:] if r[0] in ("alice", "4711", "1000001", "1")]
    assert len(alice) == 1, rows
    assert alice[0][column] == maximum[column], (alice, maximum)
