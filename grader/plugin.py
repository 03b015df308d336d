"""The pytest plugin of the trusted worker: fixtures for hidden tests, and one verdict per test.

Registered as an object (``pytest.main(args, plugins=[GraderPlugin(...)])``). It parametrizes every
test that takes ``device`` over the exercise's devices (CUDA cases are skipped with a reason where
there is no GPU), deselects anything the spec does not list, provides the fixtures hidden tests use
(``learner``, ``reference``, ``device``, ``rng``, ``seed``, ``exercise``, ``learner_source``,
``attach``), and turns each test's outcome into a plain-dict record: status, learner-facing message
in both languages, evidence for the diagnosis, frames in the learner's file, captured output.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import time
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
import torch

from grader.sandbox import codec, faults
from grader.sandbox.pool import ChildPool
from grader.sandbox.proxy import LearnerProxy
from grader.spec import ExerciseSpec, Text
from grader.testing.checks import SKIP_PREFIX, CheckFailed

Record = dict[str, Any]


@dataclass
class Session:
    """What the worker's fixtures and hooks share for one grading."""

    spec: ExerciseSpec
    selected: tuple[str, ...]
    seed: int
    pool: ChildPool
    emit: Callable[[Record], None]
    learner_source: str
    cuda_available: bool
    cuda_reason: Text
    max_answer_bytes: int = 256 << 20
    reference_module: Any = None
    attached: dict[str, dict[str, Any]] = field(default_factory=dict)


class Attachments:
    """The ``attach`` fixture: data a test hands to the report (e.g. loss curves)."""

    def __init__(self, store: dict[str, Any]) -> None:
        self._store = store

    def __call__(self, key: str, value: Any) -> None:
        self._store[key] = value


def test_seed(seed: int, name: str, device: str | None) -> int:
    """A seed for one test instance that depends on nothing but its identity."""
    return zlib.crc32(f"{seed}:{name}:{device}".encode()) & 0x7FFFFFFF


class GraderPlugin:
    def __init__(self, session: Session) -> None:
        self.s = session
        self._phases: dict[str, dict[str, Any]] = {}
        self._started: dict[str, float] = {}

    # -- collection -------------------------------------------------------------------------

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        if "device" not in metafunc.fixturenames:
            return
        try:
            test = self.s.spec.test(metafunc.function.__name__)
        except KeyError:
            metafunc.parametrize("device", [], ids=[])
            return
        params = []
        for spec_test, device in self.s.spec.manifest(self.s.selected):
            if spec_test.name != test.name or device is None:
                continue
            marks = []
            if device == "cuda" and not self.s.cuda_available:
                marks.append(pytest.mark.skip(reason=self.s.cuda_reason.en))
            params.append(pytest.param(device, id=device, marks=marks))
        metafunc.parametrize("device", params)

    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        listed = {t.name for t in self.s.spec.tests}
        keep = [i for i in items if getattr(i, "originalname", i.name) in listed]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.s.emit(
                {
                    "type": "grader_error",
                    "message": f"the hidden tests of {self.s.spec.id} "
                    f"could not be collected:\n{report.longreprtext[-4000:]}",
                }
            )

    # -- fixtures ---------------------------------------------------------------------------

    @pytest.fixture
    def learner(self, request: pytest.FixtureRequest) -> LearnerProxy:
        device = request.getfixturevalue("device") if "device" in request.fixturenames else None
        name = request.node.originalname
        return LearnerProxy(
            self.s.pool, device, test_seed(self.s.seed, name, device), self.s.max_answer_bytes
        )

    @pytest.fixture
    def seed(self, request: pytest.FixtureRequest) -> int:
        device = request.getfixturevalue("device") if "device" in request.fixturenames else None
        return test_seed(self.s.seed, request.node.originalname, device)

    @pytest.fixture
    def rng(self, seed: int) -> torch.Generator:
        """A CPU generator for the test's inputs; move them to ``device`` afterwards."""
        return torch.Generator().manual_seed(seed)

    @pytest.fixture
    def reference(self) -> Any:
        if self.s.reference_module is None:
            path = self.s.spec.solution_path
            name = f"reference_{self.s.spec.id.replace('-', '_')}"
            module_spec = importlib.util.spec_from_file_location(name, path)
            assert module_spec is not None and module_spec.loader is not None
            module = importlib.util.module_from_spec(module_spec)
            module_spec.loader.exec_module(module)
            self.s.reference_module = module
        return self.s.reference_module

    @pytest.fixture
    def exercise(self) -> ExerciseSpec:
        return self.s.spec

    @pytest.fixture
    def learner_source(self) -> str:
        return self.s.learner_source

    @pytest.fixture
    def attach(self, request: pytest.FixtureRequest) -> Attachments:
        return Attachments(self.s.attached.setdefault(request.node.nodeid, {}))

    # -- verdicts ---------------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._started[nodeid] = time.perf_counter()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo) -> Any:
        outcome = yield
        report = outcome.get_result()
        phases = self._phases.setdefault(item.nodeid, {})
        phases[call.when] = (call.excinfo, report)
        if call.when == "teardown":
            self._emit(item, phases)
            self._phases.pop(item.nodeid, None)

    def _emit(self, item: pytest.Item, phases: dict[str, Any]) -> None:
        name = getattr(item, "originalname", item.name)
        callspec = getattr(item, "callspec", None)
        device = callspec.params.get("device") if callspec is not None else None
        record: Record = {"type": "test", "name": name, "device": device}
        record.update(self._verdict(phases))
        output, truncated = self.s.pool.take_output()
        record["output"] = output
        record["output_truncated"] = truncated
        record["duration_s"] = round(
            time.perf_counter() - self._started.get(item.nodeid, time.perf_counter()), 4
        )
        record["data"] = _jsonable(self.s.attached.pop(item.nodeid, {}))
        codec.forget_decoded()
        self.s.emit(record)

    def _verdict(self, phases: dict[str, Any]) -> Record:
        setup_exc, setup_report = phases.get("setup", (None, None))
        if setup_report is not None and setup_report.skipped:
            reason = _skip_reason(setup_report)
            if reason == self.s.cuda_reason.en:
                return {"status": "skipped", "message": self.s.cuda_reason.to_dict()}
            return {"status": "skipped", "message": _both(reason)}
        if setup_exc is not None:
            return _grader_fault(setup_exc, "setting up")
        call_exc, call_report = phases.get("call", (None, None))
        if call_exc is None:
            teardown_exc, _ = phases.get("teardown", (None, None))
            if teardown_exc is not None:
                return _grader_fault(teardown_exc, "finishing")
            return {"status": "passed", "message": _both("")}
        exc = call_exc.value
        if call_report is not None and call_report.skipped:
            return {"status": "skipped", "message": _both(_skip_reason(call_report))}
        if isinstance(exc, CheckFailed):
            return {
                "status": "failed",
                "message": exc.message.to_dict(),
                "evidence": list(exc.evidence),
                "check_data": _jsonable(exc.data),
            }
        if isinstance(exc, faults.LearnerFault):
            return {
                "status": exc.status,
                "message": exc.message.to_dict(),
                "evidence": list(exc.evidence),
                "frames": exc.frames,
                "error": {"type": exc.error.get("type"), "message": exc.error.get("message")}
                if exc.error
                else None,
            }
        if isinstance(exc, AssertionError):
            return {
                "status": "failed",
                "evidence": ["check_failed"],
                "message": Text(
                    "Your answer did not pass this check.", "你的答案没有通过这项检查。"
                ).to_dict(),
            }
        return _grader_fault(call_exc, "checking your answer")


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "skipped")


def _both(text: str) -> dict[str, str]:
    """A message in both languages: a reason from `grader.testing.skip` carries both."""
    if text.startswith(SKIP_PREFIX):
        try:
            data = json.loads(text[len(SKIP_PREFIX) :])
            return {"en": str(data["en"]), "zh": str(data["zh"])}
        except (ValueError, KeyError, TypeError):
            pass
    return {"en": text, "zh": text}


def _grader_fault(excinfo: Any, stage: str) -> Record:
    """An exception in the hidden test's own code: the grader's fault, never a point lost silently."""
    exc = excinfo.value
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    print(
        f"grader fault while {stage}:\n"
        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        file=sys.stderr,
    )
    return {
        "status": "error",
        "evidence": ["grader_fault"],
        "message": Text(
            f"The grader could not finish {stage} for this test ({detail[:300]}). This is a problem "
            "in the grader or in an unusual answer; tell your instructor.",
            f"评分器在{_STAGE_ZH.get(stage, stage)}时出错（{detail[:300]}）。这是评分器的问题，"
            "或你的答案比较特殊；请告诉你的老师。",
        ).to_dict(),
    }


_STAGE_ZH = {
    "setting up": "准备本测试",
    "finishing": "结束本测试",
    "checking your answer": "检查你的答案",
}


def _jsonable(value: Any, depth: int = 0) -> Any:
    """Data for the result JSON: numbers, strings, lists and dicts only."""
    if depth > 6:
        return None
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, torch.Tensor):
        return _jsonable(value.detach().cpu().tolist(), depth + 1)
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in value]
    return str(value)
