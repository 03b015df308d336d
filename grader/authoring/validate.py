"""``grade validate``: prove the catalogue, exercise by exercise (the CI mode).

For every exercise: its spec loads strictly; its folder holds exactly the files the spec names;
it has the hints, mutants and alternatives the curriculum asks for; the diagnoses it names exist;
its reference solution and every alternative score full marks on every device present; its
untouched starter fails; and every mutant fails each test it declares and gets the diagnosis it
declares. Every finding names the exercise, the file it read and what to fix. Exit code 0 when
all hold, 1 when any finding stands, 2 for a usage error.

The course-wide checks run whatever exercises are asked for: ``grade validate 21`` also reads
every other exercise, so a slug that another exercise has (which breaks ``grade list`` and ``grade
SLUG`` for everyone) or a spec that no longer loads is found before it is shared. An exception in
the hidden tests' own code is said once per test with its traceback (:mod:`.faults`), not once per
graded file; texts a learner reading Chinese would see in English are warnings
(:mod:`.language`).
"""

from __future__ import annotations

import difflib
import time
import xml.etree.ElementTree as ET
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from grader.authoring import faults, language
from grader.catalog import NUMBER_RE, Catalog
from grader.course import DIAGNOSES
from grader.diagnose import CATALOGUE_PATH, DiagnosisCatalog, diagnose
from grader.engine import DEFAULT_SEED, GradeRequest, LocalEngine
from grader.engine.records import TestRecord
from grader.engine.scoring import is_grader_fault
from grader.errors import SpecError, UsageError
from grader.fileio import write_atomic
from grader.i18n import Text
from grader.results import Result, Status, TestResult
from grader.spec import ExerciseSpec
from grader.text import source_text

MIN_HINTS = 2
MIN_MUTANTS = 3
MIN_ALTERNATIVES = 2
_IGNORED = {"__pycache__", ".pytest_cache"}


@dataclass
class Check:
    """One validation check of one exercise (a JUnit test case). ``problems`` fail it;
    ``warnings`` do not (texts that may need a translation); ``notes`` say what a learner
    would see (``grade validate --verbose``)."""

    exercise: str
    name: str
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    detail: str = ""
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# ---------------------------------------------------------------------------------------------
# Static checks


def check_files(spec: ExerciseSpec) -> Check:
    """No stray or missing files in the exercise's folder and its solutions folder."""
    check = Check(spec.id, "files")
    expected = {spec.spec_path.name, spec.learner_file, spec.test_file}
    expected |= {m.file for m in spec.mutants} | {a.file for a in spec.alternatives}
    for path in sorted(spec.folder.rglob("*")):
        if path.is_dir() or any(part in _IGNORED for part in path.parts):
            continue
        relative = path.relative_to(spec.folder).as_posix()
        if relative not in expected:
            check.problems.append(
                f"{spec.folder.name}/{relative} is not named in exercise.yaml: list it as a mutant "
                "or alternative, or delete it"
            )
    solutions = spec.solution_path.parent
    for path in sorted(solutions.rglob("*")):
        if path.is_dir() or any(part in _IGNORED for part in path.parts):
            continue
        if path != spec.solution_path:
            check.problems.append(
                f"solutions/{spec.id}/{path.name} is stray: the reference is "
                f"solutions/{spec.id}/{spec.learner_file}; delete the other file"
            )
    return check


def check_policy(spec: ExerciseSpec, catalogue: DiagnosisCatalog) -> Check:
    """What the curriculum asks of every exercise, beyond what the loader checks."""
    check = Check(spec.id, "curriculum")
    shown = language.relative(spec.spec_path, spec.course_root)
    if len(spec.hints) < MIN_HINTS:
        check.problems.append(
            f"has {len(spec.hints)} hint(s): add at least {MIN_HINTS}, from gentle to explicit"
        )
    if len(spec.mutants) < MIN_MUTANTS:
        check.problems.append(
            f"has {len(spec.mutants)} mutant(s): add at least {MIN_MUTANTS} from the seeds' pitfalls"
        )
    if len(spec.alternatives) < MIN_ALTERNATIVES:
        check.problems.append(
            f"has {len(spec.alternatives)} alternative solution(s): add at least "
            f"{MIN_ALTERNATIVES} correct ones written in another style"
        )
    if not spec.requirements:
        check.problems.append(
            "has no `requirements` table: list every requirement the instructions state, the "
            "tests that check it and a mutant that breaks it alone (exercises/README.md)"
        )
    for i, mutant in enumerate(spec.mutants):
        unknown = catalogue.unknown(mutant.diagnosis) if mutant.diagnosis else None
        if unknown:
            check.problems.append(
                f"{shown}: mutants[{i}] ({mutant.file}) declares diagnosis "
                f"'{mutant.diagnosis}', {unknown}"
            )
    for key, _ in spec.fixes:
        unknown = catalogue.unknown(key)
        if unknown:
            check.problems.append(f"{shown}: diagnoses.{key} gives a fix for '{key}', {unknown}")
    starter = spec.starter_text()
    if spec.kind == "implement" and "NotImplementedError" not in starter:
        check.problems.append(
            "is an implement exercise, but its starter raises no NotImplementedError"
        )
    return check


# ---------------------------------------------------------------------------------------------
# Gradings


def _score(result: Result) -> str:
    return f"{result.score:g}/{result.max_score:g}"


def judge_full_marks(
    check: Check, what: str, result: Result, faulted: frozenset[str] | set[str] = frozenset()
) -> None:
    """``faulted``: the tests that failed by an exception in the hidden tests, whose traceback
    the "hidden tests" check shows once."""
    if result.status is Status.PASSED and result.score == result.max_score > 0:
        return
    lost = [
        f"{t.key} (the hidden tests raised an exception: see 'hidden tests')"
        if t.key in faulted
        else f"{t.key} ({t.status.value}: {t.message[:200]})"
        for t in result.graded
        if t.status is not Status.PASSED
    ]
    check.problems.append(
        f"{what} scored {_score(result)}, not full marks; fix the test (not the "
        f"solution) if the solution is correct: " + "; ".join(lost)
    )


def judge_starter(check: Check, result: Result) -> None:
    if result.graded and result.score < result.max_score:
        return
    check.problems.append(
        f"the untouched starter scored {_score(result)}: it must fail; make the "
        "tests catch the planted bug, or make the starter raise NotImplementedError"
    )


def judge_mutant(
    check: Check,
    spec: ExerciseSpec,
    file: str,
    result: Result,
    faulted: frozenset[str] | set[str] = frozenset(),
) -> None:
    """``faulted``: tests lost to an exception in the hidden tests, which are not the
    mutant's doing (the "hidden tests" check shows them)."""
    mutant = next(m for m in spec.mutants if m.file == file)
    by_name: dict[str, list[TestResult]] = {}
    for test in result.graded:
        by_name.setdefault(test.name, []).append(test)
    for name in mutant.must_fail:
        tests = by_name.get(name, [])
        if not tests:
            check.problems.append(f"mutant {file}: test {name} did not run")
            continue
        passed = [t.key for t in tests if t.status is Status.PASSED]
        if passed:
            check.problems.append(
                f"mutant {file} ({mutant.description}) passes {', '.join(passed)}, "
                "which exercise.yaml says must catch it: strengthen the test or fix must_fail"
            )
    if mutant.diagnosis:
        got = {t.diagnosis.id for t in result.graded if t.name in mutant.must_fail and t.diagnosis}
        if mutant.diagnosis not in got:
            check.problems.append(
                f"mutant {file} should be diagnosed as '{mutant.diagnosis}' but got "
                f"{', '.join(sorted(got)) or 'no diagnosis'}: attach the evidence in the test's check "
                "or fix the declared diagnosis"
            )
    if spec.requirements:
        # One bug, one lost requirement: the mutant loses exactly the tests it declares.
        failed = {
            t.name for t in result.graded if t.status is not Status.PASSED and t.key not in faulted
        }
        extra = sorted(failed - set(mutant.must_fail))
        if extra:
            check.problems.append(
                f"mutant {file} ({mutant.description}) also loses {', '.join(extra)}, which "
                "must_fail does not list: make each test check only its own requirement (compare "
                "the learner with itself), or list them if they check the same requirement"
            )
    if result.score >= result.max_score:
        check.problems.append(f"mutant {file} loses no points ({_score(result)})")


# ---------------------------------------------------------------------------------------------
# Running


@dataclass
class Report:
    checks: list[Check]
    seconds: float

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)


def validate(
    catalog: Catalog,
    *,
    ids: list[str] | None = None,
    selected: tuple[str, ...] = ("cpu", "cuda"),
    seed: int | None = None,
    parallel: int | None = None,
    progress: Callable[[int, Result, str | None], None] | None = None,
) -> Report:
    started = time.monotonic()
    checks: list[Check] = []
    catalogue = DiagnosisCatalog.for_course(catalog.root)
    loaded: dict[str, ExerciseSpec] = {}
    broken: dict[str, SpecError] = {}
    for folder in catalog.folders():
        try:
            loaded[folder.name] = catalog.load(folder)
        except SpecError as exc:
            broken[folder.name] = exc
    wanted = _wanted(ids, loaded, broken) if ids else [*sorted({*loaded, *broken})]
    specs: list[ExerciseSpec] = []
    for name in wanted:
        check = Check(name, "spec")
        if name in broken:
            check.problems.append(broken[name].format().removeprefix("Error: "))
            checks.append(check)
            continue
        spec = loaded[name]
        check.problems += course_wide(spec, loaded)
        checks += [check, check_files(spec), check_policy(spec, catalogue), check_language(spec)]
        specs.append(spec)
    for name in sorted(set(broken) - set(wanted)):
        # another exercise that no longer loads breaks every command that reads the course
        other = Check(name, "spec")
        other.problems.append(
            broken[name].format().removeprefix("Error: ")
            + " (every command that reads the whole course, such as `grade list`, fails "
            "until it is fixed)"
        )
        checks.append(other)
    course_check = check_course_diagnoses(catalog.root)
    if course_check is not None:
        checks.append(course_check)
    known = set(loaded) | set(broken)
    if catalog.solutions_dir.is_dir() and not ids:
        for folder in sorted(catalog.solutions_dir.iterdir()):
            if folder.is_dir() and folder.name not in known and folder.name not in _IGNORED:
                stray = Check(folder.name, "files")
                stray.problems.append(
                    f"solutions/{folder.name} has no exercises/{folder.name}: delete it"
                )
                checks.append(stray)
    checks += _grade_all(catalog, specs, catalogue, selected, seed, parallel, progress)
    return Report(checks, time.monotonic() - started)


def _wanted(
    ids: Sequence[str], loaded: dict[str, ExerciseSpec], broken: dict[str, SpecError]
) -> list[str]:
    """The exercise folders ``ids`` name (``7``, ``exercise-07`` or a slug), each once; a
    broken spec is named by its number or id."""
    names = {*loaded, *broken}
    found: list[str] = []
    for ident in ids:
        ident = ident.strip()
        match = NUMBER_RE.match(ident)
        name = f"exercise-{int(match.group(1)):02d}" if match else ident
        if name not in names:
            name = next((s.id for s in loaded.values() if s.slug == ident), "")
        if not name:
            choices = sorted(names) + sorted(s.slug for s in loaded.values())
            close = difflib.get_close_matches(ident.lower(), choices, n=3, cutoff=0.4)
            hint = ("Did you mean: " + ", ".join(close) + "?") if close else None
            raise UsageError(f"no exercise '{ident}'", hint=hint or "Run `grade list`.")
        if name not in found:
            found.append(name)
    return found


def course_wide(spec: ExerciseSpec, loaded: dict[str, ExerciseSpec]) -> list[str]:
    """What makes an exercise clash with the others of its course: a slug another exercise
    has, or one that reads as another exercise's id (``grade SLUG`` would mean that one)."""
    shown = language.relative(spec.spec_path, spec.course_root)
    problems = []
    for other in loaded.values():
        if other.id != spec.id and other.slug == spec.slug:
            problems.append(
                f"{shown}: slug '{spec.slug}' is also the slug of {other.id} "
                f"({language.relative(other.spec_path, other.course_root)}): give each "
                "exercise its own slug"
            )
    match = NUMBER_RE.match(spec.slug)
    if match and f"exercise-{int(match.group(1)):02d}" != spec.id:
        problems.append(
            f"{shown}: slug '{spec.slug}' reads as the id of exercise-"
            f"{int(match.group(1)):02d}, so `grade {spec.slug}` would mean that exercise: choose "
            "a slug of words"
        )
    return problems


def check_language(spec: ExerciseSpec) -> Check:
    """Learner-facing texts in English only (warnings): in exercise.yaml and the hidden tests."""
    check = Check(spec.id, "language")
    root = spec.course_root
    check.warnings += language.spec_warnings(spec, language.relative(spec.spec_path, root))
    source = source_text(spec.test_path.read_bytes())  # as pytest reads it
    check.warnings += language.tests_warnings(source, language.relative(spec.test_path, root))
    return check


def check_course_diagnoses(root: Path) -> Check | None:
    """A course's own diagnoses.yaml (loaded, and so checked, with the catalogue): texts whose
    zh is English are warnings."""
    path = root / DIAGNOSES
    if not path.is_file() or path.resolve() == CATALOGUE_PATH.resolve():
        return None
    check = Check("course", DIAGNOSES)
    entries: list[tuple[str, Text]] = []
    for i, entry in enumerate(DiagnosisCatalog.load(path).entries):
        for key in ("title", "what", "why", "fix"):
            entries.append((f"diagnoses[{i}] ({entry.id}).{key}", getattr(entry, key)))
    check.warnings += language.catalogue_warnings(entries, DIAGNOSES)
    return check


def _grade_all(
    catalog: Catalog,
    specs: list[ExerciseSpec],
    catalogue: DiagnosisCatalog,
    selected: tuple[str, ...],
    seed: int | None,
    parallel: int | None,
    progress: Callable[[int, Result, str | None], None] | None,
) -> list[Check]:
    """Grade every reference, starter, alternative and mutant, and judge each; an exception
    in the hidden tests' own code is one "hidden tests" problem per test and traceback."""
    # what to grade: (spec, kind, name, file) per grading
    plan: list[tuple[ExerciseSpec, str, str, Path]] = []
    for spec in specs:
        plan.append((spec, "reference", "reference", spec.solution_path))
        plan.append((spec, "starter", "starter", spec.starter_path))
        plan += [(spec, "alternative", a.file, spec.folder / a.file) for a in spec.alternatives]
        plan += [(spec, "mutant", m.file, spec.folder / m.file) for m in spec.mutants]
    requests = [
        GradeRequest(
            exercise=spec.id,
            source=path.read_bytes(),
            filename=str(path),
            devices=selected,
            seed=DEFAULT_SEED if seed is None else seed,
        )
        for spec, _, _, path in plan
    ]
    if not requests:
        return []
    with LocalEngine(catalog, jobs=parallel, preload=specs, debug=True) as engine:
        results = engine.grade_many(requests, on_result=progress)
        records = [engine.records(i) for i in range(len(requests))]
    checks: list[Check] = []
    met: dict[str, list[tuple[str, Sequence[TestRecord]]]] = {}
    for (spec, kind, name, _), result, kept in zip(plan, results, records, strict=True):
        label = f"{kind} {name}" if kind in ("alternative", "mutant") else kind
        met.setdefault(spec.id, []).append((label, kept))
        faulted = faults.faulted(kept)
        check = Check(spec.id, label, seconds=result.duration_s, detail=_score(result))
        if kind == "reference":
            judge_full_marks(check, "the reference solution", result, faulted)
        elif kind == "alternative":
            judge_full_marks(check, f"alternative {name}", result, faulted)
        elif kind == "starter":
            judge_starter(check, result)
        else:
            judge_mutant(check, spec, name, result, faulted)
            check.notes += learner_view(spec, name, kept, catalogue)
        for test in result.tests:
            if is_grader_fault(test) and test.key not in faulted:
                check.problems.append(f"{label}: {test.key} hit a grader fault: {test.message}")
        checks.append(check)
    for spec in specs:
        found = faults.collect(met.get(spec.id, []))
        if found:
            checks.append(Check(spec.id, "hidden tests", problems=[f.describe() for f in found]))
    return checks


def learner_view(
    spec: ExerciseSpec, file: str, records: Sequence[TestRecord], catalogue: DiagnosisCatalog
) -> list[str]:
    """What a learner handing in mutant ``file`` would read first, in each language: the
    first test it fails (one it must fail, if any does), its diagnosis and its message."""
    mutant = next(m for m in spec.mutants if m.file == file)
    order = {name: i for i, name in enumerate(t.name for t in spec.tests)}
    failed = sorted(
        (r for r in records if r.status not in (Status.PASSED, Status.SKIPPED)),
        key=lambda r: (r.name not in mutant.must_fail, order.get(r.name, len(order))),
    )
    if not failed:
        return [f"mutant {file}: fails no test"]
    first = failed[0]
    key = f"{first.name}[{first.device}]" if first.device else first.name
    lines = [f"mutant {file}: {key} {first.status.value}"]
    for lang in ("en", "zh"):
        found = diagnose(
            catalogue,
            first.evidence,
            first.error,
            lang,
            exercise=spec.id,
            file=spec.learner_file,
            fixes=spec.fix,
        )
        title = f"[{found.id}] {found.title}" if found else "(no diagnosis)"
        message = " ".join(first.message.get(lang).split())
        if len(message) > 300:
            message = message[:297] + "..."
        lines.append(f"  {lang}: {title} | {message}")
    return lines


def write_junit(report: Report, path: Path) -> None:
    suites = ET.Element(
        "testsuites",
        name="grade validate",
        tests=str(len(report.checks)),
        failures=str(sum(not c.ok for c in report.checks)),
        time=f"{report.seconds:.3f}",
    )
    by_exercise: dict[str, list[Check]] = {}
    for check in report.checks:
        by_exercise.setdefault(check.exercise, []).append(check)
    for exercise, checks in by_exercise.items():
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=exercise,
            tests=str(len(checks)),
            failures=str(sum(not c.ok for c in checks)),
            time=f"{sum(c.seconds for c in checks):.3f}",
        )
        for check in checks:
            case = ET.SubElement(
                suite, "testcase", classname=exercise, name=check.name, time=f"{check.seconds:.3f}"
            )
            if not check.ok:
                failure = ET.SubElement(case, "failure", message=check.problems[0][:500])
                failure.text = "\n".join(check.problems)
            if check.warnings:
                out = ET.SubElement(case, "system-out")
                out.text = "\n".join(f"warning: {w}" for w in check.warnings)
    ET.indent(suites)
    write_atomic(path, ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n")
