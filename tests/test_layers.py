"""The package's layers point one way: no import circles, and every package imports only the
packages below it.

Read from the source with ``ast``: every ``import`` anywhere in a module counts, lazy ones
inside functions and type-only ones under ``if TYPE_CHECKING:`` too, so that no edge can hide
behind an import placed where it runs late or never.
"""

from __future__ import annotations

import ast
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from tests.conftest import ROOT

PACKAGE = ROOT / "grader"

# Top first; a package may import only those after it. "core" is the modules at the top of
# the package (spec, catalog, results, i18n, ...). The entry points, ``python -m grader``
# (``grader.__main__``) and ``%load_ext grader`` (the package's ``__init__``), sit above all.
ORDER = (
    "entry",
    "cli",
    "authoring",
    "notebook",
    "serve",
    "cluster",
    "lms",
    "render",
    "engine",
    "testing",
    "sandbox",
    "core",
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py") if "_data" not in p.parts}


def import_targets(tree: ast.AST, package: str) -> list[str]:
    """Every module name ``tree`` imports, anywhere in it (``from x import y`` names
    ``x.y``, and ``x`` for when ``y`` is not a module), with relative imports resolved against
    ``package``."""
    targets: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets += [f"{base}.{a.name}" for a in node.names]
    return targets


def resolve(target: str, known: set[str] | dict[str, Path]) -> str | None:
    """The innermost known module ``target`` names (``grader.x.f``, a function, is
    ``grader.x``), or None outside the package."""
    while target and target not in known:
        target = target.rpartition(".")[0]
    return target or None


def imports() -> dict[str, set[str]]:
    """module -> the grader modules it imports (a parent package, which any import of a
    submodule runs first, is not counted unless named for itself)."""
    found_modules = modules()
    graph: dict[str, set[str]] = {}
    for name, path in found_modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = {resolve(t, found_modules) for t in import_targets(tree, package)}
        graph[name] = {t for t in found if t is not None and t != name}
    return graph


def layer(module: str) -> str:
    """The layer of a grader module: its package below ``grader``, "core" for the modules at
    the top, "entry" for the package itself and ``grader.__main__``."""
    parts = module.split(".")
    if module in ("grader", "grader.__main__"):
        return "entry"
    if len(parts) > 2 or (PACKAGE / parts[1]).is_dir():
        return parts[1]
    return "core"


def upward(graph: dict[str, set[str]]) -> list[str]:
    """Every import of a module from a layer above its own (or from a package the order does
    not place)."""
    bad = []
    for name, targets in graph.items():
        for target in targets:
            mine, theirs = layer(name), layer(target)
            if mine == theirs:
                continue
            if mine not in ORDER or theirs not in ORDER:
                bad.append(
                    f"{name} -> {target}: {mine if mine not in ORDER else theirs} is unplaced"
                )
            elif ORDER.index(theirs) < ORDER.index(mine):
                bad.append(f"{name} ({mine}) imports {target} ({theirs})")
    return sorted(bad)


def test_every_package_imports_only_the_packages_below_it():
    graph = imports()
    # every package of grader/ has its place
    assert {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()} <= set(ORDER)
    assert upward(graph) == []


def test_lazy_and_type_only_imports_count():
    # the reader sees an import inside a function and one under `if TYPE_CHECKING:`
    code = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from grader.lms.grades import GradeRow\n"
        "def f():\n    from grader.cluster import make_engine\n"
        "    import grader.cli.learner\n"
        "class C:\n    def m(self):\n        from .html import render_result\n"
    )
    targets = import_targets(ast.parse(code), "grader.render")
    found = {m for m in (resolve(t, modules()) for t in targets) if m is not None}
    assert found == {
        "grader.lms.grades",
        "grader.cluster",
        "grader.cli.learner",
        "grader.render.html",
    }
    graph = {"grader.render.feedback": found}
    assert upward(graph) == [
        "grader.render.feedback (render) imports grader.cli.learner (cli)",
        "grader.render.feedback (render) imports grader.cluster (cluster)",
        "grader.render.feedback (render) imports grader.lms.grades (lms)",
    ]


@given(st.sampled_from(ORDER[1:-1]), st.sampled_from(ORDER[1:-1]))
def test_an_import_is_allowed_exactly_when_it_points_down(importer, imported):
    graph = {f"grader.{importer}.a": {f"grader.{imported}.b"}}
    allowed = importer == imported or ORDER.index(imported) > ORDER.index(importer)
    assert (upward(graph) == []) is allowed
    # a core module (grader.x) imports no package; every package may import core modules
    assert upward({f"grader.{importer}.a": {"grader.results"}}) == []
    assert upward({"grader.results": {f"grader.{importer}.a"}}) != []


def test_the_entry_points_are_imported_by_nothing():
    offenders = sorted(
        f"{name} imports {target}"
        for name, targets in imports().items()
        for target in targets
        if layer(target) == "entry"
    )
    assert offenders == []


def test_no_import_circles():
    graph = imports()
    cycles = []
    state: dict[str, int] = {}  # 1 visiting, 2 done
    stack: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            # a package importing its own submodules (its __init__ re-exporting) is no circle
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_every_front_end_parses_with_the_shared_options():
    # The CLI and the notebook magics read the same options (--lang, --device) the same way:
    # from grader.options, below both; no front end keeps a parser of its own.
    graph = imports()
    assert "grader.options" in graph["grader.notebook.magics"]
    assert not any(t.startswith("grader.cli") for t in graph["grader.options"])
    parsers = []
    for path in PACKAGE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).endswith("ArgumentParser") for base in node.bases
            ):
                parsers.append(f"{module_name(path)}.{node.name}")
    assert parsers == ["grader.options.Parser"]


def test_the_learner_proxy_and_the_checks_do_not_import_each_other():
    # the proxy fails a test through the checks' fail(); the checks never reach back for it
    graph = imports()
    assert "grader.testing.checks" in graph["grader.testing.proxy"]
    assert "grader.testing.proxy" not in graph["grader.testing.checks"]


def test_notebook_files_are_read_in_one_place():
    # `grade 7 --file x.ipynb`, the magics and batch intake read notebooks with the same code
    graph = imports()
    for reader in ("grader.serve.submission", "grader.notebook.magics", "grader.lms.collect"):
        assert "grader.notebooks" in graph[reader], reader
    readers = sorted(
        module_name(path)
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(
            name.split(".")[0] == "nbformat"
            for name in ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            + [a.name for a in node.names if isinstance(node, ast.Import)]
        )
    )
    # grader.notebook.workspace writes the workspace's notebooks; only grader.notebooks reads them
    assert sorted(set(readers)) == ["grader.notebook.workspace", "grader.notebooks"]


def test_no_two_classes_share_a_name():
    # Two `Submission`s or two `Job`s read alike in an import and in a traceback; each class
    # says what it is. Exceptions are the one exception: each wire protocol raises its own
    # ProtocolError, always named through its module (`protocol.ProtocolError`).
    where: dict[str, list[str]] = {}
    for name, path in modules().items():
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and not node.name.endswith("Error"):
                where.setdefault(node.name, []).append(name)
    shared = {cls: names for cls, names in where.items() if len(names) > 1}
    assert shared == {}
