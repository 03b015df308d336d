"""The templates of ``grade new --template NAME``, one folder each: a complete exercise in one
of the test patterns exercises/README.md documents.

    basic      scale(x, factor): compare with the reference; judge the dtype alone
    forbidden  relu(x) without relu or clamp: a forbidden group, in-place forms included
    opcount    row_norms(x) without Python loops: op counts over named sizes, the static backstop
    property   normalize_rows(x): a hypothesis property beside the examples
    meta       add_positions(x): the meta device stands in for a GPU on any machine
    mistakes   standardize(x): replay the classic mistakes and name the one the learner made

A template's files are real files (shipped in the wheel as package data), so lint and the type
checker read its Python like any other: ``exercise.yaml``, ``starter.py`` (the learner's file),
``solution.py`` (the reference), ``tests.py`` (the hidden tests), ``mutants/`` and
``alternatives/``. ``{id}`` and ``{slug}`` in them stand for the new exercise's id and slug;
the ``__init__.py`` files only make the folders packages and are not part of a scaffold.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

FOLDER = Path(__file__).resolve().parent
# where each file of a template goes in the course; any other file keeps its place under
# exercises/{id}/
_PLACES = {"starter.py": "exercises/{id}/{id}.py", "solution.py": "solutions/{id}/{id}.py"}


@dataclass(frozen=True)
class Template:
    name: str
    description: str

    @property
    def folder(self) -> Path:
        return FOLDER / self.name

    def files(self) -> dict[str, str]:
        """Course-relative path (``{id}`` standing for the exercise id) -> the file's text."""
        found = {}
        for path in sorted(self.folder.rglob("*")):
            if not path.is_file() or path.name == "__init__.py" or "__pycache__" in path.parts:
                continue
            relative = path.relative_to(self.folder).as_posix()
            place = _PLACES.get(relative, f"exercises/{{id}}/{relative}")
            found[place] = path.read_text(encoding="utf-8")
        return found


TEMPLATES: dict[str, Template] = {
    t.name: t
    for t in (
        Template("basic", "scale(x, factor): values and dtype, on every device"),
        Template(
            "forbidden",
            "relu(x) without relu or clamp: a forbidden group, checked in the source and the trace",
        ),
        Template(
            "opcount",
            "row_norms(x) without Python loops: op counts over named sizes, and the static "
            "backstop",
        ),
        Template(
            "property",
            "normalize_rows(x): examples and a hypothesis property (deterministic, shrinking)",
        ),
        Template(
            "meta",
            "add_positions(x): the meta device stands in for a GPU, so device slips fail on any "
            "machine",
        ),
        Template(
            "mistakes",
            "standardize(x): replay the classic mistakes on the same input and name the one made",
        ),
    )
}
