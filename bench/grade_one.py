"""Benchmark: `grade ID` for one learner against `python -c "import torch"`, paired in one run.

Each round runs, back to back (so machine load affects them alike): the baseline; a *cold*
`grade ID` (no server running: it grades in its own process, then leaves its process behind as
the warm server); and a *warm* `grade ID` (answered by that server). The server is stopped
before each cold run and waited for (not timed) before each warm one. The figures are ratios
of medians. Usage:

    python bench/grade_one.py [--rounds 5] [--exercise exercise-01 ...] [--all] [--mode MODE]
                              [--venv here|private] [--torch REQUIREMENT]

The default grades exercise-01's reference solution, CPU only (as a learner without a GPU
does), in a learner's workspace: each grading also records the score and writes the HTML
report, as a plain ``grade ID`` does (``--no-report`` times the grading and the summary alone).
``--mode cold|warm|both`` (default both); ``--mode here`` times ``--no-server`` instead of cold
(a grading in its own process that leaves nothing behind).

``--venv here`` (the default) measures the ``grade`` and the torch of the interpreter that runs
this. ``--venv private`` first makes a virtualenv in a new folder of mode 0700 (as home folders
are on many Linux distributions, and as /root is when one grades as root) and installs into it
torch (``--torch``, default ``$TORCH`` or ``torch==2.13.0``, as the Makefile) and then a copy of
this checkout, not editable: the grader, its course and templates, and torch all lie where no
other user may read them, which the grader's sandbox children (an unprivileged uid when run as
root) then cannot. That setup is not timed; the measurement then uses that virtualenv's ``grade``
and its ``python -c "import torch"``.

As root the learner children run as an unprivileged uid of their own; as any other user they
keep the user's uid inside a user namespace. To measure both, run it as root and as a normal
user, with a Python that user can run (the private virtualenv is made from it), e.g.:

    su someone -c 'python3 bench/grade_one.py --venv private'
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import stat
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGETS = {"cold": 1.3, "here": 1.3, "warm": 0.3}
DEFAULT_TORCH = os.environ.get("TORCH") or "torch==2.13.0"  # the Makefile's TORCH, and its default
# what a copy of the checkout leaves out: virtualenvs (also any folder with a pyvenv.cfg), VCS
# data, build outputs and caches; a build in the checkout itself would reuse a stale build/
SKIP = [".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", "*.pyc", ".*_cache"]
SKIP += ["out", "test-artifacts", ".grade", ".hypothesis"]


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


def open_to_others(folder: Path) -> bool:
    """Whether a uid other than the owner's can reach ``folder`` (every folder above it lets
    others through) and list it: what the grader's sandbox children need of torch's folder."""
    folder = folder.resolve()
    try:
        if not all(p.stat().st_mode & stat.S_IXOTH for p in (folder, *folder.parents)):
            return False
        return bool(folder.stat().st_mode & stat.S_IROTH)
    except OSError:
        return False


def ask(python: Path, code: str, cwd: Path | str, env: dict[str, str]) -> str:
    """What ``python -c code`` prints (it must succeed)."""
    proc = subprocess.run(
        [python, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, check=True
    )
    return proc.stdout


# What the measured interpreter says of its grader's bytecode: how many of the package's modules
# have a compiled file that its import would use (Python reads one where it writes none: this
# interpreter's magic number, and the source's mtime and size in its header, or a hash-based
# one), and whether Python itself would write what is missing.
BYTECODE = """
import importlib.util, pathlib, sys, grader
sources = list(pathlib.Path(grader.__file__).parent.rglob("*.py"))
fresh = 0
for source in sources:
    try:
        head = pathlib.Path(importlib.util.cache_from_source(str(source))).read_bytes()[:16]
        st = source.stat()
    except OSError:
        continue
    word = [int.from_bytes(head[i : i + 4], "little") for i in (4, 8, 12)]
    stamp = [int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF]
    fresh += head[:4] == importlib.util.MAGIC_NUMBER and (word[0] & 1 or word[1:] == stamp)
print(fresh, len(sources), int(sys.dont_write_bytecode))
"""


def bytecode_line(python: Path, cwd: Path | str, env: dict[str, str]) -> str:
    """One line on the grader's bytecode: where a cold ``grade`` must compile its modules in
    every run (an editable install that Python may not write bytecode into), its figures are
    a tenth of a second higher, and the line says so and what to do."""
    fresh, total, never = map(int, ask(python, BYTECODE, cwd, env).split())
    line = f"grader bytecode: {fresh} of {total} modules compiled"
    if fresh < total and never:
        line += " (PYTHONDONTWRITEBYTECODE: the rest are compiled in every run; `make setup`)"
    return line


def setup_step(cmd: list[str | Path], cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} exited {proc.returncode}:\n{proc.stderr}")


def checkout_files() -> list[str] | None:
    """The checkout's files as git sees them (tracked, and new ones it does not ignore), or
    None outside a git work tree. A test run's caches (pytest's, hypothesis's), outputs and
    virtualenvs are not the checkout, and may not even be readable to the user who measures."""
    try:
        proc = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
        )
    except OSError:
        return None
    if proc.returncode != 0:
        return None
    return [name for name in os.fsdecode(proc.stdout).split("\0") if name]


def copy_checkout(target: Path) -> None:
    """Copy this checkout to ``target``: git's view of it, else the tree without SKIP."""
    names = checkout_files()
    if names is None:

        def skip(where: str, entries: list[str]) -> set[str]:
            skipped = set(shutil.ignore_patterns(*SKIP)(where, entries))
            return skipped | {n for n in entries if (Path(where) / n / "pyvenv.cfg").is_file()}

        shutil.copytree(ROOT, target, ignore=skip, symlinks=True)
        return
    for name in names:
        origin = ROOT / name
        if not origin.is_symlink() and not origin.is_file():
            continue  # listed by git, deleted from the work tree since
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin, target / name, follow_symlinks=False)


def private_venv(stack: contextlib.ExitStack, torch: str, env: dict[str, str]) -> Path:
    """A fresh virtualenv in a new folder of mode 0700 (removed on exit), with ``torch`` and a
    non-editable install of this checkout: the interpreter's path.

    The checkout is copied into that folder and installed from there, so that the build reads
    the files as they are now (setuptools reuses and never cleans a build/ folder in the source
    tree) and writes nothing into the checkout."""
    folder = Path(tempfile.mkdtemp(prefix="grade-private-"))
    stack.callback(shutil.rmtree, folder, ignore_errors=True)
    os.chmod(folder, 0o700)  # mkdtemp's mode already, whatever the umask: said, not assumed
    venv, source = folder / "venv", folder / "source"

    copy_checkout(source)
    start = time.perf_counter()
    setup_step([sys.executable, "-m", "venv", venv], folder, env)
    pip: list[str | Path] = [venv / "bin" / "python", "-m", "pip", "install", "--quiet"]
    setup_step([*pip, torch], folder, env)
    setup_step([*pip, source], folder, env)
    elapsed = time.perf_counter() - start
    python = venv / "bin" / "python"
    code = "import grader, torch; print(grader.__file__, torch.__file__)"
    where = ask(python, code, folder, env).split()
    outside = [w for w in where if folder.resolve() not in Path(w).resolve().parents]
    if outside:
        raise SystemExit(f"not inside the private folder {folder}: {', '.join(outside)}")
    mode = stat.S_IMODE(folder.stat().st_mode)
    print(
        f"venv: {venv} (private: folder mode {mode:04o}; {torch} and the checkout, "
        f"not editable, installed in {elapsed:.1f} s, not timed)"
    )
    return python


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
    parser.add_argument(
        "--venv",
        choices=("here", "private"),
        default="here",
        help="here: this interpreter's; private: a new one in a folder of mode 0700",
    )
    parser.add_argument(
        "--torch",
        default=DEFAULT_TORCH,
        help=f"what --venv private installs for torch (default: {DEFAULT_TORCH})",
    )
    args = parser.parse_args()
    if args.all:
        exercises = sorted(p.name for p in (ROOT / "exercises").glob("exercise-[0-9][0-9]"))
    else:
        exercises = args.exercise or ["exercise-01"]
    choices = {"both": ["cold", "warm"], "cold": ["cold"], "warm": ["warm"], "here": ["here"]}
    modes = choices[args.mode]
    with contextlib.ExitStack() as stack:
        scratch = stack.enter_context(tempfile.TemporaryDirectory())
        cwd = Path(scratch) / "workspace"
        runtime = Path(scratch) / "runtime"
        runtime.mkdir(mode=0o700)
        env = dict(os.environ, XDG_RUNTIME_DIR=str(runtime))
        env.pop("GRADE_NO_SERVER", None)
        if args.venv == "private":
            # nothing from the checkout or another environment may stand in for the install
            for name in ("PYTHONPATH", "VIRTUAL_ENV", "GRADER_COURSE", "GRADER_HOME"):
                env.pop(name, None)
            python = private_venv(stack, args.torch, env)
        else:
            python = Path(sys.executable)
            print(f"venv: {sys.prefix} (here: the interpreter that runs this)")
        code = "import os, torch; print(os.path.dirname(torch.__file__))"
        torch_dir = Path(ask(python, code, scratch, env).strip())
        reachable = open_to_others(torch_dir)
        print(f"torch: {torch_dir} (other users can reach it on this host: {reachable})")
        print(bytecode_line(python, scratch, env))
        # the `grade` of that environment (not whichever one PATH finds first)
        grade = python.with_name("grade")
        base = [str(grade)] if grade.is_file() else [str(python), "-m", "grader"]
        torch_cmd = [str(python), "-c", "import torch"]
        # from the scratch folder: in the checkout, its course would stand in for the installed one
        subprocess.run(
            [*base, "init", str(cwd)], cwd=scratch, env=env, check=True, stdout=subprocess.DEVNULL
        )
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
            f"rounds: {args.rounds}, --device {args.device}, --venv {args.venv}, "
            "reference solutions, "
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
