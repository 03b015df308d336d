"""What `make setup` (the first step of `make demo` and `make test`) leaves behind: an editable
install whose grader and course start from bytecode, wherever Python itself would write none.

An editable install runs the checkout's own files. Where PYTHONDONTWRITEBYTECODE is set or the
checkout is read-only, Python compiles every module it imports from source in every process,
and a cold ``grade`` paid a tenth of a second for it (bench/grade_one.py). The setup target
compiles them as pip compiles a wheel's; these tests run that recipe on a copy of the checkout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

COPIED = ("grader", "exercises")
# what a cold `grade ID` and its worker import of the grader
IMPORTS = "import grader.cli.learner, grader.engine.local, grader.engine.worker"


@pytest.fixture(scope="module")
def set_up(tmp_path_factory) -> Path:
    """A copy of the checkout's grader and course, without any bytecode, after the Makefile's
    setup recipe ran on it (the virtualenv's installation itself taken as done)."""
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the README's setup commands need it")
    copy = tmp_path_factory.mktemp("checkout")
    for name in COPIED:
        shutil.copytree(ROOT / name, copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("Makefile", "pyproject.toml", "setup.py"):
        shutil.copy(ROOT / name, copy / name)
    stamp = copy / "installed"  # newer than what it is made from: the install is not redone
    stamp.touch()
    bin_dir = Path(sys.executable).parent
    proc = subprocess.run(
        ["make", "-C", str(copy), "setup", f"BIN={bin_dir}", f"STAMP={stamp}"],
        env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return copy


def test_setup_compiles_every_module_of_the_grader_and_the_course(set_up):
    import importlib.util

    sources = [p for name in COPIED for p in (set_up / name).rglob("*.py")]
    assert len(sources) > 200
    missing = [
        str(p.relative_to(set_up))
        for p in sources
        if not Path(importlib.util.cache_from_source(str(p))).is_file()
    ]
    assert not missing, f"no bytecode for {missing[:10]}"


def test_a_grading_process_compiles_nothing_of_the_grader(set_up):
    """Imported as a cold ``grade`` and its worker import it, with PYTHONDONTWRITEBYTECODE set:
    every module of the grader comes from its bytecode, none from its source."""
    proc = subprocess.run(
        [sys.executable, "-v", "-c", f"{IMPORTS}; import grader; print(grader.__file__)"],
        cwd=set_up,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(set_up)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert Path(proc.stdout.strip()).parent == set_up / "grader"  # the copy, not the checkout
    ours = re.escape(str(set_up / "grader"))
    from_source = re.findall(rf"^# code object from ({ours}\S*\.py)$", proc.stderr, re.M)
    from_bytecode = re.findall(rf"^# code object from '({ours}\S*\.pyc)'$", proc.stderr, re.M)
    assert not from_source, f"compiled from source: {from_source[:10]}"
    assert len(from_bytecode) > 50
