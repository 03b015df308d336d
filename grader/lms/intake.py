"""Intake: every student's work in a download, whichever platform it came from.

    intake = read_submissions(root, staging=out / ".staging", exercises=infos)
    for handin in intake.handins: ...  # each with files staged and ready to grade

The layout is detected, most specific first (``LAYOUTS`` order: a Gradescope export has its
metadata file; Moodle and Canvas name every entry in their own way; anything else is plain
folders), and named in ``Intake.layout``; ``layout=`` forces one. Handins that are one student
(a folder and a later zip; a Gradescope student with two submissions) are merged by identity:
the platform's user id, else the SID, else the e-mail (case ignored), else the cleaned name, but
never two handins whose ids, SIDs or e-mails disagree. The merged student keeps, per exercise,
the latest file (the platform's time, else the file's), and the newest identity data.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from grader.errors import UsageError
from grader.fileio import is_folder, is_regular_file, resolved
from grader.lms.collect import (
    MAX_DEPTH,
    MAX_WALK_ENTRIES,
    archive_kind,
    class_budget,
    skipped,
    summarise,
)
from grader.lms.collect import entries as list_entries
from grader.lms.handin import (
    ExerciseInfo,
    Handin,
    Said,
    Submitted,
    clean_name,
    in_lang,
    safe_name,
    shown_text,
    tell_apart,
)
from grader.lms.names import code_name
from grader.lms.platforms import by_name, names, platforms
from grader.text import shown_name

LAYOUTS = names()  # most specific first: the order layouts are detected in
STRONG = ("lms_id", "participant", "sid", "email")
OUTPUT_MARKER = ".grade-batch-output"  # written by grade batch into its output folder


@dataclass
class Intake:
    """What a download held."""

    layout: str  # the layout read: gradescope, moodle, canvas or folders
    root: Path  # the folder read (an export folder found inside the one given, if so)
    handins: list[Handin]  # one per student, sorted by key, keys unique
    stray: list[str] = field(default_factory=list)  # top-level entries that are no one's
    notes: list[str] = field(default_factory=list)  # how the download was read
    # the stray entries that may hold someone's work (an exercise file, an archive, a folder
    # with one, a link): while there are any, no roster student without work gets a 0
    unplaced: list[str] = field(default_factory=list)

    @property
    def files(self) -> int:
        return sum(len(h.files) for h in self.handins)

    def summary(self) -> str:
        """One line for the terminal: what was found, and how much needs a look."""
        notebooks = sum(1 for h in self.handins for s in h.files.values() if s.notebook)
        unchanged = sum(1 for h in self.handins for s in h.files.values() if s.unchanged_starter)
        unreadable = sum(len(h.unreadable) for h in self.handins)
        problems = sum(1 for h in self.handins if h.problems)
        parts = [f"{_count(len(self.handins), 'student', 'students')} ({self.layout})"]
        parts.append(_count(self.files, "file", "files"))
        for count, one, many in (
            (notebooks, "notebook", "notebooks"),
            (unreadable, "unreadable", "unreadable"),
            (unchanged, "unchanged starter", "unchanged starters"),
            (problems, "student with problems", "students with problems"),
            (len(self.stray), "stray entry", "stray entries"),
        ):
            if count:
                parts.append(_count(count, one, many))
        return ", ".join(parts)


def _count(n: int, one: str, many: str) -> str:
    """``n`` things, each phrase spelled out (a rule that pluralised the first word wrote "2
    unchangeds starter")."""
    return f"{n} {one if n == 1 else many}"


def read_submissions(
    root: Path,
    *,
    staging: Path,
    exercises: dict[str, ExerciseInfo],
    layout: str | None = None,
    exclude: tuple[Path, ...] = (),
) -> Intake:
    """Every student's work under ``root``, staged under ``staging``. ``exclude`` names
    folders inside ``root`` that are no one's work (the grader's output folder); ``staging``
    is always excluded."""
    root = _check_root(root)
    if layout is not None and layout not in LAYOUTS:
        raise UsageError(
            f"unknown layout {layout!r}",
            hint=f"Choose one of: {', '.join(LAYOUTS)} (or leave it out to detect it).",
        )
    notes: list[str] = []
    if layout is None:
        root, layout = _detect(root, notes)
    else:
        root = by_name(layout).find(root, notes, True) or root
    stray: list[str] = []
    earlier = _earlier_outputs(root, notes) if layout == "folders" else []
    stray += [f"{p.name}/: the output of an earlier grade batch; ignored" for p in earlier]
    excluded = frozenset(resolved(p) for p in (*exclude, staging, *earlier))
    try:
        with class_budget():  # the class caps (collect.py), over every student's Collector
            handins = by_name(layout).read(
                root, staging=staging / layout, exercises=exercises, exclude=excluded, stray=stray
            )
    except OSError as exc:
        raise UsageError(f"cannot read {root}: {exc.strerror or exc}") from None
    merged = _merge(handins)
    _unique_keys(merged)
    for handin in merged:
        _displayable(handin)
    unplaced = _unplaced(root, stray, excluded)
    return Intake(
        layout=layout,
        root=root,
        handins=sorted(merged, key=lambda h: h.key),
        stray=[shown_name(s) for s in summarise(stray, "entries belong to no student; ignored")],
        notes=[shown_name(n) for n in notes],
        unplaced=[shown_name(s) for s in unplaced],
    )


def _unplaced(root: Path, stray: list[str], excluded: frozenset[Path]) -> list[str]:
    """The stray messages about top-level entries that may hold a student's work: a platform
    sets aside what it did not name (a folder of work collected by mail beside a Canvas
    download) and what it refuses (one Moodle participant id under two names). Every reader
    says why an entry is set aside as "<entry name>: <why>"."""
    try:
        found = list_entries(root)
    except OSError:
        return []
    unplaced = []
    for entry in found:
        path = Path(entry.path)
        if skipped(entry.name) or resolved(path) in excluded:
            continue
        said = [m for m in stray if m.startswith(f"{entry.name}: ")]
        if said and may_hold_work(entry):
            unplaced.extend(said)
    return unplaced


def _displayable(handin: Handin) -> None:
    """Every text of a handin that someone reads, made encodable (``grader.text.shown_name``):
    the names in it came from the file system, where an undecodable byte is a lone surrogate
    (``surrogateescape``), and no writer after intake (JSON, CSV, HTML, the terminal) may fail
    on one; each such byte is shown as ``\\xNN``, so that two names that differ there still
    read differently. Paths stay as they are: they are for the file system only."""
    handin.name, handin.email, handin.sid, handin.lms_id, handin.participant, handin.origin = (
        shown_name(v)
        for v in (
            handin.name,
            handin.email,
            handin.sid,
            handin.lms_id,
            handin.participant,
            handin.origin,
        )
    )
    handin.problems = [shown_text(p) for p in handin.problems]
    handin.notes = [shown_text(n) for n in handin.notes]
    handin.unreadable = {e: shown_text(why) for e, why in handin.unreadable.items()}
    for submitted in handin.files.values():
        submitted.shown = shown_name(submitted.shown)
        submitted.notes = [shown_text(n) for n in submitted.notes]
        submitted.doubt = shown_name(submitted.doubt)


def _earlier_outputs(root: Path, notes: list[str]) -> list[Path]:
    """Folders at the top of a class of folders that an earlier ``grade batch`` wrote (as
    older versions allowed, with ``--out`` inside the submissions): they hold its marker file
    and nothing that could be work. The marker alone proves nothing: a student can upload a
    file of that name, and was then dropped from the gradebook without a word. A folder with
    anything intake might grade is a student's, whatever else it holds. (A platform's
    download names every student's entry its own way: an earlier output there is a stray
    entry.)"""
    try:
        found = list_entries(root)
    except OSError:
        return []
    earlier = []
    for entry in found:
        path = Path(entry.path)
        if not (entry.is_dir(follow_symlinks=False) and (path / OUTPUT_MARKER).is_file()):
            continue
        if may_hold_work(entry):
            notes.append(
                f"{entry.name}/: holds {OUTPUT_MARKER} (the mark grade batch leaves in its "
                "output folder) but also work: read as a student's"
            )
        else:
            earlier.append(path)
    return earlier


def may_hold_work(entry: os.DirEntry[str]) -> bool:
    """Whether an entry of a download may hold something intake would grade: a .py or
    .ipynb file or an archive; a folder holding one anywhere outside the hidden and tool
    folders intake skips; a link (whatever it points at is refused, and may be the work); or
    a folder that cannot be listed, or is larger or deeper than intake walks a student's
    (fail closed). The output of ``grade batch`` holds none of these outside its hidden
    ``.staging``."""
    if entry.is_symlink():
        return True
    if not entry.is_dir(follow_symlinks=False):
        return _may_be_work(entry.name)
    pending, seen = [(Path(entry.path), 0)], 0
    while pending:
        folder, depth = pending.pop()
        try:
            found = list_entries(folder)
        except OSError:
            return True
        seen += len(found)
        if seen > MAX_WALK_ENTRIES or depth > MAX_DEPTH:
            return True
        for inner in found:
            if skipped(inner.name):
                continue
            if inner.is_dir(follow_symlinks=False) and not inner.is_symlink():
                pending.append((Path(inner.path), depth + 1))
            elif inner.is_symlink() or _may_be_work(inner.name):
                return True
    return False


def _may_be_work(name: str) -> bool:
    return code_name(name) or archive_kind(name) is not None


def _check_root(root: Path) -> Path:
    if is_regular_file(root) and archive_kind(root.name):
        raise UsageError(
            f"{root} is an archive, not a folder",
            hint=f"Extract it first (e.g. `unzip {root.name} -d submissions`) and pass the folder.",
        )
    if not is_folder(root):
        raise UsageError(
            f"{root} is not a folder",
            hint="Pass the folder that holds the download: one folder or archive per student, "
            "or a Gradescope, Canvas or Moodle download, unzipped.",
        )
    return root


def _detect(root: Path, notes: list[str]) -> tuple[Path, str]:
    """The first platform, most specific first, whose download ``root`` is (or holds)."""
    for platform in platforms():
        found = platform.find(root, notes, False)
        if found is not None:
            return found, platform.name
    return root, "folders"


# ---------------------------------------------------------------------------------------------
# One student, however many times they handed in


def _compatible(a: list[Handin], b: list[Handin]) -> bool:
    """Two groups may be one student unless an id, SID or e-mail disagrees."""
    for kind in STRONG:
        mine = {v for h in a for k, v in h.identities() if k == kind}
        theirs = {v for h in b for k, v in h.identities() if k == kind}
        if mine and theirs and not mine & theirs:
            return False
    return True


def _merge(handins: list[Handin]) -> list[Handin]:
    groups: list[list[Handin]] = []
    for handin in handins:
        ids = {(k, v) for k, v in handin.identities() if k in STRONG}
        matching = [
            g for g in groups if ids & {(k, v) for h in g for k, v in h.identities() if k in STRONG}
        ]
        if not matching:
            name = clean_name(handin.name) or clean_name(handin.key)
            matching = [
                g
                for g in groups
                if name and any((clean_name(h.name) or clean_name(h.key)) == name for h in g)
            ]
            if len(matching) > 1:
                matching = []
        matching = [g for g in matching if _compatible(g, [handin])]
        group = [handin]
        for other in matching:
            groups.remove(other)
            group = other + group
        groups.append(group)
    return [_combine(group) if len(group) > 1 else group[0] for group in groups]


def _newest(handin: Handin) -> datetime | None:
    times = [
        t for t in [handin.submitted_at, *(s.submitted_at for s in handin.files.values())] if t
    ]
    return max(times) if times else None


def _order(handin: Handin) -> tuple:
    newest = _newest(handin)
    return (newest.timestamp() if newest else float("-inf"), handin.origin)


def _known_before(handin: Handin, graded: Handin) -> bool:
    """Whether the platform's times say ``handin`` came before ``graded`` (file dates and the
    download's order are guesses, and say nothing here)."""
    return (
        handin.submitted_at is not None
        and graded.submitted_at is not None
        and handin.submitted_at < graded.submitted_at
    )


def _combine(group: list[Handin]) -> Handin:
    """One student out of several handins: the newest identity data, the latest file."""
    ordered = sorted(group, key=_order)  # oldest first
    newest = ordered[-1]
    origins = tell_apart([h.origin for h in ordered])  # "José/" twice reads as one name
    merged = Handin(key=newest.key, key_kind=newest.key_kind, origin=" + ".join(origins))
    for handin in ordered:  # later handins overwrite identity data they have
        for attribute in ("name", "email", "sid", "lms_id", "participant"):
            if getattr(handin, attribute):
                setattr(merged, attribute, getattr(handin, attribute))
        if handin.name:  # what is known of a name goes with it: shared by many, or ambiguous
            merged.shared_name, merged.aliases = handin.shared_name, handin.aliases
        merged.problems.extend(handin.problems)
        merged.notes.extend(handin.notes)
    merged.notes.append(f"handed in {len(ordered)} times ({', '.join(origins)}): one student")
    exercises = sorted({e for h in ordered for e in (*h.files, *h.unreadable)})
    for exercise in exercises:
        files = [(h, h.files[exercise]) for h in ordered if exercise in h.files]
        if files:
            best = max(files, key=lambda pair: _file_rank(pair[1], ordered.index(pair[0])))
            chosen = best[1]
            merged.files[exercise] = chosen
            for handin, other in files:
                if other is chosen:
                    continue
                mine, theirs = tell_apart([chosen.shown, other.shown])
                line = f"{exercise}: graded {mine}"
                if best[0].submitted_at and handin.submitted_at:  # the platform's times
                    merged.notes.append(f"{line}, handed in after {theirs}")
                elif chosen.sequence != other.sequence:
                    merged.notes.append(f"{line}, uploaded after {theirs}")
                else:  # file dates, or nothing: the order is a guess
                    merged.problems.append(
                        Said(
                            f"{line} over {theirs}, as the later by file date or, at the same "
                            "date, in the download's order; file dates are no submission "
                            "times: check which is the student's final version",
                            f"{exercise}：评分的是 {mine}，而不是 {theirs}：按文件日期它更晚"
                            "（日期相同时按下载中的顺序）；文件日期不是提交时间：需要老师确认"
                            "哪一份是最终版本",
                        )
                    )
            for handin in ordered:
                if exercise not in handin.unreadable:
                    continue
                if (
                    exercise in handin.unread_work
                    and not chosen.doubt
                    and not _known_before(handin, best[0])
                ):
                    # work of this exercise the grader could not read (a look-alike name, an
                    # archive past its limits), handed in apart from the graded file and not
                    # known to be older: it may be the student's final version
                    chosen.doubt = (
                        f"{handin.unreadable[exercise]}; handed in apart from the graded "
                        f"{chosen.shown}, and not known to be older: it may be the student's "
                        "final version"
                    )
                    why = handin.unreadable[exercise]
                    merged.problems.append(
                        Said(
                            f"{exercise}: {chosen.doubt}",
                            f"{exercise}：{in_lang(why, 'zh')}；它与评分的 {chosen.shown} "
                            "分开提交，不知道是否更早：它可能是最终版本",
                        )
                    )
                else:
                    merged.notes.append(
                        f"{exercise}: graded {chosen.shown}; {handin.unreadable[exercise]}"
                    )
        else:
            reasons = [h.unreadable[exercise] for h in ordered if exercise in h.unreadable]
            merged.unreadable[exercise] = reasons[-1]
            if any(exercise in h.unread_work for h in ordered):
                merged.unread_work.add(exercise)
    # The student's time (and the platform's late flag) is that of the handins whose files are
    # graded: a later submission that brought nothing graded (a notes.txt alone) made on-time
    # work late.
    taken = {id(f) for f in merged.files.values()}
    graded = [h for h in ordered if any(id(f) in taken for f in h.files.values())]
    counted = graded or ordered
    times = [h.submitted_at for h in counted if h.submitted_at]
    merged.submitted_at = max(times) if times else None
    flags = [h.late for h in counted if h.late is not None]
    merged.late = any(flags) if flags else None
    # each line once: handins of one student may carry the same line (a group's, copied to
    # each member; one archive's look-alike member, read once per handin)
    merged.notes = list(dict.fromkeys(merged.notes))
    merged.problems = list(dict.fromkeys(merged.problems))
    return merged


def _file_rank(submitted: Submitted, position: int) -> tuple:
    when = submitted.submitted_at.timestamp() if submitted.submitted_at else float("-inf")
    return (when, submitted.sequence, position)


def _unique_keys(handins: list[Handin]) -> None:
    """Distinct students whose keys clean up alike get ``-2``, ``-3``, ... (with a problem)."""
    seen: set[str] = set()
    for handin in sorted(handins, key=lambda h: (h.key, h.origin)):
        handin.key = safe_name(handin.key)
        if handin.key in seen:
            base, n = handin.key, 2
            while f"{base}-{n}" in seen:
                n += 1
            handin.problems.append(f"another student is also {base}; this one is {base}-{n}")
            handin.key = f"{base}-{n}"
        seen.add(handin.key)
