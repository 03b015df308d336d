"""Where a learner's grading runs (grader.serve.route): one route for ``grade ID``, ``grade
watch`` and the notebook's magics. The server's client and launcher are replaced by recorders
here, so that every branch (server answers, none running and one started, none running and
the process handed off, a server that cannot be used) is checked without a server; the real
server is exercised end to end in tests/test_server.py."""

from __future__ import annotations

import ast
import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.engine.api import GradeRequest
from grader.i18n import CLI, labels
from grader.serve import client, launch, route
from grader.serve.route import Route, fallback_note, time_limit
from tests.conftest import PROBE_HOME, ROOT
from tests.test_layers import imports

SPEC = Catalog(PROBE_HOME).resolve("90")
REQUEST = GradeRequest("exercise-90", b"x = 1\n", "exercise-90.py", devices=("cpu",))
ON_SERVER = object()
ELSEWHERE = object()


class Recorder:
    """The server as the route sees it: answers from a script, calls written down."""

    def __init__(self, answers: list[object]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, object]] = []

    def grade(self, where, request, limit):
        self.calls.append(("grade", limit))
        answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def spawn(self, where):
        self.calls.append(("spawn", None))

    def hand_off(self, where, root):
        self.calls.append(("hand_off", None))


class Elsewhere:
    where = "the test's own way"

    def __init__(self) -> None:
        self.graded = 0
        self.closed = 0

    def grade(self, request):
        self.graded += 1
        return ELSEWHERE

    def close(self) -> bool:
        self.closed += 1
        graded, self.graded = self.graded > 0, 0
        return graded


@pytest.fixture
def server(monkeypatch, tmp_path):
    runtime = tmp_path / "rt"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    monkeypatch.setenv("GRADE_NO_SERVER", "")
    recorder = Recorder([])
    monkeypatch.setattr(client, "grade", recorder.grade)
    monkeypatch.setattr(launch, "spawn", recorder.spawn)
    monkeypatch.setattr(launch, "hand_off", recorder.hand_off)
    return recorder


def make(start, **kwargs) -> tuple[Route, Elsewhere]:
    elsewhere = Elsewhere()
    return Route(SPEC, elsewhere, start=start, root=PROBE_HOME, **kwargs), elsewhere


@pytest.mark.parametrize("start", ["spawn", "hand-off", None])
def test_a_server_that_answers_grades(server, start, capsys):
    server.answers = [ON_SERVER]
    r, elsewhere = make(start)
    assert r.grade(REQUEST) is ON_SERVER
    assert server.calls == [("grade", time_limit(SPEC, REQUEST))] and elsewhere.graded == 0
    assert capsys.readouterr().err == ""


def test_none_running_and_spawn_starts_one_and_grades_there(server, capsys):
    server.answers = [client.Unavailable("no server is running", quiet=True), ON_SERVER]
    r, elsewhere = make("spawn")
    assert r.grade(REQUEST) is ON_SERVER
    assert [c[0] for c in server.calls] == ["grade", "spawn", "grade"]
    assert capsys.readouterr().err == "" and elsewhere.graded == 0


def test_none_running_and_hand_off_grades_elsewhere_then_leaves_a_server(server, capsys):
    server.answers = [client.Unavailable("no server is running", quiet=True)]
    r, _ = make("hand-off")
    assert r.grade(REQUEST) is ELSEWHERE
    assert capsys.readouterr().err == ""  # nothing unusual: no line
    r.close(completed=True)
    assert [c[0] for c in server.calls] == ["grade", "hand_off"]


def test_an_interrupted_command_leaves_no_server_behind(server):
    server.answers = [client.Unavailable("no server is running", quiet=True)]
    r, _ = make("hand-off")
    r.grade(REQUEST)
    r.close(completed=False)
    assert [c[0] for c in server.calls] == ["grade"]


def test_a_server_that_cannot_be_used_is_one_line_and_every_later_grading_goes_elsewhere(
    server, capsys
):
    server.answers = [client.Unavailable("a stale socket with no server behind it")]
    r, elsewhere = make("spawn")
    assert r.grade(REQUEST) is ELSEWHERE and r.grade(REQUEST) is ELSEWHERE
    assert capsys.readouterr().err.splitlines() == [
        fallback_note("a stale socket with no server behind it", Elsewhere.where)
    ]
    assert [c[0] for c in server.calls] == ["grade"] and elsewhere.graded == 2


def test_a_server_that_will_not_start_is_one_line(server, capsys, monkeypatch):
    def fails(where):
        raise launch.StartError("no room")

    monkeypatch.setattr(launch, "spawn", fails)
    server.answers = [client.Unavailable("no server is running", quiet=True)]
    r, _ = make("spawn")
    assert r.grade(REQUEST) is ELSEWHERE
    assert capsys.readouterr().err.splitlines() == [
        fallback_note("it could not be started: no room", Elsewhere.where)
    ]


def test_a_runtime_folder_others_can_open_is_one_line(server, capsys, tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "torch-grader").mkdir(mode=0o755)
    (shared / "torch-grader").chmod(0o755)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(shared))
    r, _ = make("spawn")
    assert r.grade(REQUEST) is ELSEWHERE
    (line,) = capsys.readouterr().err.splitlines()
    assert "open to other users" in line and line.startswith("Note: the grading server")
    assert server.calls == []


@pytest.mark.parametrize("how", ["option", "environment"])
def test_no_server_asked_never_touches_one(server, capsys, monkeypatch, how):
    if how == "environment":
        monkeypatch.setenv("GRADE_NO_SERVER", "1")
    r, _ = make("hand-off", use_server=how != "option")
    assert r.grade(REQUEST) is ELSEWHERE
    r.close()
    assert server.calls == [] and capsys.readouterr().err == ""


@settings(max_examples=50, deadline=None)
@given(
    timeout=st.floats(min_value=0.5, max_value=3600),
    devices=st.sampled_from([("cpu",), ("cuda",), ("cpu", "cuda")]),
)
def test_the_server_gets_twice_the_limit_of_every_pass_and_a_minute(timeout, devices):
    spec = dataclasses.replace(
        SPEC, limits=dataclasses.replace(SPEC.limits, total_timeout_s=timeout)
    )
    request = dataclasses.replace(REQUEST, devices=devices)
    assert time_limit(spec, request) == timeout * 2 * len(devices) + 60
    assert time_limit(spec, request) > timeout * len(devices)


def test_both_front_ends_route_through_the_one_module():
    graph = imports()
    for front in ("grader.cli.learner", "grader.notebook.magics"):
        assert "grader.serve.route" in graph[front], front
    # the client's grade, spawning a server and handing one off are called from one place
    callers = set()
    for path in (ROOT / "grader").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and ast.unparse(node.func) in (
                "client.grade",
                "launch.spawn",
                "launch.hand_off",
            ):
                callers.add((path.relative_to(ROOT).as_posix(), ast.unparse(node.func)))
    assert {c for c in callers if c[1] != "launch.spawn"} == {
        ("grader/serve/route.py", "client.grade"),
        ("grader/serve/route.py", "launch.hand_off"),
    }
    # `grade server start` starts one too, on its own: it grades nothing
    assert {c[0] for c in callers if c[1] == "launch.spawn"} == {
        "grader/serve/route.py",
        "grader/cli/server.py",
    }
    # one wording, whichever way the front end grades instead
    for elsewhere in (route.InProcess(SPEC), route.FreshProcess()):
        assert route.fallback_note("x", elsewhere.where) == (
            f"Note: the grading server is not usable (x); grading in {elsewhere.where} instead."
        )


def test_the_notebook_hint_says_what_the_command_says(monkeypatch, tmp_path, capsys):
    # outside a workspace, both say how to get the next hint each time
    from grader.cli.learner import cmd_hint
    from grader.notebook.magics import show_hint

    monkeypatch.delenv("GRADER_HOME", raising=False)
    monkeypatch.delenv("GRADER_COURSE", raising=False)
    monkeypatch.chdir(tmp_path)
    spec = Catalog(project_root()).resolve("7")  # a built-in exercise: it has several hints
    said = {}
    for every in ([], ["--all"]):
        cmd_hint(["7", "--lang", "en", *every])
        said[bool(every)] = capsys.readouterr().out
        show_hint(["7", "--lang", "en", *every])
        assert capsys.readouterr().out == said[bool(every)]
    assert len(spec.hints) > 1
    assert labels(CLI, "en")["hint_outside"].strip() in said[False]
    assert all(h.get("en") in said[True] for h in spec.hints)
