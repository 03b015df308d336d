"""Exercise specs: ``exercises/<id>/exercise.yaml`` loaded strictly into frozen dataclasses.

An exercise is data. Loading it checks every field's type, rejects unknown and duplicate keys, and
checks that every file it names exists, so a typo fails loudly with the file, the field and the fix
instead of silently changing what is graded. ``exercises/README.md`` documents the format.

Loading a spec never imports torch: ``grade list``, ``grade show`` and ``grade hint`` stay instant.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml

from grader.errors import SpecError
from grader.i18n import LANGS, Text  # hidden tests import Text from here too

FORMAT_VERSION = 1
SPEC_FILE = "exercise.yaml"
KINDS = ("implement", "fix")
DEVICES = ("cpu", "cuda")
TEST_DEVICES = ("cpu", "cuda", "meta")
ID_RE = re.compile(r"^exercise-(\d{2})$")
SLUG_RE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    signature: str
    summary: Text | None = None


@dataclass(frozen=True)
class TestSpec:
    """One hidden test: a ``def test_...`` in the exercise's test file."""

    name: str
    points: int
    description: Text
    devices: tuple[str, ...] | None = None  # None: the exercise's devices
    functions: tuple[str, ...] = ()  # the learner functions it exercises (for the report)
    takes_device: bool = True  # read from the test's signature: is it run once per device?
    input_check: bool = True  # does every learner call here fail when it modifies its inputs?
    # does a passed meta case also need the code never to decide by the device? False only where
    # the function describes the device by design (exercise-02's describe)
    same_on_every_device: bool = True


@dataclass(frozen=True)
class ForbiddenSpec:
    """APIs learners must not use, in some or all of their functions: one name, or a group of
    names that share one ``why``.

    A bare name (``softmax``) forbids the operation in every spelling (functions, methods,
    in-place forms, ``nn`` classes); a dotted one (``torch.optim``, ``nn.Linear``) forbids that
    object and everything under it. ``grader.testing.analysis.rules`` resolves them.
    """

    names: tuple[str, ...]  # e.g. ("softmax",), ("torch.optim",), ("softmax", "log_softmax")
    functions: tuple[str, ...]  # empty: every function
    why: Text

    @property
    def name(self) -> str:
        """The names, as one text (``softmax`` or ``softmax, log_softmax``)."""
        return ", ".join(self.names)

    def describe(self, lang: str) -> str:
        """A learner-facing line for ``grade show``: what is not allowed, where, and why."""
        zh = lang == "zh"
        items = []
        for name in self.names:
            if "." in name:
                items.append(f"{name} 及其中的一切" if zh else f"{name} and everything in it")
            else:
                items.append(
                    f"{name}（任何写法：函数、方法、原地版本或 nn 模块）"
                    if zh
                    else f"{name} in any spelling (function, method, in-place form or nn module)"
                )
        where = ", ".join(self.functions)
        if zh:
            scope = f"{where} 中" if where else "任何函数中"
            return f"{scope}不允许使用：{'；'.join(items)}。{self.why.zh}"
        scope = f" in {where}" if where else ""
        return f"Not allowed{scope}: {'; '.join(items)}. {self.why.en}"


@dataclass(frozen=True)
class MutantSpec:
    """A known-wrong variant of the solution that the hidden tests must catch."""

    file: str
    description: str
    must_fail: tuple[str, ...]
    diagnosis: str | None = None


@dataclass(frozen=True)
class AlternativeSpec:
    """A correct solution in another style that must score full marks."""

    file: str
    description: str


@dataclass(frozen=True)
class RequirementSpec:
    """One requirement the instructions state, and what proves it is checked (the audit table).

    ``tests`` fail a submission that violates only this requirement; ``mutants`` are such
    submissions (each loses only tests listed here); ``no_mutant`` says why none can be written.
    """

    id: str
    text: str
    tests: tuple[str, ...]
    mutants: tuple[str, ...] = ()
    no_mutant: str = ""


@dataclass(frozen=True)
class Limits:
    call_timeout_s: float = 5.0
    total_timeout_s: float = 60.0
    memory_mb: int = 3072
    output_kb: int = 16


@dataclass(frozen=True)
class ExerciseSpec:
    id: str
    slug: str
    kind: str
    title: Text
    concepts: tuple[str, ...]
    teaches: tuple[str, ...]
    learner_file: str
    instructions: Text
    hints: tuple[Text, ...]
    functions: tuple[FunctionSpec, ...]
    devices: tuple[str, ...]
    limits: Limits
    forbidden: tuple[ForbiddenSpec, ...]
    tests: tuple[TestSpec, ...]
    mutants: tuple[MutantSpec, ...]
    alternatives: tuple[AlternativeSpec, ...]
    test_file: str
    # Where it was loaded from (not part of the YAML).
    folder: Path = field(compare=False)
    solutions_root: Path = field(compare=False)
    requirements: tuple[RequirementSpec, ...] = ()
    # a diagnosis's fix in this exercise's own terms (diagnosis id -> text; ``{line}`` in it
    # becomes the learner's line the evidence points at)
    fixes: tuple[tuple[str, Text], ...] = ()

    def fix(self, diagnosis: str) -> Text | None:
        return next((text for key, text in self.fixes if key == diagnosis), None)

    @property
    def number(self) -> int:
        match = ID_RE.match(self.id)
        assert match is not None
        return int(match.group(1))

    @property
    def spec_path(self) -> Path:
        return self.folder / SPEC_FILE

    @property
    def starter_path(self) -> Path:
        return self.folder / self.learner_file

    @property
    def test_path(self) -> Path:
        return self.folder / self.test_file

    @property
    def solution_path(self) -> Path:
        return self.solutions_root / self.id / self.learner_file

    @property
    def course_root(self) -> Path:
        """The course folder the exercise belongs to (beside ``exercises/``, ``solutions/``
        and perhaps the course's ``diagnoses.yaml``)."""
        return self.solutions_root.parent

    @property
    def max_points(self) -> int:
        """The points of the tests, each counted once (authors' view; see graded_points)."""
        return sum(test.points for test in self.tests)

    def graded_points(self, selected: tuple[str, ...]) -> int:
        """What a grading on ``selected`` devices can score: every test counts once per device
        it runs on (a test on cpu and meta counts twice)."""
        return sum(test.points for test, _ in self.manifest(selected))

    def test(self, name: str) -> TestSpec:
        for test in self.tests:
            if test.name == name:
                return test
        raise KeyError(name)

    def test_devices(self, test: TestSpec) -> tuple[str, ...]:
        return test.devices if test.devices is not None else self.devices

    def manifest(self, selected: tuple[str, ...]) -> list[tuple[TestSpec, str | None]]:
        """Every (test, device) that a grading on ``selected`` devices gives a verdict.

        Device-independent tests (no ``device`` argument) run once, with device None, in a CPU
        child; ``meta`` stands in for a GPU on any machine. Both run whenever ``cpu`` is
        selected, so a CPU pass and a CUDA pass of one submission never grade a test twice.
        """
        entries: list[tuple[TestSpec, str | None]] = []
        for test in self.tests:
            if not test.takes_device:
                if "cpu" in selected:
                    entries.append((test, None))
                continue
            for device in self.test_devices(test):
                wanted = "cpu" if device == "meta" else device
                if wanted in selected:
                    entries.append((test, device))
        return entries


# ---------------------------------------------------------------------------------------------
# Strict YAML reading


_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_BaseLoader):  # type: ignore[misc,valid-type]
    """A safe loader that rejects duplicate keys instead of keeping the last one silently."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                "while constructing a mapping",
                node.start_mark,
                f"found duplicate key {key!r} (first at line {seen[key].start_mark.line + 1})",
                key_node.start_mark,
            )
        seen[key] = key_node
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def read_yaml(path: Path) -> Any:
    """Parse a YAML file strictly, turning every parse problem into a SpecError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(path, None, "file not found", "create it, or remove the folder") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(path, None, f"cannot read the file ({exc})", "save it as UTF-8") from None
    try:
        return yaml.load(text, Loader=_StrictLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise SpecError(
            path, None, f"invalid YAML{where}: {problem}", "correct the YAML syntax there"
        ) from None


class _Fields:
    """Reads one mapping of a spec, field by field, and rejects what is left over."""

    def __init__(self, path: Path, data: Any, where: str, allowed: tuple[str, ...]):
        self.path = path
        self.where = where
        if not isinstance(data, dict):
            raise SpecError(
                path,
                where or None,
                f"expected a mapping, got {_kind(data)}",
                "write it as `key: value` lines",
            )
        self.data = data
        unknown = [key for key in data if key not in allowed]
        for key in unknown:
            close = difflib.get_close_matches(str(key), allowed, n=1)
            fix = f"did you mean '{close[0]}'?" if close else f"allowed keys: {', '.join(allowed)}"
            raise SpecError(path, self._name(str(key)), "unknown key", fix)

    def _name(self, key: str) -> str:
        return f"{self.where}.{key}" if self.where else key

    def has(self, key: str) -> bool:
        return key in self.data

    def get(
        self, key: str, kind: type | tuple[type, ...], default: Any = ..., fix: str = ""
    ) -> Any:
        if key not in self.data:
            if default is ...:
                raise SpecError(self.path, self._name(key), "missing", fix or f"add `{key}:`")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        ok = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not ok:
            names = " or ".join(_type_name(k) for k in kinds)
            raise SpecError(
                self.path,
                self._name(key),
                f"expected {names}, got {_kind(value)}",
                fix or f"give `{key}` as {names}",
            )
        return value

    def check_version(self, expected: int) -> None:
        """Every YAML file the grader reads starts with ``format_version``: refuse any other."""
        version = self.get("format_version", int, fix=f"add `format_version: {expected}`")
        if version != expected:
            raise SpecError(
                self.path,
                "format_version",
                f"unsupported version {version}",
                f"this grader reads format_version {expected}",
            )

    def text(self, key: str, default: Any = ...) -> Any:  # a Text, or the default
        value = self.get(key, dict, default, fix=f"give `{key}` as `en:` and `zh:` texts")
        if value is None or isinstance(value, Text):
            return value
        return text_value(self.path, self._name(key), value)

    def names(
        self, key: str, pattern: re.Pattern[str] | None = None, default: Any = ...
    ) -> Any:  # a tuple of names, or the default
        values = self.get(key, list, default, fix=f"give `{key}` as a list, e.g. [a, b]")
        if values is None or isinstance(values, tuple):
            return values
        for i, item in enumerate(values):
            if not isinstance(item, str) or not item.strip():
                raise SpecError(
                    self.path,
                    f"{self._name(key)}[{i}]",
                    f"expected a non-empty string, got {_kind(item)}",
                    "write a plain name",
                )
            if pattern and not pattern.match(item):
                raise SpecError(
                    self.path,
                    f"{self._name(key)}[{i}]",
                    f"'{item}' is not a valid name",
                    f"it must match {pattern.pattern}",
                )
        return tuple(values)


def text_value(path: Path, where: str, value: Any) -> Text:
    """Read an `{en: ..., zh: ...}` mapping into a Text; both languages are required."""
    sub = _Fields(path, value, where, LANGS)
    return Text(**{lang: _nonempty(sub, lang) for lang in LANGS})


def _nonempty(fields: _Fields, key: str) -> str:
    value = fields.get(key, str)
    if not value.strip():
        raise SpecError(fields.path, fields._name(key), "is empty", "write the text")
    return value.strip("\n")


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({value})"
    if isinstance(value, (int, float)):
        return f"a number ({value})"
    if isinstance(value, str):
        shown = value if len(value) < 40 else value[:37] + "..."
        return f"a string ({shown!r})"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _type_name(kind: type) -> str:
    return {
        str: "a string",
        int: "a whole number",
        float: "a number",
        bool: "true or false",
        list: "a list",
        dict: "a mapping",
        type(None): "nothing",
    }.get(kind, kind.__name__)


# ---------------------------------------------------------------------------------------------
# The exercise spec

_TOP_KEYS = (
    "format_version",
    "id",
    "slug",
    "kind",
    "title",
    "concepts",
    "teaches",
    "learner_file",
    "instructions",
    "hints",
    "functions",
    "devices",
    "limits",
    "forbidden",
    "test_file",
    "tests",
    "mutants",
    "alternatives",
    "requirements",
    "diagnoses",
)


def load_exercise(folder: Path, solutions_root: Path) -> ExerciseSpec:
    """Load and check ``folder/exercise.yaml``; every problem is a SpecError."""
    path = folder / SPEC_FILE
    top = _Fields(path, read_yaml(path), "", _TOP_KEYS)

    top.check_version(FORMAT_VERSION)

    ex_id = top.get("id", str)
    if not ID_RE.match(ex_id):
        raise SpecError(path, "id", f"'{ex_id}' is not of the form exercise-NN", "e.g. exercise-07")
    if ex_id != folder.name:
        raise SpecError(
            path,
            "id",
            f"'{ex_id}' does not match its folder '{folder.name}'",
            f"rename the folder to {ex_id} or set id: {folder.name}",
        )
    slug = top.get("slug", str)
    if not SLUG_RE.match(slug):
        raise SpecError(path, "slug", f"'{slug}' is not a slug", "use lower-case words joined by -")
    kind = top.get("kind", str)
    if kind not in KINDS:
        raise SpecError(path, "kind", f"'{kind}' is not a kind", f"use one of: {', '.join(KINDS)}")

    learner_file = top.get("learner_file", str, f"{ex_id}.py")
    if Path(learner_file).name != learner_file or not learner_file.endswith(".py"):
        raise SpecError(path, "learner_file", "must be a plain .py file name", f"e.g. {ex_id}.py")
    _require_file(path, "learner_file", folder / learner_file, "the starter file")

    test_file = top.get("test_file", str, "tests.py")
    if Path(test_file).name != test_file or not test_file.endswith(".py"):
        raise SpecError(path, "test_file", "must be a plain .py file name", "e.g. tests.py")
    _require_file(path, "test_file", folder / test_file, "the hidden tests")
    solution = solutions_root / ex_id / learner_file
    _require_file(path, None, solution, "the reference solution")

    devices = top.names("devices", default=("cpu", "cuda"))
    _check_subset(path, "devices", devices, DEVICES)
    if "cpu" not in devices:
        raise SpecError(path, "devices", "must include cpu", "every exercise runs on cpu")

    functions = _functions(path, top)
    function_names = {f.name for f in functions}
    tests = _tests(path, top, function_names)
    tests = _check_tests_exist(path, folder / test_file, tests)
    mutants = _mutants(path, top, folder, {t.name for t in tests})

    hints_raw = top.get("hints", list, fix="add at least one hint with `en:` and `zh:`")
    if not hints_raw:
        raise SpecError(path, "hints", "is empty", "add at least one hint")
    hints = tuple(text_value(path, f"hints[{i}]", item) for i, item in enumerate(hints_raw))

    spec = ExerciseSpec(
        id=ex_id,
        slug=slug,
        kind=kind,
        title=top.text("title"),
        concepts=top.names("concepts"),
        teaches=top.names("teaches", default=()),
        learner_file=learner_file,
        instructions=top.text("instructions"),
        hints=hints,
        functions=functions,
        devices=devices,
        limits=_limits(path, top),
        forbidden=_forbidden(path, top, function_names),
        tests=tests,
        mutants=mutants,
        alternatives=_alternatives(path, top, folder),
        test_file=test_file,
        folder=folder,
        solutions_root=solutions_root,
        requirements=_requirements(path, top, tests, mutants),
        fixes=_fixes(path, top),
    )
    if not spec.concepts:
        raise SpecError(path, "concepts", "is empty", "name at least one concept")
    return spec


def _fixes(path: Path, top: _Fields) -> tuple[tuple[str, Text], ...]:
    """``diagnoses: {id: {fix: {en, zh}}}``: a diagnosis's fix for this exercise (the ids are
    checked against the catalogue by ``grade validate``)."""
    raw = top.get("diagnoses", dict, {})
    fixes = []
    for key, value in raw.items():
        where = f"diagnoses.{key}"
        if not isinstance(key, str) or not SLUG_RE.match(key):
            raise SpecError(path, where, "is not a diagnosis id", "use a catalogue id")
        fields = _Fields(path, value, where, ("fix",))
        fixes.append((key, text_value(path, f"{where}.fix", fields.get("fix", dict))))
    return tuple(fixes)


def _require_file(path: Path, where: str | None, target: Path, what: str) -> None:
    if not target.is_file():
        raise SpecError(path, where, f"{what} {target} does not exist", f"create {target}")


def _check_subset(path: Path, where: str, values: tuple, allowed: tuple) -> None:
    for i, value in enumerate(values):
        if value not in allowed:
            raise SpecError(
                path, f"{where}[{i}]", f"'{value}' is not supported", f"use: {', '.join(allowed)}"
            )
    if len(set(values)) != len(values):
        raise SpecError(path, where, "lists a value twice", "list each once")


def _items(path: Path, top: _Fields, key: str, required: bool = True) -> list[tuple[str, Any]]:
    raw = top.get(key, list, ... if required else [], fix=f"add a `{key}:` list")
    if required and not raw:
        raise SpecError(path, key, "is empty", f"add at least one entry to `{key}`")
    return [(f"{key}[{i}]", item) for i, item in enumerate(raw)]


def _functions(path: Path, top: _Fields) -> tuple[FunctionSpec, ...]:
    result = []
    for where, item in _items(path, top, "functions"):
        fields = _Fields(path, item, where, ("name", "signature", "summary"))
        name = fields.get("name", str)
        if not NAME_RE.match(name):
            raise SpecError(
                path,
                f"{where}.name",
                f"'{name}' is not a Python name",
                "write the function's name as the learner's file defines it, e.g. pairwise_distance",
            )
        summary = fields.text("summary", None)
        result.append(FunctionSpec(name, fields.get("signature", str), summary))
    _unique(path, "functions", [f.name for f in result])
    return tuple(result)


def _tests(path: Path, top: _Fields, functions: set[str]) -> tuple[TestSpec, ...]:
    result = []
    for where, item in _items(path, top, "tests"):
        fields = _Fields(
            path,
            item,
            where,
            (
                "name",
                "points",
                "description",
                "devices",
                "functions",
                "input_check",
                "same_on_every_device",
            ),
        )
        name = fields.get("name", str)
        if not name.startswith("test_") or not NAME_RE.match(name):
            raise SpecError(
                path,
                f"{where}.name",
                f"'{name}' is not a test name",
                "test names start with test_ and match a `def` in the test file",
            )
        points = fields.get("points", int)
        if points < 0:
            raise SpecError(path, f"{where}.points", "is negative", "use 0 or more")
        devices = fields.names("devices", default=None)
        if devices is not None:
            _check_subset(path, f"{where}.devices", devices, TEST_DEVICES)
            if not devices:
                raise SpecError(path, f"{where}.devices", "is empty", "name at least one device")
        used = fields.names("functions", default=())
        for fn in used:
            if fn not in functions:
                raise SpecError(
                    path,
                    f"{where}.functions",
                    f"'{fn}' is not in `functions`",
                    _one_of(fn, functions),
                )
        result.append(
            TestSpec(
                name,
                points,
                fields.text("description"),
                devices,
                used,
                input_check=fields.get("input_check", bool, True),
                same_on_every_device=fields.get("same_on_every_device", bool, True),
            )
        )
    _unique(path, "tests", [t.name for t in result])
    if sum(t.points for t in result) <= 0:
        raise SpecError(path, "tests", "give no points", "give at least one test some points")
    return tuple(result)


def _check_tests_exist(
    path: Path, test_path: Path, tests: tuple[TestSpec, ...]
) -> tuple[TestSpec, ...]:
    """Every listed test is a ``def`` in the test file, and every ``def test_*`` is listed.

    Read with ``ast``, not by importing: loading a spec must not run the hidden tests.
    """
    try:
        tree = ast.parse(test_path.read_text(encoding="utf-8"), filename=str(test_path))
    except SyntaxError as exc:
        raise SpecError(
            test_path, None, f"syntax error at line {exc.lineno}: {exc.msg}", "fix the test file"
        ) from None
    signatures = {
        node.name: {a.arg for a in node.args.args + node.args.kwonlyargs}
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name.startswith("test_")
    }
    defined = set(signatures)
    listed = {t.name for t in tests}
    for name in sorted(listed - defined):
        raise SpecError(
            path,
            "tests",
            f"'{name}' has no `def {name}` in {test_path.name}",
            "write the test or remove its entry",
        )
    for name in sorted(defined - listed):
        raise SpecError(
            path,
            "tests",
            f"{test_path.name} defines {name} but `tests` does not list it",
            "add an entry with its points and description, or rename it",
        )
    return tuple(replace(t, takes_device="device" in signatures[t.name]) for t in tests)


def _limits(path: Path, top: _Fields) -> Limits:
    raw = top.get("limits", dict, {})
    fields = _Fields(path, raw, "limits", tuple(Limits.__dataclass_fields__))
    defaults = Limits()
    values = {}
    for name in Limits.__dataclass_fields__:
        default = getattr(defaults, name)
        kind = (int, float) if isinstance(default, float) else int
        value = fields.get(name, kind, default)
        if value <= 0:
            raise SpecError(path, f"limits.{name}", "must be positive", "use a positive number")
        values[name] = type(default)(value)
    return Limits(**values)


FORBIDDEN_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def _forbidden(path: Path, top: _Fields, functions: set[str]) -> tuple[ForbiddenSpec, ...]:
    result = []
    for where, item in _items(path, top, "forbidden", required=False):
        fields = _Fields(path, item, where, ("name", "functions", "why"))
        used = fields.names("functions", default=())
        for fn in used:
            if fn not in functions:
                raise SpecError(
                    path,
                    f"{where}.functions",
                    f"'{fn}' is not in `functions`",
                    _one_of(fn, functions),
                )
        raw = fields.get(
            "name", (str, list), fix="give `name` as a name, or a list of names sharing one `why`"
        )
        if isinstance(raw, str):
            names: tuple[str, ...] = (raw.strip(),)
            spots = [f"{where}.name"]
        else:
            if not raw:
                raise SpecError(path, f"{where}.name", "is an empty list", "list at least one name")
            names = tuple(raw)
            spots = [f"{where}.name[{i}]" for i in range(len(raw))]
        for spot, name in zip(spots, names, strict=True):
            if not isinstance(name, str) or not FORBIDDEN_NAME_RE.match(name.strip()):
                raise SpecError(
                    path,
                    spot,
                    f"{name!r} is not an API name",
                    "write a name such as softmax, torch.optim or nn.Linear",
                )
        names = tuple(n.strip() for n in names)
        if len(set(names)) != len(names):
            raise SpecError(path, f"{where}.name", "lists a name twice", "list each name once")
        result.append(ForbiddenSpec(names, used, fields.text("why")))
    return tuple(result)


def _mutants(path: Path, top: _Fields, folder: Path, tests: set[str]) -> tuple[MutantSpec, ...]:
    result = []
    for where, item in _items(path, top, "mutants", required=False):
        fields = _Fields(path, item, where, ("file", "description", "must_fail", "diagnosis"))
        file = fields.get("file", str)
        _require_file(path, f"{where}.file", folder / file, "the mutant")
        must_fail = fields.names("must_fail")
        if not must_fail:
            raise SpecError(path, f"{where}.must_fail", "is empty", "name the tests that catch it")
        for name in must_fail:
            if name not in tests:
                raise SpecError(
                    path,
                    f"{where}.must_fail",
                    f"'{name}' is not a listed test",
                    f"use one of: {', '.join(sorted(tests))}",
                )
        result.append(
            MutantSpec(
                file, fields.get("description", str), must_fail, fields.get("diagnosis", str, None)
            )
        )
    _unique(path, "mutants", [m.file for m in result])
    return tuple(result)


def _alternatives(path: Path, top: _Fields, folder: Path) -> tuple[AlternativeSpec, ...]:
    result = []
    for where, item in _items(path, top, "alternatives", required=False):
        fields = _Fields(path, item, where, ("file", "description"))
        file = fields.get("file", str)
        _require_file(path, f"{where}.file", folder / file, "the alternative solution")
        result.append(AlternativeSpec(file, fields.get("description", str)))
    _unique(path, "alternatives", [a.file for a in result])
    return tuple(result)


def _requirements(
    path: Path, top: _Fields, tests: tuple[TestSpec, ...], mutants: tuple[MutantSpec, ...]
) -> tuple[RequirementSpec, ...]:
    """The audit table: every requirement of the instructions, the tests that check it and the
    mutants that prove it. A mutant listed for a requirement may lose only that requirement's
    tests, and every test checks some requirement."""
    result = []
    test_names = {t.name for t in tests}
    by_file = {m.file: m for m in mutants}
    for where, item in _items(path, top, "requirements", required=False):
        fields = _Fields(path, item, where, ("id", "text", "tests", "mutants", "no_mutant"))
        req_id = fields.get("id", str)
        if not SLUG_RE.match(req_id):
            raise SpecError(path, f"{where}.id", f"'{req_id}' is not a slug", "e.g. keeps-dtype")
        checked_by = fields.names("tests")
        if not checked_by:
            raise SpecError(path, f"{where}.tests", "is empty", "name the tests that check it")
        for name in checked_by:
            if name not in test_names:
                close = difflib.get_close_matches(name, sorted(test_names), n=1)
                raise SpecError(
                    path,
                    f"{where}.tests",
                    f"'{name}' is not a listed test",
                    f"did you mean '{close[0]}'?" if close else "list it under `tests` first",
                )
        proven_by = fields.names("mutants", default=())
        for file in proven_by:
            mutant = by_file.get(file)
            if mutant is None:
                raise SpecError(
                    path, f"{where}.mutants", f"'{file}' is not a listed mutant", "list it first"
                )
            outside = sorted(set(mutant.must_fail) - set(checked_by))
            if outside:
                raise SpecError(
                    path,
                    f"{where}.mutants",
                    f"{file} must fail {', '.join(outside)}, which do not check '{req_id}'",
                    "a mutant of one requirement loses only that requirement's tests",
                )
        no_mutant = fields.get("no_mutant", str, "")
        if not proven_by and not no_mutant.strip():
            raise SpecError(
                path,
                where,
                f"'{req_id}' has no mutant",
                "add one under `mutants:`, or say why none can be written in `no_mutant:`",
            )
        result.append(
            RequirementSpec(req_id, fields.get("text", str), checked_by, proven_by, no_mutant)
        )
    _unique(path, "requirements", [r.id for r in result])
    if result:
        covered = {name for r in result for name in r.tests}
        for test in tests:
            if test.name not in covered:
                raise SpecError(
                    path,
                    "requirements",
                    f"{test.name} checks no requirement",
                    "add it to the tests of the requirement it checks",
                )
    return tuple(result)


def _one_of(name: str, names: set[str]) -> str:
    """The fix for a name that is not one of ``names``: the closest one, and all of them."""
    close = difflib.get_close_matches(name, sorted(names), n=1)
    listed = f"use one of: {', '.join(sorted(names))}"
    return f"did you mean '{close[0]}'? ({listed})" if close else listed


def _unique(path: Path, where: str, names: list[str]) -> None:
    seen = set()
    for name in names:
        if name in seen:
            raise SpecError(path, where, f"'{name}' appears twice", "keep one entry per name")
        seen.add(name)
