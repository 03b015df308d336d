"""Benchmark: `grade batch --cluster`, measured on this machine and modelled at MOOC scale.

Part 1, `compare`: `grade batch --cluster local:2` against `grade batch --jobs 2` on the same
class (bench/batch.py's mix of exercises 01, 05 and 14: correct, buggy and hostile
submissions), interleaved, a fresh output folder each run. Each run is split into the engine's
start-up (LocalEngine: imports and fork server; cluster: scheduler, workers, their warm grading
processes and the fingerprint check), the grading itself, and the rest (discovery, writing the
gradebook, shutting down). Target: the cluster's grading time within 10% of one machine's.

Part 2, `simulate`: 200,000 gradings on 100 workers x 32 slots, without 3,200 slots.

    The model. Compute happens on the workers; what all workers share is the scheduler (one
    process, one thread, dispatching tasks) and the driver (one thread: it receives every
    chunk's results and writes every result, key and report file). A run is a pipeline, so
    its makespan is that of its slowest stage plus start-up and a tail:

        compute   = sum(grading durations) / slots + per-chunk worker overhead
        dispatch  = tasks x scheduler seconds per task
        driver    = gradings x driver seconds per result (+ its Dask client's share per task)

    The costs are measured with the real code: a real Dask scheduler and workers (processes of
    their own, as on a cluster), the real plugin, tasks, line protocol and driver (ClusterEngine
    and the batch's own store/write of every result and report), and a stand-in grading process
    that speaks the slot protocol and *sleeps* each replayed duration, answering with a real
    result and report (from part 1). To put the shared parts under the load of 3,200 slots with
    only S real stand-in slots, every replayed duration is scaled by S/3,200: the results then
    arrive at the scheduler and the driver at the rate 3,200 slots would send them (a slot that
    sleeps costs no CPU, so S can be large on two cores). From that run: the throughput reached
    (gradings/s, extrapolated to 200,000), and each shared stage's CPU seconds per task and per
    result, which give the three bounds above for the full cluster. On this 2-core machine the
    scheduler, the workers and the driver share two cores, so the measured costs are an upper
    bound of what each costs on a machine of its own.

    python bench/cluster.py [compare] [simulate] [--students 30] [--rounds 3]
        [--gradings 20000] [--sim-workers 4] [--sim-threads 16]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FULL_WORKERS, FULL_SLOTS, FULL_GRADINGS = 100, 32, 200_000


# -- part 1 ---------------------------------------------------------------------------------


def run_one(mode: str, submissions: str, out: str) -> None:
    """One `grade batch` in this process (called as a subprocess): prints its timings."""
    from grader.cluster import make_engine
    from grader.i18n import choose_lang
    from grader.lms.batch import BatchOptions, EngineNeeds, run_batch

    timing: dict[str, float] = {}

    class Timed:
        def __init__(self, engine: Any) -> None:
            self.engine = engine

        @property
        def gpus(self) -> int:
            return int(self.engine.gpus)

        def __enter__(self) -> Timed:
            started = time.perf_counter()
            self.engine.__enter__()
            timing["start"] = time.perf_counter() - started
            return self

        def __exit__(self, *exc: object) -> None:
            started = time.perf_counter()
            self.engine.__exit__(*exc)
            timing["stop"] = time.perf_counter() - started

        def grade(self, request: Any) -> Any:
            return self.grade_many([request])[0]

        def grade_many(self, *args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return self.engine.grade_many(*args, **kwargs)
            finally:
                timing["grading"] = time.perf_counter() - started

    def make(needs: EngineNeeds) -> Timed:
        engine = make_engine(
            "local:2" if mode == "cluster" else None,
            needs.catalog,
            jobs=2,
            hidden=needs.hidden,
            preload=needs.preload,
            reports=True,
        )
        return Timed(engine)

    started = time.perf_counter()
    options = BatchOptions(Path(submissions), Path(out), seed=20261129, lang=choose_lang("en"))
    with open(os.devnull, "w") as stream:
        summary = run_batch(options, stream, make)
    timing["wall"] = time.perf_counter() - started
    timing["graded"] = summary.graded
    print(json.dumps(timing))


def compare(students: int, rounds: int, work: Path) -> Path:
    from bench.batch import make_class

    submissions = work / "class"
    make_class(submissions, students)
    runs: dict[str, list[dict[str, float]]] = {"jobs": [], "cluster": []}
    books: dict[str, bytes] = {}
    print(f"== part 1: {students} students x 3 exercises, {rounds} interleaved rounds")
    for n in range(rounds):
        for mode in ("jobs", "cluster") if n % 2 == 0 else ("cluster", "jobs"):
            out = work / f"out-{mode}-{n}"
            proc = subprocess.run(
                [sys.executable, __file__, "run-one", mode, str(submissions), str(out)],
                capture_output=True,
                text=True,
                cwd=ROOT,
            )
            if proc.returncode != 0:
                raise SystemExit(f"{mode} run failed:\n{proc.stderr[-3000:]}")
            timing = json.loads(proc.stdout.strip().splitlines()[-1])
            runs[mode].append(timing)
            books.setdefault(mode, (out / "gradebook.csv").read_bytes())
            print(
                f"   round {n + 1} {mode:8s} wall {timing['wall']:6.1f} s = start "
                f"{timing['start']:5.1f} + grading {timing['grading']:6.1f} + stop "
                f"{timing['stop']:4.1f} + rest "
                f"{timing['wall'] - timing['start'] - timing['grading'] - timing['stop']:4.1f}"
            )
    same = books["jobs"] == books["cluster"]
    print(f"   gradebooks identical: {same}")

    def line(mode: str, key: str) -> str:
        values = [r[key] for r in runs[mode]]
        return (
            f"median {statistics.median(values):6.1f} s (range {min(values):.1f}-{max(values):.1f})"
        )

    for key in ("wall", "start", "grading"):
        for mode in ("jobs", "cluster"):
            label = "--jobs 2" if mode == "jobs" else "--cluster local:2"
            print(f"   {key:8s} {label:18s} {line(mode, key)}")
    local = statistics.median(r["grading"] for r in runs["jobs"])
    cluster = statistics.median(r["grading"] for r in runs["cluster"])
    overhead = 100 * (cluster / local - 1)
    print(
        f"   grading overhead of the cluster beyond start-up: {overhead:+.1f}% "
        f"(target: within 10%): {'met' if overhead <= 10 else 'NOT met'}"
    )
    print(
        f"   cluster start-up beyond one machine's: "
        f"{statistics.median(r['start'] for r in runs['cluster']) - statistics.median(r['start'] for r in runs['jobs']):+.1f} s"
    )
    return work / "out-jobs-0"


# -- part 2 ---------------------------------------------------------------------------------


def stand_in(fingerprint_file: str, template_dir: str) -> int:
    """A grading process that speaks the slot protocol, sleeps each job's duration (carried in
    its source) and answers with a real result and report."""
    from grader.cluster.protocol import done_line, encode, hello_line, parse_grade

    out = sys.stdout.buffer
    fingerprint = json.loads(Path(fingerprint_file).read_text())
    result = json.loads((Path(template_dir) / "result.json").read_text())
    report = (Path(template_dir) / "report.html").read_text()
    out.write(
        hello_line(
            pid=os.getpid(), gpus=0, fingerprint=fingerprint, isolation="namespaces", hidden=[]
        )
    )
    out.flush()
    for line in sys.stdin.buffer:
        jobs, refused, reports = parse_grade(line)
        for job in jobs:
            time.sleep(float(job.request.source.decode()))
            answer = dict(result, submission=job.request.filename)
            out.write(
                encode(
                    {
                        "type": "result",
                        "key": job.key,
                        "result": answer,
                        "report": report if reports else None,
                    }
                )
            )
            out.flush()
        out.write(done_line(len(jobs) + len(refused)))
        out.flush()
    return 0


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def simulate(reference: Path | None, gradings: int, workers: int, threads: int, work: Path) -> None:
    from grader.catalog import Catalog
    from grader.cluster.engine import ClusterEngine
    from grader.cluster.fingerprint import REQUIRED_TIER, fingerprint
    from grader.cluster.plan import chunk_size
    from grader.engine.api import GradeRequest
    from grader.fileio import write_atomic
    from grader.lms.cache import store

    print(f"== part 2: {FULL_GRADINGS:,} gradings on {FULL_WORKERS} workers x {FULL_SLOTS} slots")
    if reference is None or not reference.is_dir():
        raise SystemExit("part 2 replays part 1's durations: run `compare` first (or both)")
    results = sorted(reference.glob("students/*/exercise-*.json"))
    durations = [json.loads(p.read_text())["duration_s"] for p in results]
    mean = statistics.mean(durations)
    print(
        f"   replayed durations: {len(durations)} gradings measured in part 1 (--jobs 2): "
        f"mean {mean:.3f} slot-s, median {statistics.median(durations):.3f}, "
        f"max {max(durations):.2f}"
    )
    # a realistic answer: the largest result of part 1 (a failing one), with its report
    template = work / "template"
    template.mkdir()
    largest = max(results, key=lambda p: p.stat().st_size)
    (template / "result.json").write_text(largest.read_text())
    (template / "report.html").write_text(largest.with_suffix(".html").read_text())
    catalog = Catalog(ROOT)
    spec = catalog.resolve("exercise-01")
    (work / "fingerprint.json").write_text(json.dumps(fingerprint([spec], REQUIRED_TIER)))
    slots = workers * threads
    full_slots = FULL_WORKERS * FULL_SLOTS
    scale = slots / full_slots
    chunk = chunk_size(FULL_GRADINGS, full_slots)
    print(
        f"   scaled run: {workers} workers x {threads} stand-in slots = {slots}, durations x "
        f"{scale:g}, {gradings:,} gradings, {chunk} per task (as in the full run)"
    )
    dask = str(Path(sys.executable).with_name("dask"))
    scheduler_file = work / "scheduler.json"
    logs = work / "logs"
    logs.mkdir()

    def spawn(name: str, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [dask, *args],
            stdout=open(logs / f"{name}.log", "wb"),
            stderr=subprocess.STDOUT,
            env=dict(os.environ, GRADER_HOME=str(ROOT)),
        )

    procs = [
        spawn("scheduler", "scheduler", "--host", "127.0.0.1", "--port", "0",
              "--no-dashboard", "--scheduler-file", str(scheduler_file))
    ]  # fmt: skip
    try:
        while not scheduler_file.exists():
            time.sleep(0.1)
        time.sleep(0.3)
        address = json.loads(scheduler_file.read_text())["address"]
        for n in range(workers):
            procs.append(
                spawn(f"worker-{n}", "worker", "--scheduler-file", str(scheduler_file),
                      "--host", "127.0.0.1", "--nthreads", str(threads), "--name", f"sim-{n}",
                      "--no-dashboard", "--local-directory", str(work / f"w{n}"))
            )  # fmt: skip
        deadline = time.monotonic() + 120
        while (logs / "scheduler.log").read_text().count("Register worker") < workers:
            if time.monotonic() > deadline:
                raise SystemExit("the simulated workers did not start")
            time.sleep(0.1)
        command = [sys.executable, str(Path(__file__).resolve()), "stand-in",
                   str(work / "fingerprint.json"), str(template)]  # fmt: skip
        requests = [
            GradeRequest(
                "exercise-01",
                f"{durations[n % len(durations)] * scale:.6f}".encode(),
                f"student-{n:06d}/exercise-01.py",
                devices=("cpu",),
            )
            for n in range(gradings)
        ]
        out = work / "out"
        writing = 0.0

        def on_result(index: int, result: Any, report: str | None) -> None:
            """What the batch does with each result: store it and its key, write its report."""
            nonlocal writing
            started = time.perf_counter()
            path = out / "students" / f"student-{index:06d}" / "exercise-01.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            store(path, "key", result)
            if report is not None:
                write_atomic(path.with_suffix(".html"), report)
            writing += time.perf_counter() - started

        def tree() -> list[int]:
            return [p for proc in procs[1:] for p in [proc.pid, *descendants(proc.pid)]]

        engine = ClusterEngine(
            address, catalog, preload=[spec], chunk=chunk, slot_command=command, reports=True
        )
        started = time.perf_counter()
        with engine:
            ready = time.perf_counter()
            before = (cpu_seconds(procs[0].pid), sum(map(cpu_seconds, tree())), cpu_seconds(0))
            engine.grade_many(requests, on_result)
            wall = time.perf_counter() - ready
            after = (cpu_seconds(procs[0].pid), sum(map(cpu_seconds, tree())), cpu_seconds(0))
    finally:
        for proc in procs[::-1]:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    scheduler, workers_cpu, driver = (a - b for a, b in zip(after, before, strict=True))
    tasks = -(-gradings // chunk)
    compute = sum(durations[n % len(durations)] * scale for n in range(gradings)) / slots
    print(
        f"   start-up (scheduler up, {slots} stand-in slots warm and checked): {ready - started:.1f} s"
    )
    print(
        f"   graded {gradings:,} in {wall:.1f} s: {gradings / wall:,.0f} gradings/s, "
        f"{tasks / wall:,.0f} tasks/s; the replayed compute alone: {compute:.1f} s"
    )
    print(
        f"   CPU: scheduler {scheduler:.1f} s ({scheduler / tasks * 1e3:.2f} ms/task), driver "
        f"{driver:.1f} s ({driver / gradings * 1e3:.2f} ms/result, of which writing the files "
        f"{writing / gradings * 1e3:.2f} ms), workers and stand-ins {workers_cpu:.1f} s "
        f"({workers_cpu / tasks * 1e3:.1f} ms/task)"
    )
    full_tasks = -(-FULL_GRADINGS // chunk)
    bounds = {
        "compute": FULL_GRADINGS * mean / full_slots
        + (full_tasks / full_slots) * (workers_cpu / tasks),
        "dispatch": full_tasks * scheduler / tasks,
        "driver": FULL_GRADINGS * driver / gradings,
    }
    print(f"   model, {FULL_GRADINGS:,} gradings on {FULL_WORKERS} x {FULL_SLOTS} slots:")
    for name, seconds in bounds.items():
        print(f"     {name:9s} {seconds:7.1f} s")
    bottleneck = max(bounds, key=lambda k: bounds[k])
    print(
        f"     makespan ~ {max(bounds.values()):.0f} s + start-up: the bottleneck is "
        f"{bottleneck} (the scaled run itself, every stage on 2 shared cores, extrapolates to "
        f"{FULL_GRADINGS / (gradings / wall):.0f} s)"
    )


def cpu_seconds(pid: int) -> float:
    """User+system CPU seconds of a process (0: this one)."""
    try:
        fields = Path(f"/proc/{pid or os.getpid()}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "run-one":
        run_one(*sys.argv[2:5])
        return 0
    if len(sys.argv) > 1 and sys.argv[1] == "stand-in":
        return stand_in(*sys.argv[2:4])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", default=["compare", "simulate"])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gradings", type=int, default=20_000)
    parser.add_argument("--sim-workers", type=int, default=4)
    parser.add_argument("--sim-threads", type=int, default=16)
    parser.add_argument("--keep", type=Path, default=None, help="keep the work folder here")
    parser.add_argument(
        "--reference", type=Path, default=None, help="part 1's --jobs 2 output, for simulate alone"
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        reference = args.reference
        if "compare" in args.parts:
            reference = compare(args.students, args.rounds, work)
        if "simulate" in args.parts:
            sim = work / "sim"
            sim.mkdir()
            simulate(reference, args.gradings, args.sim_workers, args.sim_threads, sim)
    finally:
        if args.keep:
            shutil.copytree(work, args.keep, dirs_exist_ok=True)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
