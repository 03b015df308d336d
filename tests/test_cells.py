"""A notebook's cell map in the result JSON, and where the terminal summary and the reports say a
failure happened: "cell 4, line 5", not a line of the joined code the learner never saw."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.notebooks import CellMap, Run
from grader.render.html import render_inline, render_result
from grader.render.terminal import render
from grader.results import Result
from grader.wire import WireError
from tests.conftest import FIXTURES

# The markup fixture fails at line 6 of its source; as a notebook, that line is cell 4's fifth.
CELLS = CellMap(runs=(Run(line=2, cell=4, cell_line=1, length=9),), execution_counts=((4, 7),))


def notebook_result(name: str = "markup") -> Result:
    data = json.loads((FIXTURES / "results" / f"{name}.json").read_text(encoding="utf-8"))
    result = Result.from_dict(data)
    source = "# %% cell 4\n" + "\n".join(result.source.splitlines()[1:]) + "\n"
    return dataclasses.replace(result, cells=CELLS, source=source)


def test_the_cell_map_is_an_optional_field_of_the_result_json():
    plain = Result.from_dict(
        json.loads((FIXTURES / "results" / "markup.json").read_text(encoding="utf-8"))
    )
    assert "cells" not in plain.to_dict()  # results of .py files are as they were
    result = notebook_result()
    data = json.loads(result.to_json())
    assert data["cells"] == CELLS.to_dict()
    assert Result.from_dict(data) == result
    assert result.where(6) == (4, 5, 7)
    assert result.where(1) is None  # the marker the joining added
    assert plain.where(6) is None


def test_terminal_summary_names_cell_and_line():
    text = render(notebook_result())
    assert "at cell 4 (In [7]), line 5 in double" in text
    assert "at line 6" not in text


def test_terminal_summary_in_chinese():
    result = dataclasses.replace(notebook_result(), lang="zh")
    assert "位于第 4 个单元格（In [7]）第 5 行，函数 double" in render(result)


def test_report_names_cell_and_line_and_numbers_code_by_cell():
    page = render_result(notebook_result())
    assert re.search(r'<a href="#line-6">cell 4 \(In \[7\]\), line 5</a>', page)
    assert 'class="cellhead" data-cell="4"' in page
    # the failing line is numbered as in its cell (5), and still anchored by its place (6)
    assert re.search(
        r'<tr id="line-6" class="hit"><td class="n mono"><a href="#failure-1">5</a>', page
    )


def test_inline_fragment_is_self_contained():
    html = render_inline(notebook_result(), report_path=".grade/reports/exercise-90.html")
    assert html.lstrip().startswith('<div class="tg-inline"')
    assert "<script" not in html.replace("&lt;script", "")  # the learner's markup is text
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", html)
    assert "cell 4 (In [7]), line 5" in html
    assert "data-diagnosis" in html or "data-failure" in html
    assert ".grade/reports/exercise-90.html" in html
    # every style rule is scoped to the fragment
    style = html.split("<style>", 1)[1].split("</style>", 1)[0]
    rules = [rule.split("{")[0] for rule in style.split("}") if "{" in rule]
    selectors = [part.strip() for rule in rules for part in rule.split(",")]
    assert selectors and all(s.startswith(".tg-inline") for s in selectors), selectors


def test_inline_fragment_shows_the_loss_curves_and_the_fix():
    data = json.loads((FIXTURES / "results" / "failing.json").read_text(encoding="utf-8"))
    html = render_inline(Result.from_dict(data))
    assert 'data-chart="' in html and '<polyline data-series="yours"' in html
    assert "data-fix" in html and "%grade hint 14" in html


class _Counted(tuple):
    """The runs of a cell map, counting how often they are walked whole."""

    walks = 0

    def __iter__(self):
        type(self).walks += 1
        return super().__iter__()


def _extracted_runs(sizes: list[int], gaps: list[int]) -> tuple[Run, ...]:
    """Runs as extraction makes them: in order, apart, each cell after a marker line."""
    runs, line = [], 1
    for cell, (size, gap) in enumerate(zip(sizes, gaps, strict=False), start=1):
        line += 1 + gap  # the "# %% cell N" line, and blank lines before it
        runs.append(Run(line=line, cell=cell, cell_line=1 + gap, length=size))
        line += size
    return tuple(runs)


def _scan(runs: tuple[Run, ...], line: int) -> tuple[int, int] | None:
    for run in runs:
        if run.line <= line < run.line + run.length:
            return run.cell, run.cell_line + (line - run.line)
    return None


@given(
    sizes=st.lists(st.integers(0, 5), min_size=0, max_size=40),
    gaps=st.lists(st.integers(0, 3), min_size=40, max_size=40),
    counts=st.lists(st.tuples(st.integers(1, 45), st.integers(1, 99)), max_size=10),
)
def test_a_cell_map_finds_each_line_as_a_scan_would(sizes, gaps, counts):
    cells = CellMap.from_dict(CellMap(_extracted_runs(sizes, gaps), tuple(counts)).to_dict())
    last = max((r.line + r.length for r in cells.runs), default=1)
    for line in range(-1, last + 3):
        assert cells.locate(line) == _scan(cells.runs, line)
    for cell in range(0, 47):
        assert cells.execution_count(cell) == dict(counts).get(cell)


def test_a_cell_map_looks_lines_up_without_walking_every_run():
    """A report looks up the cell of every line: with a scan of the runs for each, a notebook
    of 120,000 one-line cells (11 MiB, within the size cap) took seven minutes to grade, and
    its HTML report hours more for a larger one. The runs are walked once, then searched."""
    _Counted.walks = 0
    cells = CellMap(_Counted(_extracted_runs([1] * 2000, [0] * 2000)), ((5, 1),))
    for line in range(1, 4002):
        cells.where(line)
    assert cells.locate(4000) == (2000, 1)
    assert _Counted.walks <= 2


def test_a_stored_cell_map_with_runs_out_of_order_is_refused():
    data = CellMap((Run(5, 2, 1, 3), Run(2, 1, 1, 1))).to_dict()
    with pytest.raises(WireError, match=r"runs\[1\].*starts before"):
        CellMap.from_dict(data)
    data = CellMap((Run(2, 1, 1, 3), Run(4, 2, 1, 1))).to_dict()  # overlapping
    with pytest.raises(WireError, match="starts before"):
        CellMap.from_dict(data)
