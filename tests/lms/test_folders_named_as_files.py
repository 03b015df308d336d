"""A folder where a file was expected ("erin/exercise-01.py/exercise-01.py", as some unzip tools
and IDEs make it), and links, FIFOs and such in its place: always said, never silence."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.handin import Said
from grader.lms.intake import read_submissions
from grader.lms.names import match_name
from tests.lms.builders import code, fifo, write, zip_bytes


def _said(handin) -> str:
    files = handin.files.values()
    return "\n".join(
        [*handin.problems, *handin.notes, *handin.unreadable.values()]
        + [n for s in files for n in s.notes]
        + [s.doubt for s in files]
    )


def test_a_folder_named_as_the_file_is_said_and_what_it_holds_decides(infos, tmp_path):
    root = tmp_path / "subs"
    write(root / "erin" / "exercise-01.py" / "exercise-01.py", code("erin 1"))
    (root / "erin" / "exercise-05.py").mkdir()  # an empty folder: handed in, not nothing
    write(root / "erin" / "exercise-07.py" / "a" / "exercise-07.py", code("erin 7a"))
    write(root / "erin" / "exercise-07.py" / "b" / "exercise-07.py", code("erin 7b"))
    write(root / "bob" / "exercise-01.py", code("bob 1"))
    intake = read_submissions(root, staging=tmp_path / "st", exercises=infos)
    bob, erin = intake.handins
    assert not _said(bob)
    # one file of the exercise in it: graded, and said so
    one = erin.files["exercise-01"]
    assert one.shown == "erin/exercise-01.py/exercise-01.py"
    assert one.notes == [
        "erin/exercise-01.py/ is a folder, not the file exercise-01.py: the one file of "
        "exercise-01 in it, erin/exercise-01.py/exercise-01.py, is graded"
    ]
    assert not one.doubt
    # nothing in it: not "missing" and 0, but work to look at
    assert "exercise-05" not in erin.files and "exercise-05" in erin.unread_work
    assert erin.unreadable["exercise-05"].startswith(
        "erin/exercise-05.py/: a folder named as a file of exercise-05, not a file, with no file"
    )
    # two in it: which one was meant is not known
    assert "erin/exercise-07.py/" in erin.files["exercise-07"].doubt
    # what the student's page shows comes in Chinese too
    said = [erin.unreadable["exercise-05"], *one.notes]
    said += [p for p in erin.problems if p.startswith("exercise-07")]
    assert len(said) == 3 and all(isinstance(n, Said) and "文件夹" in n.zh for n in said), said


def test_folders_named_as_files_in_archives_and_platform_entries(infos, tmp_path):
    root = tmp_path / "subs"
    write(root / "erin.zip", zip_bytes({"exercise-01.py/exercise-01.py": code("erin 1")}))
    write(root / "dan.zip", zip_bytes({"exercise-05.py/": b"", "exercise-01.py": code("dan")}))
    intake = read_submissions(root, staging=tmp_path / "st", exercises=infos)
    dan, erin = intake.handins
    assert erin.files["exercise-01"].notes[0].startswith("erin.zip:exercise-01.py/ is a folder")
    assert dan.unreadable["exercise-05"].startswith("dan.zip:exercise-05.py/: a folder named")
    canvas = tmp_path / "canvas"  # a Canvas entry (named for the file handed in) that is a folder
    write(canvas / "erin_123_456_exercise-01.py" / "exercise-01.py", code("erin 1"))
    write(canvas / "bob_124_457_exercise-01.py", code("bob 1"))
    intake = read_submissions(canvas, staging=tmp_path / "st2", exercises=infos)
    assert intake.layout == "canvas"
    erin = next(h for h in intake.handins if h.key == "123")
    assert erin.files["exercise-01"].notes[0].startswith("erin_123_456_exercise-01.py/ is a")


NAMES = ["exercise-01.py", "exercise-05.py", "ex7.py", "exercise-07.ipynb", "work", "a.txt"]
KINDS = ["file", "dir", "link", "fifo"]


@st.composite
def trees(draw, depth: int = 0) -> dict:
    names = draw(st.lists(st.sampled_from(NAMES), min_size=1, max_size=3, unique=True))
    tree = {}
    for name in names:
        kind = draw(st.sampled_from(KINDS if depth < 2 else ["file", "link", "fifo"]))
        tree[name] = (kind, draw(trees(depth + 1)) if kind == "dir" else None)
    return tree


def _build(folder: Path, tree: dict, target: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, (kind, sub) in tree.items():
        path = folder / name
        if kind == "file":
            write(path, code(name))
        elif kind == "dir":
            _build(path, sub, target)
        elif kind == "link":
            path.symlink_to(target)
        else:
            fifo(path)


def _named(tree: dict, infos, prefix: str = "") -> list[tuple[str, str, str]]:
    """(exercise, entry as shown, kind) of every entry named as an exercise's file."""
    found = []
    for name, (kind, sub) in tree.items():
        match = match_name(name, infos)
        if match is not None:
            found.append((match.exercise, f"{prefix}{name}", kind))
        if kind == "dir":
            found += _named(sub, infos, f"{prefix}{name}/")
    return found


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(tree=trees())
def test_every_entry_named_as_a_file_is_graded_or_said(infos, tree):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "subs"
        target = write(Path(tmp) / "secret.py", "TOKEN = 1\n")
        _build(root / "erin", tree, target)
        intake = read_submissions(root, staging=Path(tmp) / "st", exercises=infos)
        (erin,) = intake.handins
        said = _said(erin)
        for exercise, shown, kind in _named(tree, infos):
            # handed in as something: graded or unreadable, never "missing" in silence
            assert exercise in erin.files or exercise in erin.unreadable, (shown, kind)
            if kind == "dir":
                assert f"erin/{shown}/" in said, shown
        for submitted in erin.files.values():
            graded = root / submitted.shown
            assert graded.is_file() and not graded.is_symlink()


def test_a_folder_where_the_download_holds_a_file_is_said(infos, tmp_path):
    inside = tmp_path / "subs" / "erin" / "work.zip"  # in a student's folder: said, and read
    write(inside / "exercise-01.py", code("erin 1"))
    (erin,) = read_submissions(tmp_path / "subs", staging=tmp_path / "st0", exercises=infos).handins
    assert "exercise-01" in erin.files
    assert any(n.startswith("erin/work.zip/: a folder named as an archive") for n in erin.notes)
    canvas = tmp_path / "canvas"  # Canvas writes files only: a folder is an unzip tool's
    write(canvas / "bob_124_457_work.zip" / "exercise-05.py", code("bob 5"))
    write(canvas / "ann_125_458_exercise-05.py", code("ann 5"))
    intake = read_submissions(canvas, staging=tmp_path / "st2", exercises=infos)
    bob = next(h for h in intake.handins if h.key == "124")
    assert "exercise-05" in bob.files
    assert any(
        n.startswith("bob_124_457_work.zip/: a folder where the download") for n in bob.notes
    )
