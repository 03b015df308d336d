"""What reading a notebook notes (a magic, a shell line, IPython's help, display(), a cell
magic, a notebook with no code, the cap on notes) reaches the learner on their own page
(``grade ID``, ``%%grade``) and in a class's feedback. Each note was English only, and a
learner grading in Chinese read it so; the class's feedback translated the notes by matching
their English, so a wording it did not know stayed English. The extraction now says each note
in both languages, and the learner's result takes the one of its own language."""

from __future__ import annotations

import dataclasses
import json
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.notebooks import MAX_NOTES, extract
from grader.results import Result
from grader.serve.submission import from_notebook
from tests.conftest import FIXTURES

CJK = re.compile(r"[\u4e00-\u9fff]")

# one line of each kind the extraction leaves out, and plain Python that it keeps
LINES = {
    "magic": "%matplotlib inline",
    "shell": "!pip install torch",
    "shell assigned": "files = !ls",
    "help": "torch.arange?",
    "display": "display(x)",
    "grader magic": "%load_ext grader",
    "code": "x = 1",
}
CELL_MAGICS = ("%%time", "%%capture", "%%bash")


def _notebook(cells: list[str]) -> bytes:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {"cell_type": "code", "metadata": {}, "source": source, "outputs": [],
                 "execution_count": None}
                for source in cells
            ],
        }
    ).encode("utf-8")  # fmt: skip


cells = st.lists(
    st.one_of(
        st.lists(st.sampled_from(sorted(LINES)), min_size=1, max_size=4).map(
            lambda kinds: "\n".join(LINES[k] for k in kinds)
        ),
        st.sampled_from(CELL_MAGICS).map(lambda magic: f"{magic}\nx = 2"),
    ),
    min_size=1,
    max_size=30,
)


@settings(max_examples=60, deadline=None)
@given(cells=cells)
def test_every_note_of_a_notebook_is_said_in_english_and_in_chinese(cells):
    notes = extract(_notebook(cells)).notes
    for note in notes:
        assert isinstance(note, Text)
        assert note.en and not CJK.search(note.en), note
        assert CJK.search(note.zh), note
    assert len(notes) <= MAX_NOTES + 1


@settings(max_examples=30, deadline=None)
@given(cells=cells, lang=st.sampled_from(["en", "zh"]))
def test_a_learner_s_result_carries_the_notes_in_its_own_language(cells, lang):
    submission = from_notebook(_notebook(cells), "exercise-07.ipynb")
    base = Result.from_json((FIXTURES / "results" / "passing.json").read_text("utf-8"))
    result = submission.finish(dataclasses.replace(base, lang=lang, notes=()))
    assert len(result.notes) == len(submission.notes)
    for note in result.notes:
        assert bool(CJK.search(note)) == (lang == "zh"), note
    # the grader's own magic, in every workspace notebook, is no news to the learner
    assert not any("%load_ext grader" in note for note in result.notes)


def test_a_notebook_with_no_code_is_said_in_chinese():
    *_, note = extract(_notebook(["%pip install torch"])).notes
    assert note.en == "the notebook has no code to grade (no code cells, or only magics)"
    assert note.zh == "这个 notebook 没有可以评分的代码（没有代码单元格，或只有魔法命令）"
