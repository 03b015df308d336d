"""Gradescope: its "Export Submissions" download in, autograder results and set-up out.

**The export** (assignment page, "Review Grades", "Export Submissions"; unzipped): a folder
``assignment_NNN_export/`` holding ``submission_metadata.yml`` and one folder per submission,
``submission_NNNN/``, with the files the student uploaded, at their paths. The metadata is YAML
written by Ruby, so its keys are Ruby symbols (``:submitters:``)::

    submission_123456:
      :submitters:
      - :name: Jane Doe
        :sid: '1001'
        :email: jane@example.edu
      :created_at: 2026-11-30 14:32:10.123456000 -08:00
      :score: 5.0
      :history: [...]

(the layout public tools that read these exports rely on, e.g. scripts that take
``record[':submitters'][0][':sid']`` and ``sub_data[':created_at']``). Names, SIDs, e-mails
and submission times come from the metadata only. Unknown Ruby tags (``!ruby/object:...``) are
read as plain values, never constructed.

A **group submission** lists several submitters. Each becomes a student of their own (a
``Handin`` per submitter, with the same files and a note naming the group): every member needs
a grade row in the gradebook, exactly as Gradescope itself gives each member the group's score.

Pointing intake at a single ``submission_NNNN/`` folder (or at an export whose metadata file
went missing) would grade nameless students; ``check_not_inner`` refuses it and says which folder
to pass instead.

**The autograder**'s formats (``read_run_metadata``, ``prepare_run``, ``results_json``,
``finish_run``, ``fault_json``) follow Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): the harness puts the
student's files in ``/autograder/submission`` and its metadata in
``/autograder/submission_metadata.json``, and reads ``/autograder/results/results.json``. The
zip that holds the autograder, and the grading run inside it, are :mod:`grader.lms.autograder`.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from grader import wire
from grader.errors import UsageError
from grader.fileio import resolved
from grader.i18n import REPORT, labels, sentence
from grader.lms.assignment import MAX_POINTS, Assignment, GradescopeSettings
from grader.lms.collect import Collector, entries, read_regular, skipped, staging_for
from grader.lms.grades import (
    NO_FILE,
    NOT_GRADED,
    UNREADABLE,
    UNREADABLE_SAID,
    ExerciseScore,
    GradeRow,
    Student,
    build_row,
    number,
    points,
)
from grader.lms.handin import ExerciseInfo, Handin, Said, for_learner, safe_name
from grader.lms.platform import Platform
from grader.render.feedback import late_free_line
from grader.text import inert_data

LAYOUT = "gradescope"
METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 64 << 20
SUBMISSION_DIR = re.compile(r"^submission_\d+\Z")


def detect(root: Path) -> bool:
    return (root / METADATA).is_file()


def check_not_inner(root: Path) -> None:
    """Refuse, with the folder to pass instead, a part of an export that would lose names."""
    if SUBMISSION_DIR.match(root.name) and (root.parent / METADATA).is_file():
        raise UsageError(
            f"{root} is one submission of a Gradescope export: graded on its own, its students "
            "would have no name, SID or e-mail",
            hint=f"Pass the export folder that holds {METADATA}: {root.parent}",
        )
    if not detect(root) and root.is_dir():
        try:
            inner = [e.name for e in entries(root) if e.is_dir() and SUBMISSION_DIR.match(e.name)]
        except OSError:
            inner = []
        if inner:
            raise UsageError(
                f"{root} holds Gradescope submission folders ({', '.join(sorted(inner)[:3])}, ...) "
                f"but no {METADATA}: without it no student has a name, SID or e-mail",
                hint="Unzip the whole export again (the metadata file sits next to the "
                "submission folders), or pass --layout folders to grade the folders by name.",
            )


class _MetadataLoader(yaml.SafeLoader):
    """Safe YAML that reads Ruby's ``!ruby/...`` tags as the plain value underneath, and
    timestamps, numbers and booleans as the text they are: every field read here is text
    (names, SIDs, e-mails; ``parse_time`` reads the times). Resolved, an unquoted SID
    ``01003`` became the octal 515 and a student named ``No`` the boolean false. A key
    written twice in one mapping is refused (``wire.refuse_duplicate_keys``): YAML keeps the
    last, which dropped a doubled submission's first student without a word."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        wire.refuse_duplicate_keys(self, node, deep)
        return super().construct_mapping(node, deep=deep)


def _plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_MetadataLoader.add_multi_constructor("!", _plain)
for _kind in ("timestamp", "int", "float", "bool"):
    _MetadataLoader.add_constructor(
        f"tag:yaml.org,2002:{_kind}",
        lambda loader, node: loader.construct_scalar(node),  # type: ignore[arg-type]
    )

MAX_METADATA_DEPTH = 16  # Gradescope's own nests about six deep
MAX_METADATA_ALIASES = 1000  # Ruby writes an alias for an object it wrote before
MAX_METADATA_VALUES = 1_000_000  # values in all, each alias counted as often as it is used
MAX_NAME = 500  # characters of a name, SID or e-mail
MAX_SUBMITTERS = 100  # of one submission (a group)


def _load_metadata(data: bytes, source: str) -> Any:
    """The metadata's YAML, bounded: a file an instructor did not write (Gradescope wrote
    it, from names students chose) may not expand by aliases, nest without end or hold more
    than ``MAX_METADATA_VALUES`` values once every alias is counted where it is used."""
    with wire.reading(wire.WireError, source):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            wire.fail("", f"not UTF-8 text (a bad byte at offset {exc.start})")
        try:
            depth = aliases = 0
            for event in yaml.parse(text, Loader=_MetadataLoader):
                if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                    depth += 1
                    if depth > MAX_METADATA_DEPTH:
                        wire.fail("", f"nested more than {MAX_METADATA_DEPTH} deep")
                elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                    depth -= 1
                elif isinstance(event, yaml.AliasEvent):
                    aliases += 1
                    if aliases > MAX_METADATA_ALIASES:
                        wire.fail("", f"more than {MAX_METADATA_ALIASES} aliases (*)")
            raw = yaml.load(text, Loader=_MetadataLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f" at line {mark.line + 1}" if mark else ""
            wire.fail("", f"invalid YAML{where}: {getattr(exc, 'problem', None) or exc}")
        except RecursionError:
            wire.fail("", f"nested more than {MAX_METADATA_DEPTH} deep")
        # a fresh copy, every alias walked where it is used: billion laughs stop at the budget
        return wire.plain(raw, "", max_depth=MAX_METADATA_DEPTH, max_items=MAX_METADATA_VALUES)


def _field(record: dict, name: str, where: str) -> tuple[Any, str]:
    """A value under a Ruby symbol key (``:name``) or a plain one (``name``), and its path."""
    for key in (f":{name}", name):
        if key in record:
            return record[key], f"{where}.{key}"
    return None, f"{where}.:{name}"


def _text(value: Any, where: str) -> str:
    """A name, SID or e-mail: a string (the loader keeps an unquoted number as its text), or
    nothing."""
    if value is None:
        return ""
    return wire.string(value, where, max_len=MAX_NAME).strip()


_TIME = re.compile(
    r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2})?(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?\Z"
)


def parse_time(value: Any) -> datetime | None:
    """A submission time as a timezone-aware datetime (ISO strings, with or without seconds,
    and Ruby's ``2026-11-30 14:32:10.123456000 -08:00``), or None. A time without a zone is
    none: taken as UTC, Bob's 03:00 of a class at -05:00 was on time where he was three hours
    late (the assignment's ``due`` refuses one too)."""
    if not isinstance(value, str):
        return None
    match = _TIME.match(value.strip())
    if not match or match.group(5) is None:
        return None
    date, clock, seconds, fraction, zone = match.groups()
    micro = (fraction or ".0")[1:7].ljust(6, "0")
    zone = "+00:00" if zone == "Z" else zone
    if ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    try:
        return datetime.fromisoformat(f"{date}T{clock}{seconds or ':00'}.{micro}{zone}")
    except ValueError:
        return None


def _zone_less(text: str) -> bool:
    match = _TIME.match(text.strip())
    return match is not None and match.group(5) is None


@dataclass(frozen=True)
class Submitter:
    name: str
    sid: str
    email: str


def who(person: Submitter) -> str:
    """A group member as a note names them: the name, else the e-mail, else "SID 1002" (a
    member Gradescope gives only a SID was named by nothing: "with , Bob"), else that
    Gradescope names them by nothing."""
    name, email, sid = (" ".join(v.split()) for v in (person.name, person.email, person.sid))
    if name or email:
        return name or email
    return f"SID {sid}" if sid else "a member with no name or SID"


def read_metadata(path: Path) -> dict[str, tuple[list[Submitter], datetime | None]]:
    """Each submission folder's submitters and time, from ``submission_metadata.yml``, read
    strictly (``_load_metadata``, then every field by its type). The file is the instructor's
    download: any departure is a usage error naming the file and the field."""
    try:
        data, _ = read_regular(path, MAX_METADATA_BYTES)
    except OSError as exc:
        raise UsageError(
            f"{path}: cannot be read as Gradescope's submission metadata "
            f"({getattr(exc, 'strerror', None) or exc})",
            hint="Unzip the export again; the file is written by Gradescope, not by hand.",
        ) from None
    try:
        with wire.reading(wire.WireError, str(path)):
            return _records(_load_metadata(data, str(path)))
    except wire.WireError as exc:
        raise UsageError(
            f"not Gradescope's submission metadata: {exc}",
            hint="Unzip the export again; the file is written by Gradescope, not by hand.",
        ) from None


def _records(raw: Any) -> dict[str, tuple[list[Submitter], datetime | None]]:
    if type(raw) is not dict:
        wire.fail("", f"expected a mapping of submission folders, got {wire.kind(raw)}")
    found: dict[str, tuple[list[Submitter], datetime | None]] = {}
    for folder, record in raw.items():
        where = wire.string(folder, "<submission folder>", max_len=MAX_NAME)
        if type(record) is not dict:
            wire.fail(where, f"expected a mapping, got {wire.kind(record)}")
        people = []
        submitters, at = _field(record, "submitters", where)
        for spot, person in wire.sequence(submitters or [], at, max_items=MAX_SUBMITTERS):
            if type(person) is not dict:
                wire.fail(spot, f"expected a mapping, got {wire.kind(person)}")
            name, name_at = _field(person, "name", spot)
            sid, sid_at = _field(person, "sid", spot)
            email, email_at = _field(person, "email", spot)
            people.append(
                Submitter(
                    name=_text(name, name_at),
                    sid=_text(sid, sid_at),
                    email=_text(email, email_at),
                )
            )
        created, created_at = _field(record, "created_at", where)
        if created is None:  # said by read(): no late rule can apply to this one
            found[where] = (people, None)
            continue
        if type(created) is dict and "utc" in created:
            # Rails writes an ActiveSupport::TimeWithZone as a mapping: utc, zone, time
            created, created_at = created["utc"], f"{created_at}.utc"
        text = wire.string(created, created_at, max_len=100)
        when = parse_time(text)
        if when is None:
            wire.fail(
                created_at,
                f"{text[:40]!r} has no time zone"
                if _zone_less(text)
                else f"{text[:40]!r} is not a time",
            )
        found[where] = (people, when)
    return found


def read(
    root: Path,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    exclude: frozenset[Path] = frozenset(),
    stray: list[str] | None = None,
) -> list[Handin]:
    """One Handin per submitter of every submission in the export at ``root``."""
    stray = stray if stray is not None else []
    metadata = read_metadata(root / METADATA)
    folders = {}
    for entry in entries(root):
        path = Path(entry.path)
        if skipped(entry.name) or entry.name == METADATA or (exclude and resolved(path) in exclude):
            continue
        if entry.is_dir(follow_symlinks=False) and not entry.is_symlink():
            folders[entry.name] = path
        else:
            stray.append(f"{entry.name}: not a submission folder; ignored")
    handins = []
    for name in sorted(set(folders) | set(metadata)):
        people, created = metadata.get(name, ([], None))
        template = Handin(key=name, origin=f"{name}/", submitted_at=created)
        if created is None and name in metadata:
            template.problems.append(
                Said(
                    f"{METADATA} gives {name} no submission time (:created_at:): no late "
                    "penalty can apply to it",
                    f"{METADATA} 没有给出 {name} 的提交时间（:created_at:）：无法对它应用迟交扣分",
                )
            )
        if name in folders:
            collector = Collector(template, exercises, staging_for(staging, name), exclude=exclude)
            collector.add_entry(
                folders[name], name=name, shown=name, submitted_at=created, own_folder=True
            )
            template = collector.finish()
        else:
            missing = Said(
                f"{name}/: listed in {METADATA} but its folder is not in the export",
                f"{name}/：{METADATA} 中列出了它，但导出的文件中没有它的文件夹",
            )
            template.problems.append(missing)
            # its submitters handed in: what is not in the export is no 0 ("missing") but work
            # intake could not read, and no grade is written until the instructor looks
            for exercise in exercises:
                template.unreadable[exercise] = Said(
                    f"{missing} (an unzip cut short?)", f"{missing.zh}（解压没有完成？）"
                )
                template.unread_work.add(exercise)
        if name not in metadata:
            template.problems.append(
                f"{name}/: not in {METADATA}, so no name, SID or e-mail is known"
            )
        if not people:
            handins.append(template)
            continue
        listed: set[Submitter] = set()
        for index, person in enumerate(people):
            # the same name, SID and e-mail listed twice is one member (no facts at all: may be two)
            if person in listed and (person.name or person.sid or person.email):
                continue
            listed.add(person)
            handin = _copy(template)
            handin.name, handin.sid, handin.email = person.name, person.sid, person.email
            handin.key = safe_name(person.sid or person.email or f"{name}-{index + 1}")
            handin.key_kind = "sid" if person.sid else "email" if person.email else "folder"
            if len(set(people)) > 1:
                others = [who(p) for p in dict.fromkeys(people) if p != person]
                handin.notes.append(f"{name}: a group submission, with {', '.join(others)}")
            handins.append(handin)
    return handins


def locate(root: Path, notes: list[str], forced: bool) -> Path | None:
    """The export to read: ``root`` itself, or (detecting) the one export inside the folder
    the instructor unzipped into; a single submission folder, or a folder of submissions
    without their metadata, is refused with the folder to pass instead."""
    check_not_inner(root)
    if detect(root):
        return root
    if forced:
        raise UsageError(
            f"{root} is not a Gradescope export: it has no {METADATA}",
            hint="Pass the folder that holds submission_metadata.yml.",
        )
    exports = _exports_inside(root)
    if len(exports) > 1:
        raise UsageError(
            f"{root} holds {len(exports)} Gradescope exports "
            f"({', '.join(e.name for e in exports)})",
            hint="Pass one export folder at a time.",
        )
    if exports:
        notes.append(f"read the Gradescope export {exports[0].name}/ inside {root}")
        return exports[0]
    return None


def _exports_inside(root: Path) -> list[Path]:
    """Gradescope exports one level down: the folder an instructor unzipped into."""
    try:
        found = entries(root)
    except OSError:
        return []
    return [
        Path(e.path)
        for e in found
        if not skipped(e.name) and e.is_dir(follow_symlinks=False) and detect(Path(e.path))
    ]


PLATFORM = Platform(
    name=LAYOUT,
    detect=detect,
    read=read,
    locate=locate,
    times="the submission time in submission_metadata.yml (the late rule is applied)",
)


def _copy(handin: Handin) -> Handin:
    """One member's own record of a group's submission: the same files, in records of their
    own, so that what intake learns of one member (their other submission puts a file in
    doubt) is said of that member only, never of the whole group."""
    return Handin(
        key=handin.key,
        name=handin.name,
        email=handin.email,
        sid=handin.sid,
        lms_id=handin.lms_id,
        participant=handin.participant,
        submitted_at=handin.submitted_at,
        late=handin.late,
        origin=handin.origin,
        files={e: replace(s, notes=list(s.notes)) for e, s in handin.files.items()},
        unreadable=dict(handin.unreadable),
        unread_work=set(handin.unread_work),
        problems=list(handin.problems),
        notes=list(handin.notes),
    )


# ---------------------------------------------------------------------------------------------
# The autograder: results.json for one student


def results_json(
    row: GradeRow,
    assignment: Assignment,
    *,
    isolation: str = "",
    fault: str = "",
    lang: str = "en",
) -> str:
    """Gradescope's ``results.json`` for one student (autograder specification, "Output
    format"): the top-level ``score`` is the final grade as points of ``gradescope.points``
    (late penalty applied); each graded test is a test case whose points are its share of its
    exercise's weight, so the tests add up to the score before any penalty; a missing or
    unreadable exercise is one failed, always visible test saying so. Visibility follows
    Gradescope's specification ("Controlling Test Case Visibility"): the top-level
    ``visibility`` (``gradescope.visibility``) is the default, each graded test states its own
    (``gradescope.hidden_tests``, else the default), and while a graded test is not yet shown
    Gradescope hides the total score as well; so the top-level ``output`` states the score and
    the late penalty's result only where the score is shown at once
    (``GradescopeSettings.score_at_once``), and otherwise says when it will be. The
    autograder's own output is ``gradescope.stdout_visibility``. Keys sorted, numbers
    rounded: byte-stable.

    ``fault`` (why the grader itself failed, in some test) makes the score 0 and tells the
    student to contact the instructor: a grade the grader cannot vouch for must not stand as
    if it were one. The tests stay, as graded, for the instructor to look at.

    ``lang``: the language of the lines the student reads above the tests (the tests' own
    output is in the language they were graded in); the instructor's problems stay as the
    grader wrote them."""
    settings = assignment.gradescope
    said = labels(_SAID, lang)
    weights = assignment.weights
    total = sum(weights.values()) or 1.0
    tests: list[dict[str, Any]] = []
    for score in row.scores:
        share = settings.points * weights.get(score.exercise, 0.0) / total
        if not score.tests or score.max_score <= 0:
            tests.append(
                {
                    "name": f"{score.exercise}: {said.get('status_' + score.status, score.status)}",
                    "score": 0.0,
                    "max_score": _round(share),
                    "status": "failed",
                    "output": _not_graded(score, said, lang),
                    "visibility": "visible",
                }
            )
            continue
        scale = share / score.max_score
        for test in score.tests:
            tests.append(
                {
                    "name": f"{score.exercise}: {test.name}",
                    "score": _round(test.score * scale),
                    "max_score": _round(test.max_score * scale),
                    "status": "passed" if test.passed else "failed",
                    "output": test.output,
                    "visibility": settings.tests_visibility,
                }
            )
    final = 0.0 if fault else points(row.final_percent, settings.points) or 0.0
    lines = [contact_line(fault, lang)] if fault else []
    shown = settings.score_at_once
    if row.weighted_percent is not None and shown:
        lines.append(said["score"].format(percent=number(row.weighted_percent)))
    elif row.weighted_percent is not None:
        lines.append(said[f"score_{settings.tests_visibility}"])
    if row.lateness:
        lines.append(
            sentence(labels(REPORT, lang), row.lateness_label, row.lateness_values, row.lateness)
        )
    elif row.days_late:
        lines.append(_late_line(row, assignment, shown, lang))
    if row.weighted_percent is None:
        lines.append(nothing_found(row, lang))
    # each in the student's language; the instructor's English-only lines are counted
    lines.extend(for_learner(row.problems, lang))
    if isolation:
        lines.append(said["isolation"].format(tier=isolation))
    data: dict[str, Any] = {
        "score": final,
        "execution_time": round(row.execution_time),
        "output": "\n".join(lines),
        "visibility": settings.visibility,
        "stdout_visibility": settings.stdout_visibility,
        "tests": tests,
    }
    return json.dumps(inert_data(data), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def _not_graded(score: ExerciseScore, said: dict[str, str], lang: str = "en") -> str:
    """Why an exercise has no test to show, in the student's language: no file, a file that
    could not be read (the reader's reason kept as it wrote it), or the grading's own word."""
    if score.status == NO_FILE:
        return said["no_file"]
    if isinstance(score.message, Said) and lang != "en":  # said in the student's language
        return score.message.get(lang)
    if score.status == UNREADABLE and score.message.startswith(UNREADABLE_SAID):
        return said["unreadable"].format(why=score.message.removeprefix(UNREADABLE_SAID))
    if score.status == NOT_GRADED and lang != "en":  # the grading's own English word
        return said["nothing_graded"]
    return score.message or said["nothing_graded"]


def _late_line(row: GradeRow, assignment: Assignment, shown: bool, lang: str = "en") -> str:
    """What the late rule did to this submission, as the rule's shape has it: nothing (and,
    under "free for N days, then no credit", where the free days end), the points it took,
    or no credit past its day limit."""
    days = row.days_late
    limit = assignment.late.zero_after if assignment.late is not None else None
    said, words = labels(_SAID, lang), labels(REPORT, lang)
    end = said["end"]
    if not row.late_percent:
        return f"{late_free_line(days, limit, words)}{end}"
    in_all = said["in_all"].format(percent=number(row.final_percent or 0.0)) if shown else ""
    line = said["late_by"].format(days=days, points=number(row.late_percent), in_all=in_all)
    if limit is not None and days > limit:
        line += f"{said['gap']}{words['late_zero'].format(max=limit)}{end}"
    return line


def nothing_found(row: GradeRow, lang: str = "en") -> str:
    """What a student is told when no file of the assignment was found in their submission."""
    expected = ", ".join(f"{s.exercise}.py" for s in row.scores)
    return labels(_SAID, lang)["nothing_found"].format(expected=expected)


def failed_in(exercises: list[str], lang: str = "en") -> str:
    """Why a run has no grade to vouch for, where the grader itself failed in some
    exercises: what :func:`contact_line` puts in parentheses, in the student's language."""
    return labels(_SAID, lang)["failed_in"].format(exercises=", ".join(exercises))


def contact_line(why: str, lang: str = "en") -> str:
    """What a student is told when the grader, not their code, failed (``why`` as the grader
    wrote it)."""
    return labels(_SAID, lang)["contact"].format(why=why)


# What results.json tells the student above the tests, in each language of the feedback.
_SAID: dict[str, dict[str, str]] = {
    "en": {
        "score": "Score: {percent}% of the exercises' weighted points.",
        "score_after_due_date": "Your score and each test's feedback are shown after the due date.",
        "score_after_published": "Your score and each test's feedback are shown when your "
        "instructor publishes the grades.",
        "late_by": "Handed in {days} day(s) late: -{points} percentage points{in_all}.",
        "in_all": ", {percent}% in all",
        "gap": " ",
        "end": ".",
        "nothing_found": "No file of this assignment was found in the submission: expected "
        "{expected} (a notebook, .ipynb, works too). Score: 0.",
        "nothing_graded": "Nothing could be graded.",
        "contact": "The autograder could not grade this submission ({why}). This is not your "
        "code's fault: please contact your instructor. Score: 0 until then.",
        "isolation": "Graded in the grader's '{tier}' isolation tier.",
        "due_unread": "Gradescope's due date could not be read: no late penalty was applied; "
        "your instructor will check it",
        "own_due_unread": "Gradescope's due date for you could not be read ({why}): lateness "
        "was judged against {judged}; your instructor will check it",
        "judged_due": "the assignment's due date",
        "judged_none": "no due date",
        "own_due": "Lateness is judged against your own due date in Gradescope, {when}.",
        "group_dues": "The group's members have different due dates in Gradescope ({dates}): "
        "the earliest was used; your instructor will check it",
        "group_extensions": "The group's members have different due dates in the "
        "assignment's extensions ({dates}): the earliest was used; your instructor will check it",
        "list_gap": ", ",
        "none": "none",
        "total_points": "scored out of Gradescope's {total} points (the assignment file says "
        "gradescope.points: {points})",
        "time_unread": "Gradescope's submission time could not be read: no late penalty was "
        "applied; your instructor will check it",
        "status_missing": "missing",
        "status_unreadable": "unreadable",
        "status_not graded": "not graded",
        "status_passed": "passed",
        "status_failed": "failed",
        "status_error": "error",
        "no_file": "No file was handed in for this exercise.",
        "unreadable": "The file could not be read: {why}",
        "failed_in": "the grader itself failed in {exercises}",
    },
    "zh": {
        "score": "得分：各练习加权总分的 {percent}%。",
        "score_after_due_date": "你的得分和每个测试的反馈将在截止日期之后显示。",
        "score_after_published": "你的得分和每个测试的反馈将在老师公布成绩时显示。",
        "late_by": "迟交 {days} 天：扣 {points} 个百分点{in_all}。",
        "in_all": "，总计 {percent}%",
        "gap": "",
        "end": "。",
        "nothing_found": "提交中没有找到这次作业的文件：应为 {expected}（也可以是 .ipynb 笔记本）。"
        "得分：0。",
        "nothing_graded": "没有可以评分的内容。",
        "contact": "自动评分器无法为这次提交评分（{why}）。这不是你的代码的问题：请联系老师。"
        "在此之前得分为 0。",
        "isolation": "在评分器的“{tier}”隔离级别中评分。",
        "due_unread": "无法读取 Gradescope 的截止日期：未扣迟交分；老师会核实",
        "own_due_unread": "无法读取 Gradescope 中你的截止日期（{why}）：按{judged}判断是否迟交；"
        "老师会核实",
        "judged_due": "作业的截止日期",
        "judged_none": "无截止日期",
        "own_due": "按你在 Gradescope 中自己的截止日期 {when} 判断是否迟交。",
        "group_dues": "小组成员在 Gradescope 中的截止日期不同（{dates}）：按最早的一个判断；"
        "老师会核实",
        "group_extensions": "小组成员在作业的延期设置中截止日期不同（{dates}）：按最早的一个"
        "判断；老师会核实",
        "list_gap": "、",
        "none": "无",
        "total_points": "按 Gradescope 的总分 {total} 分计分（作业文件中 gradescope.points 为 "
        "{points}）",
        "time_unread": "无法读取 Gradescope 的提交时间：未扣迟交分；老师会核实",
        "status_missing": "未提交",
        "status_unreadable": "无法读取",
        "status_not graded": "未评分",
        "status_passed": "通过",
        "status_failed": "未通过",
        "status_error": "出错",
        "no_file": "这道练习没有提交文件。",
        "unreadable": "无法读取这个文件（评分器的原话：{why}）",
        "failed_in": "评分器本身在 {exercises} 中出错",
    },
}


def fault_json(
    why: str,
    *,
    execution_time: float = 0.0,
    assignment: Assignment | None = None,
    lang: str = "en",
) -> str:
    """results.json for a run that produced no grade at all (the assignment did not load, the
    engine did not start, a bug): score 0, no tests, and the student told to contact the
    instructor. Always ``visible``, whatever the assignment says: a student must learn that
    their submission was not graded (Gradescope shows an error, not a grade, without a
    results.json)."""
    settings = assignment.gradescope if assignment is not None else GradescopeSettings()
    data: dict[str, Any] = {
        "score": 0.0,
        "execution_time": round(execution_time),
        "output": contact_line(why, lang),
        "visibility": "visible",
        "stdout_visibility": settings.stdout_visibility,
        "tests": [],
    }
    return json.dumps(inert_data(data), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def _round(value: float) -> float:
    return round(value, 4) + 0.0  # + 0.0: never -0.0


@dataclass(frozen=True)
class RunMetadata:
    """What Gradescope tells the autograder in ``/autograder/submission_metadata.json``
    (autograder documentation, "Submission Metadata"): the submission's time, the assignment's
    due dates and the submitters."""

    created_at: datetime | None = None
    due_date: datetime | None = None
    late_due_date: datetime | None = None
    users: tuple[Submitter, ...] = ()
    submission_id: str = ""
    total_points: float | None = None  # the assignment's points in Gradescope
    # each user's own due date (``users[i].assignment.due_date``: Gradescope writes the
    # assignment as it applies to them, an extension included), None where not given
    user_due_dates: tuple[datetime | None, ...] = ()
    # why some user's own dates could not be read ("" when they could, or were not given)
    user_dates_unread: str = ""
    due_date_unread: bool = False  # the assignment's due_date is given but is not a time


def read_run_metadata(path: Path) -> RunMetadata:
    """``submission_metadata.json``, read strictly (``grader.wire``): a missing or unreadable
    file, or one whose fields have other types than Gradescope documents, gives empty
    metadata (a grading must not fail for it; the result then says who is unknown)."""
    try:
        data, _ = read_regular(path, MAX_METADATA_BYTES)
        return _run_metadata(wire.loads(data, source=str(path), max_depth=MAX_METADATA_DEPTH))
    except (OSError, wire.WireError):
        return RunMetadata()


def _optional_text(record: dict, key: str, where: str) -> str:
    value = record.get(key)
    if value is None:
        return ""
    if type(value) is int:
        return str(value)
    return wire.string(value, f"{where}.{key}" if where else key, max_len=MAX_NAME).strip()


def _run_metadata(raw: Any) -> RunMetadata:
    if type(raw) is not dict:
        wire.fail("", f"expected a mapping, got {wire.kind(raw)}")
    assignment = raw.get("assignment") or {}
    if type(assignment) is not dict:
        wire.fail("assignment", f"expected a mapping, got {wire.kind(assignment)}")
    users = []
    dues: list[datetime | None] = []
    unread = ""
    for where, user in wire.sequence(raw.get("users") or [], "users", max_items=MAX_SUBMITTERS):
        if type(user) is not dict:
            wire.fail(where, f"expected a mapping, got {wire.kind(user)}")
        users.append(
            Submitter(
                name=_optional_text(user, "name", where),
                sid=_optional_text(user, "sid", where),
                email=_optional_text(user, "email", where),
            )
        )
        due, why = _own_due(user.get("assignment"), f"{where}.assignment")
        dues.append(due)
        unread = unread or why

    def time(record: dict, key: str, where: str) -> datetime | None:
        value = record.get(key)
        return None if value is None else parse_time(wire.string(value, where, max_len=100))

    total_points = _total_points(assignment.get("total_points"))
    due = time(assignment, "due_date", "assignment.due_date")
    return RunMetadata(
        total_points=total_points,
        created_at=time(raw, "created_at", "created_at"),
        due_date=due,
        due_date_unread=assignment.get("due_date") is not None and due is None,
        late_due_date=time(assignment, "late_due_date", "assignment.late_due_date"),
        users=tuple(users),
        submission_id=_optional_text(raw, "id", ""),
        user_due_dates=tuple(dues),
        user_dates_unread=unread,
    )


def _own_due(record: Any, where: str) -> tuple[datetime | None, str]:
    """A user's own due date from their ``assignment`` record (None where it gives none), and
    why it could not be read ("" where it could). Read apart from the rest: a user's dates of
    another shape must not cost the submission time, and with it the late penalty it owes."""
    if record is None:
        return None, ""
    if type(record) is not dict:
        return None, f"{where} is {wire.kind(record)}, not a mapping"
    value = record.get("due_date")
    if value is None:
        return None, ""
    when = parse_time(value) if type(value) is str and len(value) <= 100 else None
    if when is None:
        shown = repr(value[:40]) if type(value) is str else wire.kind(value)
        return None, f"{where}.due_date {shown} is not a time with a time zone"
    return when, ""


def own_due_date(
    assignment: Assignment, metadata: RunMetadata, lang: str = "en"
) -> tuple[Assignment, list[str]]:
    """The assignment with the submitters' own due date, where Gradescope gives them one
    (an extension given in Gradescope: ``users[i].assignment.due_date`` differs from the
    assignment's ``due_date``), and what the result must say about it. A group whose members'
    dates differ is judged by the earliest, and told so; an extension that ends before the
    assignment file's own due date changes nothing; dates that cannot be read are not
    guessed at: the assignment's own due date stands, and the result says so. The lines are
    the student's, in ``lang``."""
    said = labels(_SAID, lang)
    due = assignment.due if assignment.due is not None else metadata.due_date
    usual = metadata.due_date if metadata.due_date is not None else due
    if due is None and metadata.due_date_unread:  # said, not silent: a penalty it may owe
        return assignment, [said["due_unread"]]
    if metadata.user_dates_unread:
        judged = said["judged_due" if due is not None else "judged_none"]
        why = metadata.user_dates_unread[:200]
        return replace(assignment, due=due), [said["own_due_unread"].format(why=why, judged=judged)]
    own = [d if d is not None else usual for d in metadata.user_due_dates]
    known = [d for d in own if d is not None]
    if not known or all(d == usual for d in own):
        return replace(assignment, due=due), []
    earliest = min(known)
    if due is not None and usual is not None and usual < earliest <= due:
        return replace(assignment, due=due), []  # extended to before the file's own due date
    notes = [said["own_due"].format(when=_moment(earliest))]
    if len(set(own)) > 1:
        shown = said["list_gap"].join(
            _moment(d) if d is not None else said["none"]
            for d in sorted(set(own), key=lambda d: (d is None, d or earliest))
        )
        notes.append(said["group_dues"].format(dates=shown))
    return replace(assignment, due=earliest), notes


def members_due_date(
    assignment: Assignment, metadata: RunMetadata, lang: str = "en"
) -> tuple[Assignment, list[str]]:
    """A group's one grade (Gradescope gives every member the same) under the assignment
    file's ``extensions``: judged by the earliest of its members' own due dates, and told so,
    where they differ; not by its first submitter's alone, which gave a member without an
    extension another's. The lines are the student's, in ``lang``."""
    if len(metadata.users) < 2 or not assignment.extensions:
        return assignment, []
    dues = []
    for user in metadata.users:
        ids = [
            user.sid,
            user.email,
            safe_name(user.sid or user.email) if user.sid or user.email else "",
        ]
        dues.append(assignment.for_student(ids).due)
    known = [d for d in dues if d is not None]
    if len(set(dues)) < 2 or not known:
        return assignment, []
    said = labels(_SAID, lang)
    shown = said["list_gap"].join(
        _moment(d) if d is not None else said["none"]
        for d in sorted(set(dues), key=lambda d: (d is None, d or known[0]))
    )
    # the earliest for every member: no extension of one member applies to the group's grade
    judged = replace(assignment, due=min(known), extensions=())
    return judged, [said["group_extensions"].format(dates=shown)]


def _moment(when: datetime) -> str:
    return when.isoformat(sep=" ", timespec="minutes")


def _total_points(value: Any) -> float | None:
    """The assignment's points in Gradescope (a number, or text such as "20.0"), where it is
    one a grade can be scored out of; else None."""
    if type(value) is str:
        try:
            value = float(value)
        except ValueError:
            return None
    if type(value) not in (int, float):
        return None
    total = float(value)
    return total if math.isfinite(total) and 0 < total <= MAX_POINTS else None


def prepare_run(
    submission: Path,
    metadata: RunMetadata,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
) -> Handin:
    """The one submission in ``/autograder/submission`` as a Handin, with the submitter and
    time from the metadata: what ``grade gradescope-run`` grades."""
    from grader.lms.folders import read_one

    if not submission.is_dir():
        raise UsageError(f"{submission} is not a folder (Gradescope puts the submission there)")
    handin = read_one(submission, staging=staging, exercises=exercises, name="submission")
    if metadata.users:
        first = metadata.users[0]
        handin.name, handin.email, handin.sid = first.name, first.email, first.sid
        handin.key = safe_name(first.sid or first.email or "submission")
        if len(metadata.users) > 1:
            names = ", ".join(who(u) for u in metadata.users[1:])
            handin.notes.append(f"a group submission, with {names}")
    handin.submitted_at = metadata.created_at
    return handin


def finish_run(
    handin: Handin,
    metadata: RunMetadata,
    scores: dict[str, ExerciseScore],
    assignment: Assignment,
    *,
    execution_time: float = 0.0,
    isolation: str = "",
    fault: str = "",
    lang: str = "en",
) -> str:
    """The results.json text for a graded run, its lines for the student in ``lang``. The late
    rule uses the assignment's ``due``, or Gradescope's own due date when the assignment file
    gives none, or the submitters' own due date where Gradescope gives them one
    (``own_due_date``: an extension given in Gradescope). ``fault``: why the grader itself
    failed in some test (see ``results_json``)."""
    said, en = labels(_SAID, lang), labels(_SAID, "en")
    # each line in both languages, as intake's are (``Said``): the student reads theirs
    given = assignment
    assignment, dated = own_due_date(given, metadata, lang)
    dated_en = own_due_date(given, metadata, "en")[1]
    given = assignment
    assignment, extended = members_due_date(given, metadata, lang)
    dated_en += members_due_date(given, metadata, "en")[1]
    problems = [
        *handin.problems,
        *(Said(e, z) for e, z in zip(dated_en, [*dated, *extended], strict=True)),
    ]
    points = assignment.gradescope.points
    if metadata.total_points is not None and metadata.total_points != points:
        # Gradescope shows the score against its own total: 100 points of a 20-point
        # assignment read as 100/20
        assignment = replace(
            assignment,
            gradescope=replace(assignment.gradescope, points=metadata.total_points),
        )
        values = {"total": number(metadata.total_points), "points": number(points)}
        problems.append(
            Said(en["total_points"].format(**values), said["total_points"].format(**values))
        )
    if assignment.due is not None and metadata.created_at is None:
        # said, not silent: the grade carries no late penalty it may owe
        problems.append(Said(en["time_unread"], said["time_unread"]))
    found = dict(scores)
    for exercise, why in handin.unreadable.items():
        found.setdefault(exercise, ExerciseScore.unreadable(exercise, why))
    row = build_row(
        Student.from_handin(handin),
        found,
        assignment,
        submitted_at=metadata.created_at,
        problems=problems,
        execution_time=execution_time,
    )
    return results_json(row, assignment, isolation=isolation, fault=fault, lang=lang)
