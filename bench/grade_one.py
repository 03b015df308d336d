"""Benchmark: `grade ID` for one learner against `python -c "import torch"`, paired in one run.

Each round runs, back to back (so machine load affects them alike): the baseline; a *cold*
`grade ID` (no server running: it grades in its own process, then leaves its process behind as
the warm server); and a *warm* `grade ID` (answered by that server). The server is stopped
before each cold run and waited for (not timed) before each warm one. The figures are ratios
of medians. Usage:

    python bench/grade_one.py [--rounds 5] [--exercise exercise-01 ...] [--all] [--mode MODE]

The default grades exercise-01's reference solution, CPU only (as a learner without a GPU
does), in a learner's workspace: each grading also records the score and writes the HTML
report, as a plain ``grade ID`` does (``--no-report`` times the grading and the summary alone).
``--mode cold|warm|both`` (default both); ``--mode here`` times ``--no-server`` instead of cold
(a grading in its own process that leaves nothing behind).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"cold": 1.3, "here": 1.3, "warm": 0.3}


def timed(cmd: list[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> float:
    start = time.perf_counter()
    proc = subprocess.run(
        cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    elapsed = time.perf_counter() - start
    if proc.returncode not in ok:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
    if proc.stderr.strip():
        raise SystemExit(f"{' '.join(cmd)} said on stderr:\n{proc.stderr}")
    return elapsed


def quiet(cmd: list[str], cwd: Path, env: dict[str, str]) -> None:
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--exercise", action="append", default=None)
    parser.add_argument("--all", action="store_true", help="every exercise of the course")
    parser.add_argument("--file", type=Path, default=None, help="default: the reference solution")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--mode", choices=("both", "cold", "warm", "here"), default="both")
    parser.add_argument("--no-report", action="store_true", help="grade with --no-report")
    args = parser.parse_args()
    if args.all:
        exercises = sorted(p.name for p in (ROOT / "exercises").glob("exercise-[0-9][0-9]"))
    else:
        exercises = args.exercise or ["exercise-01"]
    # the `grade` of this interpreter's environment (not whichever one PATH finds first)
    grade = Path(sys.executable).with_name("grade")
    base = [str(grade)] if grade.is_file() else [sys.executable, "-m", "grader"]
    modes = {"both": ["cold", "warm"], "cold": ["cold"], "warm": ["warm"], "here": ["here"]}
    modes = modes[args.mode]
    torch_cmd = [sys.executable, "-c", "import torch"]
    with tempfile.TemporaryDirectory() as scratch:
        cwd = Path(scratch) / "workspace"
        runtime = Path(scratch) / "runtime"
        runtime.mkdir(mode=0o700)
        env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
        env.pop("GRADE_NO_SERVER", None)
        subprocess.run([*base, "init", str(cwd)], env=env, check=True, stdout=subprocess.DEVNULL)
        stop = [*base, "server", "stop"]
        status = [*base, "server", "status"]
        print(
            f"machine: {os.cpu_count()} cores, python {sys.version.split()[0]}, "
            f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        rows = []
        for exercise in exercises:
            number = int(exercise.split("-")[-1])
            submission = args.file or ROOT / "solutions" / f"exercise-{number:02d}" / (
                f"exercise-{number:02d}.py"
            )
            cmd = [*base, exercise, "--file", str(submission), "--device", args.device]
            if args.no_report:
                cmd.append("--no-report")
            ok = (0, 1)  # a --file that fails some tests still times a grading
            times: dict[str, list[float]] = {"torch": [], **{m: [] for m in modes}}
            timed(torch_cmd, cwd, env)  # warm the page cache for all
            quiet(stop, cwd, env)
            timed(cmd, cwd, env, ok)
            quiet(status, cwd, env)
            for _ in range(args.rounds):
                times["torch"].append(timed(torch_cmd, cwd, env))
                for mode in modes:
                    if mode == "cold":
                        quiet(stop, cwd, env)
                        times[mode].append(timed(cmd, cwd, env, ok))
                    elif mode == "warm":
                        quiet(status, cwd, env)  # waits until the server answers
                        times[mode].append(timed(cmd, cwd, env, ok))
                    else:
                        times[mode].append(timed([*cmd, "--no-server"], cwd, env, ok))
            quiet(stop, cwd, env)
            rows.append((exercise, times))
        print(
            f"rounds: {args.rounds}, --device {args.device}, reference solutions, "
            f"{'--no-report' if args.no_report else 'report written'}; "
            f"load now {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
        )
        header = f"{'exercise':<12} {'import torch':>12}" + "".join(
            f" {m + ' s':>8} {m + ' x':>8}" for m in modes
        )
        print(header)
        worst = dict.fromkeys(modes, 0.0)
        for exercise, times in rows:
            t = statistics.median(times["torch"])
            line = f"{exercise:<12} {t:>12.3f}"
            for mode in modes:
                g = statistics.median(times[mode])
                worst[mode] = max(worst[mode], g / t)
                line += f" {g:>8.3f} {g / t:>7.2f}x"
            print(line)
        for mode in modes:
            print(
                f"worst {mode}: {worst[mode]:.2f}x import torch (target: at most {TARGETS[mode]}x)"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
