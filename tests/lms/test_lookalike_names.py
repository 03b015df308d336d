"""Two submission folders whose names look the same ("José" written with "é", and with "e"
and a combining accent) were merged as one student, rightly, but the instructor's note read
"handed in 2 times (José/, José/)" and "graded José/exercise-01.py over José/exercise-01.py":
one name twice, with no way to tell which folder is which. Names that are the same after
Unicode normalisation are now spelled out where they are shown side by side."""

from __future__ import annotations

import shutil
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write

# ways to write the same-looking name: decomposed, composed, compatibility forms, invisibles
WRITINGS = {
    "NFC": lambda n: unicodedata.normalize("NFC", n),
    "NFD": lambda n: unicodedata.normalize("NFD", n),
    "zero width": lambda n: n[:1] + "\u200b" + n[1:],
    "full width": lambda n: "".join(chr(ord(c) + 0xFEE0) if "A" <= c <= "Z" else c for c in n),
}


def look(text: str) -> str:
    """What a reader sees: the text after NFKC, its invisible format characters dropped."""
    normal = unicodedata.normalize("NFKC", text)
    return "".join(c for c in normal if unicodedata.category(c) != "Cf")


names = st.sampled_from(["José", "Zoë Brontë", "Ångström", "Nguyễn Văn An", "Renée O"])


@settings(max_examples=30, deadline=None)
@given(name=names, two=st.lists(st.sampled_from(sorted(WRITINGS)), min_size=2, max_size=2,
                                unique=True))  # fmt: skip
def test_look_alike_folders_merge_and_are_told_apart(name, two):
    forms = [WRITINGS[w](name) for w in two]
    if forms[0] == forms[1]:
        return  # this name has no such variant (no capital letter to widen)
    root = Path(tempfile.mkdtemp())
    try:
        for i, form in enumerate(forms):
            write(root / "sub" / form / "exercise-01.py", code(f"v{i}"), mtime=1_700_000_000 + i)
        intake = read_submissions(root / "sub", staging=root / "st", exercises=exercises())
        (handin,) = intake.handins
        (note,) = [n for n in handin.notes if n.startswith("handed in 2 times")]
        inside = note[note.index("(") + 1 : note.rindex("):")]
        shown = inside.split(", ")
        assert len({look(s) for s in shown}) == 2, note  # never the same-looking name twice
        for line in handin.notes + handin.problems:
            if " over " in line or " after " in line:
                before, after = line.split(" over " if " over " in line else " after ", 1)
                assert look(before.split("graded ", 1)[1]) != look(after.split(",", 1)[0]), line
    finally:
        shutil.rmtree(root)


@given(st.lists(st.text(max_size=6), max_size=5))
def test_shown_names_are_apart_exactly_when_the_names_are(found):
    from grader.lms.handin import tell_apart

    shown = tell_apart(found)
    assert len(shown) == len(found)
    for a, b, sa, sb in [(a, b, shown[i], shown[j]) for i, a in enumerate(found)
                         for j, b in enumerate(found) if i < j]:  # fmt: skip
        assert (sa == sb) == (a == b)
    assert all(
        s.startswith(n) for s, n in zip(shown, found, strict=True)
    )  # the name first, as written


@settings(max_examples=20, deadline=None)
@given(name=names, two=st.lists(st.sampled_from(["NFC", "NFD"]), min_size=2, max_size=2,
                                unique=True))  # fmt: skip
def test_a_moodle_participant_under_one_name_composed_two_ways_is_one_student(name, two):
    """Moodle writes one name per participant; "José" with "é" and with "e" and a combining
    accent (unzipped on two systems) is that one name: the participant was refused as
    appearing "under several names (José, José)"."""
    from grader.lms.handin import tell_apart

    root = Path(tempfile.mkdtemp())
    try:
        for i, form in enumerate(two):
            entry = f"{WRITINGS[form](name)}_901_assignsubmission_file_"
            write(root / "dl" / entry / f"exercise-0{1 + 4 * i}.py", code(form))
        intake = read_submissions(root / "dl", staging=root / "st", exercises=exercises())
        (handin,) = intake.handins
        assert sorted(handin.files) == ["exercise-01", "exercise-05"], intake.stray
        assert handin.participant == "901"
    finally:
        shutil.rmtree(root)
    shown = tell_apart([WRITINGS["NFC"](name), WRITINGS["NFD"](name)])
    assert shown[0] != shown[1] or WRITINGS["NFC"](name) == WRITINGS["NFD"](name)
