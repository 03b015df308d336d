"""Benchmark: `grade batch --jobs 2` against one `python -m pytest` process per submission.

A synthetic class (default 70 students x exercises 01, 05, 14 = 210 submissions) mixes correct
solutions (references and alternatives), buggy ones (starters and mutants) and hostile ones
(exit at import, syntax error, an output flood, an endless loop at import). Both graders run the
same hidden tests, two at a time, in the same run:

- `grade batch SUBMISSIONS --jobs 2` (fork server, warm workers, isolated children);
- the naive baseline: for each submission, `python -m pytest -p bench.naive_plugin tests.py
  --timeout S` (a fresh interpreter that imports torch and the learner's file itself), where S
  is the exercise's own call limit: the time the grader gives a call (5 s; 10 s for
  exercise-14).

It prints submissions per second for both, the ratio (target: at least 25x), and batch's
per-submission overhead above the tests' own compute, two ways: core-seconds per submission
estimated as wall x jobs (an upper bound), and measured as the user and system time of grade
batch and every process it started; each minus the test time the results record. The
measured figure is quoted again with the endless loops' call limits taken out as well: that
time is the learners' own code running, and the work bound below counts it as work.

It also prints the floor: `grade batch` on the class's slowest submission alone (its endless
loop, if it has one: start-up plus the loop's whole call limit; else its first submission). No
batch of the whole class can be faster, so the naive time over the floor is the highest ratio
this machine allows for this class, whatever the grader does. The work bound is tighter where
the cores are few: any grader imports torch once, runs every submission's tests (their own
compute, as the results record it) and lets each endless loop spin for its call limit, all
spread over `--jobs` cores at best; the naive time over that bound is the highest ratio the
work itself allows.

    python bench/batch.py [--students 70] [--jobs 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXERCISES = ("exercise-01", "exercise-05", "exercise-14")
HOSTILE = {
    "exit_at_import": "import os\nos._exit(0)\n",
    "syntax_error": "def broken(:\n    pass\n",
    "output_flood": "import sys\nfor _ in range(20):\n    sys.stdout.write('x' * (1 << 20))\n",
    "loop_at_import": "while True:\n    pass\n",
}


def variants(exercise: str) -> list[tuple[str, str]]:
    """(kind, source) of every submission style for one exercise."""
    folder = ROOT / "exercises" / exercise
    found = [("correct", (ROOT / "solutions" / exercise / f"{exercise}.py").read_text())]
    found += [("correct", p.read_text()) for p in sorted((folder / "alternatives").glob("*.py"))]
    found += [("buggy", (folder / f"{exercise}.py").read_text())]
    found += [("buggy", p.read_text()) for p in sorted((folder / "mutants").glob("*.py"))]
    return found


def make_class(root: Path, students: int) -> list[tuple[str, str, Path, str]]:
    """Write the class; returns (student, exercise, path, kind) for every submission."""
    submissions = []
    pools = {e: variants(e) for e in EXERCISES}
    hostile = list(HOSTILE.items())
    for i in range(students):
        student = f"student-{i:03d}"
        (root / student).mkdir(parents=True)
        for j, exercise in enumerate(EXERCISES):
            n = i * len(EXERCISES) + j
            if n % 10 == 9:  # one submission in ten is hostile; endless loops are rare
                kind, source = hostile[(n // 10) % len(hostile)]
                if kind == "loop_at_import" and n // 10 >= len(hostile):
                    kind, source = hostile[0]
                kind = f"hostile:{kind}"
            else:
                kind, source = pools[exercise][n % len(pools[exercise])]
            path = root / student / f"{exercise}.py"
            path.write_text(source)
            submissions.append((student, exercise, path, kind))
    return submissions


def run_batch(submissions_dir: Path, out: Path, jobs: int) -> tuple[float, float]:
    """(wall seconds, core-seconds): the core-seconds are the user and system time of
    ``grade batch`` and of every process it started and waited for (the fork server, workers,
    learner children), measured, where wall x jobs only bounds them from above."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "grader",
            "batch",
            str(submissions_dir),
            "--out",
            str(out),
            "--jobs",
            str(jobs),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"grade batch failed ({proc.returncode}):\n{proc.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


@functools.cache
def call_limit(exercise: str) -> float:
    """The seconds the grader gives one call of this exercise's learner code (and its import)."""
    from grader.catalog import Catalog

    return Catalog(ROOT).resolve(exercise).limits.call_timeout_s


def slowest(submissions: list[tuple[str, str, Path, str]]) -> tuple[str, str, Path, str]:
    """The submission no grader can grade faster than its call limit: the endless loop at
    import (hostile kinds are made by this bench, so it knows), else the first one."""
    loops = [s for s in submissions if s[3] == "hostile:loop_at_import"]
    return (loops or submissions)[0]


def run_floor(
    submissions: list[tuple[str, str, Path, str]], scratch: Path, jobs: int
) -> tuple[float, str]:
    """(wall seconds, kind) of ``grade batch`` on the class's slowest submission alone."""
    student, exercise, path, kind = slowest(submissions)
    alone = scratch / "alone"
    (alone / student).mkdir(parents=True)
    shutil.copyfile(path, alone / student / path.name)
    wall, _ = run_batch(alone, scratch / "alone-graded", jobs)
    return wall, f"{kind} ({exercise}, call limit {call_limit(exercise):g} s)"


def loop_seconds(submissions: list[tuple[str, str, Path, str]]) -> float:
    """The core-seconds the class's endless loops take in any grader: each its call limit."""
    return sum(call_limit(e) for _, e, _, kind in submissions if kind == "hostile:loop_at_import")


def import_torch_s(rounds: int = 3) -> float:
    """Median seconds of ``python -c "import torch"``: what a grader pays before its first test."""
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def run_naive(submissions: list[tuple[str, str, Path, str]], jobs: int) -> tuple[float, int]:
    def one(item: tuple[str, str, Path, str]) -> int:
        _, exercise, path, _ = item
        env = dict(os.environ, NAIVE_SUBMISSION=str(path), NAIVE_EXERCISE=exercise)
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "bench.naive_plugin",
                "-p",
                "no:cacheprovider",
                "--timeout",
                f"{call_limit(exercise):g}",
                "--rootdir",
                str(ROOT),
                "-c",
                os.devnull,
                str(ROOT / "exercises" / exercise / "tests.py"),
            ],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        return proc.returncode

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        codes = list(pool.map(one, submissions))
    return time.perf_counter() - started, sum(code not in (0, 1) for code in codes)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--students", type=int, default=70)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="keep the class and the batch output here")
    parser.add_argument(
        "--no-naive",
        action="store_true",
        help="time grade batch alone (e.g. on a GPU machine with little time)",
    )
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="grader-bench-"))
    try:
        class_dir = scratch / "class"
        submissions = make_class(class_dir, args.students)
        n = len(submissions)
        kinds: dict[str, int] = {}
        for *_, kind in submissions:
            kinds[kind.split(":")[0]] = kinds.get(kind.split(":")[0], 0) + 1
        print(
            f"class: {args.students} students, {n} submissions over {', '.join(EXERCISES)} "
            f"({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}); jobs={args.jobs}, "
            f"{os.cpu_count()} cores"
        )
        out = scratch / "graded"
        batch_s, batch_cpu = run_batch(class_dir, out, args.jobs)
        floor_s, floor_kind = run_floor(submissions, scratch, args.jobs)
        floor = f"floor: grade batch of the slowest submission alone, {floor_kind}: {floor_s:.1f} s"
        if args.no_naive:
            print(
                f"grade batch --jobs {args.jobs}: {batch_s:7.1f} s  {n / batch_s:6.2f} submissions/s  "
                f"({batch_s / n:.3f} s wall per submission)"
            )
            print(floor)
            return 0
        naive_s, naive_errors = run_naive(submissions, args.jobs)
        # batch results store no timings (gradebooks must be identical run to run): time the
        # tests' own compute on a sample of single gradings instead
        sample = run_sample(submissions[:: max(1, n // 30)])
        batch_core = batch_s * args.jobs / n
        print(
            f"grade batch --jobs {args.jobs}: {batch_s:7.1f} s  {n / batch_s:6.2f} submissions/s  "
            f"({batch_s / n:.3f} s wall, {batch_core:.3f} core-s per submission)"
        )
        print(
            f"pytest per submission (x{args.jobs}): {naive_s:7.1f} s  {n / naive_s:6.2f} submissions/s  "
            f"({naive_s / n:.3f} s wall per submission; {naive_errors} runs ended abnormally)"
        )
        print(f"ratio: grade batch is {naive_s / batch_s:.1f}x faster (target: at least 25x)")
        print(f"{floor}; so at most {naive_s / floor_s:.1f}x is attainable for this class here")
        print(
            f"tests' own compute per submission (median of a sample of {len(sample)}): "
            f"{statistics.median(sample):.3f} s; batch overhead above it: "
            f"{batch_core - statistics.median(sample):.3f} core-s per submission"
        )
        print(
            f"measured: grade batch used {batch_cpu:.1f} core-s (user+sys, all its processes), "
            f"{batch_cpu / n:.3f} per submission; above the tests' own compute: "
            f"{batch_cpu / n - statistics.median(sample):.3f}"
        )
        torch_s, loops = import_torch_s(), loop_seconds(submissions)
        # the endless loops' call limits are the learners' own code running, not the batch's
        # doing: the work bound counts them as work, so the overhead is quoted that way too
        print(
            f"measured, above the work (the tests' own compute and the endless loops' "
            f"{loops:g} s): {(batch_cpu - loops) / n - statistics.median(sample):.3f} core-s "
            f"per submission"
        )
        bound = torch_s + (loops + n * statistics.median(sample)) / args.jobs
        print(
            f"work bound: import torch {torch_s:.2f} s + (endless loops {loops:g} s + {n} x "
            f"the tests' own compute) / {args.jobs} jobs = {bound:.1f} s; so at most "
            f"{naive_s / bound:.1f}x is attainable for this work on {args.jobs} cores"
        )
        if args.keep:
            shutil.copytree(scratch, args.keep, dirs_exist_ok=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


def run_sample(sample: list[tuple[str, str, Path, str]]) -> list[float]:
    """The test time the result JSON records for single gradings of a sample (warm grader).

    The first grading starts the checkout's warm server; the bench stops it afterwards unless
    one was running before (an idle server would stay for its idle time, in the next run's
    measurements)."""
    server = [sys.executable, "-m", "grader", "server"]
    running = subprocess.run([*server, "status"], cwd=ROOT, capture_output=True).returncode == 0
    try:
        return _sample_times(sample)
    finally:
        if not running:
            subprocess.run([*server, "stop"], cwd=ROOT, capture_output=True)


def _sample_times(sample: list[tuple[str, str, Path, str]]) -> list[float]:
    times = []
    with tempfile.TemporaryDirectory() as scratch:
        for student, exercise, path, _ in sample:
            target = Path(scratch) / f"{student}-{exercise}.json"
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "grader",
                    exercise,
                    "--file",
                    str(path),
                    "--device",
                    "cpu",
                    "--no-report",
                    "--json",
                    str(target),
                ],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            if target.exists():
                times.append(sum(t["duration_s"] for t in json.loads(target.read_text())["tests"]))
    return times or [0.0]


if __name__ == "__main__":
    raise SystemExit(main())
