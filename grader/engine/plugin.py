"""The pytest plugin of the trusted worker: fixtures for hidden tests, and one verdict per test.

Registered as an object (``pytest.main(args, plugins=[GraderPlugin(...)])``). One pytest session
grades a group of submissions of one exercise: every test is parametrized over the submissions
and, if it takes ``device``, over the exercise's devices (CUDA cases are skipped with a reason
where there is no GPU). Tests run submission by submission; each submission has its own learner
children, ended as soon as its last test ends, when its results are reported as complete. Global
random state on this side is re-seeded before every test, so a result never depends on the
submissions graded before it.

It deselects anything the spec does not list, provides the fixtures hidden tests use
(``learner``, ``reference``, ``device``, ``rng``, ``seed``, ``exercise``, ``learner_source``,
``attach``), and turns each test's outcome into a plain-dict record: status, learner-facing message
in both languages, evidence for the diagnosis, frames in the learner's file, captured output.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import random
import sys
import time
import traceback
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pytest
import torch

from grader.engine.handback import Handback
from grader.engine.records import GraderErrorRecord, Record, SubmissionDone, TestRecord
from grader.engine.scoring import GRADER_FAULT
from grader.engine.slipped import Refined, refine
from grader.i18n import Text
from grader.notebooks import CellMap, line_en, line_zh, naming_lines_of
from grader.results import Frame, Status
from grader.sandbox import codec, faults
from grader.sandbox.forkserver import ENDED_WAIT_S
from grader.sandbox.pool import ChildPool
from grader.spec import ExerciseSpec
from grader.testing import measured, relations
from grader.testing.analysis import Finding
from grader.testing.checks import SKIP_PREFIX, CheckFailed, skip_reason
from grader.testing.proxy import LearnerProxy


@dataclass(frozen=True)
class GradedFile:
    """A learner's file as the trusted worker's plugin knows it: its hidden tests run against
    it through the proxy, never by importing it (the front ends keep what
    the learner handed in, before any request: :class:`~grader.serve.submission.Submission`)."""

    key: str  # how records name it
    source: str  # the learner's whole file, for static checks
    # what its static review found reaching into the grader or torch internals (kind, line,
    # message in English and Chinese): its in-process measurements cannot be believed
    review: tuple[Finding, ...] = ()
    cells: CellMap | None = None  # a notebook's: its messages name cells and their lines


@dataclass(frozen=True)
class Verdict:
    """How one test instance ended, before the worker adds its output and timing."""

    status: Status
    message: Text
    evidence: tuple[str, ...] = ()
    frames: tuple[Frame, ...] = ()
    error: dict[str, str] | None = None
    check_data: dict[str, Any] = field(default_factory=dict)
    fault: str = ""  # the traceback of the hidden tests' own exception, for authors


@dataclass
class GradingSession:
    """What the worker's fixtures and hooks share for one group of gradings."""

    spec: ExerciseSpec
    selected: tuple[str, ...]
    seed: int
    submissions: list[GradedFile]
    make_pool: Callable[[str], ChildPool]  # a fresh pool of learner children for a submission
    emit: Callable[[Record], None]
    cuda_available: bool
    cuda_reason: Text
    # the evidence tags the course's diagnoses name, read by the grading process before it
    # forked this worker (DiagnosisCatalog.named_evidence)
    named_tags: frozenset[str]
    max_answer_bytes: int = 256 << 20
    # where the grading process says which submissions it handed to another worker
    handback: Handback = field(default_factory=lambda: Handback(None))
    reference_module: Any = None
    attached: dict[str, dict[str, Any]] = field(default_factory=dict)
    pools: dict[str, ChildPool] = field(default_factory=dict)
    closed: list[ChildPool] = field(default_factory=list)  # their children killed, maybe not gone

    def pool(self, key: str) -> ChildPool:
        """The submission's learner children (its time limit starts with its first child,
        which the worker starts as pytest starts up)."""
        if key not in self.pools:
            self.pools[key] = self.make_pool(key)
        return self.pools[key]

    def source(self, key: str) -> str:
        return next(s.source for s in self.submissions if s.key == key)

    def cells(self, key: str) -> CellMap | None:
        return next((s.cells for s in self.submissions if s.key == key), None)

    def review(self, key: str) -> tuple[Finding, ...]:
        return next(s.review for s in self.submissions if s.key == key)

    def finish(self, key: str) -> None:
        """End a submission's children and say its results are complete."""
        pool = self.pools.pop(key, None)
        if pool is not None:
            pool.close()
            self.closed.append(pool)
        self.emit(SubmissionDone(key))

    def close(self) -> None:
        """End every submission's children, and wait until they are gone: the grading is over
        only when no learner process of it is left. The waits come last, so that a group's
        next submission never waits for the last one's teardown."""
        for key in list(self.pools):
            pool = self.pools.pop(key)
            pool.close()
            self.closed.append(pool)
        deadline = time.monotonic() + ENDED_WAIT_S
        for pool in self.closed:
            pool.wait_ended(deadline)
        self.closed = []


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
    def __init__(self, session: GradingSession) -> None:
        self.s = session
        self._phases: dict[str, dict[str, Any]] = {}
        self._started: dict[str, float] = {}
        self._order: dict[str, int] = {}  # key -> its place in the group (grader.engine.handback)

    def pytest_configure(self, config: pytest.Config) -> None:
        # A test's failure is never formatted (``_report``); what pytest still formats is a
        # failed collection's (reported as a grader error). Its default style ("long") parses
        # the source of every frame with ast and probes every module in sys.modules; "native"
        # is the standard library's plain traceback.
        # (``--tb`` itself belongs to the terminal plugin, which the worker leaves out.)
        config.option.tbstyle = "native"

    # -- collection -------------------------------------------------------------------------

    def pytest_generate_tests(self, metafunc: pytest.Metafunc) -> None:
        keys = [s.key for s in self.s.submissions]
        metafunc.parametrize("submission", keys, ids=[f"s{i}" for i in range(len(keys))])
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
                reason = self.s.cuda_reason
                marks.append(pytest.mark.skip(reason=skip_reason(reason.en, reason.zh)))
            params.append(pytest.param(device, id=device, marks=marks))
        metafunc.parametrize("device", params)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        listed = {t.name for t in self.s.spec.tests}
        keep = [i for i in items if getattr(i, "originalname", i.name) in listed]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        # submission by submission, each in the spec's order of tests
        order = self._order = {s.key: n for n, s in enumerate(self.s.submissions)}
        keep.sort(key=lambda item: order.get(_submission(item) or "", -1))
        items[:] = keep

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: pytest.Item | None) -> Any:
        key = _submission(item)
        with naming_lines_of(self.s.cells(key) if key is not None else None):
            yield
        if key is not None and (nextitem is None or _submission(nextitem) != key):
            self.s.finish(key)
            following = _submission(nextitem) if nextitem is not None else None
            if following is not None and self.s.handback.stops_before(
                self._order.get(following, -1)
            ):
                # the rest of the group went to another worker: stop as ``-x`` does
                item.session.shouldstop = "the rest of this group was handed to another worker"

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.s.emit(
                GraderErrorRecord(
                    f"the hidden tests of {self.s.spec.id} could not be collected:\n"
                    f"{report.longreprtext[-4000:]}"
                )
            )

    # -- fixtures ---------------------------------------------------------------------------

    @pytest.fixture
    def submission(self) -> str:  # parametrized over the group's submissions
        raise RuntimeError("submission is parametrized by the grader's plugin")

    @pytest.fixture(autouse=True)
    def _reseed(self, seed: int, submission: str) -> None:
        """The trusted side's global random state, the same before every test instance.

        Without a usable GPU the CPU generator is all ``torch.manual_seed`` changes here; it
        would also capture a formatted stack for each lazily seeded accelerator (a few ms at
        pytest's depth, on every test instance), so only a worker with CUDA pays for that.
        """
        random.seed(seed)
        np.random.seed(seed % (2**32))
        if self.s.cuda_available:
            torch.manual_seed(seed)
        else:
            torch.default_generator.manual_seed(seed)

    @pytest.fixture
    def learner(self, request: pytest.FixtureRequest, submission: str, seed: int) -> LearnerProxy:
        device = request.getfixturevalue("device") if "device" in request.fixturenames else None
        try:
            input_check = self.s.spec.test(request.node.originalname).input_check
        except KeyError:
            input_check = True
        return LearnerProxy(
            self.s.pool(submission), device, seed, self.s.max_answer_bytes, input_check
        )

    @pytest.fixture
    def seed(self, request: pytest.FixtureRequest) -> int:
        """The test instance's seed: its identity (name, device) and the grading's seed."""
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
    def learner_source(self, submission: str) -> str:
        return self.s.source(submission)

    @pytest.fixture
    def attach(self, request: pytest.FixtureRequest) -> Attachments:
        return Attachments(self.s.attached.setdefault(request.node.nodeid, {}))

    # -- verdicts ---------------------------------------------------------------------------

    def pytest_runtest_logstart(self, nodeid: str, location: Any) -> None:
        self._started[nodeid] = time.perf_counter()
        measured.reset()
        relations.forget()

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> pytest.TestReport:
        report = _report(item, call)
        phases = self._phases.setdefault(item.nodeid, {})
        phases[call.when] = (call.excinfo, report)
        if call.when == "teardown":
            self._emit(item, phases)
            self._phases.pop(item.nodeid, None)
        return report

    def _emit(self, item: pytest.Item, phases: dict[str, Any]) -> None:
        name = getattr(item, "originalname", item.name)
        callspec = getattr(item, "callspec", None)
        device = callspec.params.get("device") if callspec is not None else None
        key = _submission(item)
        verdict = self._verdict(phases)
        if verdict.status is Status.PASSED and key is not None:
            verdict = _believed(verdict, self.s.review(key), measured.taken())
        if verdict.status is Status.PASSED and device == "meta" and key is not None:
            verdict = self._same_on_every_device(verdict, name, key)
        elif device == "meta" and key is not None and _reads_on_meta(verdict):
            verdict = self._judged_from_source(name, key)
        if key in self.s.pools:
            output, truncated = self.s.pools[key].take_output()
        else:
            output, truncated = "", False
        data = _jsonable(self.s.attached.pop(item.nodeid, {}))
        if verdict.status in (Status.FAILED, Status.ERROR) and key is not None:
            refined = self._with_slip(verdict, name, key, output)
            if refined is not None:
                verdict = replace(verdict, message=refined.message, evidence=refined.evidence)
                data["slip"] = {"line": refined.line}
        if verdict.check_data:
            data["check"] = verdict.check_data
        codec.forget_decoded()
        self.s.emit(
            TestRecord(
                submission=str(key),
                name=name,
                device=device,
                status=verdict.status,
                message=verdict.message,
                evidence=verdict.evidence,
                frames=verdict.frames,
                error=verdict.error,
                output=output,
                output_truncated=truncated,
                duration_s=round(
                    time.perf_counter() - self._started.get(item.nodeid, time.perf_counter()), 4
                ),
                data=data,
                fault=verdict.fault,
            )
        )

    def _with_slip(self, verdict: Verdict, name: str, key: str, output: str) -> Refined | None:
        """The failure explained by a slip on the learner's own line, where they agree
        (:mod:`grader.engine.slipped`); read from the source on this side."""
        if GRADER_FAULT in verdict.evidence:
            return None
        try:
            functions: tuple[str, ...] = self.s.spec.test(name).functions
        except KeyError:
            functions = ()
        called = tuple(dict.fromkeys([*measured.functions(), *functions]))
        return refine(
            verdict.message,
            verdict.evidence,
            verdict.error,
            output,
            self.s.source(key),
            called,
            self.s.named_tags,
        )

    def _same_on_every_device(self, verdict: Verdict, name: str, key: str) -> Verdict:
        """A meta case stands in for a GPU only for code that runs the same way on every
        device: code that honours the device only when it is meta would pass it. So a passed
        meta case also needs the functions it used never to decide by the device (read from
        the source on this side; fail closed when it cannot be read)."""
        from grader.testing.analysis import Unanalysable
        from grader.testing.devices import CATCHES, device_slips

        try:
            spec = self.s.spec.test(name)
        except KeyError:
            spec = None
        if spec is not None and not spec.same_on_every_device:
            return verdict  # the function inspects the device by design (the spec says so)
        test_functions: tuple[str, ...] = spec.functions if spec is not None else ()
        source = self.s.source(key)
        for function in dict.fromkeys([*measured.functions(), *test_functions]):
            try:
                slips = device_slips(source, function)
            except Unanalysable as exc:
                return Verdict(
                    Status.FAILED,
                    Text(
                        f"The grader could not read your file to check {function} on the meta "
                        f"device ({exc.problem.en})",
                        f"评分器无法读取你的文件，无法在 meta 设备上检查 {function}（{exc.problem.zh}）",
                    ),
                    evidence=("wrong_device", "source_unanalysable"),
                )
            caught = [line for line, why in slips if why == CATCHES]
            if caught:
                return Verdict(
                    Status.FAILED,
                    Text(
                        f"{function} catches errors of the code it runs ({line_en(caught[0])}). "
                        "The meta device stands in for a GPU here, and an operation that fails "
                        "on meta can work on a GPU (copying a tensor's data to the CPU), so code "
                        "that recovers from an error may take another path there: this case "
                        "cannot count for CUDA. Let errors of tensor operations propagate, and "
                        "create every tensor on the inputs' device from the start.",
                        f"{function} 捕获了它所运行代码的异常（{line_zh(caught[0])}）。这里用 meta "
                        "设备代替 GPU，而在 meta 上失败的运算在 GPU 上可能成功（例如把张量的数据复制"
                        "到 CPU），所以从异常中恢复的代码在 GPU 上可能走另一条路径：本用例不能代表 "
                        "CUDA。请让张量运算的异常直接抛出，并从一开始就在输入所在的设备上创建每个张量。",
                    ),
                    evidence=("wrong_device", "device_exception_caught"),
                )
            if slips:
                line = slips[0][0]
                return Verdict(
                    Status.FAILED,
                    Text(
                        f"{function} decides by the device it runs on ({line_en(line)}). The meta "
                        "device stands in for a GPU here, which only works for code that runs "
                        "the same way on every device; create tensors on the inputs' device "
                        "(device=x.device, torch.zeros_like) and never test which device it is.",
                        f"{function} 根据运行的设备做了判断（{line_zh(line)}）。这里用 meta 设备代替 "
                        "GPU，而这只适用于在任何设备上都以同样方式运行的代码；请在输入所在的设备上"
                        "创建张量（device=x.device、torch.zeros_like），并且不要判断当前是哪个设备。",
                    ),
                    evidence=("wrong_device", "device_branch"),
                )
        return verdict

    def _judged_from_source(self, name: str, key: str) -> Verdict:
        """A meta case the learner's code could not run because it reads tensor values (an
        assert on the inputs, ``.item()``, ``x[mask]``): meta tensors have no values, yet on a
        GPU such code runs, and correct code failed here on every machine. The case is judged
        where it can be, from the source: the functions it used must make every tensor on
        their inputs' device and never decide by the device (fail closed when the file cannot
        be read); then it is skipped, said why, and does not count."""
        from grader.testing.devices import assert_device_follows

        try:
            spec = self.s.spec.test(name)
        except KeyError:
            spec = None
        test_functions: tuple[str, ...] = spec.functions if spec is not None else ()
        source = self.s.source(key)
        try:
            for function in dict.fromkeys([*measured.functions(), *test_functions]):
                assert_device_follows(source, function, function)
        except CheckFailed as exc:
            return Verdict(Status.FAILED, exc.message, evidence=tuple(exc.evidence))
        return Verdict(
            Status.SKIPPED,
            Text(
                "Your code reads tensor values (.item(), an assert or if on a tensor, x[mask]), "
                "which the meta device, standing in for a GPU here, cannot do: it has no values. "
                "Your source was checked for the device instead (every tensor made on the "
                "inputs' device, no test of which device it is), and this case does not count",
                "你的代码读取了张量的值（.item()、对张量做 assert 或 if、x[mask]），而这里代替 GPU 的 "
                "meta 设备没有数值，无法运行这样的代码。因此改为检查你的源代码是否遵循设备（每个张量都"
                "创建在输入所在的设备上，不判断当前是哪个设备），本用例不计分",
            ),
        )

    def _verdict(self, phases: dict[str, Any]) -> Verdict:
        setup_exc, setup_report = phases.get("setup", (None, None))
        if setup_report is not None and setup_report.skipped:
            return Verdict(Status.SKIPPED, _both(_skip_reason(setup_report)))
        if setup_exc is not None:
            return _grader_fault(setup_exc, "setting up", self._own_files())
        call_exc, call_report = phases.get("call", (None, None))
        if call_exc is None:
            teardown_exc, _ = phases.get("teardown", (None, None))
            if teardown_exc is not None:
                return _grader_fault(teardown_exc, "finishing", self._own_files())
            return Verdict(Status.PASSED, _both(""))
        exc = call_exc.value
        if call_report is not None and call_report.skipped:
            return Verdict(Status.SKIPPED, _both(_skip_reason(call_report)))
        if isinstance(exc, CheckFailed):
            return Verdict(
                Status.FAILED,
                exc.message,
                evidence=tuple(exc.evidence),
                check_data=_jsonable(exc.data),
            )
        if isinstance(exc, faults.LearnerFault):
            return Verdict(
                Status(exc.status),
                exc.message,
                evidence=tuple(exc.evidence),
                frames=tuple(Frame(f.line, f.function, f.code) for f in exc.frames),
                error=exc.error.summary() if exc.error is not None else None,
            )
        if isinstance(exc, AssertionError):
            return Verdict(
                Status.FAILED,
                Text("Your answer did not pass this check.", "你的答案没有通过这项检查。"),
                evidence=("check_failed",),
            )
        return _grader_fault(call_exc, "checking your answer", self._own_files())

    def _own_files(self) -> tuple[str, ...]:
        """The exercise's files whose frames an author's traceback starts at."""
        spec = self.s.spec
        return (str(spec.test_path), str(spec.solution_path))


def _believed(verdict: Verdict, review: tuple[Finding, ...], used: tuple[str, ...]) -> Verdict:
    """A pass that rests on what the learner's process reported about itself (``used``) stands
    only when the file does not reach into the grader or torch internals; otherwise the test
    fails until an instructor has looked (fail closed: a forged measurement only loses)."""
    if not review or not used:
        return verdict
    # the reach-in the message names, if any: a file that also could not be read is named so
    first = next((f for f in review if f.kind != "unanalysable"), review[0])
    if first.kind == "unanalysable":
        return Verdict(
            Status.FAILED,
            Text(
                f"This check rests on what your code's own process measured ({', '.join(used)}), "
                f"and the grader could not read your file as Python reads it "
                f"({line_en(first.line)}: {first.en}), so it cannot tell whether your code changes "
                "such measurements: the check cannot count them.",
                f"这项检查依赖你的代码所在进程自己的测量（{'、'.join(used)}），而评分器无法像 Python 那样"
                f"读取你的文件（{line_zh(first.line)}：{first.zh}），因此无法判断你的代码是否改变了这些"
                "测量，所以这项检查不能采信它们。",
            ),
            evidence=("needs_review",),
        )
    return Verdict(
        Status.FAILED,
        Text(
            f"This check rests on what your code's own process measured ({', '.join(used)}), and "
            f"your file reaches into the grader's or PyTorch's internals ({line_en(first.line)}: "
            f"{first.en}), which could change such measurements: the check cannot count them. "
            "Remove that code if it is not needed.",
            f"这项检查依赖你的代码所在进程自己的测量（{'、'.join(used)}），而你的文件触及了评分器或 "
            f"PyTorch 的内部（{line_zh(first.line)}：{first.zh}），这可能改变这些测量，所以这项检查"
            "不能采信它们。如果不需要那段代码，请删掉它。",
        ),
        evidence=("needs_review",),
    )


# What PyTorch says when code reads the values of a meta tensor, which has none: a value
# brought into Python, or an operation whose result's shape depends on the values.
_META_READS = (
    "cannot be called on meta tensors",
    "register_meta function for torch.nonzero",
    "with Meta tensors, but there was no fake impl or Meta kernel",
    "a meta tensor without output_size",
)


def _reads_on_meta(verdict: Verdict) -> bool:
    """A failed meta case whose cause is the learner's code reading values on meta."""
    if verdict.status not in (Status.FAILED, Status.ERROR) or GRADER_FAULT in verdict.evidence:
        return False
    said = [verdict.message.en, str((verdict.error or {}).get("message", ""))]
    return any(sign in text for text in said for sign in _META_READS)


def _submission(item: pytest.Item) -> str | None:
    callspec = getattr(item, "callspec", None)
    return callspec.params.get("submission") if callspec is not None else None


def _skip_reason(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2]).removeprefix("Skipped: ")
    return str(longrepr or "skipped")


def _both(text: str) -> Text:
    """A message in both languages: a reason from `grader.testing.skip` carries both."""
    if text.startswith(SKIP_PREFIX):
        try:
            data = json.loads(text[len(SKIP_PREFIX) :])
            return Text(str(data["en"]), str(data["zh"]))
        except (ValueError, KeyError, TypeError):
            pass
    return Text(text, text)


# exception groups (Python 3.11+), which pytest reports as skipped when every member is a skip
_GROUPS: tuple[type[BaseException], ...] = tuple(
    t for t in (getattr(builtins, "BaseExceptionGroup", None),) if t is not None
)


def _report(item: pytest.Item, call: pytest.CallInfo[None]) -> pytest.TestReport:
    """pytest's report of one phase, less what nobody reads: a failure's formatted traceback.

    A verdict is made from the phase's exception (``_verdict``), and a worker shows no
    terminal, so pytest's ``longrepr`` of a failure is never read; formatting it (every frame
    of pytest's and the test's stack, each source line parsed for Python 3.11's carets) was
    a third of a worker's time on a class of broken submissions. Passes and skips (whose
    reason is read, :func:`_skip_reason`) are pytest's own reports."""
    excinfo = call.excinfo
    when = call.when
    assert when != "collect"  # a test item's phases only
    if excinfo is None or isinstance(excinfo.value, (pytest.skip.Exception, *_GROUPS)):
        return pytest.TestReport.from_item_and_call(item, call)
    return pytest.TestReport(
        item.nodeid,
        item.location,
        dict.fromkeys(item.keywords, 1),
        "failed",
        f"{excinfo.typename} (the grader reads the exception, not this report)",
        when,
        [(f"Captured {key} {phase}", content) for phase, key, content in item._report_sections],
        call.duration,
        call.start,
        call.stop,
        user_properties=item.user_properties,
    )


def _grader_fault(excinfo: Any, stage: str, own: tuple[str, ...] = ()) -> Verdict:
    """An exception in the hidden test's own code: the grader's fault, never a point lost silently.

    The learner's message names the exception only; its traceback (from the first frame in
    ``own``, the exercise's tests or reference, else without pytest's frames) goes to the
    verdict's ``fault``, which reaches authors (``grade validate``, ``grade ID --debug``) and
    never a Result."""
    exc = excinfo.value
    detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    print(
        f"grader fault while {stage}:\n"
        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
        file=sys.stderr,
    )
    return Verdict(
        Status.ERROR,
        Text(
            f"The grader could not finish {stage} for this test ({detail[:300]}). This is a problem "
            "in the grader or in an unusual answer; tell your instructor.",
            f"评分器在{_STAGE_ZH.get(stage, stage)}时出错（{detail[:300]}）。这是评分器的问题，"
            "或你的答案比较特殊；请告诉你的老师。",
        ),
        evidence=(GRADER_FAULT,),
        fault=author_traceback(exc, own),
    )


MAX_FAULT_CHARS = 12_000


def author_traceback(exc: BaseException, own: tuple[str, ...] = ()) -> str:
    """``exc``'s traceback as an author reads it: from the first frame in one of the ``own``
    files (``tests.py``, with its line), or, when none is there, without pytest's and pluggy's
    frames; the end is kept when it is long."""
    details = traceback.TracebackException(type(exc), exc, exc.__traceback__)
    frames = list(details.stack)
    start = next((i for i, f in enumerate(frames) if f.filename in own), None)
    if start is not None:
        frames = frames[start:]
    else:
        frames = [f for f in frames if not any(p in f.filename for p in _RUNNER_PARTS)]
    details.stack = traceback.StackSummary.from_list(frames)
    text = "".join(details.format()).rstrip()
    return text if len(text) <= MAX_FAULT_CHARS else "...\n" + text[-MAX_FAULT_CHARS:]


_RUNNER_PARTS = ("/_pytest/", "/pluggy/")


_STAGE_ZH = {
    "setting up": "准备本测试",
    "finishing": "结束本测试",
    "checking your answer": "检查你的答案",
}


def _jsonable(value: Any, depth: int = 0) -> Any:
    """Data for the result JSON: numbers, strings, lists and dicts only."""
    if depth > 6:
        return None
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, float):
        value = float(value)
        return value if value == value and abs(value) != float("inf") else str(value)
    if isinstance(value, torch.Tensor):
        return _jsonable(value.detach().cpu().tolist(), depth + 1)
    if isinstance(value, dict):
        return {str(k): _jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v, depth + 1) for v in value]
    return str(value)
