"""``run_batch`` with an engine its caller makes: tested in this process, with a fake engine
that grades nothing, so that what the batch does around the engine (what it tells the engine,
the cache, the reports, the outputs) is checked in milliseconds."""

from __future__ import annotations

import dataclasses
import io
from collections.abc import Sequence
from pathlib import Path

import pytest

from grader.catalog import Catalog, project_root
from grader.cluster.plan import fault_result
from grader.engine.api import GradeRequest, OnResult
from grader.engine.scoring import summarize
from grader.lms.batch import BatchOptions, EngineNeeds, run_batch
from grader.results import Result, Status, TestResult
from tests.conftest import PROBE_HOME

PASS_MARK = b"# fake: passes"


class FakeEngine:
    """Grades by a mark in the source, running nothing: every test passes where the source
    holds ``PASS_MARK`` and fails elsewhere. ``report``: the HTML it hands back with each
    result, as a cluster's workers do (None: it renders nothing, as this machine's engine)."""

    def __init__(self, needs: EngineNeeds, report: str | None = None, gpus: int = 0) -> None:
        self.needs = needs
        self.report = report
        self.gpus = gpus
        self.requests: list[GradeRequest] = []
        self.entered = False

    def __enter__(self) -> FakeEngine:
        self.entered = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.entered = False

    def grade(self, request: GradeRequest) -> Result:
        return self.grade_many([request])[0]

    def grade_many(
        self, requests: Sequence[GradeRequest], on_result: OnResult | None = None
    ) -> list[Result]:
        assert self.entered, "the batch grades inside `with engine:`"
        results = []
        for index, request in enumerate(requests):
            self.requests.append(request)
            result = verdict(request, PASS_MARK in request.source)
            if on_result is not None:
                on_result(index, result, self.report)
            results.append(result)
        return results


def verdict(request: GradeRequest, passed: bool) -> Result:
    """Every test of the request passed, or every one failed (built on the result the cluster
    gives a grading it could not run, with verdicts of a real grading instead)."""
    spec = Catalog(project_root()).resolve(request.exercise)
    tests = tuple(
        TestResult(
            name=test.name,
            device=device,
            status=Status.PASSED if passed else Status.FAILED,
            points=float(test.points) if passed else 0.0,
            max_points=float(test.points),
            description=test.description.get(request.lang),
            message="" if passed else "fake: wrong",
        )
        for test, device in spec.manifest(request.devices)
    )
    status, score, max_score = summarize(tests)
    result = fault_result(spec, request, "")
    return dataclasses.replace(
        result,
        tests=tests,
        status=status,
        score=score,
        max_score=max_score,
        notes=(),
        environment=dataclasses.replace(result.environment, isolation="namespaces"),
    )


@pytest.fixture
def course(monkeypatch):
    monkeypatch.delenv("GRADER_COURSE", raising=False)
    monkeypatch.setenv("GRADER_HOME", str(PROBE_HOME))


def make_class(root: Path, passing: dict[str, bool]) -> Path:
    for student, passes in passing.items():
        (root / student).mkdir(parents=True)
        body = b"def f():\n    return 1\n" + (PASS_MARK if passes else b"# fake: fails") + b"\n"
        (root / student / "exercise-90.py").write_bytes(body)
    return root


def grade(
    submissions: Path, out: Path, report: str | None = None
) -> tuple[list[FakeEngine], object]:
    made: list[FakeEngine] = []

    def make(needs: EngineNeeds) -> FakeEngine:
        made.append(FakeEngine(needs, report))
        return made[-1]

    summary = run_batch(BatchOptions(submissions=submissions, out=out), io.StringIO(), make)
    return made, summary


def test_the_batch_grades_with_the_engine_its_caller_makes(course, tmp_path):
    submissions = make_class(tmp_path / "class", {"ada": True, "bob": False})
    out = tmp_path / "out"
    made, summary = grade(submissions, out)
    (engine,) = made
    # what the batch tells the engine: the course, what learners must not see, what to warm
    assert engine.needs.catalog.root.resolve() == PROBE_HOME.resolve()
    assert set(engine.needs.hidden) == {submissions.resolve(), out.resolve()}
    assert [s.id for s in engine.needs.preload] == ["exercise-90"]
    assert sorted(r.filename for r in engine.requests) == [
        "ada/exercise-90.py",
        "bob/exercise-90.py",
    ]
    assert summary.graded == 2 and summary.cached == 0 and not summary.all_passed
    for student, status in (("ada", "passed"), ("bob", "failed")):
        stored = Result.from_json((out / "students" / student / "exercise-90.json").read_text())
        assert stored.status.value == status
        # the engine rendered nothing: the batch rendered each report itself
        html = (out / "students" / student / "exercise-90.html").read_text()
        assert html.lstrip().lower().startswith("<!doctype html")
    assert (out / "gradebook.csv").is_file() and (out / "feedback" / "ada.html").is_file()


def test_a_report_the_engine_rendered_is_written_as_it_came(course, tmp_path):
    submissions = make_class(tmp_path / "class", {"ada": True})
    out = tmp_path / "out"
    grade(submissions, out, report="<!DOCTYPE html><p>rendered on a worker</p>")
    assert (out / "students" / "ada" / "exercise-90.html").read_text() == (
        "<!DOCTYPE html><p>rendered on a worker</p>"
    )


def test_a_second_run_hands_the_engine_nothing_it_graded_already(course, tmp_path):
    submissions = make_class(tmp_path / "class", {"ada": True, "bob": False})
    out = tmp_path / "out"
    grade(submissions, out)
    (submissions / "bob" / "exercise-90.py").write_bytes(b"def f():\n    return 2\n" + PASS_MARK)
    made, summary = grade(submissions, out)
    assert [r.filename for r in made[0].requests] == ["bob/exercise-90.py"]
    assert summary.graded == 1 and summary.cached == 1 and summary.all_passed


def test_students_of_an_earlier_run_leave_no_pages_that_look_current(course, tmp_path):
    """Week 3 graded ada and bob into the default output folder; week 4 has ada's work only.
    bob's feedback page (and results.json, with last week's score) stayed beside a gradebook
    that says "missing": an instructor who sent the feedback folder sent bob a stale grade.
    A run over the whole class removes them; one for a single student removes nothing; a
    folder that holds anything the batch does not write is left as it is."""
    out = tmp_path / "out"
    grade(make_class(tmp_path / "week3", {"ada": True, "bob": True, "cy": True}), out)
    assert (out / "feedback" / "bob.html").is_file()
    (out / "students" / "cy" / "notes.txt").write_text("the instructor's own file")
    (out / "feedback" / "README.txt").write_text("not a page of the batch")
    week4 = make_class(tmp_path / "week4", {"ada": False})
    run_batch(
        BatchOptions(submissions=week4, out=out, student="ada"),
        io.StringIO(),
        lambda needs: FakeEngine(needs),
    )
    assert (out / "feedback" / "bob.html").is_file()  # --student: the others are not its to judge
    _, summary = grade(week4, out)
    assert sorted(p.name for p in (out / "feedback").iterdir()) == ["README.txt", "ada.html"]
    assert not (out / "students" / "bob").exists()
    assert (out / "students" / "cy" / "notes.txt").is_file()  # not only the batch's files
    assert set(summary.outputs.removed) == {
        "feedback/bob.html",
        "feedback/cy.html",
        "students/bob/",
    }


def test_a_folder_with_this_runs_results_is_never_removed(course, tmp_path):
    """Whatever a row says, the folder of a student with a result in this run stays (it holds
    their results, reports and cache keys); only pages and folders of neither go."""
    from grader.lms import outputs

    out = tmp_path / "out"
    (out / "students" / "amb").mkdir(parents=True)
    (out / "students" / "amb" / "exercise-90.json").write_text("{}")
    (out / "students" / "old").mkdir(parents=True)
    (out / "students" / "old" / "exercise-90.json").write_text("{}")
    removed = outputs._prune(out, pages={"ada"}, folders={"ada", "amb"})
    assert removed == ["students/old/"]
    assert (out / "students" / "amb" / "exercise-90.json").is_file()


@pytest.mark.slow  # a whole batch run (about 3 s)
def test_canvas_s_test_student_is_neither_on_the_roster_nor_graded(course, tmp_path):
    """Canvas's test student ("Student, Test": its login the 40 hex digits Canvas gives it)
    is a row of the gradebook export used as the roster, and hands in through Student View:
    it was a roster student uploaded as 0, and its work was graded as an off-roster student
    to look at. Both are left out, and the run says so."""
    hexed = "0123456789abcdef" * 2 + "01234567"
    write_roster = tmp_path / "grades.csv"
    write_roster.write_text(
        "Student,ID,SIS User ID,SIS Login ID,Section\n"
        '"Doe, Jane",4711,S1,jdoe,A\n'
        f'"Student, Test",7777,,{hexed},A\n',
        encoding="utf-8",
    )
    spec = tmp_path / "w.yaml"
    spec.write_text(
        "format_version: 1\nname: w\nexercises: {exercise-90: 1}\nroster: grades.csv\n",
        encoding="utf-8",
    )
    dl = tmp_path / "dl"
    dl.mkdir()
    body = b"def f():\n    return 1\n" + PASS_MARK + b"\n"
    (dl / "doejane_4711_1_exercise-90.py").write_bytes(body)
    (dl / "studenttest_7777_2_exercise-90.py").write_bytes(body)
    made: list[FakeEngine] = []

    def make(needs: EngineNeeds) -> FakeEngine:
        made.append(FakeEngine(needs))
        return made[-1]

    out = tmp_path / "out"
    summary = run_batch(BatchOptions(submissions=dl, out=out, assignment=spec), io.StringIO(), make)
    (engine,) = made
    assert [r.filename for r in engine.requests] == ["doejane_4711_1_exercise-90.py"]
    notes = [n for n in summary.notes if "test student" in n]
    assert len(notes) == 2, summary.notes
    table = (out / "canvas.csv").read_text(encoding="utf-8")
    assert "7777" not in table and "4711" in table
