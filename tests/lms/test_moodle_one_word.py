"""A Moodle download whose one entry is named by one word off the roster
("alice_901_assignsubmission_file_"). Moodle writes the number beside the name for the
participant, blind or not (``assign::get_uniqueid_for_user``), and its grading worksheet
names that participant "Participant 901" whatever the folder's word: so the worksheet's line
is Moodle's own identifier, kept. What was wrong was the row's reason: it said "blind marking
names no one" of a word that may as well be a student's one-word name, or a team's. The row
now names the word and every reading of it, and what the worksheet does with it."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tests.lms.test_platforms import CLASS, blind_alone, upload_cells


def lone(word: str, tmp: Path) -> tuple[list[str], dict[str, str]]:
    rows, assignment = blind_alone(word, tmp)
    (row,) = [r for r in rows if r.roster == "unmatched"]
    return list(row.problems), upload_cells(rows, assignment)[2]


@pytest.mark.parametrize("word", ["alice", "Teilnehmerin", "Zoë"])
def test_a_lone_word_off_the_roster_is_named_with_every_reading(tmp_path, word):
    problems, sheet = lone(word, tmp_path)
    (said,) = [p for p in problems if p.startswith("not on the roster")]
    assert f"{word!r} is one word" in said and "blind marking names no one" not in said
    assert "a student the roster lacks" in said and "a team" in said
    assert "Participant 901" in said and sheet == {"Participant 901": "100"}


def test_blind_marking_s_own_word_is_still_said_to_be_blind_marking(tmp_path):
    problems, sheet = lone("Participant", tmp_path)
    assert any("blind marking names no one" in p for p in problems), problems
    assert sheet == {"Participant 901": "100"}


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=st.text(st.characters(categories=["L"]), min_size=1, max_size=12))
def test_any_lone_word_is_told_as_one_word_never_as_blind_marking(word):
    assume(word.casefold() != "participant")
    assume(word.lower() not in {n.split()[0].lower() for _, n, *_ in CLASS})
    with tempfile.TemporaryDirectory() as tmp:
        problems, sheet = lone(word, Path(tmp))
    assert not any("blind marking names no one" in p for p in problems), problems
    assert any("is one word" in p for p in problems), problems
    assert sheet == {"Participant 901": "100"}
