"""Every pattern that validates a name, an id or a number from outside data (a course's YAML,
an assignment, an LMS download, a cluster address) matches the whole text and nothing more.

Python's ``$`` also matches right before a final newline, so ``exercise-01\\n``, ``week-3\\n``
or ``submission_12\\n`` passed as valid, and ``\\d`` also matches Arabic-Indic and other
digits. Each pattern now ends in ``\\Z`` and counts ASCII digits only. The LMS file-name
patterns keep a student's part of the name whole, whatever it holds (a newline included):
a Canvas file whose original name ended in a newline was set aside as "not named as Canvas
names submissions" and its student lost."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import catalog, course, sections, spec, specfile
from grader.cluster import plan
from grader.lms import assignment, canvas, gradescope, moodle, spreadsheet

VALIDATORS = {
    "spec.ID_RE": spec.ID_RE,
    "spec.SLUG_RE": spec.SLUG_RE,
    "spec.NAME_RE": spec.NAME_RE,
    "specfile.FORBIDDEN_NAME_RE": specfile.FORBIDDEN_NAME_RE,
    "course._EXERCISE_RE": course._EXERCISE_RE,
    "catalog.NUMBER_RE": catalog.NUMBER_RE,
    "sections.TUTORIAL_RE": sections.TUTORIAL_RE,
    "sections.NUMBER_RE": sections.NUMBER_RE,
    "assignment._NAME": assignment._NAME,
    "assignment._PACKAGE": assignment._PACKAGE,
    "assignment._SPECIFIER": assignment._SPECIFIER,
    "gradescope.SUBMISSION_DIR": gradescope.SUBMISSION_DIR,
    "gradescope._TIME": gradescope._TIME,
    "spreadsheet._NUMBER": spreadsheet._NUMBER,
    "plan._ADDRESS": plan._ADDRESS,
}


@pytest.mark.parametrize("name", sorted(VALIDATORS))
@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_valid_text_with_a_newline_after_it_is_not_valid(name, data):
    pattern = VALIDATORS[name]
    text = data.draw(st.from_regex(pattern, fullmatch=True))
    assert pattern.match(text), text
    tail = data.draw(st.sampled_from(["\n", "\r\n", "\nmore"]))
    if pattern.match(text + " ") and not tail.strip():
        return  # its syntax ends in optional whitespace (a time zone, a version specifier)
    assert pattern.match(text + tail) is None, repr(text + tail)


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("spec.ID_RE", "exercise-\u0660\u0661"),  # Arabic-Indic digits
        ("course._EXERCISE_RE", "exercise-\uff10\uff11"),  # full-width digits
        ("catalog.NUMBER_RE", "ex\u0967"),  # Devanagari one
        ("sections.TUTORIAL_RE", "\u0660\u0660\u0661"),
        ("sections.NUMBER_RE", "\u0663.\u0661"),
    ],
)
def test_digits_are_ascii_digits(name, text):
    assert VALIDATORS[name].match(text) is None


# Any text a student may give their file: no "/" or NUL, and not empty
originals = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="/\0"), min_size=1
)


@settings(max_examples=200, deadline=None)
@given(
    student=st.from_regex(r"[a-z]{1,12}", fullmatch=True),
    late=st.booleans(),
    user=st.integers(1, 10**9),
    file_id=st.integers(1, 10**9),
    original=originals,
)
def test_a_canvas_file_name_is_read_whatever_the_students_part_holds(
    student, late, user, file_id, original
):
    name = f"{student}_{'late_' if late else ''}{user}_{file_id}_{original}"
    parsed = canvas.parse_name(name, named=True)
    assert parsed is not None, repr(name)
    got_student, got_late, got_user, got_file, got_original = parsed
    assert got_student == student
    assert (got_late, got_user, got_file, got_original) == (late, str(user), file_id, original)


@settings(max_examples=200, deadline=None)
@given(
    person=st.from_regex(r"[A-Z][a-z]{0,8} [A-Z][a-z]{0,8}", fullmatch=True),
    participant=st.integers(1, 10**8),
    rest=st.one_of(st.just(""), originals),
)
def test_a_moodle_entry_name_is_read_whatever_the_students_part_holds(person, participant, rest):
    name = f"{person}_{participant}_assignsubmission_file_{rest}"
    parsed = moodle.parse_name(name)
    assert parsed is not None, repr(name)
    assert parsed == (person, str(participant), "file", rest)


def test_the_reported_canvas_name_with_a_newline_is_bobs():
    parsed = canvas.parse_name("smithbob_4712_101_exercise-01\n.py", named=True)
    assert parsed is not None and parsed[2] == "4712" and parsed[4] == "exercise-01\n.py"


def test_every_validator_is_anchored_at_the_very_end():
    """A pattern added later is held to the same rule: no ``$`` at its end."""
    for name, pattern in VALIDATORS.items():
        assert not pattern.pattern.endswith("$"), name
        assert re.search(r"\\Z\)?$", pattern.pattern), name
