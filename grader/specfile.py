"""Loading an exercise spec: ``exercises/<id>/exercise.yaml`` into :class:`ExerciseSpec`.

Read with :mod:`grader.yamlfields` (strict: unknown keys, wrong types and duplicate keys are
SpecErrors naming the file, the field and the fix), then checked as a whole: every file it names
exists, every listed test is a ``def`` in the test file and every ``def test_*`` is listed, the
mutants and requirements refer to listed tests. Never imports torch.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import replace
from pathlib import Path, PurePosixPath
from typing import Any

from grader import wire
from grader.errors import SpecError
from grader.fileio import is_regular_file
from grader.spec import (
    DEVICES,
    FORMAT_VERSION,
    ID_RE,
    KINDS,
    NAME_RE,
    SLUG_RE,
    SPEC_FILE,
    TEST_DEVICES,
    AlternativeSpec,
    ExerciseSpec,
    ForbiddenSpec,
    FunctionSpec,
    Limits,
    MutantSpec,
    RequirementSpec,
    TestSpec,
    Text,
)
from grader.text import python_encoding, shown, shown_line
from grader.yamlfields import YamlFields, read_yaml, text_value

# A test's points: scores add up as floats, and past 2**53 one lost point no longer shows
# (99999999999999999999999999999999 points for one test scored 100% with a test failed)
MAX_TEST_POINTS = 1_000_000

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
    top = YamlFields(path, read_yaml(path), "", _TOP_KEYS)

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
    # every later reader of these three takes them for UTF-8 text (validate, the warm-up's
    # look for hypothesis, a notebook's starter): a file in another encoding is said here
    _course_source(folder / learner_file, "the starter file")
    _course_source(solution, "the reference solution")

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


def _fixes(path: Path, top: YamlFields) -> tuple[tuple[str, Text], ...]:
    """``diagnoses: {id: {fix: {en, zh}}}``: a diagnosis's fix for this exercise (the ids are
    checked against the catalogue by ``grade validate``)."""
    raw = top.get("diagnoses", dict, {})
    fixes = []
    for key, value in raw.items():
        where = f"diagnoses.{key}"
        if not isinstance(key, str) or not SLUG_RE.match(key):
            raise SpecError(path, where, "is not a diagnosis id", "use a catalogue id")
        fields = YamlFields(path, value, where, ("fix",))
        fixes.append((key, text_value(path, f"{where}.fix", fields.get("fix", dict))))
    return tuple(fixes)


def _require_file(path: Path, where: str | None, target: Path, what: str) -> None:
    """``target`` is a regular file; a name the file system cannot look at (longer than it
    allows, a NUL byte, a link loop) is none, where ``Path.is_file`` raised ENAMETOOLONG."""
    if not is_regular_file(target):
        shown_target = shown_line(str(target))
        raise SpecError(
            path, where, f"{what} {shown_target} does not exist", f"create {shown_target}"
        )


def _own_file(path: Path, where: str, file: str) -> str:
    """A mutant's or an alternative's file: a relative path to a ``.py`` file inside the
    exercise's folder. `/tmp/x.py` or `../exercise-08/mutants/x.py` loaded, and `grade validate`
    graded a file of another exercise, or none of the course, as this one's mutant (the check
    for files the folder holds never saw it). Written one way only (`./mutants/x.py` is
    `mutants/x.py`), since requirements and that check name it by its text."""
    parts = PurePosixPath(file).parts
    if not file.endswith(".py") or "\\" in file or not parts or parts[0] == "/" or ".." in parts:
        raise SpecError(
            path,
            where,
            f"{shown(file)[:80]!r} is not a .py file inside the exercise's folder",
            "give its path from the exercise's folder, e.g. mutants/no_keepdim.py",
        )
    plain = PurePosixPath(file).as_posix()
    if plain != file:
        raise SpecError(path, where, f"{shown(file)[:80]!r} is written oddly", f"write {plain}")
    return file


def _course_source(target: Path, what: str) -> str:
    """A Python file of the course as the text Python (and so pytest) reads: UTF-8 (a BOM
    allowed, as Python allows it), or the encoding its coding declaration names; else a
    SpecError naming the file. A hidden test file in Latin-1 crashed ``grade validate``, a
    reference solution in it every ``grade ID``, and a BOM read as a syntax error at line 1;
    one that declared Latin-1 was checked as UTF-8 while pytest ran it as Latin-1."""
    try:
        data = target.read_bytes()
    except OSError as exc:
        raise SpecError(
            target, None, f"cannot read {what} ({exc.strerror or exc})", "check its permissions"
        ) from None
    encoding = python_encoding(data)
    try:
        return wire.utf8(data) if encoding == "utf-8" else data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise SpecError(
            target,
            None,
            f"not {'UTF-8' if encoding == 'utf-8' else encoding} text "
            f"(a bad byte at offset {exc.start})",
            f"save {what} as UTF-8",
        ) from None
    except (UnicodeError, ValueError) as exc:  # a codec that reports no offset (idna)
        raise SpecError(
            target, None, f"not {encoding} text ({type(exc).__name__})", f"save {what} as UTF-8"
        ) from None


def _check_subset(path: Path, where: str, values: tuple, allowed: tuple) -> None:
    for i, value in enumerate(values):
        if value not in allowed:
            raise SpecError(
                path, f"{where}[{i}]", f"'{value}' is not supported", f"use: {', '.join(allowed)}"
            )
    if len(set(values)) != len(values):
        raise SpecError(path, where, "lists a value twice", "list each once")


def _items(path: Path, top: YamlFields, key: str, required: bool = True) -> list[tuple[str, Any]]:
    raw = top.get(key, list, ... if required else [], fix=f"add a `{key}:` list")
    if required and not raw:
        raise SpecError(path, key, "is empty", f"add at least one entry to `{key}`")
    return [(f"{key}[{i}]", item) for i, item in enumerate(raw)]


def _functions(path: Path, top: YamlFields) -> tuple[FunctionSpec, ...]:
    result = []
    for where, item in _items(path, top, "functions"):
        fields = YamlFields(path, item, where, ("name", "signature", "summary"))
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


def _tests(path: Path, top: YamlFields, functions: set[str]) -> tuple[TestSpec, ...]:
    result = []
    for where, item in _items(path, top, "tests"):
        fields = YamlFields(
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
        if not 0 <= points <= MAX_TEST_POINTS:
            raise SpecError(
                path,
                f"{where}.points",
                f"{points} is out of range" if points >= 0 else "is negative",
                f"use 0 to {MAX_TEST_POINTS}",
            )
        devices = fields.names("devices", default=None)
        if devices is not None:
            _check_subset(path, f"{where}.devices", devices, TEST_DEVICES)
            if not devices:
                raise SpecError(path, f"{where}.devices", "is empty", "name at least one device")
        used = _named_functions(path, where, fields, functions)
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
    source = _course_source(test_path, "the hidden tests")
    try:
        tree = ast.parse(source, filename=str(test_path))
    except SyntaxError as exc:  # a NUL byte too: its error has no line
        at = f" at line {exc.lineno}" if exc.lineno else ""
        raise SpecError(
            test_path, None, f"syntax error{at}: {exc.msg}", "fix the test file"
        ) from None
    except (ValueError, MemoryError, RecursionError):
        raise SpecError(
            test_path,
            None,
            "Python cannot parse the file (nested too deeply, or a NUL byte)",
            "fix the test file",
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


# The most each limit may be. YAML reads `.nan`, `.inf` and a number of 400 digits as numbers:
# a NaN deadline is never reached (every comparison with it is false: a learner's endless loop
# ran on), and a whole number past a float's range crashed the loader (OverflowError).
MAX_LIMITS = {
    "call_timeout_s": 3600.0,  # an hour for one call
    "total_timeout_s": 86400.0,  # a day for one grading
    "memory_mb": 1 << 20,  # a TiB
    "output_kb": 1 << 20,  # a GiB
}


def _limits(path: Path, top: YamlFields) -> Limits:
    raw = top.get("limits", dict, {})
    fields = YamlFields(path, raw, "limits", tuple(Limits.__dataclass_fields__))
    defaults = Limits()
    values = {}
    for name in Limits.__dataclass_fields__:
        default = getattr(defaults, name)
        kind = (int, float) if isinstance(default, float) else int
        value = fields.get(name, kind, default)
        if value <= 0:
            raise SpecError(path, f"limits.{name}", "must be positive", "use a positive number")
        most = MAX_LIMITS[name]
        if not value <= most:  # NaN and infinity too: no comparison with them holds
            raise SpecError(
                path,
                f"limits.{name}",
                f"{shown(str(value))[:40]} is out of range",
                f"use a positive number, at most {most:g}",
            )
        values[name] = type(default)(value)
    return Limits(**values)


FORBIDDEN_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


def _named_functions(
    path: Path, where: str, fields: YamlFields, functions: set[str]
) -> tuple[str, ...]:
    """The entry's ``functions``, each one the spec declares under `functions`."""
    used: tuple[str, ...] = fields.names("functions", default=())
    for fn in used:
        if fn not in functions:
            raise SpecError(
                path, f"{where}.functions", f"'{fn}' is not in `functions`", _one_of(fn, functions)
            )
    return used


def _forbidden(path: Path, top: YamlFields, functions: set[str]) -> tuple[ForbiddenSpec, ...]:
    result = []
    for where, item in _items(path, top, "forbidden", required=False):
        fields = YamlFields(path, item, where, ("name", "functions", "why"))
        used = _named_functions(path, where, fields, functions)
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


def _mutants(path: Path, top: YamlFields, folder: Path, tests: set[str]) -> tuple[MutantSpec, ...]:
    result = []
    for where, item in _items(path, top, "mutants", required=False):
        fields = YamlFields(path, item, where, ("file", "description", "must_fail", "diagnosis"))
        file = _own_file(path, f"{where}.file", fields.get("file", str))
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


def _alternatives(path: Path, top: YamlFields, folder: Path) -> tuple[AlternativeSpec, ...]:
    result = []
    for where, item in _items(path, top, "alternatives", required=False):
        fields = YamlFields(path, item, where, ("file", "description"))
        file = _own_file(path, f"{where}.file", fields.get("file", str))
        _require_file(path, f"{where}.file", folder / file, "the alternative solution")
        result.append(AlternativeSpec(file, fields.get("description", str)))
    _unique(path, "alternatives", [a.file for a in result])
    return tuple(result)


def _requirements(
    path: Path, top: YamlFields, tests: tuple[TestSpec, ...], mutants: tuple[MutantSpec, ...]
) -> tuple[RequirementSpec, ...]:
    """The audit table: every requirement of the instructions, the tests that check it and the
    mutants that prove it. A mutant listed for a requirement may lose only that requirement's
    tests, and every test checks some requirement."""
    result = []
    test_names = {t.name for t in tests}
    by_file = {m.file: m for m in mutants}
    for where, item in _items(path, top, "requirements", required=False):
        fields = YamlFields(path, item, where, ("id", "text", "tests", "mutants", "no_mutant"))
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
