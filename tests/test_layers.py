"""The package's layers point one way: no import circles, and nothing below the CLI imports it.

Read from the source with ``ast`` (every ``import`` anywhere in a module, lazy ones inside
functions too), so a circle cannot hide behind an import placed inside a function.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "grader"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py") if "_data" not in p.parts}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found: set[str] = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            for target in targets:
                # the innermost grader module the import names (not a function inside it)
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def _runtime_nodes(tree: ast.AST) -> list[ast.AST]:
    """Every node but those under ``if TYPE_CHECKING:`` (imports for annotations only, which
    never run)."""
    found: list[ast.AST] = []
    todo = [tree]
    while todo:
        node = todo.pop()
        found.append(node)
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.If)
                and isinstance(child.test, ast.Name)
                and child.test.id == "TYPE_CHECKING"
            ):
                todo.extend(child.orelse)
                continue
            todo.append(child)
    return found


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


def test_nothing_below_the_cli_imports_it():
    offenders = sorted(
        f"{name} imports {target}"
        for name, targets in imports().items()
        if not (name == "grader.cli" or name.startswith("grader.cli.") or name == "grader.__main__")
        for target in targets
        if target == "grader.cli" or target.startswith("grader.cli.")
    )
    assert not offenders, offenders


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
    for reader in ("grader.submission", "grader.notebook.magics", "grader.lms.collect"):
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
