"""A static look at the learner's source, on the trusted side.

Checks measured while learner code runs (which torch functions it called) live in the learner's
process, where the learner's code could interfere with them. Reading the source here backs them
up: which dotted names the code uses (with imports and aliases resolved), and whether a function
loops in Python. The source is parsed, never imported or run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache


@dataclass(frozen=True)
class Use:
    name: str  # a dotted name with aliases resolved, e.g. torch.nn.functional.softmax
    line: int
    function: str | None  # the top-level function it appears in (None: module level)


@lru_cache(maxsize=8)
def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError):
        return None


def _aliases(tree: ast.Module) -> dict[str, str]:
    """Local names bound by imports: ``F`` -> ``torch.nn.functional``, ``SGD`` -> ``torch.optim.SGD``."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    aliases[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    aliases.setdefault(top, top)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return aliases


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if parts:  # e.g. x.softmax(...) on an expression: keep the attribute chain
        return "." + ".".join(reversed(parts))
    return None


def uses(source: str) -> list[Use]:
    """Every dotted name the source refers to, resolved through its imports."""
    tree = _parse(source)
    if tree is None:
        return []
    aliases = _aliases(tree)
    defined = {
        n.name
        for n in tree.body
        if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef))
    }
    found: list[Use] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for child in ast.iter_child_nodes(node):
            inner = function
            if function is None and isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                inner = child.name
            if isinstance(child, (ast.Attribute, ast.Name)) and not _inside_attribute(child, node):
                name = _dotted(child)
                if name:
                    head, _, rest = name.partition(".")
                    if head in aliases and head not in defined:
                        name = aliases[head] + ("." + rest if rest else "")
                    found.append(Use(name, getattr(child, "lineno", 0), inner))
            if isinstance(child, ast.ImportFrom) and child.module:
                for alias in child.names:
                    found.append(Use(f"{child.module}.{alias.name}", child.lineno, inner))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Use(alias.name, child.lineno, inner))
            visit(child, inner)

    visit(tree, None)
    return found


def _inside_attribute(node: ast.AST, parent: ast.AST) -> bool:
    """Only the outermost node of a chain a.b.c counts (not a.b and a on their own)."""
    return isinstance(parent, ast.Attribute) and parent.value is node


def matches(name: str, rule: str) -> bool:
    """Whether a used name falls under a forbidden rule.

    A bare rule (``softmax``) matches any spelling ending in it (``torch.softmax``,
    ``x.softmax``, ``F.softmax``). A dotted rule matches the name itself, anything under it
    (``torch.optim`` covers ``torch.optim.SGD``) and names ending in it (``nn.Linear`` covers
    ``torch.nn.Linear``).
    """
    if "." not in rule:
        return name.rsplit(".", 1)[-1] == rule
    return (
        name == rule
        or name.startswith(rule + ".")
        or name.endswith("." + rule)
        or ("." + rule + ".") in name
    )


def forbidden_uses(
    source: str, rules: list[str], functions: tuple[str, ...] = (), graded: tuple[str, ...] = ()
) -> list[Use]:
    """Uses of any rule's name that count against ``functions`` (all code when empty).

    Module-level code and helper functions (top-level functions that are not among the
    exercise's ``graded`` functions) count as part of every function: a helper that calls the
    forbidden API is a way around the rule. Uses inside other graded functions do not count.
    """
    hits = []
    for use in uses(source):
        if "." not in use.name:
            continue  # a bare local name (a variable or a function of the learner's own)
        if (
            functions
            and use.function is not None
            and use.function not in functions
            and use.function in graded
        ):
            continue
        if any(matches(use.name, rule) for rule in rules):
            hits.append(use)
    return hits


def loops_in(source: str, function: str) -> list[int]:
    """Lines of ``for``/``while`` loops and comprehensions inside ``function``."""
    tree = _parse(source)
    if tree is None:
        return []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            return sorted(
                n.lineno
                for n in ast.walk(node)
                if isinstance(
                    n,
                    (
                        ast.For,
                        ast.While,
                        ast.ListComp,
                        ast.SetComp,
                        ast.DictComp,
                        ast.GeneratorExp,
                        ast.AsyncFor,
                    ),
                )
            )
    return []
