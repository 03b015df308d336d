"""No student can take, replace or shadow a classmate's work by what they name their files.

Attribution uses only what the platform itself writes (Moodle's ``{name}_{id}_`` prefix, read
from the left; Canvas's ``{name}_{user id}_{file id}_``; Gradescope's submission folder and
metadata; a class folder's own name), never the part a student chose. The property: whatever
one student calls their uploads (names generated to look like other students' prefixes,
archives full of such names), every honest classmate keeps exactly their own files.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms.handin import Handin
from grader.lms.intake import read_submissions
from grader.lms.moodle import parse_name
from tests.lms.builders import code, exercises, write, zip_bytes

HONEST = [("Jane Doe", "101", "4711", "doejane"), ("Bob Smith", "102", "4712", "smithbob")]
ATTACKER = ("Eve Hostile", "103", "4713", "hostileeve")
FILES = ("exercise-01.py", "exercise-05.py")

# pieces a hostile name is made of: other students' prefixes, platform words, separators
PIECES = st.sampled_from(
    [
        "Jane Doe_101_assignsubmission_file_",
        "Bob Smith_102_assignsubmission_file_",
        "Participant_101_assignsubmission_file_",
        "_101_",
        "_4711_",
        "doejane_4711_",
        "smithbob_LATE_4712_99999_",
        "4711_88888_",
        "submission_4711",
        "_assignsubmission_onlinetext_",
        "text.html",
        "LATE_",
        "exercise-01",
        "exercise-05",
        "ex1",
        ".py",
        ".zip",
        " (1)",
        "-1",
        "_",
        " ",
    ]
)
NAMES = (
    st.lists(PIECES, min_size=1, max_size=6)
    .map("".join)
    .filter(lambda n: "/" not in n and n.strip(". ") and len(n) < 150)
)


def honest_text(who: str, exercise: str) -> str:
    return code(f"{who} {exercise}")


def build(layout: str, root: Path, hostile: list[str]) -> None:
    """A class of two honest students and one whose uploads bear the names ``hostile``."""
    for index, name in enumerate(hostile):
        data = code(f"EVE {index}")
        payload: str | bytes = (
            zip_bytes({name: data, f"x/{name}": data}) if index % 3 == 2 else data
        )
        if layout == "moodle":
            write(root / f"{ATTACKER[0]}_{ATTACKER[1]}_assignsubmission_file_{name}", payload)
        elif layout == "moodle-folders":
            write(root / f"{ATTACKER[0]}_{ATTACKER[1]}_assignsubmission_file_" / name, payload)
        elif layout == "canvas":
            write(root / f"{ATTACKER[3]}_{ATTACKER[2]}_{90000 + index}_{name}", payload)
        elif layout == "gradescope":
            write(root / "submission_3" / name, payload)
        else:
            write(root / "eve" / name, payload)
    for number, (name, participant, user, sortable) in enumerate(HONEST, start=1):
        for file_id, exercise in enumerate(FILES, start=10):
            text = honest_text(name, exercise)
            if layout == "moodle":
                write(root / f"{name}_{participant}_assignsubmission_file_{exercise}", text)
            elif layout == "moodle-folders":
                write(root / f"{name}_{participant}_assignsubmission_file_" / exercise, text)
            elif layout == "canvas":
                write(root / f"{sortable}_{user}_{file_id}_{exercise}", text)
            elif layout == "gradescope":
                write(root / f"submission_{number}" / exercise, text)
            else:
                write(root / name.split()[0].lower() / exercise, text)
    if layout == "gradescope":
        meta = ["---"]
        for number, (name, _, user, _) in enumerate([*HONEST, ATTACKER], start=1):
            meta += [
                f"submission_{number}:",
                "  :submitters:",
                f"  - :name: {name}",
                f"    :sid: '{user}'",
                f"    :email: {user}@example.edu",
            ]
        write(root / "submission_metadata.yml", "\n".join(meta) + "\n")


LAYOUTS = ("moodle", "moodle-folders", "canvas", "gradescope", "folders")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(hostile=st.lists(NAMES, min_size=1, max_size=5, unique=True))
def test_no_upload_name_takes_or_shadows_a_classmates_work(tmp_path_factory, hostile):
    for layout in LAYOUTS:
        base = tmp_path_factory.mktemp(layout)
        build(layout, base / "download", list(hostile))
        intake = read_submissions(
            base / "download", staging=base / "staging", exercises=exercises()
        )
        for name, _, user, _ in HONEST:
            mine = [h for h in intake.handins if h.name == name or h.sid == user or h.lms_id == user
                    or h.key == name.split()[0].lower()]  # fmt: skip
            assert len(mine) == 1, (layout, name, [h.key for h in intake.handins])
            handin = mine[0]
            assert sorted(handin.files) == ["exercise-01", "exercise-05"], (layout, handin)
            for exercise, submitted in handin.files.items():
                staged = submitted.path.read_text()
                assert staged == honest_text(name, f"{exercise}.py"), (layout, name, exercise)
            assert "EVE" not in " ".join(handin.notes + handin.problems), (layout, handin)


def test_moodle_reads_its_prefix_from_the_left():
    """The example from the review: a flat upload named as another participant's entry."""
    entry = (
        "Eve Hostile_103_assignsubmission_file_Jane Doe_101_assignsubmission_file_exercise-01.py"
    )
    assert parse_name(entry) == (
        "Eve Hostile",
        "103",
        "file",
        "Jane Doe_101_assignsubmission_file_exercise-01.py",
    )


def test_an_honest_moodle_student_keeps_their_work_against_a_forged_flat_name(tmp_path):
    root = tmp_path / "download"
    write(root / "Jane Doe_101_assignsubmission_file_exercise-01.py", honest_text("Jane", "1"))
    forged = "Eve Hostile_103_assignsubmission_file_x_101_assignsubmission_file_exercise-01.py"
    write(root / forged, code("EVE"))
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    jane = next(h for h in intake.handins if h.participant == "101")
    assert jane.files["exercise-01"].path.read_text() == honest_text("Jane", "1")
    assert not any("EVE" in n for n in jane.notes)
    eve = next(h for h in intake.handins if h.participant == "103")
    assert eve.name == "Eve Hostile"


def test_a_sid_set_to_a_classmates_takes_neither_their_row_nor_their_grade(tmp_path):
    """Gradescope lets a student edit their SID: Eve gives hers as Bob's. The roster pairs
    by the strongest id first; an id that contradicts the others pairs with no one."""
    from grader.lms.assignment import read_roster
    from grader.lms.grades import build_rows

    root = tmp_path / "export"
    meta = "---\n"
    for folder, name, sid, email in (
        ("submission_1", "Eve Hostile", "1002", "eve@example.edu"),  # Bob's SID, her e-mail
        ("submission_2", "Bob Smith", "1002", "bob@example.edu"),
    ):
        meta += f"{folder}:\n  :submitters:\n  - :name: {name}\n    :sid: '{sid}'\n"
        meta += f"    :email: {email}\n"
        write(root / folder / "exercise-01.py", code(name))
    write(root / "submission_metadata.yml", meta)
    roster = write(
        tmp_path / "roster.csv",
        "id,name,email,sid\n4712,Bob Smith,bob@example.edu,1002\n"
        "4713,Eve Hostile,eve@example.edu,1006\n",
    )
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    from grader.lms.assignment import Assignment

    week = Assignment("w", (("exercise-01", 1.0),), tmp_path / "w.yaml")
    rows = build_rows(intake.handins, {}, week, read_roster(roster))
    bob = next(r for r in rows if r.student.name == "Bob Smith" and r.roster == "matched")
    bobs = next(h for h in intake.handins if h.email == "bob@example.edu")
    assert bob.student.key == bobs.key  # Bob's row is Bob's own handin
    eve_entry = next(r for r in rows if r.student.lms_id == "4713")
    assert eve_entry.roster == "ambiguous" and eve_entry.withheld  # no 0 for work that exists
    eve_work = next(r for r in rows if r.roster == "unmatched")
    assert eve_work.student.email == "eve@example.edu"
    assert any("'1002' is not theirs" in p for p in eve_work.problems), eve_work.problems


PEOPLE = [  # id, name, e-mail (the platform's account: not the student's to choose), SID
    ("4711", "Jane Doe", "jane@example.edu", "1001"),
    ("4712", "Bob Smith", "bob@example.edu", "1002"),
    ("4713", "Eve Hostile", "eve@example.edu", "1003"),
]


@settings(max_examples=60, deadline=None)
@given(
    sid=st.sampled_from(["1001", "1002", "1003", "9999", ""]),
    name=st.sampled_from(["Jane Doe", "Bob Smith", "Eve Hostile", "Doe, Jane", "", "jane doe"]),
    order=st.permutations([0, 1, 2]),
)
def test_no_identity_a_student_can_set_takes_a_classmates_row(sid, name, order):
    """Eve sets her SID and name to anything (Gradescope lets students edit their SID); her
    account's e-mail is her own. Jane and Bob are each paired with their own handin, or with
    none (an empty cell), never with Eve's, and nothing of Eve's is merged into theirs."""
    from grader.lms.assignment import Assignment, RosterEntry
    from grader.lms.grades import build_rows
    from grader.lms.intake import _merge, _unique_keys

    handins = []
    for index in order:
        ident, real, email, real_sid = PEOPLE[index]
        eve = ident == "4713"
        handin = Handin(
            key=sid if eve else real_sid,
            key_kind="sid",
            name=name if eve else real,
            email=email,
            sid=sid if eve else real_sid,
            origin=f"submission_{ident}/",
        )
        handin.notes.append(f"from {ident}")
        handins.append(handin)
    merged = _merge(handins)
    _unique_keys(merged)
    roster = tuple(
        RosterEntry(i, n, e, s, line=line) for line, (i, n, e, s) in enumerate(PEOPLE, start=2)
    )
    week = Assignment("w", (("exercise-01", 1.0),), Path("w.yaml"))
    rows = build_rows(merged, {}, week, roster)
    for ident in ("4711", "4712"):
        row = next(r for r in rows if r.student.lms_id == ident and r.roster != "unmatched")
        if row.roster == "matched":
            owner = next(h for h in merged if h.key == row.student.key)
            assert owner.notes[0] == f"from {ident}", (ident, owner)
            assert "from 4713" not in owner.notes, owner  # not merged with Eve's
        else:
            assert row.withheld, row  # not paired: no grade, never Eve's
