"""Reading a notebook is bounded by construction: its bytes, its depth and its cells."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import notebooks
from grader.notebooks import MAX_CELLS, CellMap, NotebookError, extract


def _notebook_of(cells: int) -> bytes:
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 5,
            "metadata": {},
            "cells": [
                {
                    "cell_type": "code",
                    "id": f"c{i}",
                    "metadata": {},
                    "source": f"x{i} = {i}",
                    "outputs": [],
                    "execution_count": None,
                }
                for i in range(cells)
            ],
        }
    ).encode()


def test_a_notebook_of_more_cells_than_the_cap_is_refused_in_one_line():
    """100,000 one-line cells (10 MiB, within the byte cap) took 5 s to read: the schema's
    check and a deep copy, both linear in the cells. Past the cap nothing of it is checked."""
    with pytest.raises(NotebookError) as caught:
        extract(_notebook_of(MAX_CELLS + 1))
    message = str(caught.value)
    assert "\n" not in message
    assert f"{MAX_CELLS + 1:,} cells" in message and f"{MAX_CELLS:,}" in message


def test_a_notebook_at_the_cap_is_read_whole():
    got = extract(_notebook_of(MAX_CELLS))
    assert got.cells.runs[-1].cell == MAX_CELLS
    assert got.source.endswith(f"x{MAX_CELLS - 1} = {MAX_CELLS - 1}\n")


def test_the_check_leaves_the_notebook_it_read_as_it_was():
    """nbformat's check writes ids into 4.5 cells that lack them, and outputs are left out of
    it: the cells it checks are copies, and what is graded is what the file holds."""
    data = json.loads(_notebook_of(2))
    for cell in data["cells"]:
        del cell["id"]
        cell["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "1"}]
    got = extract(json.dumps(data).encode())
    assert got.source == "# %% cell 1\nx0 = 0\n\n# %% cell 2\nx1 = 1\n"


def _one_cell_of_runs(runs: int) -> bytes:
    """A cell whose code a magic line breaks after every line: one run of the map a line."""
    source = "".join(f"a{i} = 1\n%time\n" for i in range(runs - 1)) + "z = 1\n"
    return json.dumps(
        {
            "nbformat": 4,
            "nbformat_minor": 4,
            "metadata": {},
            "cells": [
                {
                    "cell_type": "code",
                    "metadata": {},
                    "source": source,
                    "outputs": [],
                    "execution_count": None,
                }
            ],
        }
    ).encode()


def test_a_cell_map_past_what_a_result_may_hold_is_refused_before_grading(monkeypatch):
    """A cell broken by a magic every other line made a cell map of more runs than a stored
    result may hold: `grade` wrote a result that `grade report` and the workspace refused.
    (The cap is made small here, for the writer and the reader alike, to keep the test fast.)"""
    cap = 1000
    monkeypatch.setattr(notebooks, "MAX_RUNS", cap)
    with pytest.raises(NotebookError, match=f"more than {cap:,} pieces"):
        extract(_one_cell_of_runs(cap + 1))
    got = extract(_one_cell_of_runs(cap))
    assert len(got.cells.runs) == cap
    assert CellMap.from_dict(json.loads(json.dumps(got.cells.to_dict()))) == got.cells


_BASE = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"kernelspec": {"language": "python"}, "language_info": {"name": "python"}},
    "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": "# t"},
        {
            "cell_type": "code",
            "id": "c",
            "metadata": {},
            "execution_count": 3,
            "outputs": [],
            "source": "%%grade 7\ndef f(x):\n    %time x\n    return x\n",
        },
        {
            "cell_type": "code",
            "id": "d",
            "metadata": {},
            "execution_count": None,
            "outputs": [],
            "source": ["a = 1\n", "!ls\n", "b = 2"],
        },
    ],
}
_ODD = st.one_of(
    st.sampled_from(
        [
            None,
            True,
            1e308,
            float("nan"),
            float("inf"),
            2**70,
            -1,
            "",
            "\ud800",
            "\x00",
            "\r",
            "\u2028",
            "\ufeff",
            [],
            {},
            [[[]]],
            ["a", 1],
            ["\ud800"],
            "%%time\n",
            "R",
            "x" * 300,
        ]
    ),
    st.text(max_size=12),
    st.lists(st.text(max_size=6), max_size=3),
)


def _places(value, at=()):
    yield at
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _places(inner, (*at, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            yield from _places(inner, (*at, index))


@settings(max_examples=50, deadline=None)
@given(data=st.data(), value=_ODD, drop=st.booleans(), surrogates=st.booleans())
def test_a_notebook_with_any_field_changed_is_read_or_refused_in_one_line(
    data, value, drop, surrogates
):
    """Any field of a real notebook set to an odd value (wrong type, NaN, a lone surrogate,
    a NUL, deep lists) or removed: extracted, its map stored and read back, or refused with
    one line; never another exception."""
    notebook = json.loads(json.dumps(_BASE))
    place = data.draw(st.sampled_from(list(_places(notebook))[1:]))
    holder = notebook
    for step in place[:-1]:
        holder = holder[step]
    if drop and isinstance(holder, dict):
        del holder[place[-1]]
    else:
        holder[place[-1]] = value
    text = json.dumps(notebook, allow_nan=True, ensure_ascii=not surrogates)
    try:
        got = extract(text.encode("utf-8", "surrogatepass"))
    except NotebookError as exc:
        assert "\n" not in str(exc)
        str(exc).encode("utf-8")
        return
    got.source.encode("utf-8")
    assert CellMap.from_dict(json.loads(json.dumps(got.cells.to_dict()))) == got.cells


@settings(max_examples=50, deadline=None)
@given(minor=_ODD | st.integers() | st.floats(allow_nan=False) | st.booleans())
def test_an_odd_minor_version_is_named_as_what_is_wrong(minor):
    """``"nbformat_minor": true`` (or "5", 5.0, -1) in an nbformat 4 notebook was told "the
    notebook's format is nbformat 4; this grader reads nbformat 4": a refusal that named
    the one thing that was right. A notebook whose minor version is no whole number is now
    told so, by that field's name."""
    notebook = json.loads(json.dumps(_BASE))
    notebook["nbformat_minor"] = minor
    text = json.dumps(notebook, allow_nan=True)
    try:
        extract(text.encode("utf-8", "surrogatepass"))
    except NotebookError as exc:
        assert "nbformat_minor" in str(exc) or type(minor) is int, str(exc)
        assert "reads nbformat 4" not in str(exc), str(exc)
    else:
        assert type(minor) is int and minor >= 0


@settings(max_examples=60, deadline=None)
@given(
    data=st.binary(max_size=200)
    | st.sampled_from([b"", b"{}", b"[]", b'{"nbformat": 3}', b"\xff\xfe{", b"\x89PNG"]),
    name=st.sampled_from(["exercise-07.ipynb", "my work\x1b[2J.ipynb", "caf\udce9.ipynb"]),
)
def test_a_file_that_is_no_notebook_is_refused_naming_the_file(data, name):
    """``grade 7 --file x.ipynb`` (and ``%grade``) refused a file that is no notebook with
    "Error: not a notebook: the file is not UTF-8 text", naming no file. The error names the
    file, on one line, whatever its name holds."""
    from grader.serve.submission import from_notebook

    try:
        from_notebook(data, name)
    except NotebookError as exc:
        line = exc.format().splitlines()[0]
        assert line.startswith("Error: ") and ".ipynb: " in line, line
        assert "\x1b" not in line and "\udce9" not in line  # inert, encodable
        line.encode("utf-8")
