"""Notebooks as submissions: real nbformat-written notebooks, magics, the cell map, damage."""

from __future__ import annotations

import ast
import json

import nbformat
import pytest
from hypothesis import given
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

from grader.errors import UsageError
from grader.notebooks import CellMap, NotebookError, extract
from tests.lms.builders import notebook


def test_code_cells_join_in_order_and_every_line_maps_back():
    data = notebook("import torch", "def f(x):\n    return x + 1\n", "y = f(2)")
    got = extract(data)
    assert got.source == (
        "# %% cell 2\nimport torch\n\n# %% cell 3\ndef f(x):\n    return x + 1\n\n"
        "# %% cell 4\ny = f(2)\n"
    )
    compile(got.source, "exercise-07.py", "exec")
    lines = got.source.splitlines()
    assert got.cells.locate(lines.index("    return x + 1") + 1) == (3, 2)
    assert got.cells.locate(1) is None  # the marker the joining added
    assert got.cells.describe(lines.index("y = f(2)") + 1) == "cell 4 (In [3]), line 1"
    assert got.notes == ()


def test_cells_count_every_cell_as_the_learner_sees_them():
    nb = new_notebook(
        cells=[
            new_markdown_cell("# Title"),
            new_raw_cell("raw"),
            new_code_cell("a = 1"),  # the third box from the top
            new_markdown_cell("more"),
            new_code_cell("b = 2"),
        ]
    )
    got = extract(nbformat.writes(nb).encode())
    assert [r.cell for r in got.cells.runs] == [3, 5]
    assert got.cells.describe(2) == "cell 3, line 1"  # no execution count saved: none shown


def test_magics_and_shell_lines_are_left_out_with_a_note_each():
    data = notebook(
        "%matplotlib inline\nimport torch\n!pip install torch\nfiles = !ls\n",
        "%%time\nslow = 1\n",
        "%%grade 7\ndef f(x):\n    return x\n",
        "def g():\n    %time f(1)\n    return 2\n",
    )
    got = extract(data)
    assert "slow" not in got.source and "%" not in got.source.replace("# %% cell", "")
    assert "!" not in got.source
    assert "def g():\n    pass\n    return 2" in got.source  # the block stays valid
    compile(got.source, "x.py", "exec")
    notes = "\n".join(n.en for n in got.notes)
    assert "cell 2, line 1: %matplotlib inline left out (a magic, not Python)" in notes
    assert "cell 2, line 3: !pip install torch left out (a shell command, not Python)" in notes
    assert "cell 2, line 4: files = !ls left out (a shell command" in notes
    assert "cell 3: left out whole: it starts with the cell magic %%time" in notes
    assert "cell 4, line 1: %%grade 7 left out (the grader's magic)" in notes
    assert "cell 5, line 2: %time f(1) left out" in notes
    lines = got.source.splitlines()
    assert got.cells.locate(lines.index("import torch") + 1) == (2, 2)
    assert got.cells.locate(lines.index("    return x") + 1) == (4, 3)


def test_continuation_lines_are_never_taken_for_magics():
    source = "x = (1\n     % 2)\ns = '''\n%not a magic\n!nor this\n'''\nt = 1 + \\\n    2\n"
    got = extract(notebook(source))
    assert got.notes == ()
    assert "     % 2)" in got.source and "%not a magic" in got.source
    namespace: dict = {}
    exec(compile(got.source, "x.py", "exec"), namespace)
    assert namespace["x"] == 1 and namespace["t"] == 3


def test_the_map_round_trips_through_json_and_rejects_what_it_does_not_know():
    got = extract(notebook("a = 1\nb = 2", "c = 3"))
    stored = json.loads(json.dumps(got.cells.to_dict()))
    assert CellMap.from_dict(stored) == got.cells
    for bad in (
        {**stored, "extra": 1},
        {**stored, "map_version": 99},
        {**stored, "runs": [[1, 2, 3]]},
        {**stored, "runs": [[1, 2, 3, True]]},
        [],
    ):
        with pytest.raises(ValueError):
            CellMap.from_dict(bad)


@given(
    minor=st.integers(0, 4),
    ids=st.lists(
        st.one_of(st.none(), st.text(max_size=70), st.integers(), st.just("")), min_size=1
    ),
)
def test_an_older_minor_whose_cells_carry_ids_is_read(minor, ids):
    """Cell ids came with nbformat 4.5; VS Code and Jupyter versions mixed write them into
    4.0-4.4 notebooks, which Jupyter opens as they are. Such a notebook was "damaged ('id' was
    unexpected)" and scored 0. An id is no part of the code: whatever it holds, or lacks, the
    cells read as they are."""
    nb = new_notebook(cells=[new_code_cell(f"a{i} = {i}") for i in range(len(ids))])
    nb.nbformat_minor = minor
    for cell in nb.cells:
        cell.pop("id", None)
    plain = extract(json.dumps(nb).encode())
    for cell, given_id in zip(nb.cells, ids, strict=True):
        if given_id is not None:
            cell["id"] = given_id
    got = extract(json.dumps(nb).encode())
    assert got.source == plain.source and "a0 = 0" in got.source


def test_a_current_minor_still_needs_valid_ids():
    nb = new_notebook(cells=[new_code_cell("a = 1")])
    nb.cells[0]["id"] = "not an id: spaces and a colon"
    with pytest.raises(NotebookError, match="damaged"):
        extract(json.dumps(nb).encode())


@pytest.mark.parametrize("minor", [0, 1, 2, 3, 4, 5])
def test_every_nbformat_4_minor_is_read(minor):
    nb = new_notebook(cells=[new_code_cell("a = 1")])
    nb.nbformat_minor = minor
    if minor < 5:
        for cell in nb.cells:
            cell.pop("id", None)
    data = json.dumps(nb).encode()
    assert extract(data).source == "# %% cell 1\na = 1\n"


def test_outputs_are_not_what_is_validated():
    nb = json.loads(notebook("a = 1").decode())
    nb["cells"][1]["outputs"] = [{"output_type": "garbage"}]  # a broken plot, not the code
    assert "a = 1" in extract(json.dumps(nb).encode()).source


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty"),
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        (b"def f(): pass\n", "not valid JSON"),
        (b'{"cells": [], "nbformat": 4', "not valid JSON"),
        (b"[1, 2]", "a JSON object with 'nbformat' and 'cells'"),
        (b'{"nbformat": 3, "nbformat_minor": 0, "cells": []}', "nbformat 3"),
        (b'{"nbformat": 4, "nbformat_minor": 2, "metadata": {}, "cells": "x"}', "damaged"),
        (
            b'{"nbformat": 4, "nbformat_minor": 2, "metadata": {}, '
            b'"cells": [{"cell_type": "code", "source": 5}]}',
            "damaged",
        ),
        (
            b'{"nbformat": 4, "nbformat_minor": 2, "cells": [], '
            b'"metadata": {"language_info": {"name": "R"}}}',
            "runs r, not Python",
        ),
    ],
)
def test_a_damaged_notebook_is_a_clear_problem_never_a_crash(data, message):
    with pytest.raises(NotebookError) as caught:
        extract(data)
    assert message in caught.value.message
    assert isinstance(caught.value, UsageError)  # the CLI prints one line, exit 2


def test_a_notebook_without_code_says_so():
    got = extract(notebook("%pip install torch", markdown_first=True))
    assert got.source == ""
    assert "no code to grade" in got.notes[-1].en


def test_notes_are_capped():
    got = extract(notebook("\n".join(f"%time x{i}" for i in range(40)) + "\nz = 1"))
    assert len(got.notes) == 21 and got.notes[-1].en == "... and 20 more lines left out"


NOT_NEWLINES = "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


@given(
    cells=st.lists(
        st.lists(st.text(st.sampled_from(NOT_NEWLINES + "ab #"), max_size=5), max_size=4),
        min_size=1,
        max_size=3,
    ),
    crlf=st.booleans(),
)
def test_a_character_that_python_does_not_end_a_line_with_stays_in_its_line(cells, crlf):
    """A form feed in a comment (a page break some editors write) or a U+2028 pasted from a
    web page cut a cell's line in two: the rest of the comment became code, and a correct
    notebook scored 0 ("'break' outside loop"). Each statement stays where the learner wrote
    it: the joined source compiles, and every line maps back to its cell and line."""
    newline = "\r\n" if crlf else "\n"
    sources = [
        newline.join(f"c{c}_{n} = {n}  # {text}" for n, text in enumerate(lines))
        for c, lines in enumerate(cells)
    ]
    got = extract(notebook(*sources))
    tree = ast.parse(got.source)
    found = {}
    for node in tree.body:
        name = node.targets[0].id
        found[name] = got.cells.locate(node.lineno)
    expected = {
        f"c{c}_{n}": (c + 2, n + 1)  # notebook() puts a markdown cell first
        for c, lines in enumerate(cells)
        for n in range(len(lines))
    }
    assert found == expected


@given(
    helps=st.lists(
        st.sampled_from(["torch.arange?", "x??", "?torch.arange", "    torch.zeros?"]),
        min_size=1,
        max_size=3,
    ),
    display=st.sampled_from(["display(make())", "display(make(), make())", "display (x)"]),
)
def test_ipython_help_and_display_lines_are_left_out_with_a_note(helps, display):
    """``torch.arange?`` and ``display(...)`` run in IPython and are no Python: a correct
    notebook with either scored 0 (a syntax error, a NameError at import). They are left out,
    each with a note, like the magics; a ``?`` inside a string or a comment stays."""
    lines = ["import torch", "x = 1", "def make():", "    return 'why?'", *helps, display]
    lines += ["s = '''", "is this right?", "'''", "y = x  # really?"]
    got = extract(notebook("\n".join(lines)))
    tree = ast.parse(got.source)
    assert [type(node).__name__ for node in tree.body] == [
        "Import", "Assign", "FunctionDef", "Assign", "Assign",
    ]  # fmt: skip
    assert "is this right?" in got.source and "# really?" in got.source
    said = " ".join(n.en for n in got.notes)
    for help_line in helps:
        assert f"{help_line.strip()} left out (IPython's help, not Python)" in said
    assert f"{display} left out (display() exists only in IPython)" in said


def test_a_multi_line_display_call_or_one_inside_a_function_is_kept():
    got = extract(notebook("def show(x):\n    display(x)\n\ndisplay(\n    1,\n)\n"))
    assert "    display(x)" in got.source and "display(\n    1,\n)" in got.source
    assert got.notes == ()
