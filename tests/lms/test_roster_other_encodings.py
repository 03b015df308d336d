"""Text in a legacy encoding whose bytes are valid UTF-8 by chance, and files intake may not
read by permission.

A class list saved in GBK (a Chinese Windows Excel's "CSV") is valid UTF-8 whenever its
non-ASCII names happen to be: a name of two or three common characters about one time in
fifty ("郑伟" is the bytes of "֣ΰ", a Hebrew accent and a Greek letter). It was read silently
as those letters: the student matched no one, and nothing said why. Where the UTF-8 reading
holds a name no one has and another encoding reads every name as one, the run now says so
(a note: the UTF-8 reading may be right). A learner's file is read as Python reads it (UTF-8
unless it declares another coding), so its grade is what Python gives: nothing to say there.

Permission errors were tested with ``chmod 000``, which root reads anyway: here a denied read
is simulated (EACCES from the call that opens or lists), so the tests mean the same as root."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.errors import UsageError
from grader.lms import collect
from grader.lms.assignment import _names_like, read_roster
from grader.lms.handin import Said
from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write

SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡"
GIVEN = "伟芳娜敏静丽强磊军洋勇艳杰娟涛明超秀霞平刚桂英华玉萍红燕彬鹏辉文斌宇浩凯健俊帆"


def roster(tmp: Path, names: list[str], encoding: str) -> tuple[list[str], list[str]]:
    path = tmp / "roster.csv"
    lines = ["id,name,email", *(f"{i},{n},s{i}@uni.edu" for i, n in enumerate(names))]
    path.write_bytes(("\n".join(lines) + "\n").encode(encoding))
    notes: list[str] = []
    return [e.name for e in read_roster(path, notes)], notes


def test_a_gbk_roster_that_is_valid_utf8_is_said(tmp_path):
    read, notes = roster(tmp_path, ["郑伟", "Bob Roe"], "gbk")
    assert read[0] == "֣ΰ"  # as UTF-8 reads it: not guessed otherwise
    (note,) = notes
    assert "'֣ΰ'" in note and "'郑伟' as GBK" in note and "CSV UTF-8" in note


def _valid_utf8_in_gbk(name: str) -> bool:
    try:
        name.encode("gbk").decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# every name of a common surname and one or two given characters whose GBK bytes are UTF-8
BY_CHANCE = sorted(
    n
    for n in (a + b + c for a in SURNAMES for b in GIVEN for c in ["", *GIVEN])
    if _valid_utf8_in_gbk(n)
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    name=st.sampled_from(BY_CHANCE),
    others=st.lists(st.sampled_from(["Bob Roe", "Ann Lee", "王芳"]), max_size=3),
)
def test_gbk_names_read_as_utf8_are_said_and_utf8_names_are_not(name, others):
    with tempfile.TemporaryDirectory() as tmp:
        read, notes = roster(Path(tmp), [*others, name], "utf-8")
        assert read[-1] == name and notes == []  # UTF-8 as it is: nothing said
        gbk = [*others, name]
        assume(all(_valid_utf8_in_gbk(n) or n.isascii() for n in gbk))
        read, notes = roster(Path(tmp), gbk, "gbk")
    as_utf8 = name.encode("gbk").decode("utf-8")
    assert read[-1] == as_utf8
    if _names_like(as_utf8):  # "肖英" is "ФӢ": a name of one script, which may be right
        assert notes == []
        return
    (note,) = notes
    assert f"{name!r} as GBK" in note, note


def test_names_of_several_scripts_in_utf8_with_no_other_reading_are_not_said(tmp_path):
    read, notes = roster(
        tmp_path, ["O’Brien", "Ελένη Ιβάνοβα", "Łukasz Żółw", "山田 太郎"], "utf-8"
    )
    assert notes == [] and read[0] == "O’Brien"


# -- read by permission -----------------------------------------------------------------------


def denied(path: Path, real):
    """``real`` (os.open or os.scandir), refusing ``path`` as a file the reader may not read."""

    def call(target, *args, **kwargs):
        if Path(os.fsdecode(target)) == path:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(target, *args, **kwargs)

    return call


def test_a_roster_that_may_not_be_read_is_one_clear_error(tmp_path):
    path = write(tmp_path / "roster.csv", "id,name,email\n1,Ann Lee,a@x.edu\n")
    refused = PermissionError(errno.EACCES, os.strerror(errno.EACCES))
    with (
        mock.patch("grader.lms.assignment.open", side_effect=refused, create=True),
        pytest.raises(UsageError) as caught,
    ):
        read_roster(path)
    assert os.strerror(errno.EACCES) in caught.value.message
    assert "permissions" in (caught.value.hint or caught.value.message)


def test_a_learner_file_that_may_not_be_read_is_unreadable_in_both_languages(tmp_path):
    target = write(tmp_path / "dl" / "erin" / "exercise-01.py", code("erin"))
    with mock.patch.object(collect.os, "open", denied(target, os.open)):
        (erin,) = read_submissions(
            tmp_path / "dl", staging=tmp_path / "st", exercises=exercises()
        ).handins
    why = erin.unreadable["exercise-01"]
    assert isinstance(why, Said) and os.strerror(errno.EACCES) in why
    assert "无法读取" in why.zh and "exercise-01" not in erin.files


def test_a_folder_that_may_not_be_listed_is_said_and_the_rest_is_read(tmp_path):
    locked = tmp_path / "dl" / "erin" / "locked"
    write(locked / "exercise-05.py", code("erin 5"))
    write(tmp_path / "dl" / "erin" / "exercise-01.py", code("erin 1"))
    with mock.patch.object(collect.os, "scandir", denied(locked, os.scandir)):
        (erin,) = read_submissions(
            tmp_path / "dl", staging=tmp_path / "st", exercises=exercises()
        ).handins
    assert "exercise-01" in erin.files and "exercise-05" not in erin.files
    (said,) = [p for p in erin.problems if "locked" in p]
    assert isinstance(said, Said) and "skipped" in said and "已跳过" in said.zh
