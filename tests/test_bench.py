"""Every benchmark in bench/ runs at a smoke size, so that none can rot unseen.

A benchmark is run only by hand, on a quiet machine, when someone measures; a change to an API it
calls would otherwise break it silently (bench/cluster.py once called ``run_batch`` with keyword
arguments it no longer took). Here each one runs end to end, as its docstring says to run it,
with the smallest input that still goes through every part, and must exit 0 with its report.
The figures themselves are not checked: a loaded CI machine proves nothing about them.

The test also fails when a benchmark is added to bench/ without a smoke run here. A benchmark
may have more than one (``NAME:VARIANT``): ``grade_one.py --venv private`` builds a virtualenv of
its own (about 30 s with torch from this machine's wheels) and grades from it.
"""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.slow

BENCH = ROOT / "bench"
HELPERS = {"__init__.py", "naive_plugin.py"}  # imported by the benchmarks, not run

# the torch this environment has, for a benchmark's virtualenv of its own (as test_wheel.py's)
TORCH = f"torch=={importlib.metadata.version('torch').split('+')[0]}"

# benchmark[:variant] -> (smoke arguments, lines its report must hold)
SMOKE: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "batch.py": (
        ("--students", "1", "--jobs", "1"),
        (
            "class: 1 students, 3 submissions",
            "ratio: grade batch is",
            "0 runs ended abnormally",
            "floor: grade batch of the slowest submission alone, correct (exercise-01, call "
            "limit 5 s):",
            "is attainable for this class here",
            "work bound: import torch ",
            "is attainable for this work on 1 cores",
        ),
    ),
    "cluster.py": (
        (
            *("compare", "simulate", "--students", "1", "--rounds", "1"),
            *("--gradings", "12", "--sim-workers", "1", "--sim-threads", "2"),
        ),
        ("gradebooks identical: True", "graded 12 in", "makespan ~"),
    ),
    "grade_one.py": (
        ("--rounds", "1", "--mode", "both"),
        ("grader bytecode: ", "exercise-01", "worst cold:", "worst warm:"),
    ),
    "memory.py": (
        ("--students", "2"),
        (
            "class: 2 students, 6 submissions; jobs=2",
            "wall: ",
            "peak of the whole tree: RSS",
            "grading process (the batch's own): RSS after first 2:",
            "per window of 2 submissions: peak tree PSS 1-2:",
            "growth from the first window to the last:",
        ),
    ),
    "grade_one.py:private": (
        ("--rounds", "1", "--mode", "both", "--venv", "private", "--torch", TORCH),
        ("(private: folder mode 0700;", "exercise-01", "worst cold:", "worst warm:"),
    ),
    "test_time.py": (
        ("--rounds", "1", "exercise-01"),
        ("exercise-01", "slowest exercise:"),
    ),
}


def test_every_benchmark_has_a_smoke_run():
    benchmarks = {p.name for p in BENCH.glob("*.py")} - HELPERS
    smoked = {key.split(":")[0] for key in SMOKE}
    assert benchmarks == smoked, "add the new benchmark's smoke arguments to SMOKE"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("name", sorted(SMOKE))
def test_benchmark_runs_at_smoke_size(name):
    script = name.split(":")[0]
    if (
        script == "cluster.py"
        and shutil.which("dask", path=str(Path(sys.executable).parent)) is None
    ):
        pytest.skip("Dask is not installed (pip install -e '.[dev]')")
    args, expected = SMOKE[name]
    # each benchmark makes (and removes) scratch folders of its own under the system's temp
    # folder: a longer TMPDIR would make the server's and fork servers' socket paths too long
    env = dict(os.environ, NO_COLOR="1")
    proc = subprocess.run(
        [sys.executable, str(BENCH / script), *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    for line in expected:
        assert line in proc.stdout, f"{line!r} not in:\n{proc.stdout[-3000:]}"


def test_the_floor_of_a_class_with_an_endless_loop_is_that_loop(tmp_path):
    """bench/batch.py's floor grades the one submission no grader can finish before its call
    limit; a class without one is floored by its first submission."""
    from bench.batch import make_class, slowest

    with_loop = make_class(tmp_path / "big", 14)
    assert slowest(with_loop)[3] == "hostile:loop_at_import"
    assert "while True" in slowest(with_loop)[2].read_text()
    without = make_class(tmp_path / "small", 3)
    assert all(kind != "hostile:loop_at_import" for *_, kind in without)
    assert slowest(without) == without[0]


def test_the_work_bound_counts_each_endless_loop_for_its_call_limit(tmp_path):
    """bench/batch.py's work bound spins each endless loop of the class for its exercise's
    call limit (the time the grader, and the naive baseline, give it), and nothing else."""
    from bench.batch import call_limit, loop_seconds, make_class

    with_loop = make_class(tmp_path / "big", 14)
    loops = [s for s in with_loop if s[3] == "hostile:loop_at_import"]
    assert loops and loop_seconds(with_loop) == sum(call_limit(s[1]) for s in loops) > 0
    assert loop_seconds(make_class(tmp_path / "small", 3)) == 0
