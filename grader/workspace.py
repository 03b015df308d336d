"""A learner's workspace: the exercise files they edit, and what the grader remembers about them.

    my-workspace/
      README.md                 how to work here
      exercise-01.py ...        the starters, edited by the learner
      .grade/
        workspace.json          marks the folder as a workspace (format_version)
        state.json              last grading per exercise, hints shown
        results/<id>.json       the last result JSON of each exercise
        reports/<id>.html       the last HTML report of each exercise
        backups/                files saved by `grade reset`

Nothing here is authoritative: the hidden tests are on the learner's own disk, so a local
verdict is advisory; ``grade batch`` on the instructor's machine is the one that counts.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from grader import wire
from grader.errors import UsageError
from grader.fileio import read_regular, write_atomic
from grader.results import Result, ResultError
from grader.spec import ExerciseSpec
from grader.version import __version__

MARKER = ".grade"
FORMAT_VERSION = 1
MAX_STATE_BYTES = 1 << 20

README = """\
# PyTorch exercises

Each `exercise-NN.py` here is an exercise: edit it, then grade it.

    grade list               every exercise, with your status and score
    grade show 7             the instructions of exercise-07 (`--lang zh` for Chinese)
    grade 7                  grade exercise-07.py (a report is written to .grade/reports/)
    grade hint 7             the next hint (`--all` for every hint)
    grade watch 7            re-grade every time you save the file
    grade reset 7            start exercise-07 over (your file is backed up first)
    grade report             a progress dashboard of the whole workspace

`fix` exercises start from code with a bug to find; `implement` exercises start from
functions that raise NotImplementedError. Your code runs on the CPU and, where there is a
GPU, on CUDA too: write it so it works on whatever device its inputs live on.

Grading here is for practice: your instructor's grading is the one that counts.
"""


@dataclass(frozen=True)
class Workspace:
    root: Path

    @property
    def state_dir(self) -> Path:
        return self.root / MARKER

    @property
    def state_path(self) -> Path:
        return self.state_dir / "state.json"

    def file_for(self, spec: ExerciseSpec) -> Path:
        return self.root / spec.learner_file

    def result_path(self, exercise_id: str) -> Path:
        return self.state_dir / "results" / f"{exercise_id}.json"

    def report_path(self, exercise_id: str) -> Path:
        return self.state_dir / "reports" / f"{exercise_id}.html"

    # -- state --------------------------------------------------------------------------------

    def load_state(self) -> dict[str, Any]:
        """The state file, read strictly (grader.wire): an entry of the wrong shape is
        forgotten, as if that exercise had not been graded here; an unreadable file is a fresh
        state. Stored data never crashes a command."""
        fresh: dict[str, Any] = {"format_version": FORMAT_VERSION, "exercises": {}}
        try:
            data = wire.loads(
                read_regular(self.state_path, MAX_STATE_BYTES), max_bytes=MAX_STATE_BYTES
            )
            top = wire.Fields(data, "state", optional=("format_version", "exercises"))
            entries = top.raw("exercises", {})
            if type(entries) is not dict:
                return fresh
        except (OSError, wire.WireError):
            return fresh
        for exercise_id, entry in entries.items():
            try:
                fresh["exercises"][exercise_id] = _entry(entry)
            except wire.WireError:
                continue
        return fresh

    def _save_state(self, state: dict[str, Any]) -> None:
        write_atomic(self.state_path, json.dumps(state, indent=2, ensure_ascii=False) + "\n")

    def entry(self, exercise_id: str) -> dict[str, Any]:
        entry = self.load_state()["exercises"].get(exercise_id, {})
        return entry if isinstance(entry, dict) else {}

    def _update(self, exercise_id: str, **values: Any) -> None:
        state = self.load_state()
        entry = state["exercises"].setdefault(exercise_id, {})
        entry.update(values)
        self._save_state(state)

    def record(self, result: Result) -> None:
        """Remember a grading of the workspace's own file (for `grade list` and the dashboard)."""
        write_atomic(self.result_path(result.exercise_id), result.to_json())
        self._update(
            result.exercise_id,
            status=result.status.value,
            score=result.score,
            max_score=result.max_score,
            graded_at=time.strftime("%Y-%m-%dT%H:%M:%S"),
        )

    def last_result(self, exercise_id: str) -> Result | None:
        path = self.result_path(exercise_id)
        try:
            return Result.from_json(read_regular(path, wire.MAX_JSON_BYTES), source=str(path))
        except (OSError, ResultError):
            return None

    def next_hint(self, spec: ExerciseSpec) -> int:
        """Index of the hint to show now (advances each time, stays on the last one)."""
        shown = self.entry(spec.id).get("hints_shown", 0)
        index = min(shown, len(spec.hints) - 1)
        self._update(spec.id, hints_shown=min(shown + 1, len(spec.hints)))
        return index

    def status(self, spec: ExerciseSpec) -> str:
        """not started / failing / passed, as `grade list` shows it."""
        entry = self.entry(spec.id)
        if entry.get("status") == "passed":
            return "passed"
        if entry.get("status"):
            return "failing"
        return "not started"

    # -- files --------------------------------------------------------------------------------

    def reset(self, spec: ExerciseSpec) -> Path | None:
        """Restore the starter; returns where the learner's file was backed up (if it existed)."""
        target = self.file_for(spec)
        backup = None
        try:
            info: os.stat_result | None = target.lstat()
        except FileNotFoundError:
            info = None
        except OSError as exc:
            raise UsageError(f"cannot look at {target}: {exc.strerror or exc}") from None
        if info is not None and not stat.S_ISREG(info.st_mode):
            # A folder, a FIFO or a link there crashed reset (copying it), and a link had the
            # starter written through it, over whatever file it named
            raise UsageError(
                f"{target} is not a regular file (a folder, a link, a pipe or a device): "
                "grade reset neither backs it up nor replaces it",
                hint="Move it away or rename it, then run grade reset again.",
            )
        try:
            if info is not None:
                stamp = time.strftime("%Y%m%d-%H%M%S")
                backup = self.state_dir / "backups" / f"{target.stem}.{stamp}.py"
                counter = 1
                while os.path.lexists(backup):
                    backup = self.state_dir / "backups" / f"{target.stem}.{stamp}-{counter}.py"
                    counter += 1
                backup.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(target, backup)
            shutil.copyfile(spec.starter_path, target)
        except OSError as exc:
            raise UsageError(
                f"cannot reset {target}: {exc.strerror or exc}",
                hint="Check that you can write to the workspace and its .grade folder.",
            ) from None
        self._update(spec.id, status=None, score=None, max_score=None, hints_shown=0)
        return backup


def find_workspace(start: Path | None = None) -> Workspace | None:
    """The workspace holding ``start`` (default: the current folder), if any."""
    here = (start or Path.cwd()).resolve()
    # only here: a ``.grade`` file further up (another tool's, in a home folder) is not ours
    refuse_marker_file(here)
    for folder in (here, *here.parents):
        if (folder / MARKER / "workspace.json").is_file():
            return Workspace(folder)
    return None


def make_root(root: Path) -> None:
    """The folder a new workspace goes in, made where it is missing; a file there, or a
    ``.grade`` file in it, is a clear error before anything is written (both ``grade init``
    and ``grade init --notebooks`` start here)."""
    if root.exists() and not root.is_dir():
        raise UsageError(f"{root} exists and is not a folder")
    refuse_marker_file(root)
    root.mkdir(parents=True, exist_ok=True)


def refuse_marker_file(folder: Path) -> None:
    """A ``.grade`` that is a file: the workspace cannot keep its progress there. Passed over,
    a learner's gradings were silently not recorded; ``grade init`` copied every starter and
    then failed with "File exists"."""
    marker = folder / MARKER
    if os.path.lexists(marker) and not marker.is_dir():
        raise UsageError(
            f"{marker} is a file, not a folder: a workspace keeps its progress in a folder of "
            "that name. Rename or remove the file, then run grade init."
        )


def init_workspace(root: Path, specs: list[ExerciseSpec]) -> tuple[Workspace, list[str], list[str]]:
    """Create (or complete) a workspace; never overwrites a learner's file.

    Returns the workspace, the files created and the files left as they were.
    """
    make_root(root)
    created, kept = [], []
    for spec in specs:
        target = root / spec.learner_file
        if os.path.lexists(target):  # a link too: the starter is never written through one
            kept.append(target.name)
        else:
            shutil.copyfile(spec.starter_path, target)
            created.append(target.name)
    readme = root / "README.md"
    if not readme.exists():
        readme.write_text(README, encoding="utf-8")
        created.append("README.md")
    return mark_workspace(root), created, kept


def mark_workspace(root: Path) -> Workspace:
    """Make ``root`` (an existing folder) a workspace, if it is not one already."""
    marker = root / MARKER / "workspace.json"
    if not marker.exists():
        write_atomic(
            marker,
            json.dumps({"format_version": FORMAT_VERSION, "created_with": __version__}, indent=2)
            + "\n",
        )
    return Workspace(root.resolve())


def hint_lines(spec: ExerciseSpec, lang: str, *, every: bool = False) -> list[str]:
    """What ``grade hint`` and ``%grade hint`` print: every hint (``every``), or the next one.
    In a workspace the next one is one more each time; outside one it is always the first,
    and a note says how to get further."""
    from grader.i18n import CLI, labels

    words = labels(CLI, lang)
    total = len(spec.hints)
    if every:
        return [
            f"{words['hint']} {i}/{total}: {h.get(lang)}\n" for i, h in enumerate(spec.hints, 1)
        ]
    workspace = find_workspace()
    index = workspace.next_hint(spec) if workspace else 0
    lines = [f"{words['hint']} {index + 1}/{total}: {spec.hints[index].get(lang)}"]
    if workspace is None and total > 1:
        lines.append(words["hint_outside"])
    return lines


def _entry(data: Any) -> dict[str, Any]:
    """One exercise's entry of the state file, each field of its type."""
    f = wire.Fields(
        data, "exercise", optional=("status", "score", "max_score", "graded_at", "hints_shown")
    )
    entry: dict[str, Any] = {}
    for key in ("status", "graded_at"):
        if f.has(key):
            entry[key] = f.string(key, null=True, max_len=100)
    for key in ("score", "max_score"):
        if f.has(key):
            entry[key] = f.number(key, null=True, low=0)
    if (entry.get("score") is None) != (entry.get("max_score") is None):
        wire.fail("exercise", "a score without its maximum, or a maximum without a score")
    if f.has("hints_shown"):
        entry["hints_shown"] = f.integer("hints_shown", low=0, high=1000)
    return entry
