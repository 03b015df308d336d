"""Gradescope's autograder: the zip uploaded once per assignment, and the grading run inside it.

Gradescope's autograder specification (https://gradescope-autograders.readthedocs.io/en/latest/
specs/): the zip holds ``setup.sh`` and ``run_autograder`` at its root and is unpacked into
``/autograder/source``; ``setup.sh`` runs once, as root, when Gradescope builds the image;
``run_autograder`` runs as root for every submission, in a fresh container, with the student's
files in ``/autograder/submission`` and ``/autograder/submission_metadata.json``, and must
leave ``/autograder/results/results.json``.

The zip is self-contained: ``grader/`` is the running grader's own package, with the
assignment's exercises and reference solutions and the report templates under
``grader/_data/`` (where :mod:`grader.resources` finds a course), so nothing is built or
installed from it: ``run_autograder`` puts ``/autograder/source`` on ``PYTHONPATH``. Only the
grader's requirements are installed, CPU torch first. No exercise outside the assignment is in
the zip: its hidden tests and solutions never reach Gradescope.

``grade_submission`` is what ``grade gradescope-run`` (``run_autograder``'s command) does:
read the metadata, read the submission as one student, grade every file, and build the
results.json (``grader.lms.gradescope``'s formats).
"""

from __future__ import annotations

import importlib.metadata
import io
import re
import shutil
import stat
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass, replace
from pathlib import Path

import yaml

from grader.catalog import Catalog
from grader.course import DIAGNOSES
from grader.diagnose import CATALOGUE_PATH
from grader.engine import GradeRequest, LocalEngine
from grader.engine.scheduler import usable_cores
from grader.errors import UsageError
from grader.lms.assignment import Assignment, load_assignment
from grader.lms.grades import ExerciseScore
from grader.lms.gradescope import failed_in, finish_run, prepare_run, read_run_metadata
from grader.lms.handin import ExerciseInfo
from grader.resources import PACKAGE, data_root
from grader.yamlfields import read_yaml

DISTRIBUTION = "torch-grader"
VENV = "/opt/torch-grader"
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
_SKIPPED_PARTS = ("__pycache__", ".pytest_cache", ".mypy_cache")

SETUP_SH = """\
#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image. It needs Python
# 3.10 or newer: choose the Ubuntu 22.04 base image (or a later one).
#
# Nothing needs setting on Gradescope. Elsewhere (a mirror, an offline machine, CI) these
# environment variables choose where things go and come from:
#   GRADER_VENV             the install root: the virtualenv made here (default {venv});
#                           run_autograder finds it again through source/.grader-python
#   GRADER_PIP_INDEX_URL    the package index of every install (pip's --index-url)
#   GRADER_TORCH_INDEX_URL  the index torch comes from (default: GRADER_PIP_INDEX_URL if set,
#                           else PyTorch's CPU index {index})
# and pip's own PIP_INDEX_URL, PIP_EXTRA_INDEX_URL, PIP_FIND_LINKS, PIP_CONSTRAINT, PIP_CERT
# apply to every install as pip documents them.
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
SOURCE="$(cd "$(dirname "${{BASH_SOURCE[0]}}")" && pwd)"
VENV="${{GRADER_VENV:-{venv}}}"
TORCH_INDEX="${{GRADER_TORCH_INDEX_URL:-${{GRADER_PIP_INDEX_URL:-{index}}}}}"
INDEX=()
if [ -n "${{GRADER_PIP_INDEX_URL:-}}" ]; then
    INDEX=(--index-url "$GRADER_PIP_INDEX_URL")
fi

install_python() {{
    apt-get update
    apt-get install -y --no-install-recommends python3 python3-venv python3-pip ca-certificates
}}

command -v python3 >/dev/null 2>&1 || install_python
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))'; then
    echo "torch-grader needs Python 3.10 or newer: choose the Ubuntu 22.04 base image" >&2
    exit 1
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info[:2] != ({python}))'; then
    echo "note: requirements.txt pins what the instructor's Python {python_dotted} used;" \\
        "this is $(python3 -V 2>&1). If a pin cannot be installed, choose a base image" \\
        "with Python {python_dotted}, or set gradescope.requirements in the assignment." >&2
fi
rm -rf "$VENV"
if ! python3 -m venv "$VENV"; then
    install_python
    rm -rf "$VENV"
    python3 -m venv "$VENV"
fi
# CPU torch first, from the CPU index: the requirements then find torch installed and never
# pull the CUDA build (gigabytes that Gradescope's machines cannot use).
"$VENV/bin/python" -m pip install --index-url "$TORCH_INDEX" "{torch}"
"$VENV/bin/python" -m pip install ${{INDEX[@]+"${{INDEX[@]}}"}} -r "$SOURCE/requirements.txt"
printf '%s\\n' "$VENV/bin/python" > "$SOURCE/.grader-python"
# Learner code runs as an unprivileged uid: Python and its packages must stay readable to it.
chmod -R go+rX "$VENV"
"""

RUN_AUTOGRADER = """\
#!/usr/bin/env bash
# Gradescope runs this for every submission, as root, in a fresh container. It always leaves a
# results.json: Gradescope shows an error instead of a grade without one.
# GRADESCOPE_ROOT (default /autograder) and GRADER_PYTHON (default the Python setup.sh
# installed, named in source/.grader-python) let CI run it against a fake root.
set -u
ROOT="${{GRADESCOPE_ROOT:-/autograder}}"
PYTHON="${{GRADER_PYTHON:-$(cat "$ROOT/source/.grader-python" 2>/dev/null || echo {venv}/bin/python)}}"
# The grader is the package shipped in source/, with its course in source/grader/_data.
export PYTHONPATH="$ROOT/source"
unset GRADER_COURSE GRADER_HOME
mkdir -p "$ROOT/results"
rm -f "$ROOT/results/results.json"
# Learner code runs as an unprivileged uid: the hidden tests, the reference solutions and the
# roster are root's alone, and so is the folder the results go to.
chmod -R go-rwx "$ROOT/source"
chmod go-w "$ROOT/results"
cd "$ROOT/source" && "$PYTHON" -m grader gradescope-run --submission "$ROOT/submission" \\
    --metadata "$ROOT/submission_metadata.json" --assignment "$ROOT/source/assignment.yaml" \\
    --results "$ROOT/results/results.json" --lang {lang}
status=$?
if [ ! -s "$ROOT/results/results.json" ]; then
    printf '{{"score": 0, "execution_time": 0, "visibility": "visible", "stdout_visibility": "hidden", "tests": [], "output": "%s"}}\\n' \\
        "The autograder could not grade this submission (exit code $status). This is not your code's fault: please contact your instructor." \\
        > "$ROOT/results/results.json"
fi
exit 0
"""

Files = dict[str, tuple[bytes, int]]  # path in the zip: (content, mode)


# ---------------------------------------------------------------------------------------------
# The zip


def autograder_files(assignment: Assignment, *, course: Path, lang: str = "en") -> Files:
    """Every file of the autograder zip, by its path in the zip (which Gradescope unpacks into
    ``/autograder/source``), with its mode:

    - ``setup.sh`` and ``run_autograder`` (executable), ``requirements.txt`` (the grader's
      runtime requirements, extras left out, pinned: ``pinned_requirements``);
    - ``assignment.yaml``, without its roster (``shipped_assignment``);
    - ``grader/``: the running grader's package, without byte code and without any course it
      carries, plus ``grader/_data/exercises/ID/`` and ``grader/_data/solutions/ID/`` for the
      assignment's exercises only (from ``course``, the catalog's root),
      ``grader/_data/diagnoses.yaml`` when the course has diagnoses of its own (without it,
      Gradescope's feedback would name the built-in diagnoses only) and
      ``grader/_data/reports/`` (the report templates).

    ``lang`` is the language of the feedback Gradescope shows.
    """
    requirements = pinned_requirements(assignment)
    torch = next((r for r in requirements if _name(r) == "torch"), "torch")
    python = sys.version_info[:2]
    setup = SETUP_SH.format(
        venv=VENV,
        index=CPU_TORCH_INDEX,
        torch=torch.partition(";")[0].strip(),
        python=f"{python[0]}, {python[1]}",
        python_dotted=f"{python[0]}.{python[1]}",
    )
    header = (
        f"# The grader's requirements, pinned to what `grade gradescope` ran with (Python "
        f"{python[0]}.{python[1]}),\n# so that Gradescope grades with the instructor's versions; "
        "gradescope.requirements in the\n# assignment file overrides a pin.\n"
    )
    files: Files = {
        "setup.sh": (setup.encode(), 0o755),
        "run_autograder": (RUN_AUTOGRADER.format(venv=VENV, lang=lang).encode(), 0o755),
        "requirements.txt": ((header + "".join(f"{r}\n" for r in requirements)).encode(), 0o644),
    }
    files.update(shipped_assignment(assignment))
    _add_tree(files, PACKAGE, "grader", skip_data=True)
    for ident in assignment.ids:
        for kind in ("exercises", "solutions"):
            folder = course / kind / ident
            if not folder.is_dir():
                raise UsageError(
                    f"{folder} does not exist",
                    hint=f"{ident} needs its folder in {course / 'exercises'} and "
                    f"{course / 'solutions'} (--course DIR or GRADER_COURSE names the "
                    "course).",
                )
            _add_tree(files, folder, f"grader/_data/{kind}/{ident}")
    diagnoses = course / DIAGNOSES
    if diagnoses.is_file() and diagnoses.resolve() != CATALOGUE_PATH.resolve():
        files[f"grader/_data/{DIAGNOSES}"] = (_read(diagnoses), 0o644)
    reports = data_root() / "reports"
    if not reports.is_dir():
        raise UsageError(f"{reports} does not exist: this grader has no report templates")
    _add_tree(files, reports, "grader/_data/reports")
    return files


def _add_tree(files: Files, folder: Path, prefix: str, *, skip_data: bool = False) -> None:
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if skip_data and relative.parts[0] == "_data":
            continue
        if any(p in _SKIPPED_PARTS for p in relative.parts) or path.suffix in (".pyc", ".pyo"):
            continue
        if path.is_file() and not path.is_symlink():
            files[f"{prefix}/{relative.as_posix()}"] = (_read(path), 0o644)


def shipped_assignment(assignment: Assignment) -> Files:
    """``assignment.yaml`` as shipped: the file as written, without its ``roster:`` line.
    Grading one submission needs no roster (Gradescope's metadata names the submitter), and a
    roster (names, e-mails, student numbers) has no business on Gradescope's machines. The
    line is removed where it stands alone, else the mapping is written anew without it; either
    way the result is proven to load to the same assignment, roster aside.

    An assignment with ``extensions`` is refused: they name students (ids, e-mails) that have
    no business on Gradescope's machines either, and left out, the autograder would take the
    class's due date for an extended student and penalise their late work."""
    if assignment.extensions:
        raise UsageError(
            f"{assignment.path}: its extensions name students, and the autograder cannot take "
            "them to Gradescope: left out, an extended student's late work would lose the late "
            "penalty of the class's due date",
            hint="Build the autograder from a copy without `extensions:` and give those "
            "students their extension in Gradescope (the autograder judges each against their "
            "own due date there), or grade the class with `grade batch` from Gradescope's "
            "export (extensions apply there).",
        )
    text = _read(assignment.path)
    if assignment.roster is None:
        return {"assignment.yaml": (text, 0o644)}
    attempts = []
    if len(re.findall(rb"^roster[ \t]*:", text, re.M)) == 1:
        attempts.append(re.sub(rb"^roster[ \t]*:[^\n]*(\n|$)", b"", text, flags=re.M))
    data = read_yaml(assignment.path)
    data.pop("roster", None)
    attempts.append(yaml.safe_dump(data, sort_keys=False, allow_unicode=True).encode())
    wanted = replace(assignment, roster=None)
    for candidate in attempts:
        with tempfile.TemporaryDirectory(prefix="grader-assignment-") as folder:
            (Path(folder) / "assignment.yaml").write_bytes(candidate)
            try:
                loaded = load_assignment(Path(folder) / "assignment.yaml")
            except UsageError:
                continue
        if replace(loaded, path=assignment.path) == wanted:
            return {"assignment.yaml": (candidate, 0o644)}
    raise UsageError(
        f"{assignment.path}: its roster line could not be left out of the autograder",
        hint="Write `roster: FILE` on a line of its own.",
    )


def pinned_requirements(assignment: Assignment) -> list[str]:
    """The grader's runtime requirements, each pinned (``name==version``) to the version
    installed here, where ``grade gradescope`` runs and the instructor's batches grade: so
    that Gradescope grades with the same torch. A local version label (``2.13.0+cpu``) is
    left out: the CPU index serves ``2.13.0+cpu`` for ``torch==2.13.0``. The assignment's
    ``gradescope.requirements`` (name: specifier) replaces a pin."""
    overrides = dict(assignment.gradescope.requirements)
    pinned = []
    for requirement in runtime_requirements():
        name = _name(requirement)
        marker = requirement.partition(";")[2].strip()
        if name in overrides:
            spec = overrides.pop(name)
        else:
            try:
                version = importlib.metadata.version(name)
            except importlib.metadata.PackageNotFoundError:
                raise UsageError(
                    f"{name} is not installed here, so the autograder cannot pin it",
                    hint="Install the grader's requirements (pip install -e .), or give "
                    f"gradescope.requirements: {{{name}: VERSION}} in the assignment file.",
                ) from None
            spec = f"=={version.partition('+')[0]}"
        pinned.append(f"{name}{spec}" + (f"; {marker}" if marker else ""))
    if overrides:
        unknown = ", ".join(sorted(overrides))
        raise UsageError(
            f"{assignment.path}: field 'gradescope.requirements': {unknown} is not one of the "
            "grader's requirements",
            hint=f"Name one of: {', '.join(_name(r) for r in runtime_requirements())}.",
        )
    return pinned


def runtime_requirements() -> list[str]:
    """The grader's runtime requirements (``torch>=2.2``, ...), extras left out: from the
    installed distribution's metadata, else from the ``pyproject.toml`` beside the package (a
    checkout that was never installed)."""
    try:
        found = importlib.metadata.requires(DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        found = None
    if found is None:
        found = _pyproject_requirements(PACKAGE.parent / "pyproject.toml")
    return [r.strip() for r in found if "extra" not in r.partition(";")[2]]


def _pyproject_requirements(path: Path) -> list[str]:
    if sys.version_info >= (3, 11) and path.is_file():
        import tomllib

        try:
            project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
            return [str(r) for r in project["dependencies"]]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise UsageError(f"{path}: cannot read the grader's requirements ({exc})") from None
    raise UsageError(
        f"cannot tell the grader's requirements: {DISTRIBUTION} is not installed",
        hint="Install the grader (pip install -e .) and build the autograder again.",
    )


def _name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1).lower().replace("_", "-") if match else ""


def autograder_zip(target: Path, files: Files) -> None:
    """Write ``files`` as a zip that is the same bytes for the same files: sorted, fixed
    timestamps, explicit modes (``run_autograder`` must be executable)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            data, mode = files[name]
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (stat.S_IFREG | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            info.create_system = 3  # Unix, so that the mode is honoured
            zf.writestr(info, data)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(buffer.getvalue())
    except OSError as exc:
        raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None


# ---------------------------------------------------------------------------------------------
# The run: one submission graded inside the autograder


@dataclass(frozen=True)
class RunOutcome:
    """What grading one Gradescope submission gave: the results.json text, whether every
    exercise of the assignment passed, and why the grader itself failed ("" if it did not)."""

    results: str
    passed: bool
    fault: str = ""


def grade_submission(
    submission: Path,
    metadata_path: Path,
    assignment: Assignment,
    *,
    catalog: Catalog,
    lang: str = "en",
) -> RunOutcome:
    """Grade the one submission in ``submission`` (``/autograder/submission``) against the
    assignment's exercises, on this machine. Learner faults (a syntax error, a crash, a file
    not handed in) are results like any other; the grader failing in some test makes the
    outcome a ``fault``, with score 0 (``gradescope.results_json``). ``execution_time`` is the
    wall time of the whole run."""
    started = time.monotonic()
    metadata = read_run_metadata(metadata_path)
    specs = {ident: catalog.resolve(ident) for ident in assignment.ids}
    infos = {ident: ExerciseInfo.from_spec(spec) for ident, spec in specs.items()}
    staging = Path(tempfile.mkdtemp(prefix="grader-gradescope-"))
    try:
        handin = prepare_run(submission, metadata, staging=staging, exercises=infos)
        handed_in = [handin.files[e] for e in assignment.ids if e in handin.files]
        requests = [
            GradeRequest(
                exercise=item.exercise,
                source=item.path.read_bytes(),
                filename=item.shown,
                lang=lang,
                cells=item.notebook,
            )
            for item in handed_in
        ]
        results = []
        if requests:
            preload = [specs[r.exercise] for r in requests]
            jobs = min(len(requests), usable_cores())
            with LocalEngine(catalog, jobs=jobs, preload=preload) as engine:
                results = engine.grade_many(requests)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    scores = {r.exercise_id: ExerciseScore.from_result(r) for r in results}
    faulted = [s.exercise for s in scores.values() if s.grader_fault]
    fault = f"the grader itself failed in {', '.join(faulted)}" if faulted else ""
    # the tier's name: the first word of its description ("process (...; runs as ...)")
    isolation = results[0].environment.isolation.split(" ", 1)[0] if results else ""
    text = finish_run(
        handin,
        metadata,
        scores,
        assignment,
        execution_time=time.monotonic() - started,
        isolation=isolation,
        fault=failed_in(faulted, lang) if faulted else "",
        lang=lang,
    )
    passed = all(e in scores and scores[e].status == "passed" for e in assignment.ids)
    return RunOutcome(results=text, passed=passed and not fault, fault=fault)
