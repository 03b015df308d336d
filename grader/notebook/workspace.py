"""``grade init --notebooks``: a workspace of notebooks, one per exercise.

Each ``exercise-NN.ipynb`` holds, top to bottom: the instructions as markdown in the learner's
language (with the functions to write), a cell that loads the grader (``%load_ext grader``),
the starter in a code cell that begins with ``%%grade NN`` (running the cell runs the code and
grades it), and a ``%grade hint NN`` cell for the next hint. The folder is a workspace like any
other (``grade list``, ``grade 7`` and the dashboard work there: ``grade 7`` grades the
notebook), and an existing notebook is never overwritten.
"""

from __future__ import annotations

from pathlib import Path

from grader.fileio import write_atomic
from grader.i18n import pick
from grader.spec import ExerciseSpec
from grader.workspace import Workspace, make_root, mark_workspace

README = {
    "en": """\
# PyTorch exercises, as notebooks

Each `exercise-NN.ipynb` here is an exercise: open it in Jupyter, read the instructions, edit
the code cell that starts with `%%grade`, and run it. The cell runs as usual (your functions
stay defined) and is graded in a sandbox; the result appears under it. `%grade hint NN` shows
the next hint.

From a terminal in this folder, `grade list`, `grade 7` and `grade report` work as well.
Grading here is for practice: your instructor's grading is the one that counts.
""",
    "zh": """\
# PyTorch 练习（笔记本版）

这里的每个 `exercise-NN.ipynb` 都是一道练习：在 Jupyter 中打开它，阅读说明，修改以 `%%grade`
开头的代码单元格并运行。单元格会照常运行（你定义的函数会保留），同时在沙箱中评分，结果显示在它下方。
`%grade hint NN` 会显示下一条提示。

在这个文件夹的终端里，`grade list`、`grade 7` 和 `grade report` 同样可用。
这里的评分仅供练习：以老师的评分为准。
""",
}


def notebook_for(spec: ExerciseSpec, lang: str) -> str:
    """The exercise's notebook, as nbformat 4 JSON text."""
    import nbformat
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    short = spec.id.removeprefix("exercise-").lstrip("0") or spec.id
    functions = "\n".join(f"- `{f.signature}`" for f in spec.functions)
    intro = (
        f"# {spec.id} · {spec.title.get(lang)}\n\n"
        f"{spec.instructions.get(lang).rstrip()}\n\n"
        f"**{pick(lang, 'Functions', '需要编写的函数')}:**\n\n{functions}\n"
    )
    how = pick(
        lang,
        "Run the next cell once to load the grader. Then edit the code below and run its cell: "
        "it runs your code here as usual, grades it in a sandbox, and shows what to fix.",
        "先运行下一个单元格加载评分器。然后修改下面的代码并运行它所在的单元格："
        "代码会照常在这里运行，同时在沙箱中评分，并告诉你哪里需要修改。",
    )
    stuck = pick(
        lang,
        "Stuck? Run the cell below for the next hint (one more each time).",
        "卡住了？运行下面的单元格查看下一条提示（每次多一条）。",
    )
    starter = spec.starter_text().rstrip("\n")
    notebook = new_notebook(
        cells=[
            new_markdown_cell(intro),
            new_markdown_cell(how),
            new_code_cell("%load_ext grader"),
            new_code_cell(f"%%grade {short}\n{starter}"),
            new_markdown_cell(stuck),
            new_code_cell(f"%grade hint {short}"),
        ],
        metadata={
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
    )
    text: str = nbformat.writes(notebook)
    return text + "\n"


def init_notebooks(
    root: Path, specs: list[ExerciseSpec], lang: str
) -> tuple[Workspace, list[str], list[str]]:
    """Create (or complete) a notebook workspace; never overwrites a notebook. Returns the
    workspace, the files created and the files left as they were."""
    make_root(root)
    created, kept = [], []
    for spec in specs:
        target = root / Path(spec.learner_file).with_suffix(".ipynb")
        if target.exists():
            kept.append(target.name)
        else:
            write_atomic(target, notebook_for(spec, lang))
            created.append(target.name)
    readme = root / "README.md"
    if not readme.exists():
        write_atomic(readme, README.get(lang, README["en"]))
        created.append("README.md")
    return mark_workspace(root), created, kept
