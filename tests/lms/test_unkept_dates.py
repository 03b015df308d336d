"""A download whose only dates are its files' (Moodle, plain folders), unzipped by a tool that
does not keep them: every file is dated when the unzip wrote it. Each student was told that
a file was "dated after the due date" (or after the grading worksheet's time), a line per
student that pointed at nothing. Where the class's dates are evidently not the platform's
(all the same, all within an unzip's minutes unless an archive restored them, or each when
its file was written here), the run says so once for the class, and no file date is named or
used."""

from __future__ import annotations

import io
import os
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.assignment import load_assignment
from grader.lms.batch import BatchOptions, run_batch
from grader.lms.handin import Handin, Submitted
from grader.lms.platform import dated_files, forget_dates
from tests.conftest import PROBE_HOME
from tests.lms.builders import write
from tests.lms.test_moodle_worksheet_times import HEADER
from tests.lms.test_run_batch import PASS_MARK, FakeEngine

DUE = datetime(2026, 12, 1, 11, 15, tzinfo=timezone.utc)
SPEC = """\
format_version: 1
name: week-1
exercises: {exercise-90: 1}
due: 2026-12-01T11:15:00+00:00
late: {per_day_percent: 10, max_days: 3}
"""


WEEK = load_assignment(write(Path(tempfile.mkdtemp()) / "w.yaml", SPEC))


def handins(dates: list[list[datetime]], written: timedelta | None = None) -> list[Handin]:
    """A class whose files are dated ``dates``, each written on this computer ``written``
    after its date (None: not known, as a test's hand-made Submitted)."""
    made = []
    for i, own in enumerate(dates):
        handin = Handin(key=f"s{i}")
        for j, when in enumerate(own):
            handin.files[f"exercise-{j:02d}"] = Submitted(
                f"exercise-{j:02d}", Path("ex.py"), f"ex{j}.py", submitted_at=when,
                written_at=None if written is None else when + written,
            )  # fmt: skip
        made.append(handin)
    return made


instants = st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1), timezones=st.just(timezone.utc))


@settings(max_examples=200, deadline=None)
@given(
    at=instants,
    shape=st.lists(st.integers(1, 3), min_size=2, max_size=12),
    spread=st.integers(0, 2),
)
def test_a_class_dated_all_at_one_time_is_said_once_and_no_date_is_used(at, shape, spread):
    """Unzipped without dates: every file within the zip's 2 s of the others."""
    dates = [[at + timedelta(seconds=(i + k) % (spread + 1)) for k in range(n)]
             for i, n in enumerate(shape)]  # fmt: skip
    class_ = handins(dates)
    line = forget_dates(class_, WEEK, "Plain folders")
    assert line.startswith("Plain folders: the files' dates are not the platform's")
    assert all(s.submitted_at is None for h in class_ for s in h.files.values())
    assert all(dated_files(h, WEEK).instructor == () for h in class_)


@settings(max_examples=200, deadline=None)
@given(
    after=st.lists(st.integers(1, 30 * 86400), min_size=3, max_size=12),
    unzipped=st.integers(3, 90 * 86400),
)
def test_a_class_late_all_together_keeps_its_dates(after, unzipped):
    """Every file after the due date, unzipped days later by a tool that kept the dates: a
    class late all together (an exam's late batch, a deadline that was moved), whose dates
    the rule "all after the due date" dropped, each student's line with them. Each date is a
    whole second, apart from when its file was written here: the unzip restored it, and that
    outweighs how close the dates are (five students within two minutes were dropped too).
    Not one zip time step (2 s) for the whole class, though: that is an archive that stamped
    every member with one date (its own), not each student's hand-in."""
    class_ = handins([[DUE + timedelta(seconds=s)] for s in after], timedelta(seconds=unzipped))
    line = forget_dates(class_, WEEK, "Moodle")
    if max(after) - min(after) <= 2:
        assert line.startswith("Moodle: the files' dates are not the platform's")
        assert all(s.submitted_at is None for h in class_ for s in h.files.values())
    else:
        assert line == ""
        assert all(dated_files(h, WEEK).instructor for h in class_)


@settings(max_examples=100, deadline=None)
@given(
    at=st.integers(-30 * 86400, 30 * 86400),
    students=st.integers(2, 12),
    unzipped=st.integers(3, 90 * 86400),
)
def test_an_archive_that_dated_every_member_alike_is_said_though_restored(at, students, unzipped):
    """Every member of the download dated to one second (the archive's own date, as a tool
    that builds it may stamp them), restored by the unzip: whole seconds apart from when the
    files were written here, and still nobody's hand-in time."""
    when = DUE + timedelta(seconds=at)
    class_ = handins([[when] for _ in range(students)], timedelta(seconds=unzipped))
    assert forget_dates(class_, WEEK, "Moodle").startswith(
        "Moodle: the files' dates are not the platform's"
    )
    assert all(s.submitted_at is None for h in class_ for s in h.files.values())


@settings(max_examples=200, deadline=None)
@given(
    after=st.lists(st.integers(0, 120), min_size=2, max_size=12),
    fraction=st.integers(1, 999_999),
    copied=st.integers(3, 90 * 86400),
)
def test_dates_with_a_clock_s_fraction_are_no_archive_s(after, fraction, copied):
    """The same close dates with a fraction of a second (an unzip that kept no date, its
    files copied later by a tool that keeps theirs: apart from when they were written here
    too): no archive restored them, and they are still read as an unzip's."""
    at = DUE + timedelta(microseconds=fraction)
    class_ = handins([[at + timedelta(seconds=s)] for s in after], timedelta(seconds=copied))
    spread = max(after) - min(after)
    line = forget_dates(class_, WEEK, "Moodle")
    assert bool(line) == (spread <= 2 or (len(after) >= 5 and spread <= 120))


@settings(max_examples=200, deadline=None)
@given(
    offsets=st.lists(st.integers(-60 * 86400, 60 * 86400), min_size=2, max_size=12),
    jitter=st.integers(-1, 1),
)
def test_dates_that_are_when_the_files_were_written_are_said_once(offsets, jitter):
    """Unzipped without dates, slowly (more than two minutes), or before the due date: each
    file's date is the time it was written on this computer (its change time), never the
    platform's, whenever that was."""
    written = timedelta(seconds=jitter)
    class_ = handins([[DUE + timedelta(seconds=s)] for s in offsets], written)
    line = forget_dates(class_, WEEK, "Plain folders")
    assert line.startswith("Plain folders: the files' dates are not the platform's")
    assert all(s.submitted_at is None for h in class_ for s in h.files.values())


@settings(max_examples=300, deadline=None)
@given(
    offsets=st.lists(st.integers(-20 * 86400, 20 * 86400), min_size=1, max_size=12),
)
def test_dates_a_platform_may_have_written_are_kept(offsets):
    """The dates apart (more than an unzip's two minutes, or a class of fewer than five) and
    not when the files were written here, or one student: the dates may be the platform's,
    and each is named as before, all after the due date too."""
    spread = max(offsets) - min(offsets)
    evident = len(offsets) >= 2 and (spread <= 2 or (len(offsets) >= 5 and spread <= 120))
    class_ = handins([[DUE + timedelta(seconds=s)] for s in offsets])
    line = forget_dates(class_, WEEK, "Moodle")
    assert bool(line) == evident
    if not evident:
        kept = [s.submitted_at for h in class_ for s in h.files.values()]
        assert kept == [DUE + timedelta(seconds=s) for s in offsets]


@pytest.fixture
def course(monkeypatch):
    monkeypatch.delenv("GRADER_COURSE", raising=False)
    monkeypatch.setenv("GRADER_HOME", str(PROBE_HOME))


@pytest.mark.slow  # a whole batch run (about 3 s)
@pytest.mark.parametrize("worksheet", [True, False])
def test_a_moodle_download_unzipped_without_dates_says_so_once(course, tmp_path, worksheet):
    """Three students, each on time by the worksheet (or with no worksheet), their files all
    dated by the unzip, days after the due date: no student's row names a file date. (The
    unzip's date is its clock's, with a fraction of a second: a whole second apart from the
    file's change time is a date an archive restored.)"""
    unzipped = (DUE + timedelta(days=3)).timestamp() + 0.375
    lines = []
    for i in range(3):
        folder = tmp_path / "dl" / f"Student {i}_{101 + i}_assignsubmission_file_"
        folder.mkdir(parents=True)
        path = folder / "exercise-90.py"
        path.write_bytes(b"def f():\n    return 1\n" + PASS_MARK + b"\n")
        os.utime(path, (unzipped, unzipped))
        lines.append(
            f"Participant {101 + i},Student {i},s{i}@example.edu,x,,100.00,Yes,"
            f'"Tuesday, 1 December 2026, 11:0{i} AM",-,'
        )
    extra = ""
    if worksheet:
        write(tmp_path / "worksheet.csv", HEADER + "\n".join(lines) + "\n")
        extra = "roster: worksheet.csv\nmoodle: {item: Week 1, points: 100, timezone: UTC}\n"
    spec = write(tmp_path / "w.yaml", SPEC + extra)
    summary = run_batch(
        BatchOptions(submissions=tmp_path / "dl", out=tmp_path / "out", assignment=spec),
        io.StringIO(),
        FakeEngine,
    )
    assert len(summary.rows) == 3
    for row in summary.rows:
        assert not any("is dated" in p for p in row.problems), row.problems
        assert row.final_percent == 100.0
    said = [line for line in summary.advice if "dates are not the platform's" in line]
    assert len(said) == 1 and "every file of the 3 students is dated 2026-12-04" in said[0]
    assert not any("no file is dated after the due date" in line for line in summary.advice)


def test_a_late_class_unzipped_with_its_dates_keeps_each_student_s_line(infos, tmp_path):
    """A Moodle class all late (days after the due date, as Moodle's zip dates each file),
    unzipped by a tool that keeps the dates: the dates are the download's, so each student's
    late file is named, where "all after the due date" read them as an unzip's and dropped
    every line. An archive's date is its file's."""
    from grader.lms.intake import read_submissions
    from tests.lms.builders import code, zip_bytes

    root = tmp_path / "dl"
    for i, days in enumerate((1, 2, 5)):
        folder = root / f"Student {i}_{101 + i}_assignsubmission_file_"
        when = (DUE + timedelta(days=days, minutes=7 * i)).timestamp()
        if i == 2:
            write(folder / "work.zip", zip_bytes({"exercise-01.py": code("s2")}), mtime=when)
        else:
            write(folder / "exercise-01.py", code(f"s{i}"), mtime=when)
    intake = read_submissions(root, staging=tmp_path / "st", exercises=infos)
    assert intake.layout == "moodle" and len(intake.handins) == 3
    assert forget_dates(intake.handins, WEEK, "Moodle") == ""
    for handin in intake.handins:
        (line,) = dated_files(handin, WEEK).instructor
        assert "after the due date" in line or "is dated" in line, line


@pytest.mark.parametrize("restored", [True, False])
def test_a_class_handing_in_within_two_minutes_keeps_its_dates_where_unzipped_with_them(
    infos, tmp_path, restored
):
    """Six Moodle students handing in within the two minutes after the due date, unzipped by
    a tool that keeps the dates (each a whole second, apart from when the unzip wrote it):
    each student's late file is named. The same dates with a clock's fraction of a second
    (copied from an unzip that kept none) are still dropped, once for the class."""
    from grader.lms.intake import read_submissions
    from tests.lms.builders import code, zip_bytes

    root = tmp_path / "dl"
    for i in range(6):
        folder = root / f"Student {i}_{101 + i}_assignsubmission_file_"
        when = (DUE + timedelta(seconds=20 + 17 * i)).timestamp()
        when += 0 if restored else 0.25
        name, data = (
            ("work.zip", zip_bytes({"exercise-01.py": code(f"s{i}")}))
            if i == 5
            else ("exercise-01.py", code(f"s{i}"))
        )
        write(folder / name, data, mtime=when)
    intake = read_submissions(root, staging=tmp_path / "st", exercises=infos)
    assert intake.layout == "moodle" and len(intake.handins) == 6
    line = forget_dates(intake.handins, WEEK, "Moodle")
    if restored:
        assert line == ""
        for handin in intake.handins:
            (said,) = dated_files(handin, WEEK).instructor
            assert "after the due date" in said, said
    else:
        assert "every file of the 6 students is dated within" in line, line
        assert all(dated_files(h, WEEK).instructor == () for h in intake.handins)
