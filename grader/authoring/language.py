"""Whether an exercise speaks both languages: learner-facing texts left in English only.

The loader already insists on an ``en`` and a ``zh`` for every text of ``exercise.yaml``; what it
cannot see is a ``zh`` that is English (copied, or left for later), and, in the hidden tests, a
plain string where a learner-facing name belongs: ``assert_close(got, want, "the trained
weights")`` shows "the trained weights" in the middle of a Chinese message. ``grade validate``
warns about both (a warning, not a failure: code such as ``pairwise_distance(x)`` or
``x.t()`` needs no translation, and only the author can tell).

The hidden tests are read with ``ast``, never imported. A text counts as English when it holds
words of plain letters outside code: ``pairwise_distance(x) (x = torch.randn(4, 5))`` holds none,
``softmax_rows(x) for x of shape (4, 4)`` holds "for", "of" and "shape".
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

from grader.i18n import Text
from grader.spec import ExerciseSpec

_CJK = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")
_WORD = re.compile(r"^[A-Za-z]{2,}[,.;:!?]*$")
_INLINE = re.compile(r"`[^`]*`")
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")
_CALL = re.compile(r"[\w.\]]\([^()]*\)")  # name(...), innermost first
_BINDING = re.compile(r"\b[A-Za-z_][\w.]*\s*(==|=|:)(?!\S)")  # x = ..., device = ..., X: ...
_NOT_WORDS = frozenset({"True", "False", "None"})
# the functions of grader.testing whose first argument after the learner-facing values is the
# zh text: fail(en, zh), check(cond, en, zh), skip(en, zh), Text(en, zh)
_BILINGUAL_CALLS = {"Text": 1, "fail": 1, "skip": 1, "check": 2}


def english_words(text: str) -> list[str]:
    """The words of plain letters in ``text`` outside code: backticks, ``{...}``
    placeholders, calls with their arguments, ``name =`` bindings, and tokens with
    brackets, dots, underscores or digits."""
    text = _PLACEHOLDER.sub("0", _INLINE.sub(" ", text))
    while True:
        shorter = _CALL.sub("0", text)
        if shorter == text:
            break
        text = shorter
    text = _BINDING.sub(" ", text)
    tokens = [t.strip("()[]") for t in text.split()]
    words = [t.rstrip(",.;:!?") for t in tokens if _WORD.match(t)]
    return [w for w in words if w not in _NOT_WORDS]


def english_only(en: str, zh: str) -> bool:
    """A ``zh`` text that holds no Chinese where its ``en`` holds words."""
    return not _CJK.search(zh) and bool(english_words(zh or en))


def spec_warnings(spec: ExerciseSpec, shown: str) -> list[str]:
    """The learner-facing texts of ``exercise.yaml`` whose ``zh`` is not Chinese. ``shown``:
    how to name the file (relative to the course)."""
    found = []
    for field, text in _spec_texts(spec):
        if english_only(text.en, text.zh):
            found.append(
                f"{shown}: {field}.zh is English ({_short(text.zh)}): learners reading Chinese "
                "see it as it is; translate it"
            )
    return found


def _spec_texts(spec: ExerciseSpec) -> Iterator[tuple[str, Text]]:
    yield "title", spec.title
    yield "instructions", spec.instructions
    for i, hint in enumerate(spec.hints):
        yield f"hints[{i}]", hint
    for i, function in enumerate(spec.functions):
        if function.summary is not None:
            yield f"functions[{i}].summary", function.summary
    for i, rule in enumerate(spec.forbidden):
        yield f"forbidden[{i}].why", rule.why
    for i, test in enumerate(spec.tests):
        yield f"tests[{i}].description", test.description


def catalogue_warnings(entries: list[tuple[str, Text]], shown: str) -> list[str]:
    """The same for a course's ``diagnoses.yaml``: ``entries`` are (field, text) pairs."""
    return [
        f"{shown}: {field}.zh is English ({_short(text.zh)}): translate it"
        for field, text in entries
        if english_only(text.en, text.zh)
    ]


def tests_warnings(source: str, shown: str) -> list[str]:
    """Learner-facing strings of a hidden-test file that are English only: a plain string
    given as a check's ``what`` (or bound to a name that is), and the ``zh`` of ``Text``,
    ``fail``, ``check`` and ``skip`` when it holds no Chinese."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []  # the loader reports it
    helpers = _helper_params(tree)
    english_helpers = _imported_from_testing(tree) & {"describe"}
    found: dict[int, str] = {}
    what_names: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = _callee(node)
        for arg in _what_args(node, callee, helpers):
            if isinstance(arg, ast.Name):
                what_names.add(arg.id)
                continue
            text = _literal(arg)
            if text is not None and english_words(text):
                found.setdefault(
                    arg.lineno,
                    f"{shown}:{arg.lineno}: the `what` given to {callee}() is a plain string "
                    f"({_short(text)}), shown in English in the zh view: write "
                    'Text("...", "...") with both languages',
                )
        if callee in _BILINGUAL_CALLS:
            en_arg, zh_arg = _pair(node, _BILINGUAL_CALLS[callee])
            en = _literal(en_arg) if en_arg is not None else None
            zh = _literal(zh_arg) if zh_arg is not None else None
            if zh is not None and english_only(en or "", zh):
                found.setdefault(
                    node.lineno,
                    f"{shown}:{node.lineno}: the zh text of {callee}() is English "
                    f"({_short(zh)}): translate it",
                )
            leak = _english_inside(zh_arg, english_helpers) if zh_arg is not None else None
            if leak is not None:
                found.setdefault(
                    node.lineno,
                    f"{shown}:{node.lineno}: the zh text of {callee}() formats {leak}, which "
                    "is English: "
                    + (
                        "use describe_zh()"
                        if leak.startswith("describe(")
                        else "use the Chinese one (we, wz = names(what))"
                    ),
                )
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in what_names for t in node.targets
        ):
            text = _literal(node.value)
            if text is not None and english_words(text):
                found.setdefault(
                    node.lineno,
                    f"{shown}:{node.lineno}: a `what` is a plain string ({_short(text)}), "
                    'shown in English in the zh view: write Text("...", "...") with both '
                    "languages",
                )
    return [found[line] for line in sorted(found)]


def _imported_from_testing(tree: ast.Module) -> set[str]:
    """The names the file imports from grader.testing (as it binds them)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("grader.testing"):
            found |= {a.asname or a.name for a in node.names}
    return found


def _english_inside(zh: ast.expr, english_helpers: set[str]) -> str | None:
    """What a zh text formats that is English: a call of grader.testing's ``describe`` (whose
    Chinese twin is ``describe_zh``), or a name that holds the English text (``we``, ``en``,
    ``what_en``, ``*_en``)."""
    for value in ast.walk(zh):
        if not isinstance(value, ast.FormattedValue):
            continue
        for node in ast.walk(value.value):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in english_helpers
            ):
                return f"{node.func.id}(...)"
            if isinstance(node, ast.Name) and (node.id in ("we", "en") or node.id.endswith("_en")):
                return node.id
    return None


@cache
def _what_positions() -> dict[str, int]:
    """Where ``what`` sits among the arguments of each public function of grader.testing."""
    import grader.testing as testing

    positions = {}
    for name in testing.__all__:
        function = getattr(testing, name)
        if not inspect.isfunction(function):
            continue
        params = list(inspect.signature(function).parameters)
        if "what" in params:
            positions[name] = params.index("what")
    return positions


def _helper_params(tree: ast.Module) -> dict[str, int]:
    """The tests' own helpers that take a ``what`` (by the parameter's name), and where."""
    found = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            params = [a.arg for a in node.args.posonlyargs + node.args.args]
            for i, param in enumerate(params):
                if param == "what" or param.endswith("_what"):
                    found[node.name] = i
                    break
    return found


def _callee(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _what_args(node: ast.Call, callee: str, helpers: dict[str, int]) -> list[ast.expr]:
    found = [k.value for k in node.keywords if k.arg == "what" or (k.arg or "").endswith("_what")]
    position = helpers.get(callee, _what_positions().get(callee))
    if position is not None and position < len(node.args):
        arg = node.args[position]
        if not isinstance(arg, ast.Starred):
            found.append(arg)
    return found


def _pair(node: ast.Call, zh_at: int) -> tuple[ast.expr | None, ast.expr | None]:
    """The ``en`` and ``zh`` arguments of a bilingual call."""
    args = [a for a in node.args if not isinstance(a, ast.Starred)]
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    en = args[zh_at - 1] if len(args) >= zh_at else keywords.get("en")
    zh = args[zh_at] if len(args) > zh_at else keywords.get("zh")
    return en, zh


def _literal(node: ast.expr) -> str | None:
    """A string literal's text, or an f-string's with ``{}`` for what it formats (or a sum of
    them); else None."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left), _literal(node.right)
        return None if left is None or right is None else left + right
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                parts.append(value.value)
            else:
                parts.append("{}")
        return "".join(parts)
    return None


def _short(text: str) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= 60 else text[:57] + "...")


def relative(path: Path, root: Path) -> str:
    """``path`` as the course names it (``exercises/exercise-21/tests.py``)."""
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
