"""A download whose only dates are its files' (Moodle, plain folders), unzipped by a tool that
does not keep them: every file is dated when the unzip wrote it. Each student was told that
a file was "dated after the due date" (or after the grading worksheet's time), a line per
student that pointed at nothing. Where the class's dates are evidently not the platform's
(all the same, all within an unzip's minutes, or all after the due date), the run says so
once for the class, and no file date is named or used."""

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
from grader.lms.platform import dated_files, forget_dates, unkept_dates
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


def handins(dates: list[list[datetime]]) -> list[Handin]:
    made = []
    for i, own in enumerate(dates):
        handin = Handin(key=f"s{i}")
        for j, when in enumerate(own):
            handin.files[f"exercise-{j:02d}"] = Submitted(
                f"exercise-{j:02d}", Path("ex.py"), f"ex{j}.py", submitted_at=when
            )
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
)
def test_a_class_dated_all_after_the_due_date_is_said_once(after):
    class_ = handins([[DUE + timedelta(seconds=s)] for s in after])
    assert "after the due date" in unkept_dates(class_, WEEK) or (
        max(after) - min(after) <= 120  # said as one unzip's time instead
    )


@settings(max_examples=300, deadline=None)
@given(
    offsets=st.lists(st.integers(-20 * 86400, 20 * 86400), min_size=1, max_size=12),
)
def test_dates_a_platform_may_have_written_are_kept(offsets):
    """Some file before the due date and the dates apart (more than an unzip's two minutes,
    or a class of fewer than five), or one student: the dates may be the platform's, and each
    is named as before."""
    spread = max(offsets) - min(offsets)
    evident = len(offsets) >= 2 and (
        spread <= 2
        or (len(offsets) >= 5 and spread <= 120)
        or (len(offsets) >= 3 and min(offsets) > 0)
    )
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
    dated by the unzip, days after the due date: no student's row names a file date."""
    unzipped = (DUE + timedelta(days=3)).timestamp()
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
