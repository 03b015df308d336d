"""A warm server's fingerprint (:mod:`grader.serve.fingerprint`) notices every change its
gradings depend on, and nothing else: any file of the course, any module or YAML file of the
grader, added, removed, edited or touched; never its bytecode or its other files. Generated
trees and changes, in both layouts: a checkout (the course beside the package) and a wheel (the
course inside it, walked once)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.serve.fingerprint import fingerprint

NAMES = st.text("abcxyz_", min_size=1, max_size=6)
CODE = st.tuples(NAMES, st.sampled_from([".py", ".yaml"])).map("".join)
# a file's name always has a suffix, a folder's never: generated files and folders cannot clash
ANY = st.tuples(NAMES, st.sampled_from([".py", ".yaml", ".txt", ".ipynb", ".csv"])).map("".join)
# a file's place: a folder path (possibly nested) and a name
PLACES = st.tuples(st.lists(NAMES, max_size=2), ANY)
SETTINGS = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def layout(top: Path, wheel: bool) -> tuple[Path, Path]:
    """(package, course root) of a checkout or of a wheel."""
    package = top / "grader"
    root = package / "_data" if wheel else top
    for folder in (package, root / "exercises", root / "solutions"):
        folder.mkdir(parents=True, exist_ok=True)
    return package, root


def put(path: Path, text: str = "x", mtime_ns: int | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if mtime_ns is not None:
        os.utime(path, ns=(mtime_ns, mtime_ns))


def populate(package: Path, root: Path, files: list[tuple[str, list[str], str]]) -> None:
    for where, folders, name in files:
        base = {"package": package, "exercises": root / "exercises"}.get(where, root / "solutions")
        put(base.joinpath(*folders, name), mtime_ns=1_700_000_000_000_000_000)


TREES = st.lists(
    st.tuples(
        st.sampled_from(["package", "exercises", "solutions"]), st.lists(NAMES, max_size=2), ANY
    ),
    max_size=8,
)


def change(path: Path, how: str) -> None:
    if how == "edit":
        put(path, "a longer text", mtime_ns=1_700_000_000_000_000_000)
    elif how == "touch":
        put(path, "x", mtime_ns=1_800_000_000_000_000_000)
    elif how == "remove" and path.is_file():
        path.unlink()
    elif path.is_file():  # add where the tree has that file already: a new file there
        put(path, "added", mtime_ns=1_700_000_000_000_000_000)
    else:  # add (or remove where there was nothing: then it is added)
        put(path, "x", mtime_ns=1_700_000_000_000_000_000)


HOW = st.sampled_from(["edit", "touch", "remove", "add"])


@SETTINGS
@given(
    wheel=st.booleans(),
    tree=TREES,
    where=st.sampled_from(["exercises", "solutions"]),
    place=PLACES,
    how=HOW,
)
def test_any_change_to_a_course_file_changes_it(wheel, tree, where, place, how):
    with tempfile.TemporaryDirectory() as scratch:
        package, root = layout(Path(scratch), wheel)
        populate(package, root, tree)
        before = fingerprint(root, package)
        assert fingerprint(root, package) == before  # the same tree, the same fingerprint
        folders, name = place
        target = (root / where).joinpath(*folders, name)
        existed = target.is_file()
        change(target, how)
        if how == "remove" and not existed:
            assert target.is_file()  # it was added instead
        assert fingerprint(root, package) != before


@SETTINGS
@given(wheel=st.booleans(), tree=TREES, place=st.tuples(st.lists(NAMES, max_size=2), CODE), how=HOW)
def test_any_change_to_a_module_or_yaml_file_of_the_grader_changes_it(wheel, tree, place, how):
    with tempfile.TemporaryDirectory() as scratch:
        package, root = layout(Path(scratch), wheel)
        populate(package, root, tree)
        before = fingerprint(root, package)
        folders, name = place
        if folders and folders[0] == "_data":
            folders = ["data", *folders[1:]]
        change(package.joinpath(*folders, name), how)
        assert fingerprint(root, package) != before


@SETTINGS
@given(
    wheel=st.booleans(),
    tree=TREES,
    folders=st.lists(NAMES, max_size=2),
    name=NAMES,
    cache=st.booleans(),
)
def test_bytecode_and_other_files_of_the_package_leave_it_alone(wheel, tree, folders, name, cache):
    with tempfile.TemporaryDirectory() as scratch:
        package, root = layout(Path(scratch), wheel)
        populate(package, root, tree)
        before = fingerprint(root, package)
        if folders and folders[0] == "_data":
            folders = ["data", *folders[1:]]
        if cache:  # bytecode, wherever it is written: the package's or the course's
            for top in (package, root / "exercises"):
                put(top.joinpath(*folders, "__pycache__", f"{name}.cpython-311.pyc"))
        else:
            put(package.joinpath(*folders, f"{name}.txt"))
        assert fingerprint(root, package) == before


def test_a_course_inside_the_package_is_walked_once(tmp_path):
    package, root = layout(tmp_path, wheel=True)
    put(root / "exercises" / "exercise-01" / "tests.py")
    put(package / "spec.py")
    lines: list[str] = []
    from grader.serve import fingerprint as module

    real = module._stat

    def record(out, path, entry=None):
        lines.append(path)
        real(out, path, entry)

    module._stat = record
    try:
        fingerprint(root, package)
    finally:
        module._stat = real
    tests = str(root / "exercises" / "exercise-01" / "tests.py")
    assert lines.count(tests) == 1 and str(package / "spec.py") in lines
