"""Notebooks as the learner's files: `grade ID --file x.ipynb`, notebook workspaces, and what a
`%%grade` cell is graded as (no kernel needed here; tests/test_notebook.py runs a real one)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import nbformat
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from grader.errors import UsageError
from grader.notebook.display import GradeOutput
from grader.notebook.magics import cell_submission
from grader.results import Result
from grader.serve.submission import find_target
from grader.workspace import find_workspace
from tests.conftest import FIXTURES, PROBE_HOME, SUBMISSIONS, cli_here, run_cli


def probe_notebook(double: str) -> str:
    return nbformat.writes(
        new_notebook(
            cells=[
                new_markdown_cell("# exercise-90"),
                new_code_cell("%load_ext grader\n%matplotlib inline"),
                new_code_cell(f"%%grade 90\nimport torch\n\n\ndef double(x):\n    {double}\n"),
                new_code_cell("!pip install nothing\ndef triple(x):\n    return x * 3\n"),
            ]
        )
    )


def test_grading_a_notebook_names_cells_and_lines(tmp_path):
    path = tmp_path / "exercise-90.ipynb"
    path.write_text(probe_notebook("raise ValueError('not yet')"))
    out = tmp_path / "r.json"
    proc = run_cli("90", "--file", str(path), "--json", str(out), "--no-report", home=PROBE_HOME)
    assert proc.returncode == 1, proc.stderr
    assert "at cell 3, line 6 in double" in proc.stdout
    data = json.loads(out.read_text())
    assert data["submission"] == str(path)
    assert data["cells"]["map_version"] == 1
    assert data["score"] == 1  # triple, from the fourth cell, passes
    # what was left out is said, but not the grader's own magics
    notes = " ".join(data["notes"])
    assert "%matplotlib inline left out" in notes and "!pip install" in notes
    assert "%load_ext" not in notes and "%%grade" not in notes


@pytest.mark.parametrize(
    ("double", "says_en", "says_zh"),
    [
        pytest.param(
            "while True:\n        pass",
            "It was at cell 3, line 6 (in double) when it was stopped.",
            "它被停止时正在执行第 3 个单元格第 6 行（double 中）。",
            marks=pytest.mark.slow,  # runs into the time limits of its CPU and CUDA passes
        ),
        ("return x *", "syntax error at cell 3, line 6", "你的文件第 3 个单元格第 6 行有语法错误"),
        # Python's own message names a second line: said as the notebook has it too
        pytest.param(
            "return (x *\n        2]",
            "does not match opening parenthesis '(' on cell 3, line 6",
            "does not match opening parenthesis '(' on cell 3, line 6",
            marks=pytest.mark.slow,  # a grading like the one above; the fast tier keeps that one
        ),
    ],
    ids=["timeout", "syntax-error", "syntax-error-naming-a-line"],
)
def test_the_engines_own_messages_name_the_cell_and_its_line(tmp_path, double, says_en, says_zh):
    """A message worded by the engine (where a loop was stopped, where the syntax error is)
    names the line as the learner finds it in the notebook, in both languages, as the frame
    shown under it does."""
    path = tmp_path / "exercise-90.ipynb"
    path.write_text(probe_notebook(double))
    for lang, says in (("en", says_en), ("zh", says_zh)):
        out = tmp_path / f"{lang}.json"
        proc = run_cli(
            "90",
            "--file",
            str(path),
            "--device",
            "cpu",
            "--json",
            str(out),
            "--no-report",
            "--lang",
            lang,
            home=PROBE_HOME,
        )
        assert proc.returncode == 1, proc.stderr
        double_test = next(
            t for t in Result.from_json(out.read_text()).tests if t.name == "test_double_values"
        )
        assert says in double_test.message, double_test.message
        assert " at line " not in double_test.message  # no line of the joined file


def test_a_broken_notebook_is_a_usage_error(tmp_path):
    path = tmp_path / "exercise-90.ipynb"
    path.write_text("{not a notebook")
    proc = cli_here("90", "--file", str(path), home=PROBE_HOME)
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"Error: {path}: not a notebook"), proc.stderr
    assert "Traceback" not in proc.stderr


def test_init_notebooks_writes_one_notebook_per_exercise(tmp_path):
    workspace = tmp_path / "ws"
    proc = cli_here("init", str(workspace), "--notebooks", "--lang", "zh", home=PROBE_HOME)
    assert proc.returncode == 0, proc.stderr
    nb = nbformat.read(workspace / "exercise-90.ipynb", as_version=4)
    nbformat.validate(nb)
    kinds = [(c.cell_type, c.source.splitlines()[0]) for c in nb.cells]
    assert kinds[0] == ("markdown", "# exercise-90 · 引擎探针")
    assert "把张量乘以二和三。" in nb.cells[0].source  # the instructions in the learner's language
    assert ("code", "%load_ext grader") in kinds
    assert ("code", "%%grade 90") in kinds and ("code", "%grade hint 90") in kinds
    assert not (workspace / "exercise-90.py").exists()
    assert find_workspace(workspace) is not None
    # never overwritten
    (workspace / "exercise-90.ipynb").write_text("mine")
    again = cli_here("init", str(workspace), "--notebooks", home=PROBE_HOME)
    assert "kept as they were: exercise-90.ipynb" in again.stdout
    assert (workspace / "exercise-90.ipynb").read_text() == "mine"


@settings(max_examples=50, deadline=None)
@given(bom=st.booleans(), text=st.text(st.characters(codec="utf-8"), max_size=40))
def test_a_starter_cell_is_the_starter_as_python_reads_it(bom, text):
    """A starter saved with a BOM (Notepad) began the notebook's `%%grade` cell's code with
    U+FEFF: "invalid non-printable character U+FEFF" at the learner's first run. The cell
    holds the starter's text as Python reads the file."""
    import tempfile
    from pathlib import Path

    from grader.authoring.scaffold import scaffold
    from grader.catalog import Catalog
    from grader.notebook.workspace import notebook_for

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "exercises").mkdir()
        (root / "solutions").mkdir()
        scaffold(Catalog(root), "exercise-42", "scaling")
        starter = root / "exercises" / "exercise-42" / "exercise-42.py"
        code = f"# {text}\n" + starter.read_text(encoding="utf-8")
        starter.write_bytes((b"\xef\xbb\xbf" if bom else b"") + code.encode("utf-8"))
        nb = nbformat.reads(notebook_for(Catalog(root).resolve("42"), "en"), as_version=4)
    graded = next(c.source for c in nb.cells if c.source.startswith("%%grade"))
    assert graded.split("\n", 1)[1] == code.rstrip("\n")


def test_the_workspace_grades_the_file_saved_last(tmp_path):
    from grader.catalog import Catalog

    spec = Catalog(PROBE_HOME).resolve("90")
    workspace = tmp_path / "ws"
    cli_here("init", str(workspace), home=PROBE_HOME)
    ws = find_workspace(workspace)
    script, notebook = workspace / "exercise-90.py", workspace / "exercise-90.ipynb"
    assert find_target(spec, None, ws)[0] == script
    notebook.write_text(probe_notebook("return x * 2"))
    later = time.time() + 5
    os.utime(notebook, (later, later))
    assert find_target(spec, None, ws) == (notebook, ws)
    # --file naming the workspace's own notebook keeps the workspace's record
    assert find_target(spec, notebook, ws) == (notebook, ws)
    assert find_target(spec, tmp_path / "elsewhere.ipynb", ws)[1] is None


def test_a_grade_cell_is_graded_with_the_cells_own_line_numbers():
    cell = "import torch\n%time x = 1\n\ndef double(x):\n    !echo hi\n    return x * 2\n"
    submission = cell_submission("%%grade 90", cell, 7)
    lines = submission.source.decode().splitlines()
    assert lines[0] == ""  # the %%grade line
    assert lines[1] == "import torch" and lines[2] == ""  # %time left out, line kept
    assert (
        lines[4] == "def double(x):" and lines[5] == "    pass" and lines[6] == "    return x * 2"
    )
    assert submission.filename == "In [7]" and submission.cells is None
    assert any("%time x = 1 left out" in n.en for n in submission.notes)


@pytest.mark.parametrize("cell", ["", "\n\n", "%time f()\n", "!ls\n"])
def test_a_grade_cell_without_code_is_said_to_be_a_cell_not_a_notebook(cell):
    """``%%grade 7`` over an empty cell (or only magics) was told "the notebook has no code to
    grade", sending the learner to look over a whole notebook for what one cell lacks."""
    notes = cell_submission("%%grade 90", cell, 3).notes
    assert notes[-1].en == "this cell has no code to grade (it is empty, or holds only magics)"
    assert "单元格" in notes[-1].zh
    assert not any("notebook" in note.en for note in notes)


@pytest.mark.parametrize("separator", ["\x0c", "\u2028", "\x85"])
def test_a_grade_cell_keeps_a_comment_with_a_page_break_in_its_line(separator):
    """The kernel runs a cell with a form feed or a U+2028 in a comment; ``%%grade`` cut the
    line there, and the rest of the comment became code (a correct cell scored 0)."""
    cell = f"import torch  # page{separator}break\n\ndef double(x):\n    return x * 2\n"
    submission = cell_submission("%%grade 90", cell, 3)
    source = submission.source.decode()
    compile(source, "cell", "exec")
    assert source.split("\n")[1] == f"import torch  # page{separator}break"
    assert source.split("\n")[4] == "    return x * 2"


def test_the_plain_text_of_a_notebook_output_is_the_terminal_summary():
    data = json.loads((FIXTURES / "results" / "failing.json").read_text(encoding="utf-8"))
    output = GradeOutput(Result.from_dict(data), ".grade/reports/exercise-14.html")
    assert repr(output).startswith("exercise-14")
    assert "Report: .grade/reports/exercise-14.html" in repr(output)
    assert output._repr_html_().lstrip().startswith('<div class="tg-inline"')


def test_a_magics_bad_option_is_one_usage_error_with_its_usage_line():
    from grader.notebook.magics import _parser

    with pytest.raises(UsageError) as caught:
        _parser(cell=True).parse_args(["7", "--device", "tpu"])
    text = caught.value.format()
    assert text.startswith("Error: argument --device: invalid choice: 'tpu'")
    assert text.endswith(
        "\nUsage: %%grade [--device {cpu,cuda,all}] [--seed SEED] [--lang {en,zh}] id"
    )


@pytest.mark.parametrize("cell", [True, False])
def test_a_magics_seed_out_of_range_is_its_usage_error_not_the_servers(cell):
    """%%grade --seed 10**23 ended with the warm server's "malformed grade message"."""
    from grader.notebook.magics import _parser

    with pytest.raises(UsageError) as caught:
        _parser(cell=cell).parse_args(["7", "--seed", str(10**23)])
    assert caught.value.format().startswith("Error: argument --seed: must be between")


LOADS = """
import sys
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
if sys.argv[1] == "import":
    shell.run_cell("import grader.notebook", store_history=False)
else:
    shell.run_line_magic("load_ext", "grader")
magics = shell.magics_manager.magics
print("grade" in magics["cell"], "grade" in magics["line"])
"""


@pytest.mark.parametrize("how", ["import", "load_ext"])
def test_import_grader_notebook_and_load_ext_add_the_magics(how):
    proc = subprocess.run(
        [sys.executable, "-c", LOADS, how], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "True"]


def test_import_grader_notebook_outside_ipython_does_nothing():
    code = "import sys, grader.notebook; print('IPython' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "False", proc.stderr


@pytest.fixture
def probe_env(monkeypatch, tmp_path):
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("GRADER_HOME", str(PROBE_HOME))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("GRADE_SERVER_IDLE", "60")
    monkeypatch.setenv("GRADE_NO_SERVER", "")

    def in_the_kernel(self):
        raise AssertionError("graded in the kernel's own process")

    # the test's process stands for the kernel: nothing may grade in it
    monkeypatch.setattr("grader.engine.local.LocalEngine.__enter__", in_the_kernel)
    return runtime / "torch-grader"


def probe_request():
    from grader.catalog import Catalog
    from grader.serve.submission import load

    spec = Catalog(PROBE_HOME).resolve("90")
    return spec, load(SUBMISSIONS / "correct.py").request(spec, ("cpu",))


def test_the_magics_grade_in_a_fresh_process_when_no_server_can_be_had(probe_env, capsys):
    # a runtime folder others can open is never used: one line says so, and the grading runs
    # in a process of its own, never in the kernel
    from grader.notebook.magics import grade_request

    probe_env.mkdir(mode=0o700)
    probe_env.chmod(0o755)
    spec, request = probe_request()
    result = grade_request(spec, request)
    assert (result.score, result.max_score) == (4, 4)
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and "open to other users" in lines[0]
    assert lines[0].endswith("grading in a separate process instead.")
    assert not any(probe_env.glob("*.sock"))  # no server was started in that folder


def test_the_magics_with_no_server_asked_grade_in_a_fresh_process_and_say_nothing(
    probe_env, capsys, monkeypatch
):
    from grader.notebook.magics import grade_request

    monkeypatch.setenv("GRADE_NO_SERVER", "1")
    spec, request = probe_request()
    assert grade_request(spec, request).score == 4
    assert capsys.readouterr().err == ""
    assert not probe_env.exists()
