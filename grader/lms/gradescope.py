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

**The autograder** side (``results_json``, ``autograder_files``, ``autograder_zip``) follows
Gradescope's autograder specification (https://gradescope-autograders.readthedocs.io/en/latest/
specs/): a zip with ``setup.sh`` and ``run_autograder`` at its root; the harness puts the
student's files in ``/autograder/submission`` and reads ``/autograder/results/results.json``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import yaml

from grader.errors import UsageError
from grader.lms.collect import Collector, read_regular, skipped, staging_for
from grader.lms.handin import ExerciseInfo, Handin, safe_name

LAYOUT = "gradescope"
METADATA = "submission_metadata.yml"
MAX_METADATA_BYTES = 64 << 20
SUBMISSION_DIR = re.compile(r"^submission_\d+$")


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
            inner = [
                e.name for e in os.scandir(root) if e.is_dir() and SUBMISSION_DIR.match(e.name)
            ]
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
    """Safe YAML that reads Ruby's ``!ruby/...`` tags as the plain value underneath."""


def _plain(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    if isinstance(node, yaml.ScalarNode):
        return loader.construct_scalar(node)
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    return loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]


_MetadataLoader.add_multi_constructor("!", _plain)


def _key(mapping: dict, name: str) -> Any:
    """A value under a Ruby symbol key (``:name``) or a plain one (``name``)."""
    return mapping.get(f":{name}", mapping.get(name))


def parse_time(value: Any) -> datetime | None:
    """A submission time as timezone-aware datetime (YAML timestamps, ISO strings, Ruby's
    ``2026-11-30 14:32:10.123456000 -08:00``); naive times are taken as UTC."""
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    if not isinstance(value, str):
        return None
    text = value.strip()
    match = re.match(
        r"^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$", text
    )
    if not match:
        return None
    date, clock, fraction, zone = match.groups()
    micro = (fraction or ".0")[1:7].ljust(6, "0")
    zone = "+00:00" if zone in (None, "Z") else zone
    if ":" not in zone:
        zone = f"{zone[:3]}:{zone[3:]}"
    try:
        return datetime.fromisoformat(f"{date}T{clock}.{micro}{zone}")
    except ValueError:
        return None


@dataclass(frozen=True)
class Submitter:
    name: str
    sid: str
    email: str


def read_metadata(path: Path) -> dict[str, tuple[list[Submitter], datetime | None]]:
    """Each submission folder's submitters and time, from ``submission_metadata.yml``."""
    try:
        data, _ = read_regular(path, MAX_METADATA_BYTES)
        raw = yaml.load(data.decode("utf-8", errors="replace"), Loader=_MetadataLoader)
    except (OSError, yaml.YAMLError) as exc:
        raise UsageError(
            f"{path}: cannot be read as Gradescope's submission metadata ({exc})",
            hint="Unzip the export again; the file is written by Gradescope, not by hand.",
        ) from None
    if not isinstance(raw, dict):
        raise UsageError(f"{path}: not Gradescope's submission metadata (expected a mapping)")
    found = {}
    for folder, record in raw.items():
        if not isinstance(record, dict):
            continue
        people = []
        for person in _key(record, "submitters") or []:
            if isinstance(person, dict):
                people.append(
                    Submitter(
                        name=str(_key(person, "name") or "").strip(),
                        sid=str(_key(person, "sid") or "").strip(),
                        email=str(_key(person, "email") or "").strip(),
                    )
                )
        found[str(folder)] = (people, parse_time(_key(record, "created_at")))
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
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        path = Path(entry.path)
        if skipped(entry.name) or entry.name == METADATA or (exclude and path.resolve() in exclude):
            continue
        if entry.is_dir(follow_symlinks=False) and not entry.is_symlink():
            folders[entry.name] = path
        else:
            stray.append(f"{entry.name}: not a submission folder; ignored")
    handins = []
    for name in sorted(set(folders) | set(metadata)):
        people, created = metadata.get(name, ([], None))
        template = Handin(key=name, origin=f"{name}/", submitted_at=created)
        if name in folders:
            collector = Collector(template, exercises, staging_for(staging, name), exclude=exclude)
            collector.add_folder(folders[name], shown=f"{name}/", submitted_at=created)
            template = collector.finish()
        else:
            template.problems.append(
                f"{name}/: listed in {METADATA} but its folder is not in the export"
            )
        if name not in metadata:
            template.problems.append(
                f"{name}/: not in {METADATA}, so no name, SID or e-mail is known"
            )
        if not people:
            handins.append(template)
            continue
        for index, person in enumerate(people):
            handin = _copy(template)
            handin.name, handin.sid, handin.email = person.name, person.sid, person.email
            handin.key = safe_name(person.sid or person.email or f"{name}-{index + 1}")
            if len(people) > 1:
                others = [p.name or p.sid or p.email for p in people if p is not person]
                handin.notes.append(f"{name}: a group submission, with {', '.join(others)}")
            handins.append(handin)
    return handins


def _copy(handin: Handin) -> Handin:
    return Handin(
        key=handin.key,
        name=handin.name,
        email=handin.email,
        sid=handin.sid,
        lms_id=handin.lms_id,
        submitted_at=handin.submitted_at,
        late=handin.late,
        origin=handin.origin,
        files=dict(handin.files),
        unreadable=dict(handin.unreadable),
        problems=list(handin.problems),
        notes=list(handin.notes),
    )
