"""The ``learner`` fixture: hidden tests call the learner's functions through this proxy.

``learner.pairwise_distance(x)`` encodes ``x``, sends the call to the learner's child for the
test's device, and returns the decoded answer: plain data, tensors rebuilt as exactly
``torch.Tensor``. ``learner.run(scenario, ...)`` sends a module-level helper of the test file (as
source) to run next to the learner's module, for work that must happen there (building a model and
training it with the learner's loop). ``learner.last`` is the :class:`CallRecord` of the latest
call: the inputs as they were afterwards, what was traced, how long it took.

By the curriculum's rule, functions must not modify their inputs: every call compares the inputs
sent with the inputs as they came back and fails the test if any changed (values, dtype, shape,
``requires_grad`` or ``.grad``), unless the test passes ``allow_mutation=True`` or its spec entry
says ``input_check: false`` (so that one requirement is checked by its own tests only).
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from grader.i18n import Text
from grader.sandbox import codec, faults
from grader.sandbox.messages import Answer, ErrorInfo
from grader.sandbox.pool import ChildPool
from grader.testing import measured, relations
from grader.testing.checks import fail
from grader.testing.mutation import input_change


@dataclass
class CallRecord:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    value: Any = None
    after_args: list[Any] | None = None
    after_kwargs: dict[str, Any] | None = None
    ops: int | None = None
    functions: dict[str, int] = field(default_factory=dict)
    aten_ops: dict[str, int] = field(default_factory=dict)  # ATen operator -> calls
    duration_s: float = 0.0


def device_kind(device: str | None) -> str:
    return "cuda" if device is not None and str(device).startswith("cuda") else "cpu"


class LearnerProxy:
    """Calls into the learner's code for one test, on one device's child."""

    def __init__(
        self,
        pool: ChildPool,
        device: str | None,
        seed: int,
        max_answer_bytes: int,
        input_check: bool = True,
    ) -> None:
        self._pool = pool
        self._input_check = input_check
        self.device = device
        self._kind = device_kind(device)
        self._seed = seed
        self._max_answer = max_answer_bytes
        self._calls = 0
        self.last: CallRecord | None = None

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return self.call(name, *args, **kwargs)

        call.__name__ = name
        return call

    @property
    def functions(self) -> list[str]:
        """The callables the learner's module defines."""
        return self._pool.functions(self._kind)

    def call(
        self,
        name: str,
        *args: Any,
        trace: bool = False,
        allow_mutation: bool | None = None,
        **kwargs: Any,
    ) -> Any:
        record = CallRecord(name, args, kwargs)
        measured.called(name)
        relations.remember(args, kwargs)
        if trace:
            measured.note("operation counts")
        answer, blobs = self._send("call", name, list(args), kwargs, trace)
        self._finish(record, answer, blobs, name)
        if answer.error is not None:
            fault = faults.raised(answer.error, name)
            relation = relations.paired_rows(answer.error.message)
            if relation is not None and isinstance(fault, faults.LearnerRaised):
                fault.message = Text(
                    f"{fault.message.en} {relation.en}", f"{fault.message.zh}{relation.zh}"
                )
                fault.evidence = (*fault.evidence, relation.tag)
            raise fault
        check = not (self._allows_mutation() if allow_mutation is None else allow_mutation)
        # Fail closed: the inputs as they were after the call are required wherever they are
        # judged; an answer without them (or with something else) cannot pass the check.
        after = self._after(answer, blobs) if answer.has_after else None
        if after is None:
            if check:
                raise _unverifiable(name)
            return record.value
        record.after_args, record.after_kwargs = after
        if check:
            measured.note("the inputs as they were after the call")
            self._check_inputs(record)
        return record.value

    def _after(
        self, answer: Answer, blobs: list[bytearray]
    ) -> tuple[list[Any], dict[str, Any]] | None:
        try:
            after = codec.decode(
                {"value": answer.after, "storages": list(answer.storages)},
                blobs,
                keep_info=True,
            )
        except (codec.CodecError, TypeError, ValueError, RuntimeError):
            return None
        if not (
            isinstance(after, dict)
            and isinstance(after.get("args"), list)
            and isinstance(after.get("kwargs"), dict)
        ):
            return None
        return after["args"], after["kwargs"]

    def _allows_mutation(self) -> bool:
        """By default a call's inputs are checked, unless the test's spec entry says
        ``input_check: false`` (another test owns the "leaves its inputs alone" requirement)."""
        return not self._input_check

    def function(self, fn: Callable[..., Any]) -> codec.Scenario:
        """A module-level function of the test file, to pass as an argument of a learner call
        (e.g. ``learner.derivative(learner.function(square), 3.0)``): it is sent as source and
        rebuilt in the learner's process."""
        return _scenario(fn)

    def run(
        self, scenario: Callable[..., Any], *args: Any, trace: bool = False, **kwargs: Any
    ) -> Any:
        """Run ``scenario(learner_module, *args, **kwargs)`` next to the learner's code."""
        source = _scenario(scenario)
        record = CallRecord(scenario.__name__, args, kwargs)
        measured.note("a scenario run in your process")
        relations.remember(args, kwargs)
        answer, blobs = self._send("run", scenario.__name__, [source, *args], kwargs, trace)
        self._finish(record, answer, blobs, scenario.__name__)
        if answer.error is not None:
            function = _innermost_function(answer.error) or scenario.__name__
            raise faults.raised(answer.error, function)
        return record.value

    def _send(
        self, op: str, name: str, args: list[Any], kwargs: dict[str, Any], trace: bool
    ) -> tuple[Answer, list[bytearray]]:
        self._calls += 1
        payload, blobs = codec.encode((args, kwargs))
        header = {
            "op": op,
            "name": name,
            "payload": payload,
            "trace": trace,
            "seed": (self._seed * 1_000_003 + self._calls) % (2**63),
        }
        return self._pool.request(self._kind, header, blobs, name, self._max_answer)

    def _finish(
        self, record: CallRecord, answer: Answer, blobs: list[bytearray], name: str
    ) -> None:
        self.last = record
        record.duration_s = answer.duration_s
        if answer.trace is not None:
            record.ops = answer.trace.ops
            record.functions = dict(answer.trace.functions)
            record.aten_ops = dict(answer.trace.aten)
        if answer.ok:
            try:
                record.value = codec.decode(
                    {"value": answer.value, "storages": list(answer.storages)},
                    blobs,
                    keep_info=True,
                )
            except (codec.CodecError, KeyError, TypeError, ValueError, RuntimeError) as exc:
                raise faults.AnswerUnreadable(
                    Text(
                        f"{name} returned a value the grader cannot read ({exc}).",
                        f"{name} 返回了评分器无法读取的值（{exc}）。",
                    ),
                    evidence=("unreadable_answer",),
                ) from None

    def _check_inputs(self, record: CallRecord) -> None:
        before = {f"args[{i}]": v for i, v in enumerate(record.args)}
        before.update({f"kwargs[{k!r}]": v for k, v in record.kwargs.items()})
        after = {f"args[{i}]": v for i, v in enumerate(record.after_args or [])}
        after.update({f"kwargs[{k!r}]": v for k, v in (record.after_kwargs or {}).items()})
        if set(before) != set(after):
            raise _unverifiable(record.name)
        for path, value in before.items():
            problem = input_change(value, after[path])
            if problem:
                en, zh, evidence = problem
                position = _argument_name(record.name, path)
                fail(
                    f"{record.name} changed its input {position}: {en} Functions must leave their "
                    "inputs as they were; work on a copy (e.g. x.clone()) or use out-of-place "
                    "operations (x = x - m instead of x -= m).",
                    f"{record.name} 修改了它的输入 {position}：{zh}函数不应修改输入；"
                    "请在副本上操作（例如 x.clone()），或使用非原地运算（x = x - m 而不是 x -= m）。",
                    evidence=("input_mutated", evidence),
                )


def _unverifiable(name: str) -> faults.AnswerUnreadable:
    return faults.AnswerUnreadable(
        Text(
            f"The grader could not check that {name} left its inputs as they were: the answer "
            "from your code did not include them as they were after the call.",
            f"评分器无法检查 {name} 是否保持输入不变：你的代码返回的答案中没有调用之后的输入。",
        ),
        evidence=("unreadable_answer",),
    )


def _argument_name(function: str, path: str) -> str:
    """``args[0]`` -> ``argument 1``; ``kwargs['x']`` -> ``argument x``."""
    if path.startswith("args["):
        return f"argument {int(path[5:-1]) + 1}"
    return f"argument {path[7:-1].strip(chr(39))}"


_SCENARIOS: dict[Callable[..., Any], codec.Scenario] = {}


def _scenario(func: Callable[..., Any]) -> codec.Scenario:
    """A module-level function of a test file, as source to run on the learner's side."""
    cached = _SCENARIOS.get(func)
    if cached is None:
        if not inspect.isfunction(func) or func.__qualname__ != func.__name__:
            raise TypeError(f"learner.run() needs a module-level function, got {func!r}")
        source = textwrap.dedent(inspect.getsource(func))
        cached = codec.Scenario(func.__name__, source, f"<scenario {func.__name__}>")
        _SCENARIOS[func] = cached
    return cached


def _innermost_function(error: ErrorInfo) -> str:
    """The learner's function the error arose in (not a comprehension or lambda inside it)."""
    for frame in reversed(error.frames):
        if frame.function and not frame.function.startswith("<"):
            return frame.function
    return ""
