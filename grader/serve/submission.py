"""A learner's own grading, around the engine: which file, what is graded, what is written.

Every learner front end does the same before and after a grading (``grade ID``, ``grade
watch``, the notebook's ``%grade`` and ``%%grade``), whether the grading runs in the warm server,
in the command's own process or in a helper process: find the file (the workspace's
``exercise-07.py`` or ``exercise-07.ipynb``, or the one named), read it (a notebook's code cells
joined, with the map back to its cells), make the request, give the result the cell map and the
notebook's notes, and write what a grading leaves behind (the workspace's record, the result
JSON, the HTML report).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from grader.engine.api import DEFAULT_SEED, MAX_SOURCE_BYTES, GradeRequest
from grader.errors import UsageError
from grader.fileio import check_writable, exists, is_regular_file, resolved, write_atomic
from grader.i18n import Text
from grader.notebooks import MAX_NOTEBOOK_BYTES, CellMap, NotebookError, extract
from grader.results import Result
from grader.spec import ExerciseSpec
from grader.text import shown_line
from grader.workspace import Workspace, find_workspace

NOTEBOOK_SUFFIX = ".ipynb"
# Notes of the extraction about the grader's own magics: every workspace notebook has them.
_OWN_MAGIC = re.compile(r": (%%grade|%grade|%load_ext grader)\b")


@dataclass(frozen=True)
class Submission:
    """What gets graded: the code, how the learner names it, and (for a notebook) where each
    of its lines is in the notebook."""

    source: bytes
    filename: str
    cells: CellMap | None = None
    notes: tuple[Text, ...] = ()  # in each language: the result's own is picked

    def request(
        self,
        spec: ExerciseSpec,
        devices: tuple[str, ...],
        seed: int | None = None,
        lang: str = "en",
    ) -> GradeRequest:
        return GradeRequest(
            exercise=spec.id,
            source=self.source,
            filename=self.filename,
            devices=devices,
            seed=DEFAULT_SEED if seed is None else seed,
            lang=lang,
            cells=self.cells,
        )

    def finish(self, result: Result) -> Result:
        """The engine's result (which carries the request's cell map), with what reading the
        file noted (a notebook's dropped magics), in the result's language."""
        if not self.notes:
            return result
        said = tuple(note.get(result.lang) for note in self.notes)
        return dataclasses.replace(result, notes=(*result.notes, *said))


def read_file(path: Path) -> bytes:
    """A user-given submission: an existing, readable, regular file (else a UsageError)."""
    limit = MAX_NOTEBOOK_BYTES if is_notebook(path) else MAX_SOURCE_BYTES
    if not exists(path):
        raise UsageError(f"{path} does not exist")
    if not is_regular_file(path):
        raise UsageError(f"{path} is not a file")
    try:
        with open(path, "rb") as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    if len(data) > limit:
        raise UsageError(f"{path} is larger than {limit >> 20} MiB")
    return data


def is_notebook(path: Path) -> bool:
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def load(path: Path) -> Submission:
    """The submission in a file: a ``.py`` file as it is, a notebook's code cells joined (a
    NotebookError, which is a UsageError, when it is no notebook this grader can read)."""
    data = read_file(path)
    if not is_notebook(path):
        return Submission(data, str(path))
    return from_notebook(data, str(path))


def from_notebook(data: bytes, filename: str) -> Submission:
    """A notebook's code cells as a submission; a NotebookError that names the file where
    it is no notebook this grader can read ("not a notebook: the file is not UTF-8 text"
    named no file)."""
    try:
        extracted = extract(data)
    except NotebookError as exc:
        raise NotebookError(f"{shown_line(filename)}: {exc.message}", hint=exc.hint) from None
    source = extracted.source.encode("utf-8")
    if len(source) > MAX_SOURCE_BYTES:
        raise UsageError(f"the code of {filename} is larger than {MAX_SOURCE_BYTES >> 20} MiB")
    return Submission(source, filename, extracted.cells, learner_notes(extracted.notes))


def learner_notes(notes: tuple[Text, ...]) -> tuple[Text, ...]:
    """What the extraction left out that the learner should hear about: not the grader's own
    magics, which every workspace notebook has."""
    return tuple(n for n in notes if not _OWN_MAGIC.search(n.en))


def find_target(
    spec: ExerciseSpec, file: Path | None, workspace: Workspace | None
) -> tuple[Path, Workspace | None]:
    """The file to grade and the workspace whose record it updates (None: another file).

    Without ``file``: the workspace's ``exercise-NN.py`` or ``exercise-NN.ipynb`` (the one
    saved last, where both exist), else the one in the current folder."""
    if file is not None:
        if workspace is not None and resolved(file) not in {
            resolved(p) for p in workspace_files(workspace, spec)
        }:
            workspace = None
        return file, workspace
    if workspace is not None:
        found = _newest(workspace_files(workspace, spec))
        if found is None:
            raise UsageError(
                f"{workspace.file_for(spec)} does not exist",
                hint=f"Run `grade reset {spec.id}` to get the starter back.",
            )
        return found, workspace
    local = _newest([Path(spec.learner_file), Path(spec.learner_file).with_suffix(".ipynb")])
    if local is not None:
        return local, None
    raise UsageError(
        f"no {spec.learner_file} here",
        hint="Run `grade init` to create a workspace, or pass --file PATH.",
    )


def workspace_files(workspace: Workspace, spec: ExerciseSpec) -> list[Path]:
    """Where a workspace keeps an exercise: as a file, or as a notebook."""
    script = workspace.file_for(spec)
    return [script, script.with_suffix(NOTEBOOK_SUFFIX)]


def _newest(paths: list[Path]) -> Path | None:
    present: list[tuple[int, int, Path]] = []
    for path in paths:
        try:
            present.append((path.stat().st_mtime_ns, -len(present), path))
        except OSError:
            continue
    return max(present)[2] if present else None


def locate(spec: ExerciseSpec, file: Path | None) -> tuple[Path, Workspace | None]:
    """:func:`find_target` from the current folder."""
    return find_target(spec, file, find_workspace())


def check_devices(devices: tuple[str, ...], gpus: int) -> None:
    """``--device cuda`` where there is no GPU grades nothing: say so before grading."""
    if devices == ("cuda",) and not gpus:
        raise UsageError(
            "--device cuda, but CUDA is not available on this machine: nothing was graded",
            hint="Use --device cpu or --device all (CUDA cases are then skipped with the reason).",
        )


def write_outputs(
    result: Result, report: Path | None, json_path: Path | None, workspace: Workspace | None
) -> tuple[list[UsageError], Path | None, Path | None]:
    """Write every output that can be written; what cannot is an error for the user to fix,
    after the summary (the grading itself is not lost). Returns the errors and the report and
    JSON paths that were written."""
    from grader.render.html import render_result

    errors: list[UsageError] = []

    def attempt(path: Path | None, make: Callable[[], str]) -> Path | None:
        if path is None:
            return None
        try:
            check_writable(path)
            write_atomic(path, make())
        except UsageError as exc:
            errors.append(exc)
            return None
        return path

    if workspace is not None:
        try:
            workspace.record(result)
        except UsageError as exc:
            errors.append(exc)
    written_json = attempt(json_path, result.to_json)
    # In a learner's own workspace the hidden tests are on their disk: the report says the
    # verdict is for practice.
    shown = int(workspace.entry(result.exercise_id).get("hints_shown", 0) or 0) if workspace else 0
    written_report = attempt(
        report,
        lambda: render_result(result, advisory=workspace is not None, hints_shown=shown),
    )
    return errors, written_report, written_json
