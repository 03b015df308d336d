"""Benchmark: the hidden tests' own run time per exercise, on the reference solution.

The curriculum's budget is 2 s of test time per exercise on the development machines. This grades
every reference (CPU and meta; CUDA where present) in one warm grading process and prints the sum
of the tests' `duration_s`, the slowest test, and the wall time of each grading.

    python bench/test_time.py [--rounds 3] [IDS ...]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.catalog import Catalog, project_root  # noqa: E402
from grader.engine import GradeRequest, LocalEngine  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("ids", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    catalog = Catalog(project_root())
    specs = [catalog.resolve(i) for i in args.ids] if args.ids else catalog.all()
    requests = [
        GradeRequest(spec.id, spec.solution_path.read_bytes(), str(spec.solution_path))
        for spec in specs
        for _ in range(args.rounds)
    ]
    with LocalEngine(catalog, jobs=1, preload=specs) as engine:
        results = list(zip(requests, engine.grade_many(requests), strict=True))
    worst = 0.0
    print(f"{'exercise':12} {'test time (median)':>19} {'slowest test':>34} {'wall':>7}")
    for spec in specs:
        runs = [r for request, r in results if request.exercise == spec.id]
        totals = [sum(t.duration_s for t in r.tests) for r in runs]
        median = statistics.median(totals)
        worst = max(worst, median)
        last = runs[-1]
        slowest = max(last.tests, key=lambda t: t.duration_s)
        wall = statistics.median(r.duration_s for r in runs)
        print(
            f"{spec.id:12} {median:17.3f} s {slowest.key[:24]:>26} {slowest.duration_s:5.2f} s {wall:5.2f} s"
        )
    print(f"\nslowest exercise: {worst:.3f} s of test time (budget: 2 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
