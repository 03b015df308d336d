"""A notebook handed in to ``grade batch`` is spoken of as the student wrote it: its result JSON
carries the cell map, and its report, the student's feedback page, the terminal summary of its
result and the gradebook's review column all say "cell 3 (In [2]), line 3", as ``grade`` does
for the learner, never a line of the joined code the student never saw. A ``.py`` file of the
same class still says "line N"."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from grader.render.terminal import render
from grader.results import Result
from tests.conftest import FIXTURES, run_cli
from tests.lms.builders import notebook, write

# every test grades a class of notebooks with `grade batch`
pytestmark = pytest.mark.slow

COURSE = FIXTURES / "lms-course"
# cell 1 is the builder's markdown; cell 3 (In [2]) raises on its line 3; cell 4 (In [3]) patches
# torch, which the review flags
CELLS = (
    "import torch",
    "def add(a, b):\n    total = a + b\n    raise ValueError('not finished')\n",
    "torch.allclose = lambda *args, **kwargs: True\n",
)
PLAIN = (
    "import torch\n\n\ndef add(a, b):\n    total = a + b\n    raise ValueError('not finished')\n"
    "\n\ntorch.allclose = lambda *args, **kwargs: True\n"
)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    base = tmp_path_factory.mktemp("notebooks")
    download = base / "download"
    write(download / "alice" / "exercise-01.ipynb", notebook(*CELLS))
    write(download / "bob" / "exercise-01.py", PLAIN)
    return batch(download, base / "out")


def batch(download: Path, out: Path) -> Path:
    """Grade ``download`` for exercise-01 into ``out`` (some tests fail: exit code 1)."""
    proc = run_cli(
        "batch",
        str(download),
        "--exercises",
        "exercise-01",
        "--out",
        str(out),
        "--jobs",
        "1",
        home=COURSE,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr  # graded, and some tests failed
    return out


def result_of(out: Path, student: str) -> Result:
    data = json.loads((out / "students" / student / "exercise-01.json").read_text())
    return Result.from_dict(data)


def test_the_result_of_a_notebook_carries_its_cells_and_its_summary_names_them(graded):
    alice = result_of(graded, "alice")
    assert alice.cells is not None
    summary = render(alice)
    assert "at cell 3 (In [2]), line 3 in add" in summary
    assert "at line" not in summary
    bob = result_of(graded, "bob")
    assert bob.cells is None
    assert "at line 6 in add" in render(bob)


def test_the_report_of_a_notebook_names_cell_and_line(graded):
    page = (graded / "students" / "alice" / "exercise-01.html").read_text(encoding="utf-8")
    assert "cell 3 (In [2]), line 3</a>" in page
    assert 'class="cellhead" data-cell="3"' in page


def test_the_feedback_page_names_cell_and_line(graded):
    alice = (graded / "feedback" / "alice.html").read_text(encoding="utf-8")
    assert "cell 3 (In [2]), line 3" in alice
    bob = (graded / "feedback" / "bob.html").read_text(encoding="utf-8")
    assert "line 6" in bob and "cell 3" not in bob


def test_the_gradebooks_review_column_names_cell_and_line(graded):
    rows = {
        r["student"]: r
        for r in csv.DictReader(io.StringIO((graded / "gradebook.csv").read_text("utf-8")))
    }
    assert "exercise-01 cell 4 (In [3]), line 1:" in rows["alice"]["needs_review"]
    assert "exercise-01 line 9:" in rows["bob"]["needs_review"]


def test_a_notebook_run_again_with_new_counts_is_regraded(graded, tmp_path):
    # the same code, so the same extracted source: only the In [n] the learner sees differ
    import shutil

    import nbformat

    download, out = tmp_path / "download", tmp_path / "out"
    shutil.copytree(graded, out)
    rerun = nbformat.reads(notebook(*CELLS).decode(), as_version=4)
    for cell in rerun.cells:
        if cell.cell_type == "code":
            cell.execution_count += 10
    write(download / "alice" / "exercise-01.ipynb", nbformat.writes(rerun))
    write(download / "bob" / "exercise-01.py", PLAIN)
    args = ("batch", str(download), "--exercises", "exercise-01", "--out", str(out))
    proc = run_cli(*args, "--jobs", "1", home=COURSE, timeout=300)
    assert "2 students: 1 graded now, 1 from the cache" in proc.stdout, proc.stdout
    assert "at cell 3 (In [12]), line 3 in add" in render(result_of(out, "alice"))


def test_the_engines_messages_in_a_batch_name_cell_and_line(tmp_path):
    """A message worded by the engine (here: where the syntax error is) names the cell in a
    batch too, as the frame under it and the gradebook do."""
    download = tmp_path / "download"
    write(
        download / "carol" / "exercise-01.ipynb",
        notebook("import torch", "def add(a, b):\n    return a +\n"),
    )
    out = batch(download, tmp_path / "out")
    messages = {t.message for t in result_of(out, "carol").tests}
    assert messages == {"Your file has a syntax error at cell 3 (In [2]), line 2: invalid syntax"}
