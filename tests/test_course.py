"""Courses of their own (issue 16): a course folder outside this repository, chosen with
``--course``, ``GRADER_COURSE`` (``GRADER_HOME``) or the folder a command runs in, with its own
diagnoses, authored and checked with ``grade validate``, ``new``, ``preview`` and ``show``.

The fixture course (tests/fixtures/course-puzzles: two Tensor Puzzles, its own diagnoses.yaml
with one entry overriding a built-in one) is copied to a temporary folder first, so nothing
here can lean on the checkout's own course.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import course
from grader.authoring import language
from grader.authoring.templates import TEMPLATES
from grader.catalog import Catalog
from grader.cluster.fingerprint import differences, fingerprint
from grader.diagnose import CATALOGUE_PATH, DiagnosisCatalog
from grader.diagnose import _regex as diagnose_regex
from grader.digests import exercise_fingerprint
from grader.errors import SpecError, UsageError
from grader.results import Result
from tests.conftest import FIXTURES, cli_here, run_cli, watching
from tests.events import Ended, wait_until

PUZZLES = FIXTURES / "course-puzzles"


@pytest.fixture
def puzzles(tmp_path: Path) -> Path:
    """A copy of the puzzle course, outside the repository."""
    root = tmp_path / "puzzles"
    shutil.copytree(PUZZLES, root)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


# -- choosing the course ------------------------------------------------------------------------


def test_the_course_comes_from_the_variable_its_old_name_or_the_built_in_one(puzzles, monkeypatch):
    monkeypatch.delenv(course.ENV, raising=False)
    monkeypatch.delenv(course.LEGACY_ENV, raising=False)
    assert course.current().builtin
    monkeypatch.setenv(course.LEGACY_ENV, str(puzzles))
    assert course.current() == course.Course(puzzles.resolve(), "GRADER_HOME")
    monkeypatch.setenv(course.ENV, str(puzzles / "exercises"))  # the new name wins
    assert course.current().root == (puzzles / "exercises").resolve()
    monkeypatch.setenv(course.ENV, str(puzzles / "missing"))
    with pytest.raises(UsageError, match=r"GRADER_COURSE=.*missing: no such folder"):
        course.current()


def test_a_course_folder_is_found_from_the_current_folder(puzzles, monkeypatch):
    monkeypatch.setenv(course.ENV, "")  # recorded, so that what select() sets is undone
    monkeypatch.delenv(course.ENV)
    monkeypatch.delenv(course.LEGACY_ENV, raising=False)
    assert course.from_here(puzzles / "exercises") is None  # not a course
    found = course.from_here(puzzles)
    assert found is not None and found.root == puzzles.resolve()
    assert found.chosen_by == "this folder"
    assert course.current().root == puzzles.resolve()  # kept for what the command starts
    monkeypatch.setenv(course.ENV, str(puzzles))
    assert course.from_here(puzzles) is None  # a chosen course is never overridden


def test_every_command_takes_course_and_says_when_it_uses_the_current_folder(puzzles):
    proc = cli_here("list", "--course", str(puzzles))
    assert proc.returncode == 0, proc.stderr
    assert "exercise-21" in proc.stdout and "exercise-22" in proc.stdout
    assert "exercise-01" not in proc.stdout
    proc = cli_here("list", cwd=puzzles)
    assert proc.returncode == 0 and "exercise-21" in proc.stdout
    assert f"Using the course in {puzzles.resolve()}" in proc.stderr
    proc = cli_here("list", env_extra={"GRADER_COURSE": str(puzzles)})
    assert "exercise-21" in proc.stdout and "Using the course" not in proc.stderr
    proc = cli_here("list", "--course", str(puzzles / "nowhere"))
    assert proc.returncode == 2 and "--course" in proc.stderr and "no such folder" in proc.stderr


# -- the course's diagnoses ---------------------------------------------------------------------


def test_a_course_catalogue_extends_and_overrides_the_built_in_one(puzzles):
    builtin = DiagnosisCatalog.load()
    merged = DiagnosisCatalog.for_course(puzzles)
    assert merged.sources == (CATALOGUE_PATH, puzzles / "diagnoses.yaml")
    assert merged.ids() == builtin.ids() | {"prefix-sum-exclusive"}
    assert merged.get("forbidden-api").title.en.startswith("A puzzle rule broken")
    assert builtin.get("forbidden-api").title.en != merged.get("forbidden-api").title.en
    assert [e.id for e in merged.entries].count("forbidden-api") == 1
    assert DiagnosisCatalog.for_course(puzzles / "exercises") == builtin  # none of its own


def test_an_unknown_diagnosis_names_both_files_and_the_closest_id(puzzles):
    merged = DiagnosisCatalog.for_course(puzzles)
    sentence = merged.unknown("prefix-sum-exclusiv")
    assert sentence is not None
    assert str(puzzles / "diagnoses.yaml") in sentence and "grader/diagnoses.yaml" in sentence
    assert "did you mean 'prefix-sum-exclusive'?" in sentence
    assert merged.unknown("prefix-sum-exclusive") is None


def test_a_broken_course_catalogue_is_an_error_naming_its_file(puzzles):
    edit(puzzles / "diagnoses.yaml", "    evidence: [prefix_sum_exclusive]\n", "    evidense: []\n")
    with pytest.raises(SpecError) as raised:
        DiagnosisCatalog.for_course(puzzles)
    assert str(puzzles / "diagnoses.yaml") in raised.value.format()
    proc = cli_here("validate", "21", "--course", str(puzzles))
    assert proc.returncode == 2
    assert str(puzzles / "diagnoses.yaml") in proc.stderr


@pytest.mark.parametrize("pattern", ["a{4294967296}", "(" * 2000 + ")" * 2000, "x(", "a**"])
def test_a_course_diagnosis_pattern_python_cannot_compile_is_a_spec_error(puzzles, pattern):
    """`re.compile` raises OverflowError for a repetition past 2**32 and RecursionError for
    deep nesting, not `re.error`: `grade validate` stopped with an internal error (exit 3)."""
    edit(
        puzzles / "diagnoses.yaml",
        "    evidence: [prefix_sum_exclusive]\n",
        f"    evidence: [prefix_sum_exclusive]\n    exceptions:\n      - message: '{pattern}'\n",
    )
    with pytest.raises(SpecError) as raised:
        DiagnosisCatalog.for_course(puzzles)
    assert raised.value.field == "diagnoses[0].exceptions[0].message"


@settings(max_examples=200, deadline=None)
@given(
    pattern=st.one_of(
        st.text(alphabet="a(){}[]*+?|\\^$.0123456789,:-=!<>P", max_size=40),
        st.integers(min_value=0, max_value=10**12).map(lambda n: f"a{{{n}}}"),
        st.integers(min_value=1, max_value=3000).map(lambda n: "(" * n + ")" * n),
    )
)
def test_any_diagnosis_pattern_compiles_or_is_a_spec_error(pattern):
    """Whatever an author writes as an exception pattern, the catalogue reads it or refuses
    it naming the field: `_regex` is the one place a course's patterns are compiled."""
    try:
        compiled = diagnose_regex(Path("diagnoses.yaml"), "here", pattern)
    except SpecError as exc:
        assert exc.field == "here"
    else:
        assert compiled is not None


def test_an_engine_over_a_broken_course_catalogue_stops_what_it_started(puzzles):
    from grader.engine import LocalEngine

    edit(puzzles / "diagnoses.yaml", "    evidence: [prefix_sum_exclusive]\n", "    evidense: []\n")
    engine = LocalEngine(Catalog(puzzles))  # the catalogue is read as the engine starts
    with pytest.raises(SpecError) as raised, engine:
        pass
    assert str(puzzles / "diagnoses.yaml") in raised.value.format()
    assert engine._forkserver is None and engine._staging is None


def test_the_course_diagnoses_are_in_the_cache_key_and_the_cluster_fingerprint(puzzles):
    spec = Catalog(puzzles).resolve("21")
    key, ours = exercise_fingerprint(spec), fingerprint([spec])
    edit(puzzles / "diagnoses.yaml", "without the element itself.", "leaving itself out.")
    assert exercise_fingerprint(spec) != key
    theirs = fingerprint([spec])
    assert theirs["diagnoses"] != ours["diagnoses"]
    assert "the course's diagnoses.yaml" in differences(ours, theirs)


# -- grade validate on a course -----------------------------------------------------------------


@pytest.mark.slow
def test_the_puzzle_course_validates_and_verbose_shows_what_learners_see(
    validated_puzzles, puzzles
):
    """The course validated in its own folder (with a scaffolded exercise more: see
    tests/conftest.py), verbose; then one exercise of it, without --verbose."""
    proc = validated_puzzles.proc
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "✓ exercise-21: reference 6/6" in proc.stdout
    assert "✓ exercise-22: reference 5/5" in proc.stdout
    assert "3 exercises," in proc.stdout and "0 failed, 0 warnings" in proc.stdout
    # per mutant: its first failing test, the course's diagnosis and message, in both languages
    assert "mutant mutants/exclusive.py: test_prefix_sum_values[cpu] failed" in proc.stdout
    assert "en: [prefix-sum-exclusive] An exclusive prefix sum" in proc.stdout
    assert "zh: [prefix-sum-exclusive] 求的是不含自身的前缀和" in proc.stdout
    # the course's forbidden-api replaces the built-in one; cumsum_ is caught by a cumsum ban
    assert "en: [forbidden-api] A puzzle rule broken" in proc.stdout
    assert "(...).cumsum_ (line 2)" in proc.stdout
    quiet = run_cli("validate", "22", cwd=puzzles, timeout=600)
    assert quiet.returncode == 0 and "en: [" not in quiet.stdout


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_validate_one_exercise_still_runs_the_course_wide_checks(puzzles):
    edit(
        puzzles / "exercises/exercise-22/exercise.yaml",
        "slug: diag-and-bincount",
        "slug: prefix-sum",
    )
    edit(
        puzzles / "exercises/exercise-21/exercise.yaml",
        "diagnosis: prefix-sum-exclusive",
        "diagnosis: prefix-sum-exclusiv",
    )
    proc = run_cli("validate", "21", "--course", str(puzzles), timeout=600)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "exercises/exercise-21/exercise.yaml: slug 'prefix-sum' is also the slug of exercise-22 "
        "(exercises/exercise-22/exercise.yaml)" in proc.stdout
    )
    assert "exercises/exercise-21/exercise.yaml: mutants[1] (mutants/exclusive.py)" in proc.stdout
    assert "did you mean 'prefix-sum-exclusive'?" in proc.stdout
    assert str(puzzles / "diagnoses.yaml") in proc.stdout


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_another_exercise_that_no_longer_loads_fails_validate_id(puzzles):
    edit(puzzles / "exercises/exercise-22/exercise.yaml", "points: 1\n", "points: one\n")
    proc = run_cli("validate", "21", "--course", str(puzzles), timeout=600)
    assert proc.returncode == 1
    assert "✗ exercise-22" in proc.stdout and "exercise-22/exercise.yaml" in proc.stdout
    assert "such as `grade list`, fails until it is fixed" in proc.stdout


def test_a_typo_in_forbidden_functions_has_a_real_fix(puzzles):
    edit(
        puzzles / "exercises/exercise-21/exercise.yaml",
        "functions: [prefix_sum]\n    why",
        "functions: [prefix_sun]\n    why",
    )
    with pytest.raises(SpecError) as raised:
        Catalog(puzzles).load(puzzles / "exercises/exercise-21")
    text = raised.value.format()
    assert "forbidden[0].functions" in text and "exercise-21/exercise.yaml" in text
    assert "did you mean 'prefix_sum'?" in text and "fix it" not in text


def test_validate_device_cuda_without_cuda_is_a_usage_error(puzzles):
    if torch.cuda.is_available():
        pytest.skip("this machine has CUDA")
    proc = cli_here("validate", "22", "--device", "cuda", "--course", str(puzzles))
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "CUDA is not available on this machine" in proc.stderr
    assert "did not run" not in proc.stdout + proc.stderr


# -- the hidden tests' own exceptions ----------------------------------------------------------


def _break_tests(root: Path) -> int:
    """A NameError in exercise-22's tests.py; the line it is on."""
    path = root / "exercises/exercise-22/tests.py"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "for m, n in" in line) + 1
    lines.insert(at, "        undefined_helper(m)\n")
    path.write_text("".join(lines), encoding="utf-8")
    return at + 1


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_an_exception_in_tests_py_is_shown_once_with_its_traceback(puzzles):
    line = _break_tests(puzzles)
    proc = run_cli("validate", "22", "--course", str(puzzles), timeout=600)
    assert proc.returncode == 1
    out = proc.stdout
    assert out.count("Traceback (most recent call last)") == 1, out
    assert f'exercises/exercise-22/tests.py", line {line}, in test_bincount_values' in out
    assert "NameError: name 'undefined_helper' is not defined" in out
    assert "met by the reference, the starter" in out
    # the gradings it spoiled point at it instead of repeating it
    assert "the hidden tests raised an exception: see 'hidden tests'" in out


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_debug_shows_the_traceback_and_learners_never_see_it(puzzles, tmp_path):
    _break_tests(puzzles)
    answer = puzzles / "solutions/exercise-22/exercise-22.py"
    result = tmp_path / "result.json"
    learner = run_cli(
        "22", "--file", str(answer), "--json", str(result), "--no-report", "--course", str(puzzles)
    )
    assert learner.returncode == 3, learner.stdout + learner.stderr  # a grader fault
    data = result.read_text(encoding="utf-8")
    for seen in (learner.stdout, learner.stderr, data):
        assert (
            "Traceback" not in seen and "tests.py" not in seen and "undefined_helper(m)" not in seen
        )
    [broken] = [
        t
        for t in json.loads(data)["tests"]
        if t["name"] == "test_bincount_values" and t["status"] == "error"
    ]
    assert "could not finish" in broken["message"] and "NameError" in broken["message"]
    debug = run_cli("22", "--file", str(answer), "--no-report", "--debug", "--course", str(puzzles))
    assert debug.returncode == 3
    assert "Traceback (most recent call last)" in debug.stderr
    assert "exercises/exercise-22/tests.py" in debug.stderr and "NameError" in debug.stderr
    assert "Traceback" not in debug.stdout


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_watch_with_debug_shows_the_traceback_of_each_grading(puzzles, tmp_path):
    """`grade watch --debug` grades in its own process and shows the hidden tests' traceback
    on stderr after each grading, as `grade ID --debug` does; the summary stays clean."""
    _break_tests(puzzles)
    answer = tmp_path / "exercise-22.py"
    shutil.copyfile(puzzles / "solutions/exercise-22/exercise-22.py", answer)
    env = dict(os.environ, NO_COLOR="1", GRADE_LANG="en")
    with watching(
        *("22", "--file", str(answer), "--no-report", "--debug", "--interval", "0.2"),
        *("--course", str(puzzles)),
        env=env,
        cwd=tmp_path,
    ) as (proc, out, err):

        def tracebacks(n: int) -> Callable[[], bool]:
            return lambda: (
                proc.poll() is None
                and err.read_text().count("Traceback (most recent call last)") >= n
            )

        wait_until(tracebacks(1), err.read_text, on=[err, Ended(proc.pid)])
        answer.write_text(answer.read_text() + "\n# saved again\n")
        wait_until(tracebacks(2), err.read_text, on=[err, Ended(proc.pid)])
    shown = err.read_text()
    assert "exercises/exercise-22/tests.py" in shown and "NameError" in shown
    assert "Traceback" not in out.read_text() and "score" in out.read_text()


# -- preview, show, new -------------------------------------------------------------------------


def test_preview_renders_the_learners_view_without_a_workspace(puzzles, tmp_path):
    scan = puzzles / "exercises/exercise-21/alternatives/hillis_steele.py"
    proc = run_cli("preview", "21", "--file", str(scan), "--course", str(puzzles), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6/6" in proc.stdout
    mutant = puzzles / "exercises/exercise-21/mutants/exclusive.py"
    proc = run_cli(
        "preview",
        "21",
        "--file",
        str(mutant),
        "--lang",
        "zh",
        "--course",
        str(puzzles),
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert "求的是不含自身的前缀和" in proc.stdout  # the course's diagnosis, in Chinese
    assert not (tmp_path / ".grade").exists() and not (puzzles / ".grade").exists()


@pytest.mark.slow  # two previews; the fast tier keeps test_preview_renders_the_learners_view...
def test_preview_of_a_notebook_and_device_cuda_without_cuda(puzzles, tmp_path):
    """Preview reads a file as `grade ID --file` does (a notebook too), and `--device cuda`
    without CUDA is a usage error, not a preview of nothing."""
    import nbformat

    scan = (puzzles / "exercises/exercise-21/alternatives/hillis_steele.py").read_text()
    book = nbformat.v4.new_notebook()
    book.cells = [nbformat.v4.new_markdown_cell("# scan"), nbformat.v4.new_code_cell(scan)]
    path = tmp_path / "exercise-21.ipynb"
    nbformat.write(book, path)
    proc = run_cli("preview", "21", "--file", str(path), "--course", str(puzzles), cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "6/6" in proc.stdout
    if torch.cuda.is_available():
        return
    proc = run_cli("preview", "21", "--file", str(path), "--device", "cuda",
                   "--course", str(puzzles), cwd=tmp_path)  # fmt: skip
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "CUDA is not available on this machine" in proc.stderr


def test_show_lists_the_forbidden_apis_in_the_learners_language(puzzles):
    en = cli_here("show", "22", "--course", str(puzzles))
    assert "Restrictions:" in en.stdout
    assert "Not allowed in diag: diag in any spelling" in en.stdout
    assert "The puzzle is to count with a comparison and a sum." in en.stdout
    zh = cli_here("show", "22", "--lang", "zh", "--course", str(puzzles))
    assert "限制：" in zh.stdout and "bincount 中不允许使用" in zh.stdout
    assert "这道谜题要求你用比较和求和来计数。" in zh.stdout
    assert "Not allowed" not in zh.stdout


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_every_template_scaffolds_an_exercise_that_validates(tmp_path):
    root = tmp_path / "course"
    (root / "exercises").mkdir(parents=True)
    (root / "solutions").mkdir()
    for number, name in enumerate(TEMPLATES, start=31):
        proc = cli_here(
            "new", f"exercise-{number}", "--template", name, "--slug", f"t-{name}", cwd=root
        )
        assert proc.returncode == 0, proc.stderr
        assert f"created exercises/exercise-{number}/exercise.yaml" in proc.stdout
    assert sorted(TEMPLATES) == ["basic", "forbidden", "meta", "mistakes", "opcount", "property"]
    proc = run_cli("validate", cwd=root, timeout=600)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert f"{len(TEMPLATES)} exercises," in proc.stdout and "0 failed, 0 warnings" in proc.stdout
    proc = cli_here("new", "exercise-40", "--template", "nonesuch", cwd=root)
    assert proc.returncode == 2 and "nonesuch" in proc.stderr


# -- learner-facing text in both languages ------------------------------------------------------


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_validate_warns_about_english_in_the_zh_view(puzzles):
    edit(
        puzzles / "exercises/exercise-22/tests.py",
        'Text(f"diag(x) for x of shape ({n}, {n})", f"x 的形状为 ({n}, {n}) 时的 diag(x)")',
        'f"diag(x) for x of shape ({n}, {n})"',
    )
    edit(
        puzzles / "exercises/exercise-22/exercise.yaml",
        'zh: "用 arange 实现 diag 和 bincount"',
        'zh: "diag and bincount from arange"',
    )
    warnings = language.tests_warnings(
        (puzzles / "exercises/exercise-22/tests.py").read_text(encoding="utf-8"), "tests.py"
    )
    assert len(warnings) == 1 and "a `what` is a plain string" in warnings[0]
    proc = run_cli("validate", "22", "--course", str(puzzles), timeout=600)
    assert proc.returncode == 0  # warnings do not fail
    assert "warning: exercises/exercise-22/exercise.yaml: title.zh is English" in proc.stdout
    assert "warning: exercises/exercise-22/tests.py:" in proc.stdout
    assert "2 warnings" in proc.stdout


def test_english_formatted_into_a_zh_text_is_found():
    source = (
        "from grader.testing import describe, fail, names\n"
        "def _check(got, what):\n"
        "    we, wz = names(what)\n"
        "    fail(f'{we}: got {describe(got)}', f'{wz}：结果是 {describe(got)}')\n"
        "    fail(f'{we}: bad', f'{we}：不对')\n"
        "    fail('the result is wrong', 'the result is wrong')\n"
    )
    found = language.tests_warnings(source, "tests.py")
    assert any("tests.py:4:" in w and "describe(...)" in w and "describe_zh()" in w for w in found)
    assert any("tests.py:5:" in w and "formats we" in w for w in found)
    assert any("tests.py:6:" in w and "is English" in w for w in found)
    ok = "from grader.testing import Text, assert_close\nassert_close(1, 1, Text('x', '某'))\n"
    assert language.tests_warnings(ok, "tests.py") == []


def test_text_is_exported_from_grader_testing():
    import grader.testing as testing
    from grader.i18n import Text

    assert testing.Text is Text and "Text" in testing.__all__


@pytest.mark.slow  # runs `grade validate` (every solution and mutant) or several gradings
def test_a_batch_of_a_course_uses_its_diagnoses(puzzles, tmp_path):
    student = tmp_path / "class" / "ada"
    student.mkdir(parents=True)
    shutil.copyfile(
        puzzles / "exercises/exercise-21/mutants/exclusive.py", student / "exercise-21.py"
    )
    out = tmp_path / "out"
    proc = run_cli(
        "batch",
        str(tmp_path / "class"),
        "--out",
        str(out),
        "--exercises",
        "21",
        "--jobs",
        "1",
        env_extra={"GRADER_COURSE": str(puzzles)},
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    result = Result.from_json((out / "students" / "ada" / "exercise-21.json").read_text())
    diagnosed = {t.diagnosis.id for t in result.tests if t.diagnosis is not None}
    assert "prefix-sum-exclusive" in diagnosed


def test_a_catalogue_loads_each_exercise_once(monkeypatch):
    """A run resolves the same exercise several times (the assignment, its points, the
    engine's specs); each is read and parsed once per catalogue, and a new catalogue reads
    again (an author's edit is seen by the next run)."""
    import grader.catalog as catalog_module
    from grader.catalog import project_root

    loads: list[Path] = []
    real = catalog_module.load_exercise

    def counting(folder, solutions):
        loads.append(folder)
        return real(folder, solutions)

    monkeypatch.setattr(catalog_module, "load_exercise", counting)
    catalog = Catalog(project_root())
    first = catalog.resolve("exercise-07")
    assert catalog.resolve("7") is first and catalog.resolve(first.slug) is first
    every = catalog.all()
    assert len(loads) == len(every) == len(set(loads))
    Catalog(project_root()).resolve("7")
    assert len(loads) == len(every) + 1
