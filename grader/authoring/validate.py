"""``grade validate``: prove the catalogue, exercise by exercise (the CI mode).

For every exercise: its spec loads strictly; its folder holds exactly the files the spec names;
it has the hints, mutants and alternatives the curriculum asks for; the diagnoses it names exist;
its reference solution and every alternative score full marks on every device present; its
untouched starter fails; and every mutant fails each test it declares and gets the diagnosis it
declares. Every finding names the exercise and what to fix. Exit code 0 when all hold, 1 when any
finding stands, 2 for a usage error.
"""

from __future__ import annotations

import time
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from grader.catalog import Catalog
from grader.diagnose import DiagnosisCatalog
from grader.engine import DEFAULT_SEED, GradeRequest, LocalEngine
from grader.engine.scoring import is_grader_fault
from grader.errors import SpecError
from grader.fileio import write_atomic
from grader.results import Result, Status, TestResult
from grader.spec import ExerciseSpec

MIN_HINTS = 2
MIN_MUTANTS = 3
MIN_ALTERNATIVES = 2
_IGNORED = {"__pycache__", ".pytest_cache"}


@dataclass
class Check:
    """One validation check of one exercise (a JUnit test case)."""

    exercise: str
    name: str
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0
    detail: str = ""

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
    known = catalogue.ids()
    for mutant in spec.mutants:
        if mutant.diagnosis and mutant.diagnosis not in known:
            check.problems.append(
                f"mutant {mutant.file} declares diagnosis '{mutant.diagnosis}', "
                "which grader/diagnoses.yaml does not define: add it there or fix the id"
            )
    starter = spec.starter_path.read_text(encoding="utf-8")
    if spec.kind == "implement" and "NotImplementedError" not in starter:
        check.problems.append(
            "is an implement exercise, but its starter raises no NotImplementedError"
        )
    return check


# ---------------------------------------------------------------------------------------------
# Gradings


def _score(result: Result) -> str:
    return f"{result.score:g}/{result.max_score:g}"


def judge_full_marks(check: Check, what: str, result: Result) -> None:
    if result.status is Status.PASSED and result.score == result.max_score > 0:
        return
    lost = [
        f"{t.key} ({t.status.value}: {t.message[:200]})"
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


def judge_mutant(check: Check, spec: ExerciseSpec, file: str, result: Result) -> None:
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
        failed = {t.name for t in result.graded if t.status is not Status.PASSED}
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
    catalogue = DiagnosisCatalog.load()
    specs: list[ExerciseSpec] = []
    slugs: dict[str, str] = {}
    folders = catalog.folders()
    if ids:
        wanted = {catalog.resolve(i).id for i in ids}
        folders = [f for f in folders if f.name in wanted]
    for folder in folders:
        check = Check(folder.name, "spec")
        try:
            spec = catalog.load(folder)
        except SpecError as exc:
            check.problems.append(exc.format().removeprefix("Error: "))
            checks.append(check)
            continue
        if spec.slug in slugs:
            check.problems.append(
                f"slug '{spec.slug}' is also the slug of {slugs[spec.slug]}: make it unique"
            )
        slugs[spec.slug] = spec.id
        checks += [check, check_files(spec), check_policy(spec, catalogue)]
        specs.append(spec)
    known = {f.name for f in catalog.folders()}
    if catalog.solutions_dir.is_dir() and not ids:
        for folder in sorted(catalog.solutions_dir.iterdir()):
            if folder.is_dir() and folder.name not in known and folder.name not in _IGNORED:
                stray = Check(folder.name, "files")
                stray.problems.append(
                    f"solutions/{folder.name} has no exercises/{folder.name}: delete it"
                )
                checks.append(stray)

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
    if requests:
        with LocalEngine(catalog, jobs=parallel, preload=specs) as engine:
            results = engine.grade_many(requests, on_result=progress)
        for (spec, kind, name, _), result in zip(plan, results, strict=True):
            check = Check(
                spec.id,
                f"{kind} {name}" if kind in ("alternative", "mutant") else kind,
                seconds=result.duration_s,
                detail=_score(result),
            )
            if kind == "reference":
                judge_full_marks(check, "the reference solution", result)
            elif kind == "alternative":
                judge_full_marks(check, f"alternative {name}", result)
            elif kind == "starter":
                judge_starter(check, result)
            else:
                judge_mutant(check, spec, name, result)
            for test in result.tests:
                if is_grader_fault(test):
                    check.problems.append(
                        f"{kind} {name}: {test.key} hit a grader fault: {test.message}"
                    )
            checks.append(check)
    return Report(checks, time.monotonic() - started)


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
    ET.indent(suites)
    write_atomic(path, ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n")
