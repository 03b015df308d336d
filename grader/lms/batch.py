"""``grade batch``: grade a whole class, in parallel, resumably, losing nothing.

The orchestration, in the order the data flows:

1. the exercises are fixed first (:mod:`.selection`: the assignment, ``--exercises`` or the
   whole course), so the gradebook's columns never depend on what was handed in;
2. intake reads the download in whichever LMS layout it is (:mod:`.intake`), leaving the output
   folder out of it, and the roster is matched (:mod:`.assignment`);
3. the engine grades what the cache does not already hold (:mod:`.cache`), storing each result
   as soon as it is whole (``--student`` grades one student's files only);
4. the rows are built from the stored results (:mod:`.grades`) and every output is written from
   them (:mod:`.outputs`).

Outputs in DIR (each file written atomically): ``students/<student>/<exercise>.json`` and
``.html`` (result and report), ``students/<student>/results.json`` (Gradescope),
``gradebook.csv``, ``gradebook.json``, ``canvas.csv``, ``moodle.csv``,
``feedback/<student>.html`` and ``index.html`` (the class report).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TextIO

from grader.catalog import Catalog, project_root
from grader.digests import digest, exercise_fingerprint
from grader.engine import DEFAULT_SEED, Engine, GradeRequest
from grader.engine.scoring import cacheable, grader_faulted
from grader.errors import UsageError
from grader.fileio import write_atomic
from grader.lms import folders, moodle, moodletimes
from grader.lms.assignment import (
    Assignment,
    RosterEntry,
    check_extensions,
    match_roster,
    read_roster,
)
from grader.lms.cache import engine_fingerprint, load, store
from grader.lms.grades import ExerciseScore, GradeRow, build_rows
from grader.lms.handin import (
    ExerciseInfo,
    Handin,
    Said,
    Submitted,
    clean_name,
    for_learner,
    safe_name,
)
from grader.lms.intake import OUTPUT_MARKER, Intake, read_submissions
from grader.lms.outputs import Outputs, write_outputs
from grader.lms.platform import NONE_DATED, forget_dates
from grader.lms.platforms import by_name, platforms
from grader.lms.progress import Progress
from grader.lms.selection import choose
from grader.lms.summary import Attention, attention
from grader.results import Result
from grader.spec import ExerciseSpec


@dataclass(frozen=True)
class BatchOptions:
    """What to grade and how; where it is graded (this machine, a cluster, how many at a time)
    is the engine's business, and the caller's choice (:data:`MakeEngine`)."""

    submissions: Path
    out: Path
    assignment: Path | None = None
    exercises: tuple[str, ...] = ()
    layout: str | None = None  # None: detect it
    student: str | None = None  # grade only this student (key, id, SID, e-mail or name)
    seed: int = DEFAULT_SEED
    lang: str = "en"


@dataclass(frozen=True)
class EngineNeeds:
    """What a batch's engine must be told, known once the exercises are chosen: the course,
    the folders learner children must not see (the class's submissions and the output), and
    the exercises to warm up."""

    catalog: Catalog
    hidden: tuple[Path, ...]
    preload: tuple[ExerciseSpec, ...]


class BatchEngine(Engine, Protocol):
    """An engine a batch can use: a context manager that says how many GPUs it grades on
    (the passes it runs are part of every cache key)."""

    @property
    def gpus(self) -> int: ...

    def __enter__(self) -> BatchEngine: ...

    def __exit__(self, *exc_info: object) -> None: ...


# The caller makes the engine (this machine's, or a cluster's): the batch never picks one.
MakeEngine = Callable[[EngineNeeds], BatchEngine]


@dataclass(frozen=True)
class Task:
    """One (student, exercise) file, where its result goes and the key it is cached under."""

    handin: Handin
    submitted: Submitted
    key: str
    result_path: Path


@dataclass
class BatchSummary:
    students: int  # gradebook rows
    graded: int  # graded in this run
    cached: int  # taken from the cache
    interrupted: bool
    out: Path
    all_passed: bool
    grader_faults: int  # results the grader itself could not produce properly
    selection: str  # how the exercises were chosen
    intake: str  # what the download held (one line)
    incomplete: str = ""  # why the gradebook is incomplete; "" when complete
    process_tier: bool = False  # learner code ran with the weakest isolation
    rows: list[GradeRow] = field(default_factory=list)
    outputs: Outputs | None = None
    notes: list[str] = field(default_factory=list)  # how the download was read
    attention: list[Attention] = field(default_factory=list)  # per student, what to look at
    stray: list[str] = field(default_factory=list)  # entries of the download that are no one's
    advice: list[str] = field(default_factory=list)  # what to do on each platform, in the end


def run_batch(options: BatchOptions, stream: TextIO, make_engine: MakeEngine) -> BatchSummary:
    """Grade the class in ``options.submissions`` into ``options.out`` with the engine
    ``make_engine`` makes; progress on ``stream``. Learner faults are results; bad input and
    grader faults are UsageErrors."""
    catalog = Catalog(project_root())
    out = options.out
    check_out(options.submissions, out)
    selection = choose(
        catalog,
        assignment=options.assignment,
        exercises=list(options.exercises) or None,
        name=options.submissions.resolve().name or "batch",
    )
    assignment = selection.assignment
    specs = {e: catalog.resolve(e) for e in assignment.ids}
    roster_notes: list[str] = []
    test_students: set[str] = set()
    roster = (
        read_roster(assignment.roster, roster_notes, test_students) if assignment.roster else None
    )
    engine = make_engine(  # first: a cluster that cannot be used fails before any work
        EngineNeeds(
            catalog,
            # learner children see neither the class's submissions nor what was graded so far
            hidden=(options.submissions.resolve(), out.resolve()),
            preload=tuple(specs.values()),
        )
    )
    _make_folder(out)
    print(selection.how, file=stream)
    intake = read_submissions(
        options.submissions,
        staging=out / ".staging",
        exercises={e: ExerciseInfo.from_spec(spec) for e, spec in specs.items()},
        layout=options.layout,
        exclude=(out,),
    )
    trial = [h for h in intake.handins if h.lms_id and h.lms_id in test_students]
    if trial:  # Canvas's test student handed in through Student View: no one's work
        intake.handins = [h for h in intake.handins if all(h is not t for t in trial)]
        roster_notes.append(
            f"{', '.join(h.origin or h.key for h in trial)}: Canvas's test student's work "
            "(its user id is the roster's test student's); not graded"
        )
    for note in (*roster_notes, *intake.notes):
        print(note, file=stream)
    print(f"Found {intake.summary()}", file=stream)
    if not intake.handins:
        raise UsageError(
            f"no student work in {options.submissions}",
            hint="Pass the folder that holds one folder or archive per student, or an LMS "
            "download (Gradescope, Canvas, Moodle), unzipped.",
        )
    # before any grading: an extension for no one would leave its student penalised
    check_extensions(assignment, roster, intake.handins)
    if roster is not None:
        _key_by_roster(intake.handins, roster)
    # a Moodle download's submission times, from the grading worksheet given as the roster
    timed = (
        moodletimes.apply(intake.handins, roster, assignment)
        if intake.layout == moodle.LAYOUT
        else None
    )
    # a download whose only dates are its files': where the class's are evidently not the
    # platform's (unzipped without them), none is named or used, and the run says so once
    undated = (
        forget_dates(intake.handins, assignment, _DATED_BY_FILES[intake.layout])
        if intake.layout in _DATED_BY_FILES
        else ""
    )
    chosen = _choose_student(intake, roster, options.student) if options.student else None

    grader_key = engine_fingerprint()
    # what decides whether CUDA cases run or are skipped: the passes this machine runs
    passes = "cpu,cuda" if engine.gpus else "cpu"
    fingerprints = {e: exercise_fingerprint(spec) for e, spec in specs.items()}
    results: dict[tuple[str, str], Result] = {}
    tasks: list[Task] = []
    sources: dict[Path, bytes] = {}
    cached = 0
    unreadable: list[str] = []  # stored results that are not results: graded again
    for handin in intake.handins:
        for exercise, submitted in sorted(handin.files.items()):
            source = _read(submitted.path)
            sources[submitted.path] = source
            key = digest(
                grader_key,
                fingerprints[exercise],
                source,
                str(options.seed),
                options.lang,
                passes,
                "\n".join(submitted.notes) + _cells_key(submitted),
            )
            task = Task(handin, submitted, key, _result_path(out, handin, exercise))
            if chosen is not None and handin is not chosen:
                stored = load(task.result_path, key, unreadable)
                if stored is not None:
                    results[(handin.key, exercise)] = stored
                continue
            stored = load(task.result_path, key, unreadable)
            if stored is not None:
                results[(handin.key, exercise)] = stored
                cached += 1
            else:
                tasks.append(task)

    for problem in unreadable:
        print(problem, file=stream)
    progress = Progress(len(tasks) + cached, stream, already=cached)
    interrupted = False
    fresh: list[Result] = []
    if tasks:

        def on_result(index: int, result: Result, report: str | None) -> None:
            task = tasks[index]
            result = _with_intake_notes(result, task.submitted)
            store(task.result_path, task.key if cacheable(result) else None, result)
            if report is None or task.submitted.notes or task.submitted.notebook is not None:
                # the engine rendered none (only a cluster's workers do), or notes or a
                # notebook's cells were added here: render it
                from grader.render.html import render_result

                report = render_result(result)
            write_atomic(task.result_path.with_suffix(".html"), report)
            results[(task.handin.key, task.submitted.exercise)] = result
            fresh.append(result)
            progress.advance(result)

        requests = [
            GradeRequest(
                exercise=task.submitted.exercise,
                source=sources[task.submitted.path],
                filename=_display_name(task.submitted),
                seed=options.seed,
                lang=options.lang,
                cells=task.submitted.notebook,
            )
            for task in tasks
        ]
        with engine:
            try:
                engine.grade_many(requests, on_result=on_result)
            except KeyboardInterrupt:
                interrupted = True
    progress.show(final=True)

    scores: dict[str, dict[str, ExerciseScore]] = {}
    times: dict[str, float] = {}
    for (student, exercise), result in results.items():
        scores.setdefault(student, {})[exercise] = ExerciseScore.from_result(result)
        times[student] = times.get(student, 0.0) + result.duration_s
    platform = by_name(intake.layout)
    rows = build_rows(
        intake.handins,
        scores,
        assignment,
        roster,
        execution_times=times,
        lateness=platform.lateness,
        unplaced=intake.unplaced,
    )
    missing = sum(len(h.files) for h in intake.handins) - len(results)
    incomplete = _incomplete(missing, interrupted, chosen)
    outputs = write_outputs(
        out,
        rows=rows,
        results=results,
        assignment=assignment,
        specs=specs,
        stray=intake.stray,
        lang=options.lang,
        incomplete=incomplete,
        chosen=selection.how,
        layout=intake.layout,
        whole_class=chosen is None,
    )
    judged = [r for r in rows if chosen is None or r.student.key == chosen.key]
    return BatchSummary(
        students=len(rows),
        graded=len(fresh),
        cached=cached,
        interrupted=interrupted,
        out=out,
        # with --student, the exit code is that student's: the command graded only them
        all_passed=(not incomplete or chosen is not None)
        and bool(judged)
        and all(s.status == "passed" for r in judged for s in r.scores)
        and all(r.roster not in ("unmatched", "ambiguous") for r in judged),
        grader_faults=sum(1 for r in results.values() if grader_faulted(r)),
        selection=selection.how,
        intake=intake.summary(),
        incomplete=incomplete,
        process_tier=any(r.environment.isolation.startswith("process") for r in fresh),
        rows=rows,
        outputs=outputs,
        notes=[*roster_notes, *intake.notes],
        attention=attention(rows, intake.handins),
        stray=list(intake.stray),
        advice=[]
        if incomplete
        else _with_dates(
            [
                *advice(rows, assignment, intake.layout),
                *(moodletimes.summary(rows, timed, assignment) if timed is not None else []),
            ],
            undated,
        ),
    )


# the layouts whose files' dates are their only dates, by the name the run's lines give them
_DATED_BY_FILES = {moodle.LAYOUT: "Moodle", folders.LAYOUT: "Plain folders"}


def _with_dates(lines: list[str], undated: str) -> list[str]:
    """The run's closing lines, with the one line on file dates that are not the platform's:
    the lines that would count files dated after the due date say nothing of them."""
    if not undated:
        return lines
    return [line.replace(f"; {NONE_DATED}", "") for line in lines] + [undated]


def advice(rows: list[GradeRow], assignment: Assignment, layout: str) -> list[str]:
    """What the instructor must still do on each platform, from each platform's own word:
    the one the class was read from first."""
    ordered = sorted(platforms(), key=lambda p: p.name != layout)
    return [line for p in ordered for line in p.advice(rows, assignment, p.name == layout)]


def check_out(submissions: Path, out: Path) -> None:
    """Refuse an output folder that is the submissions folder or lies anywhere inside it.

    Inside the download, the output would be read back as a student's work on the next run,
    or, naming a student's folder, would make that student's work look like an earlier output
    and drop it without a word. Both paths are compared resolved, so a link into the download
    is refused as well."""
    root = _resolved(submissions, "the submissions path")
    target = _resolved(out, "--out")
    if target == root or root in target.parents:
        where = "is the submissions folder" if target == root else "lies inside the submissions"
        raise UsageError(
            f"--out {out} {where} ({submissions}): its files would be read as a student's "
            "work, or a student's work taken for an earlier output",
            hint=f"Choose a folder outside {submissions}, e.g. --out {root.name}-graded beside it.",
        )


def _resolved(path: Path, argument: str) -> Path:
    """``path`` resolved; where it cannot be (a link loop), a usage error that names the
    argument it was given as: a loop in the submissions path was blamed on --out."""
    try:
        return path.resolve()
    except (OSError, RuntimeError) as exc:  # a link loop
        raise UsageError(
            f"cannot resolve {argument} {path}: {exc}",
            hint="Choose a path without a symbolic link loop.",
        ) from None


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
        marker = out / OUTPUT_MARKER
        if not marker.is_file():
            write_atomic(marker, "This folder is the output of `grade batch`.\n")
    except OSError as exc:
        raise UsageError(
            f"cannot create the output folder {out}: {exc.strerror or exc}",
            hint="Choose a folder you can write to with --out.",
        ) from None


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:  # the staging folder is the grader's own: a grader fault
        raise UsageError(f"cannot read the staged file {path}: {exc.strerror or exc}") from None


def _result_path(out: Path, handin: Handin, exercise: str) -> Path:
    return out / "students" / handin.key / f"{exercise}.json"


def _cells_key(submitted: Submitted) -> str:
    """A notebook's cell map is part of its result (the saved ``In [n]`` can change while the
    code stays the same), so it is part of the cache key; a ``.py`` file's key is unchanged."""
    if submitted.notebook is None:
        return ""
    return "\n" + json.dumps(submitted.notebook.to_dict(), sort_keys=True)


def _display_name(submitted: Submitted) -> str:
    """The file as handed in (``alice/exercise-07.py``, ``bob.zip:hw/ex7.py``): what
    tracebacks and warnings name, and what the learner recognises."""
    return submitted.shown or submitted.path.name


def _with_intake_notes(result: Result, submitted: Submitted) -> Result:
    """The result names the file as handed in, with what intake did to it (which file was
    taken for the exercise, a notebook's dropped magics, an unchanged starter). A notebook's
    result carries its cell map from the request (the engine names its lines), so that its
    report, the student's feedback page and the gradebook say "cell 4, line 2" as the
    learner's own ``grade`` does, not a line of the joined code the student never saw."""
    notes = list(submitted.notes)
    if submitted.unchanged_starter:
        notes.append(
            Said(
                f"{submitted.shown} is the exercise's starter file, unchanged.",
                f"{submitted.shown} 是该练习未经修改的初始文件。",
            )
        )
    # in the result's language, as the engine's own notes are: the result JSON, its report
    # and the student's page say them alike, from a fresh grading and from the cache alike
    return dataclasses.replace(
        result,
        submission=submitted.shown,
        notes=(*for_learner(notes, result.lang), *result.notes),
    )


def _key_by_roster(handins: list[Handin], roster: tuple[RosterEntry, ...]) -> None:
    """A student on the roster is filed under their roster id, whatever the download called
    them (a Moodle participant id, a Gradescope SID, a folder's name): the same student has
    the same folder and gradebook key every week, from every platform."""
    taken = {h.key for h in handins}
    for handin, entry, _ in match_roster(handins, roster).pairs:
        key = safe_name(entry.id)
        if key != handin.key and key not in taken:
            taken.discard(handin.key)
            taken.add(key)
            handin.key = key


def _incomplete(missing: int, interrupted: bool, chosen: Handin | None) -> str:
    if missing <= 0:
        return ""
    what = f"{missing} handed-in file(s) not graded yet"
    if interrupted:
        return f"grading was interrupted: {what}; run the same command again to finish"
    if chosen is not None:
        return (
            f"{what} (other students' files changed or were never graded); run without "
            "--student to grade them"
        )
    return f"{what}; run the same command again"


def _choose_student(intake: Intake, roster: tuple[RosterEntry, ...] | None, wanted: str) -> Handin:
    """The one handin ``--student`` names: by key, platform id, SID, e-mail or name, or by
    the roster entry it matched."""
    target = wanted.strip().casefold()
    cleaned = clean_name(wanted)

    def facts(handin: Handin) -> set[str]:
        values = {handin.key, handin.lms_id, handin.sid, handin.email}
        return {v.strip().casefold() for v in values if v}

    pairs = match_roster(intake.handins, roster).pairs if roster else []
    entry_of = {id(h): e for h, e, _ in pairs}
    found = []
    for handin in intake.handins:
        known = facts(handin)
        names = {clean_name(handin.name)}
        entry = entry_of.get(id(handin))
        if entry is not None:
            known |= {v.strip().casefold() for v in (entry.id, entry.sid, entry.email) if v}
            names.add(clean_name(entry.name))
        if target in known or (cleaned and cleaned in names):
            found.append(handin)
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise UsageError(
            f"--student {wanted} matches {len(found)} students: {', '.join(h.key for h in found)}",
            hint="Give the student's key as the gradebook shows it.",
        )
    if roster and any(
        target in {e.id.casefold(), e.sid.casefold(), e.email.casefold()}
        or (cleaned and cleaned == clean_name(e.name))
        for e in roster
    ):
        raise UsageError(
            f"{wanted} is on the roster but handed nothing in to {intake.root}",
            hint="Nothing to grade: their row says so in the gradebook.",
        )
    keys = [h.key for h in intake.handins]
    close = difflib.get_close_matches(wanted, keys, n=3)
    raise UsageError(
        f"no student {wanted!r} in {intake.root}",
        hint=f"Did you mean {', '.join(close)}?" if close else "Give a key from gradebook.csv.",
    )
