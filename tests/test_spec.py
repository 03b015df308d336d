"""The exercise spec loader: strict, and every error names the file, the field and the fix."""

from __future__ import annotations

import copy
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from grader import wire
from grader.authoring.scaffold import scaffold
from grader.catalog import Catalog, project_root
from grader.errors import ExitCode, SpecError, UsageError
from grader.specfile import MAX_LIMITS
from grader.yamlfields import YamlFields
from tests.conftest import PROBE_HOME


@pytest.fixture
def catalog(tmp_path: Path) -> Catalog:
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    catalog = Catalog(tmp_path)
    scaffold(catalog, "exercise-42", "scaling")
    return catalog


def spec_file(catalog: Catalog) -> Path:
    return catalog.exercises_dir / "exercise-42" / "exercise.yaml"


def edit(catalog: Catalog, old: str, new: str) -> None:
    path = spec_file(catalog)
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def load_error(catalog: Catalog) -> SpecError:
    with pytest.raises(SpecError) as info:
        catalog.resolve("42")
    error = info.value
    assert error.exit_code == ExitCode.USAGE
    assert str(spec_file(catalog)) in error.format() or error.path.endswith(".py")
    return error


def test_scaffold_loads(catalog):
    spec = catalog.resolve("exercise-42")
    assert spec.id == "exercise-42" and spec.slug == "scaling"
    assert spec.max_points == 3
    assert [t.name for t in spec.tests] == ["test_scale_values", "test_scale_keeps_dtype"]
    assert all(t.takes_device for t in spec.tests)


@pytest.mark.parametrize("ident", ["exercise-42", "42", "scaling", " 42 ", "Exercise-42"])
def test_id_forms(catalog, ident):
    assert catalog.resolve(ident).id == "exercise-42"


def test_unknown_id_suggests(catalog):
    with pytest.raises(UsageError) as info:
        catalog.resolve("scalingg")
    assert "scaling" in info.value.format()
    assert info.value.exit_code == ExitCode.USAGE


def test_unknown_key_suggests_the_closest(catalog):
    edit(catalog, "concepts:", "concept:")
    error = load_error(catalog)
    assert error.field == "concept"
    assert "unknown key" in error.problem
    assert "did you mean 'concepts'" in error.format()


def test_missing_field(catalog):
    edit(catalog, "kind: implement\n", "")
    error = load_error(catalog)
    assert error.field == "kind" and error.problem == "missing"


def test_bad_type_names_the_nested_field(catalog):
    edit(catalog, "    points: 2\n", "    points: two\n")
    error = load_error(catalog)
    assert error.field == "tests[0].points"
    assert "expected a whole number" in error.problem


def test_boolean_is_not_a_number(catalog):
    edit(catalog, "    points: 2\n", "    points: true\n")
    assert load_error(catalog).field == "tests[0].points"


@pytest.mark.parametrize(
    ("points", "problem"),
    [("-1", "is negative"), ("1000001", "is out of range"), ("9" * 32, "is out of range")],
)
def test_a_tests_points_are_bounded(catalog, points, problem):
    """Scores add up as floats: a test worth 10**32 points hid a lost one (100% with a test
    failed). A test's points are 0 to a million."""
    edit(catalog, "    points: 2\n", f"    points: {points}\n")
    error = load_error(catalog)
    assert error.field.endswith(".points") and problem in error.format()


def test_duplicate_key_is_an_error(catalog):
    edit(catalog, "kind: implement\n", "kind: implement\nkind: fix\n")
    error = load_error(catalog)
    assert "duplicate key 'kind'" in error.problem


def test_malformed_yaml_gives_the_line(catalog):
    edit(catalog, "concepts: [elementwise]", "concepts: [elementwise")
    error = load_error(catalog)
    assert "invalid YAML at line" in error.problem


def test_missing_chinese_text(catalog):
    edit(catalog, '  zh: "缩放张量"\n', "")
    error = load_error(catalog)
    assert error.field == "title.zh"


def test_wrong_kind(catalog):
    edit(catalog, "kind: implement", "kind: implemnt")
    error = load_error(catalog)
    assert "use one of: implement, fix" in error.format()


def test_id_must_match_the_folder(catalog):
    edit(catalog, "id: exercise-42", "id: exercise-43")
    error = load_error(catalog)
    assert error.field == "id" and "does not match its folder" in error.problem


def test_unsupported_format_version(catalog):
    edit(catalog, "format_version: 1", "format_version: 2")
    assert load_error(catalog).field == "format_version"


def test_missing_mutant_file(catalog):
    (catalog.exercises_dir / "exercise-42" / "mutants" / "adds.py").unlink()
    error = load_error(catalog)
    assert error.field == "mutants[0].file" and "does not exist" in error.problem


def test_missing_solution(catalog):
    (catalog.solutions_dir / "exercise-42" / "exercise-42.py").unlink()
    assert "reference solution" in load_error(catalog).problem


def test_listed_test_without_a_def(catalog):
    edit(catalog, "name: test_scale_keeps_dtype", "name: test_scale_keeps_dtypes")
    error = load_error(catalog)
    assert "has no `def test_scale_keeps_dtypes`" in error.problem


def test_def_without_a_listing(catalog):
    tests = catalog.exercises_dir / "exercise-42" / "tests.py"
    tests.write_text(tests.read_text() + "\n\ndef test_extra(learner):\n    pass\n")
    error = load_error(catalog)
    assert "defines test_extra but `tests` does not list it" in error.problem


def test_mutant_must_name_listed_tests(catalog):
    edit(catalog, "must_fail: [test_scale_keeps_dtype]", "must_fail: [test_nope]")
    error = load_error(catalog)
    assert error.field == "mutants[2].must_fail"


@pytest.mark.parametrize(
    "file",
    [
        "{root}/exercises/x.py",
        "../exercise-41/mutants/adds.py",
        "mutants/../../x.py",
        "mutants\\a.py",
    ],
)
def test_a_mutant_file_lies_inside_the_exercise(catalog, file):
    """`file: /abs/path.py` or `../other-exercise/...` loaded (the file existed), and
    `grade validate` graded another exercise's file as this one's mutant; a Windows path
    named a file of its own on every other system."""
    for place in ("exercises/exercise-41/mutants/adds.py", "exercises/x.py"):
        (catalog.root / place).parent.mkdir(parents=True, exist_ok=True)
        (catalog.root / place).write_text("def scale(x, factor):\n    return x + factor\n")
    (catalog.exercises_dir / "exercise-42" / "mutants\\a.py").write_text("")
    edit(catalog, "  - file: mutants/adds.py\n", f"  - file: '{file.format(root=catalog.root)}'\n")
    assert load_error(catalog).field == "mutants[0].file"


def test_mutant_and_alternative_files_from_any_path(tmp_path):
    """Whatever path an author gives a mutant, the spec loads with a file inside the exercise's
    folder, or is refused naming that field."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    folder = tmp_path / "exercises" / "exercise-42"
    path = folder / "exercise.yaml"
    original = path.read_text(encoding="utf-8")
    (tmp_path / "x.py").write_text("")

    @settings(max_examples=150, deadline=None)
    @example(file="../../x.py")
    @example(file="./mutants/adds.py")
    @given(
        file=st.lists(
            st.sampled_from(["..", ".", "", "/", "mutants", "adds.py", "x.py", "\\", "a b"]),
            min_size=1,
            max_size=6,
        ).map("/".join)
    )
    def check(file: str) -> None:
        quoted = file.replace("'", "''")
        path.write_text(
            original.replace("  - file: mutants/adds.py\n", f"  - file: '{quoted}'\n", 1),
            encoding="utf-8",
        )
        try:
            spec = Catalog(tmp_path).resolve("42")
        except SpecError as exc:
            assert exc.field == "mutants[0].file", exc.format()
            return
        mutant = (folder / spec.mutants[0].file).resolve()
        assert mutant.is_relative_to(folder.resolve()) and mutant.is_file()

    check()


def test_negative_limits(catalog):
    edit(catalog, "devices: [cpu, cuda]", "devices: [cpu, cuda]\nlimits: {call_timeout_s: -1}")
    assert load_error(catalog).field == "limits.call_timeout_s"


@pytest.mark.parametrize("value", [".nan", ".inf", "-.nan", "9" * 400, "1.0e+400", "1e12"])
@pytest.mark.parametrize("name", ["call_timeout_s", "total_timeout_s", "memory_mb"])
def test_limits_are_finite_and_bounded(catalog, name, value):
    """YAML reads `.nan` and `.inf` as numbers: a NaN deadline is never reached (every
    comparison with it is false), and 400 nines crashed the loader (OverflowError)."""
    edit(catalog, "devices: [cpu, cuda]", f"devices: [cpu, cuda]\nlimits: {{{name}: {value}}}")
    assert load_error(catalog).field == f"limits.{name}"


def _yaml_number(value: float | int) -> str:
    if isinstance(value, float) and math.isnan(value):
        return ".nan"
    if isinstance(value, float) and math.isinf(value):
        return ".inf" if value > 0 else "-.inf"
    return repr(value)


def test_limits_from_any_number(tmp_path):
    """Whatever number an author writes for a limit, the spec loads with a finite limit in
    range, or is refused naming that limit: never a crash, a NaN or an endless deadline."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    path = tmp_path / "exercises" / "exercise-42" / "exercise.yaml"
    original = path.read_text(encoding="utf-8")

    @settings(max_examples=150, deadline=None)
    @given(
        name=st.sampled_from(sorted(MAX_LIMITS)),
        value=st.one_of(
            st.floats(),
            st.integers(),
            st.integers(min_value=10**300, max_value=10**1000),
            st.sampled_from([".nan", ".NaN", ".inf", "-.Inf", "0o777", "0x10", "1_000", "yes"]),
        ),
    )
    def check(name: str, value: float | int | str) -> None:
        written = value if isinstance(value, str) else _yaml_number(value)
        text = original.replace(
            "devices: [cpu, cuda]", f"devices: [cpu, cuda]\nlimits: {{{name}: {written}}}", 1
        )
        path.write_text(text, encoding="utf-8")
        try:
            spec = Catalog(tmp_path).resolve("42")
        except SpecError as exc:
            assert exc.field == f"limits.{name}", exc.format()
            return
        limit = getattr(spec.limits, name)
        assert math.isfinite(limit) and 0 < limit <= MAX_LIMITS[name]

    check()


def _paths(data: object, at: tuple = ()) -> list[tuple]:
    """Every place in a loaded YAML document: the keys and indices that lead to it."""
    found = [at] if at else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*at, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*at, index))
    return found


YAML_LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(min_value=10**300, max_value=10**400),
    st.floats(),
    st.text(max_size=12),
    st.dates(),
    st.sampled_from(["exercise-42", "test_scale_values", "cpu", "meta", "mutants/adds.py", ".."]),
)
YAML_VALUES = st.recursive(
    YAML_LEAVES,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["en", "zh", "name", "file", "x"]), inner, max_size=3)
    ),
    max_leaves=6,
)


def test_a_spec_with_any_value_in_any_place_loads_or_is_a_spec_error(tmp_path):
    """Any value (a date, NaN, a number of 400 digits, a mapping) put in any place of a
    spec, or that place left out: the spec loads with every limit finite, or is a SpecError;
    never another exception."""
    import yaml

    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    path = tmp_path / "exercises" / "exercise-42" / "exercise.yaml"
    original = yaml.safe_load(path.read_text(encoding="utf-8"))
    original["limits"] = {"call_timeout_s": 5, "memory_mb": 100}
    places = _paths(original)

    @settings(max_examples=300, deadline=None)
    @example(place=("limits", "call_timeout_s"), value=10**400, drop=False)
    @example(place=("limits", "call_timeout_s"), value=math.nan, drop=False)
    @given(place=st.sampled_from(places), value=YAML_VALUES, drop=st.booleans())
    def check(place: tuple, value: object, drop: bool) -> None:
        data = copy.deepcopy(original)
        parent = data
        for step in place[:-1]:
            parent = parent[step]
        if drop and isinstance(parent, dict):
            del parent[place[-1]]
        else:
            parent[place[-1]] = value
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        try:
            spec = Catalog(tmp_path).resolve("42")
        except SpecError:
            return
        assert all(math.isfinite(getattr(spec.limits, name)) for name in MAX_LIMITS)

    check()


def test_unknown_device(catalog):
    edit(catalog, "devices: [cpu, cuda]", "devices: [cpu, tpu]")
    assert load_error(catalog).field == "devices[1]"


def test_duplicate_slugs_across_exercises(catalog):
    scaffold(catalog, "exercise-43", "scaling")
    with pytest.raises(SpecError) as info:
        catalog.all()
    assert "also the slug of exercise-42" in info.value.problem


def test_syntax_error_in_hidden_tests_is_a_spec_error(catalog):
    (catalog.exercises_dir / "exercise-42" / "tests.py").write_text("def test_x(:\n")
    assert "syntax error" in load_error(catalog).problem


@pytest.mark.parametrize(
    ("place", "data"),
    [
        ("exercises/exercise-42/tests.py", b"# caf\xe9\ndef test_x(device): pass\n"),
        ("exercises/exercise-42/exercise-42.py", b"# caf\xe9\n"),
        ("solutions/exercise-42/exercise-42.py", b"# caf\xe9\n"),
    ],
)
def test_a_course_file_not_in_utf8_is_a_spec_error(catalog, place, data):
    """A hidden test file in Latin-1 crashed `grade validate` (UnicodeDecodeError, exit 3), a
    reference solution in it every `grade ID`, a starter in it `grade validate` later on."""
    path = catalog.root / place
    path.write_bytes(data + path.read_bytes())
    error = load_error(catalog)
    assert error.path == str(path) and "not UTF-8 text" in error.problem


def test_hidden_tests_with_a_bom_load(catalog):
    """Python reads a file that starts with a UTF-8 BOM; it was "invalid non-printable
    character U+FEFF" at line 1."""
    path = catalog.exercises_dir / "exercise-42" / "tests.py"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert catalog.resolve("42").id == "exercise-42"


@pytest.mark.parametrize("source", [b"x = " + b"-" * 200_000 + b"1\n", b"def test_x(): pass\x00\n"])
def test_hidden_tests_python_cannot_parse(catalog, source):
    """A file nested past the parser's limits was a MemoryError (exit 3); a NUL byte's syntax
    error said "at line None"."""
    (catalog.exercises_dir / "exercise-42" / "tests.py").write_bytes(source)
    error = load_error(catalog)
    assert error.path.endswith("tests.py") and "None" not in error.problem


def test_course_python_files_from_any_bytes(tmp_path):
    """Whatever bytes the hidden tests, the starter or the reference hold, the spec loads or
    is a SpecError naming that file."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    places = [
        tmp_path / "exercises" / "exercise-42" / "tests.py",
        tmp_path / "exercises" / "exercise-42" / "exercise-42.py",
        tmp_path / "solutions" / "exercise-42" / "exercise-42.py",
    ]
    originals = {place: place.read_bytes() for place in places}

    @settings(max_examples=150, deadline=None)
    @given(
        place=st.sampled_from(places),
        prefix=st.one_of(
            st.binary(max_size=64),
            st.text(max_size=64).map(lambda t: t.encode("utf-8", "surrogatepass")),
            st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"# -*- coding: latin-1 -*-\n"]),
        ),
    )
    def check(place: Path, prefix: bytes) -> None:
        for other, data in originals.items():
            other.write_bytes(data)
        place.write_bytes(prefix + originals[place])
        try:
            Catalog(tmp_path).resolve("42")
        except SpecError as exc:
            assert exc.path in (str(place), str(places[0].parent / "exercise.yaml")), exc.format()

    check()


def test_a_course_file_is_checked_as_pytest_reads_it(tmp_path):
    """Hidden tests in GBK that say so load (their comments as Python reads them), and a test that only UTF-7 reveals is found as pytest finds it: the spec's checks
    read what pytest runs."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    tests = tmp_path / "exercises" / "exercise-42" / "tests.py"
    text = tests.read_text(encoding="utf-8")
    tests.write_bytes(("# -*- coding: gbk -*-\n# 给初学者的练习\n" + text).encode("gbk"))
    spec = Catalog(tmp_path).resolve("42")
    assert spec.tests  # loads; and what reads it before a grading or a validation does too
    from grader.authoring.validate import check_language
    from grader.engine.warmup import preloads

    assert preloads([spec]) == {"dynamo": False, "hypothesis": False}
    assert check_language(spec).ok
    # in UTF-7, "+AAo-" is a line break: the listed test exists only as pytest reads the file
    hidden = text.replace("def test_scale_keeps_dtype", "# BREAKdef test_scale_keeps_dtype", 1)
    assert hidden != text
    data = ("# coding: utf-7\n" + hidden).encode("utf-7").replace(b"BREAK", b"+AAo-")
    tests.write_bytes(data)
    assert Catalog(tmp_path).resolve("42").tests


def test_manifest_per_device(catalog):
    spec = catalog.resolve("42")
    both = spec.manifest(("cpu", "cuda"))
    assert [(t.name, d) for t, d in both] == [
        ("test_scale_values", "cpu"),
        ("test_scale_values", "cuda"),
        ("test_scale_keeps_dtype", "cpu"),
        ("test_scale_keeps_dtype", "cuda"),
    ]
    assert {d for _, d in spec.manifest(("cuda",))} == {"cuda"}


def test_device_independent_tests_run_with_the_cpu():
    spec = Catalog(PROBE_HOME).resolve("90")
    independent = {t.name for t in spec.tests if not t.takes_device}
    assert independent, "the probe exercise should have a device-independent test"
    assert independent <= {t.name for t, d in spec.manifest(("cpu",)) if d is None}
    # a CUDA pass (batch on a GPU machine) grades only CUDA cases: no test is graded twice
    assert {d for _, d in spec.manifest(("cuda",))} == {"cuda"}


def test_every_curriculum_exercise_loads():
    specs = Catalog(project_root()).all()
    assert specs, "no exercises found"
    for spec in specs:
        assert spec.max_points > 0
        assert spec.solution_path.is_file()


# -- the audit table: requirements, their tests and their mutants ------------------------------


def test_scaffold_has_an_audit_table(catalog):
    spec = catalog.resolve("42")
    assert [r.id for r in spec.requirements] == ["multiplies", "leaves-input", "keeps-dtype"]
    assert spec.test("test_scale_keeps_dtype").input_check is False
    assert spec.test("test_scale_values").input_check is True


def test_requirement_naming_an_unknown_test(catalog):
    edit(catalog, "tests: [test_scale_keeps_dtype]", "tests: [test_scale_keep_dtype]")
    error = load_error(catalog)
    assert error.field == "requirements[2].tests"
    assert "did you mean 'test_scale_keeps_dtype'" in error.format()


def test_requirement_mutant_losing_other_tests(catalog):
    edit(catalog, "mutants: [mutants/float32_always.py]", "mutants: [mutants/adds.py]")
    error = load_error(catalog)
    assert "mutants/adds.py must fail test_scale_values" in error.problem


def test_requirement_without_mutant_says_why(catalog):
    edit(catalog, "    mutants: [mutants/float32_always.py]\n", "")
    error = load_error(catalog)
    assert "'keeps-dtype' has no mutant" in error.problem
    edit(
        catalog,
        "    tests: [test_scale_keeps_dtype]\n",
        "    tests: [test_scale_keeps_dtype]\n    no_mutant: needs a GPU\n",
    )
    assert catalog.resolve("42").requirements[2].no_mutant == "needs a GPU"


def test_every_test_checks_a_requirement(catalog):
    edit(catalog, "    tests: [test_scale_keeps_dtype]\n", "    tests: [test_scale_values]\n")
    edit(catalog, "mutants: [mutants/float32_always.py]", "no_mutant: none")
    assert "test_scale_keeps_dtype checks no requirement" in load_error(catalog).problem


def test_input_check_must_be_a_boolean(catalog):
    edit(catalog, "input_check: false", "input_check: no-thanks")
    assert load_error(catalog).field == "tests[1].input_check"


YAML_11_NOT_TEXT = [
    "yes", "No", "ON", "off", "true", "False",  # booleans
    "0123", "1_000", "1:30", "0x1F", "+1", "12", "1.10", ".5", "1.0e+3", "-.inf",  # numbers
    "~", "null",  # null
]  # fmt: skip


@given(
    scalar=st.sampled_from(YAML_11_NOT_TEXT),
    in_list=st.booleans(),
)
def test_text_yaml_reads_as_another_kind_is_told_to_be_quoted(tmp_path_factory, scalar, in_list):
    """YAML 1.1 reads an unquoted ``no`` as false and ``0123`` as the octal 83: an author who
    wrote ``learner_file: 0123`` was told "expected a string, got a number (83)", a value they
    never wrote, with the fix "give `learner_file` as a string", which they thought they had.
    The fix says to quote the text, and why; quoted, it reads as written."""
    path = tmp_path_factory.mktemp("yaml") / "file.yaml"
    fields = YamlFields(path, wire.load_yaml(f"k: {scalar}\nl: [{scalar}]\n"), "", ("k", "l"))
    with pytest.raises(SpecError) as caught:
        fields.names("l") if in_list else fields.get("k", str)
    assert "quotes" in str(caught.value.fix), caught.value.fix
    quoted = YamlFields(path, wire.load_yaml(f"k: '{scalar}'\nl: ['{scalar}']\n"), "", ("k", "l"))
    assert quoted.get("k", str) == scalar
    assert quoted.names("l") == (scalar,)


FILE_NAMES = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",)), max_size=20).map(lambda t: t + ".py"),
    st.integers(250, 5000).map(lambda n: "a" * n + ".py"),  # past the file system's NAME_MAX
    st.integers(1, 40).map(lambda n: "/".join(["d" * 250] * n) + ".py"),  # past PATH_MAX
    st.sampled_from(["a\0.py", "\x1b[2J.py", "../exercise-41.py", "/etc/passwd", "a\\b.py"]),
)


def test_a_course_file_of_any_name_loads_or_is_a_spec_error(tmp_path):
    """Any name in any field that names a file of the exercise (a name longer than the file
    system allows, a NUL byte, a path): the spec loads, or is a SpecError naming that field.
    ``learner_file: aaa...a.py`` past 255 bytes was "internal error in the grader" (the file
    system's ENAMETOOLONG out of ``Path.is_file``) in every command that lists exercises."""
    import yaml

    (tmp_path / "exercises").mkdir()
    (tmp_path / "solutions").mkdir()
    scaffold(Catalog(tmp_path), "exercise-42", "scaling")
    path = tmp_path / "exercises" / "exercise-42" / "exercise.yaml"
    original = yaml.safe_load(path.read_text(encoding="utf-8"))
    places = [("learner_file",), ("test_file",), ("mutants", 0, "file")]
    if original.get("alternatives"):
        places.append(("alternatives", 0, "file"))

    @settings(max_examples=60, deadline=None)
    @example(place=("learner_file",), name="a" * 300 + ".py")
    @example(place=("test_file",), name="a\n.py")
    @given(place=st.sampled_from(places), name=FILE_NAMES)
    def check(place: tuple, name: str) -> None:
        data = copy.deepcopy(original)
        parent = data
        for step in place[:-1]:
            parent = parent[step]
        parent[place[-1]] = name
        path.write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        try:
            Catalog(tmp_path).resolve("42")
        except SpecError as exc:
            assert exc.field == ".".join(str(p) for p in place).replace(".0.", "[0].")
            assert "\n" not in exc.message and len(exc.message) < 1000

    check()
