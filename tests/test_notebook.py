"""The notebook front end for real: a workspace notebook from `grade init --notebooks`, executed
by a real IPython kernel (nbclient), grades its `%%grade` cell through the warm server, never in
the kernel, and shows the result inline; the inline HTML renders cleanly in headless Chromium.

The kernel is this test run's Python, registered as a kernelspec in a temporary folder; the
server gets a runtime folder of its own and is stopped at the end.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import ipykernel  # noqa: F401 - the kernel (a dev dependency: CI runs this, never skips)
import nbclient
import nbformat
import pytest

from grader.catalog import Catalog
from grader.notebook.workspace import init_notebooks
from tests.browser import find_chromium, render
from tests.conftest import ROOT, run_cli

REFERENCE_05 = (ROOT / "solutions" / "exercise-05" / "exercise-05.py").read_text(encoding="utf-8")
ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def jupyter(tmp_path_factory):
    """A kernelspec for this Python, a notebook workspace, and the server's runtime folder."""
    base = tmp_path_factory.mktemp("jupyter")
    spec = base / "share" / "kernels" / "grader-test"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "grader test kernel",
                "language": "python",
            }
        )
    )
    runtime = base / "rt"
    runtime.mkdir(mode=0o700)
    env = {
        "JUPYTER_PATH": str(base / "share"),
        "JUPYTER_RUNTIME_DIR": str(base / "jupyter-runtime"),
        "IPYTHONDIR": str(base / "ipython"),
        "JUPYTER_PLATFORM_DIRS": "1",
        "GRADE_NO_SERVER": "",
        "XDG_RUNTIME_DIR": str(runtime),
        "GRADE_SERVER_IDLE": "120",
        "GRADE_LANG": "en",
    }
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    workspace = base / "ws"
    init_notebooks(workspace, Catalog(ROOT).all(), "en")
    try:
        yield workspace
    finally:
        run_cli("server", "stop", env_extra=env)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def execute(
    workspace: Path, name: str, edit=None, extra: tuple[str, ...] = ()
) -> nbformat.NotebookNode:
    path = workspace / name
    nb = nbformat.read(path, as_version=4)
    if edit is not None:
        cell = next(c for c in nb.cells if c.source.startswith("%%grade"))
        cell.source = edit(cell.source)
    nb.cells += [nbformat.v4.new_code_cell(code) for code in extra]
    client = nbclient.NotebookClient(
        nb,
        kernel_name="grader-test",
        timeout=600,
        resources={"metadata": {"path": str(workspace)}},
    )
    client.execute()
    return nb


def outputs(nb: nbformat.NotebookNode, starts: str) -> list[dict]:
    return next(c for c in nb.cells if c.source.startswith(starts)).outputs


def html_of(cell_outputs: list[dict]) -> str:
    found = [o["data"]["text/html"] for o in cell_outputs if "text/html" in o.get("data", {})]
    assert len(found) == 1, cell_outputs
    return found[0]


def text_of(cell_outputs: list[dict]) -> str:
    parts = []
    for o in cell_outputs:
        if o.get("output_type") == "stream":
            parts.append(o["text"])
        elif "text/plain" in o.get("data", {}):
            parts.append(o["data"]["text/plain"])
    return "".join(parts)


def check_in_browser(tmp_path: Path, fragment: str, name: str) -> str:
    if find_chromium() is None:
        if os.environ.get("GRADER_REQUIRE_BROWSER"):
            raise RuntimeError("GRADER_REQUIRE_BROWSER is set but Chromium is not installed")
        pytest.skip("Chromium is not installed")
    page_path = tmp_path / f"{name}.html"
    # as a notebook shows it: the fragment inside a page, nothing else around it
    page_path.write_text(
        f'<!doctype html><html><head><meta charset="utf-8"></head><body>{fragment}</body></html>',
        encoding="utf-8",
    )
    page = render(page_path)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"{name}.png").write_bytes(page.screenshot)
    assert page.console_errors == [], page.console_errors
    assert page.external_requests == [], page.external_requests
    assert page.requests == [page_path.resolve().as_uri()]
    return page.text


@pytest.fixture(scope="module")
def graded_reference(jupyter):
    """The exercise-05 notebook with the reference in its %%grade cell, executed once: its
    checks in the kernel here, its inline fragment in Chromium in the browser tier."""
    return execute(
        jupyter,
        "exercise-05.ipynb",
        edit=lambda source: "%%grade 5\n" + REFERENCE_05,
        extra=(
            "print(flatten_transposed(torch.arange(6.0).reshape(2, 3)).tolist())",
            "import sys\nprint(sorted(m for m in ('grader.engine.local', 'grader.sandbox.forkserver')"
            " if m in sys.modules))",
        ),
    )


@pytest.fixture(scope="module")
def graded_starter(jupyter):
    """The exercise-05 notebook as the learner first finds it, executed once."""
    return execute(jupyter, "exercise-05.ipynb")


def test_a_correct_cell_scores_full_marks_and_stays_defined_in_the_kernel(
    jupyter, graded_reference
):
    nb = graded_reference
    graded = outputs(nb, "%%grade")
    assert not [o for o in graded if o.get("output_type") == "error"], graded
    html = html_of(graded)
    assert 'data-score="13/13"' in html and 'data-status="passed"' in html
    assert "13/13" in text_of(graded)  # the plain-text fallback: the terminal summary
    kept = outputs(nb, "print(flatten_transposed")
    assert text_of(kept).strip() == "[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]"
    # the grading ran in the server, not in the kernel
    assert text_of(outputs(nb, "import sys")).strip() == "[]"
    state = json.loads((jupyter / ".grade" / "state.json").read_text())
    assert state["exercises"]["exercise-05"]["status"] == "passed"


@pytest.mark.browser
def test_a_passed_cells_fragment_shows_its_score_in_chromium(graded_reference, tmp_path):
    html = html_of(outputs(graded_reference, "%%grade"))
    visible = check_in_browser(tmp_path, html, "notebook-inline-passed")
    assert "13 / 13" in visible


def test_a_wrong_cell_shows_its_diagnosis_and_the_hint_cell_helps(graded_starter):
    nb = graded_starter
    graded = outputs(nb, "%%grade")
    html = html_of(graded)
    assert 'data-status="failed"' in html
    assert 'data-diagnosis="view-non-contiguous"' in html
    text = text_of(graded)
    assert "view() on a non-contiguous tensor" in text and "Fix:" in text
    # the line is the cell's own: the %%grade line is line 1
    cell_lines = next(c for c in nb.cells if c.source.startswith("%%grade")).source.splitlines()
    wrong = next(i for i, line in enumerate(cell_lines, 1) if ".view(-1)" in line)
    assert f"at line {wrong} in flatten_transposed" in text
    # the next hint each time (which one depends on how often this workspace asked before)
    assert re.match(r"Hint [123]/3: \S", text_of(outputs(nb, "%grade hint")))


@pytest.mark.browser
def test_a_failed_cells_fragment_shows_its_diagnosis_in_chromium(graded_starter, tmp_path):
    html = html_of(outputs(graded_starter, "%%grade"))
    visible = check_in_browser(tmp_path, html, "notebook-inline-failed")
    assert "view() on a non-contiguous tensor" in visible


def test_the_line_magic_grades_the_workspace_notebook(jupyter):
    nb = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell("%load_ext grader"), nbformat.v4.new_code_cell("%grade 5")]
    )
    client = nbclient.NotebookClient(
        nb, kernel_name="grader-test", timeout=600, resources={"metadata": {"path": str(jupyter)}}
    )
    client.execute()
    graded = nb.cells[1].outputs
    text = text_of(graded)
    assert "exercise-05.ipynb" in text  # the workspace's notebook, as `grade 5` grades it
    assert "at cell 4, line" in text  # the cell map: the %%grade cell is the notebook's fourth
    assert 'data-score="' in html_of(graded)


def test_a_diagnosis_shared_by_several_tests_is_explained_once(jupyter):
    """The starter of exercise 05 makes three tests fail with one mistake (view() on a
    non-contiguous tensor): under the %%grade cell the diagnosis box appears once, and the
    later failure names it instead of repeating it; the text summary does the same."""
    nb = execute(jupyter, "exercise-05.ipynb")
    graded = outputs(nb, "%%grade")
    html = html_of(graded)
    assert html.count("data-failure=") >= 2
    assert html.count('data-diagnosis="view-non-contiguous"') == 1
    assert html.count('data-diagnosis-seen="view-non-contiguous"') >= 1
    text = text_of(graded)
    assert text.count("Fix:") == 1
    assert "(same mistake as above)" in text
