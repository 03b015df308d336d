"""Benchmark: `grade ID` for one learner against `python -c "import torch"`, paired in one run.

Each round runs both commands back to back (so machine load affects both alike); the figure is
the ratio of medians. Usage:

    python bench/grade_one.py [--rounds 5] [--exercise exercise-01] [--file PATH]

The default grades exercise-01's reference solution, CPU only (as a learner without a GPU does).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def timed(cmd: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exercise", default="exercise-01")
    parser.add_argument("--file", type=Path, default=None, help="default: the reference solution")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    number = args.exercise.split("-")[-1]
    submission = (
        args.file
        or ROOT / "solutions" / f"exercise-{int(number):02d}" / f"exercise-{int(number):02d}.py"
    )
    grade = shutil.which("grade") or sys.executable
    grade_cmd = ([grade] if grade.endswith("grade") else [sys.executable, "-m", "grader"]) + [
        args.exercise,
        "--file",
        str(submission),
        "--device",
        args.device,
        "--no-report",
    ]
    torch_cmd = [sys.executable, "-c", "import torch"]
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch)
        timed(torch_cmd, cwd)  # warm the page cache for both
        timed(grade_cmd, cwd)
        torch_times, grade_times = [], []
        for _ in range(args.rounds):
            torch_times.append(timed(torch_cmd, cwd))
            grade_times.append(timed(grade_cmd, cwd))
    t, g = statistics.median(torch_times), statistics.median(grade_times)
    print(f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    print(
        f"python -c 'import torch'      median {t:.3f} s  ({', '.join(f'{x:.2f}' for x in torch_times)})"
    )
    print(
        f"grade {args.exercise} (reference, --device {args.device})  median {g:.3f} s  "
        f"({', '.join(f'{x:.2f}' for x in grade_times)})"
    )
    print(f"ratio: {g / t:.2f}x import torch (target: at most 1.3x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
