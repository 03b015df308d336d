"""Every file a batch leaves in its output folder, written from the class's grade rows.

What goes where, and when:

- always: ``gradebook.csv`` and ``gradebook.json`` (:mod:`.gradebook`), ``index.html`` (the
  class report), ``feedback/<student>.html`` for every student who handed something in, and
  ``students/<student>/results.json`` (Gradescope's format) beside their results;
- after a run over the whole class, nothing of an earlier run's students that this run has no
  work of: their feedback pages and result folders are removed (an instructor who sends the
  ``feedback/`` folder sent a student the grade of the week before), but only what has the
  shape of what ``grade batch`` writes there;
- only when the gradebook is complete: every platform's upload files (``Platform.uploads``:
  ``canvas.csv``, ``moodle.csv``, and ``moodle-worksheet.csv`` for a Moodle download), the
  files an instructor uploads. An incomplete gradebook is marked as such in the CSV itself,
  and the upload files of an earlier run are removed rather than left looking current.

Students who are not on the roster are in the gradebook (with a problem saying so) but never
in an identity-keyed upload file: their grade would go to whoever the LMS matched by name.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from grader.fileio import write_atomic
from grader.lms import gradescope
from grader.lms.assignment import Assignment
from grader.lms.gradebook import class_stats, exercise_maxima, gradebook_csv, gradebook_json
from grader.lms.grades import GradeRow, identified
from grader.lms.platforms import platforms
from grader.results import Result
from grader.spec import ExerciseSpec


def upload_names() -> tuple[str, ...]:
    return tuple(name for p in platforms() for name in p.upload_names)


@dataclass
class Outputs:
    written: list[str] = field(default_factory=list)  # relative to the output folder
    withheld: list[str] = field(default_factory=list)  # upload files not written, and why
    warnings: list[str] = field(default_factory=list)  # for the instructor, before uploading
    removed: list[str] = field(default_factory=list)  # an earlier run's, not this run's


def write_outputs(
    out: Path,
    *,
    rows: list[GradeRow],
    results: dict[tuple[str, str], Result],
    assignment: Assignment,
    specs: dict[str, ExerciseSpec],
    stray: list[str],
    lang: str,
    incomplete: str,
    chosen: str,
    layout: str,
    whole_class: bool = True,
) -> Outputs:
    from grader.lms.feedback import feedback_html
    from grader.render.classreport import render_class
    from grader.render.html import render_result

    outputs = Outputs()
    fallback = {e: float(spec.points.here) for e, spec in specs.items()}  # as grade list shows
    maxima = exercise_maxima(rows, assignment, fallback)
    titles = {e: spec.title.get(lang) for e, spec in specs.items()}

    def write(name: str, text: str) -> None:
        write_atomic(out / name, text)
        outputs.written.append(name)

    feedback = 0
    students: set[str] = set()  # the keys whose feedback page and folder this run writes
    for row in rows:
        if row.roster in ("absent", "ambiguous"):  # no work of theirs is known
            continue
        key = row.student.key
        mine = {e: r for (k, e), r in results.items() if k == key}
        for exercise, result in mine.items():
            report = out / "students" / key / f"{exercise}.html"
            if not report.is_file():  # a result from an older run, without its report
                write_atomic(report, render_result(result))
        write_atomic(
            out / "students" / key / "results.json", gradescope.results_json(row, assignment)
        )
        write_atomic(
            out / "feedback" / f"{key}.html", feedback_html(row, mine, assignment, lang, titles)
        )
        feedback += 1
        students.add(key)
    if whole_class:
        # never the folder of a student with a result in this run, whatever their row says
        outputs.removed = _prune(out, students, students | {k for k, _ in results})
    write("gradebook.csv", gradebook_csv(rows, assignment, maxima, incomplete=incomplete))
    write(
        "gradebook.json",
        gradebook_json(
            rows, assignment, maxima, titles, incomplete=incomplete, chosen=chosen, layout=layout
        ),
    )
    stats = class_stats(rows, results, assignment, maxima, titles)
    write(
        "index.html",
        render_class(rows, assignment, maxima, titles, stats, stray, lang, incomplete=incomplete),
    )
    if feedback:
        outputs.written.append(f"feedback/ ({feedback} page{'s' if feedback != 1 else ''})")
    if incomplete:
        for name in upload_names():
            (out / name).unlink(missing_ok=True)
        outputs.withheld.append(
            f"{', '.join(upload_names())}: not written, the gradebook is incomplete"
        )
        return outputs
    left_out = len(rows) - len(identified(rows))
    if left_out:
        outputs.warnings.append(
            f"{left_out} student(s) not on the roster, or matched to it only ambiguously, are "
            "left out of the identity-keyed uploads: match them by hand (gradebook.csv has "
            "their grades"
            + (
                "; moodle-worksheet.csv has those of a Moodle download by participant)"
                if any(r.student.participant for r in rows if r.roster == "unmatched")
                else ")"
            )
        )
    withheld = [r for r in rows if r.withheld and r.roster != "unmatched"]
    if withheld:
        outputs.warnings.append(
            f"{len(withheld)} roster student(s) get an empty cell, never 0, until you look "
            "(gradebook.csv says why for each: work not yet matched to anyone may be theirs, or "
            "theirs may be where intake could not read it)"
        )
    for platform in platforms():
        for upload in platform.uploads(rows, assignment):
            write(upload.name, upload.text)
            outputs.warnings.extend(upload.warnings)
    return outputs


# What grade batch writes in a student's folder of its output: results, cache keys, reports.
_STUDENT_FILES = (".json", ".key", ".html")


def _prune(out: Path, pages: set[str], folders: set[str]) -> list[str]:
    """Remove the feedback pages and result folders (of ``students/``) not among ``pages`` and
    ``folders``, this run's; what was removed, for the instructor. Only files of the kinds the batch writes are touched: a
    folder holding anything else (a download someone put there) is left as it is."""
    removed: list[str] = []
    for entry in _entries(out / "feedback"):
        stem, dot, suffix = entry.name.rpartition(".")
        if dot and suffix == "html" and stem not in pages and entry.is_file(follow_symlinks=False):
            Path(entry.path).unlink(missing_ok=True)
            removed.append(f"feedback/{entry.name}")
    for entry in _entries(out / "students"):
        if entry.name in folders or not entry.is_dir(follow_symlinks=False):
            continue
        inside = _entries(Path(entry.path))
        if all(
            e.is_file(follow_symlinks=False) and e.name.endswith(_STUDENT_FILES) for e in inside
        ):
            shutil.rmtree(entry.path, ignore_errors=True)
            removed.append(f"students/{entry.name}/")
    return removed


def _entries(folder: Path) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as scan:
            return list(scan)
    except OSError:
        return []
