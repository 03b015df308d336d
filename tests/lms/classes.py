"""Whole class downloads, one per layout, built as each platform builds them: misnamed files,
duplicates, a notebook, a late submission, a FIFO and a hostile archive in every one."""

from __future__ import annotations

import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from tests.lms.builders import (
    STARTER,
    code,
    fifo,
    hostile_tar,
    hostile_zip,
    notebook,
    tar_bytes,
    write,
    zip_bytes,
)


def _now() -> int:
    """Now, as a zip dates a file (2 s steps), when a class is built (not when this module
    was imported: a class built minutes later had its files apart from that time)."""
    return int(time.time()) // 2 * 2


DUE = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)  # the due date of ``same_class``

GRADESCOPE_METADATA = """\
---
submission_1001:
  :submitters:
  - :name: Jane Doe
    :sid: '1001'
    :email: jane.doe@example.edu
  :created_at: 2026-12-01 15:01:02.123456000 -08:00
  :score: !ruby/object:BigDecimal 18:0.5e1
  :status: processed
  :history: []
submission_1002:
  :submitters:
  - :name: Bob Smith
    :sid: '1002'
    :email: bob@example.edu
  :created_at: 2026-12-01 10:00:00.000000000 -08:00
submission_1003:
  :submitters:
  - :name: Ann Lee
    :sid: '1003'
    :email: ann@example.edu
  - :name: Pat O'Brien
    :sid: '1004'
    :email: pat@example.edu
  :created_at: 2026-12-01 09:30:00.000000000 -08:00
submission_1005:
  :submitters:
  - :name: Kim Nguyen
    :sid: '1005'
    :email: kim@example.edu
  :created_at: 2026-12-03 08:00:00.000000000 -08:00
submission_1006:
  :submitters:
  - :name: Eve Hostile
    :sid: '1006'
    :email: eve@example.edu
  :created_at: 2026-12-01 11:00:00.000000000 -08:00
submission_1008:
  :submitters:
  - :name: Noel Files
    :sid: '1008'
    :email: noel@example.edu
  :created_at: 2026-12-01 12:00:00.000000000 -08:00
"""


def gradescope_export(root: Path) -> Path:
    """``assignment_4242_export/`` as Gradescope's "Export Submissions" unzips."""
    export = root / "assignment_4242_export"
    write(export / "submission_metadata.yml", GRADESCOPE_METADATA)
    s = export / "submission_1001"
    write(s / "exercise-01.py", code("jane 1"))
    write(s / "exercise-07.ipynb", notebook("%matplotlib inline\nimport torch", code("jane 7")))
    s = export / "submission_1002"
    write(s / "ex1.py", code("bob 1"))
    write(s / "Exercise05.py", code("bob 5"))
    write(s / "exercise-07.py", code("bob 7 exact"))
    write(s / "exercise-07 (1).py", code("bob 7 copy"))
    write(export / "submission_1003" / "work.zip", zip_bytes({"hw/exercise-05.py": code("pair 5")}))
    write(export / "submission_1005" / "exercise-01.py", STARTER["exercise-01"])  # late, unchanged
    s = export / "submission_1006"
    write(s / "evil.zip", hostile_zip())
    fifo(s / "exercise-07.py")
    write(export / "submission_1007" / "exercise-01.py", code("unknown"))  # not in the metadata
    write(export / "__MACOSX" / "._submission_metadata.yml", b"\0")
    return export


def canvas_download(root: Path) -> Path:
    """A Canvas "Download Submissions" zip, unzipped: flat, named by Canvas's ContentZipper."""
    root.mkdir(parents=True, exist_ok=True)
    write(root / "doejane_4711_88231_exercise-07.py", code("jane 7 first"))
    write(root / "doejane_LATE_4711_88240_exercise-07-1.py", code("jane 7 resubmitted"))
    write(root / "doejane_4711_88232_Exercise01.ipynb", notebook(code("jane 1")))
    write(
        root / "smithbob_4712_88302_work.zip",
        zip_bytes({"work/exercise-05.py": code("bob 5"), "work/hw/ex7.py": code("bob 7")}),
    )
    write(root / "leeann_LATE_4713_88400_exercise-05.py", code("ann 5"))
    write(root / "leeann_4713_text.html", "<p>see attached</p>")
    fifo(root / "obrienpat_4714_88500_exercise-07.py")
    write(root / "nguyenkim_4715_88600_evil.zip", hostile_zip())
    write(root / "smithbob_4712_88303_exercise-01 copy.py", code("bob 1"))
    write(root / "notes-from-the-ta.txt", "grade these by friday")
    return root


def moodle_download(root: Path) -> Path:
    """A Moodle "Download all submissions" zip, unzipped, "download as folders" and flat."""
    root.mkdir(parents=True, exist_ok=True)
    s = root / "Jane Doe_1234567_assignsubmission_file_"
    write(s / "exercise-07.py", code("jane 7"))
    write(s / "hw" / "ex1.ipynb", notebook(code("jane 1")))
    s = root / "Bob Smith_1234568_assignsubmission_file_"
    write(s / "work.tar.gz", tar_bytes({"bob/exercise-05.py": code("bob 5")}))
    write(root / "Bob Smith_1234568_assignsubmission_onlinetext_" / "onlinetext.html", "<p>hi</p>")
    now = _now()  # the unzip's time: the other files are dated when they are written
    write(root / "Ann Lee_1234569_assignsubmission_file_exercise-05.py", code("ann old"), now - 600)
    write(root / "Ann Lee_1234569_assignsubmission_file_exercise-05 (1).py", code("ann new"), now)
    write(root / "Participant_1234570_assignsubmission_file_" / "exercise-01.py", code("blind"))
    fifo(root / "Pat O'Brien_1234571_assignsubmission_file_" / "exercise-07.py")
    s = root / "Kim Nguyen_1234572_assignsubmission_file_"
    write(s / "evil.tar.gz", hostile_tar())
    return root


def class_folders(root: Path) -> Path:
    """A class collected by hand: folders, zips and tarballs, mixed."""
    root.mkdir(parents=True, exist_ok=True)
    now = _now()
    write(root / "alice" / "exercise-01.py", code("alice 1 old"), now - 3600)
    write(root / "alice" / "exercise-07.py", code("alice 7"), now - 3600)
    write(root / "alice.zip", zip_bytes({"alice/exercise-01.py": code("alice 1 new"),
                                         "alice/exercise-05.py": code("alice 5")}))  # fmt: skip
    os.utime(root / "alice.zip", (now, now))
    write(root / "bob.tar.gz", tar_bytes({"Exercise05.py": code("bob 5")}))
    write(root / "Carol Diaz" / "ex7.ipynb", notebook(code("carol 7")))
    write(root / "dan.tgz", hostile_tar())
    fifo(root / "erin" / "exercise-07.py")
    write(root / "erin" / "exercise-01.py", code("erin 1"))
    write(root / "exercise-07.py", code("whose?"))
    write(root / "README.txt", "instructions")
    fifo(root / "pipe")
    # an earlier run's output, as grade batch writes it: results, and the staged copies of
    # the work it graded in its hidden .staging folder
    write(root / "graded" / "students" / "x" / "exercise-01.json", "{}")
    write(root / "graded" / ".staging" / "folders" / "x" / "exercise-01.py", code("an output"))
    write(root / "graded" / ".grade-batch-output", "This folder is the output of `grade batch`.\n")
    return root


# id, name, e-mail, SID; how late (days after the due date, None: on time); right or wrong
CLASS = [
    ("4711", "Jane Doe", "jane@example.edu", "1001", None, "right"),
    ("4712", "Bob Smith", "bob@example.edu", "1002", None, "wrong"),
    ("4713", "Ann Lee", "ann@example.edu", "1003", 2, "right"),  # 2 days late: -20
    ("4714", "Kim Nguyen", "kim@example.edu", "1004", 4, "right"),  # 4 days: no credit
]
PARTICIPANT = {"4711": "901", "4712": "902", "4713": "903", "4714": "904"}


def roster_text(extra: str = "") -> str:
    return "id,name,email,sid\n" + "".join(f"{i},{n},{e},{s}\n" for i, n, e, s, *_ in CLASS) + extra


def when(late: int | None) -> datetime:
    return DUE - timedelta(hours=3) if late is None else DUE + timedelta(days=late, hours=-1)


def files(tag: str, right: str) -> dict[str, str]:
    label = f"{tag} wrong" if right == "wrong" else tag
    return {"exercise-01.py": code(label), "exercise-05.py": code(label)}


def same_class(
    layout: str, root: Path, *, blind: bool = False, teams: dict[str, str] | None = None
) -> Path:
    """One class (``CLASS``) as ``layout``'s download has it: Gradescope's export with its
    submission times, Canvas's flat download with ``_LATE_`` marks, Moodle's folders (blind
    marking with ``blind``; a team assignment's "{team}-{name}" with ``teams``, by user id)
    with each file dated when it was handed in."""
    root.mkdir(parents=True)
    if layout == "gradescope":
        meta = ["---"]
        for ident, name, email, sid, late, right in CLASS:
            meta += [
                f"submission_{ident}:",
                "  :submitters:",
                f"  - :name: {name}",
                f"    :sid: '{sid}'",
                f"    :email: {email}",
                f"  :created_at: {when(late):%Y-%m-%d %H:%M:%S}.000000000 +00:00",
            ]
            for file, text in files(ident, right).items():
                write(root / f"submission_{ident}" / file, text)
        write(root / "submission_metadata.yml", "\n".join(meta) + "\n")
    elif layout == "canvas":
        file_id = 88000
        for ident, name, _, _, late, right in CLASS:
            first, last = name.split()
            mark = "_LATE" if late is not None else ""
            for file, text in files(ident, right).items():
                file_id += 1
                write(root / f"{last.lower()}{first.lower()}{mark}_{ident}_{file_id}_{file}", text)
    else:  # moodle: "download as folders"; each file dated when it was handed in
        for ident, name, _, _, late, right in CLASS:
            shown = "Participant" if blind else name
            if teams is not None:
                shown = f"{teams.get(ident, 'Default group')}-{shown}"
            folder = root / f"{shown}_{PARTICIPANT[ident]}_assignsubmission_file_"
            for file, text in files(ident, right).items():
                write(folder / file, text, when(late).timestamp())
    return root
