"""The one name normalisation: every accepted spelling, and what it refuses."""

from __future__ import annotations

import pytest

from grader.lms.names import match_name, why_not

KNOWN = ["exercise-01", "exercise-05", "exercise-07", "exercise-12"]


@pytest.mark.parametrize(
    ("shown", "exercise", "notebook", "liberty"),
    [
        ("exercise-07.py", "exercise-07", False, None),
        ("exercise-07.ipynb", "exercise-07", True, None),
        ("week3/exercise-07.py", "exercise-07", False, None),  # folders above do not matter
        ("Exercise07.py", "exercise-07", False, ""),  # case, no separator
        ("EXERCISE-07.PY", "exercise-07", False, ""),
        ("exercise_07.py", "exercise-07", False, ""),  # _ for -
        ("exercise 7.py", "exercise-07", False, ""),
        ("exercise-7.py", "exercise-07", False, ""),  # leading zero
        ("exercise-007.py", "exercise-07", False, ""),
        ("ex7.py", "exercise-07", False, ""),  # short forms
        ("ex07.py", "exercise-07", False, ""),
        ("Ex_7.py", "exercise-07", False, ""),
        ("e7.py", "exercise-07", False, ""),
        ("hw/ex7.ipynb", "exercise-07", True, ""),
        ("exercise-07 (1).py", "exercise-07", False, "'(1)'"),  # a browser's second download
        ("exercise-07-1.py", "exercise-07", False, "'-1'"),  # Canvas's resubmission suffix
        ("exercise-07-2.ipynb", "exercise-07", True, "'-2'"),
        ("exercise-07 copy.py", "exercise-07", False, "'copy'"),  # Finder
        ("exercise-07 copy 2.py", "exercise-07", False, "'copy 2'"),
        ("exercise-07 2.py", "exercise-07", False, "'2'"),
        ("exercise-07 - Copy.py", "exercise-07", False, "'- copy'"),  # Windows
        ("exercise-07 - Copy (2).py", "exercise-07", False, "'- copy (2)'"),
        ("exercise-07_copy.py", "exercise-07", False, "'_copy'"),
        ("exercise-07-Copy1.ipynb", "exercise-07", True, "'-copy1'"),  # Jupyter's Make a Copy
        ("Copy of exercise-07.ipynb", "exercise-07", True, "'Copy of'"),  # Google Drive
        ("exercise-07 (1) copy.py", "exercise-07", False, "'(1) copy'"),
        ("exercise-07.py.py", "exercise-07", False, ""),
        ("exercise-12.py", "exercise-12", False, None),
        ("ex12.py", "exercise-12", False, ""),
        ("ex1.py", "exercise-01", False, ""),
    ],
)
def test_accepted_spellings(shown, exercise, notebook, liberty):
    match = match_name(shown, KNOWN)
    assert match is not None, shown
    assert (match.exercise, match.notebook) == (exercise, notebook)
    if liberty is None:
        assert match.note == ""
    else:
        assert match.note.startswith(f"{shown} taken as {exercise}")
        assert liberty in match.note


@pytest.mark.parametrize(
    ("shown", "why"),
    [
        ("exercise-7-notes.txt", "not a .py or .ipynb file"),
        ("exercise-07.pdf", "not a .py or .ipynb file"),
        ("solution.py", "matches no exercise"),
        ("main.py", "matches no exercise"),
        ("e.py", "matches no exercise"),
        ("example.py", "matches no exercise"),
        ("exercise-42.py", "there is no exercise 42"),
        ("ex3.py", "there is no exercise 3"),
        ("exercise-071.py", "there is no exercise 71"),
        ("exercise-7-notes.py", "looks like exercise-07, but the name goes on"),
        ("exercise-07-solution.py", "looks like exercise-07, but the name goes on"),
        ("exercise_07_1.py", "looks like exercise-07"),  # "_1" is not a copy marker
        (".py", "not a .py or .ipynb file"),
    ],
)
def test_refused_names_say_why(shown, why):
    assert match_name(shown, KNOWN) is None
    assert why in why_not(shown, KNOWN)


def test_ids_that_are_not_numbered_never_match():
    assert match_name("ex7.py", ["warmup", "exercise-7b"]) is None
