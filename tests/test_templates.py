"""The templates of ``grade new`` are real files that lint and the type checker read, and a
scaffold is exactly a template's files with the id and slug filled in. (That every template's
scaffold passes ``grade validate`` is tests/test_course.py's
test_every_template_scaffolds_an_exercise_that_validates; that the wheel ships them is
tests/test_wheel.py's.)"""

from __future__ import annotations

import ast

import pytest
import tomllib
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.authoring.scaffold import scaffold
from grader.authoring.templates import FOLDER, TEMPLATES
from grader.catalog import Catalog
from grader.spec import SLUG_RE
from tests.conftest import ROOT


def _code_in_strings(tree: ast.AST) -> list[int]:
    """Lines of string constants (docstrings aside) that hold a Python program."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
    }
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in docstrings
            and node.value.count("\n") >= 3
            and ("def " in node.value or "import " in node.value)
        ):
            try:
                compile(node.value, "<string>", "exec")
            except SyntaxError:
                continue
            found.append(node.lineno)
    return found


def test_no_module_of_the_grader_holds_a_program_in_a_string():
    offenders = {
        path.relative_to(ROOT).as_posix(): lines
        for path in (ROOT / "grader").rglob("*.py")
        if (lines := _code_in_strings(ast.parse(path.read_text(encoding="utf-8"))))
    }
    assert offenders == {}


def test_the_detector_finds_a_program_in_a_string():
    code = 'FILES = {"a.py": """import torch\\n\\n\\ndef f(x):\\n    return x\\n"""}\n'
    assert _code_in_strings(ast.parse(code)) == [1]


def test_lint_and_the_type_checker_read_the_templates():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    mypy = config["tool"]["mypy"]
    assert "grader" in mypy["files"]
    assert not any("templates" in e for e in mypy.get("exclude", []))
    ruff = config["tool"].get("ruff", {})
    assert not any(
        "templates" in e for e in ruff.get("exclude", []) + ruff.get("extend-exclude", [])
    )
    # every Python file of every template is a module of a package (so no two share a name)
    for template in TEMPLATES.values():
        python = sorted(template.folder.rglob("*.py"))
        assert len(python) >= 6, template.name
        for path in python:
            assert (path.parent / "__init__.py").is_file(), path
            ast.parse(path.read_text(encoding="utf-8"))  # and it is Python


def test_the_wheel_ships_every_template_file():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    data = config["tool"]["setuptools"]["package-data"]
    non_python = {
        p.relative_to(FOLDER).as_posix()
        for p in FOLDER.rglob("*")
        if p.is_file() and p.suffix != ".py" and "__pycache__" not in p.parts
    }
    assert non_python == {f"{name}/exercise.yaml" for name in TEMPLATES}
    assert "*/exercise.yaml" in data["grader.authoring.templates"]


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_every_template_is_a_complete_exercise(name):
    files = TEMPLATES[name].files()
    assert {
        "exercises/{id}/exercise.yaml",
        "exercises/{id}/{id}.py",
        "exercises/{id}/tests.py",
        "solutions/{id}/{id}.py",
    } <= set(files)
    assert sum(p.startswith("exercises/{id}/mutants/") for p in files) >= 3
    assert sum(p.startswith("exercises/{id}/alternatives/") for p in files) >= 2
    assert not any(p.endswith("__init__.py") for p in files)


@settings(max_examples=10, deadline=None)
@given(
    name=st.sampled_from(sorted(TEMPLATES)),
    number=st.integers(min_value=10, max_value=99),
    slug=st.from_regex(SLUG_RE, fullmatch=True).filter(lambda s: len(s) <= 40),
)
def test_a_scaffold_is_the_template_with_the_id_and_slug_filled_in(
    tmp_path_factory, name, number, slug
):
    root = tmp_path_factory.mktemp("course")
    (root / "exercises").mkdir()
    (root / "solutions").mkdir()
    exercise = f"exercise-{number}"
    written = scaffold(Catalog(root), exercise, slug, name)
    expected = {
        path.replace("{id}", exercise): text.replace("{id}", exercise).replace("{slug}", slug)
        for path, text in TEMPLATES[name].files().items()
    }
    assert {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in written} == (
        expected
    )
    assert f"slug: {slug}\n" in expected[f"exercises/{exercise}/exercise.yaml"]
    spec = Catalog(root).resolve(exercise)  # and it loads
    assert spec.id == exercise
