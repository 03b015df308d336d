"""Benchmark: the memory of `grade batch --jobs 2` over a class, and whether it grows.

A grader that keeps something per submission (a result, a report, a cache entry) grows with the
class; on a large class that ends in swapping or the OOM killer, hours into a batch. This runs
`grade batch` over the synthetic class of bench/batch.py (default 100 students x 3 exercises =
300 submissions) and, while it runs, samples its whole process tree on a clock: for every
process its RSS (VmRSS) and its PSS (Pss of smaps_rollup). Forked processes share the pages of
the warm imports, so the sum of RSS counts them once per process; the sum of PSS counts each
page once, split among those that share it. Both are quoted.

Progress is the number of result files (``students/<student>/<exercise>.json``) the batch has
written: it writes each as soon as that grading is whole. The samples are cut into windows of
100 submissions (a third of the class when it is smaller) by that count; the samples taken once
every result is written (the gradebook and reports being written, which scale with the class
by design) are quoted apart and are not part of the growth. The tree is read as:

- the grading process: the `grade batch` subprocess itself (it holds every result);
- the fork server: its child that forks learner children (seen having children of its own);
- workers: its other children, one per group of gradings (pytest with the hidden tests);
- learner children: everything below the fork server.

    python bench/memory.py [--students 100] [--jobs 2] [--interval 0.05]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script (python bench/memory.py)
    sys.path.insert(0, str(ROOT))

MIB = 1024.0
ROLES = ("grading process", "fork server", "workers", "learner children")


@dataclass(frozen=True)
class ProcMemory:
    """One process as one sample read it; ``pss_kib`` is None where smaps_rollup could not be
    read (a learner child under another uid), and then counts as its RSS in the tree's PSS."""

    pid: int
    ppid: int
    rss_kib: int
    pss_kib: int | None


@dataclass(frozen=True)
class Sample:
    """The tree at one tick, and how many results the batch had written by then."""

    at_s: float
    done: int
    procs: tuple[ProcMemory, ...]

    def rss_kib(self, pids: set[int] | None = None) -> int:
        return sum(p.rss_kib for p in self.procs if pids is None or p.pid in pids)

    def pss_kib(self, pids: set[int] | None = None) -> int:
        return sum(
            p.rss_kib if p.pss_kib is None else p.pss_kib
            for p in self.procs
            if pids is None or p.pid in pids
        )


@dataclass
class Roles:
    """Which role each pid seen had, decided once the run is over (a fork server is known by
    the children it had at some sample, not necessarily at every one)."""

    root: int
    forkservers: set[int] = field(default_factory=set)
    workers: set[int] = field(default_factory=set)
    learners: set[int] = field(default_factory=set)

    def pids(self, role: str) -> set[int]:
        return {
            "grading process": {self.root},
            "fork server": self.forkservers,
            "workers": self.workers,
            "learner children": self.learners,
        }[role]


def children(pid: int) -> list[int]:
    """The children of ``pid``, from /proc/PID/task/*/children (every thread's forks)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(c) for c in handle.read().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


def tree(root: int) -> list[tuple[int, int]]:
    """(pid, parent) of ``root`` and every process below it."""
    found = [(root, 0)]
    queue = [root]
    while queue:
        parent = queue.pop()
        for child in children(parent):
            found.append((child, parent))
            queue.append(child)
    return found


def kib(path: str, field: str) -> int | None:
    """The KiB a /proc file gives for ``field`` (``VmRSS:``, ``Pss:``); None when it says
    nothing of it. Raises FileNotFoundError or ProcessLookupError once the process is gone."""
    with open(path) as handle:
        for line in handle:
            if line.startswith(field):
                return int(line.split()[1])
    return None


def read_memory(pid: int, ppid: int) -> ProcMemory | None:
    """RSS and PSS of one process; None when it is gone (or a zombie, which has no memory).
    A process of another uid whose smaps_rollup cannot be read has no PSS here."""
    try:
        rss = kib(f"/proc/{pid}/status", "VmRSS:")
        if rss is None:
            return None
        try:
            pss = kib(f"/proc/{pid}/smaps_rollup", "Pss:")
        except PermissionError:
            pss = None
    except (FileNotFoundError, ProcessLookupError):
        return None
    return ProcMemory(pid, ppid, rss, pss)


def count_results(out: Path) -> int:
    """Result files written so far: ``students/*/<exercise>.json``, neither the Gradescope
    ``results.json`` (written at the end) nor write_atomic's temporary ``.name.*`` files."""
    students = out / "students"
    done = 0
    try:
        folders = list(os.scandir(students))
    except FileNotFoundError:
        return 0
    for folder in folders:
        try:
            for entry in os.scandir(folder.path):
                name = entry.name
                if name.endswith(".json") and name != "results.json" and not name.startswith("."):
                    done += 1
        except (FileNotFoundError, NotADirectoryError):
            continue
    return done


def take(root: int, out: Path, started: float) -> Sample:
    done = count_results(out)
    procs = [m for pid, ppid in tree(root) if (m := read_memory(pid, ppid)) is not None]
    return Sample(time.perf_counter() - started, done, tuple(procs))


@dataclass(frozen=True)
class Run:
    samples: list[Sample]
    code: int
    wall_s: float
    sampling_s: float  # the sampler's own CPU time (user+sys), all samples together


def run(class_dir: Path, out: Path, jobs: int, interval: float) -> Run:
    """Run ``grade batch`` and sample its tree every ``interval`` s."""
    with tempfile.TemporaryFile() as log:
        started = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "grader",
                "batch",
                str(class_dir),
                "--out",
                str(out),
                "--jobs",
                str(jobs),
            ],
            cwd=ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        samples: list[Sample] = []
        tick = started
        cpu = time.process_time()
        while proc.poll() is None:
            samples.append(take(proc.pid, out, started))
            tick += interval
            time.sleep(max(0.0, tick - time.perf_counter()))
        elapsed = time.perf_counter() - started
        sampling = time.process_time() - cpu
        if proc.returncode not in (0, 1):
            log.seek(0)
            tail = log.read()[-4000:].decode(errors="replace")
            raise SystemExit(f"grade batch failed ({proc.returncode}):\n{tail}")
    return Run([s for s in samples if s.procs], proc.returncode, elapsed, sampling)


def roles(root: int, samples: list[Sample]) -> Roles:
    found = Roles(root)
    parents = {p.ppid for s in samples for p in s.procs}
    for sample in samples:
        for p in sample.procs:
            if p.ppid == root:
                (found.forkservers if p.pid in parents else found.workers).add(p.pid)
    for sample in samples:  # parents before children: each sample lists the tree top down
        for p in sample.procs:
            if p.ppid in found.forkservers or p.ppid in found.learners:
                found.learners.add(p.pid)
    return found


def mib(kib: float) -> str:
    return f"{kib / MIB:.1f} MiB"


def report(samples: list[Sample], total: int, window: int, found: Roles) -> list[str]:
    lines = []
    windows = math.ceil(total / window)
    span = [
        (w * window + 1, min(total, (w + 1) * window)) for w in range(windows)
    ]  # submission numbers, 1-based
    grading = [s for s in samples if s.done < total]
    after = [s for s in samples if s.done >= total]
    per_window = [[s for s in grading if s.done // window == w] for w in range(windows)]

    peak_pss = max(samples, key=lambda s: s.pss_kib())
    peak_rss = max(samples, key=lambda s: s.rss_kib())
    lines.append(
        f"peak of the whole tree: RSS {mib(peak_rss.rss_kib())} (at {peak_rss.done}/{total} "
        f"submissions, {len(peak_rss.procs)} processes), PSS {mib(peak_pss.pss_kib())} "
        f"(at {peak_pss.done}/{total} submissions)"
    )

    own = found.pids("grading process")

    def own_rss_at(done: int) -> Sample | None:
        return next((s for s in samples if s.done >= done and s.rss_kib(own)), None)

    early, late = own_rss_at(span[0][1]), own_rss_at(total)
    lines.append(
        f"grading process (the batch's own): RSS after first {span[0][1]}: "
        f"{mib(early.rss_kib(own)) if early else 'not sampled'}, after the last: "
        f"{mib(late.rss_kib(own)) if late else 'not sampled'}, "
        f"peak {mib(max(s.rss_kib(own) for s in samples))}"
    )
    if early is not None and late is not None and late.done > early.done:
        grown = late.rss_kib(own) - early.rss_kib(own)
        lines.append(
            f"grading process growth from result {early.done} to {late.done}: "
            f"{grown / MIB:+.1f} MiB, {grown / (late.done - early.done):+.1f} KiB per submission"
        )
    peaks = [max((s.pss_kib() for s in w), default=0) for w in per_window]
    lines.append(
        f"per window of {window} submissions: peak tree PSS "
        + ", ".join(
            f"{a}-{b}: {mib(p) if w else 'not sampled'}"
            for (a, b), p, w in zip(span, peaks, per_window, strict=True)
        )
    )
    medians = [statistics.median(s.pss_kib() for s in w) if w else 0.0 for w in per_window]
    lines.append(
        f"per window of {window} submissions: median tree PSS "
        + ", ".join(
            f"{a}-{b}: {mib(m) if w else 'not sampled'}"
            for (a, b), m, w in zip(span, medians, per_window, strict=True)
        )
    )
    if after:
        lines.append(
            f"after grading (writing the gradebook and reports): peak tree PSS "
            f"{mib(max(s.pss_kib() for s in after))}, grading process RSS peak "
            f"{mib(max(s.rss_kib(own) for s in after))}"
        )
    first, last = peaks[0], peaks[-1]
    if per_window[0] and per_window[-1] and first:
        growth = last - first
        lines.append(
            f"growth from the first window to the last: {growth / MIB:+.1f} MiB "
            f"({100 * growth / first:+.1f}%) of peak tree PSS; median tree PSS "
            f"{(medians[-1] - medians[0]) / MIB:+.1f} MiB"
        )
    else:
        lines.append("growth from the first window to the last: not sampled (too few samples)")

    lines.append(f"by process, per window {' / '.join(f'{a}-{b}' for a, b in span)}:")
    for role in ROLES:
        pids = found.pids(role)

        def peak_one(kind: str, chosen: list[Sample], pids: set[int] = pids) -> str:
            values = [
                (p.rss_kib if kind == "rss" or p.pss_kib is None else p.pss_kib)
                for s in chosen
                for p in s.procs
                if p.pid in pids
            ]
            return f"{max(values) / MIB:.1f}" if values else "-"

        lines.append(
            f"  {role} ({len(pids)} seen): peak RSS of one "
            + " / ".join(peak_one("rss", w) for w in per_window)
            + " MiB; peak PSS of one "
            + " / ".join(peak_one("pss", w) for w in per_window)
            + " MiB"
        )
    unread = sum(1 for s in samples for p in s.procs if p.pss_kib is None)
    if unread:
        lines.append(
            f"note: {unread} process reads had no readable smaps_rollup (another uid); "
            "their RSS stands for their PSS"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--students", type=int, default=100)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--interval", type=float, default=0.05, help="seconds between samples")
    args = parser.parse_args()
    from bench.batch import make_class

    scratch = Path(tempfile.mkdtemp(prefix="grader-bench-"))
    try:
        class_dir = scratch / "class"
        total = len(make_class(class_dir, args.students))
        print(f"class: {args.students} students, {total} submissions; jobs={args.jobs}")
        out = scratch / "graded"
        ran = run(class_dir, out, args.jobs, args.interval)
        samples = ran.samples
        print(
            f"wall: {ran.wall_s:.1f} s for {count_results(out)}/{total} results "
            f"(exit {ran.code}); {len(samples)} samples, one every "
            f"{1000 * args.interval:.0f} ms; the sampler used {ran.sampling_s:.1f} core-s "
            f"({1000 * ran.sampling_s / max(1, len(samples)):.1f} ms a sample)"
        )
        if not samples:
            raise SystemExit("no sample of the tree was taken: the batch ended at once")
        root = samples[0].procs[0].pid
        window = min(100, max(1, math.ceil(total / 3)))
        for line in report(samples, total, window, roles(root, samples)):
            print(line)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
